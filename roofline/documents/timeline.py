"""The ``timeline`` document (``roofline timeline -f json``): every kernel of every Nsight Systems file, its GPUs,
NVTX ranges, CUDA API, transfers and memory in use; the ranks' totals for several files; with ``--work``, the
kernels placed on the roofline with their work from ncu reports. Times in seconds, shares as fractions."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal, NamedTuple

from msgspec import Struct

from roofline.analysis.borrowed import BorrowedKernel, BorrowedWork
from roofline.analysis.streams import StreamsView
from roofline.analysis.time_gap import TimeGap
from roofline.analysis.timeline import Outlier, RankTotal, TimelineSet
from roofline.core.model import LEVELS
from roofline.core.timeline import ApiCall, IdleKind, LaunchConfigTime, Timeline, TransferKind
from roofline.core.version import GENERATOR
from roofline.documents.common import SCHEMA_VERSION, Generator, Number, Tool, Version, number, tool

GroupBy = Literal["kernel", "function"]
Dims = tuple[int, int, int]


class IdleCauseDoc(Struct, frozen=True):
    """What a GPU's idle time went to, and its share of the idle time (null: the GPU was never idle)."""

    kind: IdleKind
    detail: str
    seconds: float
    share_of_idle: Number


class DeviceDoc(Struct, frozen=True):
    """One GPU: its launches, busy time, span, idle time and what the idle time went to."""

    id: int
    name: str | None
    launches: int
    busy_s: float
    span_s: float
    idle_share: Number
    idle_s: float
    l2_bytes: int | None
    idle_causes: list[IdleCauseDoc]


class TransferDoc(Struct, frozen=True):
    """The copies or memsets of one direction and host memory kind."""

    kind: TransferKind
    direction: str
    memory: str
    count: int
    bytes: int
    total_s: float
    median_s: float
    bytes_per_s: Number


class MemoryDoc(Struct, frozen=True):
    """One GPU's memory in use: its peak, when, at the end, and the thinned series (seconds, bytes)."""

    device: int
    peak_bytes: int
    peak_at_s: float
    final_bytes: int
    series: list[tuple[float, int]]


class KernelDoc(Struct, frozen=True):
    """One kernel (an instance, or a function with ``--by function``): its launches' times and share."""

    name: str
    short_name: str
    demangled: str
    count: int
    total_s: float
    share: Number
    median_s: float
    min_s: float
    max_s: float
    devices: list[int]


class NvtxDoc(Struct, frozen=True):
    """One NVTX range's count and total time."""

    name: str
    count: int
    total_s: float


class TimelineDoc(Struct, frozen=True):
    """One Nsight Systems file."""

    path: str
    exported_by: str | None
    nvtx_filter: str | None
    group_by: GroupBy
    kernel_s: float
    busy_s: float
    devices: list[DeviceDoc]
    api: list[ApiCall]
    transfers: list[TransferDoc]
    memory: list[MemoryDoc]
    kernels: list[KernelDoc]
    nvtx: list[NvtxDoc]


class RankDoc(Struct, frozen=True):
    """One file of several (an MPI rank): its rank and how that is known (a launcher variable such as PMI_RANK,
    file_name, or order: null rank), its totals, how far its busy time is from the other ranks' median, and
    whether its GPU is busier (slow) or less busy (fast) than theirs by more than RANK_OUTLIER_PCT."""

    rank: int | None
    rank_from: str
    path: str
    launches: int
    kernel_s: float
    busy_s: float
    span_s: float
    off_others_pct: float
    outlier: Outlier | None
    top_kernel: str


class WorkCeilings(Struct, frozen=True):
    """The datasheet roofs of the nsys GPU."""

    source: str
    clock: str | None
    flop_per_s: dict[str, Number]
    bytes_per_s: dict[str, Number]


class WorkKernel(Struct, frozen=True):
    """One kernel instance and launch configuration: its work per launch (ncu), its time (nsys), its place on the
    roofline."""

    name: str
    short_name: str
    grid: Dims
    block: Dims
    nsys_count: int
    nsys_total_s: float
    time_s: float
    ncu_launches: int
    ncu_time_s: Number
    flops: dict[str, Number]
    tensor_dtype: str | None
    bytes: dict[str, Number]
    total_flops: Number
    flop_per_s: Number
    intensity: dict[str, Number]
    bytes_per_s: dict[str, Number]
    precision: str | None
    compute_roof_flop_per_s: Number
    bandwidth_bytes_per_s: dict[str, Number]
    attainable_flop_per_s: Number
    limiter: str | None
    pct_of_roof: Number


class UnmatchedLaunches(Struct, frozen=True):
    """A kernel and launch configuration of the timeline with no launch of them in the reports."""

    name: str
    short_name: str
    grid: Dims
    block: Dims
    count: int
    total_s: float


class WorkDoc(Struct, frozen=True):
    """``--work``: the timeline's kernels with their work from ncu reports, on the nsys GPU's roofline."""

    label: str
    reports: list[str]
    ncu_gpu: str
    nsys_gpu: str | None
    spec: str | None
    ceilings: WorkCeilings | None
    matched_share: float
    kernels: list[WorkKernel]
    unmatched_ncu: list[str]
    unmatched_nsys: list[UnmatchedLaunches]
    notes: list[str]
    time_gaps: list[TimeGap] = []  # the kernels whose nsys and ncu times differ by more than 2x, with the cause


class TimelineJson(Struct, frozen=True, omit_defaults=True):
    """``roofline timeline -f json``: ``ranks`` for several files only, ``work`` with ``--work`` only."""

    generator: Generator
    schema_version: Version
    kind: Literal["timeline"]
    tool: Tool
    timelines: list[TimelineDoc]
    ranks: list[RankDoc] = []
    work: WorkDoc | None = None
    streams: StreamsView | None = None  # every file's GPU work per stream on one time axis, copy overlap, idle gaps


class TimelineWords(NamedTuple):
    """The sentences a timeline document holds, written by the renderers' prose (passed in, as this stage is below
    render): the notes on the borrowed work (the analysis's, then each kernel's FP16 register moves)."""

    work_notes: Callable[[BorrowedWork], Sequence[str]]


def timeline_json(doc: TimelineSet, words: TimelineWords) -> TimelineJson:
    """The document of the timelines, their ranks, the work they borrow and their streams."""
    return TimelineJson(GENERATOR, SCHEMA_VERSION, "timeline", tool(), [timeline_doc(t) for t in doc.timelines],
                        [rank_doc(r) for r in doc.ranks],
                        None if doc.work is None else work_doc(doc.work, words, doc.time_gaps), doc.streams)


def timeline_doc(t: Timeline) -> TimelineDoc:
    """One file's kernels, GPUs, NVTX ranges, API calls, transfers and memory in use."""
    return TimelineDoc(
        t.path, t.exported_by, t.nvtx_filter, t.group_by, t.kernel_s, t.busy_s,  # type: ignore[arg-type]
        [DeviceDoc(d.device_id, d.name, d.launches, d.busy_s, d.span_s, d.idle_share, d.idle_s, d.l2_bytes,
                   [IdleCauseDoc(c.kind, c.detail, c.seconds, share)
                    for c, share in zip(d.idle_causes, d.cause_shares, strict=True)]) for d in t.devices],
        list(t.api),
        [TransferDoc(x.kind, x.direction, x.memory, x.count, x.bytes, x.total_s, x.median_s, x.bytes_per_s)
         for x in t.transfers],
        [MemoryDoc(m.device_id, m.peak_bytes, m.peak_at_s, m.final_bytes, [(at, b) for at, b in m.series])
         for m in t.memory],
        [KernelDoc(k.name, k.function, k.demangled, k.count, k.total_s, share, k.median_s, k.min_s, k.max_s,
                   list(k.devices)) for k, share in zip(t.kernels, t.shares, strict=True)],
        [NvtxDoc(r.name, r.count, r.total_s) for r in t.nvtx])


def rank_doc(r: RankTotal) -> RankDoc:
    return RankDoc(r.rank, r.rank_from, r.path, r.launches, r.kernel_s, r.busy_s, r.span_s, r.off_others_pct,
                   r.outlier, r.top_kernel)


def work_doc(w: BorrowedWork, words: TimelineWords, gaps: tuple[TimeGap, ...] = ()) -> WorkDoc:
    """Every figure with what it is made of: work per launch from the report, time from nsys, roofs from the spec."""
    return WorkDoc(
        w.label, list(w.reports), w.ncu_gpu, w.nsys_gpu, w.spec_id,
        None if w.ceilings is None else WorkCeilings(
            w.ceilings.source, w.ceilings.clock_note, {k: number(v) for k, v in w.ceilings.flop_per_s.items()},
            {k: number(v) for k, v in w.ceilings.bytes_per_s.items()}),
        w.matched_share, [work_kernel(k) for k in w.kernels], list(w.unmatched_ncu),
        [unmatched_launches(c) for c in w.unmatched_nsys], list(words.work_notes(w)), list(gaps))


def unmatched_launches(c: LaunchConfigTime) -> UnmatchedLaunches:
    return UnmatchedLaunches(c.name, c.short_name, c.grid, c.block, c.count, c.total_s)


def work_kernel(k: BorrowedKernel) -> WorkKernel:
    """One kernel's work, time, roofs and place on the roofline."""
    return WorkKernel(
        k.name, k.short_name, k.grid, k.block, k.nsys.count, k.nsys.total_s, k.time_s, k.ncu_launches,
        number(k.ncu_time_s), {p: number(v) for p, v in k.flops.items()}, k.tensor_dtype,
        {lv: number(v) for lv, v in k.bytes.items()}, number(k.total_flops), number(k.flop_per_s),
        {lv: number(k.intensity[lv]) for lv in LEVELS}, {lv: number(k.bytes_per_s[lv]) for lv in LEVELS},
        k.precision, number(k.compute_roof), {lv: number(v) for lv, v in k.bandwidth.items()},
        number(k.attainable_flop_per_s), k.limiter, number(k.pct_of_roof))
