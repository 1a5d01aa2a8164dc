"""roofline.core.units: the middle cut of kernel names and error messages, and percents beside a threshold."""

from __future__ import annotations

import pytest

from roofline.core.units import counted, middle_cut, pct_beside, runs, waves, window_cut


@pytest.mark.parametrize("text, width, cut", [
    ("ampere_sgemm_128x64_nn", 22, "ampere_sgemm_128x64_nn"),
    ("ampere_sgemm_128x64_nn", 21, "ampere_sge…_128x64_nn"),
    ("ampere_sgemm_128x64_nn", 10, "amper…4_nn"),
    ("abc", 2, "a…"),
    ("abc", 1, "…"),
    ("abc", 0, ""),
])
def test_middle_cut_keeps_both_ends(text: str, width: int, cut: str) -> None:
    assert middle_cut(text, width) == cut and len(cut) <= width


@pytest.mark.parametrize("at, cut", [
    (0, "abcdefghi…"), (4, "abcdefghi…"), (12, "…ijklmnop…"), (24, "…rstuvwxyz"), (25, "…rstuvwxyz")])
def test_window_cut_keeps_the_given_character_in_view(at: int, cut: str) -> None:
    text = "abcdefghijklmnopqrstuvwxyz"
    assert window_cut(text, at, 10) == cut and text[min(at, 25)] in cut
    assert window_cut("short", 3, 10) == "short"


@pytest.mark.parametrize(("count", "noun", "text"), [
    (1, "launch", "1 launch"), (3, "launch", "3 launches"), (0, "kernel", "0 kernels"),
    (2, "kernel launch", "2 kernel launches")])
def test_counted_says_the_noun_in_the_number_it_needs(count, noun, text):
    assert counted(count, noun) == text


@pytest.mark.parametrize(("value", "text"), [(0.0009996, "1 ms"), (0.00099949, "999 us"), (999.6e-9, "1 us"),
                                             (1.2345e-5, "12.3 us"), (2.5, "2.5 s"), (None, "n/a")])
def test_seconds_rounds_before_choosing_its_unit(value, text) -> None:
    from roofline.core.units import seconds

    assert seconds(value) == text  # never "1e+03 us"


@pytest.mark.parametrize(("value", "unit", "text"), [(999.6e9, "B/s", "1 TB/s"), (1.23e12, "FLOP/s", "1.23 TFLOP/s"),
                                                     (-999.7e3, "B", "-1 MB"), (0.5, "x", "0.5 x")])
def test_si_rounds_before_choosing_its_prefix(value, unit, text) -> None:
    from roofline.core.units import si

    assert si(value, unit) == text


def test_a_hit_rate_above_100_percent_keeps_the_digits_that_tell_it_from_100():
    from roofline.core.units import hit_pct

    assert (hit_pct(84.24), hit_pct(100.0), hit_pct(100.03), hit_pct(100.004)) == ("84.2%", "100.0%", "100.03%",
                                                                                    "100.004%")
    assert hit_pct(None) == "n/a"


def test_a_percent_against_its_limit_keeps_the_digits_that_tell_them_apart():
    from roofline.core.units import pct_apart

    assert (pct_apart(91.769, 91.79), pct_apart(91.769, 90.0), pct_apart(90.0, 90.0)) == ("91.77%", "91.8%", "90.0%")


@pytest.mark.parametrize(("value", "text"), [
    (86.2, "86%"), (58.9, "59%"), (61.0, "61%"),  # a point or more away: whole percent
    (60.6, "60.6%"), (59.8, "59.8%"), (60.04, "60.0%"), (60.0, "60.0%"),  # at or above: one decimal is enough
    (59.96, "59.96%"), (59.996, "59.996%"),  # below: "60.0%" and "60.00%" would read as the threshold itself
    (60 - 1e-14, "59.99999999999999%"),  # a double's own digits where nothing shorter tells
])
def test_a_percent_beside_a_threshold_prints_on_the_side_it_is_on(value, text):
    assert pct_beside(value, 60.0) == text
    shown = float(text.removesuffix("%"))
    assert (shown < 60.0) == (value < 60.0)


def test_pct_change_is_signed_and_never_minus_zero() -> None:
    """A change that rounds to zero reads "+0.0%" (the diff's total printed "-0.0%" for -0.004%)."""
    from roofline.core.units import pct_change

    assert pct_change(-0.004) == "+0.0%" and pct_change(0.0) == "+0.0%"
    assert pct_change(12.34) == "+12.3%" and pct_change(-4.0) == "-4.0%"
    assert pct_change(5.004, 5.0) == "+5.004%" and pct_change(-0.004, 5.0) == "+0.0%"


def test_runs_join_consecutive_numbers_each_run_its_first_and_last():
    assert runs([88, 89, 90, 95, 97, 98]) == [(88, 90), (95, 95), (97, 98)]
    assert runs([]) == [] and runs([3]) == [(3, 3)]


def test_a_wave_count_takes_its_noun_in_the_singular_only_for_one():
    assert (waves(1.0), waves(1.0004), waves(0.5), waves(2.0)) == ("1 wave", "1 wave", "0.5 waves", "2 waves")
