"""Results in Jupyter: an analysis and a comparison show as HTML (``_repr_html_``): a title, the GPU and a table of
the kernels, every name escaped."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest

import roofline
from roofline.analysis.roofline import analyze_report
from roofline.compare.pairing import pair_reports
from tests.synthetic import COMPUTE_BOUND, NEW_GPU, OLD_GPU, launch, model

HOSTILE = "gemm<script>alert(1)</script>"


@pytest.fixture(autouse=True)
def shown() -> None:
    """These results are made by the modules below the API: its hooks registered by hand."""
    roofline.show_in_notebooks()


class Tags(HTMLParser):
    """The tags of an HTML fragment, and its text."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self.tags.append(tag)

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def parsed(fragment: str) -> Tags:
    tags = Tags()
    tags.feed(fragment)
    return tags


def test_an_analysis_shows_as_a_kernel_table_with_escaped_names():
    a = analyze_report(model("app.json", [launch(0, HOSTILE, 5e-3, 2e9, 1e8, OLD_GPU, sol=COMPUTE_BOUND),
                                          launch(1, "copy", 2e-3, 0.0, 4e8, OLD_GPU)]))
    fragment = a._repr_html_()
    tags = parsed(fragment)
    assert "script" not in tags.tags and {"h2", "table", "tr", "td"} <= set(tags.tags)
    text = "".join(tags.text)
    assert HOSTILE in text and "copy" in text and "app.json" in text  # the name as text, not as markup
    assert len(re.findall("<tr>", fragment)) == 1 + len(a.groups)  # header and one row per kernel


def test_a_comparison_shows_its_kernels_side_by_side_with_escaped_names():
    old = model("old.json", [launch(0, HOSTILE, 5e-3, 2e9, 1e8, OLD_GPU, sol=COMPUTE_BOUND)])
    new = model("new.json", [launch(0, HOSTILE, 1e-3, 2e9, 1e8, NEW_GPU, sol=COMPUTE_BOUND)])
    fragment = pair_reports([analyze_report(old), analyze_report(new)])._repr_html_()
    tags = parsed(fragment)
    assert "script" not in tags.tags and "table" in tags.tags and "svg" not in tags.tags
    text = "".join(tags.text)
    assert HOSTILE in text and "old" in text and "new" in text
