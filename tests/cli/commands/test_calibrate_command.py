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
from roofline.errors import RooflineError, SpecError
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


@pytest.fixture
def benchmarks_ran(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record each start of the benchmarks (stubbed: they must not start on a bad input)."""
    ran: list[str] = []

    def run(out: Path, reps: int) -> None:
        ran.append("benchmarks")
        raise RooflineError("the stand-in benchmarks ran", "nothing to fix")

    monkeypatch.setattr(command, "_run_benchmarks", run)
    return ran


def test_a_missing_spec_file_is_refused_before_the_benchmarks_run(tmp_path: Path, benchmarks_ran: list[str]) -> None:
    missing = tmp_path / "nonexistent"
    result = runner.invoke(app, ["calibrate", "--no-ncu", "--specs", str(missing), "-o", str(tmp_path / "x.yaml")])
    assert result.exit_code == 2 and benchmarks_ran == []
    assert f"{missing}: no such spec file or folder" in result.output and "Traceback" not in result.output


def test_force_never_replaces_a_foreign_file_and_says_so_before_the_benchmarks_run(
        tmp_path: Path, benchmarks_ran: list[str]) -> None:
    out = tmp_path / "existcal.yaml"
    out.write_text("mine")
    result = runner.invoke(app, ["calibrate", "--no-ncu", "--force", "-o", str(out)])
    assert result.exit_code == 2 and benchmarks_ran == [] and out.read_text() == "mine"
    [line] = [x for x in result.stderr.splitlines() if x.startswith("roofline: error:")]
    assert line == (f"roofline: error: {out}: exists and was not written by roofline; not replacing it (--force "
                    "replaces only a calibration file roofline wrote): choose another -o name")


def test_the_force_help_says_it_replaces_only_roofline_files() -> None:
    result = runner.invoke(app, ["calibrate", "--help"], env={"COLUMNS": "200", "NO_COLOR": "1"})
    assert "Replace an existing calibration file roofline wrote" in " ".join(result.output.split())


@pytest.mark.parametrize("args, message", [
    ([], "exists: choose another -o name, or add --force to replace it"),  # roofline's file, no --force
    (["--force"], None),  # roofline's file, replaced: the benchmarks run
])
def test_an_existing_calibration_file_is_judged_before_the_benchmarks_run(
        tmp_path: Path, benchmarks_ran: list[str], args: list[str], message: str | None) -> None:
    out = tmp_path / "cal.yaml"
    out.write_text("# generated by roofline 0.1.0\nid: x\n")
    result = runner.invoke(app, ["calibrate", "--no-ncu", "-o", str(out), *args])
    assert result.exit_code != 0 and out.read_text().startswith("# generated by roofline")
    if message is None:
        assert benchmarks_ran == ["benchmarks"] and "the stand-in benchmarks ran" in result.output
    else:
        assert benchmarks_ran == [] and message in result.output


@pytest.mark.parametrize("name", ["folder", "file/cal.yaml", "/dev/null"])
def test_an_output_that_cannot_be_written_is_refused_before_the_benchmarks_run(
        tmp_path: Path, benchmarks_ran: list[str], name: str) -> None:
    (tmp_path / "folder").mkdir()
    (tmp_path / "file").write_text("a file, not a folder")
    result = runner.invoke(app, ["calibrate", "--no-ncu", "-o", str(tmp_path / name)])
    assert result.exit_code == 2 and benchmarks_ran == [] and "Traceback" not in result.output


def test_a_read_only_folder_is_refused_before_the_benchmarks_run(tmp_path: Path, benchmarks_ran: list[str],
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(command.os, "access", lambda path, mode: False)  # as a folder this user may not write
    result = runner.invoke(app, ["calibrate", "--no-ncu", "-o", str(tmp_path / "new" / "cal.yaml")])
    assert result.exit_code == 2 and benchmarks_ran == []
    assert result.stderr == (f"roofline: error: {tmp_path / 'new' / 'cal.yaml'}: cannot write ({tmp_path}: permission "
                             "denied): choose a writable folder\n")


def test_a_taken_default_name_keeps_the_measurement_under_a_free_name(
        tmp_path: Path, h100_runs: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """The default name is known only once the GPU is (after the benchmarks): where it is another program's file,
    the calibration goes to the next free name, said on stderr, and that file is left alone."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "h100-sxm5.calibration.yaml").write_text("mine")
    result = runner.invoke(app, ["calibrate"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "h100-sxm5.calibration.yaml").read_text() == "mine"
    assert yaml.safe_load((tmp_path / "h100-sxm5.calibration-2.yaml").read_text())["id"] == "h100-sxm5"
    assert ("roofline: note: h100-sxm5.calibration.yaml: exists and was not written by roofline; not replacing it "
            "(--force replaces only a calibration file roofline wrote); writing h100-sxm5.calibration-2.yaml "
            "instead (choose the name with -o)") in result.stderr


def test_the_default_name_of_roofline_is_replaced_with_force(tmp_path: Path, h100_runs: None,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert runner.invoke(app, ["calibrate"]).exit_code == 0
    assert runner.invoke(app, ["calibrate", "--force"]).exit_code == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["h100-sxm5.calibration.yaml"]


def test_a_calibration_the_analysis_would_refuse_is_written_with_a_warning_saying_why(
        tmp_path: Path, h100_runs: None) -> None:
    """A spec of the GPU whose DRAM figure (1 TB/s) lies below what the benchmark measured (2.8 TB/s): the file is
    kept (minutes of benchmarks), and the run says at once the line the analysis would refuse it with, instead of
    the 'analyse with' hint."""
    spec = yaml.safe_load((ROOT / "device_specs" / "h100-sxm5.yaml").read_text())
    spec["memory"]["bandwidth_bytes_per_s"]["value"] = 1e12
    spec["memory"].pop("achievable_bandwidth_bytes_per_s", None)
    mine = tmp_path / "h100-slow.yaml"
    mine.write_text(yaml.safe_dump({**spec, "id": "h100-slow"}))
    out = tmp_path / "cal.yaml"
    result = runner.invoke(app, ["calibrate", "--specs", str(mine), "--output", str(out)])
    assert result.exit_code == 0, result.output
    assert out.exists() and yaml.safe_load(out.read_text())["id"] == "h100-slow"
    warnings = [line for line in result.stderr.splitlines() if line.startswith("roofline: warning:")]
    assert warnings and all(f"{out}: measured.roofs." in w for w in warnings)
    assert any("dram" in w and "the datasheet 1 TB/s of spec 'h100-slow'" in w for w in warnings)
    assert "analyse with --specs" not in result.stderr
    refused = runner.invoke(app, ["report", str(ROOT / "examples/h100/torch-bf16.roofline.ncu-rep"), "--specs",
                                  str(mine), "--specs", str(out)])
    assert refused.exit_code == 2 and warnings[0].removeprefix("roofline: warning: ") in refused.stderr
