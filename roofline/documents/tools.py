"""The results of the MCP tools (``roofline mcp``, docs/agents.md): each a typed document, a smaller one than its
command's ``--format json`` document where a whole one would be too long for an agent's context (one launch, one
page of kernels), built of that document's own parts. Their JSON Schemas are generated from these types as the
commands' are (``roofline.documents.schemas``, kinds named by the tool) and each tool declares its own as its output
schema. ``grade_kernel`` answers the ``grade`` document itself (``roofline.documents.grade``)."""

from __future__ import annotations

from typing import Literal

from msgspec import Struct

from roofline.analysis.results import Bound
from roofline.compare.projection_launches import WorkloadProjection
from roofline.core.choices import TargetClock
from roofline.core.model import CeilingSet
from roofline.documents.common import Number, Tool, Version
from roofline.documents.compare import (
    ChangeDoc,
    Headline,
    HotLineShift,
    ProjectKernel,
    Regression,
    ReportRefDoc,
    SummaryReport,
    ThresholdsDoc,
    TotalDoc,
    WorkDoc,
)
from roofline.documents.report import CeilingsText, Device, Kernel
from roofline.documents.timeline import KernelDoc, TimelineDoc


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


class ToolResult(Struct, frozen=True, kw_only=True):
    """What every tool's result holds: the schema version, the tool, the equivalent command line (its ``--format
    json`` document holds the numbers in full), what was cut to fit the budget and the file written (if asked)."""

    schema_version: Version
    tool: Tool
    command: str
    cut: Cut | None = None
    written: str | None = None


class KernelList(ToolResult, frozen=True, kw_only=True):
    """``list_kernels``: per report its kernel groups by recoverable time, as ``summary --format json`` (one page
    of rows)."""

    kind: Literal["summary"]
    page: Page
    reports: list[SummaryReport]


class ReportHead(Struct, frozen=True):
    """The report a launch comes from: its file, label, GPU, the roofs used, its warnings and total time."""

    path: str
    label: str
    device: Device
    ceilings_used: CeilingSet
    warnings: list[str]
    total_time_s: Number


class MatchedLaunch(Struct, frozen=True):
    """A launch the kernel filter matched: its place among them (``launch``), name, duration and bound."""

    launch: int
    name: str
    duration_s: Number
    bound: Bound | None


class LaunchDoc(Kernel, frozen=True):
    """One launch of ``report --format json``, with the roofs of the set used alone (``ceilings``) and each reason
    once with the paths of the nulls it explains (``missing``); the advice and hot spots as many as asked for."""

    ceilings: dict[str, CeilingsText | None]  # type: ignore[assignment]  # msgspec keeps the field in its place
    missing: dict[str, list[str]]  # type: ignore[assignment]


class KernelAnalysis(ToolResult, frozen=True, kw_only=True):
    """``analyse_kernel``: one launch of a report (the longest the filter matched, or the one asked for)."""

    kind: Literal["kernel"]
    report: ReportHead
    launch: int
    matched: list[MatchedLaunch]
    kernel: LaunchDoc


class JudgedKernel(Struct, frozen=True, kw_only=True):
    """One kernel pair of ``diff --format json`` with the headline of ``compare --format json``; where the work
    differs the figures of time alone (``speedup``, ``expected_speedup``, ``slowdown_pct``) are left out, and
    ``left_out`` says why."""

    key: str
    label: str
    matched_by: str
    work: WorkDoc | None
    change: ChangeDoc | None
    speedup: Number = None
    expected_speedup: Number = None
    slowdown_pct: Number = None
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
    headline: Headline | None
    left_out: str | None = None


class Judgement(ToolResult, frozen=True, kw_only=True):
    """``compare_reports``: the regression gate of ``diff`` (``command``) with each pair's headline from
    ``compare`` (``also``): the verdict, its exit code and what it means, the thresholds, the pairs."""

    kind: Literal["compare"]
    also: str
    exit_code: Literal[0, 1]
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


class ProjectionPage(ToolResult, frozen=True, kw_only=True):
    """``project_report``: ``project --format json`` with one page of its kernels; the workload's total whole."""

    kind: Literal["project"]
    target: str | None
    clock: TargetClock
    report: ReportRefDoc
    page: Page
    kernels: list[ProjectKernel]
    workload: WorkloadProjection | None


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


class SpecDoc(Struct, frozen=True, omit_defaults=True):
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
    fp32_lanes_per_sm: Cited | None
    memory: SpecMemory
    l2_bytes: Cited | None
    peaks: dict[str, Cited | None]
    bandwidth: SpecBandwidth
    notes: str
    measured: Measured | None = None


class SpecRef(Struct, frozen=True):
    """A known device spec: its id and the names the GPU goes by."""

    id: str
    display_names: list[str]


class GpuSpec(ToolResult, frozen=True, kw_only=True):
    """``gpu_spec``: one spec (``kind`` spec, under ``spec``) or the known ones (``kind`` specs, under
    ``specs``)."""

    kind: Literal["spec", "specs"]
    spec: SpecDoc | None = None
    specs: list[SpecRef] | None = None


class NcuRun(Struct, frozen=True):
    """An ncu run ``analyze --from-nsys`` plans: the kernels, which launch, why, and the command (``APP``: the
    application and its arguments)."""

    kernels: list[str]
    launch_skip: int | None  # null: from the first matching launch
    launch_count: int
    why: str
    ncu: str


class NsysRanking(ToolResult, frozen=True, kw_only=True):
    """``rank_nsys_kernels``: ``timeline --format json`` of one file, its kernels one page at a time under
    ``kernels`` (the profile's own ``kernels`` left empty), and the ncu runs of its top kernels."""

    kind: Literal["timeline"]
    profile: TimelineDoc
    page: Page
    kernels: list[KernelDoc]
    analyze: str
    ncu_runs: list[NcuRun]
