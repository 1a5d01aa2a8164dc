"""roofline.core.units: the middle cut that kernel names and error messages share."""

from __future__ import annotations

import pytest

from roofline.core.units import counted, middle_cut, window_cut


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
