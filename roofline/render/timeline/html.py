"""`roofline timeline` as one self-contained HTML page: the Markdown document's tables and the plot inline (SVG).
No scripts, no external resources."""

from __future__ import annotations

import html

from roofline.analysis.timeline import TimelineSet
from roofline.render import GENERATOR
from roofline.render.mpl import svg_element
from roofline.render.names import visible
from roofline.render.timeline import plot
from roofline.render.timeline.text import Part, parts

_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="generator" content="{generator}">
<title>GPU timeline</title>
<style>
body {{ font: 14px/1.5 system-ui, sans-serif; max-width: 1200px; margin: 0 auto; padding: 16px 32px; }}
table {{ border-collapse: collapse; font-variant-numeric: tabular-nums; margin: 0.8em 0; }}
th, td {{ padding: 2px 10px; border-bottom: 1px solid #e3e6eb; text-align: right; white-space: nowrap; }}
th:first-child, td:first-child {{ text-align: left; }}
th.name, td.name {{ text-align: left; overflow-wrap: anywhere; white-space: normal; }}
</style>
</head>
<body>
{body}
<figure>{svg}</figure>
</body>
</html>
"""


def render(doc: TimelineSet, top: int = 0) -> str:
    body = "\n".join(line for part in parts(doc, top) for line in _html(part))
    return _PAGE.format(generator=html.escape(GENERATOR), body=body,
                        svg=svg_element(plot.draw(doc, "svg", top, mark=False)))


def _html(part: Part) -> list[str]:
    """A part as HTML lines: a table (its first row of header cells), a heading, an item or a note as a paragraph;
    nothing for a blank line."""
    if part.kind == "table":
        cls = [' class="name"' if i in part.names else "" for i in range(len(part.columns))]
        head = "<tr>" + "".join(f"<th{k}>{html.escape(c.strip())}</th>" for k, c in zip(cls, part.columns,
                                                                                    strict=True)) + "</tr>"
        rows = ("<tr>" + "".join(f"<td{k}>{html.escape(visible(c).strip())}</td>" for k, c in zip(cls, row,
                                                                                              strict=True)) + "</tr>"
                for row in part.rows)
        return ["<table>", head, *rows, "</table>"]
    if part.kind in ("h1", "h2"):
        return [f"<{part.kind}>{html.escape(part.plain)}</{part.kind}>"]
    return [f"<p>{html.escape(part.plain)}</p>"] if part.kind != "blank" and part.plain else []
