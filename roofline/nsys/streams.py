"""Read an nsys SQLite export's GPU work over time, for the streams view of `roofline timeline` and the time check
of `timeline --work`: every kernel, copy and memset as an interval on its GPU and stream, the NVTX ranges, the
session's wall-clock start, and the unified-memory migrations under each kernel's launches.

Facts of the export this relies on (besides ``nsys.timeline``'s and ``nsys.activity``'s): every activity row has
``deviceId`` and ``streamId``; ``TARGET_INFO_SESSION_START_TIME.utcEpochNs`` (2021 exports on) is the wall-clock
time of the export's 0; unified-memory migrations are copies of ``copyKind`` 11-13 (``activity.UNIFIED``), GPU
page faults rows of ``CUDA_UM_GPU_PAGE_FAULT_EVENTS``. Called after ``read_timeline`` has checked the file.
"""

from __future__ import annotations

import bisect
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from roofline.core.intervals import merge
from roofline.core.kernel_names import kernel_key
from roofline.core.streams import ActivityKind, Migration, NvtxSpan, StreamActivity, StreamTrace
from roofline.errors import ReportError
from roofline.nsys.activity import MEMCPY, MEMSET, UM_FAULTS, UNIFIED, columns, copy_label
from roofline.nsys.launches import Array, LaunchError, read_columns, take_kept

KERNELS = "CUPTI_ACTIVITY_KIND_KERNEL"
NVTX = "NVTX_EVENTS"
SESSION = "TARGET_INFO_SESSION_START_TIME"
HINT = "give nsys's SQLite export (nsys export --type sqlite FILE, or nsys profile --export sqlite)"
Config = tuple[str, tuple[int, int, int], tuple[int, int, int]]
NONE = -(1 << 40)  # a copy's srcKind or dstKind where the export has none (NULL)


def stream_trace(path: Path, shown: Path) -> StreamTrace:
    """Every kernel, copy and memset of the export by GPU and stream, its NVTX ranges and session start."""
    with _open(path, shown) as db:
        tables = _tables(db)
        labels: dict[str, int] = {}
        activities: list[StreamActivity] = []
        try:
            for kind, cols in _columns(db, tables, labels):
                activities += _by_stream(kind, *cols)
        except LaunchError as err:
            raise ReportError(f"{shown}: GPU activity this reader cannot place ({err})", HINT) from None
        activities.sort(key=lambda a: (a.device_id, a.stream_id, a.kind))
        return StreamTrace(str(shown), _origin(db, tables), tuple(activities), tuple(labels), _nvtx(db, tables))


def _by_stream(kind: ActivityKind, dev: Array, stream: Array, start: Array, end: Array,
               label: Array) -> list[StreamActivity]:
    """The rows of one kind as one activity per (device, stream), each an (n, 3) array of start, end and label
    sorted as the tuples (start, end, label) sort."""
    if len(start) and (dev == dev[0]).all() and (stream == stream[0]).all() and (start[1:] > start[:-1]).all():
        order = np.arange(len(start))  # one stream, in start order already (no two starts alike): as it is
    else:
        order = np.lexsort((label, end, start, stream, dev))
    dev, stream = dev[order], stream[order]
    spans = np.stack((start[order], end[order], label[order]), axis=1)
    cut = np.flatnonzero((dev[1:] != dev[:-1]) | (stream[1:] != stream[:-1])) + 1
    bounds = np.concatenate(([0], cut, [len(order)])).tolist() if len(order) else []
    return [StreamActivity(int(dev[a]), int(stream[a]), kind, spans[a:b])
            for a, b in zip(bounds, bounds[1:], strict=False)]


def _ids(keys: Array, name: Callable[[Any], str], labels: dict[str, int]) -> Array:
    """Each row's label index for rows keyed by ``keys`` (one key, or a row of keys, per row): the distinct keys by
    first row, each named by ``name`` and numbered in ``labels`` in the order its name first occurs."""
    if keys.ndim == 1 and len(keys) and keys.min() >= 0 and keys.max() < 1 << 24:  # string ids: a lookup table
        first = np.full(int(keys.max()) + 1, len(keys), np.int64)
        np.minimum.at(first, keys, np.arange(len(keys)))
        distinct = np.flatnonzero(first < len(keys))
        lut = np.zeros(len(first), np.int64)
        for i in distinct[np.argsort(first[distinct], kind="stable")].tolist():
            lut[i] = labels.setdefault(name(i), len(labels))
        return lut[keys]
    distinct, first, inverse = np.unique(keys, return_index=True, return_inverse=True,
                                         axis=0 if keys.ndim == 2 else None)
    at = np.zeros(len(distinct), np.int64)
    for i in np.argsort(first, kind="stable").tolist():
        at[i] = labels.setdefault(name(distinct[i].tolist()), len(labels))
    return at[inverse.reshape(-1)]


def _copy_name(key: list[int]) -> str:
    """A copy's label from its (copyKind, srcKind, dstKind), NONE where the export has no kind."""
    kind, src, dst = key
    direction, memory = copy_label(kind, None if src == NONE else src, None if dst == NONE else dst)
    return f"{direction} ({memory})" if memory else direction


def _columns(db: sqlite3.Connection, tables: set[str],
             labels: dict[str, int]) -> Iterator[tuple[ActivityKind, tuple[Array, ...]]]:
    """(kind, columns of device, stream, start, end, label index) for the kernels, copies and memsets."""
    if KERNELS in tables:
        names = dict(db.execute(f"SELECT id, value FROM StringIds WHERE id IN (SELECT DISTINCT shortName "
                                f"FROM {KERNELS})"))
        kept = take_kept(KERNELS)
        if kept is not None:  # read by read_timeline just before
            (stream,) = read_columns(db, KERNELS, (_where(db, KERNELS)[1],))
            dev, start, end, short = kept.device, kept.start, kept.end, kept.short
        else:
            dev, stream, start, end, short = read_columns(db, KERNELS, (*_where(db, KERNELS), "start", '"end"',
                                                                        "shortName"))
        yield "kernel", (dev, stream, start, end, _ids(short, lambda n: str(names.get(n, f"(string id {n})")),
                                                       labels))
    if MEMCPY in tables:
        cols = columns(db, MEMCPY)
        src = f"COALESCE(srcKind, {NONE})" if "srcKind" in cols else str(NONE)
        dst = f"COALESCE(dstKind, {NONE})" if "dstKind" in cols else str(NONE)
        dev, stream, start, end, kind, sk, dk = read_columns(db, MEMCPY, (*_where(db, MEMCPY), "start", '"end"',
                                                                          "copyKind", src, dst))
        yield "copy", (dev, stream, start, end, _ids(np.stack((kind, sk, dk), axis=1), _copy_name, labels))
    if MEMSET in tables:
        dev, stream, start, end = read_columns(db, MEMSET, (*_where(db, MEMSET), "start", '"end"'))
        at = labels.setdefault("memset", len(labels)) if len(start) else 0
        yield "memset", (dev, stream, start, end, np.full(len(start), at, np.int64))


def migrations(path: Path, shown: Path, group_by: str = "kernel") -> dict[Config, Migration]:
    """Per kernel (named as ``read_timeline`` groups it) and launch configuration, the unified-memory migrations and
    GPU page faults during its launches on its GPU; empty where the export records none."""
    with _open(path, shown) as db:
        tables = _tables(db)
        moves = _unified(db, tables)
        faults = _faults(db, tables)
        if KERNELS not in tables or not (moves or faults):
            return {}
        names = _names(db, group_by)
        dem = "demangledName" if "demangledName" in columns(db, KERNELS) else "shortName"
        out: dict[Config, list[int]] = {}
        for dev, short, demangled, gx, gy, gz, bx, by, bz, start, end in db.execute(
                f'SELECT deviceId, shortName, {dem}, gridX, gridY, gridZ, blockX, blockY, blockZ, start, "end" '
                f"FROM {KERNELS}"):
            key = (names[(short, demangled)], (gx, gy, gz), (bx, by, bz))
            sums = out.setdefault(key, [0, 0, 0, 0, 0])
            moved, under = _under(moves.get(dev, ([], [])), start, end)
            sums[0] += 1
            sums[1] += 1 if under else 0
            sums[2] += moved
            sums[3] += under
            starts = faults.get(dev, [])
            sums[4] += bisect.bisect_left(starts, end) - bisect.bisect_left(starts, start)
        return {key: Migration(n, w, b, ns * 1e-9, f) for key, (n, w, b, ns, f) in out.items()}


def _where(db: sqlite3.Connection, table: str) -> tuple[str, str]:
    """The table's device and stream columns (0 and -1 where a hand-made export lacks them or has no stream)."""
    cols = columns(db, table)
    return ("deviceId" if "deviceId" in cols else "0", "COALESCE(streamId, -1)" if "streamId" in cols else "-1")


def _origin(db: sqlite3.Connection, tables: set[str]) -> int | None:
    """The wall-clock time (ns since the epoch) of the export's 0, where it records it."""
    if SESSION not in tables or "utcEpochNs" not in columns(db, SESSION):
        return None
    row = db.execute(f"SELECT utcEpochNs FROM {SESSION} LIMIT 1").fetchone()
    return int(row[0]) if row and row[0] is not None else None


def _nvtx(db: sqlite3.Connection, tables: set[str]) -> tuple[NvtxSpan, ...]:
    """The NVTX ranges with an end and a name, by start."""
    if NVTX not in tables:
        return ()
    cols = columns(db, NVTX)
    name = "COALESCE(text, (SELECT value FROM StringIds WHERE id = textId))" if "textId" in cols else "text"
    thread = "globalTid" if "globalTid" in cols else "0"
    rows = db.execute(f"""SELECT start, "end", {thread}, {name} AS n FROM {NVTX}
                          WHERE "end" IS NOT NULL AND n IS NOT NULL ORDER BY start""")
    return tuple(NvtxSpan(int(a), int(b), int(t or 0), str(n)) for a, b, t, n in rows)


def _unified(db: sqlite3.Connection, tables: set[str]) -> dict[int, tuple[list[int], list[tuple[int, int, int]]]]:
    """Per GPU, its unified-memory migrations (start, end, bytes) by start, with their starts apart for bisecting."""
    if MEMCPY not in tables:
        return {}
    out: dict[int, tuple[list[int], list[tuple[int, int, int]]]] = {}
    marks = ",".join(str(k) for k in sorted(UNIFIED))
    for dev, start, end, size in db.execute(f'SELECT deviceId, start, "end", bytes FROM {MEMCPY} '
                                            f"WHERE copyKind IN ({marks}) ORDER BY start"):
        starts, rows = out.setdefault(int(dev), ([], []))
        starts.append(start)
        rows.append((start, end, int(size or 0)))
    return out


def _faults(db: sqlite3.Connection, tables: set[str]) -> dict[int, list[int]]:
    """Per GPU, the starts of its unified-memory GPU page faults, sorted."""
    if UM_FAULTS not in tables or not {"start", "deviceId"} <= columns(db, UM_FAULTS):
        return {}
    out: dict[int, list[int]] = {}
    for dev, start in db.execute(f"SELECT deviceId, start FROM {UM_FAULTS} ORDER BY start"):
        out.setdefault(int(dev), []).append(start)
    return out


LONGEST_MIGRATION_NS = 10**9  # no migration runs longer: the search for those overlapping a launch starts this early


def _under(moves: tuple[list[int], list[tuple[int, int, int]]], start: int, end: int) -> tuple[int, int]:
    """The bytes of the migrations overlapping [start, end) and the time of it they cover (ns)."""
    starts, rows = moves
    lo = bisect.bisect_left(starts, start - LONGEST_MIGRATION_NS)
    hi = bisect.bisect_left(starts, end)
    hits = [(a, b, size) for a, b, size in rows[lo:hi] if b > start]
    covered = sum(min(b, end) - max(a, start) for a, b in merge((a, b) for a, b, _ in hits))
    return sum(size for *_, size in hits), covered


def _names(db: sqlite3.Connection, group_by: str) -> dict[tuple[int, int], str]:
    """(shortName id, demangled id) -> the kernel's name as ``read_timeline`` groups it."""
    dem = "demangledName" if "demangledName" in columns(db, KERNELS) else "shortName"
    pairs = db.execute(f"""SELECT DISTINCT k.shortName, k.{dem}, s.value, d.value FROM {KERNELS} k
                           LEFT JOIN StringIds s ON s.id = k.shortName LEFT JOIN StringIds d ON d.id = k.{dem}""")
    out = {}
    for sid, did, short, demangled in pairs:
        short = str(short) if short is not None else f"(string id {sid})"
        out[(sid, did)] = kernel_key(short, str(demangled or "")) if group_by == "kernel" else short
    return out


@contextmanager
def _open(path: Path, shown: Path) -> Iterator[sqlite3.Connection]:
    """The export, read-only; a table or column it lacks is a ReportError naming ``shown``."""
    with closing(sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)) as db:
        try:
            yield db
        except sqlite3.DatabaseError as err:
            raise ReportError(f"{shown}: not an nsys export this reader knows ({err})", HINT) from None


def _tables(db: sqlite3.Connection) -> set[str]:
    return {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")}
