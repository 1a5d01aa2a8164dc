"""A kernel's name in parts, read from its demangled name: scope, function, template arguments; the key that tells
kernels apart (two instances of one template are two kernels, overloads of one plain function are one), and the
longest readable form of a name within a width.

ncu's function name (``Kernel``, ``distribution_elementwise_grid_stride_kernel``) drops what tells template
instances apart; the demangled name keeps it but runs to thousands of characters. A table shows the scope,
function and template arguments (no ``void``, no parameter list) as far as its column allows, giving up the
scope first, then the middle of the template arguments, and cutting the function name itself last.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from os.path import commonprefix

from msgspec import Struct

from roofline.core.units import middle_cut, window_cut

MIN_TEMPLATE_CHARS = 5  # fewer characters of template arguments than this: show <…> instead
MIN_FUNCTION_CHARS = 4  # beside a suffix, a function name keeps this many characters (of ``width`` at most)
_OPENERS, _CLOSERS = "(<[", ")>]"
PAIR_ARROW = " -> "  # between the names of the kernels a comparison pairs, where they differ


class KernelName(Struct, frozen=True):
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
        the template arguments cut, with ``<…>``, then the function name cut in its middle; a suffix longer than
        the width leaves the function MIN_FUNCTION_CHARS, past the width, so that the row stays named."""
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
        return middle_cut(self.function, max(room, min(MIN_FUNCTION_CHARS, width))) + self.suffix

    def fit_around(self, ats: Sequence[int], width: int) -> str:
        """Like ``fit``, but a cut of the template arguments keeps their characters ``ats`` in view (where they
        part from other instances of the template, nearest first: as many as leave each window
        MIN_TEMPLATE_CHARS); where the function name leaves the arguments too little room, it is cut in its middle
        to leave them MIN_TEMPLATE_CHARS (what tells two instances apart matters more than the whole name)."""
        whole = self.function + self._template(self.arguments)
        if len(whole) <= width - len(self.suffix) or not self.arguments or not ats:
            return self.fit(width)
        room = width - len(self.suffix) - len(self.function) - 2
        function = self.function
        if room < MIN_TEMPLATE_CHARS:
            function = middle_cut(self.function, max(MIN_FUNCTION_CHARS, width - len(self.suffix) - 2
                                                     - MIN_TEMPLATE_CHARS))
            room = max(MIN_TEMPLATE_CHARS, width - len(self.suffix) - len(function) - 2)
        shown = list(ats)[:max(1, (room - 1) // (MIN_TEMPLATE_CHARS + 1))]
        return function + self._template(windows_cut(self.arguments, shown, room)) + self.suffix

    def fit_function_around(self, at: int, width: int) -> str:
        """Like ``fit``, but a cut of the function name keeps its first characters and its character ``at`` in
        view (where it parts from a kernel whose name reads alike when cut in the middle)."""
        template = "<…>" if self.arguments else ""
        room = width - len(self.suffix) - len(template)
        if len(self.function) <= room or room < 2 * MIN_FUNCTION_CHARS:
            return self.fit(width)
        head = room // 3
        return self.function[:head] + window_cut(self.function[head:], at - head, room - head) + template + self.suffix

    def with_suffix(self, suffix: str) -> KernelName:
        return KernelName(self.function, self.scope, self.arguments, suffix)

    @staticmethod
    def _template(arguments: str) -> str:
        return f"<{arguments}>" if arguments else ""


def fit_apart(names: Sequence[KernelName], width: int) -> list[str]:
    """Each name fitted to ``width`` as ``KernelName.fit`` does, except that different names which would read
    alike show where they part: the template arguments around where each first differs from the instance of its
    template most like it, or each function name around where it parts from the one most like it (long generated
    names such as cuDNN's ``sm80_xmma_fprop_..._tilesize128x128x32_...``). Names that still read alike (a column
    too narrow to show where they part) are numbered, `` ~1``, `` ~2``, ... (one count over all of them, a suffix
    that is never cut): rows of different kernels never read the same."""
    fits = [n.fit(width) for n in names]
    apart: dict[KernelName, str] = {}
    for group in _alike(names, fits):
        functions = {n.function for n in group}
        for n in group:
            twins = [t for t in group if t.function == n.function and t != n]  # one function, other arguments
            if twins:
                ats = sorted({len(commonprefix([n.arguments, t.arguments])) for t in twins}, reverse=True)
                apart[n] = n.fit_around(ats, width)
                continue
            parts = max(len(commonprefix([n.function, f])) for f in functions if f != n.function)
            apart[n] = n.fit_function_around(parts, width)
    texts = [apart.get(name, text) for name, text in zip(names, fits, strict=True)]
    still = set().union(*_alike(names, texts))
    order = list(dict.fromkeys(n for n in names if n in still))  # one count over all: each suffix is its own
    apart |= {n: n.with_suffix(f"{n.suffix} ~{i}").fit(width) for i, n in enumerate(order, 1)}
    return [apart.get(name, text) for name, text in zip(names, texts, strict=True)]


def _alike(names: Sequence[KernelName], texts: Sequence[str]) -> list[set[KernelName]]:
    """The sets of different names that read the same text."""
    alike: dict[str, set[KernelName]] = {}
    for name, text in zip(names, texts, strict=True):
        alike.setdefault(text, set()).add(name)
    return [group for group in alike.values() if len(group) > 1]


def windows_cut(text: str, ats: Sequence[int], width: int) -> str:
    """``text`` in at most ``width`` characters with the character at each index of ``ats`` kept in view: a window
    around each (``window_cut`` for one), an ellipsis wherever text is cut."""
    if len(text) <= width or len(ats) <= 1:
        return window_cut(text, ats[0] if ats else 0, width)
    inner = (width - len(ats) - 1) // len(ats)
    spans: list[list[int]] = []
    for at in sorted(ats):
        start = max(0, min(at - inner // 2, len(text) - inner))
        if spans and start <= spans[-1][1] + 1:  # touching windows make one: the room between is kept
            spans[-1][1] = max(spans[-1][1], start + inner)
        else:
            spans.append([start, start + inner])
    out, end = "", 0
    for start, stop in spans:
        out += ("…" if start > end else "") + text[start:stop]
        end = stop
    return out + ("…" if end < len(text) else "")


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


@functools.lru_cache(maxsize=4096)  # a report's launches repeat a few kernels' names (the A100 report: 154 launches)
def kernel_key(function: str, demangled: str = "") -> str:
    """What tells a kernel apart from the others: its scope, function and template arguments for a template
    instance, its function name otherwise (the parameter list and the return type left out)."""
    name = kernel_name(function, demangled)
    return name.full if name.arguments else function


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
