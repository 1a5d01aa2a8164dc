"""roofline.cli.fast_start: each speed mechanism of the command line, and the plain path without them."""

from __future__ import annotations

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


def test_leave_ends_with_the_status_after_flushing(monkeypatch, capsys):
    monkeypatch.setenv(fast_start.SWITCH, "collector-off")  # the test process goes on: nothing frozen
    print("written")
    with pytest.raises(SystemExit) as info:
        fast_start.leave(3)
    assert info.value.code == 3 and capsys.readouterr().out == "written\n"


@pytest.mark.parametrize("switch, frozen", [("", 1), ("collector-off", 0)])
def test_leave_freezes_the_objects_out_of_the_final_collections_only_with_collector_off_on(monkeypatch, switch, frozen):
    import gc

    calls: list[None] = []
    monkeypatch.setattr(gc, "freeze", lambda: calls.append(None))
    monkeypatch.setenv(fast_start.SWITCH, switch)
    with pytest.raises(SystemExit):
        fast_start.leave(0)
    assert len(calls) == frozen


@pytest.mark.parametrize("switch, paused", [("", 1), ("collector-off", 0)])
def test_the_collector_is_paused_only_with_collector_off_on(monkeypatch, switch, paused):
    import gc

    calls: list[None] = []
    monkeypatch.setattr(gc, "disable", lambda: calls.append(None))
    monkeypatch.setenv(fast_start.SWITCH, switch)
    fast_start.pause_collector()
    assert len(calls) == paused


def test_the_console_script_resumes_the_collector_for_commands_that_read_no_report(monkeypatch, tmp_path):
    from roofline.cli import app as cli

    resumed: list[None] = []
    monkeypatch.setattr(fast_start, "resume_collector", lambda: resumed.append(None))
    out = tmp_path / "out.json"
    assert cli.run(["report", EXAMPLE, "--format", "json", "-o", str(out)], one_shot=True) == 0
    assert not resumed  # a report-reading command runs on without it
    assert cli.run(["specs", "list"], one_shot=True) == 0
    assert len(resumed) == 1
    assert cli.run(["specs", "list"]) == 0
    assert len(resumed) == 1  # a process that goes on (a test, an embedding program) never paused it


def test_the_one_file_named_is_read_ahead_only_with_read_ahead_on(monkeypatch):
    from roofline.ncu import child

    started: list[str] = []
    monkeypatch.setattr(child, "read_ahead", lambda path, sass: started.append(path) or True)
    monkeypatch.delenv(fast_start.SWITCH, raising=False)
    fast_start.start_reading([EXAMPLE, "-o", EXAMPLE], sass=True)  # the value of -o is the output, not a report
    assert started == [EXAMPLE]
    fast_start.start_reading([EXAMPLE, EXAMPLE], sass=True)  # two files: the pipeline reads them itself
    assert started == [EXAMPLE]
    monkeypatch.setenv(fast_start.SWITCH, "read-ahead")
    fast_start.start_reading([EXAMPLE], sass=True)
    assert started == [EXAMPLE]
