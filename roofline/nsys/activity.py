"""What an nsys export records beside the kernels, read for `roofline timeline`: where each GPU's idle time goes,
the CUDA API summary, the memory-transfer summary and the GPU memory in use over time (what `nsys stats` users
start from: its cudaapisum, gpumemtimesum/gpumemsizesum reports).

Facts of the export this relies on: copies are rows of ``CUPTI_ACTIVITY_KIND_MEMCPY`` (``bytes``, ``copyKind``:
1 host-to-device, 2 device-to-host, 8 device-to-device, 10 peer-to-peer, 11-13 unified-memory migrations;
``srcKind``/``dstKind``: 0 pageable, 1 pinned, 2 device, 4 managed; labels also in ``ENUM_CUDA_MEMCPY_OPER``
and ``ENUM_CUDA_MEM_KIND`` where the export has them), memsets of ``CUPTI_ACTIVITY_KIND_MEMSET``, unified-memory
GPU page faults of ``CUDA_UM_GPU_PAGE_FAULT_EVENTS`` (start, end, deviceId), CUDA API calls of
``CUPTI_ACTIVITY_KIND_RUNTIME`` (``nameId`` into StringIds, names with a version suffix such as
``cudaLaunchKernel_v7000``), device allocations and frees of ``CUDA_GPU_MEMORY_USAGE_EVENTS``
(``memoryOperationType`` 0 and 1, with ``--cuda-memory-usage=true``). Each table is optional.

Idle time of a GPU: its span (first kernel start to last kernel end) less the union of its kernels. Each cause
takes, in this order, the part of what is left that its intervals cover: with an NVTX filter, the kernels it leaves
out (the GPU is busy, just not with the kernels shown); the GPU's copies (per direction and host
memory kind), memsets, unified-memory migrations; then the host's CUDA API calls (of the processes that launched
on that GPU; synchronisations first, then the other calls by name); what no cause covers is host time outside any
CUDA call (the CPU working between launches).
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterable, Sequence

import numpy as np

from roofline.core.timeline import ApiCall, IdleCause, IdleKind, MemoryUse, Transfer, TransferKind
from roofline.nsys.launches import IntervalUnion, joined, minus, union_of

MEMCPY = "CUPTI_ACTIVITY_KIND_MEMCPY"
MEMSET = "CUPTI_ACTIVITY_KIND_MEMSET"
RUNTIME = "CUPTI_ACTIVITY_KIND_RUNTIME"
UM_FAULTS = "CUDA_UM_GPU_PAGE_FAULT_EVENTS"
MEMORY_EVENTS = "CUDA_GPU_MEMORY_USAGE_EVENTS"
NS = 1e-9
PID_MASK = ~0xFFFFFF
COPY_KINDS = {0: "Unknown", 1: "Host-to-Device", 2: "Device-to-Host", 3: "Host-to-Array", 4: "Array-to-Host",
              5: "Array-to-Array", 6: "Array-to-Device", 7: "Device-to-Array", 8: "Device-to-Device",
              9: "Host-to-Host", 10: "Peer-to-Peer", 11: "Unified Host-to-Device", 12: "Unified Device-to-Host",
              13: "Unified Device-to-Device"}
UNIFIED = {11, 12, 13}
HOST_SOURCE = {1, 3, 9}  # the copy reads host memory: its srcKind says pageable or pinned
MEM_KINDS = {0: "pageable", 1: "pinned", 2: "device", 3: "array", 4: "managed", 5: "device static",
             6: "managed static", 7: "unknown"}
VERSION_SUFFIX = re.compile(r"_v\d+$")
SYNC_CALL = re.compile(r"Synchronize|StreamWait|WaitEvent|EventQuery|StreamQuery")
MEMORY_POINTS = 200  # the memory-in-use series is thinned to about this many points per GPU

Interval = tuple[int, int]


def columns(db: sqlite3.Connection, table: str) -> set[str]:
    return {row[1] for row in db.execute(f"PRAGMA table_info({table})")}


def api_name(raw: str) -> str:
    """An API call's name without the export's version suffix (cudaLaunchKernel_v7000 -> cudaLaunchKernel)."""
    return VERSION_SUFFIX.sub("", raw)


def copy_label(kind: int, src: int | None, dst: int | None) -> tuple[str, str]:
    """(direction, host memory kind) of a copy: pageable or pinned for the host side, "" where neither side is
    host memory."""
    host = src if kind in HOST_SOURCE else dst if kind in {2, 4} else None
    return COPY_KINDS.get(kind, f"kind {kind}"), MEM_KINDS.get(host, "") if host is not None else ""


def transfers(db: sqlite3.Connection, tables: set[str]) -> tuple[Transfer, ...]:
    """Copies per direction and host memory kind, and memsets: count, bytes, total and median time."""
    groups: dict[tuple[TransferKind, str, str], list[tuple[int, int]]] = {}
    if MEMCPY in tables:
        cols = columns(db, MEMCPY)
        src = "srcKind" if "srcKind" in cols else "NULL"
        dst = "dstKind" if "dstKind" in cols else "NULL"
        for kind, s, d, size, dur in db.execute(f'SELECT copyKind, {src}, {dst}, bytes, "end" - start FROM {MEMCPY}'):
            direction, memory = copy_label(kind, s, d)
            groups.setdefault(("copy", direction, memory), []).append((size, dur))
    if MEMSET in tables:
        for size, dur in db.execute(f'SELECT bytes, "end" - start FROM {MEMSET}'):
            groups.setdefault(("memset", "memset", ""), []).append((size, dur))
    out = [Transfer(kind, direction, memory, len(rows), sum(b for b, _ in rows), sum(d for _, d in rows) * NS,
                    _median([d for _, d in rows]) * NS)
           for (kind, direction, memory), rows in groups.items()]
    return tuple(sorted(out, key=lambda t: (-t.total_s, t.direction, t.memory)))


def api_summary(db: sqlite3.Connection, tables: set[str]) -> tuple[ApiCall, ...]:
    """CUDA API calls per name (version suffix dropped): calls, total, median, min, max; longest total first."""
    if RUNTIME not in tables or "nameId" not in columns(db, RUNTIME):
        return ()
    names = dict(db.execute(f"SELECT id, value FROM StringIds WHERE id IN (SELECT DISTINCT nameId FROM {RUNTIME})"))
    durations: dict[str, list[int]] = {}
    for name_id, dur in db.execute(f'SELECT nameId, "end" - start FROM {RUNTIME} ORDER BY nameId, 2'):
        durations.setdefault(api_name(str(names.get(name_id, f"(string id {name_id})"))), []).append(dur)
    out = [ApiCall(name, len(d), sum(d) * NS, _median(d) * NS, min(d) * NS, max(d) * NS)
           for name, d in durations.items()]
    return tuple(sorted(out, key=lambda a: (-a.total_s, a.name)))


def memory_use(db: sqlite3.Connection, tables: set[str]) -> tuple[MemoryUse, ...]:
    """Per GPU, the device memory allocated through CUDA over time (allocations less frees, from the first event):
    its peak, when, and where it ends; None of it where the export has no memory-usage events."""
    if MEMORY_EVENTS not in tables:
        return ()
    out = []
    for (dev,) in db.execute(f"SELECT DISTINCT deviceId FROM {MEMORY_EVENTS} ORDER BY 1").fetchall():
        level, peak, peak_at, series = 0, 0, 0, []
        rows = db.execute(f"""SELECT start, bytes, memoryOperationType FROM {MEMORY_EVENTS}
                              WHERE deviceId = ? AND memoryOperationType IN (0, 1) ORDER BY start, rowid""",
                          (dev,)).fetchall()
        first = rows[0][0] if rows else 0
        for at, size, op in rows:
            level += size if op == 0 else -size
            series.append(((at - first) * NS, level))
            if level > peak:
                peak, peak_at = level, at - first
        step = max(1, len(series) // MEMORY_POINTS)
        thinned = tuple(series[::step]) + ((series[-1],) if series and (len(series) - 1) % step else ())
        out.append(MemoryUse(int(dev), peak, peak_at * NS, level, thinned))
    return tuple(out)


def launching_processes(db: sqlite3.Connection, tables: set[str], source: str) -> dict[int, set[int | None]]:
    """Per GPU, the processes (globalPid) that launched the kernels of ``source`` on it; empty without the CUDA API
    trace, whose calls are the only ones matched to processes."""
    if RUNTIME not in tables or "nameId" not in columns(db, RUNTIME):
        return {}
    out: dict[int, set[int | None]] = {}
    for dev, pid in db.execute(f"SELECT DISTINCT deviceId, globalPid FROM {source}"):
        out.setdefault(dev, set()).add(pid)
    return out


def idle_causes(db: sqlite3.Connection, tables: set[str], device: int, busy: IntervalUnion,
                pids: set[int | None] | None, every: IntervalUnion | None = None) -> tuple[IdleCause, ...]:
    """Where the GPU's idle time goes (see the module docstring), largest first. ``busy``: the union of the kernels
    shown on the GPU; ``pids``: the processes that launched them (``launching_processes``); ``every``: the union
    of all the GPU's kernels where an NVTX filter kept only some (the others' time is a cause of its own).

    Each cause takes what its intervals cover of the span less the kernels and the causes before it: the part of
    its union outside theirs (``taken``), within the span, less what the kernels cover of that part."""
    if not len(busy.starts):
        return ()
    first, last = int(busy.starts[0]), int(busy.ends[-1])
    kernels, causes = busy, []
    if every is not None:
        covered = every.covered(np.array([first]), np.array([last])) - busy.total
        if covered:
            causes.append(IdleCause("other_kernels", "", covered * NS))
        kernels = every
    left = last - first - kernels.covered(np.array([first]), np.array([last]))
    taken = union_of(())
    for kind, detail, intervals in (*_gpu_activity(db, tables, device), *_host_calls(db, tables, pids or set())):
        cover = union_of(intervals)
        starts, ends = minus(cover, taken)
        starts, ends = np.clip(starts, first, last), np.clip(ends, first, last)
        covered = int((ends - starts).sum()) - kernels.covered(starts, ends)
        taken = joined(taken, cover)
        if covered:
            causes.append(IdleCause(kind, detail, covered * NS))
            left -= covered
    if left:
        causes.append(IdleCause("host", "host outside CUDA calls", left * NS))
    return tuple(sorted(causes, key=lambda c: -c.seconds))


def _gpu_activity(db: sqlite3.Connection, tables: set[str],
                  device: int) -> Iterable[tuple[IdleKind, str, list[Interval]]]:
    """The GPU's own non-kernel work: copies by direction and host memory kind, memsets, unified-memory
    migrations and page faults."""
    copies: dict[tuple[IdleKind, str], list[Interval]] = {}
    if MEMCPY in tables:
        cols = columns(db, MEMCPY)
        src = "srcKind" if "srcKind" in cols else "NULL"
        dst = "dstKind" if "dstKind" in cols else "NULL"
        for kind, s, d, start, end in db.execute(f'SELECT copyKind, {src}, {dst}, start, "end" FROM {MEMCPY} '
                                                 "WHERE deviceId = ?", (device,)):
            direction, memory = copy_label(kind, s, d)
            key: tuple[IdleKind, str] = ("unified_memory", direction) if kind in UNIFIED else \
                ("copy", f"{direction} ({memory})" if memory else direction)
            copies.setdefault(key, []).append((start, end))
    yield from ((kind, detail, iv) for (kind, detail), iv in sorted(copies.items()))
    if MEMSET in tables:
        yield "memset", "memset", db.execute(f'SELECT start, "end" FROM {MEMSET} WHERE deviceId = ?',
                                             (device,)).fetchall()
    if UM_FAULTS in tables and {"start", "end", "deviceId"} <= columns(db, UM_FAULTS):
        yield "unified_memory", "GPU page faults", db.execute(
            f'SELECT start, "end" FROM {UM_FAULTS} WHERE deviceId = ?', (device,)).fetchall()


def _host_calls(db: sqlite3.Connection, tables: set[str],
                wanted: set[int | None]) -> Iterable[tuple[IdleKind, str, list[Interval]]]:
    """The CUDA API calls of the processes that launched kernels on the GPU (``wanted``; a launch with no process
    recorded counts every call), per name: synchronisations first (the host waits), then the others by total
    time."""
    if RUNTIME not in tables or "nameId" not in columns(db, RUNTIME):
        return
    names = dict(db.execute(f"SELECT id, value FROM StringIds WHERE id IN (SELECT DISTINCT nameId FROM {RUNTIME})"))
    calls: dict[str, list[Interval]] = {}
    rows = db.execute(f'SELECT nameId, start, "end", globalTid FROM {RUNTIME}')
    for name_id, start, end, tid in rows:
        if tid is None or (tid & PID_MASK) in wanted or None in wanted:
            calls.setdefault(api_name(str(names.get(name_id, name_id))), []).append((start, end))
    order = sorted(calls, key=lambda n: (not SYNC_CALL.search(n), -sum(e - s for s, e in calls[n]), n))
    for name in order:
        kind: IdleKind = "sync" if SYNC_CALL.search(name) else "api"
        yield kind, name, calls[name]


def _median(values: Sequence[int]) -> float:
    ordered = sorted(values)
    n = len(ordered)
    return (ordered[(n - 1) // 2] + ordered[n // 2]) / 2 if n else 0.0
