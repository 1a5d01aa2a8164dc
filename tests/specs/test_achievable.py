"""What a loaded GPU sustains: the sustained clock, the achievable DRAM bandwidth (own figure or memory-type
default) and each unit's achievable fraction, each with its source."""

from __future__ import annotations

import pytest

from roofline.errors import SpecError
from roofline.specs import achievable
from roofline.specs.catalog import load_catalog, parse_spec_file
from tests.specs.test_catalog import cited, with_change, write


def test_a_spec_without_a_sustained_clock_holds_its_boost_clock(tmp_path):
    spec = parse_spec_file(write(tmp_path, with_change("id", "test-gpu")))
    held = achievable.sustained_clock(spec)
    assert held.value == spec.boost_clock_hz
    assert "boost" in held.source


def test_a_sustained_clock_is_read_with_its_source_and_chosen_by_name(tmp_path):
    spec = parse_spec_file(write(tmp_path, with_change("sustained_clock_hz", cited(1.2e9))))
    assert achievable.clock(spec, "sustained") == (1.2e9, "test fixture")
    assert achievable.clock(spec, "boost").value == 1.5e9
    assert achievable.clock(spec, "base") is None  # the fixture gives no base clock


def test_a_sustained_clock_above_boost_is_refused(tmp_path):
    with pytest.raises(SpecError, match="sustained_clock_hz"):
        parse_spec_file(write(tmp_path, with_change("sustained_clock_hz", cited(2.0e9))))


def test_an_achievable_bandwidth_above_the_datasheet_is_refused(tmp_path):
    with pytest.raises(SpecError, match="achievable_bandwidth_bytes_per_s"):
        parse_spec_file(write(tmp_path, with_change("memory.achievable_bandwidth_bytes_per_s", cited(3e12))))


def test_the_spec_own_achievable_bandwidth_wins_over_the_memory_type_default(tmp_path):
    spec = parse_spec_file(write(tmp_path, with_change("memory.achievable_bandwidth_bytes_per_s", cited(1.7e12))))
    assert achievable.achievable_dram_bandwidth(spec) == (1.7e12, "test fixture")
    assert achievable.achievable_fraction(spec, "dram").value == pytest.approx(0.85)
    assert achievable.achievable_fraction(spec, "DRAM") == achievable.achievable_fraction(spec, "dram")


def test_without_its_own_figure_a_spec_takes_its_memory_type_fraction(tmp_path):
    spec = parse_spec_file(write(tmp_path, with_change("memory.type", "GDDR6")))
    default = achievable.memory_type_fraction("GDDR6")
    assert default is not None
    got = achievable.achievable_dram_bandwidth(spec)
    assert got is not None and got.value == pytest.approx(2.0e12 * default.value)
    assert "GDDR6" in got.source


def test_an_unknown_memory_type_has_no_achievable_bandwidth_and_the_full_peak(tmp_path):
    spec = parse_spec_file(write(tmp_path, with_change("memory.type", "SRAM")))
    assert achievable.achievable_dram_bandwidth(spec) is None
    assert achievable.achievable_fraction(spec, "dram").value == 1.0


def test_units_inside_the_sms_reach_their_peak(tmp_path):
    spec = parse_spec_file(write(tmp_path, with_change("id", "test-gpu")))
    assert achievable.achievable_fraction(spec, "fp32").value == 1.0


def test_every_memory_type_of_the_builtin_specs_has_a_cited_default_fraction():
    for spec in load_catalog().specs:
        default = achievable.memory_type_fraction(spec.memory_type)
        assert default is not None and 0.5 < default.value <= 1.0 and default.source, spec.id
        dram = achievable.achievable_dram_bandwidth(spec)
        assert dram is not None and dram.value <= spec.memory_bandwidth_bytes_per_s, spec.id


def test_every_sustained_clock_of_the_builtin_specs_is_cited_and_at_most_boost():
    for spec in load_catalog().specs:
        held = achievable.sustained_clock(spec)
        assert held.source and held.value <= spec.boost_clock_hz, spec.id


def test_a_shipped_spec_file_is_named_by_its_place_in_the_repository_not_this_install() -> None:
    from roofline.specs.achievable import shown_path
    from roofline.specs.catalog import builtin_folder

    shipped = builtin_folder() / "measured" / "h100-sxm5.yaml"
    assert shown_path(str(shipped)) == "device_specs/measured/h100-sxm5.yaml"
    assert shown_path("my/own.yaml") == "my/own.yaml"
