"""`roofline grade` as Markdown: a table of the kernels' grades, then each kernel's conditions and reasons."""

from __future__ import annotations

from roofline.analysis.grade import ReportGrade
from roofline.core.units import seconds, share_pct
from roofline.documents.grade import grade_json
from roofline.render.grade import prose


def render(grades: ReportGrade) -> str:
    doc = grade_json(grades)
    lines = [f"# Grade of `{doc.report}`", "", f"Spec: {doc.spec_id or 'none matched'}"
             + (f"; work checked against `{doc.baseline}`" if doc.baseline else ""), "",
             "| kernel | grade | at full peaks | governing | roof | time | floor | confidence |",
             "|---|---|---|---|---|---|---|---|"]
    for k in doc.kernels:
        grade = share_pct(k.grade) if k.grade is not None else "withheld"
        lines.append(f"| `{k.kernel}` | {grade} | {share_pct(k.datasheet_grade)} | {k.governing or 'n/a'} | "
                     f"{k.roof or 'n/a'} | {seconds(k.measured_s)} | {seconds(k.floor_s)} | {k.confidence.value} |")
    for k in doc.kernels:
        lines += ["", f"## `{k.kernel}`", ""]
        lines += [f"- withheld: {prose.withheld(r, k)}" for r in k.withheld]
        lines += [f"- {prose.condition(c)}" for c in k.conditions]
    return "\n".join(lines) + "\n"
