"""How much a kernel's time changed between two reports, with the launch-to-launch noise taken into account.

ncu reports hold repeated launches of the same kernel, and their durations scatter (clocks, caches, the launch
before). One launch of each side is one draw of each, so a change is given as:

* **the median ratio**: the Hodges-Lehmann estimate, the median of the ratios NEW_j / BASE_i over all pairs of
  launches (with one launch per side, their plain ratio). It is robust to a few outlying launches and needs no
  assumption on the shape of the scatter;
* **its interval**: the distribution-free Hodges-Lehmann interval, i.e. the pairwise ratios at the ranks where the
  one-sided Mann-Whitney U test stops rejecting. Its lower end is the one-sided ``1 - alpha`` bound of the test,
  its upper end the bound of the opposite test, so the two ends make a ``1 - 2 alpha`` interval (the default alpha is
  ``roofline.core.thresholds.ALPHA``);
* **the test**: ``scipy.stats.mannwhitneyu`` on the log durations, NEW shifted down by log(factor), one-sided
  (NEW slower), its normal approximation with tie and continuity corrections. "Slower by more than the factor"
  is accepted when p < alpha, which is exactly when the interval's lower end clears the factor.

Durations are compared on a log scale: a change is a ratio, and the model is that NEW's launches are BASE's
scaled by one factor. The launches of one side are taken as draws of one distribution: launches of one kernel
that do different work (other sizes) mix distributions, which the work check of the pair shows.

Hodges-Lehmann was chosen over a bootstrap of the medians: it is deterministic (no resampling, no seed), it is
the estimate that goes with the Mann-Whitney U test (its interval is the test inverted, so estimate, interval
and gate cannot disagree), and it behaves at the small launch counts profiles have, where a bootstrap of a median
is coarse. scipy.stats holds no Hodges-Lehmann estimator: the median and the ends are order statistics of the
pairwise log ratios, found here without building all n x m of them (bisection on the value, counting with
``numpy.searchsorted``). numpy and scipy are imported inside the functions.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import NormalDist
from typing import TYPE_CHECKING

from msgspec import Struct

from roofline.core.thresholds import ALPHA

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np
    from numpy.typing import NDArray

_BISECTIONS = 200  # a bound on the bisection; it stops at the precision below first
_PRECISION = 1e-12  # of a log ratio: the ratio to 12 significant digits


class Change(Struct, frozen=True):
    """NEW over BASE of a kernel's launch times: the median pairwise ratio and its ``1 - 2 alpha`` interval.
    ``untested`` says why there is no interval (one launch per side, or too few to reach alpha): the ratio is
    then a single comparison, not tested against the noise."""

    ratio: float
    low: float | None
    high: float | None
    alpha: float
    base_n: int
    new_n: int
    pct: float  # the ratio as a percent change (``change_pct``): negative = faster
    low_pct: float | None  # the interval's ends as percent changes
    high_pct: float | None
    confidence: float  # the interval's two-sided confidence, 1 - 2 alpha
    untested: str = ""

    def scaled(self, factor: float) -> Change:
        """The same change with every ratio multiplied by ``factor`` (e.g. per unit of work)."""
        return change(self.ratio * factor, None if self.low is None else self.low * factor,
                      None if self.high is None else self.high * factor, self.alpha, self.base_n, self.new_n,
                      self.untested)

    def inverted(self) -> Change:
        """BASE over NEW (a speedup), the interval's ends swapped."""
        return change(1.0 / self.ratio, None if self.high is None else 1.0 / self.high,
                      None if self.low is None else 1.0 / self.low, self.alpha, self.base_n, self.new_n, self.untested)


def change_pct(ratio: float) -> float:
    """A ratio NEW / BASE as a percent change: 100 x (ratio - 1); negative = faster."""
    return 100.0 * (ratio - 1.0)


def change(ratio: float, low: float | None, high: float | None, alpha: float, base_n: int, new_n: int,
           untested: str = "") -> Change:
    """A ``Change`` with its percent figures."""
    return Change(ratio, low, high, alpha, base_n, new_n, change_pct(ratio),
                  None if low is None else change_pct(low), None if high is None else change_pct(high),
                  1.0 - 2.0 * alpha, untested)


def compare_times(base: Sequence[float], new: Sequence[float], alpha: float = ALPHA) -> Change:
    """The change of NEW's launch times over BASE's (both non-empty, positive)."""
    import numpy as np

    x, y = (np.sort(np.log(np.asarray(times, dtype=float))) for times in (base, new))
    n, m = len(x), len(y)
    pairs = n * m
    lower = _kth(x, y, (pairs + 1) // 2)
    middle = lower if pairs % 2 else (lower + _kth(x, y, pairs // 2 + 1)) / 2.0
    untested = _why_untested(n, m, alpha, x, y)
    if untested:
        return change(math.exp(middle), None, None, alpha, n, m, untested)
    rank = pairs - _critical_u(n, m, alpha, x, y) + 1  # the lower end's rank; the upper end's is symmetric
    low, high = _kth(x, y, rank), _kth(x, y, pairs + 1 - rank)
    return change(math.exp(middle), math.exp(low), math.exp(high), alpha, n, m)


def slower_p_value(base: Sequence[float], new: Sequence[float], factor: float) -> float:
    """One-sided Mann-Whitney U p-value of "NEW's times are more than ``factor`` x BASE's" (scipy.stats)."""
    import numpy as np
    from scipy.stats import mannwhitneyu

    x, y = np.log(np.asarray(base, dtype=float)), np.log(np.asarray(new, dtype=float)) - math.log(factor)
    return float(mannwhitneyu(y, x, alternative="greater", method="asymptotic").pvalue)


def _why_untested(n: int, m: int, alpha: float, x: NDArray[np.float64], y: NDArray[np.float64]) -> str:
    """Why the launches cannot be tested at ``alpha`` ("" when they can)."""
    if n == 1 and m == 1:
        return "untested for noise: one launch per side"
    if _critical_u(n, m, alpha, x, y) > n * m:
        return (f"untested for noise: {n} and {m} launches cannot reach alpha {alpha:g} (even complete separation "
                "of the two sides would not be significant)")
    return ""


def _critical_u(n: int, m: int, alpha: float, x: NDArray[np.float64], y: NDArray[np.float64]) -> int:
    """The smallest U that the one-sided test rejects at ``alpha``: U > nm/2 + 0.5 + z sigma, with scipy's tie
    correction for the ties within each side (ties across the sides happen only at a pairwise difference)."""
    import numpy as np

    ties = sum(float(np.sum(c.astype(float) ** 3 - c)) for c in (np.unique(x, return_counts=True)[1],
                                                                 np.unique(y, return_counts=True)[1]))
    total = n + m
    sigma = math.sqrt(n * m / 12.0 * ((total + 1) - ties / (total * (total - 1))))
    bound = n * m / 2.0 + 0.5 + NormalDist().inv_cdf(1.0 - alpha) * sigma
    return math.floor(bound) + 1


def _kth(x: NDArray[np.float64], y: NDArray[np.float64], k: int) -> float:
    """The k-th smallest (1-based) of y_j - x_i over all pairs; ``x`` sorted. Bisection on the value: the count of
    differences at most v is the sum over j of the x_i >= y_j - v. A sorted ``y`` gives the same counts 3 to 4 times
    faster on large kernels (the searches walk ``x`` in order)."""
    import numpy as np

    n = len(x)
    lo, hi = float(y.min() - x[-1]), float(y.max() - x[0])
    if k <= 1:
        return lo
    for _ in range(_BISECTIONS):
        mid = lo + (hi - lo) / 2.0
        if hi - lo <= _PRECISION * max(1.0, abs(hi)) or not lo < mid < hi:
            break
        count = int(n * len(y) - np.searchsorted(x, y - mid, side="left").sum())
        if count >= k:
            hi = mid
        else:
            lo = mid
    return hi
