"""Flat output: the CSV text in long form (the header row first, one row per launch and quantity under the same
columns for every report, nulls empty with their reason, no cell a spreadsheet would run as a formula) and the
pandas DataFrame, one row per launch and one column per JSON leaf."""

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


def rows_of(analyses) -> list[dict[str, str]]:
    return parse(flat.render(views(analyses)))[1]


def test_the_csv_has_one_row_per_launch_and_json_leaf_under_fixed_columns(v100):
    header, rows = parse(flat.render(views(v100)))
    assert tuple(header) == flat.LONG_COLUMNS
    doc = json_render.document(views(v100))["reports"][0]
    for k, kernel in zip(v100[0].launches, doc["kernels"], strict=True):
        mine = {r["quantity"]: r for r in rows if r["launch"] == k.launch.key}
        assert len(mine) == len([r for r in rows if r["launch"] == k.launch.key])  # each quantity once per launch
        assert float(mine["duration_s"]["value"]) == pytest.approx(kernel["duration_s"])
        assert mine["duration_s"]["unit"] == "s" and mine["flops.fp64"]["unit"] == "FLOP"
        assert mine["name"]["text"] == kernel["name"] == mine["name"]["kernel"]
        assert [mine[f"grid.{axis}"]["value"] for axis in "xyz"] == [str(n) for n in kernel["grid"]]
        assert all(r["report.device"] == "Tesla V100-SXM2-32GB" for r in mine.values())
    report_rows = {r["quantity"]: r for r in rows if not r["launch"]}
    assert report_rows["report.ceilings_used"]["text"] == "kernel-clock"


def test_list_items_are_named_by_their_key_not_their_position(v100):
    quantities = {r["quantity"] for r in rows_of(v100)}
    assert not [q for q in quantities if "[" in q or any(part.isdigit() for part in q.split("."))]
    stalls = {q for q in quantities if q.startswith("stalls.reasons.")}
    assert stalls and all(q.endswith((".value", ".share")) for q in stalls)


def test_time_model_terms_are_named_by_their_key_and_their_seconds_have_a_unit(v100):
    """A term's kind repeats (every unit term is "unit"): named by it, "unit#3" was L2 in one report and ADU in
    another. Each term's rows are named by its key (DRAM, issue, tail...), the key of the JSON's term."""
    rows = rows_of(v100)
    doc = json_render.document(views(v100))["reports"][0]
    for launch, kernel in zip(v100[0].launches, doc["kernels"], strict=True):
        seconds = {r["quantity"].removeprefix("time_model.terms.").removesuffix(".seconds"): r for r in rows
                   if r["launch"] == launch.launch.key and r["quantity"].startswith("time_model.terms.")
                   and r["quantity"].endswith(".seconds")}
        assert set(seconds) == {t["key"] for t in kernel["time_model"]["terms"]}
        assert all(r["unit"] == "s" for r in seconds.values())


def test_a_null_ceiling_has_its_reason_on_its_own_row(v100):
    """A ceiling set keys its reasons by roof (``missing.l2``): in the CSV each goes to the row of the null it
    explains (``ceilings.datasheet.l2_bytes_per_s``), not to a row of its own."""
    rows = [r for r in rows_of(v100) if r["quantity"].startswith("ceilings.")]
    nulls = [r for r in rows if r["quantity"].endswith("_per_s") and not r["value"]]
    assert nulls and all(r["missing"] for r in nulls)
    assert not [r for r in rows if ".missing." in r["quantity"]]

def test_null_has_an_empty_value_and_its_reason(v100):
    row = next(r for r in rows_of(v100) if r["quantity"] == "flops.fp16")
    assert row["value"] == row["text"] == "" and row["missing"].startswith("missing metrics")


def test_a_null_advice_estimate_has_its_reason_on_its_named_row(v100):
    """An advice item is named by its topic; the reason its estimate is null (keyed by position in the JSON's
    ``missing``) sits on that row, not on a row of its own."""
    doc = json_render.document(views(v100))["reports"][0]
    by_row = {(r["launch"], r["quantity"]): r for r in rows_of(v100)}
    checked = 0
    for k, kernel in zip(v100[0].launches, doc["kernels"], strict=True):
        for i, item in enumerate(kernel["advice"]):
            reason = kernel["missing"].get(f"advice[{i}].est_saved_s")
            if item["est_saved_s"] is None and reason is not None:
                row = by_row[(k.launch.key, f"advice.{item['topic']}.est_saved_s")]
                assert row["value"] == "" and row["missing"] == doc["reasons"][reason]
                checked += 1
    assert checked


def test_the_csv_starts_with_its_header_row_which_marks_it_as_ours(v100):
    text = flat.render(views(v100))
    assert text.startswith(CSV_MARKS[0]) and GENERATED_BY not in text.splitlines()[0]


def test_csvs_of_two_different_reports_stack(v100, tmp_path):
    pandas = pytest.importorskip("pandas")
    other = analyze_files([EXAMPLE])
    paths = [tmp_path / "v100.csv", tmp_path / "h100.csv"]
    for path, analyses in zip(paths, (v100, other), strict=True):
        path.write_text(flat.render(views(analyses)))
    frames = [pandas.read_csv(p) for p in paths]  # no options
    assert list(frames[0].columns) == list(frames[1].columns) == list(flat.LONG_COLUMNS)
    stacked = pandas.concat(frames, ignore_index=True)
    assert stacked["value"].dtype.kind == "f"
    assert not stacked.duplicated(["report.path", "launch", "quantity"]).any()
    wide = stacked.pivot_table(index=["report.path", "launch"], columns="quantity", values="value")
    assert len(wide) == 5 + 3
    assert wide.loc[(str(EXAMPLE), "0:0"), "duration_s"] == pytest.approx(other[0].launches[0].duration_s.value)
    with paths[1].open(newline="") as fh:
        assert {r["report.path"] for r in csv.DictReader(fh)} == {str(EXAMPLE)}


def synthetic_analysis(name: str) -> ReportAnalysis:
    """One launch of a kernel with this name, analysed."""
    return analyze_report(synthetic.model("m.json", [synthetic.launch(0, name, 1e-3, 1e6, 1e6, synthetic.OLD_GPU)]))


@pytest.mark.parametrize("name", ["=HYPERLINK(\"http://example.invalid\",\"x\")", "+1+1", "-2+3", "@SUM(A1)",
                                  "\tcmd", "\rcmd"])
def test_a_kernel_name_that_a_spreadsheet_would_run_is_written_as_text(name):
    analysis = synthetic_analysis(name)
    row = next(r for r in rows_of([analysis]) if r["quantity"] == "name")
    assert row["kernel"] == row["text"] == "'" + name
    assert roofline.to_dataframe(analysis).loc[0, "name"] == name  # the DataFrame keeps the name as it is


def test_dataframe_has_the_same_rows_and_columns(v100):
    pandas = pytest.importorskip("pandas")
    frame = roofline.to_dataframe(v100[0])
    assert len(frame) == len(v100[0].launches) and "flop_per_s.fp64" in frame.columns
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


def test_instruction_roofline_quantities_carry_instruction_units_not_flop_per_byte(v100):
    """The instruction roofline's intensities are warp instructions per 32-byte transaction and its integer ones
    instructions per byte (docs/json-schema.md): only FLOP-per-byte intensities are called FLOP/B."""
    rows = [r for r in rows_of(v100) if r["value"]]
    units = {r["quantity"]: r["unit"] for r in rows}
    assert units["intensity.dram"] == "FLOP/B"
    assert units["instruction_roofline.intensity.dram"] == "warp instructions/transaction"
    assert units["instruction_roofline.integer.intensity.dram"] == "instructions/B"
    assert units["instruction_roofline.warp_gips"] == "1e9 warp instructions/s"
    assert units["instruction_roofline.transactions.l2"] == "transactions"
    assert not [q for q, u in units.items() if q.startswith("instruction_roofline.") and u == "FLOP/B"]
