"""Test helpers around the stand-in ``nsys``: put it on PATH with an export to hand out, read its argv."""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


@dataclass
class FakeNsys:
    bin_dir: Path
    record: Path

    @property
    def path(self) -> str:
        return str(self.bin_dir / "nsys")

    def argvs(self) -> list[list[str]]:
        """Every recorded call but the version query."""
        if not self.record.exists():
            return []
        calls = [json.loads(line) for line in self.record.read_text().splitlines()]
        return [c for c in calls if c[1:2] != ["--version"]]


def install(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, sqlite: Path, scenario: str = "success") -> FakeNsys:
    """The stand-in in ``tmp_path/nsys-bin`` (run by this Python), first on PATH, handing out ``sqlite``."""
    bin_dir = tmp_path / "nsys-bin"
    bin_dir.mkdir(parents=True, exist_ok=True)
    target = bin_dir / "nsys"
    target.write_text(f"#!{sys.executable}\n" + (HERE / "nsys").read_text().split("\n", 1)[1])
    target.chmod(0o755)
    record = tmp_path / "nsys-argv.jsonl"
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', os.defpath)}")
    monkeypatch.setenv("FAKE_NSYS_ARGV", str(record))
    monkeypatch.setenv("FAKE_NSYS_SQLITE", str(sqlite))
    monkeypatch.setenv("FAKE_NSYS_SCENARIO", scenario)
    monkeypatch.delenv("ROOFLINE_NSYS", raising=False)
    return FakeNsys(bin_dir, record)
