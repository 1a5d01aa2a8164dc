"""Pure functions over the GPU work of nsys profiles in time (``core.streams``): each GPU's streams as bars on one
time axis shared by every file given (MPI ranks), the NVTX ranges above them, how much of the copy time runs
under kernels, and the longest stretches with nothing on the GPU.

One axis for several files: where every export records its session's wall-clock start and the files' GPU work
overlaps in wall-clock time (the ranks of one job), a time is that start plus the export's own time, and the axis
starts at the earliest GPU activity of any file; otherwise each file starts at its own first GPU activity
(``aligned_by`` says which). The bars are the intervals with the holes shorter than
``resolution_s`` (the span over ``BINS``, below what a plot shows) closed, so a profile of 10^5 launches draws as
at most a few thousand bars per stream; the counts and the figures (overlap, gaps) use every interval as it is.

Copy time hidden under kernels, per GPU: the union of its copies' intervals (any stream) that the union of its
kernels' intervals covers, in seconds and as a percent of the copies' union. An idle gap of a GPU: a hole in the
union of all its work (kernels, copies, memsets, every stream) between its first start and last end; the longest
``GAPS_SHOWN`` are named with the work that ended at the gap's start and the work that began at its end.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Literal

import numpy as np
import numpy.typing as npt
from msgspec import Struct

from roofline.core.streams import ActivityKind, NvtxSpan, StreamTrace

BINS = 2000  # the time axis is resolved to its span over this: about a pixel of the plot
GAPS_SHOWN = 5  # the longest idle gaps named per GPU
STREAM_ROWS = 12  # streams drawn apart per GPU, the busiest; the others share one row
OTHERS = -2  # the stream id of the row of a GPU's other streams
NVTX_DEPTHS = 3  # NVTX nesting levels drawn (deeper ranges are counted, not drawn)
NVTX_LABELS = 8  # NVTX ranges named per level: the longest ones that do not overlap one named before
NVTX_LABEL_SHARE = 25  # a range is named only when it spans at least the axis over this (room for its name)
NS = 1e-9
Bar = tuple[float, float]  # (start s on the shared axis, length s)
AlignedBy = Literal["session_start", "first_activity"]


class StreamRow(Struct, frozen=True):
    """One stream of one GPU of one file: its launches, copies and memsets as counts and bars."""

    rank: int  # the file's place among those given
    device: int
    stream: int  # nsys's streamId (-1 where the export has none; OTHERS: the row of the GPU's other streams)
    kernels: int
    copies: int
    memsets: int
    busy_s: float  # the union of its work
    kernel_bars: tuple[Bar, ...]
    copy_bars: tuple[Bar, ...]
    memset_bars: tuple[Bar, ...]
    streams: int = 1  # the streams the row holds (more than 1 for the OTHERS row)


class NvtxLabel(Struct, frozen=True):
    """One NVTX range named on the axis."""

    start_s: float
    length_s: float
    name: str


class NvtxRow(Struct, frozen=True):
    """The NVTX ranges of one file at one nesting depth (0: outermost), clipped to the axis."""

    rank: int
    depth: int
    ranges: int
    bars: tuple[Bar, ...]
    labels: tuple[NvtxLabel, ...]  # the longest ones, longest first


class CopyOverlap(Struct, frozen=True):
    """One GPU's copy time and the part of it under its kernels."""

    rank: int
    device: int
    kernel_s: float  # the union of its kernels
    copy_s: float  # the union of its copies
    hidden_s: float  # of copy_s, the time a kernel ran too
    hidden_pct: float | None  # hidden_s over copy_s, in percent; None without copies


class Neighbour(Struct, frozen=True):
    """The work at one edge of an idle gap."""

    kind: ActivityKind
    name: str
    stream: int


class IdleGap(Struct, frozen=True):
    """A stretch of a GPU with nothing running on any stream."""

    rank: int
    device: int
    start_s: float  # on the shared axis
    length_s: float
    before: Neighbour
    after: Neighbour


class StreamsView(Struct, frozen=True):
    """The files' GPU work on one time axis."""

    aligned_by: AlignedBy
    span_s: float  # the axis: from the first GPU activity of any file to the last
    resolution_s: float  # holes shorter than this are closed in the bars
    offsets_s: tuple[float, ...]  # per file, where its own time 0 falls on the axis
    rows: tuple[StreamRow, ...]  # by file, GPU, stream
    nvtx: tuple[NvtxRow, ...]  # by file, depth
    nvtx_deeper: int  # NVTX ranges below NVTX_DEPTHS, not drawn
    overlaps: tuple[CopyOverlap, ...]  # by file, GPU
    gaps: tuple[IdleGap, ...]  # by file, GPU, longest first


def streams_view(traces: Sequence[StreamTrace]) -> StreamsView | None:
    """The view of the files' GPU work; None where none of them holds any."""
    works = [_work(t) for t in traces]
    firsts = [min((int(x[0, 0]) for *_, x in w if len(x)), default=None) for w in works]
    if all(f is None for f in firsts):
        return None
    aligned: AlignedBy = "session_start" if _together(traces, works, firsts) else "first_activity"
    if aligned == "session_start":
        zero = min((t.origin_ns or 0) + f for t, f in zip(traces, firsts, strict=True) if f is not None)
        shifts = [(t.origin_ns or 0) - zero for t in traces]
    else:
        shifts = [-(f or 0) for f in firsts]
    last = max(end + shift for end, shift in zip(map(_last, works), shifts, strict=True) if end is not None)
    span = max(last, 1)
    step = max(span // BINS, 1)
    rows, overlaps, idle, nvtx = [], [], [], []
    deeper = 0
    for rank, (t, w, shift) in enumerate(zip(traces, works, shifts, strict=True)):
        for dev in sorted({d for d, *_ in w}):
            mine = [x for x in w if x[0] == dev]
            rows += _rows(rank, mine, dev, shift, step)
            overlaps.append(_overlap(rank, mine, dev))
            idle += _gaps(rank, t, mine, dev, shift)
        levels, dropped = _nvtx_rows(rank, t.nvtx, shift, span, step)
        nvtx += levels
        deeper += dropped
    return StreamsView(aligned, span * NS, step * NS, tuple(s * NS for s in shifts), tuple(rows), tuple(nvtx),
                       deeper, tuple(overlaps), tuple(idle))


Work = tuple[int, int, ActivityKind, npt.NDArray[np.int64]]  # device, stream, kind, (n, 3) start, end, label


def _work(t: StreamTrace) -> list[Work]:
    """The file's activities with their spans as (n, 3) int64 arrays, in the trace's order."""
    return [(a.device_id, a.stream_id, a.kind, np.asarray(a.spans, dtype=np.int64).reshape(-1, 3))
            for a in t.activities]


def _last(work: Sequence[Work]) -> int | None:
    """The latest end of the file's work; None without any."""
    return max((int(x[:, 1].max()) for *_, x in work if len(x)), default=None)


def _rows(rank: int, work: Sequence[Work], dev: int, shift: int, step: int) -> list[StreamRow]:
    """The GPU's busiest ``STREAM_ROWS`` streams by id, then one row of the others (if any)."""
    busy: dict[int, int] = {}
    for _, stream, _, x in work:
        busy[stream] = busy.get(stream, 0) + int((x[:, 1] - x[:, 0]).sum())
    ids = sorted(busy)
    apart = set(sorted(ids, key=lambda i: (-busy[i], i))[:STREAM_ROWS])
    rows = [_row(rank, work, dev, {i}, i, shift, step) for i in ids if i in apart]
    rest = set(ids) - apart
    return rows + ([_row(rank, work, dev, rest, OTHERS, shift, step)] if rest else [])


def _together(traces: Sequence[StreamTrace], works: Sequence[Sequence[Work]], firsts: Sequence[int | None]) -> bool:
    """Whether several files record their session starts and their GPU work overlaps in wall-clock time (the
    ranks of one job), so they share an axis by those starts."""
    if len(traces) < 2 or any(t.origin_ns is None for t in traces):
        return False
    windows = [((t.origin_ns or 0) + f, (t.origin_ns or 0) + (_last(w) or 0))
               for t, w, f in zip(traces, works, firsts, strict=True) if f is not None]
    return max(a for a, _ in windows) < min(b for _, b in windows)


def _row(rank: int, work: Sequence[Work], dev: int, streams: set[int], row_id: int, shift: int,
         step: int) -> StreamRow:
    """The counts, busy time and bars of one stream, or of several in one row."""
    mine = {k: _by_start([x for _, stream, kind, x in work if stream in streams and kind == k])
            for k in ("kernel", "copy", "memset")}
    busy = _merged(_by_start(list(mine.values())))
    kernels, copies, memsets = mine["kernel"], mine["copy"], mine["memset"]
    return StreamRow(rank, dev, row_id, len(kernels), len(copies), len(memsets), _length(busy) * NS,
                     _bars(kernels, shift, step), _bars(copies, shift, step), _bars(memsets, shift, step),
                     len(streams))


def _by_start(parts: Sequence[npt.NDArray[np.int64]]) -> npt.NDArray[np.int64]:
    """The (start, end) columns of spans from several arrays, sorted by start (one array sorted already: as is)."""
    if len(parts) == 1:
        return parts[0][:, :2]
    x = np.concatenate([p[:, :2] for p in parts]) if parts else np.zeros((0, 2), np.int64)
    return x[np.argsort(x[:, 0], kind="stable")]


def _merged(x: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """Intervals sorted by start merged where they overlap or touch, as (start, end) rows: a new interval where a
    start lies past the running maximum of the ends before it."""
    return _joined(x, 0)


def _joined(x: npt.NDArray[np.int64], hole: int) -> npt.NDArray[np.int64]:
    """Intervals sorted by start joined where the hole between one and the latest end before it is under ``hole``
    (0: where they overlap or touch)."""
    if not len(x):
        return x.reshape(0, 2)
    reach = np.maximum.accumulate(x[:, 1])
    gap = x[1:, 0] - reach[:-1]
    first = np.flatnonzero(np.concatenate(([True], gap >= hole if hole else gap > 0)))
    last = np.concatenate((first[1:] - 1, [len(x) - 1]))
    return np.stack((x[first, 0], reach[last]), axis=1)


def _length(merged: npt.NDArray[np.int64]) -> int:
    return int((merged[:, 1] - merged[:, 0]).sum())


def _bars(x: npt.NDArray[np.int64], shift: int, step: int) -> tuple[Bar, ...]:
    """Intervals (rows of start, end sorted by start) as (start, length) in seconds on the axis, holes shorter than
    ``step`` closed."""
    joined = _joined(x, step)
    return tuple(zip(((joined[:, 0] + shift) * NS).tolist(), ((joined[:, 1] - joined[:, 0]) * NS).tolist(),
                     strict=True))


def bars(spans: Iterable[tuple[int, int]], shift: int, step: int) -> tuple[Bar, ...]:
    """Intervals (sorted by start) as (start, length) in seconds on the axis, holes shorter than ``step`` closed."""
    return _bars(np.array(list(spans), dtype=np.int64).reshape(-1, 2), shift, step)


def _union(work: Sequence[Work], kinds: set[str]) -> npt.NDArray[np.int64]:
    return _merged(_by_start([x for _, _, kind, x in work if kind in kinds]))


def _covered(left: npt.NDArray[np.int64], cover: npt.NDArray[np.int64]) -> int:
    """How much of ``left`` (disjoint, sorted) ``cover`` (merged) covers: per interval, the cover's length before
    its end less that before its start."""
    if not len(left) or not len(cover):
        return 0
    lengths = cover[:, 1] - cover[:, 0]
    before = np.concatenate(([0], np.cumsum(lengths)[:-1]))

    def below(x: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
        i = np.searchsorted(cover[:, 0], x, side="right") - 1
        j = np.maximum(i, 0)
        return np.where(i >= 0, before[j] + np.clip(x - cover[j, 0], 0, lengths[j]), 0)

    return int((below(left[:, 1]) - below(left[:, 0])).sum())


def _overlap(rank: int, work: Sequence[Work], dev: int) -> CopyOverlap:
    """The GPU's copy time and the part of it its kernels cover."""
    kernels, copies = _union(work, {"kernel"}), _union(work, {"copy"})
    hidden = _covered(copies, kernels)
    copy = _length(copies)
    return CopyOverlap(rank, dev, _length(kernels) * NS, copy * NS, hidden * NS,
                       hidden / copy * 100 if copy else None)


def _gaps(rank: int, t: StreamTrace, work: Sequence[Work], dev: int, shift: int) -> list[IdleGap]:
    """The GPU's longest holes in all its work, each with the work that ended at its start (the last such span in
    the trace's order) and began at its end (the first)."""
    merged = _union(work, {"kernel", "copy", "memset"})
    s, e = merged[:-1, 1], merged[1:, 0]
    length = e - s
    some = np.flatnonzero(length >= np.partition(length, -GAPS_SHOWN)[-GAPS_SHOWN]) if len(length) > GAPS_SHOWN \
        else np.arange(len(length))  # those as long as the GAPS_SHOWN-th longest: the longest among them
    longest = some[np.lexsort((s[some], -length[some]))][:GAPS_SHOWN]
    return [IdleGap(rank, dev, (a + shift) * NS, (b - a) * NS, _neighbour(t, work, a, 1, -1),
                    _neighbour(t, work, b, 0, 0))
            for a, b in zip(s[longest].tolist(), e[longest].tolist(), strict=True)]


def _neighbour(t: StreamTrace, work: Sequence[Work], at: int, column: int, pick: int) -> Neighbour:
    """The span whose start (``column`` 0) or end (1) is ``at``: the first (``pick`` 0) or last (-1) in order."""
    for _, stream, kind, x in (work if pick == 0 else reversed(work)):
        hits = np.flatnonzero(x[:, column] == at)
        if len(hits):
            return Neighbour(kind, t.labels[int(x[hits[pick], 2])], stream)
    raise AssertionError("a gap's edge is the start or end of some span")


def _nvtx_rows(rank: int, spans: Sequence[NvtxSpan], shift: int, span: int,
               step: int) -> tuple[list[NvtxRow], int]:
    """The file's NVTX ranges by nesting depth on their thread, clipped to the axis; how many lie deeper."""
    stacks: dict[int, list[int]] = {}
    levels: dict[int, list[NvtxSpan]] = {}
    deeper = 0
    for r in sorted(spans, key=lambda r: (r.start, -r.end)):
        stack = stacks.setdefault(r.thread, [])
        while stack and stack[-1] <= r.start:
            stack.pop()
        depth = len(stack)
        stack.append(r.end)
        if depth >= NVTX_DEPTHS:
            deeper += 1
            continue
        levels.setdefault(depth, []).append(r)
    rows = []
    for depth, ranges in sorted(levels.items()):
        clipped = [(max(r.start + shift, 0), min(r.end + shift, span), r.name) for r in ranges]
        shown = [c for c in clipped if c[1] > c[0]]
        if not shown:
            continue
        rows.append(NvtxRow(rank, depth, len(ranges), bars(((s, e) for s, e, _ in shown), 0, step),
                            _labels(shown, span)))
    return rows, deeper


def _labels(ranges: Sequence[tuple[int, int, str]], span: int) -> tuple[NvtxLabel, ...]:
    """The longest ranges wide enough for a name, none overlapping another named one."""
    named: list[tuple[int, int, str]] = []
    for s, e, n in sorted(ranges, key=lambda c: (c[0] - c[1], c[0])):
        if len(named) >= NVTX_LABELS or (e - s) * NVTX_LABEL_SHARE < span:
            break
        if all(e <= a or s >= b for a, b, _ in named):
            named.append((s, e, n))
    return tuple(NvtxLabel(s * NS, (e - s) * NS, n) for s, e, n in named)
