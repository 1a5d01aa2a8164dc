"""The driver against the real ncu (Debian bookworm's nsight-compute, ncu 2022.3, on a machine without a GPU).

What ncu 2022.3 really does here: a profiled process cannot reach the CUDA driver, so the application is
stopped before it runs (exit 1), ncu prints "failed to connect to the CUDA driver" on the application's
stderr and "The application returned an error code (1)" + "No kernels were profiled" in its log, and exits
1 -- or 0 with --check-exit-code 0. Command-line errors exit 255. The last test checks the report reader
against ``ncu --import --csv --page raw --print-units base`` on the shared reports written by ncu <= 2022.3.
"""

from __future__ import annotations

import csv
import ctypes
import io
import json
import math
import re
import subprocess
import sys
from pathlib import Path

import pytest

from roofline.core import kernel_filter
from roofline.errors import NcuError, RooflineError
from roofline.ncu import driver
from roofline.ncu.driver import NcuInstall, NcuOptions

SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "ncu-reps"
CROSS_CHECKED = ("gpu__time_duration.sum", "dram__bytes_read.sum", "launch__grid_size", "launch__block_size",
                 "launch__registers_per_thread", "sm__cycles_elapsed.avg.per_second")
NEWEST_IMPORTABLE = (2022, 3)  # Debian's ncu; newer report files may not load in it


@pytest.fixture(scope="module")
def ncu() -> NcuInstall:
    try:
        return driver.find_ncu()
    except NcuError as err:
        pytest.skip(f"no real ncu ({err}); install Debian's nsight-compute, e.g. with .ci/install-system-tools")


def has_cuda_driver() -> bool:
    try:
        ctypes.CDLL("libcuda.so.1")
    except OSError:
        return False
    return True


@pytest.fixture
def no_gpu() -> None:
    if has_cuda_driver():
        pytest.skip("a CUDA driver is installed: these tests assert what ncu prints without one")


def run(ncu: NcuInstall, tmp_path: Path, options: NcuOptions, app: list[str]) -> tuple[driver.NcuRun, driver.Plan]:
    plan = driver.make_plan(ncu.path, options, str(tmp_path / "app.ncu-rep"), app)
    return driver.run_ncu(plan.argv, plan.log_file), plan


def script(tmp_path: Path) -> list[str]:
    path = tmp_path / "app.py"
    path.write_text("print('application ran')\n")
    return [sys.executable, str(path)]


def test_version_detection(ncu: NcuInstall) -> None:
    out = subprocess.run([ncu.path, "--version"], capture_output=True, text=True, check=True).stdout
    version = ".".join(map(str, ncu.version))
    assert f"Version {version} (build" in out
    assert ncu.describe() == f"ncu {version} at {ncu.path} (found {ncu.found_by})"


def test_unknown_section_is_rejected(ncu: NcuInstall, tmp_path: Path) -> None:
    outcome, plan = run(ncu, tmp_path, NcuOptions(sections=("Bogus",)), script(tmp_path))
    assert outcome.returncode == 255
    assert outcome.messages[:2] == ["==ERROR== Option '--section Bogus' did not match any section.",
                                    "==ERROR== Use --list-sections to see the list of available sections."]
    with pytest.raises(NcuError, match=r"^ncu: --section 'Bogus' matches no section: list the sections with: "):
        driver.check_outcome(outcome, plan)


def test_invalid_option_value_is_rejected(ncu: NcuInstall, tmp_path: Path) -> None:
    outcome, plan = run(ncu, tmp_path, NcuOptions(extra=("--cache-control", "bogus")), script(tmp_path))
    assert outcome.returncode == 255
    assert "the argument for option '--cache-control' is invalid" in outcome.messages
    with pytest.raises(NcuError, match="^ncu rejected its command line: the argument for option '--cache-control' "
                                       "is invalid: check the option values and --ncu-arg"):
        driver.check_outcome(outcome, plan)


def test_existing_report_is_refused_by_ncu_too(ncu: NcuInstall, tmp_path: Path) -> None:
    (tmp_path / "app.ncu-rep").write_bytes(b"precious")
    outcome, plan = run(ncu, tmp_path, NcuOptions(), script(tmp_path))
    assert outcome.returncode == 255
    assert outcome.messages == ["==ERROR== File app.ncu-rep already exists. Use '-f' for overwriting the file."]
    with pytest.raises(NcuError, match="^ncu refused to overwrite app.ncu-rep: pass --force"):
        driver.check_outcome(outcome, plan)
    assert (tmp_path / "app.ncu-rep").read_bytes() == b"precious"


def test_calibrate_timing_run_options_are_accepted(ncu: NcuInstall, tmp_path: Path, no_gpu: None) -> None:
    """roofline calibrate's ncu run (no --set, a metric list, base clocks, warm caches, NVTX) gets past ncu's
    option checks: ncu starts the application and only then misses the GPU."""
    from roofline.cli.commands.calibrate import ncu_options

    outcome, plan = run(ncu, tmp_path, ncu_options(), script(tmp_path))
    assert "--set" not in plan.argv and outcome.returncode != 255
    assert "==ERROR== Nsight Compute failed to connect to the CUDA driver (stub libcuda.so[.1] on path?)." in \
        outcome.messages


def test_missing_application(ncu: NcuInstall, tmp_path: Path) -> None:
    outcome, plan = run(ncu, tmp_path, NcuOptions(), ["nosuchapp_for_roofline"])
    assert outcome.returncode == 255
    with pytest.raises(NcuError, match="^ncu cannot start 'nosuchapp_for_roofline': not an executable"):
        driver.check_outcome(outcome, plan)


@pytest.mark.parametrize("extra, returncode", [((), 1), (("--check-exit-code", "0"), 0)])
def test_run_without_a_gpu(ncu: NcuInstall, tmp_path: Path, no_gpu: None, extra: tuple[str, ...],
                           returncode: int) -> None:
    outcome, plan = run(ncu, tmp_path, NcuOptions(extra=extra), script(tmp_path))
    if ncu.version[:2] == (2022, 3):
        assert outcome.returncode == returncode
    driver_error = "==ERROR== Nsight Compute failed to connect to the CUDA driver (stub libcuda.so[.1] on path?)."
    assert driver_error in outcome.messages
    assert "==WARNING== No kernels were profiled." in outcome.messages
    if ncu.version[:2] == (2022, 3):
        assert ("==ERROR== The application returned an error code (1)." in outcome.messages) == (returncode == 1)
        assert "application ran" not in outcome.tail  # the injected library stops it first
    assert outcome.kernels == [] and not (tmp_path / "app.ncu-rep").exists()
    with pytest.raises(NcuError, match="^ncu could not connect to the CUDA driver: run on a machine with an "
                                       "NVIDIA GPU") as err:
        driver.check_outcome(outcome, plan)
    assert err.value.exit_code == 3


def test_analyze_command_without_a_gpu(ncu: NcuInstall, tmp_path: Path, no_gpu: None) -> None:
    app = script(tmp_path)[1]
    result = subprocess.run([sys.executable, "-m", "roofline", "analyze", "--ncu", ncu.path, "-o",
                             str(tmp_path / "out") + "/", app], capture_output=True, text=True, timeout=120)
    assert result.returncode == 3
    assert result.stderr.splitlines()[-1] == (
        "roofline: error: ncu could not connect to the CUDA driver: run on a machine with an NVIDIA GPU and driver "
        "(nvidia-smi must work) and keep stub libcuda.so off LD_LIBRARY_PATH")
    assert "No kernels were profiled" in (tmp_path / "out" / "app.ncu.log").read_text()


NO_DRIVER = "==ERROR== Nsight Compute failed to connect to the CUDA driver (stub libcuda.so[.1] on path?)."
INVALID_REGEX = "==ERROR== Invalid regex provided to --kernel option."


@pytest.mark.parametrize("filters, base", [
    (["ampere_sgemm"], "function"),
    (["exact:ampere_sgemm_128x64_nn"], "function"),
    (["regex:^ampere_sgemm_\\d+x\\d+_(nn|tn)$"], "function"),
    (["ampere_sgemm", "exact:gemm", "regex:sm90_xmma_gemm_.*f32"], "function"),
    (["void gemm<(int)128, float>(float *, const float *)", "exact:k<int>(int)"], "demangled"),
    (["exact:_Z8kernel_APdii"], "mangled"),
])
def test_real_ncu_accepts_the_kernel_filters(ncu: NcuInstall, tmp_path: Path, no_gpu: None, filters: list[str],
                                             base: kernel_filter.NameBase) -> None:
    """Each form of -k (and one alternation for several filters) passes ncu's own option and regex checks: ncu
    goes on to start the application, where it fails only for want of a CUDA driver."""
    options = NcuOptions(kernel=kernel_filter.parse(filters, base))
    outcome, plan = run(ncu, tmp_path, options, script(tmp_path))
    k = plan.argv.index("-k")
    assert plan.argv[k + 1] == options.kernel.ncu_kernel_name()
    assert NO_DRIVER in outcome.messages
    assert not [m for m in outcome.messages if INVALID_REGEX in m or "option" in m.lower()]


def bare_ncu(ncu: NcuInstall, tmp_path: Path, *args: str) -> str:
    """ncu's output (stdout and stderr) for a command line roofline would never build."""
    proc = subprocess.run([ncu.path, *args, "--set", "roofline", "-f", "-o", str(tmp_path / "x"), "/bin/true"],
                          capture_output=True, text=True, timeout=120)
    return proc.stdout + proc.stderr


def test_real_ncu_takes_a_single_kernel_name(ncu: NcuInstall, tmp_path: Path) -> None:
    """Why several filters become one regex: ncu refuses a second -k."""
    assert "option '--kernel-name' cannot be specified more than once" in bare_ncu(ncu, tmp_path, "-k", "regex:a",
                                                                                   "-k", "b")


@pytest.mark.parametrize("pattern", ["(?P<x>a)", "(?P=x)", "\\N{DIGIT ONE}", "[", "a**", "(?<=a+)b"])
def test_patterns_real_ncu_rejects_are_refused_here_first(ncu: NcuInstall, tmp_path: Path, pattern: str) -> None:
    assert INVALID_REGEX in bare_ncu(ncu, tmp_path, "-k", f"regex:{pattern}")
    with pytest.raises(RooflineError, match=f"^--kernel regex '{re.escape(pattern)}': "):
        kernel_filter.parse([f"regex:{pattern}"])


@pytest.mark.parametrize("pattern", ["\\<gemm\\>", "[[:alpha:]]_gemm", "a{,3}"])
def test_patterns_that_ncu_and_python_read_differently_are_refused(ncu: NcuInstall, tmp_path: Path,
                                                                   pattern: str) -> None:
    """ncu accepts these, but Python would select other kernels from a report than ncu profiles."""
    assert INVALID_REGEX not in bare_ncu(ncu, tmp_path, "-k", f"regex:{pattern}")
    with pytest.raises(RooflineError, match="ncu"):
        kernel_filter.parse([f"regex:{pattern}"])


def old_reports() -> list[Path]:
    index = SHARED / "index.json"
    if not index.is_file():
        return []
    files = json.loads(index.read_text())["files"]
    return [SHARED / f["file"] for f in files
            if tuple(int(x) for x in f["ncu_version_guess"].split(".")[:2]) <= NEWEST_IMPORTABLE]


@pytest.mark.parametrize("report", old_reports() or [pytest.param(None, marks=pytest.mark.skip(
    reason="../shared/ncu-reps/index.json not found next to the repository"))], ids=lambda p: getattr(p, "name", p))
def test_reader_agrees_with_ncu_import(ncu: NcuInstall, report: Path) -> None:
    proc = subprocess.run([ncu.path, "--import", str(report), "--csv", "--page", "raw", "--print-units", "base"],
                          capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        pytest.skip(f"ncu {ncu.version} cannot import {report.name}: {proc.stdout.strip()[-200:]}")
    header, units, *rows = csv.reader(io.StringIO(proc.stdout))
    from roofline.ncu.reader import load_report

    launches = load_report(report).launches
    assert len(rows) == len(launches)
    checked = [name for name in CROSS_CHECKED if name in header]
    assert "gpu__time_duration.sum" in checked and "launch__grid_size" in checked
    for index, (row, launch) in enumerate(zip(rows, launches, strict=True)):
        assert row[header.index("ID")] == str(index)
        for name in checked:
            expected = float(row[header.index(name)].replace(",", ""))
            # the CSV rounds to 2 decimals
            value = launch.value(name)
            assert value is not None, (name, launch.name)
            assert math.isclose(value, expected, rel_tol=1e-9, abs_tol=0.0051), (name, launch.name)


def test_analyze_from_nsys_command_line_is_accepted_by_real_ncu(ncu: NcuInstall, tmp_path: Path,
                                                                no_gpu: None) -> None:
    """The -k regex of an nsys short name, --launch-skip and --launch-count that --from-nsys builds pass ncu's own
    checks: ncu starts the application and fails only for want of a CUDA driver."""
    from tests.conftest import find_shared_nsys

    profile = find_shared_nsys("gp100_miniweather-openacc_2021.2-export2022.2.sqlite")
    app = script(tmp_path)[1]
    result = subprocess.run([sys.executable, "-m", "roofline", "analyze", "--ncu", ncu.path, "--from-nsys",
                             str(profile), "--top", "1", "-o", str(tmp_path / "out") + "/", app],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 3, result.stderr
    assert "is the median-duration one" in result.stderr
    assert NO_DRIVER in result.stderr and result.stderr.splitlines()[-1].startswith(
        "roofline: error: ncu could not connect to the CUDA driver")
    said = result.stderr + (tmp_path / "out" / "app.ncu.log").read_text()
    assert INVALID_REGEX not in said and "option" not in said.lower()


@pytest.mark.parametrize("replay", ["range", "application"])
def test_real_ncu_accepts_the_full_set_under_each_replay_mode(ncu: NcuInstall, tmp_path: Path, no_gpu: None,
                                                              replay: str) -> None:
    """The full set asks for the source files (--import-source yes) except under range replay, where ncu refuses
    that option ("Option import-source is not supported during range replay"): both command lines pass ncu's
    checks and fail only for want of a CUDA driver."""
    options = NcuOptions(section_set="full", replay_mode=replay)  # type: ignore[arg-type]
    outcome, plan = run(ncu, tmp_path, options, script(tmp_path))
    assert ("--import-source" in plan.argv) is (replay != "range")
    assert not [m for m in outcome.messages if "not supported" in m or "option" in m.lower()], outcome.messages
