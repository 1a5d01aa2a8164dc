"""The HTML report in a real browser (headless Chromium, installed by .ci/install-system-tools): it loads with
no console message, every plotted point has its tooltip, every link lands on a kernel section; a screenshot."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from roofline.pipeline import analyze_files
from roofline.render.report import html, plot
from tests.browser import find_browser, load, screenshot
from tests.views import views

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "h100-sxm_synthetic.roofline.json"


@pytest.fixture(scope="module")
def browser() -> str:
    found = find_browser()
    if found is None:
        pytest.skip("no Chromium found (bash .ci/install-system-tools installs Debian's chromium)")
    return found


class Points(HTMLParser):
    """From a DOM: the tooltip (title text) of every point group, the link targets and the element ids."""

    def __init__(self) -> None:
        super().__init__()
        self.tips: dict[str, str] = {}
        self.links: list[str] = []
        self.ids: set[str] = set()
        self._point: str | None = None
        self._in_title = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get("id"):
            self.ids.add(a["id"])
        if tag == "g" and a.get("class") == "point":
            self._point = a["id"]
        elif tag == "title" and self._point:
            self._in_title = True
            self.tips[self._point] = ""
        elif tag == "a" and (a.get("href") or "").startswith("#"):
            self.links.append(a["href"][1:])

    def handle_data(self, data):
        if self._in_title and self._point:
            self.tips[self._point] += data

    def handle_endtag(self, tag):
        if tag == "title":
            self._in_title = False
            self._point = None


@pytest.mark.parametrize("name", ["example", "rtx4090_smem-transpose_full", "v100_miniweather-openacc_full"])
def test_page_loads_cleanly_and_every_point_has_its_tooltip(browser, name, shared_report, tmp_path):
    path = EXAMPLE if name == "example" else shared_report(name)
    a = analyze_files([path])[0]
    page = tmp_path / "report.html"
    page.write_text(html.render(views([a])))
    dom, console = load(browser, page)
    assert console == [], console
    found = Points()
    found.feed(dom)
    expected = plot.tooltips(plot.plot_data(views([a]).reports))
    assert expected and found.tips == expected  # one tooltip per plotted point, the text as computed
    assert found.links and set(found.links) <= found.ids  # every click lands on a section
    assert re.search(r"<section class=\"kernel\" id=\"r0-k1\">", dom)


def test_screenshot_is_a_png(browser, tmp_path):
    page = tmp_path / "report.html"
    page.write_text(html.render(views(analyze_files([EXAMPLE]))))
    out = tmp_path / "shot.png"
    screenshot(browser, page, out, 800, 600)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_comparison_page_loads_cleanly(browser, shared_report, tmp_path):
    """compare --format html: a comparison with its plot inline (kernels with FLOPs and bytes), in a real browser."""
    from roofline.compare.pairing import pair_reports
    from roofline.render.compare.html import comparison_html

    analyses = analyze_files([shared_report(name) for name in ("a10g_sgemm-progression_basic",
                                                               "a10g_sgemm-blocktiling_roofline")])
    page = tmp_path / "compare.html"
    page.write_text(comparison_html(pair_reports(analyses)))
    dom, console = load(browser, page)
    assert console == [], console
    assert "<svg" in dom and "Work per launch, A -&gt; B" in dom and "DIFFERENT" in dom


def test_a_name_with_no_break_point_scrolls_its_table_not_the_page(browser, tmp_path):
    """A kernel name of 400 characters with no separator to wrap at stays whole (no break inside an identifier),
    and widens only its table, which scrolls in its box: the page is no wider than the window (the document's
    scroll width, read back by a probe script added to the test's copy of the page)."""
    from roofline.render.report.markdown import Block

    name = "kernel" + "x" * 400  # no "_" or other break point
    table = Block("table", "", header=("#", "kernel", "time"), rows=(("1", f"`{name}`", "1 ms"),),
                  numeric=(True, False, True))
    page = html.page([Block("h1", "Long names"), table, Block("p", "after " + "word " * 100)])
    probe = "<script>document.body.dataset.w = document.documentElement.scrollWidth + ' ' + window.innerWidth;</script>"
    path = tmp_path / "long.html"
    path.write_text(page.replace("</body>", probe + "</body>"))
    dom, console = load(browser, path)
    assert console == [], console
    found = re.search(r'data-w="(\d+) (\d+)"', dom)
    assert found is not None and int(found[1]) <= int(found[2]), found
    assert f"<code>{name}</code>" in dom
