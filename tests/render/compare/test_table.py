"""The terminal tables of ``compare`` (``render.compare.table``): what each n/a in them stands for is said under
them."""

from __future__ import annotations

from roofline.compare.pairing import pair_reports
from roofline.pipeline import analyze_files
from roofline.render.compare.table import comparison_text, expectation_lines
from tests.conftest import REPO


def test_every_expected_speedup_left_out_is_explained_under_the_table():
    """The FP32 cuBLAS GEMM on the H100 and the H200 is instruction-bound on both: no roof sets its time, so there
    is no expected speedup, and the line under the table says why (it said nothing where the cause was not one of
    the verdicts)."""
    examples = REPO / "examples"
    c = pair_reports(analyze_files([examples / "h100" / "torch-fp32.roofline.json",
                                    examples / "h200" / "torch-fp32.roofline.json"]))
    (pair,) = c.pairs
    expected = pair.expected_speedup[1]
    assert expected.value is None and expected.reason
    (line,) = expectation_lines(c, 1)
    assert line.endswith(f": {expected.reason}") and "(instructions)" in line
    assert expected.reason in " ".join(comparison_text(c, width=200).split())
