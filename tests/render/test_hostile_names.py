"""Kernel names come from user code, report paths and labels from the user: in every document format they stay text.

Markdown is rendered by a CommonMark parser with GFM tables (markdown-it-py) and the HTML it gives is checked, as
the HTML pages are: no tag or attribute of a name gets through, no link but the page's own anchors, every table
row keeps its cells, and each name is shown as one piece of code. CSV and JSON parse back to the same names.
"""

from __future__ import annotations

import csv
import io
import json
from html.parser import HTMLParser

import pytest
from markdown_it import MarkdownIt

from roofline.analysis.launches import ReportAnalysis
from roofline.analysis.roofline import analyze_report
from roofline.analysis.timeline import timeline_set
from roofline.compare.pairing import Comparison, pair_reports, parse_matcher
from roofline.compare.regression import Thresholds, judge
from roofline.core.timeline import DeviceTime, KernelTime, Timeline
from roofline.render.compare.html import comparison_html
from roofline.render.compare.json import comparison_json, diff_json
from roofline.render.compare.markdown import comparison_markdown, diff_markdown
from roofline.render.report import flat, html, markdown
from roofline.render.report import json as report_json
from roofline.render.timeline.text import render_csv as timeline_csv
from tests.synthetic import NEW_GPU, OLD_GPU, launch, model
from tests.views import views

HOSTILE = (
    "<script>alert(1)</script>",
    "pipe|in|name",
    "tick`code`tick",
    "line\n<sub>raw</sub>",
    "cr\r<b>x</b>",
    "*star* _under_ **bold** __strong__",
    "[x](javascript:alert(1))",
    "back\\slash\\<i>it</i>",
    "&lt;img src=x onerror=alert(1)&gt;",
)
SHOWN = {name: name.replace("`", "'").replace("\r", " ").replace("\n", " ") for name in HOSTILE}  # as documented
# What our own documents contain: the page's structure, the report's tables and, in the HTML report, the SVG plot.
OUR_TAGS = {"html", "head", "meta", "title", "style", "body", "main", "section", "h1", "h2", "h3", "p", "ul", "li",
            "code", "strong", "em", "table", "thead", "tbody", "tr", "th", "td", "div", "details", "summary", "figure",
            "figcaption", "img", "blockquote", "a", "br", "hr", "wbr",
            "svg", "g", "path", "defs", "clippath", "use", "rect", "text", "metadata", "desc", "circle",
            "polyline", "polygon", "line", "tspan", "image", "ellipse"}


def hostile_model(path: str, gpu: dict, scale: float) -> ReportAnalysis:
    report = model(path, [launch(i, name, scale * 1e-3 * (i + 1), 1e6 * (i + 1), 1e6, gpu, demangled=f"void {name}()")
                          for i, name in enumerate(HOSTILE)])
    return analyze_report(report)


@pytest.fixture(scope="module")
def analysis() -> ReportAnalysis:
    return hostile_model("<img src=x onerror=alert(1)>|`run`.json", OLD_GPU, 1.0)


@pytest.fixture(scope="module")
def comparison() -> Comparison:
    base = hostile_model("base<i>|.json", OLD_GPU, 1.0)
    new = hostile_model("new`[l](javascript:x)`.json", NEW_GPU, 0.5)
    return pair_reports([base, new])


@pytest.fixture(scope="module")
def by_order(comparison) -> Comparison:
    """Paired by launch order, so the pairing's details list the names; the base has one more kernel."""
    base = hostile_model("base.json", OLD_GPU, 1.0)
    new = analyze_report(model("new.json", [launch(0, HOSTILE[0], 1e-3, 1e6, 1e6, NEW_GPU)]))
    return pair_reports([base, new], parse_matcher("order"))


class Tags(HTMLParser):
    """The tags and attributes of an HTML text and the text of each <code> element."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.codes: list[str] = []
        self._code: list[str] | None = None
        self.feed(text)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag == "code":
            self._code = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "code" and self._code is not None:
            self.codes.append("".join(self._code))
            self._code = None

    def handle_data(self, data: str) -> None:
        if self._code is not None:
            self._code.append(data)


def assert_only_our_markup(page: str, extra_tags: frozenset[str] = frozenset()) -> Tags:
    """No tag, attribute or link that a name could have brought in."""
    found = Tags(page)
    assert {tag for tag, _ in found.tags} <= OUR_TAGS | extra_tags
    assert not {"script", "i", "b"} & {tag for tag, _ in found.tags}
    for tag, attrs in found.tags:
        assert not [a for a in attrs if a.startswith("on")], (tag, attrs)
        for key in ("href", "xlink:href", "src"):
            value = attrs.get(key)
            assert value is None or value.startswith("#") or (tag == "img" and value.endswith(".png")), (tag, attrs)
    return found


def markdown_html(text: str) -> str:
    """The Markdown as a CommonMark renderer with GFM tables and raw HTML allowed (as GitHub's) shows it."""
    return MarkdownIt("commonmark").enable("table").render(text)


def assert_every_name_is_code(found: Tags, names: tuple[str, ...] = HOSTILE) -> None:
    """Each name is the whole text of a code element (HTML keeps a line break, which shows as a space)."""
    codes = {code.replace("\r", " ").replace("\n", " ") for code in found.codes}
    for name in names:
        assert SHOWN[name] in codes, name


def assert_tables_are_whole(text: str) -> None:
    """Each Markdown table row, as GFM splits it, has as many cells as its table's header."""
    tokens = MarkdownIt("commonmark").enable("table").parse(text)
    width, cells = 0, 0
    for token in tokens:
        if token.type == "tr_open":
            cells = 0
        elif token.type in ("th_open", "td_open"):
            cells += 1
        elif token.type == "tr_close":
            width = width or cells
            assert cells == width
        elif token.type == "table_close":
            width = 0
    lines = [line for line in text.splitlines() if line.startswith("|")]
    assert lines and all(line.endswith("|") for line in lines)  # no row cut by a line break
    for line in lines:  # GFM splits a row at every pipe that is not escaped
        assert len(line.replace("\\|", "").split("|")) == len(line_header(text, line).replace("\\|", "").split("|"))


def line_header(text: str, row: str) -> str:
    """The header line of the table a row belongs to."""
    lines = text.splitlines()
    i = lines.index(row)
    while i > 0 and lines[i - 1].startswith("|"):
        i -= 1
    return lines[i]


def test_report_markdown_keeps_hostile_names_as_code(analysis):
    text = markdown.render(views([analysis]))
    assert_tables_are_whole(text)
    found = assert_only_our_markup(markdown_html(text))
    assert_every_name_is_code(found)
    assert "<img src=x onerror=alert(1)>|'run'.json" in found.codes  # the report's file name


def test_report_html_keeps_hostile_names_as_code(analysis):
    found = assert_only_our_markup(html.render(views([analysis])))
    assert_every_name_is_code(found)
    assert "<img src=x onerror=alert(1)>|'run'.json" in found.codes


def test_comparison_markdown_keeps_hostile_names_as_code(comparison, by_order):
    for c in (comparison, by_order):
        text = comparison_markdown(c, image="cmp.png")
        assert_tables_are_whole(text)
        found = assert_only_our_markup(markdown_html(text))
        assert_every_name_is_code(found, HOSTILE if c is comparison else HOSTILE[1:])  # only in the base: listed
    assert "<script>alert(1)</script>" not in markdown_html(comparison_markdown(by_order))


def test_comparison_html_keeps_hostile_names_as_code(comparison, by_order):
    for c in (comparison, by_order):
        found = assert_only_our_markup(comparison_html(c))
        assert_every_name_is_code(found, HOSTILE if c is comparison else HOSTILE[1:])


def test_diff_markdown_keeps_hostile_names_as_code(comparison):
    text = diff_markdown(judge(comparison, Thresholds(), allow_different_gpu=True))
    assert_tables_are_whole(text)
    found = assert_only_our_markup(markdown_html(text), frozenset({"sub"}))
    assert_every_name_is_code(found)
    assert [tag for tag, _ in found.tags].count("sub") == 1  # the noise note's, none from a name


def test_csv_and_json_give_the_names_back(analysis, comparison):
    rows = list(csv.DictReader(io.StringIO(flat.render(views([analysis])), newline="")))
    assert sorted(r["text"] for r in rows if r["quantity"] == "name") == sorted(HOSTILE)
    report = json.loads(report_json.render(views([analysis])))["reports"][0]
    assert sorted(k["name"] for k in report["kernels"]) == sorted(HOSTILE)
    assert sorted(p["label"] for p in json.loads(comparison_json(comparison))["kernels"]) == sorted(HOSTILE)
    diff = json.loads(diff_json(judge(comparison, Thresholds(), allow_different_gpu=True)))
    assert sorted(k["label"] for k in diff["kernels"]) == sorted(HOSTILE)


def test_timeline_csv_puts_a_formula_name_behind_a_quote():
    kernels = tuple(KernelTime(name, 1, 1e-6, 1e-6, 1e-6, 1e-6, (0,)) for name in ("=HYPERLINK(1)", "-x", "plain"))
    text = timeline_csv(timeline_set([Timeline("app.sqlite", kernels, (DeviceTime(0, "GPU", 3, 3e-6, 3e-6),), ())]))
    assert text.endswith("\r\n") and "\n" not in text.replace("\r\n", "")
    rows = list(csv.DictReader(io.StringIO(text, newline="")))
    assert [r["name"] for r in rows] == ["'=HYPERLINK(1)", "'-x", "plain"]


def test_timeline_markdown_shows_hostile_names_as_text():
    """Kernel names in the timeline's Markdown are plain text, every character Markdown would read as markup or
    HTML escaped: "<unnamed>::nvfuser_..." (nvFuser's kernels in the H200 export) showed as "::nvfuser_..." where
    "<" went through."""
    from roofline.render.timeline.text import render_markdown

    names = (*HOSTILE, "<unnamed>::nvfuser_inner_persistent_f1_c1_r0_g2")
    kernels = tuple(KernelTime(name, 1, 1e-6, 1e-6, 1e-6, 1e-6, (0,)) for name in names)
    text = render_markdown(timeline_set([Timeline("app.sqlite", kernels, (DeviceTime(0, "GPU", 9, 9e-6, 9e-6),), ())]))
    page = markdown_html(text)
    assert_only_our_markup(page)
    assert_tables_are_whole(text)
    shown = Tags(page)
    assert {tag for tag, _ in shown.tags} <= {"h1", "h2", "ul", "li", "p", "table", "thead", "tbody", "tr", "th", "td"}
    assert "&lt;unnamed&gt;::nvfuser_inner_persistent_f1_c1_r0_g2" in page
