"""`roofline summary --mpi` under a real mpiexec (4 ranks on this machine): the files are spread over the ranks and
rank 0 writes a ranking byte for byte the one of a serial run."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

MPIEXEC = shutil.which("mpiexec")
RANKS = 4
REPORTS = ("a100-40gb_cublas-sgemm_basic", "rtx2080ti_kernels_basic", "a10g_sgemm-progression_basic",
           "rtx3070_daxpy-nvtx_custom", "h800_flash-attn-fwd_full", "t4_matrix-add-2d_full")


def _mpi4py_problem() -> str | None:
    """Why mpi4py cannot be used here (None when it can): not installed, or no MPI library for it to load."""
    proc = subprocess.run([sys.executable, "-c", "from mpi4py import MPI; MPI.Get_library_version()"],
                          capture_output=True, text=True, timeout=60)
    return None if proc.returncode == 0 else (proc.stderr.strip().splitlines() or ["failed"])[-1]


pytestmark = [
    pytest.mark.skipif(MPIEXEC is None, reason="no mpiexec on PATH (install openmpi-bin, e.g. with "
                                               ".ci/install-system-tools)"),
    pytest.mark.skipif(MPIEXEC is not None and _mpi4py_problem() is not None,
                       reason="mpi4py cannot be imported (pip install '.[mpi]'; it needs an MPI library, and "
                              "mpicc from libopenmpi-dev where no wheel fits)"),
]


def run(*args: str, mpi: bool) -> subprocess.CompletedProcess[str]:
    """``roofline summary ARGS`` alone, or under ``mpiexec -n 4`` with --mpi (Open MPI gets the flags it needs)."""
    command = [sys.executable, "-m", "roofline", "summary", *args]
    if mpi:
        assert MPIEXEC is not None  # the module is skipped without it
        about = subprocess.run([MPIEXEC, "--version"], capture_output=True, text=True)
        flags = []
        if "Open MPI" in about.stdout + about.stderr or "OpenRTE" in about.stdout + about.stderr:
            flags = ["--oversubscribe"] + (["--allow-run-as-root"] if os.geteuid() == 0 else [])
        command = [MPIEXEC, *flags, "-n", str(RANKS), *command, "--mpi"]
    env = {**os.environ, "COLUMNS": "100"}
    return subprocess.run(command, capture_output=True, text=True, timeout=300, env=env)


@pytest.fixture
def files(shared_report, tmp_path: Path) -> list[str]:
    """Six real reports (more than the ranks), one named twice, and a bad file."""
    paths = [str(shared_report(name)) for name in REPORTS]
    bad = tmp_path / "bad.ncu-rep"
    bad.write_bytes(b"not a report\n")
    return [*paths[:2], str(bad), *paths[2:], paths[1]]


@pytest.mark.parametrize("fmt", ["json", "table"])
def test_ranks_gather_the_serial_ranking(files: list[str], fmt: str) -> None:
    serial = run(*files, "--top", "3", "--format", fmt, "--jobs", "1", mpi=False)
    spread = run(*files, "--top", "3", "--format", fmt, mpi=True)
    assert serial.returncode == 2 and "bad.ncu-rep" in serial.stderr and serial.stdout
    assert spread.returncode == serial.returncode, spread.stderr
    assert spread.stdout == serial.stdout  # only rank 0 writes, and what it writes is the serial ranking
    assert [line for line in spread.stderr.splitlines() if line.startswith("roofline:")] == \
        serial.stderr.splitlines()


@pytest.mark.parametrize("args, line", [
    (("--jobs", "2"), "roofline: error: --mpi with --jobs: choose one: "),
    (("--top", "0"), "roofline: error: --top 0: must be at least 1: "),
    (("--no-such-option",), "roofline: error: no such option --no-such-option: "),
])
def test_a_usage_error_is_printed_once_not_once_per_rank(files: list[str], args: tuple[str, ...], line: str) -> None:
    result = run(files[0], *args, mpi=True)
    assert result.returncode != 0
    assert [x for x in result.stderr.splitlines() if x.startswith("roofline:")] == \
        [x for x in result.stderr.splitlines() if x.startswith(line)]
    assert sum(x.startswith(line) for x in result.stderr.splitlines()) == 1, result.stderr
