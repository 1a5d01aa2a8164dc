"""The sentences the report renderers share (``render.report.prose``), built from fields: an estimate capped or
not, ncu's local percent, the roofs taken from the datasheet, the line of one n/a cause."""

from __future__ import annotations

from roofline.analysis.results import Advice, Cause, EstimateBound, ModelChange
from roofline.analysis.view import ScaledRoofs, Unavailable
from roofline.render.report.prose import (
    CITED_RULES,
    bound_of,
    cited,
    estimate_of,
    estimate_text,
    scaled_roofs_note,
    unavailable_line,
)


def item(**fields) -> Advice:
    return Advice(kind="memory", title="t", text="x", cause="c", source="verdict", **fields)


def test_an_estimate_says_whether_it_is_the_items_own_or_its_bound():
    assert estimate_text(item(est_saved_s=4e-4)) == "saves ~400 us"
    assert estimate_text(item(est_saved_s=4e-4, capped=True, bound_by=EstimateBound.GAP)) == (
        "saves at most 400 us (busiest unit's gap)")
    assert estimate_text(item(est_saved_s=4e-4, capped=True, ncu_saved_s=1e-3)) == "saves at most 400 us (ncu: 1 ms)"
    assert estimate_text(item()) == "not estimated"
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
