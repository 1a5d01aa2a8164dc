"""The sentences the comparison renderers share (``render.compare.prose``), built from the fields of a work
comparison's notes."""

from __future__ import annotations

from roofline.analysis.work import WorkNote, WorkNoteKind
from roofline.render.compare.prose import apart_text, work_note_text


def test_a_measure_left_out_names_each_sides_definition():
    note = WorkNote(WorkNoteKind.NOT_COMPARED, "bytes.l2", apart=("lts__t_bytes", "lts2xbar"))
    assert work_note_text(note) == "L2 bytes not compared: A counts lts__t_bytes, B lts2xbar"
    assert apart_text(("xbar2l1tex", "lts2xbar")) == "A counts xbar2l1tex, B lts2xbar"


def test_the_fp16_note_names_the_side_that_cannot_separate_the_moves():
    note = WorkNote(WorkNoteKind.FP16_MOVES_COUNTED, "flops.fp16", side="B")
    assert work_note_text(note) == ("FP16 FLOPs compared with the zero-product HFMA2 register moves counted on both "
                                    "sides: B's report cannot separate them (no SourceCounters section; --set full "
                                    "can)")
