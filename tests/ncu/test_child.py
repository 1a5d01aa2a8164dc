"""roofline.ncu.child: a report's read started ahead (before the command line is parsed) and taken by the reader."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from roofline.ncu import child, reader

REPO = Path(__file__).resolve().parents[2]
NCU_REP = REPO / "examples" / "h100" / "sgemm-cuda.roofline.ncu-rep"
MODEL = REPO / "examples" / "h100-sxm_synthetic.roofline.json"


@pytest.fixture
def forks(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The paths of the children forked from now on."""
    started: list[str] = []
    forking = child.Child.__init__

    def counted(self: child.Child, path: str, sass: bool | None = True) -> None:
        started.append(path)
        forking(self, path, sass)

    monkeypatch.setattr(child.Child, "__init__", counted)
    yield started
    child.stop_reading_ahead()


def test_a_read_started_ahead_is_taken_and_reads_what_a_fresh_one_reads(forks):
    assert child.read_ahead(NCU_REP, sass=False)
    ahead = reader.load_report(NCU_REP, sass=False)
    assert len(forks) == 1 and not child._AHEAD  # the reader took the child started ahead: no second fork
    assert ahead == reader.load_report(NCU_REP, sass=False)
    assert len(forks) == 2


def test_a_read_ahead_without_the_sass_is_not_taken_by_a_read_with_it_and_is_stopped(forks):
    assert child.read_ahead(NCU_REP, sass=False)
    ((_, pending),) = child._AHEAD.items()
    reader.load_report(NCU_REP, sass=True)
    assert len(forks) == 2 and child._AHEAD
    child.stop_reading_ahead()
    assert not child._AHEAD and pending.pid == 0  # killed and reaped


@pytest.mark.parametrize("sass", [False, True])
def test_a_read_started_before_its_sass_choice_is_known_is_taken_once_told(forks, sass):
    assert child.read_ahead(NCU_REP, sass=None)
    child.decide_ahead(sass)
    ((key, told),) = child._AHEAD.items()
    assert key[1] is sass and told.word == -1
    ahead = reader.load_report(NCU_REP, sass=sass)
    assert len(forks) == 1 and not child._AHEAD  # the reader took the child started ahead
    assert ahead == reader.load_report(NCU_REP, sass=sass)


def test_a_read_started_before_its_sass_choice_is_stopped_when_no_report_is_read(forks):
    assert child.read_ahead(NCU_REP, sass=None)
    ((_, pending),) = child._AHEAD.items()
    child.decide_ahead(None)
    assert not child._AHEAD and pending.pid == 0  # killed and reaped


def test_a_child_waiting_for_its_sass_choice_ends_when_the_parent_closes_the_pipe(forks):
    waiting = child.Child(str(NCU_REP), sass=None)
    os.close(waiting.word)  # the parent ends without a word (its pipe closes with it)
    waiting.word = -1
    _, status = os.waitpid(waiting.pid, 0)
    waiting.pid = 0
    os.close(waiting.fd)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0


def test_a_fork_that_fails_leaves_no_pipe_open_and_the_read_to_the_reader(monkeypatch):
    def no_fork() -> int:
        raise BlockingIOError(11, "Resource temporarily unavailable")

    before = set(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else set()
    monkeypatch.setattr(os, "fork", no_fork)
    assert not child.read_ahead(NCU_REP, sass=None)
    assert not child._AHEAD
    if before:
        assert set(os.listdir("/proc/self/fd")) == before


def test_the_time_limit_of_a_read_started_ahead_counts_from_its_sass_choice(forks):
    assert child.read_ahead(NCU_REP, sass=None)
    ((_, waiting),) = child._AHEAD.items()
    forked = waiting.started
    child.decide_ahead(False)
    assert waiting.started > forked


def test_a_changed_file_is_read_afresh(forks, tmp_path):
    path = tmp_path / "copy.ncu-rep"
    path.write_bytes(NCU_REP.read_bytes())
    assert child.read_ahead(path, sass=False)
    os.utime(path, ns=(0, 0))  # another version of the file: its read ahead is not the file's now
    assert reader.load_report(path, sass=False).launches
    assert len(forks) == 2


@pytest.mark.parametrize("make", [lambda p: MODEL, lambda p: p, lambda p: p / "absent.ncu-rep"])
def test_anything_but_an_ncu_rep_file_is_left_to_the_reader(make, tmp_path, forks):
    assert not child.read_ahead(make(tmp_path))
    assert not forks and not child._AHEAD
