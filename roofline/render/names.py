"""Text from reports as each medium shows it (a terminal, a plot, JSON), and kernel names in tables: a group's name,
names told apart by their launch configuration, ncu's launch notation.
The parts of a name and how it is fitted to a width are ``roofline.core.kernel_names``."""

from __future__ import annotations

import io
import re
from collections.abc import Iterable, Sequence
from typing import Any

from roofline.core.choices import GroupBy
from roofline.core.kernel_names import KernelName, kernel_name
from roofline.core.readonly import plain

MAX_SHOWN_CHARS = 10_000  # a text from a report shown on a terminal or a plot is cut beyond this (names: < 5,000)
REPLACEMENT = "\ufffd"  # in place of a lone surrogate, which no encoding can write
_SURROGATE = re.compile("[\ud800-\udfff]")  # lone ones only: Python's str holds no pairs
# What must not reach a terminal as it is: C0 and C1 controls (ESC starts a sequence that can rewrite the screen,
# CR returns over a line, LF starts one), the line and paragraph separators and the bidirectional overrides
# (text shown in another order than it is stored).
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
# What JSON text holds only as an escape (``json_text``): DEL and every character beyond ASCII, so that the document
# is ASCII (as json.dumps writes it) and no C1 control or bidirectional override reaches a terminal raw.
_JSON_ESCAPED = re.compile("[^\x00-\x7e]")  # negated: a class up to U+10FFFF takes 6 ms to compile
# What a terminal that cannot write a character (an ASCII or Latin-1 locale) shows in its place: the symbols roofline
# writes and rich's box lines; any other character becomes "?".
ASCII_FALLBACKS = {"…": "...", "→": "->", "←": "<-", "÷": "/", "×": "x", "µ": "u", "–": "-", "—": "-", "≈": "~",
                   "≤": "<=", "≥": ">=", "±": "+/-", "•": "*", "·": ".", "°": " deg", "─": "-", "━": "-", "│": "|",
                   "┃": "|", "╭": "+", "╮": "+", "╰": "+", "╯": "+", "┌": "+", "┐": "+", "└": "+", "┘": "+",
                   "├": "+", "┤": "+", "┬": "+", "┴": "+", "┼": "+", "\ufffd": "?"}
TERMINAL_ERRORS = "roofline-ascii"  # the codec error handler that writes ASCII_FALLBACKS (``terminal_fallback``)
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")  # what makes a spreadsheet read a cell as a formula (OWASP)


def bound_word(bound: str | None) -> str:
    """A verdict's bound as every output shows it in prose and tables: "small grid", "memory", ...; "n/a" without
    one (JSON keeps the value itself)."""
    return bound.replace("_", " ") if bound else "n/a"


# --- One sanitising function per medium ---------------------------------------------------------------
def visible(text: str, limit: int = MAX_SHOWN_CHARS) -> str:
    """Text from a report (a name, a label, a path) as a terminal shows it: control characters written as escapes
    (``\\x1b``, ``\\n``), lone surrogates replaced, cut to ``limit`` characters with an ellipsis. Names are data
    of the profiled program: they may hold anything."""
    text = printable(text)
    return text if len(text) <= limit else text[:limit - 1] + "…"


def terminal_fallback(err: UnicodeError) -> tuple[str, int]:
    """A codec error handler (registered as TERMINAL_ERRORS): the characters a terminal's encoding cannot write, each
    as its ASCII fallback, else "?"."""
    if not isinstance(err, UnicodeEncodeError):
        raise err
    bad = err.object[err.start:err.end]
    return "".join(ASCII_FALLBACKS.get(c, "?") for c in bad), err.end


_TERMINAL_CONTROL = re.compile("(?!\r\n)[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def terminal_safe(text: str) -> str:
    """A whole document (CSV, JSON, Markdown) as a terminal may show it: every control character but the line ends
    (LF, CRLF) and tabs written as an escape, so that a name in it cannot move the cursor or restyle the screen."""
    return _TERMINAL_CONTROL.sub(_escaped, text) if _TERMINAL_CONTROL.search(text) else text


def printable(text: str) -> str:
    """``text`` with control characters written as escapes and lone surrogates replaced, whole: what documents
    (Markdown, HTML) hold of report text, which they escape for their own markup besides."""
    text = _SURROGATE.sub(REPLACEMENT, text)
    return _CONTROL.sub(_escaped, text) if _CONTROL.search(text) else text


_MARKDOWN_SPECIAL = re.compile(r"[\\`*\[\]<&|]|_+")  # escaped in Markdown text: escapes, code, emphasis, links, HTML


def markdown_text(text: str) -> str:
    """Text as Markdown shows it literally: every character Markdown would read as markup or HTML escaped, but a
    run of underscores within a word (``sm__cycles``), which CommonMark never reads as emphasis."""
    return _MARKDOWN_SPECIAL.sub(_markdown_escape, text)


def _markdown_escape(m: re.Match[str]) -> str:
    text, start, end = m.string, m.start(), m.end()
    if m[0][0] == "_" and start > 0 and end < len(text) and text[start - 1].isalnum() and text[end].isalnum():
        return m[0]
    return "".join("\\" + c for c in m[0])


def plot_text(text: str, limit: int = MAX_SHOWN_CHARS) -> str:
    """Text from a report as a plot draws it: ``visible`` (a font has no glyph for a control character, and a lone
    surrogate is no character at all), with ``$`` escaped so matplotlib does not read it as mathematics."""
    return visible(text, limit).replace("$", "\\$")


def json_text(doc: Any) -> str:
    """A JSON document as compact ASCII text on one line: never NaN (a non-finite number is null), every character
    beyond ASCII as a ``\\u`` escape, and encodable: a lone surrogate in any string (an undecodable byte of a path,
    or ``\\ud800`` in a report model) is replaced. msgspec encodes it: 8 ms for the 2.5 MB document of the 154-launch
    A100 report, where ``json.dumps`` took 73 ms (docs/benchmarks.md)."""
    import msgspec

    encoder, data = msgspec.json.Encoder(enc_hook=plain), bytearray()
    try:
        encoder.encode_into(doc, data)
    except UnicodeEncodeError:  # rare: look at the strings only then
        as_data = msgspec.to_builtins(doc, enc_hook=plain)  # a typed document's strings reached as plain data
        encoder.encode_into(_encodable(as_data), data)
    data += b"\n"  # in place: the text is copied once, when decoded
    text = data.decode()
    if not data.isascii() or b"\x7f" in data:
        text = _JSON_ESCAPED.sub(_json_escape, text)
    return text


def _json_escape(match: re.Match[str]) -> str:
    """One character as JSON's ``\\u`` escape; beyond the Basic Multilingual Plane as its UTF-16 surrogate pair."""
    code = ord(match.group())
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xd800 + (code >> 10):04x}\\u{0xdc00 + (code & 0x3ff):04x}"


def csv_text(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """A CSV document (RFC 4180: CRLF line ends, a cell with a comma, quote, CR or LF quoted): the header row, then
    the rows, each cell through ``csv_cell``."""
    import csv  # here, not at import: only a CSV document needs it (0.5 ms)

    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(header)
    for row in rows:
        writer.writerow([csv_cell(value) for value in row])
    return out.getvalue()


def csv_cell(value: Any) -> Any:
    """A CSV cell: empty for null, true/false for flags, text a spreadsheet would run as a formula behind a ``'``
    (kernel names come from user code)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


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


def visible_name(name: KernelName) -> KernelName:
    """A name with each part as a terminal may show it (``visible``), so that fitting counts what is shown."""
    return KernelName(visible(name.function), visible(name.scope), visible(name.arguments), visible(name.suffix))


def group_name(name: str, functions: Sequence[str], by: GroupBy = "kernel") -> KernelName:
    """A group of launches' name in parts: a kernel group (keyed by its demangled name) as its function and template
    arguments; a function or NVTX group as its key."""
    kernel = by == "kernel" and len(functions) == 1 and name != functions[0]
    return kernel_name(functions[0], name) if kernel else KernelName(name)


def short_group_name(name: str, functions: Sequence[str], by: GroupBy = "kernel") -> str:
    """A group's name without its scope (function and template arguments): what a plot names a kernel by."""
    parts = group_name(name, functions, by)
    return KernelName(parts.function, "", parts.arguments).full


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
