"""Formulas checked against values computed here, independently, from the raw metric values of real reports.

The raw values are read with NVIDIA's ``ncu_report`` directly (the ``raw_actions`` fixture), never through
roofline's reader; every expected value below is written out from the metric definitions in
shared/docs/ncu-roofline-metrics.md (sections 1-3):

* duration            = gpu__time_duration.sum [ns] x 1e-9, cross-checked with sm__cycles_elapsed.avg / its per_second
* FLOPs (CUDA cores)  = (add + mul + 2 fma) thread instructions; FP16 = 2 hadd + 2 hmul + 4 hfma (half2, ncu 2025),
                        hfma less the zero-product HFMA2 register moves where the report counts them per instruction;
                        stock sections store X.sum.per_cycle_elapsed, so count = rate x smsp clock x duration
* DRAM bytes          = dram__bytes.sum.per_second x duration, cross-checked with dram__bytes_read.sum + _write.sum
* L2 bytes            = 32 x lts__t_sectors_srcunit_tex.sum (all the SMs' L2 traffic: loads, stores, atomics; every
                        full set), else 32 x lts__lts2xbar_cycles_active (ncu 2025) or l1tex__m_xbar2l1tex_read_bytes
* L1 bytes            = 32 x l1tex__t_sectors_pipe_lsu_mem_global_op_{ld,st,atom,red} + _local_op_{ld,st} (all L1
                        traffic; every full set), else 128 x l1tex__lsu_writeback_active[_mem_lg | _mem_lgds] (by CC)
* ceilings            = X.sum.peak_sustained x the unit's measured clock (2 x ffma/dfma, 4 x hfma, dense tensor op)
* percent of roof     = max over roofs of achieved rate / roof (time-based)
* verdict inputs      = sm__throughput / gpu__compute_memory_throughput .avg.pct_of_peak_sustained_elapsed, waves
                        (the verdict itself is checked against ncu's own SOLBottleneck results in test_verdict.py)
"""

from __future__ import annotations

import math
import statistics

import pytest

from roofline.analysis.roofline import analyze_report, recoverable_s
from roofline.core.kernel_names import kernel_key
from roofline.core.model import KernelLaunch
from roofline.ncu import metrics as m
from tests.conftest import SHARED_REPORTS, raw_whole_blocks_pct
from tests.ncu.test_hfma_moves import raw_report

REL = 1e-9  # same arithmetic on the same doubles: only rounding differs

V100 = "v100_miniweather-openacc_full"
A10G = "a10g_sgemm-blocktiling_roofline"
RTX3080 = "rtx3080_sgemm-vs-cublas_full"
A100_80 = "a100-80gb_cutlass-gemm_full"
RTX4070TI = "rtx4070ti_pytorch-sim_full"
RTX4090 = "rtx4090_smem-transpose_full"
H100 = "h100-pcie_rmsnorm-float4_full-roofline"
GH200 = "gh200_silu_full-roofline"
H800 = "h800_flash-attn-fwd_full"
A10G_BASIC = "a10g_sgemm-progression_basic"
RTX2080TI_BASIC = "rtx2080ti_kernels_basic"
NCU2020 = "a100-40gb_tree-search_full_ncu2020.3"
NCU2020_RTX3070 = "rtx3070_scan_full_ncu2020.3"
T4 = "t4_matrix-add-2d_full"

# Reports whose every launch is recomputed from scratch below (Volta, Ampere, Ada, Hopper, ncu 2020.3).
RECOMPUTED = (V100, A10G, RTX3080, A100_80, RTX4070TI, H100, GH200, NCU2020, NCU2020_RTX3070, T4)

SMSP_CLOCK = "smsp__cycles_elapsed.avg.per_second"
SOL_SM = "sm__throughput.avg.pct_of_peak_sustained_elapsed"
SOL_MEMORY = "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"
SM_CLOCK = "sm__cycles_elapsed.avg.per_second"
DRAM_CLOCK = "dram__cycles_elapsed.avg.per_second"
LTS_CLOCK = "lts__cycles_elapsed.avg.per_second"
L1_CLOCK = "l1tex__cycles_elapsed.avg.per_second"


def inst(op: str, unit: str = "smsp") -> str:
    return f"{unit}__sass_thread_inst_executed_op_{op}_pred_on"


# --- The independent calculator (definitions only; no roofline code) ----------------------------------------
def duration(raw) -> float:
    return raw["gpu__time_duration.sum"] * 1e-9  # ns -> s


def rate_count(raw, op: str) -> float | None:
    """Thread instructions of one op: X.sum.per_cycle_elapsed x smsp clock x duration (None if not in report)."""
    name = f"{inst(op)}.sum.per_cycle_elapsed"
    if not raw.has(name):
        return None
    return raw[name] * raw[SMSP_CLOCK] * duration(raw)


def flops(raw, precision: str, moves: float | None = None) -> float | None:
    """add + mul + 2 fma (FP64, FP32); 2 hadd + 2 hmul + 4 hfma (FP16), hfma less the zero-product HFMA2 moves
    where they were counted (``moves``), to the nearest whole instruction and never below 0. The fma counter is
    required."""
    ops = {"fp64": ("dadd", "dmul", "dfma"), "fp32": ("fadd", "fmul", "ffma"), "fp16": ("hadd", "hmul", "hfma")}
    weights = (2.0, 2.0, 4.0) if precision == "fp16" else (1.0, 1.0, 2.0)
    counts = [rate_count(raw, op) for op in ops[precision]]
    if counts[2] is None:
        return None
    if moves is not None:
        counts[2] = max(0.0, round(counts[2] - moves))
    return sum(w * c for w, c in zip(weights, counts, strict=True) if c is not None)


def hfma2_moves(name: str) -> list[float | None]:
    """Thread executions of zero-product HFMA2 per launch, from the per-instruction counts and SASS text (None
    without them), counted independently of roofline in tests/ncu/test_hfma_moves.py."""
    return [raw.moves for raw in raw_report(SHARED_REPORTS / f"{name}.ncu-rep")]


def dram_bytes(raw) -> float | None:
    if not raw.has("dram__bytes.sum.per_second"):
        return None
    return raw["dram__bytes.sum.per_second"] * duration(raw)


L1_ALL = [f"l1tex__t_sectors_pipe_lsu_mem_global_op_{o}.sum" for o in ("ld", "st", "atom", "red")] + [
    f"l1tex__t_sectors_pipe_lsu_mem_local_op_{o}.sum" for o in ("ld", "st")]


def l2_bytes(raw) -> float | None:
    """All the SMs' L2 sectors x 32 B; without them ncu 2025: 32 B x L2->crossbar active cycles; ncu 2020-2024
    sections: L2->L1 read bytes."""
    if raw.has("lts__t_sectors_srcunit_tex.sum"):
        return 32 * raw["lts__t_sectors_srcunit_tex.sum"]
    if raw.has("lts__lts2xbar_cycles_active.sum.per_second"):
        return 32 * raw["lts__lts2xbar_cycles_active.sum.per_second"] * duration(raw)
    if raw.has("l1tex__m_xbar2l1tex_read_bytes.sum"):
        return raw["l1tex__m_xbar2l1tex_read_bytes.sum"]
    if raw.has("l1tex__m_xbar2l1tex_read_bytes.sum.per_second"):
        return raw["l1tex__m_xbar2l1tex_read_bytes.sum.per_second"] * duration(raw)
    return None


def writeback_counter(compute_capability: str) -> str:
    """LSU writeback counter per compute capability: _mem_lgds from 9.0, _mem_lg on 7.5-8.9, plain below."""
    cc = tuple(int(x) for x in compute_capability.split("."))
    if cc >= (9, 0):
        return "l1tex__lsu_writeback_active_mem_lgds"
    return "l1tex__lsu_writeback_active_mem_lg" if cc >= (7, 5) else "l1tex__lsu_writeback_active"


def l1_bytes(raw, counter: str) -> float | None:
    """32 B per global/local sector of every operation; without them 128 B per LSU writeback active cycle."""
    if all(raw.has(n) for n in L1_ALL):
        return 32 * sum(raw[n] for n in L1_ALL)
    if raw.has(f"{counter}.sum"):
        return 128 * raw[f"{counter}.sum"]
    if raw.has(f"{counter}.sum.per_second"):
        return 128 * raw[f"{counter}.sum.per_second"] * duration(raw)
    return None


def peak(raw, name: str, clock: str, factor: float = 1.0) -> float | None:
    if not (raw.has(f"{name}.sum.peak_sustained") and raw.has(clock)):
        return None
    return factor * raw[f"{name}.sum.peak_sustained"] * raw[clock]


def ceilings(raw, counter: str) -> dict[str, float | None]:
    return {
        "fp64": peak(raw, inst("dfma", "sm"), SM_CLOCK, 2),
        "fp32": peak(raw, inst("ffma", "sm"), SM_CLOCK, 2),
        "fp16": peak(raw, inst("hfma", "sm"), SM_CLOCK, 4),
        "dram": peak(raw, "dram__bytes", DRAM_CLOCK),
        "l2": (peak(raw, "lts__lts2xbar_cycles_active", LTS_CLOCK, 32)
               if raw.has("lts__lts2xbar_cycles_active.sum.per_second")
               else peak(raw, "l1tex__m_xbar2l1tex_read_bytes", LTS_CLOCK if raw.has(LTS_CLOCK) else L1_CLOCK)),
        "l1": peak(raw, counter, L1_CLOCK, 128),
    }


def pct_of_roof(amounts: dict[str, float | None], roofs: dict[str, float | None], seconds: float) -> float | None:
    util = [100 * amount / seconds / roof for k, amount in amounts.items()
            if amount is not None and (roof := roofs.get(k))]
    return max(util) if util else None


# --- Fixtures: each real report parsed once ----------------------------------------------------------------
@pytest.fixture(scope="module")
def case(raw_actions, roofline_report):
    """``case(name) -> (raw actions, ReportAnalysis with report ceilings)``, cached per module."""
    cache = {}

    def get(name):
        if name not in cache:
            cache[name] = (raw_actions(name), analyze_report(roofline_report(name)))
        return cache[name]

    return get


def approx(x):
    return pytest.approx(x, rel=REL, abs=0)


def test_a_count_read_from_a_rate_is_the_whole_number_of_its_rate_times_the_cycles(shared_report, raw_actions):
    """The RTX 4070 Ti's sets hold FP64 work as a rate per elapsed cycle only: rate x clock x duration gives
    767999.9999999999 DMUL; the count is the whole number it rounds to."""
    from roofline.ncu.reader import load_report

    name = "rtx4070ti_pytorch-sim_full"
    launch = next(k for k in load_report(shared_report(name)).launches if k.name == "fill_vector")
    raw = next(r for r in raw_actions(name) if r.name == "fill_vector")
    product = rate_count(raw, "dmul")
    assert product != round(product) and abs(product - round(product)) < 1e-6
    dmul = m.counter(launch, "sass_thread_inst_executed_op_dmul_pred_on", ("sm__", "smsp__"))
    assert dmul.value == round(product) and "per_cycle_elapsed" in dmul.via


# --- Every launch of the recomputed reports ----------------------------------------------------------------
@pytest.mark.parametrize("name", RECOMPUTED)
def test_every_quantity_matches_the_independent_formulas(case, name):
    raws, result = case(name)
    assert len(raws) == len(result.launches)
    counter = writeback_counter(result.device.compute_capability)
    for i, (raw, k) in enumerate(zip(raws, result.launches, strict=True)):
        where = f"{name} {raw.range_index}:{raw.action_index}"
        assert (k.launch.range_index, k.launch.action_index, k.launch.name) == (raw.range_index, raw.action_index,
                                                                                raw.name), where
        seconds = duration(raw)
        assert k.duration_s.value == approx(seconds), where
        expected = {p: flops(raw, p) for p in ("fp64", "fp32")}
        expected["fp16"] = flops(raw, "fp16", hfma2_moves(name)[i] if rate_count(raw, "hfma") is not None else None)
        expected.update(dram=dram_bytes(raw), l2=l2_bytes(raw), l1=l1_bytes(raw, counter))
        for p in ("fp64", "fp32", "fp16"):
            assert k.flops[p].value == (None if expected[p] is None else approx(expected[p])), f"{where} {p}"
            if expected[p] is not None:
                assert k.flop_per_s[p].value == approx(expected[p] / seconds), f"{where} {p}/s"
        for level in ("dram", "l2", "l1"):
            assert k.bytes[level].value == (None if expected[level] is None else approx(expected[level])), \
                f"{where} {level}"
            if expected[level] is not None:
                assert k.bytes_per_s[level].value == approx(expected[level] / seconds), f"{where} {level}/s"
        roofs = ceilings(raw, counter)
        got = k.ceilings["measured-clock"]
        for key, roof in roofs.items():
            value = got.flop_per_s[key] if key in got.flop_per_s else got.bytes_per_s[key]
            assert value == (None if roof is None else approx(roof)), f"{where} ceiling {key}"
            if roof is None:
                assert got.missing[key], f"{where}: null {key} ceiling without a reason"
        # intensity: all measured FLOPs (tensor included) per byte of each level; where the measured precisions
        # count none while another is not measured, not measured (the kernel may do its math in that one)
        total = sum(v.value for v in k.flops.values() if v.value is not None)
        known = [v.value for v in k.flops.values() if v.value is not None]
        unknown = [p for p, v in k.flops.items() if v.value is None]
        for level in ("dram", "l2", "l1"):
            if expected[level] and known and unknown and not any(known):
                assert k.intensity[level].value is None and "not measured" in k.intensity[level].reason, \
                    f"{where} AI {level}"
            elif expected[level]:
                assert k.intensity[level].value == approx(total / expected[level]), f"{where} AI {level}"
        amounts = {**{p: k.flops[p].value for p in ("fp64", "fp32", "fp16", "tensor")}, **expected}
        roofs["tensor"] = got.flop_per_s["tensor"]
        pct = pct_of_roof(amounts, roofs, seconds)
        assert k.roof.pct_of_roof == (None if pct is None else approx(pct)), where
        if pct is not None:
            limiter = max((key for key in amounts if amounts[key] is not None and roofs.get(key)),
                          key=lambda key: amounts[key] / roofs[key])
            assert k.roof.limiter == limiter, where
        if raw.has(SOL_SM) and raw.has(SOL_MEMORY):
            assert (k.verdict.sm_pct, k.verdict.memory_pct) == (raw[SOL_SM], raw[SOL_MEMORY]), where
            assert k.verdict.waves_per_sm == raw.value("launch__waves_per_multiprocessor"), where


# --- Volta ---------------------------------------------------------------------------------------------------
def test_v100_compute_tendencies(case):
    raws, result = case(V100)
    raw, k = raws[2], result.launches[2]
    assert raw.name == "compute_tendencies_x_279_gpu"
    t = raw["gpu__time_duration.sum"] * 1e-9
    clock = raw[SMSP_CLOCK]
    fp64 = (raw[f"{inst('dadd')}.sum.per_cycle_elapsed"] + raw[f"{inst('dmul')}.sum.per_cycle_elapsed"]
            + 2 * raw[f"{inst('dfma')}.sum.per_cycle_elapsed"]) * clock * t
    fp32 = (raw[f"{inst('fadd')}.sum.per_cycle_elapsed"] + raw[f"{inst('fmul')}.sum.per_cycle_elapsed"]
            + 2 * raw[f"{inst('ffma')}.sum.per_cycle_elapsed"]) * clock * t
    assert k.flops["fp64"].value == approx(fp64)
    assert k.flops["fp32"].value == approx(fp32)
    # ncu's own derived value: 2 x dfma per cycle (the chart's "_x2" term) gives the FMA part
    assert 2 * raw[f"{inst('dfma')}.sum.per_cycle_elapsed"] == pytest.approx(
        raw["derived__smsp__sass_thread_inst_executed_op_dfma_pred_on_x2"], rel=1e-12)
    dram = raw["dram__bytes.sum.per_second"] * t
    assert k.bytes["dram"].value == approx(dram)
    assert dram == pytest.approx(raw["dram__bytes_read.sum"] + raw["dram__bytes_write.sum"], rel=1e-6)
    assert k.bytes["l2"].value == 32 * raw["lts__t_sectors_srcunit_tex.sum"]  # loads and stores
    assert k.bytes["l2"].value > raw["l1tex__m_xbar2l1tex_read_bytes.sum"]  # the L2 -> L1 reads alone
    assert k.bytes["l1"].value == 32 * sum(raw[n] for n in L1_ALL)
    report = k.ceilings["measured-clock"]
    assert report.flop_per_s["fp64"] == approx(2 * raw[f"{inst('dfma', 'sm')}.sum.peak_sustained"] * raw[SM_CLOCK])
    assert report.flop_per_s["fp32"] == approx(2 * raw[f"{inst('ffma', 'sm')}.sum.peak_sustained"] * raw[SM_CLOCK])
    assert report.bytes_per_s["dram"] == approx(raw["dram__bytes.sum.peak_sustained"] * raw[DRAM_CLOCK])
    assert raw["dram__bytes.sum.peak_sustained"] == 1024  # V100: 2 x 4096-bit bus / 8 bytes per DRAM cycle
    # no tensor counter, but the SASS counts (SourceCounters) hold no matrix instruction: an exact 0; no L2/L1 peaks
    assert k.flops["tensor"].value == 0.0 and "no matrix instruction in the SASS" in k.flops["tensor"].via
    assert report.bytes_per_s["l2"] is None and report.missing["l2"]
    assert report.bytes_per_s["l1"] is None and report.missing["l1"]
    pct = 100 * max(fp64 / t / report.flop_per_s["fp64"], fp32 / t / report.flop_per_s["fp32"],
                    dram / t / report.bytes_per_s["dram"])
    assert k.roof.pct_of_roof == approx(pct)
    # 44% of the FP64 roof, but the SM at 70% of its peak: compute-bound (ncu: High Compute Throughput)
    assert (k.roof.limiter, k.verdict.bound) == ("fp64", "compute")
    assert "l2" in k.roof.reason and "l1" in k.roof.reason  # the roofs it could not judge are named


# --- Ampere ---------------------------------------------------------------------------------------------------
def test_a10g_blocktiling_sgemm_does_exactly_2_n_cubed_flops(case):
    """SGEMM with M = N = K = 1024: 2 x 1024^3 FP32 FLOPs, all FFMA (fadd/fmul rates are 0)."""
    raws, result = case(A10G)
    raw, k = raws[0], result.launches[0]
    assert raw.name == "one_blocktiling"
    t = raw["gpu__time_duration.sum"] * 1e-9
    fp32 = 2 * raw[f"{inst('ffma')}.sum.per_cycle_elapsed"] * raw[SMSP_CLOCK] * t
    assert fp32 == pytest.approx(2 * 1024**3, rel=1e-6)
    assert k.flops["fp32"].value == pytest.approx(2 * 1024**3, rel=1e-6)
    assert k.flops["fp32"].value == approx(fp32)
    assert k.flops["fp64"].value == 0.0 and k.flops["fp16"].value == 0.0
    # every blocktiling variant computes the same product
    for other in result.launches[:3]:
        assert other.flops["fp32"].value == pytest.approx(2 * 1024**3, rel=1e-6)


def test_a10g_roofline_set_hierarchy(case):
    """--set roofline (ncu 2023.1): L2 = L2->L1 read bytes, L1 = 128 B x LSU writeback cycles (mem_lg)."""
    raws, result = case(A10G)
    raw, k = raws[0], result.launches[0]
    t = raw["gpu__time_duration.sum"] * 1e-9
    assert k.bytes["dram"].value == approx(raw["dram__bytes.sum.per_second"] * t)
    assert k.bytes["l2"].value == approx(raw["l1tex__m_xbar2l1tex_read_bytes.sum.per_second"] * t)
    l1 = 128 * raw["l1tex__lsu_writeback_active_mem_lg.sum.per_second"] * t
    assert k.bytes["l1"].value == approx(l1)
    # ncu's own derived byte metric agrees with 128 x cycles
    assert l1 == pytest.approx(raw["derived__l1tex__lsu_writeback_bytes_mem_lg.sum.per_second"] * t, rel=1e-9)
    report = k.ceilings["measured-clock"]
    assert report.flop_per_s["fp32"] == approx(2 * raw[f"{inst('ffma', 'sm')}.sum.peak_sustained"] * raw[SM_CLOCK])
    assert report.flop_per_s["fp64"] == approx(2 * raw[f"{inst('dfma', 'sm')}.sum.peak_sustained"] * raw[SM_CLOCK])
    assert report.flop_per_s["fp16"] == approx(4 * raw[f"{inst('hfma', 'sm')}.sum.peak_sustained"] * raw[SM_CLOCK])
    assert report.bytes_per_s["dram"] == approx(raw["dram__bytes.sum.peak_sustained"] * raw[DRAM_CLOCK])
    # x the L2 clock, as the report's own HierarchicalSingleRooflineChart section ("L2 Cache Frequency") takes it
    assert report.bytes_per_s["l2"] == approx(raw["l1tex__m_xbar2l1tex_read_bytes.sum.peak_sustained"]
                                              * raw[LTS_CLOCK])
    assert report.bytes_per_s["l2"] == pytest.approx(3.1776e12, rel=1e-4)  # what ncu's chart of launch 0 draws
    assert report.bytes_per_s["l1"] == approx(128 * raw["l1tex__lsu_writeback_active_mem_lg.sum.peak_sustained"]
                                              * raw[L1_CLOCK])
    assert report.bytes_per_s["l1"] == approx(raw["derived__l1tex__lsu_writeback_bytes_mem_lg.sum.peak_sustained"]
                                              * raw[L1_CLOCK])
    # A10G: 80 SMs x 128 FFMA/clk; FP64 is 1/64 of FP32; FP16 (half2 FMA = 4 FLOPs) equals FP32
    assert raw[f"{inst('ffma', 'sm')}.sum.peak_sustained"] == 80 * 128
    assert report.flop_per_s["fp16"] == approx(report.flop_per_s["fp32"])
    # no tensor instructions at all: exactly zero tensor FLOPs, not "unknown"
    assert raw["smsp__inst_executed_pipe_tensor.sum.per_cycle_elapsed"] == 0
    assert k.flops["tensor"].value == 0.0
    # AI and percent of roof from the independent numbers
    fp32 = k.flops["fp32"].value
    assert k.intensity["dram"].value == approx(fp32 / (raw["dram__bytes.sum.per_second"] * t))
    util = {"fp32": fp32 / t / report.flop_per_s["fp32"],
            "dram": raw["dram__bytes.sum.per_second"] / report.bytes_per_s["dram"],
            "l2": raw["l1tex__m_xbar2l1tex_read_bytes.sum.per_second"] / report.bytes_per_s["l2"],
            "l1": l1 / t / report.bytes_per_s["l1"]}
    assert k.roof.pct_of_roof == approx(100 * max(util.values()))
    assert k.roof.limiter == max(util, key=util.get) == "fp32"
    # 18% of the FP32 roof, yet SM and memory both at 65% of their peaks (ncu: Balanced Throughput)
    assert k.verdict.bound == "balanced" and k.verdict.sm_pct == k.verdict.memory_pct == raw[SOL_SM]


def test_rtx3080_sgemm_and_cublas(case):
    raws, result = case(RTX3080)
    for raw, k in zip(raws, result.launches, strict=True):
        t = raw["gpu__time_duration.sum"] * 1e-9
        fp32 = (raw[f"{inst('fadd')}.sum.per_cycle_elapsed"] + raw[f"{inst('fmul')}.sum.per_cycle_elapsed"]
                + 2 * raw[f"{inst('ffma')}.sum.per_cycle_elapsed"]) * raw[SMSP_CLOCK] * t
        assert k.flops["fp32"].value == approx(fp32)
        dram = raw["dram__bytes.sum.per_second"] * t
        assert k.bytes["dram"].value == approx(dram)
        assert dram == pytest.approx(raw["dram__bytes_read.sum"] + raw["dram__bytes_write.sum"], rel=1e-6)
        assert k.bytes["l2"].value == 32 * raw["lts__t_sectors_srcunit_tex.sum"]
        assert k.bytes["l1"].value == 32 * sum(raw[n] for n in L1_ALL)
        report = k.ceilings["measured-clock"]
        # GA102 consumer part: 2 DFMA per SM per clock (68 SMs -> 136)
        assert raw[f"{inst('dfma', 'sm')}.sum.peak_sustained"] == 136
        assert report.flop_per_s["fp64"] == approx(2 * 136 * raw[SM_CLOCK])
        assert report.flop_per_s["fp32"] == approx(2 * raw[f"{inst('ffma', 'sm')}.sum.peak_sustained"] * raw[SM_CLOCK])
        assert report.bytes_per_s["dram"] == approx(raw["dram__bytes.sum.peak_sustained"] * raw[DRAM_CLOCK])
    gemm, cublas = result.launches
    assert (gemm.roof.limiter, gemm.verdict.bound) == ("dram", "memory")
    assert cublas.roof.limiter == "fp32"


def test_a100_cutlass_time_definitions_agree_and_tensor_is_explained(case):
    raws, result = case(A100_80)
    for raw, k in zip(raws, result.launches, strict=True):
        # time = elapsed SM cycles / SM clock = gpu__time_duration
        assert raw["sm__cycles_elapsed.avg"] / raw[SM_CLOCK] == pytest.approx(
            raw["gpu__time_duration.sum"] * 1e-9, rel=2e-3)
        assert k.duration_s.value == approx(raw["gpu__time_duration.sum"] * 1e-9)
        # ncu 2024.1 full set: no tensor FLOP counter, so the SASS counts: the INT8 IMMA kernel's and the reference
        # GEMM's floating-point tensor FLOPs are an exact 0 (tests/ncu/test_tensor_sass.py counts the INT8 ops)
        assert k.flops["tensor"].value == 0.0 and "SASS" in k.flops["tensor"].via


# --- Ada ------------------------------------------------------------------------------------------------------
def test_ada_rtx4070ti(case):
    raws, result = case(RTX4070TI)
    assert result.device.compute_capability == "8.9"
    busiest = max(range(len(raws)), key=lambda i: flops(raws[i], "fp32") or 0)
    raw, k = raws[busiest], result.launches[busiest]
    t = raw["gpu__time_duration.sum"] * 1e-9
    fp32 = (raw[f"{inst('fadd')}.sum.per_cycle_elapsed"] + raw[f"{inst('fmul')}.sum.per_cycle_elapsed"]
            + 2 * raw[f"{inst('ffma')}.sum.per_cycle_elapsed"]) * raw[SMSP_CLOCK] * t
    assert fp32 > 0
    assert k.flops["fp32"].value == approx(fp32)
    assert k.bytes["l1"].value == 32 * sum(raw[n] for n in L1_ALL)  # all L1 traffic, loads and stores
    assert 128 * raw["l1tex__lsu_writeback_active_mem_lg.sum"] > 0  # the writebacks alone (loads), not used
    assert raw["sm__cycles_elapsed.avg"] / raw[SM_CLOCK] == pytest.approx(t, rel=5e-3)
    assert k.ceilings["measured-clock"].flop_per_s["fp32"] == approx(
        2 * raw[f"{inst('ffma', 'sm')}.sum.peak_sustained"] * raw[SM_CLOCK])


def test_ada_rtx4090_without_clocks_gives_named_reasons(case):
    """A full-set report taken without the roofline chart: no clocks, no FLOP rates; DRAM bytes still exact."""
    raws, result = case(RTX4090)
    for raw, k in zip(raws, result.launches, strict=True):
        t = raw["gpu__time_duration.sum"] * 1e-9
        assert k.bytes["dram"].value == approx(raw["dram__bytes.sum.per_second"] * t)
        assert k.bytes["dram"].value == pytest.approx(raw["dram__bytes_read.sum"] + raw["dram__bytes_write.sum"],
                                                      rel=1e-6)
        assert k.flops["fp32"].value is None and k.flops["fp32"].reason
        assert k.ceilings["measured-clock"].bytes_per_s["dram"] is None and k.ceilings["measured-clock"].missing["dram"]
        assert k.roof.pct_of_roof is None and k.roof.reason


# --- Hopper ---------------------------------------------------------------------------------------------------
def test_h100_rmsnorm_hierarchy_and_cross_checks(case):
    raws, result = case(H100)
    raw, k = raws[0], result.launches[0]
    t = raw["gpu__time_duration.sum"] * 1e-9
    assert raw["sm__cycles_elapsed.avg"] / raw[SM_CLOCK] == pytest.approx(t, rel=1e-6)
    # FP16: 4 x hfma (half2); hadd/hmul have no rate in this report, so they are left out with a note. Every
    # HFMA2 of this FP32 kernel is a zero-product register move (HFMA2.MMA Rd, -RZ, RZ, 0, 0): no FP16 FLOPs
    assert not raw.has(f"{inst('hadd')}.sum.per_cycle_elapsed")
    hfma = raw[f"{inst('hfma')}.sum.per_cycle_elapsed"] * raw[SMSP_CLOCK] * t
    assert hfma == pytest.approx(hfma2_moves(H100)[0], rel=1e-12)
    assert k.flops["fp16"].value == 4 * max(0.0, round(hfma - hfma2_moves(H100)[0])) == 0.0
    assert m.FlopNote(m.FlopNoteKind.COUNTER_ABSENT, "fp16", "hadd") in k.notes
    # L2: every sector the SMs requested (loads and stores); ncu 2025's own definition, 32 B x lts2xbar active
    # cycles (== derived__lts__lts2xbar_bytes), counts the L2 -> SM returns only
    l2 = 32 * raw["lts__lts2xbar_cycles_active.sum.per_second"] * t
    assert k.bytes["l2"].value == 32 * raw["lts__t_sectors_srcunit_tex.sum"]
    assert l2 == pytest.approx(raw["derived__lts__lts2xbar_bytes.sum.per_second"] * t, rel=1e-9)
    # L1: every global/local sector (the CC 9.0 writeback bytes, 128 B x mem_lgds cycles, count loads only)
    assert k.bytes["l1"].value == 32 * sum(raw[n] for n in L1_ALL)
    l1 = 128 * raw["l1tex__lsu_writeback_active_mem_lgds.sum"]
    assert l1 == pytest.approx(raw["derived__l1tex__lsu_writeback_bytes_mem_lgds.sum.per_second"] * t, rel=1e-6)
    dram = raw["dram__bytes.sum.per_second"] * t
    assert dram == pytest.approx(raw["dram__bytes_read.sum"] + raw["dram__bytes_write.sum"], rel=1e-6)
    report = k.ceilings["measured-clock"]
    assert report.flop_per_s["fp16"] == approx(4 * raw[f"{inst('hfma', 'sm')}.sum.peak_sustained"] * raw[SM_CLOCK])
    assert report.flop_per_s["fp64"] == approx(2 * raw[f"{inst('dfma', 'sm')}.sum.peak_sustained"] * raw[SM_CLOCK])
    assert report.bytes_per_s["l2"] == approx(32 * raw["lts__lts2xbar_cycles_active.sum.peak_sustained"]
                                              * raw[LTS_CLOCK])
    assert report.bytes_per_s["l2"] == approx(raw["derived__lts__lts2xbar_bytes.sum.peak_sustained"] * raw[LTS_CLOCK])
    assert report.bytes_per_s["l1"] == approx(128 * raw["l1tex__lsu_writeback_active_mem_lgds.sum.peak_sustained"]
                                              * raw[L1_CLOCK])
    assert report.bytes_per_s["dram"] == approx(1280 * raw[DRAM_CLOCK])  # HBM2e, 5120-bit bus


@pytest.mark.parametrize("name", [H100, GH200])
def test_hopper_dense_tensor_peak_is_the_sparsity_off_op_peak(case, name):
    """The aggregate src_fp16 peak is the 2:4-sparse one; the dense roof is op_hgmma ... _sparsity_off."""
    raws, result = case(name)
    for raw, k in zip(raws, result.launches, strict=True):
        dense = raw["sm__ops_path_tensor_op_hgmma_src_fp16_sparsity_off.sum.peak_sustained"]
        sparse_aggregate = raw["sm__ops_path_tensor_src_fp16.sum.peak_sustained"]
        assert sparse_aggregate == 2 * dense
        assert dense == 4096 * result.device.sm_count  # FLOPs (2 per FMA) per SM per clock
        report = k.ceilings["measured-clock"]
        assert report.tensor_dtype == "fp16"
        assert report.flop_per_s["tensor"] == approx(dense * raw[SM_CLOCK])
        # ncu's own per-second peak of the same counter
        assert report.flop_per_s["tensor"] == pytest.approx(
            raw["sm__ops_path_tensor_op_hgmma_src_fp16_sparsity_off.sum.peak_sustained_elapsed.per_second"],
            rel=1e-6)
        # no tensor work in these kernels: the sum of the floating-point ops_path counters is exactly 0
        srcs = [n for n in raw.values if n.startswith("sm__ops_path_tensor_src_") and n.endswith(".sum")]
        assert srcs and all(raw[n] == 0 for n in srcs)
        assert k.flops["tensor"].value == 0.0


def test_gh200_silu_elementwise(case):
    raws, result = case(GH200)
    raw, k = raws[1], result.launches[1]
    assert raw.name == "silu_kernel_non_strided"
    t = raw["gpu__time_duration.sum"] * 1e-9
    assert k.flops["fp32"].value == approx(flops(raw, "fp32"))
    assert k.bytes["dram"].value == approx(raw["dram__bytes.sum.per_second"] * t)
    assert k.bytes["l1"].value == 32 * sum(raw[n] for n in L1_ALL)
    assert k.bytes["l2"].value == 32 * raw["lts__t_sectors_srcunit_tex.sum"]
    assert k.bytes["l2"].value >= k.bytes["dram"].value  # all traffic: the hierarchy does not read upside down
    assert raw["dram__bytes.sum.peak_sustained"] == 1536  # GH200 HBM3: 6144-bit bus
    report = k.ceilings["measured-clock"]
    assert report.bytes_per_s["dram"] == approx(1536 * raw[DRAM_CLOCK])
    assert (k.roof.limiter, k.verdict.bound) == ("dram", "memory")
    assert k.roof.pct_of_roof == approx(100 * raw["dram__bytes.sum.per_second"] / report.bytes_per_s["dram"])


def test_gh200_l2_bytes_count_the_stores_the_one_way_definition_left_out(case):
    """distribution_elementwise (GH200, ncu 2025.1): L2 by ncu's definition counts L2 -> SM returns only
    (32 B x lts2xbar cycles, ~626 kB) while the kernel writes ~241 MB to DRAM; the L2 bytes count every sector the
    SMs requested (268 MB, its stores), and all L2 traffic of every source is 32 B x lts__t_sectors.sum (~405 MB).
    No level reads upside down, so no note."""
    raws, result = case(GH200)
    raw, k = raws[0], result.launches[0]
    assert raw.name == "distribution_elementwise_grid_stride_kernel"
    t = raw["gpu__time_duration.sum"] * 1e-9
    dram = raw["dram__bytes.sum.per_second"] * t
    assert k.bytes["dram"].value == approx(dram) and dram == pytest.approx(241e6, rel=0.01)
    l2 = 32 * raw["lts__lts2xbar_cycles_active.sum.per_second"] * t
    assert l2 == pytest.approx(626e3, rel=0.01)
    assert k.bytes["l2"].value == 32 * raw["lts__t_sectors_srcunit_tex.sum"] == 268435456
    assert k.l2_total_bytes.value == 32 * raw["lts__t_sectors.sum"] == pytest.approx(405e6, rel=0.01)
    assert k.inverted_levels == ()


# --- NaN launch -----------------------------------------------------------------------------------------------
def test_h800_nan_launch_gives_null_with_reason_never_zero(case):
    raws, result = case(H800)
    raw, k = raws[4], result.launches[4]
    assert raw.name == "flash_fwd_kernel"
    assert math.isnan(raw.value("gpu__time_duration.sum"))
    assert math.isnan(raw.value("dram__bytes.sum.per_second"))
    assert k.duration_s.value is None and "NaN" in k.duration_s.reason
    for value in (*k.flops.values(), *k.bytes.values(), *k.flop_per_s.values(), *k.intensity.values()):
        assert value.value is None and value.reason
    assert "NaN" in k.flops["fp32"].reason and "NaN" in k.bytes["dram"].reason
    assert k.roof.pct_of_roof is None and k.roof.reason
    assert k.verdict.bound is None and "NaN" in k.verdict.reason
    assert k.time_share is None
    assert all(v is None for v in (*k.ceilings["measured-clock"].flop_per_s.values(),
                                   *k.ceilings["measured-clock"].bytes_per_s.values()))
    assert "NaN" in k.ceilings["measured-clock"].missing["fp32"]
    # the other launches are measured; the share of time is over them only
    measured = [duration(r) for r in raws[:4]]
    for r, other in zip(raws[:4], result.launches[:4], strict=True):
        assert other.time_share == approx(duration(r) / sum(measured))
    assert result.total_time_s == approx(sum(measured))


# --- Basic set: nothing but time -----------------------------------------------------------------------------
@pytest.mark.parametrize("name", [A10G_BASIC, RTX2080TI_BASIC])
def test_basic_set_reports_time_and_named_reasons(case, name):
    raws, result = case(name)
    for raw, k in zip(raws, result.launches, strict=True):
        assert k.duration_s.value == approx(raw["gpu__time_duration.sum"] * 1e-9)
        assert not raw.has(f"{inst('ffma')}.sum.per_cycle_elapsed")
        for p, value in k.flops.items():
            assert value.value is None and "re-profile" in value.reason, p
        for level, value in k.bytes.items():
            assert value.value is None and "re-profile" in value.reason, level
        assert k.roof.pct_of_roof is None and k.roof.reason.startswith("nothing to compare")


# --- ncu 2020.3 -----------------------------------------------------------------------------------------------
def test_ncu_2020_3_tree_search(case):
    raws, result = case(NCU2020)
    raw, k = raws[0], result.launches[0]
    t = raw["gpu__time_duration.sum"] * 1e-9
    fp64 = (raw[f"{inst('dadd')}.sum.per_cycle_elapsed"] + raw[f"{inst('dmul')}.sum.per_cycle_elapsed"]
            + 2 * raw[f"{inst('dfma')}.sum.per_cycle_elapsed"]) * raw[SMSP_CLOCK] * t
    assert fp64 > 0 and k.flops["fp64"].value == approx(fp64)
    assert k.bytes["dram"].value == approx(raw["dram__bytes.sum.per_second"] * t)
    assert k.bytes["l2"].value == 32 * raw["lts__t_sectors_srcunit_tex.sum"]
    assert k.bytes["l1"].value == 32 * sum(raw[n] for n in L1_ALL)
    report = k.ceilings["measured-clock"]
    assert report.flop_per_s["fp64"] == approx(2 * raw[f"{inst('dfma', 'sm')}.sum.peak_sustained"] * raw[SM_CLOCK])
    assert raw[f"{inst('dfma', 'sm')}.sum.peak_sustained"] == 108 * 32  # A100: 32 DFMA/SM/clk
    assert k.roof.limiter == "fp64"


# --- T4 matrix addition: analytic counts ---------------------------------------------------------------------
def test_t4_matrix_add_is_one_million_fadds(case):
    """C = A + B on 1000 x 1000 floats: 1e6 FADD (1 FLOP each), 2 x 4 MB read from L2 into L1."""
    raws, result = case(T4)
    raw, k = raws[0], result.launches[0]
    t = raw["gpu__time_duration.sum"] * 1e-9
    fadd = raw[f"{inst('fadd')}.sum.per_cycle_elapsed"] * raw[SMSP_CLOCK] * t
    assert fadd == pytest.approx(1e6, rel=1e-6)
    assert raw[f"{inst('ffma')}.sum.per_cycle_elapsed"] == 0 and raw[f"{inst('fmul')}.sum.per_cycle_elapsed"] == 0
    assert k.flops["fp32"].value == pytest.approx(1e6, rel=1e-6)
    assert 2 * 4 * 1e6 == raw["l1tex__m_xbar2l1tex_read_bytes.sum"]  # the reads
    assert k.bytes["l2"].value == 32 * raw["lts__t_sectors_srcunit_tex.sum"] == 3 * 4 * 1e6  # and the 4 MB written
    dram = raw["dram__bytes.sum.per_second"] * t
    assert dram == pytest.approx(raw["dram__bytes_read.sum"] + raw["dram__bytes_write.sum"], rel=1e-6)
    assert dram >= 3 * 4 * 1e6  # at least two matrices read and one written
    report = k.ceilings["measured-clock"]
    assert report.bytes_per_s["dram"] == approx(raw["dram__bytes.sum.peak_sustained"] * raw[DRAM_CLOCK])
    assert k.roof.pct_of_roof == approx(100 * raw["dram__bytes.sum.per_second"] / report.bytes_per_s["dram"])
    assert (k.roof.limiter, k.verdict.bound) == ("dram", "memory")
    assert k.intensity["dram"].value == approx(k.flops["fp32"].value / dram)


# --- Time share, grouping and recoverable time ---------------------------------------------------------------
@pytest.mark.parametrize("name", [RTX4070TI, H100, "a100-40gb_selfjoin-cub-sort-154launches_basic"])
def test_time_share_and_groups(case, name: str) -> None:
    raws, result = case(name)
    times = [duration(r) for r in raws]
    total = sum(times)
    assert result.total_time_s == approx(total)
    for t, k in zip(times, result.launches, strict=True):
        assert k.time_share == approx(t / total)
    by_name: dict[str, list[int]] = {}  # a kernel is its demangled name: template instances apart
    for i, raw in enumerate(raws):
        by_name.setdefault(kernel_key(raw.name, raw.demangled), []).append(i)
    assert {g.name for g in result.groups} == set(by_name)
    totals = [g.total_s for g in result.groups]
    assert totals == sorted(totals, reverse=True)  # largest total time first
    for g in result.groups:
        members = by_name[g.name]
        ts = [times[i] for i in members]
        assert len(g.launches) == len(members)
        assert [a.launch.action_index for a in g.launches] == [raws[i].action_index for i in members]
        assert g.total_s == approx(sum(ts))
        assert g.median_s == approx(statistics.median(ts))
        assert (g.min_s, g.max_s) == (approx(min(ts)), approx(max(ts)))
        assert g.time_share == approx(sum(ts) / total)
        pcts = [result.launches[i].roof.pct_of_roof for i in members if result.launches[i].roof.pct_of_roof is not None]
        assert g.median_pct_of_roof == (approx(statistics.median(pcts)) if pcts else None)
        # recoverable: the gap to the busiest unit (percent of roof, SM or memory throughput from the raw values, the
        # busiest SM unit in whole blocks per SM), at most the time above the launch floor;
        # a small grid (both throughputs below 60%, under one wave) is held back by its few blocks and counts 0
        saved, small_grid_time = [], 0.0
        for i in members:
            raw, k = raws[i], result.launches[i]
            small = raw[SOL_SM] < 60 and raw[SOL_MEMORY] < 60 and raw["launch__waves_per_multiprocessor"] < 1
            attained = [v for v in (k.roof.pct_of_roof, raw[SOL_SM], raw[SOL_MEMORY], raw_whole_blocks_pct(raw))
                        if v is not None]
            expected = 0.0 if small else min(times[i] * max(0.0, 1 - max(attained) / 100),
                                             max(0.0, times[i] - 1.5e-6))  # above the 1.5 us launch floor
            assert recoverable_s(k) == approx(expected)
            saved.append(expected)
            small_grid_time += times[i] if small else 0.0
        assert g.recoverable_s == approx(sum(saved)) and g.small_grid_s == approx(small_grid_time)


# --- Pure formula functions on hand-built launches (no shared data needed) ------------------------------------
def launch(**metrics) -> KernelLaunch:
    return KernelLaunch(0, 0, "k", metrics=metrics)


def test_counter_prefers_plain_count_then_per_cycle_then_per_second():
    plain = launch(**{"dram__bytes.sum": 100.0, "dram__bytes.sum.per_second": 1e12, "gpu__time_duration.sum": 1e3})
    assert m.counter(plain, "dram__bytes").value == 100.0
    rate = launch(**{"dram__bytes.sum.per_second": 1e9, "gpu__time_duration.sum": 2e3})
    assert m.counter(rate, "dram__bytes").value == pytest.approx(1e9 * 2e-6)
    cycles = launch(**{"smsp__x.sum.per_cycle_elapsed": 3.0, SMSP_CLOCK: 1e9, "gpu__time_duration.sum": 1e3})
    assert m.counter(cycles, "smsp__x").value == pytest.approx(3.0 * 1e9 * 1e-6)


def test_duration_falls_back_to_cycles_over_clock():
    assert m.duration_s(launch(**{"sm__cycles_elapsed.avg": 2e6, SM_CLOCK: 1e9})).value == pytest.approx(2e-3)
    absent = m.duration_s(launch())
    assert absent.value is None and "gpu__time_duration.sum" in absent.reason


def test_nan_metric_is_reported_as_nan_not_missing():
    k = KernelLaunch(0, 0, "k", nan_metrics=frozenset({"gpu__time_duration.sum"}))
    d = m.duration_s(k)
    assert d.value is None and "NaN" in d.reason


def test_missing_fma_counter_means_no_value_but_missing_add_is_a_note():
    only_ffma = launch(**{f"{inst('ffma')}.sum": 10.0})
    fp32 = m.cuda_core_flops(only_ffma, "fp32")
    assert fp32.value == 20.0 and [(n.kind, n.op) for n in fp32.notes] == [
        (m.FlopNoteKind.COUNTER_ABSENT, "fadd"), (m.FlopNoteKind.COUNTER_ABSENT, "fmul")]
    no_fma = m.cuda_core_flops(launch(**{f"{inst('fadd')}.sum": 10.0}), "fp32")
    assert no_fma.value is None and "re-profile" in no_fma.reason


def test_metrics_to_read_covers_every_formula_input():
    for name in ("gpu__time_duration.sum", SM_CLOCK, SMSP_CLOCK, DRAM_CLOCK, LTS_CLOCK, L1_CLOCK,
                 "sm__cycles_elapsed.avg", f"{inst('ffma')}.sum.per_cycle_elapsed",
                 f"{inst('hfma', 'sm')}.sum.peak_sustained", "dram__bytes.sum.per_second",
                 "dram__bytes_read.sum", "lts__lts2xbar_cycles_active.sum.per_second",
                 "l1tex__m_xbar2l1tex_read_bytes.sum.peak_sustained", "l1tex__lsu_writeback_active_mem_lgds.sum",
                 "smsp__inst_executed_pipe_tensor.sum.per_cycle_elapsed"):
        assert name in m.METRICS_TO_READ, name
    read = m.to_read(["sm__ops_path_tensor_src_fp16.sum", "sm__ops_path_tensor_src_fp16.sum.peak_sustained",
                      "sm__ops_path_tensor_src_fp16.avg.per_second", f"{m.STALL_PREFIX}wait{m.STALL_SUFFIX}",
                      f"{m.STALL_PREFIX}wait_per_warp_active.pct", f"{m.STALL_SAMPLES_PREFIX}wait",
                      f"{m.STALL_SAMPLES_PREFIX}wait_not_issued", "launch__occupancy_per_block_size",
                      "launch__stream_id", "launch__grid_size"])
    assert read == ["sm__ops_path_tensor_src_fp16.sum", "sm__ops_path_tensor_src_fp16.sum.peak_sustained",
                    f"{m.STALL_PREFIX}wait{m.STALL_SUFFIX}", f"{m.STALL_SAMPLES_PREFIX}wait", "launch__grid_size"]


@pytest.mark.parametrize("name, form", [("rtx4090_smem-transpose_full", "pct"),
                                        ("rtx3060-laptop_reductions_full", "ratio")])
def test_sector_use_from_either_form_ncu_writes(name, form, shared_report, raw_actions):
    """The share of each sector's bytes a global access used: ncu 2022's .pct / 100 (RTX 4090 transpose, stores
    12.5%), else .ratio / .max_rate (ncu 2023 on; RTX 3060 reductions, stores 8 of 32 bytes)."""
    from roofline.pipeline import analyze_files

    launches = analyze_files([shared_report(name)])[0].launches
    base = "smsp__sass_average_data_bytes_per_sector_mem_global_op_st"
    for k, raw in zip(launches, raw_actions(name), strict=True):
        v = raw.values
        expected = v[f"{base}.pct"] / 100 if form == "pct" else v[f"{base}.ratio"] / v[f"{base}.max_rate"]
        assert m.sector_use(k.launch, "st").value == pytest.approx(expected, rel=REL)
    assert m.sector_use(launches[0].launch, "st").value in (0.125, 0.25)


@pytest.mark.parametrize(("opcode", "kind"), [
    ("LDG.E.128.CONSTANT", ("global", "ld", 16)), ("STG.E.64.SYS", ("global", "st", 8)), ("LDG.E", ("global", "ld", 4)),
    ("STG.E.U16", ("global", "st", 2)), ("LDG.E.S8", ("global", "ld", 1)), ("LDGSTS.E.BYPASS.LTC128B.128",
                                                                          ("global", "ld", 16)),
    ("LD.E.64", ("global", "ld", 8)), ("LDS.U.128", ("shared", "ld", 16)), ("STS", ("shared", "st", 4)),
    ("LDSM.16.M88.4", ("shared", "ld", 16)), ("LDSM.16.MT88.2", ("shared", "ld", 8)),
    ("LDG.E.ENL2.256", ("global", "ld", 32)), ("LDL.64", None), ("ATOMG.E.ADD", None), ("FFMA", None)])
def test_access_width_reads_the_bytes_per_thread_from_the_opcodes_modifiers(opcode, kind):
    assert m.access_width(opcode) == kind


def test_a_clock_is_judged_only_when_read_from_a_clock_metric_over_20_us_or_more(roofline_report, raw_actions):
    # the V100 halo kernels (11-13 us) read 0.61-0.78 GHz on a board locked at 1.29 GHz; the RTX 5060 Ti metrics
    # set holds no clock metric, so its clock is SM cycles over the duration
    from roofline.ncu import metrics as m

    raw = {r.name: r for r in raw_actions("v100_miniweather-openacc_full")}
    for k in roofline_report("v100_miniweather-openacc_full").launches:
        long = raw[k.name]["gpu__time_duration.sum"] >= 20e3
        assert m.clock_read(k) and m.clock_judged(k) == long, k.name
    for k in roofline_report("rtx5060ti_transpose-occupancy-45launches_metrics").launches:
        assert not m.clock_read(k) and not m.clock_judged(k)
