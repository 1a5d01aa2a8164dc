"""A launch that claims more than a roof is flagged as a measurement problem, under either ceiling set."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from roofline.analysis.roofline import analyze_launch
from roofline.cli.app import app
from roofline.core.model import Device, KernelLaunch, Report

CLOCK = 1.0e9
DEVICE = Device(name="NVIDIA Test GPU", compute_capability="8.0", sm_count=100)


def launch(ffma_per_s: float, dram_per_s: float) -> KernelLaunch:
    """1 ms launch with plain counters, on a GPU whose FP32 roof is 2 x 6400 x 1 GHz = 12.8 TFLOP/s and
    whose DRAM roof is 1000 B/clk x 1 GHz = 1 TB/s."""
    seconds = 1e-3
    metrics = {
        "gpu__time_duration.sum": seconds * 1e9,
        "sm__cycles_elapsed.avg.per_second": CLOCK, "dram__cycles_elapsed.avg.per_second": CLOCK,
        "sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained": 6400,
        "dram__bytes.sum.peak_sustained": 1000,
        "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum": ffma_per_s * seconds,
        "dram__bytes.sum": dram_per_s * seconds,
    }
    return KernelLaunch(range_index=0, action_index=0, name="k", metrics=metrics)


def test_within_roofs_is_not_flagged():
    a = analyze_launch(launch(ffma_per_s=3.2e12, dram_per_s=0.5e12), DEVICE)
    assert a.roof.pct_of_roof == pytest.approx(50.0) and a.flags == ()


def test_fp32_above_its_roof_is_flagged_not_celebrated():
    a = analyze_launch(launch(ffma_per_s=8.0e12, dram_per_s=0.5e12), DEVICE)  # 16 TFLOP/s > 12.8
    assert a.roof.utilization_pct["fp32"] == pytest.approx(125.0)
    assert len(a.flags) == 1 and a.flags[0].startswith("fp32 at 125% of the measured-clock ceiling")
    assert "measurement or counting problem" in a.flags[0]


def test_dram_above_its_roof_is_flagged():
    a = analyze_launch(launch(ffma_per_s=1e9, dram_per_s=1.2e12), DEVICE)
    assert [f.split(" ")[0] for f in a.flags] == ["dram"]


def test_flag_reaches_json_and_table(tmp_path):
    report = Report(path="x.json", device=DEVICE, launches=(launch(8.0e12, 0.5e12),), source="model", label="test")
    path = tmp_path / "flagged.json"
    path.write_text(json.dumps(report.to_dict()))
    out = CliRunner().invoke(app, ["report", str(path), "--format", "json"])
    assert out.exit_code == 0
    assert json.loads(out.output)["reports"][0]["kernels"][0]["flags"][0].startswith("fp32 at 125%")
    table = CliRunner().invoke(app, ["report", str(path)])
    assert "Above a ceiling" in table.output and "FP32!" in table.output
