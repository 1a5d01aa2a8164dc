"""roofline.core.timelimit: work stopped after its limit, the result of work that finishes, timers left as found."""

from __future__ import annotations

import re
import signal
import threading

import pytest

from roofline.core.timelimit import within
from roofline.errors import RooflineError

SLOW = re.compile(r"(x+x+)+y")


def test_work_that_finishes_returns_its_result_and_leaves_no_timer():
    assert within(1.0, "a sum", lambda: sum(range(10))) == 45
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    assert signal.getsignal(signal.SIGALRM) in (signal.SIG_DFL, None)


def test_a_runaway_match_is_stopped_with_the_words_given():
    with pytest.raises(RooflineError, match=r"^the pattern took longer than 0.2 s and was stopped: simplify"):
        within(0.2, "the pattern", lambda: SLOW.search("x" * 40))
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_a_timer_set_by_the_caller_is_given_back():
    fired = []
    previous = signal.signal(signal.SIGALRM, lambda *_: fired.append(True))
    try:
        signal.setitimer(signal.ITIMER_REAL, 30.0)
        within(1.0, "a sum", lambda: 1)
        delay, _ = signal.getitimer(signal.ITIMER_REAL)
        assert 25.0 < delay <= 30.0 and fired == []
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def test_outside_the_main_thread_the_work_runs_without_a_limit():
    results = []
    thread = threading.Thread(target=lambda: results.append(within(0.01, "a sum", lambda: 2 + 2)))
    thread.start()
    thread.join()
    assert results == [4]
