"""The occupancy calculator: its launch point against ncu's theoretical occupancy on every shared report, the
curves on made-up shapes worked by hand, and the limiter named at each point."""

from __future__ import annotations

import math

import pytest

from roofline.analysis.diagnostics import occupancy as occ
from roofline.analysis.diagnostics import occupancy_curves as oc
from roofline.core.model import Device, KernelLaunch

TURING = occ.SmResources(32, 16, 65536, 4, 65536, 1024, 0, smem_unit=256)
A100 = occ.SmResources(64, 32, 65536, 4, 167936, 1024, 1024)
LIMITS = ("registers", "shared_mem", "warps", "blocks", "barriers")


def _curve(curves, varies):
    return next(c for c in curves if c.varies == varies)


def test_register_curve_steps_worked_by_hand():
    # 256 threads (8 warps) on an A100 SM, 0 B of its own; registers per warp rounded up to 256, 16384 per
    # sub-partition: 8 blocks (64 warps, the warps limit) need 16 warps per partition = 1024 per warp = 32 registers
    curve = _curve(oc.curves(occ.LaunchShape(256, 64, 1024), A100, A100.shared_bytes), "registers")
    first = curve.steps[0]
    assert (first.low, first.high, first.blocks_per_sm, first.theoretical_pct) == (1, 32, 8, 100.0)
    assert first.limiters == ()  # 64 of 64 warps: nothing limits
    # 33..40 registers: 1280 per warp -> 12 warps per partition -> 48 warps -> 6 blocks, registers limit
    second = curve.steps[1]
    assert (second.low, second.high, second.blocks_per_sm, second.limiters) == (33, 40, 6, ("registers",))
    assert second.theoretical_pct == 75.0
    assert curve.steps[-1].high == 255 and curve.launch_value == 64


def test_block_size_curve_names_warps_and_blocks():
    # Turing, 16 registers, 0 B: 32 threads -> 16 blocks (blocks limit) = 16 of 32 warps; 64 threads -> 32 warps
    curve = _curve(oc.curves(occ.LaunchShape(1, 16, 0), TURING, 32768), "threads")
    assert curve.granularity == 32 and curve.steps[0].low == 32 and curve.steps[-1].high == 1024
    assert (curve.steps[0].blocks_per_sm, curve.steps[0].theoretical_pct, curve.steps[0].limiters) == \
        (16, 50.0, ("blocks",))  # not "shared memory": the block uses none
    assert oc.at(curve, 64).theoretical_pct == 100.0 and oc.at(curve, 64).limiters == ()
    # 96 threads = 3 warps: 32 // 3 = 10 blocks, 30 of 32 warps, the warps limit
    assert (oc.at(curve, 96).blocks_per_sm, oc.at(curve, 96).limiters) == (10, ("warps",))
    assert oc.at(curve, 96).theoretical_pct == pytest.approx(100 * 30 / 32)


def test_shared_curve_in_the_launch_carveout_with_the_driver_reserve():
    # A100, 128 threads, 32 registers (blocks of 4 warps: 16 by warps, 32 by blocks); own shared x + 1 KiB reserved,
    # rounded to 128 B, in a 100 KiB carveout: x = 5 KiB -> 6 KiB a block -> 16 blocks (tie warps and shared)
    curve = _curve(oc.curves(occ.LaunchShape(128, 32, 1024), A100, 102400), "shared_bytes")
    assert curve.granularity == 128 and curve.launch_value == 0 and curve.steps[-1].high == 102400 - 1024
    assert oc.at(curve, 0).limiters == ()  # 16 x 4 = 64 warps
    at_5k = oc.at(curve, 5 * 1024)
    assert (at_5k.blocks_per_sm, at_5k.theoretical_pct) == (16, 100.0)
    at_9k = oc.at(curve, 9 * 1024)  # 10 KiB a block: 10 blocks, 40 warps
    assert (at_9k.blocks_per_sm, at_9k.limiters, at_9k.theoretical_pct) == (10, ("shared_mem",), 62.5)
    assert oc.at(curve, 102400 - 1024).blocks_per_sm == 1


def test_zero_shared_bytes_never_limit_beside_another():
    """An unused resource at the blocks limit is not a limiter (ncu reports the blocks limit for it)."""
    limits = {"registers": 128, "shared_mem": 16, "warps": 32, "blocks": 16}
    assert occ.limiters(limits, 50.0, ("shared_mem",)) == ("blocks",)
    assert occ.limiters(limits, 50.0) == ("shared_mem", "blocks")


def test_rtx2070super_kernels_without_shared_memory_are_limited_by_blocks(roofline_report, raw_actions):
    """The report of the issue: 1-thread blocks, 0 B shared: ncu's shared-memory limit (16) is the blocks limit."""
    report = roofline_report("rtx2070super_alife-143launches_basic")
    raws = {(a.range_index, a.action_index): a for a in raw_actions("rtx2070super_alife-143launches_basic")}
    checked = 0
    for launch in report.launches:
        raw = raws[(launch.range_index, launch.action_index)]
        if raw.value("launch__shared_mem_per_block") != 0:
            continue
        o = oc.diagnose(launch, report.device)
        assert "shared_mem" not in o.limiters, launch.name
        assert all("shared memory" not in f for f in o.findings if "limited by" in f)
        checked += 1
    assert checked


def _raw_theoretical(raw) -> tuple[int, float] | None:
    """From the raw metrics only: ncu's smallest block limit, and it x warps per block over the SM's warps."""
    limits = [raw.value(f"launch__occupancy_limit_{k}") for k in LIMITS]
    limits = [v for v in limits if isinstance(v, (int, float))]
    block, warps = raw.value("launch__block_size"), raw.value("device__attribute_max_warps_per_multiprocessor")
    if not limits or not block or not warps:
        return None
    blocks = int(min(limits))
    return blocks, 100.0 * min(blocks * math.ceil(block / 32), warps) / warps


def test_calculator_equals_ncu_theoretical_occupancy(roofline_report, raw_actions, shared_name):
    """On every launch of every shared report with the Occupancy section: the calculator's point has ncu's resident
    blocks (min of launch__occupancy_limit_*) and ncu's theoretical occupancy (sm__maximum_warps_per_active_cycle_pct,
    and the same from the raw limits x warps per block / device__attribute_max_warps_per_multiprocessor)."""
    report = roofline_report(shared_name)
    raws = {(a.range_index, a.action_index): a for a in raw_actions(shared_name)}
    checked = 0
    for launch in report.launches:
        raw = raws[(launch.range_index, launch.action_index)]
        expected = _raw_theoretical(raw)
        calc = oc.calculator(launch, report.device)
        if expected is None or calc is None:
            continue
        blocks, theoretical = expected
        assert calc.launch.blocks_per_sm == blocks, (launch.name, launch.key)
        assert calc.launch.theoretical_pct == pytest.approx(theoretical)
        if raw.has("sm__maximum_warps_per_active_cycle_pct"):
            assert calc.launch.theoretical_pct == pytest.approx(raw["sm__maximum_warps_per_active_cycle_pct"])
        checked += 1
    if not checked:
        pytest.skip(f"{shared_name}: no launch with launch__occupancy_limit_* and the device attributes")


def test_curves_pass_through_the_launch_point(roofline_report):
    """Each curve at the launch's own value (where it is on the curve's grid) is the launch's point."""
    report = roofline_report("a100-80gb_cutlass-gemm_full")
    for launch in report.launches:
        calc = oc.calculator(launch, report.device)
        for curve in calc.curves:
            step = oc.at(curve, curve.launch_value)
            if step is None:
                continue
            assert (step.blocks_per_sm, step.theoretical_pct, step.limiters) == \
                (calc.launch.blocks_per_sm, calc.launch.theoretical_pct, calc.launch.limiters), curve.varies


def test_limits_cite_their_sources(roofline_report):
    report = roofline_report("t4_matrix-add-2d_full")
    calc = oc.calculator(report.launches[0], report.device)
    assert calc.limits.max_warps_per_sm == 32 and calc.limits.max_blocks_per_sm == 16
    assert calc.limits.sources["max_warps_per_sm"] == "device__attribute_max_warps_per_multiprocessor"
    assert "occupancy calculator" in calc.limits.sources["register_alloc_unit"]
    assert set(calc.limits.sources) >= {"max_registers_per_thread", "shared_alloc_unit", "reserved_shared_per_block"}


def test_limits_from_the_compute_capability_cite_the_guide():
    launch = KernelLaunch(0, 0, "k", metrics={"launch__block_size": 256.0, "launch__registers_per_thread": 32.0,
                                              "launch__shared_mem_per_block": 0.0})
    calc = oc.calculator(launch, Device("gpu", compute_capability="7.0"))
    assert calc is not None and calc.limits.max_warps_per_sm == 64
    assert "Compute Capability" in calc.limits.sources["max_warps_per_sm"]
    assert calc.launch.theoretical_pct == 100.0  # 8 blocks of 8 warps


def test_what_if_cites_its_calculator_point():
    # 64 registers: 4 blocks of 8 warps; one more block needs 40 warps = 10 per partition = 1638 -> 1536 per warp
    # = 48 registers
    change = occ.what_if(occ.LaunchShape(256, 64, 1024), A100)[0]
    assert change.point is not None and (change.point.registers, change.point.blocks_per_sm) == (48, 5)
    assert change.point.blocks_per_sm == change.blocks_per_sm
    assert "[calculator: 256 threads, 48 registers, 0 B shared per block" in change.text


def test_no_calculator_without_the_launch_shape():
    assert oc.calculator(KernelLaunch(0, 0, "k"), Device("gpu", compute_capability="8.0")) is None


def test_a_barrier_limit_at_the_blocks_limit_is_not_named():
    """ncu's launch__occupancy_limit_barriers of 32 on a 32-block SM (the H200 intops report) says only what the
    blocks limit says: 1-warp blocks are limited by blocks per SM alone."""
    curve = _curve(oc.curves(occ.LaunchShape(256, 16, 1024), A100, 32768, barriers=32), "threads")
    assert oc.at(curve, 32).limiters == ("blocks",)
    tight = _curve(oc.curves(occ.LaunchShape(256, 16, 1024), A100, 32768, barriers=4), "threads")
    assert oc.at(tight, 256).limiters == ("barriers",) and oc.at(tight, 256).theoretical_pct == 50.0
