"""The notebook's display hooks (``core.display``): a result looks its HTML up; the API registers the hooks."""

from __future__ import annotations

import roofline  # noqa: F401  (registers the hooks, as any import of roofline does)
from roofline.core import display


def test_a_registered_hook_writes_the_html_and_an_absent_one_gives_none(monkeypatch):
    monkeypatch.setattr(display, "_HTML", {})
    assert display.html("report", object()) is None
    display.register_html("report", lambda result: f"<p>{result}</p>")
    assert display.html("report", 7) == "<p>7</p>"


def test_importing_roofline_registers_both_kinds():
    assert set(display._HTML) == {"report", "compare"}
