"""The version is written once (``core.version``); the package re-exports it (pyproject.toml's reading of it is
checked in tests/cli/test_app.py)."""

from __future__ import annotations

import re

import roofline
from roofline.core import version


def test_the_package_version_is_the_one_in_core():
    assert roofline.__version__ is version.__version__ and re.fullmatch(r"\d+\.\d+\.\d+", version.__version__)
