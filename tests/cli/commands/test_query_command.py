"""`roofline query STORE SQL` through the CLI: a table, CSV or JSON on stdout or into a file, and one line with exit
2 for SQL DuckDB refuses, a missing store and an unknown format."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from roofline.cli.app import app
from roofline.store.collect import collect
from tests.conftest import REPO

pytest.importorskip("duckdb", reason="duckdb not installed (pip install 'roofline[store]')")
runner = CliRunner()
FP16 = REPO / "examples" / "h100" / "torch-fp16.full.json"
SQL = "SELECT kernel, count(*) AS launches, sum(duration_s) AS total_s FROM launches GROUP BY kernel"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("q") / "s"
    collect([FP16], path)
    return path


def test_the_three_formats_give_the_same_figures(store: Path, tmp_path: Path) -> None:
    rows = json.loads(runner.invoke(app, ["query", str(store), SQL, "-f", "json"]).stdout)["rows"]
    assert rows == [{"kernel": rows[0]["kernel"], "launches": 1, "total_s": pytest.approx(215104e-9)}]
    csv = runner.invoke(app, ["query", str(store), SQL, "-f", "csv"]).stdout.splitlines()
    assert csv[0] == "kernel,launches,total_s" and float(csv[1].rsplit(",", 1)[1]) == rows[0]["total_s"]
    table = runner.invoke(app, ["query", str(store), SQL])
    assert table.exit_code == 0 and table.stdout.rstrip().endswith("(1 row)")
    out = tmp_path / "q.json"
    assert runner.invoke(app, ["query", str(store), SQL, "-f", "json", "-o", str(out)]).exit_code == 0
    assert json.loads(out.read_text())["rows"] == rows  # the mark is the document's first key: a valid JSON file
    again = runner.invoke(app, ["query", str(store), SQL, "-f", "json", "-o", str(out)])
    assert again.exit_code == 0, again.output  # roofline's own file: replaced


@pytest.mark.parametrize("args", [["SELEC 1"], ["SELECT 1", "-f", "xml"]])
def test_bad_sql_and_an_unknown_format_are_one_line_exit_2(store: Path, args: list[str]) -> None:
    result = runner.invoke(app, ["query", str(store), *args])
    assert result.exit_code == 2 and len(result.stderr.strip().splitlines()) == 1, result.output


def test_a_missing_store_is_one_line_exit_2(tmp_path: Path) -> None:
    result = runner.invoke(app, ["query", str(tmp_path / "none"), "SELECT 1"])
    assert result.exit_code == 2 and "no such store" in result.stderr


def test_a_csv_file_is_the_query_alone_and_is_never_replaced(store: Path, tmp_path: Path) -> None:
    """-f csv -o FILE writes the header row first (no mark line before it: any CSV reader takes every line as a
    row), byte for byte what standard output gets; with no mark to tell it is roofline's, an existing FILE is
    refused in one line and left as it was."""
    import csv

    out = tmp_path / "q.csv"
    written = runner.invoke(app, ["query", str(store), SQL, "-f", "csv", "-o", str(out)])
    assert written.exit_code == 0, written.output
    assert out.read_text() == runner.invoke(app, ["query", str(store), SQL, "-f", "csv"]).stdout
    rows = list(csv.reader(out.read_text().splitlines()))
    assert rows[0] == ["kernel", "launches", "total_s"] and len(rows) == 2
    assert float(rows[1][2]) == pytest.approx(215104e-9)
    before = out.read_bytes()
    again = runner.invoke(app, ["query", str(store), SQL, "-f", "csv", "-o", str(out)])
    assert again.exit_code == 2 and "no generator mark" in again.stderr
    assert len(again.stderr.strip().splitlines()) == 1 and out.read_bytes() == before
