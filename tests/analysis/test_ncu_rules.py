"""roofline.analysis.ncu_rules: every ncu rule result in the shared reports gets a topic that merges it with the
tool's own item on the same cause; stall rules name a stall reason the stall diagnostics know."""

from __future__ import annotations

import re

import pytest

from roofline.analysis.diagnostics.stalls import STALL_REASONS
from roofline.analysis.ncu_rules import ADVICE_KINDS, NOT_ADVICE, SKIPPED_RULES, topic
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
