"""Which roofline the tests import: the installed package, checked against the source tree.

The suite tests what users install (issue 42): ``pip install .`` puts the wheel's files in the environment, and
pytest's importlib import mode (pyproject.toml) keeps the repository off ``sys.path``. Before any test runs,
``tests/conftest.py`` asks ``problem()`` whether the imported package is the installed one and holds every module
and spec file of the source tree, byte for byte; a module left out of the wheel, or an install older than the
source, stops the run with one line saying what to do. ``ROOFLINE_TEST_SOURCE=1`` lets a developer run the tests
against the source tree (``PYTHONPATH=.``) while iterating; the README's test command never sets it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SOURCE_SWITCH = "ROOFLINE_TEST_SOURCE"
REINSTALL = ".venv/bin/pip install --no-deps ."


def source_files() -> Iterator[tuple[str, Path]]:
    """Every file the wheel must hold, as (path inside the installed package, path in the source tree)."""
    for path in sorted((REPO / "roofline").rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            yield str(path.relative_to(REPO / "roofline")), path
    specs = REPO / "device_specs"
    for path in sorted([*specs.glob("*.yaml"), *specs.glob("measured/*.yaml"), specs / "__init__.py"]):
        yield str(Path("device_specs") / path.relative_to(specs)), path


def problem(package_dir: Path) -> str | None:
    """Why the imported package (its folder) is not the installed copy of this source tree; None when it is."""
    if package_dir.resolve() == (REPO / "roofline").resolve():
        if os.environ.get(SOURCE_SWITCH) == "1":
            return None
        return (f"the tests imported roofline from the source tree, not the installed package: run them as the "
                f"README says (.venv/bin/pytest after {REINSTALL}), or set {SOURCE_SWITCH}=1 to test the source")
    for inside, source in source_files():
        installed = package_dir / inside
        if not installed.is_file():
            return (f"the installed roofline lacks {inside} (in the source tree at {source.relative_to(REPO)}): "
                    f"the wheel leaves it out, or the install is older than the tree: {REINSTALL}")
        if installed.read_bytes() != source.read_bytes():
            return f"the installed roofline differs from the source tree at {inside}: reinstall it: {REINSTALL}"
    return None


def child_env(**extra: str) -> dict[str, str]:
    """The environment for a Python child process of a test: it imports the same roofline as the tests (the
    installed one), never the source tree through its working folder (``PYTHONSAFEPATH``, Python 3.11+)."""
    return {**os.environ, "PYTHONSAFEPATH": "1", **extra}
