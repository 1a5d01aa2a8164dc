"""Run one function over many items at once: in this process and forked workers on this machine (``in_workers``, the
``--jobs`` of the commands) or spread over the ranks of an MPI job (``over_ranks``, ``summary --mpi``). Results come
back in the order of the items, so the output of a parallel run is the one of a serial run.

Results travel pickled, the report model's read-only mappings included (``roofline.core.readonly``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from roofline.core import readonly  # noqa: F401  (read-only mappings pickle)
from roofline.errors import RooflineError

T = TypeVar("T")
R = TypeVar("R")

_WORK: Callable[[Any], Any] | None = None  # the function of this worker process (set by _start_worker)


def cores() -> int:
    """The CPU cores this process may run on (the default of ``--jobs``)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def in_workers(work: Callable[[T], R], items: Sequence[T], jobs: int,
               done: Callable[[], None] | None = None) -> list[R]:
    """``[work(item) for item in items]`` over up to ``jobs`` processes: this one and forked workers (this one alone
    when one job is enough or the platform cannot fork). This process takes its share of the items, the last ones,
    as its results need no pickling: a large report model's analysis costs seconds to send. ``done`` is called
    after each result."""
    jobs = min(jobs, len(items))
    if jobs <= 1 or not hasattr(os, "fork"):
        return _here(work, items, done)
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    split = len(items) - len(items) // jobs
    # fork: the workers inherit ``work`` (a closure over the options and the spec catalog) instead of a pickled copy
    with ProcessPoolExecutor(jobs - 1, multiprocessing.get_context("fork"), initializer=_start_worker,
                             initargs=(work, os.getpid())) as pool:
        theirs = pool.map(_run, items[:split])  # submitted now, run while this process works on its own
        mine = _here(work, items[split:], done)
        results = []
        for result in theirs:
            results.append(result)
            if done is not None:
                done()
    return results + mine


def _here(work: Callable[[T], R], items: Sequence[T], done: Callable[[], None] | None) -> list[R]:
    """``work`` of each item in this process, ``done`` called after each."""
    out = []
    for item in items:
        out.append(work(item))
        if done is not None:
            done()
    return out


def _start_worker(work: Callable[[Any], Any], parent: int) -> None:
    global _WORK
    _die_with(parent)
    _WORK = work


PR_SET_PDEATHSIG = 1  # linux/prctl.h


def _die_with(parent: int) -> None:
    """End this worker when ``parent`` ends (Linux): a parent killed by SIGTERM runs no clean-up, and a worker left
    blocked writing its result into the pipe (whose other end it holds itself) would stay for good."""
    import ctypes
    import signal

    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):  # not Linux
        return
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # the parent ended before the request was made
        os._exit(1)


def _run(item: Any) -> Any:
    assert _WORK is not None, "a worker runs only after _start_worker"
    return _WORK(item)


def over_ranks(work: Callable[[T], R], items: Sequence[T]) -> list[R] | None:
    """``[work(item) for item in items]`` spread over the ranks of the MPI job this process is one of (item i on
    rank i mod size), gathered on rank 0: the results there, None on every other rank. RooflineError when mpi4py
    cannot be imported."""
    try:
        from mpi4py import MPI
    except (ImportError, RuntimeError) as err:  # not installed, or no MPI library to load
        raise RooflineError(f"--mpi needs mpi4py ({err})",
                            "pip install 'roofline[mpi]' (an MPI such as Open MPI must be installed), "
                            "then run under mpiexec") from None
    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    mine = [(i, work(item)) for i, item in enumerate(items) if i % size == rank]
    parts = comm.gather(mine, root=0)
    if parts is None:
        return None
    ordered = dict(pair for part in parts for pair in part)
    return [ordered[i] for i in range(len(items))]
