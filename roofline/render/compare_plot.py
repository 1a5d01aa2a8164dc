"""Plots of comparisons (each report's roofs in its own colour, each kernel's points joined A -> B -> ...) and of
application summaries (kernel groups as points sized by time, next to a bar chart of time and recoverable time).

``comparison_data`` and ``summary_data`` compute the plotted coordinates as dataclasses, so tests check what
is drawn without reading pixels; ``comparison_plot`` and ``summary_plot`` draw them to PNG, SVG or PDF bytes
(matplotlib imported inside, through ``render.mpl``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import TYPE_CHECKING, Any

from roofline.labels import letter
from roofline.model import Ceilings
from roofline.pairing import Comparison, KernelStats, why_no_roof
from roofline.ranking import AppSummary
from roofline.render.mpl import PLOT_SUFFIXES, PlotFormat, figure, to_bytes
from roofline.units import si

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

SUFFIXES = PLOT_SUFFIXES
DPI = 120
MIN_AREA, MAX_AREA = 30.0, 900.0  # marker areas (points^2) of the shortest and the longest group
X_RANGE = (1e-2, 1e4)  # FLOP per byte shown when the points do not widen it


@dataclass(frozen=True)
class Point:
    """One kernel in one report: x = FLOP per DRAM byte, y = FLOP/s (or percent of own roof), area in pt^2."""

    label: str
    report: int
    x: float
    y: float
    area: float = MIN_AREA


@dataclass(frozen=True)
class Roof:
    """One report's roof for one precision: y = min(peak, x x DRAM bandwidth), drawn in that report's colour."""

    report: int
    precision: str
    peak_flop_per_s: float
    dram_bytes_per_s: float


@dataclass(frozen=True)
class ComparePlotData:
    """What a comparison plot shows: points, arrows (from report i to report i+1), roofs, and what was left out."""

    normalized: bool
    points: tuple[Point, ...]
    arrows: tuple[tuple[Point, Point], ...]
    roofs: tuple[Roof, ...]
    skipped: tuple[str, ...]


@dataclass(frozen=True)
class Bar:
    """One group's total time and, when known, the part of it recoverable at the roof."""

    label: str
    total_s: float
    recoverable_s: float | None


@dataclass(frozen=True)
class SummaryPanel:
    """One report of a summary plot: grouped points sized by time, its roofs, and the time bars."""

    report: str
    points: tuple[Point, ...]
    roofs: tuple[Roof, ...]
    bars: tuple[Bar, ...]
    skipped: tuple[str, ...]
    total_s: float | None  # the report's whole profiled time, for the bars' shares


@dataclass(frozen=True)
class SummaryPlotData:
    """What a summary plot shows: one panel per report."""

    panels: tuple[SummaryPanel, ...]


# --- Data ----------------------------------------------------------------------------------------------
def comparison_data(c: Comparison, normalize: bool = False) -> ComparePlotData:
    """Coordinates of every pair side that has an intensity and a rate; arrows join consecutive reports."""
    points, arrows, skipped = [], [], []
    for pair in c.pairs:
        placed = []
        for i, side in enumerate(pair.sides):
            point, why = _point(side, pair.label, i, normalize) if side else (None, "")
            if why:
                skipped.append(f"{pair.label} in {c.reports[i].label}: {why}")
            if point is not None:
                placed.append(point)
        points += placed
        arrows += list(pairwise(placed))
    roofs = () if normalize else _roofs([(i, s) for p in c.pairs for i, s in enumerate(p.sides) if s])
    return ComparePlotData(normalize, tuple(points), tuple(arrows), roofs, tuple(skipped))


def summary_data(summaries: Sequence[AppSummary]) -> SummaryPlotData:
    """Per report: each shown group as a point sized by its total time, and time bars in rank order."""
    return SummaryPlotData(tuple(_panel(s) for s in summaries))


def _panel(s: AppSummary) -> SummaryPanel:
    longest = max((r.group.total_s or 0.0 for r in s.rows), default=0.0)
    points, skipped = [], []
    for r in s.rows:
        point, why = _point(r.stats, str(r.rank), 0, False)
        if point is None:
            skipped.append(f"#{r.rank} {r.group.name}: {why}")
            continue
        share = (r.group.total_s or 0.0) / longest if longest else 0.0
        points.append(Point(point.label, 0, point.x, point.y, MIN_AREA + (MAX_AREA - MIN_AREA) * share))
    bars = tuple(Bar(f"#{r.rank} {r.group.name}", r.group.total_s, r.group.recoverable_s)
                 for r in s.rows if r.group.total_s is not None)
    return SummaryPanel(s.report.label, tuple(points), _roofs([(0, r.stats) for r in s.rows]), bars, tuple(skipped),
                        s.report.total_time_s)


def _point(s: KernelStats, label: str, report: int, normalize: bool) -> tuple[Point | None, str]:
    """(point, "") or (None, why it cannot be drawn). Normalized: x = report index, y = percent of own roof;
    else x = FLOP per DRAM byte, y = FLOP/s on log axes."""
    if normalize:
        pct = s.roof.pct_of_roof
        return (Point(label, report, float(report), pct), "") if pct is not None else (None, why_no_roof(s))
    x = s.intensity["dram"]
    rates = [v.value for v in s.flop_per_s.values() if v.value is not None]
    if x.value is None:
        return None, f"no DRAM intensity ({why_no_roof(s) if not rates else x.reason})"
    if not rates or x.value <= 0 or sum(rates) <= 0:
        return None, "no floating-point work (zero FLOPs cannot be drawn on log axes; try --normalize)"
    return Point(label, report, x.value, sum(rates)), ""


def _roofs(sides: Sequence[tuple[int, KernelStats]]) -> tuple[Roof, ...]:
    """Per report, the roof of each main precision among its plotted kernels, from that report's own ceilings."""
    roofs: dict[tuple[int, str], Roof] = {}
    for report, s in sides:
        precision = _main_precision(s)
        roof = _roof(report, precision, s.ceilings) if precision else None
        if precision is not None and roof is not None:
            roofs.setdefault((report, precision), roof)
    return tuple(roofs.values())


def _main_precision(s: KernelStats) -> str | None:
    known = {p: v.value for p, v in s.flops.items() if v.value}
    return max(known, key=lambda p: known[p] or 0.0) if known else None


def _roof(report: int, precision: str, ceilings: Ceilings) -> Roof | None:
    peak, bw = ceilings.flop_per_s[precision], ceilings.bytes_per_s["dram"]
    return Roof(report, precision, peak, bw) if peak and bw else None


# --- Drawing -------------------------------------------------------------------------------------------
def comparison_plot(c: Comparison, fmt: PlotFormat, normalize: bool = False) -> bytes:
    """The comparison plot as PNG, SVG or PDF bytes."""
    data = comparison_data(c, normalize)
    fig, axes = _figure(1, (8.0, 5.5))
    ax = axes[0][0]
    colours = _colours(len(c.reports))
    for roof in data.roofs:
        _draw_roof(ax, roof, colours[roof.report], f"{letter(roof.report)} {roof.precision.upper()}")
    if normalize:
        ax.axhline(100.0, color="black", linewidth=1.2, label="own roof (100%)")
    for a, b in data.arrows:
        ax.annotate("", xy=(b.x, b.y), xytext=(a.x, a.y), arrowprops={"arrowstyle": "->", "color": "0.4"})
    for p in data.points:
        ax.scatter(p.x, p.y, s=MIN_AREA * 1.5, color=colours[p.report], zorder=3, edgecolors="black", linewidths=0.5)
    for p in {p.label: p for p in reversed(data.points)}.values():  # each kernel's first point
        ax.annotate(p.label[:30], (p.x, p.y), textcoords="offset points", xytext=(5, 5), fontsize=7)
    _legend_reports(ax, [f"{letter(i)}: {r.label[:40]}" for i, r in enumerate(c.reports)], colours)
    title = f"{' -> '.join(letter(i) for i in range(len(c.reports)))}, kernels joined by arrows ({c.matching[:40]})"
    if normalize:
        _normalized_axes(ax, len(c.reports), title)
    else:
        _axes(ax, data.points, title)
    _note_skipped(ax, data.skipped)
    return _save(fig, fmt)


def summary_plot(summaries: Sequence[AppSummary], fmt: PlotFormat) -> bytes:
    """Each report's summary (grouped points sized by time, and time bars) as PNG, SVG or PDF bytes."""
    data = summary_data(summaries)
    fig, axes = _figure(len(data.panels), (13.0, 5.0), columns=2)
    for (roof_ax, bar_ax), panel in zip(axes, data.panels, strict=True):
        for roof in panel.roofs:
            _draw_roof(roof_ax, roof, "0.3", roof.precision.upper())
        for p in panel.points:
            roof_ax.scatter(p.x, p.y, s=p.area, alpha=0.6, color="tab:blue", edgecolors="black", linewidths=0.5)
            roof_ax.annotate(f"#{p.label}", (p.x, p.y), ha="center", va="center", fontsize=7)
        _axes(roof_ax, panel.points, f"{panel.report}: kernel groups, area = time")
        _note_skipped(roof_ax, panel.skipped)
        if not panel.points:
            _note_empty(roof_ax)
        _draw_bars(bar_ax, panel.bars, panel.total_s)
    return _save(fig, fmt)


def _figure(rows: int, size: tuple[float, float], columns: int = 1) -> tuple[Figure, Any]:
    """A figure of ``rows`` x ``columns`` axes (a 2-D array of them), ``size`` inches per row."""
    fig = figure(size[0], size[1] * rows)
    return fig, fig.subplots(rows, columns, squeeze=False)


def _colours(n: int) -> list[str]:
    return [f"C{i % 10}" for i in range(n)]


def _draw_roof(ax: Axes, roof: Roof, colour: str, label: str) -> None:
    import numpy as np

    x = np.logspace(np.log10(X_RANGE[0]), np.log10(X_RANGE[1]), 200)
    ax.plot(x, np.minimum(roof.peak_flop_per_s, x * roof.dram_bytes_per_s), color=colour, linewidth=1.5,
            label=f"{label} {si(roof.peak_flop_per_s, 'FLOP/s')}, DRAM {si(roof.dram_bytes_per_s, 'B/s')}")


def _legend_reports(ax: Axes, labels: Sequence[str], colours: Sequence[str]) -> None:
    for label, colour in zip(labels, colours, strict=True):
        ax.scatter([], [], color=colour, label=label)
    ax.legend(fontsize=7, loc="best")


def _axes(ax: Axes, points: Sequence[Point], title: str) -> None:
    """Log-log roofline axes wide enough for the points."""
    ax.set_xscale("log")
    ax.set_yscale("log")
    xs = [p.x for p in points]
    ax.set_xlim(min([X_RANGE[0], *xs]) / 2, max([X_RANGE[1], *xs]) * 2)
    ax.set_xlabel("arithmetic intensity (FLOP per DRAM byte)")
    ax.set_ylabel("FLOP/s")
    ax.set_title(title, fontsize=9)
    ax.grid(True, which="both", alpha=0.2)


def _normalized_axes(ax: Axes, reports: int, title: str) -> None:
    """One column per report (A, B, ...), percent of that report's own roof upwards."""
    ax.set_xticks(range(reports), [letter(i) for i in range(reports)])
    ax.set_xlim(-0.5, reports - 0.5)
    ax.set_ylim(bottom=0)
    ax.set_ylabel("percent of own roof (%)")
    ax.set_title(title, fontsize=9)
    ax.grid(True, axis="y", alpha=0.2)


def _note_skipped(ax: Axes, skipped: Sequence[str]) -> None:
    if skipped:
        text = f"{len(skipped)} not drawn, e.g. {skipped[0][:90]}"
        ax.text(0.01, 0.99, text, transform=ax.transAxes, fontsize=6, va="top")


def _draw_bars(ax: Axes, bars: Sequence[Bar], total_s: float | None) -> None:
    """Horizontal bars in rank order: time at the roof plus recoverable time (grey: no roof position), each
    labelled with its share of the report's time so short groups stay readable next to a dominant one."""
    from matplotlib.patches import Patch

    scale, unit = _time_unit(max((b.total_s for b in bars), default=0.0))
    rows = list(range(len(bars)))[::-1]
    for row, b in zip(rows, bars, strict=True):
        known = b.recoverable_s is not None
        attained = (b.total_s - (b.recoverable_s or 0.0)) / scale
        ax.barh(row, attained, color="tab:blue" if known else "0.6")
        ax.barh(row, (b.recoverable_s or 0.0) / scale, left=attained, color="tab:orange")
        share = f"{100.0 * b.total_s / total_s:.1f}%" if total_s else ""
        ax.annotate(share, (b.total_s / scale, row), xytext=(3, 0), textcoords="offset points", va="center", fontsize=7)
    ax.set_xlim(0, 1.15 * max((b.total_s / scale for b in bars), default=1.0))
    ax.set_yticks(rows, [b.label[:40] for b in bars])
    ax.set_xlabel(f"time ({unit})")
    ax.tick_params(axis="y", labelsize=7)
    handles = [Patch(color=c, label=t) for c, t in (("tab:blue", "time at the roof"), ("tab:orange", "recoverable"),
                                                    ("0.6", "no roof position"))]
    ax.legend(handles=handles, fontsize=7, loc="lower right")


def _time_unit(longest_s: float) -> tuple[float, str]:
    """Scale and unit that keep the bar axis readable (s, ms or us)."""
    return next(((f, u) for f, u in ((1.0, "s"), (1e-3, "ms")) if longest_s >= f), (1e-6, "us"))


def _note_empty(ax: Axes) -> None:
    ax.text(0.5, 0.5, "no kernel group can be placed on the roofline\n(see the note above)", transform=ax.transAxes,
            ha="center", va="center", fontsize=9, color="0.4")


def _save(fig: Figure, fmt: PlotFormat) -> bytes:
    fig.tight_layout()
    return to_bytes(fig, fmt, dpi=DPI)
