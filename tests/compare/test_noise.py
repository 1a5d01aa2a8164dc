"""roofline.compare.noise: the median ratio (Hodges-Lehmann), its interval, and the Mann-Whitney U test of the gate.

The expected values are computed here by brute force over every pair of launches (``statistics.median`` of the
log ratios) and with ``scipy.stats.mannwhitneyu`` directly; the samples are drawn with fixed seeds."""

from __future__ import annotations

import math
import random
import statistics

import pytest
from scipy.stats import mannwhitneyu

from roofline.compare.noise import compare_times, slower_p_value


def sample(rng: random.Random, n: int, median: float, sigma: float) -> list[float]:
    return [median * math.exp(rng.gauss(0.0, sigma)) for _ in range(n)]


def brute_ratios(base: list[float], new: list[float]) -> list[float]:
    return sorted(math.log(b / a) for a in base for b in new)


@pytest.mark.parametrize("n, m", [(1, 1), (1, 6), (2, 3), (5, 5), (30, 30), (7, 41)])
def test_the_ratio_is_the_median_of_the_pairwise_ratios(n, m):
    rng = random.Random(n * 100 + m)
    base, new = sample(rng, n, 1e-3, 0.1), sample(rng, m, 1.2e-3, 0.1)
    change = compare_times(base, new)
    assert change.ratio == pytest.approx(math.exp(statistics.median(brute_ratios(base, new))), rel=1e-10)
    assert (change.base_n, change.new_n) == (n, m)


def test_one_launch_per_side_is_untested_and_its_ratio_is_the_plain_ratio():
    change = compare_times([2e-6], [5e-6])
    assert change.ratio == pytest.approx(2.5, rel=1e-12)
    assert change.low is None and change.high is None
    assert change.untested == "untested for noise: one launch per side"


@pytest.mark.parametrize("n, m, testable", [(4, 4, False), (5, 5, True), (2, 11, False), (2, 30, False),
                                             (3, 30, True), (1, 300, False)])
def test_too_few_launches_to_reach_alpha_are_untested(n, m, testable):
    """Complete separation of the sides is the strongest evidence n and m launches can give: untested exactly
    when even that is not significant at alpha 0.01 by scipy's own test."""
    rng = random.Random(n + m)
    base, new = sample(rng, n, 1.0, 0.01), sample(rng, m, 2.0, 0.01)
    separated = mannwhitneyu(new, base, alternative="greater", method="asymptotic").pvalue
    assert (separated < 0.01) == testable
    assert (not compare_times(base, new).untested) == testable


def test_the_interval_ends_are_the_ratios_where_the_mann_whitney_test_changes_its_answer():
    """For every factor: the one-sided scipy test rejects "not slower than factor" at alpha exactly when the
    interval's lower end is above factor, and the opposite test exactly when its upper end is below it."""
    rng = random.Random(11)
    mismatches = 0
    for _ in range(150):
        n, m = rng.randint(5, 40), rng.randint(5, 40)
        base, new = sample(rng, n, 1e-3, 0.05), sample(rng, m, 1e-3 * rng.uniform(0.9, 1.25), 0.05)
        change = compare_times(base, new, alpha=0.01)
        assert change.low is not None and change.high is not None
        for factor in (0.95, 1.0, 1.05, 1.1, 1.15, 1.2):
            shifted = [t / factor for t in new]
            greater = mannwhitneyu(shifted, base, alternative="greater", method="asymptotic").pvalue
            less = mannwhitneyu(shifted, base, alternative="less", method="asymptotic").pvalue
            mismatches += (greater < 0.01) != (change.low > factor)
            mismatches += (less < 0.01) != (change.high < factor)
            assert slower_p_value(base, new, factor) == pytest.approx(greater, rel=1e-9)
    assert mismatches == 0


def test_the_ends_are_pairwise_ratios_at_symmetric_ranks():
    rng = random.Random(5)
    base, new = sample(rng, 20, 1.0, 0.1), sample(rng, 25, 1.1, 0.1)
    change = compare_times(base, new)
    ratios = brute_ratios(base, new)
    low = ratios.index(min(ratios, key=lambda r: abs(r - math.log(change.low or 0.0))))
    high = ratios.index(min(ratios, key=lambda r: abs(r - math.log(change.high or 0.0))))
    assert math.exp(ratios[low]) == pytest.approx(change.low, rel=1e-10)
    assert math.exp(ratios[high]) == pytest.approx(change.high, rel=1e-10)
    assert low + high == len(ratios) - 1  # ranks k and nm + 1 - k


def test_the_interval_covers_the_true_ratio_about_as_often_as_it_says():
    """400 simulated comparisons of 20 launches each, 5% noise, true ratio 1.1: a 98% interval should miss about 8
    times; allowing for chance (binomial, p = 0.02), at most 18."""
    rng = random.Random(2024)
    misses = 0
    for _ in range(400):
        change = compare_times(sample(rng, 20, 1.0, 0.05), sample(rng, 20, 1.1, 0.05))
        assert change.low is not None and change.high is not None and change.confidence == pytest.approx(0.98)
        misses += not change.low <= 1.1 <= change.high
    assert misses <= 18


def test_ties_from_quantized_durations_keep_the_test_and_the_interval_in_agreement():
    """ncu durations are whole nanoseconds: short kernels repeat the same value."""
    rng = random.Random(3)
    base = [float(rng.choice((1728, 1728, 1760, 1696))) for _ in range(30)]
    new = [float(rng.choice((2048, 2048, 2080, 1984))) for _ in range(30)]
    change = compare_times(base, new)
    assert change.low is not None and change.low > 1.1
    assert slower_p_value(base, new, 1.1) < 0.01 and slower_p_value(base, new, change.low * 1.001) >= 0.01


def test_a_change_carries_its_ratio_and_interval_as_percent_changes():
    c = compare_times([1.0] * 8 + [1.01] * 8, [1.2] * 8 + [1.21] * 8)
    assert c.low is not None and c.high is not None
    assert c.pct == pytest.approx(100 * (c.ratio - 1)) and c.pct > 0
    assert (c.low_pct, c.high_pct) == (pytest.approx(100 * (c.low - 1)), pytest.approx(100 * (c.high - 1)))
    faster = c.inverted()
    assert faster.pct == pytest.approx(100 * (1 / c.ratio - 1)) and faster.pct < 0
    assert compare_times([1.0], [2.0]).low_pct is None  # untested: no interval, no percent ends
