"""roofline.compare.pairing: pairing across reports, per-kernel aggregation, speedups, ceiling-expected speedups and
projection.

Every expected value is computed here, independently of the code under test: from the numbers a synthetic
model is built with (tests/synthetic.py), or from raw metric values read with NVIDIA's ncu_report directly
(``raw_actions``) and datasheet values read from the YAML files with PyYAML. The definitions used:

* time per launch  = mean of gpu__time_duration.sum over the kernel's launches (per_launch_s), and their median
* speedup          = 1 / the median of the pairwise log ratios of the launch times other / base (Hodges-Lehmann,
                     here with ``statistics.median`` over every pair); one launch each: base / other
* FP32 FLOPs       = fadd + fmul + 2 ffma thread instructions (rate x smsp clock x duration in stock sections)
* DRAM bytes       = dram__bytes.sum.per_second x duration (or the plain .sum count in the synthetic model)
* roof time        = max(FLOPs_p / peak_p, bytes_l / BW_l) over the roofs the ceilings give
* expected speedup = roof time (base) / roof time (other) where both verdicts are compute or memory; for the same
                     work = min(P, AI BW) ratio
"""

from __future__ import annotations

import math
import statistics

import pytest
import yaml

from roofline.analysis.advice import LAUNCH_OVERHEAD_S
from roofline.analysis.kernels import aggregate
from roofline.analysis.roofline import analyze_report
from roofline.analysis.work import WorkNote, WorkNoteKind
from roofline.compare import pairing
from roofline.compare.pairing import Matcher, pair_reports, parse_matcher
from roofline.errors import RooflineError
from roofline.pipeline import analyze_loaded
from roofline.render.compare.prose import work_summary
from roofline.specs.catalog import load_catalog
from tests.synthetic import (
    COMPUTE_BOUND,
    NEW_GPU,
    OLD_GPU,
    REL,
    REPO,
    SMSP_CLOCK,
    launch,
    model,
    names_model,
    peak_dram,
    peak_fp32,
    roof_time,
)


# --- Aggregation and speedups (synthetic) ---------------------------------------------------------------
def test_a_kernel_with_several_launches_is_summed_and_timed_per_launch_by_the_mean():
    durations, ffma, dram = [10e-6, 20e-6, 60e-6], [1e6, 2e6, 3e6], [4e5, 4e5, 4e5]
    rep = model("a.json", [launch(i, "k", d, f, b, OLD_GPU)
                           for i, (d, f, b) in enumerate(zip(durations, ffma, dram, strict=True))])
    stats = aggregate(analyze_report(rep).launches)
    total_flops, total_bytes, total_s = 2 * sum(ffma), sum(dram), sum(durations)
    assert stats.count == 3 and stats.names == ("k",)
    assert stats.total_s.value == pytest.approx(total_s, rel=REL)
    assert stats.per_launch_s.value == pytest.approx(total_s / 3, rel=REL)
    assert stats.median_s.value == pytest.approx(20e-6, rel=REL)
    assert stats.flops["fp32"].value == pytest.approx(total_flops, rel=REL)
    assert stats.flop_per_s["fp32"].value == pytest.approx(total_flops / total_s, rel=REL)
    assert stats.bytes_per_s["dram"].value == pytest.approx(total_bytes / total_s, rel=REL)
    assert stats.intensity["dram"].value == pytest.approx(total_flops / total_bytes, rel=REL)
    t_roof = roof_time(total_flops, total_bytes, OLD_GPU)
    assert stats.roof_time_s.value == pytest.approx(t_roof / 3, rel=REL)
    assert stats.roof.pct_of_roof == pytest.approx(100 * t_roof / total_s, rel=REL)
    assert stats.durations_s == pytest.approx(durations, rel=REL)
    assert stats.work is not None
    assert stats.work.flops["fp32"] == pytest.approx(total_flops / 3, rel=REL)
    assert stats.work.bytes["dram"] == pytest.approx(total_bytes / 3, rel=REL)
    assert stats.work.threads is None  # the synthetic launches have no launch configuration


def hodges_lehmann(base: list[float], other: list[float]) -> float:
    """The median of the pairwise ratios other / base, taken on their logarithms (an even count: the geometric
    mean of the two middle ratios)."""
    return math.exp(statistics.median(math.log(b / a) for a in base for b in other))


def test_expected_speedup_is_the_ratio_of_attainable_performance_for_the_same_work():
    flops_n, dram = 4e9, 1e8  # FFMA count 2e9 -> 4 GFLOP; intensity 40 FLOP/byte
    old = model("old.json", [launch(0, "gemm", 5e-3, flops_n / 2, dram, OLD_GPU, sol=COMPUTE_BOUND)])
    new = model("new.json", [launch(0, "gemm", 1e-3, flops_n / 2, dram, NEW_GPU, sol=COMPUTE_BOUND)])
    pair = pair_reports([analyze_report(old), analyze_report(new)]).pairs[0]
    assert not pair.different_work(1) and pair.headline_unit(1) == "speedup"
    ai = flops_n / dram
    attainable = [min(peak_fp32(g), ai * peak_dram(g)) for g in (OLD_GPU, NEW_GPU)]  # 2e12, 1.2e13
    assert pair.sides[0].attainable_flop_per_s.value == pytest.approx(attainable[0], rel=REL)
    assert pair.sides[1].attainable_flop_per_s.value == pytest.approx(attainable[1], rel=REL)
    assert pair.expected_speedup[1].value == pytest.approx(attainable[1] / attainable[0], rel=REL)
    assert pair.speedup[1].value == pytest.approx(5.0, rel=REL)
    assert pair.kept_up[1].value == pytest.approx(5.0 / (attainable[1] / attainable[0]), rel=REL)
    pcts = [100 * flops_n / a / t for a, t in zip(attainable, (5e-3, 1e-3), strict=True)]
    assert [s.roof.pct_of_roof for s in pair.sides] == pytest.approx(pcts, rel=REL)
    assert pair.kept_up[1].value == pytest.approx(pcts[1] / pcts[0], rel=REL)
    assert pair.matched_by == "name" and pair.speedup[0].value == 1.0


def test_expected_speedup_compares_the_roof_times_of_the_governing_resource():
    """Both verdicts compute-bound (FP32 governs both), though the old GPU's DRAM roof is the farther one
    (5e8 B / 100 GB/s = 5 ms > 2e9 FLOP / 2 TFLOP/s = 1 ms): the roof that sets the time is the FP32 one, so the
    expectation is the ratio of the FP32 roof times, not of the farthest roofs (issue 33)."""
    old = model("old.json", [launch(0, "k", 2e-3, 1e9, 5e8, OLD_GPU, sol=COMPUTE_BOUND)])
    new = model("new.json", [launch(0, "k", 1e-3, 3e9, 2e8, NEW_GPU, sol=COMPUTE_BOUND)])
    pair = pair_reports([analyze_report(old), analyze_report(new)]).pairs[0]
    expected = (2e9 / peak_fp32(OLD_GPU)) / (6e9 / peak_fp32(NEW_GPU))
    assert roof_time(2e9, 5e8, OLD_GPU) == pytest.approx(5e-3)  # the farthest roof, which does not govern
    assert pair.expected_speedup[1].value == pytest.approx(expected, rel=REL)
    # 3x the FP32 FLOPs that bound both: different work, compared by FP32 FLOP/s: (6e9 / 1 ms) / (2e9 / 2 ms) = 6
    assert pair.different_work(1) and pair.headline_unit(1) == "FP32 FLOP/s"
    assert pair.headline(1).ratio == pytest.approx((6e9 / 1e-3) / (2e9 / 2e-3), rel=REL)
    assert work_summary(pair.work[1]) == "different work: FP32 FLOPs 3x (the resource that bounds both)"


def test_no_expectation_where_no_roof_governs_and_the_launch_overhead_share_instead():
    """A kernel without SpeedOfLight throughputs far below its roofs has no verdict; one whose units are all far
    from their peaks over a full GPU is latency bound: neither gets a ceiling-based expectation, the latency-bound
    one gets its launch-overhead share L / (L + d)."""
    small = (5.0, 3.0)
    old = model("old.json", [launch(0, "k", 2e-6, 1e3, 1e3, OLD_GPU, sol=small),
                             launch(1, "u", 1e-3, 1e6, 1e6, OLD_GPU)])
    new = model("new.json", [launch(0, "k", 1e-6, 1e3, 1e3, NEW_GPU, sol=small),
                             launch(1, "u", 1e-3, 1e6, 1e6, NEW_GPU)])
    pairs = {p.key: p for p in pair_reports([analyze_report(old), analyze_report(new)]).pairs}
    k, u = pairs["k"], pairs["u"]
    assert k.sides[0].verdict.bound == "latency"  # several waves: latency, not a small grid
    assert k.expected_speedup[1].value is None
    assert k.expected_speedup[1].reason == "no roofline expectation: launch or latency bound (A: latency, B: latency)"
    assert k.kept_up[1].value is None
    assert k.launch_overhead[0].value == pytest.approx(LAUNCH_OVERHEAD_S / (LAUNCH_OVERHEAD_S + 2e-6), rel=REL)
    assert k.launch_overhead[1].value == pytest.approx(LAUNCH_OVERHEAD_S / (LAUNCH_OVERHEAD_S + 1e-6), rel=REL)
    assert u.expected_speedup[1].value is None and u.expected_speedup[1].reason.startswith(
        "no roofline expectation: no verdict on A")
    assert u.launch_overhead[0].value is None


# --- Matching modes (synthetic) -------------------------------------------------------------------------
def test_regex_map_and_order_pair_kernels_renamed_across_architectures():
    a = analyze_report(names_model("a.json", [("ampere_sgemm_128x64_nn", ""), ("copy", "")]))
    b = analyze_report(names_model("b.json", [("sm90_xmma_gemm_128x64_f32", ""), ("copy", "")], NEW_GPU))
    by_regex = pair_reports([a, b], parse_matcher(r"regex:(\d+x\d+)"))
    assert {(p.key, p.matched_by) for p in by_regex.pairs} == {("128x64", r"regex:(\d+x\d+)"), ("copy", "name")}
    by_map = pair_reports([a, b], parse_matcher("name", ["ampere_sgemm_.*=sm90_xmma_.*"]))
    gemm = next(p for p in by_map.pairs if p.matched_by.startswith("map"))
    assert gemm.label == "ampere_sgemm_128x64_nn -> sm90_xmma_gemm_128x64_f32"
    assert gemm.speedup[1].value == pytest.approx(1e-3 / 1e-3, rel=REL)
    by_order = pair_reports([a, b], parse_matcher("order"))
    assert [(p.key, p.matched_by) for p in by_order.pairs] == [("#2", "order #2"), ("#1", "order #1")]
    by_name = pair_reports([a, b], Matcher())
    assert [p.key for p in by_name.pairs] == ["copy"]
    assert by_name.unmatched == (("ampere_sgemm_128x64_nn",), ("sm90_xmma_gemm_128x64_f32",))


def test_patterns_run_once_per_distinct_name_not_once_per_launch(monkeypatch):
    """A key depends on the names only: a report of many launches of few kernels runs the patterns once per kernel
    (a million launches had taken longer than the regex time limit with the default pattern)."""
    calls: list[str] = []
    mode_key = pairing._mode_key

    def counted(name: str, *rest: object) -> object:
        calls.append(name)
        return mode_key(name, *rest)

    monkeypatch.setattr(pairing, "_mode_key", counted)
    names = [("gemm", ""), ("copy", ""), ("gemm", ""), ("copy", ""), ("gemm", "")] * 4
    a = analyze_report(names_model("a.json", names))
    by_order = pair_reports([a, a], parse_matcher("order"))
    assert calls == ["gemm", "copy"] * 2  # once per name, in each of the two reports
    assert {p.key for p in by_order.pairs} == {"#1", "#2"}  # gemm first seen, then copy: the order keys as before


def test_family_matching_pairs_a_cublas_kernel_with_its_counterpart_on_another_architecture():
    """--match family: the A100's ampere_sgemm_128x64_nn and the H100's TF32 and FFMA SGEMM kernels share the key
    gemm/f32 (their launches summed on the H100 side); the FP16 GEMM and plain kernels pair by name or not at all."""
    hopper_tf32 = "sm90_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize128x128x32_warpgroupsize1x1x1_execute_kernel"
    hopper_ffma = "sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize64x128x8_stage3_warpsize1x4x1_ffma_aligna4_alignc4"
    hopper_f16 = "sm90_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_kernel"
    a = analyze_report(names_model("a100.json", [("ampere_sgemm_128x64_nn", ""), ("copy", "")]))
    b = analyze_report(names_model("h100.json", [(hopper_tf32, ""), (hopper_ffma, ""), (hopper_f16, ""),
                                                 ("copy", "")], NEW_GPU))
    c = pair_reports([a, b], parse_matcher("family"))
    assert {(p.key, p.matched_by) for p in c.pairs} == {("gemm/f32", "family"), ("copy", "family")}
    gemm = next(p for p in c.pairs if p.key == "gemm/f32")
    assert gemm.side(1).names == (hopper_tf32, hopper_ffma) and gemm.side(1).count == 2
    assert gemm.label == f"ampere_sgemm_128x64_nn -> {hopper_tf32} | {hopper_ffma}"
    assert gemm.speedup[1].value == pytest.approx(1 / hodges_lehmann([1e-3], [1e-3, 2e-3]), rel=REL)  # 1, 2 ms there
    assert c.unmatched == ((), ("gemm/f16",)) and c.matching == "family"


def test_demangled_matching_splits_template_instances_that_share_a_function_name():
    names = [("gemm", "void gemm<64>(float *)"), ("gemm", "void gemm<128>(float *)")]
    a, b = (analyze_report(names_model(p, names)) for p in ("a.json", "b.json"))
    assert [p.sides[0].count for p in pair_reports([a, b]).pairs] == [2]
    pairs = pair_reports([a, b], parse_matcher("demangled")).pairs
    assert sorted(p.key for p in pairs) == ["void gemm<128>(float *)", "void gemm<64>(float *)"]


@pytest.mark.parametrize("match, maps, fragment", [
    ("bogus", [], "unknown matching mode"),
    ("regex:(", [], "invalid regular expression"),
    ("name", ["a=b=c"], "needs 2"),
    ("name", ["=b"], "non-empty"),
])
def test_bad_matching_options_are_one_line_errors(match, maps, fragment):
    with pytest.raises(RooflineError, match=fragment) as err:
        parse_matcher(match, maps, 2)
    assert "\n" not in str(err.value)


# --- Real reports: the same kernel family on different GPUs ---------------------------------------------
def _durations(raw_actions, name: str, kernel: str) -> list[float]:
    return [a["gpu__time_duration.sum"] * 1e-9 for a in raw_actions(name) if a.name == kernel]


def test_basic_set_reports_still_give_times_and_speedups_and_say_what_is_missing(roofline_report, raw_actions):
    a10g, a100 = "a10g_sgemm-progression_basic", "a100-40gb_cublas-sgemm_basic"
    c = pair_reports([analyze_report(roofline_report(a10g)), analyze_report(roofline_report(a100))])
    pair = next(p for p in c.pairs if p.key == "ampere_sgemm_128x64_nn")
    times = [_durations(raw_actions, n, "ampere_sgemm_128x64_nn") for n in (a10g, a100)]
    assert [s.count for s in pair.sides] == [2, 11]
    assert pair.sides[0].per_launch_s.value == pytest.approx(statistics.mean(times[0]), rel=REL)
    assert pair.sides[1].per_launch_s.value == pytest.approx(statistics.mean(times[1]), rel=REL)
    assert pair.speedup[1].value == pytest.approx(1 / hodges_lehmann(*times), rel=1e-9)
    assert pair.change[1].untested.startswith("untested for noise: 2 and 11 launches cannot reach alpha 0.01")
    for side in pair.sides:  # no FLOP or byte counters: null with a reason, never 0
        assert side.flop_per_s["fp32"].value is None and "ffma" in side.flop_per_s["fp32"].reason
        assert side.roof.pct_of_roof is None and side.roof.reason
    assert pair.expected_speedup[1].value is None and pair.expected_speedup[1].reason
    assert set(c.unmatched[0]) == {"basic", "gmem_coalesce", "smem_blocking", "one_blocktiling", "two_blocktiling",
                                   "vectorized_blocktiling", "warptiling"}


def _yaml_spec(spec_id: str) -> dict:
    return yaml.safe_load((REPO / "device_specs" / f"{spec_id}.yaml").read_text())


def _raw_flops_fp32(raw) -> float:
    t = raw["gpu__time_duration.sum"] * 1e-9
    rate = sum(w * raw[f"smsp__sass_thread_inst_executed_op_{op}_pred_on.sum.per_cycle_elapsed"]
               for op, w in (("fadd", 1), ("fmul", 1), ("ffma", 2)))
    return rate * raw[SMSP_CLOCK] * t


def test_cross_gpu_pair_uses_each_gpus_own_datasheet_roof(roofline_report, raw_actions):
    """A10G two_blocktiling vs RTX 3080 cuBLAS SGEMM (mapped), each against its own spec (PyYAML values)."""
    names = ("a10g_sgemm-blocktiling_roofline", "rtx3080_sgemm-vs-cublas_full")
    kernels = ("two_blocktiling", "ampere_sgemm_128x64_nn")
    catalog = load_catalog()
    analyses = []
    for n in names:
        rep = roofline_report(n)
        analyses.append(analyze_report(rep, catalog.match(rep.device).spec, use="datasheet"))
    pair = pair_reports(analyses, parse_matcher("name", ["=".join(kernels)])).pairs[0]
    specs = [_yaml_spec(s) for s in ("a10g", "rtx-3080")]
    expected_roof = []
    for side, name, kernel, spec in zip(pair.sides, names, kernels, specs, strict=True):
        raw = next(a for a in raw_actions(name) if a.name == kernel)
        t = raw["gpu__time_duration.sum"] * 1e-9
        flops, dram = _raw_flops_fp32(raw), raw["dram__bytes.sum.per_second"] * t
        peak, bw = spec["peaks"]["fp32"]["value"], spec["memory"]["bandwidth_bytes_per_s"]["value"]
        assert side.ceilings.flop_per_s["fp32"] == peak and side.ceilings.bytes_per_s["dram"] == bw
        assert side.flop_per_s["fp32"].value == pytest.approx(flops / t, rel=1e-6)
        assert side.bytes_per_s["dram"].value == pytest.approx(dram / t, rel=1e-6)
        assert side.intensity["dram"].value == pytest.approx(flops / dram, rel=1e-6)
        roof_s = max(flops / peak, dram / bw)  # FP64/FP16/tensor work is 0 or unmeasured in these kernels
        assert side.roof.pct_of_roof == pytest.approx(100 * roof_s / t, rel=1e-6)
        assert side.attainable_flop_per_s.value == pytest.approx(min(peak, flops / dram * bw), rel=1e-6)
        assert side.roof_time_s.value == pytest.approx(roof_s, rel=1e-6)
        expected_roof.append((t, roof_s))
    (t_a, _), (t_b, _) = expected_roof
    assert pair.speedup[1].value == pytest.approx(t_a / t_b, rel=1e-9)
    # two_blocktiling fills 64 of the A10G's 80 SMs: a small grid, whose time no roof sets
    assert [s.verdict.bound for s in pair.sides] == ["small_grid", "balanced"]
    assert pair.expected_speedup[1].value is None and pair.kept_up[1].value is None
    assert pair.expected_speedup[1].reason == "no roofline expectation: launch or latency bound (A: small grid)"


def _dram_roof(raw) -> tuple[float, float]:
    """(time, DRAM roof time) of a launch without FP work: DRAM bytes / DRAM peak, both from raw metrics."""
    t = raw["gpu__time_duration.sum"] * 1e-9
    bw = raw["dram__bytes.sum.peak_sustained"] * raw["dram__cycles_elapsed.avg.per_second"]
    return t, raw["dram__bytes.sum.per_second"] * t / bw


def test_before_after_on_one_gpu_memory_bound_copy_and_transpose(roofline_report, raw_actions):
    """copyGmem (before) -> transposeSmem (after) on the RTX 4090: both memory bound, so the roofs give an
    expectation, the ratio of their DRAM roof times (raw DRAM bytes over the DRAM roof each launch is judged
    against: this report has no peak counters, so the datasheet's scaled to the measured DRAM clock)."""
    name = "rtx4090_smem-transpose_full"
    analysis = analyze_loaded(roofline_report(name))  # with its spec: the kernel-clock DRAM roof
    pairs = pair_reports([analysis, analysis], parse_matcher("name", ["copyGmem=transposeSmem"])).pairs
    pair = next(p for p in pairs if p.matched_by.startswith("map"))
    raws = {a.name: a for a in raw_actions(name)}
    times = []
    for side, kernel in zip(pair.sides, ("copyGmem", "transposeSmem"), strict=True):
        t = raws[kernel]["gpu__time_duration.sum"] * 1e-9
        times.append((t, raws[kernel]["dram__bytes.sum.per_second"] * t / side.ceilings.bytes_per_s["dram"]))
    (t_a, roof_a), (t_b, roof_b) = times
    assert [s.verdict.bound for s in pair.sides] == ["memory", "memory"]
    assert pair.expected_speedup[1].value == pytest.approx(roof_a / roof_b, rel=1e-6)
    assert pair.kept_up[1].value == pytest.approx((t_a / t_b) / (roof_a / roof_b), rel=1e-6)
    assert [v.value for v in pair.launch_overhead] == [None, None]  # a roof governs: no launch-overhead share


def test_before_after_on_one_gpu_reduction_variants(roofline_report, raw_actions):
    """reduceNeighbored (before) -> reduceShared (after) in one report, against the report's measured ceilings;
    reduceShared is latency bound, so the roofs expect nothing and its launch-overhead share is given."""
    name = "rtx3060-laptop_reductions_full"
    analysis = analyze_report(roofline_report(name))
    pair = pair_reports([analysis, analysis], parse_matcher("name", ["reduceNeighbored=reduceShared"])).pairs[0]
    raws = {a.name: a for a in raw_actions(name)}
    # integer kernels: DRAM is the only roof
    (t_a, roof_a), (t_b, roof_b) = (_dram_roof(raws[k]) for k in ("reduceNeighbored", "reduceShared"))
    assert pair.matched_by == "map reduceNeighbored=reduceShared"
    assert pair.speedup[1].value == pytest.approx(t_a / t_b, rel=REL)
    assert [s.verdict.bound for s in pair.sides] == ["compute", "latency"]
    assert pair.expected_speedup[1].value is None
    assert pair.expected_speedup[1].reason == "no roofline expectation: launch or latency bound (B: latency)"
    assert pair.launch_overhead[1].value == pytest.approx(LAUNCH_OVERHEAD_S / (LAUNCH_OVERHEAD_S + t_b), rel=REL)
    assert [s.roof.pct_of_roof for s in pair.sides] == pytest.approx([100 * roof_a / t_a, 100 * roof_b / t_b], rel=1e-6)
    assert pair.sides[0].flops["fp32"].value == 0.0  # measured zero, not missing
    assert pair.sides[0].attainable_flop_per_s.value is None


def test_a_match_regex_that_backtracks_for_ever_is_stopped_with_one_line():
    """Issue 15: --match/--map patterns run under the same 2 s limit as --kernel regex:."""
    hostile = analyze_report(names_model("a.json", [("a" * 64 + "!", "")]))
    with pytest.raises(RooflineError) as err:
        pair_reports([hostile, hostile], parse_matcher("regex:(a+)+$", (), 2))
    assert str(err.value).startswith("the --match/--map patterns on the names in a.json took longer than 2 s and "
                                     "was stopped: simplify the pattern")


def test_one_kernel_in_two_ncu_sets_is_the_same_work_under_one_fp16_definition():
    """examples/h100 triad-cupy in --set roofline and --set full (issue 33): the roofline set counts the one
    zero-product HFMA2 register move per element (2^26 elements, 4 FLOPs each) as FP16 FLOPs, the full set leaves it
    out; compared with the moves counted on both sides, the FLOPs match."""
    import roofline

    examples = REPO / "examples" / "h100"
    analyses = [analyze_loaded(roofline.load(examples / f"triad-cupy.{s}.ncu-rep")) for s in ("roofline", "full")]
    pair = pair_reports(analyses).pairs[0]
    check = pair.work[1]
    n = 2**26
    fp16 = next(m for m in check.measures if m.key == "flops.fp16")
    assert fp16.base == pytest.approx(4.0 * n, rel=1e-9) and fp16.other == 4.0 * n and not fp16.differs
    assert check.governing == ("bytes.dram", "bytes.dram") and check.basis == "flops"  # the same FLOPs now
    assert not check.different and pair.headline_unit(1) == "speedup"
    assert check.notes[0].kind is WorkNoteKind.FP16_MOVES_COUNTED


def test_a_dram_bound_kernel_on_two_gpus_is_judged_on_its_dram_bytes_and_timed():
    """examples/h100 and examples/h200, the ATen triad (a = b + s*c over 2^26 FP32 elements): DRAM-bound on both,
    the same FLOPs and the same DRAM bytes that bound both (12 bytes per element, less what stays dirty in L2 when
    the kernel ends: docs/accuracy.md), so the headline is the speedup of the launch times ncu measured
    (gpu__time_duration, one launch each)."""
    import roofline

    paths = [REPO / "examples" / gpu / "triad-torch.roofline.json" for gpu in ("h100", "h200")]
    reports = [roofline.load(p) for p in paths]
    pair = pair_reports([analyze_loaded(r) for r in reports]).pairs[0]
    check = pair.work[1]
    assert check.governing == ("bytes.dram", "bytes.dram") and check.basis == "flops" and not check.different
    dram = next(m for m in check.measures if m.key == "bytes.dram")
    for moved, report in zip((dram.base, dram.other), reports, strict=True):
        assert 12.0 * 2**26 - report.device.l2_cache_bytes <= moved <= 1.01 * 12.0 * 2**26
    times = [r.launches[0].value("gpu__time_duration.sum") for r in reports]
    assert pair.headline_unit(1) == "speedup"
    assert pair.headline(1).ratio == pytest.approx(times[0] / times[1], rel=1e-9)


def test_l2_bytes_of_two_definitions_are_not_compared(roofline_report):
    """The A10G roofline set (ncu 2023.2) gives L2 bytes as xbar2l1tex reads, the RTX 3080 full set all the L2 traffic
    the SMs requested (lts__t_sectors_srcunit_tex): two definitions, so the L2 ratio is not formed and the pair says
    why (issue 33: counts compared only under one definition)."""
    reports = [roofline_report(n) for n in ("a10g_sgemm-blocktiling_roofline", "rtx3080_sgemm-vs-cublas_full")]
    pair = pair_reports([analyze_loaded(r) for r in reports], parse_matcher("order")).pairs[0]
    l2 = next(m for m in pair.work[1].measures if m.key == "bytes.l2")
    assert l2.base is not None and l2.other is not None and l2.ratio is None and not l2.decides
    assert l2.apart == ("xbar2l1tex", "lts__t_sectors_srcunit_tex")
    assert WorkNote(WorkNoteKind.NOT_COMPARED, "bytes.l2", apart=l2.apart) in pair.work[1].notes


def test_l2_bytes_of_two_ncu_versions_under_one_definition_are_compared(roofline_report):
    """ncu 2025.1 (the H100 PCIe RMSNorm) and ncu 2023.2 (the RTX 3080) full sets both count all the L2 traffic the
    SMs requested (issue 45): one definition, so the ratio is formed."""
    reports = [roofline_report(n) for n in ("h100-pcie_rmsnorm-float4_full-roofline", "rtx3080_sgemm-vs-cublas_full")]
    pair = pair_reports([analyze_loaded(r) for r in reports], parse_matcher("order")).pairs[0]
    l2 = next(m for m in pair.work[1].measures if m.key == "bytes.l2")
    assert l2.apart == () and l2.ratio == pytest.approx(l2.other / l2.base)


def _unpaired(base_names: tuple[str, ...], new_names: tuple[str, ...]) -> pairing.Comparison:
    """Two reports that share no kernel, with these kernels left unmatched."""
    refs = tuple(pairing.ReportRef(label, f"{label}.ncu-rep", "GPU", "8.0", None, "kernel-clock", 1, 1e-3)
                 for label in ("base", "new"))
    return pairing.Comparison(refs, "name", (), (base_names, new_names))


def test_no_kernel_in_common_suggests_a_map_of_alike_names_only():
    """Names as alike as two versions of one kernel get a ready --map, and so does the one kernel of each report
    (a rename); among several, names with nothing alike (an SGEMM and a sort's kernels) get none, since pairing
    them would gate one kernel against another."""
    with pytest.raises(RooflineError) as alike:
        pairing.require_common(_unpaired(("gemm_v1", "copy"), ("gemm_v2", "scan")))
    assert "--map 'gemm_v1=gemm_v2'" in str(alike.value.hint)
    with pytest.raises(RooflineError) as renamed:
        pairing.require_common(_unpaired(("sgemm_naive",), ("sgemm_shared_mem_block",)))
    assert "--map 'sgemm_naive=sgemm_shared_mem_block'" in str(renamed.value.hint)
    with pytest.raises(RooflineError) as apart:
        pairing.require_common(_unpaired(("ampere_sgemm_128x64_nn", "copy"), ("kernelUniqueKeys", "scan")))
    assert "no names alike" in str(apart.value) and "--map '" not in str(apart.value.hint)


@pytest.mark.parametrize("used, offered", [("name", "family|order|regex:PATTERN"), ("family", "order|regex:PATTERN"),
                                          ("order", "family|regex:PATTERN"), ("regex:gemm.*", "family|order")])
def test_no_kernel_in_common_never_offers_the_matching_just_used(used, offered):
    from msgspec.structs import replace

    unpaired = replace(_unpaired(("sgemm_naive",), ("sort_pairs",)), matching=used)
    with pytest.raises(RooflineError) as err:
        pairing.require_common(unpaired)
    assert str(err.value.hint).endswith(f"or --match {offered}")


def test_two_reports_of_one_name_are_labelled_by_their_folders_and_one_given_twice_by_number():
    """compare examples/h100/triad-cupy.full.ncu-rep examples/h200/triad-cupy.full.ncu-rep read "triad-cupy.full#1
    -> triad-cupy.full#2", as if one file had been given twice."""
    from roofline.compare.pairing import path_labels

    assert path_labels(["examples/h100/triad.ncu-rep", "examples/h200/triad.ncu-rep", "gemm.json"]) == [
        "h100/triad", "h200/triad", "gemm"]
    assert path_labels(["runs/triad.ncu-rep", "runs/triad.ncu-rep"]) == ["triad#1", "triad#2"]
    assert path_labels(["a/runs/x.ncu-rep", "b/runs/x.ncu-rep"]) == ["x#1", "x#2"]  # their folders alike: numbered
    assert path_labels(["x.ncu-rep"]) == ["x"]
    assert path_labels(["lab/x.ncu-rep", "lab/x.json"]) == ["x.ncu-rep", "x.json"]  # one folder: the extensions
    assert path_labels(["x.ncu-rep", "./x.ncu-rep"]) == ["x#1", "x#2"]  # one file, two spellings


def test_a_map_pattern_that_matches_only_invalid_launches_says_so():
    """NEW's warptiling failed (its only launch invalid): '--map warptiling=warptiling' was refused as matching "no
    kernel", with a nearest name, while the name was right and the launches could not be compared."""
    from msgspec.structs import replace

    base = model("base.json", [launch(0, "warptiling", 1e-3, 1e9, 1e7, OLD_GPU),
                               launch(1, "other", 1e-3, 1e9, 1e7, OLD_GPU)])
    failed = replace(base.launches[0], metrics={}, invalid="not measured: ncu collected no counters for it")
    new = model("new.json", [failed, base.launches[1]])
    analyses = [analyze_report(base), analyze_report(new)]
    with pytest.raises(RooflineError, match=r"new.json: --map 'warptiling=warptiling': its pattern for this report "
                                            r"\(B\) matches only invalid launches \(warptiling, first 0:0: not "):
        pairing.require_maps_used(analyses, parse_matcher(maps=["warptiling=warptiling"]))
    with pytest.raises(RooflineError, match="matches no kernel; nearest kernel name: 'other'"):
        pairing.require_maps_used(analyses, parse_matcher(maps=["warptiling=othr"]))
