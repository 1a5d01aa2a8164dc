"""Occupancy diagnostics: the re-derived limits against ncu's own, limiters, waves, and the what-if changes.

Real-report expectations were checked by hand from the raw ncu_report values (tests/conftest.py
``raw_actions``): launch__registers_per_thread, launch__block_size, launch__shared_mem_per_block,
launch__shared_mem_config_size, the device__attribute_* values and ncu's launch__occupancy_limit_*.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from roofline.analysis.diagnostics import occupancy as occ
from roofline.core.model import Device, KernelLaunch

# Reports whose ncu (2022.2 or newer) sizes the shared-memory limit by the launch's carveout
# (launch__shared_mem_config_size). Older ones (2020.3, 2021.2) use the SM's largest carveout instead.
CARVEOUT_REPORTS = ("a100-80gb_cutlass-gemm_full", "a10g_sgemm-progression_basic", "rtx3080_sgemm-vs-cublas_full",
                    "rtx2070super_alife-143launches_basic", "rtx4070ti_pytorch-sim_full", "gh200_silu_full-roofline",
                    "rtx5060ti_transpose_basic", "v100_miniweather-openacc_full", "a40_julia-fp16x2_full")
LARGEST_CARVEOUT_REPORTS = ("a100-40gb_cublas-sgemm_basic", "rtx3070_scan_full_ncu2020.3",
                            "a100-40gb_selfjoin-cub-sort-154launches_basic")

A100 = occ.SmResources(max_warps=64, max_blocks=32, registers=65536, sub_partitions=4, shared_bytes=167936,
                       max_threads_per_block=1024, reserved_shared_per_block=1024)


def _launch(report, name):
    return next(k for k in report.launches if k.name == name)


def _diagnose(roofline_report, report_name, kernel):
    report = roofline_report(report_name)
    return occ.diagnose(_launch(report, kernel), report.device)


# --- The rules on made-up shapes ----------------------------------------------------------------------
def test_register_limit_per_warp_and_sub_partition():
    # 128 regs x 32 threads = 4096 per warp; 16384 per sub-partition holds 4 warps; x 4 = 16 warps = 2 blocks of 8
    assert occ.blocks_by_registers(occ.LaunchShape(256, 128, 0), A100) == 2
    assert occ.blocks_by_registers(occ.LaunchShape(256, 64, 0), A100) == 4
    # 47 regs -> 1504 -> rounded up to 1536 per warp: 10 warps per sub-partition, 40 per SM, 5 blocks of 8
    assert occ.blocks_by_registers(occ.LaunchShape(256, 47, 0), A100) == 5


def test_shared_limit_rounds_to_the_allocation_unit():
    turing = occ.SmResources(32, 16, 65536, 4, 65536, 1024, 0, smem_unit=256)
    assert occ.blocks_by_shared(occ.LaunchShape(256, 32, 44), turing, 32768) == 128  # 44 B take a 256 B unit
    assert occ.blocks_by_shared(occ.LaunchShape(128, 32, 0), A100, 32768) == A100.max_blocks


def test_what_if_registers_128_to_64_doubles_blocks():
    shape = occ.LaunchShape(256, 128, 1024)
    changes = occ.what_if(shape, A100)
    # next step 3 blocks needs <= 16384 // 6 warps = 2730 -> 2560 regs per warp = 80 per thread; full occupancy
    # (8 blocks, the warp limit) needs 1024 per warp = 32 per thread
    assert [(w.change, w.blocks_per_sm) for w in changes] == [("registers per thread 128 -> 80", 3),
                                                                ("registers per thread 128 -> 32", 8)]
    assert changes[-1].theoretical_pct == 100.0
    assert "would allow 8 blocks per SM instead of 2 (4x" in changes[-1].text


def test_no_what_if_at_full_occupancy():
    assert occ.what_if(occ.LaunchShape(256, 32, 1024), A100) == ()


def test_tail_idle_share():
    assert occ.tail_idle_pct(4.0) == 0.0
    assert occ.tail_idle_pct(1.25) == pytest.approx(37.5)  # second wave a quarter full: 0.75 of 2 waves idle
    assert occ.tail_idle_pct(0.25) == pytest.approx(75.0)


def test_missing_everything_is_none_with_reasons():
    o = occ.diagnose(KernelLaunch(0, 0, "k"), Device("gpu"))
    assert o.theoretical_pct is None and o.achieved_pct is None and o.limiters == () and o.what_if == ()
    assert set(o.missing) >= {"theoretical_pct", "achieved_pct", "limiters", "waves_per_sm"}


# --- Re-derived limits equal ncu's on real reports ------------------------------------------------------
@pytest.mark.parametrize("name", CARVEOUT_REPORTS)
def test_derived_limits_match_ncu(roofline_report, name):
    report = roofline_report(name)
    checked = 0
    for launch in report.launches:
        o = occ.diagnose(launch, report.device)
        if not o.derived_limits:
            continue
        assert {k: o.limits[k] for k in o.derived_limits} == o.derived_limits, launch.name
        checked += 1
    assert checked


@pytest.mark.parametrize("name", LARGEST_CARVEOUT_REPORTS)
def test_old_ncu_shared_limit_uses_the_largest_carveout(roofline_report, name):
    report = roofline_report(name)
    sm = occ.sm_resources(report.device)
    for launch in report.launches:
        o, shape = occ.diagnose(launch, report.device), occ.launch_shape(launch)
        assert occ.derive_limits(shape, sm, sm.shared_bytes) == {k: o.limits[k] for k in o.derived_limits}


# --- Hand-checked launches ------------------------------------------------------------------------------
def test_cutlass_gemm_registers_and_shared_memory_tie(roofline_report):
    # 204 regs x 32 = 6528 -> 6656 per warp: 2 warps per sub-partition, 8 per SM = 2 blocks of 4 warps;
    # 44032 B per block (43008 dynamic + 1024 driver) in the 100 KiB carveout: 2 blocks. 8 of 64 warps = 12.5%.
    o = _diagnose(roofline_report, "a100-80gb_cutlass-gemm_full", "Kernel")
    assert o.limiters == ("registers", "shared_mem") and o.blocks_per_sm == 2 and o.theoretical_pct == 12.5
    # 168 regs -> 5376 per warp -> 3 per sub-partition = 12 warps = 3 blocks; 164 KiB then holds 3 blocks too
    assert [w.change for w in o.what_if] == ["registers per thread 204 -> 168"]
    assert o.what_if[0].blocks_per_sm == 3 and o.what_if[0].theoretical_pct == 18.75
    assert any("164 KiB) holds 3" in f for f in o.findings)
    # 12 blocks for 216 slots (2 x 108 SMs): 0.0556 waves, 94% of the slots idle
    assert o.waves_per_sm == pytest.approx(12 / 216) and o.tail_idle_pct == pytest.approx(100 * (1 - 12 / 216))


def test_block_of_1024_threads_on_a_48_warp_sm(roofline_report):
    # 32 warps per block on a 48-warp SM: one block, 66.7%; 768 threads (24 warps) fit twice, and 36 regs
    # (1152 per warp, 14 warps per sub-partition, 56 per SM) allow 2 blocks of 24 warps: 100%
    o = _diagnose(roofline_report, "a10g_sgemm-progression_basic", "basic")
    assert o.limiters == ("registers", "warps") and o.theoretical_pct == pytest.approx(200 / 3)
    assert [w.change for w in o.what_if] == ["block size 1024 -> 768 threads"]
    assert o.what_if[0].theoretical_pct == 100.0


def test_shared_memory_limiter_what_if(roofline_report):
    # 17408 B per block (16 KiB + 1 KiB driver) in 100 KiB: 5 blocks; 6 blocks need <= 102400 // 6 = 17066 B,
    # i.e. 17024 B in 128 B units = 15.6 KiB of the kernel's own shared memory
    o = _diagnose(roofline_report, "rtx3080_sgemm-vs-cublas_full", "gemm")
    assert o.limiters == ("shared_mem",) and o.limits["shared_mem"] == 5
    assert [(w.change, w.blocks_per_sm) for w in o.what_if] == [("shared memory per block 16.0 -> 15.6 KiB", 6)]


def test_tied_limiters_change_together(roofline_report):
    # julia_frb: 768 threads, 80 regs and 77952 B allocated on an A40 (100 KiB): both allow 1 block; two blocks
    # need 40 regs (1280 per warp, 12 warps per sub-partition) and <= 51200 B per block (49.0 KiB own)
    o = _diagnose(roofline_report, "a40_julia-fp16x2_full", "julia_frb_5885")
    assert o.limiters == ("registers", "shared_mem")
    assert o.what_if[0].change == "registers per thread 80 -> 40 and shared memory per block 75.1 -> 49.0 KiB"
    assert o.what_if[0].theoretical_pct == 100.0


def test_theoretical_and_achieved_from_ncu(roofline_report, raw_actions):
    o = _diagnose(roofline_report, "a100-80gb_cutlass-gemm_full", "ReferenceGemm_kernel")
    raw = next(a for a in raw_actions("a100-80gb_cutlass-gemm_full") if a.name == "ReferenceGemm_kernel")
    assert o.theoretical_pct == raw["sm__maximum_warps_per_active_cycle_pct"] == 62.5
    assert o.achieved_pct == pytest.approx(raw["sm__warps_active.avg.pct_of_peak_sustained_active"])
    assert o.gap_pts > occ.ACHIEVED_GAP_PTS and any("points below the theoretical" in f for f in o.findings)


def test_tail_effect_finding(roofline_report):
    # 1.333 waves: the second wave is a third full, so a third of the block slots idle over two waves
    o = _diagnose(roofline_report, "h800_flash-attn-fwd_full", "distribution_elementwise_grid_stride_kernel")
    assert o.waves_per_sm == pytest.approx(4 / 3) and o.tail_idle_pct == pytest.approx(100 / 3)
    assert any("last wave is 33% full" in f for f in o.findings)


def test_launch_ncu_could_not_measure(roofline_report):
    o = _diagnose(roofline_report, "h800_flash-attn-fwd_full", "flash_fwd_kernel")
    assert o.theoretical_pct is None and o.achieved_pct is None and o.limiters == ()
    assert "NaN" in o.missing["achieved_pct"]


# --- The what-if answers: closed form, pinned, and against an exhaustive search ---------------------------------
PINNED = Path(__file__).with_name("what_if_pinned.json")  # every launch of ../shared/ncu-reps, before closed form


def test_what_if_on_every_shared_launch_is_unchanged(roofline_report, shared_name):
    """The closed-form answers equal those of the former search over every register count, shared size and
    block size (recorded in what_if_pinned.json), launch by launch."""
    report = roofline_report(shared_name)  # skips, naming the folder, without ../shared
    pinned = json.loads(PINNED.read_text())[shared_name]
    got = {k.key: [[w.change, w.blocks_per_sm, round(w.theoretical_pct, 6)] for w in
                   occ.diagnose(k, report.device).what_if] for k in report.launches}
    assert got == pinned


def _exhaustive_registers(target, shape, sm):
    return next((r for r in range(shape.registers - 1, 0, -1)
                 if occ.blocks_by_registers(occ.LaunchShape(shape.threads, r, shape.shared_bytes), sm) >= target),
                None)


def _exhaustive_shared(target, shape, sm):
    sizes = range(shape.shared_bytes - sm.smem_unit, sm.reserved_shared_per_block, -sm.smem_unit)
    return next((b for b in sizes
                 if occ.blocks_by_shared(occ.LaunchShape(shape.threads, shape.registers, b), sm, sm.shared_bytes)
                 >= target), None)


SMS = (A100, occ.SmResources(32, 16, 65536, 4, 65536, 1024, 0, smem_unit=256),
       occ.SmResources(48, 24, 65536, 4, 102400, 1024, 1024), occ.SmResources(64, 32, 65536, 4, 233472, 1024, 1024))


@pytest.mark.parametrize("sm", SMS)
def test_register_and_shared_cuts_equal_an_exhaustive_search(sm):
    rng = random.Random(15)
    for _ in range(60):
        shape = occ.LaunchShape(rng.randrange(1, 1025), rng.randrange(1, 256), rng.randrange(0, sm.shared_bytes))
        for target in (*range(1, 9), sm.max_blocks, sm.max_blocks + 1):
            assert occ.registers_for(target, shape, sm) == _exhaustive_registers(target, shape, sm), (shape, target)
            assert occ.shared_for(target, shape, sm) == _exhaustive_shared(target, shape, sm), (shape, target)


@pytest.mark.parametrize("registers, shared", [(19_000_000, 1024), (64, 10**12), (2**40, 2**50)])
def test_what_if_on_huge_footprints_proposes_nothing(registers, shared):
    """A register count or shared size far beyond any GPU (a corrupt report) is answered without a search (the
    former one counted down from 1.9e7 registers for ~50 s, and from 1e12 bytes in 128 B steps for hours): no
    block fits, so there is no change to propose."""
    assert occ.what_if(occ.LaunchShape(256, registers, shared), A100) == ()


def test_cuts_from_huge_footprints_land_on_the_fitting_size():
    # 2 blocks of 8 warps: 4 warps per sub-partition of 16384 registers = 4096 per warp = 128 per thread
    assert occ.registers_for(2, occ.LaunchShape(256, 19_000_000, 0), A100) == 128
    # 2 blocks in 164 KiB: 83968 B each, which 1e12 (a multiple of the 128 B unit) reaches in whole units
    assert occ.shared_for(2, occ.LaunchShape(256, 32, 10**12), A100) == 83968


def test_nothing_limits_at_100_percent_theoretical(roofline_report):
    """silu (GH200): 2 blocks x 32 warps fill the SM's 64; ncu says "not impacted by any block limit", even though
    the warps limit (2 blocks) equals the smallest one."""
    o = _diagnose(roofline_report, "gh200_silu_full-roofline", "silu_kernel_non_strided")
    assert o.theoretical_pct == 100.0 and o.limits["warps"] == min(o.limits.values())
    assert o.limiters == ()
    assert o.findings[0].endswith("the SM's maximum")
