"""A small Nsight Systems SQLite export written by the tests, for the commands and tools that read one when the
real profiles of ../shared/nsys-reps are absent."""

from __future__ import annotations

import sqlite3
from pathlib import Path


def nsys_export(path: Path) -> Path:
    """A small Nsight Systems SQLite export: the tables and columns the timeline reads, three kernels of five
    launches each (gemm 3.0-3.4 us, triad 1.00-1.04 us, tiny 50 ns), one after the other on GPU 0."""
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT)")
    db.execute('CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INT, "end" INT, deviceId INT, shortName INT, '
               "correlationId INT)")
    db.executemany("INSERT INTO StringIds VALUES (?, ?)", [(1, "gemm"), (2, "triad"), (3, "tiny")])
    start = 0
    rows: list[tuple[int, int, int, int, int]] = []  # start, end, GPU, name id, correlation id
    for i in range(5):
        for name, ns in ((1, 3000 + 100 * i), (2, 1000 + 10 * i), (3, 50)):
            rows.append((start, start + ns, 0, name, len(rows)))
            start += ns + 10
    db.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?, ?, ?, ?, ?)", rows)
    db.commit()
    db.close()
    return path
