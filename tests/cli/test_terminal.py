"""The progress bar of long analyses: drawn on stderr when it is a terminal and the work is expected to take over
two seconds, nothing otherwise."""

from __future__ import annotations

import io
import os
import select
from pathlib import Path

import pytest
from typer.testing import CliRunner

from roofline.cli import terminal
from roofline.cli.app import app

MANY = 40  # links to a 3 MB shared report: well over two seconds of expected work on one core


@pytest.fixture
def many(shared_report, tmp_path: Path) -> list[str]:
    source = shared_report("a100-40gb_selfjoin-cub-sort-154launches_basic")
    links = []
    for i in range(MANY):
        link = tmp_path / f"rank{i:02d}.ncu-rep"
        link.symlink_to(source)
        links.append(str(link))
    return links


def drawn_on_a_terminal(paths: list[str], jobs: int = 1) -> tuple[bool, str]:
    """Whether ``progress`` gave a callback on a pseudo-terminal, and what it drew there after every file."""
    leader, follower = os.openpty()
    with open(follower, "w", encoding="utf-8") as tty:
        with terminal.progress(paths, jobs, stream=tty) as done:
            for _ in paths:
                if done is not None:
                    done()
        given = done is not None
    chunks = []
    while select.select([leader], [], [], 0.2)[0]:
        try:
            chunks.append(os.read(leader, 1 << 16))
        except OSError:  # the terminal's other end is closed
            break
    os.close(leader)
    return given, b"".join(chunks).decode(errors="replace")


def test_long_work_on_a_terminal_draws_a_bar(many: list[str]) -> None:
    assert terminal.expected_seconds(many, jobs=1) > terminal.PROGRESS_AFTER_S
    given, text = drawn_on_a_terminal(many)
    assert given and "analysing reports" in text and f"{MANY}/{MANY}" in text


def test_short_work_on_a_terminal_draws_nothing(many: list[str]) -> None:
    assert terminal.expected_seconds(many[:2], jobs=1) < terminal.PROGRESS_AFTER_S
    assert drawn_on_a_terminal(many[:2]) == (False, "")


def test_long_work_to_a_file_or_pipe_draws_nothing(many: list[str]) -> None:
    stream = io.StringIO()
    with terminal.progress(many, 1, stream=stream) as done:
        assert done is None
    assert stream.getvalue() == ""


def test_more_jobs_shorten_the_expected_work(many: list[str]) -> None:
    assert terminal.expected_seconds(many, jobs=2) == pytest.approx(terminal.expected_seconds(many, jobs=1) / 2)


def test_a_long_run_whose_stderr_is_not_a_terminal_writes_only_its_output(many: list[str]) -> None:
    assert terminal.expected_seconds(many, jobs=2) > terminal.PROGRESS_AFTER_S  # (the links are one file, read once)
    result = CliRunner().invoke(app, ["summary", *many, "--top", "1", "--jobs", "2"])
    assert result.exit_code == 0 and result.stderr == "" and result.stdout.startswith("rank00")
