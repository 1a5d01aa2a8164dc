"""Kernels whose time in nsys and in ncu are far apart (`timeline --work`, `summary --nsys` after `analyze
--from-nsys`), and the likely cause, read from the profile and the report. Pure functions; no I/O.

A kernel is named where nsys's median launch and ncu's launch time differ by more than ``TIME_RATIO_FLAG`` either
way: ncu's median launch of the same instance and launch configuration (`timeline --work`), or ncu's time per
launch of the same kernel matched by name (`summary --nsys`, grid and block then null). The causes looked for,
each on its evidence:

* ``managed_memory_migration`` (nsys slower): unified-memory pages migrated while the kernel ran in the application
  (CUPTI's Unified Host-to-Device/Device-to-Host copies or GPU page faults overlapping its launches); under ncu's
  replay the pages are already on the GPU after the first pass, so ncu times the kernel without them.
* ``ncu_clocks_locked`` (ncu slower): ncu's SM clock during the kernel below ``NCU_CLOCK_LOW`` of the GPU's boost
  clock (ncu locks the clocks to base unless --clock-control none; the application runs at boost).
* ``ncu_cache_flush`` (ncu slower): the kernel's DRAM bytes per launch (ncu) fit in the nsys GPU's L2: ncu flushes
  the caches before each pass and reads them from DRAM, the application may find them in L2.
* ``unexplained``: none of these shows (another build or problem size, concurrent work, throttling).
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from typing import Literal, NamedTuple

from msgspec import Struct

from roofline.analysis.borrowed import BorrowedWork
from roofline.analysis.launches import ReportAnalysis
from roofline.core.kernel_names import kernel_key
from roofline.core.streams import Migration
from roofline.core.thresholds import TIME_RATIO_FLAG
from roofline.ncu import metrics as m

NCU_CLOCK_LOW = 0.9  # ncu's SM clock at or below this share of the boost clock: the clocks were held down
TimeGapCause = Literal["managed_memory_migration", "ncu_clocks_locked", "ncu_cache_flush", "unexplained"]
Dims = tuple[int, int, int]
Config = tuple[str, Dims, Dims]


class TimeGap(Struct, frozen=True):
    """One kernel and launch configuration whose nsys and ncu times differ by more than ``TIME_RATIO_FLAG``, with
    the evidence of each cause looked for."""

    name: str
    short_name: str
    grid: Dims | None  # null where the kernels were matched by name alone (summary --nsys)
    block: Dims | None
    nsys_s: float  # nsys's median launch
    ncu_s: float  # ncu's median launch (summary --nsys: its time per launch)
    nsys_over_ncu: float
    ncu_over_nsys: float  # the same the other way up, as summary --nsys's ncu/nsys column
    slower: Literal["nsys", "ncu"]
    causes: tuple[TimeGapCause, ...]  # the likely ones, most likely first
    launches: int  # nsys's launches of it
    launches_migrating: int | None  # those with a unified-memory migration running (None: the profile has none)
    migrated_bytes: int | None  # the migrations' bytes during its launches
    migration_s: float | None  # the time of its launches under a migration
    page_faults: int | None  # unified-memory GPU page faults during its launches
    ncu_clock_hz: float | None  # the SM clock of ncu's median launch of it
    boost_clock_hz: float | None  # the GPU's boost clock (the spec's, else the report's device attribute)
    dram_bytes: float | None  # DRAM bytes per launch (ncu)
    l2_bytes: int | None  # the nsys GPU's L2


def time_gaps(work: BorrowedWork, analyses: Sequence[ReportAnalysis], moved: Mapping[Config, Migration],
              boost_hz: float | None, l2_bytes: int | None, group_by: str = "kernel") -> tuple[TimeGap, ...]:
    """The matched kernels whose times differ by more than ``TIME_RATIO_FLAG``, by nsys total time."""
    clocks = _ncu_clocks(analyses, group_by)
    out = []
    for k in work.kernels:
        key = (k.name, k.grid, k.block)
        gap = time_gap(Paired(k.name, k.short_name, k.grid, k.block, k.nsys.count, k.time_s, k.ncu_time_s,
                              k.bytes.get("dram")), moved.get(key), bool(moved), clocks.get(key), boost_hz, l2_bytes)
        if gap is not None:
            out.append(gap)
    return tuple(out)


def named_gaps(kernels: Sequence[Paired], analyses: Sequence[ReportAnalysis], moved: Mapping[Config, Migration],
               boost_hz: float | None, l2_bytes: int | None, group_by: str = "kernel") -> tuple[TimeGap, ...]:
    """As ``time_gaps`` for kernels matched by name alone: the migrations and ncu's clocks pooled over the launch
    configurations of each name."""
    pooled: dict[str, Migration] = {}
    for (name, _, _), mig in moved.items():
        had = pooled.get(name, Migration(0, 0, 0, 0.0, 0))
        pooled[name] = Migration(had.launches + mig.launches, had.launches_with + mig.launches_with,
                                 had.bytes + mig.bytes, had.seconds + mig.seconds, had.faults + mig.faults)
    clocks: dict[str, list[float]] = {}
    for (name, _, _), clock in _ncu_clocks(analyses, group_by).items():
        clocks.setdefault(name, []).append(clock)
    gaps = (time_gap(k, pooled.get(k.name), bool(moved),
                     statistics.median(clocks[k.name]) if k.name in clocks else None, boost_hz, l2_bytes)
            for k in kernels)
    return tuple(g for g in gaps if g is not None)


class Paired(NamedTuple):
    """A kernel timed by both tools: nsys's launches and median launch, ncu's time per launch and DRAM bytes."""

    name: str
    short_name: str
    grid: Dims | None
    block: Dims | None
    launches: int
    nsys_s: float
    ncu_s: float | None
    dram_bytes: float | None = None


def time_gap(k: Paired, mig: Migration | None, traced: bool, clock: float | None, boost: float | None,
             l2: int | None) -> TimeGap | None:
    """The kernel's gap and its causes (``traced``: the profile records unified-memory migrations); None within
    ``TIME_RATIO_FLAG``."""
    if k.ncu_s is None or k.ncu_s <= 0 or k.nsys_s <= 0:
        return None
    ratio = k.nsys_s / k.ncu_s
    if 1 / TIME_RATIO_FLAG <= ratio <= TIME_RATIO_FLAG:
        return None
    slower: Literal["nsys", "ncu"] = "nsys" if ratio > 1 else "ncu"
    dram = k.dram_bytes
    causes: list[TimeGapCause] = []
    if slower == "nsys" and mig is not None and (mig.launches_with or mig.faults):
        causes.append("managed_memory_migration")
    if slower == "ncu" and clock and boost and clock <= NCU_CLOCK_LOW * boost:
        causes.append("ncu_clocks_locked")
    if slower == "ncu" and dram is not None and l2 and dram <= l2:
        causes.append("ncu_cache_flush")
    zero = 0 if traced else None
    return TimeGap(k.name, k.short_name, k.grid, k.block, k.nsys_s, k.ncu_s, ratio, k.ncu_s / k.nsys_s, slower,
                   tuple(causes) or ("unexplained",), k.launches,
                   mig.launches_with if mig else zero, mig.bytes if mig else zero,
                   mig.seconds if mig else (0.0 if traced else None), mig.faults if mig else zero,
                   clock, boost, dram, l2)


def _ncu_clocks(analyses: Sequence[ReportAnalysis], group_by: str) -> dict[Config, float]:
    """The median SM clock of the reports' launches per kernel and launch configuration (named as ``borrow_work``
    names them)."""
    clocks: dict[Config, list[float]] = {}
    for la in (la for a in analyses for la in a.valid_launches):
        launch = la.launch
        clock = m.sm_clock_hz(launch).value
        if launch.grid is None or launch.block is None or not clock:
            continue
        name = launch.name if group_by == "function" else kernel_key(launch.name, launch.demangled_name)
        clocks.setdefault((name, launch.grid, launch.block), []).append(clock)
    return {key: statistics.median(v) for key, v in clocks.items()}
