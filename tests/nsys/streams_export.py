"""A small nsys export with work on several streams, written by the tests: kernels on stream 7, copies on stream
13 partly under them, a memset, NVTX ranges nested on one thread, the session's wall-clock start, and
unified-memory migrations and GPU page faults during the launches of one kernel (``reduce``), as a stdpar code
with managed memory shows them."""

from __future__ import annotations

import sqlite3
from pathlib import Path

MS = 1_000_000
# (name id, start, end, stream, grid x): gemm twice, reduce twice (with migrations under it), one launch alone
KERNELS = [(1, 0, 10 * MS, 7, 64), (2, 12 * MS, 20 * MS, 7, 32), (1, 20 * MS, 30 * MS, 7, 64),
           (2, 60 * MS, 70 * MS, 7, 32), (3, 100 * MS, 101 * MS, 7, 1)]
# (start, end, stream, copyKind, bytes): two host-to-device copies half under kernels, one after them all;
# unified-memory migrations (copyKind 11) during each reduce launch
COPIES = [(5 * MS, 15 * MS, 13, 1, 4096), (25 * MS, 35 * MS, 13, 1, 4096), (40 * MS, 45 * MS, 13, 2, 1024),
          (13 * MS, 14 * MS, 0, 11, 65536), (15 * MS, 17 * MS, 0, 11, 131072), (61 * MS, 62 * MS, 0, 11, 65536)]
MEMSETS = [(80 * MS, 81 * MS, 7)]
FAULTS = [13 * MS, 16 * MS, 61 * MS, 90 * MS]  # the last one under no launch
NVTX = [(0, 50 * MS, "step 1"), (1 * MS, 30 * MS, "forward"), (2 * MS, 3 * MS, "inner"), (55 * MS, 101 * MS, "step 2")]
SESSION_NS = 1_700_000_000_000_000_000


def write(path: Path, session_ns: int | None = SESSION_NS, shift_ns: int = 0, streams: int = 1) -> Path:
    """The export at ``path``; ``shift_ns`` moves every row, ``streams`` > 1 adds that many one-kernel streams."""
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT)")
    db.executemany("INSERT INTO StringIds VALUES (?, ?)", [(1, "gemm"), (2, "reduce"), (3, "tail")])
    db.execute('CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INT, "end" INT, deviceId INT, streamId INT, '
               "correlationId INT, globalPid INT, demangledName INT, shortName INT, gridX INT, gridY INT, gridZ INT, "
               "blockX INT, blockY INT, blockZ INT)")
    rows = [(s + shift_ns, e + shift_ns, 0, stream, i, 1, name, name, grid, 1, 1, 256, 1, 1)
            for i, (name, s, e, stream, grid) in enumerate(KERNELS)]
    rows += [(200 * MS + i * MS + shift_ns, 200 * MS + i * MS + 500 + shift_ns, 0, 100 + i, 100 + i, 1, 3, 3, 1, 1,
              1, 256, 1, 1) for i in range(streams - 1)]
    db.executemany(f"INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES ({','.join('?' * 14)})", rows)
    db.execute('CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INT, "end" INT, deviceId INT, streamId INT, '
               "copyKind INT, srcKind INT, dstKind INT, bytes INT)")
    db.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (?, ?, 0, ?, ?, 1, 2, ?)",
                   [(s + shift_ns, e + shift_ns, stream, kind, size) for s, e, stream, kind, size in COPIES])
    db.execute('CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INT, "end" INT, deviceId INT, streamId INT, bytes INT)')
    db.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (?, ?, 0, ?, 64)",
                   [(s + shift_ns, e + shift_ns, stream) for s, e, stream in MEMSETS])
    db.execute("CREATE TABLE CUDA_UM_GPU_PAGE_FAULT_EVENTS (start INT, \"end\" INT, deviceId INT)")
    db.executemany("INSERT INTO CUDA_UM_GPU_PAGE_FAULT_EVENTS VALUES (?, ?, 0)",
                   [(s + shift_ns, s + shift_ns + 1000) for s in FAULTS])
    db.execute('CREATE TABLE NVTX_EVENTS (start INT, "end" INT, eventType INT, text TEXT, globalTid INT)')
    db.executemany("INSERT INTO NVTX_EVENTS VALUES (?, ?, 59, ?, 16777217)",
                   [(s + shift_ns, e + shift_ns, n) for s, e, n in NVTX])
    if session_ns is not None:
        db.execute("CREATE TABLE TARGET_INFO_SESSION_START_TIME (utcEpochNs INT, utcTime TEXT, localTime TEXT)")
        db.execute("INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (?, '', '')", (session_ns,))
    db.commit()
    db.close()
    return path
