"""The instruction roofline plot (``plot --kind instruction``): per report, each kernel at its longest launch on
the Instruction Roofline Model (``analysis.instructions``), in up to three panels side by side:

* warp GIPS against warp instructions per 32-byte transaction at each memory level, under the issue peak and each
  level's transaction roof;
* the memory walls: global loads and stores (sectors) and shared loads and stores (wavefronts) per warp instruction,
  beside the walls (stride 0, unit stride, scattered; no conflict, 32-way conflict), the unit-stride and no-conflict
  ones at the bytes per thread the kernels' SASS moves, one per width shown and labelled with it (4-byte words,
  labelled "assumed", where a report has no per-opcode SASS counts);
* the integer roofline, where the report counts integer instructions: integer GIOPS against integer instructions
  per byte, under the integer pipe's peak and each level's byte roof.

What no kernel has is named in the notes under the panels, with the reason. The data is built first (pure) and
drawn after, as ``report.plot`` does."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from roofline.analysis.instructions import GLOBAL_WALLS, SHARED_WALLS, WIDTH_WALLS
from roofline.analysis.launches import ReportAnalysis
from roofline.core.labels import LEGEND_KERNELS, NAMES
from roofline.core.model import LEVELS, memory_roof, roof_intensity
from roofline.core.units import ratio, si
from roofline.render.mpl import (
    NOTE_LINE_IN,
    LabelPlacer,
    PlotFormat,
    figure,
    freeze_layout,
    log_axes,
    middle,
    to_bytes,
    wrap,
)
from roofline.render.names import plot_text, short_group_name
from roofline.render.report.plot import DPI, LEVEL_MARKERS, PALETTE

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from matplotlib.transforms import Bbox

    from roofline.analysis.results import InstructionRoofline, LaunchAnalysis

WALL_POINTS = {("global", "ld"): "v", ("global", "st"): "D", ("shared", "ld"): "<", ("shared", "st"): ">"}
WALL_NAMES = {"stride_0": "stride 0", "unit_stride": "unit stride", "scattered": "scattered",
              "no_conflict": "no bank conflict", "conflict_32_way": "32-way conflict"}
FOUR_BYTE_WALLS = {"global": GLOBAL_WALLS, "shared": SHARED_WALLS}
LABEL_CHARS = 30
TITLE_CHARS = 48
PANEL_WIDTH_IN, PANEL_HEIGHT_IN = 4.6, 4.2
LEGEND_HEIGHT_IN = 0.9
NOTHING = "has a warp instruction rate with an intensity at a memory level or a wall"
FIX = "re-profile with --set full (InstructionStats and MemoryWorkloadAnalysis_Tables sections)"


@dataclass(frozen=True)
class KernelMarks:
    """One kernel's positions (its longest launch): None or absent where not measured."""

    label: str
    warp_gips: float | None
    intensity: Mapping[str, float]  # per level: warp instructions per transaction
    walls: Mapping[tuple[str, str], float]  # (space, op): warp instructions per transaction
    # (space, op): its wall at its width, the bytes per thread and whether they are a mean of several widths
    width_walls: Mapping[tuple[str, str], tuple[float, float, bool]]
    integer_giops: float | None
    integer_intensity: Mapping[str, float]  # per level: integer instructions per byte

    @property
    def placed(self) -> bool:
        """Whether any panel draws a point of the kernel: a rate with an intensity at some level or a wall."""
        return (bool(self.warp_gips) and bool(self.intensity or self.walls)
                or self.integer_giops is not None and bool(self.integer_intensity))


@dataclass(frozen=True)
class ReportMarks:
    """One report's row of panels: its kernels and the roofs of its longest kernel's launch."""

    title: str
    kernels: tuple[KernelMarks, ...]
    peak_warp_gips: float | None
    transaction_roofs: Mapping[str, float]  # per level: G transactions/s
    walls: Mapping[str, Mapping[str, float]]  # space -> wall label -> warp instructions per transaction
    integer_peak_giops: float | None
    byte_roofs: Mapping[str, float]  # per level: GB/s
    notes: tuple[str, ...]

    @property
    def has_integer(self) -> bool:
        return any(k.integer_giops is not None for k in self.kernels)


def plot_data(analyses: Sequence[ReportAnalysis], top: int) -> tuple[ReportMarks, ...]:
    """Each report's kernels (the ``top`` longest) on the instruction roofline; reports with none placed (a rate
    without an intensity places nothing) are left out."""
    found = (_report(a, top) for a in analyses)
    return tuple(r for r in found if any(k.placed for k in r.kernels))


def _report(analysis: ReportAnalysis, top: int) -> ReportMarks:
    groups = [g for g in analysis.groups if g.longest.instruction_roofline is not None][:top]
    kernels = tuple(_kernel(short_group_name(g.name, g.functions, g.by), g.longest) for g in groups)
    lead = groups[0].longest if groups else None
    r = lead.instruction_roofline if lead is not None else None
    notes = [f"{k.label}: not placed, {_why(g.longest)}" for k, g in zip(kernels, groups, strict=True)
             if k.warp_gips is None]
    notes += [f"{k.label}: integer rate above the ALU pipe's peak, as integer multiplies (IMAD) issue to the FMA "
              "pipe beside the ALU" for k, g in zip(kernels, groups, strict=True)
              if (i := g.longest.instruction_roofline) is not None and (i.integer.pct_of_peak.value or 0) > 100]
    if r is not None and r.integer.giops.value is None:
        notes.append(f"no integer roofline: {r.integer.giops.reason}")
    if r is not None and r.peak_warp_gips.value is None:
        notes.append(f"no issue peak: {r.peak_warp_gips.reason}")
    if r is not None:
        notes += [f"no {NAMES[level]} transaction roof: {v.reason}" for level, v in r.peak_gtxn_per_s.items()
                  if v.value is None]
    title = (f"{middle(plot_text(Path(analysis.report.path).name), TITLE_CHARS)}: "
             f"{middle(analysis.device.name, TITLE_CHARS)}")
    if r is None or lead is None:
        return ReportMarks(title, kernels, None, {}, {}, None, {}, tuple(notes))
    bytes_roofs = lead.ceilings[r.ceilings].bytes_per_s
    return ReportMarks(
        title=title, kernels=kernels, peak_warp_gips=r.peak_warp_gips.value,
        transaction_roofs={lv: v.value for lv, v in r.peak_gtxn_per_s.items() if v.value},
        walls=_walls_shown(r, kernels),
        integer_peak_giops=r.integer.peak_giops.value,
        byte_roofs={lv: b / 1e9 for lv in LEVELS if (b := bytes_roofs[lv])}, notes=tuple(notes))


def _kernel(label: str, analysis: LaunchAnalysis) -> KernelMarks:
    r = analysis.instruction_roofline
    assert r is not None
    spaces = (("global", r.global_memory), ("shared", r.shared_memory))
    walls = {(space, op): v.value for space, w in spaces for op, v in w.intensity.items() if v.value}
    widths = {(space, op): (x, w.width_bytes[op], w.width_mixed.get(op, False)) for space, w in spaces
              for op, x in w.width_walls.items()}
    return KernelMarks(label, r.warp_gips.value, {lv: v.value for lv, v in r.intensity.items() if v.value}, walls,
                       widths,
                       r.integer.giops.value,
                       {lv: v.value for lv, v in r.integer.intensity.items() if v.value})


def _walls_shown(r: InstructionRoofline, kernels: Sequence[KernelMarks]) -> dict[str, dict[str, float]]:
    """Per space, its walls by label: the width-independent ones of the lead launch and, per width of a placed
    point, its unit-stride or no-conflict wall; else the lead's 4-byte one ("assumed" beside points of no counted
    width)."""
    out: dict[str, dict[str, float]] = {}
    for space, w in (("global", r.global_memory), ("shared", r.shared_memory)):
        wide = WIDTH_WALLS[space][0]
        out[space] = {WALL_NAMES[name]: x for name, x in w.walls.items() if name != wide}
        shown = {(width, mixed): x for k in kernels for (s, op), (x, width, mixed) in k.width_walls.items()
                 if s == space and (s, op) in k.walls}
        placed = any(s == space for k in kernels for s, _ in k.walls)
        if not shown:  # the model's 4-byte wall
            out[space][f"{WALL_NAMES[wide]}, 4 B{' assumed' if placed else ''}"] = FOUR_BYTE_WALLS[space][wide]
        for (width, mixed), x in sorted(shown.items()):
            out[space][f"{WALL_NAMES[wide]}, {_width(width, mixed)}"] = x
    return out


def _width(width: float, mixed: bool) -> str:
    """Bytes per thread: where the accesses mix widths (``MemoryWalls.width_mixed``), their mean (4.38 B: 124 4-byte
    and 4 16-byte shared loads), which no one access moves, so it reads "mean"."""
    return f"mean {width:.3g} B" if mixed else f"{width:.3g} B"


def _why(analysis: LaunchAnalysis) -> str:
    r = analysis.instruction_roofline
    return r.warp_gips.reason if r is not None else "not computed"


# --- Drawing ---------------------------------------------------------------------------------------------------
def image(analyses: Sequence[ReportAnalysis], fmt: PlotFormat, top: int = LEGEND_KERNELS) -> bytes | None:
    """The instruction roofline plot of the reports as PNG, SVG or PDF bytes; None when no kernel of any report has
    a place on it."""
    data = plot_data(analyses, top or LEGEND_KERNELS)
    return draw(data, fmt) if data else None


def draw(reports: Sequence[ReportMarks], fmt: PlotFormat) -> bytes:
    """The figure as PNG, SVG or PDF bytes."""
    return to_bytes(figure_of(reports), fmt)


def figure_of(reports: Sequence[ReportMarks]) -> Figure:
    """One row of panels per report (the integer panel where some report has integer counts), its legend and notes
    under it."""
    columns = 3 if any(r.has_integer for r in reports) else 2
    width = columns * PANEL_WIDTH_IN
    notes = [wrap(r.notes, width - 0.4) for r in reports]
    rows: list[float] = []
    for lines in notes:
        rows += [PANEL_HEIGHT_IN, LEGEND_HEIGHT_IN + NOTE_LINE_IN * (len(lines) + 1)]
    fig = figure(width, sum(rows), constrained=True, dpi=DPI)
    grid = fig.add_gridspec(len(rows), columns, height_ratios=rows)
    drawn: list[tuple[list[Axes], ReportMarks]] = []
    for i, (r, lines) in enumerate(zip(reports, notes, strict=True)):
        axes = [fig.add_subplot(grid[2 * i, col]) for col in range(columns)]
        _hierarchy(axes[0], r)
        _walls(axes[1], r)
        if r.has_integer:
            _integer(axes[2], r)
        elif columns == 3:
            axes[2].axis("off")
        axes[0].set_title(r.title, loc="left", fontsize=9.5, fontweight="bold")
        foot = fig.add_subplot(grid[2 * i + 1, :])
        foot.axis("off")
        _legend(foot, r)
        if lines:
            foot.text(0.0, 0.0, "\n".join(lines), transform=foot.transAxes, va="bottom", ha="left", fontsize=7.5,
                      color="#505050")
        drawn.append((axes, r))
    freeze_layout(fig)  # the labels and legends below are placed where the renderer measures them free
    placer = LabelPlacer(fig)
    for axes, r in drawn:
        _label_walls(axes[1], r, placer)
        for ax in (axes[0], axes[2]) if r.has_integer else (axes[0],):
            _settle_legend(ax, placer.renderer)
    return fig


def _color(i: int) -> str:
    return PALETTE[i % len(PALETTE)]


def _frame(ax: Axes, xs: Sequence[float], ys: Sequence[float], xlabel: str, ylabel: str) -> tuple[float, float]:
    """Log axes spanning the values with a decade of margin; returns the x range."""
    log_axes(ax)
    x_lo, x_hi = min(xs) / 10, max(xs) * 10
    ax.set_xlim(x_lo, x_hi)
    ax.set_ylim(min(ys) / 10, max(ys) * 3)
    ax.set_xlabel(xlabel, fontsize=8.5)
    ax.set_ylabel(ylabel, fontsize=8.5)
    ax.tick_params(which="both", labelsize=7.5)
    ax.grid(True, which="major", alpha=0.25)
    return x_lo, x_hi


def _name(ax: Axes, text: str, top: bool = False) -> None:
    """The panel's name, inside its axes at the bottom right (``top``: the top right)."""
    ax.text(0.98, 0.97 if top else 0.03, text, transform=ax.transAxes, ha="right", va="top" if top else "bottom",
            fontsize=8.5, fontweight="bold", color="#22406e")


ROOF_STYLES = {"dram": "--", "l2": "-.", "l1": ":"}


def _roofs(ax: Axes, x_range: tuple[float, float], peak: float | None, slopes: Mapping[str, float],
           unit: str, peak_label: str, peak_unit: str) -> None:
    """A flat peak and, per level, a diagonal roof (rate = slope x intensity) up to the peak, each named with its
    value in a legend inside the axes (labels along the lines would collide where the roofs run close)."""
    x_lo, x_hi = x_range
    if peak:
        ax.axhline(peak, color="black", lw=1.2, label=f"{peak_label} {ratio(peak)} {peak_unit}")
    for level, slope in slopes.items():
        top = min(roof_intensity(peak, slope) if peak else x_hi, x_hi)
        ax.plot([x_lo, top], [memory_roof(slope, x_lo), memory_roof(slope, top)], color="#444444", lw=1.0,
                ls=ROOF_STYLES[level], label=f"{NAMES[level]} {si(slope * 1e9, unit)}")
    if peak or slopes:
        ax.legend(loc="best", fontsize=7, frameon=True, framealpha=0.85, handlelength=2.6)


def _hierarchy(ax: Axes, r: ReportMarks) -> None:
    placed = [(i, k, k.warp_gips) for i, k in enumerate(r.kernels) if k.warp_gips and k.intensity]
    xs = [x for _, k, _ in placed for x in k.intensity.values()] or [1.0]
    ys = [y for *_, y in placed] + ([r.peak_warp_gips] if r.peak_warp_gips else [])
    x_range = _frame(ax, xs, ys or [1.0], "warp instructions per 32-byte transaction", "warp GIPS")
    _roofs(ax, x_range, r.peak_warp_gips, r.transaction_roofs, "txn/s", "issue peak", "warp GIPS")
    for i, k, y in placed:
        pts = sorted(k.intensity.items(), key=lambda kv: LEVELS.index(kv[0]))
        ax.plot([x for _, x in pts], [y] * len(pts), color=_color(i), lw=0.8, alpha=0.6)
        for level, x in pts:
            ax.scatter([x], [y], marker=LEVEL_MARKERS[level], s=46, color=_color(i), edgecolors="black",
                       linewidths=0.5, zorder=4)
    _name(ax, "instruction roofline")


def _walls(ax: Axes, r: ReportMarks) -> None:
    """The walls as vertical lines and the kernels' points; the walls' labels come after the layout
    (``_label_walls``)."""
    marks = [(i, k.warp_gips, key, x) for i, k in enumerate(r.kernels) if k.warp_gips for key, x in k.walls.items()]
    xs = [x for *_, x in marks] + [w for walls in r.walls.values() for w in walls.values()]
    ys = [y for _, y, *_ in marks] or [1.0]
    _frame(ax, xs or [1.0], ys, "warp instructions per sector (global) or wavefront (shared)", "warp GIPS")
    for x, _ in _wall_labels(r):
        ax.axvline(x, color="#444444", lw=0.9, alpha=0.8)
    for i, y, key, x in marks:
        ax.scatter([x], [y], marker=WALL_POINTS[key], s=46, color=_color(i), edgecolors="black",
                   linewidths=0.5, zorder=4)
    _name(ax, "memory walls")


def _wall_labels(r: ReportMarks) -> list[tuple[float, str]]:
    """Each wall's x and its label, walls at one x (stride 0 and no bank conflict at 1) named in one label, one
    line each."""
    at: dict[float, list[str]] = {}
    for space, walls in r.walls.items():
        for name, x in walls.items():
            at.setdefault(x, []).append(f"{space}: {name}")
    return [(x, "\n".join(at[x])) for x in sorted(at)]


WALL_LABEL_HEIGHTS = (1.0, 0.0, 0.5, 0.75, 0.25)  # along a wall, as a share of the axes' height: the ends first
WALL_LABEL_GAP_PT = 2.5  # between a wall and its label


def _wall_spots(x: float) -> list[dict[str, Any]]:
    """Candidate places of a wall's label, running along it beside the line: right, then left, at each height."""
    spots = []
    for height in WALL_LABEL_HEIGHTS:
        va = "top" if height == 1.0 else "bottom" if height == 0.0 else "center"
        dy = -4.0 if height == 1.0 else 4.0 if height == 0.0 else 0.0
        for side, ha in ((1.0, "left"), (-1.0, "right")):
            spots.append({"xy": (x, height), "xycoords": ("data", "axes fraction"),
                          "xytext": (side * WALL_LABEL_GAP_PT, dy), "textcoords": "offset points", "ha": ha,
                          "va": va})
    return spots


def _label_walls(ax: Axes, r: ReportMarks, placer: LabelPlacer) -> None:
    """Each wall's label along its own line, where it covers no point, no other wall and no other text; the
    panel's name at the bottom right, or the top right where a point sits under it."""
    from matplotlib.transforms import Bbox

    name = ax.texts[-1]
    if _covers_points(ax, name.get_window_extent(placer.renderer), placer.renderer):
        name.set_y(0.97)
        name.set_verticalalignment("top")
    placer.block(name)
    placer.block_points(ax)
    box = ax.bbox
    lines = {x: Bbox.from_extents(px - 1, box.y0, px + 1, box.y1)
             for x, _ in _wall_labels(r) if box.x0 <= (px := ax.transData.transform((x, 1.0))[0]) <= box.x1}
    style: dict[str, Any] = {"rotation": 90, "fontsize": 6.5, "color": "#333333", "rotation_mode": "default"}
    for x, text in _wall_labels(r):
        kept = list(placer.taken)
        placer.taken = kept + [b for w, b in lines.items() if w != x]
        label = placer.place(ax, text, _wall_spots(x), **style)
        placer.taken = kept + ([placer.taken[-1]] if label is not None else [])
        if label is None:  # no spot clear of the other walls: one clear of points and texts
            label = placer.place(ax, text, _wall_spots(x), **style)
        if label is None:
            ax.annotate(text, **{**style, **_wall_spots(x)[0]})


def _covers_points(ax: Axes, box: Bbox, renderer: Any) -> bool:
    """Whether ``box`` (display pixels) overlaps a marker of the scatter plots in ``ax``."""
    from matplotlib.collections import PathCollection

    half = 46 ** 0.5 * renderer.points_to_pixels(1.0) / 2
    for dots in (c for c in ax.collections if isinstance(c, PathCollection)):
        for px, py in dots.get_offset_transform().transform(dots.get_offsets()):
            if box.x0 < px + half and px - half < box.x1 and box.y0 < py + half and py - half < box.y1:
                return True
    return False


LEGEND_SPOTS = ("upper left", "upper right", "lower right", "lower left", "center left", "center right",
                "upper center", "lower center")
LEGEND_PAD_PX = 4.0  # kept clear around the legend, over half a line's width
HEADROOM_STEP, HEADROOM_STEPS = 1.25, 16  # the y axis' top raised by this factor at a time, at most this often


def _settle_legend(ax: Axes, renderer: Any) -> None:
    """The roofs' legend at the first of ``LEGEND_SPOTS`` where it covers no roof, peak, point or text; where none
    is free, at the upper left with the y axis raised by ``HEADROOM_STEP`` until it fits above everything drawn
    (``loc="best"`` weighs lines against points and sat on the peaks)."""
    legend = ax.get_legend()
    if legend is None:
        return
    for loc in LEGEND_SPOTS:
        legend.set_loc(loc)  # type: ignore[arg-type]
        if _legend_free(ax, legend.get_window_extent(renderer).padded(LEGEND_PAD_PX), renderer):
            return
    legend.set_loc("upper left")
    start = ax.get_ylim()
    for _ in range(HEADROOM_STEPS):
        lo, hi = ax.get_ylim()
        ax.set_ylim(lo, hi * HEADROOM_STEP)
        if _legend_free(ax, legend.get_window_extent(renderer).padded(LEGEND_PAD_PX), renderer):
            return
    ax.set_ylim(*start)  # no room above (a roof without a peak runs to the top): left as it was


def _legend_free(ax: Axes, box: Bbox, renderer: Any) -> bool:
    """Whether ``box`` crosses no line, covers no point and overlaps no text of ``ax``."""
    for line in ax.get_lines():
        if line.get_transform().transform_path(line.get_path()).intersects_bbox(box, filled=False):
            return False
    if _covers_points(ax, box, renderer):
        return False
    return not any(box.overlaps(t.get_window_extent(renderer)) for t in ax.texts if t.get_text().strip())


def _integer(ax: Axes, r: ReportMarks) -> None:
    placed = [(i, k) for i, k in enumerate(r.kernels) if k.integer_giops is not None and k.integer_intensity]
    xs = [x for _, k in placed for x in k.integer_intensity.values()] or [1.0]
    ys = [k.integer_giops for _, k in placed if k.integer_giops]
    ys += [r.integer_peak_giops] if r.integer_peak_giops else []
    x_range = _frame(ax, xs, ys or [1.0], "integer instructions per byte", "integer GIOPS")
    _roofs(ax, x_range, r.integer_peak_giops, r.byte_roofs, "B/s", "ALU (integer) pipe peak", "GIOPS")
    for i, k in placed:
        assert k.integer_giops is not None
        for level, x in sorted(k.integer_intensity.items(), key=lambda kv: LEVELS.index(kv[0])):
            ax.scatter([x], [k.integer_giops], marker=LEVEL_MARKERS[level], s=46, color=_color(i),
                       edgecolors="black", linewidths=0.5, zorder=4)
    _name(ax, "integer roofline")


def _legend(ax: Axes, r: ReportMarks) -> None:
    from matplotlib.lines import Line2D

    def mark(label: str, shape: str = "o", color: str = "#bbbbbb") -> Line2D:
        return Line2D([], [], ls="", marker=shape, ms=7, color=color, mec="black", mew=0.5, label=label)

    levels = {level for k in r.kernels for level in (*k.intensity, *k.integer_intensity)}
    walls = {key for k in r.kernels for key in k.walls}
    handles = [mark(middle(k.label, LABEL_CHARS), color=_color(i)) for i, k in enumerate(r.kernels)]
    handles += [mark(NAMES[level], LEVEL_MARKERS[level]) for level in LEVELS if level in levels]
    handles += [mark(f"{space} {op}", shape) for (space, op), shape in WALL_POINTS.items() if (space, op) in walls]
    ax.legend(handles=handles, loc="upper left", ncol=5, frameon=False, fontsize=7.5)
