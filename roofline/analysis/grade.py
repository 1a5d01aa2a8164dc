"""The grade of a kernel: the fraction of its attainable roof it reaches, with the conditions of its measurement
and, against a baseline report, whether it did the work asked. Pure functions over a report's analysis.

**The grade** of a launch is its floor at the peaks a kernel can reach over its measured time. The floor is the
time model's (``analysis.time_model``) with each unit's term divided by that unit's achievable fraction
(``time_model._reachable_fraction``: below 1 for DRAM and for the L2's sectors; 1 inside the SMs), the fraction
never below the one the launch itself reached there (so no term exceeds the measured time), and the floor never
below the launch floor (``LAUNCH_FLOOR_S``): the floor every what-if of the advice measures its saving to
(``time_model.reach_floor``, read by ``achievable_floor``). The grade is 1 - the saving of the what-if that runs
the launch at that floor with its work unchanged (``time_model.saving`` with latency hidden) over the measured time:
no what-if that keeps the work (hides latency, reaches a peak) saves more than (1 - g) of it. A what-if that changes
the work (fewer bytes, FP32 FMAs moved to the Tensor Cores) may save more: the grade is against the roof of the work
the kernel does. Beside it, the datasheet grade: the same floor with every unit at its full peak (ncu's percent of
each unit's peak: DRAM busy cycles, not bytes over the datasheet bandwidth), capped at 1 (a tail term can exceed the
measured time).

Per kernel the grade is time-weighted over its graded launches: 1 - the sum of their savings over the sum of their
times (``graded_s``), the sum of their floors over ``graded_s``. Its
interval is the range of the per-launch grades (lowest to highest; none for a single launch). **A small-grid launch**
(the verdict's ``small_grid``: too few blocks to fill the GPU, ``verdict``) is not graded: its few blocks, not a
unit's peak, set its time, and the floor at the peaks needs the warps a bigger grid would bring, so no what-if
keeping the grid saves any of it. Its time is counted apart (``small_grid_s``), as the summary counts it apart from
the recoverable time (``roofline.recoverable_time``): the most saved keeping the work and grid leaves it out (0 for
a kernel of small-grid launches alone), and more or smaller blocks, batching or fusion is its fix. A launch with a
measured time but no unit term (a report of ``--set basic``'s metrics alone) keeps its time, its grade None with the
time model's reason: where no launch is graded, the kernel's time is still the sum of its launches' and its grade is
withheld (``no_time_model``), with no confidence (there is no grade to qualify).

**Conditions** are read from what the report holds, each a typed state: the SM clock against the spec's base clock
(locked to base, above it: not locked, below it: held down by power or heat), cache control (an ``.ncu-rep`` does
not store it: unknown), the replay mode (kernel replay saves and restores memory, ``profiler__replayer_*``), and
the launches measured. Each missing or inflating one lowers the confidence one level (one launch: low) and names the
ncu option that fixes it.

**Work checks** against a baseline report compare the kernel's work per launch with the baseline kernel's (the one
of the same name, else the baseline's longest kernel; ``analysis.work``): fewer FLOPs (skipped computation), another
precision or Tensor Core type, or nothing written (no L2 write, atomic or reduction sectors and no DRAM writes)
withhold the grade with the reason; the last is checked without a baseline too.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import TYPE_CHECKING

from msgspec import Struct

from roofline.analysis.time_model import LAUNCH, TAIL, Change, reach, reach_floor, saving, time_model
from roofline.analysis.work import Work, WorkCheck, compare_work, launch_work
from roofline.core.model import PRECISIONS
from roofline.core.thresholds import CLOCK_TOLERANCE, LAUNCH_FLOOR_S, TAIL_NAMED, WORK_TOLERANCE
from roofline.errors import REPROFILE_INVALID, ReportError
from roofline.ncu import metrics as m

if TYPE_CHECKING:  # pragma: no cover
    from roofline.analysis.launches import KernelGroup, ReportAnalysis
    from roofline.analysis.results import LaunchAnalysis, Term, TimeModel
    from roofline.core.model import Device
    from roofline.specs.catalog import DeviceSpec

SMALL_GRID_BOUND = "small_grid"  # the verdict's bound of a launch with too few blocks to fill the GPU
SMALL_GRID_REASON = ("a small grid (too few blocks to fill the GPU): its few blocks, not a unit's peak, set its "
                     "time, so no change keeping the grid is graded; its time is counted apart (small grids: more "
                     "or smaller blocks, batching or fusion is their fix)")
NOTHING_WRITTEN_BYTES = 0.0  # written bytes at most this: the kernel wrote no output
INTERVAL_METHOD = "range of the per-launch grades (lowest, highest)"
# Precisions and Tensor Core types, most precise first: a kernel graded against a baseline must not use a later one.
PRECISION_ORDER = ("fp64", "tensor:fp64", "fp32", "tensor:tf32", "tensor:bf16", "tensor:fp16", "fp16",
                   "tensor:fp8", "tensor:int8", "tensor:fp4")


class Confidence(enum.Enum):
    """How far the measurement behind a grade can be believed."""

    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"


class State(enum.Enum):
    """The state of a condition: the states of every kind in one enum (a JSON schema's one list of values)."""

    LOCKED_BASE = "locked_base"  # clock: within CLOCK_TOLERANCE of the spec's base clock
    ABOVE_BASE = "above_base"  # clock: not locked (boost, as ``--clock-control none`` leaves it)
    BELOW_BASE = "below_base"  # clock: held below base by power or heat
    SHORT_LAUNCHES = "short_launches"  # clock: under base, read only on launches under CLOCK_MIN_DURATION_S (low)
    FLUSHED = "flushed"  # cache: flushed before each replay pass
    NOT_FLUSHED = "not_flushed"  # cache: left warm between passes
    SINGLE_PASS = "single_pass"  # replay: one pass, every metric from the same run
    KERNEL = "kernel"  # replay: several passes, device memory saved and restored between them
    NOT_KERNEL = "not_kernel"  # replay: several passes without memory backed up (application or range replay)
    SEVERAL = "several"  # launches: a spread to judge the grade by
    ONE = "one"  # launches: a single launch
    UNKNOWN = "unknown"  # the report holds nothing to tell (or, for the clock, the spec has no base clock)
    NOT_MEASURED = "not_measured"  # clock: ncu measured none of the launches (no time, no clock): no option helps


class NcuFix(enum.Enum):
    """The ncu option that fixes a condition; NONE where no option does."""

    CLOCK_BASE = "--clock-control base"
    CACHE_ALL = "--cache-control all"
    REPLAY_KERNEL = "--replay-mode kernel"
    LAUNCH_COUNT = "-c N"
    NONE = ""


class ConditionKind(enum.Enum):
    """What a condition is about."""

    CLOCK = "clock"
    CACHE = "cache"
    REPLAY = "replay"
    LAUNCHES = "launches"


class Condition(Struct, frozen=True):
    """One condition of the measurement: its state, the measured and expected figures where there are (clock in Hz,
    replay passes, launches), whether it lowers the confidence and the option that fixes it."""

    kind: ConditionKind
    state: State
    lowers: bool
    fix: NcuFix
    measured: float | None = None
    expected: float | None = None


class Withheld(enum.Enum):
    """Why a grade is withheld."""

    LESS_WORK = "less_work"  # fewer FLOPs than the baseline: computation skipped
    OTHER_PRECISION = "other_precision"  # a less precise precision or Tensor Core type than the baseline's
    NO_OUTPUT = "no_output"  # nothing written to L2 or DRAM
    NO_TIME_MODEL = "no_time_model"  # no measured time or no unit term: nothing to grade against
    SMALL_GRID = "small_grid"  # every timed launch a small grid: its grid, not a unit's peak, sets its time


class LaunchGrade(Struct, frozen=True):
    """One launch: its measured time, its floors at the achievable and the units' full peaks, their grades, and the
    term that makes the achievable floor with that unit's achievable fraction and its source; each None where its
    time model has no unit term, with ``reason`` why (the time model's)."""

    measured_s: float
    floor_s: float | None
    datasheet_floor_s: float | None
    grade: float | None
    datasheet_grade: float | None
    governing: str | None  # the unit that makes the achievable floor ("DRAM", "FMA", "FP32", "tail", "launch", ...)
    fraction: float | None
    fraction_source: str
    metric: str = ""  # that term's metric (a breakdown metric or a roof key; "" for the launch floor)
    reason: str = ""  # why the launch is not graded ("" where it is)
    name: str = ""  # that term's full name, as the time model names it ("LSU pipe (load/store instructions), in
    # whole blocks per SM" for a tail: whose whole blocks); "" where the launch is not graded
    small_grid: bool = False  # a small-grid launch: not graded, its time counted apart (``SMALL_GRID_REASON``)


class Floor(Struct, frozen=True):
    """The floor at the achievable peaks: seconds, the term that makes it, its fraction and source."""

    seconds: float
    key: str
    fraction: float
    source: str
    metric: str = ""
    name: str = ""  # the term's full name (``Term.name``)


class WorkFinding(Struct, frozen=True):
    """The work of the graded kernel against the baseline's: the comparison (``analysis.work``), the FLOPs ratio,
    the precision (or ``tensor:<type>``) each side computes in, and the baseline kernel compared with."""

    baseline_kernel: str
    check: WorkCheck
    flops_ratio: float | None
    precision: str | None
    baseline_precision: str | None
    written_ratio: float | None = None  # bytes written per launch over the baseline's (shown, not decisive: fewer
    # stores or atomics can be the optimisation itself)
    flops: tuple[float | None, float | None] = (None, None)  # FLOPs per launch: the baseline's, this kernel's
    written: tuple[float | None, float | None] = (None, None)  # bytes written per launch: the baseline's, this one's


class Interval(Struct, frozen=True):
    """The spread of a kernel's grade over its launches, and how it is computed."""

    low: float
    high: float
    method: str = INTERVAL_METHOD


class KernelGrade(Struct, frozen=True, kw_only=True):
    """A kernel's grade (None where withheld, with the reasons), time-weighted over its launches, its interval, the
    unit and roof that govern it, the most any what-if saves, the conditions and the confidence."""

    kernel: str
    launches: int
    grade: float | None  # over its graded launches
    datasheet_grade: float | None
    interval: Interval | None
    governing: str | None  # the achievable floor's unit over most of the graded time
    governing_name: str | None = None  # that term's full name (a tail's: which unit's whole blocks per SM)
    roof: str | None  # the precision, ``tensor:<type>`` or memory level whose roof applies
    measured_s: float | None  # its launches' measured time; None where no launch has one
    graded_s: float | None = None  # its graded launches' time, the one the grade is over (the grade is floor_s /
    # graded_s, the most saved graded_s - floor_s): measured_s less the small grids' and the launches without a time
    # model; None where no launch is graded
    floor_s: float | None  # over the graded launches, each at most its time (a grade is at most 1), so floor_s /
    # graded_s is the grade; None unless every timed launch but the small grids is graded
    max_saving_s: float | None  # the graded launches' measured - floor: the most a what-if that keeps the work and
    # grid saves (small grids apart: 0 where every timed launch is one); None as floor_s
    per_launch: tuple[LaunchGrade, ...]  # every launch with a measured time, graded or not (``reason``)
    conditions: tuple[Condition, ...]
    confidence: Confidence | None  # None where the grade is withheld: no grade to qualify
    withheld: tuple[Withheld, ...] = ()
    work: WorkFinding | None = None
    reason: str = ""  # why its first ungraded launch is not graded (its time model's reason); "" where all are
    # (the small grids apart: ``SMALL_GRID_REASON``)
    small_grid_s: float | None = None  # its small-grid launches' time, counted apart (0 where none); None where no
    # timed launch has a verdict (whether any is a small grid is not known)
    graded_launches: int = 0  # the launches ``graded_s`` is over
    small_grid_launches: int = 0  # the timed launches counted apart as small grids
    unmodelled_launches: int = 0  # the timed launches neither graded nor small grids (no time model)


# --- The floor and the grade of a launch --------------------------------------------------------------------
def achievable_floor(model: TimeModel) -> Floor | None:
    """The floor every what-if measures its saving to (``time_model.reach_floor``: each term at the peak a kernel
    can reach), never below the launch floor; None without a measured time or unit terms."""
    from roofline.specs.achievable import FULL_PEAK

    if model.measured_s is None or model.reason or model.floor is None:
        return None
    term = reach_floor(model)
    if term is None or reach(term) <= LAUNCH_FLOOR_S:
        launch = model.term(LAUNCH)
        return Floor(LAUNCH_FLOOR_S, LAUNCH, 1.0, FULL_PEAK, name=launch.name if launch is not None else LAUNCH)
    seconds = reach(term)
    fraction = 1.0 if term.achievable_s is None else \
        term.peak_fraction if term.peak_fraction is not None else term.seconds / seconds
    return Floor(seconds, named_key(model, term), fraction, term.peak_source or FULL_PEAK,
                 term.peak_metric or term.metric, term.name)


def named_key(model: TimeModel, term: Term) -> str:
    """The floor's name: its unit's (``unit_name``); a tail within ``TAIL_NAMED`` of its own unit's time (many
    waves) is named by that unit, as ``project`` names the unit that governs there."""
    if term.kind != TAIL:
        return unit_name(term)
    unit = next((u for u in model.terms if u.kind != TAIL and u.metric == term.metric), None)
    return unit_name(unit) if unit is not None and reach(unit) * (1.0 + TAIL_NAMED) >= reach(term) else term.key


def unit_name(term: Term) -> str:
    """A term's unit as the breakdowns name it: a roof term (a report without breakdowns) by its level or precision
    in the breakdowns' words ("DRAM", not "dram roof"), the others by their key."""
    return m.unit_short_name(term.metric) if term.kind == "roof" and term.metric else term.key


def _level(metric: str) -> str | None:
    """The memory level of a term's metric (a breakdown metric or a roof key), None for the rest."""
    level = m.UNIT_LEVELS.get(metric.split("__", 1)[0]) if "__" in metric else metric
    return level if level in ("dram", "l2", "l1") else None


def launch_grade(k: LaunchAnalysis, spec: DeviceSpec | None, device: Device | None = None) -> LaunchGrade | None:
    """One launch's grades: 1 - what running at its floor saves (``time_model.saving`` of the what-if that hides
    latency, the work unchanged) over its time; its time alone, with the reason, where its time model has no unit
    term or the launch is a small grid (``SMALL_GRID_REASON``); None where it has no measured time."""
    model = k.time_model if k.time_model is not None else time_model(k, device, spec)
    if model.measured_s is None or not model.measured_s > 0:
        return None
    measured = model.measured_s
    if k.verdict.bound == SMALL_GRID_BOUND:
        return LaunchGrade(measured, None, None, None, None, None, None, "", "", SMALL_GRID_REASON, small_grid=True)
    floor = achievable_floor(model)
    most = saving(model, Change(hide_latency=True))
    if floor is None or most is None or model.floor is None:
        return LaunchGrade(measured, None, None, None, None, None, None, "", "",
                           model.reason or "no unit term to grade against")
    sheet = max(model.floor.seconds, LAUNCH_FLOOR_S)
    return LaunchGrade(measured, most.floor_s, sheet, 1.0 - most.seconds / measured, min(1.0, sheet / measured),
                       floor.key, floor.fraction, floor.source, floor.metric, name=floor.name)


# --- Conditions ----------------------------------------------------------------------------------------------
def conditions(launches: Sequence[LaunchAnalysis], spec: DeviceSpec | None) -> tuple[Condition, ...]:
    """The conditions of a kernel's measurement, from its launches (see the module docstring)."""
    return (clock_condition(launches, spec), cache_condition(), replay_condition(launches),
            launches_condition(len(launches)))


def clock_condition(launches: Sequence[LaunchAnalysis], spec: DeviceSpec | None) -> Condition:
    """The launches' median SM clock against the spec's base clock, over the launches of CLOCK_MIN_DURATION_S or more
    where there are any; a clock under base read only from shorter launches is not judged (they read it low); no
    clock where ncu measured no launch (no time, no clock: ``NOT_MEASURED``, which no ncu option fixes: the launch
    is profiled again)."""
    long = [k for k in launches if m.clock_judged(k.launch)]
    clocks = sorted(c for k in (long or launches) if (c := m.sm_clock_hz(k.launch).value) is not None)
    base = spec.base_clock_hz if spec is not None else None
    clock = clocks[len(clocks) // 2] if clocks else None
    if clock is None and not any(k.duration_s.value is not None for k in launches):
        return Condition(ConditionKind.CLOCK, State.NOT_MEASURED, True, NcuFix.NONE, None, base)
    if clock is None or not base:
        return Condition(ConditionKind.CLOCK, State.UNKNOWN, True, NcuFix.CLOCK_BASE, clock, base)
    if not long and clock < (1 - CLOCK_TOLERANCE) * base:
        return Condition(ConditionKind.CLOCK, State.SHORT_LAUNCHES, True, NcuFix.NONE, clock, base)
    if abs(clock - base) <= CLOCK_TOLERANCE * base:
        return Condition(ConditionKind.CLOCK, State.LOCKED_BASE, False, NcuFix.NONE, clock, base)
    if clock > base:
        return Condition(ConditionKind.CLOCK, State.ABOVE_BASE, True, NcuFix.CLOCK_BASE, clock, base)
    return Condition(ConditionKind.CLOCK, State.BELOW_BASE, True, NcuFix.NONE, clock, base)


def cache_condition() -> Condition:
    """Cache control: an .ncu-rep stores no trace of it (neither the option nor a flush counter), so unknown."""
    return Condition(ConditionKind.CACHE, State.UNKNOWN, True, NcuFix.CACHE_ALL)


def replay_condition(launches: Sequence[LaunchAnalysis]) -> Condition:
    """The replay mode from the passes and the bytes backed up (the most passes over the launches)."""
    passes = [p for k in launches if (p := k.launch.value(m.REPLAYER_PASSES)) is not None]
    if not passes:
        return Condition(ConditionKind.REPLAY, State.UNKNOWN, True, NcuFix.REPLAY_KERNEL)
    most = max(passes)
    backed = [b for k in launches if (b := k.launch.value(m.REPLAYER_BACKED_UP)) is not None]
    if most <= 1:
        state = State.SINGLE_PASS
    else:
        state = State.KERNEL if backed and max(backed) > 0 else State.NOT_KERNEL
    lowers = state is State.NOT_KERNEL
    return Condition(ConditionKind.REPLAY, state, lowers, NcuFix.REPLAY_KERNEL if lowers else NcuFix.NONE,
                     most)


def launches_condition(n: int) -> Condition:
    """One launch gives no spread: low confidence, fixed by measuring more (``-c N``)."""
    state = State.ONE if n <= 1 else State.SEVERAL
    return Condition(ConditionKind.LAUNCHES, state, state is State.ONE,
                     NcuFix.LAUNCH_COUNT if state is State.ONE else NcuFix.NONE, float(n))


def confidence(found: Sequence[Condition]) -> Confidence:
    """High, one level lower per condition that lowers it; low with a single launch."""
    if any(c.kind is ConditionKind.LAUNCHES and c.lowers for c in found):
        return Confidence.LOW
    levels = (Confidence.HIGH, Confidence.MEDIUM, Confidence.LOW)
    return levels[min(len(levels) - 1, sum(c.lowers for c in found))]


# --- Work ----------------------------------------------------------------------------------------------------
def precision(launches: Sequence[LaunchAnalysis]) -> str | None:
    """The precision the launches compute most FLOPs in; ``tensor:<type>`` for the Tensor Cores' main input type."""
    flops: dict[str, float] = {}
    types: dict[str, float] = {}
    for k in launches:
        for p in PRECISIONS:
            v = k.flops[p].value if p in k.flops else None
            flops[p] = flops.get(p, 0.0) + (v or 0.0)
        for t, f in k.tensor_flops_by_type.items():
            types[t] = types.get(t, 0.0) + f
    if not any(flops.values()):
        return None
    main = max(flops, key=lambda p: flops[p])
    if main == "tensor" and types:
        return f"tensor:{max(types, key=lambda t: types[t])}"
    return main


def written_bytes(k: LaunchAnalysis) -> float | None:
    """Bytes a launch wrote: the SMs' L2 write, atomic and reduction sectors x 32, and DRAM writes; None where the
    report holds none of them."""
    sectors = [k.launch.value(f"{name}.sum") for name in (m.L2_SM_READ_WRITE[1], m.L2_SM_ATOM, *m.L2_SM_ATOM_KINDS,
                                                            m.L2_SM_RED)]
    dram = k.launch.value(f"{m.DRAM_READ_WRITE[1]}.sum")
    known = [32.0 * s for s in sectors if s is not None] + ([dram] if dram is not None else [])
    return sum(known) if known else None


def work_finding(kernel: KernelGroup, baseline: KernelGroup) -> WorkFinding:
    """The graded kernel's work per launch against the baseline kernel's."""
    base, other = launch_work(baseline.launches), launch_work(kernel.launches)
    check = compare_work(base, other, WORK_TOLERANCE, same_kernel=kernel.name == baseline.name)
    written = [_mean_written(g) for g in (baseline, kernel)]
    ratio = written[1] / written[0] if written[0] and written[1] is not None else None
    return WorkFinding(baseline.name, check, _flops_ratio(base, other), precision(kernel.launches),
                       precision(baseline.launches), ratio, (base.total_flops, other.total_flops),
                       (written[0], written[1]))


def _mean_written(kernel: KernelGroup) -> float | None:
    """The bytes a kernel's launches wrote, per launch; None where any launch lacks them."""
    written = [written_bytes(k) for k in kernel.launches if not k.launch.invalid]
    return None if not written or None in written else sum(w or 0.0 for w in written) / len(written)


def _flops_ratio(base: Work, other: Work) -> float | None:
    a, b = base.total_flops, other.total_flops
    return b / a if a and b is not None else None


def withheld(kernel: KernelGroup, work: WorkFinding | None) -> tuple[Withheld, ...]:
    """Why the kernel's grade is withheld: less work or a less precise type than the baseline's, nothing written."""
    reasons = []
    if work is not None:
        if work.flops_ratio is not None and work.flops_ratio * (1.0 + WORK_TOLERANCE) < 1.0:
            reasons.append(Withheld.LESS_WORK)
        if less_precise(work.precision, work.baseline_precision):
            reasons.append(Withheld.OTHER_PRECISION)
    written = [w for k in kernel.launches if (w := written_bytes(k)) is not None]
    if written and max(written) <= NOTHING_WRITTEN_BYTES:
        reasons.append(Withheld.NO_OUTPUT)
    return tuple(reasons)


def less_precise(used: str | None, asked: str | None) -> bool:
    """Whether ``used`` is a different, not more precise, precision or type than ``asked`` (both known)."""
    if used is None or asked is None or used == asked:
        return False
    rank = {p: i for i, p in enumerate(PRECISION_ORDER)}
    return rank.get(used, len(rank)) >= rank.get(asked, len(rank))


# --- A kernel and a report -----------------------------------------------------------------------------------
def grade_kernel(kernel: KernelGroup, spec: DeviceSpec | None, device: Device | None = None,
                 baseline: KernelGroup | None = None) -> KernelGrade:
    """A kernel's grade over its valid launches (see the module docstring)."""
    launches = [k for k in kernel.launches if not k.launch.invalid]
    each = [launch_grade(k, spec, device) for k in launches]
    timed = [g for g in each if g is not None]
    small = [g for g in timed if g.small_grid]
    grades = [g for g in timed if g.grade is not None]
    why = next((ungraded_reason(k, g, spec, device) for k, g in zip(launches, each, strict=True)
                if g is None or (g.grade is None and not g.small_grid)), "")
    found = conditions(launches, spec)
    work = work_finding(kernel, baseline) if baseline is not None else None
    reasons = withheld(kernel, work) + (() if grades else _ungraded(bool(small), bool(why)))
    graded_s = sum(g.measured_s for g in grades)
    # every timed launch but the small grids graded: the floor and saving cover the time they are not counted apart
    every = len(grades) + len(small) == len(timed) and bool(timed)
    saved = sum(((1.0 - (g.grade or 0.0)) * g.measured_s for g in grades), 0.0)
    shown = not reasons and grades and graded_s > 0
    return KernelGrade(
        kernel=kernel.name, launches=len(launches),
        grade=1.0 - saved / graded_s if shown else None,
        datasheet_grade=min(1.0, sum(g.datasheet_floor_s or 0.0 for g in grades) / graded_s) if shown else None,
        interval=Interval(min(g.grade or 0.0 for g in grades), max(g.grade or 0.0 for g in grades))
        if shown and len(grades) > 1 else None,
        governing=_governing(grades), governing_name=_governing_name(grades), roof=_roof(grades, launches),
        measured_s=sum(g.measured_s for g in timed) if timed else None, graded_s=graded_s if grades else None,
        floor_s=sum(min(g.floor_s or 0.0, g.measured_s) for g in grades) if grades and every else None,
        max_saving_s=saved if every else None, per_launch=tuple(timed),
        conditions=found, confidence=confidence(found) if shown else None, withheld=reasons, work=work, reason=why,
        small_grid_s=small_grid_time(launches, each), graded_launches=len(grades), small_grid_launches=len(small),
        unmodelled_launches=len(timed) - len(grades) - len(small))


def _ungraded(small: bool, unmodelled: bool) -> tuple[Withheld, ...]:
    """Why no launch of a kernel is graded: small grids (``SMALL_GRID_REASON``), launches without a time model
    (``unmodelled``), or both; no time model where it has neither (no launch timed)."""
    return ((Withheld.SMALL_GRID,) if small else ()) + ((Withheld.NO_TIME_MODEL,) if unmodelled or not small else ())


def small_grid_time(launches: Sequence[LaunchAnalysis], each: Sequence[LaunchGrade | None]) -> float | None:
    """The measured time of the small-grid launches (their grades ``each``, in the order of ``launches``): the
    summary's small grids (``roofline.small_grid_time``), 0 where none is one; None where no timed launch has a
    verdict (whether any is a small grid is not known)."""
    known = [g for k, g in zip(launches, each, strict=True) if g is not None and k.verdict.bound is not None]
    return sum((g.measured_s for g in known if g.small_grid), 0.0) if known else None


def ungraded_reason(k: LaunchAnalysis, graded: LaunchGrade | None, spec: DeviceSpec | None,
                    device: Device | None) -> str:
    """Why a launch is not graded: its time model's reason (no measured time, or no unit term)."""
    if graded is not None and graded.reason:
        return graded.reason
    model = k.time_model if k.time_model is not None else time_model(k, device, spec)
    return model.reason or "no measured time"


def _governing(grades: Sequence[LaunchGrade]) -> str | None:
    """The achievable floor's term over most of the graded time."""
    time: dict[str, float] = {}
    for g in grades:
        if g.governing is not None:
            time[g.governing] = time.get(g.governing, 0.0) + g.measured_s
    return max(time, key=lambda key: time[key]) if time else None


def _governing_name(grades: Sequence[LaunchGrade]) -> str | None:
    """The full name of the term that governs (``_governing``), from the first launch it governs."""
    key = _governing(grades)
    return next((g.name for g in grades if g.governing == key and g.name), None) if key is not None else None


def _roof(grades: Sequence[LaunchGrade], launches: Sequence[LaunchAnalysis]) -> str | None:
    """The roof that applies: the governing term's memory level, else the precision the kernel computes in."""
    key = _governing(grades)
    if key is None:
        return None
    level = next((_level(g.metric) for g in grades if g.governing == key and g.metric), None)
    return level if level is not None else precision(launches)


class ReportGrade(Struct, frozen=True):
    """The grades of a report's kernels, in its order, and the baseline report compared with ("" for none)."""

    path: str
    spec_id: str | None
    kernels: tuple[KernelGrade, ...]
    baseline: str = ""


def grade_report(analysis: ReportAnalysis, spec: DeviceSpec | None, baseline: ReportAnalysis | None = None,
                 kernels: Sequence[str] = ()) -> ReportGrade:
    """The grade of each kernel of ``analysis`` (those named in ``kernels``, all by default), each against the
    baseline's kernel of the same name, else the baseline's longest; ReportError (one line) where no launch of the
    report is valid (nothing to grade), or none of the baseline's (nothing to check the work against)."""
    from roofline.analysis.launches import no_valid_launch

    if not analysis.groups:
        raise ReportError(f"{analysis.report.path}: nothing to grade: {no_valid_launch(analysis)}",
                          REPROFILE_INVALID)
    if baseline is not None and not baseline.groups:
        raise ReportError(f"{baseline.report.path}: no baseline kernel to check the work against: "
                          f"{no_valid_launch(baseline)}", "profile the baseline's kernels again, or leave --baseline "
                          "out (roofline report FILE shows each launch's problem)")
    groups = [g for g in analysis.groups if not kernels or g.name in kernels]
    return ReportGrade(analysis.report.path, analysis.spec_id,
                       tuple(grade_kernel(g, spec, analysis.device, baseline_kernel(baseline, g.name))
                             for g in groups), baseline.report.path if baseline is not None else "")


def baseline_kernel(baseline: ReportAnalysis | None, name: str) -> KernelGroup | None:
    """The baseline's kernel of that name, else its longest; None without a baseline (``grade_report`` refuses one
    without kernels)."""
    if baseline is None or not baseline.groups:
        return None
    same = [g for g in baseline.groups if g.name == name]
    return same[0] if same else max(baseline.groups, key=lambda g: g.total_s or 0.0)
