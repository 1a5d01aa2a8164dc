"""Each command's document as plain data is what its ``--format json`` text reads back as (the MCP server answers
with it), for every kind, with no text written or parsed on the way."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from roofline.analysis.timeline import timeline_set
from roofline.compare.pairing import Matcher, pair_reports
from roofline.compare.ranking import labelled, summarize
from roofline.compare.regression import Thresholds, judge
from roofline.core.thresholds import SPREAD_THRESHOLD_PCT
from roofline.nsys.load import load_timeline
from roofline.pipeline import AnalysisOptions, analyze_files, build_view
from roofline.render.base import (
    CompareDocument,
    DiffDocument,
    Document,
    ProjectDocument,
    ReportDocument,
    SummaryDocument,
    TimelineDocument,
    find_format,
)
from roofline.render.data import _plain, data
from roofline.specs.catalog import load_catalog
from tests.nsys.small_export import nsys_export

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
PAIR = [EXAMPLES / "h100" / "torch-fp32.roofline.json", EXAMPLES / "h200" / "torch-fp32.roofline.json"]


def read_back(kind: str, document: Document) -> Any:
    return json.loads(find_format(kind, "json").render(document))  # type: ignore[arg-type]


def test_report_and_summary_data_are_their_text_read_back() -> None:
    analyses = analyze_files(PAIR, AnalysisOptions())
    report = ReportDocument(build_view(analyses, SPREAD_THRESHOLD_PCT))
    assert data(report) == read_back("report", report)
    summary = SummaryDocument(labelled([summarize(a, "kernel", 5) for a in analyses]), top=5)
    assert data(summary) == read_back("summary", summary)


def test_compare_diff_and_project_data_are_their_text_read_back() -> None:
    analyses = analyze_files(PAIR, AnalysisOptions())
    comparison = pair_reports(analyses, Matcher("order"))
    compared, judged = CompareDocument(comparison), DiffDocument(judge(comparison, Thresholds(), True))
    assert data(compared) == read_back("compare", compared)
    assert data(judged) == read_back("diff", judged)
    projected = ProjectDocument(pair_reports(analyses[:1], project_to=load_catalog(()).get("h200")))
    assert data(projected) == read_back("project", projected)


def test_timeline_data_is_its_text_read_back(tmp_path: Path) -> None:
    doc = TimelineDocument(timeline_set([load_timeline(nsys_export(tmp_path / "app.sqlite"), None)]))
    assert data(doc) == read_back("timeline", doc)


def test_plain_data_has_no_non_finite_number_nor_lone_surrogate() -> None:
    assert _plain({"a": [math.nan, math.inf, 1.5], "b\ud800": "x\udc80"}) == {"a": [None, None, 1.5],
                                                                            "b\ufffd": "x\ufffd"}


def test_grade_data_is_its_text_read_back() -> None:
    from roofline.facade import Roofline

    document = Roofline().grade(EXAMPLES / "h100" / "torch-bf16.roofline.ncu-rep", None, PAIR[0])
    assert data(document) == read_back("grade", document) and data(document)["kind"] == "grade"
