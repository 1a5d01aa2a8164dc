"""`roofline timeline --plot`: one panel per file, its top kernels as bars of total GPU time, each labelled with
its share of the GPUs' busy time and its launch count. Each file's panel has its own time axis (a file of
6 ms beside one of 1 s would draw no visible bar on a shared one); a first panel compares the files (MPI ranks),
by rank, each rank's GPU busy and idle time on one axis ending at the longest span, outliers marked. Where the
files' streams were read, a panel draws them in time (``streams``). With --work, a roofline panel of the kernels
follows where a kernel has a point to draw."""

from __future__ import annotations

from typing import TYPE_CHECKING

from roofline.analysis.timeline import TimelineSet
from roofline.core.units import seconds, share_pct
from roofline.render.mpl import PlotFormat, figure, freeze_layout, middle, to_bytes
from roofline.render.timeline import streams, work
from roofline.render.timeline.text import OUTLIER_WORDS, file_labels, rank_label, shown_names

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

BARS = 15  # kernels drawn per file where --top asks for all (0)
NAME_CHARS = 48
PANEL_WIDTH_IN = 10.0
BAR_HEIGHT_IN = 0.3
ROOFLINE_HEIGHT_IN = 5.0
ROOM_FOR_LABELS = 1.45  # a panel's axis reaches this far past its longest bar, for its label
RANK_AXIS_END = 1.02  # the ranks' axis ends just past the longest span (its labels sit inside the bars)
RANK_LABEL_INSIDE = 0.5  # of the axis: a busy bar longer than this carries its label inside, right-aligned


def draw(doc: TimelineSet, fmt: PlotFormat, top: int = 0, mark: bool = True) -> bytes:
    """The panels as PNG, SVG or PDF bytes, ``top`` kernels per file (0: the ``BARS`` longest)."""
    return to_bytes(build(doc, top), fmt, mark)


def build(doc: TimelineSet, top: int = 0) -> Figure:
    """The figure: the ranks' panel (several files), one kernel panel per file on its own axis (its ``top``
    kernels, 0: the ``BARS`` longest), the roofline."""
    bars = top or BARS
    heights = [1.0 + BAR_HEIGHT_IN * len(doc.ranks)] if doc.ranks else []
    if doc.streams is not None:
        heights.append(streams.height_in(doc.streams, file_labels(doc)))
    heights += [1.0 + BAR_HEIGHT_IN * min(len(t.kernels), bars) for t in doc.timelines]
    roofline = doc.work is not None and work.has_points(doc.work)
    if roofline:
        heights.append(ROOFLINE_HEIGHT_IN)
    fig = figure(PANEL_WIDTH_IN, sum(heights), constrained=True)
    axes = [row[0] for row in fig.subplots(len(heights), 1, squeeze=False, gridspec_kw={"height_ratios": heights})]
    if doc.ranks:
        _ranks(axes.pop(0), doc)
    if doc.streams is not None:
        streams.draw(axes.pop(0), doc.streams, file_labels(doc))
    roofline_ax = axes.pop() if roofline else None
    if roofline_ax is not None and doc.work is not None:
        work.draw_roofline(roofline_ax, doc.work)
    for ax, t in zip(axes, doc.timelines, strict=True):
        kernels = t.kernels[:bars]
        ys = range(len(kernels))
        ax.barh(list(ys), [k.total_s * 1e3 for k in kernels], color="#4a86c8")
        ax.set_yticks(list(ys), shown_names(t, kernels, NAME_CHARS), fontsize=8)
        ax.invert_yaxis()
        for y, k, share in zip(ys, kernels, t.shares, strict=False):
            ax.annotate(f" {share_pct(share)}, {k.count}x, median {seconds(k.median_s)}",
                        (k.total_s * 1e3, y), va="center", fontsize=7)
        ax.set_xlabel("total GPU time (ms)" + (", this file's own axis" if len(doc.timelines) > 1 else ""))
        ax.set_xlim(0, max((k.total_s for k in kernels), default=0.0) * 1e3 * ROOM_FOR_LABELS or 1.0)
        more = f"  (the {bars} longest of {len(t.kernels)} kernels)" if len(t.kernels) > bars else ""
        ax.set_title(middle(t.path, 90 - len(more)) + more, fontsize=9, loc="left")
    if roofline_ax is not None and doc.work is not None:
        freeze_layout(fig)
        work.label_points(fig, roofline_ax, doc.work)
    return fig


def _ranks(ax: Axes, doc: TimelineSet) -> None:
    """Each rank's GPU busy time and the rest of its span (idle), on one axis that ends at the longest span, by
    rank; each labelled inside its bars (after a short busy bar, else inside it), the slow and fast ones named."""
    ys = list(range(len(doc.ranks)))
    busy = [r.busy_s * 1e3 for r in doc.ranks]
    idle = [r.idle_s * 1e3 for r in doc.ranks]
    ax.barh(ys, busy, color="#4a86c8", label="GPU busy")
    ax.barh(ys, idle, left=busy, color="#d5dbe3", label="idle (rest of the span)")
    ax.set_yticks(ys, [f"{rank_label(r)}: {middle(r.path.rsplit('/', 1)[-1], 40)}" for r in doc.ranks], fontsize=8)
    ax.invert_yaxis()
    end = max((b + i for b, i in zip(busy, idle, strict=True)), default=0.0) * RANK_AXIS_END or 1.0
    for y, r, b in zip(ys, doc.ranks, busy, strict=True):
        inside = b > end * RANK_LABEL_INSIDE
        ax.annotate(f" busy {seconds(r.busy_s)}, {r.off_others_pct:+.1f}% vs others" +
                    (f" ({OUTLIER_WORDS[r.outlier]})" if r.outlier else "") + (" " if inside else ""), (b, y),
                    va="center", ha="right" if inside else "left", fontsize=7,
                    color="white" if inside else "#b03a2e" if r.outlier else "black")
    ax.set_xlim(0, end)
    ax.set_xlabel("time (ms), one axis for all ranks")
    ax.set_title("ranks: GPU busy time and span", fontsize=9, loc="left")
    ax.legend(fontsize=7, loc="lower right", bbox_to_anchor=(1.0, 1.0), ncols=2, frameon=False)
