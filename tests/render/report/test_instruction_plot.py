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
    wall, width, mixed = frame.width_walls[("global", "ld")]
    assert mixed and 15 < width < 16 and frame.walls[("global", "ld")] == pytest.approx(wall, rel=0.05)
    assert marks.walls["global"][f"unit stride, mean {width:.3g} B"] == wall  # a mix of widths: their mean
    assert marks.walls["global"]["unit stride, 4 B"] == 0.25
    assert marks.walls["shared"]["no bank conflict, 4 B"] == 1.0
    assert "unit stride" not in marks.walls["global"]  # every unit-stride wall is labelled with its width


def test_a_mix_of_widths_whose_mean_is_whole_still_reads_mean() -> None:
    """Two 4-byte and one 16-byte global loads average 8 B, which no one access moves: the analysis says the widths
    are mixed, so the wall reads "mean 8 B"; one width alone reads as it is."""
    from roofline.analysis.instructions import _memory_walls

    walls = _memory_walls({}, {}, "global", {"ld": {4: 2.0, 16: 1.0}, "st": {8: 3.0}})
    assert walls.width_bytes == {"ld": 8.0, "st": 8.0} and walls.width_mixed == {"ld": True, "st": False}
    assert instruction_plot._width(walls.width_bytes["ld"], walls.width_mixed["ld"]) == "mean 8 B"
    assert instruction_plot._width(walls.width_bytes["st"], walls.width_mixed["st"]) == "8 B"


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


PYTORCH_SIM = "rtx4070ti_pytorch-sim_full"


def _wall_label_boxes(fig, marks):
    """(wall x in pixels, the other walls' x in pixels, label box) of each wall label of the walls panel."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    ax = fig.axes[1]
    walls = {f"{space}: {name}": x for space, named in marks.walls.items() for name, x in named.items()}
    pixels = {x: ax.transData.transform((x, 1.0))[0] for x in walls.values()}
    found = []
    for text in (t for t in ax.texts if t.get_text().split("\n")[0] in walls):
        x = walls[text.get_text().split("\n")[0]]
        assert all(walls[line] == x for line in text.get_text().split("\n"))  # one label: walls at one x
        found.append((pixels[x], [p for w, p in pixels.items() if w != x], text.get_window_extent(renderer)))
    return found


def test_each_wall_label_runs_beside_its_own_wall_and_covers_no_point(shared_report):
    """The RTX 4070 Ti PyTorch sim: "global: unit stride, 4 B" ran under three kernels' diamonds, and the walls at
    0.914 and 1 shared one stacked label. Each label now sits within a few pixels of its own wall, crosses no
    other wall, and covers no point; the DeviceScan kernel's shared loads (124 of 4 B and 4 of 16 B, by the width
    note) are labelled with their mean width, (124 x 4 + 4 x 16) / 128 = 4.375 B, as a mean."""
    from tests.render.text_layout import covered_points, text_problems

    (a,) = analyze_files([shared_report(PYTORCH_SIM)])
    scan = next(g.longest.instruction_roofline for g in a.groups if "DeviceScanKernel" in g.name)
    assert scan.shared_memory.width_note.startswith("ld 124 x 4 B, 4 x 16 B")
    (marks,) = instruction_plot.plot_data([a], top=8)
    assert marks.walls["shared"]["no bank conflict, mean 4.38 B"] == pytest.approx(128 / (124 + 4 * 4))
    fig = instruction_plot.figure_of([marks])
    boxes = _wall_label_boxes(fig, marks)
    assert len(boxes) == len({x for named in marks.walls.values() for x in named.values()})
    for own, others, box in boxes:
        assert min(abs(box.x0 - own), abs(box.x1 - own)) < 8  # beside its own wall
        assert not any(box.x0 < p < box.x1 for p in others)  # crossing no other wall
    assert covered_points(fig) == [] and text_problems(fig) == []


@pytest.mark.parametrize("report", ["examples/h200/intops.full.ncu-rep", "h100-pcie_rmsnorm-float4_full-roofline"])
def test_the_roofs_legend_crosses_no_roof_peak_or_point(report, shared_report):
    """The H200 integer ops' 789 warp GIPS issue peak and the H100 PCIe RMSNorm's 7933 GIOPS ALU peak ran under
    the legend (``loc="best"``): every legend's box now crosses no line and covers no marker of its panel."""
    from matplotlib.collections import PathCollection

    path = INTOPS if report.startswith("examples") else shared_report(report)
    fig = instruction_plot.figure_of(instruction_plot.plot_data(analyze_files([path]), top=8))
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    legends = [ax for ax in fig.axes if ax.get_legend() is not None and ax.get_lines()]
    assert len(legends) == 2  # the instruction and the integer panels
    for ax in legends:
        box = ax.get_legend().get_window_extent(renderer)
        for line in ax.get_lines():
            assert not line.get_transform().transform_path(line.get_path()).intersects_bbox(box, filled=False)
        for dots in (c for c in ax.collections if isinstance(c, PathCollection)):
            for x, y in dots.get_offset_transform().transform(dots.get_offsets()):
                assert not (box.x0 <= x <= box.x1 and box.y0 <= y <= box.y1)
