"""Roofline plot: what is drawn (roofs, ceilings, ridge points, kernel points) and the files it writes."""

from __future__ import annotations

import html
from pathlib import Path

import pytest
from matplotlib.text import Text

import roofline
from roofline.analysis.launches import ReportAnalysis
from roofline.analysis.roofline import analyze_report
from roofline.core.model import CeilingSet, Device, KernelLaunch, Report
from roofline.core.units import ratio
from roofline.pipeline import AnalysisOptions, analyze_files
from roofline.render import GENERATED_BY
from roofline.render.mpl import figure, middle, wrap
from roofline.render.names import short_group_name
from roofline.render.report import plot
from tests.render.report.time_weighted import weighted_median
from tests.render.text_layout import text_problems
from tests.views import views

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "h100-sxm_synthetic.roofline.json"
_CACHE: dict[tuple[str, str], ReportAnalysis] = {}


@pytest.fixture
def analysed(shared_report):
    """``analysed(report, ceilings="auto")``: the report analysed as `roofline report` does, cached."""
    def get(report: str, ceilings: CeilingSet = "kernel-clock") -> ReportAnalysis:
        if (report, ceilings) not in _CACHE:
            _CACHE[report, ceilings] = analyze_files([shared_report(report)], AnalysisOptions(ceilings=ceilings))[0]
        return _CACHE[report, ceilings]
    return get


@pytest.fixture(scope="module")
def example():
    return analyze_report(roofline.load(EXAMPLE))


def _series(panel, name):
    """The series of a kernel by its function name (a template instance is named with its arguments)."""
    return next(s for s in (*panel.series, *panel.other) if s.name == name or s.name.startswith(name + "<"))


def test_roofs_and_ceilings_come_from_the_ceilings_in_use(analysed):
    a = analysed("v100_miniweather-openacc_full", "datasheet")
    p = plot.plot_data(views([a]).reports).panels[0]
    spec = a.launches[0].ceilings["datasheet"]
    assert p.ceilings_used == "datasheet" and "datasheet ceilings (spec v100-sxm2)" in p.title
    datasheet_roofs = [(r.level, r.bytes_per_s) for r in p.roofs if r.source == "datasheet"]
    assert datasheet_roofs == [("dram", spec.bytes_per_s["dram"])]
    # the kernels use FP64 and FP32 only; each ridge point is peak / bandwidth
    assert {c.precision: c.flop_per_s for c in p.ceilings} == {"fp64": spec.flop_per_s["fp64"],
                                                               "fp32": spec.flop_per_s["fp32"]}
    fp64 = next(c for c in p.ceilings if c.precision == "fp64")
    assert fp64.ridges["dram"] == pytest.approx(7.8e12 / 900e9)
    assert "FP64 7.8 TFLOP/s" in fp64.label and "DRAM ridge 8.67 FLOP/B" in fp64.label


def test_single_launch_points_are_the_analysis_values(analysed):
    a = analysed("v100_miniweather-openacc_full")
    k = next(k for k in a.launches if k.launch.name == "compute_tendencies_x_279_gpu")
    s = _series(plot.plot_data(views([a]).reports).panels[0], "compute_tendencies_x_279_gpu")
    rate = sum(v.value for v in k.flop_per_s.values() if v.value is not None)
    assert [pt.level for pt in s.points] == ["dram", "l2", "l1"]
    for pt in s.points:
        assert pt.intensity == pytest.approx(k.intensity[pt.level].value)
        assert pt.flop_per_s == pytest.approx(rate)


def test_launches_of_one_kernel_are_pooled(analysed):
    a = analysed("gh200_silu_full-roofline")
    launches = [k for k in a.launches if k.launch.name == "silu_kernel_non_strided"]
    s = _series(plot.plot_data(views([a]).reports).panels[0], "silu_kernel_non_strided")
    flops = sum(k.total_flops for k in launches)
    assert s.launches == 2
    assert s.points[0].flop_per_s == pytest.approx(flops / sum(k.duration_s.value for k in launches))
    assert s.points[0].intensity == pytest.approx(flops / sum(k.bytes["dram"].value for k in launches))


def median_roof(a: ReportAnalysis, source: CeilingSet, key: str) -> float:
    """The time-weighted median over the launches of one roof (of the measured roofs where any launch has one, the
    value at half the total time), computed here from each launch's ceilings and duration."""
    known = [(v, k.duration_s.value or 0.0, key in k.ceilings[source].scaled)
             for k in a.launches if (v := k.ceilings[source].roof(key)) is not None]
    pairs = [(v, w) for v, w, fallback in known if not fallback] or [(v, w) for v, w, _ in known]
    return weighted_median(pairs)


def test_by_default_the_roofs_are_those_at_the_kernels_clocks(analysed):
    a = analysed("v100_miniweather-openacc_full")
    p = plot.plot_data(views([a]).reports).panels[0]
    assert p.ceilings_used == "kernel-clock" and "kernel-clock ceilings" in p.title
    assert {c.precision: c.flop_per_s for c in p.ceilings} == {"fp64": median_roof(a, "kernel-clock", "fp64"),
                                                               "fp32": median_roof(a, "kernel-clock", "fp32")}


def test_level_without_datasheet_bandwidth_takes_the_measured_clock_roof(analysed):
    a = analysed("gh200_silu_full-roofline", "datasheet")
    roofs = {r.level: r for r in plot.plot_data(views([a]).reports).panels[0].roofs}
    assert roofs["dram"].source == "datasheet"
    assert roofs["l2"].source == "measured-clock" and roofs["l2"].bytes_per_s == median_roof(a, "measured-clock", "l2")


def test_measured_clock_ceilings_are_time_weighted_medians(analysed):
    a = analysed("h100-pcie_rmsnorm-float4_full-roofline", "measured-clock")
    p = plot.plot_data(views([a]).reports).panels[0]
    fp32 = next(c for c in p.ceilings if c.precision == "fp32")
    assert fp32.flop_per_s == median_roof(a, "measured-clock", "fp32")
    assert "measured-clock ceilings (measured SM clock" in p.title


def test_memory_only_kernels_are_listed_not_drawn(analysed):
    p = plot.plot_data(views([analysed("v100_miniweather-openacc_full")]).reports).panels[0]
    assert ("set_halo_values_x_396_gpu", plot.NO_FLOPS) in p.skipped


def test_top_n_and_other(example):
    p = plot.plot_data(views([example]).reports, top=1).panels[0]
    assert [s.name for s in p.series] == ["sgemm_fp32_4096"]  # the longest kernel
    assert {s.name for s in p.other} == {"triad_fp32", "gemm_bf16_tensor_4096"}
    assert all(s.color == -1 for s in p.other)
    assert p.other_share == pytest.approx(sum(g.time_share for g in example.groups[1:]))


def test_tensor_ceiling_is_for_the_type_the_kernels_use(example):
    p = plot.plot_data(views([example]).reports).panels[0]
    tensor = next(c for c in p.ceilings if c.precision == "tensor")
    assert tensor.label.startswith("Tensor (BF16)")


@pytest.mark.parametrize("fmt, magic", [("png", b"\x89PNG"), ("svg", b"<?xml"), ("pdf", b"%PDF")])
def test_draw_formats_carry_the_generator_mark(example, fmt, magic):
    data = plot.draw(plot.plot_data(views([example]).reports), fmt)
    assert data.startswith(magic) and GENERATED_BY.encode() in data


def test_svg_is_reproducible_and_inline_svg_has_no_urls(example):
    d = plot.plot_data(views([example]).reports)
    assert plot.draw(d, "svg") == plot.draw(d, "svg")
    svg = plot.inline_svg(d)
    assert svg.startswith("<svg") and "http" not in svg


def test_empty_report_list_still_draws():
    assert plot.draw(plot.PlotData(()), "png").startswith(b"\x89PNG")


# --- Layout: nothing clipped, no text over another ------------------------------------------------------
def test_no_text_leaves_the_figure_or_overlaps_on_every_shared_report(shared_name, analysed):
    data = plot.plot_data(views([analysed(shared_name)]).reports)
    assert text_problems(plot.figure_of(data)) == []


def test_no_roof_label_covers_a_kernels_point_on_every_shared_report(shared_name, analysed):
    """A40 Julia: the DRAM roof's label sat on the kernel's L2 and L1 points at the lower left of its line."""
    from tests.render.text_layout import covered_points

    data = plot.plot_data(views([analysed(shared_name)]).reports)
    assert covered_points(plot.figure_of(data)) == []


def test_no_text_leaves_the_figure_or_overlaps_on_the_example(example):
    assert text_problems(plot.figure_of(plot.plot_data(views([example]).reports))) == []


def test_layout_check_finds_overlap_clipping_and_overflow():
    fig = figure(4.0, 3.0)
    ax = fig.add_axes((0.1, 0.1, 0.8, 0.8))
    ax.text(0.5, 0.5, "one label", transform=ax.transAxes)
    ax.text(0.5, 0.5, "other label", transform=ax.transAxes)
    ax.text(0.9, 0.2, "beyond the right edge of the figure", transform=ax.transAxes, clip_on=False)
    problems = text_problems(fig)
    assert "overlap: 'one label' and 'other label'" in problems
    assert any(p.startswith("leaves the figure: 'beyond") for p in problems)
    ax.text(0.95, 0.95, "cut by the axes", transform=ax.transAxes, clip_on=True)
    with pytest.raises(AssertionError, match="clipped by its axes"):
        text_problems(fig)


def _ceilings_panel(peaks: list[float]) -> plot.Panel:
    """A panel whose ceilings sit a few percent apart: their labels cannot all go at the right end."""
    roof = plot.MemoryRoof("dram", 1e12, "datasheet")
    ceilings = tuple(plot.ComputeCeiling(p, peak, {"dram": peak / 1e12}, f"{p.upper()} {peak:.3g} FLOP/s, ridge")
                     for p, peak in zip(("fp64", "fp32", "fp16", "tensor"), peaks, strict=False))
    return plot.Panel("close ceilings", "datasheet", (roof,), ceilings, (), (), ())


def test_close_ceiling_labels_are_moved_apart_or_named_in_the_notes():
    panel = _ceilings_panel([1.0e13, 1.03e13, 1.06e13, 1.09e13])
    fig = plot.figure_of(plot.PlotData((panel,)))
    assert text_problems(fig) == []
    texts = " ".join(t.get_text() for t in fig.findobj(Text))
    for c in panel.ceilings:
        assert c.label in texts  # on the plot, or under it as "label without room on the plot"


def test_long_names_are_cut_in_the_middle_with_a_numbered_key():
    long_name = "void cutlass::Kernel<cutlass::gemm::kernel::GemmUniversal<float, 128, 256, 64>>"
    launches = [_launch(0, long_name, 2e-3), _launch(1, "short", 1e-3)]
    a = analyze_report(Report("long.json", Device("Synthetic GPU"), tuple(launches), source="model"))
    p = plot.plot_data(views([a]).reports).panels[0]
    cut = middle(long_name, plot.LABEL_CHARS)
    assert cut.startswith("void cutlass::K") and cut.endswith("64>>") and "…" in cut
    assert plot._series_label(p.series[0]).startswith(f"#1 {cut}")
    assert f"key: #1\u00a0{long_name}" in p.notes
    assert text_problems(plot.figure_of(plot.PlotData((p,)))) == []


def _launch(i: int, name: str, duration_s: float, ffma: float = 1e9, dram: float = 1e8) -> KernelLaunch:
    metrics = {"gpu__time_duration.sum": duration_s * 1e9, "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum": ffma,
               "dram__bytes.sum": dram, "sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained": 1000.0,
               "sm__cycles_elapsed.avg.per_second": 1e9, "dram__bytes.sum.peak_sustained": 100.0,
               "dram__cycles_elapsed.avg.per_second": 1e9}
    return KernelLaunch(range_index=0, action_index=i, name=name, metrics=metrics)


@pytest.mark.parametrize("report", ["rtx3080_sgemm-vs-cublas_full", "v100_miniweather-openacc_full",
                                    "h800_flash-attn-fwd_full", "a100-40gb_cublas-sgemm_basic"])
def test_notes_under_the_plot_are_short_and_name_no_metric(analysed, report):
    """A note fits two lines under the figure; the metrics behind an n/a are the report's to list, not the plot's."""
    for p in plot.plot_data(views([analysed(report)]).reports).panels:
        for note in p.notes:
            assert len(wrap([note], plot.NOTES_WIDTH_IN)) <= 2, note
            assert "__" not in note and "missing metrics" not in note, note


# --- Every point honest -------------------------------------------------------------------------------
def test_levels_without_a_roof_are_hollow_and_said_so(analysed):
    a = analysed("rtx3080_sgemm-vs-cublas_full", "datasheet")
    p = plot.plot_data(views([a]).reports).panels[0]
    assert [r.level for r in p.roofs] == ["dram"]  # no L2 or L1 bandwidth in the spec or the report
    spec_dram = a.launches[0].ceilings["datasheet"].bytes_per_s["dram"]
    cublas = _series(p, "ampere_sgemm_128x64_nn")
    k = next(k for k in a.launches if k.launch.name == "ampere_sgemm_128x64_nn")
    for pt in cublas.points:
        if pt.level == "dram":
            assert pt.roof_pct == pytest.approx(100 * k.bytes_per_s["dram"].value / spec_dram)
        else:
            assert pt.roof_pct is None  # drawn hollow, never against the DRAM roof
    assert "L2, L1 points hollow, no roof for this level (the report's n/a reasons say why)" in p.notes
    fig = plot.figure_of(plot.PlotData((p,)))
    legend = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert "hollow: no roof for this level (L2, L1)" in legend
    hollow = [c for c in fig.axes[0].collections if c.get_gid() == plot.point_id(0, cublas, "l1")][0]
    assert hollow.get_facecolor().size == 0  # no fill


def test_a_point_summing_several_precisions_says_so_under_the_plot_and_in_its_tooltip(analysed):
    a = analysed("rtx4070ti_pytorch-sim_full")
    p = plot.plot_data(views([a]).reports).panels[0]
    fill = _series(p, "fill_vector")
    k = next(k for k in a.launches if k.launch.name == "fill_vector")
    fp64, fp32 = k.flops["fp64"].value, k.flops["fp32"].value
    assert fill.precisions == ("fp64", "fp32") and fp64 > 0 and fp32 > 0
    dram = next(pt for pt in fill.points if pt.level == "dram")
    assert dram.flop_per_s == pytest.approx((fp64 + fp32) / k.duration_s.value)  # the sum, not one precision
    note = next(n for n in p.notes if n.startswith("points at the FLOP/s of several precisions summed"))
    assert f"#{fill.number}\u00a0fill_vector (FP64 + FP32, {fill.pct_of_roof:.1f}% of roof)" in note
    assert "FLOP/s (FP64 + FP32) at" in plot.tooltip(fill, dram)
    single = next(s for s in p.series if len(s.precisions) == 1)
    assert f"#{single.number}\u00a0" not in note and " + " not in plot.tooltip(single, single.points[0])


def test_marker_area_is_bounded_and_the_share_is_in_the_legend(analysed):
    p = plot.plot_data(views([analysed("h100-pcie_rmsnorm-float4_full-roofline")]).reports).panels[0]
    s = p.series[0]
    assert s.time_share == pytest.approx(1.0)
    assert plot.area(s.time_share) == plot.MAX_AREA <= 2.5 * plot.MIN_AREA
    assert plot.area(s.time_share) * plot.LEVEL_SCALE["l1"] < plot.area(0.0)  # inner levels stay visible
    assert plot._series_label(s) == "#1 rms_norm_matrix_kernel_float4  100.0%, 4 launches"


# --- Bandwidth view -----------------------------------------------------------------------------------
def test_flopless_report_gets_the_bandwidth_view(analysed):
    a = analysed("rtx4090_smem-transpose_full", "datasheet")
    panels = plot.plot_data(views([a]).reports).panels
    assert [p.kind for p in panels] == ["bandwidth"]  # no kernel has FLOPs: no empty roofline
    p = panels[0]
    dram = a.launches[0].ceilings["datasheet"].bytes_per_s["dram"]
    assert [(r.level, r.bytes_per_s) for r in p.roofs] == [("dram", dram)]
    for group in a.groups:
        s = _series(p, short_group_name(group.name, group.functions))
        k = group.launches[0]
        assert {pt.level: pt.bytes_per_s for pt in s.points} == pytest.approx(
            {lv: k.bytes_per_s[lv].value for lv in ("dram", "l2", "l1")})
        by_level = {pt.level: pt.roof_pct for pt in s.points}
        assert by_level["dram"] == pytest.approx(100 * k.bytes_per_s["dram"].value / dram)
        assert by_level["l2"] is None and by_level["l1"] is None
    assert "bandwidth view" in p.title


def test_bandwidth_view_only_when_most_time_has_no_flops(analysed):
    def kinds(name: str) -> list[str]:
        return [p.kind for p in plot.plot_data(views([analysed(name)]).reports).panels]

    assert kinds("v100_miniweather-openacc_full") == ["roofline"]
    assert kinds("rtx3060-laptop_reductions_full") == ["bandwidth"]


def test_report_with_both_views_draws_both(example):
    launches = [_launch(0, "copy", 3e-3, ffma=0.0, dram=1e9), _launch(1, "fma", 1e-3)]
    a = analyze_report(Report("mix.json", Device("Synthetic GPU"), tuple(launches), source="model"))
    roofline_panel, bandwidth_panel = plot.plot_data(views([a]).reports).panels
    assert [s.name for s in roofline_panel.series] == ["fma"]
    assert any("(in the bandwidth view below)" in n and "#1\u00a0copy" in n for n in roofline_panel.notes)
    assert {s.name for s in bandwidth_panel.series} == {"copy", "fma"}
    assert text_problems(plot.figure_of(plot.PlotData((roofline_panel, bandwidth_panel)))) == []


# --- Tooltips and links for HTML ----------------------------------------------------------------------
def test_every_drawn_point_has_a_tooltip_and_the_links_given(example):
    data = plot.plot_data(views([example]).reports)
    links = {"triad_fp32": "#r0-k2"}
    svg = plot.inline_svg(data, links)
    tips = plot.tooltips(data)
    assert len(tips) == sum(len(p.drawn(s)) for p in data.panels for s in (*p.series, *p.other)) == 9
    for gid, tip in tips.items():
        assert f'<g id="{gid}" class="point"><title>{html.escape(tip)}</title>' in svg
    assert svg.count('<a href="#r0-k2">') == 3 and "target=" not in svg  # triad's 3 levels, same page
    k = next(k for k in example.launches if k.launch.name == "triad_fp32")
    tip = tips[plot.point_id(0, _series(data.panels[0], "triad_fp32"), "dram")]
    assert tip.splitlines() == [
        "#2 triad_fp32", f"launch {k.launch.key}, 23.2% of the time", "DRAM: 3.02 TB/s, 90.0% of the DRAM bandwidth",
        "503 GFLOP/s at 0.167 FLOP/byte", "kernel at 90.0% of roof (kernel-clock ceilings, per launch), bound: memory"]


def test_a_tooltip_gives_each_level_as_a_percent_of_its_bandwidth_and_pooled_launches_as_such(analysed,
                                                                                               raw_actions):
    """A10G one_blocktiling (104 FLOP/byte at DRAM, past the FP32 ridge, so the roof at its point is the FP32
    ceiling): its DRAM line is its DRAM bytes/s over the level's bandwidth (the kernel-clock DRAM roof), not a
    percent of the roof at the point; the H800 elementwise kernel's 4 launches read "4 launches pooled", not
    "launch 4 launches"."""
    a = analysed("a10g_sgemm-blocktiling_roofline")
    data = plot.plot_data(views([a]).reports)
    s = _series(data.panels[0], "one_blocktiling")
    tip = plot.tooltips(data)[plot.point_id(0, s, "dram")].splitlines()
    (raw,) = [r for r in raw_actions("a10g_sgemm-blocktiling_roofline") if r.name.startswith("one_blocktiling")]
    bytes_per_s = raw["dram__bytes.sum.per_second"]
    roof = raw["dram__bytes.sum.peak_sustained"] * raw["dram__cycles_elapsed.avg.per_second"]  # the kernel-clock roof
    assert tip[1] == f"launch {a.launches[0].launch.key}, 35.6% of the time"
    assert tip[2] == f"DRAM: {bytes_per_s / 1e9:.3g} GB/s, {100 * bytes_per_s / roof:.1f}% of the DRAM bandwidth"
    assert "plotted roof" not in "\n".join(plot.tooltips(data).values())
    h800 = plot.plot_data(views([analysed("h800_flash-attn-fwd_full")]).reports)
    pooled = next(x for x in h800.panels[0].series if x.launches == 4)
    assert plot.tooltip(pooled, pooled.points[0]).splitlines()[1].startswith("4 launches pooled, ")


def test_a_tooltip_marks_an_intensity_that_leaves_out_unmeasured_flops_as_a_lower_bound(analysed):
    """A40 Julia FP16x2: the full set of ncu 2022.4 measures no FP16 FLOPs, so a kernel's intensity counts the
    others and is a lower bound; its tooltip reads ">= X FLOP/byte (FP16 FLOPs not measured)", as the Markdown
    and HTML tables do, not a plain number beside them."""
    a = analysed("a40_julia-fp16x2_full")
    data = plot.plot_data(views([a]).reports)
    partial = [s for s in data.panels[0].series if s.leaves_out]
    assert partial and all(s.leaves_out == ("fp16",) for s in partial)
    for s in partial:
        for pt in s.points:
            if pt.flop_per_s:
                line = plot.tooltip(s, pt).splitlines()[3]
                assert line.endswith(f"at >= {ratio(pt.intensity)} FLOP/byte (FP16 FLOPs not measured)"), line


def test_a_full_set_counts_every_direction_so_no_level_looks_inverted(analysed):
    """GH200 distribution_elementwise writes 241 MB: its L2 bytes count the SMs' stores (ncu 2025's own definition,
    L2 -> SM returns, had 626 kB below DRAM), so no level note."""
    s = _series(plot.plot_data(views([analysed("gh200_silu_full-roofline")]).reports).panels[0],
                "distribution_elementwise_grid_stride_kernel")
    assert s.level_notes == ()


def test_a_kernel_whose_l2_definition_counts_no_bytes_is_drawn_at_all_its_l2_traffic():
    """A store-only kernel: the L2 -> L1 read bytes are 0, all L2 traffic (32 B x lts__t_sectors) is 8 GB in 10 ms.
    Its L2 point is drawn there, hollow (the L2 roof counts the other definition), and the note says why."""
    from tests.analysis.test_advice import analysed as analysed_model
    from tests.analysis.test_advice import launch

    a = analysed_model(launch(0, "store", 10e-3, 1e9, 0.5e12, **{
        "l1tex__m_xbar2l1tex_read_bytes.sum": 0.0, "lts__t_sectors.sum": 8e9 / 32}))
    v = views([a]).reports[0]
    series, why = plot.kernel_series(a.groups[0], v.pooled[0], v.points[0])
    assert why == "" and series is not None
    (l2,) = [p for p in series.points if p.level == "l2"]
    assert l2.bytes_per_s == pytest.approx(8e9 / 10e-3) and l2.roof_pct is None
    assert l2.intensity == pytest.approx(1e9 * 10e-3 / 8e9)  # FLOPs / all L2 bytes
    assert plot.L2_TOTAL_NOTE in series.level_notes
