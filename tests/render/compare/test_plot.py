"""Comparison and summary plots: the plotted coordinates (returned as data) against values computed here from
raw metric values (ncu_report directly) and the datasheet YAML files (PyYAML), and the bytes drawn."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from roofline.analysis.roofline import analyze_report
from roofline.compare.pairing import pair_reports, parse_matcher
from roofline.compare.places import gpu_panels
from roofline.compare.ranking import summarize
from roofline.core.labels import NAMES
from roofline.core.model import Device, KernelLaunch, Report
from roofline.errors import RooflineError
from roofline.render import GENERATED_BY
from roofline.render.compare.plot import (
    MAX_AREA,
    MIN_AREA,
    comparison_data,
    comparison_figure,
    comparison_plot,
    summary_data,
    summary_figure,
    summary_plot,
)
from roofline.render.mpl import plot_format
from roofline.specs.catalog import load_catalog
from tests.render.text_layout import text_problems

REPO = Path(__file__).resolve().parents[3]
A10G = "a10g_sgemm-blocktiling_roofline"
RTX3080 = "rtx3080_sgemm-vs-cublas_full"
KERNELS = ("two_blocktiling", "ampere_sgemm_128x64_nn")
PNG = b"\x89PNG\r\n\x1a\n"


def raw_point(raw) -> tuple[float, float]:
    """(FP32 FLOP per DRAM byte, FP32 FLOP/s) of one launch from its raw metrics."""
    t = raw["gpu__time_duration.sum"] * 1e-9
    rate = sum(w * raw[f"smsp__sass_thread_inst_executed_op_{op}_pred_on.sum.per_cycle_elapsed"]
               for op, w in (("fadd", 1), ("fmul", 1), ("ffma", 2)))
    flops = rate * raw["smsp__cycles_elapsed.avg.per_second"] * t
    return flops / (raw["dram__bytes.sum.per_second"] * t), flops / t


@pytest.fixture(scope="module")
def cross_gpu(roofline_report):
    """A10G two_blocktiling -> RTX 3080 cuBLAS SGEMM, each against its own datasheet spec."""
    catalog = load_catalog()
    analyses = []
    for name in (A10G, RTX3080):
        rep = roofline_report(name)
        analyses.append(analyze_report(rep, catalog.match(rep.device).spec, use="datasheet"))
    return pair_reports(analyses, parse_matcher("name", ["=".join(KERNELS)]))


def test_points_and_arrow_of_a_cross_gpu_pair(cross_gpu, raw_actions):
    png = comparison_plot(cross_gpu, "png")
    assert png[:8] == PNG and GENERATED_BY.encode() in png  # the mark lets roofline replace its own plot only
    data = comparison_data(cross_gpu)
    mapped = [p for p in data.points if p.label == " -> ".join(KERNELS)]
    assert [p.report for p in mapped] == [0, 1]
    for point, name, kernel in zip(mapped, (A10G, RTX3080), KERNELS, strict=True):
        raw = next(a for a in raw_actions(name) if a.name == kernel)
        assert (point.x, point.y) == pytest.approx(raw_point(raw), rel=1e-6)
    assert (mapped[0], mapped[1]) in data.arrows  # from the first report to the next


def test_each_report_has_its_own_roof_from_its_own_spec(cross_gpu):
    data = comparison_data(cross_gpu)
    for report, spec_id in ((0, "a10g"), (1, "rtx-3080")):
        spec = yaml.safe_load((REPO / "device_specs" / f"{spec_id}.yaml").read_text())
        roof = next(r for r in data.roofs if r.report == report and r.precision == "fp32")
        assert roof.peak_flop_per_s == spec["peaks"]["fp32"]["value"]
        assert roof.dram_bytes_per_s == spec["memory"]["bandwidth_bytes_per_s"]["value"]


def test_normalized_plot_shows_percent_of_own_roof_per_report(cross_gpu):
    svg = comparison_plot(cross_gpu, "svg", normalize=True).decode()
    assert svg.startswith("<?xml") and GENERATED_BY in svg
    data = comparison_data(cross_gpu, normalize=True)
    assert data.normalized and not data.roofs
    pair = next(p for p in cross_gpu.pairs if p.matched_by.startswith("map"))
    mapped = [p for p in data.points if p.label == pair.label]
    assert [(p.x, p.y) for p in mapped] == [(float(i), s.roof.pct_of_roof) for i, s in enumerate(pair.sides)]


def test_kernels_without_counters_are_listed_not_drawn(roofline_report):
    """Each side not drawn says why as the JSON does: its DRAM intensity's reason, the missing FLOP count."""
    basic = analyze_report(roofline_report("a10g_sgemm-progression_basic"))
    comparison = pair_reports([basic, analyze_report(roofline_report(A10G))])
    data = comparison_data(comparison)
    assert len(data.points) == 4 and not data.arrows  # only the roofline-set side of the 4 shared kernels
    reasons = {f"{p.label} in {comparison.reports[0].label}": p.sides[0].intensity["dram"].reason
               for p in comparison.pairs if p.sides[0] is not None}
    assert data.skipped and all(why == f"no DRAM intensity ({reasons[what]})" for what, why in data.skipped)
    assert all("no FLOP count: missing metrics" in why for _, why in data.skipped)


def _launch(i: int, name: str, duration_s: float, flops: float, dram: float) -> KernelLaunch:
    metrics = {"gpu__time_duration.sum": duration_s * 1e9, "dram__bytes.sum": dram,
               "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum": flops / 2,
               "sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained": 1000.0,
               "sm__cycles_elapsed.avg.per_second": 1e9, "dram__bytes.sum.peak_sustained": 100.0,
               "dram__cycles_elapsed.avg.per_second": 1e9}
    return KernelLaunch(range_index=0, action_index=i, name=name, metrics=metrics)


def test_summary_points_are_grouped_and_sized_by_time():
    times = {"big": [4e-3, 4e-3], "mid": [2e-3], "small": [1e-3]}
    launches = [_launch(i, name, t, 1e9, 1e7) for i, (name, ts) in enumerate(times.items()) for t in ts]
    rep = Report(path="app.json", device=Device(name="Synthetic GPU"), launches=tuple(launches), source="model")
    summary = summarize(analyze_report(rep), "kernel", 10)
    assert summary_plot(gpu_panels([summary]), "png")[:8] == PNG
    panel = summary_data(gpu_panels([summary])).panels[0]
    totals = {name: sum(ts) for name, ts in times.items()}
    area = {row.group.name: point.area for row, point in zip(summary.rows, panel.points, strict=True)}
    longest = max(totals.values())
    assert area == pytest.approx({k: MIN_AREA + (MAX_AREA - MIN_AREA) * v / longest for k, v in totals.items()})
    point = panel.points[0]
    assert (point.x, point.y) == pytest.approx((1e9 / 1e7, 2 * 1e9 / 8e-3))  # 2 launches of 1 GFLOP in 8 ms
    assert [b.total_s for b in panel.bars] == pytest.approx([totals[r.group.name] for r in summary.rows])


def test_summary_of_a_basic_report_has_bars_but_no_points(roofline_report):
    summary = summarize(analyze_report(roofline_report("rtx2070super_alife-143launches_basic")), "kernel", 5)
    panel = summary_data(gpu_panels([summary])).panels[0]
    assert not panel.points and len(panel.bars) == 5  # no FLOP or byte counters: nothing to place
    assert all(b.recoverable_s is not None for b in panel.bars)  # from the SpeedOfLight throughputs
    roof_ax = summary_figure(gpu_panels([summary])).axes[0]  # its roofline panel says so, with no axis scaling nothing
    (why,) = [t.get_text() for t in roof_ax.texts if "no kernel group can be placed" in t.get_text()]
    assert "FLOP per DRAM byte is not measured" in why and "re-profile with --set roofline or --set full" in why
    assert not list(roof_ax.get_xticks()) and not list(roof_ax.get_yticks()) and not roof_ax.get_ylabel()


@pytest.mark.parametrize("name", ["plot.txt", "plot"])
def test_unknown_plot_format_is_refused_before_drawing(tmp_path, name):
    with pytest.raises(RooflineError, match="unknown plot format"):
        plot_format(tmp_path / name)


def test_a_folder_given_as_the_plot_is_named_a_folder_not_an_unknown_format(tmp_path):
    (tmp_path / "plots.png").mkdir()  # even with a plot's suffix
    for folder in (tmp_path, tmp_path / "plots.png"):
        with pytest.raises(RooflineError, match="a folder, not a plot file") as err:
            plot_format(folder)
        assert str(folder / "roofline.png") in err.value.hint


# --- Roofs the kernels are bound by, log normalized axis, layout ---------------------------------------
RTX4070TI = "rtx4070ti_pytorch-sim_full"


@pytest.fixture(scope="module")
def same_app(roofline_report):
    """The RTX 4070 Ti application against itself: every kernel paired, coinciding points."""
    catalog = load_catalog()
    rep = roofline_report(RTX4070TI)
    a = analyze_report(rep, catalog.match(rep.device).spec, use="datasheet")
    return pair_reports([a, a])


def test_roof_of_the_precision_a_kernel_is_bound_by(same_app, raw_actions):
    raw = next(a for a in raw_actions(RTX4070TI) if a.name == "fill_vector")
    t = raw["gpu__time_duration.sum"] * 1e-9
    clock = raw["smsp__cycles_elapsed.avg.per_second"]
    fp64 = sum(w * raw[f"smsp__sass_thread_inst_executed_op_{op}_pred_on.sum.per_cycle_elapsed"]
               for op, w in (("dadd", 1), ("dmul", 1), ("dfma", 2))) * clock * t
    fp32 = raw_point(raw)[1] * t
    spec = yaml.safe_load((REPO / "device_specs" / "rtx-4070-ti.yaml").read_text())["peaks"]
    assert fp64 / spec["fp64"]["value"] > fp32 / spec["fp32"]["value"]  # its FP64 work takes longer at its peak
    pair = next(p for p in same_app.pairs if p.label == "fill_vector")
    assert pair.base.bound_precision == "fp64"
    roofs = {(r.report, r.precision) for r in comparison_data(same_app).roofs}
    assert (0, "fp64") in roofs


def test_reports_of_one_gpu_share_one_roof_per_unit_each_line_drawn_once(same_app):
    data = comparison_data(same_app)
    assert {r.reports for r in data.roofs} == {(0, 1)} and {r.report for r in data.roofs} == {0}
    precisions = [r.precision for r in data.roofs]
    assert len(precisions) == len(set(precisions)) and {"fp32", "fp64"} <= set(precisions)
    assert len({r.dram_bytes_per_s for r in data.roofs}) == 1  # one DRAM slope for the GPU
    labels = [line.get_label() for line in comparison_figure(same_app).axes[0].get_lines()]
    assert sorted(labels) == sorted(["A,B DRAM " + labels[0].split("DRAM ")[1],
                                     *(label for label in labels if "DRAM" not in label)])
    assert sum("DRAM" in label for label in labels) == 1 and len(labels) == len(precisions) + 1
    fig = comparison_figure(same_app)
    flats = {line.get_label(): line.get_xydata() for line in fig.axes[0].get_lines() if "DRAM" not in line.get_label()}
    for r in data.roofs:  # each precision's flat roof starts at its own ridge point: none is drawn over another
        xy = next(v for label, v in flats.items() if f"{NAMES[r.precision]} " in label)
        assert xy[0][0] == pytest.approx(r.peak_flop_per_s / r.dram_bytes_per_s)


def test_summary_has_one_panel_per_gpu_with_its_groups_summed():
    def report(path: str, scale: float) -> Report:
        launches = [_launch(i, name, t * scale, 1e9, 1e7) for i, (name, t) in enumerate((("big", 4e-3),
                                                                                         ("small", 1e-3)))]
        return Report(path=path, device=Device(name="Synthetic GPU"), launches=tuple(launches), source="model")

    other = Report(path="c.json", device=Device(name="Other GPU"), launches=(_launch(0, "big", 1e-3, 1e9, 1e7),),
                   source="model")
    summaries = [summarize(analyze_report(r), "kernel", 10, label=r.path.removesuffix(".json"))
                 for r in (report("a.json", 1.0), report("b.json", 2.0), other)]
    panels = summary_data(gpu_panels(summaries)).panels
    assert len(panels) == 2 and panels[0].report.startswith("Synthetic GPU: 2 reports (a, b)")
    first = panels[0]
    assert [b.total_s for b in first.bars] == pytest.approx([4e-3 * 3, 1e-3 * 3])
    assert sorted(p.number for p in first.points) == [1, 1, 2, 2] and first.total_s == pytest.approx(15e-3)
    assert len({(r.precision, r.peak_flop_per_s) for r in first.roofs}) == len(first.roofs)
    fig = summary_figure(gpu_panels(summaries))
    assert fig.get_size_inches()[1] < 2 * 5.0 + 2  # two panels, not three


def test_a_gpus_panel_numbers_its_groups_by_their_time_to_gain_over_all_its_reports():
    """examples/h200: gather_strided (506 us to gain) and hash_rounds (42.3 us) rank 1 and 2 in their report,
    triad_half2 (22.5 us) and the FP64 GEMM (1.46 ms) rank 1 in theirs: the panel of the three numbers them as
    one table of all would, by the figure that ranked each (``ranked_by_value_s``: 1.46 ms, 506, 42.3, 22.5 us),
    not by each one's rank within its own report nor by recoverable time."""
    from roofline.pipeline import analyze_files

    h200 = Path(__file__).resolve().parents[3] / "examples" / "h200"
    names = ("intops.full.ncu-rep", "triad-half2.roofline.ncu-rep", "torch-fp64.roofline.json")
    files = [h200 / name for name in names]
    summaries = [summarize(a, "kernel", 10) for a in analyze_files(files)]
    rows = {r.group.name: r for s in summaries for r in s.rows}
    assert {r.ranked_by_kind for r in rows.values()} == {"time_to_gain"}
    order = sorted(rows, key=lambda name: -(rows[name].ranked_by_value_s or 0.0))
    (merged,) = gpu_panels(summaries)
    assert [(g.name, g.number) for g in merged.groups] == [(name, n) for n, name in enumerate(order, 1)]
    (panel,) = summary_data([merged]).panels
    assert [b.label.split()[0] for b in panel.bars] == ["#1", "#2", "#3", "#4"]
    assert [b.label.split()[1] for b in panel.bars][1:] == ["gather_strided", "hash_rounds", "triad_half2"]

def test_normalized_view_is_log_scaled_and_spreads_kernels(same_app):
    data = comparison_data(same_app, normalize=True)
    fig = comparison_figure(same_app, normalize=True)
    ax = fig.axes[0]
    assert ax.get_yscale() == "log" and ax.get_ylim()[1] == 200.0
    assert ax.get_ylim()[0] <= min(p.y for p in data.points) / 2
    xs = sorted({p.x for p in data.points if p.report == 0})
    assert len(xs) == len({p.label for p in data.points}) and -0.31 < xs[0] < xs[-1] < 0.31


@pytest.fixture(scope="module")
def generations(roofline_report):
    """Issue 12's pair: the RTX 4070 Ti application and its H100 PCIe counterpart at a larger problem size."""
    from roofline.pipeline import analyze_loaded
    from tests.cross_gpu import H100_SOURCE, h100_model

    rtx = roofline_report(RTX4070TI)
    return pair_reports([analyze_loaded(rtx), analyze_loaded(h100_model(rtx, roofline_report(H100_SOURCE)))])


def test_pairs_of_different_work_are_drawn_hollow_with_dashed_arrows_and_marked_in_the_key(cross_gpu):
    """two_blocktiling (A10G) and cuBLAS (RTX 3080) multiply matrices of other sizes: its B point is hollow, its
    arrow dashed, the legend says what that means and the key marks the kernel."""
    assert cross_gpu.pairs[0].different_work(1)
    fig = comparison_figure(cross_gpu)
    ax = fig.axes[0]
    faces = [len(c.get_facecolors()) for c in ax.collections]  # one scatter per point, A first
    assert faces == [1, 0]  # B's point has no face
    arrows = [t.arrow_patch for t in ax.texts if getattr(t, "arrow_patch", None) is not None]
    assert len(arrows) == 1 and arrows[0].get_linestyle() == "--"
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "different work or FLOPs (> 5%): a rate, not a speedup" in legend
    assert f"1  {' -> '.join(KERNELS)} (different work)" in legend


def test_the_same_bytes_with_other_flops_are_drawn_hollow_on_the_flop_axis_only():
    """Issue 33's SiLU: DRAM-bound on both sides, the same DRAM bytes, B doing 4.2x the FLOPs and 2.86x slower. The
    same work (a speedup of 0.35x), but its FLOP/s rises 1.47x: the point is hollow and keyed "other FLOPs" on
    the FLOP/s plot, drawn as any point on the normalized one."""
    from tests.synthetic import NEW_GPU, OLD_GPU, launch, model

    memory_bound = (30.0, 85.0)
    a = model("a.json", [launch(0, "silu", 1e-3, 1e8, 5.14e8, OLD_GPU, sol=memory_bound)])
    b = model("b.json", [launch(0, "silu", 2.86e-3, 4.2e8, 5.24e8, NEW_GPU, sol=memory_bound)])
    c = pair_reports([analyze_report(a), analyze_report(b)])
    pair = c.pairs[0]
    assert not pair.different_work(1) and pair.flops_differ(1) and pair.headline(1).ratio == pytest.approx(1 / 2.86)
    points = comparison_data(c).points
    assert [(p.different_work, p.other_flops) for p in points] == [(False, False), (True, True)]
    assert points[1].y / points[0].y == pytest.approx(4.2 / 2.86)  # up on the FLOP/s axis, though slower
    legend = [t.get_text() for t in comparison_figure(c).axes[0].get_legend().get_texts()]
    assert "1  silu (other FLOPs)" in legend
    assert not any(p.other_flops or p.different_work for p in comparison_data(c, normalize=True).points)


@pytest.mark.parametrize("normalize", [False, True])
def test_compare_plots_of_real_pairs_have_no_clipped_or_overlapping_text(same_app, cross_gpu, generations, normalize):
    for comparison in (same_app, cross_gpu, generations):
        fig = comparison_figure(comparison, normalize)
        assert text_problems(fig) == []
        numbers = {t.get_text() for t in fig.axes[0].texts}
        drawn = {str(p.number) for p in comparison_data(comparison, normalize).points if p.number}
        listed = {n for t in numbers for n in t.removeprefix("no room for the number of: ").split(", ")}
        assert drawn <= numbers | listed


def test_summary_plots_of_real_reports_have_no_clipped_or_overlapping_text(roofline_report):
    summaries = [summarize(analyze_report(roofline_report(name)), "kernel", 10)
                 for name in (RTX4070TI, "rtx2070super_alife-143launches_basic", "v100_miniweather-openacc_full")]
    assert text_problems(summary_figure(gpu_panels(summaries))) == []


def test_notes_go_under_the_axes_grouped_by_reason(same_app):
    fig = comparison_figure(same_app)
    note = next(t.get_text() for ax in fig.axes[1:] for t in ax.texts)
    assert note.startswith("not drawn, no DRAM intensity (FLOPs not measured in full") \
        and "_kernel_agent in rtx4070ti" in note
    assert fig.axes[1].get_position().y1 <= fig.axes[0].get_position().y0  # below the plot


def test_with_no_paired_kernel_to_place_markdown_and_html_say_why_instead_of_empty_axes(roofline_report):
    from roofline.render.compare.html import comparison_html
    from roofline.render.compare.markdown import comparison_markdown
    from roofline.render.compare.plot import nothing_to_compare, pngs

    rep = roofline_report("rtx2080ti_kernels_basic")  # launches timed, no FLOP or byte counter
    a = analyze_report(rep, load_catalog().match(rep.device).spec, use="datasheet")
    c = pair_reports([a, a])
    assert c.pairs and nothing_to_compare(c) == "no paired kernel has FLOPs and bytes measured"
    assert pngs(c) == [None]
    page, doc = comparison_html(c), comparison_markdown(c)
    assert "<svg" not in page and "No comparison plot: no paired kernel has FLOPs and bytes measured." in page
    assert "No comparison plot: no paired kernel has FLOPs and bytes measured." in doc and ".png" not in doc


def test_a_report_that_shares_no_kernel_with_the_base_is_said_not_drawn():
    """Three reports, the third's only kernel (the FP64 GEMM) not in the base: its marker is in the legend, so the
    notes under the plot say why none of its kernels is drawn."""
    from roofline.pipeline import analyze_files

    examples = Path(__file__).resolve().parents[3] / "examples"
    files = [examples / "h100" / "torch-fp32.roofline.json", examples / "h200" / "torch-fp32.roofline.json",
             examples / "h100" / "torch-fp64.roofline.json"]
    data = comparison_data(pair_reports(analyze_files(files)))
    assert {p.report for p in data.points} == {0, 1}
    assert ("C (torch-fp64.roofline)", "no kernel in common with A (name)") in data.skipped


# --- Probe findings: Tensor roofs per type, coinciding points, the key, the GPUs, the report's ceilings -------
EXAMPLES = REPO / "examples"


@pytest.fixture(scope="module")
def bf16_to_fp8():
    """examples/h100: the BF16 cuBLAS GEMM against the FP8 one (paired by order), both on one H100."""
    from roofline.pipeline import analyze_files

    files = [EXAMPLES / "h100" / f"torch-{t}.roofline.ncu-rep" for t in ("bf16", "fp8")]
    return pair_reports(analyze_files(files), parse_matcher("order"))


def test_each_tensor_type_used_gets_its_own_roof_and_no_kernel_sits_above_its_own(bf16_to_fp8):
    """The FP8 GEMM runs at 1.14 PFLOP/s, above the BF16 roof (722 T): the plot draws the FP8 roof too, labelled
    with its type, and each kernel sits under the roof of the type it computes in."""
    (pair,) = bf16_to_fp8.pairs
    data = comparison_data(bf16_to_fp8)
    tensor = {r.tensor_dtype: r.peak_flop_per_s for r in data.roofs if r.precision == "tensor"}
    assert set(tensor) == {"bf16", "fp8"}
    for point, side in zip(data.points, pair.sides, strict=True):
        assert side.bound_precision == "tensor"
        assert point.y <= tensor[side.ceilings.tensor_dtype]
    assert data.points[1].y > tensor["bf16"]  # the FP8 kernel is above the BF16 roof: under BF16's alone, drawn wrong
    labels = [line.get_label() for line in comparison_figure(bf16_to_fp8).axes[0].get_lines()]
    assert sum(label.startswith("A,B Tensor (BF16) ") for label in labels) == 1
    assert sum(label.startswith("A,B Tensor (FP8) ") for label in labels) == 1


def test_summary_of_several_tensor_types_draws_a_roof_per_type_over_its_kernels():
    """examples/h100: FP16, BF16 and FP8 GEMMs on one GPU: one dashed roof per Tensor Core type, each group bound
    by the tensor roof under the one of its type, the title naming each type."""
    from roofline.pipeline import analyze_files

    summaries = [summarize(a, "kernel", 10) for a in analyze_files(sorted((EXAMPLES / "h100").glob("*.ncu-rep")))]
    (panel,) = summary_data(gpu_panels(summaries)).panels
    tensor = {r.tensor_dtype: r.peak_flop_per_s for r in panel.roofs if r.precision == "tensor"}
    assert {"bf16", "fp8"} <= set(tensor)
    number = {g.name: g.number for g in gpu_panels(summaries)[0].groups}
    bound = [(number[r.group.name], r.stats.ceilings.tensor_dtype) for s in summaries for r in s.rows
             if r.stats.bound_precision == "tensor"]
    assert {dtype for _, dtype in bound} == set(tensor)
    for n, dtype in bound:
        assert all(p.y <= tensor[dtype] for p in panel.points if p.number == n)
    title = summary_figure(gpu_panels(summaries)).axes[0].get_title(loc="left")
    assert "Tensor (FP8) " in title and "Tensor (BF16) " in title


@pytest.fixture(scope="module")
def h100_to_h200():
    """examples: the BF16 GEMM on an H100 and on an H200, at nearly the same place on the plot."""
    from roofline.pipeline import analyze_files

    return pair_reports(analyze_files([EXAMPLES / gpu / "torch-bf16.roofline.ncu-rep" for gpu in ("h100", "h200")]))


def test_an_earlier_reports_point_is_drawn_larger_under_a_later_one_so_both_stay_visible(h100_to_h200):
    a, b = comparison_data(h100_to_h200).points
    assert (a.report, b.report) == (0, 1)
    assert a.x == pytest.approx(b.x, rel=0.05)  # they nearly coincide: 770 vs 776 FLOP per byte
    fig = comparison_figure(h100_to_h200)
    sizes = [float(c.get_sizes()[0]) for c in fig.axes[0].collections]  # in drawing order: A first, under B
    assert sizes == [a.area, b.area] and sizes[0] >= 2 * sizes[1]  # A's marker 1.4x as wide: a rim around B's


def test_the_key_cuts_each_name_of_a_renamed_pair_on_its_own_and_keeps_the_arrow(bf16_to_fp8):
    (pair,) = bf16_to_fp8.pairs
    names = [s.name for s in pair.sides]  # 46 and 55 characters: too long to show both whole
    legend = [t.get_text() for t in comparison_figure(bf16_to_fp8).axes[0].get_legend().get_texts()]
    (entry,) = [t for t in legend if t.startswith("1  ")]
    shown = entry.removeprefix("1  ").removesuffix(" (other FLOPs)").split(" -> ")
    assert len(shown) == 2
    for cut, name in zip(shown, names, strict=True):  # each side's start and end, whatever the other's
        assert cut.startswith(name[:10]) and cut.endswith(name[-10:])


def test_the_legend_names_each_reports_gpu(h100_to_h200):
    legend = [t.get_text() for t in comparison_figure(h100_to_h200).axes[0].get_legend().get_texts()]
    a = next(t for t in legend if t.startswith("A: "))
    b = next(t for t in legend if t.startswith("B: "))
    assert a.endswith("(H100 80GB HBM3)") and b.endswith("(H200)")


def test_the_summary_draws_the_reports_ceilings_as_report_does(raw_actions):
    """gh200_silu: the launches ran at different clocks; the report's FP32 roof is the time-weighted median of the
    three launches' (49.6 TFLOP/s, as ``report`` shows and draws), not the first group's own (51.0 T)."""
    from roofline.pipeline import analyze_files
    from tests.conftest import find_shared_report

    name = "gh200_silu_full-roofline"
    roofs = []
    for raw in raw_actions(name):  # the kernel-clock FP32 roof: 2 FLOP per FFMA at its peak rate and the SM clock
        peak = 2 * raw["sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained"]
        roofs.append((peak * raw["sm__cycles_elapsed.avg.per_second"], raw["gpu__time_duration.sum"]))
    half, acc = sum(t for _, t in roofs) / 2, 0.0
    for value, t in sorted(roofs):
        acc += t
        if acc >= half:
            median = value
            break
    (analysis,) = analyze_files([find_shared_report(name)])
    summary = summarize(analysis, "kernel", 10)
    (panel,) = summary_data(gpu_panels([summary])).panels
    fp32 = next(r for r in panel.roofs if r.precision == "fp32")
    assert fp32.peak_flop_per_s == pytest.approx(median, rel=1e-9)
    assert summary.rows[0].stats.ceilings.flop_per_s["fp32"] != pytest.approx(median, rel=1e-3)  # the first group's


def test_a_summary_group_without_flops_is_noted_with_a_hint_summary_has(roofline_report, raw_actions):
    """The V100 miniWeather report: set_halo_values_x runs no FP instruction (its dfma/dadd/dmul/ffma/fadd/fmul
    counters read 0 with ncu_report), so the summary plot does not place it and notes why with a hint that applies
    to summary (its time is in the bars), not compare's --normalize, which summary has not. Its FP16 FLOPs are not
    measured in that set, so its intensity is not measured (not "no floating-point work": it may do FP16 math)."""
    name = "v100_miniweather-openacc_full"
    ops = [f"smsp__sass_thread_inst_executed_op_{p}{op}_pred_on.sum.per_cycle_elapsed" for p in "df"
           for op in ("add", "mul", "fma")]
    halo = [a for a in raw_actions(name) if a.name.startswith("set_halo_values_x")]
    assert halo and all(a.value(op) == 0 for a in halo for op in ops)
    summary = summarize(analyze_report(roofline_report(name)), "kernel", 10)
    (panel,) = summary_data(gpu_panels([summary])).panels
    why = {what.split(" ", 1)[1]: reason for what, reason in panel.skipped}
    assert why["set_halo_values_x_419_gpu"].startswith("no DRAM intensity (FLOPs not measured in full")
    assert all("--normalize" not in reason for reason in why.values())
    assert "re-profile with --set roofline" in why["set_halo_values_x_419_gpu"]  # a fix summary can act on
    assert any(b.label.endswith("set_halo_values_x_419_gpu") for b in panel.bars)


def test_a_summary_with_nothing_to_draw_gives_no_image(roofline_report):
    """The GH200 metrics report times no launch: no panel has a bar or a point, so the summary plot is None (the
    command refuses it) rather than empty axes; a report with bars alone is still drawn."""
    empty = summarize(analyze_report(roofline_report("gh200_silu_metrics")), "kernel", 10)
    assert not any(p.points or p.bars for p in summary_data(gpu_panels([empty])).panels)
    assert summary_plot(gpu_panels([empty]), "png") is None
    bars = summarize(analyze_report(roofline_report("rtx2070super_alife-143launches_basic")), "kernel", 5)
    assert (summary_plot(gpu_panels([bars]), "png") or b"")[:8] == PNG


def test_the_summary_bars_show_small_grid_time_as_its_own_category(roofline_report, raw_actions):
    """A10G blocktiling: three of its four kernels run about half a wave (ncu's "Small Grid"). The text counts their
    time apart as small grids; their bars were all blue, "not recoverable". Each bar now draws the time held by the
    units' peaks, then the small-grid time in its own colour and legend entry, then the recoverable time: the
    small-grid kernels' bars are their whole raw duration in that colour, one_blocktiling's is blue and orange."""
    from matplotlib.patches import Rectangle

    from roofline.render.compare.plot import BAR_KEY, SMALL_GRID_COLOR

    name = "a10g_sgemm-blocktiling_roofline"
    raw = {r.name: r["gpu__time_duration.sum"] * 1e-3 for r in raw_actions(name)}  # us, the bars' unit here
    summary = summarize(analyze_report(roofline_report(name)), "kernel", 10)
    fig = summary_figure(gpu_panels([summary]))
    bar_ax = next(ax for ax in fig.axes if ax.get_xlabel() == "time (us)")
    labels = {round(t.get_position()[1]): t.get_text() for t in bar_ax.get_yticklabels()}  # row -> its group
    from matplotlib.colors import to_hex

    green = to_hex(SMALL_GRID_COLOR)
    drawn: dict[int, list[tuple[str, float]]] = {}
    for p in bar_ax.patches:
        if isinstance(p, Rectangle) and p.get_width() > 0:
            drawn.setdefault(round(p.get_y() + p.get_height() / 2), []).append((to_hex(p.get_facecolor()),
                                                                                p.get_width()))
    assert len(labels) == len(raw) == 4
    for row, label in labels.items():
        kernel = next(k for k in raw if label.split(" ", 1)[1].startswith(k[:12]))  # names cut in the middle
        segments = drawn[row]
        if kernel == "one_blocktiling":
            assert green not in {c for c, _ in segments}
        else:
            assert segments == [(green, pytest.approx(raw[kernel], rel=1e-9))], kernel
    legend = [t.get_text() for t in bar_ax.get_legend().get_texts()]
    assert legend == [words for _, words in BAR_KEY] and "small grids (counted apart)" in legend
    assert text_problems(fig) == []
