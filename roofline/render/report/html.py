"""Self-contained HTML optimization report: the Markdown report's document with inline CSS and each report's
roofline plot as inline SVG, every point with a tooltip (its SVG ``<title>``: kernel, launch, level, FLOP/s,
bytes/s, intensity, percent of roof, bound) and a link to its kernel's section. No scripts, no external
resources, no URLs: the file can be mailed or archived."""

from __future__ import annotations

import html
import re
from collections.abc import Sequence

from roofline.analysis.view import ReportSetView, ReportView
from roofline.render import GENERATOR
from roofline.render.report.markdown import Block, document, spans, summary_blocks, with_across, with_left_out
from roofline.render.report.plot import inline_svg

PLOT_HINT = "Hover over a point for its values; click it to go to its kernel's section (for the kernels that have one)."

_TAGS = {"code": "code", "bold": "strong"}  # the inline markup of block text (markdown.spans) as HTML elements
_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="generator" content="{generator}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>{css}</style>
</head>
<body>
<main>
{body}
</main>
</body>
</html>
"""
_CSS = """
body { margin: 0; background: #f4f5f7; color: #1d2330; font: 14px/1.5 system-ui, -apple-system, "Segoe UI",
  Roboto, "Helvetica Neue", Arial, sans-serif; }
main { max-width: 1200px; margin: 0 auto; padding: 24px 32px 48px; background: #fff; }
h1 { font-size: 26px; margin: 8px 0 4px; }
h2 { font-size: 21px; margin: 36px 0 8px; padding-top: 12px; border-top: 3px solid #1d2330; }
h3 { font-size: 16px; margin: 26px 0 6px; color: #22406e; }
h2 code, h3 code { font-size: 0.92em; }
section.kernel { border: 1px solid #dde2ea; border-radius: 6px; padding: 4px 16px 10px; margin: 16px 0; }
section.kernel h3 { margin-top: 10px; }
p { margin: 6px 0; }
ul { margin: 4px 0 10px; padding-left: 22px; }
li { margin: 2px 0; }
code { font: 12.5px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; background: #f0f2f5;
  padding: 1px 4px; border-radius: 3px; word-break: break-all; }
pre { background: #f0f2f5; padding: 6px 10px; border-radius: 3px; overflow-x: auto; }
pre code { background: none; padding: 0; border-radius: 0; word-break: normal; }
table { border-collapse: collapse; margin: 6px 0 12px; font-variant-numeric: tabular-nums; }
th, td { padding: 3px 10px; border-bottom: 1px solid #e3e6eb; text-align: left; vertical-align: top; }
th { background: #eef1f5; font-weight: 600; }
td.num, th.num { text-align: right; }
td.num { white-space: nowrap; }
td code { word-break: normal; overflow-wrap: normal; }
div.table { max-width: 100%; overflow-x: auto; }
tbody tr:nth-child(even) { background: #fafbfc; }
.warn { background: #fff5e6; border-left: 4px solid #e8912d; padding: 6px 12px; margin: 8px 0; }
.note { background: #eef4fb; border-left: 4px solid #4a86c8; padding: 6px 12px; margin: 8px 0; color: #2a3a52; }
details { margin: 6px 0; }
summary { cursor: pointer; font-weight: 600; }
figure.plot { margin: 10px 0 16px; }
figure.plot svg { width: 100%; height: auto; }
figure.plot svg a { cursor: pointer; }
figure.plot figcaption { color: #5a6475; font-size: 12.5px; }
section.kernel:target { border-color: #4a86c8; box-shadow: 0 0 0 2px #4a86c8; }
"""


def render(view: ReportSetView) -> str:
    """The whole report as one HTML page."""
    return page(with_left_out(view, with_across(view, document(view.reports, with_plot=True))))


def notebook(v: ReportView) -> str:
    """One report as a notebook shows it (its display hook, ``roofline.render.notebook``): its title, summary and
    kernel ranking as an HTML fragment, no page, no plot."""
    return "\n".join(block_html(b) for b in summary_blocks(v))


def page(blocks: Sequence[Block]) -> str:
    """Blocks as one self-contained page, titled by the first block."""
    title = html.escape(re.sub(r"[`*]", "", blocks[0].text))
    return _PAGE.format(generator=GENERATOR, title=title, css=_CSS.strip(),
                        body="\n".join(_sections(blocks)))


def _sections(blocks: Sequence[Block]) -> list[str]:
    """Blocks as HTML, each kernel's blocks (from its heading, ``Block.kernel``) wrapped in a <section>."""
    out, open_section = [], False
    for b in blocks:
        starts_kernel = b.kernel
        if open_section and (starts_kernel or b.kind in ("h2", "h3")):
            out.append("</section>")
            open_section = False
        if starts_kernel:
            out.append(f'<section class="kernel" id="{b.anchor}">' if b.anchor else '<section class="kernel">')
            open_section = True
        out.append(block_html(b))
    return out + (["</section>"] if open_section else [])


def block_html(b: Block) -> str:
    """One block as HTML, every text escaped (``inline``)."""
    if b.kind in ("h1", "h2", "h3"):
        return f"<{b.kind}>{inline(b.text)}</{b.kind}>"
    if b.kind in ("ul", "details"):
        items = "<ul>" + "".join(f"<li>{inline(item)}</li>" for item in b.items) + "</ul>"
        return f"<details><summary>{inline(b.text)}</summary>{items}</details>" if b.kind == "details" else items
    if b.kind == "table":
        return _table(b)
    if b.kind in ("warn", "note"):
        label = "<strong>Warning:</strong> " if b.kind == "warn" else ""
        return f'<div class="{b.kind}">{label}{inline(b.text)}</div>'
    if b.kind == "code":
        return f"<pre><code>{html.escape(b.text)}</code></pre>"
    if b.kind == "svg":  # a figure drawn elsewhere, already an inline <svg> element (render.mpl.svg_element)
        return f'<figure class="plot">{b.text}</figure>'
    if b.kind == "plot":
        if b.plot is None:
            return ""
        return (f'<figure class="plot">{inline_svg(b.plot, dict(b.links))}<figcaption>{PLOT_HINT}</figcaption>'
                "</figure>")
    return f"<p>{inline(b.text)}</p>"


def _table(b: Block) -> str:
    numeric = b.numeric or (False,) * len(b.header)

    def cells(tag: str, row: Sequence[str]) -> str:
        return "".join(f'<{tag}{" class=num" if num else ""}>{inline(c, breaks=True)}</{tag}>'
                       for c, num in zip(row, numeric, strict=True))

    body = "".join(f"<tr>{cells('td', row)}</tr>" for row in b.rows)
    # a name with no break point (``CODE_BREAKS``) widens its table, which then scrolls in its box, not the page
    return (f'<div class="table"><table><thead><tr>{cells("th", b.header)}</tr></thead><tbody>{body}</tbody>'
            "</table></div>")


def inline(text: str, breaks: bool = False) -> str:
    """Block text as HTML: `code` and **bold** as elements, every character of their content and of the rest
    escaped; with ``breaks`` (a table cell), code may wrap after its separators (``CODE_BREAKS``), never inside an
    identifier (the CSS's ``td code``: no other break; a table too wide scrolls in its ``div.table``)."""
    parts = [(_TAGS.get(kind), _breakable(part) if breaks and kind == "code" else html.escape(part))
             for kind, part in spans(text)]
    return "".join(f"<{tag}>{part}</{tag}>" if tag else part for tag, part in parts)


CODE_BREAKS = re.compile(r"(::|<|,|\(|_)")  # where a kernel's name may wrap: after a scope, template,
# argument or word (``_``: C names join their words with it)


def _breakable(code: str) -> str:
    """Escaped code with a line-break opportunity (<wbr>) after each separator."""
    return "".join(html.escape(piece) + ("<wbr>" if CODE_BREAKS.fullmatch(piece) else "")
                   for piece in CODE_BREAKS.split(code) if piece)
