"""Ceilings and limits per compute capability (device_specs/architecture): every number cites its source, the integer
lanes agree with ncu's own ALU pipe peak where a report gives it (examples/h200/intops.full.ncu-rep), and the shared
memory limits of a block with the device attributes of every shared report."""

from __future__ import annotations

import pytest

from roofline.specs import safe_yaml
from roofline.specs.architecture import integer_lanes, shared_memory_optin
from roofline.specs.catalog import builtin_folder
from tests.conftest import shared_report_names


def test_every_integer_ceiling_cites_its_source():
    data = safe_yaml.load_yaml(builtin_folder() / "architecture" / "integer.yaml")
    assert isinstance(data, dict) and "SM clock" in data["clock"]
    for cc, entry in data["lanes_per_sm"].items():
        # a cited figure (the Programming Guide's table, a whitepaper) or an assumption said to be one
        assert entry["value"] > 0 and any(w in entry["source"] for w in ("Programming Guide", "whitepaper",
                                                                          "assumed")), cc


def test_hopper_has_64_integer_lanes_as_ncus_alu_peak_and_an_unlisted_cc_has_none():
    lanes = integer_lanes("9.0")
    assert lanes is not None and lanes.per_sm == 64  # ncu: 2 warp instructions per SM and cycle (test_instructions)
    assert integer_lanes("5.2") is None and integer_lanes(None) is None


@pytest.mark.parametrize("cc", ["7.0", "7.5", "8.0", "8.6", "8.9", "9.0", "12.0"])
def test_every_compute_capability_of_the_shared_reports_is_listed(cc):
    assert integer_lanes(cc) is not None


def test_every_shared_memory_limit_cites_its_source():
    data = safe_yaml.load_yaml(builtin_folder() / "architecture" / "limits.yaml")
    assert isinstance(data, dict)
    for cc, entry in data["shared_memory_per_block_optin_bytes"].items():
        assert isinstance(entry["value"], int) and entry["value"] > 0 and entry["source"], cc
    assert shared_memory_optin("5.2") is None and shared_memory_optin(None) is None


@pytest.mark.parametrize("name", shared_report_names())
def test_the_shared_memory_limit_is_the_device_attribute_of_each_report(roofline_report, name):
    """The opt-in limit per block is device__attribute_max_shared_memory_per_block_optin of every report."""
    device = roofline_report(name).device
    optin = device.attributes.get("max_shared_memory_per_block_optin")
    if optin is None:
        pytest.skip(f"{name} holds no shared memory attributes")
    assert shared_memory_optin(device.compute_capability) == optin, device.compute_capability
