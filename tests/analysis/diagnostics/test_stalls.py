"""Warp-stall diagnostics: stall reasons and shares against the raw ncu_report values (``raw_actions``), the
PC-sampling fallback, issue-slot figures, and what is missing without WarpStateStats."""

from __future__ import annotations

import pytest

from roofline.analysis.diagnostics import stalls
from roofline.core.model import KernelLaunch

RATIO = "smsp__average_warps_issue_stalled_{}_per_issue_active.ratio"
SAMPLES = "smsp__pcsamp_warps_issue_stalled_{}"


def test_stall_ratios_and_shares_from_warp_state_stats(roofline_report, raw_actions):
    """fill_vector (RTX 4070 Ti): tex_throttle 56.9 cycles per issued instruction is the largest reason."""
    name = "rtx4070ti_pytorch-sim_full"
    raw, launch = raw_actions(name)[3], roofline_report(name).launches[3]
    s = stalls.diagnose(launch)
    ratios = {n.removeprefix("smsp__average_warps_issue_stalled_").removesuffix("_per_issue_active.ratio"): raw[n]
              for n in raw.metric_names if n.startswith("smsp__average_warps_issue_stalled_")
              and n.endswith("_per_issue_active.ratio")}
    stalled = {r: v for r, v in ratios.items() if v > 0 and r != "selected"}
    total = sum(stalled.values())
    assert s.source == stalls.RATIO_SOURCE
    assert [r for r, _, _ in s.reasons] == sorted(stalled, key=lambda r: -stalled[r])
    reason, value, share = s.reasons[0]
    assert (reason, value) == ("tex_throttle", raw[RATIO.format("tex_throttle")]) and value == pytest.approx(56.95,
                                                                                                          abs=0.01)
    assert share == pytest.approx(stalled["tex_throttle"] / total)
    assert s.issue_active_pct == raw["smsp__issue_active.avg.pct_of_peak_sustained_active"]
    assert s.eligible_per_scheduler == raw["smsp__warps_eligible.avg.per_cycle_active"]
    assert s.active_per_scheduler == raw["smsp__warps_active.avg.per_cycle_active"] and not s.missing


def test_pc_samples_when_the_report_has_no_warp_state_section(roofline_report, raw_actions):
    """The NVIDIA daxpy sample (custom sections): only PC-sampling counts; long scoreboard dominates daxpy."""
    name = "rtx3070_daxpy-nvtx_custom"
    raw, launch = raw_actions(name)[1], roofline_report(name).launches[1]
    s = stalls.diagnose(launch)
    counts = {n.removeprefix("smsp__pcsamp_warps_issue_stalled_"): raw[n] for n in raw.metric_names
              if n.startswith("smsp__pcsamp_warps_issue_stalled_") and not n.endswith("_not_issued")}
    stalled = {r: v for r, v in counts.items() if v > 0 and r != "selected"}
    assert s.source == stalls.SAMPLES_SOURCE and s.reasons[0][0] == "long_scoreboard"
    assert s.reasons[0][1] == raw[SAMPLES.format("long_scoreboard")] == 15915
    assert s.reasons[0][2] == pytest.approx(15915 / sum(stalled.values()))
    assert "issue_active_pct" in s.missing and "--section SchedulerStats" in s.missing["issue_active_pct"]


def test_a_basic_set_says_which_section_collects_the_stalls(roofline_report):
    s = stalls.diagnose(roofline_report("a100-40gb_cublas-sgemm_basic").launches[0])
    assert s.reasons == () and s.source == ""
    assert "--section WarpStateStats" in s.missing["reasons"]


def test_every_reason_has_a_meaning_and_a_change():
    for reason in ("long_scoreboard", "barrier", "mio_throttle", "not_selected", "wait", "tex_throttle"):
        what, change = stalls.describe(reason)
        assert what and change
    assert stalls.describe("brand_new_reason")[0] == "brand new reason"


def test_selected_is_not_a_stall():
    launch = KernelLaunch(0, 0, "k", metrics={RATIO.format("selected"): 1.0, RATIO.format("wait"): 3.0})
    assert stalls.diagnose(launch).reasons == (("wait", 3.0, 1.0),)
