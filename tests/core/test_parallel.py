"""roofline.core.parallel: one function over many items in forked workers (results in item order) or over MPI ranks."""

from __future__ import annotations

import os
import pickle
import sys
from types import MappingProxyType

import pytest

from roofline.core import parallel
from roofline.errors import ReportError, RooflineError
from tests import installed


def square_and_pid(n: int) -> tuple[int, int]:
    return n * n, os.getpid()


def test_workers_give_the_results_in_the_order_of_the_items() -> None:
    ticks: list[int] = []
    out = parallel.in_workers(square_and_pid, list(range(40)), jobs=3, done=lambda: ticks.append(1))
    assert [square for square, _ in out] == [n * n for n in range(40)]
    assert len(ticks) == 40
    if hasattr(os, "fork"):  # this process takes the last third (its results need no pickling), two workers the rest
        assert {pid for _, pid in out[27:]} == {os.getpid()}
        assert os.getpid() not in {pid for _, pid in out[:27]}


def test_one_job_or_one_item_runs_in_this_process() -> None:
    assert parallel.in_workers(square_and_pid, [3], jobs=4) == [(9, os.getpid())]
    assert parallel.in_workers(square_and_pid, [1, 2], jobs=1) == [(1, os.getpid()), (4, os.getpid())]


def test_a_closure_reaches_the_workers_without_being_pickled() -> None:
    offset = 7
    assert parallel.in_workers(lambda n: n + offset, [1, 2, 3], jobs=2) == [8, 9, 10]


def test_read_only_mappings_and_errors_travel_whole() -> None:
    """The model's read-only mappings pickle once roofline.core.readonly is imported (the model imports it)."""
    back = pickle.loads(pickle.dumps({"m": MappingProxyType({"a": 1})}))
    assert isinstance(back["m"], MappingProxyType) and back["m"] == {"a": 1}
    err = pickle.loads(pickle.dumps(ReportError("x.ncu-rep: truncated", "copy it again")))
    assert type(err) is ReportError and (err.message, err.hint) == ("x.ncu-rep: truncated", "copy it again")


def test_mpi_without_mpi4py_is_a_one_line_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "mpi4py", None)  # import mpi4py raises ImportError
    with pytest.raises(RooflineError, match=r"--mpi needs mpi4py .*pip install 'roofline\[mpi\]'"):
        parallel.over_ranks(abs, [1, -2])


def test_cores_is_at_least_one() -> None:
    assert parallel.cores() >= 1


WORKER_SCRIPT = """
import os, sys, time
from pathlib import Path
from roofline.core import parallel

def work(n):
    Path(sys.argv[1], str(os.getpid())).write_text("")
    time.sleep(60 if os.getpid() != parent else 0)
    return n

parent = os.getpid()
parallel.in_workers(work, [1, 2, 3, 4], 2)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the parent-death signal is Linux's")
def test_a_worker_does_not_outlive_a_parent_killed_without_clean_up(tmp_path) -> None:
    """Issue 37: a parent ended by SIGTERM left its forked worker blocked for 30 s and more."""
    import signal
    import subprocess
    import time

    proc = subprocess.Popen([sys.executable, "-c", WORKER_SCRIPT, str(tmp_path)], env=installed.child_env())
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and len(list(tmp_path.iterdir())) < 2:
        time.sleep(0.05)
    workers = [int(p.name) for p in tmp_path.iterdir() if int(p.name) != proc.pid]
    assert workers, "no worker started"
    proc.send_signal(signal.SIGTERM)
    proc.wait(30)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(_alive(pid) for pid in workers):
        time.sleep(0.05)
    assert not any(_alive(pid) for pid in workers)


def _alive(pid: int) -> bool:
    """Whether a process is running (a zombie, ended and not yet reaped by init, is not)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False
