"""Ceilings per compute capability (device_specs/architecture): every number cites its source, and the integer
lanes agree with ncu's own ALU pipe peak where a report gives it (examples/h200/intops.full.ncu-rep)."""

from __future__ import annotations

import pytest

from roofline.specs import safe_yaml
from roofline.specs.architecture import integer_lanes
from roofline.specs.catalog import builtin_folder


def test_every_integer_ceiling_cites_its_source():
    data = safe_yaml.load_yaml(builtin_folder() / "architecture" / "integer.yaml")
    assert isinstance(data, dict) and "SM clock" in data["clock"]
    for cc, entry in data["lanes_per_sm"].items():
        assert entry["value"] > 0 and "Programming Guide" in entry["source"], cc


def test_hopper_has_64_integer_lanes_as_ncus_alu_peak_and_an_unlisted_cc_has_none():
    lanes = integer_lanes("9.0")
    assert lanes is not None and lanes.per_sm == 64  # ncu: 2 warp instructions per SM and cycle (test_instructions)
    assert integer_lanes("5.2") is None and integer_lanes(None) is None


@pytest.mark.parametrize("cc", ["7.0", "7.5", "8.0", "8.6", "8.9", "9.0"])
def test_every_compute_capability_of_the_shared_reports_is_listed(cc):
    assert integer_lanes(cc) is not None
