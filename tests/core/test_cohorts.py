"""Columnar evaluation (roofline.core.cohorts): a cohort's formulas give, launch by launch, exactly what the same
formulas give for each launch alone, on every shared report; values that differ between launches are selected per
launch, and a branch on what a cohort does not share is a defect."""

from __future__ import annotations

import numpy as np
import pytest
from msgspec.structs import replace

from roofline.analysis.roofline import analyze_launch, analyze_launches, analyze_report
from roofline.core.cohorts import (
    Cohort,
    CohortMismatch,
    argmax_key,
    at_key,
    cohorts,
    is_none,
    launch_plan,
    nonzero,
    per_launch,
    shared,
    take_launch,
    where,
    whole,
)
from roofline.core.model import KernelLaunch
from roofline.specs.catalog import load_catalog
from tests.conftest import load_shared_report, shared_report_names


def launches(*values: float) -> list[KernelLaunch]:
    return [KernelLaunch(0, i, "k", metrics={"x": v}) for i, v in enumerate(values)]


def test_shared_gives_the_one_value_and_a_difference_is_a_defect() -> None:
    assert shared(np.array([2.0, 2.0])) == 2.0 and shared(3.5) == 3.5 and shared(np.float64(1.0)) == 1.0
    with pytest.raises(CohortMismatch):
        shared(np.array([1.0, 2.0, 1.0]))


def test_nonzero_reads_a_cohort_like_a_single_launch() -> None:
    assert nonzero(np.array([1.0, 2.0])) and not nonzero(np.array([0.0, 0.0])) and not nonzero(None)
    assert nonzero(2.0) and not nonzero(0.0)


def test_where_selects_per_launch_numbers_texts_and_none() -> None:
    x = np.array([1.0, 5.0, 2.0])
    assert where(x > 3, x, 0.0).tolist() == [0.0, 5.0, 0.0]
    assert where(x > 3, "big", None).tolist() == [None, "big", None]
    assert where(x > 3, "big", where(x > 1.5, "mid", "small")).tolist() == ["small", "big", "mid"]
    assert where(5.0 > 3, "big", "small") == "big" and is_none(None) and not is_none("a")
    assert is_none(where(x > 3, "big", None)).tolist() == [True, False, True]
    assert where(x > 0, "all", None) == "all" and where(x > 9, x, 0.0) == 0.0  # the launches agree: one value


def test_whole_snaps_a_count_within_float_rounding_and_keeps_any_other_value() -> None:
    assert whole(767999.9999999999) == 768000.0 and whole(1.2614625714105023) == 1.2614625714105023
    assert whole(0.0) == 0.0 and whole(899648.0) == 899648.0 and whole(768000.4) == 768000.4
    assert whole(np.array([767999.9999999999, 2.5, 3e12 + 1e-4])).tolist() == [768000.0, 2.5, 3e12]
    assert whole(float("inf")) == float("inf") and whole(float("nan")) != whole(float("nan"))  # kept, no error


def test_argmax_key_and_at_key_pick_per_launch_first_on_ties() -> None:
    util = {"fp32": np.array([1.0, 9.0, 3.0]), "dram": np.array([2.0, 1.0, 3.0])}
    keys = argmax_key(util)
    assert keys.tolist() == ["dram", "fp32", "fp32"] and at_key(util, keys).tolist() == [2.0, 9.0, 3.0]
    assert argmax_key({"a": 1.0, "b": 1.0}) == "a" and at_key({"a": 1.0}, "a") == 1.0
    assert argmax_key({"a": np.array([1.0, 2.0]), "b": np.array([0.0, 1.0])}) == "a"


def test_cohorts_part_launches_by_the_sign_of_their_numbers() -> None:
    assert [rows for rows, _ in cohorts(launches(1.0, 0.0, 5.0, -1.0, 0.0))] == [[0, 2], [1, 4], [3]]


def test_split_runs_a_choice_on_its_own_launches() -> None:
    (_, cohort), = cohorts(launches(1.0, 5.0, 2.0, 7.0))
    x = cohort.value("x")
    assert x is not None
    parts = cohort.split(where(x > 3, "big", "small"))
    assert [(at, part.launches) for at, part in parts] == [([0, 2], cohort.part([0, 2]).launches),
                                                            ([1, 3], cohort.part([1, 3]).launches)]
    assert [[launch.value("x") for launch in part.launches] for _, part in parts] == [[1.0, 2.0], [5.0, 7.0]]
    assert cohort.split("one") == [([0, 1, 2, 3], cohort)]


def test_launches_holding_other_metrics_are_other_cohorts() -> None:
    mixed = [*launches(1.0, 2.0), KernelLaunch(0, 9, "k", metrics={"y": 1.0}),
             KernelLaunch(0, 10, "k", metrics={"x": "a"})]
    assert [rows for rows, _ in cohorts(mixed)] == [[0, 1], [2], [3]]


def test_take_launch_takes_one_launch_out_and_applies_its_per_launch_detail() -> None:
    cohort = Cohort(launches(1.0, 4.0))
    result = {"x": cohort.value("x"), "text": per_launch(lambda v: f"{v:g}!", cohort.value("x")), "launch": cohort}
    assert take_launch(result, 1, launch_plan(result)) == {"x": 4.0, "text": "4!", "launch": cohort.launches[1]}
    assert per_launch(lambda v: f"{v:g}!", 2.0) == "2!"  # a single launch: at once


def test_take_launch_shares_what_holds_no_array_and_rebuilds_the_rest() -> None:
    cohort = Cohort(launches(1.0, 4.0, 9.0))
    fixed = ("roof", {"dram": 1.5e12})
    result = {"x": cohort.value("x"), "fixed": fixed, "pair": (cohort.value("x"), "same")}

    def take(j: int) -> dict:
        return take_launch(result, j, launch_plan(result))

    assert [take(j)["x"] for j in range(3)] == [1.0, 4.0, 9.0]
    assert take(2)["fixed"] is fixed and take(0)["fixed"] is fixed  # one object for every launch, not a copy each
    assert take(1)["pair"] == (4.0, "same")


def test_an_analysis_whose_launches_were_read_still_pickles_as_workers_send_it() -> None:
    """An analysis holds no closures: it pickles as it is, the launches read and those not read yet."""
    import pickle

    from roofline.core.readonly import picklable_mappings

    picklable_mappings()  # done on import already: repeating it is harmless
    report = load_shared_report("rtx2070super_alife-143launches_basic")
    analysis = analyze_report(report)
    shown = [analysis.launches[i] for i in (0, 70, 142)]
    again = pickle.loads(pickle.dumps(analysis))
    assert [again.launches[i] for i in (0, 70, 142)] == shown
    assert again.launches[5] == analysis.launches[5]  # a launch first read after the trip


@pytest.mark.parametrize("name", shared_report_names())
def test_cohort_analysis_equals_each_launch_analysed_alone(name: str) -> None:
    report = load_shared_report(name)
    match = load_catalog().match(report.device)
    spec = match.spec if match else None
    analysed = analyze_report(report, spec, use="kernel-clock")
    total = analysed.total_time_s
    alone = [analyze_launch(launch, report.device, spec, "kernel-clock", total) for launch in report.launches
             if not launch.invalid]
    assert [a for a in analysed.launches if not a.launch.invalid] == alone


@pytest.mark.parametrize("name", shared_report_names())
def test_launches_analysed_in_batches_before_their_report_equal_its_analysis_but_for_the_time_share(name: str) -> None:
    """What the pipeline works out while a report is still being read (``analyze_launches``, batch by batch) is
    what the report's analysis gives each launch, its time share aside."""
    report = load_shared_report(name)
    match = load_catalog().match(report.device)
    spec = match.spec if match else None
    valid = [launch for launch in report.launches if not launch.invalid]
    batches = [valid[i:i + 7] for i in range(0, len(valid), 7)]
    early = [a for batch in batches for a in analyze_launches(batch, report.device, spec)]
    analysed = [a for a in analyze_report(report, spec).launches if not a.launch.invalid]
    assert all(a.time_share is None for a in early)
    assert early == [replace(a, time_share=None) for a in analysed]


def test_overflow_in_a_cohort_is_silent_as_with_single_floats() -> None:
    """A huge but finite count gives an infinite rate, without numpy's overflow warnings on stderr."""
    import warnings

    from roofline.core.model import Device, Report
    from tests.synthetic import OLD_GPU, launch

    huge = [launch(i, "k", 1e-6, 1e9, 1.7e308, OLD_GPU) for i in range(3)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        analysis = analyze_report(Report("huge.json", Device("Synthetic GPU"), tuple(huge)))
        rates = [a.bytes_per_s["dram"].value for a in analysis.launches]
    assert rates == [float("inf")] * 3
