"""The kernel table read as columns, and the interval unions the busy and idle times are measured on, against
plain Python on small cases."""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from roofline.nsys import launches as L


def table(path: Path, rows: Sequence[tuple[object, ...]]) -> sqlite3.Connection:
    db = sqlite3.connect(path)
    db.execute('CREATE TABLE k (start INT, "end" INT, deviceId INT, shortName INT, demangledName INT)')
    db.executemany("INSERT INTO k VALUES (?, ?, ?, ?, ?)", rows)
    return db


def test_columns_come_back_in_rowid_order_across_chunks_and_rowid_gaps(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(L, "CHUNK", 3)
    rows = [(10 * i, 10 * i + i % 4, i % 2, i % 3, i % 5) for i in range(11)]
    db = table(tmp_path / "k.sqlite", rows)
    db.execute("DELETE FROM k WHERE rowid IN (4, 5, 6, 7)")  # a whole chunk of rowids missing
    kept = [r for i, r in enumerate(rows, 1) if i not in (4, 5, 6, 7)]
    got = L.read_launches(db, "k", "demangledName")
    assert [got.start.tolist(), got.end.tolist(), got.device.tolist(), got.short.tolist(),
            got.demangled.tolist()] == [list(c) for c in zip(*kept, strict=True)]


def test_an_empty_table_reads_as_no_launches(tmp_path: Path) -> None:
    assert len(L.read_launches(table(tmp_path / "k.sqlite", []), "k", "demangledName")) == 0


@pytest.mark.parametrize("row, column", [((1, None, 0, 1, 1), "end"), ((1, 2, 0, None, 1), "shortName"),
                                         ((1.5, 2, 0, 1, 1), "start"), ((1, 2, "gpu", 1, 1), "deviceId")])
def test_a_row_without_an_integer_is_refused(tmp_path: Path, row: tuple[object, ...], column: str) -> None:
    db = table(tmp_path / "k.sqlite", [(0, 1, 0, 1, 1), row])
    with pytest.raises(L.LaunchError, match=f"kernel rows without an integer {column}"):
        L.read_launches(db, "k", "demangledName")


def measure(intervals: list[tuple[int, int]]) -> set[int]:
    """The integer points [s, e) the intervals cover: a plain model of a union."""
    return {x for s, e in intervals for x in range(s, e)}


def random_intervals(rng: random.Random, n: int) -> list[tuple[int, int]]:
    return [(s, s + rng.randint(0, 6)) for s in (rng.randint(0, 60) for _ in range(n))]


@pytest.mark.parametrize("seed", range(30))
def test_unions_differences_and_cover_agree_with_sets_of_points(seed: int) -> None:
    rng = random.Random(seed)
    a, b, probe = (random_intervals(rng, rng.randint(0, 12)) for _ in range(3))
    ua, ub = L.union_of(a), L.union_of(b)
    assert ua.total == len(measure(a))
    assert all(e0 < s1 for e0, s1 in zip(ua.ends[:-1], ua.starts[1:], strict=True))  # disjoint, apart
    starts, ends = L.minus(ua, ub)
    assert measure(list(zip(starts.tolist(), ends.tolist(), strict=True))) == measure(a) - measure(b)
    assert measure(list(zip(L.joined(ua, ub).starts.tolist(), L.joined(ua, ub).ends.tolist(),
                            strict=True))) == measure(a) | measure(b)
    up = L.union_of(probe)
    assert ua.covered(up.starts, up.ends) == len(measure(a) & measure(probe))


def test_a_union_of_sorted_launches_merges_those_that_overlap_or_touch() -> None:
    u = L.union(np.array([0, 5, 10, 30, 30]), np.array([10, 8, 20, 30, 40]))
    assert (u.starts.tolist(), u.ends.tolist(), u.total) == ([0, 30], [20, 40], 30)


def test_group_figures_are_the_sorted_durations_figures() -> None:
    rng = random.Random(7)
    n = 500
    short = np.array([rng.randrange(4) for _ in range(n)], dtype=np.int64)
    start = np.arange(n, dtype=np.int64) * 1000
    d = np.array([rng.randrange(900) for _ in range(n)], dtype=np.int64)
    launches = L.Launches(start, start + d, short % 2, short, short + 10)
    ids, launch_pair = L.pairs(launches)
    assert ids.tolist() == [[s, s + 10] for s in range(4)]
    figures = L.per_group(launches, launch_pair, [0, 1, 1, 0], 2)  # pairs 0 and 3 pooled, 1 and 2 pooled
    for g, f in enumerate(figures):
        own = sorted(d[np.isin(short, [0, 3] if g == 0 else [1, 2])].tolist())
        assert (f.count, f.total, f.low, f.high) == (len(own), sum(own), own[0], own[-1])
        assert f.middle == (own[(len(own) - 1) // 2], own[len(own) // 2])
        assert f.devices == (0, 1)  # short names 0 and 3 ran on GPUs 0 and 1, and so did 1 and 2


def test_negative_or_huge_durations_are_sorted_the_slow_way() -> None:
    group = np.array([1, 0, 1, 0], dtype=np.int64)
    values = np.array([5, -3, 1 << 50, 2], dtype=np.int64)
    assert L._by_group_and_value(group, values, 2).tolist() == [-3, 2, 5, 1 << 50]


def test_device_ids_count_small_ids_and_hash_others() -> None:
    assert L.device_ids(np.array([2, 0, 2], dtype=np.int64)) == {0: 1, 2: 2}
    assert L.device_ids(np.array([-1, 1 << 40, -1], dtype=np.int64)) == {-1: 2, 1 << 40: 1}


def test_pairs_of_ids_too_large_to_pack_are_found_apart() -> None:
    big = 1 << 40
    launches = L.Launches(*(np.array(c, dtype=np.int64) for c in ([0, 1, 2], [1, 2, 3], [0, 0, 0],
                                                                   [big, 1, big], [2, big, 2])))
    ids, launch_pair = L.pairs(launches)
    assert [tuple(ids[i].tolist()) for i in launch_pair] == [(big, 2), (1, big), (big, 2)]
