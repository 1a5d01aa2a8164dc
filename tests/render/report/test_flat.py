"""Flat output, one row per launch and one column per JSON leaf: the CSV text (the header row first, the same
column names as the DataFrame, nulls empty with their reason in the missing.* column, no cell a spreadsheet would
run as a formula) and the pandas DataFrame."""

from __future__ import annotations

import csv
import io
import sys
from pathlib import Path

import pytest

import roofline
from roofline.analysis.launches import ReportAnalysis
from roofline.analysis.roofline import analyze_report
from roofline.errors import RooflineError
from roofline.pipeline import analyze_files
from roofline.render import CSV_MARKS, GENERATED_BY
from roofline.render.report import flat
from roofline.render.report import json as json_render
from tests import synthetic
from tests.views import views

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "h100-sxm_synthetic.roofline.json"


@pytest.fixture(scope="module")
def v100(shared_report):
    return analyze_files([shared_report("v100_miniweather-openacc_full")])


def parse(text: str) -> tuple[list[str], list[dict[str, str]]]:
    reader = csv.reader(io.StringIO(text, newline=""))
    header = next(reader)
    return header, [dict(zip(header, row, strict=True)) for row in reader]


def test_one_row_per_launch_one_column_per_json_leaf(v100):
    header, rows = parse(flat.render(views(v100)))
    doc = json_render.document(views(v100))["reports"][0]
    assert len(rows) == len(doc["kernels"]) == 5
    assert len(header) == len(set(header))
    for row, kernel in zip(rows, doc["kernels"], strict=True):
        leaves = flat.flatten(json_render.with_reasons(kernel, doc["reasons"]))  # a reason's text, not its index
        for path, value in leaves.items():
            if path.startswith(("hotspots", "missing.hotspots")):  # a table of its own, in the JSON only
                assert path not in row
                continue
            assert row[path] == ("" if value is None else str(value).lower() if isinstance(value, bool)
                                   else str(value)), path
        assert row["report.device.name"] == "Tesla V100-SXM2-32GB" and row["report.ceilings_used"] == "kernel-clock"


def test_units_are_in_the_dataframe_not_in_the_csv_header(v100):
    header, _ = parse(flat.render(views(v100)))
    units = {name: flat.unit(name, flat.rows(views(v100).reports)) for name in header}
    for column, unit in (("duration_s", "s"), ("flops.fp64", "FLOP"), ("flop_per_s.fp32", "FLOP/s"),
                         ("bytes.dram", "B"), ("bytes_per_s.l1", "B/s"), ("intensity.l2", "FLOP/B"),
                         ("pct_of_roof", "%"), ("ceilings.datasheet.dram_bytes_per_s", "B/s"),
                         ("time_share", "fraction"), ("report.device.max_clock_hz", "Hz")):
        assert column in header and units[column] == unit
    for text_column in ("name", "bound", "limiter", "missing.flops.fp16", "definitions.dram"):
        assert text_column in header and units[text_column] == ""


def test_null_is_an_empty_cell_with_its_reason(v100):
    _, rows = parse(flat.render(views(v100)))
    row = rows[0]
    assert row["flops.fp16"] == "" and row["missing.flops.fp16"].startswith("missing metrics")


def test_the_csv_starts_with_its_header_row_which_marks_it_as_ours(v100):
    text = flat.render(views(v100))
    assert text.startswith(CSV_MARKS[0]) and GENERATED_BY not in text.splitlines()[0]


def test_standard_readers_take_the_csv_as_it_is(v100, tmp_path):
    pandas = pytest.importorskip("pandas")
    path = tmp_path / "v100.csv"
    path.write_text(flat.render(views(v100)))
    frame, ours = pandas.read_csv(path), roofline.to_dataframe(v100)
    assert list(frame.columns) == list(ours.columns) and len(frame) == len(ours) == 5
    assert frame["flop_per_s.fp64"].tolist() == pytest.approx(ours["flop_per_s.fp64"].tolist(), nan_ok=True)
    with path.open(newline="") as fh:
        assert next(csv.DictReader(fh))["report.path"] == v100[0].report.path


def synthetic_analysis(name: str) -> ReportAnalysis:
    """One launch of a kernel with this name, analysed."""
    return analyze_report(synthetic.model("m.json", [synthetic.launch(0, name, 1e-3, 1e6, 1e6, synthetic.OLD_GPU)]))


@pytest.mark.parametrize("name", ["=HYPERLINK(\"http://example.invalid\",\"x\")", "+1+1", "-2+3", "@SUM(A1)",
                                  "\tcmd", "\rcmd"])
def test_a_kernel_name_that_a_spreadsheet_would_run_is_written_as_text(name):
    analysis = synthetic_analysis(name)
    _, rows = parse(flat.render(views([analysis])))
    assert rows[0]["name"] == "'" + name
    assert roofline.to_dataframe(analysis).loc[0, "name"] == name  # the DataFrame keeps the name as it is


def test_dataframe_has_the_same_rows_and_columns(v100):
    pandas = pytest.importorskip("pandas")
    frame = roofline.to_dataframe(v100[0])
    header, rows = parse(flat.render(views(v100)))
    assert list(frame.columns) == header and len(frame) == len(rows)
    k = v100[0].launches[2]
    assert frame.loc[2, "name"] == k.launch.name
    assert frame.loc[2, "flop_per_s.fp64"] == pytest.approx(k.flop_per_s["fp64"].value)
    assert pandas.isna(frame.loc[2, "flops.fp16"]) and frame.attrs["units"]["flops.fp16"] == "FLOP"
    assert len(roofline.to_dataframe([v100[0], analyze_files([EXAMPLE])[0]])) == 5 + 3


def test_dataframe_without_pandas_says_how_to_install_it(v100, monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas raises ImportError
    with pytest.raises(RooflineError) as err:
        roofline.to_dataframe(v100)
    assert str(err.value) == "to_dataframe needs pandas, which is not installed: pip install 'roofline[pandas]' " \
                             "(or pip install pandas)"
