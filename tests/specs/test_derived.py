"""Datasheet peaks derived from device attributes: they agree with every cited spec, and a real report whose GPU no
spec names gets them, labelled, with values computed here from its raw attributes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from roofline.core.model import Device
from roofline.pipeline import AnalysisOptions, analyze_loaded
from roofline.render.report import json as json_render
from roofline.render.report import markdown, table
from roofline.specs.catalog import DERIVED_ID, DeviceSpec, SpecCatalog, load_catalog, spec_ceilings
from roofline.specs.derived import SM_RATES, TENSOR_GAP, derive
from tests.conftest import load_shared_report, read_raw_actions
from tests.views import views

TOLERANCE = 0.05
SPECS = {s.id: s for s in load_catalog().specs}
BASIC_SET = "rtx2070super_alife-143launches_basic"  # no peak counters: every roof comes from the datasheet


def _as_device(spec: DeviceSpec) -> Device:
    """The device attributes a report of this GPU would hold, under a name no spec lists."""
    return Device(f"{spec.display_names[0]} (unlisted)", spec.compute_capability, spec.sm_count, spec.boost_clock_hz,
                  spec.memory_clock_hz or 1e9, spec.memory_bus_width_bits or 64)


@pytest.mark.parametrize("spec_id", sorted(SPECS))
def test_derived_peaks_agree_with_the_cited_spec_within_5_percent(spec_id):
    spec = SPECS[spec_id]
    derived = derive(_as_device(spec))
    assert derived is not None, f"CC {spec.compute_capability} has no per-SM rates"
    compared = [k for k in ("fp64", "fp32", "fp16") if k in spec.peaks and k in derived.spec.peaks]
    assert "fp32" in compared
    for key in compared:
        assert derived.spec.peaks[key] == pytest.approx(spec.peaks[key], rel=TOLERANCE), key
    if spec.memory_clock_hz and spec.memory_bus_width_bits:
        assert derived.spec.memory_bandwidth_bytes_per_s == pytest.approx(spec.memory_bandwidth_bytes_per_s,
                                                                          rel=TOLERANCE)


def test_every_spec_with_a_real_report_gives_its_memory_clock_and_bus_width():
    cited = {s.id for s in SPECS.values() if s.memory_clock_hz and s.memory_bus_width_bits}
    from_reports = {s.id for s in SPECS.values() if "shared/ncu-reps" in s.sources.get("memory.clock_hz", "")}
    assert len(from_reports) == 20 and from_reports <= cited
    assert {"mx450", "rtx-2060-super", "rtx-2070", "rtx-3070-ti", "rtx-4070-laptop"} <= cited


def test_a_rate_the_compute_capability_does_not_set_stays_null_with_its_reason():
    hopper = derive(Device("NVIDIA H-Unknown", "9.0", 132, 1.98e9, 2.619e9, 5120))
    assert hopper is not None
    assert "fp64" not in hopper.spec.peaks and hopper.spec.peaks["fp16"] == 132 * 256 * 2 * 1.98e9
    sheet = spec_ceilings(hopper.spec)
    assert sheet.flop_per_s["fp64"] is None and "H800" in sheet.missing["fp64"]
    assert sheet.flop_per_s["tensor"] is None and sheet.missing["tensor"] == TENSOR_GAP
    assert "9.0" in SM_RATES and "11.0" not in SM_RATES


@pytest.mark.parametrize("device", [
    Device("NVIDIA Mystery", "8.6", 30, None, 7.0e9, 192),  # no boost clock
    Device("NVIDIA Mystery", "8.6", None, 1.5e9, 7.0e9, 192),  # no SM count
    Device("NVIDIA Mystery", "8.6", 30, 1.5e9, None, None),  # no memory clock or bus width
    Device("NVIDIA Mystery", "11.0", 30, 1.5e9, 7.0e9, 192),  # a CC without per-SM rates
])
def test_without_the_attributes_nothing_is_derived(device):
    assert derive(device) is None


def test_a_real_report_of_an_unlisted_gpu_gets_labelled_derived_ceilings():
    report = load_shared_report(BASIC_SET)
    raw = read_raw_actions(BASIC_SET)[0]  # the attributes read with ncu_report, not roofline's reader
    sms, khz = raw["device__attribute_multiprocessor_count"], raw["device__attribute_max_gpu_frequency_khz"]
    fp32 = sms * 64 * 2 * khz * 1e3  # Turing: 64 FP32 lanes per SM, 2 FLOP per FMA
    fp64, fp16 = fp32 * 2 / 64, fp32 * 2  # 2 DFMA and 128 FP16 FMA per SM per clock
    dram = 2 * raw["device__attribute_memory_clock_rate"] * 1e3 * raw["device__attribute_global_memory_bus_width"] / 8

    a = analyze_loaded(report, AnalysisOptions(ceilings="datasheet"), catalog=SpecCatalog([]))
    assert a.spec_id == DERIVED_ID and a.spec_match.startswith("derived from device attributes")
    assert f"{khz / 1e6:.3g} GHz boost clock (device__attribute_max_gpu_frequency_khz)" in a.spec_match
    sheet = a.launches[0].ceilings["datasheet"]
    assert sheet.flop_per_s["fp32"] == pytest.approx(fp32) and sheet.flop_per_s["fp64"] == pytest.approx(fp64)
    assert sheet.flop_per_s["fp16"] == pytest.approx(fp16) and sheet.bytes_per_s["dram"] == pytest.approx(dram)
    assert sheet.flop_per_s["tensor"] is None and sheet.missing["tensor"] == TENSOR_GAP
    assert "derived from device attributes" in sheet.clock_note

    doc = json.loads(json_render.render(views([a])))["reports"][0]
    assert doc["device"]["spec_id"] == DERIVED_ID and doc["device"]["spec_match"] == a.spec_match
    assert doc["kernels"][0]["ceilings"]["datasheet"]["fp32_flop_per_s"] == pytest.approx(fp32)
    assert "derived from device attributes" in markdown.render(views([a]))
    assert "derived from device attributes" in " ".join(table.render(views([a]), width=400).split())


def test_a_listed_gpu_keeps_its_cited_spec():
    report = load_shared_report(BASIC_SET)
    a = analyze_loaded(report, AnalysisOptions(ceilings="datasheet"))
    assert a.spec_id == "rtx-2070-super"


def test_a_spec_file_cannot_take_the_derived_id(tmp_path):
    from roofline.errors import SpecError
    from roofline.specs.catalog import parse_spec_file

    text = Path(SPECS["t4"].path).read_text()
    path = tmp_path / "mine.yaml"
    path.write_text(text.replace("id: t4", f"id: {DERIVED_ID}", 1))
    with pytest.raises(SpecError, match="mine.yaml: key 'id' 'derived' is reserved"):
        parse_spec_file(path)
