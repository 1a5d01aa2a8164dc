"""The tests' own time-weighted median (written apart from roofline.analysis.roofline's, as the oracle for it)."""

from __future__ import annotations

import statistics


def weighted_median(pairs: list[tuple[float, float]]) -> float:
    """The value at half the total time (the lower one at an exact half); the plain median without times."""
    if not any(w > 0 for _, w in pairs):
        return statistics.median(v for v, _ in pairs)
    pairs = sorted(pairs)
    half, acc = sum(w for _, w in pairs) / 2, 0.0
    for value, weight in pairs:
        acc += weight
        if acc >= half:
            return value
    return pairs[-1][0]
