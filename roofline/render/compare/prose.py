"""The sentences the comparison renderers share, written here from the data of a comparison: the notes on a work
comparison, why a measure's sides are not comparable, a work comparison's summary and a measure's ratio, why
the diff gate left a kernel out or could not judge it, and why a projection's row of the report's own GPU is not
1x. Each line is built from fields (kinds, keys, sides,
numbers), never from another line's text."""

from __future__ import annotations

from roofline.analysis.grade import State
from roofline.analysis.work import Measure, WorkCheck, WorkNote, WorkNoteKind
from roofline.compare.pairing import ClockRan, OwnGpu
from roofline.compare.regression import GateCause, GateNote, NotJudged, Unchecked, Unjudged
from roofline.core.thresholds import CLOCK_MIN_DURATION_S
from roofline.core.units import pct, ratio, seconds, si


def apart_text(apart: tuple[str, ...]) -> str:
    """Why a measure's sides are not comparable: the definition each counts ("A counts lts__t_bytes, B lts2xbar")."""
    return f"A counts {apart[0]}, B {apart[1]}"


def work_note_text(note: WorkNote) -> str:
    """The note on a work comparison: the FP16 FLOPs compared with the register moves on both sides, or a measure
    left out for lack of a common definition."""
    if note.kind is WorkNoteKind.FP16_MOVES_COUNTED:
        return (f"FP16 FLOPs compared with the zero-product HFMA2 register moves counted on both sides: {note.side}'s "
                "report cannot separate them (no SourceCounters section; --set full can)")
    return f"{note.label} not compared: {apart_text(note.apart)}"


def ratio_text(m: Measure) -> str:
    """A measure's ratio for a table: "1199x", "0.25x", "0 -> 28.7k" where the base is zero, "n/a" where either side
    lacks it or the sides define it differently."""
    if m.ratio is not None:
        return f"{ratio(m.ratio)}x"
    if m.base is None or m.other is None or m.apart:
        return "n/a"
    return f"{si(m.base)} -> {si(m.other)}"


def work_summary(check: WorkCheck) -> str:
    """"same work (DRAM bytes within 5%, the resource that bounds both)", "different work: FP32 FLOPs 1199x",
    or why the work was not compared."""
    governs = "the resource that bounds both" if check.governs_both else ""
    if not check.basis:
        return ("work not compared: no FLOP counts on both sides, and threads launched stand for the work only "
                "for the same kernel with a known launch configuration")
    if not check.different:
        within = f"{check.basis_label} within {100 * check.tolerance:g}%"
        return f"same work ({', '.join(filter(None, (within, governs)))})"
    return "different work: " + ", ".join(f"{m.label} {ratio_text(m)}" for m in check.measures
                                          if m.decides and m.differs) + (f" ({governs})" if governs else "")


def gate_note_text(note: GateNote) -> str:
    """Why the diff gate left a kernel out (different work, a small share of the time) or could not divide its
    time by its work."""
    work = work_summary(note.check) if note.check is not None else "different work"
    if note.kind is GateCause.DIFFERENT_WORK:
        return f"{work}: not gated (--gate-different-work gates it)"
    if note.kind is GateCause.SMALL_SHARE:
        return (f"{note.share_pct:.2g}% of the time, under the {note.min_share_pct:g}% gated alone (it counts in the "
                "total)")
    return f"no unit of work to divide by ({work})"


def unchecked_text(u: Unchecked) -> str:
    """A gate that could not judge a kernel, and why: "slower not checked: no time"."""
    return f"{u.gate} not checked: {gate_note_text(u.note) if u.note is not None else u.reason}"


def own_gpu_text(o: OwnGpu) -> str:
    """Why the projection's row of the report's own GPU is not 1x: the clock the report ran at (ncu's locked base
    clock, or above or below it) against the clock the projection takes there."""
    ran, base = si(o.source_clock_hz, "Hz"), si(o.base_clock_hz, "Hz")
    at = {State.LOCKED_BASE: "the base clock ncu locks while profiling (--clock-control base, its default)",
          State.ABOVE_BASE: f"above the {base} base clock ncu locks by default (clocks not locked: --clock-control "
                            "none)",
          State.BELOW_BASE: f"below the {base} base clock ncu locks, held there by power or heat",
          State.SHORT_LAUNCHES: f"below the {base} base clock ncu locks as its launches under "
                                f"{seconds(CLOCK_MIN_DURATION_S)} read it (they read it low: not judged)"}
    unknown = "the spec gives no base clock to tell whether ncu locked it"
    clock = f"ran at {ran}, {at.get(o.source_clock, unknown)}" if o.source_clock_hz is not None else \
        "holds no SM clock"
    return (f"{o.target} is the report's own GPU: the report {clock}; the projection takes the {o.clock} clock, "
            f"{si(o.clock_hz, 'Hz')}: its row differs from 1x by what that change of clock does to the launches "
            "the SM clock paces, not by an error of the model")


def clock_apart_text(ran: ClockRan, side: str) -> str:
    """Why a side's kept up counts a change of clock: its launches ran above or below the base clock the expected
    speedup by projection assumes on its GPU."""
    at, base = si(ran.clock_hz, "Hz"), si(ran.base_clock_hz, "Hz")
    how = ("above", "clocks not locked: --clock-control none") if ran.state is State.ABOVE_BASE else \
        ("below", "held there by power or heat")
    return (f"{side}'s launches ran at {at}, {how[0]} the {base} base clock ncu locks, which the expected speedup "
            f"takes on {side}'s GPU ({how[1]}): its kept up counts that change of clock too")


NOT_JUDGED_WORDS = {Unjudged.NO_TIME: "no launch time on a side (not measured)",
                    Unjudged.EVERY_LAUNCH_INVALID: "NEW ran it, and every launch of it there is invalid (it failed, "
                                                   "or ncu could not replay it)",
                    Unjudged.EVERY_BASE_LAUNCH_INVALID: "BASE ran it, and every launch of it there is invalid (it "
                                                        "failed, or ncu could not replay it)"}


def not_judged_text(n: NotJudged, min_share_pct: float, name: str = "") -> str:
    """Why the gate could not judge a kernel of its size, and what to do (``name``: the kernel as the format
    writes it, else as it is)."""
    if n.share_pct is not None and n.share_of is not None:
        share = f"{pct(n.share_pct)} of {n.share_of.upper()}'s time, >= --min-share {min_share_pct:g}%"
        fix = "re-profile it, or raise --min-share above its share to leave it out"
    else:
        share = "no time on either side: its share unknown, so no --min-share leaves it out"
        fix = "re-profile it, or gate the other kernels alone with --kernel filters that leave it out"
    return f"{name or n.kernel} ({share}): {NOT_JUDGED_WORDS[n.cause]}; {fix}"
