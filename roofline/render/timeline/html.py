"""`roofline timeline` as one self-contained HTML page: the Markdown document's tables and the plot inline (SVG).
No scripts, no external resources."""

from __future__ import annotations

import html

from roofline.analysis.timeline import TimelineSet
from roofline.render import GENERATOR
from roofline.render.mpl import svg_element
from roofline.render.timeline import plot
from roofline.render.timeline.text import render_markdown

_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="generator" content="{generator}">
<title>GPU timeline</title>
<style>
body {{ font: 14px/1.5 system-ui, sans-serif; max-width: 1200px; margin: 0 auto; padding: 16px 32px; }}
table {{ border-collapse: collapse; font-variant-numeric: tabular-nums; }}
th, td {{ padding: 2px 10px; border-bottom: 1px solid #e3e6eb; text-align: right; white-space: nowrap; }}
th:nth-child(2), td:nth-child(2) {{ text-align: left; word-break: break-all; white-space: normal; }}
th:first-child, td:first-child {{ text-align: left; }}
</style>
</head>
<body>
{body}
<figure>{svg}</figure>
</body>
</html>
"""


def render(doc: TimelineSet, top: int = 0) -> str:
    return _PAGE.format(generator=html.escape(GENERATOR), body="\n".join(_blocks(render_markdown(doc, top))),
                        svg=svg_element(plot.draw(doc, "svg", top, mark=False)))


def _blocks(markdown: str) -> list[str]:
    """The Markdown document's headings, lists, tables and notes as HTML (it uses no other markup)."""
    out: list[str] = []
    for line in markdown.splitlines():
        text = html.escape(line.replace("\\", ""))
        if line.startswith("#"):
            level = len(line) - len(line.lstrip("#"))
            out.append(f"<h{level}>{text[level + 1:]}</h{level}>")
        elif line.startswith("|---"):
            continue
        elif line.startswith("| "):
            cells = [html.escape(c.strip().replace("\\", "")) for c in line.strip("|").split(" | ")]
            tag = "th" if not out or not out[-1].startswith("<tr") else "td"
            out.append("<tr>" + "".join(f"<{tag}>{c}</{tag}>" for c in cells) + "</tr>")
        elif line.startswith("- "):
            out.append(f"<p>{text[2:]}</p>")
        elif line:
            out.append(f"<p>{text}</p>")
        else:
            out.append("")  # a blank line ends a table: the next one starts its own
    return [line for line in _tables(out) if line]


def _tables(lines: list[str]) -> list[str]:
    """Wrap each run of table rows in a <table>."""
    out: list[str] = []
    inside = False
    for line in lines:
        row = line.startswith("<tr")
        if row != inside:
            out.append("<table>" if row else "</table>")
            inside = row
        out.append(line)
    return out + (["</table>"] if inside else [])
