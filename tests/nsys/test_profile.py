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
