"""The ncu driver: finding ncu, version checks, the exact command line, report names, and reading outcomes.

Outcome messages below are the ones ncu 2022.3 prints (checked against the real ncu in
test_driver_real_ncu.py where a machine without a GPU can produce them).
"""

from __future__ import annotations

import dataclasses
import re
import signal
import subprocess
import sys
import time
from collections import deque
from pathlib import Path
from typing import Any

import pytest

from roofline.core import kernel_filter
from roofline.errors import CountersDenied, NcuError, NoKernelMatched, RooflineError, UsageError
from roofline.ncu import driver
from roofline.ncu.driver import NcuInstall, NcuOptions, NcuRun
from tests.fake_ncu import fakencu

# --- version and finding ncu ---------------------------------------------------------------------


def test_parse_version() -> None:
    text = ("NVIDIA (R) Nsight Compute Command Line Profiler\nCopyright (c) 2018-2022 NVIDIA Corporation\n"
            "Version 2022.3.0.0 (build 31729285) (public-release)\n")
    assert driver.parse_version(text) == (2022, 3, 0, 0)
    assert driver.parse_version("Version 2025.1.1 (build 1)") == (2025, 1, 1)
    assert driver.parse_version("ncu: command not found") is None


def test_find_ncu_search_order(tmp_path: Path) -> None:
    explicit, from_env, on_path = (fakencu.copy_to(tmp_path / d) for d in ("explicit", "env", "path"))
    env = {"PATH": str(on_path.parent), "ROOFLINE_NCU": str(from_env)}
    assert driver.find_ncu(str(explicit), env, places=()).found_by == "by --ncu"
    found = driver.find_ncu(None, env, places=())
    assert (found.path, found.found_by) == (str(from_env), "by ROOFLINE_NCU")
    del env["ROOFLINE_NCU"]
    found = driver.find_ncu(None, env, places=())
    assert (found.path, found.found_by, found.version) == (str(on_path), "on PATH", (2022, 3, 0, 0))
    assert found.describe() == f"ncu 2022.3.0.0 at {on_path} (found on PATH)"


def test_find_ncu_install_places(tmp_path: Path) -> None:
    cuda_home = fakencu.copy_to(tmp_path / "cuda" / "bin")
    for version in ("2023.1.0", "2023.10.1", "2023.9.0"):
        fakencu.copy_to(tmp_path / "nsight-compute" / version)
    places = ("$CUDA_HOME/bin/ncu", str(tmp_path / "nsight-compute" / "*" / "ncu"))
    empty = {"PATH": str(tmp_path / "nothing")}
    newest = driver.find_ncu(None, empty, places)
    assert newest.path == str(tmp_path / "nsight-compute" / "2023.10.1" / "ncu")
    assert newest.found_by == f"in {places[1]}"
    assert driver.find_ncu(None, {**empty, "CUDA_HOME": str(tmp_path / "cuda")}, places).path == str(cuda_home)


def test_find_ncu_failures(tmp_path: Path) -> None:
    with pytest.raises(NcuError, match=r"by --ncu .*nope: not an executable file: give the path of the ncu"):
        driver.find_ncu(str(tmp_path / "nope"), {}, ())
    with pytest.raises(NcuError, match=r"by ROOFLINE_NCU .*: not an executable file"):
        driver.find_ncu(None, {"ROOFLINE_NCU": str(tmp_path)}, ())
    with pytest.raises(NcuError, match=r"ncu \(Nsight Compute CLI\) not found on PATH or in /nowhere/\*/ncu: "
                                       r"install Nsight Compute, then "
                                       r"pass --ncu PATH or set ROOFLINE_NCU") as err:
        driver.find_ncu(None, {"PATH": str(tmp_path)}, ("/nowhere/*/ncu",))
    assert err.value.exit_code == 3


def test_ncu_version_needs_a_version_line(tmp_path: Path) -> None:
    fake = tmp_path / "ncu"
    fake.write_text("#!/bin/sh\necho hello\n")
    fake.chmod(0o755)
    with pytest.raises(NcuError, match="printed no 'Version YYYY.R.P' line"):
        driver.ncu_version(str(fake))


@pytest.mark.parametrize("version, options, what", [
    ((2021, 2, 0), NcuOptions(), "--set roofline (needs 2021.3 or newer)"),
    ((2020, 3, 1), NcuOptions(section_set="full", kernel=kernel_filter.parse(["k"])),
     "-k with --kernel-name-base and regex: (needs 2021.1 or newer)"),
    ((2020, 3, 1), NcuOptions(section_set="full", kernel=kernel_filter.parse([], "demangled")),
     "-k with --kernel-name-base and regex: (needs 2021.1 or newer)"),
    ((2020, 1, 0), NcuOptions(section_set="full"), "--log-file (needs 2020.2 or newer)"),
    ((2021, 2, 0), NcuOptions(section_set="full", sections=("SpeedOfLight_HierarchicalTensorRooflineChart",)),
     "--section SpeedOfLight_HierarchicalTensorRooflineChart (needs 2021.3"),
    ((2021, 3, 0), NcuOptions(replay_mode="range"), "--replay-mode range (needs 2022.1"),
])
def test_check_version_too_old(version: tuple[int, ...], options: NcuOptions, what: str) -> None:
    install = NcuInstall("/opt/ncu", version, "on PATH")
    with pytest.raises(NcuError, match="is too old for " + re.escape(what)) as err:
        driver.check_version(install, options)
    assert "install a newer Nsight Compute and pass --ncu PATH or set ROOFLINE_NCU" in str(err.value)


def test_check_version_accepts_new_enough() -> None:
    driver.check_version(NcuInstall("ncu", (2022, 3, 0, 0), "on PATH"),
                         NcuOptions(kernel=kernel_filter.parse(["regex:x"]), replay_mode="range"))
    driver.check_version(NcuInstall("ncu", (2020, 3, 1, 0), "on PATH"), NcuOptions(section_set="full"))


# --- command line -------------------------------------------------------------------------------


APP = ["/usr/bin/python3", "app.py", "a b", "it's", "x;y", "$(touch pwned)"]


def test_build_argv_defaults() -> None:
    argv = driver.build_argv("ncu", NcuOptions(), "out/app.ncu-rep", "out/app.ncu.log", APP)
    assert argv == ["ncu", "--target-processes", "all", "--set", "roofline",
                    "--log-file", "out/app.ncu.log", "-o", "out/app.ncu-rep", *APP]


def test_build_argv_without_a_section_set() -> None:
    argv = driver.build_argv("ncu", NcuOptions(section_set=None, metrics="gpu__time_duration.sum"), "r.ncu-rep",
                             "r.ncu.log", APP)
    assert argv == ["ncu", "--target-processes", "all", "--metrics", "gpu__time_duration.sum",
                    "--log-file", "r.ncu.log", "-o", "r.ncu-rep", *APP]


def test_build_argv_every_option() -> None:
    options = NcuOptions(section_set="full", sections=("Occupancy", "LaunchStats"), metrics="a.sum,b.sum",
                         kernel=kernel_filter.parse(["regex:gemm"], "demangled"), launch_skip=2, launch_count=1,
                         nvtx_include=("A/", "B@c"), replay_mode="application", clock_control="none",
                         extra=("--cache-control", "none"), force=True)
    argv = driver.build_argv("/opt/ncu", options, "r.ncu-rep", "r.ncu.log", APP)
    assert argv == ["/opt/ncu", "--target-processes", "all", "--set", "full",
                    "--section", "Occupancy", "--section", "LaunchStats", "--metrics", "a.sum,b.sum",
                    "-k", "regex:gemm", "--kernel-name-base", "demangled", "-s", "2", "-c", "1",
                    "--nvtx", "--nvtx-include", "A/", "--nvtx-include", "B@c",
                    "--replay-mode", "application", "--clock-control", "none", "--import-source", "yes",
                    "--cache-control", "none", "-f", "--log-file", "r.ncu.log", "-o", "r.ncu-rep", *APP]


def test_launch_skip_zero_is_passed() -> None:
    argv = driver.build_argv("ncu", NcuOptions(launch_skip=0), "r.ncu-rep", "r.log", ["app"])
    assert argv[argv.index("-s") + 1] == "0"


def test_shell_command_quotes_for_copy_paste() -> None:
    assert driver.shell_command(["ncu", "-k", "regex:a b", "app", "$(x)", "it's"]) == \
        "ncu -k 'regex:a b' app '$(x)' 'it'\"'\"'s'"


# --- application and report names ---------------------------------------------------------------


def test_resolve_app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "app.py").write_text("pass\n")
    assert driver.resolve_app(["app.py", "-n", "3"]) == [sys.executable, "app.py", "-n", "3"]
    exe = tmp_path / "bin" / "tool"
    exe.parent.mkdir()
    exe.write_text("#!/bin/sh\n")
    exe.chmod(0o755)
    assert driver.resolve_app(["./bin/tool", "x"]) == [str(exe), "x"]
    monkeypatch.setenv("PATH", str(exe.parent))
    assert driver.resolve_app(["tool"]) == [str(exe)]
    with pytest.raises(RooflineError, match="missing.py: no such Python script: check the path"):
        driver.resolve_app(["missing.py"])
    with pytest.raises(RooflineError, match=r"nosuchtool: not found or not executable: give the application's "
                                            r"path \(e.g. ./app\) or put it on PATH"):
        driver.resolve_app(["nosuchtool"])


def test_report_template(tmp_path: Path) -> None:
    assert driver.report_template(None, "app") == "app.ncu-rep"
    assert driver.report_template(str(tmp_path), "app") == str(tmp_path / "app.ncu-rep")
    assert driver.report_template("new/dir/", "app") == "new/dir/app.ncu-rep"
    assert driver.report_template("runs/first", "app") == "runs/first.ncu-rep"
    assert driver.report_template("runs/first.ncu-rep", "app") == "runs/first.ncu-rep"
    rank = {"OMPI_COMM_WORLD_RANK": "0"}
    assert driver.report_template("r/x_%q{OMPI_COMM_WORLD_RANK}_%h_%p_%i", "app", env=rank) == \
        "r/x_%q{OMPI_COMM_WORLD_RANK}_%h_%p_%i.ncu-rep"
    assert driver.report_template("out/", "app", tag=".rank3.node1") == "out/app.rank3.node1.ncu-rep"
    assert driver.app_name(["../bin/sgemm", "1024"]) == "sgemm"
    assert driver.app_name(["examples/pytorch_matmul.py"]) == "pytorch_matmul"


def test_the_folder_macros_are_filled_in_and_the_file_names_left_to_ncu(monkeypatch: pytest.MonkeyPatch) -> None:
    """ncu 2022.3 takes its macros only in the file name ("Macro '%h' can only be used in the file name and not in
    the file path"): roofline fills in the folder's, a % in the result doubled so that ncu reads it as it is."""
    monkeypatch.setattr(driver.socket, "gethostname", lambda: "node7")
    env = {"OMPI_COMM_WORLD_RANK": "3", "PCT": "50%"}
    assert driver.report_template("rep_%h/x", "app", env=env) == "rep_node7/x.ncu-rep"
    assert driver.report_template("r_%q{OMPI_COMM_WORLD_RANK}/", "app", ".rank3.node7", env) == \
        "r_3/app.rank3.node7.ncu-rep"
    assert driver.report_template("100%%/%q{PCT}/x_%h_%p", "app", env=env) == "100%%/50%%/x_%h_%p.ncu-rep"
    assert driver.report_template(None, "50%", env=env) == "50%%.ncu-rep"  # an application named 50%.py


@pytest.mark.parametrize("output, error", [
    ("rep_%p/x", "--output rep_%p/x: ncu's %p and %i are known only once ncu runs, so they cannot name the report's "
                 "folder: put them in the report's file name (e.g. -o out/app_%p)"),
    ("r_%i/", "--output r_%i/: ncu's %p and %i are known only once ncu runs"),
    ("rep_%z", "--output rep_%z: '%z' is not one of ncu's macros (%h %p %q{VAR} %i %%): write %% for a literal %"),
    ("50%/x", "--output 50%/x: '%/' is not one of ncu's macros"),
    ("x_%q", "--output x_%q: '%q' is not one of ncu's macros"),
    ("r_%q{PMI_RANK}/", "--output r_%q{PMI_RANK}/: %q{PMI_RANK}: the environment variable PMI_RANK is not set: name "
                        "a variable this run sets"),  # filled as "", every rank would have shared one folder r_/
])
def test_macros_ncu_would_refuse_are_refused_before_it_runs(output: str, error: str) -> None:
    with pytest.raises(UsageError) as err:
        driver.report_template(output, "app", env={})
    assert str(err.value).startswith(error) and err.value.exit_code == 2


def test_an_existing_folder_named_with_macros_is_a_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "runs_7").mkdir()
    assert driver.report_template("runs_%q{JOB}", "app", env={"JOB": "7"}) == "runs_7/app.ncu-rep"


def test_expand_macros(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(driver.socket, "gethostname", lambda: "node7")
    env = {"RUN": "42"}
    assert driver.expand_macros("a_%h_%q{RUN}_%q{UNSET}_100%%.ncu-rep", env, None) == "a_node7_42__100%.ncu-rep"
    assert driver.expand_macros("a_%p.ncu-rep", env, None) is None
    assert driver.expand_macros("a_%i.ncu-rep", env, None) is None
    assert driver.expand_macros("a_%%p.ncu-rep", env, None) == "a_%p.ncu-rep"
    assert driver.expand_macros("a_%p_%i.ncu-rep", env, "99") == "a_99_99.ncu-rep"


def test_refuse_overwrite(tmp_path: Path) -> None:
    existing = tmp_path / "app.ncu-rep"
    existing.write_bytes(b"old")
    with pytest.raises(RooflineError, match="app.ncu-rep: report already exists: pass --force to overwrite it, "
                                            "or choose another --output") as err:
        driver.refuse_overwrite(str(existing), force=False)
    assert err.value.exit_code == 2
    driver.refuse_overwrite(str(existing), force=True)
    driver.refuse_overwrite(str(tmp_path / "other.ncu-rep"), force=False)
    driver.refuse_overwrite(str(tmp_path / "app%p.ncu-rep"), force=False)  # ncu fills %p with a new PID


def test_a_file_where_ncu_writes_its_log_is_never_replaced_without_force(tmp_path: Path) -> None:
    """A user's ``keep.ncu.log`` beside the report to be written: refused before ncu runs (ncu would write its log
    there, and a failed run leaves it), replaced only with --force."""
    mine = tmp_path / "keep.ncu.log"
    mine.write_text("my notes")
    with pytest.raises(RooflineError, match="keep.ncu.log: exists, and ncu writes its log there .*: pass --force to "
                                            "replace it, or choose another --output") as err:
        driver.refuse_overwrite(str(tmp_path / "keep.ncu-rep"), force=False)
    assert err.value.exit_code == 2 and mine.read_text() == "my notes"
    driver.refuse_overwrite(str(tmp_path / "keep.ncu-rep"), force=True)


def test_a_log_roofline_marked_is_replaced_without_force(tmp_path: Path) -> None:
    """The log of an earlier run that wrote no report (``mark_log`` put roofline's mark on it) is no reason to refuse
    the retry; a link to such a log, or a file whose mark is not on its first line, still is."""
    log = tmp_path / "app.ncu.log"
    log.write_text("==ERROR== The application returned an error code (1).\n")
    driver.mark_log(log)
    assert log.read_text() == driver.LOG_MARK + "==ERROR== The application returned an error code (1).\n"
    assert driver.log_is_ours(log)
    driver.refuse_overwrite(str(tmp_path / "app.ncu-rep"), force=False)
    (tmp_path / "link.ncu.log").symlink_to(log)
    (tmp_path / "late.ncu.log").write_text("notes\n" + driver.LOG_MARK)
    for name in ("link", "late"):
        assert not driver.log_is_ours(tmp_path / f"{name}.ncu.log")
        with pytest.raises(RooflineError, match=f"{name}.ncu.log: exists, and ncu writes its log there"):
            driver.refuse_overwrite(str(tmp_path / f"{name}.ncu-rep"), force=False)


def test_a_log_of_another_version_of_roofline_is_ours(tmp_path: Path) -> None:
    log = tmp_path / "app.ncu.log"
    log.write_text("# generated by roofline 9.9.9\n==PROF== Disconnected from process 1\n")
    assert driver.log_is_ours(log)


@pytest.mark.parametrize("output, folder, error", [
    ("afile/rep", "afile", "afile: cannot write the report there (not a folder): choose another folder with --output"),
    ("afile/sub/rep", "afile/sub", "afile/sub: cannot make the report's folder ({tmp}/afile: not a folder): choose "
                                   "another folder with --output"),
])
def test_a_report_folder_under_a_file_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, output: str,
                                                 folder: str, error: str) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "afile").write_text("")
    with pytest.raises(RooflineError) as err:
        driver.refuse_unwritable_folder(driver.report_template(output, "app"))
    assert str(err.value) == error.format(tmp=tmp_path) and err.value.exit_code == 2


@pytest.mark.parametrize("read_only, why", [(True, "read-only file system"), (False, "permission denied")])
def test_a_report_folder_that_takes_no_file_is_refused_with_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                read_only: bool, why: str) -> None:
    """As root, permissions do not stop a write: the folder's answers (access, the file system's flags) stand in."""
    import os

    from roofline.core import files

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(files.os, "access", lambda path, mode: Path(path) != tmp_path)
    flags = os.ST_RDONLY if read_only else 0
    monkeypatch.setattr(files.os, "statvfs", lambda path: type("V", (), {"f_flag": flags})())
    with pytest.raises(RooflineError, match=f"^the current folder {tmp_path}: cannot write the report there "
                                            f"\\({why}\\): make it writable, or choose another folder with --output$"):
        driver.refuse_unwritable_folder(driver.report_template(None, "app"))
    with pytest.raises(RooflineError, match=f"^new: cannot make the report's folder \\({tmp_path}: {why}\\)"):
        driver.refuse_unwritable_folder(driver.report_template("new/", "app"))
    (tmp_path / "ok").mkdir()
    driver.refuse_unwritable_folder(str(tmp_path / "ok" / "app.ncu-rep"))  # a folder that takes files: no error


@pytest.mark.parametrize("step", ["mkdir", "unlink"])
def test_a_folder_that_fails_while_profiling_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         step: str) -> None:
    """Past the checks (a race, a file system that answered wrong), the OSError of making the folder or of clearing
    the old log is still one line naming the path; ncu does not start."""
    import errno

    def fail(*_: Any, **__: Any) -> None:
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(Path, step, fail)
    monkeypatch.setattr(driver.subprocess, "Popen", lambda *a, **k: pytest.fail("ncu must not start"))
    plan = driver.make_plan("ncu", NcuOptions(), str(tmp_path / "out" / "app.ncu-rep"), ["app"])
    with pytest.raises(RooflineError) as err:
        driver.profile(plan)
    what = "cannot make the report's folder" if step == "mkdir" else "cannot replace ncu's log"
    shown = tmp_path / "out" if step == "mkdir" else plan.log_file
    assert str(err.value) == (f"{shown}: {what} (Read-only file system): make it writable, or choose another "
                              "folder with --output")


def test_no_log_to_mark_is_no_error(tmp_path: Path) -> None:
    driver.mark_log(tmp_path / "never.ncu.log")
    assert list(tmp_path.iterdir()) == []


def test_log_path_sits_beside_the_report(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(driver.os, "getpid", lambda: 1234)
    assert driver.log_path("out/app.ncu-rep", {}) == Path("out/app.ncu.log")
    assert driver.log_path("out/app_%p.ncu-rep", {}) == Path("out/app_1234.ncu.log")


# --- interpreting outcomes (ncu 2022.3's messages) ---------------------------------------------------


def _plan(**options: Any) -> driver.Plan:
    return driver.Plan("/usr/bin/ncu", NcuOptions(**options), "out/app.ncu-rep", Path("out/app.ncu.log"),
                       ("/usr/bin/python3", "app.py", "a b"))


def _outcome(messages: list[str], returncode: int = 0, plan: driver.Plan | None = None, **run: Any) -> Path:
    return driver.check_outcome(NcuRun(returncode=returncode, messages=messages, **run), plan or _plan())


@pytest.fixture
def logged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A current folder where ncu wrote its log (out/app.ncu.log, the plan's): the hints may name it."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "app.ncu.log").write_text("==PROF== Connected to process 1\n")
    return tmp_path


NO_DRIVER = [
    "==ERROR== Nsight Compute failed to connect to the CUDA driver (stub libcuda.so[.1] on path?).",
    "==ERROR== The application returned an error code (1).",
    "==WARNING== No kernels were profiled.",
]


@pytest.mark.parametrize("messages, rc, error, text", [
    (NO_DRIVER, 1, NcuError, "ncu could not connect to the CUDA driver: run on a machine with an NVIDIA GPU"),
    (NO_DRIVER, 0, NcuError, "ncu could not connect to the CUDA driver"),  # --check-exit-code 0: still a failure
    (["==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance Counters "
      "on the target device 0.", "==WARNING== No kernels were profiled."], 0, CountersDenied,
     "denied access to the GPU performance counters (ERR_NVGPUCTRPERM): run as root, or load the nvidia driver "
     "with NVreg_RestrictProfilingToAdminUsers=0; in a container add --cap-add=SYS_ADMIN"),
    (["==ERROR== File app.ncu-rep already exists. Use '-f' for overwriting the file."], 255, NcuError,
     "ncu refused to overwrite app.ncu-rep: pass --force, or choose another --output"),
    (["==ERROR== Unable to write to file app.ncu-rep. Please verify this file is not locked, and writable."], 255,
     NcuError, "ncu cannot write the report out/app.ncu-rep: make its folder writable"),
    (["==ERROR== Option '--section Bogus' did not match any section.",
      "==ERROR== Use --list-sections to see the list of available sections."], 255, NcuError,
     "ncu: --section 'Bogus' matches no section: list the sections with: /usr/bin/ncu --list-sections"),
    (["==ERROR== 'nosuchapp' does not exist or is not an executable. Please make sure to specify the absolute "
      "path to 'nosuchapp' if the executable is not in the local directory."], 255, NcuError,
     "ncu cannot start 'nosuchapp': not an executable"),
    (["the argument for option '--replay-mode' is invalid"], 255, NcuError,
     "ncu rejected its command line: the argument for option '--replay-mode' is invalid: check the option values"),
    (["unrecognised option '--bogus'"], 255, NcuError, "ncu rejected its command line: unrecognised option"),
    (["the argument ('99999999999999999999') for option '--launch-skip' is invalid"], 255, NcuError,
     "ncu rejected its command line: the argument ('99999999999999999999') for option '--launch-skip' is invalid: "
     "check the option values"),
    (["The value for option --sampling-interval needs to be between 0 and 31."], 255, NcuError,
     "ncu rejected its command line: The value for option --sampling-interval needs to be between 0 and 31: check"),
    (["Please specify non-zero launch count"], 255, NcuError,
     "ncu rejected its command line: Please specify non-zero launch count: check"),
    (["option '--kernel-name' cannot be specified more than once"], 255, NcuError,
     "ncu rejected its command line: option '--kernel-name' cannot be specified more than once: check"),
    (["==PROF== Connected to process 1 (/usr/bin/python3)", "==ERROR== The application returned an error code (7).",
      "==PROF== Report: /abs/out/app.ncu-rep"], 1, driver.AppFailed,
     "the application exited with code 7 under ncu: /usr/bin/python3 app.py 'a b': fix the application"),
    (["==WARNING== No kernels were profiled."], 0, NoKernelMatched,
     "ncu profiled no kernel of: /usr/bin/python3 app.py 'a b': the application launched no CUDA kernel"),
    (["==ERROR== Failed to access the following 2 metrics: a, b"], 0, NcuError,
     "ncu: Failed to access the following 2 metrics: a, b: see ncu's log out/app.ncu.log"),
    (["==ERROR== Option import-source is not supported during range replay."], 1, NcuError,
     "ncu: Option import-source is not supported during range replay: see ncu's log"),  # not "replay.: see"
    ([], 9, NcuError, "ncu exited with code 9: see ncu's log out/app.ncu.log"),
    ([], -signal.SIGSEGV, NcuError, "ncu was killed by SIGSEGV: see ncu's log out/app.ncu.log"),
    ([], -200, NcuError, "ncu was killed by signal 200: see ncu's log"),
    ([], 0, NcuError, "ncu finished but wrote no report out/app.ncu-rep: see ncu's log out/app.ncu.log"),
])
def test_outcomes(logged: Path, messages: list[str], rc: int, error: type[RooflineError], text: str) -> None:
    with pytest.raises(error) as err:
        _outcome(messages, rc)
    assert type(err.value) is error
    assert text in str(err.value)
    assert "\n" not in str(err.value)


def test_an_app_failure_after_profiled_kernels_names_the_report_and_how_to_analyse_it(logged: Path) -> None:
    """The application crashed at exit after ncu profiled two launches and wrote the report: the line says the report
    was written and gives `roofline report FILE`; without profiled kernels (or without the file) it does not."""
    report = logged / "out" / "app.ncu-rep"
    report.write_bytes(b"report")
    messages = ["==PROF== Connected to process 1 (/usr/bin/python3)", "==ERROR== The application returned an error "
                "code (7).", f"==PROF== Report: {report}"]
    with pytest.raises(driver.AppFailed) as failed:
        _outcome(messages, 7, kernels=["k1", "k2"], report=str(report))  # ncu's "Report:" line, as collected
    assert str(failed.value) == ("the application exited with code 7 under ncu: /usr/bin/python3 app.py 'a b': ncu "
                                 "profiled 2 kernel launches before and wrote the report: analyse it with: "
                                 f"roofline report {report}; or fix the application (its last lines are above; ncu's "
                                 "log: out/app.ncu.log)")
    with pytest.raises(driver.AppFailed) as none_profiled:
        _outcome(messages, 7, report=str(report))
    assert "roofline report" not in str(none_profiled.value)
    report.unlink()
    with pytest.raises(driver.AppFailed) as not_written:
        _outcome(messages, 7, kernels=["k1"], report=str(report))
    assert "roofline report" not in str(not_written.value)


def test_exit_codes_of_failures(logged: Path) -> None:
    with pytest.raises(driver.AppFailed) as failed:
        _outcome(["==ERROR== The application returned an error code (7)."], 1)
    assert (failed.value.app_exit_code, failed.value.exit_code) == (7, 3)
    with pytest.raises(NoKernelMatched) as none:
        _outcome(["==WARNING== No kernels were profiled."])
    assert none.value.exit_code == 2
    with pytest.raises(driver.ProfilingInterrupted, match="profiling stopped by SIGINT: partial output kept: "
                                                          "ncu's log out/app.ncu.log") as stopped:
        _outcome(["==PROF== Profiling \"k\" - 0: 0%"], 0, signum=signal.SIGINT)
    assert stopped.value.exit_code == 130


@pytest.mark.parametrize("messages, rc, signum, text", [
    (["==ERROR== Failed to access the following 2 metrics: a, b"], 0, None,
     "ncu: Failed to access the following 2 metrics: a, b: see ncu's messages above (it wrote no log)"),
    ([], 255, None, "ncu exited with code 255: see ncu's messages above (it wrote no log)"),
    ([], 0, None, "ncu finished but wrote no report out/app.ncu-rep: see ncu's messages above (it wrote no log)"),
    (["==ERROR== The application returned an error code (7)."], 1, None, "fix the application (its last lines are "
                                                                          "above)"),
    ([], 0, signal.SIGINT, "partial output kept: report out/app.ncu-rep if ncu wrote one; run again to profile "
                           "fully"),
])
def test_a_log_ncu_did_not_write_is_never_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                messages: list[str], rc: int, signum: int | None, text: str) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(RooflineError) as err:
        _outcome(messages, rc, signum=signum)
    assert str(err.value).endswith(text) and "app.ncu.log" not in str(err.value)


@pytest.mark.parametrize("line", ["ModuleNotFoundError: No module named 'torch'",
                                  "ImportError: cannot import name 'x' from 'y' (/lib/y.py)"])
def test_a_script_missing_a_module_says_which_python_ran_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                            line: str) -> None:
    monkeypatch.chdir(tmp_path)
    plan = driver.Plan("ncu", NcuOptions(), "t.ncu-rep", Path("t.ncu.log"), (sys.executable, "t.py", "--n", "2"))
    with pytest.raises(driver.AppFailed) as err:
        _outcome(["==ERROR== The application returned an error code (1)."], 1, plan,
                 tail=deque(["Traceback (most recent call last):", '  File "t.py", line 1', line]))
    reason = line.split(": ", 1)[1]
    assert str(err.value).endswith(f": t.py ran with roofline's own Python, {sys.executable} ({reason}); name the "
                                   "Python that has the module before the script: -- /path/to/python t.py --n 2 (its "
                                   "last lines are above)")


@pytest.mark.parametrize("app", [("/usr/bin/app", "t.py"), (sys.executable, "-c", "import torch")])
def test_an_import_error_of_an_application_roofline_did_not_start_is_the_applications(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, app: tuple[str, ...]) -> None:
    monkeypatch.chdir(tmp_path)
    plan = driver.Plan("ncu", NcuOptions(), "t.ncu-rep", Path("t.ncu.log"), app)
    with pytest.raises(driver.AppFailed, match="fix the application \\(its last lines are above\\)$"):
        _outcome(["==ERROR== The application returned an error code (1)."], 1, plan,
                 tail=deque(["ModuleNotFoundError: No module named 'torch'"]))


@pytest.mark.parametrize("options, hint", [
    ({"kernel": kernel_filter.parse(["gemm"])}, "no launch's function name matched --kernel 'gemm'; list the names "
                                                "by running without --kernel, or try --kernel-name-base demangled"),
    ({"kernel": kernel_filter.parse(["f<int>", "exact:g"], "demangled")},
     "no launch's demangled name matched --kernel 'f<int>' or 'exact:g'"),
    ({"kernel": kernel_filter.parse(["ampere_sgemm"])},
     "'ampere_sgemm' names cuBLAS FP32 GEMM kernels for Ampere (sm_80), and on other GPUs the library runs kernels "
     "of other names: try --kernel gemm"),
    ({"nvtx_include": ("A/",)}, "--nvtx-include or --launch-skip excluded every launch"),
    ({"launch_skip": 100}, "--nvtx-include or --launch-skip excluded every launch"),
])
def test_no_kernels_hint_names_the_filter(options: dict[str, object], hint: str) -> None:
    with pytest.raises(NoKernelMatched, match=re.escape(hint)):
        _outcome(["==WARNING== No kernels were profiled."], plan=_plan(**options))


def test_success_uses_the_reported_path(tmp_path: Path) -> None:
    report = tmp_path / "x_123.ncu-rep"
    report.write_bytes(b"NVR\0")
    assert _outcome([f"==PROF== Report: {report}"], report=str(report)) == report
    plan = driver.Plan("ncu", NcuOptions(), str(report), tmp_path / "x.ncu.log", ("app",))
    assert driver.check_outcome(NcuRun(), plan) == report


# --- running the stand-in ncu ---------------------------------------------------------------------


def test_run_ncu_streams_and_collects(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                      capfd: pytest.CaptureFixture[str]) -> None:
    fake = fakencu.install(monkeypatch, tmp_path)
    app = tmp_path / "app.py"
    app.write_text("import sys\nprint('app says hi')\nprint('app warns', file=sys.stderr)\n")
    plan = driver.make_plan(fake.path, NcuOptions(), str(tmp_path / "out" / "app.ncu-rep"),
                            [sys.executable, str(app)])
    report = driver.profile(plan)
    assert report == tmp_path / "out" / "app.ncu-rep" and report.read_bytes()[:4] == b"NVR\0"
    err = capfd.readouterr().err
    assert "app says hi" in err and "app warns" in err and '==PROF== Profiling "kernel_C"' in err
    first, second = plan.log_file.read_text().splitlines()[:2]
    assert first == driver.LOG_MARK.strip() and second.startswith("==PROF== Connected to process")


def test_run_ncu_collects_messages(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = fakencu.install(monkeypatch, tmp_path)
    log = tmp_path / "r.ncu.log"
    log.write_text("==ERROR== stale message from an earlier run\n")
    argv = driver.build_argv(fake.path, NcuOptions(), str(tmp_path / "r.ncu-rep"), str(log),
                             [sys.executable, "-c", "print('one'); print('two')"])
    run = driver.run_ncu(argv, log)
    assert run.returncode == 0 and run.signum is None
    assert run.kernels == ["kernel_A", "kernel_C"]
    assert list(run.tail) == ["one", "two"]
    assert run.report == str(tmp_path / "r.ncu-rep")
    assert not any("stale" in m for m in run.messages)


def test_log_tail_waits_for_whole_lines(tmp_path: Path) -> None:
    log = tmp_path / "x.log"
    tail = driver._LogTail(log)
    assert tail.read() == []
    log.write_bytes(b'==PROF== Profiling "k\xc3')
    assert tail.read() == []
    with log.open("ab") as fh:
        fh.write(b'\xa9" - 0: 0%....50%....100% - 9 passes\n==PROF== Disc')
    assert tail.read() == ['==PROF== Profiling "k\u00e9" - 0: 0%....50%....100% - 9 passes']
    assert tail.read(final=True) == ["==PROF== Disc"]


def test_ctrl_c_reaches_ncu_and_the_app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fakencu.install(monkeypatch, tmp_path)
    marker, ready = tmp_path / "app-got-sigint", tmp_path / "app-sleeping"
    app = tmp_path / "sleeper.py"
    app.write_text(f"import sys, time\ntry:\n    open({str(ready)!r}, 'w').close()\n    time.sleep(60)\n"
                   f"except KeyboardInterrupt:\n    open({str(marker)!r}, 'w').close()\n    sys.exit(130)\n")
    # SIGINT at its default in roofline and so in the app: a shell starts background jobs with it ignored, and an
    # ignored signal stays ignored across exec (then the app would sleep through the Ctrl-C)
    proc = subprocess.Popen([sys.executable, "-m", "roofline", "analyze", "-o", f"{tmp_path / 'out'}/", str(app)],
                            stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    seen = []
    assert proc.stderr is not None
    for line in proc.stderr:  # wait until the stand-in announced a kernel: roofline forwards signals by then
        seen.append(line)
        if "==PROF== Profiling" in line:
            break
    deadline = time.monotonic() + 20  # a signal sent while the app still starts (between fork and exec) is lost
    while not ready.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    rest = proc.communicate(timeout=30)[1]
    assert proc.returncode == 130, "".join(seen) + rest
    assert marker.exists()
    assert "roofline: error: profiling stopped by SIGINT: partial output kept" in rest
    assert "Traceback" not in rest
    assert (tmp_path / "out" / "sleeper.ncu.log").read_text().count("Received signal") == 1


@pytest.mark.parametrize(("options", "imported"), [
    (NcuOptions(section_set="full"), True), (NcuOptions(section_set="detailed"), True),
    (NcuOptions(sections=("SourceCounters",)), True), (NcuOptions(), False),
    (NcuOptions(section_set="full", extra=("--import-source", "no")), False),
    (NcuOptions(section_set="full", replay_mode="range"), False),  # ncu: not supported during range replay
    (NcuOptions(section_set="full", replay_mode="application"), True),
])
def test_the_source_is_imported_with_the_instruction_samples(options: NcuOptions, imported: bool) -> None:
    argv = driver.build_argv("ncu", options, "r.ncu-rep", "r.log", ["app"])
    assert (argv.count("--import-source") == 1 and argv[argv.index("--import-source") + 1] ==
            ("yes" if imported else "no")) or (not imported and "--import-source" not in argv)


@pytest.mark.parametrize(("chosen", "version", "added"), [
    ("full", (2022, 3, 0, 0), True), ("full", (2024, 2, 1), True), ("full", (2025, 1, 0), False),
    ("detailed", (2025, 3, 1), True), ("roofline", (2022, 3, 0), False), ("full", (2021, 1, 0), False),
])
def test_the_richer_sets_get_the_hierarchical_roofline_charts_their_ncu_leaves_out(chosen, version, added) -> None:
    """ncu 2022.3's full set lists SpeedOfLight_RooflineChart alone (ncu --list-sets), so `analyze --set full`
    measured no FP16 or Tensor FLOPs and no kernel-clock L1/L2 roofs, which --set roofline does."""
    options = driver.NcuOptions(section_set=chosen, sections=("Occupancy",))
    got = driver.with_roofline_charts(options, version)
    assert got.sections == (("Occupancy", *driver.HIERARCHICAL_CHARTS) if added else ("Occupancy",))
    argv = driver.build_argv("ncu", got, "r", "r.log", ["app"])
    assert (argv.count("--section") == 5) == added and argv[argv.index("--set") + 1] == chosen


@pytest.mark.parametrize(("command", "name"), [
    (["python", "app.py"], "app"), (["/usr/bin/env", "python3", "-u", "train.py", "--epochs", "2"], "train"),
    (["python3.11", "-m", "bench.py"], "bench"), (["./solver", "in.dat"], "solver"), (["python"], "python")])
def test_a_report_is_named_after_the_program_an_interpreter_runs(command: list[str], name: str) -> None:
    """`wrap -- python app.py` (docs/mpi.md) named every report python.rankR...; two scripts shared one name."""
    assert driver.app_name(command) == name


@pytest.mark.parametrize(("command", "name"), [
    (["env", "CUDA_VISIBLE_DEVICES=1", "./x"], "x"),
    (["/usr/bin/env", "-u", "OMP", "A=1", "B=2", "python3", "-W", "ignore", "train.py"], "train"),
    (["python3", "-m", "torch.utils.bottleneck", "x.py"], "bottleneck"),  # not "torch.utils" (".bottleneck" cut)
    (["python", "-mpkg.mod"], "mod"), (["python", "-um", "pkg.mod"], "mod"), (["python", "-umpkg.mod"], "mod"),
    (["python3", "-Bc", "import a"], "python3"), (["python", "-Wignore", "-uB", "app.py"], "app"),
    (["python", "-", "a"], "python"), (["python", "--check-hash-based-pycs", "always", "app.py"], "app"),
    (["sh", "-c", "exit 7"], "sh"), (["bash", "-c", "./app --size 3"], "bash"),
    (["bash", "-o", "pipefail", "-ec", "x=1 ./app"], "bash"), (["python3", "-c", "import a; a.run()"], "python3"),
    (["bash", "run.sh", "--size", "3"], "run"), (["time", "-p", "./app"], "app"), (["env", "A=1"], "env"),
])
def test_the_report_name_after_a_launcher_is_the_program_it_runs_never_its_code(command: list[str],
                                                                               name: str) -> None:
    """`env VAR=VALUE ./x` was named "CUDA_VISIBLE_DEVICES=1", `python -m a.b.c` "a.b", `sh -c 'exit 7'` "exit 7";
    python's short options run together (`-um pkg.mod`) were read as one unknown option: "pkg.mod"."""
    assert driver.app_name(command) == name


def test_a_default_report_name_never_holds_a_space_or_an_equals_sign() -> None:
    assert driver.app_name(["./my app=1"]) == "my_app_1"


@pytest.mark.parametrize(("command", "name"), [
    (["./solver.v2"], "solver.v2"), (["./solver.v3", "in.dat"], "solver.v3"), (["./a.out"], "a"),
    (["bash", "run.SH"], "run"), (["./app.exe"], "app"), (["./bench.jl"], "bench")])
def test_a_report_name_drops_only_a_script_or_executable_extension(command: list[str], name: str) -> None:
    """`./solver.v2` and `./solver.v3` were both named "solver": the second run's report collided with the first's."""
    assert driver.app_name(command) == name


@pytest.mark.parametrize(("version", "imported"), [((2020, 2, 1, 0), False), ((2020, 3, 0, 0), True),
                                                   ((2022, 3, 0, 0), True)])
def test_import_source_is_left_out_for_an_ncu_older_than_the_option(version: tuple[int, ...],
                                                                    imported: bool) -> None:
    """--import-source came with ncu 2020.3 (its release notes); 2020.2 passed the version check and then refused
    the option roofline adds for --set full."""
    options = driver.for_version(NcuOptions(section_set="full"), version)
    argv = driver.build_argv("ncu", options, "r", "r.log", ["app"])
    assert ("--import-source" in argv) == imported
    driver.check_version(NcuInstall("/usr/bin/ncu", version, "on PATH"), dataclasses.replace(options,
                                                                                            section_set="detailed"))


def test_an_unset_variable_in_the_reports_file_name_is_refused_before_ncu_runs() -> None:
    """ncu refuses %q{VAR} of an unset VAR ("Failed to read environment variable"); filled as "", it was found only
    once ncu ran (exit 3, a stray log). The folder's were refused already; the file name's now are too."""
    from roofline.errors import UsageError

    with pytest.raises(UsageError, match=r"%q\{NOTSET\}: the environment variable NOTSET is not set"):
        driver.report_template("y_%q{NOTSET}", "app", env={})
    assert driver.report_template("y_%q{RANK}", "app", env={"RANK": "3"}).endswith("y_%q{RANK}.ncu-rep")
