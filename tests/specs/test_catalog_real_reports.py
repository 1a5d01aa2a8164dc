"""Specs against the real reports in ../shared/ncu-reps: every GPU resolves, and the ceiling sets appear side
by side with values that agree with independent arithmetic."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from roofline.cli.app import app
from roofline.specs.catalog import load_catalog
from tests.conftest import find_shared_report, load_shared_report, shared_report_names


@pytest.mark.parametrize("name", shared_report_names())
def test_every_shared_gpu_resolves_to_a_spec_by_display_name(name):
    find_shared_report(name)
    device = load_shared_report(name).device
    match = load_catalog().match(device)
    assert match is not None, f"no spec for {device.name}"
    assert match.how.startswith("display name")
    assert match.spec.sm_count == device.sm_count
    assert match.spec.compute_capability == device.compute_capability


def test_side_by_side_ceilings_in_json_for_h100_pcie():
    path = find_shared_report("h100-pcie_rmsnorm-float4_full-roofline")
    args = ["report", str(path), "--format", "json", "--ceilings", "datasheet"]
    doc = json.loads(CliRunner().invoke(app, args).output)
    rep = doc["reports"][0]
    assert rep["device"]["spec_id"] == "h100-pcie" and rep["ceilings_used"] == "datasheet"
    k = rep["kernels"][0]
    spec = load_catalog().get("h100-pcie")
    assert k["ceilings"]["datasheet"]["fp32_flop_per_s"] == spec.peaks["fp32"]
    assert k["ceilings"]["datasheet"]["dram_bytes_per_s"] == spec.memory_bandwidth_bytes_per_s
    # measured-clock FP32 roof = 2 x ffma peak per cycle x SM clock, read independently
    launch = load_shared_report("h100-pcie_rmsnorm-float4_full-roofline").launches[0]
    ffma_peak = launch.value("sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained")
    clock = launch.value("sm__cycles_elapsed.avg.per_second")
    assert k["ceilings"]["measured-clock"]["fp32_flop_per_s"] == pytest.approx(2 * ffma_peak * clock)
    # percent of roof against the datasheet DRAM roof: bytes / duration / datasheet bandwidth
    expected = 100 * k["bytes_per_s"]["dram"] / spec.memory_bandwidth_bytes_per_s
    assert k["utilization_pct"]["dram"] == pytest.approx(expected)


def test_ceilings_option_switches_the_set_used():
    path = find_shared_report("a10g_sgemm-blocktiling_roofline")
    args = ["report", str(path), "-f", "json", "--ceilings", "measured-clock"]
    doc = json.loads(CliRunner().invoke(app, args).output)
    k = doc["reports"][0]["kernels"][0]
    assert k["ceilings_used"] == "measured-clock"
    assert k["utilization_pct"]["fp32"] == pytest.approx(
        100 * k["flop_per_s"]["fp32"] / k["ceilings"]["measured-clock"]["fp32_flop_per_s"])


def test_table_shows_both_sets_and_their_ratio():
    path = find_shared_report("h100-pcie_rmsnorm-float4_full-roofline")
    out = CliRunner().invoke(app, ["report", str(path)]).output
    assert "datasheet" in out and "kernel-clock" in out
    fp32_row = next(line for line in out.splitlines() if line.startswith("FP32"))
    assert fp32_row.split()[-1] == "0.62"  # 31.8 TFLOP/s at 1.09 GHz vs 51.2 TFLOP/s at 1.755 GHz


def test_unknown_gpu_with_datasheet_ceilings_is_a_one_line_error(tmp_path):
    from roofline.core.model import Device, KernelLaunch, Report

    rep = Report("x", Device(name="NVIDIA Mystery", compute_capability="9.9", sm_count=7),
                 (KernelLaunch(0, 0, "k", metrics={"gpu__time_duration.sum": 1000.0}),), source="model")
    path = tmp_path / "mystery.json"
    path.write_text(json.dumps(rep.to_dict()))
    result = CliRunner().invoke(app, ["report", str(path), "--ceilings", "datasheet"])
    assert result.exit_code == 2 and "no device spec matches 'NVIDIA Mystery'" in result.output
    auto = CliRunner().invoke(app, ["report", str(path)])
    assert auto.exit_code == 0 and "no device spec matches this GPU" in auto.output
