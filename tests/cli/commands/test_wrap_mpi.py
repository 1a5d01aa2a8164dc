"""`roofline wrap` under a real mpiexec (4 ranks on this machine) with the stand-in ncu on PATH."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fake_ncu import fakencu

MPIEXEC = shutil.which("mpiexec")
pytestmark = pytest.mark.skipif(MPIEXEC is None, reason="no mpiexec on PATH (install openmpi-bin or mpich, "
                                                        "e.g. with .ci/install-system-tools)")
RANKS = 4
APP = """import os, sys
rank = next(os.environ[v] for v in ("OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK") if v in os.environ)
open("ran." + rank, "w").write(" ".join(sys.argv[1:]))
sys.exit(3 if "fail-on-" + rank in sys.argv else 0)
"""


def mpiexec(*args: str) -> subprocess.CompletedProcess[str]:
    """Run ``mpiexec -n 4 python -m roofline wrap ARGS``; Open MPI gets the flags it needs here."""
    assert MPIEXEC is not None  # the module is skipped without it
    about = subprocess.run([MPIEXEC, "--version"], capture_output=True, text=True)
    flags = []
    if "Open MPI" in about.stdout + about.stderr or "OpenRTE" in about.stdout + about.stderr:
        flags = ["--oversubscribe"] + (["--allow-run-as-root"] if os.geteuid() == 0 else [])
    return subprocess.run([MPIEXEC, *flags, "-n", str(RANKS), sys.executable, "-m", "roofline", "wrap", *args],
                          capture_output=True, text=True, timeout=180)


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> fakencu.FakeNcu:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "app.py").write_text(APP)
    fake = fakencu.install(monkeypatch, tmp_path)
    monkeypatch.setenv("ROOFLINE_NCU", fake.path)  # Open MPI puts its own bin folder first on the ranks' PATH
    return fake


def test_only_chosen_ranks_run_ncu(tmp_path: Path, work: fakencu.FakeNcu) -> None:
    result = mpiexec("--ranks", "0,2", "-o", "reports/", "--", "app.py", "a b")
    assert result.returncode == 0, result.stderr
    assert len(work.argvs()) == 2
    host = socket.gethostname()
    assert sorted(p.name for p in (tmp_path / "reports").glob("*.ncu-rep")) == \
        [f"app.rank0.{host}.ncu-rep", f"app.rank2.{host}.ncu-rep"]
    assert sorted(p.name for p in tmp_path.glob("ran.*")) == [f"ran.{r}" for r in range(RANKS)]
    assert {(tmp_path / f"ran.{r}").read_text() for r in range(RANKS)} == {"a b"}


def test_failing_unprofiled_rank_fails_the_job(tmp_path: Path, work: fakencu.FakeNcu) -> None:
    result = mpiexec("--ranks", "0", "-o", "reports/", "app.py", "fail-on-3")
    assert result.returncode != 0


def test_failing_profiled_rank_fails_the_job(tmp_path: Path, work: fakencu.FakeNcu) -> None:
    result = mpiexec("--ranks", "0", "-o", "reports/", "app.py", "fail-on-0")
    assert result.returncode != 0
    assert f"roofline: error: rank 0 on {socket.gethostname()}: the application exited with code 3" in result.stderr


def test_ranks_the_job_lacks_stop_it_before_anything_runs(tmp_path: Path, work: fakencu.FakeNcu) -> None:
    result = mpiexec("--ranks", "2-9", "-o", "reports/", "app.py")
    assert result.returncode != 0
    assert "roofline: error: --ranks '2-9': this job has no rank 9 (" in result.stderr
    assert work.argvs() == [] and not list(tmp_path.glob("ran.*"))
