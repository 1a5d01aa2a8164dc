"""A kernel's place on the comparison and summary plots, decided once in the analysis."""

from __future__ import annotations

from roofline.analysis.plot_place import Place, plain_place, roof_place


def test_a_kernel_is_placed_at_a_positive_intensity_and_rate_and_says_why_not_otherwise():
    assert plain_place(10.0, 1e12) is Place.PLACED
    assert plain_place(None, 1e12) is Place.NO_INTENSITY
    assert plain_place(10.0, None) is Place.NO_FLOPS
    assert plain_place(0.0, 1e12) is Place.NO_FLOPS and plain_place(10.0, 0.0) is Place.NO_FLOPS


def test_the_normalized_place_needs_a_positive_percent_of_roof():
    assert roof_place(42.0) is Place.PLACED
    assert roof_place(None) is Place.NO_ROOF
    assert roof_place(0.0) is Place.ZERO_ROOF
