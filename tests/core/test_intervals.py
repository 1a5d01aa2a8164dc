"""roofline.core.intervals: merged intervals, their holes, covered parts, against small hand-worked cases."""

from __future__ import annotations

from roofline.core.intervals import gaps, merge, take


def test_merge_joins_overlapping_and_touching_intervals_and_keeps_apart_ones() -> None:
    assert merge([(0, 5), (3, 8), (8, 10), (12, 15), (13, 14)]) == [(0, 10), (12, 15)]


def test_gaps_are_the_holes_between_merged_intervals() -> None:
    assert gaps([(0, 10), (12, 15), (20, 21)]) == [(10, 12), (15, 20)]
    assert gaps([(0, 10)]) == []


def test_take_counts_the_covered_time_and_returns_what_stays_uncovered() -> None:
    covered, rest = take([(0, 10), (20, 30)], [(5, 8), (9, 25)])
    assert covered == 3 + 1 + 5  # 5-8, 9-10, 20-25
    assert rest == [(0, 5), (8, 9), (25, 30)]


def test_take_with_nothing_covering_leaves_every_interval() -> None:
    assert take([(0, 4), (6, 9)], []) == (0, [(0, 4), (6, 9)])
