"""Test helpers around the stand-in ``ncu``: put it on PATH, pick a scenario, read the argv it recorded.

Test files import it as ``from tests.fake_ncu import fakencu``.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
SHARED_REPORTS = REPO.parent / "shared" / "ncu-reps"
SOURCE_REPORT = SHARED_REPORTS / "rtx2080ti_kernels_basic.ncu-rep"  # small, 2 launches: kernel_A, kernel_C


def source_report() -> Path:
    """The shared report the stand-in copies, or skip the test when the shared folder is absent."""
    if not SOURCE_REPORT.is_file():
        pytest.skip(f"test data not found: {SOURCE_REPORT.name} in ../shared/ncu-reps next to the repository")
    return SOURCE_REPORT


@dataclass
class FakeNcu:
    """The stand-in installed in a temporary bin folder; ``argvs()`` lists the recorded command lines."""

    bin_dir: Path
    record: Path

    @property
    def path(self) -> str:
        return str(self.bin_dir / "ncu")

    def argvs(self) -> list[list[str]]:
        if not self.record.exists():
            return []
        return [json.loads(line) for line in self.record.read_text().splitlines()]


def copy_to(folder: Path) -> Path:
    """Copy the stand-in into ``folder`` as an executable ``ncu`` run by this Python (fast start, no PATH lookup)."""
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / "ncu"
    body = (HERE / "ncu").read_text().split("\n", 1)[1]
    target.write_text(f"#!{sys.executable}\n{body}")
    target.chmod(0o755)
    return target


def install(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, scenario: str = "success") -> FakeNcu:
    """Copy the stand-in to ``tmp_path/bin`` (executable), put it first on PATH and set its environment."""
    bin_dir = copy_to(tmp_path / "bin").parent
    record = tmp_path / "ncu-argv.jsonl"
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', os.defpath)}")
    monkeypatch.setenv("FAKE_NCU_ARGV", str(record))
    monkeypatch.setenv("FAKE_NCU_SCENARIO", scenario)
    monkeypatch.setenv("FAKE_NCU_REPORT", str(source_report()))
    monkeypatch.delenv("ROOFLINE_NCU", raising=False)
    return FakeNcu(bin_dir, record)
