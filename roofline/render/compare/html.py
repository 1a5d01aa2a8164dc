"""A comparison as one self-contained HTML page: the blocks of its Markdown document (``compare_markdown``) with
the comparison plot as inline SVG. No scripts, no external resources, no URLs."""

from __future__ import annotations

from roofline.compare.pairing import Comparison
from roofline.render.compare.markdown import comparison_blocks
from roofline.render.compare.plot import comparison_svg, nothing_to_compare
from roofline.render.report.html import block_html, page


def notebook(c: Comparison) -> str:
    """A comparison as a notebook shows it (its display hook, ``roofline.render.notebook``): its blocks as an HTML
    fragment, no plot."""
    return "\n".join(block_html(b) for b in comparison_blocks(c))


def comparison_html(c: Comparison, normalize: bool = False) -> str:
    """The page; ``normalize`` draws the plot's percent-of-own-roof view. Where no paired kernel has a place on the
    plot, the page says why instead of drawing empty axes."""
    empty = nothing_to_compare(c)
    return page(comparison_blocks(c, svg="" if empty else comparison_svg(c, normalize), no_plot=empty))
