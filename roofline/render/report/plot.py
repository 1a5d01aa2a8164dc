"""Hierarchical roofline plot of report analyses: log-log, FLOP per byte against FLOP/s, and a bandwidth view.

``plot_data`` computes everything that is drawn (roof values, ridge points, point coordinates, notes) as plain
dataclasses, so tests check the content; ``figure_of`` lays it out with matplotlib (imported inside, Agg
canvas) and ``draw`` saves it as PNG, SVG or PDF. A report gets a roofline panel: one roof per memory level it
measured, one ceiling per precision its kernels use, and each kernel (launches pooled by name) at every level
it has, the levels joined, each point against its own level's roof and hollow where that level has no roof.
When most of the report's time is in kernels without FLOPs, it also gets (or, with no kernel to place on the
roofline, only gets) a bandwidth panel: achieved bytes/s per memory level against each level's roof. Kernels
are numbered by time (1 = longest); the top N are coloured and named in the legend (long names shortened in
the middle, the full names in a key under the axes), the rest drawn in grey as "other".

Nothing is clipped or overlaps: legends and notes are placed by matplotlib's constrained layout, roof and
ceiling labels by ``render.mpl.LabelPlacer`` (a label that finds no free spot is named in the notes instead).
For HTML, ``inline_svg`` gives every point a tooltip (an SVG ``<title>``) and a link to its kernel's section.
"""

from __future__ import annotations

import html
import math
import re
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Literal

from roofline.analysis.kernels import KernelStats
from roofline.analysis.launches import KernelGroup, ReportAnalysis
from roofline.analysis.view import PooledPoints, ReportSetView, ReportView
from roofline.core.labels import LEGEND_KERNELS, NAMES
from roofline.core.model import LEVELS, PRECISIONS, Ceilings, CeilingSet, memory_roof, roof_intensity
from roofline.core.units import counted, pct, ratio, si
from roofline.render.mpl import (
    NOTE_FONT,
    NOTE_LINE_IN,
    LabelPlacer,
    PlotFormat,
    figure,
    freeze_layout,
    log_axes,
    log_steps,
    middle,
    svg_element,
    to_bytes,
    wrap,
)
from roofline.render.names import bound_word, short_group_name, visible
from roofline.render.report.prose import AT_LEAST, inverted_level_text

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from matplotlib.typing import RcKeyType

PanelKind = Literal["roofline", "bandwidth"]
LEVEL_MARKERS = {"dram": "o", "l2": "s", "l1": "^"}
MIN_AREA, MAX_AREA = 40.0, 100.0  # DRAM marker area (pt^2) of a kernel with no time and with all of it
LEVEL_SCALE = {"dram": 1.0, "l2": 0.62, "l1": 0.36}  # smaller and drawn later further in: coinciding levels nest
LABEL_CHARS = 34  # kernel name length in the legend; longer names are cut in the middle and keyed under the axes
KEY_CHARS = 200  # a full name in the key (templated C++ names can run to thousands of characters)
NO_ROOF = "no roof for this level"


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
    """A kernel at one memory level: FLOP per byte there and FLOP/s of all counted precisions (None without
    FLOPs), bytes/s, and the percent of that level's roof (None where the level has no roof: drawn hollow)."""

    level: str
    intensity: float | None
    flop_per_s: float | None
    bytes_per_s: float | None
    roof_pct: float | None


@dataclass(frozen=True)
class KernelSeries:
    """One kernel (its launches pooled): number by time, points level by level, share of the profiled time, and
    the roof position of the pooled launches (for the tooltips)."""

    name: str
    number: int  # rank by total time in the report, 1 = longest: the legend's and the key's number
    launches: int
    launch: str  # "range:action" of a single launch, else "N launches"
    time_share: float | None
    points: tuple[KernelPoint, ...]
    precisions: tuple[str, ...]  # the precisions with FLOPs
    pct_of_roof: float | None = None
    bound: str | None = None
    color: int = 0  # palette index; -1 for kernels drawn as "other"
    level_notes: tuple[str, ...] = ()  # levels that count one direction only and so look inverted
    leaves_out: tuple[str, ...] = ()  # precisions not measured, left out of the intensities: each a lower bound

    @property
    def on_roofline(self) -> bool:
        """Whether the kernel has a place on the FLOP roofline (FLOPs counted and an intensity at some level)."""
        return any(pt.intensity for pt in self.points)


L2_TOTAL_NOTE = ("L2 point at all L2 traffic, loads and stores (bytes.l2_total): the report's L2 definition "
                 "counts none of this kernel's L2 bytes")
# Why a kernel has no place in a panel: the reasons the notes under the plot group kernels by.
NO_DURATION = "no duration"
NO_FLOPS_MEASURED = "FLOPs not measured"
NO_BYTES = "no bytes measured at any memory level"
NO_FLOPS = "no FLOPs counted"  # a memory-only kernel: no place on a log roofline


@dataclass(frozen=True)
class Panel:
    """One view of one report: roofs, ceilings, the top kernels, the rest, what is not in it and why, and the
    notes printed under the axes."""

    title: str
    ceilings_used: CeilingSet
    roofs: tuple[MemoryRoof, ...]
    ceilings: tuple[ComputeCeiling, ...]
    series: tuple[KernelSeries, ...]
    other: tuple[KernelSeries, ...]
    skipped: tuple[tuple[str, str], ...]  # (kernel name, why it is not in this panel: one of the NO_* reasons)
    kind: PanelKind = "roofline"
    notes: tuple[str, ...] = ()
    other_share: float = 0.0  # share of the profiled time of the kernels drawn as "other" (the view's shares_past)

    def drawn(self, s: KernelSeries) -> tuple[KernelPoint, ...]:
        """The points of a series this panel draws: those with an intensity (roofline) or bytes/s (bandwidth)."""
        return tuple(pt for pt in s.points if (pt.intensity if self.kind == "roofline" else pt.bytes_per_s))


@dataclass(frozen=True)
class PlotData:
    """Everything one figure draws: the panels of every report, top to bottom."""

    panels: tuple[Panel, ...]


# --- Data ---------------------------------------------------------------------------------------------
def plot_data(views: Sequence[ReportView], top: int = LEGEND_KERNELS,
              ceilings: CeilingSet | None = None) -> PlotData:
    """The content of the figure; ``ceilings`` ("datasheet" or "measured-clock") overrides each report's ceilings
    in use."""
    return PlotData(tuple(p for v in views for p in report_panels(v, top, ceilings or v.analysis.ceilings_used)))


def report_panels(v: ReportView, top: int, source: CeilingSet) -> list[Panel]:
    """One report's panels against the ``source`` ceilings: the roofline, the bandwidth view, or both."""
    a = v.analysis
    chosen = v.ceilings.get(source)
    level_roofs = _level_roofs(v, source)
    series: list[KernelSeries] = []
    why_not: dict[str, str] = {}
    for number, (group, stats, pooled) in enumerate(zip(a.groups, v.pooled, v.points, strict=True), 1):
        s, why = kernel_series(group, stats, pooled, number, source)
        if s is not None:
            series.append(s if number <= top else replace(s, color=-1))
        why_not[_label(group)] = why
    placed = [s for s in series if s.on_roofline]
    bandwidth = v.bandwidth_view
    panels = []
    if placed or not bandwidth:
        roofs = _roofs(level_roofs, {pt.level for s in placed for pt in s.points if pt.intensity} or {"dram"})
        skipped = {_label(g): why_not[_label(g)] or NO_FLOPS for g in a.groups
                   if _label(g) not in {s.name for s in placed}}
        panels.append(_panel(a, "roofline", source, chosen, roofs, _ceilings(chosen, placed, roofs), placed, skipped,
                             bandwidth, _other_share(v, "roofline", top)))
    if bandwidth:
        shown = [s for s in series if any(pt.bytes_per_s for pt in s.points)]
        roofs = _roofs(level_roofs, {pt.level for s in shown for pt in s.points if pt.bytes_per_s})
        skipped = {_label(g): NO_DURATION if why_not[_label(g)] == NO_DURATION else NO_BYTES for g in a.groups
                   if _label(g) not in {s.name for s in shown}}
        panels.append(_panel(a, "bandwidth", source, chosen, roofs, (), shown, skipped, False,
                             _other_share(v, "bandwidth", top)))
    return panels


def _other_share(v: ReportView, kind: PanelKind, top: int) -> float:
    """The share of the profiled time of a panel's kernels past the ``top`` (``ReportView.shares_past``)."""
    past = v.shares_past.get(kind, ())
    return past[min(top, len(past) - 1)] if past else 0.0


def _panel(analysis: ReportAnalysis, kind: PanelKind, source: CeilingSet, chosen: Ceilings | None,
           roofs: tuple[MemoryRoof, ...], ceilings: tuple[ComputeCeiling, ...], series: list[KernelSeries],
           skipped: dict[str, str], bandwidth_below: bool, other_share: float) -> Panel:
    shown = tuple(s for s in series if s.color >= 0)
    other = tuple(s for s in series if s.color < 0)
    numbers = {_label(g): i for i, g in enumerate(analysis.groups, 1)}
    p = Panel(_title(analysis, source, chosen, kind), source, roofs, ceilings, shown, other,
              tuple(skipped.items()), kind, other_share=other_share)
    notes = _skipped_notes(p, numbers, bandwidth_below) + _hollow_notes(p) + _mixed_notes(p) + _key_notes(p)
    return replace(p, notes=tuple(notes))


def kernel_series(group: KernelGroup, stats: KernelStats | None, pooled: PooledPoints | None, number: int = 1,
                  source: CeilingSet = "measured-clock") -> tuple[KernelSeries | None, str]:
    """A kernel's points (the view's ``pooled``: its timed launches pooled, level by level, each against the roof of
    its level for ``source``); and why it has no place on the FLOP roofline (one of the NO_* reasons; "" when it
    has one)."""
    if stats is None or pooled is None:
        return None, NO_DURATION
    timed = group.launches.where(group.launches.times != 0)
    points = tuple(KernelPoint(pt.level, pt.intensity, pt.flop_per_s, pt.bytes_per_s, pt.roof_pct.get(source))
                   for pt in pooled.points)
    used = tuple(p for p in PRECISIONS if stats.flops[p].value)
    launch = timed[0].launch.key if len(group.launches) == 1 else f"{len(group.launches)} launches"
    notes = tuple(dict.fromkeys(inverted_level_text(level) for k in timed for level in k.inverted_levels))
    notes += (L2_TOTAL_NOTE,) if any(pt.all_traffic for pt in pooled.points) else ()
    leaves_out = tuple(dict.fromkeys(p for k in timed for p in k.intensity_leaves_out))
    series = KernelSeries(_label(group), number, len(group.launches), launch, group.time_share, points, used,
                          stats.roof.pct_of_roof, stats.verdict.bound, level_notes=notes, leaves_out=leaves_out)
    if pooled.flop_per_s is None:
        return series if points else None, NO_FLOPS_MEASURED
    if not points:
        return None, NO_BYTES
    return series, "" if series.on_roofline else NO_FLOPS


def _label(g: KernelGroup) -> str:
    """What the plot names a kernel by (its legend, key, notes, tooltips and links): its name without the scope."""
    return short_group_name(g.name, g.functions, g.by)


def _level_roofs(v: ReportView, source: CeilingSet) -> dict[str, MemoryRoof]:
    """Each level's roof: the chosen set's bandwidth, else the measured-clock one (drawn and labelled as such)."""
    return {level: MemoryRoof(level, *roof) for level, roof in v.level_roofs.get(source, {}).items()}


def _roofs(level_roofs: Mapping[str, MemoryRoof], measured: set[str]) -> tuple[MemoryRoof, ...]:
    """The roofs of the levels some drawn kernel was measured at."""
    return tuple(level_roofs[level] for level in LEVELS if level in measured and level in level_roofs)


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
        ridges = {r.level: roof_intensity(peak, r.bytes_per_s) for r in roofs}
        names = ", ".join(NAMES[p] + (f" ({c.tensor_dtype.upper()})" if p == "tensor" and c.tensor_dtype else "")
                          for p in precisions)
        ridge = f", DRAM ridge {ridges['dram']:.3g} FLOP/B" if "dram" in ridges else ""
        out.append(ComputeCeiling(precisions[0], peak, ridges, f"{names} {si(peak, 'FLOP/s')}{ridge}"))
    return tuple(out)


TITLE_NAME_CHARS = 80  # of the GPU's name in a panel's title (real ones: < 40)
TITLE_LINE_CHARS = 80  # a panel title's ceilings line wraps here (a clock note runs to 130 characters)


def _title(analysis: ReportAnalysis, source: CeilingSet, c: Ceilings | None, kind: PanelKind) -> str:
    d = analysis.device
    launches = counted(len(analysis.launches), "launch")
    head = f"{middle(d.name, TITLE_NAME_CHARS)} (CC {d.compute_capability or '?'}), {launches}"
    view = "bandwidth view, achieved bytes/s per memory level\n" if kind == "bandwidth" else ""
    if c is None:
        return f"{head}\n{view}no {source} ceilings"
    which = f"spec {analysis.spec_id}" if source == "datasheet" and analysis.spec_id else c.clock
    return f"{head}\n{view}" + "\n".join(textwrap.wrap(f"{source} ceilings ({which})", TITLE_LINE_CHARS))


# --- Notes under the axes -----------------------------------------------------------------------------
def _skipped_notes(p: Panel, numbers: Mapping[str, int], bandwidth_below: bool) -> list[str]:
    """Kernels not in the panel, by reason: "not on this roofline, no FLOPs counted: 3 kernels (#2 a, ...)"."""
    by_reason: dict[str, list[str]] = {}
    for name, why in p.skipped:
        by_reason.setdefault(why, []).append(f"#{numbers.get(name, '?')}\u00a0{middle(name, 30)}")
    where = "this roofline" if p.kind == "roofline" else "this view"
    notes = []
    for reason, names in by_reason.items():
        listed = ", ".join(names[:6]) + (", ..." if len(names) > 6 else "")
        below = " (in the bandwidth view below)" if bandwidth_below and reason == NO_FLOPS else ""
        notes.append(f"not on {where}, {reason}: {counted(len(names), 'kernel')}{below}: {listed}")
    return notes


def _hollow_notes(p: Panel) -> list[str]:
    """The levels whose points are hollow, in one line; why they have no roof is the report's to say (its n/a
    reasons name the metrics), not the figure's."""
    levels = [lv for lv in LEVELS if any(pt.level == lv and pt.roof_pct is None
                                         for s in (*p.series, *p.other) for pt in p.drawn(s))]
    if not levels:
        return []
    return [f"{', '.join(NAMES[lv] for lv in levels)} points hollow, {NO_ROOF} (the report's n/a reasons say why)"]


def _mixed_notes(p: Panel) -> list[str]:
    """The kernels whose point sums the FLOP/s of several precisions, which no one ceiling bounds: their percent of
    roof weighs each precision against its own ceiling, so the point may sit higher against a ceiling than it."""
    if p.kind != "roofline":
        return []
    mixed = [f"#{s.number}\u00a0{middle(s.name, 30)} ({' + '.join(NAMES[q] for q in s.precisions)}, "
             f"{pct(s.pct_of_roof)} of roof)" for s in p.series if len(s.precisions) > 1 and s.on_roofline]
    if not mixed:
        return []
    return ["points at the FLOP/s of several precisions summed; the percent of roof weighs each precision against "
            "its own ceiling: " + ", ".join(mixed)]


def _key_notes(p: Panel) -> list[str]:
    """Full names of the legend's shortened kernel names, by number."""
    cut = [f"#{s.number}\u00a0{middle(s.name, KEY_CHARS)}" for s in p.series if len(s.name) > LABEL_CHARS]
    return ["key: " + "; ".join(cut)] if cut else []


# --- Tooltips -----------------------------------------------------------------------------------------
def point_id(panel: int, s: KernelSeries, level: str) -> str:
    """The SVG id of a drawn point (the element that carries its tooltip and link)."""
    return f"pt{panel}-{s.number}-{level}"


def tooltips(data: PlotData) -> dict[str, str]:
    """Per drawn point (by ``point_id``): kernel, launch, level, FLOP/s, bytes/s, intensity, percent of roof, bound."""
    out = {}
    for i, p in enumerate(data.panels):
        for s in (*p.series, *p.other):
            for pt in p.drawn(s):
                out[point_id(i, s, pt.level)] = tooltip(s, pt, p.ceilings_used)
    return out


def tooltip(s: KernelSeries, pt: KernelPoint, ceilings: CeilingSet = "kernel-clock") -> str:
    """The hover text of one point, one fact per line: the kernel, its launch (or its launches pooled), the level's
    bytes/s and their percent of that level's bandwidth (its memory roof, not the roof at the point's intensity,
    which the last line's percent of roof is against), FLOP/s and intensity; ``ceilings``: the set the kernel's
    percent of roof uses."""
    share = pct(None if s.time_share is None else 100 * s.time_share)
    level = f"{NAMES[pt.level]}: {si(pt.bytes_per_s, 'B/s')}, " + (
        f"{pct(pt.roof_pct)} of the {NAMES[pt.level]} bandwidth" if pt.roof_pct is not None else NO_ROOF)
    unmeasured = f" ({' and '.join(NAMES[p] for p in s.leaves_out)} FLOPs not measured)" if s.leaves_out else ""
    summed = f" ({' + '.join(NAMES[q] for q in s.precisions)})" if len(s.precisions) > 1 else ""
    flops = (f"{si(pt.flop_per_s, 'FLOP/s')}{summed} at {AT_LEAST if s.leaves_out else ''}{ratio(pt.intensity)} "
             f"FLOP/byte{unmeasured}" if pt.flop_per_s else "no FLOPs counted")
    launch = f"launch {s.launch}" if s.launches == 1 else f"{s.launch} pooled"
    return "\n".join((f"#{s.number} {visible(s.name)}", f"{launch}, {share} of the time", level, flops,
                      f"kernel at {pct(s.pct_of_roof)} of roof ({ceilings} ceilings, per launch), bound: "
                      f"{bound_word(s.bound)}"))


# --- Drawing ------------------------------------------------------------------------------------------
FIG_WIDTH_IN = 11.0
DPI = 150
PANEL_HEIGHT_IN = {"roofline": 5.6, "bandwidth": 4.6}
NOTES_WIDTH_IN = FIG_WIDTH_IN - 0.6
PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22",
           "#7f7f7f")
OTHER_COLOR, ROOF_COLOR, LEVEL_COLOR = "#b0b0b0", "#303030", "#9a9a9a"
CEILING_STYLES = {"fp64": ":", "fp32": "-", "fp16": "-.", "tensor": "--"}
MEASURED_STYLE = (0, (5, 2))  # a roof taken from the measured-clock set when the chosen one has none
ROOF_FONT = 8.5
_RC: dict[RcKeyType, Any] = {"svg.fonttype": "none", "font.size": 9, "font.family": "DejaVu Sans"}
_EMPTY = Panel("no report", "measured-clock", (), (), (), (), ())


NOTHING_TO_PLOT = "has a duration with FLOPs or bytes measured"  # what no kernel of an empty plot has
PLOT_FIX = "re-profile with --set roofline or --set full"


def image(view: ReportSetView, fmt: PlotFormat, top: int = LEGEND_KERNELS) -> bytes | None:
    """The roofline plot of the reports (``top`` kernels in the legend) as PNG, SVG or PDF bytes; None when no
    kernel of any report has a point on it."""
    if not any(v.on_plot for v in view.reports):  # no kernel has a duration with FLOPs or bytes measured
        return None
    return draw(plot_data(view.reports, top or LEGEND_KERNELS), fmt)


def pngs(view: ReportSetView) -> list[bytes | None]:
    """Each report's roofline plot as PNG (drawn beside a Markdown report); None for a report with nothing to
    plot."""
    return [image(ReportSetView((v,)), "png") for v in view.reports]


def draw(data: PlotData, fmt: PlotFormat, mark: bool = True, links: Mapping[str, str] | None = None) -> bytes:
    """The figure as PNG, SVG or PDF bytes; reproducible (no dates, fixed SVG ids). ``mark`` False leaves
    out the generator mark (for SVG inlined in HTML); ``links`` maps kernel names to the URL a click opens."""
    from matplotlib import rc_context

    with rc_context(_RC):
        return to_bytes(figure_of(data, links), fmt, mark)


def figure_of(data: PlotData, links: Mapping[str, str] | None = None) -> Figure:
    """The laid-out figure (tests measure its text). A roof label with no free spot is named in the notes."""
    from matplotlib import rc_context

    panels = data.panels or (_EMPTY,)
    with rc_context(_RC):
        fig, left_out = _build(panels, links or {}, {})
        if left_out:
            fig, _ = _build(panels, links or {}, left_out)
    return fig


def inline_svg(data: PlotData, links: Mapping[str, str] | None = None) -> str:
    """The figure as an ``<svg>`` element for an HTML page: no XML prologue, DTD or namespace URLs; every point
    with its tooltip (``<title>``) and, where ``links`` names its kernel, a link to it in the same page."""
    svg = svg_element(draw(data, "svg", mark=False, links=links))
    svg = re.sub(r'<a xlink:href="(#[^"]*)" target="_blank">', r'<a href="\1">', svg)
    for gid, tip in tooltips(data).items():
        svg = svg.replace(f'<g id="{gid}">', f'<g id="{gid}" class="point"><title>{html.escape(tip)}</title>', 1)
    return svg


def _build(panels: Sequence[Panel], links: Mapping[str, str],
           extra: Mapping[int, list[str]]) -> tuple[Figure, dict[int, list[str]]]:
    """Draw, lay out, then label the roofs; returns the figure and, per panel, the labels that found no room."""
    notes = [wrap([*p.notes, *(f"label without room on the plot: {t}" for t in extra.get(i, []))], NOTES_WIDTH_IN)
             for i, p in enumerate(panels)]
    rows: list[float] = []
    for p, lines in zip(panels, notes, strict=True):
        rows += [PANEL_HEIGHT_IN[p.kind]] + ([NOTE_LINE_IN * (len(lines) + 1)] if lines else [])
    fig = figure(FIG_WIDTH_IN, sum(rows), constrained=True, dpi=DPI)
    grid = fig.add_gridspec(len(rows), 1, height_ratios=rows)
    row, axes = 0, []
    for i, (p, lines) in enumerate(zip(panels, notes, strict=True)):
        ax = fig.add_subplot(grid[row])
        (_draw_roofline if p.kind == "roofline" else _draw_bandwidth)(ax, p, i, links)
        _legend(ax, p)
        if lines:
            _draw_notes(fig.add_subplot(grid[row + 1]), lines)
        axes.append(ax)
        row += 2 if lines else 1
    freeze_layout(fig)
    placer = LabelPlacer(fig)
    left_out: dict[int, list[str]] = {}
    for i, (ax, p) in enumerate(zip(axes, panels, strict=True)):
        for text in ax.texts:
            placer.block(text)
        placer.block_points(ax)
        failed = (_label_roofline if p.kind == "roofline" else _label_bandwidth)(ax, p, placer, set(extra.get(i, [])))
        if failed:
            left_out[i] = failed
    return fig, left_out


def _draw_notes(ax: Axes, lines: Sequence[str]) -> None:
    ax.axis("off")
    ax.text(0.0, 1.0, "\n".join(lines), transform=ax.transAxes, va="top", ha="left", fontsize=NOTE_FONT,
            color="#505050", linespacing=1.2)


def _draw_roofline(ax: Axes, p: Panel, index: int, links: Mapping[str, str]) -> None:
    (x_lo, x_hi), (y_lo, y_hi) = limits(p)
    log_axes(ax)
    ax.set_xlim(x_lo, x_hi)
    ax.set_ylim(y_lo, y_hi)
    _frame(ax, p, "arithmetic intensity [FLOP/byte]", "performance [FLOP/s]")
    top = max((c.flop_per_s for c in p.ceilings), default=None)
    fastest = max((r.bytes_per_s for r in p.roofs), default=None)
    for roof in p.roofs:
        x_end = roof_intensity(top, roof.bytes_per_s) if top else x_hi
        measured = roof.source != p.ceilings_used
        ax.plot([x_lo, x_end], [memory_roof(roof.bytes_per_s, x_lo), memory_roof(roof.bytes_per_s, x_end)],
                color=ROOF_COLOR, lw=1.4,
                ls=MEASURED_STYLE if measured else "-", alpha=0.6 if measured else 1.0, zorder=2)
    for c in p.ceilings:
        x_start = roof_intensity(c.flop_per_s, fastest) if fastest else x_lo
        ax.plot([x_start, x_hi], [c.flop_per_s] * 2, color=ROOF_COLOR, lw=1.4, ls=CEILING_STYLES[c.precision], zorder=2)
        if "dram" in c.ridges:
            ax.plot([c.ridges["dram"]], [c.flop_per_s], marker="D", ms=3.5, color=ROOF_COLOR, zorder=3)
    for s in (*p.other, *p.series):
        _draw_series(ax, p, s, index, links, lambda pt: (pt.intensity, pt.flop_per_s))
    if not p.series and not p.other:
        ax.text(0.5, 0.5, "no kernel to place: FLOPs or bytes not measured", transform=ax.transAxes, ha="center",
                fontsize=10, color="#606060")


def limits(p: Panel) -> tuple[tuple[float, float], tuple[float, float]]:
    """Axis ranges of a roofline panel holding every point and ridge, at least three decades wide, with room
    for the roof labels."""
    points = [pt for s in (*p.series, *p.other) for pt in p.drawn(s)]
    ridges = [r for c in p.ceilings for r in c.ridges.values()]
    xs = [pt.intensity for pt in points if pt.intensity] + ridges + [30 * r for r in ridges]
    ys = [pt.flop_per_s for pt in points if pt.flop_per_s] + [c.flop_per_s for c in p.ceilings]
    x_lo, x_hi = _widen(min(xs, default=1e-2) / 4, max(xs, default=1e2) * 4)
    bottom = [y / 6 for y in ys[:len(points)]] + [memory_roof(r.bytes_per_s, x_lo) for r in p.roofs]
    label_room = [memory_roof(r.bytes_per_s, x_lo) * 10 for r in p.roofs]  # a rotated roof label spans about a decade
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


def _draw_bandwidth(ax: Axes, p: Panel, index: int, links: Mapping[str, str]) -> None:
    """Levels side by side; each level's roof a horizontal bar, each kernel a point per level (offset by its
    number so kernels do not cover each other), joined across levels; log scale of bytes/s."""
    levels = _bandwidth_levels(p)
    log_axes(ax, x=False)
    ax.set_xlim(-0.5, len(levels) - 0.5)
    ax.set_xticks(range(len(levels)), [NAMES[lv] for lv in levels])
    values = [pt.bytes_per_s for s in (*p.series, *p.other) for pt in p.drawn(s) if pt.bytes_per_s]
    values += [r.bytes_per_s for r in p.roofs]
    ax.set_ylim(*_widen(min(values, default=1e9) / 3, max(values, default=1e12) * 4, decades=2.0))
    _frame(ax, p, "memory level", "achieved bandwidth [bytes/s]")
    ax.grid(False, axis="x")
    for roof in p.roofs:
        i = levels.index(roof.level)
        measured = roof.source != p.ceilings_used
        ax.hlines(roof.bytes_per_s, i - 0.42, i + 0.42, color=ROOF_COLOR, lw=1.8,
                  ls=MEASURED_STYLE if measured else "-", alpha=0.6 if measured else 1.0, zorder=2)
    ordered = sorted((*p.series, *p.other), key=lambda s: s.number)
    step = 0.6 / max(1, len(ordered) - 1)
    for j, s in enumerate(ordered):
        offset = -0.3 + j * step if len(ordered) > 1 else 0.0
        _draw_series(ax, p, s, index, links, lambda pt, o=offset: (levels.index(pt.level) + o, pt.bytes_per_s))


def _bandwidth_levels(p: Panel) -> list[str]:
    drawn = {pt.level for s in (*p.series, *p.other) for pt in p.drawn(s)} | {r.level for r in p.roofs}
    return [lv for lv in LEVELS if lv in drawn] or ["dram"]


def _frame(ax: Axes, p: Panel, xlabel: str, ylabel: str) -> None:
    ax.grid(True, which="major", alpha=0.25)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(p.title, loc="left", fontsize=10)


def _draw_series(ax: Axes, p: Panel, s: KernelSeries, index: int, links: Mapping[str, str], xy: Any) -> None:
    """A kernel's points (one artist each, with an SVG id for its tooltip), joined; hollow where no roof."""
    color = series_color(s)
    points = p.drawn(s)
    coords = [xy(pt) for pt in points]
    if len(points) > 1:
        ax.plot([c[0] for c in coords], [c[1] for c in coords], color=color, lw=1.0, alpha=0.6, zorder=3)
    for pt, (x, y) in zip(points, coords, strict=True):
        roofed = pt.roof_pct is not None
        dot = ax.scatter([x], [y], s=area(s.time_share) * LEVEL_SCALE[pt.level], marker=LEVEL_MARKERS[pt.level],
                         zorder=4 + 0.1 * LEVELS.index(pt.level),
                         facecolors=color if roofed else "none", edgecolors="black" if roofed else color,
                         linewidths=0.5 if roofed else 1.4, alpha=0.75 if s.color < 0 else 0.95)
        dot.set_gid(point_id(index, s, pt.level))
        if s.name in links:
            dot.set_urls([links[s.name]])


def area(time_share: float | None) -> float:
    """DRAM marker area (pt^2) growing with the kernel's share of the profiled time, bounded (the share is in the
    legend), so a long kernel never hides its neighbours; L2 and L1 markers are smaller (``LEVEL_SCALE``)."""
    return MIN_AREA + (MAX_AREA - MIN_AREA) * (time_share or 0.0)


def series_color(s: KernelSeries) -> str:
    """A kernel's colour: by its number for the top kernels (the same in every panel), grey for "other"."""
    return OTHER_COLOR if s.color < 0 else PALETTE[(s.number - 1) % len(PALETTE)]


def _legend(ax: Axes, p: Panel) -> None:
    """One legend beside the axes: kernels (number, name, share of time), then the memory-level markers, the
    hollow marker and the measured-clock roof style where used."""
    from matplotlib.lines import Line2D

    def marker(label: str, shape: str = "o", face: str = LEVEL_COLOR, edge: str = "black",
               scale: float = 1.0) -> Line2D:
        return Line2D([], [], ls="", marker=shape, ms=8 * scale ** 0.5, color=face, mfc=face, mec=edge, mew=0.8,
                      label=label)

    drawn = [pt for s in (*p.series, *p.other) for pt in p.drawn(s)]
    if not drawn:
        return
    handles = [marker(_series_label(s), face=series_color(s)) for s in p.series]
    if p.other:
        handles.append(marker(f"other: {len(p.other)} kernels, {100 * p.other_share:.1f}% of time", face=OTHER_COLOR))
    levels = sorted({pt.level for pt in drawn}, key=LEVELS.index)
    header = len(handles)
    handles.append(Line2D([], [], ls="", label="memory level (joined per kernel)"))
    handles += [marker(NAMES[lv], LEVEL_MARKERS[lv], scale=LEVEL_SCALE[lv]) for lv in levels]
    hollow = sorted({pt.level for pt in drawn if pt.roof_pct is None}, key=LEVELS.index)
    if hollow:
        handles.append(marker(f"hollow: {NO_ROOF} ({', '.join(NAMES[lv] for lv in hollow)})", face="none",
                              edge=LEVEL_COLOR))
    if any(r.source != p.ceilings_used for r in p.roofs):
        handles.append(Line2D([], [], color=ROOF_COLOR, alpha=0.6, ls=MEASURED_STYLE,
                              label=f"* measured-clock roof (no {p.ceilings_used} value)"))
    legend = ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.02, 1.0), frameon=False, fontsize=8,
                       title="kernels by time (share of time)", title_fontsize=8.5,
                       alignment="left")
    legend.get_texts()[header].set_fontweight("bold")


def _series_label(s: KernelSeries) -> str:
    launches = f", {s.launches} launches" if s.launches > 1 else ""
    share = f"{100 * s.time_share:.1f}%" if s.time_share is not None else "n/a"
    return f"#{s.number} {middle(s.name, LABEL_CHARS)}  {share}{launches}"


# --- Labels on the roofs (after the layout is frozen) ----------------------------------------------------
def _roof_label(p: Panel, roof: MemoryRoof) -> str:
    return f"{NAMES[roof.level]} {si(roof.bytes_per_s, 'B/s')}{'*' if roof.source != p.ceilings_used else ''}"


def _label_roofline(ax: Axes, p: Panel, placer: LabelPlacer, skip: set[str]) -> list[str]:
    """Ceiling labels (above or below their line, from the right end leftwards) then memory-roof labels (along
    their line, from the left end upwards); returns the labels that found no free spot."""
    (x_lo, x_hi), (y_lo, _) = ax.get_xlim(), ax.get_ylim()
    top = max((c.flop_per_s for c in p.ceilings), default=None)
    failed = []
    style = {"fontsize": ROOF_FONT, "color": ROOF_COLOR}
    for c in sorted(p.ceilings, key=lambda c: -c.flop_per_s):
        spots = [{"xy": (x_hi / 1.1 / 10 ** (0.4 * k), y), "va": va} for k in range(6)
                 for y, va in ((c.flop_per_s * 1.07, "bottom"), (c.flop_per_s / 1.07, "top"))]
        if c.label in skip or placer.place(ax, c.label, spots, ha="right", **style) is None:
            failed.append(c.label)
    for roof in p.roofs:
        label = _roof_label(p, roof)
        x_end = roof_intensity(top, roof.bytes_per_s) if top else x_hi
        x0 = max(x_lo * 1.4, roof_intensity(y_lo * 2.5, roof.bytes_per_s))
        xs = [x for x in log_steps(x0, 0.2, 16) if x < x_end / 2]
        angle = _angle(ax, roof.bytes_per_s)
        spots = [{"xy": (x, y), "va": va} for x in xs
                 for y, va in ((memory_roof(roof.bytes_per_s, x) * 1.25, "bottom"),
                               (memory_roof(roof.bytes_per_s, x) * 0.8, "top"))]
        if label in skip or placer.place(ax, label, spots, ha="left", rotation=angle, rotation_mode="anchor",
                                         **style) is None:
            failed.append(label)
    return failed


def _angle(ax: Axes, slope: float) -> float:
    """On-screen angle (degrees) of the line y = slope * x."""
    (x0, y0), (x1, y1) = ax.transData.transform([(1.0, slope), (10.0, slope * 10)])
    return math.degrees(math.atan2(y1 - y0, x1 - x0))


def _label_bandwidth(ax: Axes, p: Panel, placer: LabelPlacer, skip: set[str]) -> list[str]:
    """Each level's roof value just above (else below) its bar."""
    levels = _bandwidth_levels(p)
    failed = []
    for roof in p.roofs:
        label, i = _roof_label(p, roof), levels.index(roof.level)
        spots = [{"xy": (i, y), "va": va} for y, va in ((roof.bytes_per_s * 1.08, "bottom"),
                                                         (roof.bytes_per_s / 1.08, "top"))]
        if label in skip or placer.place(ax, label, spots, ha="center", fontsize=ROOF_FONT, color=ROOF_COLOR) is None:
            failed.append(label)
    return failed
