"""HTML optimization report: well-formed, self-contained (no scripts, no external resources, no URLs), with the
plot inline; and plots, Markdown and HTML for every report in ../shared/ncu-reps."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from roofline.pipeline import analyze_files
from roofline.render import GENERATED_BY
from roofline.render.report import html, markdown, plot
from tests.views import views

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "h100-sxm_synthetic.roofline.json"
VOID = {"meta", "br", "hr", "img", "input", "link", "col", "area", "base", "wbr", "source", "path", "use", "rect",
        "circle", "line", "polyline", "polygon", "ellipse", "stop"}  # (SVG elements may self-close)
FORBIDDEN = {"script", "link", "iframe", "object", "embed", "img", "base"}


class Checker(HTMLParser):
    """Records tag nesting errors, forbidden elements and any attribute that points outside the file."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.errors: list[str] = []
        self.tags: set[str] = set()
        self.meta: dict[str, str] = {}

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        if tag in FORBIDDEN:
            self.errors.append(f"forbidden <{tag}>")
        for name, value in attrs:
            if name in ("src", "href", "xlink:href", "action") and value and not value.startswith("#"):
                self.errors.append(f"<{tag} {name}={value!r}> points outside the file")
        if tag == "meta" and dict(attrs).get("name"):
            self.meta[dict(attrs)["name"]] = dict(attrs).get("content", "")
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.tags.add(tag)

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes <{self.stack[-1] if self.stack else 'nothing'}>")
        else:
            self.stack.pop()


def check(page: str) -> Checker:
    """Parse a page and assert it is well formed and self-contained."""
    c = Checker()
    c.feed(page)
    c.close()
    assert not c.errors, c.errors[:5]
    assert not c.stack, f"unclosed: {c.stack}"
    assert not re.search(r"https?://|url\((?!#)", page), "external reference in the page"  # url(#clip) is internal
    return c


@pytest.fixture(scope="module")
def page():
    return html.render(views([analyze_files([EXAMPLE])[0]]))


def test_page_is_well_formed_and_self_contained(page):
    c = check(page)
    assert page.startswith("<!DOCTYPE html>")
    assert {"html", "head", "style", "body", "main", "table", "svg", "section"} <= c.tags
    assert c.meta["generator"].startswith(GENERATED_BY)


def test_plot_is_inline_svg(page):
    svg = page[page.index("<figure"):page.index("</figure>")]
    assert "<svg" in svg and "gemm_bf16_tensor_4096" in svg  # legend text kept as text (svg.fonttype none)


def test_same_content_as_markdown(page):
    for phrase in ("Kernels ranked by time to gain",
                   "DRAM traffic (3.22 GB) sets the time (DRAM roof at 90.0% of its peak)",
                   "Run the FP32 matrix math on Tensor Cores as TF32"):
        assert phrase in page


def test_inline_markup_is_escaped():
    assert html.inline("a <b> & `x<y>` **bold**") == "a &lt;b&gt; &amp; <code>x&lt;y&gt;</code> <strong>bold</strong>"


def test_every_shared_report_plots_and_renders(shared_report, shared_name):
    a = analyze_files([shared_report(shared_name)])[0]
    assert plot.draw(plot.plot_data(views([a]).reports), "png").startswith(b"\x89PNG")
    text = markdown.render(views([a]))
    assert "## `" in text and "Kernels ranked by time to gain" in text
    check(html.render(views([a])))
    for k in a.launches:
        for item in k.advice:
            assert re.search(r"\d", item.text), f"{k.launch.name}: advice without a number: {item.text}"


def test_points_link_to_their_kernel_sections(page):
    sections = re.findall(r'<section class="kernel" id="([^"]+)">', page)
    links = set(re.findall(r'<a href="#([^"]+)">', page))
    assert sections == ["r0-k1", "r0-k2", "r0-k3"] and links == set(sections)
    first = page[page.index('id="r0-k1"'):].split("</h3>")[0]
    assert "1. <code>sgemm_fp32_4096</code>" in first  # rank 1 by recoverable time
    tooltips = re.findall(r'<g id="pt0-\d-(?:dram|l2|l1)" class="point"><title>([^<]+)</title>', page)
    assert len(tooltips) == 9 and all("of roof (kernel-clock ceilings, per launch), bound: " in t for t in tooltips)


def test_sections_of_several_reports_have_distinct_ids(shared_report):
    a = analyze_files([shared_report("v100_miniweather-openacc_full"), EXAMPLE])
    ids = re.findall(r'<section class="kernel" id="([^"]+)">', html.render(views(a)))
    assert len(ids) == len(set(ids)) == 5 + 3 and ids[5] == "r1-k1"


def test_the_instruction_roofline_section_is_in_the_page():
    intops = Path(__file__).resolve().parents[3] / "examples" / "h200" / "intops.full.ncu-rep"
    page = html.render(views(analyze_files([intops])))
    assert page.count("<strong>Instruction roofline</strong>") == 2
    assert "<li>531 warp GIPS, 67.3% of the issue peak (789 GIPS); thread instructions / 32: 531 GIPS</li>" in page


def test_a_source_listing_is_one_block_without_inline_code_padding():
    """Inline code's padding and background applied to a listing's <code> shifted its first line right by the
    padding (seen in a screenshot of the H200 SGEMM's hot lines); the listing's block carries them instead."""
    page = html.render(views(analyze_files([Path(__file__).resolve().parents[3] / "examples" / "h200" /
                                      "sgemm-lineinfo.full.ncu-rep"])))
    assert "<pre><code>" in page
    assert re.search(r"pre code \{[^}]*background: none; padding: 0;", page)
    assert re.search(r"(?m)^pre \{[^}]*background: #f0f2f5; padding: 6px 10px;", page)


def test_source_listings_are_escaped_preformatted_text():
    block = markdown.Block("code", "  if (a < b && c) { x = \"<script>\"; }")
    assert html.block_html(block) == ("<pre><code>  if (a &lt; b &amp;&amp; c) { x = &quot;&lt;script&gt;&quot;; }"
                                      "</code></pre>")


def test_kernel_names_in_tables_wrap_only_after_their_separators(shared_report):
    """RTX 2070 Super alife: a kernel name cell wraps after "::", "<", ",", "(" or "_" (a <wbr> there), never
    inside a word (no break-all on table code): mix_give_take_3_kernel wraps only between its words, the CUB
    agent's name gets a break after each scope; the text read back is the name unchanged."""
    page = html.render(views(analyze_files([shared_report("rtx2070super_alife-143launches_basic")])))
    css = page.split("<style>", 1)[1].split("</style>", 1)[0]
    assert re.search(r"td code \{[^}]*word-break: normal; overflow-wrap: normal;", css)  # no break but at a <wbr>
    assert re.search(r"div\.table \{[^}]*overflow-x: auto", css) and page.count('<div class="table"><table>') == \
        page.count("<table>")  # a table too wide for its name scrolls in its box (test_html_browser)
    assert "<td><code>mix_<wbr>give_<wbr>take_<wbr>3_<wbr>kernel</code></td>" in page
    agent = next(c for c in re.findall(r"<td><code>(.*?)</code></td>", page) if c.startswith("_<wbr>kernel_<wbr>agent"))
    assert "thrust::<wbr>" in agent and "&lt;<wbr>" in agent
    assert "wbr" not in re.sub(r"(::|&lt;|,|\(|_)<wbr>", "", agent)
