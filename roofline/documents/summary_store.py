"""The ``store_summary`` document (``roofline summary STORE -f json``): the reports of a store (``roofline collect``)
and each one's kernel groups ranked in SQL (``store.summary``), with the figures ``summary`` gives from the report
files. Its rows are flat (each names its report's path and device) and hold the figures the store keeps, fewer than
a ``summary`` row (no roof position, bound nor advice count): its own kind. A null figure has its reason under the
row's ``missing`` (the first launch's reason, which the store keeps), never 0."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from msgspec import Struct

from roofline.core.choices import GroupBy
from roofline.core.version import GENERATOR
from roofline.documents.common import SCHEMA_VERSION, Generator, Number, Tool, Version, number, tool
from roofline.documents.report import small_grid_reason

NO_TIME = "no valid launch of the group has a time"
NO_TOTAL = "the report has no total time"


class StoreReportDoc(Struct, frozen=True):
    """A report of the store: its file, label, GPU, launches and total time (null with its reason)."""

    path: str
    label: str
    device: str
    launches: int
    total_time_s: Number
    missing: dict[str, str]


class StoreSummaryRowDoc(Struct, frozen=True):
    """One kernel group of a report of the store, ranked as ``summary`` ranks it: its report, launches, times,
    share of the report's time, time to gain, recoverable and small-grid time, median percent of roof."""

    path: str
    device: str
    rank: int
    name: str
    count: int
    total_s: Number
    time_share: Number
    time_to_gain_s: Number
    recoverable_s: Number
    small_grid_s: Number
    median_s: Number
    min_s: Number
    max_s: Number
    median_pct_of_roof: Number
    missing: dict[str, str]


class StoreSummaryJson(Struct, frozen=True):
    """``roofline summary STORE -f json``: the store's reports, and per report its ``top`` groups (``rows``, by
    path then rank)."""

    generator: Generator
    schema_version: Version
    kind: Literal["store_summary"]
    tool: Tool
    store: str
    by: GroupBy
    top: int
    reports: list[StoreReportDoc]
    rows: list[StoreSummaryRowDoc]


def store_summary_json(store: str, by: GroupBy, top: int, reports: Sequence[Mapping[str, Any]],
                       rows: Sequence[Mapping[str, Any]]) -> StoreSummaryJson:
    """The document from the store's queries: ``reports`` (path, label, device, launches, total_time_s) and
    ``rows`` (``store.summary.SUMMARY_SQL``'s, with the ``why_*`` reasons)."""
    return StoreSummaryJson(GENERATOR, SCHEMA_VERSION, "store_summary", tool(), store, by, top,
                            [report_doc(r) for r in reports], [row_doc(r) for r in rows])


def report_doc(r: Mapping[str, Any]) -> StoreReportDoc:
    total = number(r.get("total_time_s"))
    return StoreReportDoc(str(r["path"]), str(r.get("label") or ""), str(r.get("device") or ""),
                          int(r.get("launches") or 0), total,
                          {} if total is not None else {"total_time_s": "no launch of the report has a time"})


FIGURES = ("total_s", "time_share", "time_to_gain_s", "recoverable_s", "small_grid_s", "median_s", "min_s", "max_s",
           "median_pct_of_roof")


def row_doc(r: Mapping[str, Any]) -> StoreSummaryRowDoc:
    """One group's row; the reason of each null figure under ``missing``."""
    values = {key: number(r.get(key)) for key in FIGURES}
    return StoreSummaryRowDoc(str(r["path"]), str(r.get("device") or ""), int(r["rank"]), str(r["name"]),
                              int(r["count"]), **values, missing=row_missing(r, values))


def row_missing(r: Mapping[str, Any], values: Mapping[str, float | None]) -> dict[str, str]:
    """Why each null figure of a row is null: no launch with a time (its first launch's reason), the report's total
    unknown, no launch with a verdict (small-grid time), a recoverable time, a time to gain or a percent of roof
    (likewise)."""
    no_time = f"{NO_TIME}: {r.get('why_time') or 'not measured'}"
    timed = values["total_s"] is not None
    why = {key: no_time for key in ("total_s", "small_grid_s", "median_s", "min_s", "max_s")}
    why |= {"time_share": NO_TOTAL if timed else no_time,
            "small_grid_s": small_grid_reason(str(r.get("why_bound") or "")) if timed else no_time,
            "time_to_gain_s": r.get("why_gain") or "no launch of the group has an advice item with an estimated "
                                                   "saving",
            "recoverable_s": r.get("why_recoverable") or "no launch of the group has both a time and a percent of "
                                                         "roof or a throughput breakdown",
            "median_pct_of_roof": r.get("why_roof") or "no launch of the group has a percent of roof"}
    return {key: why[key] for key, value in values.items() if value is None}
