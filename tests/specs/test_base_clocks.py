"""Each base_clock_hz of device_specs/ (the SM clock ncu locks while profiling) is the clock ncu measured in the
real report its source cites: the median SM (or GPC) clock over the report's launches of 20 us or more (all of them
where none is that long), read here with ncu_report."""

from __future__ import annotations

import statistics

import pytest
import yaml

from tests.synthetic import REPO

CITED = {  # spec id -> the shared report its base_clock_hz cites
    "h100-pcie": "h100-pcie_rmsnorm-float4_full-roofline", "gh200": "gh200_silu_full-roofline",
    "h800": "h800_flash-attn-fwd_full", "a100-pcie-80gb": "a100-80gb_cutlass-gemm_full",
    "a100-pcie-40gb": "a100-40gb_cublas-sgemm_basic", "v100-sxm2": "v100_miniweather-openacc_full",
    "a10g": "a10g_sgemm-blocktiling_roofline",
    "a10": "a10_linear-fp16-105launches_basic", "a40": "a40_julia-fp16x2_full",
    "gtx-1660-super": "gtx1660super_sgemm-naive_full", "rtx-3060-laptop": "rtx3060-laptop_reductions_full",
    "rtx-3070": "rtx3070_scan_full_ncu2020.3", "rtx-3080": "rtx3080_sgemm-vs-cublas_full",
    "rtx-4070-ti": "rtx4070ti_pytorch-sim_full", "rtx-5060-ti": "rtx5060ti_transpose_basic",
    "rtx-2070-super": "rtx2070super_alife-143launches_basic", "rtx-2080-ti": "rtx2080ti_kernels_basic",
}
LONG_NS = 20e3


@pytest.mark.parametrize("spec_id", sorted(CITED))
def test_base_clock_is_the_clock_ncu_measured_in_the_cited_report(spec_id, raw_actions):
    spec = yaml.safe_load((REPO / "device_specs" / f"{spec_id}.yaml").read_text())
    assert CITED[spec_id] in spec["base_clock_hz"]["source"]
    timed = [(a["gpu__time_duration.sum"], a.value("sm__cycles_elapsed.avg.per_second")
              or a.value("gpc__cycles_elapsed.avg.per_second")) for a in raw_actions(CITED[spec_id])
             if a.has("gpu__time_duration.sum")]
    clocks = [c for d, c in timed if c and d >= LONG_NS] or [c for _, c in timed if c]
    assert spec["base_clock_hz"]["value"] == pytest.approx(statistics.median(clocks), rel=0.002)
    assert spec["base_clock_hz"]["value"] <= spec["boost_clock_hz"]["value"]


def test_the_t4s_base_clock_is_the_boards_not_its_one_throttled_report(raw_actions):
    """The one T4 report ran at 541 MHz, under the board's 585 MHz base clock (a 70 W board held down by power or
    heat): a base clock taken from it called that run "locked to base". The spec gives the board's base clock and
    says that the report ran below it."""
    spec = yaml.safe_load((REPO / "device_specs" / "t4.yaml").read_text())
    assert spec["base_clock_hz"]["value"] == 585e6 and "585 MHz" in spec["base_clock_hz"]["source"]
    (launch,) = raw_actions("t4_matrix-add-2d_full")
    assert launch["sm__cycles_elapsed.avg.per_second"] < 0.97 * spec["base_clock_hz"]["value"]
