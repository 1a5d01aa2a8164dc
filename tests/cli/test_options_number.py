"""``Number``, the one check of every numeric option: its bounds, open or closed, and the line naming the bound a
value passes."""

from __future__ import annotations

import pytest
from typer._click.exceptions import BadParameter

from roofline.cli.options import Number
from roofline.core.thresholds import MAX_ALPHA, MAX_ROOF_DROP_PTS, MAX_SLOWER_PCT, MAX_WORK_TOLERANCE_PCT


@pytest.mark.parametrize("number, value, words", [
    (Number(0.0), "-1", "-1 is not at least 0"),
    (Number(0.0, above=True), "0", "0 is not above 0"),
    (Number(0.0, 100.0), "101", "101 is above 100"),
    (Number(0.0, MAX_WORK_TOLERANCE_PCT, below=True), "1e6", "1e+06 is not below 1e+06"),
    (Number(0.0, MAX_ALPHA, above=True, below=True), "0.5", "0.5 is not below 0.5"),
])
def test_a_value_past_a_bound_names_that_bound(number, value, words):
    with pytest.raises(BadParameter, match=f"^{words.replace('+', '[+]')}$"):
        number.convert(value, None, None)


@pytest.mark.parametrize("number, value", [
    (Number(0.0, 100.0), "100"), (Number(0.0, MAX_WORK_TOLERANCE_PCT, below=True), "999999"),
    (Number(0.0, MAX_ALPHA, above=True, below=True), "0.49"), (Number(0.0, MAX_SLOWER_PCT), "1000")])
def test_a_value_on_a_closed_bound_or_inside_an_open_one_is_taken(number, value):
    assert number.convert(value, None, None) == float(value)


def test_the_gate_bounds_are_those_the_docs_state():
    assert (MAX_SLOWER_PCT, MAX_ROOF_DROP_PTS, MAX_ALPHA, MAX_WORK_TOLERANCE_PCT) == (1000.0, 100.0, 0.5, 1e6)
