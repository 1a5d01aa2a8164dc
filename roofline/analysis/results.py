"""The results of analysing one launch, as frozen msgspec structs: what the analysis, the diagnostics and the
advice compute, and what the comparisons and renderers read (a report's launches together, by column, are in
``analysis.launches``).

Structs are plain data as frozen dataclasses are (typed fields, equality, hashing; a changed copy is
``msgspec.structs.replace``), made in C: on Python 3.11 a frozen dataclass's class took about 1 ms to build and its
instances 2 to 5 us each, and a JSON report of 154 launches builds about 29,000 of them (docs/benchmarks.md). Every
result type of the analysis, the comparisons and the views is one, and so are the report model (``core.model``),
the analysis options and the device specs.

Only types live here (and the properties that read them), so the modules that fill them in do not import
each other and every renderer imports its types from one place. Numbers are in SI base units; "not
measured" is None with its reason beside it.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from enum import Enum
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal

from msgspec import Struct, field
from msgspec.structs import force_setattr

from roofline.analysis.sass import opcode as sass_opcode
from roofline.core.cohorts import largest, shared
from roofline.core.files import base_name
from roofline.core.model import Ceilings, CeilingSet, KernelLaunch, PcCounters
from roofline.core.thresholds import THIN_SAMPLES
from roofline.ncu import metrics as m
from roofline.ncu.metrics import FlopNote

if TYPE_CHECKING:  # pragma: no cover

    from roofline.ncu.metrics import Measured

Bound = Literal["compute", "memory", "balanced", "latency", "small_grid"]  # the verdict (roofline.analysis.verdict)
VerdictBasis = Literal["throughput", "roofline"]  # ncu's SpeedOfLight throughputs, or the FP/byte roofs alone
ProducerKind = Literal["writer", "in_flight"]  # how a hot spot's producer holds its wait (Producer.kind)
Side = Literal["compute", "memory"]
TensorStatus = Literal["used", "not used", "negligible", "no Tensor Cores", "not measured"]
# Where tensor work is counted from (ncu.metrics.TENSOR_FROM_*): the sm__ops_path_tensor_* counters, the MMA
# instructions of the SASS, Volta's 512 FLOP per tensor instruction, the IMMA pipe's busy share; None: not counted
TensorWorkSource = Literal["counters", "sass", "volta_512", "pipe"]
AdviceKind = Literal["measurement", "memory", "compute", "balanced", "precision", "tensor_cores", "waves",
                     "small_grid", "occupancy", "latency", "stalls", "launch_overhead", "library", "instructions",
                     "ncu_rule"]
AdviceSource = Literal["roofline", "verdict", "occupancy", "tensor_cores", "stalls", "library", "instructions", "ncu"]
# How an item would save time, which sets the bound on its estimate (``analysis.reconcile``): hiding latency or
# raising occupancy (up to the busiest unit's peak), removing a share of the work, reaching the roof, filling the
# GPU with more blocks, a faster roof of another precision, or none estimated.
Mechanism = Literal["latency", "work", "roof", "grid", "precision", "none"]


class Cause(Enum):
    """Why a value (or a verdict) is None, as data: metrics the report lacks (``missing`` names them, ``collect``
    the option collecting them), no expectation the roofline can give (a pair's expected speedup where a side is
    launch- or latency-bound, or balanced), or another reason the analysis states in its ``reason`` line."""

    MISSING_METRICS = "missing metrics"
    NO_EXPECTATION = "no roofline expectation"
    OTHER = "other"


class Value(Struct, frozen=True):
    """A number in SI base units, or None with the reason: its line (``reason``), and as data its ``cause``, the
    metrics the report lacks (``missing``) and the option that collects them (``collect``)."""

    value: float | None
    reason: str = ""
    via: str = ""
    missing: tuple[str, ...] = ()
    collect: str = ""
    cause: Cause | None = None  # None: a value, or a reason stated only in ``reason`` (Cause.OTHER)

    @classmethod
    def of(cls, measured: Measured) -> Value:
        if measured.value is not None:
            return cls(measured.value, via=measured.via)
        return _unmeasured(measured.via, measured.missing, measured.hint)


@functools.lru_cache(maxsize=4096)
def _unmeasured(via: str, missing: tuple[str, ...], hint: str) -> Value:
    """``Value.of`` an absent measurement: its reason, the metrics it lacks and the option that collects them; the
    same for every launch that lacks them, so made once."""
    lacking = not via and bool(missing)
    return Value(None, m.Measured(None, via, missing, hint).reason, via, missing if lacking else (),
                 hint if lacking else "", Cause.MISSING_METRICS if lacking and hint else None)


def counted_flops(flops: Mapping[str, Value]) -> dict[str, Any]:
    """The FLOPs measured per precision, without a zero Tensor count that is the only one: the SASS (or a counter)
    shows no tensor work, but with every CUDA-core precision unmeasured the kernel's FLOPs stay unknown (no total,
    no intensity). A zero tensor count is common to a cohort's launches (``ncu.metrics.SASS_MMA_INST``)."""
    return _counted({p: v.value for p, v in flops.items()})


def _counted(values: Mapping[str, Any]) -> dict[str, Any]:
    """``counted_flops`` of plain values (None: not measured)."""
    known = {p: v for p, v in values.items() if v is not None}
    if set(known) == {"tensor"} and shared(known["tensor"] == 0):
        return {}
    return known


def total_flops(flops: Mapping[str, Value]) -> Any:
    """All measured FLOPs (CUDA cores and Tensor Cores); None if no precision was measured (``counted_flops``)."""
    return flops_sum({p: v.value for p, v in flops.items()})


def flops_sum(values: Mapping[str, Any]) -> Any:
    """``total_flops`` of plain values per precision (None: not measured): the one definition of a total."""
    known = list(_counted(values).values())
    return sum(known) if known else None


class RoofPosition(Struct, frozen=True):
    """Where a launch sits against one set of ceilings (the FP and byte roofs; the verdict is ``Verdict``)."""

    ceilings: CeilingSet
    pct_of_roof: float | None
    limiter: str | None  # the roof closest to the launch: a precision ("fp32") or a level ("dram")
    utilization_pct: Mapping[str, float]  # per precision and level: achieved / peak x 100
    reason: str = ""  # why pct_of_roof is None, or what it leaves out


class BusyUnit(Struct, frozen=True):
    """One unit of the GPU and how busy it was: percent of its peak over the elapsed time."""

    name: str  # human name: "FP64 pipe", "DRAM", "issue slots", "FP32 roof", ...
    pct: float
    side: Side
    metric: str  # the breakdown metric (or the roof key, for a roofline-only verdict)

    @property
    def short_name(self) -> str:
        """The unit's short name for a table cell ("FP64", "ALU", "issue", "L1", "DRAM"; a roof's key)."""
        from roofline.ncu.metrics import unit_short_name

        return unit_short_name(self.metric)


class InvertedLevel(Struct, frozen=True):
    """A memory level whose bytes count one direction only and so fall below the level outside it (an
    inverted-looking hierarchy): the two levels, what the inner one counts, its definition's short name, and where
    all L2 traffic is (the L2 total's definition, "" when the report has none)."""

    inner: str
    outer: str
    one_way: str
    counter: str
    l2_total_via: str = ""


class Verdict(Struct, frozen=True):
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
    cause: Cause | None = None  # why there are no throughputs (a roofline-only verdict, or none), as data
    missing: tuple[str, ...] = ()  # the throughput metrics the report lacks
    collect: str = ""  # the option that collects them

    @property
    def attained_pct(self) -> float | None:
        """How close the busiest unit is to its peak (the larger throughput), None when not measured."""
        known = [v for v in (self.sm_pct, self.memory_pct) if v is not None]
        return largest(known) if known else None  # per launch over a cohort's arrays too


# --- Diagnostics --------------------------------------------------------------------------------------
class OccupancyPoint(Struct, frozen=True):
    """The occupancy calculator at one launch shape: threads per block, registers per thread and the kernel's
    shared bytes per block (without the driver's reservation), in a carveout of ``carveout_bytes``; the resident
    blocks per SM, the theoretical occupancy and the resources at the smallest block limit (none at 100%)."""

    threads: int
    registers: int
    shared_bytes: int
    carveout_bytes: int
    blocks_per_sm: int
    theoretical_pct: float
    limiters: tuple[str, ...]


class WhatIf(Struct, frozen=True):
    """One change to the launch and the resident blocks and theoretical occupancy it would give; ``point`` is the
    calculator's point the numbers come from."""

    change: str
    blocks_per_sm: int
    theoretical_pct: float
    text: str
    point: OccupancyPoint | None = None


class OccupancyStep(Struct, frozen=True):
    """A run of one calculator curve: every value from ``low`` to ``high`` (inclusive, in the curve's steps) gives
    the same resident blocks, theoretical occupancy and limiting resources."""

    low: int
    high: int
    blocks_per_sm: int
    theoretical_pct: float
    limiters: tuple[str, ...]


class OccupancyCurve(Struct, frozen=True):
    """Theoretical occupancy against one launch value (``varies``: "threads" per block, "registers" per thread or
    "shared_bytes" per block), the other two held at the launch's; x runs over multiples of ``granularity``."""

    varies: str
    granularity: int
    launch_value: int
    steps: tuple[OccupancyStep, ...]


class OccupancyLimits(Struct, frozen=True):
    """The SM's limits the calculator uses, each with where it comes from (``sources``: a device attribute of the
    report, or the CUDA C++ Programming Guide's compute-capability table / the CUDA occupancy calculator)."""

    max_warps_per_sm: int
    max_blocks_per_sm: int
    registers_per_sm: int
    register_alloc_unit: int  # registers per warp are allocated in these units
    sub_partitions: int
    max_registers_per_thread: int
    shared_bytes_per_sm: int  # the largest carveout
    shared_alloc_unit: int
    reserved_shared_per_block: int
    max_threads_per_block: int
    barriers_limit: int | None = None  # ncu's launch__occupancy_limit_barriers, held on every curve
    sources: Mapping[str, str] = field(default_factory=dict)


class OccupancyCalculator(Struct, frozen=True):
    """ncu's occupancy calculator for one launch: its point and the three curves through it."""

    compute_capability: str | None
    limits: OccupancyLimits
    launch: OccupancyPoint
    curves: tuple[OccupancyCurve, ...]
    carveout_note: str = ""


class Occupancy(Struct, frozen=True):
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
    gap_pts: float | None = None  # theoretical minus achieved occupancy in percentage points (None: either unknown)
    calculator: OccupancyCalculator | None = None  # ncu's occupancy calculator at this launch
    achieved_apart: bool | None = None  # gap_pts over ACHIEVED_GAP_PTS (ncu's AchievedOccupancy rule); None: no gap


class TensorRoof(Struct, frozen=True):
    """One Tensor Core data type the launch did work in, against its dense roof (``diagnostics.tensor_cores``):
    operations per second (FLOPs, or integer ops for INT types), the roof at the clock the launch ran at, and the
    percent of it; ``work`` names the counter that shows the work. None = not measured, with the reason."""

    dtype: str  # "fp16", "int8", "fp8", ...
    work: str
    achieved_ops_per_s: Value
    peak_ops_per_s: Value
    pct_of_peak: Value
    source: TensorWorkSource = "counters"  # where ``work`` is counted from


class TensorCores(Struct, frozen=True):
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
    roofs: Mapping[str, TensorRoof] = field(default_factory=dict)  # per data type the launch did tensor work in
    work_source: TensorWorkSource | None = None  # where ``flops_by_type`` (and the tensor FLOPs) are counted from
    size_with: str = ""  # the option counting the FLOPs that would size the advice's gain, where none were counted


class WarpStalls(Struct, frozen=True):
    """What the warps of a launch wait on (``diagnostics.stalls``): stall reasons, busiest first, and how
    well the schedulers issue. None = not measured (reason in ``missing``)."""

    reasons: tuple[tuple[str, float, float], ...]  # (reason, value, share of all stalls 0..1), largest first
    source: str  # "cycles per issued instruction" or "PC samples", or "" when none was measured
    issue_active_pct: float | None = None  # issue slots used while the SM was active, percent
    eligible_per_scheduler: float | None = None  # warps ready to issue, per scheduler and cycle
    active_per_scheduler: float | None = None  # resident warps per scheduler
    missing: Mapping[str, str] = field(default_factory=dict)


class PeakKind(str, Enum):
    """Which peak a what-if's floor is measured to (its ``value`` is JSON's ``peak_kind``): the datasheet's, the
    roof ``roofline calibrate`` measured, the achievable fraction of the spec (``specs.achievable``), or the fraction
    the launch itself reached where that is above the achievable one."""

    DATASHEET = "datasheet"
    CALIBRATED = "calibrated"
    ACHIEVABLE = "achievable"
    REACHED = "reached"


class EstimateBound(str, Enum):
    """What bounds an advice item's estimate (``analysis.reconcile``), as data; its ``value`` is JSON's
    ``bound_by``. The what-ifs on the time model: the kernel at its floor once latency is hidden (``SLACK``), the
    changed kernel's floor (``CHANGED_FLOOR``), a change that leaves the floor where it is (``FLOOR_UNCHANGED``: no
    saving claimed) or removes no work (``NOTHING_REMOVED``); else the bound of the item's mechanism."""

    NONE = ""
    GAP = "busiest unit's gap"
    ROOF = "time to reach the roof"
    SHARE = "share of work removed"
    IDLE_SLOTS = "idle block slots"
    IDLE_SMS = "idle SMs"
    SLACK = "slack"
    NOTHING_REMOVED = "nothing removed"
    FLOOR_UNCHANGED = "floor unchanged"
    CHANGED_FLOOR = "changed floor"
    LAUNCH_FLOOR = "launch floor"  # no unit terms: at most measured - the launch floor, the rest of the floor unknown
    NO_MORE_BLOCKS = "no more blocks"  # more blocks per SM where the grid has no more blocks to place there


class ModelChange(Struct, frozen=True):
    """An advice item's change on its launch's time model (``analysis.reconcile.model_cap``), as data for the words
    of its bound: the terms it scales and by how much, the floor term before (its name, its time) and the changed
    kernel's floor (its term's key, name and time, whether that is the launch floor); ``own_above`` says the item's
    own estimate was above the bound."""

    scales: tuple[tuple[str, float], ...]
    floor_name: str
    floor_s: float
    after_key: str = ""
    after_s: float | None = None
    launch_floor: bool = False
    after_name: str = ""  # the changed floor's term by name (the launch floor where that holds), ``after_s`` its time
    own_above: bool = False
    kept_bytes: tuple[tuple[str, float], ...] = ()  # per level, the bytes the change keeps (compulsory traffic)
    peak_source: str = ""  # the changed floor's achievable peak and its source, where not the datasheet's
    peak_kind: PeakKind = PeakKind.DATASHEET  # which peak that is, as data


class VerdictCause(Struct, frozen=True):
    """An advice item's cause that is its launch's verdict, as data: the renderers' prose writes its line; with
    ``in_text`` the item's text opens with it too (the compute item that names no unit)."""

    verdict: Verdict
    in_text: bool = False


class Advice(Struct, frozen=True, kw_only=True):
    """One recommendation for a launch (``analysis.advice``): what to do, the condition that made it apply, the
    measurement behind it and which analysis produced it. ``est_saved_s`` is the time it could save and
    ``estimate`` how that was obtained (or why there is none). Built with keywords only: four of its fields are
    free text, which positions would mix up."""

    kind: AdviceKind
    title: str
    text: str  # the recommendation, naming its numbers
    cause: str  # the measured cause, e.g. "DRAM at 90.0% of its roof" ("" where ``verdict_cause`` holds it)
    source: AdviceSource
    est_saved_s: float | None = None
    condition: str = ""  # why it applies, e.g. "verdict memory and DRAM the busiest unit"
    estimate: str = ""  # how est_saved_s was obtained, or why it is None
    topic: str = ""  # what the item is about; one item per topic and kernel, e.g. "stall:long_scoreboard"
    mechanism: Mechanism = "none"
    # for "work": the share of the work it removes (0..1), when the report says; for "precision": the share of its
    # units' time the faster roof removes (1 - 1 / roof ratio), None where no ratio is known
    work_share: float | None = None
    excess_sectors: float | None = None  # a memory-access pattern's sectors beyond need (``ncu_rules.rule_share``)
    excess_ops: tuple[str, ...] = ()  # the operations ("ld", "st") that move the excess sectors; () if not known
    bound: str = ""  # the physical bound applied to est_saved_s ("" for a what-if on the time model: ``change``)
    bound_by: EstimateBound = EstimateBound.NONE  # what bounds it, e.g. EstimateBound.GAP
    ncu_saved_s: float | None = None  # ncu's own estimate as time, where it was above the bound
    also: tuple[str, ...] = ()  # the other sources merged into this item, e.g. "ncu CPIStall: Wait Stalls"
    causes: tuple[str, ...] = ()  # the topics of the causes merged into it (an ncu stall rule under "roof")
    capped: bool = False  # est_saved_s is the item's physical bound ("saves at most"), not its own estimate
    missing: tuple[str, ...] = ()  # a measurement item: the metrics the report lacks
    collect: str = ""  # and the option that collects them
    ncu_local_pct: float | None = None  # ncu's LOCAL estimate: one unit's efficiency gain in percent, not a time
    change: ModelChange | None = None  # the bound is the time model's: the change the item makes to the model
    roofs_only: bool = False  # an upper bound: its launch's time model sees the FP and byte roofs alone
    overlapping: bool = False  # its saving overlaps others' of the launch: together they save the combined what-if
    verdict_cause: VerdictCause | None = None  # the cause is the verdict (``cause`` empty): its line is prose
    size_with: str = ""  # the option that would size an estimate the item lacks ("" once it is sized: ``reconcile``)


class MemoryWalls(Struct, frozen=True):
    """One memory space against the walls of the Instruction Roofline Model: per operation ("ld", "st") warp
    instructions per 32-byte transaction, beside the walls of the model's reference patterns for the bytes each
    thread's access moves, as the SASS counts them (``analysis.instructions``), else 4-byte words. ``walls`` hold
    the space's loads and stores together; ``width_walls`` the width-dependent wall (global unit stride, shared no
    conflict) of each operation alone, as loads and stores may differ in width."""

    intensity: Mapping[str, Value]  # per operation: warp instructions per transaction (sector or wavefront)
    walls: Mapping[str, float]  # each wall: warp instructions per transaction of its reference access pattern
    width_bytes: Mapping[str, float] = field(default_factory=dict)  # per operation run: bytes per thread, the mean
    width_walls: Mapping[str, float] = field(default_factory=dict)  # per operation run: its width's coalesced wall
    width_mixed: Mapping[str, bool] = field(default_factory=dict)  # per operation run: whether it mixes widths
    width_source: str = "assumed"  # "sass": widths counted from the SASS opcodes; "assumed": 4-byte words
    width_note: str = ""  # sass: warp instructions per operation and width; assumed: why no width was counted


class IntegerRoofline(Struct, frozen=True):
    """Integer operations against the integer pipe's peak (``analysis.instructions``): integer thread instructions
    (predicate on) per second, and per memory level per byte of the FP roofline's traffic; None = not measured."""

    giops: Value  # integer thread instructions per second / 1e9
    peak_giops: Value  # the integer pipe's peak in thread instructions per second / 1e9
    pct_of_peak: Value  # giops / peak_giops x 100
    intensity: Mapping[str, Value]  # per level (core.model.LEVELS): integer instructions per byte


class InstructionRoofline(Struct, frozen=True):
    """Where a launch sits on the Instruction Roofline Model (Ding & Williams; ``analysis.instructions``): warp
    instructions per second against the issue peak, and per memory level warp instructions per 32-byte transaction
    against that level's transactions per second. Rates are in GIPS and G transactions/s, as the model states them
    (the field names say so); None = not measured, with the reason in the Value."""

    warp_gips: Value  # warp instructions executed per second / 1e9
    thread_gips_per_32: Value  # thread instructions / 32 per second / 1e9 (below warp_gips: inactive threads)
    peak_warp_gips: Value  # SMs x schedulers per SM x instructions per scheduler and cycle x SM clock / 1e9
    issue_pct: Value  # warp_gips as a percent of peak_warp_gips
    transactions: Mapping[str, Value]  # per level (core.model.LEVELS): 32-byte transactions
    intensity: Mapping[str, Value]  # per level: warp instructions per transaction
    thread_intensity: Mapping[str, Value]  # per level: thread instructions / 32 per transaction
    definitions: Mapping[str, str]  # per level: what its transactions count
    peak_gtxn_per_s: Mapping[str, Value]  # per level: the memory roof of ``ceilings`` / 32 B, per second / 1e9
    ceilings: CeilingSet  # the ceiling set the transaction roofs come from
    global_memory: MemoryWalls  # global loads and stores: L1 sectors per instruction against the access walls
    shared_memory: MemoryWalls  # shared loads and stores: wavefronts per instruction against the bank-conflict walls
    integer: IntegerRoofline  # integer instructions against the integer pipe's peak


class MemoryNoteKind(Enum):
    """What a note beside the memory chart says, as data (the renderers' prose writes the sentence)."""

    L2_ABOVE_FULL = "l2 hit rate above 100%"  # ncu's ratio is not clamped, and stores hit by construction


class MemoryNote(Struct, frozen=True):
    """A note beside the memory chart: its kind and whether the L2 hit rates of loads and of stores apart were
    measured (``split``: they show the mix; else the option collecting them is named)."""

    kind: MemoryNoteKind
    split: bool = False


class MemoryPicture(Struct, frozen=True):
    """The memory chart of ncu's Memory Workload Analysis for one launch (``analysis.memory``): L1 and L2 sector hit
    rates in percent, and the traffic on each edge between kernel, L1, shared memory, L2 and DRAM (bytes; shared
    memory in wavefronts), each edge in percent of its path's peak, the L2 hit rate of loads and of stores apart;
    with ncu's Speed of Light percentages (every set, the basic one included). None = not measured, with the
    reason."""

    hit_rate_pct: Mapping[str, Value]  # "l1", "l2"
    traffic: Mapping[str, Value]  # edge (ncu.metrics.MEMORY_EDGES) -> amount
    definitions: Mapping[str, str]  # edge -> what it counts
    sol_pct: Mapping[str, Value] = field(default_factory=dict)  # ncu's Speed of Light: "sm", "memory", "dram", ...
    traffic_pct: Mapping[str, Value] = field(default_factory=dict)  # edge -> percent of that path's peak
    l2_hit_rate_pct_by_op: Mapping[str, Value] = field(default_factory=dict)  # "read", "write": L2 hit rate per op
    notes: tuple[MemoryNote, ...] = ()  # what a figure above needs said beside it (an L2 hit rate above 100%)
    # the units of ``sol_pct`` whose percent ncu states over the unit's active cycles, not the elapsed ones (the
    # L1/TEX's): a figure that is not the unit's share of the kernel's time
    sol_over_active: tuple[str, ...] = ()


class HotLine(Struct, frozen=True):
    """One source line of a launch: the instructions compiled from it (most samples first) and their warp samples
    summed, per stall reason too; ``top_stall`` is the reason with the most samples, a warp issuing left out."""

    file: str
    line: int
    samples: int
    share: float  # of the launch's warp samples (0..1)
    stalls: Mapping[str, int]
    top_stall: str | None
    pcs: tuple[PcCounters, ...]
    tied_stalls: tuple[str, ...] = ()  # the reasons with as many samples as ``top_stall`` (it first); () for none

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"


class Hotspots(Struct, frozen=True):
    """Where in a launch's code its warps were sampled (``analysis.hotspots``): the instructions with samples and
    their shares, most first, and the source lines they aggregate to where the binary has line information.
    ``source_missing`` says why an instruction has no line (the fix: -lineinfo); ``sass_missing`` why it has no
    SASS text; ``source_text`` the report's own source (file -> line -> text) around the sampled lines."""

    total_samples: int
    pcs: tuple[tuple[PcCounters, float], ...]  # (instruction, share of the launch's samples), most samples first
    lines: tuple[HotLine, ...]
    source_missing: str = ""
    sass_missing: str = ""
    source_text: Mapping[str, Mapping[int, str]] = field(default_factory=dict)
    all_pcs: tuple[PcCounters, ...] = ()  # every instruction the report kept, memory-only ones included
    functions: tuple[int, ...] = ()  # start address of each function of the launch, in address order
    kernel_name: str = ""  # the launch's function name, that of its one function where it ran one
    producers: Mapping[int, Producer] = field(default_factory=dict)  # waiting instruction's PC -> its producer
    # what the reports show per instruction, decided here: the function each start address is named by
    # (``function_label``) and, per (function start, offset), the stall reasons tied for the most samples
    function_labels: Mapping[int, str] = field(default_factory=dict)
    top_stalls: Mapping[tuple[int | None, int], tuple[str, ...]] = field(default_factory=dict)

    def function_of(self, pc: PcCounters) -> str:
        """The function an instruction belongs to, as the reports name it (``analysis.hotspots.function_label``)."""
        return self.function_labels.get(pc.function_pc, self.kernel_name) if pc.function_pc is not None \
            else self.kernel_name

    def stalls_of(self, pc: PcCounters) -> tuple[str, ...]:
        """The stall reasons tied for an instruction's most samples (``analysis.hotspots.tied_stalls``)."""
        return self.top_stalls.get((pc.function_pc, pc.pc_offset), ())


class Producer(Struct, frozen=True):
    """The instruction that produced the register a waiting one reads (the SASS def-use chain within a function,
    ``analysis.hotspots``): what the user changes when warps wait on a dependency (a load, not the FADD that waits)."""

    pc: int
    pc_offset: int
    sass: str
    registers: tuple[str, ...]  # the awaited registers it writes
    stall: str  # the dependency stall of the waiting instruction ("long_scoreboard", ...)
    file: str | None = None
    line: int | None = None
    # "writer": it writes a register the waiting instruction reads; "in_flight": for a scoreboard stall whose
    # registers read name no variable-latency writer, the nearest variable-latency instruction of the stall's class
    # that may still be in flight (``registers``: those of the waiting instruction it still reads or writes)
    kind: ProducerKind = "writer"
    candidates: tuple[Producer, ...] = ()  # for "in_flight": every candidate, nearest first (this one first)

    @property
    def opcode(self) -> str:
        """The producer's opcode with its modifiers ("LDG.E.CONSTANT")."""
        return sass_opcode(self.sass)

    @property
    def source(self) -> str | None:
        """Its source line as the reports name it ("sgemm.cu:40"); None without line information."""
        return f"{base_name(self.file)}:{self.line}" if self.file is not None else None


class HotRow(Struct, frozen=True):
    """One row of a launch's hot spots as the reports show them: a source line, or an instruction where the binary
    has no line information (``where``: "file.cu:88" or "+0x2a0"), its share of the samples and its top stall."""

    where: str
    share: float
    samples: int
    top_stall: str | None
    sass: str | None  # the instruction's text; for a line, that of its instruction with the most samples
    file: str | None = None
    line: int | None = None
    tied_stalls: tuple[str, ...] = ()  # reasons with as many samples as the top one (it first); () for none
    producer: Producer | None = None  # where its top instruction waits on a dependency: the instruction producing it
    function: str = ""  # for an instruction: the function it belongs to, where the launch ran several

    @property
    def thin(self) -> bool:
        """Whether its share rests on fewer samples than ``core.thresholds.THIN_SAMPLES``."""
        return self.samples < THIN_SAMPLES


class LineShift(Struct, frozen=True):
    """A source line's share of a kernel's warp samples in two reports (``analysis.hotspots.line_shifts``)."""

    where: str  # "file.cu:88"
    base_share: float  # 0..1 of the base report's samples on lines
    new_share: float
    change_pts: float  # the change in percentage points (positive: the line gained samples)


# --- The time model ---------------------------------------------------------------------------------
TermKind = Literal["unit", "roof", "tail", "launch"]


class Term(Struct, frozen=True):
    """One term of the model: the time ``seconds`` a unit's measured work needs at its peak (``kind`` "unit" or
    "roof"), the tail of the waves, or the launch floor; ``formula`` and ``inputs`` say how it was computed."""

    key: str  # the unit's short name ("DRAM", "FMA", "issue", "fp64 roof"), "tail" or "launch"
    name: str  # the unit's full name ("DRAM", "FMA pipe", ...)
    kind: TermKind
    seconds: float
    formula: str
    inputs: Mapping[str, float] = field(default_factory=dict)
    metric: str = ""  # the breakdown metric (or the roof key) the term is read from
    side: str = ""  # "compute" or "memory" for a unit
    sm_local: bool = False  # a unit inside each SM, whose work a block cannot spread over other SMs
    achievable_s: float | None = None  # its time at the peak a kernel can reach (``specs.achievable``), if lower
    peak_source: str = ""  # where that achievable peak comes from
    peak_kind: PeakKind = PeakKind.DATASHEET  # which peak ``achievable_s`` is at, as data
    peak_fraction: float | None = None  # the share of its peak the counter that sets ``achievable_s`` can reach
    peak_metric: str = ""  # that counter where it is not ``metric`` (a unit's slower counter there: its L2 sectors)

    @property
    def reach_s(self) -> float:
        """Its time at the peak a kernel can reach (``achievable_s``), else at the datasheet's."""
        return self.achievable_s if self.achievable_s is not None else self.seconds


class TimeModel(Struct, frozen=True):
    """A launch's time model: its terms, largest first; the floor (the largest term) and the slack (measured minus
    floor, None when not measured). ``reason`` says why there are no unit terms."""

    measured_s: float | None
    terms: tuple[Term, ...]
    reason: str = ""
    slack_s: float | None = None  # measured minus floor, at least 0 (``time_model.time_model``)

    @property
    def floor(self) -> Term | None:
        return self.terms[0] if self.terms else None

    @property
    def floor_s(self) -> float | None:
        return self.terms[0].seconds if self.terms else None

    def reach_floor_term(self, tail: bool = True) -> Term | None:
        """The term whose time at the peak a kernel can reach (``Term.reach_s``) is the largest, the first such in
        the model's order: the floor every saving is measured to (the busiest unit, its tail in whole blocks per SM
        or the launch floor); without ``tail``, with the blocks spread evenly over the SMs (the tail term left out).
        None without a measured time or unit terms."""
        if self.measured_s is None or self.reason or not self.terms:
            return None
        terms = [t for t in self.terms if tail or t.kind != "tail"]
        return max(terms, key=lambda t: t.reach_s, default=None)

    def reach_gap(self, tail: bool = True) -> float | None:
        """The measured time above the floor at the peaks a kernel can reach (``reach_floor_term``): the most a
        change that keeps the work saves (the grade's), and the recoverable time (``within_reach``); without
        ``tail``, what a change of the grid, which takes the tail away, is held to. None without a measured time or
        unit terms."""
        floor = self.reach_floor_term(tail)
        if floor is None or self.measured_s is None:
            return None
        return max(0.0, self.measured_s - floor.reach_s)

    @property
    def reach_gap_s(self) -> float | None:
        """``reach_gap`` with the tail: the grade's most saved keeping the work and grid."""
        return self.reach_gap()

    def within_reach(self, saved: float) -> float:
        """A launch's recoverable time on its model: the time above its floor at the peaks a kernel can reach
        (``reach_gap_s``), one definition of the busiest unit for the recoverable time and the grade's most saved,
        so the one never exceeds the other. ``saved``, the gap to the busiest unit's full peak by the SpeedOfLight
        throughputs (``roofline.recoverable_time``), stands where the model has no gap, and where it is 0: a small
        grid, held back by its few blocks, not by a unit's peak (its time is counted apart), or a unit at its
        peak."""
        gap = self.reach_gap_s
        return saved if gap is None or saved == 0.0 else gap

    @property
    def roofs_only(self) -> bool:
        """Whether its terms are the FP and byte roofs alone (no SpeedOfLight breakdowns): units it does not see
        (integer, load/store, issue) may need more time, so its floor is a lower bound and what it lets a change
        save an upper bound."""
        return any(t.kind == "roof" for t in self.terms)

    @property
    def largest_unit(self) -> Term | None:
        """The largest unit (or roof) term: the unit the kernel's measured work keeps busiest."""
        return next((t for t in self.terms if t.kind in ("unit", "roof")), None)

    def term(self, key: str) -> Term | None:
        return next((t for t in self.terms if t.key == key), None)


# --- Launches, kernels, reports -----------------------------------------------------------------------
_LAUNCH_MAPPINGS = ("flops", "flop_per_s", "tensor_flops_by_type", "bytes", "bytes_per_s", "intensity", "definitions",
                    "ceilings")


class LaunchAnalysis(Struct, frozen=True):
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
    notes: tuple[FlopNote, ...] = ()  # how the FLOPs were counted, what they leave out (each names its precision)
    occupancy: Occupancy | None = None
    tensor_cores: TensorCores | None = None
    stalls: WarpStalls | None = None
    instruction_roofline: InstructionRoofline | None = None
    memory: MemoryPicture | None = None
    hotspots: Hotspots | None = None
    advice: tuple[Advice, ...] = ()
    l2_total_bytes: Value = Value(None, "not read")  # all L2 traffic, stores included (lts__t_sectors x 32)
    inverted_levels: tuple[InvertedLevel, ...] = ()  # levels whose definition counts one direction only
    time_model: TimeModel | None = None  # the time each unit's work needs at its peak (``analysis.time_model``)
    whole_blocks_pct: float | None = None  # the busiest unit in the SMs in whole blocks per SM (``verdict``)
    combined_saved_s: float | None = None  # every advice item applied at once (``reconcile.combined``)
    combined_floor_s: float | None = None  # the floor of the kernel with every item applied
    total_flops: float | None = None  # all measured FLOPs (CUDA and Tensor Cores); None if no precision was measured

    def __post_init__(self) -> None:
        """The mappings made read-only, as the struct is frozen (a caller's change to one would reach every view)."""
        for name in _LAUNCH_MAPPINGS:
            value = getattr(self, name)
            if type(value) is not MappingProxyType:
                force_setattr(self, name, MappingProxyType(dict(value)))

    @property
    def block_size(self) -> int | None:
        """Threads per block (``launch__block_size``, else the product of the block's dimensions)."""
        return m.launch_size(self.launch, "block")

    @property
    def grid_size(self) -> int | None:
        """Blocks in the grid (``launch__grid_size``, else the product of the grid's dimensions)."""
        return m.launch_size(self.launch, "grid")

    @property
    def intensity_leaves_out(self) -> tuple[str, ...]:
        """The precisions whose FLOPs are not measured where the intensities count the others (``roofline.intensity``):
        each intensity with a value is then a lower bound, which the reports say; () where every precision is
        measured, or where no intensity has a value (each null says why)."""
        if not any(v.value is not None for v in self.intensity.values()):
            return ()
        return tuple(p for p, v in self.flops.items() if v.value is None)

    @property
    def main_precision(self) -> str | None:
        """The precision with the most FLOPs (its ceiling is the one the launch is drawn against)."""
        known = {p: v.value for p, v in self.flops.items() if v.value}
        return max(known, key=lambda p: known[p] or 0.0) if known else None
