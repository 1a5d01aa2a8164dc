"""Plots of comparisons (each report's roofs in its own colour, each kernel's points joined A -> B -> ...) and of
application summaries (kernel groups as points sized by time, next to a bar chart of time and recoverable time).

``comparison_data`` and ``summary_data`` compute the plotted coordinates as dataclasses, so tests check what
is drawn without reading pixels; ``comparison_figure`` and ``summary_figure`` lay them out (matplotlib imported
inside, through ``render.mpl``) and ``comparison_plot`` and ``summary_plot`` save them as PNG, SVG or PDF bytes.
Nothing is clipped or overlaps: legends and notes are placed by constrained layout, next to or under the axes;
kernels are numbered (1 = longest in the base report) with the names in the legend's key, and each number is
placed beside one of its points where it covers no other text (a number with no free spot is named in the
notes). Each report's point is drawn larger than the next one's and under it, so coinciding points stay visible;
each tensor roof is for one Tensor Core type (as many as the kernels drawn compute in), named with it; the summary
draws each report's own ceilings (``compare.ranking.report_roofs``, the figure ``report`` draws). A report's point
for a kernel whose work differs from the base's (``roofline.analysis.work``) is hollow, reached
by a dashed arrow, and its key entry says "different work": its position is its throughput, not a speedup. So is
a point whose FLOPs differ from the base's while its governing bytes match ("other FLOPs", FLOP/s plot only): a
DRAM-bound kernel doing 4.2x the FLOPs per byte rises on the FLOP/s axis however slow it is.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from itertools import pairwise
from typing import TYPE_CHECKING, Any

from roofline.analysis.kernels import KernelStats
from roofline.analysis.launches import KernelGroup
from roofline.analysis.plot_place import Place
from roofline.compare.pairing import Comparison, ReportRef
from roofline.compare.places import GpuGroups, GroupBar
from roofline.compare.plottable import Plottable
from roofline.core.kernel_names import PAIR_ARROW
from roofline.core.labels import LEGEND_KERNELS, NAMES, letter
from roofline.core.model import PRECISIONS, Ceilings, memory_roof, roof_intensity
from roofline.core.units import si
from roofline.render.mpl import (
    NOTE_FONT,
    NOTE_LINE_IN,
    LabelPlacer,
    PlotFormat,
    around,
    figure,
    freeze_layout,
    log_axes,
    middle,
    svg_element,
    to_bytes,
    wrap,
)
from roofline.render.names import group_name
from roofline.render.report.plot import PLOT_FIX

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

DPI = 120
MIN_AREA, MAX_AREA = 30.0, 900.0  # marker areas (points^2) of the shortest and the longest group
X_RANGE = (1e-2, 1e4)  # FLOP per byte shown when the points do not widen it
SPREAD = 0.3  # normalized view: kernels spread sideways within +-SPREAD of their report's column
KEY_CHARS = 48  # a kernel's name in the legend's key (a pair's names joined by arrows: about twice that in all)
KEY_NAME_CHARS = 16  # the least each of a pair's names keeps in the key
DEVICE_CHARS = 28  # a report's GPU in the legend
NOTE_ITEMS = 6  # skipped kernels named in a note
REPORT_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "<", ">", "h")
CEILING_STYLES = {"fp64": ":", "fp32": "-", "fp16": "-.", "tensor": "--"}
COMPARE_AREA = MIN_AREA * 1.5  # a comparison's point of its last report (pt^2)
LAYER_AREA = 50.0  # each earlier report's point this much larger (pt^2), drawn under the later ones: coinciding
# points stay visible, the earlier one a rim around the later one
DIFFERENT_WORK_KEY = " (different work)"
OTHER_FLOPS_KEY = " (other FLOPs)"  # the same work on the bytes that bound it, other FLOPs: its FLOP/s moves apart


@dataclass(frozen=True)
class Point:
    """One kernel in one report: x = FLOP per DRAM byte, y = FLOP/s (normalized: x = the report's column spread
    by the kernel's number, y = percent of own roof), area in pt^2; ``number`` keys it in the legend (0: not
    numbered, drawn without a label); ``names``: the names ``label`` joins by arrows (a comparison's pair whose
    kernel is named differently in the reports)."""

    label: str
    report: int
    x: float
    y: float
    area: float = MIN_AREA
    number: int = 0
    different_work: bool = False  # this report's work differs from the base's (drawn hollow, dashed arrow)
    other_flops: bool = False  # the same work on its governing bytes, but other FLOPs: its FLOP/s is no speedup
    names: tuple[str, ...] = ()


@dataclass(frozen=True)
class Roof:
    """One GPU's roof for one precision (the tensor roof: for one Tensor Core type, ``tensor_dtype``): y = min(peak,
    x x DRAM bandwidth), from the ceilings of ``report``, the first of the reports on that GPU (``reports``), drawn
    in its colour; the GPU's DRAM slope is drawn once."""

    report: int
    precision: str
    peak_flop_per_s: float
    dram_bytes_per_s: float
    reports: tuple[int, ...] = ()  # every report on this GPU (empty: ``report`` alone)
    tensor_dtype: str | None = None  # of a tensor roof: the Tensor Core type it is for


@dataclass(frozen=True)
class ComparePlotData:
    """What a comparison plot shows: points, arrows (from report i to report i+1), roofs, and what was left out."""

    normalized: bool
    points: tuple[Point, ...]
    arrows: tuple[tuple[Point, Point], ...]
    roofs: tuple[Roof, ...]
    skipped: tuple[tuple[str, str], ...]  # (what is not drawn, why)


@dataclass(frozen=True)
class Bar:
    """One group's bar (``compare.places``: its total time and, when known, the part of it recoverable at the roof)
    with its label."""

    label: str
    bar: GroupBar

    @property
    def total_s(self) -> float:
        return self.bar.total_s

    @property
    def recoverable_s(self) -> float | None:
        return self.bar.recoverable_s


@dataclass(frozen=True)
class SummaryPanel:
    """One GPU of a summary plot (its reports together): grouped points sized by time, its roofs, and the time
    bars (each group's time summed over the reports)."""

    report: str
    points: tuple[Point, ...]
    roofs: tuple[Roof, ...]
    bars: tuple[Bar, ...]
    skipped: tuple[tuple[str, str], ...]  # (what is not drawn, why)
    total_s: float | None  # the reports' whole profiled time, for the bars' shares
    unit: str = "s"  # of the bars' lengths
    unplaced: tuple[Place, ...] = ()  # why the groups not drawn have no place (each cause once, first met first)


@dataclass(frozen=True)
class SummaryPlotData:
    """What a summary plot shows: one panel per GPU."""

    panels: tuple[SummaryPanel, ...]


# --- Data ----------------------------------------------------------------------------------------------
def comparison_data(c: Comparison, normalize: bool = False, numbered: int = LEGEND_KERNELS) -> ComparePlotData:
    """Coordinates of every pair side that has an intensity and a rate (normalized: a percent of roof); arrows
    join consecutive reports. The first ``numbered`` pairs (longest in the base report) get a number."""
    points, arrows, skipped = [], [], []
    last = len(c.reports) - 1
    for n, pair in enumerate(c.pairs, 1):
        placed = []
        for i, side in enumerate(pair.sides):
            point, why = _point(side, pair.label, i, normalize) if side else (None, "")
            if why:
                skipped.append((f"{pair.label} in {c.reports[i].label}", why))
            if point is not None:
                x = i + _spread(n, len(c.pairs)) if normalize else point.x  # normalized: the report's column
                other_flops = not normalize and not pair.different_work(i) and pair.flops_differ(i)
                placed.append(Point(point.label, i, x, point.y, COMPARE_AREA + LAYER_AREA * (last - i),
                                    n if n <= numbered else 0, pair.different_work(i) or other_flops, other_flops,
                                    pair.names))
        points += placed
        arrows += list(pairwise(placed))
    skipped += [(f"{letter(i)} ({c.reports[i].label})", f"no kernel in common with {letter(0)} ({c.matching})")
                for i in range(1, len(c.reports)) if not any(p.sides[i] for p in c.pairs)]
    gpus = gpu_of(c.reports)
    roofs = () if normalize else _roofs([(i, s, s.ceilings) for p in c.pairs for i, s in enumerate(p.sides) if s],
                                        gpus)
    return ComparePlotData(normalize, tuple(points), tuple(arrows), roofs, tuple(skipped))


def _spread(n: int, count: int) -> float:
    """Sideways offset of kernel ``n`` of ``count`` in its report's column (normalized view)."""
    return 0.0 if count < 2 else -SPREAD + 2 * SPREAD * (n - 1) / (count - 1)


def gpu_of(reports: Sequence[ReportRef]) -> tuple[int, ...]:
    """Per report, the first report on the same GPU (its name and spec): the one whose roofs stand for them all."""
    first: dict[tuple[str, str | None], int] = {}
    return tuple(first.setdefault((r.device, r.spec_id), i) for i, r in enumerate(reports))


def summary_data(panels: Sequence[GpuGroups]) -> SummaryPlotData:
    """Per GPU (its reports together, ``compare.places``): each shown group of each report as a point sized by its
    time, numbered by the group's rank over the GPU's reports, and time bars of the groups summed over those
    reports."""
    return SummaryPlotData(tuple(_panel(p) for p in panels))


def _label(g: KernelGroup) -> str:
    """A ranked group's name as the plot shows it: the short name (function and template arguments)."""
    return group_name(g.name, g.functions, g.by).fit(KEY_CHARS)


def _panel(merged: GpuGroups) -> SummaryPanel:
    """One GPU's panel from the summaries of its reports; a group's number is its rank in its report's table (with
    several reports, its place among the groups of all of them ranked the same way: ``compare.places``), on its
    point and its bar alike."""
    summaries = merged.summaries
    several = len(summaries) > 1
    number = {g.name: g.number for g in merged.groups}
    rows = [(s, r) for s in summaries for r in s.rows]
    points, skipped, unplaced = [], [], []
    for (s, r), size in zip(rows, merged.sizes, strict=True):
        n = number[r.group.name]
        point, why = _point(r.stats, str(n), 0, False, SUMMARY_NO_FLOPS_HINT)
        if point is None:
            skipped.append((f"#{n} {_label(r.group)}" + (f" in {s.report.label}" if several else ""), why))
            unplaced.append(r.stats.place)
            continue
        points.append(Point(point.label, 0, point.x, point.y, MIN_AREA + (MAX_AREA - MIN_AREA) * size, n))
    bars = tuple(Bar(f"#{g.number} {_label(g.rows[0].group)}", g.bar) for g in merged.groups if g.bar is not None)
    first = summaries[0].report
    title = (f"{first.device}: {len(summaries)} reports ({middle(', '.join(s.report.label for s in summaries), 60)})"
             if several else first.label)
    ceilings = merged.ceilings or tuple(r.stats.ceilings for _, r in rows)
    roofs = _roofs([(0, r.stats, c) for (_, r), c in zip(rows, ceilings, strict=True)], (0,))
    return SummaryPanel(title, tuple(points), roofs, bars, tuple(skipped), merged.total_s, merged.unit,
                        tuple(dict.fromkeys(unplaced)))


NO_FLOPS_HINT = "try --normalize"  # where a kernel without FLOPs can be drawn: compare's percent-of-roof view
SUMMARY_NO_FLOPS_HINT = "its time is in the bars"  # summary has no normalized view: its bars hold the time


def _point(s: KernelStats, label: str, report: int, normalize: bool,
           no_flops_hint: str = NO_FLOPS_HINT) -> tuple[Point | None, str]:
    """(point, "") or (None, why it cannot be drawn, with ``no_flops_hint`` where the kernel does no floating-point
    work). Normalized: x = report index, y = percent of own roof; else x = FLOP per DRAM byte, y = FLOP/s on log
    axes."""
    where, x, y = s.normalized_place if normalize else s.place, s.intensity["dram"], s.total_flop_per_s
    if where is Place.NO_ROOF:
        return None, s.why_no_roof
    if where is Place.ZERO_ROOF:
        return None, "0% of roof (no place on log axes)"
    if where is Place.NO_INTENSITY:
        return None, f"no DRAM intensity ({x.reason or s.why_no_roof})"
    if where is Place.NO_FLOPS:
        return None, f"no floating-point work (zero FLOPs cannot be drawn on log axes; {no_flops_hint})"
    if normalize:
        return Point(label, report, float(report), s.roof.pct_of_roof or 0.0), ""
    return Point(label, report, x.value or 0.0, y or 0.0), ""


def _roofs(sides: Sequence[tuple[int, KernelStats, Ceilings]], gpus: Sequence[int]) -> tuple[Roof, ...]:
    """Per GPU (``gpus``: each report's first report on its GPU), the roof of every precision a plotted kernel is
    bound by there (e.g. FP64 for a kernel whose few FP64 operations take longer at the FP64 peak than its FP32
    ones), the tensor roof once per Tensor Core type (an FP8 kernel under the FP8 roof, not a BF16 one's), each
    once: read from the ceilings given with the first kernel (``sides``: report, kernel, its ceilings) that gives
    it on that GPU."""
    roofs: dict[tuple[int, str, str | None], Roof] = {}
    for report, s, ceilings in sides:
        precision = s.bound_precision
        roof = _roof(gpus[report], precision, ceilings) if precision else None
        if precision is not None and roof is not None:
            shared = tuple(i for i, g in enumerate(gpus) if g == gpus[report])
            roofs.setdefault((gpus[report], precision, roof.tensor_dtype), replace(roof, reports=shared))
    by_gpu: dict[int, list[Roof]] = {}
    for roof in sorted(roofs.values(), key=lambda r: (r.report, PRECISIONS.index(r.precision), r.peak_flop_per_s)):
        by_gpu.setdefault(roof.report, []).append(roof)
    # one DRAM slope per GPU: its first roof's bandwidth for all of its precisions
    return tuple(replace(r, dram_bytes_per_s=group[0].dram_bytes_per_s) for group in by_gpu.values() for r in group)


def _roof(report: int, precision: str, ceilings: Ceilings) -> Roof | None:
    peak, bw = ceilings.flop_per_s[precision], ceilings.bytes_per_s["dram"]
    dtype = ceilings.tensor_dtype if precision == "tensor" else None
    return Roof(report, precision, peak, bw, tensor_dtype=dtype) if peak and bw else None


def roof_name(roof: Roof) -> str:
    """A roof's precision as the legend and titles name it; a tensor roof with its Tensor Core type."""
    return NAMES[roof.precision] + (f" ({roof.tensor_dtype.upper()})" if roof.tensor_dtype else "")


# --- Drawing -------------------------------------------------------------------------------------------
COMPARE_SIZE_IN = (10.5, 5.6)
SUMMARY_SIZE_IN = (13.0, 5.0)  # per report


def nothing_to_compare(c: Comparison) -> str:
    """Why the comparison plot holds no point, in words ("" when it holds one: ``Comparison.plottable``)."""
    if c.plottable is Plottable.NO_PAIRS:
        return f"no kernel in common ({c.matching} matching)"
    return "" if c.plottable is Plottable.PLOTTABLE else "no paired kernel has FLOPs and bytes measured"


def comparison_plot(c: Comparison, fmt: PlotFormat, normalize: bool = False) -> bytes:
    """The comparison plot as PNG, SVG or PDF bytes."""
    return to_bytes(comparison_figure(c, normalize), fmt)


def pngs(c: Comparison, normalize: bool = False) -> list[bytes | None]:
    """The comparison plot as the one PNG beside a Markdown comparison; None when no paired kernel has a place on
    it (``Comparison.plottable``)."""
    return [None if c.plottable is not Plottable.PLOTTABLE else comparison_plot(c, "png", normalize)]


def comparison_svg(c: Comparison, normalize: bool = False) -> str:
    """The comparison plot as an ``<svg>`` element for an HTML page (no mark, no namespace URLs)."""
    return svg_element(to_bytes(comparison_figure(c, normalize), "svg", mark=False))


SUMMARY_NOTHING = "has a measured time (a bar) or a place on the roofline"  # what no group of an empty plot has


def summary_plot(panels: Sequence[GpuGroups], fmt: PlotFormat) -> bytes | None:
    """Each GPU's summary (grouped points sized by time, and time bars) as PNG, SVG or PDF bytes; None where no
    panel has a point or a bar to draw (the command refuses the plot: ``SUMMARY_NOTHING``, ``PLOT_FIX``)."""
    if not any(panel.points or panel.bars for panel in summary_data(panels).panels):
        return None
    return to_bytes(summary_figure(panels), fmt)


def comparison_figure(c: Comparison, normalize: bool = False) -> Figure:
    """The laid-out comparison figure: roofs or the 100% line, points, arrows, numbers, legend, notes."""
    data = comparison_data(c, normalize)
    notes = _skipped_notes(data.skipped) + _unnumbered_note(data.points)
    fig, axes, note_axes = _figure([(COMPARE_SIZE_IN[1], 1)], COMPARE_SIZE_IN[0], [notes])
    ax = axes[0][0]
    colours = _colours(len(c.reports))
    _draw_roofs(ax, data.roofs, lambda r: colours[r.report],
                lambda r: ",".join(letter(i) for i in r.reports or (r.report,)) + " ", [] if normalize else data.points)
    if normalize:
        ax.axhline(100.0, color="black", linewidth=1.2, label="own roof (100%)")
    for a, b in data.arrows:
        ax.annotate("", xy=(b.x, b.y), xytext=(a.x, a.y),
                    arrowprops={"arrowstyle": "->", "color": "0.4", "linestyle": "--" if b.different_work else "-"})
    for p in sorted(data.points, key=lambda p: p.report):  # a later report's point over the larger earlier one's
        ax.scatter(p.x, p.y, s=p.area, marker=REPORT_MARKERS[p.report % 10], zorder=3,
                   facecolors="none" if p.different_work else colours[p.report],
                   edgecolors=colours[p.report] if p.different_work else "black",
                   linewidths=1.4 if p.different_work else 0.5)
    _legend_compare(ax, c, data, colours)
    chain = " -> ".join(letter(i) for i in range(len(c.reports)))
    title = f"{chain}, kernels joined by arrows ({middle(c.matching, 50)})"
    if normalize:
        _normalized_axes(ax, len(c.reports), data.points, title)
    else:
        _axes(ax, data.points, title)
    _draw_notes(note_axes[0], notes, COMPARE_SIZE_IN[0])
    freeze_layout(fig)
    _number_points(fig, ax, data.points)
    return fig


def summary_figure(panels: Sequence[GpuGroups]) -> Figure:
    """The laid-out summary figure: per GPU, the roofline of its groups and the bars of their time."""
    data = summary_data(panels)
    notes = [_skipped_notes(panel.skipped) for panel in data.panels]
    fig, axes, note_axes = _figure([(SUMMARY_SIZE_IN[1], 2)] * len(data.panels), SUMMARY_SIZE_IN[0], notes)
    for (roof_ax, bar_ax), panel, note_ax, lines in zip(axes, data.panels, note_axes, notes, strict=True):
        _draw_roofs(roof_ax, panel.roofs, lambda r: "0.3", lambda r: "", panel.points)
        for p in panel.points:
            roof_ax.scatter(p.x, p.y, s=p.area, alpha=0.6, color="tab:blue", edgecolors="black", linewidths=0.5)
        _axes(roof_ax, panel.points, f"{middle(panel.report, 60)}: kernel groups by rank, area = time"
              + "".join(f"\n{_roof_text(roof)}" for roof in panel.roofs))
        if not panel.points:
            _note_empty(roof_ax, panel.unplaced)
        _draw_bars(bar_ax, panel.bars, panel.unit)
        _draw_notes(note_ax, lines, SUMMARY_SIZE_IN[0])
    freeze_layout(fig)
    for (roof_ax, _), panel in zip(axes, data.panels, strict=True):
        _number_points(fig, roof_ax, panel.points, center=True)
    return fig


def _figure(rows: Sequence[tuple[float, int]], width_in: float,
            notes: Sequence[Sequence[str]]) -> tuple[Figure, list[list[Axes]], list[Axes | None]]:
    """A constrained-layout figure of rows of ``(height in inches, columns)`` axes, each row followed by an axes
    for its (wrapped) notes when it has any."""
    heights: list[float] = []
    for (height, _), lines in zip(rows, notes, strict=True):
        heights += [height] + ([NOTE_LINE_IN * (len(wrap(lines, width_in - 0.6)) + 1)] if lines else [])
    fig = figure(width_in, sum(heights), constrained=True, dpi=DPI)
    grid = fig.add_gridspec(len(heights), max(c for _, c in rows), height_ratios=heights)
    axes, note_axes, row = [], [], 0
    for (_, columns), lines in zip(rows, notes, strict=True):
        axes.append([fig.add_subplot(grid[row, col]) for col in range(columns)])
        note_axes.append(fig.add_subplot(grid[row + 1, :]) if lines else None)
        row += 2 if lines else 1
    return fig, axes, note_axes


def _draw_notes(ax: Axes | None, lines: Sequence[str], figure_width_in: float) -> None:
    if ax is None:
        return
    ax.axis("off")
    ax.text(0.0, 1.0, "\n".join(wrap(lines, figure_width_in - 0.6)), transform=ax.transAxes, va="top", ha="left",
            fontsize=NOTE_FONT, color="#505050", linespacing=1.2)


def _skipped_notes(skipped: Sequence[tuple[str, str]]) -> list[str]:
    """What was not drawn, one line per reason: "not drawn, <why>: a in A, b in B"."""
    by_reason: dict[str, list[str]] = {}
    for what, why in skipped:
        by_reason.setdefault(why, []).append(middle(what, 60))
    return [f"not drawn, {why}: " + ", ".join(whats[:NOTE_ITEMS]) + (", ..." if len(whats) > NOTE_ITEMS else "")
            for why, whats in by_reason.items()]


def _unnumbered_note(points: Sequence[Point]) -> list[str]:
    rest = len({p.label for p in points if not p.number})
    return [f"{rest} more kernel(s) drawn without a number (beyond the {LEGEND_KERNELS} longest)"] if rest else []


def _colours(n: int) -> list[str]:
    return [f"C{i % 10}" for i in range(n)]


def _draw_roofs(ax: Axes, roofs: Sequence[Roof], colour: Any, prefix: Any, points: Sequence[Point]) -> None:
    """Each GPU's roofs, every line once: its DRAM slope up to its highest peak, then each precision's flat roof
    from its ridge point on (a lower peak leaves the slope there), labelled ``prefix(roof)`` + unit."""
    by_gpu: dict[int, list[Roof]] = {}
    for roof in roofs:
        by_gpu.setdefault(roof.report, []).append(roof)
    x_lo, x_hi = x_limits(points)
    for group in by_gpu.values():
        bw, top = group[0].dram_bytes_per_s, max(r.peak_flop_per_s for r in group)
        ax.plot([x_lo, roof_intensity(top, bw)], [memory_roof(bw, x_lo), top], color=colour(group[0]),
                linewidth=1.5, label=f"{prefix(group[0])}DRAM {si(bw, 'B/s')}")
        for r in group:
            ridge = roof_intensity(r.peak_flop_per_s, bw)
            ax.plot([ridge, max(x_hi, ridge * 10)], [r.peak_flop_per_s] * 2, color=colour(r), linewidth=1.5,
                    ls=CEILING_STYLES[r.precision],
                    label=f"{prefix(r)}{roof_name(r)} {si(r.peak_flop_per_s, 'FLOP/s')}")


def _roof_text(roof: Roof) -> str:
    style = {":": "dotted", "-": "solid", "-.": "dash-dot", "--": "dashed"}[CEILING_STYLES[roof.precision]]
    return f"roof ({style}): {roof_name(roof)} {si(roof.peak_flop_per_s, 'FLOP/s')}, DRAM " \
           f"{si(roof.dram_bytes_per_s, 'B/s')}"


def _legend_compare(ax: Axes, c: Comparison, data: ComparePlotData, colours: Sequence[str]) -> None:
    """Beside the axes: the reports (colour and marker), the roofs drawn, and the key of the kernel numbers."""
    from matplotlib.lines import Line2D

    handles, labels = ax.get_legend_handles_labels()
    reports = [Line2D([], [], ls="", marker=REPORT_MARKERS[i % 10], ms=7, color=colours[i], mec="black", mew=0.5)
               for i in range(len(c.reports))]
    names = [f"{letter(i)}: {middle(r.label, 40)} ({middle(r.device.removeprefix('NVIDIA '), DEVICE_CHARS)})"
             for i, r in enumerate(c.reports)]
    if any(p.different_work for p in data.points):
        reports.append(Line2D([], [], ls="--", color="0.4", marker="o", ms=7, mfc="none", mec="0.3", mew=1.4))
        names.append(f"different work or FLOPs (> {100 * c.work_tolerance:g}%): a rate, not a speedup")
    key = {p.number: p.names or (p.label,) for p in data.points if p.number}
    different = {p.number for p in data.points if p.number and p.different_work and not p.other_flops}
    other_flops = {p.number for p in data.points if p.number and p.other_flops}  # in any report
    keyed = [f"{n}  {_key_name(names)}" + (DIFFERENT_WORK_KEY if n in different else
                                           OTHER_FLOPS_KEY if n in other_flops else "")
             for n, names in sorted(key.items())]
    legend = ax.legend(handles=[*reports, *handles, *(Line2D([], [], ls="") for _ in keyed)],
                       labels=[*names, *labels, *keyed],
                       loc="upper left", bbox_to_anchor=(1.02, 1.0), frameon=False, fontsize=7.5,
                       title="reports, roofs, kernels", title_fontsize=8, alignment="left")
    legend.set_clip_on(False)


def _key_name(names: Sequence[str]) -> str:
    """A kernel's name in the key; a pair named differently in the reports: each name cut on its own (never one
    cut through the arrow that joins them), together about twice ``KEY_CHARS``."""
    width = KEY_CHARS if len(names) < 2 else max(KEY_NAME_CHARS, 2 * KEY_CHARS // (len(names) + 1))
    return PAIR_ARROW.join(middle(name, width) for name in names)


def _number_points(fig: Figure, ax: Axes, points: Sequence[Point], center: bool = False) -> None:
    """Each numbered kernel's number beside one of its points where it covers no other text (``center``: on the
    point first); numbers with no free spot are listed in a line at the bottom of the axes."""
    placer = LabelPlacer(fig)
    for text in ax.texts:
        placer.block(text)
    spots: dict[int, list[dict[str, Any]]] = {}
    for p in points:
        if p.number:
            first = [{"xy": (p.x, p.y), "ha": "center", "va": "center"}] if center else []
            spots.setdefault(p.number, []).extend(first + around((p.x, p.y)))
    unplaced = [str(n) for n, candidates in sorted(spots.items())
                if placer.place(ax, str(n), candidates, fontsize=7, zorder=6) is None]
    if unplaced:
        placer.place(ax, f"no room for the number of: {', '.join(unplaced)}",
                     [{"xy": (0.01, 0.01), "xycoords": "axes fraction", "va": "bottom"},
                      {"xy": (0.01, 0.99), "xycoords": "axes fraction", "va": "top"}], fontsize=6.5, color="0.35")


def x_limits(points: Sequence[Point]) -> tuple[float, float]:
    """The FLOP-per-byte range of a roofline panel: X_RANGE widened to hold every point, with room either side."""
    xs = [p.x for p in points]
    return min([X_RANGE[0], *xs]) / 2, max([X_RANGE[1], *xs]) * 2


def _axes(ax: Axes, points: Sequence[Point], title: str) -> None:
    """Log-log roofline axes wide enough for the points."""
    log_axes(ax)
    ax.set_xlim(*x_limits(points))
    ax.set_xlabel("arithmetic intensity (FLOP per DRAM byte)")
    ax.set_ylabel("FLOP/s")
    ax.set_title(title, fontsize=9, loc="left")
    ax.grid(True, alpha=0.2)


def _normalized_axes(ax: Axes, reports: int, points: Sequence[Point], title: str) -> None:
    """One column per report (A, B, ...), percent of that report's own roof upwards on a log axis (kernels far
    below their roof stay apart)."""
    from matplotlib.ticker import FuncFormatter, LogLocator

    ax.set_xticks(range(reports), [letter(i) for i in range(reports)])
    ax.set_xlim(-0.5, reports - 0.5)
    log_axes(ax, x=False)
    lowest = min((p.y for p in points), default=1.0)
    ax.set_ylim(min(lowest / 2, 10.0), 200.0)
    ax.yaxis.set_major_locator(LogLocator(base=10.0, subs=(1.0, 2.0, 5.0)))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}%"))
    ax.set_ylabel("percent of own roof (%, log scale)")
    ax.set_title(title, fontsize=9, loc="left")
    ax.grid(True, axis="y", alpha=0.2)


SMALL_GRID_COLOR = "tab:green"
# The bars' categories, as the summary's text counts the time: (colour, legend words).
BAR_KEY = (("tab:blue", "not recoverable (at the peaks a kernel can reach)"),
           (SMALL_GRID_COLOR, "small grids (counted apart)"), ("tab:orange", "recoverable"),
           ("0.6", "no roof position"))


def _draw_bars(ax: Axes, bars: Sequence[Bar], unit: str) -> None:
    """Horizontal bars in rank order: the time held by the units' peaks and the launch floor, the small-grid time
    (too few blocks to fill the GPU: counted apart, as the summary's text does, not as "not recoverable"), then the
    recoverable time (grey: no roof position), each labelled with its share of the report's time so short groups
    stay readable next to a dominant one."""
    from matplotlib.patches import Patch

    rows = list(range(len(bars)))[::-1]
    for row, b in zip(rows, bars, strict=True):
        ax.barh(row, b.bar.peak_bound, color="tab:blue" if b.recoverable_s is not None else "0.6")
        ax.barh(row, b.bar.small_grid, left=b.bar.peak_bound, color=SMALL_GRID_COLOR)
        ax.barh(row, b.bar.recoverable, left=b.bar.attained, color="tab:orange")
        share = f"{b.bar.share_pct:.1f}%" if b.bar.share_pct is not None else ""
        ax.annotate(share, (b.bar.total, row), xytext=(3, 0), textcoords="offset points", va="center", fontsize=7)
    ax.set_xlim(0, 1.2 * max((b.bar.total for b in bars), default=1.0))
    ax.set_yticks(rows, [middle(b.label, 40) for b in bars])
    ax.set_xlabel(f"time ({unit})")
    ax.tick_params(axis="y", labelsize=7)
    handles = [Patch(color=c, label=t) for c, t in BAR_KEY]
    ax.legend(handles=handles, fontsize=7, loc="lower left", bbox_to_anchor=(0.0, 1.0), ncol=2, frameon=False)


# why a summary's roofline panel is empty, per cause its groups have no place (``Place``)
UNPLACED_WORDS = {Place.NO_INTENSITY: f"their FLOP per DRAM byte is not measured:\n{PLOT_FIX}",
                  Place.NO_FLOPS: "they do no floating-point work\n(zero FLOPs have no place on log axes)"}


def _note_empty(ax: Axes, unplaced: Sequence[Place]) -> None:
    """A roofline panel with no point: why, in the panel (the note below names the metrics), without axes that
    would scale nothing (1 to 10 FLOP/s); the time bars beside it still hold each group's time."""
    why = [UNPLACED_WORDS[p] for p in unplaced if p in UNPLACED_WORDS]
    ax.text(0.5, 0.5, "no kernel group can be placed on the roofline" + (":\n" if why else "") + "\n".join(why)
            + "\n(the note below names what is missing)",
            transform=ax.transAxes, ha="center", va="center", fontsize=9, color="0.4")
    ax.set_xticks([], minor=False)
    ax.set_yticks([], minor=False)
    ax.minorticks_off()
    ax.set_xlabel("")
    ax.set_ylabel("")
    ax.grid(False)
