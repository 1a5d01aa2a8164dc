"""How a notebook shows a result: the HTML hook of each kind of result, looked up by the result types'
``_repr_html_`` and registered by the Python API on its first use, or by ``roofline.show_in_notebooks()`` (its
hooks hand the result to the renderers). The result types so import no renderer: the hooks point down from the
API, never up from a result."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

Shown = Literal["report", "compare"]
_HTML: dict[Shown, Callable[[Any], str]] = {}


def register_html(kind: Shown, hook: Callable[[Any], str]) -> None:
    """Show results of ``kind`` in a notebook as the HTML ``hook`` writes."""
    _HTML[kind] = hook


def html(kind: Shown, result: object) -> str | None:
    """The HTML of a result, or None (a notebook then shows its text) where no hook is registered."""
    hook = _HTML.get(kind)
    return hook(result) if hook is not None else None
