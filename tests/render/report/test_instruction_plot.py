"""The instruction roofline plot's data (``render.report.instruction_plot``): each kernel's longest launch at the
values of its ``instruction_roofline``, the roofs of the report's longest kernel, and notes naming what is missing."""

from __future__ import annotations

from pathlib import Path

import pytest

from roofline.core.model import LEVELS
from roofline.pipeline import analyze_files
from roofline.render.report import instruction_plot

INTOPS = Path(__file__).resolve().parents[3] / "examples" / "h200" / "intops.full.ncu-rep"


def test_each_kernel_sits_at_its_instruction_roofline_values():
    (a,) = analyze_files([INTOPS])
    (marks,) = instruction_plot.plot_data([a], top=8)
    assert [k.label for k in marks.kernels] == ["hash_rounds", "gather_strided"]
    for k, g in zip(marks.kernels, a.groups, strict=True):
        r = g.longest.instruction_roofline
        assert k.warp_gips == r.warp_gips.value and k.integer_giops == r.integer.giops.value
        assert k.intensity == {level: r.intensity[level].value for level in LEVELS}
        assert k.walls[("global", "st")] == r.global_memory.intensity["st"].value
    lead = a.groups[0].longest.instruction_roofline
    assert marks.peak_warp_gips == lead.peak_warp_gips.value
    assert marks.integer_peak_giops == lead.integer.peak_giops.value
    assert marks.transaction_roofs == {level: v.value for level, v in lead.peak_gtxn_per_s.items()}
    assert marks.has_integer
    assert marks.notes == ("hash_rounds: integer rate above the ALU pipe's peak, as integer multiplies (IMAD) issue "
                           "to the FMA pipe beside the ALU",)


def test_what_a_full_set_lacks_is_named_and_a_basic_set_has_no_panel(shared_report):
    (full,) = analyze_files([shared_report("rtx4090_smem-transpose_full")])
    (marks,) = instruction_plot.plot_data([full], top=8)
    assert marks.has_integer and set(marks.transaction_roofs) == {"dram"}  # integers from the per-opcode counts
    assert [n.split(":")[0] for n in marks.notes] == ["no L2 transaction roof", "no L1 transaction roof"]
    basic = analyze_files([shared_report("a10g_sgemm-progression_basic")])
    assert instruction_plot.plot_data(basic, top=8) == ()


@pytest.mark.parametrize("top", [1, 2])
def test_top_limits_the_kernels(top):
    assert len(instruction_plot.plot_data(analyze_files([INTOPS]), top)[0].kernels) == top


def test_no_text_leaves_the_figure_or_overlaps_on_every_shared_report(shared_report, shared_name):
    """Measured with matplotlib's renderer (``tests.render.text_layout``), as the roofline plot is."""
    from tests.render.text_layout import text_problems

    data = instruction_plot.plot_data(analyze_files([shared_report(shared_name)]), top=8)
    if data:
        assert text_problems(instruction_plot.figure_of(data)) == []


def test_no_text_leaves_the_figure_or_overlaps_on_the_h200_full_sets():
    from tests.render.text_layout import text_problems

    folder = INTOPS.parent
    analyses = analyze_files(sorted(folder.glob("*.full.ncu-rep")))
    assert text_problems(instruction_plot.figure_of(instruction_plot.plot_data(analyses, top=8))) == []


def test_each_width_shown_gets_its_own_labelled_unit_stride_wall(shared_report):
    """The A40 Julia set: the frame kernel's 16-byte loads (LDG.E.128, a few 4-byte ones: 15.8 B on average) and
    4-byte stores each get their unit-stride wall, the loads' at its own x beside the 4-byte one; a report whose
    kernels place no shared point keeps the model's 4-byte no-conflict wall, unlabelled as assumed."""
    (a,) = analyze_files([shared_report("a40_julia-fp16x2_full")])
    (marks,) = instruction_plot.plot_data([a], top=8)
    frame = next(k for k in marks.kernels if ("global", "ld") in k.walls)
    wall, width = frame.width_walls[("global", "ld")]
    assert 15 < width < 16 and frame.walls[("global", "ld")] == pytest.approx(wall, rel=0.05)
    assert marks.walls["global"][f"unit stride, {width:.3g} B"] == wall
    assert marks.walls["global"]["unit stride, 4 B"] == 0.25
    assert marks.walls["shared"]["no bank conflict, 4 B"] == 1.0
    assert "unit stride" not in marks.walls["global"]  # every unit-stride wall is labelled with its width


def test_the_wall_labels_keep_off_the_marks_and_each_peak_names_its_unit():
    """The H100 BF16 GEMM's shared stores sat on the label "shared: 32-way conflict" (its marks are high on the
    axis, so the labels go low), and the peaks read "issue peak 709" with no unit."""
    from tests.render.text_layout import covered_points, text_problems

    gemm = Path(__file__).resolve().parents[3] / "examples" / "h100" / "torch-bf16.full.ncu-rep"
    fig = instruction_plot.figure_of(instruction_plot.plot_data(analyze_files([gemm]), top=8))
    assert covered_points(fig) == [] and text_problems(fig) == []
    legends = [t.get_text() for ax in fig.axes if ax.get_legend() for t in ax.get_legend().get_texts()]
    assert any(t.startswith("issue peak ") and t.endswith(" warp GIPS") for t in legends)
    assert any(t.startswith("ALU (integer) pipe peak ") and t.endswith(" GIOPS") for t in legends)
