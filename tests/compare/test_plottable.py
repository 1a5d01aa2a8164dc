"""Whether a comparison's plot holds a point: decided in the compare stage, read by the plot and the command."""

from __future__ import annotations

from roofline.analysis.plot_place import Place
from roofline.analysis.roofline import analyze_report
from roofline.compare.pairing import pair_reports
from roofline.compare.plottable import Plottable, plottable
from roofline.core.model import Device, KernelLaunch, Report


def _launch(i: int, name: str, flops: float, dram: float) -> KernelLaunch:
    metrics = {"gpu__time_duration.sum": 1e6, "dram__bytes.sum": dram,
               "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum": flops / 2,
               "sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained": 1000.0,
               "sm__cycles_elapsed.avg.per_second": 1e9, "dram__bytes.sum.peak_sustained": 100.0,
               "dram__cycles_elapsed.avg.per_second": 1e9}
    return KernelLaunch(range_index=0, action_index=i, name=name, metrics=metrics)


def _report(path: str, *launches: KernelLaunch) -> Report:
    return Report(path=path, device=Device(name="Synthetic GPU"), launches=launches, source="model")


def test_a_kernel_with_flops_and_dram_bytes_is_placed_and_one_without_flops_is_not():
    """The copy counts no FP32 FLOPs and its FP64, FP16 and Tensor FLOPs are not measured: its intensity is not
    measured (it may do its math in those), not "no floating-point work"."""
    c = pair_reports([analyze_report(_report("a.json", _launch(0, "gemm", 1e9, 1e7), _launch(1, "copy", 0.0, 1e7)))])
    assert {p.label: p.base.place for p in c.pairs} == {"gemm": Place.PLACED, "copy": Place.NO_INTENSITY}
    assert next(p for p in c.pairs if p.label == "gemm").base.normalized_place is Place.PLACED
    assert c.plottable is Plottable.PLOTTABLE and plottable([p.sides for p in c.pairs]) is Plottable.PLOTTABLE


def test_a_comparison_without_pairs_or_without_a_placed_side_says_why():
    assert plottable([]) is Plottable.NO_PAIRS
    copies = pair_reports([analyze_report(_report("a.json", _launch(0, "copy", 0.0, 1e7)))])
    assert copies.plottable is Plottable.NO_PLACE
    apart = pair_reports([analyze_report(_report("a.json", _launch(0, "gemm", 1e9, 1e7))),
                          analyze_report(_report("b.json", _launch(0, "other", 1e9, 1e7)))])
    assert apart.plottable is Plottable.NO_PAIRS
