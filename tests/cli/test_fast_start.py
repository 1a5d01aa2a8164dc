"""roofline.cli.fast_start: each speed mechanism of the command line, and the plain path without them."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from roofline.cli import fast_start

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = str(REPO / "examples" / "h100-sxm_synthetic.roofline.json")


def roofline(args: list[str], plain: str | None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != fast_start.SWITCH}
    env |= {fast_start.SWITCH: plain} if plain else {}
    return subprocess.run([sys.executable, "-m", "roofline", *args], capture_output=True, text=True, env=env,
                          cwd=REPO, timeout=300)


@pytest.mark.parametrize("switch, off", [("", set()), ("all", set(fast_start.MECHANISMS)), ("gc, exit", {"gc", "exit"}),
                                         ("read-ahead", {"read-ahead"})])
def test_the_switch_turns_off_all_or_the_mechanisms_it_names(switch, off, monkeypatch):
    monkeypatch.setenv(fast_start.SWITCH, switch)
    assert {name for name in fast_start.MECHANISMS if not fast_start.on(name)} == off


def test_the_plain_path_writes_what_the_fast_one_writes(tmp_path):
    fast, plain = tmp_path / "fast.json", tmp_path / "plain.json"
    assert roofline(["report", EXAMPLE, "--format", "json", "-o", str(fast)], None).returncode == 0
    assert roofline(["report", EXAMPLE, "--format", "json", "-o", str(plain)], "all").returncode == 0
    assert json.loads(fast.read_text()) == json.loads(plain.read_text())


@pytest.mark.parametrize("args", [["--help"], ["--version"]])
def test_the_plain_help_and_version_are_typers_and_say_the_same(args):
    fast, plain = roofline(args, None), roofline(args, "all")
    assert fast.returncode == plain.returncode == 0
    if args == ["--version"]:
        assert fast.stdout == plain.stdout
    else:  # typer's box around the same commands and summaries
        for name in ("report", "summary", "calibrate", "--version"):
            assert name in fast.stdout and name in plain.stdout


def test_a_usage_error_ends_with_its_status_on_both_paths():
    for plain in (None, "all"):
        ended = roofline(["report", "--formatt", "json", EXAMPLE], plain)
        assert ended.returncode == 2 and ended.stderr.startswith("roofline: error: no such option --formatt")


def test_reading_reports_holds_blas_to_one_thread_and_pauses_the_collector_then_restores_both(monkeypatch):
    monkeypatch.delenv(fast_start.BLAS_THREADS, raising=False)
    monkeypatch.delenv(fast_start.SWITCH, raising=False)
    assert gc.isenabled()
    with fast_start.reading_reports():
        assert os.environ[fast_start.BLAS_THREADS] == "1" and not gc.isenabled()
    assert fast_start.BLAS_THREADS not in os.environ and gc.isenabled()
    monkeypatch.setenv(fast_start.SWITCH, "all")
    with fast_start.reading_reports():
        assert fast_start.BLAS_THREADS not in os.environ and gc.isenabled()


def test_the_collector_stays_paused_when_the_command_is_the_process_last_work(monkeypatch):
    monkeypatch.delenv(fast_start.SWITCH, raising=False)
    monkeypatch.setattr(fast_start, "_held", None)
    try:
        with fast_start.reading_reports(last=True):
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()
    monkeypatch.setenv(fast_start.SWITCH, "gc")
    with fast_start.reading_reports(last=True):
        assert gc.isenabled()


@pytest.mark.parametrize("last, switch, held", [(True, "", True), (False, "", False), (True, "exit", False)])
def test_a_document_is_held_to_the_end_only_by_the_process_last_command_with_exit_on(monkeypatch, last, switch,
                                                                                     held):
    monkeypatch.setenv(fast_start.SWITCH, switch)
    monkeypatch.setattr(fast_start, "_held", None)
    document = object()
    try:
        with fast_start.reading_reports(last=last):
            fast_start.keep_to_the_end(document)
    finally:
        gc.enable()
    assert (fast_start._held == [document]) is held


def test_a_written_document_is_kept_to_the_end_of_the_process(monkeypatch, tmp_path):
    from typer.testing import CliRunner

    from roofline.cli.app import app

    kept: list[object] = []
    monkeypatch.setattr(fast_start, "keep_to_the_end", kept.append)
    result = CliRunner().invoke(app, ["report", EXAMPLE, "-f", "json", "-o", str(tmp_path / "r.json")])
    assert result.exit_code == 0, result.output
    assert [type(k).__name__ for k in kept] == ["ReportDocument"]


def test_the_one_file_named_is_read_ahead_only_with_read_ahead_on(monkeypatch):
    from roofline.ncu import child

    started: list[str] = []
    monkeypatch.setattr(child, "read_ahead", lambda path, sass: started.append(path) or True)
    monkeypatch.delenv(fast_start.SWITCH, raising=False)
    fast_start.start_reading([EXAMPLE, "-o", "out.json"], sass=True)
    assert started == [EXAMPLE]
    monkeypatch.setenv(fast_start.SWITCH, "read-ahead")
    fast_start.start_reading([EXAMPLE], sass=True)
    assert started == [EXAMPLE]


@pytest.mark.parametrize(("plain", "ends_with"), [(None, "os._exit"), ("exit", "sys.exit")])
def test_leave_ends_with_the_status_either_way(plain, ends_with, monkeypatch):
    monkeypatch.delenv(fast_start.SWITCH, raising=False)
    if plain:
        monkeypatch.setenv(fast_start.SWITCH, plain)
    ended: list[object] = []
    monkeypatch.setattr(os, "_exit", lambda code: ended.append(("os._exit", code)) or sys.exit(code))
    with pytest.raises(SystemExit) as info:
        fast_start.leave(3)
    assert info.value.code == 3 and (ended == [("os._exit", 3)]) == (ends_with == "os._exit")


@pytest.mark.parametrize(("command", "params", "drawing"), [
    ("plot", {}, True), ("report", {"fmt": "markdown"}, True), ("report", {"fmt": "html"}, True),
    ("report", {"fmt": "table", "plot": Path("p.png")}, True), ("report", {"fmt": "table", "plot": None}, False),
    ("report", {"fmt": "json"}, False), ("compare", {"fmt": "html"}, True), ("summary", {"fmt": "table"}, False),
    ("summary", {"fmt": "json", "plot": Path("s.svg")}, True), ("project", {"fmt": "table"}, False)])
def test_draws_names_the_commands_that_draw_a_plot(command, params, drawing):
    assert fast_start.draws(command, params) is drawing
