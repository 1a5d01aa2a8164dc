"""Hierarchical roofline plot of report analyses: log-log, FLOP per byte against FLOP/s.

``plot_data`` computes everything that is drawn (roof values, ridge points, point coordinates) as plain
dataclasses, so tests check the content; ``draw`` renders them with matplotlib (imported inside, Agg backend)
as PNG, SVG or PDF. Each report gets one panel: one roof per memory level it measured, one ceiling per
precision its kernels use, and each kernel (launches grouped by name) at every level it has, the levels
joined, marker area by share of time; the kernels beyond the top N by time are drawn in grey as "other".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from roofline.analysis import median_known
from roofline.labels import LEGEND_KERNELS, NAMES, set_name
from roofline.model import LEVELS, PRECISIONS, Ceilings, CeilingSet
from roofline.pairing import aggregate
from roofline.render.mpl import PLOT_SUFFIXES, PlotFormat, figure, to_bytes
from roofline.results import KernelGroup, LaunchAnalysis, ReportAnalysis
from roofline.units import si, truncate

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes
    from matplotlib.typing import RcKeyType

SUFFIXES = PLOT_SUFFIXES
LEVEL_MARKERS = {"dram": "o", "l2": "s", "l1": "^"}
MIN_AREA, MAX_AREA = 25.0, 420.0  # marker area (pt^2) of a kernel with no time and with all of it
LABEL_CHARS = 34
ROOF_LABEL_DECADES = 1.0  # vertical extent of a rotated roof label


@dataclass(frozen=True)
class MemoryRoof:
    """One memory level's roof: y = bandwidth x intensity; ``source`` is the ceiling set it comes from."""

    level: str
    bytes_per_s: float
    source: CeilingSet


@dataclass(frozen=True)
class ComputeCeiling:
    """One precision's ceiling and its ridge point (FLOP/byte) against each drawn memory roof."""

    precision: str
    flop_per_s: float
    ridges: Mapping[str, float]
    label: str


@dataclass(frozen=True)
class KernelPoint:
    """A kernel at one memory level: x = FLOP per byte at that level, y = FLOP/s (all counted precisions)."""

    level: str
    intensity: float
    flop_per_s: float


@dataclass(frozen=True)
class KernelSeries:
    """One kernel (its launches grouped): its points, level by level, and its share of the profiled time."""

    name: str
    launches: int
    time_share: float | None
    points: tuple[KernelPoint, ...]
    precisions: tuple[str, ...]  # the precisions with FLOPs
    color: int = 0  # palette index; -1 for kernels drawn as "other"
    level_notes: tuple[str, ...] = ()  # levels that count one direction only and so look inverted


@dataclass(frozen=True)
class Panel:
    """One report's roofline: roofs, ceilings, the top kernels, the rest, and what could not be placed."""

    title: str
    ceilings_used: CeilingSet
    roofs: tuple[MemoryRoof, ...]
    ceilings: tuple[ComputeCeiling, ...]
    series: tuple[KernelSeries, ...]
    other: tuple[KernelSeries, ...]
    skipped: tuple[str, ...]

    @property
    def other_share(self) -> float:
        """Share of the profiled time of the kernels drawn as "other"."""
        return sum(s.time_share or 0.0 for s in self.other)


@dataclass(frozen=True)
class PlotData:
    """Everything one figure draws: a panel per report."""

    panels: tuple[Panel, ...]


# --- Data ---------------------------------------------------------------------------------------------
def plot_data(analyses: Sequence[ReportAnalysis], top: int = LEGEND_KERNELS,
              ceilings: CeilingSet | None = None) -> PlotData:
    """The content of the figure; ``ceilings`` ("spec" or "report") overrides each report's ceilings in use."""
    return PlotData(tuple(panel(a, top, ceilings or a.ceilings_used) for a in analyses))


def panel(a: ReportAnalysis, top: int, source: CeilingSet) -> Panel:
    """One report's panel against the ``source`` ceilings."""
    roofs_set = median_ceilings(a.launches, source)
    fallback = median_ceilings(a.launches, "report") if source != "report" else None
    placed, skipped = [], []
    for group in a.groups:
        series, why = kernel_series(group)
        if series is None:
            skipped.append(f"{group.name}: {why}")
        else:
            placed.append(series)
    shown = [_recolored(s, i) for i, s in enumerate(placed[:top])]
    other = [_recolored(s, -1) for s in placed[top:]]
    roofs = _roofs(roofs_set, fallback, placed)
    return Panel(_title(a, source, roofs_set), source, roofs, _ceilings(roofs_set, placed, roofs),
                 tuple(shown), tuple(other), tuple(skipped))


def median_ceilings(launches: Sequence[LaunchAnalysis], source: CeilingSet) -> Ceilings | None:
    """One ceiling set for a report: the datasheet one, or the median of the launches' measured-clock roofs;
    the tensor roof is the one for the data type of the launch with the most tensor FLOPs."""
    pairs = [(k, k.ceilings[source]) for k in launches if source in k.ceilings]
    if not pairs:
        return None
    lead = max(pairs, key=lambda kc: kc[0].flops["tensor"].value or 0.0)[1]
    tensor_sets = [c for _, c in pairs if c.tensor_dtype == lead.tensor_dtype]
    if source != "report":
        return lead
    sets = [c for _, c in pairs]
    flops = {p: median_known([c.flop_per_s[p] for c in (tensor_sets if p == "tensor" else sets)]) for p in PRECISIONS}
    bandwidth = {level: median_known([c.bytes_per_s[level] for c in sets]) for level in LEVELS}
    return Ceilings("report", flops, bandwidth, clock_note=lead.clock_note, tensor_dtype=lead.tensor_dtype,
                    missing=lead.missing)


def kernel_series(group: KernelGroup) -> tuple[KernelSeries | None, str]:
    """A kernel's points: per level, its measured launches pooled (``pairing.aggregate``: summed FLOPs
    over summed bytes and over summed time); or why it has none."""
    timed = [k for k in group.launches if k.total_flops is not None and k.duration_s.value]
    if not timed:
        return None, _why_not_placed(group.launches[0])
    stats = aggregate(timed)
    if not sum(v.value for v in stats.flops.values() if v.value is not None):
        return None, "no FLOPs counted (memory-only kernel): no place on a log-scale roofline"
    rate = sum(v.value for v in stats.flop_per_s.values() if v.value is not None)
    points = [KernelPoint(level, x, rate) for level in LEVELS if (x := stats.intensity[level].value)]
    if not points:
        return None, "no bytes measured at any memory level: " + (group.launches[0].bytes["dram"].reason or "")
    used = tuple(p for p in PRECISIONS if stats.flops[p].value)
    notes = tuple(dict.fromkeys(note for k in timed for note in k.level_notes))
    return KernelSeries(group.name, len(group.launches), group.time_share, tuple(points), used, level_notes=notes), ""


def _why_not_placed(k: LaunchAnalysis) -> str:
    if k.duration_s.value is None:
        return f"no duration ({k.duration_s.reason})"
    reasons = {v.reason for v in k.flops.values() if v.reason}
    return "FLOPs not measured: " + "; ".join(sorted(reasons))


def _recolored(s: KernelSeries, color: int) -> KernelSeries:
    return replace(s, color=color)


def _roofs(c: Ceilings | None, fallback: Ceilings | None, placed: list[KernelSeries]) -> tuple[MemoryRoof, ...]:
    """Roofs of the levels some kernel was measured at (DRAM alone when no kernel was placed); a level the
    chosen set has no bandwidth for takes the measured-clock one, drawn and labelled as such."""
    measured = {p.level for s in placed for p in s.points} or {"dram"}
    roofs = []
    for level in LEVELS:
        for ceilings in (c, fallback):
            bandwidth = ceilings.bytes_per_s[level] if ceilings is not None else None
            if level in measured and ceilings is not None and bandwidth:
                roofs.append(MemoryRoof(level, bandwidth, ceilings.source))
                break
    return tuple(roofs)


def _ceilings(c: Ceilings | None, placed: list[KernelSeries],
              roofs: tuple[MemoryRoof, ...]) -> tuple[ComputeCeiling, ...]:
    """Ceilings of the precisions the kernels use (FP32 for reference when no kernel was placed); precisions
    with the same peak share one line."""
    if c is None:
        return ()
    used = {p for s in placed for p in s.precisions} or {"fp32"}
    same: dict[float, list[str]] = {}
    for p in PRECISIONS:
        peak = c.flop_per_s[p]
        if p in used and peak:
            same.setdefault(peak, []).append(p)
    out = []
    for peak, precisions in same.items():
        ridges = {r.level: peak / r.bytes_per_s for r in roofs}
        names = ", ".join(NAMES[p] + (f" ({c.tensor_dtype.upper()})" if p == "tensor" and c.tensor_dtype else "")
                          for p in precisions)
        ridge = f"\nDRAM ridge {ridges['dram']:.3g} FLOP/B" if "dram" in ridges else ""
        out.append(ComputeCeiling(precisions[0], peak, ridges, f"{names} {si(peak, 'FLOP/s')}{ridge}"))
    return tuple(out)


def _title(a: ReportAnalysis, source: CeilingSet, c: Ceilings | None) -> str:
    d = a.device
    head = f"{d.name} (CC {d.compute_capability or '?'}), {len(a.launches)} launch(es)"
    if c is None:
        return f"{head}\nno {set_name(source)} ceilings"
    which = f"spec {a.spec_id}" if source == "spec" and a.spec_id else c.clock_note
    return f"{head}\n{set_name(source)} ceilings ({which})"


# --- Drawing ------------------------------------------------------------------------------------------
FIG_WIDTH_IN, PANEL_HEIGHT_IN = 10.8, 6.2
AXES_LEFT_IN, AXES_RIGHT_IN, AXES_TOP_IN, AXES_BOTTOM_IN = 0.9, 7.1, 0.8, 0.85  # axes box inside a panel
PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22",
           "#7f7f7f")
OTHER_COLOR, ROOF_COLOR = "#b0b0b0", "#303030"
CEILING_STYLES = {"fp64": ":", "fp32": "-", "fp16": "-.", "tensor": "--"}
_RC: dict[RcKeyType, Any] = {"svg.fonttype": "none", "font.size": 9, "font.family": "DejaVu Sans"}


def render(analyses: Sequence[ReportAnalysis], fmt: PlotFormat, top: int = LEGEND_KERNELS) -> bytes:
    """The roofline plot of the reports as PNG, SVG or PDF bytes."""
    return draw(plot_data(analyses, top), fmt)


def draw(data: PlotData, fmt: PlotFormat, mark: bool = True) -> bytes:
    """The figure as PNG, SVG or PDF bytes; reproducible (no dates, fixed SVG ids). ``mark`` False leaves
    out the generator mark (for SVG inlined in HTML)."""
    from matplotlib import rc_context

    panels = data.panels or (Panel("no report", "report", (), (), (), (), ()),)
    with rc_context(_RC):
        fig = figure(FIG_WIDTH_IN, PANEL_HEIGHT_IN * len(panels))
        for i, p in enumerate(panels):
            _draw_panel(fig.add_axes(_axes_rect(i, len(panels))), p)
        return to_bytes(fig, fmt, mark, dpi=150, bbox_inches="tight", pad_inches=0.2)


def inline_svg(data: PlotData) -> str:
    """The figure as an ``<svg>`` element for an HTML page: no XML prologue, DTD or namespace URLs."""
    text = draw(data, "svg", mark=False).decode()
    svg = text[text.index("<svg"):]
    for attr in (' xmlns:xlink="http://www.w3.org/1999/xlink"', ' xmlns="http://www.w3.org/2000/svg"'):
        svg = svg.replace(attr, "", 1)
    return svg


def _axes_rect(i: int, n: int) -> tuple[float, float, float, float]:
    """Axes position (figure fractions) of panel ``i`` of ``n``, stacked top to bottom."""
    height = PANEL_HEIGHT_IN * n
    bottom = (n - 1 - i) * PANEL_HEIGHT_IN + AXES_BOTTOM_IN
    return (AXES_LEFT_IN / FIG_WIDTH_IN, bottom / height, (AXES_RIGHT_IN - AXES_LEFT_IN) / FIG_WIDTH_IN,
            (PANEL_HEIGHT_IN - AXES_TOP_IN - AXES_BOTTOM_IN) / height)


def _draw_panel(ax: Axes, p: Panel) -> None:
    (x_lo, x_hi), (y_lo, y_hi) = limits(p)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(x_lo, x_hi)
    ax.set_ylim(y_lo, y_hi)
    ax.grid(True, which="major", alpha=0.25)
    ax.grid(True, which="minor", alpha=0.07)
    ax.set_xlabel("arithmetic intensity [FLOP/byte]")
    ax.set_ylabel("performance [FLOP/s]")
    ax.set_title(p.title, loc="left", fontsize=10)
    _draw_roofs(ax, p)
    for s in (*p.other, *p.series):
        _draw_series(ax, s)
    _legends(ax, p)
    if not p.series:
        ax.text(0.5, 0.5, "no kernel to place: FLOPs or bytes not measured", transform=ax.transAxes, ha="center",
                fontsize=10, color="#606060")
    if p.skipped:
        names = [x.split(": ", 1)[0] for x in p.skipped]
        listed = ", ".join(truncate(n, 30) for n in names[:4]) + (", ..." if len(names) > 4 else "")
        ax.text(0.0, -0.115, f"not placed, no FLOPs or bytes measured: {len(names)} kernel(s) ({listed})",
                transform=ax.transAxes, fontsize=7.5, color="#606060", va="top")


def limits(p: Panel) -> tuple[tuple[float, float], tuple[float, float]]:
    """Axis ranges holding every point and ridge, at least three decades wide."""
    points = [pt for s in (*p.series, *p.other) for pt in s.points]
    ridges = [r for c in p.ceilings for r in c.ridges.values()]
    xs = [pt.intensity for pt in points] + ridges + [30 * r for r in ridges]  # room for the ceiling labels
    ys = [pt.flop_per_s for pt in points] + [c.flop_per_s for c in p.ceilings]
    x_lo, x_hi = _widen(min(xs, default=1e-2) / 4, max(xs, default=1e2) * 4)
    bottom = [pt.flop_per_s / 6 for pt in points] + [r.bytes_per_s * x_lo for r in p.roofs]
    label_room = [r.bytes_per_s * x_lo * 10 ** ROOF_LABEL_DECADES for r in p.roofs]  # roof labels start at x_lo
    y_hi = max(ys + label_room, default=1e12) * 3
    return (x_lo, x_hi), _widen(min(bottom, default=y_hi / 1e4), y_hi, keep_top=True)


def _widen(lo: float, hi: float, decades: float = 3.0, keep_top: bool = False) -> tuple[float, float]:
    span = 10 ** decades
    if hi / lo >= span:
        return lo, hi
    if keep_top:
        return hi / span, hi
    grow = (span / (hi / lo)) ** 0.5
    return lo / grow, hi * grow


def _draw_roofs(ax: Axes, p: Panel) -> None:
    """Memory roofs up to the highest ceiling, ceilings from the fastest roof on, labelled with their values."""
    (x_lo, x_hi), (y_lo, _) = ax.get_xlim(), ax.get_ylim()
    top = max((c.flop_per_s for c in p.ceilings), default=None)
    fastest = max((r.bytes_per_s for r in p.roofs), default=None)
    for roof in p.roofs:
        x_end = top / roof.bytes_per_s if top else x_hi
        measured = roof.source != p.ceilings_used
        ax.plot([x_lo, x_end], [roof.bytes_per_s * x_lo, roof.bytes_per_s * x_end], color=ROOF_COLOR, lw=1.4,
                ls=(0, (5, 2)) if measured else "-", alpha=0.6 if measured else 1.0, zorder=2)
        x_text = max(x_lo * 1.6, y_lo * 2.5 / roof.bytes_per_s)
        if x_text < x_end / 2:
            label = f"{NAMES[roof.level]} {si(roof.bytes_per_s, 'B/s')}{'*' if measured else ''}"
            _along(ax, x_text, roof.bytes_per_s, label)
    for c in p.ceilings:
        x_start = c.flop_per_s / fastest if fastest else x_lo
        ax.plot([x_start, x_hi], [c.flop_per_s] * 2, color=ROOF_COLOR, lw=1.4, ls=CEILING_STYLES[c.precision], zorder=2)
        ax.text(x_hi / 1.12, c.flop_per_s * 1.07, c.label, ha="right", va="bottom", fontsize=8.5, color=ROOF_COLOR)
        if "dram" in c.ridges:
            ax.plot([c.ridges["dram"]], [c.flop_per_s], marker="D", ms=3.5, color=ROOF_COLOR, zorder=3)


def _along(ax: Axes, x: float, slope: float, text: str) -> None:
    """Text just above the line y = slope * x at ``x``, rotated to the line's on-screen angle."""
    import math

    (x0, y0), (x1, y1) = ax.transData.transform([(x, slope * x), (x * 10, slope * x * 10)])
    angle = math.degrees(math.atan2(y1 - y0, x1 - x0))
    ax.text(x, slope * x * 1.25, text, rotation=angle, rotation_mode="anchor", fontsize=8.5, color=ROOF_COLOR,
            ha="left", va="bottom")


def _draw_series(ax: Axes, s: KernelSeries) -> None:
    color = OTHER_COLOR if s.color < 0 else PALETTE[s.color % len(PALETTE)]
    alpha = 0.7 if s.color < 0 else 0.95
    if len(s.points) > 1:
        ax.plot([pt.intensity for pt in s.points], [pt.flop_per_s for pt in s.points], color=color, lw=1.0,
                alpha=0.6, zorder=3)
    for pt in s.points:
        ax.scatter([pt.intensity], [pt.flop_per_s], s=area(s.time_share), marker=LEVEL_MARKERS[pt.level], color=color,
                   edgecolors="black", linewidths=0.5, alpha=alpha, zorder=4)


def area(time_share: float | None) -> float:
    """Marker area (pt^2) growing with the kernel's share of the profiled time."""
    return MIN_AREA + (MAX_AREA - MIN_AREA) * (time_share or 0.0)


def _legends(ax: Axes, p: Panel) -> None:
    """Kernels (top N by time, then "other") beside the axes, memory-level markers below them."""
    from matplotlib.lines import Line2D

    handles = [Line2D([], [], ls="", marker="o", ms=7, color=PALETTE[s.color % len(PALETTE)], mec="black", mew=0.5,
                      label=_series_label(s)) for s in p.series]
    if p.other:
        handles.append(Line2D([], [], ls="", marker="o", ms=7, color=OTHER_COLOR, mec="black", mew=0.5,
                              label=f"other: {len(p.other)} kernels, {100 * p.other_share:.1f}% of time"))
    if handles:
        kernels = ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.02, 1.0), frameon=False, fontsize=8,
                            title="kernels (share of time)", title_fontsize=8.5, alignment="left")
        ax.add_artist(kernels)
    levels = sorted({pt.level for s in (*p.series, *p.other) for pt in s.points}, key=LEVELS.index)
    marks = [Line2D([], [], ls="", marker=LEVEL_MARKERS[lv], ms=7, color="white", mec="black", label=NAMES[lv])
             for lv in levels]
    if any(r.source != p.ceilings_used for r in p.roofs):
        marks.append(Line2D([], [], color=ROOF_COLOR, alpha=0.6, ls=(0, (5, 2)),
                            label=f"* {set_name('report')} roof (no {set_name(p.ceilings_used)} value)"))
    if marks:
        ax.legend(handles=marks, loc="lower left", bbox_to_anchor=(1.02, 0.0), frameon=False, fontsize=8,
                  title="memory level (joined per kernel)", title_fontsize=8.5, alignment="left")


def _series_label(s: KernelSeries) -> str:
    launches = f", {s.launches} launches" if s.launches > 1 else ""
    share = f"{100 * s.time_share:.1f}%" if s.time_share is not None else "n/a"
    return f"{truncate(s.name, LABEL_CHARS)}  {share}{launches}"


