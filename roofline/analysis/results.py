"""The results of an analysis as plain frozen dataclasses: what the analysis, the diagnostics and the advice
compute, and what the comparisons and renderers read.

Only types live here (and the properties that read them), so the modules that fill them in do not import
each other and every renderer imports its types from one place. Numbers are in SI base units; "not
measured" is None with its reason beside it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, overload

from roofline.core.cohorts import largest, picker
from roofline.core.model import Ceilings, CeilingSet, Device, KernelLaunch, Report

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

    from roofline.ncu.metrics import Measured

Bound = Literal["compute", "memory", "balanced", "latency", "small_grid"]  # the verdict (roofline.analysis.verdict)
VerdictBasis = Literal["throughput", "roofline"]  # ncu's SpeedOfLight throughputs, or the FP/byte roofs alone
Side = Literal["compute", "memory"]
TensorStatus = Literal["used", "not used", "negligible", "no Tensor Cores", "not measured"]
AdviceKind = Literal["measurement", "memory", "compute", "balanced", "precision", "tensor_cores", "waves",
                     "small_grid", "occupancy", "latency", "stalls", "launch_overhead", "library", "ncu_rule"]
AdviceSource = Literal["roofline", "verdict", "occupancy", "tensor_cores", "stalls", "library", "ncu"]


@dataclass(frozen=True)
class Value:
    """A number in SI base units, or None with the reason (missing metrics and the fix)."""

    value: float | None
    reason: str = ""
    via: str = ""

    @classmethod
    def of(cls, measured: Measured) -> Value:
        return cls(measured.value, measured.reason, measured.via)


@dataclass(frozen=True)
class RoofPosition:
    """Where a launch sits against one set of ceilings (the FP and byte roofs; the verdict is ``Verdict``)."""

    ceilings: CeilingSet
    pct_of_roof: float | None
    limiter: str | None  # the roof closest to the launch: a precision ("fp32") or a level ("dram")
    utilization_pct: Mapping[str, float]  # per precision and level: achieved / peak x 100
    reason: str = ""  # why pct_of_roof is None, or what it leaves out


@dataclass(frozen=True)
class BusyUnit:
    """One unit of the GPU and how busy it was: percent of its peak over the elapsed time."""

    name: str  # human name: "FP64 pipe", "DRAM", "issue slots", "FP32 roof", ...
    pct: float
    side: Side
    metric: str  # the breakdown metric (or the roof key, for a roofline-only verdict)


@dataclass(frozen=True)
class Verdict:
    """The bottleneck of a launch over every unit (``roofline.analysis.verdict``). ``bound`` is None with ``reason``
    when the report can decide nothing; for a roofline-only verdict ``reason`` says what it leaves out."""

    bound: Bound | None
    basis: VerdictBasis | None
    sm_pct: float | None = None  # sm__throughput, percent of peak (elapsed)
    memory_pct: float | None = None  # gpu__compute_memory_throughput, percent of peak (elapsed)
    waves_per_sm: float | None = None
    busiest: BusyUnit | None = None  # the busiest unit of the deciding side (of both when neither decides)
    top_units: tuple[BusyUnit, ...] = ()  # the busiest units of both sides, busiest first
    ncu_title: str = ""  # the title ncu's SOLBottleneck rule gives these numbers
    reason: str = ""

    @property
    def attained_pct(self) -> float | None:
        """How close the busiest unit is to its peak (the larger throughput), None when not measured."""
        known = [v for v in (self.sm_pct, self.memory_pct) if v is not None]
        return largest(known) if known else None  # per launch over a cohort's arrays too


# --- Diagnostics --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class WhatIf:
    """One change to the launch and the resident blocks and theoretical occupancy it would give."""

    change: str
    blocks_per_sm: int
    theoretical_pct: float
    text: str


@dataclass(frozen=True)
class Occupancy:
    """Occupancy of one launch (``diagnostics.occupancy``). Percentages are of the SM's maximum resident
    warps; None = not measured (reason in ``missing``)."""

    theoretical_pct: float | None
    achieved_pct: float | None
    limits: Mapping[str, int]  # ncu's launch__occupancy_limit_*: resident blocks per SM each resource allows
    limiters: tuple[str, ...]  # the resources at the minimum (ties together)
    blocks_per_sm: int | None
    warps_per_block: int | None
    waves_per_sm: float | None
    tail_idle_pct: float | None  # share of block slots idle over the run, equal block durations assumed
    derived_limits: Mapping[str, int] = field(default_factory=dict)  # re-derived at this launch's carveout
    what_if: tuple[WhatIf, ...] = ()
    findings: tuple[str, ...] = ()
    missing: Mapping[str, str] = field(default_factory=dict)

    @property
    def gap_pts(self) -> float | None:
        """Theoretical minus achieved occupancy in percentage points."""
        if self.theoretical_pct is None or self.achieved_pct is None:
            return None
        return self.theoretical_pct - self.achieved_pct


@dataclass(frozen=True)
class TensorCores:
    """Tensor Core use of one launch (``diagnostics.tensor_cores``). Percentages are of the pipe's peak;
    None = not measured."""

    status: TensorStatus
    arch: str | None
    families: Mapping[str, float] = field(default_factory=dict)  # MMA family -> % of peak issue rate
    flops_by_type: Mapping[str, float] = field(default_factory=dict)  # source type -> tensor FLOPs
    pipe_active_pct: float | None = None  # while SMs were active
    pipe_elapsed_pct: float | None = None  # over the whole GPU and duration
    flop_share: float | None = None  # tensor FLOPs / all FLOPs (0..1)
    matmul_like: str = ""  # why the kernel looks like a matrix multiply ("" if it does not)
    findings: tuple[str, ...] = ()
    warning: str = ""
    advice: str = ""  # what to do about the warning, with its numbers
    roof_ratio: float | None = None  # the roof the advice points to over the CUDA-core roof
    reason: str = ""  # why the status is NOT_MEASURED
    missing: Mapping[str, str] = field(default_factory=dict)  # why a None number above is None


@dataclass(frozen=True)
class WarpStalls:
    """What the warps of a launch wait on (``diagnostics.stalls``): stall reasons, busiest first, and how
    well the schedulers issue. None = not measured (reason in ``missing``)."""

    reasons: tuple[tuple[str, float, float], ...]  # (reason, value, share of all stalls 0..1), largest first
    source: str  # "cycles per issued instruction" or "PC samples", or "" when none was measured
    issue_active_pct: float | None = None  # issue slots used while the SM was active, percent
    eligible_per_scheduler: float | None = None  # warps ready to issue, per scheduler and cycle
    active_per_scheduler: float | None = None  # resident warps per scheduler
    missing: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Advice:
    """One recommendation for a launch (``roofline.analysis.advice``): what to do, the condition that made it apply, the
    measurement behind it and which analysis produced it. ``est_saved_s`` is the time it could save and
    ``estimate`` how that was obtained (or why there is none)."""

    kind: AdviceKind
    title: str
    text: str  # the recommendation, naming its numbers
    cause: str  # the measured cause, e.g. "DRAM at 90.0% of its roof"
    source: AdviceSource
    est_saved_s: float | None = None
    condition: str = ""  # why it applies, e.g. "verdict memory and DRAM the busiest unit"
    estimate: str = ""  # how est_saved_s was obtained, or why it is None


# --- Launches, kernels, reports -----------------------------------------------------------------------
@dataclass(frozen=True)
class LaunchAnalysis:
    """Roofline results of one kernel launch, with its diagnostics and advice once the pipeline added them."""

    launch: KernelLaunch
    duration_s: Value
    flops: Mapping[str, Value]
    flop_per_s: Mapping[str, Value]
    tensor_flops_by_type: Mapping[str, float]
    bytes: Mapping[str, Value]
    bytes_per_s: Mapping[str, Value]
    intensity: Mapping[str, Value]
    definitions: Mapping[str, str]
    ceilings: Mapping[CeilingSet, Ceilings]  # "measured-clock", "kernel-clock" and, when the GPU is known, "datasheet"
    roof: RoofPosition
    verdict: Verdict = Verdict(None, None, reason="not decided")
    time_share: float | None = None
    flags: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    occupancy: Occupancy | None = None
    tensor_cores: TensorCores | None = None
    stalls: WarpStalls | None = None
    advice: tuple[Advice, ...] = ()
    l2_total_bytes: Value = Value(None, "not read")  # all L2 traffic, stores included (lts__t_sectors x 32)
    level_notes: tuple[str, ...] = ()  # levels whose definition counts one direction only and look inverted

    @property
    def total_flops(self) -> float | None:
        """All measured FLOPs (CUDA cores and Tensor Cores); None if no precision was measured."""
        known = [v.value for v in self.flops.values() if v.value is not None]
        return sum(known) if known else None

    @property
    def main_precision(self) -> str | None:
        """The precision with the most FLOPs (its ceiling is the one the launch is drawn against)."""
        known = {p: v.value for p, v in self.flops.items() if v.value}
        return max(known, key=lambda p: known[p] or 0.0) if known else None


# --- Every launch of a report, by column ------------------------------------------------------------------
@dataclass(frozen=True)
class Figure:
    """One ``Value`` of every launch, by column: the numbers (NaN where None), the reasons and how each was got."""

    values: np.ndarray
    reasons: np.ndarray
    vias: np.ndarray



@dataclass(frozen=True)
class Columns:
    """The figures the groups, rankings and comparisons read, one element per launch of the report (NaN and
    None where a launch has none): what ``roofline.analysis.roofline`` computed and the inputs of the pooled verdict
    (``verdict.pooled_verdict``: each launch's throughputs, or why it has none)."""

    duration: Figure
    flops: Mapping[str, Figure]
    bytes: Mapping[str, Figure]
    pct_of_roof: np.ndarray
    bound: np.ndarray  # the verdict's bound (None where undecided)
    attained: np.ndarray  # Verdict.attained_pct
    recoverable: np.ndarray  # analysis.recoverable_time
    small_grid: np.ndarray  # analysis.small_grid_time
    no_throughputs: np.ndarray  # why a launch has no SpeedOfLight throughputs ("" where it has them)
    sm_pct: np.ndarray
    memory_pct: np.ndarray
    waves: np.ndarray
    units: Mapping[str, tuple[str, Side, np.ndarray]]  # breakdown unit metric -> (name, side, percent of peak)
    instructions: np.ndarray
    threads: np.ndarray  # threads launched (grid x block)
    invalid: np.ndarray  # bool: the launch is kept but left out (KernelLaunch.invalid)


class LaunchTable:
    """The analysis of every launch of a report: its columns, and each launch's ``LaunchAnalysis`` built when
    first read (from its cohort's result, ``roofline.core.cohorts``), then completed by ``finish`` when given; rows
    in ``known`` (by position) were built and completed before and are taken as they are."""

    def __init__(self, launches: Sequence[KernelLaunch], parts: Sequence[tuple[Sequence[int], Any]],
                 columns: Columns, finish: Callable[[LaunchAnalysis], LaunchAnalysis] | None = None,
                 known: Mapping[int, LaunchAnalysis] | None = None) -> None:
        import numpy as np

        self.launches = tuple(launches)
        self.columns = columns
        self._part = np.zeros(len(self.launches), dtype=np.intp)  # launch -> its part and its place in the part
        self._place = np.zeros(len(self.launches), dtype=np.intp)
        for number, (rows, _) in enumerate(parts):
            self._part[np.asarray(rows, dtype=np.intp)] = number
            self._place[np.asarray(rows, dtype=np.intp)] = np.arange(len(rows))
        self._results = [result for _, result in parts]
        self._pickers: dict[int, Callable[[int], Any]] = {}  # per part, planned when a launch of it is first read
        self._finish = finish
        self._rows: dict[int, LaunchAnalysis] = dict(known or {})  # ``known``: rows built and finished already

    def __getstate__(self) -> dict[str, Any]:
        """What pickle sends from a worker: all but the plans (closures, which do not pickle; made again on use)."""
        return {**self.__dict__, "_pickers": {}}

    def row(self, i: int) -> LaunchAnalysis:
        """Launch ``i``'s analysis (in report order)."""
        if i not in self._rows:
            part = int(self._part[i])
            if part not in self._pickers:
                self._pickers[part] = picker(self._results[part])
            a: LaunchAnalysis = self._pickers[part](int(self._place[i]))
            self._rows[i] = self._finish(a) if self._finish is not None and not a.launch.invalid else a
        return self._rows[i]

    @property
    def built(self) -> int:
        """How many launches' analyses have been built so far."""
        return len(self._rows)

    def complete(self) -> None:
        """Build every launch's analysis now (``finish`` need not travel to another process then)."""
        for i in range(len(self.launches)):
            self.row(i)
        self._finish = None

    def view(self, indices: np.ndarray | Sequence[int]) -> Launches:
        """Some launches, by position."""
        import numpy as np

        return Launches(self, np.asarray(indices, dtype=np.intp))

    def all(self) -> Launches:
        """Every launch, in report order."""
        import numpy as np

        return Launches(self, np.arange(len(self.launches), dtype=np.intp))


class Launches(Sequence["LaunchAnalysis"]):
    """Launches of one report (all, the valid ones or a group's) as a sequence of ``LaunchAnalysis`` built as they
    are read; ``indices`` are their positions in the report and ``table`` holds their columns."""

    def __init__(self, table: LaunchTable, indices: np.ndarray) -> None:
        self.table = table
        self.indices = indices

    def __len__(self) -> int:
        return len(self.indices)

    @overload
    def __getitem__(self, k: int) -> LaunchAnalysis: ...

    @overload
    def __getitem__(self, k: slice) -> list[LaunchAnalysis]: ...

    def __getitem__(self, k: int | slice) -> LaunchAnalysis | list[LaunchAnalysis]:
        if isinstance(k, slice):
            return [self.table.row(i) for i in self.indices[k].tolist()]
        return self.table.row(int(self.indices[k]))

    def __iter__(self) -> Iterator[LaunchAnalysis]:
        return (self.table.row(i) for i in self.indices.tolist())

    def __repr__(self) -> str:
        return f"Launches({len(self)} of {len(self.table.launches)})"

    def __eq__(self, other: object) -> bool:
        """The same analyses in the same order (each is built to compare)."""
        return isinstance(other, Launches) and len(self) == len(other) and all(
            a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]  # equal by content, which is not hashable

    @property
    def times(self) -> np.ndarray:
        """Each launch's duration in seconds, 0 where it has none (as ``duration or 0.0`` reads it)."""
        import numpy as np

        return np.nan_to_num(self.table.columns.duration.values[self.indices], nan=0.0)

    @property
    def kernel_launches(self) -> list[KernelLaunch]:
        """The model's launches, without building their analyses."""
        return [self.table.launches[i] for i in self.indices.tolist()]

    def where(self, mask: np.ndarray) -> Launches:
        """The launches where ``mask`` (over these launches) is true."""
        return Launches(self.table, self.indices[mask])


@dataclass(frozen=True)
class KernelGroup:
    """Launches grouped by kernel name (or NVTX range): count, time, spread, and recoverable time.

    ``recoverable_s`` is the sum over launches of ``analysis.recoverable_s``: the time the group would save
    with its busiest unit (or roof) at its peak. Small-grid launches (too few blocks to fill the GPU) are not
    held back by a unit's peak: their time is ``small_grid_s``, not counted as recoverable. Launches with neither a
    throughput nor a roof position are not counted.
    """

    name: str
    launches: Launches
    total_s: float | None
    median_s: float | None
    min_s: float | None
    max_s: float | None
    time_share: float | None
    median_pct_of_roof: float | None
    recoverable_s: float | None = None
    small_grid_s: float = 0.0

    @property
    def longest(self) -> LaunchAnalysis:
        """The group's longest launch (the first of equals): the one a kernel's section and advice describe."""
        import numpy as np

        return self.launches[int(np.argmax(self.launches.times))]


@dataclass(frozen=True)
class ReportAnalysis:
    """The analysis of one report: device, matched spec, each launch, and launches grouped by kernel."""

    report: Report
    spec_id: str | None
    spec_match: str
    ceilings_used: CeilingSet
    launches: Launches
    groups: tuple[KernelGroup, ...] = field(default=())
    total_time_s: float | None = None

    @property
    def device(self) -> Device:
        return self.report.device

    @property
    def valid_launches(self) -> Launches:
        """The launches that are analysed: all but those marked invalid (kept in ``launches`` to be shown)."""
        return self.launches.where(~self.launches.table.columns.invalid[self.launches.indices])


@dataclass(frozen=True)
class KernelSpread:
    """One kernel's total time in each report (e.g. each MPI rank) and how far the slowest is from the
    fastest: ``spread_pct = 100 x (max - min) / min``; ``flagged`` when above the threshold."""

    name: str
    total_s: Mapping[str, float | None]  # report path -> total time of the kernel there
    spread_pct: float | None
    flagged: bool
