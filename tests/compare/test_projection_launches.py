"""Per-launch, per-unit projections (compare.projection_launches) on the H100 single-op reports of examples/h100/ops:
totals, grouping, each unit at the target's own rate, the clock and the achievable bandwidth."""

from __future__ import annotations

import functools
from pathlib import Path

import msgspec
import pytest

import roofline
from roofline.compare.projection_launches import (
    DRAM_FLOOR,
    FMA_HEAVY,
    INTERVALS,
    SHARED,
    interval_of,
    l2_bytes_per_clock,
    launch_class,
    project_workload,
    unit_rates,
)
from roofline.ncu import metrics as m
from roofline.pipeline import AnalysisOptions, analyze_loaded
from roofline.specs.achievable import ClockChoice
from roofline.specs.catalog import load_catalog

OPS = Path(__file__).resolve().parents[2] / "examples" / "h100" / "ops"


@functools.cache
def analysis(stem: str):
    return analyze_loaded(roofline.load(next(OPS.glob(f"{stem}-*.json"))), AnalysisOptions(diagnostics=False))


def spec(spec_id: str):
    return load_catalog().get(spec_id)


def projected(stem: str, target: str, clock="sustained", **changes):
    a = analysis(stem)
    there = msgspec.structs.replace(spec(target), **changes) if changes else spec(target)
    return project_workload(a.valid_launches, a.device, spec("h100-sxm5"), there, clock)


def test_the_total_is_the_sum_of_count_times_projected_and_measured():
    w = projected("op20", "a100-sxm4-80gb")
    assert w.projected_s == pytest.approx(sum(x.count * x.projected_s for x in w.launches))
    assert w.measured_s == pytest.approx(sum(x.count * x.measured_s for x in w.launches))
    assert w.low_s < w.projected_s < w.high_s


def test_launches_of_one_kernel_with_different_sizes_are_projected_apart():
    w = projected("op20", "a100-sxm4-80gb")
    vectorized = [x for x in w.launches if x.name == "vectorized_elementwise_kernel"]
    assert len(vectorized) >= 2
    assert max(x.measured_s for x in vectorized) > 10 * min(x.measured_s for x in vectorized)
    assert sum(x.count for x in w.launches) == len(analysis("op20").valid_launches)


def test_the_workloads_speedup_launch_count_and_governing_unit_come_from_its_launches():
    w = projected("op20", "t4")
    measured = sum(x.count * x.measured_s for x in w.launches)
    projected_s = sum(x.count * x.projected_s for x in w.launches)
    by_unit: dict[str, float] = {}
    for x in w.launches:
        by_unit[x.governing] = by_unit.get(x.governing, 0.0) + x.count * x.projected_s
    assert w.launch_count == sum(x.count for x in w.launches)
    assert w.launch_count + w.left_out == len(analysis("op20").valid_launches)  # every launch counted once
    assert w.speedup == pytest.approx(measured / projected_s, rel=1e-12) and w.speedup < 1.0  # a T4 is slower
    assert w.governing == max(by_unit, key=lambda k: by_unit[k])


def test_an_issue_bound_fp32_kernel_is_fp32_bound_where_an_sm_has_half_the_lanes():
    w = projected("op01", "a100-sxm4-80gb")
    sgemm = w.launches[0]
    terms = {t.key: t for t in sgemm.terms}
    assert unit_rates(spec("a100-sxm4-80gb"))["FMA"] == pytest.approx(64, rel=0.02)
    assert terms["FMA"].target_s > terms["issue"].target_s  # the issue slots governed on the H100
    assert terms["FMA"].source_s < terms["issue"].source_s


def test_a_lower_sustained_clock_slows_an_sm_bound_kernel_in_proportion():
    boost = projected("op01", "a100-sxm4-80gb", "boost")
    held = projected("op01", "a100-sxm4-80gb", "sustained", sustained_clock_hz=0.705e9)
    assert held.projected_s / boost.projected_s == pytest.approx(2.0, rel=0.02)
    assert held.clock_hz == 0.705e9


def l2_ratio(stem: str, target: str) -> tuple[float, float, float]:
    """op43's L2-governed dgrad launch (L2 atomics on the H100) onto ``target``: its L2 term there over here, the
    source's SM clock and the target's clock."""
    w = projected(stem, target)
    dgrad = next(x for x in w.launches if x.governing == "L2")
    l2 = next(t for t in dgrad.terms if t.key == "L2")
    la = next(la for la in analysis(stem).valid_launches if la.launch.name == dgrad.name)
    return l2.target_s / l2.source_s, la.launch.value(m.SM_CLOCK), w.clock_hz


def test_an_l2_term_goes_at_the_whole_l2s_bytes_per_clock_not_the_sms_where_both_are_cited():
    ratio, here_hz, there_hz = l2_ratio("op43", "a100-sxm4-80gb")
    assert l2_bytes_per_clock(spec("h100-sxm5")) == l2_bytes_per_clock(spec("a100-sxm4-80gb")) == 5120
    assert ratio == pytest.approx(here_hz / there_hz, rel=1e-6)  # 132 -> 108 SMs do not enter


def test_an_l2_term_goes_at_the_sms_and_clock_where_the_target_cites_no_l2_rate():
    ratio, here_hz, there_hz = l2_ratio("op43", "t4")
    assert l2_bytes_per_clock(spec("t4")) is None
    assert ratio == pytest.approx(132 * here_hz / (40 * there_hz), rel=1e-6)


def test_the_b200s_l2_rate_is_the_measured_gb200_plateau_at_the_clock_of_its_fp32_figure():
    # 18.9 TB/s (gpu-benches gpu-l2-cache/gb200.txt, 20-85 MB) over 1.98 GHz, for the 126 MB L2 of the B200 spec
    b200 = spec("b200")
    assert b200.l2_bytes == 126 * 2**20 and b200.compute_capability == "10.0"
    assert l2_bytes_per_clock(b200) == pytest.approx(18.9e12 / 1.98e9, rel=0.002)
    ratio, here_hz, there_hz = l2_ratio("op43", "b200")
    assert ratio == pytest.approx(5120 * here_hz / (9550 * there_hz), rel=1e-6)


def test_an_l2_term_never_mixes_a_cited_rate_per_clock_with_a_specs_own_bandwidth():
    # the H100 has a cited rate per clock and no L2 bandwidth in its spec; a T4 given one of its own still goes at
    # the SMs and clock: the two kinds of figure are not divided by each other
    ratio, here_hz, there_hz = l2_ratio("op43", "t4")
    mixed = projected("op43", "t4", l2_bytes_per_s=1e12)
    dgrad = next(x for x in mixed.launches if x.governing == "L2" or any(t.key == "L2" for t in x.terms))
    l2 = next(t for t in dgrad.terms if t.key == "L2")
    assert spec("h100-sxm5").l2_bytes_per_s is None
    assert l2.target_s / l2.source_s == pytest.approx(ratio, rel=1e-9)


def test_the_l2_bytes_per_clock_of_a_smaller_l2_of_the_same_compute_capability_are_in_proportion():
    a100 = spec("a100-sxm4-80gb")
    assert l2_bytes_per_clock(msgspec.structs.replace(a100, l2_bytes=a100.l2_bytes // 2)) == pytest.approx(2560)
    assert l2_bytes_per_clock(msgspec.structs.replace(a100, l2_bytes=None)) is None


def test_a_memory_bound_term_keeps_its_share_of_the_achievable_bandwidth():
    base = projected("op21", "a100-sxm4-80gb", memory_achievable_bytes_per_s=1.6e12)
    half = projected("op21", "a100-sxm4-80gb", memory_achievable_bytes_per_s=0.8e12)
    dram = [x for x in half.launches if x.governing == "DRAM"]
    assert dram
    assert half.projected_s > 1.5 * base.projected_s
    assert half.dram_bytes_per_s == 0.8e12


def test_no_launch_moves_its_dram_bytes_faster_than_the_target_achievable_bandwidth():
    # op05's GEMM is issue-bound on the H100 (its efficiency from that unit) and DRAM-bound on an L40S
    w = projected("op05", "l40s", memory_achievable_bytes_per_s=0.7e12)
    gemm = max(w.launches, key=lambda x: x.projected_s)
    moved = next(la for la in analysis("op05").valid_launches if la.launch.name == gemm.name).bytes["dram"].value
    assert gemm.governing == DRAM_FLOOR
    assert gemm.projected_s == pytest.approx(moved / 0.7e12, rel=1e-9)
    for stem in ("op05", "op21", "op49"):
        a = analysis(stem)
        for la, x in ((la, x) for x in projected(stem, "l40s", memory_achievable_bytes_per_s=0.7e12).launches
                      for la in a.valid_launches if la.launch.name == x.name and x.count == 1):
            assert x.projected_s >= la.bytes["dram"].value / 0.7e12 * (1 - 1e-9)


def test_tensor_work_of_a_type_the_target_lacks_goes_to_its_fp32_lanes():
    w = projected("op29", "t4")
    notes = [t.how for x in w.launches for t in x.terms if t.key == "tensor" and t.source_s > 0]
    assert any("FP32 lanes" in how for how in notes)
    moved = [x for x in w.launches if x.governing == "tensor on FP32 lanes"]  # named by the lanes it runs on
    assert moved  # another algorithm likely there: said so, its class's interval (its residuals hold the case)
    for x in moved:
        low, high = interval_of(x.name)
        assert "tensor_type" in x.other_kernel
        assert x.high_s / x.projected_s == pytest.approx(high)
        assert high == INTERVALS[launch_class(x.name)][1]


def test_a_library_convolution_has_the_widest_interval_and_each_class_holds_the_projection():
    assert launch_class("sm80_xmma_fprop_implicit_gemm_f32f32") == "conv"
    assert launch_class("ampere_sgemm_128x64_nn") == "matmul"
    assert launch_class("vectorized_elementwise_kernel") == "other"
    low, high = interval_of("sm80_xmma_fprop_implicit_gemm_f32f32")
    assert all(high / low >= b / a for a, b in INTERVALS.values())
    assert all(a < 1.0 < b for a, b in INTERVALS.values())
    assert interval_of("Kernel2") == INTERVALS["other"]
    assert interval_of("dgrad_engine") == INTERVALS["conv"]


def test_fp32_and_integer_work_share_the_lanes_of_an_ada_gpu():
    w = projected("op01", "l40s")
    assert any(t.key == SHARED for t in w.launches[0].terms)
    assert not any(t.key == SHARED for t in projected("op01", "a100-sxm4-80gb").launches[0].terms)


def test_without_a_base_clock_there_is_no_projection_at_base_and_the_reason_says_so():
    w = projected("op01", "b200", "base")
    assert not w.launches and "base" in w.reason


def test_roof_terms_of_a_report_without_breakdowns_go_at_their_units_rates():
    from roofline.analysis.results import Term
    from roofline.compare.projection_launches import _gpu, translate

    a = analysis("op01")
    h100, a100 = spec("h100-sxm5"), spec("a100-sxm4-80gb")
    here, there = _gpu(h100, h100.boost_clock_hz, 2.7e12), _gpu(a100, a100.boost_clock_hz, 1.6e12)
    terms = [Term("fp32 roof", "fp32 roof", "roof", 1.0, "", {}, "fp32", "compute", True),
             Term("dram roof", "dram roof", "roof", 1.0, "", {}, "dram", "memory", False)]
    fp32, dram = translate(terms, a.valid_launches[0], here, there)
    per_clock = (132 * h100.boost_clock_hz) / (108 * a100.boost_clock_hz)
    assert fp32.target_s == pytest.approx(per_clock * 128 / 64, rel=0.02)
    assert dram.target_s == pytest.approx(2.7 / 1.6)


def test_each_nvtx_range_sums_the_launches_that_ran_in_it():
    from roofline.compare.projection_launches import range_totals

    w = projected("op20", "a100-sxm4-80gb")
    tagged = [msgspec.structs.replace(x, nvtx_ranges=("step", f"op{i % 2}")) for i, x in enumerate(w.launches)]
    totals = {r.name: r for r in range_totals(tagged)}
    assert totals["step"].projected_s == pytest.approx(w.projected_s)
    assert totals["op0"].projected_s + totals["op1"].projected_s == pytest.approx(w.projected_s)
    assert totals["op0"].launches == sum(x.count for x in tagged[::2])


def test_a_report_of_roof_terms_only_is_projected_with_its_tail():
    path = OPS.parents[1] / "h100-sxm_synthetic.roofline.json"
    a = analyze_loaded(roofline.load(path), AnalysisOptions(diagnostics=False))
    w = project_workload(a.valid_launches, a.device, spec("h100-sxm5"), spec("l4"))
    assert w.launches and w.projected_s > 0
    assert all(t.key in ("FMA", "FP64", "FP16", "tensor", "L1", "L2", "DRAM", "tail", DRAM_FLOOR)
               for x in w.launches for t in x.terms)


def test_project_everywhere_sorts_gpus_fastest_first_each_with_its_workload_total():
    from roofline.compare.projection_launches import project_everywhere

    a = analysis("op20")
    targets = [spec(i) for i in ("t4", "b200", "a100-sxm4-80gb", "l40s")]
    ws = project_everywhere(a.valid_launches, a.device, spec("h100-sxm5"), targets)
    assert [w.target for w in ws] == sorted((w.target for w in ws), key=lambda t: next(
        x.projected_s for x in ws if x.target == t))
    assert {w.target for w in ws} == {t.id for t in targets}
    for w in ws:
        alone = project_workload(a.valid_launches, a.device, spec("h100-sxm5"), spec(w.target))
        assert w.projected_s == pytest.approx(alone.projected_s, rel=1e-12)
        assert w.low_s < w.projected_s < w.high_s
        top = max(w.launches, key=lambda x: x.count * x.projected_s)
        assert w.governing in {x.governing for x in w.launches}
        assert len(w.launches) > 1 or w.governing == top.governing
    assert ws[0].target == "b200" and ws[-1].target == "t4"


def test_a_library_kernel_the_target_cannot_run_or_sized_to_the_source_sms_is_flagged_and_widened():
    """op33's cuDNN dgrad kernel is built for sm_90 (warpgroup MMA) with one block per H100 SM (a grid of 132): on an
    L40S (CC 8.9) its library runs another kernel, sized to the L40S's SMs; the projection says so."""
    from roofline.compare.projection_launches import OTHER_KERNEL

    w = projected("op33", "l40s")
    sm90 = next(x for x in w.launches if x.name.startswith("sm90_"))
    assert "architecture" in sm90.other_kernel and set(sm90.other_kernel) <= set(OTHER_KERNEL)
    assert sm90.grid == 132 and "persistent" in sm90.other_kernel  # one block per H100 SM
    assert not any(t.key == "tail" for t in sm90.terms)  # sized to the L40S's SMs there: no tail kept
    on_h100 = projected("op33", "h100-sxm5")
    same = next(x for x in on_h100.launches if x.name == sm90.name)
    assert same.other_kernel == ()  # the same GPU: the same kernel
    plain = next(x for x in w.launches if not x.name.startswith("sm90_"))
    assert plain.other_kernel == ()


def test_a_stand_in_tensor_term_counts_at_the_fp32_peak_without_the_source_efficiency():
    """op29's TF32 dgrad kernel ran at about 2.5 x its largest term on the H100; on a T4 (no TF32) its Tensor FLOPs
    go to the FP32 lanes, where the library's FP32 kernel does not keep that efficiency: the time is the term's."""
    w = projected("op29", "t4")
    moved = next(x for x in w.launches if x.governing == "tensor on FP32 lanes")
    stand_in = next(t for t in moved.terms if t.key == "tensor")
    assert stand_in.stand_in and moved.efficiency > 2.0
    assert moved.projected_s == pytest.approx(stand_in.target_s)


def test_a_launch_of_one_partial_wave_keeps_its_time_at_the_clock_ratio():
    """op19's RowwiseMomentsCUDAKernel runs 128 blocks, one per SM on the H100 (132) and the L40S (142): its blocks'
    latency chains hold the time there at the SM clocks' ratio, not its DRAM term times its efficiency (5.3)."""
    from roofline.compare.projection_launches import ONE_WAVE

    w = projected("op19", "l40s", sustained_clock_hz=1.5e9)
    moments = next(x for x in w.launches if x.name == "RowwiseMomentsCUDAKernel")
    wave = next(t for t in moments.terms if t.key == ONE_WAVE)
    assert moments.grid == 128 and moments.efficiency > 4.0
    clock_here = analysis("op19").valid_launches[0].launch.value("sm__cycles_elapsed.avg.per_second")
    assert clock_here is not None
    assert wave.target_s == pytest.approx(moments.measured_s * clock_here / 1.5e9, rel=0.01)
    assert moments.projected_s == pytest.approx(max(t.target_s for t in moments.terms))
    on_t4 = projected("op19", "t4")  # 128 blocks on 40 SMs: more than one wave, no such term
    there = next(x for x in on_t4.launches if x.name == "RowwiseMomentsCUDAKernel")
    assert not any(t.key == ONE_WAVE for t in there.terms)


def test_a_target_issuing_fp32_fmas_in_pairs_frees_half_their_issue_slots_of_a_library_kernel():
    """op11's tiled SGEMM is issue-bound on the H100 (CC 9.0); a B200 (CC 10.0) issues FP32 FMAs two to an instruction
    (.f32x2), so its issue term loses half the FMA pipe's term and the FMA pipe governs there; an A100 has no pairs.
    A kernel whose name shows no library (op01's ``Kernel2``) keeps its issue slots."""
    from roofline.compare.projection_launches import paired_fp32

    assert paired_fp32("9.0", "10.0") and not paired_fp32("10.0", "10.0") and not paired_fp32("9.0", "8.0")
    paired = {t.key: t for t in projected("op11", "b200").launches[0].terms}
    unpaired = {t.key: t for t in projected("op11", "b200", compute_capability="9.0").launches[0].terms}
    assert unpaired["issue"].target_s > unpaired["FMA"].target_s  # issue-bound without pairs
    fma = paired["FMA"].target_s
    assert fma == pytest.approx(unpaired["FMA"].target_s)
    assert paired["issue"].target_s == pytest.approx(max(unpaired["issue"].target_s - 0.5 * fma, fma))
    assert paired["issue"].target_s < unpaired["issue"].target_s
    assert ".f32x2" in paired["issue"].how
    plain = {t.key: t for t in projected("op11", "a100-sxm4-80gb").launches[0].terms}
    assert ".f32x2" not in plain["issue"].how
    unnamed = {t.key: t for t in projected("op01", "b200").launches[0].terms}
    assert ".f32x2" not in unnamed["issue"].how


def test_a_library_kernel_is_known_by_its_tile_or_architecture_not_by_words():
    from roofline.compare.projection_launches import library_kernel

    assert library_kernel("sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize64x64x8_stage3")
    assert library_kernel("ampere_sgemm_128x64_nn")
    assert not library_kernel("elementwise_kernel") and not library_kernel("max_pool3d_with_indices_single_out_frame")
    # a framework's or a user's kernel named for what it does is not one
    assert not library_kernel("conv_depthwise2d_forward_kernel") and not library_kernel("naive_gemm")


def test_an_imad_heavy_fma_pipe_goes_to_64_lane_sms_as_the_whole_pipe_work_not_twice_its_heavy_half():
    w = projected("op25", "a100-sxm4-80gb", "boost")
    pool = w.launches[0]
    terms = {t.key: t for t in pool.terms}
    heavy = terms[FMA_HEAVY]
    assert heavy.source_s > 1.5 * terms["FMA"].source_s  # heavy half 58% of its peak, the whole pipe 32%
    per_clock = heavy.target_s / heavy.source_s
    assert terms["FMA"].target_s == pytest.approx(terms["FMA"].source_s * per_clock * 2, rel=0.02)  # 128 -> 64 lanes
    assert terms["FMA"].target_s < 2 * per_clock * heavy.source_s


def test_the_target_tail_of_a_split_fma_pipe_takes_the_slower_of_its_halves_there():
    pool = projected("op25", "b200").launches[0]
    terms = {t.key: t for t in pool.terms}
    slower = max(terms["FMA"].target_s, terms[FMA_HEAVY].target_s)
    assert terms[FMA_HEAVY].target_s > terms["FMA"].target_s  # the heavy half paces the pool there
    assert "tail" in terms and terms["tail"].target_s >= slower


def test_a_balanced_fp32_kernel_keeps_one_fma_term():
    keys = [t.key for t in projected("op01", "a100-sxm4-80gb").launches[0].terms]
    assert "FMA" in keys and FMA_HEAVY not in keys


def test_the_workload_gives_both_gpus_dram_bandwidths_and_says_why_one_is_missing():
    # the H100's from its calibrate copy (device_specs/h100-sxm5.yaml: 2.752 TB/s), the T4's its own figure
    w = projected("op21", "t4")
    assert (w.source_dram_bytes_per_s, w.dram_bytes_per_s) == (2.752e12, spec("t4").memory_achievable_bytes_per_s)
    assert "roofline calibrate" in w.source_dram_source
    unknown = projected("op21", "t4", memory_type="SRAM", memory_achievable_bytes_per_s=None)
    assert unknown.dram_bytes_per_s is None and "'SRAM' has no default" in unknown.dram_source


def test_without_an_achievable_dram_bandwidth_the_datasheets_ratio_moves_the_dram_terms():
    # a target of a memory type with no default and no figure of its own: its DRAM terms are not kept at the
    # source's time but go at the datasheet bandwidths' ratio (the H100 SXM5's 3.35 TB/s to the L4's 300 GB/s)
    w = projected("op21", "l4", memory_type="SRAM", memory_achievable_bytes_per_s=None)
    for x in w.launches:
        (dram,) = [t for t in x.terms if t.key == "DRAM"]
        assert dram.target_s == pytest.approx(dram.source_s * 3.35e12 / 3.0e11, rel=1e-12)
        assert "datasheet" in dram.how
    moved = sum(la.bytes["dram"].value for la in analysis("op21").valid_launches)
    assert w.projected_s >= moved / 3.0e11  # never faster than the datasheet bandwidth


def test_a_basic_set_launch_is_taken_at_its_measured_gpc_clock_not_at_boost(roofline_report, raw_actions):
    # a basic set holds no sm__cycles_elapsed.avg.per_second: the A10G ran at ncu's locked ~1.31 GHz, not its 1.71
    name = "a10g_sgemm-progression_basic"
    a = analyze_loaded(roofline_report(name), AnalysisOptions(diagnostics=False))
    raw = next(r for r in raw_actions(name) if r.name == "basic")
    assert not raw.has(m.SM_CLOCK)
    gpc = raw.values["gpc__cycles_elapsed.avg.per_second"]
    assert 1.25e9 < gpc < 1.35e9
    h100 = spec("h100-sxm5")
    w = project_workload(a.valid_launches, a.device, spec("a10g"), h100, "boost")
    l1 = next(t for x in w.launches if x.name == "basic" for t in x.terms if t.key == "L1")
    assert l1.target_s / l1.source_s == pytest.approx((80 * gpc) / (132 * h100.boost_clock_hz), rel=1e-3)


def test_fp16_pipe_work_goes_at_each_gpus_hfma2_rate_per_sm_and_clock():
    # an FP16 pipe of its own is a 7.x and 8.0 source's (ncu's sm__inst_executed_pipe_fp16); the specs' non-Tensor FP16
    # peaks: 128 HFMA2 per SM and clock on the A100, 64 on the V100; the B200 spec gives none, so its FP16 work keeps
    # the same rate per SM and clock (an op01 launch carries the hand-made terms)
    from roofline.analysis.results import Term
    from roofline.compare.projection_launches import _gpu, translate

    la = analysis("op01").valid_launches[0]
    a100, v100, b200 = spec("a100-sxm4-80gb"), spec("v100-sxm2"), spec("b200")
    assert unit_rates(a100)["FP16"] == pytest.approx(128, rel=2e-3) and "FP16" not in unit_rates(b200)
    assert unit_rates(v100)["FP16"] == pytest.approx(64, rel=2e-3)
    here = _gpu(a100, a100.boost_clock_hz, 1.6e12)
    fp16 = Term("FP16", "FP16 pipe", "unit", 1.0, "", {}, "sm__inst_executed_pipe_fp16", "compute", True)
    (on_v100,) = translate([fp16], la, here, _gpu(v100, v100.boost_clock_hz, 8e11))
    (on_b200,) = translate([fp16], la, here, _gpu(b200, b200.boost_clock_hz, 7e12))
    assert on_v100.target_s == pytest.approx((108 * 1.41e9) / (80 * v100.boost_clock_hz) * 2, rel=5e-3)
    assert on_b200.target_s == pytest.approx((108 * 1.41e9) / (b200.sm_count * b200.boost_clock_hz))


def test_fp16_pipe_work_adds_to_the_fma_term_where_the_target_runs_fp16_on_its_fma_pipes():
    # GA10x, Ada and Hopper dual-issue FP16x2 to the FMA pipes (architecture/throughput.yaml fp16_on_fma_from 8.6);
    # the A100 and V100 have an FP16 pipe of their own. On the L4 INT32 also shares those lanes (FP32+INT32 term).
    from roofline.analysis.results import Term
    from roofline.compare.projection_launches import SHARED, _gpu, translate

    la = analysis("op01").valid_launches[0]
    a100, l4, v100 = spec("a100-sxm4-80gb"), spec("l4"), spec("v100-sxm2")
    here = _gpu(a100, a100.boost_clock_hz, 1.6e12)
    fma = Term("FMA", "FMA pipe", "unit", 1.0, "", {}, "sm__inst_executed_pipe_fma", "compute", True)
    fp16 = Term("FP16", "FP16 pipe", "unit", 0.5, "", {}, "sm__inst_executed_pipe_fp16", "compute", True)
    alu = Term("ALU", "ALU pipe", "unit", 0.25, "", {}, "sm__inst_executed_pipe_alu", "compute", True)
    l4_gpu, v100_gpu = _gpu(l4, l4.boost_clock_hz, 2.7e11), _gpu(v100, v100.boost_clock_hz, 8e11)
    on_l4 = {u.key: u for u in translate([fma, fp16, alu], la, here, l4_gpu)}
    alone = {u.key: u for u in translate([fma, alu], la, here, l4_gpu)}
    (fp16_alone,) = translate([fp16], la, here, l4_gpu)
    assert on_l4["FMA"].target_s == pytest.approx(alone["FMA"].target_s + fp16_alone.target_s)
    assert on_l4["FP16"].target_s == on_l4["FMA"].target_s  # the tail reads either by key
    assert on_l4[SHARED].target_s == pytest.approx(alone[SHARED].target_s + fp16_alone.target_s)
    on_v100 = {u.key: u for u in translate([fma, fp16], la, here, v100_gpu)}
    assert on_v100["FMA"].target_s == pytest.approx(translate([fma], la, here, v100_gpu)[0].target_s)
    assert on_v100["FP16"].target_s == pytest.approx(translate([fp16], la, here, v100_gpu)[0].target_s)


def test_a_volta_shared_pipe_of_fp64_work_goes_at_the_fp64_rate_and_many_waves_name_their_unit(shared_report):
    """The V100 miniWeather FP64 kernel onto the H100 SXM: its shared pipe's time is its FP64 pipe's (both 70.3% of
    peak), so it goes as the FP64 term goes (31.9 -> 64.1 FP64 FLOPs per SM and clock), not at one rate per SM and
    clock (1.91 ms there before, twice the FP64 term); 65535 blocks are 820 waves, so the unit is named, not a
    tail a thousandth longer."""
    pytest.importorskip("ncu_report", reason="reading an .ncu-rep needs NVIDIA's ncu_report module")
    from roofline.pipeline import analyze_files

    (a,) = analyze_files([shared_report("v100_miniweather-openacc_full")])
    w = project_workload(a.valid_launches, a.device, spec(a.spec_id), spec("h100-sxm5"), "sustained")
    x = next(x for x in w.launches if x.name == "compute_tendencies_x_279_gpu")
    terms = {t.key: t for t in x.terms}
    shared, fp64 = terms["shared pipe"], terms["FP64"]
    assert shared.source_s == pytest.approx(fp64.source_s, rel=0.02)
    assert shared.target_s / shared.source_s == pytest.approx(fp64.target_s / fp64.source_s, rel=1e-12)
    assert terms["tail"].target_s > terms["issue"].target_s  # the tail's whole blocks, a hair above its unit
    assert x.governing == "issue"
    # compute-bound on the V100 at 49% of its achievable DRAM bandwidth: no bytes-in-flight bound onto the H100
    assert "bytes in flight" not in terms["DRAM"].how


def achievable(spec_id: str) -> float:
    from roofline.specs.achievable import achievable_dram_bandwidth

    got = achievable_dram_bandwidth(spec(spec_id))
    assert got is not None and got.value
    return got.value


def cupy_triad(target: str, clock: ClockChoice = "base"):
    """The CuPy triad of examples/h100 (74% of the H100's DRAM peak) projected onto ``target`` at ``clock``, with
    the launch, its DRAM term there and its measured time and DRAM bytes."""
    a = analyze_loaded(roofline.load(OPS.parent / "triad-cupy.roofline.ncu-rep"), AnalysisOptions(diagnostics=False))
    w = project_workload(a.valid_launches, a.device, spec("h100-sxm5"), spec(target), clock)
    (launch,) = (x for x in w.launches if x.name == "triad")
    la = next(la for la in a.valid_launches if la.launch.name == "triad")
    dram = next(t for t in launch.terms if t.key == "DRAM")
    return launch, dram, la.duration_s.value, la.bytes["dram"].value


def test_onto_more_bandwidth_a_dram_term_is_bound_by_the_bytes_in_flight_per_sm():
    """Little's law as a smooth minimum (p = 3) of the H200's achievable bandwidth and the rate the triad's bytes in
    flight allow on as many SMs, both over the H100's achievable bandwidth; computed here from the report's bytes
    and time and the specs' achievable bandwidths."""
    launch, dram, t, moved = cupy_triad("h200")
    u = moved / t / achievable("h100-sxm5")
    allowed = (u ** -3 - 1) ** (-1 / 3) * 132 / 132
    reached = ((achievable("h200") / achievable("h100-sxm5")) ** -3 + allowed ** -3) ** (-1 / 3)
    assert 0.85 < u < 0.95  # 74% of the datasheet peak, 90% of the stream copy's 2.75 TB/s
    assert dram.target_s == pytest.approx(dram.source_s * u / reached, rel=1e-9)
    assert dram.target_s > dram.source_s * achievable("h100-sxm5") / achievable("h200") * 1.1
    assert "bytes in flight" in dram.how and launch.governing == "DRAM"
    # the H200 ran it in 325 us against the H100's 320 (examples/h200): the bandwidths' ratio alone gives 236 us
    assert 0.25e-3 < launch.projected_s < 0.3e-3


def test_onto_less_bandwidth_a_dram_term_keeps_its_fraction_of_the_achievable_bandwidth():
    """Onto the A100's 1.63 TB/s the triad is taken at its H100 fraction: its latency there is not known."""
    _, dram, _, _ = cupy_triad("a100-sxm4-80gb", "sustained")
    assert dram.target_s == pytest.approx(dram.source_s * achievable("h100-sxm5") / achievable("a100-sxm4-80gb"),
                                          rel=1e-12)
    assert "bytes in flight" not in dram.how


def test_no_interval_goes_below_the_launch_work_at_the_target_peaks():
    """The FP64 GEMM of examples/h100 onto the A100 and the B200: 137 GFLOP of FP64 Tensor work, at 19.5 and 37
    TFLOPS (each spec's datasheet figure at its boost clock) no faster than 7.05 and 3.71 ms, which the low ends
    are (the class factor alone put the A100's at 5.56 ms). The sm90_ kernel is another kernel there: only its
    FLOPs bind, not its bytes."""
    a = analyze_loaded(roofline.load(OPS.parent / "torch-fp64.full.json"), AnalysisOptions(diagnostics=False))
    (la,) = a.valid_launches
    flops = la.tensor_flops_by_type["fp64"]
    assert flops and flops > 1e11
    for target in ("a100-sxm4-80gb", "b200"):
        w = project_workload(a.valid_launches, a.device, spec("h100-sxm5"), spec(target), "sustained")
        (x,) = w.launches
        at_peak = flops / spec(target).peaks["tensor_fp64"]
        assert "architecture" in x.other_kernel
        assert x.low_s == pytest.approx(at_peak, rel=1e-3) and x.low_s > x.projected_s * INTERVALS["matmul"][0]


def test_a_convolution_interval_keeps_its_class_factor_another_algorithm_may_do_less_work():
    w = projected("op29", "t4")
    conv = [x for x in w.launches if launch_class(x.name) == "conv"]
    assert conv
    for x in conv:
        assert x.low_s == pytest.approx(max(x.projected_s * INTERVALS["conv"][0], 1.5e-6), rel=1e-12)


def test_every_interval_of_the_ops_holds_its_projection_and_never_goes_below_the_work_at_the_targets_peaks():
    """Every launch of the 49 ops onto every development GPU: low <= projected <= high, and, but for a convolution,
    the low end at least the launch's FP32 FLOPs at the target's datasheet FP32 peak (at its boost clock) and, where
    the target runs the same kernel, its DRAM bytes at the datasheet bandwidth."""
    for path in sorted(OPS.glob("op*.json")):
        a = analysis(path.name.split("-")[0])
        for target in ("t4", "a100-sxm4-80gb", "l40s", "b200"):
            w = project_workload(a.valid_launches, a.device, spec("h100-sxm5"), spec(target), "sustained")
            for x in w.launches:
                assert x.low_s <= x.projected_s <= x.high_s
                if launch_class(x.name) == "conv":
                    continue
                la = next(la for la in a.valid_launches if la.launch.name == x.name and la.grid_size == x.grid)
                fp32 = la.flops["fp32"].value
                if fp32:
                    assert x.low_s >= fp32 / spec(target).peaks["fp32"] * (1 - 1e-9)
                moved = la.bytes["dram"].value
                if moved and not x.other_kernel:
                    assert x.low_s >= moved / spec(target).memory_bandwidth_bytes_per_s * (1 - 1e-9)


def test_where_another_kernel_is_likely_only_the_counted_flops_bind_the_low_end():
    """The sm80_ SGEMMs of the ops onto a T4 (CC 7.5 cannot run them): their low end is the class factor or their
    counted FP32 FLOPs at the T4's FP32 peak, whichever is higher; their bytes and their FMA pipe's IMAD work do not
    raise it (another kernel need not move or issue them)."""
    checked = 0
    for path in sorted(OPS.glob("op*.json")):
        a = analysis(path.name.split("-")[0])
        w = project_workload(a.valid_launches, a.device, spec("h100-sxm5"), spec("t4"), "sustained")
        for x in w.launches:
            la = next(la for la in a.valid_launches if la.launch.name == x.name and la.grid_size == x.grid)
            if not x.other_kernel or launch_class(x.name) == "conv" or any(la.tensor_flops_by_type.values()):
                continue
            fp32 = la.flops["fp32"].value or 0.0
            low = INTERVALS[launch_class(x.name)][0]
            assert x.low_s == pytest.approx(max(x.projected_s * low, fp32 / spec("t4").peaks["fp32"], 1.5e-6),
                                            rel=1e-9)
            checked += 1
    assert checked >= 5


def test_a_power_held_launch_gives_its_clock_there_and_the_workload_counts_it():
    """The H100's BF16 GEMM ran at 1.34 GHz under its 1.58 GHz base (examples/h100): onto the H200 it keeps that
    share of the sustained clock, which its launch group gives (clock_hz) and the workload counts (power_held)."""
    a = analyze_loaded(roofline.load(OPS.parent / "torch-bf16.roofline.ncu-rep"), AnalysisOptions(diagnostics=False))
    w = project_workload(a.valid_launches, a.device, spec("h100-sxm5"), spec("h200"), "sustained")
    (gemm,) = (x for x in w.launches if x.name.startswith("nvjet"))
    la = next(la for la in a.valid_launches if la.launch.name == gemm.name)
    ran, base = m.sm_clock_hz(la.launch).value, spec("h100-sxm5").base_clock_hz
    assert ran is not None and base is not None and ran < base
    assert w.clock_hz is not None and gemm.clock_hz == pytest.approx(w.clock_hz * ran / base, rel=1e-12)
    assert w.power_held == sum(1 for x in w.launches if x.clock_hz is not None and x.clock_hz < w.clock_hz) >= 1


def test_a_launch_within_the_clock_tolerance_of_its_base_is_locked_not_power_held():
    """The RTX 5060 Ti's launches ran at 2385-2388 MHz under a 2389 MHz base: locked to base, as grade reads them,
    so none is held by power there and each keeps the workload's clock (they were four power-held groups)."""
    from tests.conftest import SHARED_REPORTS

    path = SHARED_REPORTS / "rtx5060ti_transpose_basic.ncu-rep"
    if not path.is_file():
        pytest.skip(f"{path.name} is not in ../shared/ncu-reps")
    a = analyze_loaded(roofline.load(path), AnalysisOptions(diagnostics=False))
    source = spec("rtx-5060-ti")
    assert source.base_clock_hz is not None
    ran = [m.sm_clock_hz(la.launch).value for la in a.valid_launches]
    assert all(r is not None and 0.99 * source.base_clock_hz < r < source.base_clock_hz for r in ran)
    w = project_workload(a.valid_launches, a.device, source, spec("h200"), "sustained")
    assert w.power_held == 0 and {x.clock_hz for x in w.launches} == {w.clock_hz}


def tensor_term(w):
    """The Tensor term of a one-group workload projection."""
    (x,) = [x for x in w.launches if any(t.key == "tensor" and not t.stand_in for t in x.terms)][:1]
    return next(t for t in x.terms if t.key == "tensor"), x


def test_tensor_work_never_runs_above_the_clock_its_datasheet_figure_holds_at():
    """The FP16 Tensor GEMM of examples/h100 (measured at 1.31 GHz; its source spec here without a base clock, so
    not taken as power held) onto the GH200 at its 1.98 GHz boost: the GH200's 990 TFLOPS figure holds at 1.83 GHz
    (tensor_clock_hz), so the Tensor term is the source's x 1.31 / 1.83 GHz, not / 1.98 GHz (that would beat the
    figure by 8%), and the low end is no faster than the counted FLOPs at 990 TFLOPS."""
    a = analyze_loaded(roofline.load(OPS.parent / "torch-fp16.full.json"), AnalysisOptions(diagnostics=False))
    (la,) = a.valid_launches
    source = msgspec.structs.replace(spec("h100-sxm5"), base_clock_hz=None)
    gh200 = spec("gh200")
    w = project_workload(a.valid_launches, a.device, source, gh200, "boost")
    term, x = tensor_term(w)
    measured = m.sm_clock_hz(la.launch).value
    assert measured is not None and measured < gh200.tensor_clock_hz < gh200.boost_clock_hz
    assert x.clock_hz == gh200.boost_clock_hz
    rates = [g.peaks["tensor_fp16"] / (g.sm_count * g.tensor_clock_hz) for g in (source, gh200)]  # per SM, clock
    assert term.target_s == pytest.approx(term.source_s * measured * rates[0] / (gh200.tensor_clock_hz * rates[1]),
                                          rel=1e-9)
    assert "at most the 1.83 GHz its figure holds at" in term.how
    assert x.low_s >= la.tensor_flops_by_type["fp16"] / gh200.peaks["tensor_fp16"] * (1 - 1e-9)


def test_tensor_work_that_ran_above_its_figures_clock_keeps_that_share_there():
    """op44's TF32 dgrad ran at 1.834 GHz, just above the 1.83 GHz the H100 SXM5's Tensor figures hold at: onto the
    same GPU at its 1.98 GHz boost its Tensor term runs at 1.83 GHz x (1.834 / 1.83), its own clock, and keeps its
    time; op38's ran at 1.826 GHz, below it, and goes at 1.83 GHz."""
    h100 = spec("h100-sxm5")
    for stem in ("op44", "op38"):
        (la,) = [la for la in analysis(stem).valid_launches if la.tensor_flops_by_type.get("tf32")][:1]
        measured = m.sm_clock_hz(la.launch).value
        w = project_workload([la], analysis(stem).device, h100, h100, "boost")
        term, _ = tensor_term(w)
        there = max(measured, h100.tensor_clock_hz)
        assert term.target_s == pytest.approx(term.source_s * measured / there, rel=1e-9)
    assert m.sm_clock_hz(next(la for la in analysis("op44").valid_launches
                              if la.tensor_flops_by_type.get("tf32")).launch).value > h100.tensor_clock_hz


def test_an_rtx_blackwell_sm_runs_int32_on_all_128_lanes():
    """CC 12.0 (RTX Blackwell whitepaper: unified FP32/INT32 cores): 128 INT32 lanes per SM, twice Ada's 64, and
    FP32 and INT32 share the 128 lanes; the datacenter Blackwell SM (10.0) is taken as Hopper's 64."""
    from roofline.compare.projection_launches import shared_int_lanes, unit_rates
    from roofline.specs.architecture import integer_lanes

    assert unit_rates(spec("rtx-5060-ti"))["ALU"] == 128 == 2 * unit_rates(spec("l40s"))["ALU"]
    assert shared_int_lanes("12.0") == 128 and shared_int_lanes("10.0") is None
    lanes = integer_lanes("10.0")
    assert lanes is not None and lanes.per_sm == 64 == unit_rates(spec("h100-sxm5"))["ALU"]


def test_a_cublas_12_kernel_named_nvjet_sm90_is_flagged_as_built_for_hopper_onto_a_turing_gpu():
    """cuBLAS 12's Hopper GEMM (``nvjet_sm90_hsh_256x128...``: the architecture after the library's prefix) onto a
    T4 (CC 7.5): the library would run another kernel there (``architecture``), as for an ``sm90_xmma_`` kernel."""
    a = analyze_loaded(roofline.load(OPS.parent / "torch-fp16.full.json"), AnalysisOptions(diagnostics=False))
    (la,) = a.valid_launches
    assert la.launch.name.startswith("nvjet_sm90_")
    w = project_workload(a.valid_launches, a.device, spec("h100-sxm5"), spec("t4"), "sustained")
    assert "architecture" in w.launches[0].other_kernel
    h200 = project_workload(a.valid_launches, a.device, spec("h100-sxm5"), spec("h200"), "sustained")
    assert "architecture" not in h200.launches[0].other_kernel
