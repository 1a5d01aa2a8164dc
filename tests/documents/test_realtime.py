"""The realtime document (summary --nsys) as typed structs, from the shipped H100 reports and their nsys export: its
kind, every analysed kernel with its real time, and the builtins what the text reads back."""

from __future__ import annotations

import json
from pathlib import Path

from msgspec.structs import replace

import roofline
from roofline.compare import realtime
from roofline.compare.realtime import NcuKernel, weigh
from roofline.core.model import Report
from roofline.core.timeline import KernelTime
from roofline.documents.common import builtins
from roofline.documents.realtime import NO_NCU_TIME, RealtimeJson, real_kernel, realtime_json
from roofline.nsys.load import load_timeline
from roofline.pipeline import AnalysisOptions, analyze_files, analyze_loaded
from roofline.render.names import json_text

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_the_shipped_pair_gives_a_realtime_document() -> None:
    analyses = analyze_files(sorted((EXAMPLES / "h100").glob("*.roofline.*")), AnalysisOptions())
    view = weigh(analyses, load_timeline(EXAMPLES / "nsys" / "h100-examples.sqlite", None))
    doc = realtime_json(view)
    assert isinstance(doc, RealtimeJson) and doc.kind == "realtime" and doc.kernels
    assert all(k.total_s > 0 and k.count > 0 for k in doc.kernels)
    assert builtins(doc) == json.loads(json_text(doc))


def test_a_kernel_without_an_ncu_time_is_null_with_reasons_not_zero() -> None:
    ncu = NcuKernel("k", 2, None, None, None, None, None)
    row = real_kernel(realtime.real_kernel(ncu, KernelTime("k", 2, 4e-6, 2e-6, 2e-6, 2e-6, (0,)), "name", 0.5))
    assert row.ncu_total_s is None and row.ncu_over_nsys is None and row.recoverable_real_s is None
    assert row.missing["ncu_total_s"] == row.missing["ncu_over_nsys"] == NO_NCU_TIME
    assert set(row.missing) == {"ncu_total_s", "recoverable_share", "recoverable_real_s", "small_grid_s", "bound",
                                "pct_of_roof", "ncu_over_nsys"}


def _without_times(report: Report) -> Report:
    """The report with every metric a launch's time is read or derived from taken out."""
    def timeless(name: str) -> bool:
        return "time" in name or name.endswith(("elapsed.sum", "elapsed.max")) or "elapsed.avg.per" in name

    return replace(report, launches=tuple(
        replace(k, metrics={n: v for n, v in k.metrics.items() if not timeless(n)}) for k in report.launches))


def test_a_kernel_of_the_shipped_pair_without_an_ncu_time_is_null_with_its_reasons() -> None:
    """The CuPy triad's report without its time metrics beside the others and the nsys export of the same run: the
    triad is matched, and its ncu time, ncu/nsys ratio and recoverable figures are null (they were 0) with reasons."""
    paths = sorted((EXAMPLES / "h100").glob("*.roofline.*"))
    options = AnalysisOptions()
    analyses = [analyze_loaded(_without_times(roofline.load(p)) if p.name == "triad-cupy.roofline.ncu-rep" else
                               roofline.load(p), options) for p in paths]
    doc = realtime_json(weigh(analyses, load_timeline(EXAMPLES / "nsys" / "h100-examples.sqlite", None)))
    (triad,) = [k for k in doc.kernels if k.name == "triad"]
    assert triad.ncu_total_s is None and triad.ncu_over_nsys is None and triad.recoverable_real_s is None
    assert triad.missing["ncu_total_s"] == triad.missing["ncu_over_nsys"] == NO_NCU_TIME
    assert {f for f in triad.__struct_fields__ if getattr(triad, f) is None} == set(triad.missing)
    assert triad.total_s > 0  # nsys timed it
