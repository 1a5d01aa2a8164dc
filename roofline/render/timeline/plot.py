"""`roofline timeline --plot`: one panel per file, its top kernels as bars of total GPU time, each labelled with
its share of the GPUs' busy time and its launch count."""

from __future__ import annotations

from roofline.analysis.timeline import TimelineSet
from roofline.core.units import pct, seconds
from roofline.render.mpl import PlotFormat, figure, middle, to_bytes
from roofline.render.timeline import work
from roofline.render.timeline.text import shown_names

BARS = 15  # kernels drawn per file
NAME_CHARS = 48
PANEL_WIDTH_IN = 10.0
BAR_HEIGHT_IN = 0.3
ROOFLINE_HEIGHT_IN = 5.0


def draw(doc: TimelineSet, fmt: PlotFormat, mark: bool = True) -> bytes:
    """The panels as PNG, SVG or PDF bytes; with --work, a roofline panel of the kernels below them."""
    heights = [1.0 + BAR_HEIGHT_IN * min(len(t.kernels), BARS) for t in doc.timelines]
    if doc.work is not None:
        heights.append(ROOFLINE_HEIGHT_IN)
    fig = figure(PANEL_WIDTH_IN, sum(heights), constrained=True)
    axes = fig.subplots(len(heights), 1, squeeze=False, gridspec_kw={"height_ratios": heights})
    if doc.work is not None:
        work.draw_roofline(axes[-1][0], doc.work)
    for ax, t in zip((row[0] for row in axes), doc.timelines, strict=False):
        kernels = t.kernels[:BARS]
        ys = range(len(kernels))
        ax.barh(list(ys), [k.total_s * 1e3 for k in kernels], color="#4a86c8")
        ax.set_yticks(list(ys), shown_names(t, kernels, NAME_CHARS), fontsize=8)
        ax.invert_yaxis()
        for y, k in zip(ys, kernels, strict=True):
            ax.annotate(f" {pct(t.share(k) * 100)}, {k.count}x, median {seconds(k.median_s)}",
                        (k.total_s * 1e3, y), va="center", fontsize=7)
        ax.set_xlabel("total GPU time (ms)")
        ax.margins(x=0.35)
        ax.set_title(middle(t.path, 90), fontsize=9, loc="left")
    return to_bytes(fig, fmt, mark)
