"""Each launch's row of the store holds the figures of the report document: checked against `roofline report -f
json` of the same file, run apart through the command line (its work, time, roofs, verdict, time model, advice and
savings, the reasons of its nulls), and the time to gain against `summary -f json`."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from roofline.cli.app import app
from roofline.store.query import query
from roofline.store.rows import COLUMN_PATHS, NO_REASON, gpu_slug

runner = CliRunner()


def report_json(path: Path) -> dict[str, Any]:
    result = runner.invoke(app, ["report", str(path), "-f", "json"])
    assert result.exit_code == 0, result.output
    doc: dict[str, Any] = json.loads(result.stdout)
    return doc


def same(a: float | None, b: float | None) -> bool:
    return (a is None and b is None) or (a is not None and b is not None and math.isclose(a, b, rel_tol=1e-12))


def test_every_launch_row_holds_the_report_documents_figures(collected: tuple[Path, list[Path]]) -> None:
    store, paths = collected
    for path in paths:
        doc = report_json(path)["reports"][0]
        rows = query(store, f"SELECT * FROM launches WHERE path = '{path.resolve()}' ORDER BY launch").to_pylist()
        assert len(rows) == len(doc["kernels"]) > 0
        for row, k in zip(rows, doc["kernels"], strict=True):
            roofs = k["ceilings"][k["ceilings_used"]]  # the launch's own: kernel-clock roofs follow its clock
            assert (row["function"], row["demangled_name"], row["device"]) == (k["name"], k["demangled_name"],
                                                                             doc["device"]["name"])
            assert row["gpu"] == gpu_slug(doc["device"]["name"]) and row["bound"] == k["bound"]
            for key in ("duration_s", "time_share", "pct_of_roof", "recoverable_s", "combined_saved_s"):
                assert same(row[key], k[key]), (path.name, key)
            for p in ("fp64", "fp32", "fp16", "tensor"):
                assert same(row[f"flops_{p}"], k["flops"][p])
                assert same(row[f"roof_{p}_flop_per_s"], roofs[f"{p}_flop_per_s"])
            for level in ("dram", "l2", "l1"):
                assert same(row[f"roof_{level}_bytes_per_s"], roofs[f"{level}_bytes_per_s"])
                assert same(row[f"bytes_{level}"], k["bytes"][level])
                assert same(row[f"intensity_{level}"], k["intensity"][level])
            assert same(row["sm_pct"], k["verdict"]["sm_pct"]) and row["verdict"] == k["verdict"]["text"]
            model = k["time_model"]
            assert same(row["floor_s"], model["floor_s"] if model else None)
            assert [t["seconds"] for t in row["terms"]] == [t["seconds"] for t in (model["terms"] if model else [])]
            reasons = dict(row["missing"])
            terms = {key: why for key, why in reasons.items() if key.startswith("terms[")}
            columns = {key: why for key, why in reasons.items() if key not in terms}
            assert {c for c, v in row.items() if v is None} == set(columns)  # every null column, by its name
            assert NO_REASON not in reasons.values()
            assert set(terms) == {f"terms[{n}].{field}" for n, term in enumerate(row["terms"], start=1)
                                  for field, value in term.items() if value is None}  # as SQL counts: from 1
            for key, why in terms.items():  # the document's reason for that term's field
                n, field = key.removeprefix("terms[").split("].")
                assert why == doc["reasons"][k["missing"][f"time_model.terms[{int(n) - 1}].{field}"]]
            for column, at in COLUMN_PATHS.items():
                if column in reasons and at in k["missing"]:
                    assert reasons[column] == doc["reasons"][k["missing"][at]]
            for p, i in roofs["missing"].items():
                unit = "flop" if p in ("fp64", "fp32", "fp16", "tensor") else "bytes"
                assert reasons[f"roof_{p}_{unit}_per_s"] == doc["reasons"][i]


def test_a_launch_rows_roofs_are_its_own_where_its_clock_differs_from_the_reports() -> None:
    """The A10G blocktiling report's launches ran at other clocks than the report's median: the store's roofs and
    percent of roof agree per launch, as report -f json gives them (the report-wide roofs did not)."""
    from datetime import datetime, timezone

    from roofline.facade import Roofline
    from roofline.render.report.json import typed
    from roofline.store.rows import Stamp, report_rows
    from tests.conftest import SHARED_REPORTS

    path = SHARED_REPORTS / "a10g_sgemm-blocktiling_roofline.ncu-rep"
    if not path.is_file():
        pytest.skip(f"{path.name} is not in ../shared/ncu-reps")
    view = Roofline().report([path], keep_going=False).view
    doc = typed(view).reports[0]
    rows = report_rows(doc, view.reports[0], Stamp(str(path), "h", 1, "v", "k", datetime.now(timezone.utc)))
    differ = 0
    for row, k in zip(rows["launches"], doc.kernels, strict=True):
        own, whole = k.ceilings[k.ceilings_used], doc.ceilings[k.ceilings_used]
        assert own is not None and whole is not None and row["roof_dram_bytes_per_s"] == own.dram
        differ += own.dram != whole.dram
        if k.limiter == "dram":
            assert 100 * row["bytes_per_s_dram"] / row["roof_dram_bytes_per_s"] == pytest.approx(row["pct_of_roof"])
    assert differ >= 3


def test_every_advice_row_gives_the_report_documents_reason_of_each_null(collected: tuple[Path, list[Path]]) -> None:
    """An advice item's null saving, work share or bound has the reason ``report -f json`` gives at its path
    (``advice[i].est_saved_s``) under the row's ``missing``, keyed by the column; its library the store's own."""
    from roofline.store.rows import STORE_REASONS

    store, paths = collected
    checked = 0
    for path in paths:
        doc = report_json(path)["reports"][0]
        rows = query(store, f"SELECT * EXCLUDE (gpu, date) FROM advice WHERE path = '{path.resolve()}' "
                     "ORDER BY launch, rank").to_pylist()
        items = [(k, i) for k in doc["kernels"] for i in range(len(k["advice"]))]
        assert len(rows) == len(items)
        for row, (k, i) in zip(rows, items, strict=True):
            reasons = dict(row["missing"])
            assert {c for c, v in row.items() if v is None} == set(reasons) and NO_REASON not in reasons.values()
            for column, why in reasons.items():
                at = f"advice[{i}].{column}"
                assert why == (doc["reasons"][k["missing"][at]] if at in k["missing"] else STORE_REASONS[column])
                checked += column != "library"
    assert checked > 10  # est_saved_s, work_share, bound_by, ncu_saved_s of the examples' items


def test_the_triad_advice_items_nulls_have_the_reasons_the_probe_found_missing(
        collected: tuple[Path, list[Path]]) -> None:
    """The shipped triad's ncu item has no saving, work share nor bound: each with the report's reason."""
    store, paths = collected
    triad = next(p for p in paths if p.name == "triad-cupy.full.ncu-rep")
    rows = query(store, f"SELECT rank, est_saved_s, work_share, bound_by, missing FROM advice "
                 f"WHERE path = '{triad.resolve()}' ORDER BY rank").to_pylist()
    ncu = next(r for r in rows if r["est_saved_s"] is None)
    reasons = dict(ncu["missing"])
    assert set(reasons) >= {"est_saved_s", "work_share", "bound_by"}
    assert reasons["est_saved_s"] == "not estimated: ncu's message states no share of the work removed"
    assert reasons["bound_by"] == "the bound is stated in words only"


def test_advice_rows_keep_each_items_rank_and_saving(collected: tuple[Path, list[Path]]) -> None:
    store, paths = collected
    doc = report_json(paths[0])["reports"][0]
    rows = query(store, f"SELECT launch, rank, title, est_saved_s, bound_by FROM advice "
                 f"WHERE path = '{paths[0].resolve()}' ORDER BY launch, rank").to_pylist()
    expected = [(i, r + 1, a["title"], a["est_saved_s"], a["bound_by"])
                for i, k in enumerate(doc["kernels"]) for r, a in enumerate(k["advice"])]
    assert [tuple(r.values()) for r in rows] == expected and expected


def test_the_report_row_names_its_gpu_ncu_version_and_hashes(collected: tuple[Path, list[Path]]) -> None:
    import hashlib

    import roofline

    store, paths = collected
    for path in paths:
        (row,) = query(store, f"SELECT * FROM reports WHERE path = '{path.resolve()}'").to_pylist()
        assert row["content_hash"] == hashlib.sha256(path.read_bytes()).hexdigest()
        assert row["ncu_version"] == (roofline.load(path).ncu_version or None)
        assert row["roofline_version"] == roofline.__version__ and len(row["catalog_hash"]) == 16
        assert row["launches"] == len(report_json(path)["reports"][0]["kernels"])


def test_the_rows_take_the_document_types_and_no_renderer() -> None:
    """The rows are built from the report document (documents.report) handed to them; only collect, the shell,
    asks the JSON renderer for that document, as every command does (store sits above render)."""
    from tests.test_architecture import MODULES, imports

    store = [m for m in MODULES if m.startswith("roofline.store.")]
    takers = {m for m in store for target, _, _ in imports(m) if target.startswith("roofline.render")}
    assert takers == {"roofline.store.collect", "roofline.store.text"}
    assert {(t, n) for t, n, _ in imports("roofline.store.text") if t.startswith("roofline.render")} == {
        ("roofline.render.names", "printable")}  # a query's text cells escaped as every table escapes them
    assert {(t, n) for t, n, _ in imports("roofline.store.collect") if t.startswith("roofline.render")} == {
        ("roofline.render.report.json", "typed")}


def test_every_report_row_gives_the_reason_of_each_null(collected: tuple[Path, list[Path]]) -> None:
    store, _ = collected
    for row in query(store, "SELECT * EXCLUDE (gpu, date) FROM reports").to_pylist():
        reasons = dict(row["missing"])
        assert {c for c, v in row.items() if v is None} == set(reasons) and NO_REASON not in reasons.values()


def test_a_metrics_only_reports_total_time_and_a_models_ncu_version_are_null_with_their_reasons(
        tmp_path: Path) -> None:
    """The GH200 metrics-only report times no launch: its total time is null with the reason its launches give
    for their durations; the synthetic report model records no ncu version."""
    import roofline
    from roofline.store.collect import collect
    from tests.conftest import REPO, SHARED_REPORTS

    metrics = SHARED_REPORTS / "gh200_silu_metrics.ncu-rep"
    if not metrics.is_file():
        pytest.skip(f"{metrics.name} is not in ../shared/ncu-reps")
    model = REPO / "examples" / "h100-sxm_synthetic.roofline.json"
    collect([metrics, model], tmp_path / "s")
    got = {Path(r["path"]).name: (r, dict(r["missing"]))
           for r in query(tmp_path / "s", "SELECT * FROM reports").to_pylist()}
    doc = report_json(metrics)["reports"][0]
    valid = [k for k in doc["kernels"] if k["valid"]]
    assert valid and all(k["duration_s"] is None for k in valid)
    row, reasons = got[metrics.name]
    assert row["total_time_s"] is None
    assert reasons["total_time_s"] == doc["reasons"][valid[0]["missing"]["duration_s"]]
    assert "gpu__time_duration" in reasons["total_time_s"]
    row, reasons = got[model.name]
    assert roofline.load(model).ncu_version == "" and row["ncu_version"] is None
    assert "ncu version" in reasons["ncu_version"] and row["total_time_s"] is not None
