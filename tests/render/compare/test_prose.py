"""The sentences the comparison renderers share (``render.compare.prose``), built from the fields of a work
comparison, its notes and the diff gate's causes."""

from __future__ import annotations

from roofline.analysis.grade import State
from roofline.analysis.work import Measure, WorkCheck, WorkNote, WorkNoteKind
from roofline.compare.pairing import ClockRan, OwnGpu
from roofline.compare.regression import GateCause, GateNote, NotJudged, Unchecked, Unjudged
from roofline.render.compare.prose import (
    apart_text,
    clock_apart_text,
    gate_note_text,
    not_judged_text,
    own_gpu_text,
    ratio_text,
    unchecked_text,
    work_note_text,
    work_summary,
)

THREE_TIMES = WorkCheck((Measure("flops.fp32", 1e9, 3e9, 3.0, True, True),), "flops.fp32", True, 0.05, "flops.fp32",
                        3.0, ("flops.fp32", "flops.fp32"))


def test_a_measure_left_out_names_each_sides_definition():
    note = WorkNote(WorkNoteKind.NOT_COMPARED, "bytes.l2", apart=("lts__t_bytes", "lts2xbar"))
    assert work_note_text(note) == "L2 bytes not compared: A counts lts__t_bytes, B lts2xbar"
    assert apart_text(("xbar2l1tex", "lts2xbar")) == "A counts xbar2l1tex, B lts2xbar"


def test_the_fp16_note_names_the_side_that_cannot_separate_the_moves():
    note = WorkNote(WorkNoteKind.FP16_MOVES_COUNTED, "flops.fp16", side="B")
    assert work_note_text(note) == ("FP16 FLOPs compared with the zero-product HFMA2 register moves counted on both "
                                    "sides: B's report cannot separate them (no SourceCounters section; --set full "
                                    "can)")


def test_a_measure_ratio_reads_as_times_or_from_zero_or_na():
    assert ratio_text(Measure("threads", 1e3, 1.247e6, 1247.0, True, True)) == "1247x"
    assert ratio_text(Measure("flops.fp64", 0.0, 1e3, None, True, True)) == "0 -> 1 k"
    assert ratio_text(Measure("bytes.l2", 1e3, 2e3, None, True, False, ("lts__t_bytes", "lts2xbar"))) == "n/a"


def test_the_work_summary_names_what_differs_and_the_resource_bounding_both():
    assert work_summary(THREE_TIMES) == "different work: FP32 FLOPs 3x (the resource that bounds both)"


def test_the_gate_causes_read_as_the_work_or_the_share():
    assert gate_note_text(GateNote(GateCause.DIFFERENT_WORK, THREE_TIMES)) == (
        "different work: FP32 FLOPs 3x (the resource that bounds both): not gated (--gate-different-work gates it)")
    assert gate_note_text(GateNote(GateCause.SMALL_SHARE, share_pct=0.5994, min_share_pct=1.0)) == (
        "0.6% of the time, under the 1% gated alone (it counts in the total)")
    assert unchecked_text(Unchecked("slower", "no time", GateNote(GateCause.NO_WORK_UNIT, THREE_TIMES))) == (
        "slower not checked: no unit of work to divide by (different work: FP32 FLOPs 3x (the resource that bounds "
        "both))")
    assert unchecked_text(Unchecked("roof drop", "no roof")) == "roof drop not checked: no roof"


def test_the_own_gpus_row_is_said_to_be_the_clock_the_report_ran_at():
    """One sentence per state of the report's clock against the spec's base clock, with both clocks written."""
    def said(state: State, ran: float | None = 1.59e9, base: float | None = 1.579e9) -> str:
        return own_gpu_text(OwnGpu("h100-sxm5", state, ran, base, "sustained", 1.786e9))

    tail = ("; the projection takes the sustained clock, 1.79 GHz: its row differs from 1x by what that change of "
            "clock does to the launches the SM clock paces, not by an error of the model")
    assert said(State.LOCKED_BASE) == ("h100-sxm5 is the report's own GPU: the report ran at 1.59 GHz, the base "
                                       "clock ncu locks while profiling (--clock-control base, its default)" + tail)
    assert "ran at 1.96 GHz, above the 1.58 GHz base clock ncu locks by default (clocks not locked: " \
           "--clock-control none)" in said(State.ABOVE_BASE, 1.96e9)
    assert "ran at 1.3 GHz, below the 1.58 GHz base clock ncu locks, held there by power or heat" in \
           said(State.BELOW_BASE, 1.3e9)
    assert "ran at 1.59 GHz, the spec gives no base clock to tell whether ncu locked it" in \
           said(State.UNKNOWN, base=None)
    assert "the report holds no SM clock; the projection" in said(State.UNKNOWN, ran=None)


def test_a_kernel_not_judged_is_offered_a_fix_that_can_leave_it_out():
    """With its share known, --min-share above it leaves it out; unknown (no time on either side), no --min-share
    can, so the fix is --kernel filters of the others."""
    known = not_judged_text(NotJudged("warptiling", 18.4, Unjudged.EVERY_LAUNCH_INVALID, "base"), 1.0)
    assert known.startswith("warptiling (18.4% of BASE's time, >= --min-share 1%): NEW ran it")
    assert known.endswith("; re-profile it, or raise --min-share above its share to leave it out")
    unknown = not_judged_text(NotJudged("flash_fwd_kernel", None, Unjudged.NO_TIME), 1.0)
    assert unknown == ("flash_fwd_kernel (no time on either side: its share unknown, so no --min-share leaves it "
                       "out): no launch time on a side (not measured); re-profile it, or gate the other kernels alone "
                       "with --kernel filters that leave it out")


def test_a_side_run_away_from_the_base_clock_its_expectation_assumes_is_said():
    above = clock_apart_text(ClockRan(State.ABOVE_BASE, 1.96e9, 1.579e9), "B")
    assert above == ("B's launches ran at 1.96 GHz, above the 1.58 GHz base clock ncu locks, which the expected "
                     "speedup takes on B's GPU (clocks not locked: --clock-control none): its kept up counts that "
                     "change of clock too")
    assert "ran at 1.3 GHz, below the 1.58 GHz base clock ncu locks" in \
        clock_apart_text(ClockRan(State.BELOW_BASE, 1.3e9, 1.579e9), "C")
    assert ClockRan(State.ABOVE_BASE, 1.96e9, 1.579e9).apart and not ClockRan(State.LOCKED_BASE, 1.58e9, 1.579e9).apart
    assert not ClockRan(State.SHORT_LAUNCHES, 1.2e9, 1.579e9).apart  # short launches read it low: not judged
