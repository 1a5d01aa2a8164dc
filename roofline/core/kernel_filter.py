"""The kernel filter language of every command (``--kernel``, repeatable) and its translation for ncu.

One filter reads one name of each launch, the one ``--kernel-name-base`` chooses, as ncu does: the function
name (the default), the demangled or the mangled name. The same filter selects the launches of a report here
and becomes ncu's ``-k`` value when profiling, so what ``analyze`` profiles is what it analyses:

==================  ===========================================  =========================================
filter              keeps the kernels whose name ...             ncu ``-k``
==================  ===========================================  =========================================
``NAME``            contains NAME (case-sensitive)               ``regex:<NAME, regex characters escaped>``
``exact:NAME``      is NAME, or has NAME as its key (below)      ``NAME``
``regex:PATTERN``   has a match of PATTERN                       ``regex:PATTERN``
several filters     matches any of them                          one ``regex:A|^B$|(?:C)`` alternation
==================  ===========================================  =========================================

``exact:`` also takes a template instance's key (``core.kernel_names.kernel_key``: ``scope::function<template
arguments>``), the name ``summary``, ``list_kernels`` and the other tables give it, whichever name the filter reads.
ncu sees no key, so a filter that holds one profiles by demangled names (``ncu_name_base``): the key as
``^(void )?KEY\\(``, and an ``exact:`` function name as every demangled name of that function, so that ncu's launch
skip and count (``-s``, ``-c``) count the launches the report keeps (an ``extern "C"`` kernel's demangled name is
its bare name). A key beside a ``NAME`` or ``regex:`` filter over function or mangled names, or beside an
``exact:`` mangled name, is refused when profiling: those do not read demangled names alike.

ncu takes a single ``--kernel-name`` (a second one is an error), hence the alternation. Its regular
expressions are Boost's Perl syntax; Python's ``re`` applies them here. A pattern either of them rejects,
or one that the two read differently, is refused with one line before anything runs.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from typing import Literal

from msgspec import Struct
from msgspec.structs import replace

from roofline.core.choices import NameBase
from roofline.core.kernel_names import kernel_key, kernel_name
from roofline.core.model import KernelLaunch, Report
from roofline.core.timelimit import REGEX_LIMIT_S, within
from roofline.core.units import middle_cut
from roofline.errors import NoKernelMatched, UsageError

EXACT_PREFIX = "exact:"
REGEX_PREFIX = "regex:"
DEFAULT_BASE: NameBase = "function"
NEAREST_NAMES = 10  # names listed when a filter matches nothing
SHOWN_NAME_CHARS = 100  # a listed name longer than this (a demangled signature) is cut in the middle
# The language, said once: --kernel's help text and docs/choosing-kernels.md quote it.
LANGUAGE = ("NAME keeps the kernels whose name contains NAME (case-sensitive); exact:NAME the kernels named exactly "
            "NAME; regex:PATTERN the kernels whose name has a match of the regular expression PATTERN. Repeat "
            "--kernel to keep the kernels any of the filters selects.")
NAME_BASE_HELP = ("The kernel name --kernel reads, as ncu's --kernel-name-base: function (default: the bare function "
                  "name, without namespace, template arguments or parameters), demangled (the full signature) or "
                  "mangled.")
# Boost Perl-syntax metacharacters; < and > stay bare, since \< and \> are word boundaries there.
_NCU_SPECIAL = frozenset(".^$|?*+()[]{}\\")
# Patterns Python's re accepts that ncu 2022.3 rejects or reads otherwise (each checked against that ncu).
_DIVERGENT = re.compile(r"\\(?P<escape>.)|(?P<named>\(\?P[<=>])|(?P<posix>\[:[a-z]+:\])|(?P<brace>\{,\d)", re.S)
_DIVERGENT_FIXES = {
    "N": ("\\N{...} character names are not in ncu's regex syntax", "write the character itself"),
    "<": ("\\< and \\> are word boundaries for ncu but plain < and > for Python", "write < or > without the backslash"),
    "named": ("(?P...) groups are Python-only and ncu refuses them", "use a plain group (...) or (?:...)"),
    "posix": ("[:class:] sets are read differently by ncu and Python", "write the characters out, e.g. [A-Za-z]"),
    "brace": ("{,n} repeats for Python but is plain text for ncu", "write {0,n}"),
}

TermKind = Literal["contains", "exact", "regex"]


class Term(Struct, frozen=True):
    """One ``--kernel`` value: its kind, the name or pattern, and the text as given (for messages)."""

    kind: TermKind
    value: str
    text: str

    def matches(self, name: str) -> bool:
        if self.kind == "contains":
            return self.value in name
        if self.kind == "exact":
            return name == self.value
        return _compiled(self.value).search(name) is not None

    def matches_key(self, launch: KernelLaunch) -> bool:
        """Whether an ``exact:`` term names ``launch`` by a template instance's key (``kernel_key``:
        ``scope::function<arguments>``); a plain name is matched by the name the filter reads alone."""
        return self.instance() is not None and self.value == kernel_key(launch.name, launch.demangled_name)

    def instance(self) -> str | None:
        """The function an ``exact:`` term names by a template instance's key (``scope::function<arguments>``);
        None for any other term."""
        return _instance_function(self.value) if self.kind == "exact" else None

    def ncu_regex(self, base: NameBase = DEFAULT_BASE, by_key: bool = False) -> str:
        """This term as a piece of ncu's regular expression (for a ``regex:`` alternation) over the names of
        ``base``; ``by_key``: over demangled names for a filter of ``base`` that holds a key (``ncu_name_base``)."""
        if self.instance() is not None:  # the instance's demangled names: its key, then its parameters
            return f"^(void )?{ncu_escape(self.value)}\\("
        if by_key and self.kind == "exact" and base == "function":  # every demangled name of the function
            return f"^(void )?(.*::)?{ncu_escape(self.value)}(<.*>)?(\\(|$)"  # extern "C": no parameters
        if self.kind == "contains":
            return ncu_escape(self.value)
        if self.kind == "exact":
            return f"^{ncu_escape(self.value)}$"
        return f"(?:{self.value})"


class KernelFilter(Struct, frozen=True):
    """Filters OR-ed together, reading the name ``base`` chooses; no filter keeps every launch."""

    terms: tuple[Term, ...] = ()
    base: NameBase = DEFAULT_BASE

    @property
    def texts(self) -> tuple[str, ...]:
        return tuple(t.text for t in self.terms)

    def name_of(self, launch: KernelLaunch) -> str:
        """The launch's name this filter reads (the function name when the report lacks the other one)."""
        if self.base == "demangled":
            return launch.demangled_name or launch.name
        if self.base == "mangled":
            return launch.mangled_name or launch.name
        return launch.name

    def matches(self, launch: KernelLaunch) -> bool:
        name = self.name_of(launch)
        return not self.terms or any(t.matches(name) or t.matches_key(launch) for t in self.terms)

    @property
    def by_key(self) -> bool:
        """Whether a term names a template instance by its key, which ncu reads only from demangled names."""
        return any(t.instance() is not None for t in self.terms)

    def ncu_name_base(self) -> NameBase:
        """ncu's ``--kernel-name-base`` for these filters: demangled where a term is a key (``by_key``); UsageError
        where a key sits beside a ``NAME`` or ``regex:`` term over function or mangled names, or an ``exact:`` mangled
        name (ncu would count other launches for ``-s`` and ``-c`` than the report keeps)."""
        if not self.by_key or self.base == "demangled":
            return self.base
        loose = [t.text for t in self.terms if t.kind != "exact" or (self.base == "mangled" and t.instance() is None)]
        if loose:
            raise UsageError(f"--kernel {' '.join(repr(t) for t in self.texts)}: a template instance's key (exact:) "
                             f"is profiled by demangled names, which {', '.join(repr(t) for t in loose)} over "
                             f"{self.base} names does not read alike",
                             "give the other kernels as exact: names too, or use --kernel-name-base demangled")
        return "demangled"

    def ncu_kernel_name(self) -> str | None:
        """ncu's ``-k`` value for these filters over the names of ``ncu_name_base``, None without filters."""
        if not self.terms:
            return None
        keyed = self.by_key and self.base != "demangled"
        if len(self.terms) == 1 and not keyed:
            term = self.terms[0]
            if term.kind == "exact" and term.instance() is None and not term.value.startswith(REGEX_PREFIX):
                return term.value
            if term.kind == "regex":
                return REGEX_PREFIX + term.value
        return REGEX_PREFIX + "|".join(t.ncu_regex(self.base, keyed) for t in self.terms)

    def describe(self) -> str:
        """``--kernel 'a' or 'b'``: the filters as given."""
        return "--kernel " + " or ".join(f"'{t}'" for t in self.texts)

    def select(self, report: Report) -> Report:
        """``report`` with only the launches these filters keep; NoKernelMatched naming the nearest kernel
        names (and, for another architecture's library kernel, its counterparts here) when they keep none."""
        if not self.terms:
            return report
        keep = within(REGEX_LIMIT_S, f"{self.describe()} on the names in {report.path}",  # a regex may backtrack
                      lambda: tuple(k for k in report.launches if self.matches(k)))
        if not keep:
            raise NoKernelMatched(f"{report.path}: no kernel matches {self.describe()}", self._no_match_hint(report))
        return replace(report, launches=keep)

    def _no_match_hint(self, report: Report) -> str:
        names = list(dict.fromkeys(self.name_of(k) for k in report.launches))
        shown = (middle_cut(n, SHOWN_NAME_CHARS) for n in nearest(self.terms, names))
        parts = [f"nearest {self.base} names: " + ", ".join(shown)]
        parts += [text for t in self.terms if (text := counterparts(t.value, report, self))]
        return "; ".join(parts) + "; a bare NAME matches part of a name, exact:NAME a whole name, regex:PATTERN a match"


def parse(texts: Sequence[str], base: NameBase = DEFAULT_BASE) -> KernelFilter:
    """Parse ``--kernel`` values (a single string counts as one); UsageError, one line, for an empty
    filter or a regular expression that Python or ncu would refuse or read differently."""
    values = (texts,) if isinstance(texts, str) else tuple(texts)
    return KernelFilter(tuple(_term(text) for text in values), base)


def _term(text: str) -> Term:
    kind: TermKind
    if text.startswith(REGEX_PREFIX):
        kind, value = "regex", text.removeprefix(REGEX_PREFIX)
    elif text.startswith(EXACT_PREFIX):
        kind, value = "exact", text.removeprefix(EXACT_PREFIX)
    else:
        kind, value = "contains", text
    if not value:
        raise UsageError(f"--kernel '{text}': empty filter", "give NAME, exact:NAME or regex:PATTERN")
    if kind == "regex":
        _compiled(value)  # refused here, at parse, where it is no pattern ncu and Python read alike
    return Term(kind, value, text)


@functools.cache
def _instance_function(value: str) -> str | None:
    """The function of a template instance's key ``value``, None for any other name (read once per filter: the
    report's filter asks for every launch)."""
    name = kernel_name("", value)
    return name.function if name.arguments and name.full == value else None


@functools.cache
def _compiled(expr: str) -> re.Pattern[str]:
    """``compile_pattern`` once per pattern (a term keeps its text, not the compiled pattern: equal terms, equal
    values)."""
    return compile_pattern(expr)


def compile_pattern(expr: str) -> re.Pattern[str]:
    """Compile a ``regex:`` pattern; refuse one Python rejects, or one ncu rejects or reads otherwise."""
    for found in _DIVERGENT.finditer(expr):
        key = found["escape"] if found["escape"] is not None else found.lastgroup or ""
        key = "<" if key == ">" else key
        if key in _DIVERGENT_FIXES:
            why, fix = _DIVERGENT_FIXES[key]
            raise UsageError(f"--kernel regex '{expr}': {why}", fix)
    try:
        return re.compile(expr)
    except re.error as err:
        raise UsageError(f"--kernel regex '{expr}': invalid regular expression ({err})",
                         "fix the pattern after regex:") from None


def ncu_escape(name: str) -> str:
    """A literal name as a piece of ncu's (Boost Perl) regular expression, also valid for Python's re."""
    return "".join(f"\\{c}" if c in _NCU_SPECIAL else c for c in name)


def nearest(terms: Sequence[Term], names: Sequence[str], count: int = NEAREST_NAMES) -> list[str]:
    """The ``count`` names most similar to any of the filters (difflib's ratio), most similar first."""
    from difflib import SequenceMatcher

    def score(name: str) -> float:
        matcher = SequenceMatcher(None, "", name, autojunk=False)  # b (the name) is fixed; a takes each filter
        best = 0.0
        for t in terms:
            matcher.set_seq1(t.value)
            best = max(best, matcher.ratio())
        return best

    return sorted(names, key=lambda n: (-score(n), n))[:count]


def counterparts(request: str, report: Report, kernel_filter: KernelFilter) -> str:
    """When ``request`` names a library kernel of another architecture than the report's GPU, which kernels
    of this report do the same work (``roofline.core.kernel_families``); "" otherwise."""
    from roofline.core.kernel_families import architecture, classify, device_sm

    wanted, sm = classify(request), device_sm(report.device.compute_capability)
    if wanted is None or wanted.sm is None or sm is None or architecture(wanted.sm) == architecture(sm):
        return ""
    found: dict[str, bool] = {}  # name -> whether its operand type is known
    for k in report.launches:
        kind = classify(k.name) or classify(k.demangled_name)
        if kind is not None and kind.counterpart_of(wanted):
            found[kernel_filter.name_of(k)] = kind.dtype is not None
    names = [n for n, typed in found.items() if typed] or list(found)
    if not names:
        return ""
    gpu = f"{architecture(sm)} GPU ({report.device.name}, sm_{sm})"
    return f"'{request}' names {wanted.describe()}; their counterparts on this {gpu}: " + ", ".join(names)
