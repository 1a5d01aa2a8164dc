"""The ``report`` document (``roofline report -f json``): per report its device, every launch, the groups, and
``reasons``, the table that states each reason once.

"Not measured" is ``null`` with its reason (never 0, never NaN): a kernel's ``missing`` (and each ceiling set's)
maps the null's path to an index into its report's ``reasons``, so a reason shared by every launch is written once
per report. The builders run in the order the document is written, so the reasons are numbered as they appear.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Annotated, Any, Generic, Literal, NamedTuple, TypeVar, cast

from msgspec import Meta, Struct

from roofline.analysis.launches import KernelGroup, KernelSpread, ReportAnalysis
from roofline.analysis.results import (
    Advice,
    Bound,
    BusyUnit,
    Hotspots,
    InstructionRoofline,
    IntegerRoofline,
    InvertedLevel,
    LaunchAnalysis,
    Mechanism,
    MemoryNote,
    MemoryPicture,
    MemoryWalls,
    Occupancy,
    OccupancyCalculator,
    OccupancyPoint,
    PeakKind,
    Producer,
    ProducerKind,
    Side,
    TensorCores,
    TensorRoof,
    Term,
    TermKind,
    TimeModel,
    Value,
    Verdict,
    VerdictBasis,
    WarpStalls,
)
from roofline.analysis.view import ReportSetView, ReportView
from roofline.core.model import Ceilings, CeilingSet, PcCounters
from roofline.core.thresholds import THIN_SAMPLES
from roofline.core.version import GENERATOR
from roofline.documents.common import (
    NO_GAIN,
    NO_VALID_LAUNCH,
    SCHEMA_VERSION,
    UNTIMED,
    Generator,
    Index,
    LeftOutFile,
    Number,
    Tool,
    Version,
    number,
    tool,
    value_or_null,
    values_or_null,
)
from roofline.ncu.metrics import (
    BLOCK_DIMS,
    GRID_DIMS,
    HINT_LINEINFO,
    HINT_PC_SAMPLES,
    LAUNCH_BLOCK,
    LAUNCH_GRID,
    LAUNCH_REGISTERS,
    LAUNCH_SHARED,
    LIMIT_METRIC,
    FlopNote,
)

HOTSPOTS_SHOWN = 20  # instructions and lines listed per launch, most samples first
Positive = Annotated[int, Meta(ge=1)]
Source = Literal["ncu-rep", "model"]  # what the report was read from: an .ncu-rep, or a JSON report model


class Words(NamedTuple):
    """The sentences a report document holds, written by the renderers' prose (passed in, as this stage is below
    render): an advice item's bound and estimate, the note on an inverted memory level, a note on how FLOPs were
    counted, a note beside the memory chart, a launch's verdict line, an advice item's cause and text."""

    bound_of: Callable[[Advice], str]
    estimate_of: Callable[[Advice], str]
    level_note: Callable[[InvertedLevel], str]
    flop_note: Callable[[FlopNote], str]
    memory_note: Callable[[MemoryNote], str]
    verdict_line: Callable[[Verdict], str]
    cause_of: Callable[[Advice], str]
    text_of: Callable[[Advice], str]


class Device(Struct, frozen=True):
    """The GPU the report was taken on, and the device spec matched to it (null: none)."""

    name: str
    compute_capability: str | None
    sm_count: int | None
    max_clock_hz: float | None
    memory_clock_hz: float | None
    memory_bus_width_bits: int | None
    l2_cache_bytes: int | None
    total_memory_bytes: int | None
    spec_id: str | None
    spec_match: str | None


# Keyword fields in a base struct: a subclass's positional fields come before them, its keyword ones after (msgspec).
Reason = TypeVar("Reason")  # how a null roof's reason is given: its index in the report's ``reasons``, or its text
R = TypeVar("R", bound="Roofs[Any]")


class Roofs(Struct, Generic[Reason], frozen=True, kw_only=True,
            rename={"fp64": "fp64_flop_per_s", "fp32": "fp32_flop_per_s", "fp16": "fp16_flop_per_s",
                    "tensor": "tensor_flop_per_s", "dram": "dram_bytes_per_s", "l2": "l2_bytes_per_s",
                    "l1": "l1_bytes_per_s"}):
    """One set of roofs in FLOP/s and bytes/s, the reason of each null roof under ``missing``: the one definition
    of these fields, filled from a set of ceilings by ``of``."""

    fp64: Number
    fp32: Number
    fp16: Number
    tensor: Number
    dram: Number
    l2: Number
    l1: Number
    tensor_dtype: str | None
    clock_note: str | None
    sm_clock_hz: Number  # the SM clock the roofs are at (``clock_note``'s clock as a number); null: no clock known
    scaled: dict[str, str]
    missing: dict[str, Reason]

    @classmethod
    def of(cls: type[R], c: Ceilings, missing: dict[str, Reason], *first: str) -> R:
        """The roofs of a set of ceilings, with ``missing`` and the subclass's own leading fields (``first``: a
        side's ``source``)."""
        flops, moved = ({key: number(v) for key, v in found.items()} for found in (c.flop_per_s, c.bytes_per_s))
        return cls(*first, fp64=flops["fp64"], fp32=flops["fp32"], fp16=flops["fp16"], tensor=flops["tensor"],
                   dram=moved["dram"], l2=moved["l2"], l1=moved["l1"], tensor_dtype=c.tensor_dtype,
                   clock_note=c.clock_note, sm_clock_hz=number(c.sm_clock_hz), scaled=dict(c.scaled),
                   missing=missing)


class CeilingsDoc(Roofs[Index], frozen=True, kw_only=True):
    """A report's set of roofs: ``missing`` holds the reason of each null roof, its index in ``reasons``."""


class CeilingsText(Roofs[str], frozen=True, kw_only=True):
    """A set of roofs standing alone (a comparison's): ``missing`` holds the reason of each null roof."""


class Unit(Struct, frozen=True):
    """A busy unit: its name, percent of its peak, side and metric."""

    name: str
    pct: Number
    side: Side
    metric: str


class VerdictDoc(Struct, frozen=True):
    """The verdict's inputs, its busiest units and its one-line explanation."""

    basis: VerdictBasis | None
    sm_pct: Number
    memory_pct: Number
    waves_per_sm: Number
    busiest: Unit | None
    top_units: list[Unit]
    ncu_title: str | None
    text: str


class WhatIfDoc(Struct, frozen=True):
    """One change of the launch configuration and the occupancy it gives."""

    change: str
    blocks_per_sm: int
    theoretical_pct: Number
    text: str
    point: OccupancyPoint | None = None  # the occupancy calculator's point the numbers come from


class OccupancyDoc(Struct, frozen=True):
    """Occupancy diagnostics."""

    theoretical_pct: Number
    achieved_pct: Number
    limits: dict[str, int]
    limiters: list[str]
    blocks_per_sm: int | None
    warps_per_block: int | None
    waves_per_sm: Number
    tail_idle_pct: Number
    derived_limits: dict[str, int]
    what_if: list[WhatIfDoc]
    findings: list[str]
    calculator: OccupancyCalculator | None = None  # ncu's occupancy calculator: the launch's point, three curves


class TensorRoofDoc(Struct, frozen=True):
    """One data type's tensor work against its dense roof, with how each number was obtained (``via``)."""

    achieved_ops_per_s: Number
    peak_ops_per_s: Number
    pct_of_peak: Number
    work: str
    via: dict[str, str]
    source: str = "counters"  # where ``work`` is counted from: "counters", "sass", "volta_512" or "pipe"


class TensorCoresDoc(Struct, frozen=True):
    """Tensor Core diagnostics."""

    status: str
    architecture: str | None
    families_pct_of_peak: dict[str, Number]
    flops_by_type: dict[str, float]
    pipe_active_pct: Number
    pipe_elapsed_pct: Number
    flop_share: Number
    matmul_like: str | None
    warning: str | None
    advice: str | None
    findings: list[str]
    roofs: dict[str, TensorRoofDoc]
    work_source: str | None = None  # where flops_by_type is counted from ("counters", "sass", "volta_512"); null
    # where nothing counts it


class StallDoc(Struct, frozen=True):
    """One stall reason: its value and its share of all stalls."""

    reason: str
    value: Number
    share: Number


class StallsDoc(Struct, frozen=True):
    """What the warps wait on."""

    source: str | None
    reasons: list[StallDoc]
    issue_active_pct: Number
    eligible_per_scheduler: Number
    active_per_scheduler: Number


class IntegerDoc(Struct, frozen=True):
    """The integer roofline: integer GIOPS against the integer pipe's peak, and per byte at each level."""

    giops: Number
    peak_giops: Number
    pct_of_peak: Number
    intensity: dict[str, Number]


class InstructionRooflineDoc(Struct, frozen=True):
    """The launch on the Instruction Roofline Model, with its roofs; how each number was obtained under ``via``."""

    warp_gips: Number
    thread_gips_per_32: Number
    peak_warp_gips: Number
    transactions: dict[str, Number]
    intensity: dict[str, Number]
    thread_intensity: dict[str, Number]
    peak_gtxn_per_s: dict[str, Number]
    definitions: dict[str, str]
    ceilings: CeilingSet
    # per operation its intensity; "walls"; per operation "width_bytes" (bytes per thread, the SASS's; null: 4
    # assumed) and "width_walls" (the coalesced wall at that width: global unit stride, shared no conflict)
    global_memory: dict[str, Number | dict[str, float]]
    shared_memory: dict[str, Number | dict[str, float]]
    integer: IntegerDoc
    via: dict[str, str]


class MemoryDoc(Struct, frozen=True):
    """The memory chart: L1 and L2 hit rates (percent; the L2's of loads and of stores apart), the traffic per edge
    and its percent of the path's peak, ncu's Speed of Light."""

    hit_rate_pct: dict[str, Number]
    traffic: dict[str, Number]
    definitions: dict[str, str]
    sol_pct: dict[str, Number]
    via: dict[str, str]
    traffic_pct: dict[str, Number] = {}  # edge -> percent of that path's peak (ncu's memory tables' "% Peak")
    l2_hit_rate_pct_by_op: dict[str, Number] = {}  # "read", "write": the L2 hit rate of loads and of stores
    notes: list[str] = []  # what a figure needs said beside it (an L2 hit rate above 100%)


class CandidateDoc(Struct, frozen=True):
    """One instruction a dependency stall may wait on (an in-flight producer's candidates)."""

    pc: int
    pc_offset: int
    sass: str
    registers: list[str]
    source: str | None


class ProducerDoc(Struct, frozen=True):
    """The instruction a dependency stall waits on: ``kind`` "writer" writes a register the waiting instruction
    reads; "in_flight" is the nearest variable-latency instruction that may still be in flight where no writer of
    what it reads is one (``candidates``: every such instruction, nearest first)."""

    pc: int
    pc_offset: int
    sass: str
    registers: list[str]
    stall: str
    source: str | None
    kind: ProducerKind
    candidates: list[CandidateDoc]


class PcDoc(Struct, frozen=True, kw_only=True):  # keyword fields, as Roofs'
    """One instruction: where it is, its stalls and counters, and the producer its warps waited on."""

    pc_offset: int
    pc: int | None
    function: str | None
    function_pc: int | None
    sass: str | None
    stalls: dict[str, float]
    top_stalls: list[str]
    thin: bool
    producer: ProducerDoc | None
    inst_executed: Number
    thread_inst_executed: Number
    memory: dict[str, float]


class SampledPc(PcDoc, frozen=True):
    """An instruction with its warp samples and their share, first."""

    samples: int
    share: Number


class HotPc(SampledPc, frozen=True, kw_only=True):
    """One of the instructions with the most warp samples."""

    source: str | None


class LinePc(PcDoc, frozen=True, kw_only=True):
    """One instruction of a hot source line."""

    samples: int


class HotLineDoc(Struct, frozen=True):
    """One of the source lines with the most warp samples, and its instructions."""

    source: str
    file: str
    line: int
    samples: int
    share: Number
    top_stall: str | None
    top_stalls: list[str]
    thin: bool
    stalls: dict[str, float]
    pcs: list[LinePc]


class HotspotsDoc(Struct, frozen=True):
    """Where in its code the launch's warps were sampled."""

    total_samples: int
    sampled_pcs: int
    pcs: list[HotPc]
    sampled_lines: int
    lines: list[HotLineDoc]
    thin_samples: int
    functions: list[int]


class TermDoc(Struct, frozen=True, forbid_unknown_fields=True):
    """One term of the time model: a unit's work at its peak, the tail or the launch floor."""

    key: str
    name: str
    kind: TermKind
    seconds: Number
    formula: str
    inputs: dict[str, Number]
    metric: str | None
    side: str | None
    sm_local: bool
    achievable_s: Number  # its time at the peak a kernel can reach (null: the datasheet peak is that peak)
    peak_source: str | None  # where that achievable peak comes from
    peak_kind: PeakKind  # which peak achievable_s is at: datasheet, calibrated, achievable or reached


class TimeModelDoc(Struct, frozen=True, forbid_unknown_fields=True):
    """The launch's time model: the floor (the largest term) and the slack (measured minus floor)."""

    measured_s: Number
    floor_s: Number
    floor: str | None
    slack_s: Number
    terms: list[TermDoc]


class AdviceDoc(Struct, frozen=True):
    """One advice item, with how its saving was estimated and what bounds it."""

    kind: str
    title: str
    text: str
    condition: str
    cause: str
    source: str
    also: list[str]
    topic: str | None
    mechanism: Mechanism
    work_share: Number
    est_saved_s: Number
    estimate: str
    bound: str | None
    bound_by: str | None
    ncu_saved_s: Number
    overlapping: bool  # its saving overlaps others' of the kernel: together they save ``combined_saved_s``
    kept_bytes: dict[str, Number]  # per level, the bytes its change keeps (the compulsory traffic)
    peak_source: str | None  # the peak its saving is measured to, where not the datasheet's: its source
    peak_kind: PeakKind  # which peak that is: datasheet, calibrated, achievable or reached


class Kernel(Struct, frozen=True):
    """One launch; every null in it has its reason under ``missing``, keyed by its path (an index in the report's
    ``reasons``)."""

    name: str
    demangled_name: str
    range: int
    action: int
    valid: bool
    nvtx: list[str]
    grid: list[int] | None
    block: list[int] | None
    grid_size: Positive | None
    block_size: Positive | None
    registers_per_thread: int | None
    shared_mem_per_block_bytes: int | None
    duration_s: Number
    time_share: Number
    flops: dict[str, Number]
    tensor_flops_by_type: dict[str, float]
    flop_per_s: dict[str, Number]
    bytes: dict[str, Number]
    bytes_per_s: dict[str, Number]
    intensity: dict[str, Number]
    # the precisions whose FLOPs are not measured where the intensities count the others: each intensity a lower bound
    intensity_leaves_out: list[str]
    definitions: dict[str, str]
    level_notes: list[str]
    ceilings: dict[str, CeilingsDoc | None]
    ceilings_used: CeilingSet
    pct_of_roof: Number
    limiter: str | None
    utilization_pct: dict[str, Number]
    bound: Bound | None
    verdict: VerdictDoc
    recoverable_s: Number
    flags: list[str]
    notes: list[str]
    occupancy: OccupancyDoc | None
    tensor_cores: TensorCoresDoc | None
    stalls: StallsDoc | None
    instruction_roofline: InstructionRooflineDoc | None
    memory: MemoryDoc | None
    hotspots: HotspotsDoc | None
    time_model: TimeModelDoc | None
    advice: list[AdviceDoc]
    combined_saved_s: Number  # every estimated advice item applied at once
    combined_floor_s: Number  # the floor of the kernel with every item applied
    missing: dict[str, Index]


class Group(Struct, frozen=True):
    """A kernel's launches in one report: their times and the roof they reach."""

    name: str
    functions: list[str]
    count: int
    total_s: Number
    median_s: Number
    min_s: Number
    max_s: Number
    time_share: Number
    median_pct_of_roof: Number
    recoverable_s: Number
    small_grid_s: Number
    time_to_gain_s: Number = None  # what each launch's first estimated advice item saves, summed (``summary``'s)
    gain_rank: int = 0  # its place in the ranking by time to gain (1: the most; a group without one by recoverable)
    missing: dict[str, Index] = {}  # the reason of each null field, its index in the report's ``reasons``


class Report(Struct, frozen=True):
    """One report: its device, every launch, the groups, and ``reasons``, the texts the ``missing`` indices name."""

    path: str
    source: Source
    label: str
    device: Device
    ceilings_used: CeilingSet
    ceilings: dict[str, CeilingsDoc]
    warnings: list[str]
    total_time_s: Number
    kernels: list[Kernel]
    groups: list[Group]
    reasons: list[str]
    missing: dict[str, Index] = {}  # the reason of each null field of the report itself (``total_time_s``)


class Spread(Struct, frozen=True):
    """A kernel's total time in each report of one job (null where it is missing from the report, or ran there
    without a measured time), how far apart they are over the reports with a time, and whether it is flagged: above
    the spread threshold, or missing from a report (``missing_from``); each null's reason under ``missing``."""

    name: str
    total_s: dict[str, Number]
    spread_pct: Number
    flagged: bool
    missing_from: list[str] = []  # the reports that did not run the kernel, in the order given
    missing: dict[str, str] = {}  # the reason of each null: ``total_s.<path>``, ``spread_pct``


class ReportJson(Struct, frozen=True, omit_defaults=True):
    """``roofline report -f json``: the generator mark first, the reports; ``left_out`` and ``across_reports`` only
    where there are some."""

    generator: Generator
    schema_version: Version
    tool: Tool
    reports: list[Report]
    left_out: list[LeftOutFile] = []
    across_reports: list[Spread] = []
    across_reports_note: str = ""  # why several reports' kernels are not compared (``across_reports`` empty)


class Reasons:
    """One report's table of reasons: each distinct text once, referred to by its index."""

    def __init__(self) -> None:
        self.texts: list[str] = []
        self._index: dict[str, int] = {}
        self.ceilings: dict[int, tuple[Ceilings, CeilingsDoc]] = {}  # each set's document by id, the set held

    def refs(self, missing: Mapping[str, str]) -> dict[str, int]:
        """``missing`` (path -> reason) with each reason replaced by its index in the table."""
        out = {}
        for path, text in missing.items():
            index = self._index.get(text)
            if index is None:
                index = self._index[text] = len(self.texts)
                self.texts.append(text)
            out[path] = index
        return out


def report_json(view: ReportSetView, words: Words) -> ReportJson:
    """The document of a report set: ``across_reports`` only when several reports were given, and where their
    kernels are not compared, ``across_reports_note`` saying why."""
    analyses = [v.analysis for v in view.reports]
    return ReportJson(
        GENERATOR, SCHEMA_VERSION, tool(), [report_doc(v, words) for v in view.reports],
        left_out=[LeftOutFile(f.path, f.error, f.cause) for f in view.left_out],
        across_reports=[spread_doc(s, [a.report.path for a in analyses]) for s in view.spreads],
        across_reports_note=view.across_note)


NOT_RUN = "the report did not run the kernel"
NO_RUN_TIME = "no launch of the kernel in the report has a measured time"
TOO_FEW_TIMES = "fewer than two reports give the kernel a time"


def spread_doc(s: KernelSpread, paths: Sequence[str]) -> Spread:
    """One kernel across the reports (``paths``, in the order given): every report's total, null where missing
    or without a time, with the reasons."""
    totals = {p: number(s.total_s.get(p)) for p in paths}
    missing = {f"total_s.{p}": NOT_RUN if p not in s.total_s else NO_RUN_TIME for p, t in totals.items() if t is None}
    if s.spread_pct is None:
        missing["spread_pct"] = TOO_FEW_TIMES if sum(t is not None for t in totals.values()) < 2 else \
            "the shortest total is 0"
    return Spread(s.name, totals, number(s.spread_pct), s.flagged, [p for p in paths if p not in s.total_s], missing)


def report_doc(v: ReportView, words: Words) -> Report:
    """One report: its device, every launch, the groups, and ``reasons``, the texts the launches' ``missing``
    index."""
    a = v.analysis
    d = a.device
    reasons = Reasons()
    no_spec = _no_spec_reason(a)
    kernels = [kernel_doc(k, reasons, no_spec, saved, words.verdict_line(k.verdict), words)
               for k, saved in zip(a.launches, v.recoverable_s, strict=True)]
    return Report(
        path=a.report.path, source=cast(Source, a.report.source), label=a.report.label,
        device=Device(d.name, d.compute_capability, d.sm_count, d.max_clock_hz, d.memory_clock_hz,
                      d.memory_bus_width_bits, d.l2_cache_bytes, d.total_memory_bytes, a.spec_id,
                      a.spec_match or None),
        ceilings_used=a.ceilings_used,
        ceilings={name: ceilings_doc(c, reasons) for name, c in v.ceilings.items()},
        warnings=list(a.report.warnings), total_time_s=number(a.total_time_s), kernels=kernels,
        groups=group_docs(v, reasons), reasons=reasons.texts,
        missing=reasons.refs({"total_time_s": _untimed(a)} if a.total_time_s is None else {}))


def _untimed(a: ReportAnalysis) -> str:
    """Why a report has no total time: no valid launch, or none of them has one (the first one's reason)."""
    if not len(a.valid_launches):
        return NO_VALID_LAUNCH
    first = next((k.duration_s.reason for k in a.valid_launches if k.duration_s.reason), "")
    return f"{UNTIMED} ({first})" if first else UNTIMED


def with_reasons(kernel: Mapping[str, Any], reasons: Sequence[str]) -> dict[str, Any]:
    """A kernel of a report document, as builtins, with the reason texts in place of their indices (``missing`` of
    the kernel and of each ceiling set), as a reader of the document looks them up."""
    ceilings = {name: c if c is None else {**c, "missing": {k: reasons[i] for k, i in c["missing"].items()}}
                for name, c in kernel["ceilings"].items()}
    return {**kernel, "ceilings": ceilings, "missing": {path: reasons[i] for path, i in kernel["missing"].items()}}


# Launch-configuration fields and the launch__* metric each comes from (for the reason when it is null).
_LAUNCH_FIELDS = {"grid": f"{GRID_DIMS[0][:-1]}*", "block": f"{BLOCK_DIMS[0][:-1]}*",
                  "registers_per_thread": LAUNCH_REGISTERS, "shared_mem_per_block_bytes": LAUNCH_SHARED}
_SIZE_FIELDS = {"grid_size": LAUNCH_GRID, "block_size": LAUNCH_BLOCK}


def _no_spec_reason(analysis: ReportAnalysis) -> str:
    d = analysis.device
    return (f"no device spec matches '{d.name}' (CC {d.compute_capability or '?'}); "
            "add a YAML with --specs (see device_specs/README.md)")


def kernel_doc(analysis: LaunchAnalysis, reasons: Reasons, no_spec_reason: str, recoverable_s: float | None,
               verdict_text: str, words: Words) -> Kernel:
    """One launch (with its recoverable time and its verdict's line, from the report's view); every null in it has
    its reason under ``missing``, keyed by its path: the reason's index in ``reasons``, the report's table."""
    launch = analysis.launch
    missing: dict[str, str] = {}
    # The builders fill ``missing`` in the order the fields are written, which numbers the reasons.
    duration_s = value_or_null(analysis.duration_s, "duration_s", missing)
    flops = values_or_null(analysis.flops, "flops", missing)
    flop_per_s = values_or_null(analysis.flop_per_s, "flop_per_s", missing)
    bytes_ = values_or_null({**analysis.bytes, "l2_total": analysis.l2_total_bytes}, "bytes", missing)
    bytes_per_s = values_or_null(analysis.bytes_per_s, "bytes_per_s", missing)
    intensity = values_or_null(analysis.intensity, "intensity", missing)
    ceilings: dict[str, CeilingsDoc | None] = {name: ceilings_doc(c, reasons)
                                               for name, c in analysis.ceilings.items()}
    ceilings.setdefault("datasheet", None)
    verdict = verdict_doc(analysis.verdict, verdict_text, missing)
    occupancy = occupancy_doc(analysis.occupancy, missing)
    tensor_cores = tensor_cores_doc(analysis.tensor_cores, missing)
    stalls = stalls_doc(analysis.stalls, missing)
    instruction_roofline = instruction_roofline_doc(analysis.instruction_roofline, missing)
    memory = memory_doc(analysis.memory, missing, words)
    hotspots = hotspots_doc(analysis.hotspots, missing)
    time_model = time_model_doc(analysis.time_model, missing)
    _launch_reasons(analysis, recoverable_s, missing, no_spec_reason)
    advice = [advice_doc(item, f"advice[{i}]", missing, words) for i, item in enumerate(analysis.advice)]
    saved, floor = number(analysis.combined_saved_s), number(analysis.combined_floor_s)
    why = missing.get("duration_s") or "no advice item with an estimated saving"
    missing.update({key: why for key, value in (("combined_saved_s", saved), ("combined_floor_s", floor))
                    if value is None})
    return Kernel(
        name=launch.name, demangled_name=launch.demangled_name, range=launch.range_index,
        action=launch.action_index, valid=not launch.invalid, nvtx=list(launch.nvtx_ranges),
        grid=list(launch.grid) if launch.grid else None, block=list(launch.block) if launch.block else None,
        grid_size=analysis.grid_size, block_size=analysis.block_size,
        registers_per_thread=launch.registers_per_thread,
        shared_mem_per_block_bytes=launch.shared_mem_per_block_bytes,
        duration_s=duration_s, time_share=number(analysis.time_share), flops=flops,
        tensor_flops_by_type=dict(analysis.tensor_flops_by_type), flop_per_s=flop_per_s, bytes=bytes_,
        bytes_per_s=bytes_per_s, intensity=intensity, intensity_leaves_out=list(analysis.intensity_leaves_out),
        definitions=_definitions(analysis),
        level_notes=[words.level_note(level) for level in analysis.inverted_levels], ceilings=ceilings,
        ceilings_used=analysis.roof.ceilings, pct_of_roof=number(analysis.roof.pct_of_roof),
        limiter=analysis.roof.limiter,
        utilization_pct={key: number(v) for key, v in analysis.roof.utilization_pct.items()},
        bound=analysis.verdict.bound, verdict=verdict, recoverable_s=number(recoverable_s),
        flags=list(analysis.flags), notes=[words.flop_note(note) for note in analysis.notes],
        occupancy=occupancy, tensor_cores=tensor_cores, stalls=stalls, instruction_roofline=instruction_roofline,
        memory=memory, hotspots=hotspots, time_model=time_model, advice=advice, combined_saved_s=saved,
        combined_floor_s=floor, missing=reasons.refs(missing))


def _definitions(analysis: LaunchAnalysis) -> dict[str, str]:
    """How each FLOP and byte count of the launch is counted, with the L2 total's when it is measured."""
    if analysis.l2_total_bytes.value is None:
        return dict(analysis.definitions)
    return {**analysis.definitions, "l2_total": f"all L2 traffic, loads and stores: {analysis.l2_total_bytes.via}"}


def _launch_reasons(analysis: LaunchAnalysis, recoverable_s: float | None, missing: dict[str, str],
                    no_spec: str) -> None:
    """The reasons of the launch's own nulls (its configuration, its place on the roofline, its verdict), in
    ``missing``, worked out from the analysis the kernel's fields come from."""
    launch = analysis.launch
    if "datasheet" not in analysis.ceilings:
        missing["ceilings.datasheet"] = no_spec
    configured: dict[str, object] = {"grid": launch.grid or None, "block": launch.block or None,
                                     "registers_per_thread": launch.registers_per_thread,
                                     "shared_mem_per_block_bytes": launch.shared_mem_per_block_bytes}
    sizes = {"grid_size": analysis.grid_size, "block_size": analysis.block_size}
    for key, metric in _LAUNCH_FIELDS.items():
        if configured[key] is None:
            total = sizes.get(f"{key}_size")
            missing[key] = (f"{metric} not in the report (an older ncu or section set): {key}_size holds the total, "
                            f"{total}" if total is not None else
                            f"{metric} not in the report (collect the LaunchStats section)")
    for key, size in sizes.items():
        if size is None:
            missing[key] = f"{_SIZE_FIELDS[key]} not in the report (collect the LaunchStats section)"
    if number(analysis.time_share) is None:
        missing["time_share"] = missing.get("duration_s", "no total time for the report")
    if analysis.roof.reason:
        missing["pct_of_roof"] = analysis.roof.reason
    if launch.invalid:  # no diagnostics for a launch whose attributes are impossible
        missing.update({key: f"invalid launch: {launch.invalid}" for key in ("occupancy", "tensor_cores", "stalls",
                                                                                  "instruction_roofline", "memory",
                                                                                  "hotspots")})
    if analysis.roof.limiter is None:
        missing["limiter"] = analysis.roof.reason or "no roof position"
    if analysis.verdict.bound is None:
        missing["bound"] = analysis.verdict.reason or "no verdict"
    if number(recoverable_s) is None:
        missing["recoverable_s"] = (
            missing.get("duration_s") or analysis.roof.reason or "no throughput and no roof position"
        )


def _nulls(prefix: str, values: Mapping[str, object], reason: str, missing: dict[str, str]) -> None:
    """``reason`` under ``missing`` for each null of ``values``, keyed ``prefix.key``."""
    missing.update({f"{prefix}.{key}": reason for key, value in values.items() if value is None})


def verdict_doc(v: Verdict, text: str, missing: dict[str, str]) -> VerdictDoc:
    """The verdict's inputs, its busiest units and its one-line explanation; every null has its reason under
    ``missing`` (the verdict's own: what the report lacks, or that the verdict is the roofline's alone)."""
    out = VerdictDoc(v.basis, number(v.sm_pct), number(v.memory_pct), number(v.waves_per_sm),
                     unit_doc(v.busiest) if v.busiest else None, [unit_doc(u) for u in v.top_units],
                     v.ncu_title or None, text)
    _nulls("verdict", _fields(out), v.reason or "not measured", missing)
    return out


def _fields(s: Struct) -> dict[str, object]:
    """A struct's fields by name, in order."""
    return {name: getattr(s, name) for name in s.__struct_fields__}


def time_model_doc(t: TimeModel | None, missing: dict[str, str]) -> TimeModelDoc | None:
    """The launch's time model: each term's time at its unit's peak, with its formula and inputs; the floor (the
    largest term) and the slack (measured minus floor)."""
    if t is None:
        missing["time_model"] = "not computed"
        return None
    out = TimeModelDoc(
        number(t.measured_s), number(t.floor_s) if not t.reason else None,
        t.floor.key if t.floor is not None and not t.reason else None,
        number(t.slack_s) if not t.reason else None,
        [TermDoc(term.key, term.name, term.kind, number(term.seconds), term.formula,
                 {k: number(v) for k, v in term.inputs.items()}, term.metric or None, term.side or None,
                 term.sm_local, number(term.achievable_s), term.peak_source or None, term.peak_kind)
         for term in t.terms])
    _nulls("time_model", _fields(out), t.reason or "not measured", missing)
    for i, term in enumerate(t.terms):
        _term_nulls(term, f"time_model.terms[{i}]", missing)
    return out


def _full_peak_reason(term: Term) -> str:
    """Why a time-model term has no time at an achievable peak: its time is at the peak a kernel reaches there."""
    if term.kind == "launch":
        return f"the launch floor is no unit's peak: the {term.formula}"
    if term.kind == "tail":
        return "a tail of whole blocks: its unit at the peak the SMs reach under a saturating load"
    if term.sm_local:
        return "a unit inside the SMs: pipes, issue slots and L1 reach their peak under a saturating load"
    return ("no achievable figure below this level's peak: no spec matched the GPU, or its spec (or memory type) "
            "gives none for the level")


def _term_nulls(term: Term, path: str, missing: dict[str, str]) -> None:
    """The reasons of a time-model term's null fields."""
    if term.achievable_s is None:
        missing[f"{path}.achievable_s"] = missing[f"{path}.peak_source"] = _full_peak_reason(term)
    if not term.metric:
        missing[f"{path}.metric"] = "the launch floor is no unit's: no metric"
    if not term.side:
        missing[f"{path}.side"] = "no unit's side (compute or memory): " + (
            "the launch floor" if term.kind == "launch" else f"a {term.kind} term")


def unit_doc(u: BusyUnit) -> Unit:
    return Unit(u.name, number(u.pct), u.side, u.metric)


def stalls_doc(s: WarpStalls | None, missing: dict[str, str]) -> StallsDoc | None:
    """What the warps wait on; unmeasured figures are null with their reason under ``missing``."""
    if s is None:
        missing["stalls"] = "not computed"
        return None
    missing.update({f"stalls.{key}": reason for key, reason in s.missing.items()})
    return StallsDoc(s.source or None, [StallDoc(r, number(v), number(share)) for r, v, share in s.reasons],
                     number(s.issue_active_pct), number(s.eligible_per_scheduler), number(s.active_per_scheduler))


def instruction_roofline_doc(r: InstructionRoofline | None, missing: dict[str, str]) -> InstructionRooflineDoc | None:
    """The launch on the instruction roofline, with its roofs; each null has its reason under ``missing`` and each
    number how it was obtained under ``via``."""
    key = "instruction_roofline"
    if r is None:
        missing[key] = "not computed"
        return None
    rates = {"warp_gips": r.warp_gips, "thread_gips_per_32": r.thread_gips_per_32, "peak_warp_gips": r.peak_warp_gips}
    levels = {"transactions": r.transactions, "intensity": r.intensity, "thread_intensity": r.thread_intensity,
              "peak_gtxn_per_s": r.peak_gtxn_per_s}
    gips = {name: value_or_null(v, f"{key}.{name}", missing) for name, v in rates.items()}
    per_level = {name: values_or_null(values, f"{key}.{name}", missing) for name, values in levels.items()}
    spaces = {"global_memory": r.global_memory, "shared_memory": r.shared_memory}
    walls = {name: memory_walls_doc(w, f"{key}.{name}", missing) for name, w in spaces.items()}
    integer = integer_doc(r.integer, f"{key}.integer", missing)
    # how each measured number was obtained, by path (a path made for the measured ones only: most are not)
    via = {name: v.via for name, v in rates.items() if v.value is not None}
    via |= {f"{name}.{level}": v.via for name, values in levels.items() for level, v in values.items()
            if v.value is not None}
    via |= {f"{name}.{op}": v.via for name, w in spaces.items() for op, v in w.intensity.items() if v.value is not None}
    via |= {f"integer.{name}": v.via for name, v in _integer_rates(r.integer).items() if v.value is not None}
    via |= {f"integer.intensity.{level}": v.via for level, v in r.integer.intensity.items() if v.value is not None}
    return InstructionRooflineDoc(
        gips["warp_gips"], gips["thread_gips_per_32"], gips["peak_warp_gips"], per_level["transactions"],
        per_level["intensity"], per_level["thread_intensity"], per_level["peak_gtxn_per_s"], dict(r.definitions),
        r.ceilings, walls["global_memory"], walls["shared_memory"], integer,
        via | {f"{name}.width_bytes": f"{WIDTH_VIA}: {w.width_note}" for name, w in spaces.items()
               if w.width_source == "sass"})


def memory_doc(p: MemoryPicture | None, missing: dict[str, str], words: Words) -> MemoryDoc | None:
    """The memory chart: L1 and L2 hit rates (percent) and the traffic per edge; nulls have their reason under
    ``missing``, numbers their metrics under ``via``."""
    if p is None:
        missing["memory"] = "not computed"
        return None
    groups = {"hit_rate_pct": p.hit_rate_pct, "traffic": p.traffic, "sol_pct": p.sol_pct,
              "traffic_pct": p.traffic_pct, "l2_hit_rate_pct_by_op": p.l2_hit_rate_pct_by_op}
    via = {f"{group}.{k}": v.via for group, values in groups.items() for k, v in values.items() if v.value is not None}
    out = {group: values_or_null(values, f"memory.{group}", missing) for group, values in groups.items()}
    return MemoryDoc(out["hit_rate_pct"], out["traffic"], dict(p.definitions), out["sol_pct"], via,
                     out["traffic_pct"], out["l2_hit_rate_pct_by_op"], [words.memory_note(note) for note in p.notes])


def integer_doc(r: IntegerRoofline, key: str, missing: dict[str, str]) -> IntegerDoc:
    """The integer roofline, each null with its reason under ``missing``."""
    out = {name: value_or_null(v, f"{key}.{name}", missing) for name, v in _integer_rates(r).items()}
    return IntegerDoc(**out, intensity=values_or_null(r.intensity, f"{key}.intensity", missing))


def _integer_rates(r: IntegerRoofline) -> dict[str, Value]:
    """The integer roofline's rates by their names in the document."""
    return {"giops": r.giops, "peak_giops": r.peak_giops, "pct_of_peak": r.pct_of_peak}


def hotspots_doc(h: Hotspots | None, missing: dict[str, str]) -> HotspotsDoc | None:
    """The launch's instructions and source lines with the most warp samples (``HOTSPOTS_SHOWN`` of each); a null
    SASS text or source line has its reason under ``missing``."""
    if h is None:
        missing["hotspots"] = f"the report holds no warp samples per instruction: {HINT_PC_SAMPLES}"
        return None
    pcs = []
    for i, (pc, share) in enumerate(h.pcs[:HOTSPOTS_SHOWN]):
        pcs.append(HotPc(pc.samples, number(share), **_pc_fields(pc, h),
                         source=f"{pc.file}:{pc.line}" if pc.file is not None else None))
        if pc.file is None:
            missing[f"hotspots.pcs[{i}].source"] = h.source_missing
        _pc_nulls(pcs[-1], f"hotspots.pcs[{i}]", h, missing)
    lines = [HotLineDoc(line.where, line.file, line.line, line.samples, number(line.share), line.top_stall,
                        list(line.tied_stalls), line.samples < THIN_SAMPLES, dict(line.stalls),
                        [LinePc(**_pc_fields(pc, h), samples=pc.samples) for pc in line.pcs])
             for line in h.lines[:HOTSPOTS_SHOWN] if line.samples > 0]
    for i, line_doc in enumerate(lines):
        if line_doc.top_stall is None:
            missing[f"hotspots.lines[{i}].top_stall"] = ("several stall reasons tie (top_stalls)"
                                                         if len(line_doc.top_stalls) > 1 else "no stall reason sampled")
        for j, pc_doc in enumerate(line_doc.pcs):
            _pc_nulls(pc_doc, f"hotspots.lines[{i}].pcs[{j}]", h, missing)
    if not lines and h.total_samples:
        missing["hotspots.lines"] = h.source_missing
    return HotspotsDoc(h.total_samples, len(h.pcs), pcs, sum(line.samples > 0 for line in h.lines), lines,
                       THIN_SAMPLES, list(h.functions))


def _pc_fields(pc: PcCounters, h: Hotspots) -> dict[str, Any]:
    """One instruction: where it is (absolute PC, its function), its counters, its stall ties and, where its warps
    waited on a dependency, the instruction producing the awaited register."""
    found = h.producers.get(pc.pc) if pc.pc is not None else None
    producer = None if found is None else ProducerDoc(
        found.pc, found.pc_offset, found.sass, list(found.registers), found.stall, _source(found), found.kind,
        [CandidateDoc(c.pc, c.pc_offset, c.sass, list(c.registers), _source(c)) for c in found.candidates])
    return {"pc_offset": pc.pc_offset, "pc": pc.pc, "function": h.function_of(pc) or None,
            "function_pc": pc.function_pc, "sass": pc.sass, "stalls": dict(pc.stalls),
            "top_stalls": list(h.stalls_of(pc)), "thin": pc.samples < THIN_SAMPLES, "producer": producer,
            "inst_executed": number(pc.inst_executed), "thread_inst_executed": number(pc.thread_inst_executed),
            "memory": dict(pc.memory)}


def _pc_nulls(pc: HotPc | LinePc, path: str, h: Hotspots, missing: dict[str, str]) -> None:
    """The reasons of a hot instruction's null fields (its own source line aside)."""
    if pc.sass is None:
        missing[f"{path}.sass"] = h.sass_missing or "ncu_report gave no SASS text"
    if pc.inst_executed is None:
        missing[f"{path}.inst_executed"] = missing[f"{path}.thread_inst_executed"] = (
            "ncu gave no executed-instruction count for this instruction (the SourceCounters section's "
            "per-instruction counters)")
    if pc.producer is None:
        missing[f"{path}.producer"] = ("its warps waited on no register a SASS instruction of the function "
                                       "produces (no dependency stall sampled, or no producer found)")
        return
    if pc.producer.source is None:
        missing[f"{path}.producer.source"] = h.source_missing or HINT_LINEINFO
    for k, c in enumerate(pc.producer.candidates):
        if c.source is None:
            missing[f"{path}.producer.candidates[{k}].source"] = h.source_missing or HINT_LINEINFO


def _source(p: Producer) -> str | None:
    """A producer's source line ("path/sgemm.cu:40"), None without line information."""
    return f"{p.file}:{p.line}" if p.file is not None else None


WIDTH_VIA = "per-opcode SASS counts (sass__inst_executed_per_opcode_with_modifier_all), warp instructions x bytes"


def memory_walls_doc(w: MemoryWalls, key: str, missing: dict[str, str]) -> dict[str, Number | dict[str, float]]:
    """One memory space on the model's walls: per operation its intensity (null with its reason), and the walls."""
    out: dict[str, Number | dict[str, float]] = dict(values_or_null(w.intensity, key, missing))
    out["walls"] = dict(w.walls)
    out["width_bytes"] = dict(w.width_bytes) if w.width_source == "sass" else None
    out["width_walls"] = dict(w.width_walls)
    if out["width_bytes"] is None:
        missing[f"{key}.width_bytes"] = w.width_note
    return out


def occupancy_doc(o: Occupancy | None, missing: dict[str, str]) -> OccupancyDoc | None:
    """Occupancy diagnostics; unmeasured numbers are null with their reason under ``missing``."""
    if o is None:
        missing["occupancy"] = "not computed"
        return None
    missing.update({f"occupancy.{key}": reason for key, reason in o.missing.items()})
    if o.calculator is not None and o.calculator.limits.barriers_limit is None:
        missing["occupancy.calculator.limits.barriers_limit"] = (
            f"{LIMIT_METRIC.format('barriers')} not in the report (an older ncu, or the Occupancy section not "
            "collected)")
    return OccupancyDoc(
        number(o.theoretical_pct), number(o.achieved_pct), dict(o.limits), list(o.limiters), o.blocks_per_sm,
        o.warps_per_block, number(o.waves_per_sm), number(o.tail_idle_pct), dict(o.derived_limits),
        [WhatIfDoc(w.change, w.blocks_per_sm, number(w.theoretical_pct), w.text, w.point) for w in o.what_if],
        list(o.findings), o.calculator)


def tensor_cores_doc(t: TensorCores | None, missing: dict[str, str]) -> TensorCoresDoc | None:
    """Tensor Core diagnostics; a status of "not measured" has its reason under ``missing``."""
    if t is None:
        missing["tensor_cores"] = "not computed"
        return None
    if t.reason:
        missing["tensor_cores"] = t.reason
    missing.update({f"tensor_cores.{key}": reason for key, reason in t.missing.items()})
    nulls = {"matmul_like": (t.matmul_like, "it does not look like a matrix multiply (name or instruction mix)"),
             "warning": (t.warning, "no warning: nothing to say about its Tensor Core use"),
             "advice": (t.advice, "no advice: no warning to act on"),
             "work_source": (t.work_source, "no Tensor Core work counted")}
    for key, (value, reason) in nulls.items():
        if not value:
            missing.setdefault(f"tensor_cores.{key}", reason)
    return TensorCoresDoc(
        t.status, t.arch, {k: number(v) for k, v in t.families.items()}, dict(t.flops_by_type),
        number(t.pipe_active_pct), number(t.pipe_elapsed_pct), number(t.flop_share), t.matmul_like or None,
        t.warning or None, t.advice or None, list(t.findings),
        {dtype: _tensor_roof_doc(r, f"tensor_cores.roofs.{dtype}", missing) for dtype, r in t.roofs.items()},
        t.work_source)


def _tensor_roof_doc(r: TensorRoof, key: str, missing: dict[str, str]) -> TensorRoofDoc:
    """One data type's tensor work against its dense roof, with how each number was obtained."""
    values = {"achieved_ops_per_s": r.achieved_ops_per_s, "peak_ops_per_s": r.peak_ops_per_s,
              "pct_of_peak": r.pct_of_peak}
    out = {name: value_or_null(v, f"{key}.{name}", missing) for name, v in values.items()}
    return TensorRoofDoc(**out, work=r.work, via={name: v.via for name, v in values.items() if v.value is not None},
                         source=r.source)


def advice_doc(a: Advice, path: str, missing: dict[str, str], words: Words) -> AdviceDoc:
    """One advice item; a time saved that is not estimated is null with its reason under ``missing``."""
    estimate, bound = words.estimate_of(a), words.bound_of(a)
    if a.est_saved_s is None:
        missing[f"{path}.est_saved_s"] = estimate or "not estimated"
    _advice_nulls(a, path, missing, estimate or "not estimated", bound)
    return AdviceDoc(a.kind, a.title, words.text_of(a), a.condition, words.cause_of(a), a.source, list(a.also),
                     a.topic or None, a.mechanism, number(a.work_share), number(a.est_saved_s), estimate,
                     bound or None, a.bound_by.value or None, number(a.ncu_saved_s), a.overlapping,
                     {level: number(b) for level, b in a.change.kept_bytes} if a.change is not None else {},
                     (a.change.peak_source or None) if a.change is not None else None,
                     a.change.peak_kind if a.change is not None else PeakKind.DATASHEET)


def _advice_nulls(a: Advice, path: str, missing: dict[str, str], estimate: str, bound: str) -> None:
    """The reasons of an advice item's null fields other than its saving."""
    if not bound:
        missing[f"{path}.bound"] = missing[f"{path}.bound_by"] = f"no bound: {estimate}"
    elif not a.bound_by.value:
        missing[f"{path}.bound_by"] = "the bound is stated in words only"
    if a.work_share is None:
        missing[f"{path}.work_share"] = ("the share of the work the change removes is not known: "
                                         "it changes how the work runs, or at a rate whose ratio is not known")
    if a.ncu_saved_s is None:
        missing[f"{path}.ncu_saved_s"] = ("ncu's rule states no saving for it" if a.source == "ncu" else
                                          "not from an ncu rule: ncu states no saving for it")
    if a.change is None:
        missing[f"{path}.peak_source"] = "no what-if on the time model: no peak its saving is measured to"
    elif not a.change.peak_source:
        missing[f"{path}.peak_source"] = "measured to the datasheet peak (no achievable figure for that unit)"


# Why a set of roofs has no SM clock, by its source (a datasheet set always has its spec's boost clock).
NO_SM_CLOCK = {"measured-clock": "the report holds no measured SM clock",
               "kernel-clock": "the report holds no measured SM clock, and no roof at an SM clock came from a "
                               "datasheet",
               "calibrated": "the calibration file records no SM clock",
               "datasheet": "the spec gives no boost clock"}


def roof_reasons(c: Ceilings) -> dict[str, str]:
    """The reason of each null of a set of roofs: its roofs' and, where no clock is known, ``sm_clock_hz``'s."""
    return {**c.missing, "sm_clock_hz": NO_SM_CLOCK[c.source]} if c.sm_clock_hz is None else dict(c.missing)


def ceilings_doc(c: Ceilings, reasons: Reasons) -> CeilingsDoc:
    """One set of roofs of a report; ``missing`` holds the reason of each null roof, as its index in ``reasons``.
    Made once per set: the launches of a report share their datasheet and measured-clock sets."""
    held = reasons.ceilings.get(id(c))
    if held is None or held[0] is not c:
        held = reasons.ceilings[id(c)] = (c, CeilingsDoc.of(c, reasons.refs(roof_reasons(c))))
    return held[1]


def ceilings_text(c: Ceilings) -> CeilingsText:
    """One set of roofs standing alone; ``missing`` holds the reason of each null roof."""
    return CeilingsText.of(c, roof_reasons(c))


NO_GROUP_TIME = "no launch of the group has a time"
NO_VERDICT = "no launch of the group has a verdict, so whether it is a small grid is not known"


def small_grid_reason(verdict_reason: str | None) -> str:
    """Why a group's small-grid time is null: no launch has a time (``verdict_reason`` None), else none has a
    verdict, for ``verdict_reason`` (the report's reason for a launch's null verdict)."""
    if verdict_reason is None:
        return NO_GROUP_TIME
    return f"{NO_VERDICT}: {verdict_reason}" if verdict_reason else NO_VERDICT


def group_docs(v: ReportView, reasons: Reasons) -> list[Group]:
    """The report's groups by time, each with its time to gain and its place in the ranking by it (the ranking
    ``report`` shows)."""
    place = {id(g): (i, gain) for i, (g, gain) in enumerate(zip(v.ranking, v.gains, strict=True), 1)}
    return [group_doc(g, *place[id(g)], reasons) for g in v.analysis.groups]


def group_doc(g: KernelGroup, rank: int, gain: float | None, reasons: Reasons) -> Group:
    why = {"time_to_gain_s": NO_GAIN} if gain is None else {}
    if g.small_grid_s is None:
        why["small_grid_s"] = small_grid_reason(g.longest.verdict.reason if g.total_s is not None else None)
    if g.total_s is None:
        untimed = f"no launch of it has a time ({g.longest.duration_s.reason or 'not measured'})"
        why.update(dict.fromkeys(("total_s", "median_s", "min_s", "max_s", "time_share"), untimed))
    elif g.time_share is None:
        why["time_share"] = "the report has no total time"
    if g.median_pct_of_roof is None:
        why["median_pct_of_roof"] = f"no launch of it has a percent of roof ({g.longest.roof.reason or 'no roof'})"
    if g.recoverable_s is None:
        why["recoverable_s"] = "no launch of it has both a time and a percent of a peak (a throughput or a roof)"
    missing = reasons.refs(why)
    return Group(g.name, list(g.functions), len(g.launches), number(g.total_s), number(g.median_s),
                 number(g.min_s), number(g.max_s), number(g.time_share), number(g.median_pct_of_roof),
                 number(g.recoverable_s), number(g.small_grid_s), number(gain), rank, missing)
