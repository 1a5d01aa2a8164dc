"""`roofline grade` as Markdown: a table of the kernels' grades, then each kernel's conditions and reasons. Names and
paths go through the report's Markdown escaping (``render.report.markdown``: ``cell`` for a code span, ``inline``
and ``row`` for the rest), as ``diff -f markdown`` writes them."""

from __future__ import annotations

from roofline.analysis.grade import ReportGrade
from roofline.core.units import seconds, share_pct
from roofline.documents.grade import KernelGradeDoc, grade_json
from roofline.render.grade import prose
from roofline.render.report.markdown import cell, inline, row

COLUMNS = ("kernel", "launches", "grade", "launches' range", "at full peaks", "governing", "roof", "time",
           "graded time (the grade's)", "floor",
           "most saved keeping the work and grid", "small grids (not graded)", "confidence")


def render(grades: ReportGrade) -> str:
    doc = grade_json(grades)
    lines = ["# " + inline(f"Grade of `{cell(doc.report)}`"), "",
             inline(f"Spec: {doc.spec_id or 'none matched'}"
                    + (f"; work checked against `{cell(doc.baseline)}`" if doc.baseline else "")), "",
             row(COLUMNS), "|" + "|".join("---" for _ in COLUMNS) + "|"]
    for k in doc.kernels:
        grade = share_pct(k.grade) if k.grade is not None else "withheld"
        confidence = k.confidence.value if k.confidence is not None else "n/a (no grade)"
        lines.append(row((f"`{cell(k.kernel)}`", str(k.launches), grade, _range(k), share_pct(k.datasheet_grade),
                          prose.governing(k), k.roof or "n/a", seconds(k.measured_s), _graded(k), seconds(k.floor_s),
                          seconds(k.max_saving_s), seconds(k.small_grid_s), confidence)))
    for k in doc.kernels:
        lines += ["", "## " + inline(f"`{cell(k.kernel)}`"), ""]
        lines += [f"- {inline('withheld: ' + prose.withheld(r, k))}" for r in k.withheld]
        lines += [f"- {inline(prose.condition(c))}" for c in k.conditions]
    return "\n".join(lines) + "\n"


def _range(k: KernelGradeDoc) -> str:
    """The per-launch grades' range, "46.4% to 69.8%"; without one, why (under the kernel's ``missing``)."""
    if k.interval is not None:
        return f"{share_pct(k.interval.low)} to {share_pct(k.interval.high)}"
    return f"n/a ({k.missing['interval']})" if k.missing.get("interval") else "n/a"


def _graded(k: KernelGradeDoc) -> str:
    """The graded launches' time, the one the grade is over; "n/a" with its reason where no launch is."""
    if k.graded_s is not None:
        return seconds(k.graded_s)
    return f"n/a ({k.missing['graded_s']})" if k.missing.get("graded_s") else "n/a"

