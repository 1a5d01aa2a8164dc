"""The sentences of the grade's renderers: each condition's state, why a grade is withheld (from the document's
``withheld`` reasons, its work and, for no time model, the reason under its ``missing``)."""

from __future__ import annotations

from roofline.analysis.grade import SMALL_GRID_REASON, ConditionKind, State, Withheld
from roofline.analysis.time_model import TAIL
from roofline.core.thresholds import CLOCK_MIN_DURATION_S, CLOCK_TOLERANCE
from roofline.core.units import counted, seconds, si
from roofline.documents.grade import ConditionDoc, KernelGradeDoc

STATES: dict[tuple[ConditionKind, State], str] = {
    (ConditionKind.CLOCK, State.LOCKED_BASE): f"SM clock at base within {CLOCK_TOLERANCE:.0%}, as ncu locks it",
    (ConditionKind.CLOCK, State.ABOVE_BASE): "SM clock above base (not locked)",
    (ConditionKind.CLOCK, State.BELOW_BASE): "SM clock below base (held down by power or heat)",
    (ConditionKind.CLOCK, State.SHORT_LAUNCHES): f"SM clock under base, not judged: read only on launches under "
                                                 f"{seconds(CLOCK_MIN_DURATION_S)}, which read it low",
    (ConditionKind.CLOCK, State.UNKNOWN): "SM clock or the spec's base clock unknown",
    (ConditionKind.CLOCK, State.NOT_MEASURED): "SM clock not measured: ncu measured no launch (profile the kernel "
                                               "again, as the grade's reason says)",
    (ConditionKind.CACHE, State.FLUSHED): "caches flushed before each pass",
    (ConditionKind.CACHE, State.NOT_FLUSHED): "caches left warm between passes",
    (ConditionKind.CACHE, State.UNKNOWN): "cache control unknown (not in the report)",
    (ConditionKind.REPLAY, State.SINGLE_PASS): "one replay pass",
    (ConditionKind.REPLAY, State.KERNEL): "kernel replay (memory restored between passes)",
    (ConditionKind.REPLAY, State.NOT_KERNEL): "several passes without memory restored",
    (ConditionKind.REPLAY, State.UNKNOWN): "replay mode unknown",
    (ConditionKind.LAUNCHES, State.ONE): "one launch measured: no spread",
    (ConditionKind.LAUNCHES, State.SEVERAL): "several launches measured",
}


def condition(c: ConditionDoc) -> str:
    """One condition as a phrase, its figures and the option that fixes it."""
    text = STATES.get((c.kind, c.state), f"{c.kind.value}: {c.state.value}")
    if c.kind is ConditionKind.CLOCK and c.measured is not None:
        text += f" ({si(c.measured, 'Hz')}" + (f", base {si(c.expected, 'Hz')})" if c.expected else ")")
    elif c.kind is ConditionKind.LAUNCHES and c.measured is not None:
        text += f" ({counted(int(c.measured), 'launch')})"
    elif c.kind is ConditionKind.REPLAY and c.measured is not None:
        text += f" ({counted(int(c.measured), 'pass')})"
    return text + (f"; fix: ncu {c.fix.value}" if c.fix.value else "")


def withheld(reason: Withheld, k: KernelGradeDoc) -> str:
    """Why a kernel's grade is withheld, in words (for no time model, the kernel's reason: its first ungraded
    launch's, under its ``missing``, which holds it even where no launch has a time)."""
    if reason is Withheld.LESS_WORK:
        return "fewer FLOPs than the baseline's kernel (computation skipped)"
    if reason is Withheld.OTHER_PRECISION:
        used = k.work.precision if k.work is not None else None
        asked = k.work.baseline_precision if k.work is not None else None
        return f"computes in {used}, a less precise type than the baseline's {asked}"
    if reason is Withheld.NO_OUTPUT:
        return "writes nothing to L2 or DRAM (no output)"
    if reason is Withheld.SMALL_GRID:
        return f"every timed launch is {SMALL_GRID_REASON}"
    why = k.missing.get("grade", "")
    return "no time model to grade against" + (f": {why}" if why else " (no measured time or unit term)")


def governing(k: KernelGradeDoc) -> str:
    """What governs the kernel's floor: its unit, or for the tail, whose whole blocks per SM make it, as the time
    model names the term ("tail of the LSU pipe (load/store instructions), in whole blocks per SM")."""
    if k.governing == TAIL and k.governing_name:
        return f"tail of the {k.governing_name}"
    return k.governing or "n/a"


def small_grids(k: KernelGradeDoc) -> str:
    """The small-grid launches' time, counted apart from the most saved keeping the grid ("" where none)."""
    return f"small grids (not graded: the grid sets their time): {seconds(k.small_grid_s)}" if k.small_grid_s else ""


def graded(k: KernelGradeDoc) -> str:
    """The time the grade is over, beside the kernel's whole time: "all graded" where it is that time; else the
    graded launches' time and count and what is left apart (small grids, launches without a time model); "none
    graded" where no launch is."""
    if k.graded_s is None:
        return "none graded"
    if not k.small_grid_launches and not k.unmodelled_launches:
        return "all graded"
    apart = [what for what, n in (("small grids", k.small_grid_launches),
                                  ("launches without a time model", k.unmodelled_launches)) if n]
    over = f" over {counted(k.graded_launches, 'launch')}" if k.per_launch else ""
    return f"graded {seconds(k.graded_s)}{over} (the grade's time: {' and '.join(apart) or 'the rest'} apart)"

