"""The kernel launches of an nsys export as columns (numpy arrays, one element per launch), and the unions of
intervals the timeline's busy and idle times are measured on.

Why columns: SQLite aggregates a million launches in about half a second, but a kernel's median and a GPU's busy
time need the launches sorted (by kernel and duration, by start), which SQLite does by writing them out again, and
fetching them row by row makes a Python tuple per launch. Instead each column comes out of SQLite as one string of
its values (``group_concat``, a range of ``CHUNK`` rowids per query) that numpy parses in one call, and the
sorting and summing is numpy's, in int64 nanoseconds as the export holds them: the figures are the same integers a
row-by-row sum gives, to the nanosecond.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

Array = npt.NDArray[np.int64]
CHUNK = 1 << 20  # rowids read per query: bounds the text SQLite hands over at once (some 40 MB)


class LaunchError(ValueError):
    """The kernel table holds a launch this reader cannot place (a missing or non-integer start, end, device or
    name); the reader names the file."""


@dataclass(frozen=True)
class Launches:
    """Every launch of a kernel table (or of an NVTX filter's copy of it), in rowid order."""

    start: Array  # ns
    end: Array  # ns
    device: Array  # deviceId
    short: Array  # shortName, an id into StringIds
    demangled: Array  # the demangled name's id (the short name's where the export has no demangled names)

    def __len__(self) -> int:
        return len(self.start)


def read_launches(db: sqlite3.Connection, source: str, demangled: str) -> Launches:
    """The launches of table ``source`` (``demangled``: its demangled-name column). Durations are read rather than
    ends: fewer digits for SQLite to write and numpy to read. Inside ``kept``, kept for ``take_kept``."""
    start, duration, *rest = read_columns(db, source, ("start", '"end" - start', "deviceId", "shortName", demangled),
                                          ("start", "end", "deviceId", "shortName", demangled))
    launches = Launches(start, start + duration, *rest)
    if _KEPT.get("on"):
        _KEPT.clear()
        _KEPT.update(on=True, source=source, launches=launches)
    return launches


_KEPT: dict[str, Any] = {}  # inside ``kept``: the launches read last and their table


@contextmanager
def kept() -> Iterator[None]:
    """Within: the launches ``read_launches`` reads are kept for one reader after it of the same export (the
    streams view's), so a million launches are read from SQLite once. Read only one export within."""
    _KEPT.clear()
    _KEPT["on"] = True
    try:
        yield
    finally:
        _KEPT.clear()


def take_kept(source: str) -> Launches | None:
    """The launches of table ``source`` kept by ``read_launches`` within ``kept`` (handed over once); None where
    none are."""
    if _KEPT.get("source") != source:
        return None
    launches: Launches = _KEPT.pop("launches")
    _KEPT.pop("source")
    return launches


def read_columns(db: sqlite3.Connection, source: str, columns: Sequence[str],
                 names: Sequence[str] | None = None) -> list[Array]:
    """Integer ``columns`` (or expressions, ``names`` naming them in errors) of every row of table ``source``, in
    rowid order, a range of ``CHUNK`` rowids a query."""
    concat = ", ".join(f"group_concat({c})" for c in columns)
    query = f"SELECT COUNT(*), {concat} FROM {source} WHERE rowid > ? AND rowid <= ?"
    parts: list[list[Array]] = [[] for _ in columns]
    low, high = db.execute(f"SELECT MIN(rowid), MAX(rowid) FROM {source}").fetchone()
    for first in range(low, high + 1, CHUNK) if low is not None else ():
        n, *texts = db.execute(query, (first - 1, first - 1 + CHUNK)).fetchone()
        for part, text, name in zip(parts, texts, names or columns, strict=True):
            part.append(_parse(text, n, name))
    return [np.concatenate(p) if p else np.zeros(0, np.int64) for p in parts]


def _parse(text: str | None, n: int, column: str) -> Array:
    """The ``n`` integers of one ``group_concat``; LaunchError where some are missing (NULL) or not integers."""
    try:
        values = np.fromstring(text or "", dtype=np.int64, sep=",")
    except ValueError:
        values = np.zeros(0, np.int64)
    if len(values) != n:
        raise LaunchError(f"kernel rows without an integer {column.strip(chr(34))}")  # "end" without its quotes
    return values


@dataclass(frozen=True)
class IntervalUnion:
    """The union of some intervals as disjoint intervals sorted by start, with the summed length of those before
    each one, so that how much of any interval the union covers is two binary searches."""

    starts: Array
    ends: Array
    before: Array  # the summed length of the intervals before each one

    @property
    def total(self) -> int:
        """The union's length (busy time, for a GPU's launches)."""
        return int(self.before[-1] + self.ends[-1] - self.starts[-1]) if len(self.starts) else 0

    def covered(self, starts: Array, ends: Array) -> int:
        """How much of the disjoint intervals (``starts``, ``ends``) the union covers."""
        return int((self._below(ends) - self._below(starts)).sum()) if len(starts) and len(self.starts) else 0

    def _below(self, x: Array) -> Array:
        """How much of the union lies before each point of ``x``."""
        i = np.searchsorted(self.starts, x, side="right") - 1
        j = np.maximum(i, 0)
        inside = np.clip(x - self.starts[j], 0, self.ends[j] - self.starts[j])
        return np.where(i >= 0, self.before[j] + inside, 0)


def union(starts: Array, ends: Array) -> IntervalUnion:
    """The union of intervals sorted by start, those that overlap or touch merged (as one pass that extends the last
    interval while the next starts at or before its end)."""
    if not len(starts):
        return IntervalUnion(starts, ends, starts)
    reach = np.maximum.accumulate(ends)
    first = np.flatnonzero(np.concatenate(([True], starts[1:] > reach[:-1])))
    s, e = starts[first], reach[np.concatenate((first[1:] - 1, [len(starts) - 1]))]
    lengths = e - s
    return IntervalUnion(s, e, np.concatenate(([0], np.cumsum(lengths)[:-1])).astype(np.int64))


def union_of(intervals: Iterable[Sequence[int]]) -> IntervalUnion:
    """The union of (start, end) pairs in any order; those without length left out (they cover nothing)."""
    pairs = np.array([(s, e) for s, e in intervals if s is not None and e is not None and e > s],
                     dtype=np.int64).reshape(-1, 2)
    order = np.argsort(pairs[:, 0], kind="stable")
    return union(pairs[order, 0], pairs[order, 1])


def minus(a: IntervalUnion, b: IntervalUnion) -> tuple[Array, Array]:
    """The parts of ``a`` outside ``b``, as disjoint intervals (starts, ends)."""
    points = np.sort(np.concatenate((a.starts, a.ends, b.starts, b.ends)))
    points = points[np.concatenate(([True], points[1:] != points[:-1]))]  # np.unique would import numpy.ma
    lo, hi = points[:-1], points[1:]
    keep = _inside(a, lo) & ~_inside(b, lo)
    return lo[keep], hi[keep]


def joined(a: IntervalUnion, b: IntervalUnion) -> IntervalUnion:
    """The union of two unions."""
    starts, ends = np.concatenate((a.starts, b.starts)), np.concatenate((a.ends, b.ends))
    order = np.argsort(starts, kind="stable")
    return union(starts[order], ends[order])


def _inside(u: IntervalUnion, x: Array) -> npt.NDArray[np.bool_]:
    """Whether each point of ``x`` is inside an interval of ``u`` (its start included, its end not)."""
    if not len(u.starts):
        return np.zeros(len(x), dtype=bool)
    i = np.searchsorted(u.starts, x, side="right") - 1
    return (i >= 0) & (u.ends[np.maximum(i, 0)] > x)


def pairs(launches: Launches) -> tuple[Array, Array]:
    """The distinct (short name, demangled name) id pairs, as rows of a (P, 2) array in id order, and each
    launch's row among them."""
    s, d = launches.short, launches.demangled
    if len(s) and min(s.min(), d.min()) >= 0 and max(s.max(), d.max()) < 1 << 31:
        keys, inverse = np.unique((s << 32) | d, return_inverse=True)  # one sort of int64 keys, the fast way
        return np.stack((keys >> 32, keys & 0xFFFFFFFF), axis=1), inverse.reshape(-1)
    rows, inverse = np.unique(np.stack((s, d), axis=1), axis=0, return_inverse=True)
    return rows, inverse.reshape(-1)


@dataclass(frozen=True)
class GroupFigures:
    """One group of launches (a kernel): count and durations in ns (the two middle ones give the median), and the
    devices it ran on."""

    count: int
    total: int
    low: int
    high: int
    middle: tuple[int, int]  # the durations at (count - 1) // 2 and count // 2 in duration order
    devices: tuple[int, ...]


def per_group(launches: Launches, launch_pair: Array, pair_group: Sequence[int], groups: int) -> list[GroupFigures]:
    """Figures of each group 0..groups-1: ``launch_pair`` is each launch's name pair (``pairs``), ``pair_group``
    each pair's group (every group has a pair)."""
    group = np.asarray(pair_group, dtype=np.int64)[launch_pair]
    d = launches.end - launches.start
    ordered = _by_group_and_value(group, d, groups)
    counts = np.bincount(group, minlength=groups)
    first = np.concatenate(([0], np.cumsum(counts)[:-1]))
    totals = np.add.reduceat(ordered, first) if len(ordered) else np.zeros(0, np.int64)
    ran = {dev: np.bincount(group[launches.device == dev], minlength=groups) > 0
           for dev in device_ids(launches.device)}
    return [GroupFigures(int(n), int(totals[g]), int(ordered[f]), int(ordered[f + n - 1]),
                         (int(ordered[f + (n - 1) // 2]), int(ordered[f + n // 2])),
                         tuple(dev for dev, on in ran.items() if on[g]))
            for g, (n, f) in enumerate(zip(counts.tolist(), first.tolist(), strict=True))]


def _by_group_and_value(group: Array, values: Array, groups: int) -> Array:
    """``values`` sorted by group, then by value: one sort of packed keys where both fit in 63 bits, else a
    lexicographic sort."""
    if len(values) and values.min() >= 0 and int(values.max()) < 1 << 40 and groups < 1 << 23:
        return np.sort((group.astype(np.int64) << 40) | values) & ((1 << 40) - 1)
    return values[np.lexsort((values, group))]


@dataclass(frozen=True)
class DeviceFigures:
    """One GPU's launches: how many, the union of their intervals (its length is the busy time) and the span from
    the first start to the last end, in ns."""

    device: int
    launches: int
    busy: IntervalUnion
    span: int


def per_device(launches: Launches) -> list[DeviceFigures]:
    """Figures of each device that ran a launch, by device id."""
    return [DeviceFigures(dev, n, u, int(u.ends[-1] - u.starts[0]))
            for (dev, n), u in zip(device_ids(launches.device).items(),
                                   unions(launches.start, launches.end, launches.device).values(), strict=True)]


def unions(starts: Array, ends: Array, devices: Array) -> dict[int, IntervalUnion]:
    """Per device, the union of its intervals."""
    out = {}
    for dev in device_ids(devices):
        on = devices == dev
        order = np.argsort(starts[on], kind="stable")
        out[int(dev)] = union(starts[on][order], ends[on][order])
    return out


def device_ids(devices: Array) -> dict[int, int]:
    """The distinct device ids, in order, with how often each occurs (counted, not hashed, where the ids are small
    and not negative, as nsys's are)."""
    if len(devices) and devices.min() >= 0 and devices.max() < 1 << 16:
        counts = np.bincount(devices)
        return {int(d): int(counts[d]) for d in np.flatnonzero(counts)}
    ids, counts = np.unique(devices, return_counts=True)
    return dict(zip(ids.tolist(), counts.tolist(), strict=True))
