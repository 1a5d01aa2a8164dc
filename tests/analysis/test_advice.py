"""roofline.analysis.advice: each recommendation states its condition and is given only when it holds, names the
measured cause and its number, carries its estimated time saved, and the list is ranked by it; every renderer
(table, JSON, Markdown, HTML) shows the same list.

Synthetic launches on a GPU whose roofs are set here (FP32 = 2 x 6400 FFMA/clk x 1 GHz = 12.8 TFLOP/s, DRAM
= 1000 B/clk x 1 GHz = 1 TB/s), so the expected numbers in the texts are computed from those values; the real
cases of issue 16 (fill_vector, linspace, the A10G warptiling grid, cuBLAS/CUTLASS) are read from
../shared/ncu-reps.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import msgspec
import pytest

from roofline.analysis import advice, reconcile
from roofline.analysis.launches import ReportAnalysis
from roofline.analysis.results import Advice
from roofline.analysis.roofline import recoverable_s
from roofline.analysis.time_model import LAUNCH_FLOOR_S
from roofline.core.model import Device, FocusMetric, KernelLaunch, Report, RuleResult
from roofline.pipeline import analyze_files, analyze_loaded
from roofline.render.report import json as json_render
from roofline.render.report import markdown, table
from roofline.render.report.prose import estimate_of, estimate_text
from tests.views import views

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "h100-sxm_synthetic.roofline.json"
DEVICE = Device(name="NVIDIA Advice Test GPU", compute_capability="8.0", sm_count=100)
SM, MEMORY = ("sm__throughput.avg.pct_of_peak_sustained_elapsed",
              "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed")
REGISTER_ADVICE = re.compile(r"registers per thread|shared memory per block|block size \d+ ->")


def launch(index: int, name: str, seconds: float, flop_per_s: float, dram_per_s: float, rules=(),
           **extra: float) -> KernelLaunch:
    metrics = {
        "gpu__time_duration.sum": seconds * 1e9,
        "sm__cycles_elapsed.avg.per_second": 1e9, "dram__cycles_elapsed.avg.per_second": 1e9,
        "sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained": 6400,
        "dram__bytes.sum.peak_sustained": 1000,
        "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum": flop_per_s / 2 * seconds,
        "dram__bytes.sum": dram_per_s * seconds, **extra,
    }
    return KernelLaunch(range_index=0, action_index=index, name=name, metrics=metrics, rules=tuple(rules))


def analysed(*launches: KernelLaunch):
    report = Report("advice.json", DEVICE, launches, source="model", label="advice test")
    return analyze_loaded(report)


@pytest.fixture(scope="module")
def example():
    return analyze_files([EXAMPLE])[0]


_REAL: dict[str, ReportAnalysis] = {}


@pytest.fixture
def real(shared_report):
    """``real(report, key)``: one launch of a shared report, analysed as `roofline report` does."""
    def get(report: str, key: str):
        if report not in _REAL:
            _REAL[report] = analyze_files([shared_report(report)])[0]
        return next(k for k in _REAL[report].launches if k.launch.key == key)
    return get


# --- The verdict's own advice, with its condition and estimate ------------------------------------------------
def test_memory_bound_launch_with_reuse_is_told_to_cut_traffic_with_its_numbers():
    (k,) = analysed(launch(0, "stencil", 1e-3, 3e12, 0.9e12)).launches  # DRAM at 90%, FP32 at 23%, 3.33 FLOP/B
    (item,) = k.advice
    assert (item.kind, item.source, item.title) == ("memory", "verdict", "Cut DRAM traffic")
    assert item.cause == "DRAM roof at 90.0% of its peak"
    # FP64, FP16 and Tensor are not measured in these launches: the intensity of the FP32 FLOPs is a lower bound
    assert k.intensity_leaves_out == ("fp64", "fp16", "tensor")
    assert item.text.startswith("Cut DRAM traffic: 900 MB (DRAM roof at 90.0% of its peak), at least 3.33 "
                                "FLOP/byte.")
    assert "ridge point of 12.8 FLOP/byte" in item.text and "tiling" in item.text  # 12.8 TFLOP/s / 1 TB/s
    assert item.condition == "verdict memory (the FP/byte roofs alone): DRAM roof busiest at 90.0%"
    # the floor at the peaks it can reach is the DRAM roof's time, 900 MB at 1 TB/s: the estimate quotes it
    assert item.est_saved_s == pytest.approx(1e-3 * 0.1)
    assert "measured - the floor at the peaks a kernel can reach (dram roof, 900 us)" in item.estimate


def test_streaming_kernel_is_told_to_move_fewer_bytes_not_to_tile():
    """0.111 FLOP per DRAM byte (under STREAMING_MAX_INTENSITY): no reuse for tiling to exploit."""
    (k,) = analysed(launch(0, "stream", 1e-3, 0.1e12, 0.9e12)).launches  # DRAM at 90%, FP32 at 0.8%
    (item,) = k.advice
    assert item.title == "Move fewer bytes" and "900 MB" in item.text
    assert "nothing for tiling to keep on chip" in item.text and "fuse" in item.text
    assert "a streaming kernel (0.111 FLOP per DRAM byte" in item.condition  # 0.1e12 / 0.9e12
    assert item.est_saved_s == pytest.approx(1e-3 * 0.1)


def test_kind_is_decided_by_reuse_not_flop_per_byte():
    """The A100 SiLU case: 2.69 FLOP per DRAM byte, above a tenth of the ridge point (1.28 here), but each byte the
    kernel requests (its global L1 sectors x 32) comes from DRAM once: streaming, nothing for tiling. The same
    kernel whose requests the caches serve four times over reuses data and is told to tile."""
    dram = 0.9e12 * 1e-3
    once = {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum": dram / 2 / 32,
            "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum": dram / 2 / 32}
    (k,) = analysed(launch(0, "silu", 1e-3, 2.69 * 0.9e12, 0.9e12, **once)).launches
    (item,) = [a for a in k.advice if a.kind == "memory"]
    assert "nothing for tiling to keep on chip" in item.text
    assert "each byte requested comes from DRAM about once (1 requested bytes per DRAM byte)" in item.condition
    four = {name: 4 * v for name, v in once.items()}
    (k,) = analysed(launch(0, "stencil", 1e-3, 2.69 * 0.9e12, 0.9e12, **four)).launches
    (item,) = [a for a in k.advice if a.kind == "memory"]
    assert "tiling" in item.text and "nothing for tiling" not in item.text
    assert "4 requested bytes per DRAM byte" in item.condition


def test_compute_bound_launch_gets_the_headroom_left_in_its_busiest_unit():
    (k,) = analysed(launch(0, "fma", 1e-3, 9.6e12, 0.1e12)).launches  # FP32 at 75%
    (item,) = k.advice
    assert item.kind == "compute" and item.cause == "FP32 roof at 75.0% of its peak"
    assert "at most 1.33x is left there" in item.text  # 100 / 75
    assert item.est_saved_s == pytest.approx(0.25e-3)



@pytest.mark.parametrize("name,key", [("gtx1660super_sgemm-naive_full", "0:0"),
                                      ("a10g_sgemm-progression_basic", "0:1")])
def test_compute_headroom_is_taken_on_the_sms_with_the_most_blocks(real, raw_actions, name, key):
    """The GTX 1660 SUPER naive SGEMM and an A10G SGEMM step: the busiest unit (an LSU pipe, inside the SMs) works
    ceil(B / S) / (B / S) longer on the SMs with the most blocks than on average, so the speed-up left in it is
    100 / (its percent x that), as the time model's tail has it; recomputed from the raw counters."""
    k = real(name, key)
    raw = next(r for r in raw_actions(name) if f"{r.range_index}:{r.action_index}" == key)
    busiest = k.verdict.busiest
    assert busiest is not None and busiest.metric.startswith(("sm__", "smsp__", "l1tex__"))
    blocks, sms = raw["launch__grid_size"], raw["device__attribute_multiprocessor_count"]
    on_fullest = raw[busiest.metric] * math.ceil(blocks / sms) / (blocks / sms)
    (item,) = [a for a in k.advice if a.kind == "compute"]
    assert (f"({on_fullest:.1f}% on the SMs that run {math.ceil(blocks / sms)} of its {blocks:.0f} blocks, where the "
            f"average SM runs {blocks / sms:.3g})") in item.text
    assert f"so at most {100 / on_fullest:.3g}x is left there" in item.text
    assert f"{100 / raw[busiest.metric]:.3g}x" not in item.text  # the average SM's figure would claim more


def test_the_fullest_sms_figure_is_said_only_where_it_changes_what_is_written_and_stays_below_the_peak():
    """1,999,950 blocks on 100 SMs: 60.059% on average and on the fullest SMs both print 60.1%, so the figure is not
    said (it would change only the speed-up's last digit); 101 blocks on 100 SMs would put a 60% unit at 119% on
    the fullest SMs, which equal blocks cannot do: the average stands."""
    assert advice._headroom(60.059, 60.059 * 20000 / 19999.5, 1_999_950, 100) == ("", "at most 1.67x is left there")
    assert advice._headroom(60.0, 60.0 * 2 / 1.01, 101, 100) == ("", "at most 1.67x is left there")
    assert advice._headroom(60.0, 72.0, 100, 40) == (" (72.0% on the SMs that run 3 of its 100 blocks, where the "
                                                     "average SM runs 2.5)", "at most 1.39x is left there")
    assert advice._headroom(0.0, None, 100, 40) == ("", "it is idle")
    assert advice._headroom(100.0, None, None, None) == ("", "no speed-up is left there")

def test_a_launch_above_a_roof_is_first_told_to_re_profile():
    (k,) = analysed(launch(0, "fast", 1e-3, 16e12, 0.1e12)).launches  # FP32 at 125%
    assert [a.kind for a in k.advice] == ["measurement"]  # above the roof, the compute item has nothing to save
    assert k.advice[0].text == f"Re-profile before optimizing: {k.flags[0]}."
    assert k.advice[0].cause == k.flags[0]


def test_a_launch_as_short_as_the_launch_overhead_is_told_to_fuse():
    (k,) = analysed(launch(0, "tiny", 2e-6, 9.6e12, 0.1e12)).launches
    assert k.advice[-1].kind == "launch_overhead" and k.advice[-1].cause == "2 us per launch"
    assert k.advice[-1].est_saved_s is None and "host time" in k.advice[-1].estimate


def test_below_every_roof_without_throughputs_the_advice_is_to_collect_them():
    (k,) = analysed(launch(0, "slow", 1e-3, 1e12, 0.1e12)).launches  # FP32 7.8%, DRAM 10%: no verdict from them
    assert k.verdict.bound is None
    (item,) = k.advice
    assert item.title == "Collect the throughputs for a verdict" and "--section SpeedOfLight" in item.text
    assert item.cause == "closest FP/byte roof at 10.0%, no throughputs"


# --- Ranking ------------------------------------------------------------------------------------------------
def test_ranking_puts_measurement_first_then_the_largest_estimate_then_the_rest():
    def item(kind, saved):
        return Advice(kind=kind, title=kind, text=f"{kind} 1", cause="cause 1", source="roofline", est_saved_s=saved)

    ranked = reconcile.rank([item("waves", None), item("memory", 1e-6), item("measurement", None),
                          item("compute", 3e-6), item("occupancy", None)])
    assert [a.kind for a in ranked] == ["measurement", "compute", "memory", "waves", "occupancy"]


GLOBAL = RuleResult("CPIStall", "WarpStateStats", "Long Scoreboard Stalls", "Each warp waits 26.1 cycles on L1TEX.",
                    "optimization", (FocusMetric("smsp_average_long_scoreboard", 26.1),), 40.0, "global")
LOCAL = RuleResult("HighPipeUtilization", "ComputeWorkloadAnalysis", "Low Utilization",
                   "All compute pipelines are under-utilized.", "optimization",
                   (FocusMetric("max pipelines utilization", 13.6, 2, "13.559 < 20.00"),), 83.0, "local")
TINY = RuleResult("MemoryCacheAccessPattern", "MemoryWorkloadAnalysis_Tables", "L2 Load Access Pattern",
                  "Only 30.0 of 32 bytes used.", "optimization", (), 0.4, "global")
VAGUE = RuleResult("HighPipeUtilization", "ComputeWorkloadAnalysis", "", "All pipelines are under-utilized.",
                   "warning")
MISSING = RuleResult("MemoryL2Compression", "MemoryWorkloadAnalysis_Chart", "",
                     "The optional metric lts__average_gcomp_input_sector_success_rate.pct could not be found.",
                     "warning")
BOTTLENECK = RuleResult("SOLBottleneck", "SpeedOfLight", "Latency Issue", "Low throughput below 60.0%.", "warning")
LATENCY = {SM: 30.0, MEMORY: 20.0, "launch__waves_per_multiprocessor": 5.0}


def test_ncu_rules_become_advice_with_their_title_and_speedup_handled_by_type():
    (k,) = analysed(launch(0, "k", 1e-3, 1e12, 0.1e12, rules=(GLOBAL, LOCAL, TINY, VAGUE, MISSING, BOTTLENECK),
                           **LATENCY)).launches
    ncu = [a for a in k.advice if a.source == "ncu"]
    assert [a.title for a in ncu] == ["ncu: Long Scoreboard Stalls", "ncu: Low Utilization"]
    global_item, local_item = ncu
    assert global_item.est_saved_s == pytest.approx(0.4e-3)  # GLOBAL: 40% of the 1 ms kernel
    assert global_item.estimate.startswith("ncu's estimate: 40% of the kernel's time")
    # the launch has SpeedOfLight throughputs but no breakdowns: its time model sees the FP and byte roofs alone
    assert estimate_text(global_item) == "saves at most 400 us (slack; FP and byte roofs only)"
    # LOCAL: one unit's efficiency in isolation, not turned into kernel time; ranked after the estimated items
    assert local_item.est_saved_s is None and estimate_text(local_item) == "ncu local 83%"
    assert local_item.text.endswith("(max pipelines utilization = 13.6, ncu's mark < 20)")  # its number added
    estimated = [a for a in k.advice if a.est_saved_s is not None]
    assert k.advice.index(local_item) > max(k.advice.index(a) for a in estimated)
    assert [a.est_saved_s for a in estimated] == sorted((a.est_saved_s for a in estimated), reverse=True)


def test_real_rule_speedups_are_ordered_and_kept(real):
    """fill_vector: FP32 for the FP64 work (the FP64 pipe sets the floor) leads, then ncu's FP64 non-fused rule
    (global 40.8%); LOCAL estimates are never ranked as time."""
    k = real("rtx4070ti_pytorch-sim_full", "0:3")
    raw_rules = {r.rule for r in k.launch.rules if r.speedup_pct is not None}
    assert {"FPInstructions", "CPIStall", "IssueSlotUtilization"} <= raw_rules  # the reader keeps the speedups
    assert [a.title for a in k.advice[:2]] == ["Use FP32 where the accuracy allows", "ncu: FP64 Non-Fused Instructions"]
    assert k.advice[1].est_saved_s == pytest.approx(k.duration_s.value * 0.40754791473970265)
    saved = [a.est_saved_s for a in k.advice if a.est_saved_s is not None]
    assert saved == sorted(saved, reverse=True)
    assert all(a.est_saved_s is None for a in k.advice if a.estimate.startswith("ncu local"))


# --- Conditions: small grids, libraries, Tensor Cores -------------------------------------------------------
def test_under_one_wave_there_is_no_occupancy_what_if(real):
    """A10G warptiling: 64 blocks on 80 SMs (0.4 waves, ncu: Small Grid), registers 228 -> no what-if."""
    k = real("a10g_sgemm-blocktiling_roofline", "0:3")
    assert k.launch.name == "warptiling" and k.verdict.bound == "small_grid"
    assert k.occupancy.what_if  # a what-if exists, but it cannot help under one wave
    texts = " ".join(a.text for a in k.advice)
    assert not REGISTER_ADVICE.search(texts)
    grid = next(a for a in k.advice if a.kind == "small_grid")
    assert "the grid (64 blocks of 128 threads) fills 64 of 80 SMs: split the work over more blocks" in grid.text
    assert grid.condition.startswith("under one full wave (0.4 waves per SM)")
    assert grid.est_saved_s == pytest.approx(k.duration_s.value * (1 - 64 / 80))  # at most: 16 SMs left idle


@pytest.mark.parametrize("report, key, library", [("a100-40gb_cublas-sgemm_basic", "0:0", "cuBLAS"),
                                                  ("rtx3080_sgemm-vs-cublas_full", "0:1", "cuBLAS"),
                                                  ("a100-80gb_cutlass-gemm_full", "0:0", "CUTLASS")])
def test_library_kernels_get_caller_advice_never_register_counts(real, report, key, library):
    k = real(report, key)
    assert k.occupancy.limiters  # something does limit them (registers on ampere_sgemm) ...
    texts = " ".join(a.text for a in k.advice)
    assert not REGISTER_ADVICE.search(texts)  # ... but the caller cannot change it
    assert not any(a.source in ("occupancy", "ncu", "stalls") and a.kind != "small_grid" for a in k.advice)
    item = next(a for a in k.advice if a.kind == "library")
    assert item.title == f"Tune the {library} call" and "its code is the library's" in item.text
    assert re.search(r"problem shape|tile shape", item.text)
    # the data type: in the library item, or in the Tensor Core item that says which type gains (never both)
    tensor = [a for a in k.advice if a.kind == "tensor_cores"]
    assert bool(re.search(r"data type", item.text)) != bool(tensor)


def test_tensor_core_advice_needs_a_matrix_multiply(real):
    """linspace (pytorch-sim) is all FMAs but no matrix multiply; the cuBLAS SGEMM is one by name."""
    assert not any(a.kind == "tensor_cores" for a in real("rtx4070ti_pytorch-sim_full", "0:2").advice)
    sgemm = real("rtx3080_sgemm-vs-cublas_full", "0:1")
    assert any(a.kind == "tensor_cores" for a in sgemm.advice)


def test_latency_advice_names_what_the_warps_wait_on(real):
    """linspace: latency-bound; the largest stall reason and the change it suggests, estimated by its share."""
    k = real("rtx4070ti_pytorch-sim_full", "0:2")
    assert k.verdict.bound == "latency"
    stall = next(a for a in k.advice if a.source == "stalls")
    reason, value, share = k.stalls.reasons[0]
    assert reason in stall.text and f"{100 * share:.0f}% of the stalls" in stall.text
    assert stall.est_saved_s == pytest.approx(recoverable_s(k) * share)


def test_small_grid_advice_gives_the_launch_overhead_share(real):
    k = real("rtx2070super_alife-143launches_basic", "0:23")  # populate_grid_indices: 4 blocks, 4.74 us
    (item,) = [a for a in k.advice if a.topic == "grid:small"]
    share = advice.LAUNCH_OVERHEAD_S / (advice.LAUNCH_OVERHEAD_S + k.duration_s.value)
    assert f"is ~{100 * share:.0f}% of launch plus run time" in item.text
    assert "the grid (4 blocks of 256 threads) fills 4 of 40 SMs" in item.text
    assert "ncu LaunchConfiguration: Small Grid" in item.also  # ncu's rule cited on the item, not listed again
    assert not [a for a in k.advice if a.source == "ncu"]
    # an upper bound, labelled: the same work over all 40 SMs instead of 4, but never below the launch floor
    assert item.est_saved_s == pytest.approx(min(k.duration_s.value * (1 - 4 / 40),
                                                 k.duration_s.value - LAUNCH_FLOOR_S))
    assert item.est_saved_s == pytest.approx(k.duration_s.value - LAUNCH_FLOOR_S)  # 3.24 us: the floor decides
    assert item.capped and estimate_text(item).startswith("saves at most")


@pytest.mark.parametrize(("report", "key", "sms", "rules"), [
    # DeviceScanInitKernel: 1 block of 128 threads, CUB
    ("rtx4070ti_pytorch-sim_full", "0:6", 60, {"ncu LaunchConfiguration: Small Grid"}),
    # Thrust's DrainAgent: 1 block of 1 thread; ncu's Small Grid, Block Size and occupancy rules are its one point
    ("rtx2070super_alife-143launches_basic", "0:7", 40,
     {"ncu LaunchConfiguration: Small Grid", "ncu LaunchConfiguration: Block Size", "ncu TheoreticalOccupancy"}),
])
def test_a_library_kernel_on_a_small_grid_gets_one_item_on_its_call(real, report, key, sms, rules):
    k = real(report, key)
    (item,) = k.advice
    assert item.kind == "library" and item.title == "Tune the CUB/Thrust call"
    assert rules <= set(item.also)
    assert "(max pipelines" not in item.text and "threads per block to" not in item.text
    # the grid's estimate: the same work over every SM, never below the launch floor
    d = k.duration_s.value
    assert item.mechanism == "grid"
    assert item.est_saved_s == pytest.approx(min(d * (1 - 1 / sms), d - LAUNCH_FLOOR_S))


# --- Every renderer, the same list --------------------------------------------------------------------------
def test_every_item_names_its_cause_condition_and_a_number(example):
    for k in example.launches:
        assert k.advice, k.launch.name
        for item in k.advice:
            assert item.title and (item.cause or item.verdict_cause) and item.condition and item.estimate
            assert item.source in ("roofline", "verdict", "occupancy", "tensor_cores", "stalls", "library", "ncu")
            assert re.search(r"\d", item.text), item.text


def test_advised_kernels_are_those_with_the_most_time_to_gain(example):
    gains = [advice.time_to_gain(g) for g in advice.kernels_to_advise(example)]
    known = [g for g in gains if g is not None]
    assert known == sorted(known, reverse=True) and gains[:len(known)] == known
    assert len(gains) == len(example.groups)
    # one number per question: a kernel's time to gain is what its launches' first estimated items save
    firsts = [[next((a.est_saved_s for a in k.advice if a.est_saved_s is not None), None) for k in g.launches]
              for g in advice.kernels_to_advise(example)]
    assert gains == [pytest.approx(sum(s for s in f if s is not None)) if any(s is not None for s in f) else None
                     for f in firsts]


def test_table_json_and_markdown_show_the_same_list(example):
    def flat(text: str) -> str:
        return " ".join(text.split())

    doc = json.loads(json_render.render(views([example])))
    for k, kernel in zip(example.launches, doc["reports"][0]["kernels"], strict=True):
        assert [a["text"] for a in kernel["advice"]] == [a.text for a in k.advice]
        assert [a["est_saved_s"] for a in kernel["advice"]] == [a.est_saved_s for a in k.advice]
        assert all(a["condition"] and a["estimate"] for a in kernel["advice"])
    shown = [(g.longest, item) for g in advice.kernels_to_advise(example) for item in g.longest.advice]
    table_text = flat(table.render(views([example]), width=80).split("Advice (")[1].replace(" - ", " "))
    markdown_text = markdown.render(views([example]))
    for k, item in shown:
        in_table = flat(f"[{estimate_text(item)}] {item.text}") in table_text
        assert in_table == reconcile.worth_showing(item, k)  # the terminal leaves out items under 1% of the time
        assert f"- **{estimate_text(item)}**: {item.text}" in markdown_text


# --- Advice fitted to what the kernel is (issue 31) -----------------------------------------------------------
def test_real_elementwise_kernel_gets_no_tiling_advice(real, raw_actions):
    """T4 matrix_addition2D: DRAM-bound with well under 1 FLOP per DRAM byte (from the raw counters)."""
    k = real("t4_matrix-add-2d_full", "0:0")
    raw = raw_actions("t4_matrix-add-2d_full")[0]
    seconds = raw["gpu__time_duration.sum"] * 1e-9
    dram_bytes = raw["dram__bytes.sum.per_second"] * seconds
    fp32 = raw["smsp__sass_thread_inst_executed_op_fadd_pred_on.sum.per_cycle_elapsed"]  # matrix add: FADDs only
    assert fp32 > 0 and k.total_flops / dram_bytes < 1.0
    memory = next(a for a in k.advice if a.kind == "memory")
    assert memory.title == "Move fewer bytes" and "nothing for tiling" in memory.text
    assert not any("raise the intensity" in a.text.lower() for a in k.advice)
    assert not any(a.topic == "fp_fusion" for a in k.advice)  # ncu's FP32 fusion rule: no help when DRAM-bound


def test_register_limited_kernel_gets_the_closed_form_what_if(real, raw_actions):
    """V100 compute_tendencies_x_279: 64 registers, 128-thread blocks, 50% theoretical occupancy. Recomputed here
    from the device attributes: 64 regs x 32 threads = 2048 per warp; 65536 / 4 sub-partitions / 2048 = 8 warps per
    sub-partition = 32 warps = 8 blocks of 4 warps (50% of 64 warps); at 32 registers 16 blocks (100%)."""
    k = real("v100_miniweather-openacc_full", "0:2")
    raw = raw_actions("v100_miniweather-openacc_full")[2]
    regs, threads = raw["launch__registers_per_thread"], raw["launch__block_size"]
    per_sm, partitions = (raw["device__attribute_max_registers_per_multiprocessor"],
                          raw["device__attribute_num_schedulers_per_multiprocessor"])
    max_warps = raw["device__attribute_max_warps_per_multiprocessor"]
    warps = threads // 32

    def blocks(registers: int) -> int:
        return int(per_sm // partitions // (registers * 32) * partitions // warps)

    assert (regs, threads, blocks(64), blocks(32)) == (64, 128, 8, 16)
    item = next(a for a in k.advice if a.topic == "occupancy:theoretical")
    assert (f"registers per thread 64 -> 32 would allow {blocks(32)} blocks per SM instead of {blocks(64)}"
            in item.text)
    assert f"{100 * blocks(64) * warps / max_warps:.1f}% -> {100 * blocks(32) * warps / max_warps:.1f}%" in item.text
    # what more resident warps can do: hide latency down to the floor at the peaks a kernel can reach, a limit the
    # text names (the FP64 pipe in whole blocks per SM, the launch's largest term), not a saving of its own
    floor = k.time_model.reach_floor_term()
    assert floor is not None and floor.name == "FP64 pipe, in whole blocks per SM"
    assert "taking the kernel at most down to the floor at the peaks a kernel can reach (FP64 pipe, in whole " \
           "blocks per SM, " in item.text and "saves at most" not in item.text and item.mechanism == "latency"


def test_tiny_grid_of_one_thread_blocks_is_told_the_grid_not_the_block():
    """A one-block grid of blocks under a warp: the grid is the problem, and no "smaller blocks"."""
    (k,) = analysed(launch(0, "serial", 20e-6, 1e9, 1e9, **{"launch__waves_per_multiprocessor": 1 / 1600,
                                                           "launch__grid_size": 1, "launch__block_size": 1,
                                                           SM: 0.1, MEMORY: 0.2})).launches
    item = next(a for a in k.advice if a.kind == "small_grid")
    assert "the grid, not the block, is the problem" in item.text and "smaller blocks" not in item.text
    assert "31 of 32 lanes" in item.text
    assert item.est_saved_s == pytest.approx(min(20e-6 * (1 - 1 / DEVICE.sm_count), 20e-6 - LAUNCH_FLOOR_S))


def test_flops_not_measured_are_not_called_none():
    """FP32 and FP64 counted as 0, FP16 and Tensor not measured: never "does no floating-point math"."""
    (k,) = analysed(launch(0, "copy", 1e-3, 0.0, 0.9e12)).launches
    assert k.flops["fp16"].value is None and k.total_flops == 0
    assert not any("no floating-point" in a.text or "no counted" in a.text for a in k.advice)


def test_library_gemm_near_its_roof_is_offered_only_the_faster_type(shared_report):
    """The shipped H100 BF16 cuBLAS GEMM at 90.5% of its tensor roof: FP8 (1978.9 vs 989.4 TFLOP/s dense in the
    H100 SXM5 spec) is the one change left; no TF32 or FP16/BF16 suggestion."""
    from roofline.specs.catalog import load_catalog

    a = analyze_files([EXAMPLE.parent / "h100" / "torch-bf16.roofline.ncu-rep"])[0]
    (k,) = a.launches
    spec = next(s for s in load_catalog().specs if s.id == a.spec_id)
    ratio = spec.peaks["tensor_fp8"] / spec.peaks["tensor_bf16"]
    (item,) = k.advice
    assert item.title == "FP8 Tensor Cores, if the accuracy allows" and f"{ratio:.3g}x the BF16 peak" in item.text
    assert "TF32" not in item.text and "FP16/BF16" not in item.text
    util = k.roof.utilization_pct["tensor"]
    # the faster type's own estimate, but at most measured minus the changed kernel's floor: with the tensor pipe's
    # work gone, the next unit (L1, recomputed here from the raw breakdown) sets the floor
    from tests.analysis.test_reconcile import unit_times_from_raw
    from tests.conftest import raw_actions_at
    (raw,) = raw_actions_at(EXAMPLE.parent / "h100" / "torch-bf16.roofline.ncu-rep")
    rest = max(t for u, t in unit_times_from_raw(raw).items() if "tensor" not in u and "pipe_shared" not in u)
    own = k.duration_s.value * util / 100 * (1 - 1 / ratio)
    assert item.est_saved_s == pytest.approx(min(own, k.duration_s.value - rest), rel=1e-6)
    assert item.est_saved_s < own


def test_store_heavy_kernel_names_all_its_l2_traffic():
    """A kernel that only stores: the L2 definition counting L2 -> L1 reads gives 0 B, all L2 traffic (32 B x
    lts__t_sectors) is 8 GB; the busiest unit is the SM -> L2 crossbar."""
    xbar = "lts__xbar2lts_cycles_active.avg.pct_of_peak_sustained_elapsed"
    (k,) = analysed(launch(0, "store", 10e-3, 1e9, 0.5e12, **{
        SM: 20.0, MEMORY: 89.2, xbar: 89.2, "breakdown:" + MEMORY: xbar, "launch__waves_per_multiprocessor": 8.0,
        "l1tex__m_xbar2l1tex_read_bytes.sum": 0.0, "lts__t_sectors.sum": 8e9 / 32})).launches
    assert k.bytes["l2"].value == 0 and k.l2_total_bytes.value == 8e9
    item = next(a for a in k.advice if a.kind == "memory")
    assert "L2 traffic (8 GB, all L2 traffic, loads and stores)" in item.text
    assert "(0 B)" not in item.text


# --- The instruction roofline's advice ----------------------------------------------------------------------------
INTOPS = Path(__file__).resolve().parents[2] / "examples" / "h200" / "intops.full.ncu-rep"


def test_an_issue_bound_and_an_uncoalesced_kernel_are_told_so_with_their_numbers():
    """examples/h200/intops: hash_rounds issues 531 of 789 warp GIPS (67.3%); gather_strided's loads take 32
    sectors per warp instruction, and ncu's access-pattern rules on the same cause are cited, their estimate
    bounded by the share of the work they remove."""
    hash_rounds, gather = analyze_files([INTOPS])[0].launches
    (issue,) = [a for a in hash_rounds.advice if a.topic == "issue_bound"]
    assert issue.kind == "instructions" and issue.source == "instructions" and issue.est_saved_s is None
    assert issue.text.startswith("Issue-bound at 67.3% of the peak warp instruction rate (531 of 789 warp GIPS)")
    # the ALU pipe, not the issue slots, sets the floor: fewer instructions alone claim no saving
    assert hash_rounds.time_model.floor.metric.startswith("sm__pipe_alu")
    assert estimate_of(issue).startswith("saves nothing") and "ALU pipe" in estimate_of(issue)
    (coalesce,) = [a for a in gather.advice if reconcile.cause(a.topic) == "coalescing"]
    assert coalesce.title == "Coalesce global accesses" and "global loads 32 sectors" in coalesce.text
    assert "ncu UncoalescedGlobalAccess" in coalesce.also
    assert coalesce.est_saved_s is not None and coalesce.est_saved_s <= gather.duration_s.value
    assert not [a for a in gather.advice if a.topic == "issue_bound"]  # 9% of the issue peak


def full_set_names() -> list[str]:
    from tests.analysis.test_instructions import FULL_SETS

    return FULL_SETS


@pytest.mark.parametrize("name", full_set_names())
def test_instruction_advice_appears_exactly_where_the_raw_counters_call_for_it(real, raw_actions, name):
    """Recomputed from ncu_report's values: the uncoalesced item where a global operation moves more than 16
    sectors per L1 request (no word size coalesces to more), the issue-bound item at 60% of SMs x schedulers x IPC
    per scheduler x SM clock or more, the local-memory item where local loads and stores take a quarter or more of
    the global and local L1 sectors (the RTX 3080 SGEMM and the A40 Julia set); none for library kernels, whose
    code the caller cannot change."""
    if name == "no full-set report":
        pytest.skip("../shared/ncu-reps not found")
    from roofline.analysis.libraries import library

    for raw in raw_actions(name):
        k = real(name, f"{raw.range_index}:{raw.action_index}")
        if library((k.launch.name, k.launch.demangled_name)) is not None or not raw.has("smsp__inst_executed.sum"):
            continue
        sectors = [raw[f"l1tex__t_sectors_pipe_lsu_mem_global_op_{op}.sum"]
                   / raw[f"l1tex__t_requests_pipe_lsu_mem_global_op_{op}.sum"] for op in ("ld", "st")
                   if raw.value(f"l1tex__t_requests_pipe_lsu_mem_global_op_{op}.sum")]
        peak = (raw["device__attribute_multiprocessor_count"]
                * raw["device__attribute_num_schedulers_per_multiprocessor"]
                * raw["device__attribute_max_ipc_per_scheduler"]
                * (raw.value("sm__cycles_elapsed.avg.per_second") or raw["gpc__cycles_elapsed.avg.per_second"]))
        issue_pct = 100 * raw["smsp__inst_executed.sum"] / (raw["gpu__time_duration.sum"] * 1e-9) / peak
        topics = {a.topic for a in k.advice if a.source == "instructions"}
        where = f"{name} {k.launch.key}"
        assert ("coalescing:l1" in topics) == any(n > 16 for n in sectors), where
        assert ("issue_bound" in topics) == (issue_pct >= 60), where
        accesses = {(space, op): raw.value(f"l1tex__t_sectors_pipe_lsu_mem_{space}_op_{op}.sum")
                    for space in ("local", "global") for op in ("ld", "st")}
        local = sum(v or 0.0 for (space, _), v in accesses.items() if space == "local")
        every = sum(v or 0.0 for v in accesses.values())
        spilled = None not in accesses.values() and local > 0 and local >= 0.25 * every
        assert ("local_memory" in topics) == spilled, where
        if spilled:
            (item,) = [a for a in k.advice if a.topic == "local_memory"]
            assert item.excess_sectors == pytest.approx(local, rel=1e-9)
            assert item.est_saved_s is None or item.est_saved_s <= k.duration_s.value - LAUNCH_FLOOR_S


def _global_access(op: str, requests: float, per_request: float, **widths: float) -> dict[str, float]:
    """A launch's global ``op`` counters: warp instructions, sectors, and the warp instructions of each access width
    the SASS counted (``w8=...``: 8 bytes a thread)."""
    return {f"l1tex__t_requests_pipe_lsu_mem_global_op_{op}.sum": requests,
            f"l1tex__t_sectors_pipe_lsu_mem_global_op_{op}.sum": requests * per_request, "lts__t_sectors.sum": 1e8,
            **{f"roofline__sass_global_{op}_{w.removeprefix('w')}b_inst_executed": n for w, n in widths.items()}}


def _uncoalesced_item(**counts: float) -> Advice | None:
    (k,) = analysed(launch(0, "gather", 1e-3, 3e12, 0.9e12, **counts)).launches
    return next((a for a in k.advice if a.title == "Coalesce global accesses"), None)


def test_uncoalesced_8_byte_loads_count_their_excess_over_their_own_8_sectors():
    """Loads of 8-byte words (LDG.E.64) at 20 sectors per warp instruction: coalesced they take 32 x 8 / 32 = 8, so
    12 of the 20 are excess (12 million of 1 million instructions), not the 16 that 4-byte words' floor claims."""
    item = _uncoalesced_item(**_global_access("ld", 1e6, 20.0, w8=1e6))
    assert item is not None and item.excess_sectors == pytest.approx(12e6)
    assert "global loads 20 sectors per warp instruction, where its 8-byte words take 8 when coalesced" in item.text
    assert "no access widths" not in item.text and "mean" not in item.text


def test_coalesced_wide_words_are_not_told_to_coalesce():
    """32-byte words (LDG.E.256, CC 10.0 on) at 32 sectors per warp instruction are coalesced: above the 16 sectors
    of 16-byte words, but at their own floor, so no item."""
    assert _uncoalesced_item(**_global_access("ld", 1e6, 32.0, w32=1e6)) is None
    assert _uncoalesced_item(**_global_access("ld", 1e6, 32.0, w4=1e6)) is not None


def test_uncoalesced_item_without_widths_says_its_floor_and_counts_only_beyond_the_widest_words():
    """No per-opcode SASS counts: the floor is unknown (4 sectors for 4-byte words, 16 for 16-byte ones), so the
    excess counts only the sectors beyond 16 per warp instruction (24 - 16 = 8 million), and the text says so."""
    item = _uncoalesced_item(**_global_access("st", 1e6, 24.0))
    assert item is not None and item.excess_sectors == pytest.approx(8e6)
    assert "4-byte words take 4 when coalesced and 16-byte words 16" in item.text
    assert ("The report counts no access widths (no sass__inst_executed_per_opcode_with_modifier_all, --set full): "
            "the saving counts only the sectors beyond 16 per warp instruction") in item.text


def test_uncoalesced_item_of_mixed_widths_says_its_floor_is_a_mean():
    """300 x 4-byte and 100 x 16-byte loads (thousands of warp instructions) take 300 x 4 + 100 x 16 = 2800
    sectors coalesced, 7 per instruction on average; at 20 per instruction 13 x 400 thousand are excess. The text
    says 7 is a mean over the mix, with its counts, not one access size."""
    item = _uncoalesced_item(**_global_access("ld", 4e5, 20.0, w4=3e5, w16=1e5))
    assert item is not None and item.excess_sectors == pytest.approx(20 * 4e5 - 2800e3)
    assert ("its words take 7 on average when coalesced (a mean over a mix of widths, not one access size: warp "
            "instructions 300,000 of 4 bytes, 100,000 of 16 bytes a thread)") in item.text


def test_julias_16_byte_loads_are_credited_only_the_sectors_beyond_their_own_floor(real, raw_actions):
    """A40 Julia set, frame kernel 0:4: its loads take 16.1 sectors per warp instruction, nearly all 16-byte words
    (LDG.E.128). Counted here from every PC's SASS (tests/analysis/test_instructions.py) and the raw counters, the
    floor is 16 sectors per 16-byte and 4 per 4-byte instruction; the excess is 5,693,184 - (346,752 x 16 + 6,048 x
    4) = 120,960 sectors, 0.19% of the kernel's fewest sectors, where a 4-byte floor claimed 4,281,984 (6.9%)."""
    from tests.analysis.test_instructions import sass_widths
    from tests.analysis.test_reconcile import _fewest_sectors

    name = "a40_julia-fp16x2_full"
    k = real(name, "0:4")
    raw = next(a for a in raw_actions(name) if (a.range_index, a.action_index) == (0, 4))
    widths = sass_widths(name)[4][("global", "ld")]
    requests = raw["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"]
    sectors = raw["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"]
    assert sum(widths.values()) == requests and set(widths) == {4, 16}
    floor = sum(n * w for w, n in widths.items())  # 32 threads x w bytes / 32-byte sectors = w sectors
    (item,) = [a for a in k.advice if a.title == "Coalesce global accesses"]
    assert item.excess_sectors == pytest.approx(sectors - floor) and round(sectors - floor) == 120_960
    assert item.work_share == pytest.approx((sectors - floor) / _fewest_sectors(raw))
    assert item.work_share < 0.002 < 0.06 < (sectors - 4 * requests) / _fewest_sectors(raw)
    assert item.est_saved_s is not None and item.est_saved_s <= item.work_share * k.duration_s.value * (1 + 1e-9)
    mean = floor / requests
    assert f"its words take {mean:.3g} on average when coalesced (a mean over a mix of widths" in item.text
    assert f"{widths[16]:,.0f} of 16 bytes, {widths[4]:,.0f} of 4 bytes a thread" in item.text


# --- Advice about a stall or a memory pattern names the lines that hold it -------------------------------------
def _line_share(k, count) -> tuple[int, float]:
    """The line with the largest count over the launch's per-PC counters, and its share (computed here)."""
    by_line: dict[int, float] = {}
    for pc in k.launch.pc_sampling.pcs:
        by_line[pc.line] = by_line.get(pc.line, 0.0) + count(pc)
    line = max(by_line, key=lambda n: by_line[n])
    return line, by_line[line] / sum(by_line.values())


def test_stall_advice_names_the_line_holding_the_reason(real):
    k = real("v100_miniweather-openacc_full", "0:1")  # latency-bound halo update: long-scoreboard stalls
    item = next(a for a in k.advice if a.topic == "stall:long_scoreboard")
    line, share = _line_share(k, lambda pc: pc.stalls.get("long_scoreboard", 0))
    assert line == 423
    assert item.text.endswith(f"Where: miniWeather_mpi_openacc.F90 line {line} holds {share:.0%} of the "
                              "long_scoreboard samples.")


def test_coalescing_advice_names_the_line_with_the_excess_sectors(real):
    k = real("v100_miniweather-openacc_full", "0:4")
    item = next(a for a in k.advice if a.topic.startswith("coalescing"))
    line, share = _line_share(k, lambda pc: pc.memory.get(
        "derived__memory_l2_theoretical_sectors_global_excessive", 0.0))
    assert (line, share) == (257, 1.0)
    assert item.text.endswith("Where: miniWeather_mpi_openacc.F90 line 257 holds 100% of the excessive L2 sectors "
                              "of global accesses.")


def test_no_per_pc_samples_leaves_the_advice_unlocated(real):
    k = real("a10g_sgemm-progression_basic", "0:0")
    assert not any("Where:" in a.text for a in k.advice)


def test_the_strided_gather_advice_names_its_gather_line():
    """examples/intops on the H200 (-lineinfo): the uncoalesced gather's advice points at line 63,
    out[i] = in[j], the only line with excessive L2 sectors."""
    from tests.ncu.test_pc_sampling import INTOPS

    k = next(k for k in analyze_files([INTOPS])[0].launches if k.launch.name == "gather_strided")
    located = [a for a in k.advice if "Where:" in a.text]
    assert located and all(any(t.startswith(("coalescing", "stall:")) for t in (a.topic, *a.causes)) for a in located)
    coalescing = next(a for a in located if a.topic.startswith("coalescing"))
    assert coalescing.text.endswith("Where: intops.cu line 63 holds 100% of the excessive L2 sectors of global "
                                    "accesses.")


def test_a_stall_rule_merged_into_the_verdicts_item_still_names_its_line():
    """examples/h200/sgemm-lineinfo: the L1-bound SGEMM's roof item cites ncu's MIO-throttle stall rule; the line
    that holds those samples (line 45, the shared-memory loads of the inner product) is named in it."""
    sgemm = Path(__file__).resolve().parents[2] / "examples" / "h200" / "sgemm-lineinfo.full.ncu-rep"
    (k,) = analyze_files([sgemm])[0].launches
    (roof,) = [a for a in k.advice if a.topic == "roof"]
    assert "ncu CPIStall: Mio Throttle Stalls" in roof.also and "stall:mio_throttle" in roof.causes
    line, share = _line_share(k, lambda pc: pc.stalls.get("mio_throttle", 0))
    assert line == 45
    assert f"Where: sgemm.cu line 45 holds {share:.0%} of the mio_throttle samples." in roof.text


def test_fp64_on_a_geforce_is_said_with_its_rate(real, raw_actions):
    """RTX 4070 Ti fill_vector: more FP32 FLOPs than FP64 ones, but the FP64 pipe (DMUL and F2F conversions) is the
    busiest unit on a GPU with FP64 at 1/64 of FP32: said with the rate; at FP32's rate that work takes under the
    launch floor, so the item saves at most measured minus the launch floor (all computed here from raw metrics)."""
    from tests.analysis.test_reconcile import unit_times_from_raw

    k = real("rtx4070ti_pytorch-sim_full", "0:3")
    raw = raw_actions("rtx4070ti_pytorch-sim_full")[3]
    units = unit_times_from_raw(raw)
    fp64 = next(t for u, t in units.items() if u.startswith("sm__pipe_fp64"))
    assert fp64 == max(units.values())
    (item,) = [a for a in k.advice if a.topic == "precision:fp64"]
    assert item.text.startswith("FP64 runs at 1/64 of the FP32 rate on this GPU")
    assert "its FP64 pipe is the busiest unit, 67.5% of its peak" in item.text
    rest = max([t for u, t in units.items() if not u.startswith("sm__pipe_fp64")] + [fp64 / 64, LAUNCH_FLOOR_S])
    duration = raw["gpu__time_duration.sum"] * 1e-9
    assert rest == LAUNCH_FLOOR_S and item.est_saved_s == pytest.approx(duration - rest, rel=1e-6)
    # one point: relieving the FP64 pipe (the verdict's item) is this item, with ncu's pipe rules cited on it
    assert not [a for a in k.advice if a.topic == "roof"]
    assert {"ncu HighPipeUtilization: Very High Utilization", "ncu IssueSlotUtilization"} <= set(item.also)


def test_occupancy_what_if_without_device_attributes_uses_the_compute_capability(roofline_report, raw_actions):
    """The V100 jacobi case (an older report without some device attributes): the what-if is still made, from
    launch__block_size and the limits of compute capability 7.0 (64 warps, 32 blocks, 64K registers per SM). The
    V100 miniweather report with its device attributes removed gives the what-if it gives with them."""
    from msgspec.structs import replace as with_

    from roofline.analysis.diagnostics.occupancy import FROM_CC

    report = roofline_report("v100_miniweather-openacc_full")
    bare = with_(report, device=with_(report.device, attributes={}))
    k = next(x for x in analyze_loaded(bare).launches if x.launch.key == "0:2")
    assert report.device.compute_capability == "7.0" and k.occupancy.missing["device_attributes"] == FROM_CC
    item = next(a for a in k.advice if a.topic == "occupancy:theoretical")
    assert "registers per thread 64 -> 32 would allow 16 blocks per SM instead of 8" in item.text
    assert "50.0% -> 100.0%" in item.text


def test_a_small_grid_kernel_is_advised_by_the_time_its_idle_sms_could_save() -> None:
    """op38: a 35.6 ms cuDNN kernel of 110 blocks on 132 SMs has 0 recoverable time (no unit's peak holds it back),
    but its grid item estimates that spreading it over every SM saves duration x (1 - 110/132): it is advised
    before the two layout transposes, whose recoverable times are 0.09 and 0.12 ms."""
    ops = Path(__file__).resolve().parents[2] / "examples" / "h100" / "ops"
    path = ops / "op38-conv-transposed-3d-square-input-asymmetric-kernel.json"
    (analysis,) = analyze_files([str(path)])
    first, *rest = advice.kernels_to_advise(analysis)
    longest = first.longest
    assert longest.verdict.bound == "small_grid" and first.recoverable_s == 0.0
    duration = longest.duration_s.value
    assert duration is not None and longest.grid_size == 110 and analysis.report.device.sm_count == 132
    expected = duration * (1 - 110 / 132)
    assert advice.time_to_gain(first) == pytest.approx(expected, rel=1e-9)
    assert all((g.recoverable_s or 0.0) < expected for g in rest) and len(rest) == 2


@pytest.mark.parametrize("name", ["h800_flash-attn-fwd_full", "gh200_silu_full-roofline",
                                  "rtx4090_torch-linear-sgemm_custom"])
def test_aten_items_suggest_bigger_launches_and_graphs_only_for_short_or_small_launches(name, shared_report):
    """PyTorch ATen elementwise kernels: fusing is the change for any; more elements per launch and a CUDA Graph
    only where a launch is short (under 5 us) or its grid under one wave (the H800's and GH200's 34-143 us
    launches of 1056 or more blocks are neither; the RTX 4090's 2.1 us one is)."""
    checked = 0
    for k in analyze_files([shared_report(name)])[0].launches:
        items = [a for a in k.advice if a.source == "library" and "PyTorch ATen" in a.text]
        if not items or k.duration_s.value is None:
            continue
        waves = k.verdict.waves_per_sm
        small = k.duration_s.value < advice.SHORT_LAUNCH_S or (waves is not None and waves < 1.0)
        assert "fuse the chain of elementwise operations" in items[0].text
        assert ("CUDA Graph" in items[0].text) == small, k.launch.key
        checked += 1
    assert checked


@pytest.mark.parametrize("spec_id, dtype, named", [
    ("a100-sxm4-80gb", "fp16", None),  # no FP8 Tensor Cores on an A100: no faster type to name
    ("a100-sxm4-80gb", "tf32", "FP16/BF16"),
    ("h100-sxm5", "bf16", "FP8"),
    ("rtx-4090", "fp16", "FP8"),
])
def test_a_busy_tensor_pipe_is_told_only_the_faster_tensor_types_its_gpu_has(spec_id, dtype, named):
    """The datasheet's dense Tensor Core peaks decide which types are faster than the launch's: FP8 is named only
    where the GPU has FP8 Tensor Cores, and where none is faster, fewer matrix operations are the change."""

    from roofline.specs.catalog import load_catalog

    (k,) = analysed(launch(0, "mma", 1e-3, 9.6e12, 0.1e12)).launches
    ceilings = {name: msgspec.structs.replace(c, tensor_dtype=dtype) for name, c in k.ceilings.items()}
    k = msgspec.structs.replace(k, ceilings=ceilings)
    change = advice._tensor_change(k, load_catalog().get(spec_id))
    if named is None:
        assert change.startswith("fewer matrix operations (no faster dense Tensor Core type")
    else:
        assert change.startswith(f"a faster Tensor Core data type ({named}, ")
    assert advice._tensor_change(k, None).startswith("a faster Tensor Core data type, where this GPU has one")


def test_a_cublas_fp32_gemm_at_its_peak_is_told_tf32_and_given_no_latency_slack_as_its_saving(shared_report,
                                                                                               raw_actions):
    """A100 cuBLAS SGEMM (basic set), FMA pipe at 97% of its peak: the call's problem shape lets cuBLAS pick Tensor
    Core kernels for FP32 data only with TF32 enabled, which the item says; the time left to the busiest unit's peak
    (duration x (1 - the FMA pipe in whole blocks per SM), ~294 us from the raw counters) is latency slack that a new
    problem shape does not take, so it is not the item's saving (the Tensor Core item sizes the gain)."""
    from roofline.core.units import seconds

    name, kernel = "a100-40gb_cublas-sgemm_basic", "ampere_sgemm_128x64_nn"
    raws = [r for r in raw_actions(name) if r.name == kernel]
    raw = max(raws, key=lambda r: r["gpu__time_duration.sum"])
    duration = raw["gpu__time_duration.sum"] * 1e-9
    blocks, sms = raw["launch__grid_size"], raw["device__attribute_multiprocessor_count"]
    fma = raw["sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_elapsed"]
    slack = duration * (1 - fma / 100 * math.ceil(blocks / sms) / (blocks / sms))
    assert slack == pytest.approx(294e-6, rel=0.02)
    k = next(k for k in analyze_files([shared_report(name)])[0].launches
             if k.launch.name == kernel and k.duration_s.value == pytest.approx(duration))
    (lib,) = [a for a in k.advice if a.kind == "library"]
    assert "for FP32 data only with TF32 enabled" in lib.text and "allow_tf32" in lib.text
    assert "CUBLAS_TF32_TENSOR_OP_MATH" in lib.text
    assert lib.est_saved_s is None
    assert f"its {seconds(slack)} to the busiest unit's peak is latency slack" in estimate_of(lib)
    (tensor,) = [a for a in k.advice if a.kind == "tensor_cores"]
    assert tensor.est_saved_s is not None and tensor.est_saved_s > slack


def test_a_stall_item_of_a_small_grid_says_why_it_is_not_estimated_in_one_phrase(shared_report, raw_actions):
    """V100 miniWeather 0:0 (256 blocks on 80 SMs at 0.267 waves per SM, raw): a small grid has no gap to its busiest
    unit's peak, so its long-scoreboard item is not estimated, and says so plainly, not as "78% (its share of the
    stalls) of the not estimated: ..."; a stall item with a gap is its share of that gap."""
    name = "v100_miniweather-openacc_full"
    raw = raw_actions(name)[0]
    assert raw["launch__waves_per_multiprocessor"] < 1
    launches = analyze_files([shared_report(name)])[0].launches
    (item,) = [a for a in launches[0].advice if a.topic == "stall:long_scoreboard"]
    assert item.est_saved_s is None
    assert item.estimate == "not estimated: a small grid is held back by its few blocks, not by a unit's peak"
    for k in launches:
        for a in k.advice:
            if a.kind == "stalls" and a.estimate:
                assert a.estimate.startswith("not estimated: ") or re.match(
                    r"\d+% \(its share of the stalls\) of the gap to the busiest unit's peak", a.estimate), a.estimate


def test_a_tensor_core_item_without_a_roof_ratio_stays_unsized_and_says_so_plainly(shared_report):
    """A100 cuBLAS SGEMM (basic set) with no YAML spec (peaks derived from the device attributes give no Tensor
    figure) and no FLOPs counted: no ratio tells how fast the math would run on Tensor Cores, so no what-if takes
    it as free (no change on the time model, no saving); the estimate says what is missing in one plain phrase, and
    the text names the option that would size it."""
    from roofline.render.report.prose import advice_text
    from roofline.specs.catalog import SpecCatalog

    k = analyze_files([shared_report("a100-40gb_cublas-sgemm_basic")], catalog=SpecCatalog([]))[0].launches[3]
    (item,) = [a for a in k.advice if a.topic == "tensor_cores"]
    assert item.work_share is None and item.change is None and item.est_saved_s is None
    assert item.estimate == "not estimated: the ratio of a Tensor Core roof to the kernel's roof is not known"
    assert advice_text(item).endswith("Re-profile with --set full to size the gain.")


# --- Every saving held to the floor at the achievable peaks (the occupancy item, the estimate strings) ---------------
def test_the_occupancy_item_and_the_verdicts_estimate_name_the_floor_at_the_achievable_peaks(real):
    """V100 miniWeather 0:4 semi_discrete_step_232 (5.62 ms, DRAM at 74.4%): the occupancy item said "saves at most
    1.44 ms (the gap to the busiest unit's peak)", 5.62 x (1 - 0.744) at the raw DRAM peak, above the 972 us that
    the verdict's item, the grade and the summary give (the floor at 0.90 of the DRAM bandwidth) and above "every
    item at once" (1.35 ms); the verdict's item quoted that raw gap as its estimate. The floor, recomputed here from
    the raw breakdown and the spec's achievable fraction (``test_grade.independent_floor``), is what both name now,
    and the occupancy item states no saving figure of its own."""
    from roofline.core.units import seconds
    from tests.analysis.test_grade import independent_floor, spec_of

    k = real("v100_miniweather-openacc_full", "0:4")
    a = _REAL["v100_miniweather-openacc_full"]
    floor = independent_floor(k, spec_of(a), a.device.sm_count)
    duration = k.duration_s.value
    assert duration - floor == pytest.approx(972e-6, rel=0.01)
    named = f"the floor at the peaks a kernel can reach (DRAM, {seconds(floor)}, at its achievable bandwidth)"
    items = {a.topic: a for a in k.advice}
    verdict, occupancy = items["roof"], items["occupancy:theoretical"]
    assert verdict.est_saved_s == pytest.approx(duration - floor, rel=1e-9) == recoverable_s(k)
    assert estimate_of(verdict) == f"recoverable time: measured - {named}"
    assert f"more resident warps hide latency, taking the kernel at most down to {named}." in occupancy.text
    assert "saves at most" not in occupancy.text and "1.44 ms" not in occupancy.text


def test_no_item_states_a_saving_above_every_item_at_once(shared_report):
    """Over the full-set reports and the shipped H100 reports: no item's saving, and no figure in an occupancy item's
    text, above what every item saves at once (RTX 4070 Ti linspace: its occupancy text said 1.99 us beside "every
    item at once: 1.95 us"); and no estimate quotes the gap to a unit's raw peak where the launch has a time
    model."""
    from roofline.render.report.prose import bound_of
    from tests.analysis.test_reconcile import FULL_SET

    checked = 0
    for path in [shared_report(n) for n in FULL_SET] + sorted((EXAMPLE.parent / "h100").glob("*.ncu-rep")):
        for k in analyze_files([path])[0].launches:
            for item in k.advice:
                if item.est_saved_s is not None and k.combined_saved_s is not None:
                    assert item.est_saved_s <= k.combined_saved_s * (1 + 1e-9), (path.name, k.launch.key, item.title)
                    checked += 1
                if item.topic.startswith("occupancy"):
                    assert "saves at most" not in item.text, (path.name, k.launch.key)
                if k.time_model is not None and not k.time_model.reason:
                    for words in (estimate_of(item), bound_of(item)):
                        assert "duration x (1 -" not in words, (path.name, k.launch.key, item.title, words)
    assert checked >= 30


# --- The kind of a memory-bound kernel: extra traffic is no streaming ------------------------------------------
def test_a_kernel_whose_dram_moves_far_more_than_it_requests_is_not_called_streaming(real, raw_actions):
    """A40 julia_frb_5885: its global loads and stores request 0.11 bytes per DRAM byte (raw L1 sectors x 32 over
    the DRAM bytes read and written), local memory holding 95% of its L1 sectors: DRAM moves 9x what they request,
    so its bytes are not "used about once" (it was called a streaming kernel, STREAMING_MAX_REUSE having no lower
    bound). Its memory item names the extra traffic with its factor and its cause (local memory), never "each byte
    is used about once"."""
    from roofline.core.thresholds import STREAMING_MIN_REUSE

    name = "a40_julia-fp16x2_full"
    k = next(x for x in _real_all(real, name) if x.launch.name == "julia_frb_5885")
    raw = next(r for r in raw_actions(name) if r.name == "julia_frb_5885")
    requested = 32 * sum(raw[f"l1tex__t_sectors_pipe_lsu_mem_global_op_{op}.sum"] for op in ("ld", "st"))
    reuse = requested / (raw["dram__bytes_read.sum"] + raw["dram__bytes_write.sum"])
    assert reuse < STREAMING_MIN_REUSE and f"{reuse:.2g}" == "0.11"
    (item,) = [a for a in k.advice if a.topic == "roof"]
    assert "about once" not in item.text and "streaming" not in item.condition
    assert f"DRAM moves {1 / reuse:.2g}x the bytes the global loads and stores request" in item.text
    assert "local memory" in item.text and "-Xptxas -v" in item.text
    assert f"an extra traffic kernel (DRAM moves {1 / reuse:.2g}x" in item.condition


def _real_all(real, report: str):
    """Every launch of a shared report, analysed as `roofline report` does (through ``real``'s cache)."""
    real(report, "0:0")
    return _REAL[report].launches


# --- BF16 only where the GPU has it -------------------------------------------------------------------------------
@pytest.mark.parametrize("report, key, narrow", [("v100_miniweather-openacc_full", "0:4", "FP16,"),  # CC 7.0
                                                 ("t4_matrix-add-2d_full", "0:0", "FP16,")])  # CC 7.5
def test_a_streaming_kernel_before_compute_capability_8_is_offered_fp16_not_bf16(report, key, narrow, real,
                                                                                raw_actions):
    """V100 and T4 (CC 7.0, 7.5): BF16 has no hardware before compute capability 8.0, so "narrower storage types such
    as FP16/BF16" names FP16 alone there."""
    k = real(report, key)
    assert raw_actions(report)[0]["device__attribute_compute_capability_major"] < 8
    (item,) = [a for a in k.advice if a.topic == "roof"]
    assert f"narrower storage types such as {narrow}" in item.text and "BF16" not in item.text


def test_narrow_types_follow_the_compute_capability():
    """FP16/BF16 from CC 8.0, FP16 before, and the condition said where the compute capability is not known."""
    assert advice.narrow_types(Device("a", compute_capability="8.0")) == "FP16/BF16"
    assert advice.narrow_types(Device("b", compute_capability="7.5")) == "FP16"
    assert advice.narrow_types(Device("c")) == "FP16 (or BF16 from compute capability 8.0)"
    assert advice.narrow_types(None) == "FP16 (or BF16 from compute capability 8.0)"


def test_a_cublas_call_on_a_gpu_without_tf32_is_told_fp16_inputs(shared_report):
    """The library item's FP32 clause on a GPU whose Tensor Cores take no TF32 (a T4, CC 7.5: FP16 HMMA only, no
    BF16 either) names FP16 inputs; on an A100 (the test above) TF32."""
    from roofline.analysis.libraries import library

    (k,) = analysed(launch(0, "ampere_sgemm_128x64_nn", 1e-3, 3e12, 0.1e12)).launches
    lib = library(("volta_sgemm_128x64_nn",))
    t4 = Device("Tesla T4", compute_capability="7.5", sm_count=40)
    said = advice._fp32_data(k, lib, None, t4)
    assert said == ("; for FP32 data, Tensor Core kernels only with FP16 inputs, if the accuracy allows (this GPU's "
                    "Tensor Cores take no TF32)")


@pytest.mark.parametrize("name", ["gh200_silu_full-roofline", "a40_julia-fp16x2_full"])
def test_items_estimated_at_zero_combine_to_zero_saved_with_the_floor_they_leave(name, shared_report):
    """A launch whose only estimate is 0 ("saves nothing: latency hidden, the kernel at its floor ..."): every item
    at once saves 0, with the floor those items leave, not null with "no advice item with an estimated saving"
    (the item is estimated). GH200 SiLU 0:1: "Move fewer bytes" at 0, its floor the launch's own DRAM time (153 us,
    measured to the bandwidth it reached), so the combined floor is its measured time."""
    a = analyze_files([shared_report(name)])[0]
    zero = [k for k in a.launches if k.duration_s.value is not None
            and any(x.kind != "measurement" and x.est_saved_s is not None for x in k.advice)
            and not any(x.kind != "measurement" and x.est_saved_s for x in k.advice)]
    assert zero
    for k in zero:
        assert k.combined_saved_s == 0.0 and k.combined_floor_s is not None, k.launch.key
        assert LAUNCH_FLOOR_S <= k.combined_floor_s <= k.duration_s.value * (1 + 1e-12), k.launch.key
    doc = json.loads(json_render.render(views([a])))["reports"][0]
    keys = {k.launch.key for k in zero}
    for k, launch in zip(doc["kernels"], a.launches, strict=True):
        if launch.launch.key in keys:
            assert k["combined_saved_s"] == 0.0 and "combined_saved_s" not in k["missing"]
    if name.startswith("gh200"):
        silu = next(k for k in zero if k.launch.key == "0:1")
        assert [x.title for x in silu.advice if x.est_saved_s is not None] == ["Move fewer bytes"]
        assert silu.combined_floor_s == pytest.approx(silu.duration_s.value, rel=1e-9)
