"""A comparison as a pandas DataFrame: one row per matched kernel, the columns of its entry in the compare JSON,
with numbers computed here from the synthetic GPUs' peaks and the launches' counters."""

from __future__ import annotations

import pytest

from roofline.analysis.roofline import analyze_report
from roofline.compare.pairing import pair_reports
from roofline.render.compare.json import comparison_dataframe
from tests.synthetic import COMPUTE_BOUND, NEW_GPU, OLD_GPU, REL, launch, model


def test_one_row_per_matched_kernel_with_each_reports_values():
    pytest.importorskip("pandas")
    old = model("old.json", [launch(0, "gemm", 5e-3, 2e9, 1e8, OLD_GPU, sol=COMPUTE_BOUND),
                             launch(1, "copy", 2e-3, 0.0, 4e8, OLD_GPU),
                             launch(2, "only_old", 1e-3, 1e6, 1e6, OLD_GPU)])
    new = model("new.json", [launch(0, "gemm", 1e-3, 2e9, 1e8, NEW_GPU, sol=COMPUTE_BOUND),
                             launch(1, "copy", 1e-3, 0.0, 4e8, NEW_GPU)])
    frame = comparison_dataframe(pair_reports([analyze_report(old), analyze_report(new)]))
    assert frame["label"].tolist() == ["gemm", "copy"]  # the base's longest first; only_old has no partner
    gemm = frame.set_index("label").loc["gemm"]
    assert gemm["sides.0.median_s"] == pytest.approx(5e-3, rel=REL)
    assert gemm["sides.1.median_s"] == pytest.approx(1e-3, rel=REL)
    assert gemm["speedup.1"] == pytest.approx(5.0, rel=REL)
    assert gemm["sides.1.flops.fp32"] == pytest.approx(4e9, rel=REL)  # 2e9 FFMA, two FLOPs each
    assert frame.attrs["units"]["sides.0.median_s"] == "s"
    assert "label" not in frame.attrs["units"]
