"""`summary STORE` ranks each report's kernel groups in SQL with the figures `summary -f json` gives from the same
report files: count, total time, time to gain, recoverable and small-grid time, share, median percent of roof, in
the same order, by kernel, by function and by NVTX range."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from roofline.cli.app import app
from roofline.store.summary import is_store, summary_table

runner = CliRunner()
FIGURES = ("count", "total_s", "time_to_gain_s", "recoverable_s", "small_grid_s", "time_share", "median_s", "min_s",
           "max_s", "median_pct_of_roof")


def close(a: Any, b: Any) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-18)


@pytest.mark.parametrize("by", ["kernel", "function", "nvtx"])
def test_the_store_ranks_as_summary_does_from_the_reports(collected: tuple[Path, list[Path]], by: str) -> None:
    store, paths = collected
    result = runner.invoke(app, ["summary", *map(str, paths), "-f", "json", "--by", by, "-n", "50"])
    assert result.exit_code == 0, result.output
    expected = {Path(r["report"]["path"]).resolve(): r["rows"] for r in json.loads(result.stdout)["reports"]}
    got: dict[Path, list[dict[str, Any]]] = {}
    for row in summary_table(store, by, 50).to_pylist():  # type: ignore[arg-type]
        got.setdefault(Path(row["path"]), []).append(row)
    assert got.keys() == expected.keys()
    for path, rows in expected.items():
        assert [g["name"] for g in got[path]] == [r["name"] for r in rows], path.name
        for g, r in zip(got[path], rows, strict=True):
            assert g["rank"] == r["rank"]
            assert all(close(g[f], r[f]) for f in FIGURES), (path.name, r["name"], {f: (g[f], r[f]) for f in FIGURES})


def test_summary_of_a_store_on_the_command_line_keeps_top_n(collected: tuple[Path, list[Path]]) -> None:
    store, paths = collected
    result = runner.invoke(app, ["summary", str(store), "-n", "1", "-f", "json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)["rows"]
    assert {r["rank"] for r in rows} == {1} and len(rows) == len(paths)
    table = runner.invoke(app, ["summary", str(store), "-n", "1"], env={"COLUMNS": "200"})
    assert table.exit_code == 0 and table.stdout.count("; top 1 by kernel") == len(paths)


def test_the_store_summary_json_is_a_typed_document_its_schema_accepts(collected: tuple[Path, list[Path]]) -> None:
    """`summary STORE -f json` names its kind, schema version and tool, lists the store's reports and is valid
    against store_summary.schema.json; each null figure has its reason, none is 0 for "not measured"."""
    jsonschema = pytest.importorskip("jsonschema", reason="jsonschema not installed (pip install 'roofline[test]')")
    from roofline.documents.common import SCHEMA_VERSION
    from roofline.documents.schemas import schema

    store, paths = collected
    doc = json.loads(runner.invoke(app, ["summary", str(store), "-n", "50", "-f", "json"]).stdout)
    jsonschema.Draft202012Validator(schema("store_summary")).validate(doc)
    assert (doc["kind"], doc["schema_version"], doc["tool"]["name"]) == ("store_summary", SCHEMA_VERSION, "roofline")
    assert {Path(r["path"]) for r in doc["reports"]} == {p.resolve() for p in paths}
    for row in doc["rows"]:
        assert {key for key, value in row.items() if value is None} == set(row["missing"]), row["name"]


def test_a_store_writes_each_figure_in_its_unit_and_n_a_for_a_null(tmp_path: Path) -> None:
    """H100 triad (320.256 us, one launch) and the GH200 SiLU report (no duration: ncu's basic metrics without
    gpu__time_duration): the table says 320 us and 100.0%, not raw seconds, and n/a where the store holds no time;
    the JSON's SiLU rows are null with the report's reason, their small-grid time null too, not 0."""
    from roofline.store.collect import collect
    from tests.conftest import REPO, find_shared_report

    pytest.importorskip("ncu_report", reason="reading an .ncu-rep needs NVIDIA's ncu_report module")
    silu = find_shared_report("gh200_silu_metrics")
    store = tmp_path / "s"
    assert not collect([REPO / "examples/h100/triad-cupy.full.ncu-rep", silu], store).errors
    text = runner.invoke(app, ["summary", str(store)], env={"COLUMNS": "200"}).stdout
    triad = next(line for line in text.splitlines() if line.split()[1:2] == ["triad"])
    assert triad.split()[3:6] == ["320", "us", "100.0%"] and "0.000320256" not in text
    silu_rows = [line for line in text.splitlines() if line.startswith(("1  ", "2  ")) and "triad" not in line]
    assert silu_rows and all(line.split()[-5:] == ["n/a"] * 5 for line in silu_rows)  # total, share, gain, rec., roof
    doc = json.loads(runner.invoke(app, ["summary", str(store), "-f", "json"]).stdout)
    for row in (r for r in doc["rows"] if r["path"] == str(silu.resolve())):
        assert row["total_s"] is None and row["small_grid_s"] is None
        assert row["missing"]["small_grid_s"].startswith("no valid launch of the group has a time: missing metrics: "
                                                         "gpu__time_duration.sum")


def test_summary_refuses_a_folder_that_is_no_store_and_options_a_store_cannot_honour(
        collected: tuple[Path, list[Path]], tmp_path: Path) -> None:
    store, _ = collected
    assert is_store(store) and not is_store(tmp_path)
    for args in ([str(tmp_path)], [str(store), "--mpi"], [str(store), "--kernel", "x"]):
        result = runner.invoke(app, ["summary", *args])
        assert result.exit_code == 2 and len(result.stderr.strip().splitlines()) == 1, result.output


@pytest.mark.parametrize("args", [["--ceilings", "datasheet"], ["--ceilings", "kernel-clock"], ["--specs", "x.yaml"],
                                  ["--kernel-name-base", "demangled"], ["--timeout", "5"], ["--jobs", "2"],
                                  ["--plot", "p.png"], ["--nsys", "p.sqlite"]])
def test_summary_of_a_store_refuses_each_option_it_would_ignore_by_name(collected: tuple[Path, list[Path]],
                                                                       args: list[str]) -> None:
    """The store was analysed when collected: an analysis option (even one given at its default) is refused in
    one line that names it and says how to get it, never silently ignored."""
    store, _ = collected
    result = runner.invoke(app, ["summary", str(store), *args])
    assert result.exit_code == 2 and len(result.stderr.strip().splitlines()) == 1, result.output
    assert result.stderr.startswith(f"roofline: error: {store}: {args[0]} given with a store: ")
    assert not result.stdout
    if args[0] in ("--ceilings", "--specs"):
        assert f"roofline collect -o {store} {args[0]}" in result.stderr


def test_summary_of_two_stores_says_one_store_is_read_at_a_time(collected: tuple[Path, list[Path]]) -> None:
    store, paths = collected
    for args in ([store, store], [store, paths[0]]):
        result = runner.invoke(app, ["summary", *map(str, args)])
        assert result.exit_code == 2 and len(result.stderr.strip().splitlines()) == 1, result.output
        assert "one store at a time" in result.stderr and "not a regular file" not in result.stderr


def test_each_reports_label_is_the_one_summary_gives(collected: tuple[Path, list[Path]]) -> None:
    store, paths = collected
    result = runner.invoke(app, ["summary", *map(str, paths), "-f", "json"])
    assert result.exit_code == 0, result.output
    expected = {str(Path(r["report"]["path"]).resolve()): r["report"]["label"] for r in json.loads(result.stdout)
                ["reports"]}
    from roofline.store.query import query

    got = {r["path"]: r["label"] for r in query(store, "SELECT path, label FROM reports").to_pylist()}
    assert got == expected and all(got.values())


def test_summary_of_a_store_writes_names_whole_into_a_file_and_fits_the_terminal(
        collected: tuple[Path, list[Path]], tmp_path: Path) -> None:
    store, paths = collected
    out = tmp_path / "s.txt"
    longest = max((r["name"] for r in json.loads(runner.invoke(app, ["summary", str(store), "-n", "1", "-f",
                                                                      "json"]).stdout)["rows"]), key=len)
    assert len(longest) > 80
    assert runner.invoke(app, ["summary", str(store), "-n", "1", "-o", str(out)]).exit_code == 0
    assert all(str(p.resolve()) in out.read_text() for p in paths) and longest in out.read_text()
    narrow = runner.invoke(app, ["summary", str(store), "-n", "1"], env={"COLUMNS": "80"}).stdout
    assert longest not in narrow and all(len(line) <= 80 for line in narrow.splitlines())
    wide = runner.invoke(app, ["summary", str(store), "-n", "1", "--wide"], env={"COLUMNS": "80"}).stdout
    assert longest in wide


def test_a_timed_group_without_a_verdict_has_its_small_grid_time_null_in_sql_as_from_the_file(tmp_path: Path,
                                                                                              raw_actions) -> None:
    """RTX 5060 Ti transpose, a metrics-only report: ncu timed its launches (gpu__time_duration.sum, read with
    ncu_report) and collected no SpeedOfLight throughput, so no stored launch has a bound: the store's small-grid
    time is null (not 0), as `summary FILE` gives it, with the reason that no launch has a verdict."""
    from roofline.store.collect import collect
    from tests.conftest import find_shared_report

    pytest.importorskip("ncu_report", reason="reading an .ncu-rep needs NVIDIA's ncu_report module")
    name = "rtx5060ti_transpose-occupancy-45launches_metrics"
    timed = [r for r in raw_actions(name) if r.has("gpu__time_duration.sum")]
    assert timed and not any(r.has("sm__throughput.avg.pct_of_peak_sustained_elapsed") for r in timed)
    report = find_shared_report(name)
    store = tmp_path / "s"
    assert not collect([report], store).errors
    (row,) = json.loads(runner.invoke(app, ["summary", str(store), "-f", "json"]).stdout)["rows"]
    assert row["total_s"] == pytest.approx(sum(r["gpu__time_duration.sum"] for r in timed) * 1e-9)
    assert row["small_grid_s"] is None
    assert row["missing"]["small_grid_s"].startswith("no launch of the group has a verdict, so whether it is a small "
                                                     "grid is not known: no SpeedOfLight throughputs")
    (file_row,) = json.loads(runner.invoke(app, ["summary", str(report), "-f", "json"]).stdout)["reports"][0]["rows"]
    assert file_row["small_grid_s"] is None and file_row["missing"]["small_grid_s"] == row["missing"]["small_grid_s"]


def test_a_null_figure_carries_the_reason_of_the_groups_first_launch_not_the_alphabetically_first() -> None:
    """SUMMARY_SQL over hand-made launches of one kernel, none timed: launch 0 has no reason and is passed over;
    launch 1's ("z ...") is the one a null figure carries, not launch 2's ("a ..."), which sorts first."""
    import duckdb
    import pyarrow as pa

    from roofline.store.summary import SUMMARY_SQL

    reasons = [None, {"duration_s": "z: first launch with a reason"}, {"duration_s": "a: the next one"}]
    launches = pa.table({
        "report_id": ["r"] * 3, "kernel": ["k"] * 3, "launch": [0, 1, 2], "valid": [True] * 3,
        "duration_s": pa.array([None] * 3, pa.float64()), "pct_of_roof": pa.array([None] * 3, pa.float64()),
        "recoverable_s": pa.array([None] * 3, pa.float64()), "time_to_gain_s": pa.array([None] * 3, pa.float64()),
        "bound": pa.array([None] * 3, pa.string()),
        "missing": pa.array([list(r.items()) if r else [] for r in reasons], pa.map_(pa.string(), pa.string()))})
    reports = pa.table({"report_id": ["r"], "path": ["a.ncu-rep"], "device": ["GPU"],
                        "total_time_s": pa.array([None], pa.float64())})
    con = duckdb.connect(":memory:")
    con.register("launches", launches)
    con.register("reports", reports)
    (row,) = con.sql(SUMMARY_SQL.format(key="kernel", top=10)).to_arrow_table().to_pylist()
    assert row["why_time"] == "z: first launch with a reason" and row["small_grid_s"] is None
