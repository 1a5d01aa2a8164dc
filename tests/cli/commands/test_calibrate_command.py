"""`roofline calibrate` through the CLI: on this machine (no GPU) it fails in one line; with the benchmark runs
replaced by a real H100 calibration's results (tests/data/calibration) it writes a file the analysis reads, and
never over an existing one."""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from msgspec.structs import replace
from typer.testing import CliRunner

import roofline
from roofline.cli.app import app
from roofline.cli.commands import calibrate as command
from roofline.errors import SpecError
from roofline.pipeline import AnalysisOptions, analyze_loaded
from roofline.specs import calibration
from roofline.specs.catalog import SpecCatalog, load_catalog

ROOT = Path(__file__).resolve().parents[3]
DATA = ROOT / "tests" / "data" / "calibration"
runner = CliRunner()


def has_gpu_library() -> bool:
    probe = ("import roofline.specs.microbench as m; "
             "raise SystemExit(m._import('cupy') is None and m._import('torch') is None)")
    return subprocess.run([sys.executable, "-c", probe], check=False, capture_output=True).returncode == 0


@pytest.fixture
def h100_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    """The two benchmark runs answer with what they measured on an H100 SXM5."""
    default = json.loads((DATA / "h100-default.json").read_text())
    launches = list(roofline.load(DATA / "h100-ncu.roofline.json").launches)
    monkeypatch.setattr(command, "_run_benchmarks", lambda out, reps: default)
    monkeypatch.setattr(command, "_find_ncu", lambda ncu: object())
    monkeypatch.setattr(command, "_run_under_ncu", lambda tmp, install: (launches, "ncu 2025.3.1.0"))


def test_without_a_gpu_it_fails_in_one_line_with_the_fix(tmp_path: Path) -> None:
    if has_gpu_library():
        pytest.skip("CuPy or PyTorch sees a GPU here: this test checks the message on a machine without one")
    out = tmp_path / "gpu.yaml"
    # --no-ncu: the GPU check alone, whether or not ncu is installed (without it, ncu's absence is said first)
    done = subprocess.run([sys.executable, "-m", "roofline", "calibrate", "--no-ncu", "--output", str(out)],
                          capture_output=True, text=True, check=False, cwd=tmp_path)
    errors = [line for line in done.stderr.splitlines() if line.startswith("roofline: error:")]
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert len(errors) == 1 and "the microbenchmarks failed: roofline calibrate needs CuPy or PyTorch" in errors[0]
    assert "run on a machine with an NVIDIA GPU" in errors[0] and not out.exists()


def test_writes_a_calibration_the_analysis_uses(tmp_path: Path, h100_runs: None) -> None:
    out = tmp_path / "h100.yaml"
    result = runner.invoke(app, ["calibrate", "--output", str(out)])
    assert result.exit_code == 0, result.output
    data = yaml.safe_load(out.read_text())
    assert data["id"] == "h100-sxm5" and data["measured"]["device"] == "NVIDIA H100 80GB HBM3"
    assert "ncu 2025.3.1.0" in data["measured"]["software"]
    assert set(data["measured"]["roofs"]) == set(calibration.ROOFS)
    cal = calibration.parse(data, str(out))
    assert cal.roofs["fp32"].ncu is not None and cal.roofs["fp32"].default is not None
    assert "Calibrated roofs: NVIDIA H100 80GB HBM3" in result.output and f"wrote {out}" in result.output
    report = runner.invoke(app, ["report", str(ROOT / "examples/h100/torch-bf16.roofline.ncu-rep"), "--specs",
                                 str(out), "--ceilings", "calibrated", "--format", "json"])
    assert report.exit_code == 0, report.output
    kernel = json.loads(report.stdout)["reports"][0]["kernels"][0]
    assert kernel["ceilings_used"] == "calibrated"
    assert kernel["ceilings"]["calibrated"]["tensor_flop_per_s"] == calibration.measured_ceilings(cal, "bf16").roof(
        "tensor")


def test_never_overwrites_without_force(tmp_path: Path, h100_runs: None) -> None:
    out = tmp_path / "h100.yaml"
    assert runner.invoke(app, ["calibrate", "--output", str(out)]).exit_code == 0
    mine = out.read_text()
    refused = runner.invoke(app, ["calibrate", "--output", str(out)])
    assert refused.exit_code == 2 and "exists" in refused.output and out.read_text() == mine
    assert runner.invoke(app, ["calibrate", "--output", str(out), "--force"]).exit_code == 0
    assert yaml.safe_load(out.read_text())["id"] == "h100-sxm5"


def test_force_never_replaces_a_file_roofline_did_not_write(tmp_path: Path, h100_runs: None) -> None:
    """The file goes through the one output writer, which keeps its promise even under --force."""
    out = tmp_path / "h100.yaml"
    out.write_text("mine")
    refused = runner.invoke(app, ["calibrate", "--output", str(out), "--force"])
    assert refused.exit_code == 2 and out.read_text() == "mine" and "Traceback" not in refused.output


def test_the_table_gives_each_roof_and_its_ratio_to_the_datasheet(h100_runs: None, tmp_path: Path) -> None:
    """The DRAM row: the median of the copy's bytes over each launch's ncu duration, and that over the H100 SXM5
    datasheet's 3.35 TB/s, computed here from the fixtures."""
    default = json.loads((DATA / "h100-default.json").read_text())
    work = next(b["work"] for b in default["benchmarks"] if b["name"] == "dram")
    launches = roofline.load(DATA / "h100-ncu.roofline.json").launches
    times = [float(k.metrics["gpu__time_duration.sum"] or 0) * 1e-9 for k in launches
             if k.nvtx_ranges == ("roofline_dram",)]
    rate = statistics.median(work / t for t in times)
    result = runner.invoke(app, ["calibrate", "--output", str(tmp_path / "x.yaml")], env={"COLUMNS": "200"})
    row = next(line for line in result.output.splitlines() if line.startswith("dram "))
    assert f"{rate / 1e12:.3g} TB/s" in row and f" {rate / 3.35e12:.2f} " in row


def test_no_ncu_keeps_default_clock_rates_with_the_reason(tmp_path: Path, h100_runs: None) -> None:
    out = tmp_path / "h100.yaml"
    assert runner.invoke(app, ["calibrate", "--output", str(out), "--no-ncu"]).exit_code == 0
    roofs = yaml.safe_load(out.read_text())["measured"]["roofs"]
    assert all("ncu" not in r and "default" in r and r["missing"] == "ncu not run (--no-ncu)" for r in roofs.values())


def test_ceilings_measured_without_a_calibration_says_how_to_make_one() -> None:
    """The synthetic example's GPU (H100 SXM5) with its spec but without the shipped calibration."""
    spec = replace(load_catalog().get("h100-sxm5"), measured=None)
    report = roofline.load(ROOT / "examples" / "h100-sxm_synthetic.roofline.json")
    with pytest.raises(SpecError, match="no calibrated ceilings for h100-sxm5") as err:
        analyze_loaded(report, AnalysisOptions(ceilings="calibrated"), catalog=SpecCatalog([spec]))
    assert "run 'roofline calibrate' on that GPU (it writes ID.calibration.yaml" in str(err.value)
    assert str(err.value).endswith("then pass it with --specs")


def test_a_missing_ncu_is_reported_before_the_benchmarks_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ran: list[str] = []
    monkeypatch.setattr(command, "_run_benchmarks", lambda out, reps: ran.append("benchmarks"))
    result = runner.invoke(app, ["calibrate", "--output", str(tmp_path / "x.yaml"), "--ncu",
                                 str(tmp_path / "no-ncu")])
    assert result.exit_code != 0 and not ran
    assert "not an executable file" in result.output and "or calibrate at default clocks only with --no-ncu" in \
        result.output
