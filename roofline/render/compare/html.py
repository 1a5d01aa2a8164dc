"""A comparison as one self-contained HTML page: the blocks of its Markdown document (``compare_markdown``) with
the comparison plot as inline SVG. No scripts, no external resources, no URLs."""

from __future__ import annotations

from roofline.compare.pairing import Comparison
from roofline.render.compare.markdown import comparison_blocks
from roofline.render.compare.plot import comparison_svg
from roofline.render.report.html import block_html, page


def notebook(c: Comparison) -> str:
    """A comparison as a notebook shows it (its display hook, ``roofline.render.notebook``): its blocks as an HTML
    fragment, no plot."""
    return "\n".join(block_html(b) for b in comparison_blocks(c))


def comparison_html(c: Comparison, normalize: bool = False) -> str:
    """The page; ``normalize`` draws the plot's percent-of-own-roof view."""
    return page(comparison_blocks(c, svg=comparison_svg(c, normalize)))
