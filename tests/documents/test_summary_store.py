"""The ``store_summary`` document built from hand-made query rows: its head (kind, schema version, tool), each null
figure with its reason (the store's reason of the group's first launch where it keeps one), none written as 0, and
the plain data valid against its generated schema."""

from __future__ import annotations

from typing import Any

import pytest

from roofline.documents.common import SCHEMA_VERSION, builtins
from roofline.documents.schemas import schema
from roofline.documents.summary_store import store_summary_json

NO_DURATION = "missing metrics: gpu__time_duration.sum; re-profile with any --set"
REPORTS = [{"path": "a.ncu-rep", "label": "a", "device": "GPU", "launches": 3, "total_time_s": 2e-3},
           {"path": "b.ncu-rep", "label": "b", "device": "GPU", "launches": 2, "total_time_s": None}]


def row(**changes: Any) -> dict[str, Any]:
    fields: dict[str, Any] = dict(
        path="a.ncu-rep", device="GPU", rank=1, name="k", count=3, total_s=2e-3, time_share=1.0, time_to_gain_s=5e-4,
        recoverable_s=4e-4, small_grid_s=0.0, median_s=6e-4, min_s=5e-4, max_s=9e-4, median_pct_of_roof=70.0,
        why_time=None, why_roof=None, why_recoverable=None, why_gain=None)
    return {**fields, **changes}


def test_the_head_names_the_kind_and_a_measured_row_has_no_missing() -> None:
    doc = builtins(store_summary_json("s", "kernel", 10, REPORTS[:1], [row()]))
    assert (doc["kind"], doc["schema_version"], doc["tool"]["name"], doc["by"], doc["top"]) == (
        "store_summary", SCHEMA_VERSION, "roofline", "kernel", 10)
    (r,) = doc["rows"]
    assert r["missing"] == {} and r["small_grid_s"] == 0.0 and "why_time" not in r


def test_a_group_without_a_time_is_null_with_its_first_launchs_reason_not_0() -> None:
    untimed = row(path="b.ncu-rep", total_s=None, time_share=None, time_to_gain_s=None, recoverable_s=None,
                  small_grid_s=None, median_s=None, min_s=None, max_s=None, median_pct_of_roof=None,
                  why_time=NO_DURATION, why_roof="no kernel duration")
    doc = builtins(store_summary_json("s", "kernel", 10, REPORTS, [untimed]))
    (r,) = doc["rows"]
    figures = ("total_s", "time_share", "time_to_gain_s", "recoverable_s", "small_grid_s", "median_s", "min_s",
               "max_s", "median_pct_of_roof")
    assert all(r[f] is None for f in figures) and set(r["missing"]) == set(figures)
    assert r["missing"]["small_grid_s"] == f"no valid launch of the group has a time: {NO_DURATION}"
    assert r["missing"]["median_pct_of_roof"] == "no kernel duration"
    assert doc["reports"][1]["missing"] == {"total_time_s": "no launch of the report has a time"}


def test_a_timed_group_of_a_report_without_a_total_says_why_its_share_is_null() -> None:
    (r,) = builtins(store_summary_json("s", "kernel", 10, REPORTS, [row(time_share=float("nan"))]))["rows"]
    assert r["time_share"] is None and r["missing"] == {"time_share": "the report has no total time"}


def test_the_document_is_valid_against_its_generated_schema() -> None:
    jsonschema = pytest.importorskip("jsonschema", reason="jsonschema not installed (pip install 'roofline[test]')")
    doc = builtins(store_summary_json("s", "nvtx", 5, REPORTS, [row(), row(rank=2, total_s=None, why_time="x")]))
    jsonschema.Draft202012Validator(schema("store_summary")).validate(doc)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft202012Validator(schema("store_summary")).validate({**doc, "kind": "summary"})
