"""The sentences the report renderers share (``render.report.prose``), built from fields: an estimate capped or
not, ncu's local percent, the roofs taken from the datasheet, the line of one n/a cause."""

from __future__ import annotations

from roofline.analysis.results import (
    Advice,
    BusyUnit,
    Cause,
    EstimateBound,
    MemoryNote,
    MemoryNoteKind,
    ModelChange,
    PeakKind,
    Producer,
    Verdict,
    VerdictCause,
)
from roofline.analysis.roofline import POOLED_NOTE
from roofline.analysis.view import ScaledRoofs, Unavailable
from roofline.ncu.metrics import HINT_HFMA_MOVES, HINT_L2_OP_HIT, FlopNote, FlopNoteKind
from roofline.render.report.prose import (
    CITED_RULES,
    advice_cause,
    advice_text,
    bound_of,
    cited,
    combined_text,
    estimate_of,
    estimate_text,
    flop_note_text,
    flop_notes_text,
    memory_note_text,
    producer_text,
    scaled_roofs_note,
    sol_text,
    unavailable_line,
    verdict_line,
    verdict_parts,
)


def item(**fields) -> Advice:
    return Advice(kind="memory", title="t", text="x", cause="c", source="verdict", **fields)


def test_an_estimate_says_whether_it_is_the_items_own_or_its_bound():
    assert estimate_text(item(est_saved_s=4e-4)) == "saves ~400 us"
    assert estimate_text(item(est_saved_s=4e-4, capped=True, bound_by=EstimateBound.GAP)) == (
        "saves at most 400 us (busiest unit's gap)")
    assert estimate_text(item(est_saved_s=4e-4, capped=True, ncu_saved_s=1e-3)) == "saves at most 400 us (ncu: 1 ms)"
    assert estimate_text(item()) == "not estimated"
    assert estimate_text(item(est_saved_s=0.0, bound_by=EstimateBound.SLACK)) == "no saving: at its floor already"
    assert estimate_text(item(est_saved_s=0.0, bound_by=EstimateBound.GAP)) == "no saving: busiest unit's gap"
    assert estimate_text(item(ncu_local_pct=83.0)) == "ncu local 83%"


def test_a_what_if_on_the_time_model_is_said_from_its_data():
    """The bound and estimate of a what-if are written from its change (terms scaled, floors), not stored as text."""
    change = ModelChange((("DRAM", 0.5),), "DRAM", 2e-3, "L2", 1.5e-3)
    stays = item(bound_by=EstimateBound.FLOOR_UNCHANGED, change=change, ncu_saved_s=1e-4)
    assert bound_of(stays) == "DRAM x 0.5 leaves the floor (DRAM, 2 ms) where it is: saves nothing"
    assert estimate_of(stays) == f"saves nothing: {bound_of(stays)}"
    assert estimate_text(stays) == "no saving: the floor stays (ncu: 100 us)"
    moved = item(bound_by=EstimateBound.CHANGED_FLOOR, change=change, est_saved_s=1e-3, capped=True)
    assert bound_of(moved) == "DRAM x 0.5: the changed kernel's floor is 1.5 ms (L2); at most measured - that floor"
    assert estimate_of(moved) == f"at most: {bound_of(moved)}"
    assert estimate_text(moved) == "saves at most 1 ms (changed floor)"
    assert estimate_of(item(estimate="own")) == "own" and bound_of(item(bound="b")) == "b"


def test_a_what_if_names_the_peak_its_floor_is_measured_to():
    """A floor at an achievable peak says which, from its kind (data, not its source's words): the calibrated roof,
    the memory type's achievable bandwidth, or what the launch itself reached; a datasheet peak says nothing."""
    calibrated = ModelChange((("DRAM", 0.5),), "DRAM", 2e-3, "DRAM", 1.5e-3,
                             peak_source="roofline calibrate, copy, under ncu's clocks: 0.8 TB/s (a.yaml)",
                             peak_kind=PeakKind.CALIBRATED)
    moved = item(bound_by=EstimateBound.CHANGED_FLOOR, change=calibrated, est_saved_s=1e-3, capped=True)
    assert bound_of(moved) == ("DRAM x 0.5: the changed kernel's floor is 1.5 ms (DRAM, measured to the calibrated "
                               "DRAM roof); at most measured - that floor")
    fraction = ModelChange((), "DRAM", 2e-3, "DRAM", 2e-3, peak_source="0.85 x the datasheet's 336 GB/s",
                           peak_kind=PeakKind.ACHIEVABLE)
    hidden = item(bound_by=EstimateBound.SLACK, change=fraction, est_saved_s=1e-3)
    assert bound_of(hidden) == ("latency hidden, the kernel at its floor (DRAM, 2 ms, measured to the achievable "
                                "DRAM bandwidth): at most measured - floor")
    reached = ModelChange((), "dram roof", 2e-3, "dram roof", 2e-3, peak_source="the launch itself reached 91% (x)",
                          peak_kind=PeakKind.REACHED)
    assert bound_of(item(bound_by=EstimateBound.SLACK, change=reached, est_saved_s=1e-3)) == (
        "latency hidden, the kernel at its floor (dram roof, 2 ms, measured to the DRAM bandwidth the launch itself "
        "reached): at most measured - floor")
    unnamed = ModelChange((), "DRAM", 2e-3, "DRAM", 2e-3, peak_source="roofline calibrate, but the kind says datasheet")
    assert "measured to" not in bound_of(item(bound_by=EstimateBound.SLACK, change=unnamed, est_saved_s=1e-3))


def test_overlapping_items_are_marked_and_the_combined_what_if_said():
    assert estimate_text(item(est_saved_s=4e-4, overlapping=True)) == "saves ~400 us, overlapping"
    assert combined_text(5e-4, 1e-4, True) == ("every item at once: saves at most 500 us (no more than the items' "
                                               "savings summed, nor than the time above 100 us, the changed "
                                               "kernel's floor); the items marked overlapping share that time, so "
                                               "they do not add up")
    assert combined_text(5e-4, None, False) == "every item at once: saves at most 500 us"
    assert combined_text(None, None, False) == ""


def test_a_producer_in_flight_lists_its_candidates_and_the_registers_they_hold():
    near = Producer(0x1650, 0x1650, "STL.128 [R1+0x10], R20 ;", ("R21",), "long_scoreboard", kind="in_flight")
    far = Producer(0x1640, 0x1640, "STL.128 [R1], R16 ;", (), "long_scoreboard", kind="in_flight")
    waiting = Producer(0x1650, 0x1650, near.sass, ("R21",), "long_scoreboard", kind="in_flight",
                       candidates=(near, far))
    assert producer_text(waiting) == ("<- waits on a load still in flight (no variable-latency writer of what it "
                                      "reads): +0x1650 STL.128 (holds R21), +0x1640 STL.128")
    writer = Producer(0x2a0, 0x2a0, "LDG.E.CONSTANT R18, [R2] ;", (), "long_scoreboard")
    assert producer_text(writer) == "<- +0x2a0 LDG.E.CONSTANT"  # no registers: no double space


def test_cited_rules_are_named_up_to_a_count():
    rules = tuple(f"ncu R{i}" for i in range(CITED_RULES + 2))
    assert cited(item(also=rules[:1])) == " (also ncu R0)"
    assert cited(item(also=rules)).endswith(" and 2 more ncu rules)")
    assert cited(Advice(kind="ncu_rule", title="t", text="x", cause="c", source="ncu", also=rules)) == ""


def test_the_datasheet_roofs_note_says_which_were_scaled():
    assert scaled_roofs_note(None) == ""
    assert "scaled to each launch's measured clock" in scaled_roofs_note(ScaledRoofs(("l2",), ()))
    assert "unscaled (the report holds no measured clock)" in scaled_roofs_note(ScaledRoofs(("l2",), ("l2",)))
    mixed = scaled_roofs_note(ScaledRoofs(("fp64", "l2"), ("l2",)))
    assert mixed.startswith("FP64, L2: no peak counter") and "unscaled for L2" in mixed


def test_an_unavailable_line_names_the_values_the_option_and_the_launches():
    missing = Unavailable(Cause.MISSING_METRICS, (("FLOPs", "FP64, FP16"), ("duration", "")), frozenset({"0:1"}),
                          ("a.sum",), "re-profile with --set full", "missing metrics: a.sum; re-profile ...")
    assert unavailable_line(missing, 1) == "FLOPs FP64, FP16; duration: re-profile with --set full [all launches]"
    other = Unavailable(Cause.OTHER, (("bound", ""),), frozenset({"0:1"}), detail="no verdict here")
    assert unavailable_line(other, 3) == "bound: no verdict here [1 of 3 launches]"


def test_each_flop_note_is_written_from_its_fields():
    assert flop_note_text(FlopNote(FlopNoteKind.COUNTER_ABSENT, "fp16", "hadd")) == (
        "FP16 FLOPs leave out hadd (counter not in the report)")
    assert flop_note_text(FlopNote(FlopNoteKind.HFMA_MOVES_LEFT_OUT, "fp16", "hfma", 4e6, 1e6)) == (
        "FP16 FLOPs leave out 4,000,000 FLOPs: 1,000,000 zero-product HFMA2 thread instructions, register moves "
        "through the FMA pipe with no arithmetic")
    assert flop_note_text(FlopNote(FlopNoteKind.HFMA_MOVES_UNCOUNTED, "fp16")).endswith(f"HFMA; {HINT_HFMA_MOVES}")
    assert flop_note_text(FlopNote(FlopNoteKind.VOLTA_TENSOR, "tensor", flops=512)) == (
        "approximate: 512 FLOP per HMMA.884 instruction (FP32 accumulate)")


def test_a_reports_flop_notes_are_each_written_once_in_their_texts_order():
    absent = FlopNoteKind.COUNTER_ABSENT
    notes = [FlopNote(absent, "fp32", "fmul"), FlopNote(absent, "fp16", "hadd"), FlopNote(absent, "fp32", "fmul")]
    assert flop_notes_text(notes) == ["FP16 FLOPs leave out hadd (counter not in the report)",
                                      "FP32 FLOPs leave out fmul (counter not in the report)"]


def test_the_l2_note_says_whether_the_loads_and_stores_rates_split_it():
    split = memory_note_text(MemoryNote(MemoryNoteKind.L2_ABOVE_FULL, split=True))
    alone = memory_note_text(MemoryNote(MemoryNoteKind.L2_ABOVE_FULL))
    assert split.startswith("an L2 hit rate above 100%") and split.endswith("the loads' and stores' rates show the mix")
    assert alone.endswith(HINT_L2_OP_HIT) and "does not clamp" in alone


def test_a_verdict_line_names_the_bound_the_throughputs_and_the_busiest_unit():
    v = Verdict("compute", "throughput", 80.0, 30.0, 4.0, BusyUnit("FMA pipe", 80.0, "compute", "m"),
                ncu_title="High Compute Throughput")
    assert verdict_parts(v) == ("compute-bound", "FMA pipe at 80.0% of its peak (SM 80.0%, memory 30.0% of peak, "
                                                 "4 waves per SM; ncu: High Compute Throughput)")
    assert verdict_line(v) == ": ".join(verdict_parts(v))
    assert verdict_line(Verdict(None, None, reason="no throughputs")) == "no verdict: no throughputs"


def test_an_item_whose_cause_is_the_verdict_says_the_verdict_line():
    v = Verdict("compute", "throughput", 80.0, 30.0, None)
    own, said = item(), Advice(kind="compute", title="t", text="x", cause="", source="verdict",
                               verdict_cause=VerdictCause(v))
    opened = Advice(kind="compute", title="t", text="only fewer or cheaper operations shorten it.", cause="",
                    source="verdict", verdict_cause=VerdictCause(v, in_text=True))
    assert (advice_cause(own), advice_text(own)) == ("c", "x")
    assert (advice_cause(said), advice_text(said)) == (verdict_line(v), "x")
    assert advice_text(opened) == f"Compute-bound ({verdict_line(v)}): only fewer or cheaper operations shorten it."


def test_a_speed_of_light_figure_says_active_cycles_where_the_picture_says_so():
    assert sol_text(90.64, True) == "90.64% of active cycles" and sol_text(60.64, False) == "60.64%"


def test_the_pooled_roofs_sentence_is_the_one_the_json_clock_note_holds(shared_report):
    """RTX 2070 Super alife: 143 launches at different clocks, every kernel-clock roof from the datasheet. The note
    under the ceilings and the JSON's clock note say the roofs are medians in one sentence (``POOLED_NOTE``), filled
    with the same count, not two wordings of one fact."""
    from roofline.pipeline import analyze_files
    from tests.views import views

    a = analyze_files([shared_report("rtx2070super_alife-143launches_basic")])[0]
    v = views([a]).reports[0]
    sentence = POOLED_NOTE.format(len(a.launches))
    assert v.scaled is not None and v.scaled.pooled == len(a.launches) == 143
    assert scaled_roofs_note(v.scaled).endswith(f"; {sentence}")
    assert v.ceilings["kernel-clock"].clock_note.endswith(f"; {sentence}")
