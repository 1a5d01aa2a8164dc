"""The version is written once (``core.version``): the package and pyproject.toml read it from there."""

from __future__ import annotations

import re
from pathlib import Path

import roofline
from roofline.core.version import __version__


def test_the_package_and_pyproject_take_the_one_version():
    pyproject = (Path(__file__).resolve().parents[2] / "pyproject.toml").read_text()
    assert 'attr = "roofline.core.version.__version__"' in pyproject
    assert roofline.__version__ == __version__ and re.fullmatch(r"\d+\.\d+\.\d+", __version__)
