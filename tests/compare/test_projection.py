"""roofline.compare.projection: a kernel's time on another GPU from its measured time, work and verdict.

Expected values are computed here from the numbers the synthetic launches and the two test specs are built with
(tests/synthetic.py): the source GPU is the spec compare-test-gpu (100 SMs, 2 GHz boost, 51.2 TFLOP/s FP32,
3 TB/s), the target the spec below (132 SMs, 1.5 GHz, 76.8 TFLOP/s, 4.5 TB/s). The synthetic launches ran at an SM
clock of 1 GHz, half their GPU's boost: projected at the target's boost clock (the default), a resource the SM clock
paces takes the factor (1 / 2) / (1.5 / 1.5) = 0.5 beside its peak ratio; DRAM takes none."""

from __future__ import annotations

import math

import msgspec
import pytest

from roofline.analysis.kernels import aggregate
from roofline.analysis.roofline import analyze_report
from roofline.compare.projection import BANDS, LAUNCH_FLOOR_S, project
from roofline.core.model import Device
from roofline.specs.catalog import load_catalog
from tests.synthetic import (
    COMPUTE_BOUND,
    OLD_GPU,
    REL,
    SPEC_DRAM,
    SPEC_FP32,
    TEST_SPEC,
    WAVES,
    launch,
    model,
    write_spec,
)

TARGET_FP32, TARGET_DRAM, TARGET_SMS, TARGET_CLOCK = 76.8e12, 4.5e12, 132, 1.5e9
CLOCKS = (OLD_GPU["sm_clock"] / 2.0e9) / (TARGET_CLOCK / TARGET_CLOCK)  # measured share of boost over the target's
TARGET_SPEC = (TEST_SPEC.replace("compare-test-gpu", "projection-target").replace("Compare Test GPU", "Target GPU")
               .replace("value: 100,", f"value: {TARGET_SMS},").replace("2.0e+9", "1.5e+9")
               .replace("3.0e+12", "4.5e+12").replace("51.2e+12", "76.8e+12").replace("25.6e+12", "38.4e+12"))
SOURCE = Device(name="Compare Test GPU", compute_capability="9.0", sm_count=100, max_clock_hz=2.0e9)


@pytest.fixture
def specs(tmp_path):
    write_spec(tmp_path)
    (tmp_path / "projection-target.yaml").write_text(TARGET_SPEC)
    catalog = load_catalog([tmp_path])
    return catalog.get("compare-test-gpu"), catalog.get("projection-target")


def stats(specs, *launches):
    report = msgspec.structs.replace(model("a.json", list(launches)), device=SOURCE)
    return aggregate(analyze_report(report, specs[0]).launches)


def test_a_memory_bound_kernel_scales_by_the_datasheet_bandwidths(specs):
    """Roofline-only verdict (no SpeedOfLight throughputs): DRAM governs, the time scales by 3 -> 4.5 TB/s; the
    interval is the datasheet band; the roofline bound is the work against the target's roofs."""
    s = stats(specs, launch(0, "copy", 1e-3, 1e6, 2e9, OLD_GPU))
    p = project(s, SOURCE, specs[1])
    expected = 1e-3 * SPEC_DRAM / TARGET_DRAM
    assert p.governing == "bytes.dram"
    assert p.projected_s.value == pytest.approx(expected, rel=REL)
    assert (p.low_s.value, p.high_s.value) == (pytest.approx(expected / BANDS["datasheet"], rel=REL),
                                                pytest.approx(expected * BANDS["datasheet"], rel=REL))
    assert p.bound_s.value == pytest.approx(max(2e6 / TARGET_FP32, 2e9 / TARGET_DRAM), rel=REL)
    assert "DRAM bytes peak 3e+12 -> 4.5e+12 B/s" in p.basis


def test_a_compute_bound_kernel_scales_by_its_precision_and_the_tail_wave(specs):
    """8 waves per SM on 100 SMs are 6.06 on 132: 7 rounds where a continuous scaling assumes 6.06."""
    s = stats(specs, launch(0, "gemm", 2e-3, 1e10, 1e6, OLD_GPU, sol=COMPUTE_BOUND))
    p = project(s, SOURCE, specs[1])
    there = 8.0 * 100 / TARGET_SMS
    waves = (math.ceil(there) / there) / (8 / 8)
    assert p.governing == "flops.fp32"
    assert p.projected_s.value == pytest.approx(2e-3 * SPEC_FP32 / TARGET_FP32 * CLOCKS * waves, rel=REL)


def test_a_latency_bound_kernel_scales_per_sm_and_clock_in_whole_rounds_of_blocks(specs):
    """Its warps wait, no unit near its peak: each SM works through its share of the blocks at the rate the
    latencies allow, so 8 rounds of blocks on 100 SMs become ceil(6.06) = 7 on 132, each at the target's clock."""
    latency = stats(specs, launch(0, "wait", 8e-5, 1e3, 1e3, OLD_GPU, sol=(20.0, 10.0)))
    p = project(latency, SOURCE, specs[1])
    there = WAVES * 100 / TARGET_SMS
    rounds = (math.ceil(there) / there) / (math.ceil(WAVES) / WAVES)
    expected = 8e-5 * (100 * 2.0e9) / (TARGET_SMS * TARGET_CLOCK) * CLOCKS * rounds
    assert p.governing == "latency" and p.projected_s.value == pytest.approx(expected, rel=REL)
    assert (p.low_s.value, p.high_s.value) == (pytest.approx(expected / BANDS["latency"], rel=REL),
                                                pytest.approx(expected * BANDS["latency"], rel=REL))
    assert "latency bound, its blocks per SM and clock: 100 SMs x 2 GHz -> 132 x 1.5" in p.basis


def _waiting(waves: float):
    """A launch whose SpeedOfLight throughputs are both low (20% and 10%): latency-bound at a full wave or more, a
    small grid below."""
    wait = launch(0, "wait", 8e-5, 1e3, 1e3, OLD_GPU, sol=(20.0, 10.0))
    return msgspec.structs.replace(wait, metrics={**wait.metrics, "launch__waves_per_multiprocessor": waves})


def test_a_grid_of_one_round_on_both_gpus_scales_by_the_clock_alone(specs):
    """Blocks that all fit at once on both GPUs (a small grid of 0.5 waves per SM; a latency-bound one of 1.0, 0.76
    on 132 SMs): more SMs do not shorten one block's latency, so the waves term cancels the SM ratio."""
    clock_only = 8e-5 * OLD_GPU["sm_clock"] / TARGET_CLOCK  # the clock it ran at over the target's boost
    small = project(stats(specs, _waiting(0.5)), SOURCE, specs[1])
    assert small.governing == "launch" and small.projected_s.value == pytest.approx(clock_only, rel=REL)
    assert small.high_s.value == pytest.approx(clock_only * BANDS["launch"], rel=REL)
    assert "small grid, its blocks per SM and clock: 100 SMs x 2 GHz -> 132 x 1.5" in small.basis
    one_round = project(stats(specs, _waiting(1.0)), SOURCE, specs[1])
    assert one_round.governing == "latency" and one_round.projected_s.value == pytest.approx(clock_only, rel=REL)


def test_a_small_grid_takes_two_rounds_on_a_gpu_of_fewer_sms(specs, tmp_path):
    """0.8 waves on 100 SMs are 2.0 on 40: the same blocks need two rounds there, each at the target's clock."""
    fewer = TARGET_SPEC.replace("projection-target", "fewer-sms").replace("Target GPU", "Fewer SMs GPU") \
        .replace(f"value: {TARGET_SMS},", "value: 40,")
    (tmp_path / "fewer").mkdir()
    (tmp_path / "fewer" / "fewer-sms.yaml").write_text(fewer)
    target = load_catalog([tmp_path / "fewer"]).get("fewer-sms")
    p = project(stats(specs, _waiting(0.8)), SOURCE, target)
    assert p.governing == "launch"
    assert p.projected_s.value == pytest.approx(8e-5 * OLD_GPU["sm_clock"] / TARGET_CLOCK * 2, rel=REL)
    assert "2 rounds" in p.basis


def test_a_kernel_scaled_by_its_sms_is_held_to_its_dram_work_at_the_targets_bandwidth(specs, tmp_path):
    """Latency-bound with the DRAM at 55% of its peak here (its breakdown), onto a GPU of 264 SMs at 1.5 GHz and the
    same 3 TB/s: its blocks per SM and clock would take it to 8e-5 x 200 / 396 x 0.5 x (4 / 3.03) s, but its DRAM
    work needs 55% x 8e-5 s there."""
    wide = TARGET_SPEC.replace("projection-target", "wide").replace("Target GPU", "Wide GPU") \
        .replace(f"value: {TARGET_SMS},", "value: 264,").replace("4.5e+12", "3.0e+12")
    (tmp_path / "wide").mkdir()
    (tmp_path / "wide" / "wide.yaml").write_text(wide)
    target = load_catalog([tmp_path / "wide"]).get("wide")
    wait = _waiting(WAVES)
    dram_unit = "dram__throughput.avg.pct_of_peak_sustained_elapsed"
    memory = "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"
    busy = msgspec.structs.replace(wait, metrics={**wait.metrics, f"breakdown:{memory}": dram_unit, dram_unit: 55.0,
                                              memory: 55.0})
    p = project(stats(specs, busy), SOURCE, target)
    there = WAVES * 100 / 264
    rounds = (math.ceil(there) / there) / (math.ceil(WAVES) / WAVES)
    scaled = 8e-5 * (100 * 2.0e9) / (264 * TARGET_CLOCK) * CLOCKS * rounds
    dram = 0.55 * 8e-5 * SPEC_DRAM / 3.0e12
    assert p.governing == "latency" and scaled < dram
    assert p.projected_s.value == pytest.approx(dram, rel=REL)
    assert "the DRAM's work (at 55% of its peak here) at the target's bandwidth" in p.basis


def test_nothing_goes_below_the_launch_floor(specs):
    short = project(stats(specs, launch(0, "fill", 1.6e-6, 1e3, 4e6, OLD_GPU)), SOURCE, specs[1])
    assert 1.6e-6 * SPEC_DRAM / TARGET_DRAM < LAUNCH_FLOOR_S  # the scaling alone would go below the floor
    assert short.projected_s.value == short.low_s.value == LAUNCH_FLOOR_S
    assert "floor 1.5 us" in short.basis


def test_no_projection_without_a_launch_time_says_why(specs):
    timeless = launch(0, "k", 1e-3, 1e6, 1e6, OLD_GPU)
    timeless = msgspec.structs.replace(timeless, metrics={k: v for k, v in timeless.metrics.items()
                                                      if k != "gpu__time_duration.sum"})
    p = project(stats(specs, timeless), SOURCE, specs[1])
    assert p.projected_s.value is None and p.projected_s.reason.startswith("no launch time")
    assert p.low_s.value is None and p.high_s.value is None and p.low_s.reason == p.projected_s.reason


def test_a_latency_bound_linspace_keeps_microseconds_on_an_h100(shared_report, raw_actions):
    """Issue 33: `compare rtx4070ti --project-to h100-sxm5` projected the 3.5 us `linspace` (latency-bound) to 1.3 ns
    (its roofline bound). Its time scales per SM and clock in whole rounds of blocks, from the report's SM count,
    waves per SM and the SM clock it ran at (sm__cycles_elapsed.avg.per_second) to the H100's 132 SMs at the clock
    its 700 W board holds by the power rule (device_specs/h100-sxm5.yaml, docs/figures.md), and stays above the
    launch floor."""
    from roofline.compare.pairing import pair_reports
    from roofline.pipeline import analyze_files
    from roofline.specs.achievable import WATTS_PER_LANE_GHZ

    name = "rtx4070ti_pytorch-sim_full"
    (analysis,) = analyze_files([shared_report(name)])
    raw = next(a for a in raw_actions(name) if a.name == "linspace")
    pair = next(p for p in pair_reports([analysis]).pairs if p.label == "linspace")
    p = project(pair.base, analysis.device, load_catalog().get("h100-sxm5"), "sustained",
                source_spec=load_catalog().get("rtx-4070-ti"))
    clock, boost = raw["sm__cycles_elapsed.avg.per_second"], raw["device__attribute_max_gpu_frequency_khz"] * 1e3
    sms, waves = raw["device__attribute_multiprocessor_count"], raw["launch__waves_per_multiprocessor"]
    target = _yaml("h100-sxm5")
    there_sms, there_boost = target["sm_count"]["value"], target["boost_clock_hz"]["value"]
    at_boost = WATTS_PER_LANE_GHZ * there_sms * target["fp32_lanes_per_sm"]["value"] * there_boost / 1e9
    there_boost *= min(1.0, (target["board_power_w"]["value"] / at_boost) ** (1 / 3))  # the power rule's clock
    base = _yaml("rtx-4070-ti")["base_clock_hz"]["value"]
    from roofline.core.thresholds import CLOCK_TOLERANCE

    # the share of its base it ran at: 1 within the tolerance that reads as locked to base (grade's reading)
    kept = clock / base if clock < base * (1 - CLOCK_TOLERANCE) else 1.0
    there = waves * sms / there_sms
    rounds = (math.ceil(there) / there) / (math.ceil(waves) / waves)
    expected = raw["gpu__time_duration.sum"] * 1e-9 * (sms * boost) / (there_sms * there_boost) * \
        (clock / boost) / kept * rounds
    assert p.governing == "latency"
    assert p.projected_s.value == pytest.approx(expected, rel=1e-9)
    assert p.projected_s.value > LAUNCH_FLOOR_S and p.bound_s.value < 1e-8  # the roofline bound is shown beside it


# --- Cross-generation terms, on the datasheet figures of device_specs/ (read here with yaml) -------------------
def _yaml(spec_id: str) -> dict:
    import yaml

    from tests.synthetic import REPO
    return yaml.safe_load((REPO / "device_specs" / f"{spec_id}.yaml").read_text())


def test_an_fp64_pipe_bound_kernel_scales_by_the_fp64_rates(roofline_report):
    """RTX 4070 Ti fill_vector: the FP64 pipe is the busiest unit (its conversions run there too), at 1/64 of FP32.
    Onto an H100 PCIe (FP64 at 1/2 of FP32) it scales by the FP64 peaks of the two specs, not by instructions per SM
    and clock."""
    from roofline.pipeline import analyze_loaded

    report = roofline_report("rtx4070ti_pytorch-sim_full")
    a = analyze_loaded(report)
    group = next(g for g in a.groups if g.name == "fill_vector")
    s = aggregate(group.launches)
    target = load_catalog().get("h100-pcie")
    p = project(s, report.device, target)
    src, tgt = _yaml("rtx-4070-ti")["peaks"]["fp64"]["value"], _yaml("h100-pcie")["peaks"]["fp64"]["value"]
    # the clocks: the SM clock it ran at over the RTX 4070 Ti's boost, against the H100 PCIe at its boost
    clocks = s.sm_clock_hz.value / (report.device.max_clock_hz or 0.0)
    assert p.governing == "flops.fp64"
    assert p.projected_s.value == pytest.approx(max(s.median_s.value * src / tgt * clocks, LAUNCH_FLOOR_S), rel=1e-9)


def test_tf32_tensor_work_goes_to_the_fp32_cores_on_turing(specs):
    """A TF32 GEMM projected onto a T4 (Turing: no TF32 Tensor Cores): its tensor FLOPs meet the T4's FP32 roof."""
    t4 = load_catalog().get("t4")
    s = stats(specs, launch(0, "gemm", 2e-3, 1e10, 1e6, OLD_GPU, sol=COMPUTE_BOUND))
    s = msgspec.structs.replace(s, flops={**s.flops, "tensor": msgspec.structs.replace(s.flops["fp32"], value=1e12)},
                                ceilings=msgspec.structs.replace(s.ceilings, tensor_dtype="tf32"))
    p = project(s, SOURCE, t4)
    fp32 = _yaml("t4")["peaks"]["fp32"]["value"]
    assert "tensor_tf32" not in _yaml("t4")["peaks"]
    assert p.bound_s.value >= 1e12 / fp32 * (1 - 1e-9)  # the tensor work at the FP32 roof, not left out
    assert not any(x.startswith("tensor") for x in p.left_out)


@pytest.mark.parametrize("dtype, target, stand_in", [("fp64", "rtx-4090", "fp64"), ("fp64", "l40s", "fp64"),
                                                     ("fp8", "a100-sxm4-80gb", "tensor_fp16")])
def test_tensor_work_of_a_type_the_target_lacks_meets_the_roof_it_runs_at_there(specs, dtype, target, stand_in):
    """An FP64 DMMA GEMM projected onto a GPU without FP64 Tensor Cores meets its FP64 roof (it met the FP32 one, 64x
    too fast on an RTX 4090); an FP8 one onto an A100 (no FP8 Tensor Cores) the FP16 Tensor roof."""
    spec = load_catalog().get(target)
    s = stats(specs, launch(0, "gemm", 2e-3, 1e10, 1e6, OLD_GPU, sol=COMPUTE_BOUND))
    s = msgspec.structs.replace(s, flops={**s.flops, "tensor": msgspec.structs.replace(s.flops["fp32"], value=1e12)},
                                ceilings=msgspec.structs.replace(s.ceilings, tensor_dtype=dtype))
    p = project(s, SOURCE, spec)
    peaks = _yaml(target)["peaks"]
    assert f"tensor_{dtype}" not in peaks
    assert p.bound_s.value == pytest.approx(1e12 / peaks[stand_in]["value"], rel=1e-9)
    assert not any(x.startswith("tensor") for x in p.left_out)


def test_bytes_in_flight_limit_continuously_no_cliff_at_80_percent(specs):
    """The DRAM-bound projection as a function of the percent of peak: no jump across ncu's 80% mark (79.9% and
    80.1% project within 1% of each other), the SM ratio far below the peak, the bandwidth ratio at it."""
    from roofline.compare.projection import _in_flight

    def ratio(pct: float, sms: int = 100) -> float:
        s = stats(specs, launch(0, "copy", 1e-3, 1e6, 2e9, OLD_GPU))
        s = msgspec.structs.replace(s, roof=msgspec.structs.replace(s.roof, utilization_pct={"dram": pct}))
        spec = msgspec.structs.replace(specs[1], sm_count=sms)
        return _in_flight("bytes.dram", s, SOURCE, spec, SPEC_DRAM / TARGET_DRAM, "")[0]

    assert ratio(80.1) == pytest.approx(ratio(79.9), rel=0.01)
    assert ratio(99.99) == pytest.approx(SPEC_DRAM / TARGET_DRAM, rel=0.01)
    assert ratio(5.0, sms=200) == pytest.approx(100 / 200, rel=0.05)  # far below the peak: the SMs set the rate


def test_compare_expected_is_the_projection_for_a_pair_of_gpus():
    """examples/h100 and examples/h200 torch-bf16 (the same GEMM): compare's expected speedup is the H100's launches
    of the kernel over their per-launch projection onto the H200 at its base clock, the total that
    `roofline project --to h200 --clock base` gives those launches: one number."""
    from roofline.compare.pairing import PairOptions, pair_reports
    from roofline.pipeline import analyze_files
    from tests.synthetic import REPO

    h100, h200 = (REPO / "examples" / g / "torch-bf16.roofline.ncu-rep" for g in ("h100", "h200"))
    analyses = analyze_files([h100, h200])
    pair = pair_reports(analyses).pairs[0]
    target = load_catalog().get(analyses[1].spec_id)
    workload = pair_reports(analyses[:1], project_to=target, options=PairOptions(clock="base")).workload
    assert workload is not None and workload.clock == "base"
    mine = [g for g in workload.launches if g.name == pair.base.name]
    assert mine
    total = sum(g.count * g.measured_s for g in mine) / sum(g.count * g.projected_s for g in mine)
    assert pair.expected_speedup[1].value == pytest.approx(total, rel=1e-12)
    assert "per launch onto h200" in pair.expected_speedup[1].via


def test_an_fp64_tensor_gemm_projected_onto_a_geforce_takes_its_fp64_rate_and_says_so():
    """The H100 cuBLAS DMMA example onto an RTX 4090 (no FP64 Tensor Cores): the time scales by the Tensor peak
    over the 4090's FP64 one, and the basis names the stand-in."""
    from roofline.compare.pairing import pair_reports
    from roofline.pipeline import analyze_files
    from tests.synthetic import REPO

    (analysis,) = analyze_files([REPO / "examples" / "h100" / "torch-fp64.roofline.json"])
    (pair,) = pair_reports([analysis]).pairs
    p = project(pair.base, analysis.device, load_catalog().get("rtx-4090"), "sustained",
                source_spec=load_catalog().get("h100-sxm5"))
    k = {"governing": p.governing, "basis": p.basis, "projected_s": p.projected_s.value,
         "measured_s": pair.base.median_s.value}  # compare.projection's per-kernel model
    fp64 = _yaml("rtx-4090")["peaks"]["fp64"]["value"]
    dmma = _yaml("h100-sxm5")["peaks"]["tensor_fp64"]["value"]
    assert k["governing"] == "flops.tensor"
    assert "tensor_fp64" not in _yaml("rtx-4090")["peaks"]  # the premise: the spec gives no such figure
    assert (f"peak {dmma:.3g} -> {fp64:.3g} FLOP/s, datasheets; the spec rtx-4090 gives no tensor_fp64 figure (the "
            "GPU lacks it or it is not sourced): the FP64 roof") in k["basis"]
    assert k["projected_s"] > 30 * k["measured_s"]
