"""The summary plot's numbers: a GPU's groups merged over its reports, their bars and marker sizes."""

from __future__ import annotations

import pytest
from msgspec.structs import replace

from roofline.analysis.roofline import analyze_report
from roofline.compare.places import gpu_groups, gpu_panels
from roofline.compare.ranking import summarize
from roofline.core.model import Device, KernelLaunch, Report


def _launch(i: int, name: str, duration_s: float) -> KernelLaunch:
    metrics = {"gpu__time_duration.sum": duration_s * 1e9, "dram__bytes.sum": 1e7,
               "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum": 5e8}
    return KernelLaunch(range_index=0, action_index=i, name=name, metrics=metrics)


def _summary(path: str, times: dict[str, float]):
    launches = tuple(_launch(i, name, t) for i, (name, t) in enumerate(times.items()))
    report = Report(path=path, device=Device(name="Synthetic GPU"), launches=launches, source="model")
    return summarize(analyze_report(report), "kernel", 10, label=path)


def test_groups_of_two_reports_are_summed_numbered_and_sized_by_the_longest_row():
    merged = gpu_groups([_summary("a.json", {"big": 4e-3, "small": 1e-3}),
                         _summary("b.json", {"big": 8e-3, "small": 2e-3})])
    assert [(g.name, g.number, len(g.rows)) for g in merged.groups] == [("big", 1, 2), ("small", 2, 2)]
    bars = [g.bar for g in merged.groups]
    assert [b.total_s for b in bars if b] == pytest.approx([12e-3, 3e-3])
    assert merged.unit == "ms" and [b.total for b in bars if b] == pytest.approx([12.0, 3.0])
    assert merged.total_s == pytest.approx(15e-3)
    assert [b.share_pct for b in bars if b] == pytest.approx([80.0, 20.0])
    assert merged.sizes == pytest.approx((0.5, 0.125, 1.0, 0.25))  # each row over the longest (big in b: 8 ms)


def test_an_unknown_recoverable_time_leaves_the_whole_bar_attained():
    (group,) = gpu_groups([_summary("a.json", {"k": 2e-6})]).groups
    assert group.bar is not None and group.bar.recoverable_s is None  # no roof: no peak counters
    assert (group.bar.attained, group.bar.recoverable) == pytest.approx((2.0, 0.0))


def test_panels_put_the_reports_of_one_gpu_together_in_the_order_of_their_first():
    a, b = _summary("a.json", {"k": 1e-3}), _summary("b.json", {"k": 2e-3})
    other = replace(b, report=replace(b.report, device="Other GPU"))
    panels = gpu_panels([a, other, b])
    assert [[s.report.label for s in p.summaries] for p in panels] == [["a.json", "b.json"], ["b.json"]]
    assert panels[0].groups[0].bar is not None and panels[0].groups[0].bar.total_s == pytest.approx(3e-3)


def test_one_reports_groups_are_numbered_with_its_tables_ranks_not_by_recoverable_time():
    """A group placed by a larger figure that ranked it (its time to gain) than another is numbered before it
    whatever their recoverable times: the plot's numbers are the table's ranks."""
    summary = _summary("a.json", {"big": 4e-3, "small": 1e-3})
    big, small = summary.rows
    swapped = replace(summary, rows=(replace(small, rank=1, ranked_by_value_s=9.0),
                                     replace(big, rank=2, ranked_by_value_s=1.0)))
    merged = gpu_groups([swapped])
    assert [(g.name, g.number) for g in merged.groups] == [("small", 1), ("big", 2)]


def test_groups_placed_by_their_total_time_come_last_in_their_tables_order():
    summary = _summary("a.json", {"big": 4e-3, "small": 1e-3})
    big, small = summary.rows
    rows = (replace(big, rank=1, ranked_by_kind="time_to_gain", ranked_by_value_s=1e-6),
            replace(small, rank=2, ranked_by_kind="total_time", ranked_by_value_s=1.0))
    merged = gpu_groups([replace(summary, rows=rows)])
    assert [(g.name, g.number) for g in merged.groups] == [("big", 1), ("small", 2)]


def test_a_bar_counts_its_small_grid_time_apart_from_the_time_held_at_the_peaks():
    """Two reports of one kernel, its launches a small grid in one (ncu's "Small Grid": both throughputs under 60%,
    under one wave) and at 85% of DRAM in the other: the bar's small-grid time is the small grid's, within the part
    not recoverable, and the rest of that part is held by the units' peaks, in the panel's unit."""
    from roofline.analysis.roofline import analyze_report

    def one(path: str, duration_s: float, metrics: dict[str, float]):
        launch = _launch(0, "k", duration_s)
        launch = replace(launch, metrics={**launch.metrics, **metrics})
        report = Report(path=path, device=Device(name="Synthetic GPU"), launches=(launch,), source="model")
        return summarize(analyze_report(report), "kernel", 10, label=path)

    throughputs = ("sm__throughput.avg.pct_of_peak_sustained_elapsed",
                   "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
                   "launch__waves_per_multiprocessor")
    small = one("a.json", 3e-3, dict(zip(throughputs, (20.0, 30.0, 0.5), strict=True)))
    busy = one("b.json", 1e-3, dict(zip(throughputs, (40.0, 85.0, 4.0), strict=True)))
    assert small.rows[0].group.small_grid_s == pytest.approx(3e-3) and busy.rows[0].group.small_grid_s == 0.0
    (group,) = gpu_groups([small, busy]).groups
    bar = group.bar
    assert bar is not None and bar.recoverable_s == pytest.approx(1e-3 * 0.15)  # the busy launch's 15% to DRAM's peak
    assert (bar.small_grid_s, bar.small_grid) == pytest.approx((3e-3, 3.0))  # ms
    assert bar.peak_bound == pytest.approx(0.85) and bar.attained == pytest.approx(3.85)
    assert bar.peak_bound + bar.small_grid + bar.recoverable == pytest.approx(bar.total)
