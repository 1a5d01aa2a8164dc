"""roofline.analysis.ncu_rules: every ncu rule result in the shared reports gets a topic that merges it with the
tool's own item on the same cause; stall rules name a stall reason the stall diagnostics know."""

from __future__ import annotations

import re

import pytest

from roofline.analysis.diagnostics.stalls import STALL_REASONS
from roofline.analysis.ncu_rules import ADVICE_KINDS, NOT_ADVICE, SKIPPED_RULES, focus, topic
from roofline.core.model import FocusMetric, RuleResult
from tests.conftest import shared_report_names


@pytest.mark.parametrize("name", shared_report_names())
def test_every_stall_rule_names_a_known_stall_reason(name, roofline_report):
    report = roofline_report(name)
    for launch in report.launches:
        for r in launch.rules:
            if r.rule.startswith("CPIStall") and r.kind in ADVICE_KINDS and "could not be found" not in r.message:
                key = topic(r).key
                assert key.startswith("stall:") and key.removeprefix("stall:") in STALL_REASONS, (r.rule, r.title)


@pytest.mark.parametrize("name", shared_report_names())
def test_every_advice_rule_has_a_mechanism(name, roofline_report):
    """No ncu rule that can become advice (it names a number) falls through to an unknown topic: each has a bound
    to apply."""
    report = roofline_report(name)
    for launch in report.launches:
        for r in launch.rules:
            numbered = re.search(r"\d", r.message) or any(f.value is not None for f in r.focus_metrics)
            if r.kind in ADVICE_KINDS and r.rule not in SKIPPED_RULES and not NOT_ADVICE.search(r.message) \
                    and numbered:
                assert not topic(r).key.startswith("ncu:"), (r.rule, r.title)


@pytest.mark.parametrize("title, key, mechanism", [
    ("L2 Slices Workload Imbalance", "imbalance:l2", "work"),  # the RTX 3070 Ti delayAndSum case: about the L2
    ("L1 Slices Workload Imbalance", "imbalance:l1", "work"),
    ("SMs Workload Imbalance", "occupancy:achieved", "latency"),  # over SMs: the warps' cause, as before
])
def test_a_slice_imbalance_is_about_its_level_not_occupancy(title, key, mechanism):
    """ncu's WorkloadImbalance over a level's slices changes that level's term of the time model: where that level
    is far from the floor (memory at 6% of its peak), evening it out saves nothing."""
    from roofline.core.model import RuleResult

    about = topic(RuleResult("WorkloadImbalance", "WorkloadDistribution", title, "imbalance", "optimization"),
                  "latency")
    assert (about.key, about.mechanism) == (key, mechanism)


def _rule(rule: str, title: str, message: str = "") -> RuleResult:
    return RuleResult(rule, "LaunchStats", title, message, "optimization")


@pytest.mark.parametrize(("rule", "bound", "waves", "key"), [
    # a small grid: the block size, the occupancy and idle pipes ("this kernel is very small") are the grid's point
    (_rule("LaunchConfiguration", "Block Size"), "small_grid", 0.0016, "grid:small"),
    (_rule("TheoreticalOccupancy", ""), "small_grid", 0.0016, "grid:small"),
    (_rule("HighPipeUtilization", "Low Utilization", "All compute pipelines are under-utilized."), "small_grid",
     0.0016, "grid:small"),
    # ncu's "Small Grid" on a grid of one wave (A40 julia_frb_5885: 84 blocks on 84 SMs, one block per SM): the
    # blocks per SM, i.e. the theoretical occupancy
    (_rule("LaunchConfiguration", "Small Grid"), "memory", 1.0, "occupancy:theoretical"),
    (_rule("LaunchConfiguration", "Small Grid"), "small_grid", 0.4, "grid:small"),
    (_rule("LaunchConfiguration", "Block Size"), "latency", 2.0, "block_size"),
])
def test_rules_on_the_grid_join_the_grids_point(rule, bound, waves, key):
    assert topic(rule, bound, waves).key == key


def test_a_focus_metrics_threshold_is_said_not_pasted():
    r = RuleResult("HighPipeUtilization", "ComputeWorkloadAnalysis", "Low Utilization", "", "optimization",
                   (FocusMetric("max pipelines utilization", 1.761, 2, "1.761 < 20.00"),))
    assert focus(r) == "max pipelines utilization = 1.76, ncu's mark < 20"


def test_a_long_rule_message_is_kept_whole(raw_actions):
    """ncu's ThreadDivergence message on the RTX 3060 Laptop reduceNeighbored launch runs to ~800 characters; it was
    cut at a sentence end near 320 with "(...)", losing the fix it ends with. The advice holds it whole: the message
    read with ncu_report, its markup removed."""
    from roofline.analysis.ncu_rules import clean_rule_text
    from roofline.pipeline import analyze_files
    from tests.conftest import find_shared_report

    name = "rtx3060-laptop_reductions_full"
    raw = next(r for r in raw_actions(name)[0].rules if r["rule_identifier"] == "ThreadDivergence")
    message = raw["rule_message"]["message"]
    launch = analyze_files([find_shared_report(name)])[0].launches[0]
    item = next(a for a in launch.advice if a.title == "ncu: ThreadDivergence")
    assert len(message) > 700 and "(...)" not in item.text
    assert item.text.startswith(clean_rule_text(message))  # then where in the source, as for every rule item


def test_an_uncoalesced_rule_says_why_its_share_is_not_the_percent_ncu_states(shared_report, raw_actions):
    """V100 miniWeather 0:1 set_halo_values_x_419: ncu's UncoalescedGlobalAccess says "16384 excessive sectors (33%
    of the total 49152 sectors)" (the L2 sectors of global accesses), while the item saves at most 42% of the time:
    its excess over the kernel's DRAM sectors, the fewest of L2 and DRAM (raw: DRAM bytes read and written / 32).
    The item said 33% and saved 42% without a word; now it says which sectors the share is of."""
    from roofline.pipeline import analyze_files

    name = "v100_miniweather-openacc_full"
    raw = raw_actions(name)[1]
    assert raw.name == "set_halo_values_x_419_gpu"
    dram_sectors = (raw["dram__bytes_read.sum"] + raw["dram__bytes_write.sum"]) / 32
    share = 16384 / dram_sectors
    assert round(100 * share) == 42
    k = analyze_files([shared_report(name)])[0].launches[1]
    (item,) = [a for a in k.advice if a.title == "ncu: UncoalescedGlobalAccess"]
    assert "(33% of the total 49152 sectors)" in item.text and item.work_share == pytest.approx(share, rel=1e-9)
    assert (f"The saving rests on 42% of the work, not the 33% stated: the 16,384 excess sectors are 42% of the "
            f"{dram_sectors:,.0f} the kernel moved at DRAM, the fewest of the levels they cross (L2 and DRAM), and "
            "ncu's 33% is of the sectors of the accesses it names alone.") in item.text
    assert item.est_saved_s == pytest.approx(k.duration_s.value * share, rel=1e-9)
