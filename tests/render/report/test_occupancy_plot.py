"""The occupancy calculator plot (``plot --kind occupancy``): its rows are the launches' calculators, the drawn
segments are the curves' runs, the launch is marked where ncu's theoretical occupancy puts it, and it draws."""

from __future__ import annotations

import pytest

from roofline.pipeline import analyze_loaded
from roofline.render.report import occupancy_plot
from tests.views import views


def test_rows_carry_the_longest_launch_of_each_top_kernel(roofline_report, raw_actions):
    name = "a100-80gb_cutlass-gemm_full"
    analysis = analyze_loaded(roofline_report(name))
    panels = occupancy_plot.plot_data(views([analysis]), top=5)
    assert len(panels) == len(analysis.groups) == 2
    raws = {(r.range_index, r.action_index): r for r in raw_actions(name)}
    for panel, g in zip(panels, analysis.groups, strict=True):
        raw = raws[(g.longest.launch.range_index, g.longest.launch.action_index)]
        assert panel.calculator.launch.theoretical_pct == raw["sm__maximum_warps_per_active_cycle_pct"]
        assert panel.calculator.launch.threads == raw["launch__block_size"]
        assert panel.calculator.launch.registers == raw["launch__registers_per_thread"]
        assert panel.title.endswith(f" ({g.longest.launch.key})")


def test_the_figure_draws_each_run_and_marks_the_launch(roofline_report):
    analysis = analyze_loaded(roofline_report("rtx2070super_alife-143launches_basic"))
    (panel,) = occupancy_plot.plot_data(views([analysis]), top=1)
    fig = occupancy_plot.figure_of([panel])
    axes = [ax for ax in fig.axes if ax.get_xlabel()]
    assert [ax.get_xlabel() for ax in axes] == list(occupancy_plot.AXES.values())
    for ax, curve in zip(axes, panel.calculator.curves, strict=True):
        (marker,) = [line for line in ax.get_lines() if line.get_marker() == "D"]
        assert list(marker.get_ydata()) == [panel.calculator.launch.theoretical_pct]
        segments = [c for c in ax.collections if len(c.get_segments())]
        heights = sorted({seg[0][1] for c in segments for seg in c.get_segments()})
        assert heights == sorted({s.theoretical_pct for s in curve.steps})
    assert occupancy_plot.to_bytes(fig, "png").startswith(b"\x89PNG")


def test_shared_memory_axis_is_in_kib(roofline_report):
    analysis = analyze_loaded(roofline_report("a100-80gb_cutlass-gemm_full"))
    panel = next(p for p in occupancy_plot.plot_data(views([analysis]), top=2) if "Kernel<" in p.title)
    fig = occupancy_plot.figure_of([panel])
    shared = next(ax for ax in fig.axes if "KiB" in ax.get_xlabel())
    (marker,) = [line for line in shared.get_lines() if line.get_marker() == "D"]
    assert list(marker.get_xdata()) == [pytest.approx(43008 / 1024)]  # 42 KiB of the kernel's own, ncu's 43008 B


def test_the_launch_is_labelled_with_its_unit_and_kept_inside_its_axes(roofline_report):
    """"this launch: 42" on the shared-memory axis was KiB without the unit, and a launch near the axis' end had
    its label run past the axes (208.191 on the H100's BF16 GEMM)."""
    analysis = analyze_loaded(roofline_report("a100-80gb_cutlass-gemm_full"))
    panel = next(p for p in occupancy_plot.plot_data(views([analysis]), top=2) if "Kernel<" in p.title)
    fig = occupancy_plot.figure_of([panel])
    labels = {ax.get_xlabel(): [t for t in ax.texts if t.get_text().startswith("this launch")] for ax in fig.axes
              if ax.get_xlabel()}
    shared = labels[occupancy_plot.AXES["shared_bytes"]][0]
    assert shared.get_text() == "this launch: 42 KiB"
    assert labels[occupancy_plot.AXES["threads"]][0].get_text().endswith(" threads")
    assert labels[occupancy_plot.AXES["registers"]][0].get_text().endswith(" registers")
    import roofline
    from tests.conftest import REPO

    gemm = analyze_loaded(roofline.load(REPO / "examples" / "h100" / "torch-bf16.full.ncu-rep"))
    end = next(p for p in occupancy_plot.plot_data(views([gemm]), top=3) if "nvjet" in p.title)
    assert end.calculator.launch.shared_bytes / 1024 > 0.9 * 228  # near its axis' end: 208 of 228 KiB
    fig = occupancy_plot.figure_of([end])
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    for ax in fig.axes:
        box = ax.get_window_extent(renderer)
        for text in (t for t in ax.texts if t.get_text().startswith("this launch")):
            drawn = text.get_window_extent(renderer)
            assert box.x0 <= drawn.x0 and drawn.x1 <= box.x1, text.get_text()  # inside its axes, left to right


def test_a_launch_at_an_axis_end_is_drawn_whole_and_its_label_covers_no_curve(roofline_report):
    """The V100 miniWeather kernels run with 0 B of shared memory: the diamond at 0 KiB sat half outside the axes,
    and "this launch: 128 threads" was drawn over the runs beside the diamond. The diamond is now not clipped
    and each label's box keeps off every run (at its line width) and riser of its chart."""
    analysis = analyze_loaded(roofline_report("v100_miniweather-openacc_full"))
    panels = occupancy_plot.plot_data(views([analysis]), top=3)
    assert [p.calculator.launch.shared_bytes for p in panels] == [0, 0, 0]
    fig = occupancy_plot.figure_of(panels)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    for ax in (ax for ax in fig.axes if ax.get_xlabel()):
        (marker,) = [line for line in ax.get_lines() if line.get_marker() == "D"]
        assert not marker.get_clip_on()
        (label,) = [t for t in ax.texts if t.get_text().startswith("this launch")]
        box = label.get_window_extent(renderer)
        assert ax.bbox.x0 <= box.x0 and box.x1 <= ax.bbox.x1 and ax.bbox.y0 <= box.y0 and box.y1 <= ax.bbox.y1
        half = renderer.points_to_pixels(occupancy_plot.RUN_LW) / 2
        runs = [seg for c in ax.collections for seg in c.get_segments()]
        step = next(line for line in ax.get_lines() if line.get_marker() != "D")
        xs, ys = step.get_xdata(), step.get_ydata()
        risers = [[(x, y0), (x, y1)] for x, y0, y1 in zip(xs[1:], ys[:-1], ys[1:], strict=True)]
        for (a, b) in runs + risers:
            (x0, y0), (x1, y1) = ax.transData.transform([a, b])
            assert not (box.x0 < max(x0, x1) + half and min(x0, x1) - half < box.x1
                        and box.y0 < max(y0, y1) + half and min(y0, y1) - half < box.y1), label.get_text()
