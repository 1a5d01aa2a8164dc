"""roofline.compare.ranking: the whole-application view (`roofline summary`), checked against totals and recoverable
times computed here from raw metric values read with ncu_report directly (``raw_actions``).

recoverable = duration x (1 - attained / 100), attained = the largest of percent of roof, the SM and memory
throughputs and the busiest SM unit in whole blocks per SM (``raw_whole_blocks_pct``); a small grid (both
throughputs below 60%, under one wave) counts 0, its time counted apart.
"""

from __future__ import annotations

import pytest

from roofline.analysis.roofline import analyze_report
from roofline.compare.ranking import summarize
from roofline.core.kernel_names import kernel_key
from roofline.errors import RooflineError
from tests.conftest import raw_whole_blocks_pct
from tests.synthetic import OLD_GPU, REL, launch, model

SM, MEMORY = ("sm__throughput.avg.pct_of_peak_sustained_elapsed",
              "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed")


def small_grid(raw) -> bool:
    return raw[SM] < 60 and raw[MEMORY] < 60 and raw["launch__waves_per_multiprocessor"] < 1


# --- Whole-application view -----------------------------------------------------------------------------
def test_summary_of_a_basic_set_ranks_by_the_gap_to_the_busiest_unit(roofline_report, raw_actions) -> None:
    """A basic set has no FLOP or byte counter but the SpeedOfLight throughputs: recoverable time from them (never
    more than a launch's time above the 1.5 us launch floor), and the small-grid launches counted apart."""
    name = "rtx2070super_alife-143launches_basic"
    summary = summarize(analyze_report(roofline_report(name)), "kernel", 3)
    totals: dict[str, float] = {}
    counts: dict[str, int] = {}
    recoverable: dict[str, float] = {}
    small_grid_time = 0.0
    for a in raw_actions(name):
        t = a["gpu__time_duration.sum"] * 1e-9
        totals[kernel_key(a.name, a.demangled)] = totals.get(kernel_key(a.name, a.demangled), 0.0) + t
        counts[kernel_key(a.name, a.demangled)] = counts.get(kernel_key(a.name, a.demangled), 0) + 1
        saved = 0.0 if small_grid(a) else min(t * (1 - max(a[SM], a[MEMORY]) / 100), max(0.0, t - 1.5e-6))
        recoverable[kernel_key(a.name, a.demangled)] = recoverable.get(kernel_key(a.name, a.demangled), 0.0) + saved
        small_grid_time += t if small_grid(a) else 0.0
    grand = sum(totals.values())
    top = sorted(recoverable, key=lambda k: recoverable[k], reverse=True)[:3]
    assert summary.ranked_by == "recoverable time"
    assert [r.group.name for r in summary.rows] == top
    assert [r.group.recoverable_s for r in summary.rows] == pytest.approx([recoverable[k] for k in top], rel=REL)
    assert [r.group.total_s for r in summary.rows] == pytest.approx([totals[k] for k in top], rel=REL)
    assert [len(r.group.launches) for r in summary.rows] == [counts[k] for k in top]
    assert summary.shown_share == pytest.approx(sum(totals[k] for k in top) / grand, rel=REL)
    assert summary.group_count == len(totals) and summary.report.launches == 143
    assert summary.recoverable_s == pytest.approx(sum(recoverable.values()), rel=REL)
    assert small_grid_time > 0 and summary.small_grid_s == pytest.approx(small_grid_time, rel=REL)


def test_summary_ranks_by_recoverable_time_when_the_roof_is_known(roofline_report, raw_actions):
    name = "rtx3060-laptop_reductions_full"
    summary = summarize(analyze_report(roofline_report(name)), "kernel", 10)
    recoverable = {}
    for raw in raw_actions(name):
        t = raw["gpu__time_duration.sum"] * 1e-9
        pct = 100 * raw["dram__bytes.sum.per_second"] / (raw["dram__bytes.sum.peak_sustained"]
                                                         * raw["dram__cycles_elapsed.avg.per_second"])
        assert not small_grid(raw)
        attained = max(v for v in (pct, raw[SM], raw[MEMORY], raw_whole_blocks_pct(raw)) if v is not None)
        recoverable[raw.name] = t * max(0.0, 1 - attained / 100)
    order = sorted(recoverable, key=recoverable.get, reverse=True)
    assert summary.ranked_by == "recoverable time"
    assert [r.group.name for r in summary.rows] == order
    assert [r.group.recoverable_s for r in summary.rows] == pytest.approx([recoverable[k] for k in order], rel=1e-6)
    assert summary.recoverable_s == pytest.approx(sum(recoverable.values()), rel=1e-6)
    assert summary.small_grid_s == 0.0


def test_summary_without_throughputs_or_counters_ranks_by_time(roofline_report):
    summary = summarize(analyze_report(roofline_report("gh200_silu_metrics")), "kernel", 3)
    assert summary.ranked_by.startswith("total time") and summary.recoverable_s is None


def test_summary_by_nvtx_range(roofline_report):
    summary = summarize(analyze_report(roofline_report("rtx3070_daxpy-nvtx_custom")), "nvtx", 10)
    assert {r.group.name for r in summary.rows} == {"run_test > init_data", "run_test > daxpy",
                                                    "run_test > check_results"}


def test_summary_rejects_an_empty_top():
    rep = model("a.json", [launch(0, "k", 1e-3, 1e6, 1e6, OLD_GPU)])
    with pytest.raises(RooflineError, match="--top 0: must be at least 1"):
        summarize(analyze_report(rep), "kernel", 0)


def test_small_grid_time_is_counted_apart_not_recoverable_at_the_fp_roof(roofline_report, raw_actions):
    """pytorch-sim (RTX 4070 Ti): 10 of 14 launches are small grids. Their time is counted apart;
    at the FP roof it would have counted as recoverable (each sits below 2.1% of its roof)."""
    name = "rtx4070ti_pytorch-sim_full"
    result = analyze_report(roofline_report(name))
    summary = summarize(result, "kernel", 10)
    raws = raw_actions(name)
    small = [a for a in raws if small_grid(a)]
    assert len(small) == 10
    assert summary.small_grid_s == pytest.approx(sum(a["gpu__time_duration.sum"] * 1e-9 for a in small), rel=REL)
    fp_roof_gap = sum(k.duration_s.value * (1 - k.roof.pct_of_roof / 100) for k in result.launches)
    busiest_gap = sum(min(t * max(0.0, 1 - max(v for v in (a[SM], a[MEMORY], raw_whole_blocks_pct(a)) if v) / 100),
                          t - 1.5e-6)  # above the 1.5 us launch floor
                      for a in raws if not small_grid(a) and (t := a["gpu__time_duration.sum"] * 1e-9))
    assert summary.recoverable_s == pytest.approx(busiest_gap, rel=1e-6) and summary.recoverable_s < 0.6 * fp_roof_gap


def test_summary_builds_the_analysis_of_only_the_median_launch_of_each_kernel_shown():
    """Columnar: the ranking reads the report's columns; a launch's analysis object is built for what is shown."""
    launches = [launch(i, f"k{i % 7}", 1e-3 * (1 + i % 5), 1e9, 1e8, OLD_GPU, sol=(50.0 + i % 30, 40.0))
                for i in range(700)]
    analysis = analyze_report(model("many.json", launches))
    summary = summarize(analysis, "kernel", 3)
    assert len(summary.rows) == 3 and sum(r.stats.count for r in summary.rows) == 300
    assert analysis.launches.table.built == 3


def test_the_summary_time_to_gain_is_the_reports_and_its_first_advice_item(shared_report) -> None:
    """One number per question (issue 63 item 6): a kernel's "to gain" in the summary is the report's time to gain,
    what each launch's first estimated advice item saves, summed; small grids included."""
    from roofline.analysis.advice import lead_saving, rank_by_time_to_gain
    from roofline.facade import Roofline

    (analysis,) = Roofline().analyses([shared_report("rtx2070super_alife-143launches_basic")])
    summary = summarize(analysis, "kernel", 10)
    report = rank_by_time_to_gain(analysis.groups)[:10]
    assert summary.ranked_by == "time to gain"
    assert [(r.group.name, r.time_to_gain_s) for r in summary.rows] == [(g.name, gain) for gain, g in report]
    small = next(r for r in summary.rows if r.stats.verdict.bound == "small_grid")
    assert small.group.recoverable_s == 0.0 and small.time_to_gain_s  # was "recov. 0 ns" beside its item
    firsts = [lead_saving(k) for k in small.group.launches]
    assert small.time_to_gain_s == pytest.approx(sum(s for s in firsts if s is not None), rel=1e-12)


def test_a_kernel_without_an_estimate_is_placed_by_its_recoverable_time_and_says_so(shared_report) -> None:
    """alife: mix_give_take_3_kernel has no estimated advice item (latency-bound, no warp-state data); it is placed
    by its recoverable time, and its row says so (``ranked_by_kind`` recoverable, ``ranked_by_value_s`` that time);
    the rows with a time to gain are placed by it; the summary counts the groups without one apart."""
    from roofline.facade import Roofline

    (analysis,) = Roofline().analyses([shared_report("rtx2070super_alife-143launches_basic")])
    summary = summarize(analysis, "kernel", 100)
    first = summary.rows[0]
    assert first.group.name == "mix_give_take_3_kernel" and first.time_to_gain_s is None
    assert (first.ranked_by_kind, first.ranked_by_value_s) == ("recoverable", first.group.recoverable_s)
    for r in summary.rows:
        expected = ("time_to_gain", r.time_to_gain_s) if r.time_to_gain_s is not None else (
            ("recoverable", r.group.recoverable_s) if r.group.recoverable_s is not None else
            ("total_time", r.group.total_s))
        assert (r.ranked_by_kind, r.ranked_by_value_s) == expected
    placed = [r.ranked_by_value_s or 0.0 for r in summary.rows if r.ranked_by_kind != "total_time"]
    assert placed == sorted(placed, reverse=True)
    without = [r.group.recoverable_s or 0.0 for r in summary.rows if r.ranked_by_kind == "recoverable"]
    assert summary.groups_without_gain == len(without) >= 2
    assert summary.without_gain_recoverable_s == pytest.approx(sum(without), rel=1e-12)


def test_a_report_ranked_by_recoverable_time_places_every_row_by_it(roofline_report) -> None:
    """Not advised (the columns alone): every row is placed by its recoverable time, none counted apart."""
    summary = summarize(analyze_report(roofline_report("rtx3060-laptop_reductions_full")), "kernel", 10)
    assert summary.ranked_by == "recoverable time"
    assert [(r.ranked_by_kind, r.ranked_by_value_s) for r in summary.rows] == [
        ("recoverable", r.group.recoverable_s) for r in summary.rows]
    assert summary.groups_without_gain == 0 and summary.without_gain_recoverable_s is None


def test_rows_without_a_roof_position_are_placed_by_their_total_time(roofline_report) -> None:
    summary = summarize(analyze_report(roofline_report("gh200_silu_metrics")), "kernel", 3)
    assert summary.rows and all(r.ranked_by_kind == "total_time" for r in summary.rows)
    assert [r.ranked_by_value_s for r in summary.rows] == [r.group.total_s for r in summary.rows]


def test_a_report_of_two_tensor_types_gets_the_roof_of_each_from_its_own_launches() -> None:
    """The H100 BF16 and FP8 GEMM launches in one report: the summary's roofs are the report's (BF16's, the type
    met first, on a tie of launches) and an FP8 one, whose tensor roof is the FP8 launch's own (its report alone
    shows it)."""
    from pathlib import Path

    from msgspec.structs import replace

    import roofline
    from roofline.pipeline import AnalysisOptions, analyze_loaded

    h100 = Path(__file__).resolve().parents[2] / "examples" / "h100"
    bf16, fp8 = (roofline.load(h100 / f"torch-{t}.roofline.ncu-rep") for t in ("bf16", "fp8"))
    mixed = replace(bf16, launches=(*bf16.launches, *(replace(k, range_index=1) for k in fp8.launches)))
    roofs = summarize(analyze_loaded(mixed, AnalysisOptions()), "kernel", 10).ceilings
    alone = {t: summarize(analyze_loaded(r, AnalysisOptions()), "kernel", 10).ceilings[0]
             for t, r in (("bf16", bf16), ("fp8", fp8))}
    assert [c.tensor_dtype for c in roofs] == ["bf16", "fp8"]
    assert roofs[0].flop_per_s["tensor"] == alone["bf16"].flop_per_s["tensor"]
    fp8_roof, bf16_roof = roofs[1].flop_per_s["tensor"], roofs[0].flop_per_s["tensor"]
    assert fp8_roof is not None and bf16_roof is not None and fp8_roof > bf16_roof
    assert fp8_roof == alone["fp8"].flop_per_s["tensor"]
    assert roofs[1].flop_per_s["fp32"] == roofs[0].flop_per_s["fp32"]  # the other roofs are the report's
