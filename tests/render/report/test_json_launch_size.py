"""A launch's block and grid size where the report lacks the per-dimension launch metrics (older ncu, the basic
set of some versions: ``launch__block_size`` 256 and no ``launch__block_dim_*``): ``block_size`` / ``grid_size`` in
the JSON, the table's launch column and the occupancy what-if's block come from the totals, checked against the
values read with ncu_report directly."""

from __future__ import annotations

import json
import math

import msgspec

from roofline.core.model import Report
from roofline.ncu.metrics import BLOCK_DIMS, GRID_DIMS, launch_size
from roofline.pipeline import analyze_loaded
from roofline.render.report import json as json_render
from tests.views import views

REPORT = "rtx2080ti_kernels_basic"  # basic set, two launches: kernel_A (256000 x 64), kernel_C


def without_dimensions(report: Report) -> Report:
    """The report as an ncu that stores only the totals writes it: no per-dimension metric, no grid or block."""
    dims = {*GRID_DIMS, *BLOCK_DIMS}
    launches = tuple(msgspec.structs.replace(la, grid=None, block=None,
                                         metrics={k: v for k, v in la.metrics.items() if k not in dims})
                     for la in report.launches)
    return msgspec.structs.replace(report, launches=launches)


def kernels(report: Report) -> list[dict]:
    doc = json.loads(json_render.render(views([analyze_loaded(report)])))
    reasons = doc["reports"][0]["reasons"]
    return [{**k, "missing": {p: reasons[i] for p, i in k["missing"].items()}} for k in doc["reports"][0]["kernels"]]


def test_sizes_equal_ncu_report_values_with_and_without_the_dimensions(roofline_report, raw_actions):
    raw = raw_actions(REPORT)
    expected = [(math.prod(int(a[d]) for d in GRID_DIMS), math.prod(int(a[d]) for d in BLOCK_DIMS)) for a in raw]
    assert expected == [(int(a["launch__grid_size"]), int(a["launch__block_size"])) for a in raw]
    report = roofline_report(REPORT)
    for doc in (kernels(report), kernels(without_dimensions(report))):
        assert [(k["grid_size"], k["block_size"]) for k in doc] == expected


def test_without_dimensions_block_is_null_with_the_total_named(roofline_report, raw_actions):
    stripped = without_dimensions(roofline_report(REPORT))
    first = raw_actions(REPORT)[0]
    k = kernels(stripped)[0]
    assert k["block"] is None and k["grid"] is None
    assert k["missing"]["block"] == ("launch__block_dim_* not in the report (an older ncu or section set): "
                                     f"block_size holds the total, {int(first['launch__block_size'])}")
    assert launch_size(stripped.launches[0], "block") == int(first["launch__block_size"])


def test_without_dimensions_occupancy_still_has_the_block(roofline_report, raw_actions):
    stripped = without_dimensions(roofline_report(REPORT))
    analysis = analyze_loaded(stripped)
    full = analyze_loaded(roofline_report(REPORT))
    first = raw_actions(REPORT)[0]
    occupancy = [la.occupancy for la in (analysis.launches[0], full.launches[0])]
    advice = [[a.title for a in la.advice] for la in (analysis.launches[0], full.launches[0])]
    assert advice[0] == advice[1]
    assert all(o is not None for o in occupancy)
    assert occupancy[0] == occupancy[1]
    assert analysis.launches[0].block_size == int(first["launch__block_size"])
