"""The shipped synthetic example: roofline must recover the analytic work it was built from.

These run without ../shared: the example is a report model in plain `--metrics` counter form, so they
check the plain-counter path of the formulas against 2MNK and bytes-moved arithmetic done here.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import roofline
from roofline.analysis.roofline import analyze_report

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "h100-sxm_synthetic.roofline.json"
N = 4096
TRIAD_N = 2**28
SM_CLOCK = 1.755e9
SMS = 132


@pytest.fixture(scope="module")
def result():
    return analyze_report(roofline.load(EXAMPLE))


def by_name(result, name):
    return next(k for k in result.launches if k.launch.name == name)


def test_example_is_labelled_synthetic():
    report = roofline.load(EXAMPLE)
    assert report.source == "model"
    assert "SYNTHETIC" in report.label


def test_fp32_gemm_flops_equal_2mnk(result):
    k = by_name(result, "sgemm_fp32_4096")
    assert k.flops["fp32"].value == 2 * N**3
    assert k.flops["tensor"].value == 0.0
    assert k.main_precision == "fp32"


def test_bf16_gemm_tensor_flops_equal_2mnk_and_use_dense_peak(result):
    k = by_name(result, "gemm_bf16_tensor_4096")
    assert k.flops["tensor"].value == 2 * N**3
    assert k.tensor_flops_by_type == {"bf16": 2 * N**3}
    # the model holds both the sparse aggregate peak (8192/SM/clk) and the dense op-level one (4096)
    assert k.ceilings["measured-clock"].flop_per_s["tensor"] == pytest.approx(4096 * SMS * SM_CLOCK)
    assert k.ceilings["measured-clock"].tensor_dtype == "bf16"


def test_triad_bytes_and_intensity(result):
    k = by_name(result, "triad_fp32")
    moved = 3 * 4 * TRIAD_N
    assert k.bytes["dram"].value == moved
    assert k.flops["fp32"].value == 2 * TRIAD_N  # one FFMA per element
    assert k.intensity["dram"].value == pytest.approx(2 * TRIAD_N / moved)
    assert k.roof.limiter == "dram"
    # the model holds no SpeedOfLight throughputs: a roofline-only verdict, labelled as such
    assert (k.verdict.bound, k.verdict.basis) == ("memory", "roofline")


@pytest.mark.parametrize("name, efficiency", [("sgemm_fp32_4096", 70.0), ("gemm_bf16_tensor_4096", 65.0),
                                              ("triad_fp32", 90.0)])
def test_percent_of_roof_recovers_the_assumed_efficiency(result, name, efficiency):
    assert by_name(result, name).roof.pct_of_roof == pytest.approx(efficiency, rel=1e-9)


def test_example_file_matches_its_generator():
    import runpy

    module = runpy.run_path(str(EXAMPLE.with_name("make_synthetic_example.py")), run_name="not_main")
    assert json.loads(EXAMPLE.read_text()) == json.loads(json.dumps(module["model"]()))
