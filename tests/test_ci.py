"""CI runs exactly the test command the README gives (lint, types, tests) in the locked test environment, and the
lock agrees with pyproject.toml, so neither can drift apart. The lock's commands are shown in docs/development.md."""

from __future__ import annotations

import re
from importlib.metadata import requires
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import NormalizedName, canonicalize_name

REPO = Path(__file__).resolve().parents[1]
LOCK = REPO / "requirements" / "test-lock.txt"
DEVELOPMENT = "docs/development.md"  # the page that shows how the lock is made and the run without it
NAMED_BY_THE_ISSUE = ["ncu-report", "numpy", "scipy", "matplotlib", "typer", "pyyaml", "mpi4py", "ruff", "mypy"]


def readme_command(after: str, page: str = "README.md") -> str:
    """The first bash block of ``page`` (the README unless another page is named) after the words ``after``."""
    block = (REPO / page).read_text().split(after)[1].split("```bash\n")[1]
    return block[:block.index("```")].strip()


def locked_pins() -> dict[NormalizedName, str]:
    """The lock's version of each package for this interpreter (the lock holds one line per Python range)."""
    pins = {}
    for line in LOCK.read_text().splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            req = Requirement(line)
            if req.marker is None or req.marker.evaluate():
                (spec,) = req.specifier
                assert spec.operator == "==", line
                pins[canonicalize_name(req.name)] = spec.version
    return pins


def test_ci_runs_the_readme_test_command() -> None:
    block = readme_command("Run the tests")
    ci = [line for line in (REPO / ".ci" / "run").read_text().splitlines() if line and not line.startswith("#")]
    assert block in ci
    assert re.search(r"ruff check \. && \.venv/bin/mypy && \.venv/bin/mypy --strict roofline && \.venv/bin/pytest$",
                     block)


def test_ci_runs_the_slow_tests_after_the_readme_command() -> None:
    """The tests marked slow (left out of the README's command by pyproject.toml's addopts) run in CI right after
    it; pytest's exit 5 (none collected) is not a failure there."""
    run = (REPO / ".ci" / "run").read_text()
    readme_at = run.index(readme_command("Run the tests"))
    assert run.index(".venv/bin/pytest -m slow") > readme_at
    assert "-m 'not slow'" in (REPO / "pyproject.toml").read_text()


def test_the_test_command_installs_within_the_lock() -> None:
    assert "pip install -q -c requirements/test-lock.txt '.[test]'" in readme_command("Run the tests")


def test_every_requirement_of_the_package_and_its_test_extra_is_pinned_within_its_range() -> None:
    """A requirement changed in pyproject.toml without regenerating the lock fails here, naming the package."""
    pins = locked_pins()
    for text in requires("roofline") or []:
        req = Requirement(text)
        if req.marker is None or req.marker.evaluate({"extra": "test"}):
            name = canonicalize_name(req.name)
            assert name in pins, f"{name} is not in {LOCK.name}: regenerate it"
            assert req.specifier.contains(pins[name], prereleases=True), f"{name}=={pins[name]} outside {req}"
    assert all(name in pins for name in NAMED_BY_THE_ISSUE)


def test_the_lock_says_the_command_that_regenerates_it_and_the_development_page_shows_the_same() -> None:
    command = readme_command("generated from `pyproject.toml` by uv", DEVELOPMENT)
    assert command.startswith("uv pip compile pyproject.toml --extra test")
    assert f"#    {command}\n" in LOCK.read_text()


def test_the_run_against_the_newest_releases_is_the_test_command_without_the_lock() -> None:
    latest = readme_command("Against the newest releases (no lock)", DEVELOPMENT)
    locked = readme_command("Run the tests")
    assert "-c " not in latest
    assert latest == locked.replace(" -c requirements/test-lock.txt", "").replace(".venv", ".venv-latest")
