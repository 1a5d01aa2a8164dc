"""The defaults of comparisons and of the regression gate, in one place: the work tolerance, the noise statistics'
alpha, and diff's thresholds. Kept free of imports, so the command line shows them in its help without loading the
analysis (``roofline.analysis.work``, ``roofline.compare.noise`` and ``roofline.compare.regression`` use them)."""

from __future__ import annotations

WORK_TOLERANCE = 0.05  # --work-tolerance 5: FLOPs (or threads) differing more make a pair "different work"
ALPHA = 0.01  # --alpha: the Mann-Whitney U test's level; intervals are 1 - 2 alpha
SLOWER_PCT = 10.0  # --fail-if-slower: a kernel slower by more than this fails
MIN_SHARE_PCT = 1.0  # --min-share: kernels with less of BASE's and NEW's time are not gated on their own
TOTAL_SLOWER_PCT = 5.0  # --fail-if-total-slower: the gated kernels together slower by more than this fail
RANK_OUTLIER_PCT = 10.0  # timeline: an MPI rank whose GPU busy time is this far from the ranks' median is an outlier
TIME_RATIO_FLAG = 2.0  # summary --nsys: ncu's time per launch this many times nsys's median (or 1/this): named
L2_RATIO_FLAG = 1.5  # timeline --work: L2 sizes this many times apart: the DRAM bytes ncu measured may not carry over
