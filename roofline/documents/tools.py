"""The results of the MCP tools (``roofline mcp``, docs/agents.md): each a typed document, a smaller one than its
command's ``--format json`` document where a whole one would be too long for an agent's context (one launch, one
page of kernels), built of that document's own parts. Their JSON Schemas are generated from these types as the
commands' are (``roofline.documents.schemas``, kinds named by the tool) and each tool declares its own as its output
schema. ``grade_kernel`` answers the ``grade`` document with what it leaves out and its command.

Each result is built here from its command's typed document (``kernel_list``, ``kernel_analysis``, ``judgement``,
``projection_page``, ``nsys_ranking``, ``graded``, ``spec_list``, ``spec_result``): the MCP server asks for them
and encodes what they return. ``spec_refs`` and ``spec_doc`` are also ``specs list`` and ``specs show``'s JSON."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Annotated, Literal

from msgspec import UNSET, Meta, Struct, UnsetType, convert
from msgspec.structs import asdict, replace

from roofline.analysis.results import Bound
from roofline.compare.regression import DiffResult, NotJudged
from roofline.core.choices import TargetClock
from roofline.core.kernel_names import fit_apart, kernel_name
from roofline.core.model import CeilingSet
from roofline.core.units import middle_cut
from roofline.documents.common import SCHEMA_VERSION, Number, Tool, Version, tool
from roofline.documents.compare import (
    CompareWords,
    DiffKernel,
    Headline,
    JudgedFields,
    OwnGpuDoc,
    ProjectJson,
    ProjectKernel,
    Regression,
    ReportRefDoc,
    SummaryJson,
    SummaryReport,
    SummaryRowDoc,
    ThresholdsDoc,
    TotalDoc,
    WorkloadDoc,
    diff_json,
    headline,
)
from roofline.documents.grade import GradeJson
from roofline.documents.report import CeilingsDoc, CeilingsText, Device, Kernel, ReportJson
from roofline.documents.timeline import KernelDoc, TimelineDoc, TimelineJson
from roofline.errors import RooflineError

if TYPE_CHECKING:  # pragma: no cover
    from roofline.specs.catalog import DeviceSpec

# A figure of time alone: left out (not null) of a pair whose work differs, where time is no measure of speed.


class Page(Struct, frozen=True):
    """Which entries of a paginated list the result holds, and the offset of the next page (null: none)."""

    offset: int
    limit: int
    total: int
    next_offset: int | None


class CutList(Struct, frozen=True):
    """A list cut to fit the result's size budget: its path in the result, the entries kept of how many."""

    path: str
    kept: int
    of: int


class Cut(Struct, frozen=True):
    """What was cut to fit the budget (``max_chars``), the whole result's length, and how to ask for the rest."""

    lists: list[CutList]
    full_chars: int
    ask: str


class ToolResult(Struct, frozen=True, kw_only=True, omit_defaults=True):
    """What every tool's result holds: the schema version, the tool, the equivalent command line (its ``--format
    json`` document holds the numbers in full), what was cut to fit the budget and the file written (if asked)."""

    schema_version: Version
    tool: Tool
    command: str
    cut: Cut | None = None
    written: str | None = None


class ListedRow(SummaryRowDoc, frozen=True):
    """One kernel group of ``summary --format json`` with each reason once, with the paths of the nulls it explains
    (``missing``)."""

    missing: dict[str, list[str]]  # type: ignore[assignment]  # msgspec keeps the field in its place


class ListedReport(SummaryReport, frozen=True):
    """One report of ``summary --format json``, its rows' reasons each once (``ListedRow``)."""

    rows: list[ListedRow]  # type: ignore[assignment]


class KernelList(ToolResult, frozen=True, kw_only=True):
    """``list_kernels``: per report its kernel groups ranked by time to gain (a group without one by its recoverable
    time: each row's ``ranked_by_kind``), as ``summary --format json`` (one page of rows, each reason of a row once
    with the paths of its nulls)."""

    kind: Literal["summary"]
    page: Page
    reports: list[ListedReport]


class ReportHead(Struct, frozen=True):
    """The report a launch comes from: its file, label, GPU, the roofs used, its warnings and total time, and each
    reason once with the paths of the nulls it explains (``missing``: ``total_time_s``)."""

    path: str
    label: str
    device: Device
    ceilings_used: CeilingSet
    warnings: list[str]
    total_time_s: Number
    missing: dict[str, list[str]]


class MatchedLaunch(Struct, frozen=True, omit_defaults=True):
    """A launch the kernel filter matched: its place among them (``launch``), name, duration and bound, and where
    either is null each reason once with the paths of the nulls it explains (``missing``, left out where none is)."""

    launch: int
    name: str
    duration_s: Number
    bound: Bound | None
    missing: dict[str, list[str]] = {}


class LaunchDoc(Kernel, frozen=True):
    """One launch of ``report --format json``, with the roofs of the set used alone (``ceilings``) and each reason
    once with the paths of the nulls it explains (``missing``); the advice and hot spots as many as asked for."""

    ceilings: dict[str, CeilingsText | None]  # type: ignore[assignment]  # msgspec keeps the field in its place
    missing: dict[str, list[str]]  # type: ignore[assignment]


class KernelAnalysis(ToolResult, frozen=True, kw_only=True):
    """``analyse_kernel``: one launch of a report (the longest the filter matched, or the one asked for); a
    demangled name past the result's width cut in its middle (said under ``left_out``)."""

    kind: Literal["kernel"]
    report: ReportHead
    launch: int
    matched: list[MatchedLaunch]
    kernel: LaunchDoc
    left_out: str | None = None


class JudgedKernel(JudgedFields, frozen=True, kw_only=True):
    """One kernel pair of ``diff --format json`` (``JudgedFields``, without BASE's and NEW's aggregates) with the
    headline of ``compare --format json``; where the work differs the figures of time alone (``speedup``,
    ``expected_speedup``, ``slowdown_pct``) are left out, and ``left_out`` says why."""

    headline: Headline | None
    left_out: Annotated[str | None | UnsetType, Meta(extra_json_schema={"default": None})] = UNSET


class Judgement(ToolResult, frozen=True, kw_only=True):
    """``compare_reports``: the regression gate of ``diff`` (``command``) with each pair's headline from
    ``compare`` (``also``): the verdict, its exit code and what it means, the thresholds, the pairs."""

    kind: Literal["compare"]
    also: str
    exit_code: Literal[0, 1, 2]
    meaning: str
    regressions: list[Regression]
    total: TotalDoc | None
    setup_notes: list[str]
    thresholds: ThresholdsDoc
    base: ReportRefDoc
    new: ReportRefDoc
    kernels: list[JudgedKernel]
    only_in_base: list[str]
    only_in_new: list[str]
    only_in_new_s: Number  # the kernels only NEW runs: their time, not gated (null with the reason in missing)
    only_in_new_share: Number
    missing: dict[str, str]
    only_in_new_regressed: bool | None = None  # that share above thresholds.new_share_pct; null: not gated
    not_judged: list[NotJudged] = []  # kernels the gate would judge but could not (exit 2 unless a regression)


class ProjectionPage(ToolResult, frozen=True, kw_only=True):
    """``project_report``: ``project --format json`` with one page of its kernels; the workload's total whole."""

    kind: Literal["project"]
    target: str | None
    clock: TargetClock
    report: ReportRefDoc
    page: Page
    kernels: list[ProjectKernel]
    workload: WorkloadDoc | None
    own_gpu: OwnGpuDoc | None = None  # onto the report's own GPU: its row and clocks (the change of clock said)
    missing: dict[str, str] = {}  # why target, workload or own_gpu is null (``project --format json``'s reasons)


class GradedKernels(GradeJson, frozen=True, kw_only=True, omit_defaults=True):
    """``grade_kernel``: ``grade --format json`` (``command``) without each kernel's launches and with long kernel
    names cut (said under ``left_out``), what was cut to fit the budget and the file written (if asked)."""

    command: str
    left_out: str
    cut: Cut | None = None
    written: str | None = None


class Cited(Struct, frozen=True, omit_defaults=True):
    """A number of a device spec, its source, and how it was derived where it was computed."""

    value: float
    source: str
    derived: str | None = None


class SpecMemory(Struct, frozen=True):
    """A spec's device memory: type, size, bandwidth (datasheet and achievable), clock and bus width."""

    type: str
    bytes: Cited | None
    bandwidth_bytes_per_s: Cited | None
    achievable_bandwidth_bytes_per_s: Cited | None
    clock_hz: Cited | None
    bus_width_bits: Cited | None


class SpecBandwidth(Struct, frozen=True):
    """A spec's L2 and L1 bandwidths."""

    l2_bytes_per_s: Cited | None
    l1_bytes_per_s: Cited | None


class Rate(Struct, frozen=True, omit_defaults=True):
    """A calibrated roof at one clock setting: the median of its runs, their range, how many, the SM clock."""

    median: float
    low: float
    high: float
    runs: int
    sm_clock_hz: float | None = None


class MeasuredRoof(Struct, frozen=True, omit_defaults=True):
    """A calibrated roof: how it was measured, at ncu's clocks and the default ones, or why it was not."""

    method: str | None = None
    ncu: Rate | None = None
    default: Rate | None = None
    missing: str | None = None


class Measured(Struct, frozen=True):
    """A spec's calibration file (``roofline calibrate``): the file, the device, when, with what, the roofs."""

    file: str
    device: str
    date: str
    software: str
    roofs: dict[str, MeasuredRoof]


class SpecDoc(Struct, frozen=True, omit_defaults=True, kw_only=True):
    """``specs show --format json``: every number of one device spec beside its source."""

    id: str
    file: str
    display_names: list[str]
    architecture: str
    chip: str
    compute_capability: str
    sm_count: Cited | None
    boost_clock_hz: Cited | None
    tensor_clock_hz: Cited | None
    base_clock_hz: Cited | None
    sustained_clock_hz: Cited | None
    board_power_w: Annotated[Cited | None | UnsetType, Meta(extra_json_schema={"default": None})] = UNSET
    fp32_lanes_per_sm: Cited | None
    memory: SpecMemory
    l2_bytes: Cited | None
    peaks: dict[str, Cited | None]
    bandwidth: SpecBandwidth
    notes: str
    measured: Measured | None = None
    missing: dict[str, str] = {}  # the reason of each null number, by its key (``memory.clock_hz``), and its use


class SpecRef(Struct, frozen=True, kw_only=True):
    """A known device spec: its id, the names the GPU goes by, and the figures ``specs list`` shows (datasheet,
    dense; null where the spec gives none)."""

    id: str
    display_names: list[str]
    compute_capability: str
    sm_count: int
    fp32_flop_per_s: float | None = None
    tensor_fp16_flop_per_s: float | None = None  # dense FP16 Tensor Core peak
    dram_bytes_per_s: float | None = None
    missing: dict[str, str] = {}  # the reason of each null figure


NO_SPEC_FIGURE = "the spec file gives no {} (device_specs/README.md: a GPU without that unit, or no published figure)"
SPEC_FIGURES = {"fp32_flop_per_s": "FP32 peak", "tensor_fp16_flop_per_s": "dense FP16 Tensor Core peak",
                "dram_bytes_per_s": "DRAM bandwidth"}


class GpuSpec(ToolResult, frozen=True, kw_only=True):
    """``gpu_spec``: one spec (``kind`` spec, under ``spec``) or the known ones (``kind`` specs, under
    ``specs``)."""

    kind: Literal["spec", "specs"]
    spec: SpecDoc | None = None
    specs: list[SpecRef] | None = None


class NcuRun(Struct, frozen=True):
    """An ncu run ``analyze --from-nsys`` plans: the kernels, which launch, why, and the command (``APP``: the
    application and its arguments; ``NAME``: the name of the report and log files it writes, ``NAME.top1.ncu-rep``,
    as ``analyze`` names them after the application: ``app.top1.ncu-rep``)."""

    kernels: list[str]
    launch_skip: int | None  # null: from the first matching launch
    launch_count: int
    why: str
    ncu: str


class NsysRanking(ToolResult, frozen=True, kw_only=True):
    """``rank_nsys_kernels``: ``timeline --format json`` of one file, its kernels one page at a time under
    ``kernels`` (the profile's own ``kernels`` left empty), the ``analyze --from-nsys`` line and the ncu runs of its
    top kernels; within an NVTX range, no line (null, its reason under ``missing``) and no run: they would profile
    kernels launched outside it (said under ``left_out``)."""

    kind: Literal["timeline"]
    profile: TimelineDoc
    page: Page
    kernels: list[KernelDoc]
    analyze: str | None
    ncu_runs: list[NcuRun]
    left_out: str | None = None
    missing: dict[str, str] = {}  # the reason of each null field (``analyze``)


# --- The results, built from their commands' documents ---------------------------------------------------------
DIFF_EXIT = {0: "no regression beyond the thresholds",
             1: "regression: the kernels and why under regressions, the total under total.regressed, the kernels only "
                "the new report runs under only_in_new_regressed",
             2: "not judged: no regression, but the kernels under not_judged (each at least min_share_pct of the "
                "time) have no time on a side (not measured, or every launch invalid), so a regression in them "
                "would pass"}
BY_TIME = ("speedup", "expected_speedup", "slowdown_pct")  # JudgedKernel's figures of time alone


def page(offset: int, limit: int, total: int) -> Page:
    """Entries ``offset`` to ``offset + limit`` of ``total``, and where the next page starts."""
    return Page(offset, limit, total, offset + limit if offset + limit < total else None)


def kernel_list(summary: SummaryJson, command: str, offset: int, limit: int) -> KernelList:
    """``list_kernels``: the summary document (its top ``offset + limit`` groups) from entry ``offset`` on; the page
    counts the groups of the report that has most."""
    total = max((r.groups for r in summary.reports), default=0)
    reports = [ListedReport(**{**asdict(r), "rows": [listed_row(row) for row in r.rows[offset:]]})
               for r in summary.reports]
    return KernelList(schema_version=SCHEMA_VERSION, tool=tool(), command=command, kind="summary",
                      page=page(offset, limit, total), reports=reports)


def listed_row(row: SummaryRowDoc) -> ListedRow:
    """A summary row with each reason written once, with the paths of the nulls it explains."""
    return ListedRow(**{**asdict(row), "missing": by_reason(row.missing.items())})


def by_reason(reasons: Iterable[tuple[str, str]]) -> dict[str, list[str]]:
    """Each reason of ``(path, reason)`` pairs once, with its paths in their order."""
    grouped: dict[str, list[str]] = {}
    for path, reason in reasons:
        grouped.setdefault(reason, []).append(path)
    return grouped


def kernel_analysis(report: ReportJson, command: str, launch: int | None, advice: int, hotspots: int,
                    kernel: str, shown: str, name_chars: int | None = None) -> KernelAnalysis:
    """``analyse_kernel``: launch ``launch`` (None: the longest) of the launches filter ``kernel`` matched in the
    one report (``shown``: its path as the call gave it), with ``advice`` advice items and ``hotspots`` hot
    spots; its demangled name past ``name_chars`` (None: whatever its length) cut in its middle."""
    (rep,) = report.reports
    kernels = rep.kernels
    chosen = _chosen(kernels, launch, f"{kernel!r} matched {len(kernels)} launches in {shown}")
    doc = launch_doc(kernels[chosen], rep.reasons, advice, hotspots)
    long = name_chars is not None and len(doc.demangled_name) > name_chars
    return KernelAnalysis(
        schema_version=SCHEMA_VERSION, tool=tool(), command=command, kind="kernel",
        report=ReportHead(rep.path, rep.label, rep.device, rep.ceilings_used, rep.warnings, rep.total_time_s,
                          by_reason((path, rep.reasons[i]) for path, i in rep.missing.items())),
        launch=chosen, matched=[matched_launch(i, k, rep.reasons) for i, k in enumerate(kernels)],
        kernel=replace(doc, demangled_name=middle_cut(doc.demangled_name, name_chars or 0)) if long else doc,
        left_out=f"kernel.demangled_name: cut in its middle to {name_chars} of its {len(doc.demangled_name)} "
                 "characters (the command gives it whole)" if long else None)


def matched_launch(i: int, k: Kernel, reasons: Sequence[str]) -> MatchedLaunch:
    """Launch ``k`` as the launches matched list it (``i``: its place among them), with the reasons of its nulls."""
    nulls = [(field, reasons[k.missing[field]]) for field in MatchedLaunch.__struct_fields__ if field in k.missing]
    return MatchedLaunch(i, k.name, k.duration_s, k.bound, by_reason(nulls))


def _chosen(kernels: Sequence[Kernel], launch: int | None, matched: str) -> int:
    """The launch asked for, or (None) the longest."""
    if launch is None:
        return max(range(len(kernels)), key=lambda i: kernels[i].duration_s or 0.0)
    if launch < len(kernels):
        return launch
    raise RooflineError(f"launch {launch}: {matched}", f"give launch from 0 to {len(kernels) - 1}")


def launch_doc(k: Kernel, reasons: Sequence[str], advice: int, hotspots: int) -> LaunchDoc:
    """One launch of the report document as ``analyse_kernel`` gives it: the roofs of the set used alone, each reason
    written out once with the paths of the nulls it explains, the first advice items and hot spots."""
    grouped = by_reason((path, reasons[index]) for path, index in k.missing.items())
    spots = k.hotspots
    if spots is not None:
        spots = replace(spots, pcs=spots.pcs[:hotspots], lines=spots.lines[:hotspots])
    used = k.ceilings.get(k.ceilings_used)
    return LaunchDoc(**{**asdict(k), "ceilings": {k.ceilings_used: None if used is None else _text(used, reasons)},
                        "missing": grouped, "advice": k.advice[:advice], "hotspots": spots})


def _text(c: CeilingsDoc, reasons: Sequence[str]) -> CeilingsText:
    """A report's set of roofs standing alone: its reasons written out."""
    return CeilingsText(**{**asdict(c), "missing": {key: reasons[i] for key, i in c.missing.items()}})


def judgement(result: DiffResult, words: CompareWords, command: str, also: str) -> Judgement:
    """``compare_reports``: the diff document of ``result`` (``command``; its sentences in ``words``), each pair with
    the headline that ``compare`` (``also``) gives it against the base."""
    d = diff_json(result, words)
    kernels = [judged_kernel(k, headline(v.pair, 1)) for k, v in zip(d.kernels, result.verdicts, strict=True)]
    return Judgement(schema_version=SCHEMA_VERSION, tool=tool(), command=command, kind="compare", also=also,
                     exit_code=d.exit_code, meaning=DIFF_EXIT[d.exit_code], regressions=d.regressions, total=d.total,
                     setup_notes=d.setup_notes, thresholds=d.thresholds, base=d.base, new=d.new, kernels=kernels,
                     only_in_base=d.only_in_base, only_in_new=d.only_in_new, only_in_new_s=d.only_in_new_s,
                     only_in_new_share=d.only_in_new_share, missing=d.missing,
                     only_in_new_regressed=d.only_in_new_regressed, not_judged=d.not_judged)


def judged_kernel(k: DiffKernel, pair_headline: Headline | None) -> JudgedKernel:
    """One kernel of the diff document with its headline; where the work differs, the figures of time alone are
    left out (said under ``left_out``): the headline and the slowdown per unit of work compare the two."""
    apart = k.work is not None and k.work.different
    shared = {name: getattr(k, name) for name in JudgedFields.__struct_fields__}
    if apart:
        shared.update(dict.fromkeys(BY_TIME, UNSET))
    return JudgedKernel(
        **shared, headline=pair_headline,
        left_out=(f"{', '.join(BY_TIME)}: the work differs ({k.work.summary}), so time alone is no measure of speed; "
                  "headline and per_work_slowdown_pct compare per unit of work") if apart and k.work else UNSET)


def projection_page(project: ProjectJson, command: str, offset: int, limit: int) -> ProjectionPage:
    """``project_report``: the project document with its kernels from ``offset``, ``limit`` of them."""
    return ProjectionPage(schema_version=SCHEMA_VERSION, tool=tool(), command=command, kind="project",
                          target=project.target, clock=project.clock, report=project.report,
                          page=page(offset, limit, len(project.kernels)),
                          kernels=project.kernels[offset:offset + limit], workload=project.workload,
                          own_gpu=project.own_gpu, missing=project.missing)


# The placeholders of an ncu run's command: the application and its arguments, and the name of its output files.
APP, NAME = "APP", "NAME"


def nsys_ranking(timeline: TimelineJson, command: str, offset: int, limit: int, analyze: str,
                 runs: list[NcuRun], nvtx: str | None = None) -> NsysRanking:
    """``rank_nsys_kernels``: the one file's timeline with its kernels from ``offset``, ``limit`` of them, under
    ``kernels``, and the ``analyze`` line with the ncu runs it plans (``facade.NcuPlan.runs``: their files ``NAME``);
    with NVTX range ``nvtx`` neither (the line null, its reason under ``missing``; the runs said under
    ``left_out``): ``analyze`` plans over the whole profile, so it would profile its top kernels, launched outside
    the range, and its runs' launch skip and count would aim at launches outside it."""
    (t,) = timeline.timelines
    outside = None if nvtx is None else (
        f"analyze --from-nsys plans over the whole profile: it would profile the profile's top kernels, not those "
        f"launched inside '{nvtx}', and a run's launch skip and count (-s, -c) would aim at launches outside it")
    how = ("profile a kernel of the range with roofline analyze --kernel exact:KERNEL and --nvtx-include written in "
           "ncu's NVTX syntax for that range (DOMAIN@RANGE/ for a push/pop range; /, @, [, ], +, * and , are ncu's "
           "operators there: see ncu --help)")
    return NsysRanking(schema_version=SCHEMA_VERSION, tool=tool(), command=command, kind="timeline",
                       profile=replace(t, kernels=[]), page=page(offset, limit, len(t.kernels)),
                       kernels=t.kernels[offset:offset + limit], analyze=analyze if outside is None else None,
                       ncu_runs=runs if outside is None else [],
                       left_out=None if outside is None else f"ncu_runs: {outside}; {how}",
                       missing={} if outside is None else {"analyze": f"{outside}; {how}"})


def spec_refs(specs: Iterable[DeviceSpec]) -> list[SpecRef]:
    """``specs list --format json``: each spec's id and display names, by id."""
    return [spec_ref(s) for s in sorted(specs, key=lambda s: s.id)]


def spec_ref(s: DeviceSpec) -> SpecRef:
    """One spec as ``specs list`` shows it, each null figure with its reason."""
    figures = {"fp32_flop_per_s": s.peaks.get("fp32"), "tensor_fp16_flop_per_s": s.peaks.get("tensor_fp16"),
               "dram_bytes_per_s": s.memory_bandwidth_bytes_per_s}
    missing = {k: NO_SPEC_FIGURE.format(SPEC_FIGURES[k]) for k, v in figures.items() if v is None}
    return SpecRef(id=s.id, display_names=list(s.display_names), compute_capability=s.compute_capability,
                   sm_count=s.sm_count, missing=missing, **figures)


def spec_list(specs: Sequence[SpecRef], command: str) -> GpuSpec:
    """``gpu_spec`` without an id: the known specs."""
    return GpuSpec(schema_version=SCHEMA_VERSION, tool=tool(), command=command, kind="specs", specs=list(specs))



def graded(grade: GradeJson, name_chars: int, command: str) -> GradedKernels:
    """``grade_kernel``: the grade document without each kernel's launches, its kernel names past ``name_chars``
    cut in their middle (kept apart)."""
    names = fit_apart([kernel_name(k.kernel, k.kernel) for k in grade.kernels], name_chars)
    kernels = [replace(k, kernel=name, per_launch=[]) for k, name in zip(grade.kernels, names, strict=True)]
    return GradedKernels(
        generator=grade.generator, schema_version=grade.schema_version, kind=grade.kind, tool=grade.tool,
        report=grade.report, spec_id=grade.spec_id, baseline=grade.baseline, kernels=kernels, command=command,
        left_out=f"per_launch: each launch's floor and grade; kernel names whole past {name_chars} characters (the "
                 "command gives them)")


def spec_doc(spec: DeviceSpec) -> SpecDoc:
    """``specs show --format json``: every number of ``spec`` beside its source (and how it was derived, where it was
    computed), its calibration as its file holds it."""
    from roofline.specs.calibration import to_yaml_dict

    def cited(key: str, value: float | None) -> Cited | None:
        return None if value is None else Cited(value, spec.sources.get(key, ""), spec.derived.get(key))

    measured = None
    if spec.measured is not None:
        measured = convert({"file": spec.measured.path, **to_yaml_dict(spec.measured)["measured"]}, Measured)
    return SpecDoc(
        id=spec.id, file=spec.path, display_names=list(spec.display_names), architecture=spec.architecture,
        chip=spec.chip, compute_capability=spec.compute_capability, sm_count=cited("sm_count", spec.sm_count),
        boost_clock_hz=cited("boost_clock_hz", spec.boost_clock_hz),
        tensor_clock_hz=cited("tensor_clock_hz", spec.tensor_clock_hz),
        base_clock_hz=cited("base_clock_hz", spec.base_clock_hz),
        sustained_clock_hz=cited("sustained_clock_hz", spec.sustained_clock_hz),
        board_power_w=cited("board_power_w", spec.board_power_w),
        fp32_lanes_per_sm=cited("fp32_lanes_per_sm", spec.fp32_lanes_per_sm),
        memory=SpecMemory(spec.memory_type, cited("memory.bytes", spec.memory_bytes),
                          cited("memory.bandwidth_bytes_per_s", spec.memory_bandwidth_bytes_per_s),
                          cited("memory.achievable_bandwidth_bytes_per_s", spec.memory_achievable_bytes_per_s),
                          cited("memory.clock_hz", spec.memory_clock_hz),
                          cited("memory.bus_width_bits", spec.memory_bus_width_bits)),
        l2_bytes=cited("l2_bytes", spec.l2_bytes), peaks={k: cited(f"peaks.{k}", v) for k, v in spec.peaks.items()},
        bandwidth=SpecBandwidth(cited("bandwidth.l2_bytes_per_s", spec.l2_bytes_per_s),
                                cited("bandwidth.l1_bytes_per_s", spec.l1_bytes_per_s)),
        notes=spec.notes, measured=measured, missing=spec_missing(spec))


def spec_missing(spec: DeviceSpec) -> dict[str, str]:
    """The reason of each number ``spec`` does not give, by its key, with what roofline uses in its place."""
    from roofline.specs.achievable import achievable_dram_bandwidth, sustained_clock

    boost = f"the {spec.boost_clock_hz / 1e6:.0f} MHz boost clock"
    held = sustained_clock(spec)
    dram = achievable_dram_bandwidth(spec)
    unused = "no figure of roofline uses it (the DRAM roof is memory.bandwidth_bytes_per_s)"
    reasons = {
        "tensor_clock_hz": f"the spec gives no Tensor Core clock: its Tensor figures are taken at {boost}",
        "base_clock_hz": "the spec gives no base clock (the SM clock ncu locks while profiling): projections refuse "
                         "--clock base, and a report's clock is not checked against it",
        "sustained_clock_hz": "the spec gives no sustained clock: projections at --clock sustained (the default) use "
                              + (f"{held.value / 1e6:.0f} MHz, the clock its board_power_w allows (the power rule)"
                                 if spec.board_power_w is not None else boost),
        "board_power_w": "the spec gives no board power: the sustained clock is not worked out from it",
        "memory.achievable_bandwidth_bytes_per_s":
            "the spec gives no achievable DRAM bandwidth (no roofline calibrate run): time models use "
            + (f"{dram.value / 1e12:.3g} TB/s ({dram.source})" if dram is not None else
               "the datasheet bandwidth"),
        "memory.clock_hz": f"the spec gives no memory clock: {unused}",
        "memory.bus_width_bits": f"the spec gives no memory bus width: {unused}",
        **{f"bandwidth.{level.lower()}_bytes_per_s":
           f"the spec gives no {level} bandwidth (NVIDIA publishes none): the datasheet ceiling set has no {level} "
           f"roof; the measured-clock and kernel-clock sets take it from the report's peak counters, where it has them"
           for level in ("L2", "L1")},
    }
    values = {"tensor_clock_hz": spec.tensor_clock_hz, "base_clock_hz": spec.base_clock_hz,
              "sustained_clock_hz": spec.sustained_clock_hz, "board_power_w": spec.board_power_w,
              "memory.achievable_bandwidth_bytes_per_s": spec.memory_achievable_bytes_per_s,
              "memory.clock_hz": spec.memory_clock_hz, "memory.bus_width_bits": spec.memory_bus_width_bits,
              "bandwidth.l2_bytes_per_s": spec.l2_bytes_per_s, "bandwidth.l1_bytes_per_s": spec.l1_bytes_per_s}
    return {key: reasons[key] for key, value in values.items() if value is None}


def spec_result(spec: SpecDoc, command: str) -> GpuSpec:
    """``gpu_spec`` of one id: its spec."""
    return GpuSpec(schema_version=SCHEMA_VERSION, tool=tool(), command=command, kind="spec", spec=spec)
