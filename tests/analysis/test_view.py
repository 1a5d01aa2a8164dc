"""One view per report (``analysis.view``): what every renderer shows is decided here, from the analysis, with why
values are n/a as data (a cause, the values, the metrics missing, the option collecting them)."""

from __future__ import annotations

import pytest

from roofline.analysis.results import Cause
from roofline.analysis.roofline import analyze_report
from roofline.analysis.view import report_set, report_view
from roofline.ncu import metrics as m
from tests.synthetic import COMPUTE_BOUND, OLD_GPU, launch, model


def analysed(path: str = "app.json", gemm_s: float = 5e-3, copy_s: tuple[float, ...] = (2e-3, 3e-3)):
    """A compute-bound GEMM (2 GFLOP FP32 in ``gemm_s``) and copies (400 MB each, no FLOPs, no throughputs)."""
    copies = [launch(i, "copy", s, 0.0, 4e8, OLD_GPU) for i, s in enumerate(copy_s, 1)]
    return analyze_report(model(path, [launch(0, "gemm", gemm_s, 2e9, 1e8, OLD_GPU, sol=COMPUTE_BOUND), *copies]))


def test_the_view_ranks_and_advises_by_time_to_gain_and_keeps_a_figure_per_launch():
    a = analysed()
    v = report_view(a)
    # the GEMM is at 85% SM: 15% of its 5 ms is recoverable; the copies have no throughputs and no FLOP roof time
    assert [g.name for g in v.ranking] == ["gemm", "copy"] and [k.group.name for k in v.advised] == ["gemm", "copy"]
    assert abs(v.recoverable_s[0] - 0.15 * 5e-3) < 1e-12 and len(v.recoverable_s) == 3
    assert v.gains == tuple(g.recoverable_s for g in v.ranking)  # no small grid: time to gain = recoverable time
    assert v.analysis.launches[0].verdict.bound == "compute" and v.ceilings.keys() == {"kernel-clock", "measured-clock"}
    assert v.scaled is None  # the report holds every peak counter: no roof from a datasheet
    assert [p is not None for p in v.pooled] == [True, True] and v.pooled[1].count == 2


def test_values_missing_for_want_of_metrics_are_grouped_by_the_option_that_collects_them():
    v = report_view(analysed())
    by_option = {u.collect: u for u in v.unavailable}
    assert all(u.cause is Cause.MISSING_METRICS for u in v.unavailable)
    fp64 = by_option[m.HINT_FLOPS]
    assert fp64.values == (("FLOPs", "FP64"), ("kernel-clock roof", "FP64")) and len(fp64.launches) == 3
    assert fp64.missing == ("smsp__sass_thread_inst_executed_op_dfma_pred_on.sum",)
    assert by_option[m.HINT_CACHE].values[0] == ("bytes", "L2, L1")


def test_the_spread_across_reports_is_part_of_the_view_only_with_a_threshold():
    a, b = analysed("a.json"), analysed("b.json", gemm_s=6e-3, copy_s=(2e-3,))
    assert report_set([a, b]).spreads == ()
    spreads = {s.name: s for s in report_set([a, b], 10.0).spreads}
    assert abs(spreads["gemm"].spread_pct - 20.0) < 1e-9 and spreads["gemm"].flagged  # 6 ms against 5 ms
    assert abs(spreads["copy"].spread_pct - 150.0) < 1e-9  # 5 ms against 2 ms
    assert not report_set([a, b], 200.0).spreads[0].flagged


def test_a_launch_ncu_measured_nothing_adds_no_datasheet_roof_to_the_note(shared_report):
    """H800: the failed flash_fwd_kernel launch (every counter NaN) took all its roofs from the datasheet, unscaled;
    it weighs nothing in the report's roofs, so the note names only the FP16 and Tensor roofs the timed launches
    took from the datasheet, scaled, as the table's stars and the JSON do."""
    from roofline.pipeline import analyze_files, build_view

    (v,) = build_view(analyze_files([shared_report("h800_flash-attn-fwd_full")])).reports
    assert v.scaled is not None and v.scaled.roofs == ("fp16", "tensor") and v.scaled.unscaled == ()
    assert not v.scaled.every and set(v.ceilings["kernel-clock"].scaled) == {"fp16", "tensor"}


def test_a_report_with_no_peak_counter_has_every_roof_from_the_datasheet(shared_report):
    """RTX 4090 custom sections: no peak counter and no clock; the view says every kernel-clock roof is the
    datasheet's, and the table does not claim the report's peak counters."""
    from typer.testing import CliRunner

    from roofline.cli.app import app
    from roofline.pipeline import analyze_files, build_view

    path = shared_report("rtx4090_torch-linear-sgemm_custom")
    (v,) = build_view(analyze_files([path])).reports
    assert v.scaled is not None and v.scaled.every and v.scaled.unscaled == v.scaled.roofs
    result = CliRunner().invoke(app, ["report", str(path)], env={"COLUMNS": "100"})
    assert result.exit_code == 0 and "peak counters x" not in result.stdout
    assert "no peak counter in the report" in " ".join(result.stdout.split())


def test_a_report_with_no_timed_launch_notes_the_roofs_its_launches_took_from_the_datasheet(shared_report):
    """GH200 --metrics report: no launch has a duration, so the report's roofs are every launch's; each starred
    kernel-clock roof is the datasheet's, unscaled (no clock), and the table says so rather than claiming peak
    counters."""
    from typer.testing import CliRunner

    from roofline.cli.app import app
    from roofline.pipeline import analyze_files, build_view

    path = shared_report("gh200_silu_metrics")
    (v,) = build_view(analyze_files([path])).reports
    assert not any(k.duration_s.value for k in v.analysis.launches)
    assert v.scaled is not None and v.scaled.every and set(v.scaled.roofs) == set(v.ceilings["kernel-clock"].scaled)
    result = CliRunner().invoke(app, ["report", str(path)], env={"COLUMNS": "100"})
    text = " ".join(result.stdout.split())
    assert result.exit_code == 0 and "peak counters x" not in text and "no peak counter in the report" in text


def test_a_gpu_without_tensor_cores_gets_no_tensor_roof_and_no_fix_for_tensor_flops(roofline_report):
    """The GTX 1660 SUPER (TU116) has no Tensor Cores: its SASS holds no matrix instruction (an exact 0), and no
    re-profiling would find any, so neither the roof row nor the n/a line offers one. FP16, which TU116 executes,
    keeps its row and its fix."""
    v = report_view(analyze_report(roofline_report("gtx1660super_sgemm-naive_full")))
    assert "tensor" not in v.roof_keys and "fp16" in v.roof_keys
    named = [name for u in v.unavailable for _, names in u.values for name in names.split(", ")]
    assert "Tensor" not in named and "FP16" in named
    # the launch's own value: its SASS (SourceCounters) holds no matrix instruction, an exact 0
    assert v.analysis.launches[0].flops["tensor"].value == 0.0


def test_the_scaled_roofs_note_names_only_the_roofs_shown():
    """A kernel that ran FP32 only on a GPU whose report has no FP16 and Tensor peak counters (the RTX 3070 Ti
    beamforming report of the issue): the ceilings show no Tensor row, so the note on the roofs taken from the
    datasheet names FP16 or Tensor only where their rows are shown."""
    from types import SimpleNamespace

    from roofline.analysis.view import scaled_roofs

    ceilings = SimpleNamespace(scaled={"fp16": "x", "tensor": "x"}, unscaled=(), at_max_clock=False,
                               flop_per_s={"fp32": 1.0, "fp16": 2.0, "tensor": 4.0}, bytes_per_s={"dram": 1.0})
    launch = SimpleNamespace(duration_s=SimpleNamespace(value=1e-3), ceilings={"kernel-clock": ceilings})
    assert scaled_roofs([launch]).roofs == ("fp16", "tensor")  # every roof, as before
    assert scaled_roofs([launch], ("fp32", "fp16", "dram", "l2", "l1")).roofs == ("fp16",)
    assert scaled_roofs([launch], ("fp32", "dram", "l2", "l1")) is None  # no note at all


def test_datasheet_ratios_divide_each_set_by_the_datasheet_where_both_are_known():
    from roofline.analysis.view import datasheet_ratios
    from roofline.core.model import Ceilings

    sheet = Ceilings("datasheet", {"fp32": 10e12, "fp64": None}, {"dram": 2e12, "l2": 0.0})
    clock = Ceilings("kernel-clock", {"fp32": 9e12, "fp64": 1e12}, {"dram": 1e12, "l2": 5e12})
    ratios = datasheet_ratios({"datasheet": sheet, "kernel-clock": clock}, ("fp32", "fp64", "dram", "l2"))
    assert ratios == {"kernel-clock": {"fp32": 0.9, "dram": 0.5}}
    assert datasheet_ratios({"kernel-clock": clock}, ("fp32",)) == {}


def test_the_flopless_share_and_the_shares_past_each_kernel_count_the_kernels_each_plot_view_shows():
    from types import SimpleNamespace

    from roofline.analysis.view import LevelPoint, PooledPoints, flopless_share, shares_past

    groups = [SimpleNamespace(time_share=share) for share in (0.5, 0.3, 0.15, 0.05)]
    points = [PooledPoints(1e12, (LevelPoint("dram", 10.0, 1e12, 1e11),)),  # FLOPs: on the roofline
              PooledPoints(None, (LevelPoint("dram", None, None, 2e11),)),  # bytes only
              None,  # no time
              PooledPoints(None, (LevelPoint("l2", None, None, 3e11),))]
    assert flopless_share(groups, points) == 0.3 + 0.05
    past = shares_past(groups, points)
    assert past["roofline"] == (0.5, 0, 0, 0, 0)
    assert past["bandwidth"] == (0.5 + 0.3 + 0.05, 0.3 + 0.05, 0.05, 0.05, 0)


def test_the_view_says_whether_the_plot_adds_the_bandwidth_view():
    view = report_view(analyze_report(model("a.json", [launch(0, "k", 1e-3, 1e6, 1e5, OLD_GPU)])))
    assert view.bandwidth_view == (view.flopless_share > 0.5) and not view.bandwidth_view
    assert view.on_plot  # the kernel has FLOPs and DRAM bytes: a point on the roofline


def test_a_view_without_a_kernel_on_the_plot_says_so():
    import msgspec

    bare = msgspec.structs.replace(launch(0, "k", 1e-3, 1e6, 1e5, OLD_GPU), metrics={"gpu__time_duration.sum": 1e6})
    view = report_view(analyze_report(model("a.json", [bare])))
    assert not view.on_plot and not view.bandwidth_view


def test_the_detail_plots_hold_what_their_renderers_draw() -> None:
    from pathlib import Path

    from roofline.analysis.view import on_detail_plot
    from roofline.facade import Roofline
    from roofline.render.report import instruction_plot, memory_plot, occupancy_plot

    examples = Path(__file__).resolve().parents[2] / "examples" / "h100"
    for name in ("triad-cupy.full.ncu-rep", "triad-cupy.roofline.ncu-rep", "sgemm-cuda.full.json"):
        document = Roofline().report([examples / name])
        view = document.view
        for top in (1, 8):
            drawn = (bool(instruction_plot.plot_data(document.analyses, top)), bool(memory_plot.plot_data(view, top)),
                     bool(occupancy_plot.plot_data(view, top)))
            held = tuple(on_detail_plot(view, plot, top) for plot in ("instruction", "memory", "occupancy"))
            assert held == drawn, (name, top)
    assert held == (True, False, True)  # a model without hit rates: no memory chart



def test_roofs_from_the_datasheet_that_differ_by_launch_are_said_to_be_medians(shared_report, raw_actions):
    """RTX 4090 transposes: no DRAM peak counter, so each launch's DRAM roof is the 1.008 TB/s datasheet x its
    measured DRAM clock / the 10.5 GHz memory clock (983 GB/s for naiveGmem, 757 GB/s for copyGmem, from the raw
    clocks): the one roof shown is their time-weighted median, and with no clock note shown (every roof from the
    datasheet) the footnote on the scaled roofs says so."""
    from roofline.pipeline import analyze_files
    from roofline.render.report.prose import scaled_roofs_note

    raws = raw_actions("rtx4090_smem-transpose_full")
    roofs = [1.008e12 * min(1.0, r["dram__cycles_elapsed.avg.per_second"]
                            / (r["device__attribute_memory_clock_rate"] * 1e3)) for r in raws]
    assert roofs[0] == pytest.approx(983e9, rel=2e-3) and roofs[1] == pytest.approx(757e9, rel=2e-3)
    v = report_view(analyze_files([shared_report("rtx4090_smem-transpose_full")])[0])
    shown = v.ceilings["kernel-clock"].roof("dram")
    assert shown in [pytest.approx(r, rel=1e-9) for r in roofs] and max(roofs) > shown * 1.1
    assert v.scaled is not None and v.scaled.every and v.scaled.pooled == len(raws)
    assert "time-weighted median of 5 launches, which ran at different clocks" in scaled_roofs_note(v.scaled)


def test_roofs_no_launch_differs_from_are_not_called_medians():
    """Launches at one clock (the synthetic report's, every peak counter held): no footnote of medians."""
    v = report_view(analysed())
    assert "different clocks" not in v.ceilings["kernel-clock"].clock_note
