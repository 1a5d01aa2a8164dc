"""Time intervals in integer nanoseconds: merged, their holes, and how much of one set another covers."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

Interval = tuple[int, int]


def merge(intervals: Iterable[Sequence[int]]) -> list[Interval]:
    """Sorted intervals (by start) merged where they overlap or touch."""
    out: list[Interval] = []
    for s, e in intervals:
        if out and s <= out[-1][1]:
            if e > out[-1][1]:
                out[-1] = (out[-1][0], e)
        else:
            out.append((s, e))
    return out


def gaps(merged: Sequence[Interval]) -> list[Interval]:
    """The holes between merged intervals."""
    return [(a[1], b[0]) for a, b in zip(merged, merged[1:], strict=False) if b[0] > a[1]]


def take(left: Sequence[Interval], cover: Sequence[Interval]) -> tuple[int, list[Interval]]:
    """How much of ``left`` (disjoint, sorted) ``cover`` (merged) covers, and what of ``left`` stays uncovered."""
    covered, rest, j = 0, [], 0
    for s, e in left:
        while j < len(cover) and cover[j][1] <= s:
            j += 1
        k, at = j, s
        while k < len(cover) and cover[k][0] < e:
            cs, ce = max(cover[k][0], s), min(cover[k][1], e)
            if cs > at:
                rest.append((at, cs))
            covered += ce - cs
            at = max(at, ce)
            k += 1
        if at < e:
            rest.append((at, e))
    return covered, rest
