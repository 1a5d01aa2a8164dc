"""`analyze --no-counters`'s nsys run (roofline.nsys.profile) with the stand-in nsys (tests/fake_nsys): where its
and the application's output go, and that the run has no time limit of its own."""

from __future__ import annotations

import inspect
import sys
from pathlib import Path

import pytest

from roofline.nsys import profile
from roofline.nsys.export import Nsys
from tests.fake_nsys import fakensys

REPO = Path(__file__).resolve().parents[2]
EXPORT = REPO / "examples" / "nsys" / "h100-examples.sqlite"


def test_the_applications_output_goes_to_standard_error_not_to_the_analysis(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]) -> None:
    """`analyze --no-counters --format json > out.json` began with the app's and nsys's lines ("Generated: ..."),
    so the JSON did not load: standard output is the analysis's, as on the ncu path."""
    fake = fakensys.install(monkeypatch, tmp_path, EXPORT)
    plan = profile.plan(Nsys(fake.path, (2022, 4)), str(tmp_path / "run"), [sys.executable, "-c",
                                                                              "print('APP-STDOUT')"], False)
    assert profile.run(plan) == tmp_path / "run.sqlite"
    out, err = capfd.readouterr()
    assert "APP-STDOUT" not in out and "APP-STDOUT" in err


def test_the_nsys_run_takes_no_time_limit() -> None:
    """--timeout bounds the reading of reports; it no longer cut the nsys run short (leaving the app running)."""
    assert list(inspect.signature(profile.run).parameters) == ["p"]


def test_stderr_fd_falls_back_to_2_where_sys_stderr_has_no_descriptor(monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    monkeypatch.setattr(sys, "stderr", io.StringIO())
    assert profile.stderr_fd() == profile.STDERR_FD == 2


def test_sigterm_to_roofline_reaches_nsys_and_the_app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A batch system's SIGTERM to `analyze --no-counters` stopped roofline alone: nsys and the application ran on.
    It is passed on to nsys's process group, and roofline exits 128 + 15 with one line."""
    import signal
    import subprocess
    import time

    fakensys.install(monkeypatch, tmp_path, EXPORT)
    marker, ready = tmp_path / "app-got-sigterm", tmp_path / "app-sleeping"
    app = tmp_path / "sleeper.py"
    app.write_text("import signal, sys, time\n"
                   f"signal.signal(signal.SIGTERM, lambda *a: (open({str(marker)!r}, 'w').close(), sys.exit(143)))\n"
                   f"open({str(ready)!r}, 'w').close()\ntime.sleep(60)\n")
    proc = subprocess.Popen([sys.executable, "-m", "roofline", "analyze", "--no-counters", "-o",
                             str(tmp_path / "out" / "run"), str(app)], stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while not ready.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert ready.exists(), "the application never started"
    proc.send_signal(signal.SIGTERM)
    err = proc.communicate(timeout=30)[1]
    assert proc.returncode == 128 + signal.SIGTERM, err
    assert marker.exists()
    assert "roofline: error: profiling stopped by SIGTERM" in err and "Traceback" not in err
