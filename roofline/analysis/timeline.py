"""Pure functions over nsys timelines: the kernels worth profiling, and the MPI ranks side by side (per-rank
totals and the ranks whose GPU busy time strays from the others')."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from roofline.core.thresholds import RANK_OUTLIER_PCT
from roofline.core.timeline import KernelTime, Timeline


@dataclass(frozen=True)
class RankTotal:
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

    @property
    def outlier(self) -> bool:
        return abs(self.off_median_pct) > RANK_OUTLIER_PCT


def top_kernels(timeline: Timeline, n: int) -> tuple[KernelTime, ...]:
    """The ``n`` kernels with the most GPU time (the timeline holds them ranked)."""
    return timeline.kernels[:n]


def rank_totals(timelines: Sequence[Timeline]) -> tuple[RankTotal, ...]:
    """Per file: launches, kernel time, busy time, span (summed over its GPUs) and the distance from the median."""
    median = statistics.median(t.busy_s for t in timelines) if timelines else 0.0
    return tuple(RankTotal(i, t.path, sum(k.count for k in t.kernels), t.kernel_s, t.busy_s,
                           sum(d.span_s for d in t.devices),
                           (t.busy_s / median - 1.0) * 100.0 if median > 0 else 0.0,
                           t.kernels[0].name if t.kernels else "")
                 for i, t in enumerate(timelines))


@dataclass(frozen=True)
class TimelineSet:
    """What `roofline timeline` shows: each file's timeline and, for several files (MPI ranks), their totals."""

    timelines: tuple[Timeline, ...]
    ranks: tuple[RankTotal, ...]  # empty for one file


def timeline_set(timelines: Sequence[Timeline]) -> TimelineSet:
    return TimelineSet(tuple(timelines), rank_totals(timelines) if len(timelines) > 1 else ())
