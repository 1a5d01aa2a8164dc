"""roofline.ranking: the whole-application view (`roofline summary`), checked against totals and recoverable
times computed here from raw metric values read with ncu_report directly (``raw_actions``).

recoverable = duration x (1 - percent of roof / 100)
"""

from __future__ import annotations

import pytest

from roofline.analysis import analyze_report
from roofline.errors import RooflineError
from roofline.ranking import summarize
from tests.synthetic import OLD_GPU, REL, launch, model


# --- Whole-application view -----------------------------------------------------------------------------
def test_summary_groups_hundreds_of_launches_and_ranks_by_time_without_counters(roofline_report, raw_actions) -> None:
    name = "rtx2070super_alife-143launches_basic"
    summary = summarize(analyze_report(roofline_report(name)), "kernel", 3)
    totals: dict[str, float] = {}
    counts: dict[str, int] = {}
    for a in raw_actions(name):
        totals[a.name] = totals.get(a.name, 0.0) + a["gpu__time_duration.sum"] * 1e-9
        counts[a.name] = counts.get(a.name, 0) + 1
    grand = sum(totals.values())
    top = sorted(totals, key=lambda k: totals[k], reverse=True)[:3]
    assert [r.group.name for r in summary.rows] == top
    assert [r.group.total_s for r in summary.rows] == pytest.approx([totals[k] for k in top], rel=REL)
    assert [len(r.group.launches) for r in summary.rows] == [counts[k] for k in top]
    assert summary.shown_share == pytest.approx(sum(totals[k] for k in top) / grand, rel=REL)
    assert summary.group_count == len(totals) and summary.report.launches == 143
    assert summary.ranked_by.startswith("total time") and summary.recoverable_s is None


def test_summary_ranks_by_recoverable_time_when_the_roof_is_known(roofline_report, raw_actions):
    name = "rtx3060-laptop_reductions_full"
    summary = summarize(analyze_report(roofline_report(name)), "kernel", 10)
    recoverable = {}
    for raw in raw_actions(name):
        t = raw["gpu__time_duration.sum"] * 1e-9
        pct = 100 * raw["dram__bytes.sum.per_second"] / (raw["dram__bytes.sum.peak_sustained"]
                                                         * raw["dram__cycles_elapsed.avg.per_second"])
        recoverable[raw.name] = t * (1 - pct / 100)
    order = sorted(recoverable, key=recoverable.get, reverse=True)
    assert summary.ranked_by == "recoverable time"
    assert [r.group.name for r in summary.rows] == order
    assert [r.group.recoverable_s for r in summary.rows] == pytest.approx([recoverable[k] for k in order], rel=1e-6)
    assert summary.recoverable_s == pytest.approx(sum(recoverable.values()), rel=1e-6)


def test_summary_by_nvtx_range(roofline_report):
    summary = summarize(analyze_report(roofline_report("rtx3070_daxpy-nvtx_custom")), "nvtx", 10)
    assert {r.group.name for r in summary.rows} == {"run_test > init_data", "run_test > daxpy",
                                                    "run_test > check_results"}


def test_summary_rejects_an_empty_top():
    rep = model("a.json", [launch(0, "k", 1e-3, 1e6, 1e6, OLD_GPU)])
    with pytest.raises(RooflineError, match="--top 0: must be at least 1"):
        summarize(analyze_report(rep), "kernel", 0)
