"""roofline.regression: the regression gate of `roofline diff` on synthetic models whose expected slowdowns and
roof drops are computed here from the numbers the models are built with (tests/synthetic.py)."""

from __future__ import annotations

import pytest

from roofline.analysis import analyze_report
from roofline.errors import RooflineError
from roofline.model import KernelLaunch
from roofline.pairing import pair_reports
from roofline.regression import Thresholds, judge
from tests.synthetic import OLD_GPU, launch, model, names_model, peak_fp32


# --- Regression gate (synthetic) ------------------------------------------------------------------------
def test_diff_flags_kernels_slower_or_further_from_their_roof_than_the_thresholds():
    base = model("base.json", [launch(0, "a", 1.0e-3, 1e9, 1e7, OLD_GPU), launch(1, "b", 1.0e-3, 1e9, 1e7, OLD_GPU)])
    new = model("new.json", [launch(0, "a", 1.2e-3, 1e9, 1e7, OLD_GPU), launch(1, "b", 1.04e-3, 1e9, 1e7, OLD_GPU)])
    comparison = pair_reports([analyze_report(base), analyze_report(new)])
    result = judge(comparison, Thresholds(slower_pct=10.0))
    assert result.exit_code == 1 and [v.pair.key for v in result.regressions] == ["a"]
    verdict = {v.pair.key: v for v in result.verdicts}
    assert verdict["a"].slowdown_pct.value == pytest.approx(20.0, rel=1e-6)
    assert verdict["b"].slowdown_pct.value == pytest.approx(4.0, rel=1e-6)
    pct = [100 * 2e9 / peak_fp32(OLD_GPU) / t for t in (1.0e-3, 1.2e-3)]  # compute-limited: FLOPs / peak / time
    assert verdict["a"].roof_drop_pct.value == pytest.approx(pct[0] - pct[1], rel=1e-6)
    assert judge(comparison, Thresholds(slower_pct=25.0)).exit_code == 0
    assert [v.pair.key for v in judge(comparison, Thresholds(roof_drop_pct=5.0)).regressions] == ["a"]  # b: 3.8 points


def test_diff_refuses_reports_without_a_shared_kernel_or_a_gate_it_cannot_check():
    base, new = (analyze_report(names_model(p, [(n, "")])) for p, n in (("b.json", "x"), ("n.json", "y")))
    with pytest.raises(RooflineError, match="no kernel in common"):
        judge(pair_reports([base, new]), Thresholds(slower_pct=1.0))
    timeless = KernelLaunch(range_index=0, action_index=0, name="x", metrics={"gpu__time_duration.sum": 1000.0})
    bare = analyze_report(model("t.json", [timeless]))
    with pytest.raises(RooflineError, match="--fail-if-roof-drop cannot be checked"):
        judge(pair_reports([bare, bare]), Thresholds(roof_drop_pct=5.0))
