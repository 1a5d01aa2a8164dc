"""`roofline wrap` on one rank (rank variables set by hand): who runs ncu, report names, exit codes."""

from __future__ import annotations

import json
import shlex
import socket
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from roofline import pipeline
from roofline.cli.app import app
from roofline.cli.commands import wrap as wrap_cmd
from tests.fake_ncu import fakencu

HOST = socket.gethostname()
RANK_VARS = ("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "PMIX_RANK", "PMI_RANK", "MV2_COMM_WORLD_RANK",
             "PALS_RANKID", "SLURM_PROCID", "MPI_LOCALRANKID", "MV2_COMM_WORLD_LOCAL_RANK", "PALS_LOCAL_RANKID",
             "PMI_LOCAL_RANK", "SLURM_LOCALID")


class Exec(Exception):
    """Raised by the stand-in for os.execv."""


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Current folder with app.py, no rank variables, and no analysis allowed (wrap never analyses)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "app.py").write_text("import json, sys\njson.dump(sys.argv[1:], open('app.args', 'w'))\n"
                                     "sys.exit(int(sys.argv[1]) if sys.argv[1:] and sys.argv[1].isdigit() else 0)\n")
    for name in RANK_VARS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(pipeline, "analyze_files", lambda *a: pytest.fail("wrap must not analyse"))
    return tmp_path


@pytest.fixture
def execs(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """Record os.execv calls (the unprofiled ranks) instead of replacing the test process."""
    calls: list[list[str]] = []

    def fake_execv(path: str, argv: list[str]) -> None:
        calls.append([path, *argv])
        raise Exec

    monkeypatch.setattr(wrap_cmd.os, "execv", fake_execv)
    return calls


def invoke(*args: str) -> Result:
    return CliRunner().invoke(app, ["wrap", *args])


def error_lines(result: Result) -> list[str]:
    return [line for line in result.stderr.splitlines() if line.startswith("roofline: error:")]


def test_chosen_rank_runs_ncu_with_rank_and_host_in_the_name(work: Path, monkeypatch: pytest.MonkeyPatch,
                                                              execs: list) -> None:
    fake = fakencu.install(monkeypatch, work)
    monkeypatch.setenv("OMPI_COMM_WORLD_RANK", "4")
    result = invoke("--ranks", "0,4", "-o", "reports/", "-k", "regex:gemm", "--", "app.py", "a b", "$(x)")
    assert result.exit_code == 0, result.output
    report = f"reports/app.rank4.{HOST}.ncu-rep"
    assert fake.argvs() == [[fake.path, "--target-processes", "all", "--set", "roofline", "-k", "regex:gemm",
                             "--log-file", f"reports/app.rank4.{HOST}.ncu.log", "-o", report,
                             sys.executable, "app.py", "a b", "$(x)"]]
    assert (work / report).is_file() and execs == []
    assert json.loads((work / "app.args").read_text()) == ["a b", "$(x)"]
    assert (f"roofline: rank 4 on {HOST}: wrote {work / report}; analyse with: roofline report "
            f"{work / 'reports'}/*.ncu-rep") in result.stderr


def test_filters_become_one_ncu_alternation(work: Path, monkeypatch: pytest.MonkeyPatch, execs: list) -> None:
    fake = fakencu.install(monkeypatch, work)
    monkeypatch.setenv("PMI_RANK", "0")
    result = invoke("-k", "ampere_sgemm", "-k", "exact:gemm", "--kernel-name-base", "demangled", "app.py")
    assert result.exit_code == 0, result.output
    argv = fake.argvs()[0]
    assert argv[5:9] == ["-k", "regex:ampere_sgemm|^gemm$", "--kernel-name-base", "demangled"]


@pytest.mark.parametrize("rank", ["0", "1"])
def test_dry_run_after_app_is_refused_on_every_rank(work: Path, monkeypatch: pytest.MonkeyPatch, execs: list,
                                                    rank: str) -> None:
    fake = fakencu.install(monkeypatch, work)
    monkeypatch.setenv("PMI_RANK", rank)
    result = invoke("--ranks", "0", "app.py", "--dry-run")
    assert result.exit_code == 2 and fake.argvs() == [] and execs == []
    assert "--dry-run after APP (app.py) would go to the application" in error_lines(result)[0]


def test_other_ranks_exec_the_application(work: Path, monkeypatch: pytest.MonkeyPatch, execs: list) -> None:
    fake = fakencu.install(monkeypatch, work)
    monkeypatch.setenv("PMI_RANK", "1")
    result = invoke("--ranks", "0,4", "app.py", "x;y")
    assert isinstance(result.exception, Exec)
    assert execs == [[sys.executable, sys.executable, "app.py", "x;y"]]
    assert fake.argvs() == []


def test_default_is_rank_zero_and_all_selects_every_rank(work: Path, monkeypatch: pytest.MonkeyPatch,
                                                          execs: list) -> None:
    fake = fakencu.install(monkeypatch, work)
    monkeypatch.setenv("SLURM_PROCID", "0")
    assert invoke("app.py").exit_code == 0
    monkeypatch.setenv("SLURM_PROCID", "7")
    assert invoke("--ranks", "all", "app.py").exit_code == 0
    assert [argv[argv.index("-o") + 1] for argv in fake.argvs()] == [f"app.rank0.{HOST}.ncu-rep",
                                                                     f"app.rank7.{HOST}.ncu-rep"]


def test_local_rank_selects_but_global_rank_names(work: Path, monkeypatch: pytest.MonkeyPatch, execs: list) -> None:
    fake = fakencu.install(monkeypatch, work)
    monkeypatch.setenv("OMPI_COMM_WORLD_RANK", "5")
    monkeypatch.setenv("OMPI_COMM_WORLD_LOCAL_RANK", "1")
    assert invoke("--ranks", "1", "--local-rank", "-o", "r", "app.py").exit_code == 0
    argv = fake.argvs()[0]
    assert argv[argv.index("-o") + 1] == f"r.rank5.{HOST}.ncu-rep"
    assert isinstance(invoke("--ranks", "0", "--local-rank", "app.py").exception, Exec)


def test_application_failure_keeps_its_exit_code(work: Path, monkeypatch: pytest.MonkeyPatch, execs: list) -> None:
    fakencu.install(monkeypatch, work)
    monkeypatch.setenv("OMPI_COMM_WORLD_RANK", "0")
    result = invoke("app.py", "7")
    assert result.exit_code == 7
    assert error_lines(result) == [f"roofline: error: rank 0 on {HOST}: the application exited with code 7 under "
                                   f"ncu: {shlex.join([sys.executable, 'app.py', '7'])}: ncu profiled 2 kernel "
                                   "launches before and wrote the report: analyse it with: roofline report "
                                   f"{work / f'app.rank0.{HOST}.ncu-rep'}; or fix the application (its last lines are "
                                   f"above; ncu's log: app.rank0.{HOST}.ncu.log)"]


@pytest.mark.parametrize("scenario, code, message", [
    ("nodriver", 3, "ncu could not connect to the CUDA driver"),
    ("perm", 3, "(ERR_NVGPUCTRPERM)"),
    ("nokernels", 2, "ncu profiled no kernel of"),
    ("old", 3, "is too old for --set roofline"),
])
def test_ncu_failures_name_the_rank(work: Path, monkeypatch: pytest.MonkeyPatch, execs: list,
                                    scenario: str, code: int, message: str) -> None:
    fakencu.install(monkeypatch, work, scenario)
    monkeypatch.setenv("PMIX_RANK", "2")
    result = invoke("--ranks", "0-3", "app.py")
    assert result.exit_code == code
    [line] = error_lines(result)
    assert line.startswith(f"roofline: error: rank 2 on {HOST}: ") and message in line


def test_existing_report_is_not_overwritten(work: Path, monkeypatch: pytest.MonkeyPatch, execs: list) -> None:
    fake = fakencu.install(monkeypatch, work)
    monkeypatch.setenv("OMPI_COMM_WORLD_RANK", "0")
    (work / f"app.rank0.{HOST}.ncu-rep").write_bytes(b"precious")
    result = invoke("app.py")
    assert result.exit_code == 2 and "report already exists: pass --force" in error_lines(result)[0]
    assert fake.argvs() == []
    assert invoke("--force", "app.py").exit_code == 0
    assert "-f" in fake.argvs()[0]


def test_outside_mpi_and_bad_rank_lists(work: Path, monkeypatch: pytest.MonkeyPatch, execs: list) -> None:
    fakencu.install(monkeypatch, work)
    result = invoke("app.py")
    assert result.exit_code == 2
    assert error_lines(result)[0].startswith("roofline: error: no MPI rank in the environment (looked for ")
    monkeypatch.setenv("PMI_RANK", "0")
    bad = invoke("--ranks", "0,x", "app.py")
    assert bad.exit_code == 2
    assert error_lines(bad) == ["roofline: error: --ranks '0,x': not a rank list: use e.g. 0,4 or 0-3 or all"]


@pytest.mark.parametrize("ranks, shown", [("0", 0), ("4,2", 2), ("all", 0)])
def test_dry_run_outside_mpi_shows_the_first_selected_rank(work: Path, monkeypatch: pytest.MonkeyPatch,
                                                           execs: list, ranks: str, shown: int) -> None:
    fake = fakencu.install(monkeypatch, work)
    result = invoke("--ranks", ranks, "--dry-run", "app.py")
    assert result.exit_code == 0, result.output
    assert shlex.split(result.stdout, comments=True)[0] == fake.path
    assert shlex.split(result.stdout, comments=True)[-3] == f"app.rank{shown}.{HOST}.ncu-rep"
    assert result.stdout.endswith(f"  # rank {shown} on {HOST}: profiled\n")
    note, found = result.stderr.splitlines()
    assert note.startswith("roofline: note: no MPI rank in the environment (looked for ")
    assert note.endswith(f": showing what rank {shown} would run on this host")
    assert found == f"roofline: the command is for ncu 2022.3.0.0 at {fake.path} (found on PATH)"
    assert fake.argvs() == [] and execs == []


def test_dry_run_on_each_kind_of_rank(work: Path, monkeypatch: pytest.MonkeyPatch, execs: list) -> None:
    fake = fakencu.install(monkeypatch, work)
    monkeypatch.setenv("PMI_RANK", "3")
    profiled = invoke("--ranks", "3", "--dry-run", "app.py", "a b")
    assert shlex.split(profiled.stdout, comments=True)[:2] == [fake.path, "--target-processes"]
    assert shlex.split(profiled.stdout, comments=True)[-5:] == ["-o", f"app.rank3.{HOST}.ncu-rep", sys.executable,
                                                                "app.py", "a b"]
    assert profiled.stdout.endswith(f"'a b'  # rank 3 on {HOST}: profiled\n")
    plain = invoke("--ranks", "0", "--dry-run", "app.py", "a b")
    assert shlex.split(plain.stdout, comments=True) == [sys.executable, "app.py", "a b"]
    assert plain.stdout.endswith(f"'a b'  # rank 3 on {HOST}: not profiled\n")
    assert fake.argvs() == [] and execs == []


@pytest.mark.parametrize("rank", ["0", "1"])
@pytest.mark.parametrize("env, ranks, error", [
    ({"OMPI_COMM_WORLD_SIZE": "2"}, "5", "--ranks '5': this job has no rank 5 (OMPI_COMM_WORLD_SIZE=2: ranks 0 to 1): "
                                         "choose ranks from 0 to 1, or all"),
    ({"OMPI_COMM_WORLD_SIZE": "2"}, "0,3", "--ranks '0,3': this job has no rank 3 (OMPI_COMM_WORLD_SIZE=2"),
    ({"OMPI_COMM_WORLD_SIZE": "2"}, "0-300000000", "--ranks '0-300000000': this job has no rank 300000000"),
])
def test_ranks_the_job_does_not_have_are_refused_on_every_rank_before_anything_runs(
        work: Path, monkeypatch: pytest.MonkeyPatch, execs: list, rank: str, env: dict[str, str], ranks: str,
        error: str) -> None:
    fake = fakencu.install(monkeypatch, work)
    monkeypatch.setenv("OMPI_COMM_WORLD_RANK", rank)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    for args in ((), ("--dry-run",)):
        result = invoke("--ranks", ranks, *args, "app.py")
        assert result.exit_code == 2 and result.stderr.startswith(f"roofline: error: {error}")
        assert len(error_lines(result)) == 1 and result.stdout == ""
    assert fake.argvs() == [] and execs == []


@pytest.mark.parametrize("env", [
    {"SLURM_PROCID": "1", "SLURM_NTASKS": "4"},  # srun: ranks 0 to 3
    {"PMI_RANK": "1", "PMI_SIZE": "4", "SLURM_NTASKS": "1"},  # mpiexec in sbatch: the launcher's size, not Slurm's
    {"PMIX_RANK": "1"},  # no size given: nothing to check against
])
def test_ranks_within_the_job_or_of_a_job_of_unknown_size_are_taken(work: Path, monkeypatch: pytest.MonkeyPatch,
                                                                    execs: list, env: dict[str, str]) -> None:
    fakencu.install(monkeypatch, work)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    result = invoke("--ranks", "0,3", "--dry-run", "app.py")
    assert result.exit_code == 0, result.output
    assert result.stdout.endswith(f"  # rank 1 on {HOST}: not profiled\n")


def test_node_local_ranks_are_not_checked_against_the_job_size(work: Path, monkeypatch: pytest.MonkeyPatch,
                                                               execs: list) -> None:
    """Nodes may run different numbers of ranks: --ranks 3 --local-rank profiles the fourth rank of the nodes that
    have one."""
    fakencu.install(monkeypatch, work)
    for name, value in {"OMPI_COMM_WORLD_RANK": "1", "OMPI_COMM_WORLD_SIZE": "2",
                        "OMPI_COMM_WORLD_LOCAL_RANK": "1"}.items():
        monkeypatch.setenv(name, value)
    result = invoke("--ranks", "3", "--local-rank", "--dry-run", "app.py")
    assert result.exit_code == 0 and result.stdout.endswith("not profiled\n")


def test_a_report_folder_that_cannot_be_made_is_one_line_naming_the_rank(work: Path, monkeypatch: pytest.MonkeyPatch,
                                                                         execs: list) -> None:
    fake = fakencu.install(monkeypatch, work)
    monkeypatch.setenv("OMPI_COMM_WORLD_RANK", "0")
    (work / "afile").write_text("")
    result = invoke("-o", "afile/", "--", "app.py")
    assert result.exit_code == 2 and result.stderr == (
        f"roofline: error: rank 0 on {HOST}: afile: cannot write the report there (not a folder): choose another "
        "folder with --output\n")
    assert fake.argvs() == [] and not (work / "app.args").exists()


def test_the_rank_variable_names_the_folder(work: Path, monkeypatch: pytest.MonkeyPatch, execs: list) -> None:
    """ncu takes %q{VAR} only in the file name: roofline fills in the folder's, so each rank writes to its own."""
    fake = fakencu.install(monkeypatch, work)
    monkeypatch.setenv("OMPI_COMM_WORLD_RANK", "4")
    result = invoke("--ranks", "4", "-o", "r_%q{OMPI_COMM_WORLD_RANK}/", "app.py")
    assert result.exit_code == 0, result.output
    argv = fake.argvs()[0]
    assert argv[argv.index("-o") + 1] == f"r_4/app.rank4.{HOST}.ncu-rep"
    assert (work / "r_4" / f"app.rank4.{HOST}.ncu-rep").is_file() and not (work / "r_%q{OMPI_COMM_WORLD_RANK}").exists()


@pytest.mark.parametrize("ranks", ["0", "1"])
def test_a_missing_application_is_named_with_the_rank_and_host(work: Path, monkeypatch: pytest.MonkeyPatch,
                                                               execs: list, ranks: str) -> None:
    """An application's path can differ between nodes (node-local /tmp, modules): like the other errors that can,
    the line names the rank and host, on a profiled rank and on one that is not."""
    fake = fakencu.install(monkeypatch, work)
    monkeypatch.setenv("OMPI_COMM_WORLD_RANK", "0")
    result = invoke("--ranks", ranks, "--", "./nope")
    assert result.exit_code == 2
    assert error_lines(result) == [f"roofline: error: rank 0 on {HOST}: ./nope: not found or not executable: give the "
                                   "application's path (e.g. ./app) or put it on PATH"]
    assert fake.argvs() == [] and execs == []


def test_an_empty_option_value_is_refused_on_every_rank(work: Path, monkeypatch: pytest.MonkeyPatch,
                                                        execs: list) -> None:
    fake = fakencu.install(monkeypatch, work)
    monkeypatch.setenv("OMPI_COMM_WORLD_RANK", "0")
    result = invoke("-o", "", "app.py")
    assert result.exit_code == 2
    assert error_lines(result) == ["roofline: error: --output '': an empty value: give --output a value, or leave it "
                                   "out"]
    assert fake.argvs() == [] and execs == []
