"""The terms of a projection across GPU generations (compare.projection), each checked against a value computed here
by hand from the YAML numbers of device_specs/ (read with yaml, not through the catalog): the FP64 rate, the Tensor
Core types, the SM count and waves, the L2 size, and the clock the target runs at (boost, or ncu's locked base).

The kernel is an A100 PCIe 40GB (Ampere) launch made here: its verdict (which unit is busiest), its measured SM
clock and its bytes are set on the aggregate, so every input of the projection is a number of this file."""

from __future__ import annotations

import json
import math

import msgspec
import pytest
import yaml
from typer.testing import CliRunner

from roofline.analysis.kernels import aggregate
from roofline.analysis.results import BusyUnit, Value, Verdict
from roofline.analysis.roofline import analyze_report
from roofline.cli.app import app
from roofline.compare.projection import BANDS, SharedMemoryFit, l2_term, project
from roofline.core.model import Device
from roofline.specs.catalog import load_catalog, spec_ceilings
from tests.synthetic import OLD_GPU, REPO, launch, model

MEASURED_HZ = 0.765e9  # the SM clock the source launch ran at (ncu's locked base on the A100 PCIe 40GB)
DURATION = 1e-3
WAVES = 6.0  # waves per SM on the A100's 108 SMs


def spec_yaml(spec_id: str) -> dict:
    return yaml.safe_load((REPO / "device_specs" / f"{spec_id}.yaml").read_text())


def number(spec_id: str, *path: str) -> float:
    node = spec_yaml(spec_id)
    for key in path:
        node = node[key]
    return float(node["value"])


A100, T4, H100 = "a100-pcie-40gb", "t4", "h100-pcie"
SOURCE = Device(name="NVIDIA A100-PCIE-40GB", compute_capability="8.0", sm_count=int(number(A100, "sm_count")),
                max_clock_hz=number(A100, "boost_clock_hz"), l2_cache_bytes=int(number(A100, "l2_bytes")))


def kernel(busiest: str, metric: str, side: str = "compute", dram: float = 1e8, l2: float = 1e8,
           tensor_dtype: str | None = None, tensor_flops: float = 0.0):
    """The A100 launch: 1 ms at MEASURED_HZ, WAVES waves, its busiest unit at 90%, ``dram`` and ``l2`` bytes."""
    catalog = load_catalog()
    report = msgspec.structs.replace(model("a100.json", [launch(0, "k", DURATION, 1e6, dram, OLD_GPU)]), device=SOURCE)
    stats = aggregate(analyze_report(report, catalog.get(A100)).launches)
    compute = side == "compute"
    verdict = Verdict("compute" if compute else "memory", "throughput", 90.0 if compute else 30.0,
                      30.0 if compute else 90.0, WAVES,
                      BusyUnit(busiest, 90.0, "compute" if compute else "memory", metric))
    datasheet = spec_ceilings(catalog.get(A100), tensor_dtype)
    flops = {**stats.flops, "tensor": Value(tensor_flops)} if tensor_flops else stats.flops
    ceilings = msgspec.structs.replace(stats.ceilings, tensor_dtype=tensor_dtype) if tensor_dtype else stats.ceilings
    return msgspec.structs.replace(stats, verdict=verdict, datasheet=datasheet, sm_clock_hz=Value(MEASURED_HZ),
                                   bytes={**stats.bytes, "dram": Value(dram), "l2": Value(l2)}, flops=flops,
                                   ceilings=ceilings)


def boost_share() -> float:
    """The source's clock factor at a target's boost: the share of its boost it ran at."""
    return MEASURED_HZ / number(A100, "boost_clock_hz")


def test_fp64_rate_a100_to_t4():
    """FP64 pipe busiest: the ratio of the FP64 peaks (A100 1/2 of FP32, T4 1/32), times the clocks, times the tail
    of 6 waves on 108 SMs spread over the T4's 40."""
    p = project(kernel("FP64 pipe", "sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_elapsed"), SOURCE,
                load_catalog().get(T4))
    rate = number(A100, "peaks", "fp64") / number(T4, "peaks", "fp64")
    assert number(A100, "peaks", "fp32") / number(A100, "peaks", "fp64") == pytest.approx(2.0, rel=0.01)
    assert number(T4, "peaks", "fp32") / number(T4, "peaks", "fp64") == pytest.approx(32.0, rel=0.01)
    there = WAVES * number(A100, "sm_count") / number(T4, "sm_count")
    tail = (math.ceil(there) / there) / (math.ceil(WAVES) / WAVES)
    assert p.governing == "flops.fp64"
    assert p.projected_s.value == pytest.approx(DURATION * rate * boost_share() * tail, rel=1e-9)


def test_sm_count_and_clocks_for_instructions_a100_to_t4():
    """Issue slots busiest (no datasheet peak): SMs x clock, 108 x the measured clock -> 40 x the T4's boost."""
    p = project(kernel("issue slots", "sm__inst_issued.avg.pct_of_peak_sustained_elapsed"), SOURCE,
                load_catalog().get(T4))
    rate = (number(A100, "sm_count") * MEASURED_HZ) / (number(T4, "sm_count") * number(T4, "boost_clock_hz"))
    there = WAVES * number(A100, "sm_count") / number(T4, "sm_count")
    tail = (math.ceil(there) / there) / (math.ceil(WAVES) / WAVES)
    assert p.governing == "instructions"
    assert p.projected_s.value == pytest.approx(DURATION * rate * tail, rel=1e-9)
    assert (p.low_s.value, p.high_s.value) == (pytest.approx(p.projected_s.value / BANDS["per SM"], rel=1e-9),
                                                pytest.approx(p.projected_s.value * BANDS["per SM"], rel=1e-9))


def test_tf32_tensor_type_missing_on_turing_meets_the_fp32_roof():
    """TF32 Tensor work (A100: 156 TFLOP/s dense) on a T4 (no TF32 Tensor Cores): the bound is that work at the
    T4's FP32 peak at its boost clock."""
    flops = 1e12
    s = kernel("Tensor pipe", "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed", tensor_dtype="tf32",
               tensor_flops=flops)
    assert "tensor_tf32" not in spec_yaml(T4)["peaks"]
    p = project(s, SOURCE, load_catalog().get(T4))
    fp32 = number(T4, "peaks", "fp32")
    assert p.bound_s.value == pytest.approx(max(flops / fp32, 1e6 * 2 / fp32,
                                                1e8 / number(T4, "memory", "bandwidth_bytes_per_s")), rel=1e-9)


def test_tensor_work_meets_each_specs_tensor_figure_at_the_clock_it_holds_at():
    """NVIDIA quotes the H100 SXM5's FP16 Tensor figure at 1830 MHz, not its 1980 MHz boost: at a clock f the
    target's Tensor roof is that figure x min(f, 1830 MHz) / 1830 MHz (at boost no more than the figure: the source,
    at 765 MHz, ran below its own figure's clock), and the A100 source's (no such clock) its figure x its measured
    clock / boost; FP64 Tensor figures hold at the boost."""
    h100 = load_catalog().get("h100-sxm5")
    tensor_hz, base = number("h100-sxm5", "tensor_clock_hz"), number("h100-sxm5", "base_clock_hz")
    assert h100.clock_of("tensor", "fp16") == tensor_hz and h100.clock_of("tensor", "fp64") == h100.boost_clock_hz
    s = kernel("Tensor pipe", "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed", tensor_dtype="fp16",
               tensor_flops=1e12)
    at_base = project(s, SOURCE, h100, "base")
    assert at_base.clock is not None and at_base.governing == "flops.tensor"
    assert at_base.clock.tensor_factor == pytest.approx(boost_share() / (base / tensor_hz), rel=1e-12)
    assert at_base.clock.factor == pytest.approx(boost_share() / (base / h100.boost_clock_hz), rel=1e-12)
    at_boost = project(s, SOURCE, h100, "boost")
    boost = h100.boost_clock_hz
    assert at_boost.clock is not None and at_boost.clock.tensor_factor == pytest.approx(boost_share(), rel=1e-12)
    assert at_boost.bound_s.value == pytest.approx(1e12 / h100.peaks["tensor_fp16"], rel=1e-9)
    assert at_base.projected_s.value == pytest.approx(at_boost.projected_s.value * tensor_hz / base, rel=1e-9)
    assert boost > tensor_hz > base


@pytest.mark.parametrize("measured_ghz", [1.28, 1.83, 1.98])
def test_a_tensor_kernel_projected_onto_its_own_gpu_at_the_clock_it_ran_keeps_its_time(measured_ghz):
    """An H100 SXM5 Tensor kernel projected onto an H100 SXM5 at the clock it ran at (the target's chosen clock the
    measured one) keeps its time whatever that clock: both sides' Tensor figures hold at the same 1830 MHz."""
    from roofline.compare.projection import ClockUse

    hz, boost, f = number("h100-sxm5", "tensor_clock_hz"), number("h100-sxm5", "boost_clock_hz"), measured_ghz * 1e9
    clocks = ClockUse("base", f, boost, f, boost, 1.0, source_tensor_hz=hz, target_tensor_hz=hz)
    assert clocks.tensor_factor == pytest.approx(1.0, rel=1e-12)

def test_l2_size_a100_to_t4_dram_bytes_grow_toward_the_l2_requests():
    """20 MB of DRAM bytes (the working set, inside the A100's 40 MiB L2) and 60 MB of L2 requests: on the T4's
    4 MiB L2, the reuse beyond the DRAM bytes (40 MB) misses in the share 1 - 4 MiB / 20 MB; a DRAM-governed time
    scales by the DRAM bytes, its interval runs from the bytes measured to every L2 request missing."""
    d, r = 20e6, 60e6
    s = kernel("DRAM", "dram__throughput.avg.pct_of_peak_sustained_elapsed", side="memory", dram=d, l2=r)
    s = msgspec.structs.replace(s, roof=msgspec.structs.replace(s.roof, utilization_pct={}))  # no in-flight term here
    t4 = load_catalog().get(T4)
    term, _ = l2_term(s, SOURCE, t4)
    l2_t4 = number(T4, "l2_bytes")
    there = d + (r - d) * (1 - l2_t4 / d)
    assert term is not None and term.working_set_bytes == d and term.source_l2_bytes == number(A100, "l2_bytes")
    assert term.dram_there == pytest.approx(there, rel=1e-12)
    assert (term.low, term.high) == (d, r)
    p = project(s, SOURCE, t4)
    base = DURATION * number(A100, "memory", "bandwidth_bytes_per_s") / number(T4, "memory", "bandwidth_bytes_per_s")
    assert p.governing == "bytes.dram"
    assert p.projected_s.value == pytest.approx(base * there / d, rel=1e-9)
    assert p.high_s.value == pytest.approx(base * r / d * BANDS["datasheet"], rel=1e-9)
    assert p.low_s.value == pytest.approx(max(base / BANDS["datasheet"], p.bound_s.value), rel=1e-9)


def test_l2_size_a_working_set_that_fits_or_was_too_big_keeps_the_dram_bytes():
    """1 MB fits the T4's 4 MiB L2: kept. 60 MB on the A100 (over its 40 MiB) onto the 50 MiB L2 of the H100 PCIe:
    the bytes may fall toward a footprint the report does not give: kept, and said."""
    fits = l2_term(kernel("DRAM", "dram__x", side="memory", dram=1e6, l2=3e6), SOURCE, load_catalog().get(T4))[0]
    assert fits is not None and fits.dram_there == 1e6 and "fits" in fits.note
    big = l2_term(kernel("DRAM", "dram__x", side="memory", dram=60e6, l2=90e6), SOURCE, load_catalog().get(H100))[0]
    assert big is not None and big.dram_there == 60e6 and "does not give" in big.note
    assert number(H100, "l2_bytes") > number(A100, "l2_bytes") and 60e6 > number(A100, "l2_bytes")


def test_the_base_clock_slows_what_the_sm_clock_paces_not_dram():
    """A100 -> H100 PCIe: at ncu's locked base clock (the spec's base_clock_hz) an FP64-bound time is the boost
    projection x boost / base; a DRAM-bound one stays."""
    h100 = load_catalog().get(H100)
    fp64 = kernel("FP64 pipe", "sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_elapsed")
    boost, base = (project(fp64, SOURCE, h100, clock) for clock in ("boost", "base"))
    assert base.projected_s.value / boost.projected_s.value == pytest.approx(
        number(H100, "boost_clock_hz") / number(H100, "base_clock_hz"), rel=1e-9)
    assert boost.clock is not None and boost.clock.target_hz == number(H100, "boost_clock_hz")
    assert base.clock is not None and base.clock.target_hz == number(H100, "base_clock_hz")
    dram = kernel("DRAM", "dram__throughput.avg.pct_of_peak_sustained_elapsed", side="memory", dram=1e6, l2=1e6)
    dram = msgspec.structs.replace(dram, roof=msgspec.structs.replace(dram.roof, utilization_pct={}))
    assert project(dram, SOURCE, h100, "base").projected_s.value == \
        pytest.approx(project(dram, SOURCE, h100, "boost").projected_s.value, rel=1e-12)


def test_clock_base_on_a_spec_without_one_is_one_line(tmp_path):
    result = CliRunner().invoke(app, ["project", str(REPO / "examples" / "h100" / "triad-cupy.roofline.ncu-rep"),
                                      "--to", "rtx-3090", "--clock", "base"])
    assert result.exit_code == 2 and result.output.count("\n") == 1, result.output
    assert "--clock base: the spec rtx-3090" in result.output and "gives no base_clock_hz" in result.output \
        and "(clock='boost' in Python)" in " ".join(result.output.split())


def test_a_kernel_held_below_its_base_keeps_that_share_on_the_target():
    """A launch that ran at 0.765 GHz on a GPU whose locked base is 1.53 GHz (held at half by power, as the Tensor
    GEMMs of examples/h100 were) runs at half the chosen clock there too: twice the time of one that kept its base."""
    h100 = load_catalog().get(H100)
    fp64 = kernel("FP64 pipe", "sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_elapsed")
    kept = project(fp64, SOURCE, h100, "base", source_spec=msgspec.structs.replace(h100, base_clock_hz=MEASURED_HZ))
    held = project(fp64, SOURCE, h100, "base", source_spec=msgspec.structs.replace(h100, base_clock_hz=2 * MEASURED_HZ))
    assert held.clock is not None and held.clock.share == pytest.approx(0.5)
    assert held.projected_s.value == pytest.approx(2 * kept.projected_s.value, rel=1e-12)


def test_a_kernel_whose_blocks_ask_for_more_shared_memory_than_the_target_allows_is_said_not_to_launch(
        shared_report, roofline_report):
    """The A40 Julia kernel's blocks take 77,920 B of shared memory, 1,024 B of it the driver's (8.6 reserves that
    per block): 76,896 B of its own, over the 65,536 B a CC 7.5 block may have, within an A100's 166,912 B."""
    name = "a40_julia-fp16x2_full"
    report = roofline_report(name)
    launches = [k for k in report.launches if k.name == "julia_frb_5885"]
    attrs = report.device.attributes
    reserve = attrs["max_shared_memory_per_multiprocessor"] - attrs["max_shared_memory_per_block_optin"]
    own = max(k.shared_mem_per_block_bytes for k in launches) - reserve
    assert (own, reserve) == (76896, 1024)
    result = CliRunner().invoke(app, ["project", str(shared_report(name)), "--to", "gtx-1660-super", "-f", "json"])
    assert result.exit_code == 0, result.output
    kernels = {k["name"]: k for k in json.loads(result.stdout)["kernels"]}
    assert kernels["julia_frb_5885"]["shared_memory"] == {"kernel_bytes": own, "limit_bytes": 65536,
                                                         "compute_capability": "7.5", "fits": False}
    assert all(k["shared_memory"]["fits"] for n, k in kernels.items() if n != "julia_frb_5885")
    onto_a100 = CliRunner().invoke(app, ["project", str(shared_report(name)), "--to", "a100-sxm4-80gb", "-f", "json"])
    assert all(k["shared_memory"]["fits"] and k["shared_memory"]["limit_bytes"] == 166912
               for k in json.loads(onto_a100.stdout)["kernels"])
    table = CliRunner().invoke(app, ["project", str(shared_report(name)), "--to", "gtx-1660-super"])
    assert "julia_frb_5885: cannot launch there as built: its blocks ask for 76,896 B of shared memory" in \
        " ".join(table.output.split())  # lines wrapped at 80 columns


def test_the_source_specs_tensor_clock_reaches_a_projection_through_the_cli():
    """examples/h100's FP8 GEMM onto an A100 (no Tensor clock of its own): its Tensor work is timed from the
    H100 SXM5's figure at 1830 MHz, so its clock factor is the boost-based one x 1980 / 1830 MHz."""
    path = REPO / "examples" / "h100" / "torch-fp8.roofline.ncu-rep"
    result = CliRunner().invoke(app, ["compare", str(path), "--project-to", "a100-sxm4-80gb", "-f", "json"])
    assert result.exit_code == 0, result.output
    (pair,) = json.loads(result.stdout)["kernels"]
    k = pair["sides"][0]["projection"]  # compare's projection: the per-kernel model's clocks
    clock = k["clock"]
    assert clock["source_tensor_clock_hz"] == 1.83e9
    assert clock["target_tensor_clock_hz"] is None
    assert clock["tensor_factor"] == pytest.approx(clock["factor"] * clock["source_boost_clock_hz"] / 1.83e9, rel=1e-9)


def test_a_shared_memory_check_not_made_says_why_and_is_null():
    """The H800 flash-attention kernel's launch holds no launch__shared_mem_per_block: its shared memory is not
    checked, which JSON says as null with the reason, not as fitting; a target compute capability without a
    listed limit (6.1) is not checked either."""
    from roofline.analysis.kernels import KernelStats
    from roofline.compare.projection import shared_memory_fit

    h800 = Device(name="NVIDIA H800", compute_capability="9.0", attributes={"reserved_shared_memory_per_block": 1024})
    t4 = load_catalog().get(T4)
    fp64 = kernel("FP64 pipe", "sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_elapsed")
    stats = msgspec.structs.replace(fp64, shared_mem_per_block_bytes=None)
    assert shared_memory_fit(stats, h800, t4).startswith("not checked: the report gives no shared memory per block")
    sized: KernelStats = msgspec.structs.replace(stats, shared_mem_per_block_bytes=9216)
    assert shared_memory_fit(sized, h800, t4) == SharedMemoryFit(8192, 65536, "7.5")
    older = msgspec.structs.replace(t4, compute_capability="6.1")
    assert shared_memory_fit(sized, h800, older).startswith("not checked: no shared memory limit listed for compute "
                                                            "capability 6.1")
    assert shared_memory_fit(sized, msgspec.structs.replace(h800, attributes={}), t4).startswith(
        "not checked: the report gives no reserved shared memory per block")
