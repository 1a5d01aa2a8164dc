"""CI runs exactly the test command the README gives (lint, types, tests), so the two cannot drift apart."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_ci_runs_the_readme_test_command() -> None:
    readme = (REPO / "README.md").read_text()
    block = readme.split("Run the tests")[1].split("```bash\n")[1].split("\n```")[0]
    ci = [line for line in (REPO / ".ci" / "run").read_text().splitlines() if line and not line.startswith("#")]
    assert block in ci
    assert re.search(r"ruff check \. && \.venv/bin/mypy && \.venv/bin/python -m pytest$", block)
