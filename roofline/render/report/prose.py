"""The sentences the report renderers share, written here from the data of a report's view: an advice item's
estimate and the ncu rules it cites, a busy unit's short name, the notes on how FLOPs were counted and beside the
memory chart, the note on roofs taken from the datasheet and the lines saying why values are n/a. Nothing here reads
prose back: each line is built from fields (causes, keys, flags), never from another line's text."""

from __future__ import annotations

from collections.abc import Sequence

from roofline.analysis.launches import KernelSpread
from roofline.analysis.ncu_rules import LOCAL
from roofline.analysis.results import (
    Advice,
    BusyUnit,
    Cause,
    EstimateBound,
    HotRow,
    InvertedLevel,
    LaunchAnalysis,
    MemoryNote,
    MemoryNoteKind,
    ModelChange,
    PeakKind,
    Producer,
    Verdict,
)
from roofline.analysis.roofline import POOLED_NOTE
from roofline.analysis.verdict import BOUND_WORDS
from roofline.analysis.view import ReportView, ScaledRoofs, Unavailable
from roofline.core.labels import NAMES
from roofline.core.model import CeilingSet
from roofline.core.thresholds import LATENCY_BELOW_PCT
from roofline.core.units import pct, pct_beside, seconds
from roofline.core.units import waves as wave_count
from roofline.ncu.metrics import HINT_HFMA_MOVES, HINT_L2_OP_HIT, FlopNote, FlopNoteKind

CITED_RULES = 3  # ncu rules named after an item's text; the others are counted


def inverted_level_text(level: InvertedLevel) -> str:
    """The note on a memory level that counts one direction only and so looks below the level outside it."""
    total = f"; all L2 traffic, stores included, is bytes.l2_total ({level.l2_total_via})" if level.l2_total_via else ""
    return (f"{NAMES[level.inner]} bytes count {level.one_way} ({level.counter} definition), so they fall below the "
            f"{NAMES[level.outer]} bytes and the hierarchy looks inverted{total}")


def flop_note_text(note: FlopNote) -> str:
    """The note on how a precision's FLOPs were counted: what they leave out, or what they assume."""
    kind = note.kind
    if kind is FlopNoteKind.COUNTER_ABSENT:
        return f"{note.precision.upper()} FLOPs leave out {note.op} (counter not in the report)"
    if kind is FlopNoteKind.HFMA_MOVES_UNCOUNTED:
        return ("FP16 FLOPs come from HFMA2 instructions alone, and compilers also emit HFMA2 with zero multiplicands "
                f"as register moves (no arithmetic) that ncu counts as HFMA; {HINT_HFMA_MOVES}")
    if kind is FlopNoteKind.HFMA_MOVES_LEFT_OUT:
        return (f"FP16 FLOPs leave out {note.flops:,.0f} FLOPs: {note.moves:,.0f} zero-product HFMA2 thread "
                "instructions, register moves through the FMA pipe with no arithmetic")
    return f"approximate: {note.flops:g} FLOP per HMMA.884 instruction (FP32 accumulate)"


def flop_notes_text(notes: Sequence[FlopNote]) -> list[str]:
    """The sentences of a report's FLOP notes, each once, in their text's order."""
    return sorted(set(map(flop_note_text, notes)))


AT_LEAST = ">= "  # before an intensity that leaves out FLOPs not measured: a lower bound


def left_out_names(k: LaunchAnalysis) -> str:
    """The precisions whose FLOPs a launch's intensities leave out (``LaunchAnalysis.intensity_leaves_out``), named:
    "FP16", "FP16 and Tensor"."""
    return " and ".join(NAMES[p] for p in k.intensity_leaves_out)


def intensity_caveat_text(k: LaunchAnalysis) -> str:
    """The note beside a launch's intensities where they leave out FLOPs not measured: they count the measured
    precisions alone, so each is a lower bound, and the option that measures the others ("" where none is left
    out)."""
    if not k.intensity_leaves_out:
        return ""
    how = "; ".join(dict.fromkeys(k.flops[p].collect or k.flops[p].reason for p in k.intensity_leaves_out))
    return (f"FLOP/byte counts the measured FLOPs alone, each a lower bound (marked {AT_LEAST.strip()}): "
            f"{left_out_names(k)} FLOPs not measured" + (f" ({how})" if how else ""))


L2_ABOVE_FULL = ("an L2 hit rate above 100%: ncu counts hits and lookups in separate replay passes and does not clamp "
                 "their ratio, and stores hit by construction (the L2 takes written sectors without reading DRAM)")
MEMORY_NOTES = {MemoryNoteKind.L2_ABOVE_FULL: L2_ABOVE_FULL}
L2_SPLIT = "; the loads' and stores' rates show the mix"
L2_NO_SPLIT = f"; for the loads' and stores' rates apart {HINT_L2_OP_HIT}"


def sol_text(value: float, over_active: bool) -> str:
    """One Speed of Light figure: "60.64%", and "90.64% of active cycles" for a unit whose percent ncu states over
    its active cycles, not the elapsed ones (``MemoryPicture.sol_over_active``: the L1/TEX's), so that it is not
    read as the busiest unit's."""
    return pct(value, 2) + (" of active cycles" if over_active else "")


def memory_note_text(note: MemoryNote) -> str:
    """The note beside the memory chart: why an L2 hit rate above 100% is no error, and what splits it."""
    return MEMORY_NOTES[note.kind] + (L2_SPLIT if note.split else L2_NO_SPLIT)


ROOFS_ONLY = "FP and byte roofs only"  # beside a saving whose launch's time model has no other unit
ROOFS_ONLY_WHY = ("the report has no SpeedOfLight breakdowns, so the time model sees only the FP and byte roofs: "
                  "units it does not see may need more time")


AT_FLOOR = "at its floor already"  # a zero saving bounded by the slack: the launch runs at its floor


def estimate_text(item: Advice) -> str:
    """The estimate as shown beside an item: "saves ~1.2 ms" (with ncu's own estimate where it was above, "saves
    ~1.2 ms (ncu: 1.3 ms)"), "saves at most 1.2 ms (busiest unit's gap; ncu: 3.4 ms)", "ncu local 83%" or "not
    estimated"; ", overlapping" after a saving that overlaps others' (``Advice.overlapping``)."""
    text = _estimate(item)
    return f"{text}, overlapping" if item.overlapping else text


def _estimate(item: Advice) -> str:
    ncu = f"ncu: {seconds(item.ncu_saved_s)}" if item.ncu_saved_s is not None else ""
    if item.est_saved_s is None and item.bound_by is EstimateBound.FLOOR_UNCHANGED:
        return "no saving: the floor stays" + (f" ({ncu})" if ncu else "")
    if item.est_saved_s is None:
        local = f"{LOCAL} {item.ncu_local_pct:.3g}%" if item.ncu_local_pct is not None else "not estimated"
        return local + (f" ({ncu})" if ncu else "")
    if item.est_saved_s == 0.0:  # JSON's estimate says the same: "saves nothing: <bound>"
        why = AT_FLOOR if item.bound_by is EstimateBound.SLACK else item.bound_by.value
        return "no saving" + (f": {why}" if why else "") + (f" ({ncu})" if ncu else "")
    if not item.capped:
        return f"saves ~{seconds(item.est_saved_s)}" + (f" ({ncu})" if ncu else "")
    why = "; ".join(x for x in (item.bound_by.value, ROOFS_ONLY if item.roofs_only else "", ncu) if x)
    return f"saves at most {seconds(item.est_saved_s)}" + (f" ({why})" if why else "")


def bound_of(item: Advice) -> str:
    """The bound applied to an item's estimate, in words (JSON ``bound``): the analysis's line for its mechanism's
    bound, or the what-if on the time model said from its data ("" when nothing bounds it)."""
    return what_if_text(item.change, item.bound_by) if item.change is not None else item.bound


def estimate_of(item: Advice) -> str:
    """How an item's estimate was obtained, or why there is none (JSON ``estimate``): the analysis's line, or for a
    what-if on the time model "saves nothing: ...", "at most: ..." or "bounded: ..." and the bound."""
    text = _estimate_words(item)
    return f"{text}; {ROOFS_ONLY_WHY}" if item.roofs_only and text else text


def _estimate_words(item: Advice) -> str:
    w = item.change
    if w is None or item.kind == "measurement":
        return item.estimate
    if item.bound_by in (EstimateBound.FLOOR_UNCHANGED, EstimateBound.NOTHING_REMOVED) or item.est_saved_s == 0.0:
        return f"saves nothing: {bound_of(item)}"
    if not item.capped:
        return item.estimate
    if w.own_above:
        ncu = f" (ncu estimated {seconds(item.ncu_saved_s)})" if item.source == "ncu" and item.ncu_saved_s else ""
        return f"bounded: {bound_of(item)}{ncu}"
    return f"at most: {bound_of(item)}"


def what_if_text(w: ModelChange, by: EstimateBound) -> str:
    """A what-if on the time model in words: "latency hidden, the kernel at its floor (DRAM, 1.2 ms): at most
    measured - floor", "DRAM x 0.5: the changed kernel's floor is 0.8 ms (L2); at most measured - that floor", with
    the peak the floor is measured to where not the datasheet's (``peak_text``: "measured to the calibrated DRAM
    roof", "measured to the achievable DRAM bandwidth")."""
    scales = ", ".join(f"{key} x {factor:.2g}" for key, factor in w.scales)
    if by is EstimateBound.SLACK:
        spread = "blocks spread evenly over the SMs and " if w.scales else ""
        return (f"{spread}latency hidden, the kernel at its floor ({w.after_name or w.floor_name}, "
                f"{seconds(w.after_s)}{peak_text(w)}): at most measured - floor")
    if by is EstimateBound.NOTHING_REMOVED:
        return "the change removes no work"
    if by is EstimateBound.FLOOR_UNCHANGED:
        return (f"{scales} leaves the floor ({w.floor_name}, {seconds(w.floor_s)}{peak_text(w)}) where it is: saves "
                "nothing")
    after = seconds(w.after_s) + (" (the launch floor)" if w.launch_floor else "")
    return (f"{scales}: the changed kernel's floor is {after} ({w.after_key}{peak_text(w)}); at most measured - "
            "that floor")


def peak_text(w: ModelChange) -> str:
    """", measured to the calibrated DRAM roof", ", measured to the achievable DRAM bandwidth" or ", measured to the
    DRAM bandwidth the launch itself reached": the peak a what-if's floor is measured to (its source in JSON
    ``peak_source``), "" where it is the datasheet's or the launch floor."""
    if w.peak_kind is PeakKind.DATASHEET or w.launch_floor:
        return ""
    key = (w.after_key or w.floor_name).removesuffix(" roof")
    level = NAMES.get(key.lower(), key)
    if w.peak_kind is PeakKind.CALIBRATED:
        return f", measured to the calibrated {level} roof"
    if w.peak_kind is PeakKind.REACHED:
        return f", measured to the {level} bandwidth the launch itself reached"
    return f", measured to the achievable {level} bandwidth"


def combined_text(saved_s: float | None, floor_s: float | None, overlapping: bool) -> str:
    """The combined what-if of a launch's advice: "every item at once: saves at most 12.3 us (no more than the items'
    savings summed, nor than the time above 4.69 us, the changed kernel's floor); the items marked overlapping share
    that time" ("" where there is none): either bound may be the one that holds."""
    if saved_s is None:
        return ""
    floor = (f" (no more than the items' savings summed, nor than the time above {seconds(floor_s)}, the changed "
             "kernel's floor)") if floor_s is not None else ""
    shared = "; the items marked overlapping share that time, so they do not add up" if overlapping else ""
    return f"every item at once: saves at most {seconds(saved_s)}{floor}{shared}"


def cited(item: Advice) -> str:
    """The ncu rules merged into an item of the tool's own, as shown after its text: " (also ncu CPIStall: ...)",
    the first ``CITED_RULES`` named and the rest counted (JSON's ``also`` names them all)."""
    if not item.also or item.source == "ncu":
        return ""
    more = len(item.also) - CITED_RULES
    return f" (also {'; '.join(item.also[:CITED_RULES])}{f' and {more} more ncu rules' if more > 0 else ''})"


def verdict_pct(value: float) -> str:
    """A verdict's busiest unit in percent on the side of the verdict's threshold (``LATENCY_BELOW_PCT``) it is on
    (``units.pct_beside``: "86%", "60.6%", "59.8%", "59.996%")."""
    return pct_beside(value, LATENCY_BELOW_PCT)


def verdict_line(v: Verdict) -> str:
    """One line: the verdict, the measurement that decides it and the busiest unit."""
    head, detail = verdict_parts(v)
    return f"{head}: {detail}"


def verdict_parts(v: Verdict) -> tuple[str, str]:
    """``verdict_line`` in its two parts: the verdict in words, and the measurement and busiest unit behind it."""
    if v.bound is None:
        return "no verdict", v.reason
    busiest = f"{v.busiest.name} at {pct(v.busiest.pct)} of its peak" if v.busiest else ""
    if v.basis == "roofline":
        return (f"{BOUND_WORDS[v.bound]} (roofline only)", f"{busiest}; units the FP roofline does not measure "
                f"(integer, special-function, load/store, tensor) are unseen without the SpeedOfLight section")
    both = f"SM {pct(v.sm_pct)}, memory {pct(v.memory_pct)} of peak"
    waves = f", {wave_count(v.waves_per_sm)} per SM" if v.waves_per_sm is not None else ""
    ncu = f"; ncu: {v.ncu_title}" if v.ncu_title else ""
    if v.bound in ("latency", "small_grid"):
        limit = f"both below {LATENCY_BELOW_PCT:.0f}%"
        return BOUND_WORDS[v.bound], f"{both}, {limit}{waves}; busiest: {busiest}{ncu}"
    return BOUND_WORDS[v.bound], f"{busiest} ({both}{waves}{ncu})"


def advice_cause(item: Advice) -> str:
    """An advice item's measured cause: its own, or its launch's verdict line where the verdict is the cause."""
    return verdict_line(item.verdict_cause.verdict) if item.verdict_cause is not None else item.cause


def advice_text(item: Advice) -> str:
    """An advice item's recommendation, opened by the verdict line where the item says so (``in_text``), closed by
    the option that would size its gain where it is not sized (``size_with``)."""
    said = item.verdict_cause
    text = f"Compute-bound ({verdict_line(said.verdict)}): {item.text}" if said is not None and said.in_text \
        else item.text
    return f"{text} Re-profile with {item.size_with} to size the gain." if item.size_with else text


def short_name(unit: BusyUnit) -> str:
    """A unit's short name for a table cell ("FP64", "ALU", "issue", "L1", "DRAM"; a roof's key in capitals)."""
    return unit.short_name


def datasheet_ratio_text(v: ReportView, name: CeilingSet, key: str) -> str:
    """A ceiling set's roof over the datasheet's (``datasheet_ratios``), as a cell: "" where either is unknown."""
    ratio = v.datasheet_ratios.get(name, {}).get(key)
    return "" if ratio is None else f"{ratio:.2f}"


def scaled_roofs_note(scaled: ScaledRoofs | None) -> str:
    """One line on the roofs the kernel-clock set took from the datasheet ("" when none): which, whether they were
    scaled to the measured clock or left unscaled for want of one, and (``ScaledRoofs.pooled``) that the roofs shown
    are medians over launches whose own roofs differ."""
    if scaled is None:
        return ""
    names = ", ".join(NAMES[key] for key in scaled.roofs)
    unscaled = [NAMES[key] for key in scaled.unscaled]
    to = ("the GPU's maximum SM clock (the report's, below the datasheet's; no measured clock)"
          if scaled.at_max_clock else "each launch's measured clock")
    if not unscaled:
        how = f"the datasheet roof scaled to {to}"
    elif len(unscaled) == len(scaled.roofs):
        how = "the datasheet roof, unscaled (the report holds no measured clock)"
    else:
        how = (f"the datasheet roof, unscaled for {', '.join(unscaled)} (no measured clock in the report), the "
               f"others scaled to {to}")
    pooled = f"; {POOLED_NOTE.format(scaled.pooled)}" if scaled.pooled else ""
    return f"{names}: no peak counter in the report; {how} (JSON ceilings.kernel-clock.scaled){pooled}"


def unavailable_line(u: Unavailable, total: int) -> str:
    """"FLOPs FP64, FP32; bytes DRAM: re-profile with --set full [all launches]": the values one cause leaves n/a,
    the option that collects the missing metrics (or the analysis's reason) and the launches it affects."""
    why = u.collect if u.cause is Cause.MISSING_METRICS else u.detail
    return f"{values_text(u.values)}: {why} [{launch_count(len(u.launches), total)}]"


def values_text(values: Sequence[tuple[str, str]]) -> str:
    """"FLOPs FP64, FP32; bytes DRAM; duration": the values one reason leaves n/a."""
    return "; ".join(f"{what} {which}" if which else what for what, which in values)


def launch_count(count: int, total: int) -> str:
    return "all launches" if count == total else f"{count} of {total} launches"


IN_FLIGHT = "waits on a load still in flight (no variable-latency writer of what it reads)"


def producer_text(p: Producer) -> str:
    """A producer as the reports show it beside the waiting instruction: a writer "<- +0x2a0 LDG.E.CONSTANT R18 at
    sgemm.cu:40"; an instruction in flight "<- waits on a load still in flight (...): +0x1650 STL.128 (holds R21),
    +0x1640 STL.128", its candidates nearest first."""
    if p.kind == "in_flight":
        return f"<- {IN_FLIGHT}: " + ", ".join(_candidate(c) for c in p.candidates or (p,))
    words = [f"+0x{p.pc_offset:x}", p.opcode, ", ".join(p.registers), f"at {p.source}" if p.source is not None else ""]
    return "<- " + " ".join(w for w in words if w)


def _candidate(p: Producer) -> str:
    """An in-flight candidate: "+0x1650 STL.128", with "(holds R21)" where it holds registers of the waiting one."""
    holds = f" (holds {', '.join(p.registers)})" if p.registers else ""
    return f"+0x{p.pc_offset:x} {p.opcode}{holds}"


def stall_text(row: HotRow) -> str:
    """A hot row's top stall, tied reasons named as ties ("long_scoreboard = wait"), "-" for none."""
    return " = ".join(row.tied_stalls) if len(row.tied_stalls) > 1 else row.top_stall or "-"


# The kernels compared across several reports (e.g. MPI ranks): the table's and the Markdown's words, in one place.
ACROSS_TITLE = "Across reports (e.g. MPI ranks)"
NOT_RUN_CELL = "missing"  # a report that did not run the kernel


def across_total(s: KernelSpread, path: str) -> str:
    """A kernel's total time in one report: "missing" where the report did not run it, "n/a" where it has no time."""
    return seconds(s.total_s[path]) if path in s.total_s else NOT_RUN_CELL


def across_spread(s: KernelSpread) -> str:
    """A kernel's spread across the reports, with "!" where it is flagged."""
    return pct(s.spread_pct) + (" !" if s.flagged else "")


def across_flagged_text(spreads: Sequence[KernelSpread]) -> str:
    """The legend of the kernels flagged "!" (after the mark): they pass the threshold or are missing from some
    report ("" where none is flagged)."""
    flagged = [s.name for s in spreads if s.flagged]
    return ("differs across reports by more than the threshold, or is missing from some (missing: the report did not "
            f"run it): {', '.join(flagged)}") if flagged else ""

