"""`roofline analyze` with the stand-in ncu: the exact ncu argv, failures as one line + exit code, no overwrite."""

from __future__ import annotations

import json
import os
import shlex
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from roofline.cli.app import app
from roofline.cli.commands import analyze as analyze_cmd
from roofline.core import kernel_filter
from roofline.core.choices import NameBase
from roofline.ncu import driver
from tests.conftest import REPO
from tests.fake_ncu import fakencu

NASTY_ARGS = ["a b", "it's \"quoted\"", "x;y", "$(touch pwned)", "`id`", "--size", "-k", "*"]
APP_SOURCE = "import json, sys\njson.dump(sys.argv[1:], open(sys.argv[0] + '.args', 'w'))\nprint('app ran')\n"


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working folder with app.py (it records its own argv to app.py.args) as the current directory."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "app.py").write_text(APP_SOURCE)
    return tmp_path


@pytest.fixture
def analyses(monkeypatch: pytest.MonkeyPatch) -> list[tuple[list[Path], object, tuple[object, ...]]]:
    """Record the analysis step (report_files: paths, AnalysisOptions, then format, output and plot) instead of
    analysing (these tests check the driver side)."""
    calls: list[tuple[list[Path], object, tuple[object, ...]]] = []

    def record(paths, options, *out, **_) -> SimpleNamespace:
        calls.append((list(paths), options, out))
        return SimpleNamespace(analyses=())  # a report document without analyses

    monkeypatch.setattr(analyze_cmd, "report_files", record)
    return calls


def invoke(*args: str) -> Result:
    return CliRunner().invoke(app, ["analyze", *args])


def error_lines(result: Result) -> list[str]:
    return [line for line in result.stderr.splitlines() if line.startswith("roofline: error:")]


def expected_argv(ncu: str, *options: str, report: str = "app.ncu-rep", log: str = "app.ncu.log",
                  app_args: tuple[str, ...] = ()) -> list[str]:
    return [ncu, "--target-processes", "all", "--set", "roofline", *options, "--log-file", log, "-o", report,
            sys.executable, "app.py", *app_args]


def test_success_profiles_then_analyses(work: Path, monkeypatch: pytest.MonkeyPatch, analyses: list) -> None:
    fake = fakencu.install(monkeypatch, work)
    result = invoke("--format", "json", "--report-output", "a.json", "--ceilings", "measured-clock", "app.py")
    assert result.exit_code == 0, result.output
    assert fake.argvs() == [expected_argv(fake.path)]
    assert "-f" not in fake.argvs()[0]
    assert f"roofline: profiling with ncu 2022.3.0.0 at {fake.path} (found on PATH)" in result.stderr
    assert "app ran" in result.stderr and result.stdout == ""
    [(paths, options, (fmt, output, plot))] = analyses
    assert paths == [work / "app.ncu-rep"] and (work / "app.ncu-rep").is_file()
    assert (options.kernel, options.ceilings, fmt, output, plot) == ((), "measured-clock", "json", Path("a.json"), None)


def test_real_analysis_of_the_written_report(work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fakencu.install(monkeypatch, work)
    result = invoke("-k", "kernel_C", "--format", "json", "app.py")
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert "kernel_C" in json.dumps(document) and "kernel_A" not in json.dumps(document)


@pytest.mark.parametrize("option, name", [("--report-output", "notes.json"), ("--plot", "mine.png")])
def test_analysis_outputs_never_replace_a_foreign_file_and_are_refused_before_profiling(
        work: Path, monkeypatch: pytest.MonkeyPatch, option: str, name: str) -> None:
    fakencu.install(monkeypatch, work)
    (work / name).write_text("mine\n")
    result = invoke("--format", "json", option, name, "app.py")
    assert result.exit_code == 2 and "exists and was not written by roofline" in result.stderr
    assert (work / name).read_text() == "mine\n"
    assert not (work / "app.ncu-rep").exists() and "profiling with" not in result.stderr  # ncu never ran


@pytest.mark.parametrize("cli, ncu_options", [
    (["-k", "regex:gemm"], ["-k", "regex:gemm"]),
    (["-k", "ampere_sgemm"], ["-k", "regex:ampere_sgemm"]),
    (["-k", "exact:ampere_sgemm_128x64_nn"], ["-k", "ampere_sgemm_128x64_nn"]),
    (["-k", "ampere_sgemm", "-k", "exact:gemm", "--kernel", "regex:^sm90_.*f32"],
     ["-k", "regex:ampere_sgemm|^gemm$|(?:^sm90_.*f32)"]),
    (["--kernel", "void gemm<(int)128>(float *)", "--kernel-name-base", "demangled"],
     ["-k", r"regex:void gemm<\(int\)128>\(float \*\)", "--kernel-name-base", "demangled"]),
    (["--kernel-name-base", "function"], []),  # ncu's default is left out
    (["--section", "Occupancy", "--section", "LaunchStats"], ["--section", "Occupancy", "--section", "LaunchStats"]),
    (["--metrics", "dram__bytes.sum,lts__t_bytes.sum"], ["--metrics", "dram__bytes.sum,lts__t_bytes.sum"]),
    (["-s", "3", "-c", "2"], ["-s", "3", "-c", "2"]),
    (["--launch-skip", "0", "--launch-count", "1"], ["-s", "0", "-c", "1"]),
    (["--nvtx-include", "Domain@Range A", "--nvtx-include", "B/"],
     ["--nvtx", "--nvtx-include", "Domain@Range A", "--nvtx-include", "B/"]),
    (["--replay-mode", "application"], ["--replay-mode", "application"]),
    (["--clock-control", "none"], ["--clock-control", "none"]),
    (["--ncu-arg=--cache-control", "--ncu-arg", "none"], ["--cache-control", "none"]),
])
def test_each_option_reaches_ncu(work: Path, monkeypatch: pytest.MonkeyPatch, analyses: list,
                                 cli: list[str], ncu_options: list[str]) -> None:
    fake = fakencu.install(monkeypatch, work)
    result = invoke(*cli, "app.py")
    assert result.exit_code == 0, result.output
    assert fake.argvs() == [expected_argv(fake.path, *ncu_options)]


def test_set_replaces_the_default(work: Path, monkeypatch: pytest.MonkeyPatch, analyses: list) -> None:
    fake = fakencu.install(monkeypatch, work)
    assert invoke("--set", "full", "app.py").exit_code == 0
    assert fake.argvs()[0][3:5] == ["--set", "full"]


def test_app_arguments_arrive_intact_without_a_shell(work: Path, monkeypatch: pytest.MonkeyPatch,
                                                     analyses: list) -> None:
    fake = fakencu.install(monkeypatch, work)
    result = invoke("app.py", *NASTY_ARGS)
    assert result.exit_code == 0, result.output
    assert fake.argvs() == [expected_argv(fake.path, app_args=tuple(NASTY_ARGS))]
    assert json.loads((work / "app.py.args").read_text()) == NASTY_ARGS
    assert not (work / "pwned").exists()


def test_command_after_double_dash(work: Path, monkeypatch: pytest.MonkeyPatch, analyses: list) -> None:
    fake = fakencu.install(monkeypatch, work)
    result = invoke("-o", "run1", "--", sys.executable, "app.py", "--", "x")
    assert result.exit_code == 0, result.output
    assert fake.argvs()[0][-6:] == ["-o", "run1.ncu-rep", sys.executable, "app.py", "--", "x"]
    assert json.loads((work / "app.py.args").read_text()) == ["--", "x"]


def test_dry_run_prints_the_exact_command(work: Path, monkeypatch: pytest.MonkeyPatch, analyses: list) -> None:
    fake = fakencu.install(monkeypatch, work)
    result = invoke("--dry-run", "-k", "regex:a b", "-o", "out/", "app.py", *NASTY_ARGS)
    assert result.exit_code == 0, result.output
    assert shlex.split(result.stdout) == expected_argv(fake.path, "-k", "regex:a b", report="out/app.ncu-rep",
                                                       log="out/app.ncu.log", app_args=tuple(NASTY_ARGS))
    assert fake.argvs() == [] and not (work / "out").exists() and analyses == []


def test_dry_run_without_ncu_prints_plain_ncu(work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(work))
    monkeypatch.delenv("ROOFLINE_NCU", raising=False)
    monkeypatch.setattr(driver, "INSTALL_PLACES", ())
    result = invoke("--dry-run", "app.py")
    assert result.exit_code == 0 and shlex.split(result.stdout)[0] == "ncu"


def test_existing_report_is_never_overwritten(work: Path, monkeypatch: pytest.MonkeyPatch, analyses: list) -> None:
    fake = fakencu.install(monkeypatch, work)
    (work / "out").mkdir()
    (work / "out" / "app.ncu-rep").write_bytes(b"precious")
    result = invoke("-o", "out", "app.py")
    assert result.exit_code == 2
    assert error_lines(result) == [f"roofline: error: {Path('out') / 'app.ncu-rep'}: report already exists: "
                                   "pass --force to overwrite it, or choose another --output"]
    assert fake.argvs() == [] and not (work / "app.py.args").exists()
    assert (work / "out" / "app.ncu-rep").read_bytes() == b"precious"


def test_force_overwrites(work: Path, monkeypatch: pytest.MonkeyPatch, analyses: list) -> None:
    fake = fakencu.install(monkeypatch, work)
    (work / "app.ncu-rep").write_bytes(b"old")
    result = invoke("--force", "app.py")
    assert result.exit_code == 0, result.output
    assert fake.argvs() == [expected_argv(fake.path, "-f")]
    assert (work / "app.ncu-rep").read_bytes()[:4] == b"NVR\0"


def test_placeholders_reach_ncu_untouched(work: Path, monkeypatch: pytest.MonkeyPatch, analyses: list) -> None:
    fake = fakencu.install(monkeypatch, work)
    monkeypatch.setenv("RUN_ID", "42")
    result = invoke("-o", "out/rep_%q{RUN_ID}_%p", "app.py")
    assert result.exit_code == 0, result.output
    argv = fake.argvs()[0]
    assert argv[argv.index("-o") + 1] == "out/rep_%q{RUN_ID}_%p.ncu-rep"
    [(paths, _, _)] = analyses
    assert paths[0].name.startswith("rep_42_") and paths[0].is_file()


@pytest.mark.parametrize("scenario, code, message", [
    ("perm", 3, "ncu was denied access to the GPU performance counters (ERR_NVGPUCTRPERM): run as root, or load "
                "the nvidia driver with NVreg_RestrictProfilingToAdminUsers=0; in a container add "
                "--cap-add=SYS_ADMIN (see https://developer.nvidia.com/ERR_NVGPUCTRPERM)"),
    ("nodriver", 3, "ncu could not connect to the CUDA driver: run on a machine with an NVIDIA GPU and driver "
                    "(nvidia-smi must work) and keep stub libcuda.so off LD_LIBRARY_PATH"),
    ("nokernels", 2, f"ncu profiled no kernel of: {shlex.join([sys.executable, 'app.py'])}: the application "
                     "launched no CUDA kernel; check that it runs on the GPU"),
    ("noreport", 3, "ncu finished but wrote no report app.ncu-rep: see ncu's log app.ncu.log"),
    ("badsection", 3, "ncu: --section 'Bogus' matches no section: list the sections with: "),
    ("old", 3, "(found on PATH) is too old for --set roofline (needs 2021.3 or newer): install a newer Nsight "
               "Compute and pass --ncu PATH or set ROOFLINE_NCU"),
])
def test_failures_are_one_line(work: Path, monkeypatch: pytest.MonkeyPatch, analyses: list,
                               scenario: str, code: int, message: str) -> None:
    fakencu.install(monkeypatch, work, scenario)
    result = invoke("--section", "Bogus", "app.py")
    assert result.exit_code == code, result.output
    [line] = error_lines(result)
    assert message in line
    assert "Traceback" not in result.output and analyses == []


def test_a_retry_after_a_failed_run_says_again_why_it_failed(work: Path, monkeypatch: pytest.MonkeyPatch,
                                                             analyses: list) -> None:
    """The failed run leaves ncu's log, marked as roofline's: the retry replaces it and names the real cause again
    (not the log in its way)."""
    fake = fakencu.install(monkeypatch, work, "nodriver")
    first, second = invoke("app.py"), invoke("app.py")
    assert first.exit_code == second.exit_code == 3, second.output
    assert error_lines(first) == error_lines(second)
    assert "ncu could not connect to the CUDA driver" in error_lines(second)[0]
    assert len(fake.argvs()) == 2
    assert (work / "app.ncu.log").read_text().startswith(driver.LOG_MARK + "==ERROR== ")


def test_a_file_roofline_did_not_write_where_the_log_goes_is_still_refused(
        work: Path, monkeypatch: pytest.MonkeyPatch, analyses: list) -> None:
    fake = fakencu.install(monkeypatch, work, "nodriver")
    (work / "app.ncu.log").write_text("my notes\n")
    result = invoke("app.py")
    assert result.exit_code == 2 and fake.argvs() == []
    assert "app.ncu.log: exists, and ncu writes its log there" in error_lines(result)[0]
    assert (work / "app.ncu.log").read_text() == "my notes\n"


def test_application_failure_shows_its_last_lines(work: Path, monkeypatch: pytest.MonkeyPatch,
                                                  analyses: list) -> None:
    fakencu.install(monkeypatch, work)
    monkeypatch.setenv("FAKE_NCU_KERNELS", "")  # it launched none: no report
    (work / "app.py").write_text("import sys\nfor i in range(30):\n    print('line', i)\nsys.exit(5)\n")
    result = invoke("app.py")
    assert result.exit_code == 3
    [line] = error_lines(result)
    assert line == (f"roofline: error: the application exited with code 5 under ncu: "
                    f"{shlex.join([sys.executable, 'app.py'])}: fix the application (its last lines are above; "
                    "ncu's log: app.ncu.log)")
    tail = result.stderr.split("roofline: last lines of the application's output:\n")[1]
    assert tail.splitlines()[:10] == [f"  line {i}" for i in range(20, 30)]


def test_an_application_failing_after_its_kernels_were_profiled_names_the_report_written(
        work: Path, monkeypatch: pytest.MonkeyPatch, analyses: list) -> None:
    """An app that crashes at exit (in MPI_Finalize, say) after ncu profiled its kernels: the report is good, and the
    line says so and how to analyse it, instead of only "fix the application"."""
    fakencu.install(monkeypatch, work)
    (work / "app.py").write_text("import sys\nsys.exit(7)\n")
    result = invoke("app.py")
    assert result.exit_code == 3 and (work / "app.ncu-rep").is_file()
    [line] = error_lines(result)
    assert line == (f"roofline: error: the application exited with code 7 under ncu: "
                    f"{shlex.join([sys.executable, 'app.py'])}: ncu profiled 2 kernel launches before and wrote the "
                    f"report: analyse it with: roofline report {work / 'app.ncu-rep'}; or fix the application "
                    "(its last lines are above; ncu's log: app.ncu.log)")


def test_kernel_filter_without_match(work: Path, monkeypatch: pytest.MonkeyPatch, analyses: list) -> None:
    fakencu.install(monkeypatch, work, "nokernels")
    result = invoke("-k", "nosuch", "app.py")
    assert result.exit_code == 2
    assert "no launch's function name matched --kernel 'nosuch'" in error_lines(result)[0]


def test_ncu_not_found(work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(work))
    monkeypatch.delenv("ROOFLINE_NCU", raising=False)
    monkeypatch.setattr(driver, "INSTALL_PLACES", ())
    result = invoke("app.py")
    assert result.exit_code == 3
    assert error_lines(result) == ["roofline: error: ncu (Nsight Compute CLI) not found on PATH: install "
                                   "Nsight Compute, then pass --ncu PATH or set ROOFLINE_NCU"]


def test_ncu_option_and_env_var(work: Path, monkeypatch: pytest.MonkeyPatch, analyses: list) -> None:
    fake = fakencu.install(monkeypatch, work)
    monkeypatch.setenv("PATH", os.environ["PATH"].split(os.pathsep, 1)[1])  # the stand-in off PATH again
    monkeypatch.setenv("ROOFLINE_NCU", fake.path)
    assert invoke("app.py").exit_code == 0
    bad = invoke("--ncu", str(work / "missing-ncu"), "-o", "second", "app.py")
    assert bad.exit_code == 3
    assert error_lines(bad) == [f"roofline: error: by --ncu {work / 'missing-ncu'}: not an executable file: give "
                                "the path of the ncu program"]


def test_missing_application(work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = fakencu.install(monkeypatch, work)
    result = invoke("nosuch.py")
    assert result.exit_code == 2
    assert error_lines(result) == ["roofline: error: nosuch.py: no such Python script: check the path"]
    assert fake.argvs() == []


@pytest.mark.parametrize("base, kernel", [("function", "kernel_C"), ("demangled", "const double *"),
                                          ("mangled", "exact:_Z8kernel_CPdPKdi")])
def test_the_analysis_reads_the_name_ncu_read(work: Path, monkeypatch: pytest.MonkeyPatch, base: NameBase,
                                              kernel: str) -> None:
    """The stand-in writes a report holding kernel_A and kernel_C whatever it is told; the analysis applies the
    same filter on the same name base, so only kernel_C is analysed (its demangled and mangled names as ncu_report
    reads them: kernel_C(double *, const double *, int), _Z8kernel_CPdPKdi)."""
    fake = fakencu.install(monkeypatch, work)
    result = invoke("-k", kernel, "--kernel-name-base", base, "--format", "json", "app.py")
    assert result.exit_code == 0, result.output
    assert [k["name"] for k in json.loads(result.stdout)["reports"][0]["kernels"]] == ["kernel_C"]
    argv = fake.argvs()[0]
    assert argv[argv.index("-k") + 1] == kernel_filter.parse([kernel], base).ncu_kernel_name()


def test_headline_command_profiles_and_analyses_the_cublas_kernels(work: Path, monkeypatch: pytest.MonkeyPatch,
                                                                   shared_report) -> None:
    """`roofline analyze --kernel ampere_sgemm app.py`: ncu gets -k regex:ampere_sgemm, and the analysis keeps the
    ampere_sgemm_* launches of the report written (here the RTX 3080 report: ampere_sgemm_128x64_nn and gemm)."""
    fake = fakencu.install(monkeypatch, work)
    monkeypatch.setenv("FAKE_NCU_REPORT", str(shared_report("rtx3080_sgemm-vs-cublas_full")))
    monkeypatch.setenv("FAKE_NCU_KERNELS", "ampere_sgemm_128x64_nn")
    result = invoke("--kernel", "ampere_sgemm", "--format", "json", "app.py")
    assert result.exit_code == 0, result.output
    [argv] = fake.argvs()
    assert argv[argv.index("-k"):argv.index("-k") + 2] == ["-k", "regex:ampere_sgemm"]
    assert "--kernel-name-base" not in argv
    kernels = json.loads(result.stdout)["reports"][0]["kernels"]
    assert [k["name"] for k in kernels] == ["ampere_sgemm_128x64_nn"]


def test_a_bad_filter_is_refused_before_ncu_runs(work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = fakencu.install(monkeypatch, work)
    result = invoke("-k", "regex:(?P<n>gemm)", "app.py")
    assert result.exit_code == 2 and fake.argvs() == []
    assert error_lines(result) == ["roofline: error: --kernel regex '(?P<n>gemm)': (?P...) groups are Python-only and "
                                   "ncu refuses them: use a plain group (...) or (?:...)"]


# --- options after APP ------------------------------------------------------------------------------------
def warnings(result: Result) -> list[str]:
    return [line for line in result.stderr.splitlines() if line.startswith("roofline: warning:")]


def test_own_options_after_app_are_passed_on_with_a_warning(work: Path, monkeypatch: pytest.MonkeyPatch,
                                                            analyses: list) -> None:
    fake = fakencu.install(monkeypatch, work)
    result = invoke("app.py", "--kernel", "gemm", "--set=full", "--size", "4")
    assert result.exit_code == 0, result.output
    assert warnings(result) == ["roofline: warning: --kernel --set=full after APP go to the application, not to "
                                "roofline (as with ncu); move them before APP, or write -- before APP to pass them on "
                                "without this warning"]
    assert result.stderr.index("roofline: warning:") < result.stderr.index("roofline: profiling with")
    assert fake.argvs()[0][-6:] == ["app.py", "--kernel", "gemm", "--set=full", "--size", "4"]
    assert json.loads((work / "app.py.args").read_text()) == ["--kernel", "gemm", "--set=full", "--size", "4"]


def test_dry_run_warns_of_own_options_after_app_on_stderr_only(work: Path, monkeypatch: pytest.MonkeyPatch,
                                                               analyses: list) -> None:
    """The dry run is where the command is checked: the same warning as a real run, on standard error, and the
    printed ncu command line passes the option on to the application."""
    fake = fakencu.install(monkeypatch, work)
    result = invoke("--dry-run", "app.py", "--kernel", "gemm")
    assert result.exit_code == 0, result.output
    assert warnings(result) == ["roofline: warning: --kernel after APP goes to the application, not to roofline (as "
                                "with ncu); move it before APP, or write -- before APP to pass it on without this "
                                "warning"]
    assert "warning" not in result.stdout and result.stdout.rstrip().endswith("app.py --kernel gemm")
    assert fake.argvs() == []


def test_dry_run_after_app_is_refused(work: Path, monkeypatch: pytest.MonkeyPatch, analyses: list) -> None:
    fake = fakencu.install(monkeypatch, work)
    result = invoke("--kernel", "ampere_sgemm", "app.py", "--dry-run")
    assert result.exit_code == 2
    assert error_lines(result) == ["roofline: error: --dry-run after APP (app.py) would go to the application and ncu "
                                   "would run: move --dry-run before APP, or write -- before APP to pass it to the "
                                   "application"]
    assert fake.argvs() == [] and not (work / "app.py.args").exists()


def test_a_mistyped_option_before_app_is_a_usage_error_not_an_application(work: Path, monkeypatch: pytest.MonkeyPatch,
                                                                          analyses: list) -> None:
    """``--formatt json app.py``: the first word is an option this command lacks, not APP; after ``--`` it would be
    the application's name."""
    fake = fakencu.install(monkeypatch, work)
    result = invoke("--formatt", "json", "app.py")
    assert result.exit_code == 2
    assert error_lines(result) == ["roofline: error: no such option --formatt (did you mean --format or --force?): "
                                   "run 'roofline analyze --help' for the options"]
    assert error_lines(invoke("-x", "app.py")) == ["roofline: error: no such option -x: run 'roofline analyze --help' "
                                                   "for the options"]
    assert "-x: not found or not executable" in error_lines(invoke("--", "-x"))[0]
    assert fake.argvs() == []


def test_double_dash_passes_everything_on_without_a_warning(work: Path, monkeypatch: pytest.MonkeyPatch,
                                                            analyses: list) -> None:
    fake = fakencu.install(monkeypatch, work)
    result = invoke("-k", "kernel_C", "--", "app.py", "--dry-run", "-k", "x")
    assert result.exit_code == 0, result.output
    assert warnings(result) == []
    assert json.loads((work / "app.py.args").read_text()) == ["--dry-run", "-k", "x"]
    assert fake.argvs()[0][-4:] == ["app.py", "--dry-run", "-k", "x"]


def test_app_arguments_that_are_not_roofline_options_get_no_warning(work: Path, monkeypatch: pytest.MonkeyPatch,
                                                                    analyses: list) -> None:
    fakencu.install(monkeypatch, work)
    result = invoke("app.py", "--size", "4096", "--kernels", "x")
    assert result.exit_code == 0, result.output
    assert warnings(result) == []


def test_sets_that_sample_instructions_import_the_source(work: Path, monkeypatch: pytest.MonkeyPatch,
                                                         analyses: list) -> None:
    fake = fakencu.install(monkeypatch, work)
    for i, options in enumerate((["--set", "full"], ["--section", "SourceCounters"], [],
                                 ["--set", "full", "--ncu-arg=--import-source", "--ncu-arg", "no"])):
        result = invoke(*options, "-o", f"r{i}.ncu-rep", "app.py")
        assert result.exit_code == 0, result.output
    full, section, plain, refused = fake.argvs()
    assert full[full.index("--import-source") + 1] == "yes" and section.count("--import-source") == 1
    assert "--import-source" not in plain  # the roofline set samples no instruction
    assert refused.count("--import-source") == 1 and refused[refused.index("--import-source") + 1] == "no"


@pytest.mark.parametrize("fmt", ["json", "table"])
def test_missing_line_information_is_said_once_with_the_fix(work: Path, monkeypatch: pytest.MonkeyPatch,
                                                            fmt: str) -> None:
    fakencu.install(monkeypatch, work)
    monkeypatch.setenv("FAKE_NCU_REPORT", str(REPO / "examples" / "h100" / "triad-cupy.full.ncu-rep"))
    result = invoke("--set", "full", "--format", fmt, "app.py")
    assert result.exit_code == 0, result.output
    if fmt == "json":  # the document gives the reason of each null source; stderr says it once
        assert result.stderr.count("no source lines") == 1
        assert "roofline: no source lines for triad: the binary has no line information: compile with -lineinfo" \
            in result.stderr
    else:  # the table says it under its hot spots
        assert result.stdout.count("No source lines") == 1 and "-lineinfo" not in result.stderr


def test_set_none_collects_only_the_sections_named(work: Path, monkeypatch: pytest.MonkeyPatch,
                                                   analyses: list) -> None:
    fake = fakencu.install(monkeypatch, work)
    result = invoke("--dry-run", "--set", "none", "--section", "SpeedOfLight", "--section", "LaunchStats", "app.py")
    assert result.exit_code == 0, result.output
    argv = shlex.split(result.stdout)
    assert argv[:7] == [fake.path, "--target-processes", "all", "--section", "SpeedOfLight", "--section", "LaunchStats"]
    assert "--set" not in argv


def test_set_none_without_a_section_is_refused(work: Path, monkeypatch: pytest.MonkeyPatch, analyses: list) -> None:
    fakencu.install(monkeypatch, work)
    result = invoke("--dry-run", "--set", "none", "app.py")
    assert result.exit_code == 2
    assert "--set none collects only what --section or --metrics name" in result.stderr


@pytest.mark.parametrize("args, error", [
    (["--top", "3"], "--top: it applies only with --from-nsys: add --from-nsys PROFILE, or leave out --top"),
    (["--group-by", "function"], "--group-by: it applies only where nsys runs or its profile is read"),
    (["--nsys", "nsys"], "--nsys: it applies only where nsys runs or its profile is read"),
    (["--no-counters", "--set", "full"], "--set: --no-counters times the kernels with nsys and runs no ncu: "
                                         "leave out --set"),
    (["--no-counters", "-k", "gemm"], "--kernel: --no-counters times the kernels with nsys"),
    (["--no-counters", "--launch-count", "2"], "--launch-count: --no-counters times the kernels with nsys"),
])
def test_an_option_this_run_would_not_read_is_refused(work: Path, args: list[str], error: str) -> None:
    result = invoke("--dry-run", *args, "app.py")
    assert result.exit_code == 2 and error_lines(result) == [result.stderr.strip()]
    assert result.stderr.startswith(f"roofline: error: {error}") and result.stdout == ""


def test_options_that_apply_are_taken_and_app_arguments_are_the_apps(work: Path) -> None:
    result = invoke("--dry-run", "--no-counters", "--group-by", "function", "app.py", "--top", "3")
    assert result.exit_code == 0, result.output
    assert result.stdout.rstrip().endswith("app.py --top 3")


def test_a_dry_run_names_an_ncu_that_is_not_here_and_warns(work: Path) -> None:
    """The command may be meant for another node: printed as given, with a warning on stderr."""
    result = invoke("--dry-run", "--ncu", "/opt/elsewhere/ncu", "app.py")
    assert result.exit_code == 0, result.output
    assert shlex.split(result.stdout)[0] == "/opt/elsewhere/ncu"
    assert result.stderr == ("roofline: warning: by --ncu /opt/elsewhere/ncu: not an executable file here; the "
                             "command names it as given\n")


@pytest.mark.parametrize("name, fmt", [("notes.html", "html"), ("notes.MD", "markdown"), ("notes.json", "json"),
                                       ("notes.txt", "table")])
def test_the_report_output_name_chooses_the_format(work: Path, monkeypatch: pytest.MonkeyPatch, analyses: list,
                                                   name: str, fmt: str) -> None:
    fakencu.install(monkeypatch, work)
    result = invoke("--report-output", name, "app.py")
    assert result.exit_code == 0, result.output
    [(_, _, (chosen, output, _))] = analyses
    assert chosen == fmt and str(output) == name


def test_a_report_output_whose_extension_names_no_format_is_refused_before_profiling(
        work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """notes.out chose the table silently; without --format the extension chooses, so one that names no format is
    refused in one line naming the known ones, before ncu runs."""
    fakencu.install(monkeypatch, work)
    result = invoke("--report-output", "notes.out", "app.py")
    assert result.exit_code == 2 and result.stderr == (
        "roofline: error: --report-output notes.out: a .out file, and without --format the extension chooses the "
        "format: end the name with one of .txt (table), .json (json), .md (markdown), .html (html), .csv (csv), or "
        "give --format\n")
    assert not (work / "app.ncu-rep").exists()


def test_a_report_output_named_for_another_format_is_refused_before_profiling(
        work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fakencu.install(monkeypatch, work)
    result = invoke("--format", "json", "--report-output", "notes.md", "app.py")
    assert result.exit_code == 2 and result.stderr == (
        "roofline: error: --report-output notes.md: a .md file, and --format json writes json: give --format "
        "markdown, or end the name with .json\n")
    assert not (work / "app.ncu-rep").exists()


def test_the_option_lists_name_analyzes_own_parameters() -> None:
    """A misspelt or renamed parameter in the lists would never be refused."""
    import typer

    group: Any = typer.main.get_command(app)
    names = {p.name for p in group.commands["analyze"].params}
    for listed in (analyze_cmd.NCU_ONLY, analyze_cmd.FROM_NSYS_ONLY, analyze_cmd.NSYS_ONLY, analyze_cmd.WORK_FROM_ONLY):
        assert set(listed) <= names


@pytest.mark.parametrize("args, error", [
    (["--no-counters", "--top", "3"], "--top: --no-counters ranks every kernel (the top 20) and profiles none: "
                                      "leave out --top"),
    (["--no-counters", "--specs", "x.yaml"], "--specs: with --no-counters the specs place only --work-from's "
                                             "kernels: add --work-from X.ncu-rep, or leave out --specs"),
])
def test_options_no_counters_does_not_read_are_refused(work: Path, args: list[str], error: str) -> None:
    result = invoke("--dry-run", *args, "app.py")
    assert result.exit_code == 2 and result.stderr == f"roofline: error: {error}\n"


def test_a_dry_run_warns_of_an_ncu_named_plainly_that_is_not_on_path(work: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(work))
    result = invoke("--dry-run", "--ncu", "ncu", "app.py")
    assert result.exit_code == 0 and shlex.split(result.stdout)[0] == "ncu"
    assert result.stderr.startswith("roofline: warning: by --ncu ncu: not an executable file here")


# --- checks made before ncu runs, and what ncu's failures name ---------------------------------------------------
def unwritable(monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
    """``folder`` takes no new file, from a read-only file system (as root, permissions would not stop a write)."""
    from roofline.core import files

    real = os.access
    monkeypatch.setattr(files.os, "access", lambda path, mode: Path(path) != folder and real(path, mode))
    monkeypatch.setattr(files.os, "statvfs", lambda path: SimpleNamespace(f_flag=os.ST_RDONLY))


@pytest.mark.parametrize("output, error", [
    ("afile/rep", "afile: cannot write the report there (not a folder): choose another folder with --output"),
    ("afile/sub/", "afile/sub: cannot make the report's folder ({work}/afile: not a folder): choose another folder "
                   "with --output"),
    ("ro/", "ro: cannot write the report there (read-only file system): make it writable, or choose another folder "
            "with --output"),
    ("ro/sub/rep", "ro/sub: cannot make the report's folder ({work}/ro: read-only file system): make it writable, or "
                   "choose another folder with --output"),
    (None, "the current folder {work}/ro: cannot write the report there (read-only file system)"),
])
def test_a_report_folder_that_takes_no_file_is_one_line_before_ncu_runs(
        work: Path, monkeypatch: pytest.MonkeyPatch, analyses: list, output: str | None, error: str) -> None:
    fake = fakencu.install(monkeypatch, work)
    (work / "afile").write_text("")
    (work / "ro").mkdir()
    unwritable(monkeypatch, work / "ro")
    if output is None:  # a plain run from a read-only working folder
        monkeypatch.chdir(work / "ro")
    result = invoke(*(("-o", output) if output else ()), str(work / "app.py"))
    assert result.exit_code == 2 and error_lines(result) == [result.stderr.strip()]
    assert result.stderr.startswith(f"roofline: error: {error.format(work=work)}")
    assert fake.argvs() == [] and analyses == [] and not (work / "app.py.args").exists()


def test_the_folder_macros_are_filled_in_before_the_folder_is_made(work: Path, monkeypatch: pytest.MonkeyPatch,
                                                                    analyses: list) -> None:
    """ncu refuses its macros in a folder; roofline fills in %h and %q{VAR} there and leaves the file name's."""
    import socket

    fake = fakencu.install(monkeypatch, work)
    monkeypatch.setenv("RUN_ID", "42")
    result = invoke("-o", "rep_%h/r%q{RUN_ID}/x_%q{RUN_ID}", "app.py")
    assert result.exit_code == 0, result.output
    host = socket.gethostname()
    argv = fake.argvs()[0]
    assert argv[argv.index("-o") + 1] == f"rep_{host}/r42/x_%q{{RUN_ID}}.ncu-rep"
    assert argv[argv.index("--log-file") + 1] == f"rep_{host}/r42/x_42.ncu.log"
    assert analyses[0][0] == [work / f"rep_{host}" / "r42" / "x_42.ncu-rep"]
    assert not list(work.glob("rep_%h*"))


def test_a_run_macro_in_the_folder_is_refused_even_in_a_dry_run(work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = fakencu.install(monkeypatch, work)
    result = invoke("--dry-run", "-o", "rep_%p/x", "app.py")
    assert result.exit_code == 2 and result.stdout == ""
    assert error_lines(result) == ["roofline: error: --output rep_%p/x: ncu's %p and %i are known only once ncu runs, "
                                   "so they cannot name the report's folder: put them in the report's file name (e.g. "
                                   "-o out/app_%p)"]
    assert fake.argvs() == [] and not list(work.glob("rep_*"))


@pytest.mark.parametrize("args, read_only, error", [
    (["--specs", "nonexist.yaml"], "ro", "nonexist.yaml: no such spec file or folder: check --specs or "
                                         "$ROOFLINE_SPECS"),
    (["--report-output", "afile/out.json"], "ro", "afile/out.json: cannot write (Not a directory): choose a writable "
                                                  "path"),
    (["--report-output", "ro/out.json"], "ro", "ro/out.json: cannot write ({work}/ro: read-only file system): choose "
                                               "a writable folder"),
    (["--plot", "ro/p.png"], "ro", "ro/p.png: cannot write ({work}/ro: read-only file system): choose a writable "
                                   "folder"),
    # the report goes to runs/, the Markdown and its image to reports/ in the working folder, which takes no file
    (["--format", "markdown", "-o", "runs/x"], ".", "reports/x.md: cannot write ({work}: read-only file system): "
                                                    "choose a writable folder"),
    (["--report-output", "/dev/null"], "ro", "/dev/null: is a character device, not a regular file; roofline writes "
                                             "only files: use --report-output - for standard output, or name a file"),
])
def test_what_the_analysis_would_fail_on_is_refused_before_ncu_runs(
        work: Path, monkeypatch: pytest.MonkeyPatch, analyses: list, args: list[str], read_only: str,
        error: str) -> None:
    fake = fakencu.install(monkeypatch, work)
    (work / "afile").write_text("")
    (work / "ro").mkdir()
    (work / "runs").mkdir()
    unwritable(monkeypatch, (work / read_only).resolve())
    result = invoke(*args, "app.py")
    assert result.exit_code == 2
    assert result.stderr == f"roofline: error: {error.format(work=work)}\n"
    assert fake.argvs() == [] and analyses == []


def test_an_option_value_ncu_rejects_is_quoted_and_no_missing_log_is_named(
        work: Path, monkeypatch: pytest.MonkeyPatch, analyses: list) -> None:
    fakencu.install(monkeypatch, work, "badvalue")
    result = invoke("-s", "99999999999999999999", "app.py")
    assert result.exit_code == 3 and not (work / "app.ncu.log").exists()
    assert error_lines(result) == ["roofline: error: ncu rejected its command line: the argument "
                                   "('99999999999999999999') for option '--launch-skip' is invalid: check the option "
                                   f"values and --ncu-arg (see: {work / 'bin' / 'ncu'} --help)"]


def test_a_script_missing_a_module_names_the_python_that_ran_it(work: Path, monkeypatch: pytest.MonkeyPatch,
                                                                analyses: list) -> None:
    fakencu.install(monkeypatch, work)
    monkeypatch.setenv("FAKE_NCU_KERNELS", "")  # the import failed before any kernel
    (work / "app.py").write_text("import no_such_module_for_roofline\n")
    result = invoke("app.py", "--n", "2")
    assert result.exit_code == 3
    [line] = error_lines(result)
    assert line.endswith(f": app.py ran with roofline's own Python, {sys.executable} (No module named "
                         "'no_such_module_for_roofline'); name the Python that has the module before the script: -- "
                         "/path/to/python app.py --n 2 (its last lines are above; ncu's log: app.ncu.log)")


def test_a_python_named_before_the_script_runs_it(work: Path, monkeypatch: pytest.MonkeyPatch,
                                                  analyses: list) -> None:
    """The fix the line above gives: ``-- /path/to/python t.py`` runs the script with that Python."""
    fake = fakencu.install(monkeypatch, work)
    assert invoke("--", sys.executable, "app.py").exit_code == 0
    assert fake.argvs()[0][-2:] == [sys.executable, "app.py"]


@pytest.mark.parametrize("output", ["out.json", "notes.MD", "p.png"])
def test_a_document_name_given_to_o_is_refused_naming_report_output(work: Path, monkeypatch: pytest.MonkeyPatch,
                                                                    output: str) -> None:
    fake = fakencu.install(monkeypatch, work)
    result = invoke("--dry-run", "-o", output, "app.py")
    assert result.exit_code == 2 and error_lines(result) == [
        f"roofline: error: --output {output}: -o names the profile ({output}.ncu-rep), not the analysis: write the "
        f"analysis with --report-output {output}, and give -o a report name or none"]
    assert fake.argvs() == []
    assert invoke("--dry-run", "-o", "out.json.ncu-rep", "app.py").exit_code == 0  # a report name says so


@pytest.mark.parametrize("args, option", [
    (("-o", ""), "--output"), (("--section", ""), "--section"), (("--set", "none", "--metrics", " "), "--metrics"),
    (("--ncu-arg", ""), "--ncu-arg"), (("--nvtx-include", ""), "--nvtx-include"), (("--ncu", ""), "--ncu")])
def test_an_empty_option_value_is_refused_before_ncu_runs(work: Path, monkeypatch: pytest.MonkeyPatch,
                                                          args: tuple[str, ...], option: str) -> None:
    """-o '' wrote the hidden .ncu-rep and .ncu.log; --section '' got ncu's "did not match any section.: see"; an
    empty --ncu-arg got ncu's 80-name "ambiguous" line: now one line each, exit 2, and ncu never runs."""
    fake = fakencu.install(monkeypatch, work)
    result = invoke(*args, "app.py")
    value = args[-1]
    assert result.exit_code == 2, result.output
    assert error_lines(result) == [f"roofline: error: {option} {shlex.quote(value)}: an empty value: give {option} a "
                                   "value, or leave it out"]
    assert fake.argvs() == [] and not (work / ".ncu-rep").exists()


def test_a_dry_run_warns_when_the_ncu_found_is_too_old_for_the_options(work: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The real run refuses an ncu 2020.3 for --set roofline (exit 3); the dry run printed the command without a
    word, nor the version it found. It now names both, and still prints the command (it may be run elsewhere)."""
    fake = fakencu.install(monkeypatch, work, "old")
    result = invoke("--dry-run", "app.py")
    assert result.exit_code == 0, result.output
    assert shlex.split(result.stdout)[0] == fake.path
    assert result.stderr == (f"roofline: warning: ncu 2020.3.1.0 at {fake.path} (found on PATH) is too old for --set "
                             "roofline (needs 2021.3 or newer), so the run would refuse it: install a newer Nsight "
                             "Compute and pass --ncu PATH or set ROOFLINE_NCU\n")
    assert invoke("app.py").exit_code == 3  # the run's refusal the warning announced


def test_a_dry_run_names_the_ncu_and_version_it_found(work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = fakencu.install(monkeypatch, work)
    result = invoke("--dry-run", "app.py")
    assert result.exit_code == 0, result.output
    assert result.stderr == f"roofline: the command is for ncu 2022.3.0.0 at {fake.path} (found on PATH)\n"
