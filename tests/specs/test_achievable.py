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


L4 = {"id": "l4-like", "sm_count": cited(58), "boost_clock_hz": cited(2.04e9), "fp32_lanes_per_sm": cited(128),
      "board_power_w": cited(72)}  # the NVIDIA L4 datasheet's facts: 58 SMs x 128 lanes, 2040 MHz, 72 W


def spec_with(tmp_path, changes: dict):
    data = with_change("id", "test-gpu")
    data.update(changes)
    data["peaks"] = {**data["peaks"], "fp32": cited(2 * data["sm_count"]["value"] * data["fp32_lanes_per_sm"]["value"]
                                                    * data["boost_clock_hz"]["value"])}
    return parse_spec_file(write(tmp_path, data))


def test_the_power_rule_holds_an_l4_to_the_clock_its_72_w_allow(tmp_path):
    # by hand: 0.0285 W x 58 x 128 x 2.04 = 431.6 W at boost; (72 / 431.6)^(1/3) = 0.5504 -> 1123 MHz
    spec = spec_with(tmp_path, L4)
    held = achievable.sustained_clock(spec)
    assert achievable.WATTS_PER_LANE_GHZ == 0.0285 and achievable.POWER_EXPONENT == 3.0
    assert held.value == pytest.approx(1.1228e9, rel=1e-3)
    assert held.source.startswith("power rule: 0.55 x the 2040 MHz boost") and "72 W board" in held.source


def test_the_power_rule_keeps_boost_where_the_board_power_covers_it(tmp_path):
    # an A100 SXM4: 0.0285 W x 108 x 64 x 1.41 = 277.8 W at boost, under its 400 W
    spec = spec_with(tmp_path, {"sm_count": cited(108), "boost_clock_hz": cited(1.41e9),
                                "fp32_lanes_per_sm": cited(64), "board_power_w": cited(400)})
    assert achievable.sustained_clock(spec).value == 1.41e9
    assert achievable.power_limited_clock(spec, watts_per_lane_ghz=0.1).value == pytest.approx(
        1.41e9 * (400 / (0.1 * 108 * 64 * 1.41)) ** (1 / 3))


def test_the_power_rule_never_takes_a_board_below_its_base_clock(tmp_path):
    """The L4-like board's rule gives 1123 MHz (above); with a 1.5 GHz base clock, the clock the board is rated to
    hold at its power, the sustained clock is the base, and the source says the rule was below it."""
    spec = spec_with(tmp_path, {**L4, "base_clock_hz": cited(1.5e9)})
    held = achievable.sustained_clock(spec)
    assert held.value == 1.5e9
    assert held.source.startswith("the base clock (test fixture)") and "above the power rule: 0.55 x" in held.source
    below = spec_with(tmp_path, {**L4, "base_clock_hz": cited(1.0e9)})
    assert achievable.sustained_clock(below).value == pytest.approx(1.1228e9, rel=1e-3)


def test_no_shipped_spec_sustains_less_than_its_base_clock():
    """Every built-in spec with a base clock: sustained >= base, so --clock base never projects faster than the
    default (the RTX 4070 Ti's and RTX 5060 Ti's rule clocks, 2.07 and 2.09 GHz, are below the 2.26 and 2.39 GHz
    their own reports ran at)."""
    from roofline.specs.catalog import load_catalog

    specs = [s for s in load_catalog().specs if s.base_clock_hz is not None]
    assert len(specs) > 10
    for spec in specs:
        assert achievable.sustained_clock(spec).value >= spec.base_clock_hz, spec.id
    assert achievable.sustained_clock(load_catalog().get("rtx-5060-ti")).value == 2.389e9


def test_a_cited_sustained_clock_wins_over_the_power_rule(tmp_path):
    spec = spec_with(tmp_path, {**L4, "sustained_clock_hz": cited(1.5e9)})
    assert achievable.sustained_clock(spec) == (1.5e9, "test fixture")
    assert achievable.power_limited_clock(spec) is not None  # what the rule would give is still there to compare


def test_without_board_power_there_is_no_power_rule(tmp_path):
    spec = parse_spec_file(write(tmp_path, with_change("id", "test-gpu")))
    assert spec.board_power_w is None and achievable.power_limited_clock(spec) is None


@pytest.mark.parametrize("value, words", [
    ({"value": 72}, "every number needs a source"),
    ({"value": 0, "source": "x"}, "board_power_w.value"),
    ({"value": 1e6, "source": "x"}, "board_power_w.value"),
    (72, "must be a mapping"),
])
def test_a_board_power_without_source_or_out_of_range_is_refused(tmp_path, value, words):
    with pytest.raises(SpecError, match=words):
        parse_spec_file(write(tmp_path, with_change("board_power_w", value)))


def test_a_figure_fitted_on_the_development_data_is_told_from_a_public_one():
    assert achievable.is_fit(load_catalog().get("l40s").sources["sustained_clock_hz"])
    assert not achievable.is_fit(load_catalog().get("t4").sources["sustained_clock_hz"])


def test_every_board_power_of_the_builtin_specs_is_cited():
    powered = [s for s in load_catalog().specs if s.board_power_w is not None]
    assert len(powered) > 30
    for spec in powered:
        assert spec.sources["board_power_w"] and 1 <= spec.board_power_w <= 5000, spec.id


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


def test_the_a10g_is_held_by_the_300_w_cap_nvidia_smi_reports():
    # by hand: 0.0285 W x 80 x 128 x 1.71 = 499.1 W at boost; (300 / 499.1)^(1/3) = 0.8438 -> 1443 MHz (an FP32
    # load; a public FP16 GEMM held >= 1.70 GHz on its half-rate Tensor Cores, said in the spec's notes)
    spec = load_catalog().get("a10g")
    assert spec.board_power_w == 300 and "300W" in spec.sources["board_power_w"] and spec.sustained_clock_hz is None
    held = achievable.sustained_clock(spec)
    assert held.value == pytest.approx(1.443e9, rel=1e-3)
    assert held.source.startswith("power rule: 0.84 x the 1710 MHz boost") and "300 W board" in held.source


def test_the_hbm2_default_is_the_public_babelstream_copy_of_an_a100_40gb():
    # 1394.6 GB/s of the A100-SXM4-40GB's 1555 GB/s datasheet = 0.897 (ALCF's BabelStream 4.0 run)
    hbm2 = achievable.memory_type_fraction("HBM2")
    assert hbm2 is not None and hbm2.value == pytest.approx(1394.6 / 1555, abs=0.005)
    assert "BabelStream" in hbm2.source and not achievable.is_fit(hbm2.source)
    got = achievable.achievable_dram_bandwidth(load_catalog().get("a100-sxm4-40gb"))
    assert got is not None and got.value == pytest.approx(0.90 * 1.555e12)
