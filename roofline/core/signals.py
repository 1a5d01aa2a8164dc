"""Passing SIGINT and SIGTERM on to a child process while it runs (ncu under `analyze`, nsys under `analyze
--no-counters`): a batch system's SIGTERM to roofline alone would otherwise leave the profiler and the application
running; a second Ctrl-C kills the child's process group."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass


@dataclass
class Caught:
    """The first signal passed on to the child (0: none)."""

    signum: int = 0


@contextmanager
def forward_signals(proc: subprocess.Popen[bytes]) -> Iterator[Caught]:
    """While the block runs, pass SIGINT/SIGTERM on to ``proc``'s process group (``proc`` started with
    ``start_new_session=True``); a second SIGINT sends SIGKILL. Off the main thread, where Python cannot set a
    handler, nothing is passed on."""
    caught = Caught()

    def forward(signum: int, _frame: object) -> None:
        sig = signal.SIGKILL if caught.signum == signal.SIGINT and signum == signal.SIGINT else signum
        caught.signum = caught.signum or signum
        with suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, sig)

    if threading.current_thread() is not threading.main_thread():
        yield caught
        return
    previous = {sig: signal.signal(sig, forward) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield caught
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
