"""The ``compare``, ``diff``, ``project`` and ``summary`` documents: reports side by side, the regression gate, a
kernel's time projected to another GPU, and the application summary.

Numbers in SI base units; "not measured" is ``null`` with its reason under the object's ``missing`` (one entry per
kernel or side, so the reason texts stay in place). ``kind`` says which document it is.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Annotated, Literal, NamedTuple

from msgspec import UNSET, Meta, Struct, UnsetType
from msgspec.structs import asdict

from roofline.analysis.grade import State
from roofline.analysis.kernels import KernelStats
from roofline.analysis.results import Bound
from roofline.analysis.view import LeftOut
from roofline.analysis.work import Measure, WorkCheck, WorkNote
from roofline.compare.noise import Change
from roofline.compare.pairing import (
    ClockRan,
    Comparison,
    ExpectedBasis,
    KernelPair,
    OwnGpu,
    ReportRef,
    UnderBound,
)
from roofline.compare.projection import Projection, SharedMemoryFit
from roofline.compare.projection_launches import (
    LEFT_OUT_WORDS,
    KernelTotal,
    LeftOutKernel,
    WorkloadProjection,
)
from roofline.compare.ranking import RECOVERABLE_COUNTS, TIME_TO_GAIN_COUNTS, AppSummary, RankedByKind, SummaryRow
from roofline.compare.regression import DiffResult, GateNote, NotJudged, Unchecked, Verdict
from roofline.core.choices import TargetClock
from roofline.core.labels import letter
from roofline.core.model import CeilingSet
from roofline.core.version import GENERATOR
from roofline.documents.common import (
    NO_GAIN,
    NO_VALID_LAUNCH,
    SCHEMA_VERSION,
    UNTIMED,
    Generator,
    LeftOutFile,
    Number,
    Tool,
    Version,
    number,
    tool,
    value_or_null,
    values_or_null,
)
from roofline.documents.report import CeilingsText, roof_reasons, small_grid_reason
from roofline.ncu.metrics import HINT_INSTRUCTIONS, HINT_PC_SAMPLES

HEADLINE = Literal["speedup", "throughput", "time_ratio"]
CHANGE_ESTIMATE = "median of the pairwise launch-time ratios (Hodges-Lehmann); interval: Mann-Whitney U inverted"



class CompareWords(NamedTuple):
    """The sentences a comparison document holds, written by the renderers' prose (passed in, as this stage is below
    render): a note on a work comparison, why a measure's sides are not comparable (their definitions), a work
    comparison's summary, why the diff gate left a kernel out, and a gate that could not judge it."""

    work_note: Callable[[WorkNote], str]
    apart: Callable[[tuple[str, ...]], str]
    work_summary: Callable[[WorkCheck], str]
    gate_note: Callable[[GateNote], str]
    unchecked: Callable[[Unchecked], str]


class ReportRefDoc(Struct, frozen=True, kw_only=True):  # keyword fields: a subclass's positional ones come first
    """One report of a comparison: its label, file, GPU and totals."""

    label: str
    path: str
    device: str
    compute_capability: str | None
    sm_count: int | None
    ncu_version: str | None
    spec_id: str | None
    ceilings_used: CeilingSet
    launches: int
    total_time_s: Number
    warnings: list[str]
    missing: dict[str, str] = {}  # the reason of each null field


class LetteredRef(ReportRefDoc, frozen=True):
    """A report of a comparison with its letter (A, B, ...)."""

    letter: str


class WorkPerLaunch(Struct, frozen=True):
    """A kernel's work per launch."""

    flops: dict[str, Number]
    bytes: dict[str, Number]
    threads: Number
    instructions: Number


class SideCeilings(CeilingsText, frozen=True):
    """The roofs a side is placed under, where they come from, and the reason of each null roof."""

    source: str


class ClockDoc(Struct, frozen=True):
    """The clocks a projection assumes and the factors they give."""

    choice: TargetClock
    target_clock_hz: float
    target_boost_clock_hz: float
    source_clock_hz: Number
    source_boost_clock_hz: Number
    source_tensor_clock_hz: Number
    target_tensor_clock_hz: Number
    factor: float
    tensor_factor: float


class L2TermDoc(Struct, frozen=True):
    """The DRAM bytes on the target's L2 size, with their bounds and inputs."""

    dram_bytes: float
    l2_bytes: Number
    working_set_bytes: float
    source_l2_bytes: Number
    target_l2_bytes: Number
    dram_bytes_there: float
    dram_bytes_low: float
    dram_bytes_high: float
    factor: Number
    note: str


class SharedMemoryDoc(Struct, frozen=True):
    """Whether the kernel's blocks, as built, fit the most shared memory a block may have on the target."""

    kernel_bytes: int  # the kernel's own request per block: the report's shared_mem_per_block_bytes less the driver's
    limit_bytes: int
    compute_capability: str
    fits: bool


class ProjectionDoc(Struct, frozen=True):
    """A kernel's time per launch projected to another GPU (a model, not a measurement)."""

    target: str
    kind: str
    projected_s: Number
    low_s: Number
    high_s: Number
    basis: str
    governing: str | None
    bound_s: Number
    limiter: str | None
    left_out: list[str]
    max_speedup: Number
    clock: ClockDoc | None
    l2_term: L2TermDoc | None
    shared_memory: SharedMemoryDoc | None
    # why the interval's low end is under bound_s: other_kernel (another kernel likely there, which the measured work
    # does not bound), l2_term (the bound counts the DRAM bytes a smaller L2 adds), floors_apart (the interval's floor
    # is each launch's work at the boost clock's peaks, the bound the summed work at the chosen clock)
    under_bound: UnderBound | None = None


class Stats(Struct, frozen=True):
    """One kernel's aggregate in one report; ``missing`` holds the reason of every null."""

    report: str
    names: list[str]
    count: int
    work_per_launch: WorkPerLaunch | None
    total_s: Number
    median_s: Number
    per_launch_s: Number
    flops: dict[str, Number]
    flop_per_s: dict[str, Number]
    bytes: dict[str, Number]
    bytes_per_s: dict[str, Number]
    intensity: dict[str, Number]
    ceilings: SideCeilings
    pct_of_roof: Number
    bound: Bound | None
    limiter: str | None
    roof_time_s: Number
    attainable_flop_per_s: Number
    projection: ProjectionDoc | None
    missing: dict[str, str]


class MeasureDoc(Struct, frozen=True):
    """One quantity of work on both sides, per launch, and whether it differs or decides; ``missing`` holds the
    reason of each null (keys ``base``, ``other``, ``ratio``, ``apart``)."""

    base: Number
    other: Number
    ratio: Number
    differs: bool
    decides: bool
    apart: str | None
    missing: dict[str, str]


class Governing(Struct, frozen=True):
    """The resource that bounds each side."""

    base: str | None
    other: str | None


class WorkDoc(Struct, frozen=True):
    """The work of a pair's other side against the base, per launch."""

    different: bool
    basis: str | None
    tolerance: float
    summary: str
    throughput_unit: str | None
    work_ratio: Number
    governing: Governing
    notes: list[str]
    measures: dict[str, MeasureDoc]
    missing: dict[str, str] = {}  # the reason of a null basis, throughput_unit, work_ratio or governing side


class ChangeDoc(Struct, frozen=True):
    """A change of launch times (other / base) with its interval; ``missing``: why the interval or ``untested`` is
    null."""

    ratio: float
    low: Number
    high: Number
    confidence: float
    base_launches: int
    new_launches: int
    untested: str | None
    estimate: str
    missing: dict[str, str] = {}


class Headline(Struct, frozen=True):
    """The figure a report is compared with the base by, with its interval; ``missing``: why a null is null."""

    kind: HEADLINE
    unit: str
    ratio: Number
    low: Number
    high: Number
    missing: dict[str, str] = {}


class ExpectedClockDoc(Struct, frozen=True):
    """For an expected speedup by projection: the SM clock the side's launches of the kernel ran at (their median)
    against the base clock of its spec the projection assumes there; ``state`` above_base or below_base: the side ran
    beyond 3% of it, and its kept up counts that change of clock too (locked_base: within; short_launches: read only
    on launches too short to read it, not judged; unknown: no clock in the report)."""

    state: State
    clock_hz: Number
    base_clock_hz: float
    missing: dict[str, str]


class Pair(Struct, frozen=True):
    """A kernel matched across the reports: one entry per report (null where it is absent there); the reason of each
    null under ``missing``, keyed by the list's index (``speedup[1]``). ``expected_basis``: how each expected speedup
    is made, projection (``roofline project A --to B --clock base``'s number) or roof_time_* (roof time A / roof time
    B, and why not by projection: one_gpu, work_apart, no_target_spec, no_base_clock, no_source_spec)."""

    key: str
    label: str
    matched_by: str
    sides: list[Stats | None]
    work: list[WorkDoc | None]
    change: list[ChangeDoc | None]
    headline: list[Headline | None]
    launch_overhead: list[Number]
    speedup: list[Number]
    expected_speedup: list[Number]
    kept_up: list[Number]
    missing: dict[str, str]
    expected_basis: list[ExpectedBasis | None] = []
    expected_clock: list[ExpectedClockDoc | None] = []


class CompareJson(Struct, frozen=True):
    """``roofline compare -f json``: the reports, every matched kernel, the unmatched ones."""

    generator: Generator
    schema_version: Version
    kind: Literal["compare"]
    tool: Tool
    matching: str
    project_to: str | None
    clock: TargetClock
    alpha: float
    work_tolerance: float
    reports: list[LetteredRef]
    kernels: list[Pair]
    unmatched: dict[str, list[str]]
    missing: dict[str, str] = {}  # the reason of a null project_to


class ThresholdsDoc(Struct, frozen=True):
    """The gate's thresholds."""

    slower_pct: float
    min_share_pct: float
    total_slower_pct: float
    roof_drop_pct: Number
    alpha: float
    work_tolerance: float
    gate_different_work: bool
    new_share_pct: Number = None  # --fail-if-new-share: NEW's own kernels' share of its kernel time (null: off)


class Regression(Struct, frozen=True):
    """A kernel that regressed, and why."""

    kernel: str
    reasons: list[str]


class TotalDoc(Struct, frozen=True):
    """The gated kernels' total time at NEW's speed against BASE's."""

    kernels: int
    base_s: float
    at_new_speed_s: float
    change_pct: float
    regressed: bool


class HotLineShift(Struct, frozen=True):
    """A source line whose share of the kernel's warp samples moved, BASE -> NEW."""

    source: str
    base_share: float
    new_share: float
    change_pts: float


# a figure of time alone: the MCP compare_reports tool leaves it out (unset) where the work differs; diff writes it
TimeAlone = Annotated[Number | UnsetType, Meta(extra_json_schema={"default": None})]


class JudgedFields(Struct, frozen=True, kw_only=True):
    """A kernel the regression gate judged, as ``diff`` and the MCP ``compare_reports`` tool both write it: the
    change with its noise interval, the figures of time alone, the slowdown per unit of work and the verdict."""

    key: str
    label: str
    matched_by: str
    work: WorkDoc | None
    change: ChangeDoc | None
    speedup: TimeAlone = UNSET
    expected_speedup: TimeAlone = UNSET
    slowdown_pct: TimeAlone = UNSET
    per_work_slowdown_pct: Number
    roof_drop_pct: Number
    share_pct: Number
    gated: bool
    not_gated: str | None
    regressed: bool
    reasons: list[str]
    unchecked: list[str]
    hot_lines: list[HotLineShift] | None
    missing: dict[str, str]


class DiffKernel(JudgedFields, frozen=True, kw_only=True):
    """One kernel of a diff: BASE and NEW, their work, the change with its noise interval, and the gate's verdict
    (every figure of time alone written, null with its reason where not measured)."""

    base: Stats
    new: Stats
    kept_up: Number
    p_value: Number


class DiffJson(Struct, frozen=True):
    """``roofline diff -f json``: thresholds, verdict and exit code, each kernel with its change and reasons."""

    generator: Generator
    schema_version: Version
    kind: Literal["diff"]
    tool: Tool
    base: ReportRefDoc
    new: ReportRefDoc
    matching: str
    setup_notes: list[str]
    thresholds: ThresholdsDoc
    regression: bool
    exit_code: Literal[0, 1, 2]
    regressions: list[Regression]
    total: TotalDoc | None
    kernels: list[DiffKernel]  # regressed kernels first, then the others by BASE time, as the table lists them
    only_in_base: list[str]  # kernels one report alone runs; one the other ran with every launch invalid is in
    only_in_new: list[str]  # not_judged instead (where its share reaches --min-share), never in both
    only_in_new_s: Number  # NEW's kernel time less its paired kernels': the kernels only NEW runs, not gated
    only_in_new_share: Number  # that time's share of NEW's kernel time
    missing: dict[str, str]
    only_in_new_regressed: bool | None = None  # that share above thresholds.new_share_pct; null: not gated
    not_judged: list[NotJudged] = []  # kernels the gate would judge but could not: exit 2 unless a regression


class ProjectKernel(Struct, frozen=True):
    """One kernel name's launches, each projected to the target (``compare.projection_launches``) and summed: its
    launch count, groups of identical launches, measured and projected totals with the interval's ends, and the unit
    that governs most of its projected time."""

    name: str
    count: int
    groups: int
    measured_s: float  # the sum over its launches of the measured time
    kind: str
    projected_s: float  # the sum over its launches of the projected time there
    low_s: float
    high_s: float
    governing: str
    other_kernel: list[str]  # keys of compare.projection_launches.OTHER_KERNEL: another kernel likely there
    shared_memory: SharedMemoryDoc | None  # whether its blocks, as built, fit a block's shared memory there
    missing: dict[str, str]


class OwnGpuDoc(Struct, frozen=True):
    """The report's own GPU among ``everywhere``'s rows (``compare.pairing.OwnGpu``): its speedup there is the
    change from the clock the report ran at to the projection's, not an error of the model. ``source_clock``:
    locked_base (the base clock ncu locks while profiling, its default --clock-control base), above_base (clocks not
    locked), below_base (held under base by power or heat), unknown."""

    target: str
    source_clock: State
    source_clock_hz: Number  # the report's median SM clock
    base_clock_hz: Number  # the spec's base clock
    clock: str  # the clock the projection takes there
    clock_hz: float
    missing: dict[str, str]


class KernelTotalDoc(KernelTotal, frozen=True, kw_only=True):
    """One kernel name's launches summed on one GPU (``KernelTotal``), with whether its blocks, as built, fit a
    block's shared memory there; ``missing``: why ``shared_memory`` is null."""

    shared_memory: SharedMemoryDoc | None = None
    missing: dict[str, str] = {}


class LeftOutKernelDoc(LeftOutKernel, frozen=True, kw_only=True):
    """The launches of one kernel left out of a projection for one cause, and that cause in words."""

    reason: str = ""


class WorkloadDoc(WorkloadProjection, frozen=True, kw_only=True):
    """A workload projected onto one GPU (``WorkloadProjection``), its kernels with their shared-memory check, its
    left-out kernels with their reason in words; ``missing``: the reason of each null figure (``reason`` where
    nothing was projected there: then ``measured_s`` is the measured total the other GPUs' rows count, where one
    has a projection)."""

    kernels: tuple[KernelTotalDoc, ...] = ()
    left_out_kernels: tuple[LeftOutKernelDoc, ...] = ()
    missing: dict[str, str] = {}


class ProjectJson(Struct, frozen=True):
    """``roofline project -f json``: the report and each kernel's projected time per launch on the target; with
    several targets (``--to all`` or a list) each one's workload under ``everywhere``, ``target``, ``workload`` and
    ``kernels`` empty (said under ``missing``)."""

    generator: Generator
    schema_version: Version
    kind: Literal["project"]
    tool: Tool
    target: str | None
    clock: TargetClock
    report: ReportRefDoc
    kernels: list[ProjectKernel]  # per kernel name, summed from ``workload``'s launches
    workload: WorkloadDoc | None = None  # every launch projected, grouped where identical, and the total
    everywhere: list[WorkloadDoc] = []  # --to all or several ids: the workload on each GPU, fastest first
    own_gpu: OwnGpuDoc | None = None  # the report's own GPU's row (of ``everywhere``, or ``workload``) and its clocks
    missing: dict[str, str] = {}  # why target, workload or own_gpu is null, or kernels or everywhere empty


class SummaryRowDoc(Struct, frozen=True):
    """One kernel group of the summary, ranked by time to gain; a group without one (no estimated saving) placed by
    its recoverable time, one without either by its total time: ``ranked_by_kind`` and ``ranked_by_value_s`` say
    which figure placed it."""

    rank: int
    name: str
    count: int
    total_s: Number
    median_s: Number
    min_s: Number
    max_s: Number
    time_share: Number
    recoverable_s: Number
    small_grid_s: Number
    recoverable_share: Number
    median_pct_of_roof: Number
    pct_of_roof: Number
    bound: Bound | None
    intensity: dict[str, Number]
    flop_per_s: dict[str, Number]
    missing: dict[str, str]
    time_to_gain_s: Number  # what each launch's first advice item saves, summed: the report's time to gain
    ranked_by_kind: RankedByKind  # the figure that placed the group: time_to_gain, recoverable or total_time
    ranked_by_value_s: Number  # that figure, in seconds
    unestimated_launches: int | None = None  # with a time to gain: its timed launches without an estimated item
    unestimated_recoverable_s: Number = None  # their recoverable time summed (both null with their reason)


class SummaryReport(Struct, frozen=True):
    """One report's summary: its top kernel groups, ranked by ``ranked_by``."""

    report: ReportRefDoc
    by: Literal["kernel", "function", "nvtx"]
    ranked_by: str
    groups: int
    shown_share: Number
    recoverable_s: Number
    small_grid_s: Number
    recoverable_counts: str
    rows: list[SummaryRowDoc]
    time_to_gain_s: Number  # the groups' times to gain summed
    time_to_gain_counts: str
    groups_without_gain: int  # ranked by time to gain: the groups without one, placed by their recoverable time
    without_gain_recoverable_s: Number  # their recoverable time summed (not in time_to_gain_s)
    missing: dict[str, str] = {}  # the reason of each null figure above


class SummaryJson(Struct, frozen=True, omit_defaults=True):
    """``roofline summary -f json``: per report its top kernel groups; ``left_out`` only where files were."""

    generator: Generator
    schema_version: Version
    kind: Literal["summary"]
    tool: Tool
    top: int
    reports: list[SummaryReport]
    left_out: list[LeftOutFile] = []


def compare_json(c: Comparison, words: CompareWords) -> CompareJson:
    """``kind: compare``: the reports, every matched kernel with one entry per report, unmatched kernels."""
    missing = {} if c.project_to else {"project_to": "not projected: compare --project-to GPU projects each kernel "
                                                     "onto another GPU"}
    return CompareJson(
        GENERATOR, SCHEMA_VERSION, "compare", tool(), c.matching, c.project_to, c.clock, c.alpha, c.work_tolerance,
        [LetteredRef(letter(i), **asdict(report_ref(r))) for i, r in enumerate(c.reports)],
        [pair_doc(p, c.reports, words) for p in c.pairs],
        {r.label: list(names) for r, names in zip(c.reports, c.unmatched, strict=True)}, missing)


def diff_json(d: DiffResult, words: CompareWords) -> DiffJson:
    """``kind: diff``: thresholds, verdict and exit code, each BASE/NEW kernel with its change and reasons."""
    c = d.comparison
    t = d.thresholds
    total = d.total
    return DiffJson(
        GENERATOR, SCHEMA_VERSION, "diff", tool(), report_ref(c.reports[0]), report_ref(c.reports[1]), c.matching,
        list(d.setup_notes),
        ThresholdsDoc(t.slower_pct, t.min_share_pct, t.total_slower_pct, t.roof_drop_pct, c.alpha, c.work_tolerance,
                      t.gate_different_work, t.new_share_pct),
        d.regressed, d.exit_code,  # type: ignore[arg-type]
        [Regression(v.pair.label, list(v.reasons)) for v in d.regressions],
        None if total is None else TotalDoc(total.kernels, total.base_s, total.at_new_speed_s, total.change_pct,
                                            d.total_regressed),
        [diff_kernel(v, c.reports, words) for v in d.verdicts], list(d.only_in(0)), list(d.only_in(1)),
        *only_in_new_doc(d, diff_missing(d)),
        list(d.not_judged))


def diff_missing(d: DiffResult) -> dict[str, str]:
    """The reason of a null total time of BASE (``base.total_time_s``) or NEW, of a gate's threshold not given
    (``thresholds.roof_drop_pct``, ``thresholds.new_share_pct``) and of a kernel not judged without a share."""
    sides = zip(("base", "new"), d.comparison.reports, strict=True)
    off = (("roof_drop_pct", "--fail-if-roof-drop", d.thresholds.roof_drop_pct),
           ("new_share_pct", "--fail-if-new-share", d.thresholds.new_share_pct))
    unknown = "neither report has a launch time of the kernel"
    return ({f"{side}.total_time_s": "no launch of the report has a time" for side, r in sides
             if number(r.total_time_s) is None}
            | {f"thresholds.{key}": f"{option} not given: that gate is off" for key, option, value in off
               if value is None}
            | {f"not_judged[{i}].{key}": unknown for i, n in enumerate(d.not_judged)
               for key, value in (("share_pct", n.share_pct), ("share_of", n.share_of)) if value is None})


def only_in_new_doc(d: DiffResult, missing: dict[str, str]) -> tuple[float | None, float | None, dict[str, str],
                                                                     bool | None]:
    """The time of the kernels only NEW runs, its share of NEW's kernel time and whether --fail-if-new-share
    failed it, each null with its reason (added to the document's other reasons, ``missing``)."""
    extra = d.only_in_new
    gated = d.thresholds.new_share_pct is not None
    if not gated:
        missing = {**missing, "only_in_new_regressed": "not gated: --fail-if-new-share not given"}
    if extra is not None:
        return extra.seconds, extra.share, missing, d.only_in_new_regressed if gated else None
    why = "NEW runs no kernel BASE lacks" if not d.only_in(1) else "NEW has no kernel time"
    return None, None, {"only_in_new_s": why, "only_in_new_share": why, **missing}, False if gated else None


def diff_kernel(v: Verdict, reports: Sequence[ReportRef], words: CompareWords) -> DiffKernel:
    """One kernel of a diff: BASE and NEW aggregates, their work, the change with its noise interval, and why it
    regressed, was not gated or not checked."""
    missing: dict[str, str] = {}
    p = v.pair
    out = DiffKernel(
        key=p.key, label=p.label, matched_by=p.matched_by, base=stats_doc(p.side(0), reports[0].label),
        new=stats_doc(p.side(1), reports[1].label),
        work=work_doc(p.work[1] if p.work else None, words, (p.side(0), p.side(1))),
        change=change_doc(v.change), speedup=value_or_null(p.speedup[1], "speedup", missing),
        expected_speedup=value_or_null(p.expected_speedup[1], "expected_speedup", missing),
        kept_up=value_or_null(p.kept_up[1], "kept_up", missing),
        slowdown_pct=value_or_null(v.slowdown_pct, "slowdown_pct", missing),
        per_work_slowdown_pct=per_work_pct(v, missing, words),
        roof_drop_pct=value_or_null(v.roof_drop_pct, "roof_drop_pct", missing), share_pct=number(v.share_pct),
        p_value=number(v.p_value), gated=v.not_gated is None,
        not_gated=None if v.not_gated is None else words.gate_note(v.not_gated), regressed=v.regressed,
        reasons=list(v.reasons), unchecked=[words.unchecked(u) for u in v.unchecked], hot_lines=hot_lines(v, missing),
        missing=missing)
    missing.update(judged_missing(v, words, (out.change is None, out.share_pct is None, out.p_value is None)))
    if v.not_gated is None:
        missing["not_gated"] = "gated: the gate judged the kernel (gated true)"
    return out


def judged_missing(v: Verdict, words: CompareWords, nulls: tuple[bool, bool, bool]) -> dict[str, str]:
    """The reason of a null ``change`` (no launch times on a side), ``share_pct`` (no time in either report) and
    ``p_value`` (no change, not gated, untested for noise, or the slower gate could not judge it); ``nulls`` says
    which of the three are null."""
    no_time = v.slowdown_pct.reason or "no launch times on both sides"
    change = v.change
    slower = next((words.unchecked(u) for u in v.unchecked if u.gate == "slower"), "")
    if change is None:
        p_value = no_time
    elif v.not_gated is not None:
        p_value = f"not tested: not gated ({words.gate_note(v.not_gated)})"
    elif slower:
        p_value = f"not tested: {slower}"
    else:
        p_value = change.untested or "not tested"
    reasons = (("change", no_time), ("share_pct", f"no time in either report: {no_time}"), ("p_value", p_value))
    return {key: why for (key, why), null in zip(reasons, nulls, strict=True) if null}


def per_work_pct(v: Verdict, missing: dict[str, str], words: CompareWords) -> float | None:
    """The change of time per unit of work, or null with its reason: for different work without a unit of work to
    divide by, the sentence of that cause; for work not compared (no measure on both sides), the work summary's
    sentence, not "same work"."""
    out = value_or_null(v.per_work_pct, "per_work_slowdown_pct", missing)
    check = v.pair.work[1] if len(v.pair.work) > 1 else None
    if out is None and v.per_work_note is not None:
        missing["per_work_slowdown_pct"] = words.gate_note(v.per_work_note)
    elif out is None and check is not None and not check.basis and not check.different:
        missing["per_work_slowdown_pct"] = words.work_summary(check)
    return out


def hot_lines(v: Verdict, missing: dict[str, str]) -> list[HotLineShift] | None:
    """The source lines whose share of the kernel's warp samples moved most, BASE -> NEW; null with the reason
    where a report has no samples on the kernel's lines."""
    shifts = v.line_shifts
    if shifts is None:
        missing["hot_lines"] = (f"no warp samples on source lines in both reports: {HINT_PC_SAMPLES}, and compile "
                                "with -lineinfo")
        return None
    return [HotLineShift(s.where, s.base_share, s.new_share, s.change_pts) for s in shifts]


def change_doc(change: Change | None) -> ChangeDoc | None:
    """A change of launch times (other / base) with its interval, or null where there are no times; ``missing``:
    why the interval's ends are null (untested for noise), or why ``untested`` is (tested)."""
    if change is None:
        return None
    return ChangeDoc(change.ratio, change.low, change.high, change.confidence, change.base_n, change.new_n,
                     change.untested or None, CHANGE_ESTIMATE, interval_missing(change))


def interval_missing(change: Change) -> dict[str, str]:
    """Why a change's interval ends are null (the reason it is untested), and why ``untested`` is null."""
    missing = {key: f"untested: {change.untested or 'no interval'}" for key, value in
               (("low", change.low), ("high", change.high)) if value is None}
    if not change.untested:
        missing["untested"] = "tested: the interval is the Mann-Whitney U test inverted"
    return missing


def work_doc(check: WorkCheck | None, words: CompareWords,
             sides: tuple[KernelStats | None, KernelStats | None] = (None, None)) -> WorkDoc | None:
    """The work of a pair's other side against the base, per launch, or null for the base; ``sides``: the base's
    and the other's aggregates, whose reasons a null measure takes."""
    if check is None:
        return None
    reasons = (work_reasons(sides[0]), work_reasons(sides[1]))
    summary = words.work_summary(check)
    missing = {key: summary for key, value in (("basis", check.basis), ("throughput_unit", check.unit),
                                               ("work_ratio", number(check.work_ratio))) if value in (None, "")}
    for name, governing, stats in zip(("base", "other"), check.governing, sides, strict=True):
        if governing is None:
            verdict = stats.verdict.reason if stats is not None else ""
            missing[f"governing.{name}"] = f"no verdict: {verdict}" if verdict else "no verdict"
    return WorkDoc(check.different, check.basis or None, check.tolerance, summary, check.unit or None,
                   number(check.work_ratio), Governing(check.governing[0], check.governing[1]),
                   [words.work_note(note) for note in check.notes],
                   {m.key: MeasureDoc(number(m.base), number(m.other), number(m.ratio), m.differs, m.decides,
                                      words.apart(m.apart) if m.apart else None, measure_missing(m, reasons, words))
                    for m in check.measures}, missing)


SAME_DEFINITION = "both sides count it under one definition"  # why a measure's ``apart`` is null


def measure_missing(m: Measure, reasons: tuple[dict[str, str], dict[str, str]],
                    words: CompareWords) -> dict[str, str]:
    """The reason of each null of a measure: a side not measured (its report's reason), or no ratio (a side
    missing, a base of 0 against other work, the sides' definitions apart)."""
    missing = {side: reasons[i].get(m.key, NOT_MEASURED) for i, (side, value) in
               enumerate((("base", m.base), ("other", m.other))) if number(value) is None}
    apart = {} if m.apart else {"apart": SAME_DEFINITION}
    if number(m.ratio) is None:
        if missing:
            missing["ratio"] = f"no ratio: {' and '.join(missing)} not measured"
        elif m.apart:
            missing["ratio"] = f"not compared, the sides count it differently: {words.apart(m.apart)}"
        else:
            missing["ratio"] = "no ratio: the base's is 0 and the other's is not"
    return missing | apart


NOT_MEASURED = "not measured"


def work_reasons(s: KernelStats | None) -> dict[str, str]:
    """Why each measure of a kernel's work per launch is null, keyed as the work comparison's measures
    ("flops.fp32", "bytes.dram", "threads", "instructions"): the report's reason of the FLOPs and bytes."""
    if s is None or s.work is None:
        return {}
    w, out = s.work, {}
    for kind, values, reasons in (("flops", w.flops, s.flops), ("bytes", w.bytes, s.bytes)):
        for key, value in values.items():
            if number(value) is None:
                why = reasons[key].reason if key in reasons else None
                out[f"{kind}.{key}"] = why or NOT_MEASURED
    if number(w.instructions) is None:
        out["instructions"] = f"not measured: {HINT_INSTRUCTIONS}"
    if number(w.threads) is None:
        out["threads"] = "no launch configuration in the report"
    return out


def summary_json(summaries: Sequence[AppSummary], top: int, left_out: Sequence[LeftOut] = ()) -> SummaryJson:
    """``kind: summary``: per report, the top kernel groups ranked by time to gain (a group without one by its
    recoverable time: each row's ``ranked_by_kind``); ``left_out`` names the files
    the command could not analyse, where there are some."""
    return SummaryJson(GENERATOR, SCHEMA_VERSION, "summary", tool(), top, [summary_doc(s) for s in summaries],
                       [LeftOutFile(f.path, f.error, f.cause) for f in left_out])


def report_ref(r: ReportRef) -> ReportRefDoc:
    """A report as a document names it, the reason of each null field under ``missing``."""
    return ReportRefDoc(label=r.label, path=r.path, device=r.device, compute_capability=r.compute_capability,
                        sm_count=r.sm_count, ncu_version=r.ncu_version or None, spec_id=r.spec_id,
                        ceilings_used=r.ceilings_used, launches=r.launches, total_time_s=number(r.total_time_s),
                        warnings=list(r.warnings), missing=_ref_missing(r))


def _ref_missing(r: ReportRef) -> dict[str, str]:
    """The reasons of a report reference's null fields."""
    why = {"ncu_version": "the report does not name the ncu version that wrote it (a report model written without it)",
           "compute_capability": "not in the report's device attributes",
           "sm_count": "not in the report's device attributes",
           "spec_id": "no device spec matches its GPU",
           "total_time_s": NO_VALID_LAUNCH if r.valid_launches == 0 else UNTIMED}
    values = {"ncu_version": r.ncu_version or None, "compute_capability": r.compute_capability,
              "sm_count": r.sm_count, "spec_id": r.spec_id, "total_time_s": number(r.total_time_s)}
    return {key: text for key, text in why.items() if values[key] is None}


def pair_doc(p: KernelPair, reports: Sequence[ReportRef], words: CompareWords) -> Pair:
    """A matched kernel: per report its aggregate (with its projection), work, change, headline and expectation; the
    reason of each null under ``missing``, keyed by the list and index (``speedup[1]``)."""
    missing: dict[str, str] = {}
    indices = range(len(reports))
    projections = p.projections or (None,) * len(p.sides)
    under = p.under_bound or (None,) * len(p.sides)
    out = Pair(
        p.key, p.label, p.matched_by,
        [stats_doc(s, r.label, proj, why) if s else None for s, r, proj, why in
         zip(p.sides, reports, projections, under, strict=True)],
        [work_doc(p.work[i], words, (p.sides[0], p.sides[i])) if p.work else None for i in indices],
        [change_doc(p.change[i]) if p.change else None for i in indices],
        [headline(p, i) for i in indices],
        [value_or_null(v, f"launch_overhead[{i}]", missing) for i, v in enumerate(p.launch_overhead)],
        [value_or_null(v, f"speedup[{i}]", missing) for i, v in enumerate(p.speedup)],
        [value_or_null(v, f"expected_speedup[{i}]", missing) for i, v in enumerate(p.expected_speedup)],
        [value_or_null(v, f"kept_up[{i}]", missing) for i, v in enumerate(p.kept_up)],
        missing, list(p.expected_basis), [expected_clock_doc(c) if c else None for c in p.expected_clock])
    missing.update(side_missing(p, reports, out))
    return out


def side_missing(p: KernelPair, reports: Sequence[ReportRef], doc: Pair) -> dict[str, str]:
    """The reason of each null entry of a pair's lists of sides: a kernel absent from that report, the base (the
    figures against the base are null for it), no launch time on a side, no expectation."""
    out: dict[str, str] = {}
    for i, r in enumerate(reports):
        side = p.sides[i]
        absent = f"kernel not in {r.label}" if side is None else ""
        base = "the base: the other reports are compared with it" if not i else ""
        no_time = ("no launch time in the base" if not p.base.durations_s else
                   f"no launch time in {r.label}" if side is not None and not side.durations_s else "")
        why = {"sides": absent,
               "work": absent or base or "no work per launch measured on a side",
               "change": absent or base or no_time,
               "headline": absent or base or no_time,
               "expected_basis": doc.missing.get(f"expected_speedup[{i}]", ""),
               "expected_clock": absent or _no_clock(p, i)}
        for key, text in why.items():
            values = getattr(doc, key)
            if i < len(values) and values[i] is None:
                out[f"{key}[{i}]"] = text or "not given"
    return out


def _no_clock(p: KernelPair, i: int) -> str:
    """Why a side has no clock against the base clock its expected speedup by projection assumes."""
    basis = p.expected_basis[i] if i < len(p.expected_basis) else None
    if basis is None:
        return "no expected speedup"
    if basis is ExpectedBasis.BASE:
        return "the base itself: its expected speedup is 1, no clock assumed"
    if basis is not ExpectedBasis.PROJECTION:
        return "expected by the ratio of roof times, not by projection (expected_basis says why): no clock assumed"
    return "no launches of the kernel in the report"


def expected_clock_doc(c: ClockRan) -> ExpectedClockDoc:
    """A side's clock against the base clock its expected speedup by projection assumes; why a clock is null."""
    missing = {} if c.clock_hz is not None else {"clock_hz": "no SM clock in the report"}
    return ExpectedClockDoc(c.state, number(c.clock_hz), c.base_clock_hz, missing)


def headline(p: KernelPair, i: int) -> Headline | None:
    """The figure report i compares with the base by: a speedup (same work), a throughput ratio (different work) or
    a time ratio (work not compared), with its interval; null for the base and without times."""
    change = p.headline(i) if i else None
    if change is None:
        return None
    missing = {key: why for key, why in interval_missing(change).items() if key != "untested"}
    return Headline(p.headline_kind(i), p.headline_unit(i), change.ratio, change.low,  # type: ignore[arg-type]
                    change.high, missing)


def stats_doc(s: KernelStats, report: str, projection: Projection | None = None,
              under: UnderBound | None = None) -> Stats:
    """One kernel's aggregate in one report; ``missing`` holds the reason of every null."""
    missing: dict[str, str] = {}
    c = s.ceilings
    work = None if s.work is None else WorkPerLaunch(
        {k: number(v) for k, v in s.work.flops.items()}, {k: number(v) for k, v in s.work.bytes.items()},
        number(s.work.threads), number(s.work.instructions))
    out = Stats(
        report, list(s.names), s.count, work,
        value_or_null(s.total_s, "total_s", missing), value_or_null(s.median_s, "median_s", missing),
        value_or_null(s.per_launch_s, "per_launch_s", missing), values_or_null(s.flops, "flops", missing),
        values_or_null(s.flop_per_s, "flop_per_s", missing), values_or_null(s.bytes, "bytes", missing),
        values_or_null(s.bytes_per_s, "bytes_per_s", missing), values_or_null(s.intensity, "intensity", missing),
        SideCeilings.of(c, roof_reasons(c), c.source),
        number(s.roof.pct_of_roof), s.verdict.bound, s.roof.limiter,
        value_or_null(s.roof_time_s, "roof_time_s", missing),
        value_or_null(s.attainable_flop_per_s, "attainable_flop_per_s", missing),
        projection_doc(projection, missing, under) if projection else None, missing)
    missing.update({f"work_per_launch.{key}": why for key, why in work_reasons(s).items()})
    if s.roof.reason:
        missing["pct_of_roof"] = s.roof.reason
    if s.verdict.bound is None:
        missing["bound"] = s.verdict.reason or "no verdict"
    if s.roof.limiter is None:
        missing["limiter"] = s.roof.reason or "no roof position"
    if projection is None:
        missing["projection"] = "not projected: compare --project-to GPU projects each kernel onto another GPU"
    return out


PROJECTED = "model of the time per launch there, not a measurement"


def projection_doc(p: Projection, missing: dict[str, str], under: UnderBound | None = None) -> ProjectionDoc:
    """A projection's figures and why its interval goes under its bound (``under``); the reason of each null under
    ``missing`` (keys ``projection.*``)."""
    out = ProjectionDoc(
        p.target, PROJECTED, value_or_null(p.projected_s, "projection.projected_s", missing),
        value_or_null(p.low_s, "projection.low_s", missing), value_or_null(p.high_s, "projection.high_s", missing),
        p.basis, p.governing, value_or_null(p.bound_s, "projection.bound_s", missing), p.limiter, list(p.left_out),
        value_or_null(p.max_speedup, "projection.max_speedup", missing), clock_doc(p, missing), l2_doc(p, missing),
        shared_memory_doc(p, missing), under)
    for key in ("governing", "limiter"):
        if getattr(out, key) is None:
            missing[f"projection.{key}"] = p.projected_s.reason or "no verdict names the resource"
    if under is None:
        missing["projection.under_bound"] = ("the interval's low end is at or above the bound" if
                                             out.low_s is not None and out.bound_s is not None else
                                             "no interval or no bound to set against each other")
    return out


def shared_memory_doc(p: Projection, missing: dict[str, str]) -> SharedMemoryDoc | None:
    """Whether the kernel as built can launch on the target: its blocks' shared memory against the limit there."""
    return fit_doc(p.shared_memory, "projection.shared_memory", missing)


def fit_doc(fit: SharedMemoryFit | str, key: str, missing: dict[str, str]) -> SharedMemoryDoc | None:
    """A shared-memory check (``projection.shared_memory_fit``), or null with why it was not made under
    ``missing[key]``."""
    if isinstance(fit, str):
        missing[key] = fit
        return None
    return SharedMemoryDoc(fit.need_bytes, fit.limit_bytes, fit.compute_capability, fit.fits)


def clock_doc(p: Projection, missing: dict[str, str]) -> ClockDoc | None:
    """The clocks a projection assumes (step 3 of compare.projection)."""
    c = p.clock
    if c is None:
        missing["projection.clock"] = p.projected_s.reason or "no projection"
        return None
    if c.source_hz is None:
        missing["projection.clock.source_clock_hz"] = "no SM clock in the report: both at the same share of boost"
    for side, hz in (("source", c.source_tensor_hz), ("target", c.target_tensor_hz)):
        if hz is None:
            missing[f"projection.clock.{side}_tensor_clock_hz"] = \
                f"the {side} spec's Tensor figure holds at its boost clock (or no {side} spec)"
    return ClockDoc(c.choice, c.target_hz, c.target_boost_hz, c.source_hz, c.source_boost_hz, c.source_tensor_hz,
                    c.target_tensor_hz, c.factor, c.tensor_factor)


def l2_doc(p: Projection, missing: dict[str, str]) -> L2TermDoc | None:
    """The L2-size term (step 3b of compare.projection): its inputs per launch, the DRAM bytes there and bounds."""
    t = p.l2
    if t is None:
        missing["projection.l2_term"] = p.l2_reason or "no L2 term"
        return None
    return L2TermDoc(t.dram_bytes, t.l2_bytes, t.working_set_bytes, t.source_l2_bytes, t.target_l2_bytes,
                     t.dram_there, t.low, t.high, t.factor, t.note)


PROJECTED_TOTAL = "model of the launches' summed time there, each launch projected, not a measurement"
Fits = dict[tuple[str, str], SharedMemoryFit | str]  # (target, kernel name): its blocks' shared memory there


def project_json(c: Comparison) -> ProjectJson:
    """``kind: project``: the report and one entry per kernel name, its launches' measured and projected totals
    (``WorkloadProjection.kernels``: each launch projected, none from another's size), each workload with its
    kernels' shared-memory check and the reason of each null. A kernel's pair is found by its key: the workload sums
    launches by kernel name, the key ``project``'s name matching gives each pair."""
    fits = project_fits(c)
    own = c.reports[0].spec_id
    measured = next((w.measured_s for w in c.everywhere if w.launches), None)
    workload = workload_doc(c.workload, fits, own, measured) if c.workload is not None else None
    kernels = [ProjectKernel(k.name, k.count, k.groups, k.measured_s, PROJECTED_TOTAL, k.projected_s, k.low_s,
                             k.high_s, k.governing, list(k.other_kernel), k.shared_memory, k.missing)
               for k in (workload.kernels if workload is not None else ())]
    return ProjectJson(GENERATOR, SCHEMA_VERSION, "project", tool(), c.project_to, c.clock, report_ref(c.reports[0]),
                       kernels, workload, [workload_doc(w, fits, own, measured) for w in c.everywhere],
                       own_gpu_doc(c.own_gpu) if c.own_gpu else None, project_missing(c))


def project_fits(c: Comparison) -> Fits:
    """Each kernel's shared-memory check on each target (``Comparison.fits``)."""
    return {(f.target, f.kernel): f.fit for f in c.fits}


def workload_doc(w: WorkloadProjection, fits: Fits, own: str | None, measured: float | None) -> WorkloadDoc:
    """A workload on one GPU with its kernels' shared-memory checks, its left-out kernels' reasons in words and the
    reason of each null (``own``: the report's own spec id); a GPU without a projection takes the measured total
    ``measured`` of the GPUs with one (the same launches, measured once)."""
    missing = workload_missing(w, own)
    fields = asdict(w) | {
        "kernels": tuple(kernel_total_doc(k, fits.get((w.target, k.name))) for k in w.kernels),
        "left_out_kernels": tuple(LeftOutKernelDoc(k.name, k.launches, k.cause, reason=LEFT_OUT_WORDS[k.cause])
                                  for k in w.left_out_kernels)}
    if w.measured_s is None and measured is not None:
        fields["measured_s"] = measured
        missing.pop("measured_s", None)
    return WorkloadDoc(**fields, missing=missing)


def kernel_total_doc(k: KernelTotal, fit: SharedMemoryFit | str | None) -> KernelTotalDoc:
    """One kernel name's total on a GPU with whether its blocks fit there, or why that is not checked."""
    missing: dict[str, str] = {}
    doc = fit_doc(fit, "shared_memory", missing) if fit is not None else None
    if fit is None:
        missing["shared_memory"] = "not checked: no kernel of this name paired"
    return KernelTotalDoc(**asdict(k), shared_memory=doc, missing=missing)


def workload_missing(w: WorkloadProjection, own: str | None) -> dict[str, str]:
    """The reason of each null figure of a workload: nothing projected there (its ``reason``), no achievable DRAM
    bandwidth (its source's words), or no DRAM rate reached above the achievable one (the report's own GPU ``own``,
    or another)."""
    none = w.reason or "nothing projected there"
    reached = ("no launch group moved DRAM bytes faster here than the achievable bandwidth (dram_bytes_per_s)"
               if w.target == own else "not the report's own GPU: each launch's DRAM floor there is the achievable "
                                       "bandwidth (dram_bytes_per_s)")
    why = {"clock_hz": none, "measured_s": none, "projected_s": none, "low_s": none, "high_s": none,
           "speedup": none, "governing": none, "dram_bytes_per_s": w.dram_source or none,
           "source_dram_bytes_per_s": w.source_dram_source or none,
           "dram_reached_bytes_per_s": reached if w.launches else none}
    return {key: text for key, text in why.items() if getattr(w, key) is None}


def project_missing(c: Comparison) -> dict[str, str]:
    """Why a project document's target, workload or own GPU is null, or its kernels or everywhere empty."""
    out: dict[str, str] = {}
    if c.everywhere:
        out |= {"target": "several GPUs (--to all or a list of ids): everywhere[].target names each",
                "workload": "several GPUs: each one's workload is a row of everywhere",
                "kernels": "several GPUs: each one's kernels are under everywhere[].kernels"}
    else:
        out["everywhere"] = "one target: its projection is workload (everywhere holds --to all or a list of ids)"
        if c.workload is None:
            out["workload"] = out["kernels"] = ("no spec for the report's GPU, and its device attributes do not give "
                                                "its rates")
    if c.own_gpu is None:
        out["own_gpu"] = own_gpu_missing(c)
    return out


def own_gpu_missing(c: Comparison) -> str:
    """Why no projection is onto the report's own GPU: no catalog spec names it, it is not among the targets, or its
    row has no projection."""
    from roofline.specs.catalog import DERIVED_ID

    own = c.reports[0].spec_id
    if own is None or own == DERIVED_ID:
        return "no device spec matches the report's GPU, so no target is its own"
    row = next((w for w in (*c.everywhere, *((c.workload,) if c.workload else ())) if w.target == own), None)
    if row is None:
        return f"the report's own GPU ({own}) is not among the targets"
    return f"its row ({own}) has no projection: {row.reason or 'nothing projected there'}"


def own_gpu_doc(o: OwnGpu) -> OwnGpuDoc:
    """The own GPU's row and clocks; the reason of each null clock under ``missing``."""
    missing: dict[str, str] = {}
    if o.source_clock_hz is None:
        missing["source_clock_hz"] = "no SM clock in the report"
    if o.base_clock_hz is None:
        missing["base_clock_hz"] = f"the spec {o.target} gives no base_clock_hz"
    return OwnGpuDoc(o.target, o.source_clock, number(o.source_clock_hz), number(o.base_clock_hz), o.clock,
                     o.clock_hz, missing)


def summary_doc(s: AppSummary) -> SummaryReport:
    """One report's ranking; the reason of each null figure under ``missing``."""
    return SummaryReport(report_ref(s.report), s.by, s.ranked_by, s.group_count, number(s.shown_share),
                         number(s.recoverable_s), number(s.small_grid_s), RECOVERABLE_COUNTS,
                         [summary_row(r) for r in s.rows], number(s.time_to_gain_s), TIME_TO_GAIN_COUNTS,
                         s.groups_without_gain, number(s.without_gain_recoverable_s), summary_missing(s))


def summary_missing(s: AppSummary) -> dict[str, str]:
    """Why each of a report's summed figures is null: no valid launch, no launch with a time, a roof position, or an
    advice item with an estimated saving; a ranking not by time to gain has no groups placed without one."""
    none = NO_VALID_LAUNCH if not s.group_count else ""
    why = {
        "shown_share": none or "no launch of the report has a time",
        "small_grid_s": none or ("no launch of the report has a time" if s.shown_share is None else
                                 "no launch of the report has a verdict, so whether any is a small grid is not known"),
        "recoverable_s": none or "no launch of the report has both a time and a percent of roof or a throughput "
                                 "breakdown",
        "time_to_gain_s": none or "no launch of the report has an advice item with an estimated saving",
        "without_gain_recoverable_s": none or "not ranked by time to gain (ranked_by says by what): no group was "
                                              "placed without one",
    }
    values = {"shown_share": s.shown_share, "small_grid_s": s.small_grid_s,
              "recoverable_s": s.recoverable_s, "time_to_gain_s": s.time_to_gain_s,
              "without_gain_recoverable_s": s.without_gain_recoverable_s}
    out = {key: why[key] for key, value in values.items() if value is None}
    if number(s.report.total_time_s) is None:
        out["report.total_time_s"] = none or UNTIMED
    return out


def summary_row(r: SummaryRow) -> SummaryRowDoc:
    """One kernel group: its times, share, recoverable time, the figure that ranked it and place on the roofline;
    the reason of each null under ``missing`` (``row_missing``)."""
    g = r.group
    missing: dict[str, str] = {}
    out = SummaryRowDoc(
        r.rank, g.name, len(g.launches), number(g.total_s), number(g.median_s), number(g.min_s), number(g.max_s),
        number(g.time_share), number(g.recoverable_s), number(g.small_grid_s), number(r.recoverable_share),
        number(g.median_pct_of_roof), number(r.stats.roof.pct_of_roof), r.stats.verdict.bound,
        values_or_null(r.stats.intensity, "intensity", missing),
        values_or_null(r.stats.flop_per_s, "flop_per_s", missing), missing, number(r.time_to_gain_s),
        r.ranked_by_kind, number(r.ranked_by_value_s), r.unestimated_launches, number(r.unestimated_recoverable_s))
    if r.time_to_gain_s is None:
        missing["time_to_gain_s"] = NO_GAIN
    if r.ranked_by_value_s is None:
        missing["ranked_by_value_s"] = "no launch of the kernel has a time"
    if r.unestimated_launches is None:
        missing["unestimated_launches"] = missing["unestimated_recoverable_s"] = (
            "no time to gain: the row is placed by another figure (ranked_by_kind)")
    elif r.unestimated_recoverable_s is None:
        missing["unestimated_recoverable_s"] = ("no launch of the kernel without an estimate" if not
                                                r.unestimated_launches else "none of them has a recoverable time")
    if r.stats.roof.reason:
        missing["pct_of_roof"] = r.stats.roof.reason
    if r.stats.verdict.bound is None:
        missing["bound"] = r.stats.verdict.reason or "no verdict"
    missing.update(row_missing(r, out))
    return out


def row_missing(r: SummaryRow, row: SummaryRowDoc) -> dict[str, str]:
    """The reason of each null time, share, recoverable and small-grid figure of a summary row: no launch of the
    group has a time (the report's reason), the report has no total, no launch has a roof position or a
    throughput breakdown, none has a verdict (whether it is a small grid is not known)."""
    no_time = f"no launch of the group has a time: {r.stats.total_s.reason or 'not measured'}"
    no_total = "the report has no total time" if row.total_s is not None else no_time
    unrecoverable = (no_time if row.total_s is None else "no launch of the group has both a time and a percent of "
                     "roof or a throughput breakdown")
    why = {"total_s": no_time, "median_s": no_time, "min_s": no_time, "max_s": no_time, "time_share": no_total,
           "small_grid_s": no_time if row.total_s is None else small_grid_reason(r.stats.verdict.reason),
           "recoverable_s": unrecoverable,
           "recoverable_share": unrecoverable if row.recoverable_s is None else "the report has no total time",
           "median_pct_of_roof": r.stats.roof.reason or "no launch of the group has a percent of roof"}
    return {key: text for key, text in why.items() if getattr(row, key) is None}
