"""The verdict over every unit (roofline.analysis.verdict), checked against ncu's own rule results as the independent
oracle.

ncu stores, per launch, the messages of its rules (``rule_results_as_dicts()``, read here with ncu_report directly,
never through roofline's reader):

* SOLBottleneck: the bottleneck title ("High Compute Throughput", "Small Grid", ...). ncu 2020.3 stores it
  untitled; its message text names it. Rule *error* messages (a launch ncu could not measure) are no verdict.
* SOLFPRoofline: "The kernel achieved N% of this device's fp32 peak performance and M% of its fp64 peak" ("{:.0f}",
  "close to" below 1%).
* Occupancy / TheoreticalOccupancy / AchievedOccupancy: theoretical and achieved occupancy ("{:.1f}%") and the
  resources that limit it, or "not impacted by any block limit".

Each oracle test prints its agreement rate (run with -s to see it) and requires all of them.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from roofline.analysis.results import BusyUnit, Cause, LaunchAnalysis, RoofPosition, Verdict
from roofline.analysis.roofline import analyze_report
from roofline.analysis.verdict import (
    NCU_TITLES,
    classify,
    launch_verdict,
    pooled_verdict,
    unit_name,
    unit_whole_blocks_pct,
    whole_blocks_pct,
)
from roofline.core.model import Device, KernelLaunch, Report
from roofline.pipeline import analyze_files
from roofline.render.report.prose import verdict_line
from tests.conftest import SHARED_REPORTS, shared_report_names
from tests.synthetic import OLD_GPU, launch

SM = "sm__throughput.avg.pct_of_peak_sustained_elapsed"
MEMORY = "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"
WAVES = "launch__waves_per_multiprocessor"
ERROR_MESSAGE = 4  # ncu_report.MsgType_ERR
UNTITLED = ((re.compile(r"low compute throughput and memory bandwidth"), "Latency Issue"),  # ncu 2020.3 texts
            (re.compile(r"grid is too small"), "Small Grid"),
            (re.compile(r"more heavily utilized than Memory"), "High Compute Throughput"),
            (re.compile(r"Memory is more heavily utilized"), "High Memory Throughput"),
            (re.compile(r"well-balanced"), "Balanced Throughput"),
            (re.compile(r"greater than [\d.]+% of the available compute or memory"), "High Throughput"))
_ANALYSES: dict[str, Any] = {}


def analysed(name: str) -> tuple[list[Any], list[LaunchAnalysis]]:
    """(raw actions, launches analysed as `roofline report` does) of one shared report, cached."""
    from tests.conftest import find_shared_report, read_raw_actions

    find_shared_report(name)  # skips, naming the folder, without ../shared
    if name not in _ANALYSES:
        _ANALYSES[name] = analyze_files([SHARED_REPORTS / f"{name}.ncu-rep"])[0]
    raws = read_raw_actions(name)
    return list(raws), list(_ANALYSES[name].launches)


def rules(raw: Any, *identifiers: str) -> list[dict[str, Any]]:
    return [r for r in raw.rules if r.get("rule_identifier") in identifiers]


def message(rule: dict[str, Any]) -> dict[str, Any]:
    return rule.get("rule_message") or {}


def ncu_title(rule: dict[str, Any]) -> str | None:
    """The verdict title of one SOLBottleneck result; None for a rule error (no verdict)."""
    msg = message(rule)
    if msg.get("type") == ERROR_MESSAGE:
        return None
    if msg.get("title"):
        return msg["title"]
    return next(title for pattern, title in UNTITLED if pattern.search(msg.get("message", "")))


def expected_bound(title: str, raw: Any) -> str:
    """ncu's title as a bound: "High Throughput" by the busier side (compute when SM >= memory, as ncu's rule)."""
    if title == "High Throughput":
        return "compute" if raw[SM] >= raw[MEMORY] else "memory"
    return NCU_TITLES[title]


# --- The SOLBottleneck oracle ---------------------------------------------------------------------------
def test_bound_agrees_with_ncu_sol_bottleneck_on_every_launch_that_carries_one():
    if not SHARED_REPORTS.is_dir():
        pytest.skip("../shared/ncu-reps not found")
    agree, total, errors, disagreements = 0, 0, 0, []
    for name in shared_report_names():
        raws, launches = analysed(name)
        for raw, k in zip(raws, launches, strict=True):
            for rule in rules(raw, "SOLBottleneck"):
                title = ncu_title(rule)
                if title is None:  # ncu's rule errored on this launch: its inputs are NaN, ours is null with why
                    errors += 1
                    assert k.verdict.bound is None and "NaN" in k.verdict.reason, (name, k.launch.key)
                    continue
                total += 1
                expected = expected_bound(title, raw)
                if k.verdict.bound == expected and k.verdict.basis == "throughput":
                    agree += 1
                else:
                    disagreements.append(f"{name} {k.launch.key}: ncu {title!r}, ours {k.verdict.bound}")
    print(f"\nSOLBottleneck agreement: {agree}/{total} launches ({100 * agree / total:.1f}%); "
          f"{errors} ncu rule errors on unmeasured launches (no verdict on either side)")
    assert total > 450 and agree == total, disagreements[:10]


def test_ncu_titles_come_from_the_same_rule():
    """Each stored title is what classify() names for the launch's throughputs and waves."""
    for name in ("a100-40gb_selfjoin-cub-sort-154launches_basic", "rtx4070ti_pytorch-sim_full"):
        raws, launches = analysed(name)
        for raw, k in zip(raws, launches, strict=True):
            for rule in rules(raw, "SOLBottleneck"):
                assert classify(raw[SM], raw[MEMORY], raw[WAVES])[1] == ncu_title(rule) == k.verdict.ncu_title


# --- The SOLFPRoofline oracle ---------------------------------------------------------------------------
FP_MESSAGE = re.compile(r"achieved\s+(close to\s+)?(\d+)% of this device's fp32 peak performance and\s+"
                        r"(close to\s+)?(\d+)% of its fp64 peak")


def test_fp32_and_fp64_percent_of_peak_agree_with_ncu_within_one_point():
    """Percent of the FP32/FP64 roof at the default (kernel-clock) ceilings against every SOLFPRoofline message."""
    if not SHARED_REPORTS.is_dir():
        pytest.skip("../shared/ncu-reps not found")
    checked, worst = 0, 0.0
    for name in shared_report_names():
        raws, launches = analysed(name)
        for raw, k in zip(raws, launches, strict=True):
            for rule in rules(raw, "SOLFPRoofline"):
                m = FP_MESSAGE.search(message(rule).get("message", ""))
                if not m:
                    continue
                assert k.roof.ceilings == "kernel-clock"
                for precision, close, figure in (("fp32", m.group(1), m.group(2)), ("fp64", m.group(3), m.group(4))):
                    ours = k.roof.utilization_pct[precision]
                    if close:  # ncu prints "close to 0%" for a percent below 1
                        assert 0 < ours < 1.0 + 1e-9, (name, k.launch.key, precision, ours)
                    else:
                        worst = max(worst, abs(ours - float(figure)))
                        assert abs(ours - float(figure)) <= 1.0, (name, k.launch.key, precision, ours, figure)
                checked += 1
    print(f"\nSOLFPRoofline agreement: {checked}/{checked} launches, fp32 and fp64 within 1 point "
          f"(largest difference {worst:.2f} points, ncu prints whole percents)")
    assert checked == 51  # every launch whose report stores a SOLFPRoofline message


# --- The Occupancy oracle -------------------------------------------------------------------------------
LIMITER_PHRASES = {"the number of required registers": "registers",
                   "the required amount of shared memory": "shared_mem",
                   "the number of warps within each block": "warps",
                   "the number of blocks that can fit on the SM": "blocks"}
def _own_shared_bytes(k: LaunchAnalysis) -> float | None:
    """The block's own shared memory (static and dynamic, without the driver's reserve), from the raw metrics."""
    parts = [k.launch.value(f"launch__shared_mem_per_block_{kind}") for kind in ("static", "dynamic")]
    if all(v is not None for v in parts):
        return sum(v for v in parts if v is not None)
    reserve = k.launch.value("launch__shared_mem_per_block_driver") or 0.0  # a basic set: the total alone
    total = k.launch.value("launch__shared_mem_per_block")
    return None if total is None else total - reserve


THEORETICAL = re.compile(r"theoretical occupancy \(([\d.]+)%\)|calculated theoretical \(([\d.]+)%\)")
ACHIEVED = re.compile(r"measured achieved occupancy \(([\d.]+)%\)")


def test_occupancy_and_limiters_agree_with_ncu_occupancy_rules():
    if not SHARED_REPORTS.is_dir():
        pytest.skip("../shared/ncu-reps not found")
    figures = limiter_checks = 0
    for name in shared_report_names():
        raws, launches = analysed(name)
        for raw, k in zip(raws, launches, strict=True):
            for rule in rules(raw, "Occupancy", "TheoreticalOccupancy", "AchievedOccupancy"):
                msg = message(rule)
                text = msg.get("message", "")
                if msg.get("type") == ERROR_MESSAGE or "could not be found" in text:
                    continue
                o = k.occupancy
                where = (name, k.launch.key, text[:90])
                for m in THEORETICAL.finditer(text):
                    assert o.theoretical_pct == pytest.approx(float(m.group(1) or m.group(2)), abs=0.05), where
                    figures += 1
                for m in ACHIEVED.finditer(text):
                    assert o.achieved_pct == pytest.approx(float(m.group(1)), abs=0.05), where
                    figures += 1
                if "not impacted by any block limit" in text:
                    assert o.limiters == () and o.theoretical_pct == 100.0, where
                    limiter_checks += 1
                elif "is limited by" in text:
                    named = {key for phrase, key in LIMITER_PHRASES.items() if phrase in text}
                    if len(named) > 1 and _own_shared_bytes(k) == 0:  # ncu names 0 B of shared memory beside the
                        named.discard("shared_mem")  # limit it then reports, the blocks' (issue 65: never named)
                    assert set(o.limiters) == named, (*where, o.limiters)
                    limiter_checks += 1
    print(f"\nOccupancy agreement: {figures}/{figures} occupancy figures and {limiter_checks}/{limiter_checks} "
          "limiter sets match ncu's Occupancy rule messages")
    assert figures > 300 and limiter_checks > 250


# --- The rule on made-up numbers and the pieces around it -------------------------------------------------
@pytest.mark.parametrize("sm, memory, waves, bound, title", [
    (85.0, 20.0, 5.0, "compute", "High Throughput"), (40.0, 80.0, 5.0, "memory", "High Throughput"),
    (80.0, 80.0, 5.0, "compute", "High Throughput"),  # a tie goes to compute, as in ncu's rule
    (70.0, 50.0, 5.0, "compute", "High Compute Throughput"), (50.0, 61.0, 5.0, "memory", "High Memory Throughput"),
    (65.0, 60.0, 5.0, "balanced", "Balanced Throughput"), (59.9, 59.9, 1.0, "latency", "Latency Issue"),
    (59.9, 10.0, 0.99, "small_grid", "Small Grid"), (10.0, 10.0, None, None, ""),
])
def test_classify(sm, memory, waves, bound, title):
    assert classify(sm, memory, waves) == (bound, title)


def test_busiest_unit_is_named_from_the_breakdowns():
    """fill_vector (RTX 4070 Ti): the SM at 67.5% is all the FP64 pipe; its FP roofline says 8% of roof."""
    raws, launches = analysed("rtx4070ti_pytorch-sim_full")
    k = launches[3]
    assert k.launch.name == "fill_vector"
    assert (k.verdict.bound, k.verdict.busiest.name) == ("compute", "FP64 pipe")
    assert k.verdict.busiest.pct == raws[3]["sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_elapsed"]
    assert k.verdict.sm_pct == pytest.approx(67.46, abs=0.01) and k.roof.pct_of_roof < 10
    assert verdict_line(k.verdict).startswith("compute-bound: FP64 pipe at 67.5% of its peak")


@pytest.mark.parametrize("metric, name", [("sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_elapsed", "ALU pipe"),
                                          ("dram__cycles_active.avg.pct_of_peak_sustained_elapsed", "DRAM"),
                                          ("sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_elapsed",
                                           "XU pipe (special functions, conversions)"),
                                          ("syslts__t_sectors.avg.pct_of_peak_sustained_elapsed",
                                           "system L2 t sectors")])
def test_unit_names(metric, name):
    assert unit_name(metric) == name


def test_nan_throughputs_give_no_verdict_with_the_reason():
    launch = KernelLaunch(0, 0, "k", nan_metrics=frozenset({SM, MEMORY}))
    v = launch_verdict(launch, RoofPosition("kernel-clock", None, None, {}, "no kernel duration"))
    assert v.bound is None and v.reason.startswith("ncu stored NaN for") and "profile this kernel again" in v.reason


def test_pooled_verdict_weights_the_launches_by_time():
    def launch(action: int, ms: float, throughputs: dict[str, float]) -> KernelLaunch:
        return KernelLaunch(0, action, "k", metrics={"gpu__time_duration.sum": ms * 1e6, **throughputs})

    def pooled(*launches: KernelLaunch) -> Verdict:
        analysis = analyze_report(Report("m.json", Device("GPU"), launches))
        return pooled_verdict(analysis.launches, RoofPosition("kernel-clock", None, None, {}, ""))

    v = pooled(launch(0, 3.0, {SM: 90.0, MEMORY: 10.0, WAVES: 4.0}),
               launch(1, 1.0, {SM: 10.0, MEMORY: 10.0, WAVES: 0.1}))
    assert (v.sm_pct, v.memory_pct, v.waves_per_sm) == pytest.approx((70.0, 10.0, 3.025))
    assert v.bound == "compute"
    partial = pooled(launch(0, 3.0, {SM: 90.0, MEMORY: 10.0, WAVES: 4.0}), launch(1, 1.0, {}))
    assert partial.bound is None and "no SpeedOfLight throughputs" in partial.reason


def test_roofline_only_verdict_is_labelled_and_never_latency():
    from roofline.analysis.verdict import from_roofline

    memory = from_roofline(RoofPosition("kernel-clock", 85.0, "dram", {"fp32": 5.0, "dram": 85.0}), "no throughputs")
    assert (memory.bound, memory.basis, memory.busiest) == ("memory", "roofline", BusyUnit("DRAM roof", 85.0,
                                                                                           "memory", "dram"))
    assert memory.reason.startswith("roofline only") and "(roofline only)" in verdict_line(memory)
    low = from_roofline(RoofPosition("kernel-clock", 7.4, "fp64", {"fp64": 7.4}), "no throughputs")
    assert low == Verdict(None, None, reason=low.reason, cause=Cause.OTHER) and "cannot tell latency" in low.reason


# --- The cases of issue 16 ---------------------------------------------------------------------------------
def test_pytorch_sim_launches_get_ncu_s_verdicts_not_latency():
    """The 14 launches of rtx4070ti_pytorch-sim: 10 small grids, fill_vector compute-bound on the FP64 pipe,
    linspace and generate_encoded_signal latency-bound (the FP roofline alone called all 14 latency)."""
    _, launches = analysed("rtx4070ti_pytorch-sim_full")
    bounds = [k.verdict.bound for k in launches]
    assert bounds.count("small_grid") == 10 and bounds.count("latency") == 3 and bounds.count("compute") == 1
    assert all(k.verdict.waves_per_sm < 1 for k in launches if k.verdict.bound == "small_grid")
    assert all(k.roof.pct_of_roof < 10 for k in launches)  # every one far below the FP/byte roofs


def test_a_basic_set_report_gets_a_verdict():
    """a100-40gb_selfjoin (LaunchStats, Occupancy, SpeedOfLight only): no FLOP or byte counter, but the
    throughputs decide: the first launch has SM 45.7% and memory 46.5% on 10+ waves, latency."""
    raws, launches = analysed("a100-40gb_selfjoin-cub-sort-154launches_basic")
    k = launches[0]
    assert k.roof.pct_of_roof is None and k.verdict.basis == "throughput"
    assert (k.verdict.bound, round(k.verdict.sm_pct, 1), round(k.verdict.memory_pct, 1)) == ("latency", 45.7, 46.5)
    assert k.verdict.busiest is not None and k.verdict.busiest.pct == pytest.approx(46.46, abs=0.01)
    assert all(k.verdict.bound is not None for k in launches)


def test_a_busy_integer_and_special_function_kernel_is_compute_bound_whatever_its_fp_roof() -> None:
    """The conditions of the larger pytorch-sim run (not in ../shared): SM 88% busy with the ALU pipe at 63% and
    XU at 60%, 1.6% of the FP roof. A report model with those throughputs and breakdowns."""
    units = {"sm__pipe_alu_cycles_active": 63.0, "sm__inst_executed_pipe_xu": 60.0, "sm__issue_active": 88.0,
             "sm__pipe_fma_cycles_active": 2.0}
    metrics: dict[str, float | str] = {f"{u}.avg.pct_of_peak_sustained_elapsed": v for u, v in units.items()}
    metrics.update({SM: 88.0, MEMORY: 12.0, WAVES: 40.0, "dram__cycles_active.avg.pct_of_peak_sustained_elapsed": 12.0,
                    "breakdown:" + SM: ",".join(f"{u}.avg.pct_of_peak_sustained_elapsed" for u in units),
                    "breakdown:" + MEMORY: "dram__cycles_active.avg.pct_of_peak_sustained_elapsed"})
    v = launch_verdict(KernelLaunch(0, 0, "k", metrics=metrics),
                       RoofPosition("kernel-clock", 1.6, "fp32", {"fp32": 1.6, "dram": 1.0}))
    assert v.busiest is not None
    assert (v.bound, v.ncu_title, v.busiest.name) == ("compute", "High Throughput", "issue slots")
    assert [u.name for u in v.top_units] == ["issue slots", "ALU pipe", "XU pipe (special functions, conversions)"]


def test_each_launch_of_a_cohort_keeps_its_own_busiest_units_in_breakdown_order_among_equals() -> None:
    """Two launches with the same metrics (one cohort) whose units rank differently; the first has a tie, which
    keeps the breakdowns' order. Each launch taken out of the cohort equals its verdict computed alone."""
    names = ["sm__pipe_alu_cycles_active", "sm__inst_executed_pipe_xu", "sm__issue_active"]
    units = [f"{u}.avg.pct_of_peak_sustained_elapsed" for u in names]
    dram = "dram__cycles_active.avg.pct_of_peak_sustained_elapsed"

    def launch(i: int, pcts: tuple[float, float, float]) -> KernelLaunch:
        metrics: dict[str, float | str] = {**dict(zip(units, pcts, strict=True)), SM: 80.0, MEMORY: 12.0, WAVES: 40.0,
                                           dram: 12.0, "breakdown:" + SM: ",".join(units), "breakdown:" + MEMORY: dram,
                                           "gpu__time_duration.sum": 1e-3}
        return KernelLaunch(0, i, "k", metrics=metrics)

    report = Report("r", Device("NVIDIA RTX A6000", "8.6"),
                    (launch(0, (70.0, 70.0, 50.0)), launch(1, (20.0, 30.0, 75.0))))
    analysed = analyze_report(report).launches
    first, second = analysed[0].verdict, analysed[1].verdict
    assert first.busiest is not None and second.busiest is not None
    assert [u.name for u in first.top_units] == ["ALU pipe", "XU pipe (special functions, conversions)", "issue slots"]
    assert [u.pct for u in first.top_units] == [70.0, 70.0, 50.0]
    assert (first.busiest.name, second.busiest.name) == ("ALU pipe", "issue slots")
    assert [u.name for u in second.top_units][:2] == ["issue slots", "XU pipe (special functions, conversions)"]
    for a in analysed:
        assert a.verdict == launch_verdict(a.launch, a.roof)


def test_a_verdict_without_throughputs_carries_its_cause_and_the_metrics_as_data():
    """No SpeedOfLight throughputs: the verdict says so as data (cause, the two metrics, the section collecting
    them), which the advice reads instead of the reason's words."""
    from roofline.analysis.verdict import NoThroughputs, from_roofline, throughputs
    from roofline.ncu import metrics as m

    gap = throughputs(launch(0, "k", 1e-3, 1e9, 1e8, OLD_GPU))
    assert isinstance(gap, NoThroughputs) and gap.cause is Cause.MISSING_METRICS
    assert gap.missing == (m.SM_THROUGHPUT, m.MEMORY_THROUGHPUT) and gap.collect == m.HINT_THROUGHPUT
    v = from_roofline(RoofPosition("kernel-clock", 7.4, "fp64", {"fp64": 7.4}), gap)
    assert v.bound is None and (v.cause, v.missing, v.collect) == (gap.cause, gap.missing, gap.collect)
    assert v.reason.startswith(gap.text)


def test_the_advice_to_collect_the_throughputs_names_them_and_the_option_as_data():
    """A launch without throughputs whose roofs decide nothing gets the measurement item, carrying the verdict's
    missing metrics and the section that collects them."""
    from roofline.ncu import metrics as m
    from roofline.pipeline import analyze_loaded
    from tests.synthetic import model

    # 40 MB in 2 ms against the 100 GB/s roof: 20%, under the latency threshold, so no roofline-only verdict
    a = analyze_loaded(model("app.json", [launch(0, "copy", 2e-3, 0.0, 4e7, OLD_GPU)]))
    (item,) = [i for i in a.launches[0].advice if i.topic == "measurement:verdict"]
    assert item.missing == (m.SM_THROUGHPUT, m.MEMORY_THROUGHPUT) and item.collect == m.HINT_THROUGHPUT


def test_a_unit_in_whole_blocks_is_its_percent_times_the_fullest_sms_share_and_only_inside_the_sms():
    """100 blocks on 40 SMs: the fullest SMs run 3 blocks where the average is 2.5, so a unit inside the SMs at 60% of
    its peak over the elapsed cycles is at 72% there. A percent over each SM's active cycles already leaves the idle
    SMs out, DRAM is outside the SMs, and without the SM count nothing is said."""
    launch = KernelLaunch(0, 0, "k", metrics={"launch__grid_size": 100})
    lsu = BusyUnit("LSU", 60.0, "compute", "sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_elapsed")
    active = BusyUnit("LSU", 60.0, "compute", "sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active")
    dram = BusyUnit("DRAM", 60.0, "memory", "dram__throughput.avg.pct_of_peak_sustained_elapsed")
    assert unit_whole_blocks_pct(lsu, launch, 40) == pytest.approx(72.0)
    assert unit_whole_blocks_pct(lsu, launch, 50) == pytest.approx(60.0)  # 2 blocks on every SM: no tail
    assert unit_whole_blocks_pct(active, launch, 40) is None
    assert unit_whole_blocks_pct(dram, launch, 40) is None
    assert unit_whole_blocks_pct(lsu, launch, None) is None


def test_the_busiest_unit_in_whole_blocks_counts_an_active_percent_as_it_is():
    """The launch's whole-blocks figure (recoverable time, the time model's tail): the elapsed-cycle unit scaled
    (50% x 3 / 2.5 = 60%), the active-cycle one at its own 65%, the larger of the two."""
    alu = "sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_elapsed"
    lsu = "sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active"
    metrics = {"launch__grid_size": 100, "breakdown:sm__throughput.avg.pct_of_peak_sustained_elapsed": f"{alu},{lsu}",
               alu: 50.0, lsu: 65.0}
    assert whole_blocks_pct(KernelLaunch(0, 0, "k", metrics=metrics), 40) == pytest.approx(65.0)
    metrics[alu] = 60.0
    assert whole_blocks_pct(KernelLaunch(0, 0, "k", metrics=metrics), 40) == pytest.approx(72.0)
