"""A library caller's choices and limits are checked as the command line checks them: one line, UsageError."""

from __future__ import annotations

import math

import pytest

from roofline.core.choices import GroupBy, TargetClock, finite_at_least, one_of
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
