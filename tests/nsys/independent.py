"""Figures of an nsys SQLite export computed without roofline's reader: plain queries, every row fetched, the
aggregation done here in Python (the reader does it in SQL), so the two are independent."""

from __future__ import annotations

import math
import sqlite3
import statistics
from collections import defaultdict
from pathlib import Path
from typing import Any


def rows(path: Path, query: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return db.execute(query, params).fetchall()
    finally:
        db.close()


def launches(path: Path) -> list[tuple[str, int, int, int, int, int]]:
    """(short name, start, end, deviceId, correlationId, globalPid) of every kernel launch."""
    names = dict(rows(path, "SELECT id, value FROM StringIds"))
    return [(names[n], s, e, d, c, p) for n, s, e, d, c, p in rows(
        path, 'SELECT shortName, start, "end", deviceId, correlationId, globalPid FROM CUPTI_ACTIVITY_KIND_KERNEL')]


def demangled(path: Path) -> list[str]:
    """The demangled name of every kernel launch, in the order of ``launches``."""
    names = dict(rows(path, "SELECT id, value FROM StringIds"))
    columns = {c[1] for c in rows(path, "PRAGMA table_info(CUPTI_ACTIVITY_KIND_KERNEL)")}
    column = "demangledName" if "demangledName" in columns else "shortName"
    return [names[d] for (d,) in rows(path, f"SELECT {column} FROM CUPTI_ACTIVITY_KIND_KERNEL")]


def per_kernel(path: Path, keep: set[tuple[int, int]] | None = None,
               by: str = "kernel") -> dict[str, dict[str, float]]:
    """count, total, median, min and max (seconds) per short name (``by`` "function") or per instance (``by``
    "kernel": ``kernel_key`` of short and demangled name); ``keep``: only these (correlationId, pid)."""
    from roofline.core.kernel_names import kernel_key

    durations: dict[str, list[int]] = defaultdict(list)
    full = demangled(path) if by == "kernel" else None
    for i, (name, s, e, _, c, p) in enumerate(launches(path)):
        if keep is None or (c, p) in keep:
            durations[kernel_key(name, full[i]) if full is not None else name].append(e - s)
    return {name: {"count": len(d), "total_s": sum(d) * 1e-9, "median_s": statistics.median(d) * 1e-9,
                   "min_s": min(d) * 1e-9, "max_s": max(d) * 1e-9} for name, d in durations.items()}


def busy(path: Path) -> dict[int, float]:
    """Per device, the union of the launches' intervals (seconds), by merging the sorted intervals."""
    by_device: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for _, s, e, d, _, _ in launches(path):
        by_device[d].append((s, e))
    out = {}
    for device, intervals in by_device.items():
        total, cur_s, cur_e = 0, None, None
        for s, e in sorted(intervals):
            if cur_e is None or s > cur_e:
                total += (cur_e - cur_s) if cur_e is not None and cur_s is not None else 0
                cur_s, cur_e = s, e
            else:
                cur_e = max(cur_e, e)
        assert cur_s is not None and cur_e is not None
        out[device] = (total + cur_e - cur_s) * 1e-9
    return out


def inside_nvtx(path: Path, name: str) -> set[tuple[int, int]]:
    """(correlationId, pid) of the launches whose CUDA API call started inside a range ``name`` on its thread."""
    strings = dict(rows(path, "SELECT id, value FROM StringIds"))
    ranges = [(s, e, tid) for s, e, tid, text, text_id in rows(
        path, 'SELECT start, "end", globalTid, text, textId FROM NVTX_EVENTS WHERE "end" IS NOT NULL')
        if (text if text is not None else strings.get(text_id)) == name]
    calls = rows(path, "SELECT correlationId, globalTid, start FROM CUPTI_ACTIVITY_KIND_RUNTIME")
    return {(c, tid >> 24 << 24) for c, tid, start in calls
            if any(t == tid and s <= start <= e for s, e, t in ranges)}


def assert_same(actual: dict[str, tuple[float, ...]], expected: dict[str, tuple[float, ...]]) -> None:
    """The same names, and per name the same figures to 1e-12 (counts exactly: they are integers)."""
    assert set(actual) == set(expected)
    for name, values in actual.items():
        assert len(values) == len(expected[name])
        for a, e in zip(values, expected[name], strict=True):
            assert math.isclose(a, e, rel_tol=1e-12, abs_tol=1e-15), (name, values, expected[name])
