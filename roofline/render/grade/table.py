"""`roofline grade` as text: one block per kernel (its grade, interval, grade at the units' full peaks, the governing
unit and roof, time, floor and the most a what-if saves, the confidence), then its conditions and why a grade is
withheld."""

from __future__ import annotations

from roofline.analysis.grade import ReportGrade
from roofline.core.labels import basis_label
from roofline.core.units import counted, middle_cut, seconds, share_pct, si
from roofline.documents.grade import GradeJson, KernelGradeDoc, grade_json
from roofline.render.grade import prose


def render(grades: ReportGrade, width: int = 80) -> str:
    """The grade document as text fitted to ``width`` columns."""
    return text(grade_json(grades), width)


def text(doc: GradeJson, width: int = 80) -> str:
    lines = [f"Grade of {doc.report} (spec {doc.spec_id or 'none matched'})"]
    if doc.baseline:
        lines.append(f"Work checked against {doc.baseline}")
    for k in doc.kernels:
        lines += ["", *kernel_lines(k, width)]
    if not doc.kernels:
        lines += ["", "No kernel to grade."]
    return "\n".join(w for line in lines for w in wrapped(line, width)) + "\n"


def kernel_lines(k: KernelGradeDoc, width: int = 80) -> list[str]:
    """One kernel's block."""
    lines = [middle_cut(k.kernel, width)]
    if k.grade is None:
        lines.append("  grade: withheld")
        lines += [f"    - {prose.withheld(r, k)}" for r in k.withheld]
    else:
        spread = f" (launches {share_pct(k.interval.low)} to {share_pct(k.interval.high)})" if k.interval else ""
        lines.append(f"  grade: {share_pct(k.grade)} of the attainable roof{spread}; at the units' full "
                     f"peaks {share_pct(k.datasheet_grade)}")
    lines.append(f"  governed by: {k.governing or 'n/a'} (roof {k.roof or 'n/a'})")
    lines.append(f"  time: {seconds(k.measured_s)} over {counted(k.launches, 'launch')}; floor {seconds(k.floor_s)}; "
                 f"most saved keeping the work: {seconds(k.max_saving_s)}")
    if k.work is not None:
        on = "; ".join(f"{d.measure} {si(d.value)} (baseline {si(d.baseline)})" for d in k.work.differs_on)
        lines.append(f"  work vs baseline {middle_cut(k.work.baseline_kernel, max(20, width - 40))}: "
                     f"{_work_word(k.work.different, k.work.basis)}{f' on {on}' if k.work.different and on else ''}; "
                     f"precision {k.work.precision or 'n/a'} (baseline {k.work.baseline_precision or 'n/a'})")
    lines.append(f"  confidence: {k.confidence.value}" if k.confidence is not None
                 else "  confidence: n/a (no grade to qualify); conditions:")
    lines += [f"    - {prose.condition(c)}" for c in k.conditions]
    return lines


def _work_word(different: bool | None, basis: str) -> str:
    """"differs" (the measures that decide follow), "same", "same (by threads launched)" where not compared on the
    FLOPs, or "not compared (no measure of work on both)"."""
    if different is None:
        return "not compared (no measure of work on both)"
    if different:
        return "differs"
    return "same" if basis == "flops" else f"same (by {basis_label(basis)})"


def wrapped(line: str, width: int) -> list[str]:
    """A line fitted to ``width`` columns, its continuation indented under its text."""
    import textwrap

    indent = " " * (len(line) - len(line.lstrip(" -")))
    return textwrap.wrap(line, width, subsequent_indent=indent, break_on_hyphens=False) or [line]
