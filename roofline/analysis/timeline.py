"""Pure functions over nsys timelines: the kernels worth profiling, and the MPI ranks side by side (per-rank
totals and the ranks whose GPU busy time strays from the others')."""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Mapping, Sequence

from msgspec import Struct

from roofline.analysis.borrowed import BorrowedWork
from roofline.analysis.streams import StreamsView
from roofline.analysis.time_gap import TimeGap
from roofline.core.choices import NameBase
from roofline.core.kernel_filter import ncu_escape
from roofline.core.thresholds import RANK_OUTLIER_PCT
from roofline.core.timeline import KernelTime, Representative, Timeline
from roofline.core.units import counted, pct, seconds


class RankTotal(Struct, frozen=True):
    """One file of a multi-file timeline (one MPI rank): its totals and how far its busy time is from the median
    of the ranks'."""

    rank: int  # the file's place on the command line
    path: str
    launches: int
    kernel_s: float
    busy_s: float
    span_s: float
    off_median_pct: float  # busy time against the ranks' median busy time, in percent (0 when that median is 0)
    top_kernel: str
    idle_s: float  # the span's time with no kernel running (span - busy, at least 0)
    outlier: bool  # off the median by more than RANK_OUTLIER_PCT


def top_kernels(timeline: Timeline, n: int) -> tuple[KernelTime, ...]:
    """The ``n`` kernels with the most GPU time (the timeline holds them ranked)."""
    return timeline.kernels[:n]


def rank_totals(timelines: Sequence[Timeline]) -> tuple[RankTotal, ...]:
    """Per file: launches, kernel time, busy time, span (summed over its GPUs) and the distance from the median."""
    median = statistics.median(t.busy_s for t in timelines) if timelines else 0.0
    return tuple(_rank(i, t, median) for i, t in enumerate(timelines))


def _rank(i: int, t: Timeline, median: float) -> RankTotal:
    span = sum(d.span_s for d in t.devices)
    off = (t.busy_s / median - 1.0) * 100.0 if median > 0 else 0.0
    return RankTotal(i, t.path, sum(k.count for k in t.kernels), t.kernel_s, t.busy_s, span, off,
                     t.kernels[0].name if t.kernels else "", max(span - t.busy_s, 0.0), abs(off) > RANK_OUTLIER_PCT)


class TimelineSet(Struct, frozen=True):
    """What `roofline timeline` shows: each file's timeline and, for several files (MPI ranks), their totals;
    with --work, the kernels placed on the roofline with an ncu report's work."""

    timelines: tuple[Timeline, ...]
    ranks: tuple[RankTotal, ...]  # empty for one file
    work: BorrowedWork | None = None
    streams: StreamsView | None = None  # the files' GPU work in time; None where not read
    time_gaps: tuple[TimeGap, ...] = ()  # with --work: the kernels whose nsys and ncu times are far apart


def timeline_set(timelines: Sequence[Timeline], work: BorrowedWork | None = None, streams: StreamsView | None = None,
                 time_gaps: Sequence[TimeGap] = ()) -> TimelineSet:
    return TimelineSet(tuple(timelines), rank_totals(timelines) if len(timelines) > 1 else (), work, streams,
                       tuple(time_gaps))


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
