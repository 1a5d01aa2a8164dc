"""Calibrated roofs (roofline.specs.calibration) from a real H100 SXM5 calibration: the microbenchmarks' default-clock
results and the launches ncu timed under its clock control (tests/data/calibration), the YAML file, and the roofs
as a ceiling set in the analysis (``--ceilings measured``) on the project's own H100 reports (examples/h100)."""

from __future__ import annotations

import json
import statistics
from pathlib import Path

import pytest
import yaml

import roofline
from roofline.errors import SpecError
from roofline.pipeline import AnalysisOptions, analyze_loaded
from roofline.specs import calibration
from roofline.specs.calibration import Calibration, MeasuredRoof, Rate
from roofline.specs.catalog import load_catalog

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "calibration"
SHIPPED = ROOT / "device_specs" / "measured" / "h100-sxm5.yaml"
BF16_GEMM = ROOT / "examples" / "h100" / "torch-bf16.roofline.ncu-rep"


def ncu_median(roof: MeasuredRoof) -> float:
    assert roof.ncu is not None
    return roof.ncu.median


@pytest.fixture(scope="module")
def benchmarks() -> list[dict]:
    return json.loads((DATA / "h100-default.json").read_text())["benchmarks"]


@pytest.fixture(scope="module")
def ncu_launches() -> list:
    return list(roofline.load(DATA / "h100-ncu.roofline.json").launches)


def test_rates_at_ncu_clocks_are_work_over_the_median_ncu_duration(benchmarks, ncu_launches) -> None:
    roofs = calibration.measure(benchmarks, ncu_launches)
    for b in benchmarks:
        times = [k.metrics["gpu__time_duration.sum"] * 1e-9 for k in ncu_launches
                 if k.nvtx_ranges == (f"roofline_{b['name']}",)]
        assert len(times) == 5
        ncu = roofs[b["name"]].ncu
        assert ncu is not None and ncu.runs == 5
        assert ncu.median == pytest.approx(statistics.median(b["work"] / t for t in times), rel=1e-12)
        assert ncu.low == pytest.approx(b["work"] / max(times)) and ncu.high == pytest.approx(b["work"] / min(times))


def test_rates_at_default_clocks_come_from_the_cuda_event_times(benchmarks, ncu_launches) -> None:
    roofs = calibration.measure(benchmarks, ncu_launches)
    dram = next(b for b in benchmarks if b["name"] == "dram")
    assert dram["work"] == 2 * 2**30  # a 1 GiB copy: read once, written once
    default = roofs["dram"].default
    assert default is not None and default.runs == len(dram["seconds"]) == 10
    assert default.median == pytest.approx(statistics.median(dram["work"] / s for s in dram["seconds"]))


def test_the_h100_rates_are_below_the_datasheet_and_plausible(benchmarks, ncu_launches) -> None:
    """Achievable is below the dense datasheet peak (boost clock) and not absurdly far from it."""
    spec = load_catalog().get("h100-sxm5")
    roofs = calibration.measure(benchmarks, ncu_launches)
    sheet = {"dram": spec.memory_bandwidth_bytes_per_s, **spec.peaks}
    for key, roof in roofs.items():
        if key in sheet:
            for r in (roof.ncu, roof.default):
                assert r is not None and 0.6 < r.median / sheet[key] < 1.0, key


def test_ncu_sm_clock_is_recorded_per_roof(benchmarks, ncu_launches) -> None:
    roofs = calibration.measure(benchmarks, ncu_launches)
    fp32 = roofs["fp32"].ncu
    assert fp32 is not None and fp32.sm_clock_hz == pytest.approx(statistics.median(
        k.metrics["sm__cycles_elapsed.avg.per_second"] for k in ncu_launches if k.nvtx_ranges == ("roofline_fp32",)))


def test_without_an_ncu_run_every_roof_says_why(benchmarks) -> None:
    roofs = calibration.measure(benchmarks, None, "ncu not run (--no-ncu)")
    assert all(r.ncu is None and r.default is not None and r.missing == "ncu not run (--no-ncu)"
               for r in roofs.values())


def test_a_benchmark_that_could_not_run_keeps_its_reason() -> None:
    roofs = calibration.measure([{"name": "tensor_fp8", "unit": "FLOP", "work": None, "method": "", "seconds": [],
                                  "missing": "FP8 GEMMs need compute capability 8.9 or later"}], [])
    assert roofs["tensor_fp8"] == MeasuredRoof(missing="FP8 GEMMs need compute capability 8.9 or later")


def test_yaml_round_trip_keeps_four_significant_digits(benchmarks, ncu_launches) -> None:
    cal = Calibration("h100-sxm5", "NVIDIA H100 80GB HBM3", "2026-11-22", "test",
                      calibration.measure(benchmarks, ncu_launches))
    text = yaml.safe_dump(calibration.to_yaml_dict(cal), sort_keys=False)
    back = calibration.parse(yaml.safe_load(text), "x.yaml")
    assert back.spec_id == "h100-sxm5" and set(back.roofs) == set(cal.roofs)
    for key, roof in cal.roofs.items():
        assert roof.ncu is not None
        assert ncu_median(back.roofs[key]) == pytest.approx(ncu_median(roof), rel=5e-4)


@pytest.mark.parametrize(("content", "what"), [
    ({"id": "h100-sxm5", "measured": {"roofs": {"dram": {"ncu": {"median": 1, "low": 2, "high": 3, "runs": 5}}}}},
     "low <= median <= high"),
    ({"id": "h100-sxm5", "measured": {"roofs": {"dram": {"ncu": {"median": "fast", "runs": 5}}}}},
     "positive finite median"),
    ({"id": "h100-sxm5", "measured": {"roofs": {"dram": {"ncu": {"median": 1, "low": 1, "high": 1, "runs": True}}}}},
     "whole number of runs"),
    ({"id": "h100-sxm5", "measured": {"roofs": {"dram": {"ncu": {"median": True, "low": 1, "high": 1, "runs": 3}}}}},
     "positive finite median"),
    ({"id": "h100-sxm5", "measured": {"roofs": {"int4": {}}}}, "unknown roof"),
    ({"id": "h100-sxm5", "measured": {"roofs": []}}, "measured.roofs must be a mapping"),
    ({"measured": {}}, "expected 'id'"),
])
def test_a_malformed_calibration_file_is_one_line_naming_file_and_key(content, what) -> None:
    with pytest.raises(SpecError) as err:
        calibration.parse(content, "bad.yaml")
    assert str(err.value).startswith("bad.yaml: ") and what in str(err.value) and "\n" not in str(err.value)


def test_the_shipped_calibration_attaches_to_its_spec() -> None:
    spec = load_catalog().get("h100-sxm5")
    assert spec.measured is not None and spec.measured.path.endswith("h100-sxm5.yaml")
    raw = yaml.safe_load(SHIPPED.read_text())
    assert spec.measured.roofs["tensor_bf16"].ncu == Rate(**raw["measured"]["roofs"]["tensor_bf16"]["ncu"])


def test_each_shipped_calibration_is_named_after_the_spec_it_calibrates() -> None:
    """The catalog finds a built-in calibration by its file name, so that only the matched GPU's file is parsed."""
    files = sorted((ROOT / "device_specs" / "measured").glob("*.yaml"))
    assert files
    catalog = load_catalog()
    for path in files:
        cal = calibration.parse(yaml.safe_load(path.read_text()), str(path))
        assert cal.spec_id == path.stem
        measured = catalog.get(path.stem).measured
        assert measured is not None  # the installed copy of this very file (the tests import the installed package)
        assert Path(measured.path).parts[-2:] == ("measured", path.name)
        assert Path(measured.path).read_bytes() == path.read_bytes()


def test_a_gpu_without_a_calibration_loads_no_calibration_code() -> None:
    """Matching an RTX 3080 report parses no calibration file and imports neither calibrate's code nor its
    microbenchmarks: they cost about 8 ms of every run."""
    import subprocess
    import sys

    code = ("import sys; from roofline.specs.catalog import load_catalog; from roofline.core.model import Device\n"
            "match = load_catalog().match(Device('NVIDIA GeForce RTX 3080', compute_capability='8.6'))\n"
            "assert match is not None and match.spec.measured is None, match\n"
            "print(sorted(m for m in sys.modules if m in ('roofline.specs.calibration', 'roofline.specs.microbench')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "[]"


def test_measured_ceilings_take_the_ncu_clock_rate_of_the_tensor_type() -> None:
    cal = load_catalog().get("h100-sxm5").measured
    assert cal is not None
    c = calibration.measured_ceilings(cal, "bf16")
    assert c.source == "calibrated" and c.tensor_dtype == "bf16"
    assert c.flop_per_s["tensor"] == ncu_median(cal.roofs["tensor_bf16"])
    assert c.bytes_per_s["dram"] == ncu_median(cal.roofs["dram"])
    assert c.flop_per_s["fp16"] is None and "fp16 not measured" in c.missing["fp16"]
    assert c.bytes_per_s["l1"] is None and "l1" in c.missing


def test_percent_of_calibrated_roof_on_a_real_bf16_gemm() -> None:
    """The BF16 GEMM's percent of roof against the calibrated Tensor roof, recomputed from the raw counters."""
    report = roofline.load(BF16_GEMM)
    a = analyze_loaded(report, AnalysisOptions(ceilings="calibrated", diagnostics=False))
    k = a.launches[0]
    flops = float(report.launches[0].metrics["sm__ops_path_tensor_src_bf16_dst_fp32.sum"] or 0)
    seconds = float(report.launches[0].metrics["gpu__time_duration.sum"] or 0) * 1e-9
    roof = yaml.safe_load(SHIPPED.read_text())["measured"]["roofs"]["tensor_bf16"]["ncu"]["median"]
    assert flops == 2 * 4096**3
    assert k.roof.ceilings == "calibrated" and k.roof.limiter == "tensor"
    assert k.roof.pct_of_roof == pytest.approx(100 * flops / seconds / roof, rel=1e-9)


def test_a_user_calibration_for_an_unknown_spec_id_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "gpu.yaml"
    path.write_text(yaml.safe_dump({"id": "no-such-gpu", "measured": {"roofs": {}}}))
    with pytest.raises(SpecError, match="calibrates 'no-such-gpu', which no device spec has as its id"):
        _ = load_catalog([path]).specs


def test_a_user_calibration_overrides_the_shipped_one(tmp_path: Path) -> None:
    data = yaml.safe_load(SHIPPED.read_text())
    data["measured"]["roofs"]["dram"]["ncu"] = {"median": 2.0e12, "low": 1.9e12, "high": 2.1e12, "runs": 3}
    path = tmp_path / "mine.yaml"
    path.write_text(yaml.safe_dump(data))
    spec = load_catalog([path]).get("h100-sxm5")
    assert spec.measured is not None and ncu_median(spec.measured.roofs["dram"]) == 2.0e12


@pytest.mark.parametrize("path", sorted((ROOT / "device_specs" / "measured").glob("*.yaml")), ids=lambda p: p.stem)
def test_every_shipped_calibration_attaches_and_sits_below_its_datasheet(path: Path) -> None:
    """Each file in device_specs/measured calibrates a shipped spec, and every roof it measured is achievable:
    below the dense datasheet peak at the boost clock, and above half of it."""
    cal = calibration.parse(yaml.safe_load(path.read_text()), str(path))
    spec = load_catalog().get(cal.spec_id)
    assert spec.measured is not None and Path(spec.measured.path).read_bytes() == path.read_bytes()
    sheet = {"dram": spec.memory_bandwidth_bytes_per_s, **spec.peaks}
    for key, roof in cal.roofs.items():
        for rate in (roof.ncu, roof.default):
            assert rate is not None and rate.low <= rate.median <= rate.high, key
            if key in sheet:
                assert 0.5 < rate.median / sheet[key] < 1.0, key


def test_a_user_calibration_for_an_unknown_spec_id_is_refused_when_matching_too(tmp_path: Path) -> None:
    """Matching a report's GPU by display name parses few specs; a calibration naming no spec is refused there too,
    not silently ignored."""
    path = tmp_path / "gpu.yaml"
    path.write_text(yaml.safe_dump({"id": "h100-sxm", "measured": {"roofs": {}}}))
    report = roofline.load(BF16_GEMM)
    with pytest.raises(SpecError, match="calibrates 'h100-sxm', which no device spec has as its id"):
        load_catalog([path]).match(report.device)
