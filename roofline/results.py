"""The results of an analysis as plain frozen dataclasses: what the analysis, the diagnostics and the advice
compute, and what the comparisons and renderers read.

Only types live here (and the properties that read them), so the modules that fill them in do not import
each other and every renderer imports its types from one place. Numbers are in SI base units; "not
measured" is None with its reason beside it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from roofline.model import Ceilings, CeilingSet, Device, KernelLaunch, Report

if TYPE_CHECKING:  # pragma: no cover
    from roofline.metrics import Measured

Bound = Literal["compute", "memory", "latency"]
TensorStatus = Literal["used", "not used", "negligible", "no Tensor Cores", "not measured"]
AdviceKind = Literal["measurement", "memory", "compute", "precision", "tensor_cores", "waves", "occupancy",
                     "latency", "launch_overhead"]
AdviceSource = Literal["roofline", "occupancy", "tensor_cores"]


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
    """Where a launch sits against one set of ceilings."""

    ceilings: CeilingSet
    pct_of_roof: float | None
    bound: Bound | None
    limiter: str | None  # the roof closest to the launch: a precision ("fp32") or a level ("dram")
    utilization_pct: Mapping[str, float]  # per precision and level: achieved / peak x 100
    reason: str = ""  # why pct_of_roof is None, or what it leaves out


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
    reason: str = ""  # why the status is NOT_MEASURED
    missing: Mapping[str, str] = field(default_factory=dict)  # why a None number above is None


@dataclass(frozen=True)
class Advice:
    """One recommendation for a launch (``roofline.advice``): what to do, the measurement that calls for it,
    and which analysis produced it. ``est_saved_s`` is the time it could save, when estimated."""

    kind: AdviceKind
    title: str
    text: str  # the recommendation, naming its numbers
    cause: str  # the measured cause, e.g. "DRAM at 90.0% of its roof"
    source: AdviceSource
    est_saved_s: float | None = None


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
    ceilings: Mapping[str, Ceilings]  # "report" and, when the GPU is known, "spec"
    roof: RoofPosition
    time_share: float | None = None
    flags: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    occupancy: Occupancy | None = None
    tensor_cores: TensorCores | None = None
    advice: tuple[Advice, ...] = ()

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


@dataclass(frozen=True)
class KernelGroup:
    """Launches grouped by kernel name (or NVTX range): count, time, spread, and recoverable time.

    ``recoverable_s`` is the sum over launches of time x (1 - fraction of roof attained): the time the
    group would save at its roof. Launches without a roof position are not counted in it.
    """

    name: str
    launches: tuple[LaunchAnalysis, ...]
    total_s: float | None
    median_s: float | None
    min_s: float | None
    max_s: float | None
    time_share: float | None
    median_pct_of_roof: float | None
    recoverable_s: float | None = None

    @property
    def longest(self) -> LaunchAnalysis:
        """The group's longest launch: the one a kernel's section and advice describe."""
        return max(self.launches, key=lambda k: k.duration_s.value or 0.0)


@dataclass(frozen=True)
class ReportAnalysis:
    """The analysis of one report: device, matched spec, each launch, and launches grouped by kernel."""

    report: Report
    spec_id: str | None
    spec_match: str
    ceilings_used: CeilingSet
    launches: tuple[LaunchAnalysis, ...]
    groups: tuple[KernelGroup, ...] = field(default=())
    total_time_s: float | None = None

    @property
    def device(self) -> Device:
        return self.report.device

    @property
    def valid_launches(self) -> tuple[LaunchAnalysis, ...]:
        """The launches that are analysed: all but those marked invalid (kept in ``launches`` to be shown)."""
        return tuple(k for k in self.launches if not k.launch.invalid)


@dataclass(frozen=True)
class KernelSpread:
    """One kernel's total time in each report (e.g. each MPI rank) and how far the slowest is from the
    fastest: ``spread_pct = 100 x (max - min) / min``; ``flagged`` when above the threshold."""

    name: str
    total_s: Mapping[str, float | None]  # report path -> total time of the kernel there
    spread_pct: float | None
    flagged: bool
