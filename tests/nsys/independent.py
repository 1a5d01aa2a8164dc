"""Figures of an nsys SQLite export computed without roofline's reader: plain queries, every row fetched, the
aggregation done here in Python (the reader does it in SQL), so the two are independent."""

from __future__ import annotations

import bisect
import math
import re
import sqlite3
import statistics
from collections import defaultdict
from pathlib import Path
from typing import Any

HOST_SIDE = {1: "src", 3: "src", 9: "src", 2: "dst", 4: "dst"}  # which end of a copy is host memory
KINDS = {0: "pageable", 1: "pinned", 2: "device", 3: "array", 4: "managed"}


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


def per_kernel(path: Path, keep: set[tuple[int, int]] | None = None, by: str = "kernel") -> dict[str, dict[str, Any]]:
    """count, total, median, min and max (seconds) and the devices per short name (``by`` "function") or per
    instance (``by`` "kernel": ``kernel_key`` of short and demangled name); ``keep``: only these (correlationId,
    pid)."""
    from roofline.core.kernel_names import kernel_key

    durations: dict[str, list[int]] = defaultdict(list)
    devices: dict[str, set[int]] = defaultdict(set)
    full = demangled(path) if by == "kernel" else None
    for i, (name, s, e, dev, c, p) in enumerate(launches(path)):
        if keep is None or (c, p) in keep:
            key = kernel_key(name, full[i]) if full is not None else name
            durations[key].append(e - s)
            devices[key].add(dev)
    return {name: {"count": len(d), "total_s": sum(d) * 1e-9, "median_s": statistics.median(d) * 1e-9,
                   "min_s": min(d) * 1e-9, "max_s": max(d) * 1e-9, "devices": tuple(sorted(devices[name]))}
            for name, d in durations.items()}


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


def strip(name: str) -> str:
    """A CUDA API name without its version suffix."""
    return re.sub(r"_v[0-9]+$", "", name)


def tables(path: Path) -> set[str]:
    return {n for (n,) in rows(path, "SELECT name FROM sqlite_master WHERE type = 'table'")}


def merged(intervals: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[list[int]] = []
    for s, e in sorted(intervals):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return [(s, e) for s, e in out]


def covers(ivs: list[tuple[int, int]], starts: list[int], x: float) -> bool:
    i = bisect.bisect_right(starts, x) - 1
    return i >= 0 and ivs[i][0] <= x < ivs[i][1]


def segment_causes(path: Path, dev: int) -> dict[tuple[str, str], int]:
    """The idle causes of one GPU in ns, segment by segment: copies (direction, host kind; unified-memory kinds
    apart), memsets, then the API calls of the GPU's processes, synchronisations first, then by total time; the
    rest host. Every elementary segment between two event boundaries goes to the first cause that covers it."""
    have = tables(path)
    strings = dict(rows(path, "SELECT id, value FROM StringIds"))
    kernels = merged(rows(path, 'SELECT start, "end" FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE deviceId = ?', (dev,)))
    causes: dict[tuple[str, str], list[tuple[int, int]]] = defaultdict(list)
    labels = {1: "Host-to-Device", 2: "Device-to-Host", 3: "Host-to-Array", 4: "Array-to-Host", 5: "Array-to-Array",
              6: "Array-to-Device", 7: "Device-to-Array", 8: "Device-to-Device", 9: "Host-to-Host",
              10: "Peer-to-Peer"}
    if "CUPTI_ACTIVITY_KIND_MEMCPY" in have:
        for kind, src, dst, s, e in rows(path, 'SELECT copyKind, srcKind, dstKind, start, "end" FROM '
                                               "CUPTI_ACTIVITY_KIND_MEMCPY WHERE deviceId = ?", (dev,)):
            side = {"src": src, "dst": dst}.get(HOST_SIDE.get(kind, ""))
            detail = labels[kind] + (f" ({KINDS[side]})" if side is not None else "")
            causes[("copy", detail)].append((s, e))
    order = sorted(causes)
    if "CUPTI_ACTIVITY_KIND_MEMSET" in have:
        causes[("memset", "memset")] = rows(
            path, 'SELECT start, "end" FROM CUPTI_ACTIVITY_KIND_MEMSET WHERE deviceId = ?', (dev,))
        order.append(("memset", "memset"))
    pids = {p for (p,) in rows(path, "SELECT DISTINCT globalPid FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE deviceId = ?",
                               (dev,))}
    api: dict[str, list[tuple[int, int]]] = defaultdict(list)
    if "CUPTI_ACTIVITY_KIND_RUNTIME" in have:
        for name_id, s, e, tid in rows(path, 'SELECT nameId, start, "end", globalTid FROM '
                                             "CUPTI_ACTIVITY_KIND_RUNTIME"):
            if tid >> 24 << 24 in pids:
                api[strip(strings[name_id])].append((s, e))
    sync = re.compile(r"Synchronize|StreamWait|WaitEvent|EventQuery|StreamQuery")
    for name in sorted(api, key=lambda n: (not sync.search(n), -sum(e - s for s, e in api[n]), n)):
        causes[("sync" if sync.search(name) else "api", name)] = api[name]
        order.append(("sync" if sync.search(name) else "api", name))
    layers = [(key, ivs, [s for s, _ in ivs]) for key in order for ivs in (merged(causes[key]),)]
    points = sorted({x for s, e in kernels for x in (s, e)} |
                    {x for _, ivs, _ in layers for s, e in ivs for x in (s, e)
                     if kernels[0][0] <= x <= kernels[-1][1]})
    kstarts = [s for s, _ in kernels]
    out: dict[tuple[str, str], int] = defaultdict(int)
    for a, b in zip(points, points[1:], strict=False):
        mid = (a + b) / 2
        if covers(kernels, kstarts, mid):
            continue
        key = next((k for k, ivs, starts in layers if covers(ivs, starts, mid)), ("host", "host outside CUDA calls"))
        out[key] += b - a
    return {k: v for k, v in out.items() if v}


def assert_exact(path: Path, timeline: Any, by: str) -> None:
    """Every kernel's and GPU's figure of ``timeline`` (read from ``path``, grouped ``by``) is the figure computed
    here row by row, to the last bit: both sum integer nanoseconds and scale once."""
    expected = per_kernel(path, by=by)
    assert {k.name: (k.count, k.total_s, k.median_s, k.min_s, k.max_s) for k in timeline.kernels} == {
        n: (e["count"], e["total_s"], e["median_s"], e["min_s"], e["max_s"]) for n, e in expected.items()}
    assert {k.name: k.devices for k in timeline.kernels} == {n: e["devices"] for n, e in expected.items()}
    intervals: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for _, s, e, dev, _, _ in launches(path):
        intervals[dev].append((s, e))
    unions = busy(path)
    assert {d.device_id: (d.launches, d.span_s, d.busy_s) for d in timeline.devices} == {
        dev: (len(iv), (max(e for _, e in iv) - min(s for s, _ in iv)) * 1e-9, unions[dev])
        for dev, iv in sorted(intervals.items())}
    for d in timeline.devices:
        assert {(c.kind, c.detail): c.seconds for c in d.idle_causes} == {
            k: ns * 1e-9 for k, ns in segment_causes(path, d.device_id).items()}
