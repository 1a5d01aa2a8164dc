"""roofline.core.parallel: one function over many items in forked workers (results in item order) or over MPI ranks."""

from __future__ import annotations

import os
import pickle
import signal
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
    parallel.picklable_mappings()
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


# --- The spare process started ahead (start_spare, on_spare) ------------------------------------------------
def _pid_and_double(x: int) -> tuple[int, int]:
    return os.getpid(), 2 * x


def _prepared() -> None:
    os.environ["ROOFLINE_TEST_SPARE_PREPARED"] = "1"  # set in the spare only


def _was_prepared() -> str | None:
    return os.environ.get("ROOFLINE_TEST_SPARE_PREPARED")


def _fails(text: str) -> None:
    raise RooflineError(text, "the fix")


@pytest.fixture
def spare():
    parallel.start_spare(_prepared)
    yield parallel._SPARE
    parallel.stop_spare()


def test_a_call_on_the_spare_runs_in_the_prepared_process_and_its_result_comes_back(spare) -> None:
    pid, doubled = parallel.on_spare(_pid_and_double, 21)
    assert (doubled, pid) == (42, spare.pid) and pid != os.getpid()
    assert parallel.on_spare(_was_prepared) == "1" and _was_prepared() is None
    assert parallel.on_spare(_pid_and_double, 5) == (spare.pid, 10)  # one process answers call after call


def test_an_error_in_the_spare_is_raised_here_whole(spare) -> None:
    with pytest.raises(RooflineError) as raised:
        parallel.on_spare(_fails, "bad plot")
    assert (raised.value.message, raised.value.hint) == ("bad plot", "the fix")
    assert parallel.on_spare(_pid_and_double, 1) == (spare.pid, 2)  # and it goes on answering


def test_without_a_spare_or_once_it_ended_the_call_runs_here(spare) -> None:
    os.kill(spare.pid, signal.SIGKILL)
    os.waitpid(spare.pid, 0)
    assert parallel.on_spare(_pid_and_double, 3) == (os.getpid(), 6)
    assert parallel._SPARE is None  # and every later call runs here too
    assert parallel.on_spare(_pid_and_double, 4) == (os.getpid(), 8)


def test_an_argument_pickle_refuses_runs_here(spare) -> None:
    pid = spare.pid
    here = parallel.on_spare(lambda x: (os.getpid(), x), 7)  # a lambda does not pickle
    assert here == (os.getpid(), 7)
    assert parallel._SPARE is spare  # still there, and answering
    assert parallel.on_spare(_pid_and_double, 2) == (pid, 4)


def test_stop_spare_ends_and_reaps_it(spare) -> None:
    pid = spare.pid
    parallel.stop_spare()
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # reaped already
    assert parallel._SPARE is None
