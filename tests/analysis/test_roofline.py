"""Roofline analysis: percent of roof, limiter, the roofline-only verdict, intensity, ceiling sets (the
kernel-clock default), shares, grouping and recoverable time.

Hand-built launches pin the rules exactly; real reports check the classic-roofline identity and grouping.
"""

from __future__ import annotations

import pytest

from roofline.analysis.results import Cause
from roofline.analysis.roofline import (
    Value,
    across_reports_note,
    analyze_launch,
    analyze_report,
    group_by_kernel,
    median_known,
    rank_by_recoverable_time,
    recoverable_s,
    report_ceilings,
    roof_position,
    spread_across_reports,
)
from roofline.core.model import Ceilings, Device, KernelLaunch, Report
from roofline.core.thresholds import LATENCY_BELOW_PCT
from roofline.specs.catalog import DeviceSpec

DEVICE = Device(name="NVIDIA Test GPU", compute_capability="8.0", sm_count=100)
MS = 1e-3
TENSOR_INST_SUM = "sm__inst_executed_pipe_tensor.sum"  # tensor-pipe warp instructions (ncu's legacy counter)


def counters(seconds=MS, ffma=None, dfma=None, dram=None, **extra) -> dict:
    """Plain-count metrics of one launch on a GPU with FP32 roof 2 x 6400 x 1 GHz = 12.8 TFLOP/s,
    FP64 roof 2 x 3200 x 1 GHz = 6.4 TFLOP/s and DRAM roof 1000 B x 1 GHz = 1 TB/s."""
    metrics = {
        "gpu__time_duration.sum": seconds * 1e9,
        "sm__cycles_elapsed.avg.per_second": 1e9, "dram__cycles_elapsed.avg.per_second": 1e9,
        "sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained": 6400,
        "sm__sass_thread_inst_executed_op_dfma_pred_on.sum.peak_sustained": 3200,
        "dram__bytes.sum.peak_sustained": 1000,
    }
    if ffma is not None:
        metrics["sm__sass_thread_inst_executed_op_ffma_pred_on.sum"] = ffma
    if dfma is not None:
        metrics["sm__sass_thread_inst_executed_op_dfma_pred_on.sum"] = dfma
    if dram is not None:
        metrics["dram__bytes.sum"] = dram
    metrics.update(extra)
    return metrics


def launch(name="k", action=0, nvtx=(), **kw) -> KernelLaunch:
    return KernelLaunch(0, action, name, nvtx_ranges=nvtx, metrics=counters(**kw))


def spec(**peaks) -> DeviceSpec:
    return DeviceSpec(id="test-gpu", path="test.yaml", display_names=("NVIDIA Test GPU",), architecture="Test",
                      compute_capability="8.0", sm_count=100, boost_clock_hz=2e9, tensor_clock_hz=None,
                      memory_type="HBM", memory_bytes=2**34, memory_bandwidth_bytes_per_s=2e12, l2_bytes=2**25,
                      peaks={"fp32": 25.6e12, "fp64": 12.8e12, **peaks}, sources={}, fp32_lanes_per_sm=64)


# --- Percent of roof, bound, limiter ------------------------------------------------------------------------------
def test_compute_bound_kernel():
    a = analyze_launch(launch(ffma=5.12e9, dram=1e8), DEVICE)  # 10.24 TFLOP/s = 80% of FP32; DRAM 10%
    assert a.flops["fp32"].value == pytest.approx(1.024e10)
    assert a.roof.utilization_pct == pytest.approx({"fp32": 80.0, "dram": 10.0})  # no dfma/hfma/tensor counts
    assert (a.roof.pct_of_roof, a.roof.limiter) == (pytest.approx(80.0), "fp32")
    # no SpeedOfLight throughputs in these launches: the verdict is the roofline's, labelled as such
    assert (a.verdict.bound, a.verdict.basis, a.verdict.busiest.name) == ("compute", "roofline", "FP32 roof")


def test_memory_bound_kernel():
    a = analyze_launch(launch(ffma=1e6, dram=9e8), DEVICE)  # 900 GB/s of 1 TB/s
    assert (a.roof.pct_of_roof, a.roof.limiter, a.verdict.bound) == (pytest.approx(90.0), "dram", "memory")
    assert a.intensity["dram"].value == pytest.approx(2e6 / 9e8)


def test_below_the_threshold_the_roofline_alone_gives_no_verdict():
    """59% of the FP32 roof: the FP roofline cannot tell latency from integer or load/store work it does not see."""
    a = analyze_launch(launch(ffma=3.2e9 * 0.59 / 0.5, dram=1e7), DEVICE)
    assert a.roof.pct_of_roof == pytest.approx(59.0) and a.roof.pct_of_roof < LATENCY_BELOW_PCT
    assert a.roof.limiter == "fp32" and a.verdict.bound is None
    assert "--section SpeedOfLight" in a.verdict.reason and "cannot tell latency" in a.verdict.reason


def test_time_based_percent_is_the_classic_attainable_roof():
    """One precision: pct = achieved FLOP/s / min(peak, AI x bandwidth)."""
    for ffma, dram in ((5e9, 1e8), (1e8, 8e8), (3e9, 3e8)):
        a = analyze_launch(launch(ffma=ffma, dram=dram), DEVICE)
        attainable = min(12.8e12, a.intensity["dram"].value * 1e12)
        assert a.roof.pct_of_roof == pytest.approx(100 * a.flop_per_s["fp32"].value / attainable)


def test_copy_kernel_without_flops_is_judged_on_bandwidth():
    """No FP32 FLOPs counted and FP64 and FP16 not measured: the kernel's FLOPs are not known, so its intensity is
    not measured (null with the precisions' reason and the option that measures them), never 0 FLOP/byte; its
    percent of roof is its bandwidth's."""
    a = analyze_launch(launch(ffma=0, dram=7e8), DEVICE)
    assert a.flops["fp32"].value == 0.0 and a.flops["fp16"].value is None and a.flops["fp64"].value is None
    dram = a.intensity["dram"]
    assert dram.value is None and dram.reason.startswith("FLOPs not measured in full: the measured precisions count "
                                                         "none, and these are not measured: FP64 (")
    assert dram.cause is Cause.MISSING_METRICS and dram.collect == a.flops["fp64"].collect
    assert a.intensity_leaves_out == ()
    assert (a.roof.pct_of_roof, a.roof.limiter, a.verdict.bound) == (pytest.approx(70.0), "dram", "memory")


def test_a_copy_kernel_with_every_precision_measured_has_zero_intensity():
    """Every precision counted and none with a FLOP: an intensity of 0 FLOP/byte is measured, and complete."""
    zero = {f"smsp__sass_thread_inst_executed_op_{op}_pred_on.sum": 0.0
            for op in ("dadd", "dmul", "dfma", "hadd", "hmul", "hfma")}
    zero[TENSOR_INST_SUM] = 0.0  # no tensor instructions: no Tensor FLOPs, exactly
    a = analyze_launch(launch(ffma=0, dram=7e8, **zero), DEVICE)
    assert all(a.flops[p].value == 0.0 for p in ("fp64", "fp32", "fp16", "tensor"))
    assert a.intensity["dram"].value == 0.0 and a.intensity_leaves_out == ()


def test_an_intensity_leaving_out_a_precision_not_measured_says_so_as_data():
    """FP32 counted, FP64, FP16 and Tensor not: the intensity counts the FP32 FLOPs (2 x 1e6 FFMA over 9e8 bytes),
    and the launch names the precisions it leaves out, so the reports mark it a lower bound."""
    a = analyze_launch(launch(ffma=1e6, dram=9e8), DEVICE)
    assert a.intensity["dram"].value == pytest.approx(2e6 / 9e8)
    assert a.intensity_leaves_out == ("fp64", "fp16", "tensor")


def test_missing_roofs_are_named_in_the_reason():
    a = analyze_launch(launch(ffma=1e9, dram=1e8), DEVICE)
    assert a.roof.pct_of_roof is not None
    assert a.roof.reason.startswith("partial: leaves out")
    assert "l2 bytes" in a.roof.reason and "l1 bytes" in a.roof.reason


def test_no_duration_and_no_data():
    no_time = KernelLaunch(0, 0, "k", metrics={"dram__bytes.sum": 1.0})
    a = analyze_launch(no_time, DEVICE)
    assert a.duration_s.value is None and a.roof.pct_of_roof is None and a.roof.reason == "no kernel duration"
    assert a.flop_per_s["fp32"].value is None and a.bytes_per_s["dram"].reason.startswith("no kernel duration")
    bare = analyze_launch(KernelLaunch(0, 0, "k", metrics={"gpu__time_duration.sum": 1000.0}), DEVICE)
    assert bare.roof.pct_of_roof is None and bare.roof.reason.startswith("nothing to compare with a roof")


def test_roof_position_directly():
    flops = {"fp64": Value(None, "no dfma"), "fp32": Value(4e9), "fp16": Value(0.0), "tensor": Value(0.0)}
    moved = {"dram": Value(2e8), "l2": Value(None, "no l2"), "l1": Value(1e9)}
    ceilings = Ceilings("datasheet", {"fp32": 8e12, "fp16": 16e12, "tensor": 100e12},
                        {"dram": 1e12, "l1": 10e12}, missing={"fp64": "no FP64 peak"})
    pos = roof_position(flops, moved, 1e-3, ceilings)
    assert pos.utilization_pct == pytest.approx({"fp32": 50.0, "fp16": 0.0, "tensor": 0.0, "dram": 20.0, "l1": 10.0})
    assert (pos.ceilings, pos.pct_of_roof, pos.limiter) == ("datasheet", pytest.approx(50.0), "fp32")
    assert "l2 bytes: no l2" in pos.reason and "fp64" not in pos.reason  # unmeasured FP64 is not a gap


def test_intensity_with_zero_bytes_is_null_with_reason():
    a = analyze_launch(launch(ffma=1e6, dram=0), DEVICE)
    assert a.intensity["dram"].value is None and "unbounded" in a.intensity["dram"].reason
    assert "leaves out unmeasured" not in (a.intensity["dram"].via or "")


def test_total_flops_and_main_precision():
    a = analyze_launch(launch(ffma=1e6, dfma=3e6, dram=1e6), DEVICE)
    assert a.total_flops == pytest.approx(8e6)
    assert a.main_precision == "fp64"
    assert a.intensity["dram"].value == pytest.approx(8.0)


# --- Ceiling sets -----------------------------------------------------------------------------------------------------
def test_report_ceilings_are_peak_counters_times_measured_clock():
    c, definitions = report_ceilings(launch(ffma=1.0), DEVICE, "fp16")
    assert c.source == "measured-clock"
    assert c.flop_per_s["fp32"] == pytest.approx(12.8e12) and c.flop_per_s["fp64"] == pytest.approx(6.4e12)
    assert c.bytes_per_s["dram"] == pytest.approx(1e12)
    assert c.flop_per_s["fp16"] is None and "hfma" in c.missing["fp16"]
    assert "1 GHz" in c.clock_note
    assert definitions["dram"].startswith("dram__bytes")


def test_kernel_clock_ceilings_are_the_default_and_the_datasheet_stays_selectable():
    report = Report("x.json", DEVICE, (launch(ffma=5.12e9, dram=1e8),), source="model")
    with_spec = analyze_report(report, spec(), "display name")
    k = with_spec.launches[0]
    assert with_spec.ceilings_used == "kernel-clock" and with_spec.spec_id == "test-gpu"
    assert set(k.ceilings) == {"measured-clock", "datasheet", "kernel-clock"}
    # the report holds the FP32 peak counter: its roof at the measured 1 GHz, not the 2 GHz datasheet one
    assert k.roof.ceilings == "kernel-clock" and k.roof.pct_of_roof == pytest.approx(80.0)  # 10.24 of 12.8 TFLOP/s
    assert k.ceilings["kernel-clock"].flop_per_s["fp32"] == k.ceilings["measured-clock"].flop_per_s["fp32"]
    datasheet = analyze_report(report, spec(), "display name", use="datasheet")
    assert datasheet.ceilings_used == "datasheet" and datasheet.launches[0].roof.pct_of_roof == pytest.approx(40.0)
    plain = analyze_report(report)
    assert plain.ceilings_used == "kernel-clock"
    assert set(plain.launches[0].ceilings) == {"measured-clock", "kernel-clock"}


def test_roofs_the_report_lacks_are_datasheet_roofs_scaled_to_the_measured_clock():
    """No DRAM peak counter and no FP64 one: the clock set takes the datasheet's, scaled by measured / datasheet
    clock (DRAM: measured DRAM clock / the device's memory clock; FP: SM clock / boost clock)."""
    metrics = counters(ffma=1e9, dfma=1e9, dram=1e8)
    del metrics["dram__bytes.sum.peak_sustained"]
    del metrics["sm__sass_thread_inst_executed_op_dfma_pred_on.sum.peak_sustained"]
    metrics["dram__cycles_elapsed.avg.per_second"] = 0.8e9
    device = Device(name="NVIDIA Test GPU", compute_capability="8.0", sm_count=100, memory_clock_hz=1e9)
    k = analyze_launch(KernelLaunch(0, 0, "k", metrics=metrics), device, spec(), use="kernel-clock")
    clock = k.ceilings["kernel-clock"]
    assert clock.bytes_per_s["dram"] == pytest.approx(2e12 * 0.8)  # datasheet 2 TB/s x 0.8 GHz / 1 GHz
    assert clock.flop_per_s["fp64"] == pytest.approx(12.8e12 * 0.5)  # datasheet at 2 GHz boost, measured 1 GHz
    assert clock.flop_per_s["fp32"] == pytest.approx(12.8e12) and "fp32" not in clock.scaled  # the report's own
    assert "measured DRAM clock 0.8 GHz" in clock.scaled["dram"] and "x 0.50" in clock.scaled["fp64"]
    assert k.roof.utilization_pct["dram"] == pytest.approx(100 * 1e8 / 1e-3 / 1.6e12)
    unscaled = analyze_launch(KernelLaunch(0, 0, "k", metrics=metrics), DEVICE, spec(), use="kernel-clock")
    assert unscaled.ceilings["kernel-clock"].bytes_per_s["dram"] == pytest.approx(2e12)  # no device memory clock
    assert "unscaled" in unscaled.ceilings["kernel-clock"].scaled["dram"]


# --- Shares, groups, recoverable time -------------------------------------------------------------------------
def three_launch_report() -> Report:
    return Report("x.json", DEVICE, (
        launch("a", 0, seconds=1 * MS, ffma=1e9, dram=9e8, nvtx=("step", "fwd")),   # memory 90%
        launch("b", 1, seconds=4 * MS, ffma=1e9, dram=3e8, nvtx=("step", "bwd")),   # latency 7.5%
        launch("a", 2, seconds=2 * MS, ffma=1e9, dram=1e9, nvtx=("step", "fwd")),   # 50%
    ), source="model")


def test_time_share_and_groups():
    result = analyze_report(three_launch_report())
    assert result.total_time_s == pytest.approx(7 * MS)
    assert [k.time_share for k in result.launches] == pytest.approx([1 / 7, 4 / 7, 2 / 7])
    assert [g.name for g in result.groups] == ["b", "a"]  # largest total first
    b, a = result.groups
    assert (a.total_s, a.median_s, a.min_s, a.max_s) == pytest.approx((3 * MS, 1.5 * MS, 1 * MS, 2 * MS))
    assert a.time_share == pytest.approx(3 / 7) and a.median_pct_of_roof == pytest.approx(70.0)
    assert a.recoverable_s == pytest.approx(1 * MS * 0.1 + 2 * MS * 0.5)
    assert b.recoverable_s == pytest.approx(4 * MS * 0.925)
    assert [g.name for g in rank_by_recoverable_time(result.groups)] == ["b", "a"]



@pytest.mark.parametrize("values", [[3.0], [5.0, 1.0], [2.5, None, 0.1, 7.0], [1e-6, 3e-3, None, 2e-5, 9.0, 4.0, 4.0]])
def test_median_of_the_measured_values_is_numpys_median_of_them(values):
    import numpy as np

    assert median_known(values) == float(np.median([v for v in values if v is not None]))


def test_median_of_nothing_measured_is_none():
    assert median_known([None, None]) is None and median_known([]) is None


SM, MEMORY = ("sm__throughput.avg.pct_of_peak_sustained_elapsed",
              "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed")
WAVES = "launch__waves_per_multiprocessor"


def test_recoverable_time_is_the_gap_to_the_busiest_unit_and_small_grids_are_counted_apart():
    busy = KernelLaunch(0, 0, "busy", metrics=counters(ffma=1e8, dram=1e8, **{SM: 67.5, MEMORY: 1.5, WAVES: 4.3}))
    small = KernelLaunch(0, 1, "small", metrics=counters(ffma=1e6, dram=1e6, **{SM: 0.05, MEMORY: 0.4, WAVES: 0.01}))
    result = analyze_report(Report("x.json", DEVICE, (busy, small), source="model"))
    k, s = result.launches
    assert k.roof.pct_of_roof == pytest.approx(10.0) and k.verdict.bound == "compute"  # 10% of DRAM, SM 67.5%
    assert recoverable_s(k) == pytest.approx(MS * (1 - 0.675))  # not the 90% gap to the FP/byte roofs
    assert s.verdict.bound == "small_grid" and recoverable_s(s) == 0.0
    assert result.launches.table.columns.small_grid.tolist() == [0.0, pytest.approx(MS)]
    groups = {g.name: g for g in result.groups}
    assert (groups["small"].recoverable_s, groups["small"].small_grid_s) == (0.0, pytest.approx(MS))
    assert groups["busy"].small_grid_s == 0.0


def test_group_by_nvtx_range():
    result = analyze_report(three_launch_report())
    groups = group_by_kernel(result.launches, result.total_time_s, by="nvtx")
    assert {g.name: len(g.launches) for g in groups} == {"step > fwd": 2, "step > bwd": 1}


def test_group_by_nvtx_on_a_real_report(roofline_report):
    result = analyze_report(roofline_report("rtx3070_daxpy-nvtx_custom"))
    groups = group_by_kernel(result.launches, result.total_time_s, by="nvtx")
    assert {g.name for g in groups} == {"run_test > init_data", "run_test > daxpy", "run_test > check_results"}


def test_real_report_single_precision_identity(roofline_report):
    """A10G SGEMM (FP32 only): pct = achieved / min(peak, AI_level x bandwidth_level) over all levels."""
    result = analyze_report(roofline_report("a10g_sgemm-blocktiling_roofline"))
    for k in result.launches:
        c = k.ceilings["measured-clock"]
        assert k.flops["fp64"].value == 0 and k.flops["fp16"].value == 0 and k.flops["tensor"].value == 0
        attainable = min(c.flop_per_s["fp32"], *(k.intensity[level].value * c.bytes_per_s[level]
                                                 for level in ("dram", "l2", "l1")))
        assert k.roof.pct_of_roof == pytest.approx(100 * k.flop_per_s["fp32"].value / attainable, rel=1e-9)


def test_launches_keep_report_order(roofline_report):
    report = roofline_report("rtx4070ti_pytorch-sim_full")
    result = analyze_report(report)
    assert [k.launch for k in result.launches] == list(report.launches)


@pytest.mark.parametrize("name, ratio", [("t4_matrix-add-2d_full", 0.34),
                                         ("h100-pcie_rmsnorm-float4_full-roofline", 0.62),
                                         ("a10g_sgemm-blocktiling_roofline", 0.77)])
def test_default_roofs_are_at_the_clock_ncu_locked(shared_report, name, ratio):
    """ncu locks clocks to base by default: on these GPUs the FP32 roof at the measured clock is 0.34, 0.62 and
    0.77 of the datasheet (boost) one. Percent of roof uses the former by default, so a compute-bound kernel can
    reach 100%; the datasheet figure stays beside it and selectable."""
    from roofline.pipeline import AnalysisOptions, analyze_files

    (auto,) = analyze_files([shared_report(name)])
    (sheet,) = analyze_files([shared_report(name)], AnalysisOptions(ceilings="datasheet"))
    (own,) = analyze_files([shared_report(name)], AnalysisOptions(ceilings="measured-clock"))
    for k, s, r in zip(auto.launches, sheet.launches, own.launches, strict=True):
        c = k.ceilings
        clock_ratio = c["kernel-clock"].flop_per_s["fp32"] / c["datasheet"].flop_per_s["fp32"]
        assert clock_ratio == pytest.approx(ratio, abs=0.01)
        assert k.roof.ceilings == "kernel-clock" and k.roof.pct_of_roof == pytest.approx(r.roof.pct_of_roof)
        fp32 = c["kernel-clock"].flop_per_s["fp32"] / c["datasheet"].flop_per_s["fp32"]
        assert k.roof.utilization_pct["fp32"] * fp32 == pytest.approx(s.roof.utilization_pct["fp32"])


def test_a_dram_clock_above_the_device_maximum_does_not_raise_the_datasheet_roof():
    metrics = counters(ffma=1e9, dram=1e8)
    del metrics["dram__bytes.sum.peak_sustained"]
    metrics["dram__cycles_elapsed.avg.per_second"] = 1.5e9  # a short launch's noisy reading
    device = Device(name="NVIDIA Test GPU", compute_capability="8.0", sm_count=100, memory_clock_hz=1e9)
    k = analyze_launch(KernelLaunch(0, 0, "k", metrics=metrics), device, spec(), use="kernel-clock")
    assert k.ceilings["kernel-clock"].bytes_per_s["dram"] == pytest.approx(2e12)  # the datasheet's, not 1.5x it
    assert "capped at 1" in k.ceilings["kernel-clock"].scaled["dram"]


def test_template_instances_are_kernels_of_their_own_unless_grouped_by_function(shared_report, raw_actions):
    """RTX 2070 SUPER alife: thrust's `_kernel_agent` is instantiated eight times (reduce, drain, for_each, copy);
    by default each demangled name is its own kernel, `--group-by function` pools them as one."""
    from roofline.pipeline import AnalysisOptions, analyze_files

    name = "rtx2070super_alife-143launches_basic"
    raws = [r for r in raw_actions(name) if r.name == "_kernel_agent"]
    instances = {r.demangled for r in raws}
    assert len(instances) == 8
    by_kernel = analyze_files([shared_report(name)])[0]
    agents = [g for g in by_kernel.groups if g.functions == ("_kernel_agent",)]
    assert len(agents) == len(instances) and all(g.name.startswith("thrust::") and "<" in g.name for g in agents)
    assert sorted(len(g.launches) for g in agents) == sorted(sum(r.demangled == d for r in raws) for d in instances)
    pooled = analyze_files([shared_report(name)], AnalysisOptions(group_by="function"))[0]
    (agent,) = [g for g in pooled.groups if g.name == "_kernel_agent"]
    assert len(agent.launches) == len(raws)


def test_report_roofs_are_time_weighted_and_never_mix_a_datasheet_fallback_into_measured_ones():
    """The H100 PCIe pytorch-sim and A* cases: short launches at inflated clocks count for their time, and a roof
    ncu stored as NaN for one launch (taken from the datasheet there) does not enter the median of measured ones."""
    from roofline.analysis.roofline import _weighted_roof, weighted_median
    from roofline.core.model import Ceilings

    def roofs(fp32: float, fallback: bool = False) -> Ceilings:
        return Ceilings("kernel-clock", {"fp32": fp32}, {"dram": 2.0e12},
                        scaled={"fp32": "datasheet x 1.00"} if fallback else {})

    long_run, short_runs = (roofs(25.6e12), 1e-3), [(roofs(33.9e12), 5e-6)] * 3
    assert _weighted_roof([long_run, *short_runs], "fp32") == (25.6e12, False)  # the plain median was 33.9
    assert _weighted_roof([(roofs(14.8e12), 1e-3), (roofs(20.0e12, fallback=True), 1e-3)], "fp32") == (14.8e12,
                                                                                                      False)
    assert _weighted_roof([(roofs(20.0e12, fallback=True), 1e-3)], "fp32") == (20.0e12, True)
    assert weighted_median([1.0, 2.0, 3.0], [0.0, 0.0, 0.0]) == 2.0
    assert weighted_median([1.0, 2.0, 3.0], [1.0, 1.0, 5.0]) == 3.0


def test_a_roof_scaled_on_some_launches_is_not_called_unscaled():
    """GTX 1660 and A*: one launch without a measured clock left the roof unscaled, the others scaled it by 0.77:
    the footnote says scaled, not unscaled, for that roof."""
    from types import SimpleNamespace

    from roofline.analysis.view import scaled_roofs
    from roofline.core.model import Ceilings
    from roofline.render.report.prose import scaled_roofs_note

    def launch(how: str, unscaled: tuple[str, ...]):
        return SimpleNamespace(ceilings={"kernel-clock": Ceilings("kernel-clock", {}, {}, scaled={"fp32": how},
                                                                  unscaled=unscaled)},
                               duration_s=SimpleNamespace(value=1e-3))

    note = scaled_roofs_note(scaled_roofs([launch("datasheet x 0.77 (measured SM clock / boost)", ()),
                                           launch("datasheet, unscaled (no measured clock)", ("fp32",))]))
    assert "scaled to each launch's measured clock" in note or "the others scaled" in note
    assert "unscaled (the report holds no measured clock)" not in note


def test_every_roof_from_the_datasheet_only_where_no_launch_had_one_of_its_own():
    """A report mixing a launch with its own FP32 peak and one without: not every roof came from the datasheet, so
    the table keeps its "the report's peak counters x ..." line."""
    from types import SimpleNamespace

    from roofline.analysis.view import scaled_roofs
    from roofline.core.model import Ceilings

    def launch(scaled: dict[str, str]):
        return SimpleNamespace(ceilings={"kernel-clock": Ceilings("kernel-clock", {"fp32": 1e12}, {}, scaled=scaled)},
                               duration_s=SimpleNamespace(value=1e-3))

    datasheet = launch({"fp32": "datasheet x 0.9"})
    assert scaled_roofs([datasheet, datasheet]).every
    assert not scaled_roofs([datasheet, launch({})]).every


def test_recoverable_time_stops_at_the_launch_floor() -> None:
    """duration x (1 - attained / 100), at most the duration above the 1.5 us launch floor: a 1 us launch recovers
    nothing, a 2 us one at most 0.5 us, a 1 ms one its whole gap; NaN stays NaN and a small grid recovers 0."""
    import numpy as np

    from roofline.analysis.roofline import recoverable_time

    duration = np.array([1e-6, 2e-6, 1e-3, np.nan, 1e-3])
    bound = np.array(["latency", "latency", "memory", "memory", "small_grid"], dtype=object)
    pct = np.array([10.0, 10.0, 60.0, 50.0, 10.0])
    saved = recoverable_time(duration, bound, pct, np.full(5, np.nan), np.full(5, np.nan))
    assert saved[:3] == pytest.approx([0.0, 0.5e-6, 0.4e-3]) and np.isnan(saved[3]) and saved[4] == 0.0


def test_recoverable_time_takes_the_busiest_sm_unit_in_whole_blocks_per_sm() -> None:
    """A unit inside the SMs at 90% of its peak over 1.5 blocks per SM: the SM with 2 blocks works 2 / 1.5 as long
    as the average one, so its unit is at its peak already (120%) and nothing is recoverable; at 4.5 blocks per SM
    (5 / 4.5) 100%; a unit at 60% over 6 blocks per SM (whole) leaves 40%."""
    import numpy as np

    from roofline.analysis.roofline import recoverable_time
    from roofline.analysis.verdict import whole_blocks

    blocks = np.array([150.0, 450.0, 600.0])
    whole = np.array([90.0, 90.0, 60.0]) * whole_blocks(blocks, 100)
    assert whole == pytest.approx([120.0, 100.0, 60.0])
    duration, pct = np.full(3, 1e-3), np.array([90.0, 90.0, 60.0])
    saved = recoverable_time(duration, np.array(["compute"] * 3, dtype=object), pct, pct, whole)
    assert saved == pytest.approx([0.0, 0.0, 0.4e-3])


def test_a_rate_or_intensity_missing_for_want_of_metrics_says_so_as_data(shared_report) -> None:
    """docs/python-api.md's example: a launch's Tensor FLOP/s is missing for want of the Tensor FLOP counters; the
    rate keeps the count's cause, metrics and option, as an intensity does its bytes' (A100 and A10G basic sets)."""
    from roofline.analysis.results import Cause
    from roofline.pipeline import analyze_files

    k = analyze_files([shared_report("a100-40gb_cublas-sgemm_basic")])[0].launches[0]  # no SASS counts either
    rate, count = k.flop_per_s["tensor"], k.flops["tensor"]
    assert rate.value is None and rate.cause is Cause.MISSING_METRICS
    assert (rate.missing, rate.collect) == (count.missing, count.collect) and rate.missing
    basic = analyze_files([shared_report("a10g_sgemm-progression_basic")])[0].launches[0]
    for v in (basic.bytes_per_s["dram"], basic.intensity["dram"]):
        assert v.value is None and v.cause is Cause.MISSING_METRICS and v.missing and v.collect


@pytest.mark.parametrize("name", ["a100-40gb_tree-search_full_ncu2020.3", "rtx3080_sgemm-vs-cublas_full"])
def test_the_clock_note_says_unlocked_only_at_the_gpus_maximum_clock(shared_report, raw_actions, name) -> None:
    """ncu locks the SM clock to base unless --clock-control none: the A100 tree search ran at 1.41 GHz, the
    A100 PCIe's maximum (device__attribute_max_gpu_frequency_khz), so unlocked; the RTX 3080 SGEMM at 1.43 GHz,
    under its maximum, locked. Decided here from the raw values, with 2% of slack."""
    from roofline.pipeline import analyze_files

    raw = raw_actions(name)[0]
    unlocked = raw["sm__cycles_elapsed.avg.per_second"] >= 0.98 * raw["device__attribute_max_gpu_frequency_khz"] * 1e3
    note = analyze_files([shared_report(name)])[0].launches[0].ceilings["measured-clock"].clock_note
    assert ("not locked" in note) == unlocked and ("locked to base" in note) == (not unlocked)
    assert unlocked == name.startswith("a100-40gb_tree")


@pytest.mark.parametrize("name", ["rtx4090_smem-transpose_full", "v100_miniweather-openacc_full",
                                  "a40_julia-fp16x2_full", "rtx3070_daxpy-nvtx_custom"])
def test_a_report_roofs_scaling_is_that_of_the_launch_whose_roof_it_shows(shared_report, name):
    """Where launches ran at other clocks, each report roof is their time-weighted median: the scaling it states
    (factor and clocks) is the one of a launch whose scaled roof equals it, not the first launch's."""
    from roofline.analysis.roofline import report_level_ceilings
    from roofline.pipeline import analyze_files

    launches = list(analyze_files([shared_report(name)])[0].launches)
    report = report_level_ceilings(launches)["kernel-clock"]
    assert report.scaled
    for key, how in report.scaled.items():
        at_median = [k.ceilings["kernel-clock"] for k in launches
                     if k.ceilings["kernel-clock"].roof(key) == report.roof(key)]
        assert at_median and all(c.scaled[key] == how for c in at_median)


def test_every_report_clock_note_describes_the_launch_at_the_median_clock(shared_report, raw_actions):
    """RTX 4090 transpose: its 5 launches ran at 1.65 to 2.24 GHz (raw GPC clocks) against the 2.235 GHz base clock
    of its spec. The kernel-clock note read the launch at the median roof (1.89 GHz) and the measured-clock note,
    which has no roof, the first launch (2.24 GHz), "locked to base" both: each now reads the launch at the
    time-weighted median clock, judges it against the base (15% below it) and says the launches ran at different
    clocks."""
    from roofline.analysis.roofline import POOLED_NOTE, report_level_ceilings
    from roofline.pipeline import analyze_files

    name = "rtx4090_smem-transpose_full"
    raw = [(r["gpc__cycles_elapsed.avg.per_second"], r["gpu__time_duration.sum"]) for r in raw_actions(name)]
    clocks = sorted(raw)
    half, acc = sum(t for _, t in clocks) / 2, 0.0
    median = next(c for c, t in clocks if (acc := acc + t) >= half)
    assert max(c for c, _ in raw) / min(c for c, _ in raw) > 1.3 and f"{median / 1e9:.3g}" == "1.89"
    sets = report_level_ceilings(list(analyze_files([shared_report(name)])[0].launches))
    for source in ("kernel-clock", "measured-clock"):
        note = sets[source].clock_note
        below = 100 * (1 - median / 2.235e9)
        assert note.startswith(f"measured SM clock {median / 1e9:.3g} GHz, {below:.0f}% below the base clock 2.23 GHz")
        assert POOLED_NOTE.format(len(raw)) in note and "locked to base unless" not in note, source


def test_the_h800s_datasheet_tensor_roof_is_scaled_from_the_1830_mhz_its_figure_holds_at(shared_report):
    """The H800 report holds no Tensor peak counter: each launch's kernel-clock Tensor roof is the datasheet's dense
    FP16 figure (the H100 SXM5's 989.4 TFLOP/s, quoted at 1830 MHz) x the launch's measured SM clock / 1830 MHz,
    not / the 1980 MHz boost."""
    from roofline.pipeline import analyze_files

    a = analyze_files([shared_report("h800_flash-attn-fwd_full")])[0]
    checked = 0
    for k in a.valid_launches:
        clock = k.launch.metrics.get("sm__cycles_elapsed.avg.per_second")
        if not clock or "tensor" not in k.ceilings["kernel-clock"].scaled:
            continue
        assert k.ceilings["kernel-clock"].roof("tensor") == pytest.approx(989.4e12 * clock / 1.83e9, rel=1e-9)
        checked += 1
    assert checked


def test_an_fp64_tensor_figure_is_scaled_from_the_boost_and_the_others_from_the_tensor_clock():
    """The H100 SXM5's FP64 Tensor figure (66.9 TFLOP/s = 132 SMs x 256 FLOP/clk x 1.98 GHz) holds at the boost,
    its FP16 one at 1830 MHz: a launch at 1.58 GHz takes 1.58/1.98 of the first and 1.58/1.83 of the second."""
    from roofline.analysis.roofline import _clock_factor
    from roofline.specs.catalog import load_catalog

    spec = load_catalog().get("h100-sxm5")
    device = Device(name="NVIDIA H100 80GB HBM3", compute_capability="9.0", sm_count=132, max_clock_hz=1.98e9)
    at = KernelLaunch(0, 0, "k", metrics={"sm__cycles_elapsed.avg.per_second": 1.58e9})
    assert _clock_factor("tensor", spec, at, device, "fp64")[0] == pytest.approx(1.58 / 1.98, rel=1e-12)
    assert _clock_factor("tensor", spec, at, device, "fp16")[0] == pytest.approx(1.58 / 1.83, rel=1e-12)
    assert _clock_factor("fp32", spec, at, device, "fp16")[0] == pytest.approx(1.58 / 1.98, rel=1e-12)


def test_the_clock_note_compares_the_clock_with_the_specs_base(shared_report, raw_actions) -> None:
    """The T4 report ran at 541 MHz, 7.5% under the T4's 585 MHz base clock (product brief): the note says so
    instead of "locked to base" (issue: it said "locked to base" beside 0.541 GHz)."""
    from roofline.pipeline import analyze_files

    raw = raw_actions("t4_matrix-add-2d_full")[0]
    below = 1 - raw["sm__cycles_elapsed.avg.per_second"] / 585e6
    note = analyze_files([shared_report("t4_matrix-add-2d_full")])[0].launches[0].ceilings["measured-clock"].clock_note
    assert f"{100 * below:.0f}% below the base clock 0.585 GHz" in note and "not locked to base" in note
    assert "locked to base (" not in note


def test_a_basic_set_clock_note_reads_the_gpc_clock(shared_report, raw_actions) -> None:
    """A basic set holds no sm__cycles_elapsed.avg.per_second, only the GPC clock: the note gives that clock and
    compares it with the spec's base (the A10G's 1.31 GHz) instead of saying nothing but "measured clocks"."""
    from roofline.pipeline import analyze_files

    raw = raw_actions("a10g_sgemm-progression_basic")[0]
    assert not raw.has("sm__cycles_elapsed.avg.per_second")
    gpc = raw["gpc__cycles_elapsed.avg.per_second"]
    launch = analyze_files([shared_report("a10g_sgemm-progression_basic")])[0].launches[0]
    note = launch.ceilings["measured-clock"].clock_note
    assert note.startswith(f"measured SM clock {gpc / 1e9:.3g} GHz, locked to base (1.31 GHz)")


def test_the_clock_note_of_each_state() -> None:
    from roofline.analysis.roofline import _clock_note

    assert _clock_note(1.0e9, 1.5e9, 1.01e9) == "measured SM clock 1 GHz, locked to base (1.01 GHz)"  # within 3%
    assert "above the base clock 0.8 GHz: not locked" in _clock_note(1.0e9, 1.5e9, 0.8e9)
    assert "20% below the base clock 1.25 GHz" in _clock_note(1.0e9, 1.5e9, 1.25e9)
    assert _clock_note(1.0e9, 1.5e9) == ("measured SM clock 1 GHz, not judged: the spec gives no base clock (ncu "
                                         "locks base unless --clock-control none)")
    assert "the GPU's maximum: not locked" in _clock_note(1.5e9, 1.5e9, 1.0e9)


def test_roofs_all_printed_as_zero_name_the_same_limiter() -> None:
    """Two identical launches, one with a few DRAM bytes and one with none, printed "0.0% DRAM" and "0.0% FP64":
    under 0.05% (all print 0.0%) the limiter is the first memory level, then precision, that has a roof."""
    import numpy as np

    from roofline.analysis.roofline import roof_limiter

    assert roof_limiter({"fp64": 0.0, "fp32": 0.0, "dram": 1e-5, "l2": 0.0}) == "dram"
    assert roof_limiter({"fp64": 0.0, "fp32": 0.0, "dram": 0.0, "l2": 0.0}) == "dram"
    assert roof_limiter({"fp64": 0.01, "fp32": 0.0, "l2": 0.02}) == "l2"
    assert roof_limiter({"fp32": 52.0, "dram": 40.0}) == "fp32"  # above what is shown: the largest, as before
    cohort = {"fp64": np.array([0.0, 0.0, 0.0]), "dram": np.array([0.0, 1e-5, 30.0]),
              "fp32": np.array([0.0, 0.0, 31.0])}
    assert list(roof_limiter(cohort)) == ["dram", "dram", "fp32"]


def test_a_clock_from_cycles_over_the_duration_is_named_so_and_not_called_held_down() -> None:
    """Elapsed cycles over gpu__time_duration reads low on a short launch (the duration counts its start): 5% under
    the base is not called "held down by power or heat" then, as a clock metric's reading would be."""
    from roofline.analysis.roofline import _clock_note

    read = _clock_note(1.9e9, 2.5e9, 2.0e9)
    derived = _clock_note(1.9e9, 2.5e9, 2.0e9, read=False)
    assert "held down by power or heat" in read and read.startswith("measured SM clock 1.9 GHz")
    assert derived == ("SM clock 1.9 GHz (elapsed cycles over the duration), below the base clock 2 GHz: not judged "
                       "(the duration counts the launch's start)")
    assert _clock_note(1.99e9, 2.5e9, 2.0e9, read=False).endswith("locked to base (2 GHz)")


def test_a_launch_under_20_us_is_not_called_held_down_by_its_clock_note(shared_report) -> None:
    """ncu reads a short launch's SM clock low (the V100 halo kernels: 0.61-0.78 GHz at 11-13 us, locked at 1.29)."""
    from roofline.pipeline import analyze_files

    for k in analyze_files([shared_report("v100_miniweather-openacc_full")])[0].launches:
        note = k.ceilings["measured-clock"].clock_note
        if (k.duration_s.value or 0.0) < 20e-6:
            assert "not judged (a launch of" in note and "held down" not in note, note
        else:
            assert "locked to base (1.29 GHz)" in note, note


def test_small_grid_time_is_unknown_without_a_time_or_a_verdict() -> None:
    """A small grid's time, 0 for another verdict, NaN (not 0) for a launch without a time or without a verdict:
    whether that one is a small grid is not known."""
    import numpy as np

    from roofline.analysis.roofline import small_grid_time

    duration = np.array([2e-6, 3e-6, np.nan, 4e-6])
    bound = np.array(["small_grid", "memory", "small_grid", None], dtype=object)
    out = small_grid_time(duration, bound)
    assert out[:2].tolist() == [2e-6, 0.0] and np.isnan(out[2]) and np.isnan(out[3])


METRICS_ONLY = "rtx5060ti_transpose-occupancy-45launches_metrics"


def test_a_group_whose_launches_have_no_verdict_has_no_small_grid_time_not_0(roofline_report, raw_actions) -> None:
    """RTX 5060 Ti transpose, a metrics-only report: the raw report (ncu_report) times each valid launch
    (gpu__time_duration.sum) but holds no SpeedOfLight throughput and no FP or DRAM counter, so no launch has a
    verdict: whether any is a small grid is not known, and the group's small-grid time is None, not 0 (its total
    is the raw times summed)."""
    import math

    from roofline.pipeline import analyze_loaded

    timed = [r for r in raw_actions(METRICS_ONLY) if r.has("gpu__time_duration.sum")]
    counters_ = (SM, MEMORY, "dram__bytes.sum", "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum")
    assert timed and not any(r.has(name) for r in timed for name in counters_)
    (group,) = analyze_loaded(roofline_report(METRICS_ONLY)).groups
    assert group.total_s == pytest.approx(sum(r["gpu__time_duration.sum"] for r in timed) * 1e-9)
    assert len(group.launches) == len(timed) and group.small_grid_s is None
    columns = group.launches.table.columns
    assert all(math.isnan(columns.small_grid[i]) for i in group.launches.indices.tolist())


def test_launches_whose_clocks_round_apart_but_lie_within_one_percent_are_not_called_pooled(shared_report, raw_actions):
    """The RTX 5060 Ti basic report's two launches ran 0.17% apart, their notes' clocks rounded to different texts:
    its measured-clock set (no peak counter, no roof) is one clock, not 'launches which ran at different clocks'; the
    A10G progression's launches, 2% apart, are."""
    from roofline.analysis.roofline import POOLED_NOTE, report_level_ceilings
    from roofline.pipeline import analyze_files

    for name, apart in (("rtx5060ti_transpose_basic", False), ("a10g_sgemm-progression_basic", True)):
        launches = list(analyze_files([shared_report(name)])[0].launches)
        clocks = [r["gpc__cycles_elapsed.avg.per_second"] for r in raw_actions(name)]
        assert (max(clocks) / min(clocks) > 1.01) is apart
        texts = {k.ceilings["measured-clock"].clock for k in launches}
        assert len(texts) > 1, name
        note = report_level_ceilings(launches)["measured-clock"].clock_note
        assert (POOLED_NOTE.format(len(launches)) in note) is apart, (name, note)


def test_without_a_measured_clock_a_datasheet_roof_is_capped_at_the_gpus_own_maximum_clock(shared_report):
    """The RTX 4050 Laptop report measured no SM clock and gives its GPU's maximum as 1605 MHz
    (max_gpu_frequency_khz), below the 2.37 GHz boost its datasheet figures hold at: the kernel-clock compute roofs
    are the datasheet's x 1.605/2.37 (no kernel ran faster than that clock), DRAM stays at the datasheet's."""
    from roofline.pipeline import analyze_files
    from roofline.render.report.prose import scaled_roofs_note
    from roofline.specs.catalog import load_catalog
    from tests.views import view

    (a,) = analyze_files([shared_report("rtx4050-laptop_rgb-coalesced_memchart")])
    spec = load_catalog().get("rtx-4050-laptop")
    assert a.device.max_clock_hz == 1.605e9 and spec.boost_clock_hz > 2.3e9
    (k,) = a.launches
    kc = k.ceilings["kernel-clock"]
    assert kc.roof("fp32") == pytest.approx(spec.peaks["fp32"] * 1.605e9 / spec.boost_clock_hz, rel=1e-9)
    assert kc.roof("dram") == pytest.approx(spec.memory_bandwidth_bytes_per_s, rel=1e-9)
    assert "maximum SM clock 1.605 GHz" in kc.scaled["fp32"] and "dram" in kc.unscaled
    assert "the others scaled to the GPU's maximum SM clock" in scaled_roofs_note(view(a).scaled)


# --- Several reports of one job (MPI ranks) ----------------------------------------------------------------
def rank(path: str, kernels: dict[str, float], device: Device = DEVICE):
    """One rank's report: one launch per kernel name, of that many milliseconds."""
    return analyze_report(Report(path, device, tuple(launch(name, i, seconds=ms * MS, ffma=1e9, dram=5e8)
                                                     for i, (name, ms) in enumerate(kernels.items())), source="model"))


def test_a_rank_sharing_no_kernel_with_the_others_is_flagged_missing_and_the_others_still_compared():
    """Ranks 0 and 1 run k (1 ms and 1.3 ms), rank 3 only other: k's 30% spread between 0 and 1 is flagged (and it
    is missing from rank 3), other is flagged as missing from ranks 0 and 1; no note, the kernels are compared."""
    ranks = [rank("r0", {"k": 1.0}), rank("r1", {"k": 1.3}), rank("r3", {"other": 1.0})]
    spreads = {s.name: s for s in spread_across_reports(ranks, 10.0)}
    assert spreads.keys() == {"k", "other"}
    assert spreads["k"].total_s == pytest.approx({"r0": 1 * MS, "r1": 1.3 * MS})  # r3 did not run it: left out
    assert spreads["k"].spread_pct == pytest.approx(30.0) and spreads["k"].flagged
    assert spreads["other"].total_s == pytest.approx({"r3": 1 * MS})
    assert spreads["other"].spread_pct is None and spreads["other"].flagged
    assert across_reports_note(ranks, tuple(spreads.values())) == ""
    even = {s.name: s for s in spread_across_reports([rank("r0", {"k": 1.0}), rank("r1", {"k": 1.05})], 10.0)}
    assert not even["k"].flagged  # 5%, both ran it: not flagged


def test_reports_with_no_kernel_in_two_of_them_or_from_different_gpus_are_not_compared_and_say_why():
    """Reports of one kernel from different GPUs: one note instead of a table that silently vanishes, naming the GPUs
    (each report by its number in the order given); reports with no kernel in common (two programs, as the README's
    example gives): no table and nothing to say."""
    apart = [rank("r0", {"k": 1.0}), rank("r1", {"other": 1.0})]
    assert spread_across_reports(apart, 10.0) == () and across_reports_note(apart, ()) == ""
    other_gpu = Device(name="NVIDIA Other GPU", compute_capability="7.5", sm_count=40)
    mixed = [rank("r0", {"k": 1.0}), rank("r1", {"k": 1.3}), rank("r2", {"k": 2.0}, other_gpu)]
    assert spread_across_reports(mixed, 10.0) == ()
    assert across_reports_note(mixed, ()) == ("kernels not compared: they come from different GPUs (reports 1, 2: "
                                              "NVIDIA Test GPU; report 3: NVIDIA Other GPU)")
    assert across_reports_note([rank("r0", {"k": 1.0})], ()) == ""  # one report: nothing to compare, nothing to say

