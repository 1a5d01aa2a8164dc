"""The occupancy calculator (``plot --kind occupancy``), as ncu's Occupancy section draws it: per report, the
longest launch of its longest kernels as a row of three charts, theoretical occupancy against threads per block,
registers per thread and shared memory per block, each with the launch's other two values held, the runs
coloured by the resource that limits them and the launch marked. The curves come computed
(``analysis.diagnostics.occupancy_curves``); this module only lays them out, as ``report.memory_plot`` does."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from roofline.analysis.diagnostics.occupancy import LIMITER_WORDS
from roofline.analysis.results import OccupancyCalculator, OccupancyCurve
from roofline.analysis.view import ReportSetView
from roofline.core.labels import LEGEND_KERNELS
from roofline.core.units import pct
from roofline.render.mpl import LabelPlacer, PlotFormat, figure, freeze_layout, middle, to_bytes, wrap
from roofline.render.names import short_group_name
from roofline.render.report.plot import DPI

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes
    from matplotlib.figure import SubFigure
    from matplotlib.transforms import Bbox

NOTHING = "has its launch shape and the SM's limits (launch__* metrics and device attributes)"
FIX = "re-profile with --section LaunchStats --section Occupancy"
ROW_WIDTH_IN, ROW_HEIGHT_IN, LEGEND_HEIGHT_IN = 11.0, 3.3, 0.45
TITLE_CHARS = 110
REPORT_CHARS = 36
KIB = 1024
NOTE_PT, NOTE_WIDTH_IN = 7.0, 10.6
AXES = {"threads": "threads per block", "registers": "registers per thread", "shared_bytes": "shared memory per "
                                                                                                "block (KiB)"}
UNITS = {"threads": " threads", "registers": " registers", "shared_bytes": " KiB"}  # the launch's value, labelled
LABEL_LEFT_PAST = 0.6  # a launch past this share of its axis is labelled on its left (it ran off the axes)
COLORS = {"registers": "#d62728", "shared_mem": "#1f77b4", "warps": "#2ca02c", "blocks": "#ff7f0e",
          "barriers": "#9467bd", "": "#7f7f7f"}
NONE_WORD = "none (the SM's maximum)"
LAUNCH_COLOR = "#000000"
RUN_LW = 3.2  # points: a run's line width
LABEL_DISTANCES_PT = (5.0, 10.0, 18.0)  # the launch's label from its diamond, nearest first
LABEL_BOX = {"boxstyle": "square,pad=0.15", "facecolor": "white", "edgecolor": "none", "alpha": 0.85}


@dataclass(frozen=True)
class OccupancyPanel:
    """One launch's calculator and the title of its row."""

    title: str
    calculator: OccupancyCalculator


def plot_data(view: ReportSetView, top: int) -> tuple[OccupancyPanel, ...]:
    """A row for the longest launch of each of the ``top`` longest kernels of each report that has a calculator."""
    panels = []
    for v in view.reports:
        a = v.analysis
        for g in a.groups[:top]:
            o = g.longest.occupancy
            if o is None or o.calculator is None:
                continue
            name = short_group_name(g.name, g.functions, g.by)
            panels.append(OccupancyPanel(_title(Path(a.report.path).name, name, g.longest.launch.key), o.calculator))
    return tuple(panels)


def _title(report: str, kernel: str, launch: str) -> str:
    head, tail = f"{middle(report, REPORT_CHARS)}: ", f" ({launch})"
    return head + middle(kernel, TITLE_CHARS - len(head) - len(tail)) + tail


def image(view: ReportSetView, fmt: PlotFormat, top: int = LEGEND_KERNELS) -> bytes | None:
    """``plot --kind occupancy``: the charts as PNG, SVG or PDF bytes; None where no launch has a calculator."""
    panels = plot_data(view, top or LEGEND_KERNELS)
    return to_bytes(figure_of(panels), fmt) if panels else None


def figure_of(panels: Sequence[OccupancyPanel]):  # type: ignore[no-untyped-def]
    """One row of three charts per launch, one above the other, and the limiters' legend at the bottom; each
    launch's label placed, after the layout, where it covers no curve."""
    fig = figure(ROW_WIDTH_IN, ROW_HEIGHT_IN * len(panels) + LEGEND_HEIGHT_IN, constrained=True, dpi=DPI)
    rows = fig.subfigures(len(panels), 1, squeeze=False)
    charts = [chart for row, panel in zip(rows[:, 0], panels, strict=True) for chart in _row(row, panel)]
    _legend(fig)
    freeze_layout(fig)
    placer = LabelPlacer(fig)
    for ax, curve, launch_pct in charts:
        _label_launch(ax, curve, launch_pct, placer)
    return fig


def _row(sub: SubFigure, p: OccupancyPanel) -> list[tuple[Axes, OccupancyCurve, float]]:
    c = p.calculator
    lim = c.limits
    sub.suptitle(p.title, x=0.01, ha="left", fontsize=9, fontweight="bold")
    point = c.launch
    who = f"limited by {' and '.join(LIMITER_WORDS[k] for k in point.limiters)}" if point.limiters else \
        "the SM's maximum"
    lines = [f"CC {c.compute_capability or '?'}: {lim.max_warps_per_sm} warps, {lim.max_blocks_per_sm} blocks, "
             f"{lim.registers_per_sm} registers per SM; {point.carveout_bytes / KIB:g} KiB carveout "
             f"({c.carveout_note}).",
             f"This launch: {point.threads} threads, {point.registers} registers, {point.shared_bytes} B shared per "
             f"block -> {_blocks(point.blocks_per_sm)} per SM, {pct(point.theoretical_pct)}, {who}."]
    sub.supxlabel("\n".join(wrap(lines, NOTE_WIDTH_IN, NOTE_PT)), fontsize=NOTE_PT, x=0.01, ha="left")
    axes = sub.subplots(1, len(c.curves), squeeze=False)[0]
    for ax, curve in zip(axes, c.curves, strict=True):
        _curve(ax, curve, point.theoretical_pct)
    return [(ax, curve, point.theoretical_pct) for ax, curve in zip(axes, c.curves, strict=True)]


def _curve(ax: Axes, curve: OccupancyCurve, launch_pct: float) -> None:
    """The curve's runs as horizontal segments coloured by limiter, joined by thin grey risers; the launch as a
    black diamond at its value, drawn whole at the axis' ends (``clip_on=False``: 0 KiB sits on the y axis)."""
    steps = curve.steps
    xs = [_x(s.low, curve) for s in steps] + [_x(steps[-1].high, curve)]
    ys = [s.theoretical_pct for s in steps] + [steps[-1].theoretical_pct]
    ax.step(xs, ys, where="post", color="#c0c0c0", lw=0.8, zorder=1)
    for s, x_end in zip(steps, xs[1:], strict=True):
        first = COLORS[s.limiters[0] if s.limiters else ""]
        ax.hlines(s.theoretical_pct, _x(s.low, curve), x_end, colors=first, lw=RUN_LW, zorder=2)
        if len(s.limiters) > 1:  # a tie: the second resource's colour drawn thin inside the first's
            ax.hlines(s.theoretical_pct, _x(s.low, curve), x_end, colors=COLORS[s.limiters[1]], lw=1.1, zorder=2)
    x = _x(curve.launch_value, curve)
    ax.plot([x], [launch_pct], marker="D", color=LAUNCH_COLOR, ms=6, zorder=3, ls="none", clip_on=False)
    ax.set_ylim(0, 105)
    ax.set_xlim(left=0)
    ax.set_xlabel(AXES[curve.varies], fontsize=8)
    ax.set_ylabel("theoretical occupancy (%)", fontsize=8)
    ax.tick_params(labelsize=7)
    ax.grid(True, lw=0.3, alpha=0.5)


def _label_launch(ax: Axes, curve: OccupancyCurve, launch_pct: float, placer: LabelPlacer) -> None:
    """"this launch: ..." beside the diamond, at the first spot inside the axes that covers no run, riser or the
    diamond (below right first, as before); where none is free, below it on the side away from the axis' end."""
    x = _x(curve.launch_value, curve)
    text = f"this launch: {x:.4g}{UNITS[curve.varies]}"
    kept = list(placer.taken)
    placer.taken = kept + _curve_boxes(ax, curve, launch_pct, placer.renderer)
    label = placer.place(ax, text, _launch_spots((x, launch_pct)), fontsize=7, bbox=LABEL_BOX)
    placer.taken = kept
    if label is None:
        left = x > LABEL_LEFT_PAST * ax.get_xlim()[1]  # near the axis' end: on the diamond's left, inside the axes
        ax.annotate(text, (x, launch_pct), textcoords="offset points", xytext=(-5 if left else 5, -12),
                    ha="right" if left else "left", fontsize=7, bbox=LABEL_BOX)


def _launch_spots(xy: tuple[float, float]) -> list[dict[str, Any]]:
    """Candidate spots of the launch's label: below and above the diamond, right then left, nearest first."""
    spots = []
    for d in LABEL_DISTANCES_PT:
        for dx, dy, ha, va in ((1, -1, "left", "top"), (-1, -1, "right", "top"), (1, 1, "left", "bottom"),
                               (-1, 1, "right", "bottom"), (0, -1.4, "center", "top"), (0, 1.4, "center", "bottom")):
            spots.append({"xy": xy, "xytext": (dx * d, dy * d), "textcoords": "offset points", "ha": ha, "va": va})
    return spots


def _curve_boxes(ax: Axes, curve: OccupancyCurve, launch_pct: float, renderer: Any) -> list[Bbox]:
    """The display boxes of the curve's runs (at their line width), its risers and the launch's diamond."""
    from matplotlib.transforms import Bbox

    half = renderer.points_to_pixels(RUN_LW) / 2
    steps = curve.steps
    ends = [_x(s.low, curve) for s in steps] + [_x(steps[-1].high, curve)]
    corners = [((lo, s.theoretical_pct), (hi, s.theoretical_pct))
               for s, lo, hi in zip(steps, ends, ends[1:], strict=False)]
    corners += [((hi, s.theoretical_pct), (hi, t.theoretical_pct))
                for s, t, hi in zip(steps, steps[1:], ends[1:], strict=False)]
    corners.append(((_x(curve.launch_value, curve), launch_pct),) * 2)
    boxes = []
    for a, b in corners:
        (x0, y0), (x1, y1) = ax.transData.transform([a, b])
        boxes.append(Bbox.from_extents(min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1)).padded(half + 2))
    return boxes


def _blocks(n: int) -> str:
    return f"{n} block" if n == 1 else f"{n} blocks"


def _x(value: int, curve: OccupancyCurve) -> float:
    """A value on the curve's axis: shared bytes in KiB, the others as they are."""
    return value / KIB if curve.varies == "shared_bytes" else value


def _legend(fig) -> None:  # type: ignore[no-untyped-def]
    from matplotlib.lines import Line2D

    handles = [Line2D([], [], color=color, lw=2.4, label=LIMITER_WORDS.get(key, NONE_WORD))
               for key, color in COLORS.items()]
    handles.append(Line2D([], [], color=LAUNCH_COLOR, marker="D", ls="none", label="this launch"))
    fig.legend(handles=handles, loc="outside lower center", ncols=len(handles), fontsize=7.5,
               title="limited by (a tie of two: the second colour drawn thin inside the first)", title_fontsize=7.5,
               frameon=False)
