"""`roofline grade` as text: one block per kernel (its grade, interval, grade at the units' full peaks, the governing
unit and roof, time (and the graded launches' time, the grade's: floor over it), floor and the most a what-if
saves, the small grids' time counted apart, the confidence), then
its conditions and why a grade is withheld."""

from __future__ import annotations

from roofline.analysis.grade import ReportGrade
from roofline.core.kernel_names import fit_apart, kernel_name
from roofline.core.labels import basis_label
from roofline.core.units import counted, middle_cut, seconds, share_pct, si
from roofline.documents.grade import GradeJson, KernelGradeDoc, grade_json
from roofline.render.compare.table import unit_wrap
from roofline.render.grade import prose


def render(grades: ReportGrade, width: int = 80) -> str:
    """The grade document as text fitted to ``width`` columns."""
    return text(grade_json(grades), width)


def text(doc: GradeJson, width: int = 80) -> str:
    lines = [f"Grade of {doc.report} (spec {doc.spec_id or 'none matched'})"]
    if doc.baseline:
        lines.append(f"Work checked against {doc.baseline}")
    names = fit_apart([kernel_name(k.kernel, k.kernel) for k in doc.kernels], width)
    for k, name in zip(doc.kernels, names, strict=True):
        lines += ["", *kernel_lines(k, width, name)]
    if not doc.kernels:
        lines += ["", "No kernel to grade."]
    return "\n".join(w for line in lines for w in wrapped(line, width)) + "\n"


def kernel_lines(k: KernelGradeDoc, width: int = 80, name: str = "") -> list[str]:
    """One kernel's block, headed by ``name`` (the kernel's name fitted apart from the others', ``fit_apart``: the
    scope given up first, the function name last), else its name fitted to ``width``."""
    lines = [name or kernel_name(k.kernel, k.kernel).fit(width)]
    if k.grade is None:
        lines.append("  grade: withheld")
        lines += [f"    - {prose.withheld(r, k)}" for r in k.withheld]
    else:
        spread = f" (launches {share_pct(k.interval.low)} to {share_pct(k.interval.high)})" if k.interval else ""
        lines.append(f"  grade: {share_pct(k.grade)} of the attainable roof{spread}; at the units' full "
                     f"peaks {share_pct(k.datasheet_grade)}")
    lines.append(f"  governed by: {prose.governing(k)} (roof {k.roof or 'n/a'})")
    apart = prose.small_grids(k)
    lines.append(f"  time: {seconds(k.measured_s)} over {counted(k.launches, 'launch')}, {prose.graded(k)}; "
                 f"floor {seconds(k.floor_s)}; "
                 f"most saved keeping the work and grid: {seconds(k.max_saving_s)}" + (f"; {apart}" if apart else ""))
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
    """A line fitted to ``width`` columns, its continuation indented under its text, never broken between a number
    and its unit ("3.66 us", "4 launches": ``unit_wrap``)."""
    indent = " " * (len(line) - len(line.lstrip(" -")))
    return unit_wrap(line, width, indent) if line.strip() else [line]
