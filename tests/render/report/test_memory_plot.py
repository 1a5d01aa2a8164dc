"""The memory chart plot (``plot --kind memory``): its data is the launch's memory picture, and it draws."""

from __future__ import annotations

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
