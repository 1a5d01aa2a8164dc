"""A library caller's choices and limits are checked as the command line checks them: one line, UsageError."""

from __future__ import annotations

import math

import pytest

from roofline.core.choices import GroupBy, TargetClock, a_bool, a_path, finite_at_least, one_of, path_list, without_nul
from roofline.errors import UsageError


def test_a_choice_outside_its_literal_is_one_line_naming_the_allowed_ones() -> None:
    one_of("clock", "base", TargetClock)
    with pytest.raises(UsageError) as refused:
        one_of("clock", "turbo", TargetClock)
    assert str(refused.value) == ("clock='turbo': not one of 'sustained', 'boost', 'base': give one of them")
    with pytest.raises(UsageError, match="by='nvtx2'"):
        one_of("by", "nvtx2", GroupBy)


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, -0.5, "10"])
def test_a_limit_that_is_not_a_finite_non_negative_number_is_refused(value: object) -> None:
    with pytest.raises(UsageError, match="not a finite number of at least 0"):
        finite_at_least("slower_pct", value)  # type: ignore[arg-type]


def test_a_finite_limit_or_none_is_taken() -> None:
    for value in (None, 0, 0.0, 12.5):
        finite_at_least("slower_pct", value)


def test_a_path_holding_a_nul_byte_is_refused_naming_it() -> None:
    """No file system takes a NUL byte: os.stat raised a bare ValueError("embedded null byte")."""
    from pathlib import Path

    for check in (lambda: a_path("path", "a\0b"), lambda: path_list("paths", ["ok", Path("a\0b")]),
                  lambda: without_nul("report", "a\0b")):
        with pytest.raises(UsageError, match=r"'a\\x00b'\)?: not a valid path \(it holds a NUL byte\): check the pat"):
            check()
    assert a_path("path", "a b") == "a b" and path_list("paths", "x") == ["x"]


@pytest.mark.parametrize("value", ["no", 1, None])
def test_a_flag_that_is_not_a_bool_is_refused(value: object) -> None:
    with pytest.raises(UsageError, match=r"^sass=.*: not True or False: give sass=True or sass=False$"):
        a_bool("sass", value)
    a_bool("sass", False)
