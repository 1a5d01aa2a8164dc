"""Specs that contradict what they are used with: a calibration of another GPU, a spec whose compute capability or
SM count is not the report's, a key given twice; a display name as a spec id; where a report's spec came from."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from roofline.cli.app import app
from roofline.core.model import Device
from roofline.errors import SpecError
from roofline.specs.catalog import (
    CALIBRATION_TOLERANCE,
    builtin_folder,
    calibration_problems,
    catalog_problems,
    check_spec,
    device_disagreements,
    load_catalog,
    parse_spec_file,
)
from roofline.specs.safe_yaml import load_yaml
from tests.specs.test_catalog import VALID, with_change, write

ROOT = Path(__file__).resolve().parents[2]
SPECS = ROOT / "device_specs"
H100_CALIBRATION = SPECS / "measured" / "h100-sxm5.yaml"
H100_EXAMPLE = ROOT / "examples" / "h100" / "ops" / "op01-square-matrix-multiplication.json"
runner = CliRunner()


def calibration_as(tmp_path: Path, spec_id: str, device: str | None = None, name: str = "") -> Path:
    """The shipped H100 SXM5 calibration given to another spec id (and, where given, another measured.device)."""
    data = yaml.safe_load(H100_CALIBRATION.read_text())
    data["id"] = spec_id
    if device is not None:
        data["measured"]["device"] = device
    path = tmp_path / (name or f"{spec_id}.calibration.yaml")
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


# --- finding 1: a calibration of another GPU ---------------------------------------------------------------
def test_a_calibration_naming_another_gpu_is_refused_in_one_line_naming_the_file_and_the_fix(tmp_path):
    """The H100's calibration given the T4's id: its measured.device is not 'Tesla T4'; before, the T4 got 6-9x
    calibrated roofs silently."""
    cal = calibration_as(tmp_path, "t4")
    with pytest.raises(SpecError) as err:
        load_catalog([cal]).get("t4")
    assert str(err.value) == (f"{cal}: measured.device 'NVIDIA H100 80GB HBM3' is not a display name of spec 't4' "
                              "(Tesla T4): a calibration belongs to the GPU it measured: set its 'id' to that GPU's "
                              "spec ('roofline specs list'), or run 'roofline calibrate' on this GPU")


def test_a_calibrated_roof_above_the_datasheet_is_refused_even_under_the_right_name(tmp_path):
    """measured.device set to 'Tesla T4': the H100's DRAM rate (2.82 TB/s) is 8.8x the T4's 320 GB/s."""
    cal = calibration_as(tmp_path, "t4", device="Tesla T4")
    with pytest.raises(SpecError) as err:
        load_catalog([cal]).get("t4")
    assert str(err.value).startswith(f"{cal}: measured.roofs.dram.ncu median 2.82 TB/s is 8.82x the datasheet "
                                     "320 GB/s of spec 't4' (more than 5% above: a calibrated rate cannot beat the "
                                     "peak): a calibration belongs to the GPU it measured")


def test_a_roof_within_the_tolerance_passes_and_one_above_it_at_the_clock_it_ran_does_not():
    """The tolerance is on the datasheet roof at the SM clock the roof ran at, where above the figure's clock."""
    import dataclasses

    from roofline.specs.calibration import MeasuredRoof, Rate

    spec = load_catalog().get("h100-sxm5")
    cal = spec.measured
    assert cal is not None
    fp32 = spec.peaks["fp32"]

    def problems(median: float, clock: float) -> list[SpecError]:
        roof = MeasuredRoof("test", Rate(median, median, median, 5, clock))
        return calibration_problems(spec, dataclasses.replace(cal, roofs={**cal.roofs, "fp32": roof}))

    assert problems(fp32 * (1 + CALIBRATION_TOLERANCE) * 0.999, 1.5e9) == []
    (above,) = problems(fp32 * (1 + CALIBRATION_TOLERANCE) * 1.01, 1.5e9)
    assert "measured.roofs.fp32.ncu median" in str(above) and "1.06x the datasheet 66.9 TFLOP/s" in str(above)
    assert problems(fp32 * 1.12, spec.boost_clock_hz * 1.1) == []  # run above its rated boost, it reaches more


def test_the_shipped_calibrations_agree_with_their_specs():
    """Every built-in calibration names its spec's GPU and stays under its datasheet roofs."""
    for spec in load_catalog().specs:
        if spec.measured is not None:
            assert calibration_problems(spec, spec.measured) == [], spec.id
    assert {s.id for s in load_catalog().specs if s.measured} >= {"h100-sxm5", "h200"}


def test_specs_check_reports_a_calibration_of_another_gpu(tmp_path):
    cal = calibration_as(tmp_path, "t4")
    result = runner.invoke(app, ["specs", "check", "--specs", str(cal)])
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert all(line.startswith(f"{cal}: measured.") for line in lines)
    assert any("measured.device 'NVIDIA H100 80GB HBM3'" in line for line in lines)
    assert {line.split()[1] for line in lines[1:]} == {"measured.roofs.dram.ncu", "measured.roofs.fp64.ncu",
                                                      "measured.roofs.fp32.ncu", "measured.roofs.tensor_fp16.ncu"}


def test_a_user_spec_replacing_a_calibrated_builtin_one_is_refused_with_the_builtin_calibration(tmp_path):
    """A copy of h100-sxm5.yaml with its display names changed: the shipped calibration measured another GPU; the
    fix says to keep the names or take another id."""
    data = yaml.safe_load((SPECS / "h100-sxm5.yaml").read_text())
    data["display_names"] = ["My Lab GPU"]
    mine = write(tmp_path, data)
    with pytest.raises(SpecError) as err:
        load_catalog([mine]).get("h100-sxm5")
    shipped = builtin_folder() / "measured" / "h100-sxm5.yaml"  # the installed package's, or the source's
    assert str(err.value).startswith(f"{shipped}: measured.device 'NVIDIA H100 80GB HBM3' is not a display "
                                     "name of spec 'h100-sxm5' (My Lab GPU): your spec")
    assert "keep its display names and roofs, or give your spec another id" in str(err.value)


# --- finding 2: a spec that is not the report's GPU --------------------------------------------------------
def test_a_spec_of_another_compute_capability_and_sm_count_is_warned_about_naming_the_file(tmp_path):
    spec = parse_spec_file(write(tmp_path, VALID))  # CC 8.0, 100 SMs
    device = Device("NVIDIA Test GPU", compute_capability="9.0", sm_count=132)
    assert device_disagreements(spec, device) == [
        f"spec test-gpu ({spec.path}) is for compute capability 8.0, the report's GPU has 9.0: its datasheet roofs "
        "are another GPU's (check its display_names)",
        f"spec test-gpu ({spec.path}) gives 100 SMs, the report's GPU has 132: its datasheet roofs are another GPU's "
        "(check its display_names)"]


def test_fewer_sms_than_the_spec_is_warned_about_not_refused_as_a_mig_slice_has_fewer():
    spec = load_catalog().get("a100-sxm4-40gb")
    (line,) = device_disagreements(spec, Device("NVIDIA A100-SXM4-40GB", compute_capability="8.0", sm_count=42))
    assert line == ("spec a100-sxm4-40gb (device_specs/a100-sxm4-40gb.yaml) gives 108 SMs, the report's GPU has 42: "
                    "its datasheet roofs are the whole GPU's if this is a MIG slice of it, else another GPU's (check "
                    "its display_names)")
    assert device_disagreements(spec, Device("x", compute_capability="8.0", sm_count=108)) == []
    assert device_disagreements(spec, Device("x")) == []  # a report without the attributes: nothing to compare


def test_a_report_matched_to_a_spec_of_another_gpu_carries_the_warning_in_its_json(tmp_path):
    """The probe's case: a CC 8.9, 76-SM spec given the H100's display name took its reports silently."""
    data = {**with_change("compute_capability", "8.9"), "id": "wrong", "architecture": "Ada",
            "display_names": ["NVIDIA H100 80GB HBM3"]}
    mine = write(tmp_path, data)
    result = runner.invoke(app, ["report", str(H100_EXAMPLE), "-f", "json", "--specs", str(mine)])
    assert result.exit_code == 0, result.output
    (report,) = json.loads(result.stdout)["reports"]
    assert report["warnings"] == [
        f"spec wrong ({mine}) is for compute capability 8.9, the report's GPU has 9.0: its datasheet roofs are "
        "another GPU's (check its display_names)",
        f"spec wrong ({mine}) gives 100 SMs, the report's GPU has 132: its datasheet roofs are another GPU's (check "
        "its display_names)"]
    builtin = runner.invoke(app, ["report", str(H100_EXAMPLE), "-f", "json"])
    assert json.loads(builtin.stdout)["reports"][0]["warnings"] == []


# --- finding 4: a display name where an id is asked for ----------------------------------------------------
@pytest.mark.parametrize(("given", "spec_id"), [("NVIDIA H100 80GB HBM3", "h100-sxm5"),
                                                ("NVIDIA H100 PCIe", "h100-pcie"), ("nvidia h100 pcie", "h100-pcie"),
                                                ("Tesla T4", "t4")])
def test_a_display_name_as_reports_print_it_finds_its_spec(given, spec_id):
    assert load_catalog().get(given).id == spec_id


def test_an_unknown_name_suggests_the_specs_whose_display_names_start_so():
    with pytest.raises(SpecError) as err:
        load_catalog().get("NVIDIA H100")
    assert str(err.value) == "unknown device spec id 'NVIDIA H100': did you mean h100-nvl, h100-pcie, h100-sxm5?"


def test_a_user_spec_with_a_builtin_display_name_wins_it_by_name_too(tmp_path):
    t4 = yaml.safe_load((SPECS / "t4.yaml").read_text())
    mine = write(tmp_path, {**t4, "id": "t4mine"})
    assert load_catalog([mine]).get("Tesla T4").id == "t4mine"


# --- finding 5: where a report's spec came from ------------------------------------------------------------
def test_a_match_to_a_user_spec_names_its_file_and_the_builtin_it_overrides(tmp_path):
    t4 = yaml.safe_load((SPECS / "t4.yaml").read_text())
    same_id = write(tmp_path, t4)
    device = Device("Tesla T4", compute_capability="7.5", sm_count=40)
    match = load_catalog([same_id]).match(device)
    assert match is not None and match.how == f"display name 'Tesla T4'; your spec {same_id}, over the built-in t4"
    other_id = write(tmp_path, {**t4, "id": "t4mine"})
    match = load_catalog([other_id]).match(device)
    assert match is not None and match.how == f"display name 'Tesla T4'; your spec {other_id}, over the built-in t4"
    builtin = load_catalog().match(device)
    assert builtin is not None and builtin.how == "display name 'Tesla T4'"


def test_a_user_spec_of_a_new_name_overrides_no_builtin_whose_name_only_starts_alike(tmp_path):
    """'NVIDIA GeForce RTX 4070' is no built-in's display name (the RTX 4070 Ti's and the laptop part's start so):
    the spec line says the user's file, not 'over the built-in rtx-4070-laptop'."""
    t4 = yaml.safe_load((SPECS / "t4.yaml").read_text())
    mine = write(tmp_path, {**t4, "id": "rtx-4070", "display_names": ["NVIDIA GeForce RTX 4070"]})
    match = load_catalog([mine]).match(Device("NVIDIA GeForce RTX 4070", compute_capability="7.5", sm_count=40))
    assert match is not None and match.how == f"display name 'NVIDIA GeForce RTX 4070'; your spec {mine}"


def test_a_refused_calibration_of_one_gpu_leaves_the_reports_of_others_alone(tmp_path):
    """The H100's calibration given the T4's id is refused where the T4's spec is used, not by every lookup: the
    H100 report still matches its spec with its own calibration, and the list still lists."""
    cal = calibration_as(tmp_path, "t4")
    catalog = load_catalog([cal])
    assert len(catalog.specs) > 30
    h100 = catalog.match(Device("NVIDIA H100 80GB HBM3", compute_capability="9.0", sm_count=132))
    assert h100 is not None and h100.spec.id == "h100-sxm5" and h100.spec.measured is not None
    assert catalog.get("h100-sxm5").measured is not None
    with pytest.raises(SpecError, match="is not a display name of spec 't4'"):
        catalog.get("t4")
    with pytest.raises(SpecError, match="is not a display name of spec 't4'"):
        catalog.match(Device("Tesla T4", compute_capability="7.5", sm_count=40))


def test_a_fallback_match_to_a_user_spec_names_its_file(tmp_path):
    mine = write(tmp_path, VALID)
    match = load_catalog([mine]).match(Device("Renamed GPU", compute_capability="8.0", sm_count=100,
                                              total_memory_bytes=80 * 2**30))
    assert match is not None and match.how.endswith(f"is not a listed display name); your spec {mine}")


# --- finding 6: every problem of every file ----------------------------------------------------------------
def test_check_names_a_cross_check_failure_beside_a_malformed_file(tmp_path):
    write(tmp_path, {**with_change("sm_count", {"value": 0, "source": "x"}), "id": "zero-sm",
                     "display_names": ["Zero"]})
    write(tmp_path, {**with_change("peaks.fp32", {"value": 99e12, "source": "x"}), "id": "fp32-off",
                     "display_names": ["Off"]})
    calibration_as(tmp_path, "t4", name="t4-cal.yaml")
    checked, problems = catalog_problems([tmp_path])
    assert checked > 38
    assert sorted(p.split(":")[0] for p in problems) == sorted([str(tmp_path / "zero-sm.yaml"),
                                                                str(tmp_path / "fp32-off.yaml"),
                                                                *[str(tmp_path / "t4-cal.yaml")] * 5])
    assert problems[0].startswith(f"{tmp_path / 'zero-sm.yaml'}: key 'sm_count.value' is 0")
    assert any("fp32-off.yaml: peaks.fp32 99 TFLOP/s differs by more than 2%" in p for p in problems)


# --- finding 7: a key given twice --------------------------------------------------------------------------
def test_a_key_given_twice_is_refused_naming_the_key_and_both_lines(tmp_path):
    text = yaml.safe_dump(VALID, sort_keys=False) + "l2_bytes: {value: 1, source: y}\n"
    path = tmp_path / "dup.yaml"
    path.write_text(text)
    first = text.splitlines().index(next(line for line in text.splitlines() if line.startswith("l2_bytes"))) + 1
    last = len(text.splitlines())
    with pytest.raises(SpecError) as err:
        load_yaml(path)
    assert str(err.value) == (f"{path}: key 'l2_bytes' given twice (lines {first} and {last}): keep one of them: "
                              "YAML would silently use the last")


def test_a_nested_key_given_twice_in_a_flow_mapping_is_named_with_its_section(tmp_path):
    path = tmp_path / "nested.yaml"
    path.write_text("memory:\n  bytes: {value: 1, value: 2}\n")
    with pytest.raises(SpecError, match=r"key 'memory\.bytes\.value' given twice \(lines 2 and 2\)"):
        load_yaml(path)
    path.write_text("a: 1\nb: [{x: 1}, {x: 2}]\n")  # one key per mapping: fine
    assert load_yaml(path) == {"a": 1, "b": [{"x": 1}, {"x": 2}]}


# --- finding 10: architecture and Tensor clock -------------------------------------------------------------
def test_check_refuses_an_unknown_architecture_or_one_not_of_the_compute_capability(tmp_path):
    kepler = write(tmp_path, {**VALID, "architecture": "Kepler"})
    assert check_spec(parse_spec_file(kepler)) == [
        f"{kepler}: key 'architecture' 'Kepler' is not a known architecture; one of Maxwell, Pascal, Volta, Turing, "
        "Ampere, Ada, Hopper, Blackwell"]
    ada = write(tmp_path, {**VALID, "architecture": "Ada"}, "ada.yaml")  # CC 8.0
    assert check_spec(parse_spec_file(ada)) == [
        f"{ada}: key 'architecture' 'Ada' is not the architecture of compute capability 8.0 (Ampere)"]
    result = runner.invoke(app, ["specs", "check", "--specs", str(kepler)])
    assert result.exit_code == 1 and "'Kepler' is not a known architecture" in result.output


def test_a_tensor_clock_above_the_boost_clock_is_refused(tmp_path):
    fast = write(tmp_path, {**VALID, "tensor_clock_hz": {"value": 3e9, "source": "x"}})
    with pytest.raises(SpecError, match="key 'tensor_clock_hz' 3e\\+09 is above boost_clock_hz 1.5e\\+09"):
        parse_spec_file(fast)


def test_the_shipped_calibration_files_say_the_ceilings_value_that_uses_them():
    for path in sorted((SPECS / "measured").glob("*.yaml")):
        assert "--ceilings calibrated" in path.read_text() and "--ceilings measured)" not in path.read_text()
