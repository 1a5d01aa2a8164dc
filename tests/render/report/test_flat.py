"""Flat output, one row per launch and one column per JSON leaf: the CSV text (units in the header, nulls empty
with their reason in the missing.* column) and the pandas DataFrame."""

from __future__ import annotations

import csv
import io
import sys
from pathlib import Path

import pytest

from roofline.errors import RooflineError
from roofline.pipeline import analyze_files
from roofline.render import GENERATED_BY
from roofline.render.report import flat
from roofline.render.report import json as json_render

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "h100-sxm_synthetic.roofline.json"


@pytest.fixture(scope="module")
def v100(shared_report):
    return analyze_files([shared_report("v100_miniweather-openacc_full")])


def parse(text: str) -> tuple[list[str], list[dict[str, str]]]:
    lines = [line for line in text.splitlines() if not line.startswith("#")]
    reader = csv.reader(io.StringIO("\n".join(lines)))
    header = next(reader)
    return header, [dict(zip(header, row, strict=True)) for row in reader]


def test_one_row_per_launch_one_column_per_json_leaf(v100):
    header, rows = parse(flat.render(v100))
    doc = json_render.document(v100)["reports"][0]
    assert len(rows) == len(doc["kernels"]) == 5
    names = [h.split(" [")[0] for h in header]
    assert len(names) == len(set(names))
    for row, kernel in zip(rows, doc["kernels"], strict=True):
        leaves = flat.flatten(json_render.with_reasons(kernel, doc["reasons"]))  # a reason's text, not its index
        for path, value in leaves.items():
            column = next(h for h in header if h.split(" [")[0] == path)
            assert row[column] == ("" if value is None else str(value).lower() if isinstance(value, bool)
                                   else str(value)), path
        assert row["report.device.name"] == "Tesla V100-SXM2-32GB" and row["report.ceilings_used"] == "kernel-clock"


def test_units_in_the_header(v100):
    header, _ = parse(flat.render(v100))
    for column in ("duration_s [s]", "flops.fp64 [FLOP]", "flops.fp16 [FLOP]", "flop_per_s.fp32 [FLOP/s]",
                   "bytes.dram [B]", "bytes_per_s.l1 [B/s]", "intensity.l2 [FLOP/B]", "pct_of_roof [%]",
                   "utilization_pct.dram [%]", "ceilings.datasheet.dram_bytes_per_s [B/s]", "time_share [fraction]",
                   "report.device.max_clock_hz [Hz]", "report.total_time_s [s]", "occupancy.theoretical_pct [%]"):
        assert column in header
    for text_column in ("name", "bound", "limiter", "missing.flops.fp16", "definitions.dram"):
        assert text_column in header  # no unit for text


def test_null_is_an_empty_cell_with_its_reason(v100):
    _, rows = parse(flat.render(v100))
    row = rows[0]
    assert row["flops.fp16 [FLOP]"] == "" and row["missing.flops.fp16"].startswith("missing metrics")


def test_generator_mark_is_a_comment_line(v100):
    assert flat.render(v100).splitlines()[0] == f"# {flat.GENERATOR}" and GENERATED_BY in flat.GENERATOR


def test_dataframe_has_the_same_rows_and_columns(v100):
    pandas = pytest.importorskip("pandas")
    frame = flat.to_dataframe(v100[0])
    header, rows = parse(flat.render(v100))
    assert list(frame.columns) == [h.split(" [")[0] for h in header] and len(frame) == len(rows)
    k = v100[0].launches[2]
    assert frame.loc[2, "name"] == k.launch.name
    assert frame.loc[2, "flop_per_s.fp64"] == pytest.approx(k.flop_per_s["fp64"].value)
    assert pandas.isna(frame.loc[2, "flops.fp16"]) and frame.attrs["units"]["flops.fp16"] == "FLOP"
    assert len(flat.to_dataframe([v100[0], analyze_files([EXAMPLE])[0]])) == 5 + 3


def test_dataframe_without_pandas_says_how_to_install_it(v100, monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas raises ImportError
    with pytest.raises(RooflineError) as err:
        flat.to_dataframe(v100)
    assert str(err.value) == "to_dataframe needs pandas, which is not installed: pip install 'roofline[pandas]' " \
                             "(or pip install pandas)"
