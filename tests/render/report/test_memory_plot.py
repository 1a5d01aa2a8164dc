"""The memory chart plot (``plot --kind memory``): its data is the launch's memory picture, and it draws."""

from __future__ import annotations

from matplotlib.text import Text

from roofline.pipeline import analyze_loaded
from roofline.render.report import memory_plot
from tests.views import views


def test_the_chart_carries_the_reports_hit_rates_and_traffic(roofline_report, raw_actions):
    name = "rtx3060-laptop_reductions_full"
    analysis = analyze_loaded(roofline_report(name))
    panels = memory_plot.plot_data(views([analysis]), top=5)
    assert len(panels) == 5
    raws = {(r.range_index, r.action_index): r for r in raw_actions(name)}
    for panel, g in zip(panels, analysis.groups, strict=False):
        raw = raws[(g.longest.launch.range_index, g.longest.launch.action_index)]
        assert panel.hit_rate_pct["l1"] == raw["l1tex__t_sector_hit_rate.pct"]
        assert panel.hit_rate_pct["l2"] == raw["lts__t_sector_hit_rate.pct"]
        assert panel.traffic["l2_to_dram_bytes"] == raw["dram__bytes_write.sum"]
    assert memory_plot.draw(panels[:1], "png").startswith(b"\x89PNG")


def test_a_basic_set_has_nothing_to_chart(roofline_report):
    assert memory_plot.plot_data(views([analyze_loaded(roofline_report("a10g_sgemm-progression_basic"))]), top=3) == ()


def test_a_long_kernel_name_is_cut_in_its_middle_so_the_title_fits_the_panel(roofline_report):
    """The H800 report's longest kernel has a templated name of 300+ characters: its panel's title keeps the report's
    name, the start and end of the kernel's and the launch, and its drawn text ends inside the figure."""
    analysis = analyze_loaded(roofline_report("h800_flash-attn-fwd_full"))
    (panel,) = memory_plot.plot_data(views([analysis]), top=1)
    group = analysis.groups[0]
    assert len(group.name) > memory_plot.TITLE_CHARS
    assert len(panel.title) <= memory_plot.TITLE_CHARS and "…" in panel.title
    assert panel.title.startswith("h800_flash-attn-fwd_full.ncu-rep: ")
    assert panel.title.endswith(f" ({group.longest.launch.key})")
    fig = memory_plot.figure_of([panel])
    renderer = fig.canvas.get_renderer()
    (title,) = [t for t in fig.axes[0].get_children() if isinstance(t, Text) and t.get_text() == panel.title]
    assert title.get_window_extent(renderer).x1 <= fig.bbox.x1


def test_the_chart_writes_each_edges_percent_of_peak_and_the_l2_rates_of_loads_and_stores(roofline_report, raw_actions):
    """A100 CUTLASS GEMM (ncu 2024.1): the L2 box carries loads 74.4% and stores 100.1%, each edge its percent."""
    analysis = analyze_loaded(roofline_report("a100-80gb_cutlass-gemm_full"))
    panels = {p.title.rsplit("(", 1)[1]: p for p in memory_plot.plot_data(views([analysis]), top=2)}
    panel = panels["0:0)"]
    raw = raw_actions("a100-80gb_cutlass-gemm_full")[0]
    assert panel.l2_hit_rate_pct_by_op == {"read": raw["lts__t_sector_op_read_hit_rate.pct"],
                                           "write": raw["lts__t_sector_op_write_hit_rate.pct"]}
    assert panel.traffic_pct["dram_to_l2_bytes"] == raw["dram__bytes_read.sum.pct_of_peak_sustained_elapsed"]
    fig = memory_plot.figure_of([panel])
    texts = [t.get_text() for t in fig.findobj(Text)]
    assert any("loads 74.4%" in t and "stores 100.1%" in t for t in texts)
    assert "321 kB (1.6%)" in texts and memory_plot.PCT_NOTE in texts
