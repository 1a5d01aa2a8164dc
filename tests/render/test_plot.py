"""Roofline plot: what is drawn (roofs, ceilings, ridge points, kernel points) and the files it writes."""

from __future__ import annotations

import statistics
from pathlib import Path

import pytest

import roofline
from roofline.analysis import analyze_report
from roofline.choices import CeilingsChoice
from roofline.pipeline import AnalysisOptions, analyze_files
from roofline.render import GENERATED_BY, plot
from roofline.results import ReportAnalysis

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "h100-sxm_synthetic.roofline.json"
_CACHE: dict[tuple[str, str], ReportAnalysis] = {}


@pytest.fixture
def analysed(shared_report):
    """``analysed(report, ceilings="auto")``: the report analysed as `roofline report` does, cached."""
    def get(report: str, ceilings: CeilingsChoice = "auto") -> ReportAnalysis:
        if (report, ceilings) not in _CACHE:
            _CACHE[report, ceilings] = analyze_files([shared_report(report)], AnalysisOptions(ceilings=ceilings))[0]
        return _CACHE[report, ceilings]
    return get


@pytest.fixture(scope="module")
def example():
    return analyze_report(roofline.load(EXAMPLE))


def _series(panel, name):
    return next(s for s in (*panel.series, *panel.other) if s.name == name)


def test_roofs_and_ceilings_come_from_the_ceilings_in_use(analysed):
    a = analysed("v100_miniweather-openacc_full", "spec")
    p = plot.plot_data([a]).panels[0]
    spec = a.launches[0].ceilings["spec"]
    assert p.ceilings_used == "spec" and "datasheet ceilings (spec v100-sxm2)" in p.title
    assert [(r.level, r.bytes_per_s) for r in p.roofs if r.source == "spec"] == [("dram", spec.bytes_per_s["dram"])]
    # the kernels use FP64 and FP32 only; each ridge point is peak / bandwidth
    assert {c.precision: c.flop_per_s for c in p.ceilings} == {"fp64": spec.flop_per_s["fp64"],
                                                               "fp32": spec.flop_per_s["fp32"]}
    fp64 = next(c for c in p.ceilings if c.precision == "fp64")
    assert fp64.ridges["dram"] == pytest.approx(7.8e12 / 900e9)
    assert "FP64 7.8 TFLOP/s" in fp64.label and "DRAM ridge 8.67 FLOP/B" in fp64.label


def test_single_launch_points_are_the_analysis_values(analysed):
    a = analysed("v100_miniweather-openacc_full")
    k = next(k for k in a.launches if k.launch.name == "compute_tendencies_x_279_gpu")
    s = _series(plot.plot_data([a]).panels[0], "compute_tendencies_x_279_gpu")
    rate = sum(v.value for v in k.flop_per_s.values() if v.value is not None)
    assert [pt.level for pt in s.points] == ["dram", "l2", "l1"]
    for pt in s.points:
        assert pt.intensity == pytest.approx(k.intensity[pt.level].value)
        assert pt.flop_per_s == pytest.approx(rate)


def test_launches_of_one_kernel_are_pooled(analysed):
    a = analysed("gh200_silu_full-roofline")
    launches = [k for k in a.launches if k.launch.name == "silu_kernel_non_strided"]
    s = _series(plot.plot_data([a]).panels[0], "silu_kernel_non_strided")
    flops = sum(k.total_flops for k in launches)
    assert s.launches == 2
    assert s.points[0].flop_per_s == pytest.approx(flops / sum(k.duration_s.value for k in launches))
    assert s.points[0].intensity == pytest.approx(flops / sum(k.bytes["dram"].value for k in launches))


def test_by_default_the_roofs_are_those_at_the_kernels_clocks(analysed):
    a = analysed("v100_miniweather-openacc_full")
    p = plot.plot_data([a]).panels[0]
    clock = plot.median_ceilings(a.launches, "clock")
    assert p.ceilings_used == "clock" and "kernel-clock ceilings" in p.title
    assert {c.precision: c.flop_per_s for c in p.ceilings} == {"fp64": clock.flop_per_s["fp64"],
                                                               "fp32": clock.flop_per_s["fp32"]}


def test_level_without_datasheet_bandwidth_takes_the_measured_clock_roof(analysed):
    a = analysed("gh200_silu_full-roofline", "spec")
    roofs = {r.level: r for r in plot.plot_data([a]).panels[0].roofs}
    measured = plot.median_ceilings(a.launches, "report")
    assert roofs["dram"].source == "spec"
    assert roofs["l2"].source == "report" and roofs["l2"].bytes_per_s == measured.bytes_per_s["l2"]


def test_measured_clock_ceilings_are_medians(analysed):
    a = analysed("h100-pcie_rmsnorm-float4_full-roofline", "report")
    p = plot.plot_data([a]).panels[0]
    fp32 = next(c for c in p.ceilings if c.precision == "fp32")
    assert fp32.flop_per_s == statistics.median(k.ceilings["report"].flop_per_s["fp32"] for k in a.launches)
    assert "measured-clock ceilings (measured SM clock" in p.title


def test_memory_only_kernels_are_listed_not_drawn(analysed):
    p = plot.plot_data([analysed("v100_miniweather-openacc_full")]).panels[0]
    assert any(x.startswith("set_halo_values_x_396_gpu: no FLOPs counted") for x in p.skipped)


def test_top_n_and_other(example):
    p = plot.plot_data([example], top=1).panels[0]
    assert [s.name for s in p.series] == ["sgemm_fp32_4096"]  # the longest kernel
    assert {s.name for s in p.other} == {"triad_fp32", "gemm_bf16_tensor_4096"}
    assert all(s.color == -1 for s in p.other)
    assert p.other_share == pytest.approx(sum(g.time_share for g in example.groups[1:]))


def test_tensor_ceiling_is_for_the_type_the_kernels_use(example):
    p = plot.plot_data([example]).panels[0]
    tensor = next(c for c in p.ceilings if c.precision == "tensor")
    assert tensor.label.startswith("Tensor (BF16)")


@pytest.mark.parametrize("fmt, magic", [("png", b"\x89PNG"), ("svg", b"<?xml"), ("pdf", b"%PDF")])
def test_draw_formats_carry_the_generator_mark(example, fmt, magic):
    data = plot.draw(plot.plot_data([example]), fmt)
    assert data.startswith(magic) and GENERATED_BY.encode() in data


def test_svg_is_reproducible_and_inline_svg_has_no_urls(example):
    d = plot.plot_data([example])
    assert plot.draw(d, "svg") == plot.draw(d, "svg")
    svg = plot.inline_svg(d)
    assert svg.startswith("<svg") and "http" not in svg


def test_empty_report_list_still_draws():
    assert plot.draw(plot.PlotData(()), "png").startswith(b"\x89PNG")


def test_plot_data_says_when_a_level_counts_one_direction_only(analysed):
    """GH200 distribution_elementwise: L2 (L2 -> SM returns) below DRAM, said beside the points."""
    s = _series(plot.plot_data([analysed("gh200_silu_full-roofline")]).panels[0],
                "distribution_elementwise_grid_stride_kernel")
    assert s.level_notes and s.level_notes[0].startswith("L2 bytes count L2 -> SM returns (loads), not stores")
