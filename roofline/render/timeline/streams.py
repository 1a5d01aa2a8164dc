"""The streams panel of `roofline timeline --plot` and its HTML page: one row per stream of each GPU of each file
(MPI rank, named as ``text.file_labels`` names it) on the shared time axis, kernels, copies and memsets as bars
(``broken_barh``: one artist per row and kind however many launches), the NVTX ranges above each file's streams,
the longest idle gaps of each GPU shaded; and the lines that name the copy overlap and the gaps
(``analysis.streams`` computes every figure)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from roofline.analysis.streams import OTHERS, CopyOverlap, IdleGap, Neighbour, StreamsView
from roofline.core.units import pct, seconds
from roofline.render.mpl import wrap

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes

COLOURS = {"kernel": "#4a86c8", "copy": "#e67e22", "memset": "#27ae60", "nvtx": "#8e6bb8", "gap": "#f2c4c4"}
BAR_HEIGHT = 0.7  # of a row
STRIP_HEIGHT = 0.25  # the copies and memsets: a strip at the bottom of the row (y grows downwards)
STRIP_TOP = 0.1
ROW_HEIGHT_IN = 0.28
PANEL_ROOM_IN = 1.3
GAPS_DRAWN = 3  # per GPU, the longest
GAP_JOIN_SHARE = 0.02  # of the time axis: gaps starting this near each other share one label
LABEL_CHARS = 28
ROW = "{who}GPU {device} stream {stream}"
AXIS_TEXT_IN = 7.0  # the width the axis label wraps to: the panel less its stream names
AXIS_LABEL_PT = 8.0
LABEL_LINE_IN = 0.16  # the height of one more line of the axis label
TITLE_ABOVE_LEGEND_PT = 16.0  # the title sits above the legend row, which may be as wide as the panel


def _who(who: Sequence[str], file: int) -> str:
    """A file's label and a space before what follows it ("rank 3 "), "" for one file (``text.file_labels``)."""
    return f"{who[file]} " if who[file] else ""


def height_in(view: StreamsView, who: Sequence[str]) -> float:
    """The panel's height: a row per stream and NVTX level, and room for the axis, its label's lines and the
    legend (``who``: each file's label, ``text.file_labels``)."""
    extra = len(_overlap_label(view, who)) - 1
    return PANEL_ROOM_IN + LABEL_LINE_IN * extra + ROW_HEIGHT_IN * (len(view.rows) + len(view.nvtx))


def _overlap_label(view: StreamsView, who: Sequence[str]) -> list[str]:
    """The axis label's lines of each GPU's copy time under kernels, wrapped to the axis."""
    return wrap(["copy time under kernels: " + "; ".join(overlap_line(o, who) for o in view.overlaps)],
                AXIS_TEXT_IN, AXIS_LABEL_PT)


def draw(ax: Axes, view: StreamsView, labels: Sequence[str]) -> None:
    """Each file's NVTX levels and streams, top to bottom, on one time axis (seconds); ``labels``: each file's, as
    ``text.file_labels``."""
    from matplotlib.patches import Rectangle

    several = len(labels) > 1
    y, ticks, names = 0, [], []
    for rank in range(len(labels)):
        who = _who(labels, rank)
        for level in (n for n in view.nvtx if n.rank == rank):
            ax.broken_barh(list(level.bars), (y - BAR_HEIGHT / 2, BAR_HEIGHT), color=COLOURS["nvtx"], lw=0.3,
                           edgecolor=COLOURS["nvtx"])
            for label in level.labels:  # each name inside its own bar: cut where the bar ends
                text = ax.text(label.start_s, y, " " + label.name[:LABEL_CHARS], fontsize=6, va="center",
                               color="white", clip_on=True)
                text.set_clip_path(Rectangle((label.start_s, y - BAR_HEIGHT / 2), label.length_s, BAR_HEIGHT,
                                             transform=ax.transData))
            ticks.append(y)
            names.append(f"{who}NVTX depth {level.depth}")
            y += 1
        first = y
        for row in (r for r in view.rows if r.rank == rank):
            ax.broken_barh(list(row.kernel_bars), (y - BAR_HEIGHT / 2, BAR_HEIGHT), color=COLOURS["kernel"],
                           lw=0.3, edgecolor=COLOURS["kernel"])
            for kind, spans in (("copy", row.copy_bars), ("memset", row.memset_bars)):  # a strip under the kernels
                ax.broken_barh(list(spans), (y + STRIP_TOP, STRIP_HEIGHT), color=COLOURS[kind], lw=0.3,
                               edgecolor=COLOURS[kind])
            ticks.append(y)
            names.append(ROW.format(who=who, device=row.device, stream=row.stream) if row.stream != OTHERS else
                         f"{who}GPU {row.device}: {row.streams} other streams")
            y += 1
        _gaps(ax, [g for g in view.gaps if g.rank == rank], first, y, view.span_s)
    ax.set_yticks(ticks, names, fontsize=7)
    ax.set_ylim(y - 0.5, -0.5)
    ax.set_xlim(0, view.span_s)
    ax.set_xlabel("time (s) from the first GPU activity" + (
        ", one axis for all files (aligned by their session start times)" if view.aligned_by == "session_start"
        and several else ", each file from its own first GPU activity" if several else "") +
        "\n" + "\n".join(_overlap_label(view, labels)), fontsize=AXIS_LABEL_PT)
    for kind in ("kernel", "copy", "memset", "nvtx"):
        ax.bar([0], [0], color=COLOURS[kind], label=kind if kind != "nvtx" else "NVTX range")
    ax.bar([0], [0], color=COLOURS["gap"], label="longest idle gaps (numbered)")
    ax.legend(fontsize=7, loc="lower right", bbox_to_anchor=(1.0, 1.0), ncols=5, frameon=False)
    ax.set_title("streams in time", fontsize=9, loc="left", pad=TITLE_ABOVE_LEGEND_PT)


def _gaps(ax: Axes, gaps: list[IdleGap], top: int, bottom: int, span_s: float) -> None:
    """The longest gaps of each GPU shaded over the file's stream rows and numbered as in the text; gaps that start
    within ``GAP_JOIN_SHARE`` of the axis of each other share one label ("1, 2, 3"), which else would pile up."""
    shown: dict[int, list[tuple[int, IdleGap]]] = {}
    for gap in gaps:
        drawn = shown.setdefault(gap.device, [])
        if len(drawn) < GAPS_DRAWN:
            drawn.append((len(drawn) + 1, gap))
            ax.broken_barh([(gap.start_s, gap.length_s)], (top - 0.5, bottom - top), color=COLOURS["gap"], zorder=0)
    for drawn in shown.values():
        groups: list[list[tuple[int, IdleGap]]] = []
        for n, gap in sorted(drawn, key=lambda ng: ng[1].start_s):
            if groups and math.isclose(gap.start_s, groups[-1][0][1].start_s, abs_tol=GAP_JOIN_SHARE * span_s):
                groups[-1].append((n, gap))
            else:
                groups.append([(n, gap)])
        for group in groups:
            ax.annotate(", ".join(str(n) for n, _ in sorted(group, key=lambda ng: ng[0])), (group[0][1].start_s,
                        top - 0.5), xytext=(1, -1), textcoords="offset points", fontsize=6, va="top",
                        color="#b03a2e", annotation_clip=True)


def overlap_line(o: CopyOverlap, labels: Sequence[str] = ()) -> str:
    """One GPU's copy time and the part of it under kernels (``labels``: each file's; none for one file)."""
    who = _who(labels, o.rank) if labels else ""
    if o.hidden_pct is None:
        return f"{who}GPU {o.device} no copies"
    return f"{who}GPU {o.device} copies {seconds(o.copy_s)}, {pct(o.hidden_pct)} under kernels"


def gap_line(i: int, g: IdleGap, labels: Sequence[str] = ()) -> str:
    """One idle gap: where, how long, between what (``labels``: each file's; none for one file)."""
    who = _who(labels, g.rank) if labels else ""
    return (f"{i}. {who}GPU {g.device}: idle {seconds(g.length_s)} from {seconds(g.start_s)} on the axis, after "
            f"{_work(g.before)} (stream {g.before.stream}), before {_work(g.after)} (stream {g.after.stream})")


def _work(n: Neighbour) -> str:
    """The work at a gap's edge: its kind and name ("kernel gemm", "copy Host-to-Device (pinned)", "memset")."""
    return n.kind if n.name == n.kind else f"{n.kind} {n.name}"


def lines(view: StreamsView, labels: Sequence[str]) -> list[str]:
    """The overlap of each GPU and its longest gaps, numbered per GPU as the plot numbers them."""
    out = overlap_lines(view, labels)
    count: dict[tuple[int, int], int] = {}
    for g in view.gaps:
        n = count[(g.rank, g.device)] = count.get((g.rank, g.device), 0) + 1
        out.append(gap_line(n, g, labels))
    return out


GAP_COLUMNS = ("#", "GPU", "idle", "from (axis)", "after (stream)", "before (stream)")
GAP_NAME_COLUMNS = (4, 5)  # the work before and after a gap: kernel names


def gap_cells(view: StreamsView, labels: Sequence[str]) -> list[list[str]]:
    """The longest idle gaps as table rows, numbered per GPU as the plot numbers them."""
    count: dict[tuple[int, int], int] = {}
    rows = []
    for g in view.gaps:
        n = count[(g.rank, g.device)] = count.get((g.rank, g.device), 0) + 1
        rows.append([str(n), f"{_who(labels, g.rank)}GPU {g.device}", seconds(g.length_s),
                     seconds(g.start_s), f"{_work(g.before)} ({g.before.stream})",
                     f"{_work(g.after)} ({g.after.stream})"])
    return rows


def overlap_lines(view: StreamsView, labels: Sequence[str]) -> list[str]:
    """Each GPU's copy time under kernels, in a line."""
    return [f"{overlap_line(o, labels)} (copy time with a kernel running on the GPU; kernels {seconds(o.kernel_s)})"
            for o in view.overlaps]
