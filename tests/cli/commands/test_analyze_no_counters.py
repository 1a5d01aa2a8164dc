"""`roofline analyze` where ncu is refused the counters: the fallback offered after the error line, `--fallback
nsys`, and `--no-counters` (the application under the stand-in nsys, tests/fake_nsys), with and without
`--work-from`: the shipped pair (examples/nsys/h100-examples.sqlite and the examples/h100 reports)."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from roofline.cli.app import app
from roofline.specs.catalog import load_catalog
from tests.fake_ncu import fakencu
from tests.fake_nsys import fakensys
from tests.nsys import independent

REPO = Path(__file__).resolve().parents[3]
EXPORT = REPO / "examples" / "nsys" / "h100-examples.sqlite"
H100 = REPO / "examples" / "h100"
APP_SOURCE = "print('app ran')\n"


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "app.py").write_text(APP_SOURCE)
    return tmp_path


def invoke(*args: object) -> Result:
    return CliRunner().invoke(app, ["analyze", *map(str, args)])


def nsys_argv(fake: fakensys.FakeNsys, base: str = "app") -> list[str]:
    return [fake.path, "profile", "--trace", "cuda", "--sample", "none", "--cpuctxsw", "none", "--export", "sqlite",
            "--force-overwrite", "false", "--output", base, sys.executable, "app.py"]


def test_a_refusal_says_the_cause_the_fix_and_the_fallback(work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fakencu.install(monkeypatch, work, "perm")
    fake = fakensys.install(monkeypatch, work, EXPORT)
    result = invoke("app.py", "--size", "8")
    assert result.exit_code == 3, result.output
    lines = result.stderr.splitlines()
    error = next(i for i, line in enumerate(lines) if line.startswith("roofline: error:"))
    assert "(ERR_NVGPUCTRPERM): run as root" in lines[error]
    assert lines[error + 1].startswith("roofline: without counters, nsys still times every kernel")
    assert lines[error + 1].endswith(": roofline analyze --no-counters -- app.py --size 8")
    assert fake.argvs() == []  # offered, not run


def test_fallback_nsys_runs_it_and_keeps_the_exit_code(work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fakencu.install(monkeypatch, work, "perm")
    fake = fakensys.install(monkeypatch, work, EXPORT)
    result = invoke("--fallback", "nsys", "app.py")
    assert result.exit_code == 3, result.output
    assert fake.argvs() == [nsys_argv(fake)]
    assert "1  sgemm_tiled" in result.stdout and (work / "app.sqlite").is_file()


def test_no_counters_ranks_the_kernels_as_timeline_does(work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = fakensys.install(monkeypatch, work, EXPORT)
    result = invoke("--no-counters", "--format", "json", "app.py")
    assert result.exit_code == 0, result.output
    assert fake.argvs() == [nsys_argv(fake)]
    doc = json.loads(result.stdout)
    [t] = doc["timelines"]
    expected = independent.per_kernel(work / "app.sqlite")
    independent.assert_same({k["name"]: (k["count"], k["total_s"], k["median_s"]) for k in t["kernels"]},
                            {n: (e["count"], e["total_s"], e["median_s"]) for n, e in expected.items()})


def test_no_counters_dry_run_prints_the_nsys_command(work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = fakensys.install(monkeypatch, work, EXPORT)
    result = invoke("--no-counters", "--dry-run", "-o", "out/run1", "app.py")
    assert result.exit_code == 0, result.output
    assert shlex.split(result.stdout.splitlines()[-1]) == nsys_argv(fake, "out/run1")
    assert fake.argvs() == []


def test_no_counters_dry_run_names_an_nsys_that_is_not_here_and_warns(work: Path) -> None:
    """The command may be meant for another node: printed as given, with a warning, as for an ncu not here."""
    result = invoke("--no-counters", "--dry-run", "--nsys", "/opt/elsewhere/nsys", "app.py")
    assert result.exit_code == 0, result.output
    assert shlex.split(result.stdout.splitlines()[-1])[:2] == ["/opt/elsewhere/nsys", "profile"]
    assert result.stderr == ("roofline: warning: /opt/elsewhere/nsys: not an executable nsys here; the command names "
                             "it as given\n")


def test_no_counters_dry_run_without_nsys_prints_plain_nsys(work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from roofline.nsys import export

    monkeypatch.setenv("PATH", str(work))
    monkeypatch.delenv(export.ENV_VAR, raising=False)
    monkeypatch.setattr(export, "INSTALL_GLOBS", ())
    result = invoke("--no-counters", "--dry-run", "app.py")
    assert result.exit_code == 0, result.output
    assert shlex.split(result.stdout.splitlines()[-1]) == [
        "nsys", "profile", "--trace", "cuda", "--sample", "none", "--cpuctxsw", "none", "--export", "sqlite",
        "--force-overwrite", "false", "--output", "app", sys.executable, "app.py"]
    assert result.stderr == ""


def test_no_counters_refuses_to_overwrite_a_profile(work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = fakensys.install(monkeypatch, work, EXPORT)
    (work / "app.sqlite").write_text("mine")
    result = invoke("--no-counters", "app.py")
    assert result.exit_code != 0
    assert "roofline: error: app.sqlite already exists: pass --force" in result.stderr
    assert fake.argvs() == [] and (work / "app.sqlite").read_text() == "mine"


def test_an_nsys_run_without_export_is_one_line(work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fakensys.install(monkeypatch, work, EXPORT, "noexport")
    result = invoke("--no-counters", "app.py")
    assert result.exit_code != 0 and "Traceback" not in result.output
    assert "roofline: error: nsys profile wrote no app.sqlite: export it yourself" in result.stderr


def test_work_from_places_every_kernel_of_the_shipped_pair(work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The shipped pair: each kernel of the export matched with its report; every figure traceable in the JSON:
    the time is the export's median launch of that configuration (plain SQL here), the FLOPs of the GEMMs are
    2 x 4096^3 by construction, FLOP/s = FLOPs / time, intensity = FLOPs / bytes, % of roof = FLOP/s / roof."""
    fakensys.install(monkeypatch, work, EXPORT)
    reports = sorted(H100.glob("*.roofline.*"))
    result = invoke("--no-counters", *[a for r in reports for a in ("--work-from", r)], "--format", "json",
                    "app.py")
    assert result.exit_code == 0, result.output
    w = json.loads(result.stdout)["work"]
    assert w["label"] == ("work measured by ncu on NVIDIA H100 80GB HBM3, time by nsys on NVIDIA H100 80GB HBM3")
    assert w["spec"] == "h100-sxm5" and w["unmatched_ncu"] == [] and w["unmatched_nsys"] == []
    assert len(w["kernels"]) == 9 and w["matched_share"] == pytest.approx(1.0)
    rows = independent.rows(work / "app.sqlite", 'SELECT s.value, k.gridX, k.gridY, k.gridZ, k.blockX, k.blockY, '
                            'k.blockZ, k."end" - k.start FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s '
                            "ON s.id = k.shortName")
    for k in w["kernels"]:
        own = sorted(d for n, *dims, d in rows if n == k["short_name"] and dims == k["grid"] + k["block"])
        assert k["time_s"] == pytest.approx((own[(len(own) - 1) // 2] + own[len(own) // 2]) / 2 * 1e-9, rel=1e-12)
        assert k["flop_per_s"] == pytest.approx(k["total_flops"] / k["time_s"], rel=1e-12)
        assert k["intensity"]["dram"] == pytest.approx(k["total_flops"] / k["bytes"]["dram"], rel=1e-12)
        assert k["pct_of_roof"] == pytest.approx(k["flop_per_s"] / k["attainable_flop_per_s"] * 100, rel=1e-12)
        # the roof time is at least the main precision's FLOPs over its roof (other precisions run beside it)
        main = k["flops"][k["precision"]]
        assert k["attainable_flop_per_s"] <= k["compute_roof_flop_per_s"] * k["total_flops"] / main * (1 + 1e-12)
        if "xmma_gemm" in k["name"] or k["short_name"].startswith("nvjet"):  # cuBLAS's GEMMs count 2 x 4096^3
            assert k["total_flops"] == pytest.approx(2 * 4096**3, rel=0.01)
    peaks = load_catalog().get("h100-sxm5").peaks
    for k in w["kernels"]:
        key = f"tensor_{k['tensor_dtype']}" if k["precision"] == "tensor" else k["precision"]
        assert k["compute_roof_flop_per_s"] == peaks[key], k["name"]


def test_work_from_without_no_counters_is_refused(work: Path) -> None:
    result = invoke("--work-from", H100 / "torch-bf16.roofline.ncu-rep", "app.py")
    assert result.exit_code == 2 and "--work-from without --no-counters" in result.stderr


def test_the_offered_fallback_keeps_the_report_name_the_fallback_writes(work: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """With -o p2, --fallback nsys writes p2.*: the line offered to copy says -o p2 too (it wrote app.* instead)."""
    fakencu.install(monkeypatch, work, "perm")
    fake = fakensys.install(monkeypatch, work, EXPORT)
    result = invoke("-o", "p2", "app.py")
    assert result.exit_code == 3, result.output
    offered = next(line for line in result.stderr.splitlines() if "nsys still times every kernel" in line)
    assert offered.endswith(": roofline analyze --no-counters -o p2 -- app.py") and fake.argvs() == []


def test_no_counters_keeps_the_applications_output_off_standard_output(
        work: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]) -> None:
    """`--no-counters --format json > x.json` began with the app's and nsys's own lines: the JSON did not load."""
    fakensys.install(monkeypatch, work, EXPORT)
    result = invoke("--no-counters", "--format", "json", "app.py")
    assert result.exit_code == 0, result.output
    json.loads(result.stdout)
    out, err = capfd.readouterr()
    assert "app ran" not in out and "app ran" in err


def test_the_offered_fallback_runs_as_written_whatever_the_apps_arguments(work: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """The line offered dropped the user's --: with app arguments like --dry-run, copied, it was refused."""
    fakencu.install(monkeypatch, work, "perm")
    fake = fakensys.install(monkeypatch, work, EXPORT)
    (work / "app.py").write_text("import json, sys\njson.dump(sys.argv[1:], open('app.args', 'w'))\n")
    result = invoke("-o", "p4", "--", "app.py", "--dry-run", "-k", "3")
    assert result.exit_code == 3, result.output
    offered = next(line for line in result.stderr.splitlines() if "nsys still times every kernel" in line)
    command = shlex.split(offered.split("): ", 1)[1])
    assert command == ["roofline", "analyze", "--no-counters", "-o", "p4", "--", "app.py", "--dry-run", "-k", "3"]
    rerun = invoke(*command[2:])
    assert rerun.exit_code == 0, rerun.output
    assert "warning" not in rerun.stderr and json.loads((work / "app.args").read_text()) == ["--dry-run", "-k", "3"]
    assert fake.argvs()[0][-4:] == ["app.py", "--dry-run", "-k", "3"]


def test_dry_run_after_app_under_no_counters_says_nsys_would_run(work: Path) -> None:
    result = invoke("--no-counters", "app.py", "--dry-run")
    assert result.exit_code == 2
    assert ("roofline: error: --dry-run after APP (app.py) would go to the application and nsys would run: move "
            "--dry-run before APP") in result.stderr


def test_timeout_without_work_from_is_refused_under_no_counters(work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """--timeout bounds the reading of reports: under --no-counters only --work-from's are read."""
    fake = fakensys.install(monkeypatch, work, EXPORT)
    result = invoke("--no-counters", "--timeout", "5", "app.py")
    assert result.exit_code == 2
    assert result.stderr == ("roofline: error: --timeout: with --no-counters --timeout bounds only the reading of "
                             "--work-from's reports (nsys's run has no limit): add --work-from X.ncu-rep, or leave "
                             "out --timeout\n")
    assert fake.argvs() == []


def test_timeout_bounds_the_reading_of_the_work_from_reports(work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from roofline.cli import workflow

    fakensys.install(monkeypatch, work, EXPORT)
    asked = []
    original = workflow.facade

    def recording(options, jobs=1):
        asked.append(options.time_limit_s)
        return original(options, jobs)

    monkeypatch.setattr(workflow, "facade", recording)
    report = H100 / "torch-bf16.roofline.ncu-rep"
    result = invoke("--no-counters", "--work-from", report, "--timeout", "600", "--format", "json", "app.py")
    assert result.exit_code == 0, result.output
    assert asked[-1] == 600


def test_fallback_nsys_runs_the_application_without_a_time_limit(work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """--timeout 0.5 under --fallback nsys stopped nsys after 0.5 s (not its application: it went on running)."""
    fakencu.install(monkeypatch, work, "perm")
    fakensys.install(monkeypatch, work, EXPORT)
    (work / "app.py").write_text("import time\ntime.sleep(1)\nprint('app ran')\n")
    result = invoke("--fallback", "nsys", "--timeout", "0.5", "app.py")
    assert result.exit_code == 3, result.output
    assert "past the" not in result.stderr and "1  sgemm_tiled" in result.stdout
