"""The ``grade`` document (``roofline grade -f json``): each kernel's grade against the roof of the work it does
(``analysis.grade``), its datasheet grade and interval, the unit and roof that govern it, the most a what-if that
keeps the work and grid saves, its small-grid time (counted apart, as the summary counts it), the conditions of the
measurement with the ncu option that fixes each, the confidence, and why a grade is withheld (with the work found
against a baseline report). Enums are written as their values; every null of a kernel, a launch or the document has
its reason under that object's ``missing``."""

from __future__ import annotations

from typing import Literal

from msgspec import Struct
from msgspec.structs import replace

from roofline.analysis.grade import (
    SMALL_GRID_REASON,
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
from roofline.analysis.work import Measure
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
    missing: dict[str, str] = {}  # the reason of a null ``different``, ``flops_ratio`` or ``written_ratio``


class DiffersOnDoc(Struct, frozen=True, omit_defaults=True):
    """One measure of work that decides and differs beyond the tolerance: this kernel's and the baseline's values
    per launch and their ratio (null where either is not measured or they are defined apart)."""

    measure: str
    value: Number
    baseline: Number
    ratio: Number
    missing: dict[str, str] = {}  # the reason of each null (left out where none is)


class LaunchGradeDoc(Struct, frozen=True):
    """One launch: its measured time, its floors at the achievable and the units' full peaks (``datasheet_*``: ncu's
    percent of each unit's peak, not the datasheet roofs), their grades, and the term
    that makes the achievable floor with that unit's achievable fraction and its source; null where the launch has
    no unit term to grade against, the reason under ``missing``."""

    measured_s: float
    floor_s: Number
    datasheet_floor_s: Number
    grade: Number
    datasheet_grade: Number
    governing: str | None
    fraction: Number
    fraction_source: str
    metric: str
    small_grid: bool = False  # a small-grid launch: not graded (too few blocks: the grid sets its time), its time
    # counted apart under the kernel's small_grid_s; its nulls' reason says so under ``missing``
    missing: dict[str, str] = {}


class KernelGradeDoc(Struct, frozen=True):
    """A kernel's grade (null where withheld: the reasons under ``withheld``), time-weighted over its graded
    launches (``graded_s``: their time; the grade is ``floor_s / graded_s``); its measured time over every timed
    launch; its floor and most saved (``graded_s - floor_s``) over the graded launches, its small-grid launches' time
    apart (``small_grid_s``: not graded, as the summary leaves it out of the recoverable
    time); no confidence where there is no grade; each null's reason under ``missing``."""

    kernel: str
    launches: int
    grade: Number
    datasheet_grade: Number  # the floor with every unit at its full peak (ncu's percent of peak), not the roofs
    interval: IntervalDoc | None
    governing: str | None
    governing_name: str | None  # that term's full name as the time model names it (a tail's: whose whole blocks)
    roof: str | None
    measured_s: Number  # every timed launch's time, the small grids' included
    graded_s: Number  # the graded launches' time, the grade's: measured_s less small_grid_s and ungraded launches
    floor_s: Number
    max_saving_s: Number  # the most a what-if keeping the work and grid saves: 0 where every launch is a small grid
    small_grid_s: Number  # the small-grid launches' time, counted apart (0 where none)
    graded_launches: int  # the launches graded_s is over
    small_grid_launches: int  # the timed launches counted apart as small grids
    unmodelled_launches: int  # the timed launches neither graded nor small grids (no time model)
    confidence: Confidence | None
    conditions: list[ConditionDoc]
    withheld: list[Withheld]
    work: WorkDoc | None
    per_launch: list[LaunchGradeDoc]
    missing: dict[str, str] = {}


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
    missing: dict[str, str] = {}  # the reason of a null spec_id or baseline


NOT_FINITE = "not a finite number"
WITHHELD = "withheld"
SEE_WITHHELD = "see withheld"
NO_BASELINE = "no --baseline given: the work is not checked against a reference kernel"
NO_UNIT_TERM = "no measured time or unit term"


def grade_json(grades: ReportGrade, per_launch: bool = True) -> GradeJson:
    """The document of ``grade``; without ``per_launch``, each kernel's launches left out (the MCP tool's size)."""
    missing = {key: why for key, value, why in (
        ("spec_id", grades.spec_id, "no device spec matched the report's GPU"),
        ("baseline", grades.baseline, NO_BASELINE)) if not value}
    return GradeJson(GENERATOR, SCHEMA_VERSION, "grade", tool(), grades.path, grades.spec_id,
                     grades.baseline or None, [kernel_doc(k, per_launch) for k in grades.kernels], missing)


def kernel_doc(k: KernelGrade, per_launch: bool = True) -> KernelGradeDoc:
    """One kernel's grade; the reason of each null under ``missing`` (``kernel_missing``)."""
    interval = IntervalDoc(k.interval.low, k.interval.high, k.interval.method) if k.interval is not None else None
    doc = KernelGradeDoc(
        k.kernel, k.launches, number(k.grade), number(k.datasheet_grade), interval, k.governing, k.governing_name,
        k.roof, number(k.measured_s), number(k.graded_s), number(k.floor_s), number(k.max_saving_s),
        number(k.small_grid_s), k.graded_launches, k.small_grid_launches, k.unmodelled_launches, k.confidence,
        [condition_doc(c) for c in k.conditions], list(k.withheld), work_doc(k.work) if k.work is not None else None,
        [launch_doc(g) for g in k.per_launch] if per_launch else [])
    return replace(doc, missing=kernel_missing(k, doc))


def kernel_missing(k: KernelGrade, doc: KernelGradeDoc) -> dict[str, str]:
    """The reason of each null of a kernel's document ``doc``: the grade withheld (for ``no_time_model`` the time
    model's reason, as a launch's; else see ``withheld``), no launch graded (every one a small grid, or none with a
    time model), launches left ungraded, no confidence without a grade, no baseline, no verdict to tell small
    grids by."""
    graded = sum(g.grade is not None for g in k.per_launch)
    unit = sum(not g.small_grid for g in k.per_launch)  # timed launches not counted apart as small grids
    ungraded = f"no launch graded: {k.reason or NO_UNIT_TERM}" if k.reason or not k.per_launch else \
        f"no launch graded: {SMALL_GRID_REASON}"
    part = (f"{unit - graded} of the {unit} timed launches that are no small grid not graded ({k.reason}): no "
            "figure for the kernel's whole time" if graded else ungraded)
    unmodelled = Withheld.NO_TIME_MODEL in k.withheld  # the one reason the enum alone does not give in full
    why = {
        "grade": (k.reason or NO_UNIT_TERM) if unmodelled else SEE_WITHHELD,
        "datasheet_grade": WITHHELD, "interval": WITHHELD if doc.grade is None else "one launch graded: no spread",
        "governing": ungraded, "governing_name": ungraded,
        "roof": ungraded if doc.governing is None else "no memory level governs and no FLOPs counted",
        "measured_s": f"no launch has a measured time: {k.reason or 'not measured'}",
        "graded_s": ungraded,
        "floor_s": part, "max_saving_s": part,
        "small_grid_s": "no timed launch has a verdict: whether any is a small grid is not known",
        "confidence": "no grade",
        "work": NO_BASELINE,
    }
    out = {key: text if getattr(k, key) is None else NOT_FINITE for key, text in why.items()
           if getattr(doc, key) is None}
    for i, c in enumerate(doc.conditions):
        out.update({f"conditions[{i}].{field}": CONDITION_NULLS[c.kind][field]
                    for field in ("measured", "expected") if getattr(c, field) is None})
    return out


# Why a condition's figure is null, by its kind: a state without a figure, or a figure without an expectation.
CONDITION_NULLS = {
    ConditionKind.CLOCK: {"measured": "the report gives no SM clock for the launches (none where ncu measured no "
                                      "launch: state not_measured)",
                          "expected": "the spec gives no base clock to compare with"},
    ConditionKind.CACHE: {"measured": "a state, not a figure (its state)",
                          "expected": "a state, not a figure"},
    ConditionKind.REPLAY: {"measured": "the report gives no replay pass count",
                           "expected": "no pass count is expected: any number of passes replays the same work"},
    ConditionKind.LAUNCHES: {"measured": "no launch measured",
                             "expected": "no launch count is expected: more launches narrow the interval"},
}


def condition_doc(c: Condition) -> ConditionDoc:
    return ConditionDoc(c.kind, c.state, c.lowers, c.fix, number(c.measured), number(c.expected))


def work_doc(w: WorkFinding) -> WorkDoc:
    """The work against the baseline; the reason of each null under ``missing`` (``ratio_reason``)."""
    differs = [differs_on_doc(m) for m in w.check.measures if m.decides and m.differs]
    compared = bool(w.check.basis)
    missing = {} if compared else {"different": "not compared: no measure of work on both reports"}
    for key, ratio, sides, what in (("flops_ratio", w.flops_ratio, w.flops, "FLOPs"),
                                    ("written_ratio", w.written_ratio, w.written, "bytes written")):
        if number(ratio) is None:
            missing[key] = ratio_reason(sides, what)
    return WorkDoc(w.baseline_kernel, w.check.different if compared else None, w.check.basis, number(w.flops_ratio),
                   number(w.written_ratio), w.precision, w.baseline_precision, differs, missing)


def ratio_reason(sides: tuple[float | None, float | None], what: str) -> str:
    """Why this kernel's ``what`` per launch over the baseline's is null: a side lacks it, or the baseline's is 0."""
    base, other = sides
    if base is None:
        return f"the baseline's {what} not measured"
    if other is None:
        return f"this kernel's {what} not measured"
    return f"the baseline's {what} are 0" if base == 0 else NOT_FINITE


def differs_on_doc(m: Measure) -> DiffersOnDoc:
    """One deciding measure that differs (both sides measured and alike defined, ``analysis.work``); a null ratio
    with its reason: the baseline's value is 0."""
    doc = DiffersOnDoc(m.key, number(m.other), number(m.base), number(m.ratio))
    if doc.ratio is None:
        return replace(doc, missing={"ratio": "the baseline's is 0" if m.base == 0 else NOT_FINITE})
    return doc


def launch_doc(g: LaunchGrade) -> LaunchGradeDoc:
    """One launch; where it is not graded, each null with its reason (the time model's, or a small grid's)."""
    doc = LaunchGradeDoc(g.measured_s, number(g.floor_s), number(g.datasheet_floor_s), number(g.grade),
                         number(g.datasheet_grade), g.governing, number(g.fraction), g.fraction_source, g.metric,
                         g.small_grid)
    keys = ("floor_s", "datasheet_floor_s", "grade", "datasheet_grade", "governing", "fraction")
    return replace(doc, missing={key: g.reason if getattr(g, key) is None else NOT_FINITE for key in keys
                                 if getattr(doc, key) is None})
