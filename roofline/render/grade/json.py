"""`roofline grade` as JSON (``kind: grade``): the grade document (``documents.grade``) encoded as compact text."""

from __future__ import annotations

from typing import Any

from roofline.analysis.grade import ReportGrade
from roofline.documents.common import builtins
from roofline.documents.grade import grade_json
from roofline.render.report.json import dumps


def render(grades: ReportGrade) -> str:
    return dumps(grade_json(grades))


def document(grades: ReportGrade, per_launch: bool = True) -> dict[str, Any]:
    """The document as plain data (``per_launch``: each kernel's launches kept)."""
    out: dict[str, Any] = builtins(grade_json(grades, per_launch))
    return out
