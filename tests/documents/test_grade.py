"""The grade document built from a hand-made ReportGrade: enums written as their values, a non-finite figure as
null, no baseline as null, the launches left out on request, and the plain data valid against the generated
schema."""

from __future__ import annotations

import json
import math

import pytest

from roofline.analysis.grade import (
    Condition,
    ConditionKind,
    Confidence,
    Interval,
    KernelGrade,
    LaunchGrade,
    NcuFix,
    ReportGrade,
    State,
    Withheld,
    WorkFinding,
)
from roofline.analysis.work import WorkCheck
from roofline.documents.common import SCHEMA_VERSION, builtins
from roofline.documents.grade import grade_json
from roofline.documents.schemas import schema

LAUNCH = LaunchGrade(2e-3, 1.5e-3, 1.2e-3, 0.75, 0.6, "DRAM", 0.9, "calibrated", "dram__bytes")
CLOCK = Condition(ConditionKind.CLOCK, State.ABOVE_BASE, True, NcuFix.CLOCK_BASE, 1.98e9, 1.59e9)
CACHE = Condition(ConditionKind.CACHE, State.UNKNOWN, True, NcuFix.CACHE_ALL)


def kernel(**changes: object) -> KernelGrade:
    fields: dict[str, object] = dict(
        kernel="k", launches=2, grade=0.75, datasheet_grade=0.6, interval=Interval(0.7, 0.8), governing="DRAM",
        roof="dram", measured_s=4e-3, floor_s=3e-3, max_saving_s=1e-3, per_launch=(LAUNCH, LAUNCH),
        conditions=(CLOCK, CACHE), confidence=Confidence.LOW)
    return KernelGrade(**{**fields, **changes})  # type: ignore[arg-type]


def test_enums_are_written_as_their_values_and_no_baseline_is_null() -> None:
    doc = builtins(grade_json(ReportGrade("a.ncu-rep", "h100-sxm5", (kernel(),))))
    assert doc["kind"] == "grade" and doc["schema_version"] == SCHEMA_VERSION and doc["baseline"] is None
    (k,) = doc["kernels"]
    assert k["confidence"] == "low" and k["interval"]["method"] == Interval(0, 0).method
    assert k["conditions"][0] == {"kind": "clock", "state": "above_base", "lowers_confidence": True,
                                  "fix": "--clock-control base", "measured": 1.98e9, "expected": 1.59e9}
    assert k["conditions"][1]["measured"] is None and len(k["per_launch"]) == 2


def test_a_withheld_grade_is_null_with_its_reasons_and_the_work_found() -> None:
    check = WorkCheck((), "flops", True, 0.05, "", None)
    work = WorkFinding("base_kernel", check, 1.0, "tensor:bf16", "fp32")
    grades = ReportGrade("a.ncu-rep", None, (kernel(grade=None, datasheet_grade=None, interval=None,
                                                    withheld=(Withheld.OTHER_PRECISION,), work=work),), "b.json")
    doc = builtins(grade_json(grades))
    (k,) = doc["kernels"]
    assert doc["baseline"] == "b.json" and doc["spec_id"] is None
    assert k["grade"] is None and k["withheld"] == ["other_precision"]
    assert k["work"] == {"baseline_kernel": "base_kernel", "different": True, "basis": "flops", "flops_ratio": 1.0,
                         "written_ratio": None, "precision": "tensor:bf16", "baseline_precision": "fp32",
                         "differs_on": [], "missing": {
                             "written_ratio": "the baseline's bytes written not measured"}}


def test_a_null_written_or_flops_ratio_says_which_side_lacks_it() -> None:
    check = WorkCheck((), "flops", False, 0.05, "", None)
    work = WorkFinding("b", check, None, "fp32", "fp32", None, flops=(0.0, 5.0), written=(4.0, None))
    (k,) = builtins(grade_json(ReportGrade("a", None, (kernel(work=work),))))["kernels"]
    assert k["work"]["missing"] == {"flops_ratio": "the baseline's FLOPs are 0",
                                    "written_ratio": "this kernel's bytes written not measured"}



def test_a_non_finite_figure_is_null_and_the_launches_can_be_left_out() -> None:
    doc = builtins(grade_json(ReportGrade("a", None, (kernel(max_saving_s=math.inf),)), per_launch=False))
    (k,) = doc["kernels"]
    assert k["max_saving_s"] is None and k["per_launch"] == []


def test_the_document_is_valid_against_its_generated_schema() -> None:
    jsonschema = pytest.importorskip("jsonschema", reason="jsonschema not installed (pip install 'roofline[test]')")
    doc = builtins(grade_json(ReportGrade("a", "h100-sxm5", (kernel(), kernel(interval=None)))))
    jsonschema.Draft202012Validator(schema("grade")).validate(doc)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft202012Validator(schema("grade")).validate({**doc, "kind": "report"})


UNGRADED = LaunchGrade(3e-5, None, None, None, None, None, None, "", "",
                       "no unit measured: neither SpeedOfLight breakdowns nor FP or byte roofs")


def test_a_kernel_without_a_time_model_keeps_its_time_and_every_null_has_its_reason() -> None:
    """Two launches timed but with no unit term: the kernel's time is theirs (6e-5 s), the grade withheld with the
    time model's reason, no confidence, and each null of the kernel and of its launches under missing."""
    k = kernel(grade=None, datasheet_grade=None, interval=None, governing=None, roof=None, measured_s=6e-5,
               floor_s=None, max_saving_s=None, per_launch=(UNGRADED, UNGRADED), confidence=None,
               withheld=(Withheld.NO_TIME_MODEL,), reason=UNGRADED.reason)
    doc = builtins(grade_json(ReportGrade("a", None, (k,))))
    (out,) = doc["kernels"]
    assert out["measured_s"] == 6e-5 and out["confidence"] is None
    nulls = {key for key, value in out.items() if value is None}
    nulls |= {f"conditions[{i}].{field}" for i, c in enumerate(out["conditions"])
              for field in ("measured", "expected") if c[field] is None}
    assert set(out["missing"]) == nulls
    assert out["missing"]["grade"] == UNGRADED.reason
    assert out["missing"]["confidence"] == "no grade" and out["missing"]["work"].startswith("no --baseline given")
    for launch in out["per_launch"]:
        assert launch["measured_s"] == 3e-5
        assert launch["missing"] == {key: UNGRADED.reason for key, value in launch.items() if value is None}
    assert doc["missing"] == {"spec_id": "no device spec matched the report's GPU",
                              "baseline": out["missing"]["work"]}


@pytest.mark.parametrize("name", ["a100-40gb_cublas-sgemm_basic", "h800_flash-attn-fwd_full", "gh200_silu_metrics"])
def test_every_null_of_the_grade_and_summary_documents_has_a_reason(shared_report, name):
    """A condition's measured or expected figure (the cache control's state has none, nor the launch count an
    expectation) and a report's unnamed ncu version were null without a reason."""
    from typer.testing import CliRunner

    from roofline.cli.app import app
    from tests.conftest import REPO
    from tests.null_reasons import unexplained_nulls

    for command in ("grade", "summary"):
        result = CliRunner().invoke(app, [command, str(shared_report(name)), "-f", "json"])
        assert result.exit_code == 0, result.output
        assert unexplained_nulls(json.loads(result.stdout)) == [], command
    synthetic = CliRunner().invoke(app, ["summary", str(REPO / "examples" / "h100-sxm_synthetic.roofline.json"),
                                         "-f", "json"])
    assert unexplained_nulls(json.loads(synthetic.stdout)) == []
