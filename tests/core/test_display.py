"""The notebook's display hooks (``core.display``): a result looks its HTML up; the API registers the hooks."""

from __future__ import annotations

import roofline
from roofline.core import display


def test_a_registered_hook_writes_the_html_and_an_absent_one_gives_none(monkeypatch):
    monkeypatch.setattr(display, "_HTML", {})
    assert display.html("report", object()) is None
    display.register_html("report", lambda result: f"<p>{result}</p>")
    assert display.html("report", 7) == "<p>7</p>"


def test_show_in_notebooks_registers_both_kinds(monkeypatch):
    monkeypatch.setattr(display, "_HTML", {})  # importing roofline registers nothing: the API's first use does
    roofline.show_in_notebooks()
    assert set(display._HTML) == {"report", "compare"}
