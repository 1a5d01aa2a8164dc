"""A time limit on work that a hostile input can make endless inside this process: a user's regular expression,
which may backtrack for hours on one long kernel name (``regex:(a+)+$`` against ``aaaa...ab``).

How: the work runs under a one-shot interval timer (``SIGALRM``). CPython's regular-expression engine checks
for signals while it backtracks, so the timer's handler stops a runaway match where it is. Where no timer can
be set (a thread other than the main one, or a platform without ``SIGALRM``), the work runs without a limit.
This was chosen over a child process per match (a fork per kernel filter, and names to ship both ways) and
over refusing "dangerous" patterns (no rule catches every catastrophic pattern, and it would refuse fine ones).
The .ncu-rep reader has its own limit: it runs in a child process that is killed (``roofline.ncu.reader``).
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

from roofline.errors import RooflineError

T = TypeVar("T")
REGEX_LIMIT_S = 2.0  # all names of a report against one pattern; a sane pattern takes milliseconds
REGEX_HINT = "simplify the pattern: nested repeats such as (a+)+ or (.*)* backtrack exponentially on long names"


class _Expired(Exception):
    """Raised by the timer's handler inside the work."""


def within(limit_s: float, what: str, work: Callable[[], T], hint: str = REGEX_HINT) -> T:
    """``work()``, stopped after ``limit_s`` seconds with a one-line RooflineError naming ``what``."""
    if not hasattr(signal, "SIGALRM") or threading.current_thread() is not threading.main_thread():
        return work()

    def expire(signum: int, frame: Any) -> None:
        raise _Expired

    previous = signal.signal(signal.SIGALRM, expire)
    started = time.monotonic()
    outer_delay, outer_interval = signal.setitimer(signal.ITIMER_REAL, limit_s)
    try:
        return work()
    except _Expired:
        raise RooflineError(f"{what} took longer than {limit_s:g} s and was stopped", hint) from None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous if previous is not None else signal.SIG_DFL)
        if outer_delay:  # give back a timer someone else had set, less the time spent here
            signal.setitimer(signal.ITIMER_REAL, max(outer_delay - (time.monotonic() - started), 1e-3),
                             outer_interval)
