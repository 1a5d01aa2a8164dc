"""The report document as typed structs: frozen, built by pure functions from the view (the same view gives an
equal document), its reasons numbered once per report in the order they appear, its builtins the text read back."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest

from roofline.analysis.roofline import analyze_report
from roofline.documents.common import SCHEMA_VERSION, builtins
from roofline.documents.report import Kernel, ReportJson, report_json, with_reasons
from roofline.ncu.reader import load_report
from roofline.render.names import json_text
from roofline.render.report.json import WORDS
from tests.views import views

MODEL = Path(__file__).resolve().parents[2] / "examples" / "h100" / "torch-fp32.roofline.json"


@pytest.fixture(scope="module")
def doc() -> ReportJson:
    return report_json(views([analyze_report(load_report(MODEL))]), WORDS)


def test_the_document_is_a_tree_of_frozen_structs(doc: ReportJson) -> None:
    kernel = doc.reports[0].kernels[0]
    assert isinstance(kernel, Kernel) and doc.schema_version == SCHEMA_VERSION
    with pytest.raises(AttributeError):
        kernel.name = "other"  # type: ignore[misc]


def test_one_view_gives_one_document(doc: ReportJson) -> None:
    again = report_json(views([analyze_report(load_report(MODEL))]), WORDS)
    assert again == doc


def test_the_builtins_are_what_the_text_reads_back(doc: ReportJson) -> None:
    assert builtins(doc) == json.loads(json_text(doc))
    assert "left_out" not in builtins(doc) and "across_reports" not in builtins(doc)


def test_each_null_has_its_reason_each_stated_once(doc: ReportJson) -> None:
    report = doc.reports[0]
    assert len(set(report.reasons)) == len(report.reasons)
    used = sorted({i for k in report.kernels for i in k.missing.values()})
    assert used and used[0] == 0
    kernel = with_reasons(builtins(report.kernels[0]), report.reasons)
    assert all(isinstance(text, str) and text for text in kernel["missing"].values())
    assert kernel["ceilings"]["datasheet"] is None or all(
        isinstance(t, str) for t in kernel["ceilings"]["datasheet"]["missing"].values())


def test_the_document_decodes_back_into_its_type(doc: ReportJson) -> None:
    assert msgspec.json.decode(json_text(doc), type=ReportJson) == doc


def test_the_what_if_fields_of_an_advised_launch_are_in_the_document() -> None:
    """A diagnosed launch's combined what-if and its items' overlap, kept bytes and peak source are in the document,
    a null with its reason."""
    from msgspec import structs

    from roofline.analysis.results import ModelChange
    from roofline.pipeline import diagnose_all

    analysis = diagnose_all(analyze_report(load_report(MODEL)), None)
    launch = next(k for k in analysis.launches if k.advice)
    change = ModelChange((("DRAM", 0.5),), "DRAM", 2e-3, "DRAM", 1e-3, kept_bytes=(("dram", 4096.0),),
                         peak_source="0.85 x the datasheet's 2000 GB/s")
    item = structs.replace(launch.advice[0], overlapping=True, change=change)
    advised = structs.replace(launch, advice=(item,), combined_saved_s=2e-4, combined_floor_s=None)
    report = report_json(views([analysis.with_rows([advised])]), WORDS).reports[0]
    kernel = report.kernels[0]
    assert kernel.advice[0].overlapping and kernel.advice[0].kept_bytes == {"dram": 4096.0}
    assert kernel.advice[0].peak_source == "0.85 x the datasheet's 2000 GB/s"
    assert kernel.combined_saved_s == 2e-4 and kernel.combined_floor_s is None
    assert report.reasons[kernel.missing["combined_floor_s"]] == "no advice item with an estimated saving"


def test_the_occupancy_and_stall_nulls_of_a_launch_ncu_could_not_measure_have_their_reasons(shared_report,
                                                                                             raw_actions) -> None:
    """H800 flash_fwd_kernel: ncu stored NaN for its time and stall metrics and no launch__* attributes (read with
    ncu_report): every null of its occupancy and stalls (blocks per SM, warps per block, the tail, the calculator,
    the stalls' source) has its reason under ``missing``, keyed by its path, and that reason says ncu stored NaN."""
    import math

    from roofline.pipeline import analyze_files

    raw = next(r for r in raw_actions("h800_flash-attn-fwd_full") if r.name == "flash_fwd_kernel")
    assert math.isnan(raw.values["gpu__time_duration.sum"])
    assert not any(name.startswith("launch__") for name in raw.values)
    view = views(analyze_files([shared_report("h800_flash-attn-fwd_full")]))
    report = builtins(report_json(view, WORDS).reports[0])
    kernel = with_reasons(next(k for k in report["kernels"] if k["name"] == "flash_fwd_kernel"), report["reasons"])
    for part in ("occupancy", "stalls"):
        for key, value in kernel[part].items():
            if value is None:
                assert "stored NaN" in kernel["missing"][f"{part}.{key}"], (part, key)
    assert kernel["occupancy"]["calculator"] is None and kernel["stalls"]["source"] is None


def test_a_timed_group_without_a_verdict_has_a_null_small_grid_time_with_its_reason(shared_report,
                                                                                      raw_actions) -> None:
    """RTX 5060 Ti transpose, a metrics-only report: every valid launch has a time in the raw report (ncu_report)
    and none a SpeedOfLight throughput, so the group's small_grid_s is null (not 0) and its reason says that no
    launch has a verdict, as each launch's null bound does."""
    from roofline.pipeline import analyze_files

    name = "rtx5060ti_transpose-occupancy-45launches_metrics"
    timed = [r for r in raw_actions(name) if r.has("gpu__time_duration.sum")]
    assert timed and not any(r.has("gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed") for r in timed)
    report = builtins(report_json(views(analyze_files([shared_report(name)])), WORDS).reports[0])
    (group,) = report["groups"]
    assert group["count"] == len(timed) and group["total_s"] is not None and group["small_grid_s"] is None
    reason = report["reasons"][group["missing"]["small_grid_s"]]
    kernel = report["kernels"][0]
    assert kernel["bound"] is None
    assert reason == ("no launch of the group has a verdict, so whether it is a small grid is not known: "
                      + report["reasons"][kernel["missing"]["bound"]])


def test_an_intensity_of_unmeasured_flops_is_null_with_its_reason_and_a_partial_one_says_what_it_leaves_out(
        shared_report, raw_actions) -> None:
    """A40 julia (full set of ncu 2022.4, no half-precision instruction counters): julia__5_11155 is a Float16x2
    kernel whose FP64, FP32 and Tensor counts are 0 and whose FP16 is not measured; its intensity read "0 FLOP/byte",
    a complete-looking figure. It is null now, its reason naming FP16 and the option that measures it. julia_frb_5885
    counts FP32 and Tensor FLOPs: its intensity is theirs over the DRAM bytes (raw), with ``intensity_leaves_out``
    naming FP16, so a reader knows it is a lower bound."""
    from roofline.pipeline import analyze_files
    from roofline.render.report.json import report_dict

    name = "a40_julia-fp16x2_full"
    raws = raw_actions(name)
    assert not any(r.has("smsp__sass_thread_inst_executed_op_hfma_pred_on.sum") for r in raws)
    report = report_dict(views(analyze_files([shared_report(name)])).reports[0])
    kernels = {k["name"]: k for k in report["kernels"]}
    fp16 = kernels["julia__5_11155"]
    assert fp16["flops"]["fp16"] is None and fp16["flops"]["fp32"] == 0.0 and fp16["intensity"]["dram"] is None
    reason = report["reasons"][fp16["missing"]["intensity.dram"]]
    assert reason.startswith("FLOPs not measured in full: the measured precisions count none") and "FP16" in reason
    assert "--set roofline" in reason and fp16["intensity_leaves_out"] == []
    frb = kernels["julia_frb_5885"]
    raw = next(r for r in raws if r.name == "julia_frb_5885")
    dram = raw["dram__bytes_read.sum"] + raw["dram__bytes_write.sum"]
    counted = frb["flops"]["fp32"] + frb["flops"]["tensor"]
    assert frb["intensity"]["dram"] == pytest.approx(counted / dram, rel=1e-6)
    assert frb["intensity_leaves_out"] == ["fp16"] and "intensity.dram" not in frb["missing"]
