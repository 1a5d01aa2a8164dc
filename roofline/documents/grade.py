"""The ``grade`` document (``roofline grade -f json``): each kernel's grade against the roof of the work it does
(``analysis.grade``), its datasheet grade and interval, the unit and roof that govern it, the most a what-if that
keeps the work saves, the conditions of the measurement with the ncu option that fixes each, the confidence, and
why a grade is withheld (with the work found against a baseline report). Enums are written as their values."""

from __future__ import annotations

from typing import Literal

from msgspec import Struct

from roofline.analysis.grade import (
    Condition,
    ConditionKind,
    Confidence,
    KernelGrade,
    LaunchGrade,
    NcuFix,
    ReportGrade,
    State,
    Withheld,
    WorkFinding,
)
from roofline.core.version import GENERATOR
from roofline.documents.common import SCHEMA_VERSION, Generator, Number, Tool, Version, number, tool


class ConditionDoc(Struct, frozen=True):
    """One condition of the measurement: its state, whether it lowers the confidence, the ncu option that fixes it
    ("" where none does), and the measured and expected figures (clock in Hz, replay passes, launches)."""

    kind: ConditionKind
    state: State
    lowers_confidence: bool
    fix: NcuFix
    measured: Number
    expected: Number


class IntervalDoc(Struct, frozen=True):
    """The spread of the grade over the kernel's launches, and how it is computed."""

    low: float
    high: float
    method: str


class WorkDoc(Struct, frozen=True):
    """The kernel's work per launch against the baseline kernel's: whether it differs (and on which measure), the
    FLOPs and written-bytes ratios (this kernel over the baseline's), and the precision each side computes in."""

    baseline_kernel: str
    different: bool | None  # null where no measure of work is on both (``missing`` says so)
    basis: str
    flops_ratio: Number
    written_ratio: Number
    precision: str | None
    baseline_precision: str | None
    differs_on: list[DiffersOnDoc] = []  # the deciding measures beyond the tolerance: what makes the work differ
    missing: dict[str, str] = {}  # the reason of a null ``different``


class DiffersOnDoc(Struct, frozen=True):
    """One measure of work that decides and differs beyond the tolerance: this kernel's and the baseline's values
    per launch and their ratio (null where either is not measured or they are defined apart)."""

    measure: str
    value: Number
    baseline: Number
    ratio: Number


class LaunchGradeDoc(Struct, frozen=True):
    """One launch: its measured time, its floors at the achievable and the units' full peaks (``datasheet_*``: ncu's
    percent of each unit's peak, not the datasheet roofs), their grades, and the term
    that makes the achievable floor with that unit's achievable fraction and its source."""

    measured_s: float
    floor_s: float
    datasheet_floor_s: float
    grade: float
    datasheet_grade: float
    governing: str
    fraction: float
    fraction_source: str
    metric: str


class KernelGradeDoc(Struct, frozen=True):
    """A kernel's grade (null where withheld: the reasons under ``withheld``), time-weighted over its launches."""

    kernel: str
    launches: int
    grade: Number
    datasheet_grade: Number  # the floor with every unit at its full peak (ncu's percent of peak), not the roofs
    interval: IntervalDoc | None
    governing: str | None
    roof: str | None
    measured_s: Number
    floor_s: Number
    max_saving_s: Number
    confidence: Confidence
    conditions: list[ConditionDoc]
    withheld: list[Withheld]
    work: WorkDoc | None
    per_launch: list[LaunchGradeDoc]


class GradeJson(Struct, frozen=True):
    """``roofline grade -f json``."""

    generator: Generator
    schema_version: Version
    kind: Literal["grade"]
    tool: Tool
    report: str
    spec_id: str | None
    baseline: str | None
    kernels: list[KernelGradeDoc]


def grade_json(grades: ReportGrade, per_launch: bool = True) -> GradeJson:
    """The document of ``grade``; without ``per_launch``, each kernel's launches left out (the MCP tool's size)."""
    return GradeJson(GENERATOR, SCHEMA_VERSION, "grade", tool(), grades.path, grades.spec_id,
                     grades.baseline or None, [kernel_doc(k, per_launch) for k in grades.kernels])


def kernel_doc(k: KernelGrade, per_launch: bool = True) -> KernelGradeDoc:
    """One kernel's grade."""
    interval = IntervalDoc(k.interval.low, k.interval.high, k.interval.method) if k.interval is not None else None
    return KernelGradeDoc(
        k.kernel, k.launches, number(k.grade), number(k.datasheet_grade), interval, k.governing, k.roof,
        number(k.measured_s), number(k.floor_s), number(k.max_saving_s), k.confidence,
        [condition_doc(c) for c in k.conditions], list(k.withheld), work_doc(k.work) if k.work is not None else None,
        [launch_doc(g) for g in k.per_launch] if per_launch else [])


def condition_doc(c: Condition) -> ConditionDoc:
    return ConditionDoc(c.kind, c.state, c.lowers, c.fix, number(c.measured), number(c.expected))


def work_doc(w: WorkFinding) -> WorkDoc:
    differs = [DiffersOnDoc(m.key, number(m.other), number(m.base), number(m.ratio)) for m in w.check.measures
               if m.decides and m.differs]
    compared = bool(w.check.basis)
    return WorkDoc(w.baseline_kernel, w.check.different if compared else None, w.check.basis, number(w.flops_ratio),
                   number(w.written_ratio), w.precision, w.baseline_precision, differs,
                   {} if compared else {"different": "not compared: no measure of work on both reports"})


def launch_doc(g: LaunchGrade) -> LaunchGradeDoc:
    return LaunchGradeDoc(g.measured_s, g.floor_s, g.datasheet_floor_s, g.grade, g.datasheet_grade, g.governing,
                          g.fraction, g.fraction_source, g.metric)
