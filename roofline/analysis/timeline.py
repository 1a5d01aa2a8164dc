"""Pure functions over nsys timelines: the kernels worth profiling, and the MPI ranks side by side (per-rank
totals, each file's rank, and the ranks whose GPU busy time strays from the others': where the GPU work lies between
synchronisations, the others wait on a busier one)."""

from __future__ import annotations

import re
import statistics
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import PurePath
from typing import Literal

from msgspec import Struct

from roofline.analysis.borrowed import BorrowedWork
from roofline.analysis.streams import StreamsView
from roofline.analysis.time_gap import TimeGap
from roofline.core.choices import NameBase
from roofline.core.kernel_filter import ncu_escape
from roofline.core.thresholds import RANK_OUTLIER_PCT
from roofline.core.timeline import KernelTime, Representative, Timeline
from roofline.core.units import counted, pct, seconds

Outlier = Literal["slow", "fast"]
RankFrom = str  # a launcher variable of RANK_VARIABLES (PMI_RANK, ...), or one of FILE_NAME and ORDER
FILE_NAME = "file_name"  # the rank is the number that tells the files' names apart
ORDER = "order"  # no rank known: the files in the order given
_RANK_WORD = re.compile(r"(?<![a-z])rank[-_.]?(\d+)", re.IGNORECASE)  # "x-rank1_2021.2.qdrep", "app.rank3.node"
_NUMBER = re.compile(r"\d+")


class RankTotal(Struct, frozen=True):
    """One file of a multi-file timeline (one MPI rank): its totals and how far its busy time is from the other
    ranks'."""

    rank: int | None  # the file's MPI rank (``rank_from`` says how it is known); None where it is not known
    rank_from: RankFrom
    file: int  # the file's place on the command line, from 0: its timeline in ``TimelineSet.timelines``
    path: str
    launches: int
    kernel_s: float
    busy_s: float
    span_s: float
    off_others_pct: float  # busy time against the median busy time of the other ranks, in percent (0 when it is 0)
    top_kernel: str
    idle_s: float  # the span's time with no kernel running (span - busy, at least 0)
    outlier: Outlier | None  # slow: above the others by more than RANK_OUTLIER_PCT, fast: below; else None


def top_kernels(timeline: Timeline, n: int) -> tuple[KernelTime, ...]:
    """The ``n`` kernels with the most GPU time (the timeline holds them ranked)."""
    return timeline.kernels[:n]


def rank_totals(timelines: Sequence[Timeline],
                rank_variables: Sequence[Mapping[str, int]] = ()) -> tuple[RankTotal, ...]:
    """Per file: launches, kernel time, busy time, span (summed over its GPUs) and the distance from the other
    ranks' median busy time, by rank (``known_ranks``; ``rank_variables``: each file's launcher variables)."""
    ranks, source = known_ranks([t.path for t in timelines], rank_variables)
    busy = [t.busy_s for t in timelines]
    totals = [_rank(i, t, ranks[i], source, _others_median(busy, i)) for i, t in enumerate(timelines)]
    return tuple(sorted(totals, key=lambda r: (r.file if r.rank is None else r.rank, r.file)))


def rank_order(paths: Sequence[str], rank_variables: Sequence[Mapping[str, int]] = ()) -> list[int]:
    """The files' positions in rank order (``known_ranks``); the order given where no rank is known."""
    ranks, _ = known_ranks(paths, rank_variables)
    return sorted(range(len(paths)), key=lambda i: (ranks[i] if ranks[i] is not None else i, i))


def known_ranks(paths: Sequence[str],
                rank_variables: Sequence[Mapping[str, int]] = ()) -> tuple[list[int | None], RankFrom]:
    """Each file's MPI rank and how it is known: the first launcher variable that every file's environment holds
    with a value of its own (``rank_variables``, one mapping per file); else a number of its own in every file's
    name, then path (``name_ranks``); else none (ORDER)."""
    if rank_variables and len(rank_variables) == len(paths):
        for variable in rank_variables[0]:
            values = [v.get(variable) for v in rank_variables]
            if None not in values and len(set(values)) == len(values):
                return values, variable
    for texts in ([PurePath(p).name for p in paths], list(paths)):
        found = name_ranks(texts)
        if found is not None:
            return list(found), FILE_NAME
    return [None] * len(paths), ORDER


def name_ranks(names: Sequence[str]) -> list[int] | None:
    """The ranks the names carry, each a different one: the number after "rank" where every name has one
    ("x-rank1_2021.2.qdrep"), else the one number by which the names differ ("app.10.sqlite" beside
    "app.2.sqlite"); None where neither tells every name apart."""
    said = [_RANK_WORD.findall(n) for n in names]
    candidates = [[int(s[0]) for s in said]] if all(len(s) == 1 for s in said) else []
    numbers = [_NUMBER.findall(n) for n in names]
    if len({len(n) for n in numbers}) == 1:
        varying = [j for j in range(len(numbers[0])) if len({int(n[j]) for n in numbers}) > 1]
        if len(varying) == 1:
            candidates.append([int(n[varying[0]]) for n in numbers])
    return next((c for c in candidates if len(set(c)) == len(c)), None)


def _others_median(busy: Sequence[float], i: int) -> float:
    """The median busy time of the ranks other than ``i``: what rank ``i`` is held against (for two ranks, the
    other one's)."""
    others = [*busy[:i], *busy[i + 1:]]
    return statistics.median(others) if others else 0.0


def _rank(i: int, t: Timeline, rank: int | None, source: RankFrom, others: float) -> RankTotal:
    span = sum(d.span_s for d in t.devices)
    off = (t.busy_s / others - 1.0) * 100.0 if others > 0 else 0.0
    outlier: Outlier | None = "slow" if off > RANK_OUTLIER_PCT else "fast" if off < -RANK_OUTLIER_PCT else None
    return RankTotal(rank, source, i, t.path, sum(k.count for k in t.kernels), t.kernel_s, t.busy_s, span, off,
                     t.kernels[0].name if t.kernels else "", max(span - t.busy_s, 0.0), outlier)


class TimelineSet(Struct, frozen=True):
    """What `roofline timeline` shows: each file's timeline and, for several files (MPI ranks), their totals
    (by rank); with --work, the kernels placed on the roofline with an ncu report's work."""

    timelines: tuple[Timeline, ...]
    ranks: tuple[RankTotal, ...]  # empty for one file
    work: BorrowedWork | None = None
    streams: StreamsView | None = None  # the files' GPU work in time; None where not read
    time_gaps: tuple[TimeGap, ...] = ()  # with --work: the kernels whose nsys and ncu times are far apart

    def rank_of(self, file: int) -> RankTotal | None:
        """The totals of the file at this place on the command line (None for one file)."""
        return next((r for r in self.ranks if r.file == file), None)


def timeline_set(timelines: Sequence[Timeline], work: BorrowedWork | None = None, streams: StreamsView | None = None,
                 time_gaps: Sequence[TimeGap] = (),
                 rank_variables: Sequence[Mapping[str, int]] = ()) -> TimelineSet:
    """The timelines with, for several, their ranks (``rank_variables``: each file's launcher rank variables,
    ``nsys.load.Loaded.rank_variables``)."""
    return TimelineSet(tuple(timelines), rank_totals(timelines, rank_variables) if len(timelines) > 1 else (), work,
                       streams, tuple(time_gaps))


class NcuTarget(Struct, frozen=True):
    """One ncu run that `analyze --from-nsys` plans: the kernels it selects (ncu -k, ``kernel_regex``) and which of
    their launches (--launch-skip, --launch-count), with why those."""

    kernels: tuple[KernelTime, ...]
    launch_skip: int | None  # None: from the first matching launch
    launch_count: int
    why: str

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(k.name for k in self.kernels)


def name_base(timeline: Timeline, top: int) -> NameBase:
    """ncu's --kernel-name-base for the top kernels: "demangled" where one of them shares its short name with
    another kernel of the timeline (two instances of one template: only the demangled name tells them apart),
    else "function"."""
    if timeline.group_by == "function":
        return "function"
    shared = {f for f, n in Counter(k.function for k in timeline.kernels).items() if n > 1}
    return "demangled" if any(k.function in shared for k in top_kernels(timeline, top)) else "function"


NSYS_CUT = "..."  # the end of a name an older nsys cut short (the 2020.3 exports' OpenMP offload kernels)


def kernel_regex(kernels: Sequence[KernelTime], base: str) -> str:
    """ncu's -k for these kernels, anchored, names escaped (``literal``): their short names for the "function"
    base; for "demangled", a template instance by its scope, function and template arguments, a plain function by
    its name in any scope, either with any return type "void " and parameter list after it (ncu's demangled names
    read "void ns::f<T>(T *)" and "f(int)")."""
    if base == "function":
        parts = [literal(k.function) for k in kernels]
    else:
        parts = [f"(?:void )?{literal(k.name)}(?:\\(.*)?" if k.name != k.function
                 else f"(?:void )?(?:.*::)?{literal(k.function)}(?:\\(.*)?" for k in kernels]
    return "regex:^(?:" + "|".join(parts) + ")$"


def literal(name: str) -> str:
    """A name as a piece of ncu's regex: escaped, and where nsys cut it short (``NSYS_CUT``), any rest after it."""
    return ncu_escape(name.removesuffix(NSYS_CUT)) + ".*" if is_cut(name) else ncu_escape(name)


def is_cut(name: str) -> bool:
    """Whether nsys cut a kernel's name short: it ends in ``NSYS_CUT`` after more than that."""
    return name.endswith(NSYS_CUT) and len(name) > len(NSYS_CUT)


def ncu_targets(timeline: Timeline, top: int, reps: Mapping[str, Representative]) -> tuple[NcuTarget, ...]:
    """The ncu runs that profile one representative launch of each of the ``top`` kernels: a single run when each
    was launched once (an alternation of their names, as many launches as kernels), else one run per kernel that
    skips to its median-duration launch, counted among that kernel's own launches (ncu takes one -k and one
    --launch-skip per run, and counts --launch-skip over the launches -k matches)."""
    kernels = top_kernels(timeline, top)
    if all(k.count == 1 for k in kernels):
        return (NcuTarget(tuple(kernels), None, len(kernels),
                          f"each of the {len(kernels)} kernels was launched once: one run profiles them all"
                          + _cut_note(kernels)),)
    return tuple(NcuTarget((k,), reps[k.name].launch_index, 1, _why(timeline, k, reps[k.name])) for k in kernels)


def profiling_summary(timeline: Timeline, top: int) -> str:
    """What `analyze --from-nsys` profiles, in a line: the kernels chosen and their share of the GPU time."""
    kernels = top_kernels(timeline, top)
    share = sum(k.total_s for k in kernels) / timeline.busy_s * 100 if timeline.busy_s > 0 else 0.0
    return (f"{timeline.path}: the top {len(kernels)} of {len(timeline.kernels)} kernels by GPU time, "
            f"{pct(share)} of the GPU busy time, one representative launch each")


def _why(timeline: Timeline, k: KernelTime, rep: Representative) -> str:
    share = dict(zip(timeline.kernels, timeline.shares, strict=True))[k]
    return (f"{k.name}: {pct(share * 100)} of the GPU busy time in {counted(k.count, 'launch')}; launch "
            f"{rep.launch_index + 1} (by launch order) is the median-duration one, {seconds(rep.duration_s)} in nsys"
            + _cut_note([k]))


def _cut_note(kernels: Sequence[KernelTime]) -> str:
    """What -k matches where nsys cut names short: every kernel whose name begins with the part it kept."""
    cut = [k.function for k in kernels if is_cut(k.function) or is_cut(k.name)]
    return (f"; nsys cut {', '.join(cut)} short: -k matches every kernel whose name begins with the part it kept"
            if cut else "")
