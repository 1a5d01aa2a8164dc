"""Kernel names as people read them: the parts of a demangled name, and a name fitted to a table column.

ncu's function name (``Kernel``, ``distribution_elementwise_grid_stride_kernel``) drops what tells template
instances apart; the demangled name keeps it but runs to thousands of characters. A table shows the scope,
function and template arguments (no ``void``, no parameter list) as far as its column allows, giving up the
scope first, then the middle of the template arguments, and cutting the function name itself last.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from roofline.core.units import middle_cut

MIN_TEMPLATE_CHARS = 5  # fewer characters of template arguments than this: show <…> instead
_OPENERS, _CLOSERS = "(<[", ")>]"
MAX_SHOWN_CHARS = 10_000  # a text from a report shown on a terminal or a plot is cut beyond this (names: < 5,000)
REPLACEMENT = "\ufffd"  # in place of a lone surrogate, which no encoding can write
_SURROGATE = re.compile("[\ud800-\udfff]")  # lone ones only: Python's str holds no pairs
# What must not reach a terminal as it is: C0 and C1 controls (ESC starts a sequence that can rewrite the screen,
# CR returns over a line, LF starts one), the line and paragraph separators and the bidirectional overrides
# (text shown in another order than it is stored).
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
_JSON_SURROGATE = re.compile(r"\\ud[89a-f]")  # a surrogate as json.dumps escapes it (pairs included)


# --- One sanitising function per medium ---------------------------------------------------------------
def visible(text: str, limit: int = MAX_SHOWN_CHARS) -> str:
    """Text from a report (a name, a label, a path) as a terminal shows it: control characters written as escapes
    (``\\x1b``, ``\\n``), lone surrogates replaced, cut to ``limit`` characters with an ellipsis. Names are data
    of the profiled program: they may hold anything."""
    text = _SURROGATE.sub(REPLACEMENT, text)
    if _CONTROL.search(text):
        text = _CONTROL.sub(_escaped, text)
    return text if len(text) <= limit else text[:limit - 1] + "…"


def plot_text(text: str, limit: int = MAX_SHOWN_CHARS) -> str:
    """Text from a report as a plot draws it: ``visible`` (a font has no glyph for a control character, and a lone
    surrogate is no character at all), with ``$`` escaped so matplotlib does not read it as mathematics."""
    return visible(text, limit).replace("$", "\\$")


def json_text(doc: Any) -> str:
    """A JSON document as compact text (one line, the C encoder), never NaN, and encodable: a lone surrogate in any
    string (an undecodable byte of a path, or ``\\ud800`` in a report model) is replaced."""
    text = json.dumps(doc, separators=(",", ":"), allow_nan=False)
    if _JSON_SURROGATE.search(text):  # rare: look at the strings only then
        text = json.dumps(_encodable(doc), separators=(",", ":"), allow_nan=False)
    return text + "\n"


def _encodable(value: Any) -> Any:
    if isinstance(value, str):
        return _SURROGATE.sub(REPLACEMENT, value)
    if isinstance(value, dict):
        return {_encodable(k): _encodable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_encodable(v) for v in value]
    return value


def _escaped(match: re.Match[str]) -> str:
    char = match.group()
    return _NAMED.get(char) or (f"\\x{ord(char):02x}" if ord(char) < 0x100 else f"\\u{ord(char):04x}")


@dataclass(frozen=True)
class KernelName:
    """A kernel name in parts: ``scope`` (``at::native::``), ``function``, template ``arguments`` (without the
    angle brackets; "" when none) and a ``suffix`` that is never cut (a launch configuration)."""

    function: str
    scope: str = ""
    arguments: str = ""
    suffix: str = ""

    @property
    def full(self) -> str:
        return self.scope + self.function + self._template(self.arguments) + self.suffix

    def fit(self, width: int) -> str:
        """The longest readable form within ``width`` characters: all, without the scope, with the middle of
        the template arguments cut, with ``<…>``, then the function name cut in its middle."""
        room = width - len(self.suffix)
        for text in (self.scope + self.function + self._template(self.arguments),
                     self.function + self._template(self.arguments)):
            if len(text) <= room:
                return text + self.suffix
        args_room = room - len(self.function) - 2
        if self.arguments and args_room >= MIN_TEMPLATE_CHARS:
            return self.function + self._template(middle_cut(self.arguments, args_room)) + self.suffix
        if self.arguments and len(self.function) + 3 <= room:
            return self.function + "<…>" + self.suffix
        return middle_cut(self.function, max(room, 1)) + self.suffix

    def visible(self) -> KernelName:
        """The name with each part as a terminal may show it (``visible``), so that fitting counts what is shown."""
        return KernelName(visible(self.function), visible(self.scope), visible(self.arguments), visible(self.suffix))

    def with_suffix(self, suffix: str) -> KernelName:
        return KernelName(self.function, self.scope, self.arguments, suffix)

    @staticmethod
    def _template(arguments: str) -> str:
        return f"<{arguments}>" if arguments else ""


def kernel_name(function: str, demangled: str = "") -> KernelName:
    """A launch's name in parts, from its demangled name when that parses (else the function name alone)."""
    text = demangled.strip().removeprefix("void ")
    if text.endswith(")"):  # the parameter list
        start = _opening(text)
        text = text[:start] if start is not None else ""
    arguments = ""
    if text.endswith(">"):
        start = _opening(text)
        if start is None:
            return KernelName(function)
        text, arguments = text[:start], text[start + 1:-1]
    scope, _, name = text.rpartition("::")
    if not name or any(c in name for c in " " + _OPENERS + _CLOSERS):  # not a plain identifier: unparsed
        return KernelName(function)
    return KernelName(name, scope + "::" if scope else "", arguments)


def common_name(function: str, demangled_names: Sequence[str]) -> KernelName:
    """The name of a group of launches: their demangled name when they all share one, else the function name."""
    distinct = set(demangled_names)
    return kernel_name(function, distinct.pop()) if len(distinct) == 1 else KernelName(function)


def launch_config(grid: tuple[int, ...] | None, block: tuple[int, ...] | None) -> str:
    """ncu's launch notation without trailing 1s, e.g. ``(1056)x(256)``; "" when the report has neither."""
    if grid is None or block is None:
        return ""
    return f"{_dims(grid)}x{_dims(block)}"


def distinguish(names: Sequence[KernelName], configs: Sequence[str]) -> list[KernelName]:
    """Rows that share a name get their launch configuration as a suffix when it tells them apart (launches
    that share the configuration too are told apart by their launch index in the table's # column)."""
    seen: dict[str, set[str]] = {}
    for n, c in zip(names, configs, strict=True):
        seen.setdefault(n.full, set()).add(c)
    return [n.with_suffix(f" {c}") if len(seen[n.full]) > 1 and c else n for n, c in zip(names, configs, strict=True)]


def _dims(dims: tuple[int, ...]) -> str:
    shown = list(dims)
    while len(shown) > 1 and shown[-1] == 1:
        shown.pop()
    return "(" + ", ".join(map(str, shown)) + ")"


def _opening(text: str) -> int | None:
    """Index of the bracket that opens the one ``text`` ends with, counting (), <> and [] alike."""
    depth = 0
    for i in range(len(text) - 1, -1, -1):
        if text[i] in _CLOSERS:
            depth += 1
        elif text[i] in _OPENERS:
            depth -= 1
            if depth == 0:
                return i
    return None
