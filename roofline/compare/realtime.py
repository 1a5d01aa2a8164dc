"""The whole application's roofline in real time: ncu reports of an application weighted by the Nsight Systems
timeline of the same application (``roofline summary --nsys``). Pure functions; no I/O.

ncu says how far each kernel is from its roof, but its times are not the application's: ncu replays a kernel
several times, by default with the clocks locked to base and the caches flushed before each pass, and profiles
only the launches it was told to. nsys times every launch as it ran. So each analysed kernel keeps ncu's share of
its time above the roof (recoverable / ncu time) and gets nsys's total time: recoverable real time = nsys total x
that share. Both sides group launches alike: by kernel instance (``core.kernel_names.kernel_key`` of the function
and demangled names: two instances of one template apart) or, with ``by="function"``, by function name. Kernels are
matched by that name, exactly, else with the numbers in the names masked (compilers put
source lines there: OpenACC's ``set_halo_values_x_395_gpu`` in one build is ``_396_gpu`` in the next), pairing the
names of one masked group in order of their numbers when both tools hold as many of them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from msgspec import Struct

from roofline.analysis.kernels import aggregate
from roofline.analysis.launches import ReportAnalysis
from roofline.analysis.roofline import group_by_kernel
from roofline.analysis.time_gap import TimeGap
from roofline.core.choices import GroupBy
from roofline.core.thresholds import TIME_RATIO_FLAG
from roofline.core.timeline import KernelTime, Timeline

NUMBER = re.compile(r"\d+")
TIMES_DIFFER = ("ncu's times are its replays (clocks locked to base unless --clock-control none, caches flushed "
                "before each pass, only the launches profiled); nsys's are the application's run (its clocks and "
                "caches, every launch). Recoverable real time = nsys total x ncu's share of the kernel's time above "
                "its roof; ncu/nsys compares ncu's time per launch with nsys's median launch.")


class NcuKernel(Struct, frozen=True):
    """One kernel's launches over the ncu reports (an instance, or a function's with ``by="function"``): their
    time, recoverable time and where they sit."""

    name: str
    launches: int
    total_s: float | None  # None where no launch has a time
    recoverable_s: float | None  # None where no launch has a roof position or throughput
    small_grid_s: float | None  # None where no launch has both a time and a verdict
    bound: str | None
    pct_of_roof: float | None
    function: str = ""  # the function (short) name; "" means the same as ``name``


class RealKernel(Struct, frozen=True):
    """An analysed kernel with its real time from nsys."""

    ncu: NcuKernel
    nsys: KernelTime
    matched_by: str  # "name", or "numbers masked: PATTERN"
    app_share: float  # of the application's kernel time (nsys)
    recoverable_share: float | None = None  # the share of ncu's time for this kernel above its roof
    recoverable_real_s: float | None = None  # that share of its real (nsys) time
    ncu_per_launch_s: float | None = None  # ncu's time per launch
    ncu_over_nsys: float | None = None  # ncu's time per launch over nsys's median (above 1: ncu's replays slower)


def real_kernel(ncu: NcuKernel, nsys: KernelTime, matched_by: str, app_share: float) -> RealKernel:
    """A ``RealKernel`` with its figures: the recoverable share of ncu's time, that share of the real time, and
    ncu's time per launch against nsys's median."""
    r, total = ncu.recoverable_s, ncu.total_s
    share = r / total if r is not None and total else None
    per_launch = total / ncu.launches if total is not None and ncu.launches else None
    return RealKernel(ncu, nsys, matched_by, app_share, share, None if share is None else share * nsys.total_s,
                      per_launch, per_launch / nsys.median_s if per_launch is not None and nsys.median_s > 0 else None)


class RealTimeView(Struct, frozen=True):
    """The analysed kernels ranked by recoverable real time, what share of the application they cover, and the
    kernels of either tool the other lacks."""

    timeline: Timeline
    reports: tuple[str, ...]
    ncu_devices: tuple[str, ...]
    kernels: tuple[RealKernel, ...]
    unmatched_ncu: tuple[str, ...]
    unmatched_nsys: tuple[KernelTime, ...]  # by total time, largest first
    unmatched_nsys_shares: tuple[float, ...] = ()  # each one's share of the application's kernel time (nsys)
    time_gaps: tuple[TimeGap, ...] = ()  # the kernels whose nsys and ncu times differ by over 2x, with the cause
    analysed_share: float = 0.0  # the matched kernels' share of the application's kernel time (nsys)
    recoverable_real_s: float | None = None  # the kernels' recoverable real time summed; None: none known

    @property
    def notes(self) -> tuple[str, ...]:
        nsys_gpus = sorted({d.name for d in self.timeline.devices if d.name})
        notes = [TIMES_DIFFER]
        if nsys_gpus and self.ncu_devices and set(nsys_gpus) != set(self.ncu_devices):
            notes.append(f"the nsys profile ran on {', '.join(nsys_gpus)}, the ncu reports on "
                         f"{', '.join(self.ncu_devices)}: the real times are another GPU's")
        explained = {g.name for g in self.time_gaps if g.causes != ("unexplained",)}  # their cause is named
        apart = [k.ncu.name for k in self.kernels if k.ncu_over_nsys is not None and k.nsys.name not in explained
                 and not 1 / TIME_RATIO_FLAG <= k.ncu_over_nsys <= TIME_RATIO_FLAG]
        if apart:
            notes.append(f"ncu's time per launch is more than {TIME_RATIO_FLAG:g}x apart from nsys's median for "
                         f"{', '.join(apart)}: replay and base clocks rarely explain that much; check that the ncu "
                         "reports and the nsys profile ran the same build and problem size")
        return tuple(notes)


def weigh(analyses: Sequence[ReportAnalysis], timeline: Timeline) -> RealTimeView:
    """Match the reports' kernels with the timeline's (grouped as the timeline is) and weigh each by its real
    time."""
    ncu = ncu_kernels(analyses, "function" if timeline.group_by == "function" else "kernel")
    by_name = {k.name: k for k in timeline.kernels}
    pairs = match_names([k.name for k in ncu], list(by_name))
    total = timeline.kernel_s
    kernels = [real_kernel(k, by_name[pairs[k.name][0]], pairs[k.name][1],
                           by_name[pairs[k.name][0]].total_s / total if total > 0 else 0.0)
               for k in ncu if k.name in pairs]
    kernels.sort(key=lambda k: (k.recoverable_real_s is None, -(k.recoverable_real_s or 0.0), -k.nsys.total_s))
    known = [k.recoverable_real_s for k in kernels if k.recoverable_real_s is not None]
    recovered = sum(known) if known else None
    matched = {nsys for nsys, _ in pairs.values()}
    unmatched = tuple(k for k in timeline.kernels if k.name not in matched)
    return RealTimeView(timeline, tuple(a.report.path for a in analyses),
                        tuple(dict.fromkeys(a.report.device.name for a in analyses)), tuple(kernels),
                        tuple(k.name for k in ncu if k.name not in pairs), unmatched,
                        tuple(k.total_s / total if total > 0 else 0.0 for k in unmatched),
                        analysed_share=sum(k.app_share for k in kernels), recoverable_real_s=recovered)


def ncu_kernels(analyses: Sequence[ReportAnalysis], by: GroupBy = "kernel") -> list[NcuKernel]:
    """The reports' launches grouped by kernel instance (or function name, ``by``); a kernel in several reports is
    summed, and placed by the report where it took the most time."""
    found: dict[str, list[NcuKernel]] = {}
    for a in analyses:
        for g in group_by_kernel(a.valid_launches, a.total_time_s, by):
            stats = aggregate(g.launches)
            found.setdefault(g.name, []).append(NcuKernel(g.name, len(g.launches), g.total_s, g.recoverable_s,
                                                          g.small_grid_s, stats.verdict.bound,
                                                          stats.roof.pct_of_roof, g.functions[0]))
    out = []
    for name, parts in found.items():
        main = max(parts, key=lambda p: p.total_s or 0.0)
        times = [p.total_s for p in parts if p.total_s is not None]
        saved = [p.recoverable_s for p in parts if p.recoverable_s is not None]
        small = [p.small_grid_s for p in parts if p.small_grid_s is not None]
        out.append(NcuKernel(name, sum(p.launches for p in parts), sum(times) if times else None,
                             sum(saved) if saved else None, sum(small) if small else None, main.bound,
                             main.pct_of_roof, main.function))
    return out


def match_names(ncu: Sequence[str], nsys: Sequence[str]) -> dict[str, tuple[str, str]]:
    """ncu name -> (nsys name, how): the same name; else the same name with its numbers masked, paired in the
    order of their numbers within a masked group that holds as many names on both sides."""
    nsys_set = set(nsys)
    pairs = {n: (n, "name") for n in ncu if n in nsys_set}
    left = [n for n in ncu if n not in pairs]
    right = [n for n in nsys if n not in {m for m, _ in pairs.values()}]
    for masked, ours in _masked_groups(left).items():
        theirs = _masked_groups(right).get(masked, [])
        if len(ours) == len(theirs):
            for a, b in zip(sorted(ours, key=_numbers), sorted(theirs, key=_numbers), strict=True):
                pairs[a] = (b, f"numbers masked: {masked}")
    return pairs


def _masked_groups(names: Sequence[str]) -> dict[str, list[str]]:
    groups: dict[str, list[str]] = {}
    for name in names:
        groups.setdefault(NUMBER.sub("#", name), []).append(name)
    return groups


def _numbers(name: str) -> tuple[int, ...]:
    return tuple(int(n) for n in NUMBER.findall(name))
