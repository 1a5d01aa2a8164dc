"""The compare, diff, project and summary documents as typed structs, from the shipped H100/H200 pair: their kinds,
one entry per report in a pair, a diff's exit code and a summary's ``left_out`` only where files were left out."""

from __future__ import annotations

import json
from pathlib import Path

from roofline.analysis.view import LeftOut
from roofline.compare.pairing import Matcher, pair_reports
from roofline.compare.ranking import labelled, summarize
from roofline.compare.regression import Thresholds, judge
from roofline.documents.common import builtins
from roofline.documents.compare import compare_json, diff_json, project_json, summary_json
from roofline.pipeline import AnalysisOptions, analyze_files
from roofline.render.compare.json import WORDS
from roofline.render.names import json_text
from roofline.specs.catalog import load_catalog

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
PAIR = [EXAMPLES / "h100" / "torch-fp32.roofline.json", EXAMPLES / "h200" / "torch-fp32.roofline.json"]


def test_compare_and_diff_of_the_pair() -> None:
    comparison = pair_reports(analyze_files(PAIR, AnalysisOptions()), Matcher("order"))
    compared = compare_json(comparison, WORDS)
    assert compared.kind == "compare" and [r.letter for r in compared.reports] == ["A", "B"]
    assert all(len(k.sides) == 2 and k.headline[0] is None for k in compared.kernels)
    judged = diff_json(judge(comparison, Thresholds(), True), WORDS)
    assert judged.kind == "diff" and judged.exit_code in (0, 1) and judged.regression == bool(judged.exit_code)
    for doc in (compared, judged):
        assert builtins(doc) == json.loads(json_text(doc))


def test_project_gives_each_kernel_its_projection_with_reasons() -> None:
    target = load_catalog(()).get("h200")
    doc = project_json(pair_reports(analyze_files(PAIR[:1], AnalysisOptions()), project_to=target))
    assert doc.kind == "project" and doc.target == "h200" and doc.kernels
    assert all(k.projected_s > 0 for k in doc.kernels)  # each kernel row sums its launches' projected times


def test_summary_names_left_out_files_only_where_there_are_some() -> None:
    summaries = labelled([summarize(a, "kernel", 5) for a in analyze_files(PAIR, AnalysisOptions())])
    assert "left_out" not in builtins(summary_json(summaries, 5))
    from roofline.errors import LeftOutCause

    named = builtins(summary_json(summaries, 5, [LeftOut("bad.ncu-rep", "bad.ncu-rep: not a report",
                                                         LeftOutCause.REPORT)]))
    assert named["left_out"] == [{"path": "bad.ncu-rep", "error": "bad.ncu-rep: not a report", "cause": "report"}]


def test_a_report_reference_says_why_its_total_time_is_null_by_its_valid_launches():
    """compare's third report had every launch invalid, and its null total_time_s read "no launch of the report has
    a time": the reason is that no launch is valid."""
    from roofline.compare.pairing import ReportRef
    from roofline.documents.common import NO_VALID_LAUNCH, UNTIMED
    from roofline.documents.compare import report_ref

    invalid = ReportRef("c", "c.json", "GPU", "8.0", None, "kernel-clock", 3, None, valid_launches=0)
    untimed = ReportRef("d", "d.json", "GPU", "8.0", None, "kernel-clock", 3, None, valid_launches=3)
    assert report_ref(invalid).missing["total_time_s"] == NO_VALID_LAUNCH
    assert report_ref(untimed).missing["total_time_s"] == UNTIMED
    timed = ReportRef("e", "e.json", "GPU", "8.0", "a100-sxm4-80gb", "kernel-clock", 3, 1e-3, sm_count=108,
                      ncu_version="2025.3", valid_launches=3)
    assert report_ref(timed).missing == {}
