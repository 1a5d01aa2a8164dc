"""The sentences the comparison renderers share, written here from the data of a comparison: the notes on a work
comparison and why a measure's sides are not comparable. Each line is built from fields (kinds, keys, sides), never
from another line's text."""

from __future__ import annotations

from roofline.analysis.work import WorkNote, WorkNoteKind


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
