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


@pytest.mark.parametrize("sql", ["", " ", ";"])
def test_sql_that_asks_no_rows_is_one_line_exit_2(store: Path, sql: str) -> None:
    result = runner.invoke(app, ["query", str(store), sql])
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith(f"roofline: error: {store}: query ") and len(result.stderr.splitlines()) == 1


def test_a_store_with_a_file_gone_is_one_line_exit_2_and_collect_repairs_it(store: Path, tmp_path: Path) -> None:
    """One Parquet file of the store deleted: query and summary say in one line that the store is damaged and how
    to repair it; `collect -o COPY` does, and the query answers again."""
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(store, copy)
    next((copy / "data" / "launches").rglob("*.parquet")).unlink()
    for args in (["query", str(copy), "SELECT 1"], ["summary", str(copy)]):
        result = runner.invoke(app, args)
        assert result.exit_code == 2 and len(result.stderr.splitlines()) == 1, result.output
        assert result.stderr.startswith(f"roofline: error: {copy}: damaged store")
        assert f"roofline collect -o {copy}" in result.stderr
    repaired = runner.invoke(app, ["collect", "-o", str(copy)])
    assert repaired.exit_code == 0 and "1 analysed again" in repaired.stderr, repaired.output
    again = runner.invoke(app, ["query", str(copy), SQL, "-f", "json"])
    assert again.exit_code == 0 and json.loads(again.stdout)["rows"][0]["launches"] == 1


@pytest.mark.parametrize(("name", "fmt"), [("q.json", "json"), ("q.csv", "csv"), ("q.txt", "table")])
def test_the_format_follows_the_output_files_extension(store: Path, tmp_path: Path, name: str, fmt: str) -> None:
    out = tmp_path / name
    result = runner.invoke(app, ["query", str(store), "SELECT 1 AS a", "-o", str(out)])
    assert result.exit_code == 0, result.output
    text = out.read_text()
    if fmt == "json":
        assert json.loads(text)["rows"] == [{"a": 1}]
    elif fmt == "csv":
        assert text == "a\n1\n"
    else:  # the table, after the mark line a text file gets
        assert text.endswith(runner.invoke(app, ["query", str(store), "SELECT 1 AS a"]).stdout) and text != "a\n1\n"


@pytest.mark.parametrize(("name", "args", "fix"), [
    ("q.json", ["-f", "csv"], "give --format json, or end the name with .csv"),
    ("q.csv", ["-f", "table"], "give --format csv, or end the name with .txt"),
    ("q.html", [], "end the name with one of .txt (table), .csv (csv), .json (json)")])
def test_an_output_whose_extension_names_another_format_is_refused_in_one_line(
        store: Path, tmp_path: Path, name: str, args: list[str], fix: str) -> None:
    out = tmp_path / name
    result = runner.invoke(app, ["query", str(store), "SELECT 1 AS a", "-o", str(out), *args])
    assert result.exit_code == 2 and len(result.stderr.splitlines()) == 1 and not out.exists(), result.output
    assert result.stderr.startswith(f"roofline: error: --output {out}: a ") and result.stderr.rstrip().endswith(fix)


def test_a_txt_file_takes_any_format_given(store: Path, tmp_path: Path) -> None:
    out = tmp_path / "q.txt"
    assert runner.invoke(app, ["query", str(store), "SELECT 1 AS a", "-o", str(out), "-f", "json"]).exit_code == 0
    assert json.loads(out.read_text())["rows"] == [{"a": 1}]


LONG = "SELECT repeat('k', 90) || '_one' AS name, 1 AS n UNION ALL SELECT repeat('k', 90) || '_two', 2 ORDER BY n"


def test_cells_are_whole_in_a_file_and_with_wide_cut_to_fit_the_terminal(store: Path, tmp_path: Path) -> None:
    """Written to a file every cell is whole; on the terminal a name is cut in the middle only as far as the
    terminal's width needs (the two names still told apart by their ends); --wide prints them whole."""
    names = ["k" * 90 + "_one", "k" * 90 + "_two"]
    out = tmp_path / "q.txt"
    assert runner.invoke(app, ["query", str(store), LONG, "-o", str(out)]).exit_code == 0
    assert all(name in out.read_text() for name in names)
    narrow = runner.invoke(app, ["query", str(store), LONG], env={"COLUMNS": "80"}).stdout.splitlines()
    assert max(map(len, narrow)) == 80 and not any(name in "\n".join(narrow) for name in names)
    assert narrow[2].split()[0].endswith("_one") and narrow[3].split()[0].endswith("_two")
    roomy = runner.invoke(app, ["query", str(store), LONG], env={"COLUMNS": "200"}).stdout
    assert all(name in roomy for name in names)  # it fits: nothing cut
    wide = runner.invoke(app, ["query", str(store), LONG, "--wide"], env={"COLUMNS": "80"}).stdout
    assert all(name in wide for name in names)


@pytest.mark.parametrize("sql", [
    "SELECT 1 AS a, 2 AS a, 3 AS b", "SELECT * FROM launches l JOIN reports r USING (report_id) LIMIT 1",
    "SELECT device, sum(launches) AS n FROM reports GROUP BY device", "SELECT kernel, 0.5 * 2 AS x FROM launches",
    "SELECT * FROM duckdb_settings() LIMIT 1", "SELECT [TIME '10:00'] AS x", "SELECT ['a'::BLOB] AS x",
    "SELECT {'k': 1.5::DECIMAL(10,2)} AS x"])
@pytest.mark.parametrize("fmt", ["table", "csv", "json"])
def test_any_column_type_and_repeated_names_are_written_in_every_format(store: Path, sql: str, fmt: str) -> None:
    """The probe's queries: each once a traceback (repeated names, a HUGEINT sum, a DECIMAL, a BLOB, a TIME) or a
    CSV whose values sat under the wrong column."""
    result = runner.invoke(app, ["query", str(store), sql, "-f", fmt])
    assert result.exit_code == 0 and "Traceback" not in result.output, result.output
    if fmt == "json":
        rows = json.loads(result.stdout)["rows"]
        assert rows and all(len(row) == len(rows[0]) for row in rows)


def test_repeated_names_are_named_apart_in_every_format_and_sums_are_json_numbers(store: Path) -> None:
    sql = "SELECT 1 AS a, 2 AS a, 3 AS b"
    assert runner.invoke(app, ["query", str(store), sql, "-f", "csv"]).stdout.splitlines() == ["a,a_1,b", "1,2,3"]
    doc = json.loads(runner.invoke(app, ["query", str(store), sql, "-f", "json"]).stdout)
    assert doc["rows"] == [{"a": 1, "a_1": 2, "b": 3}]
    (row,) = json.loads(runner.invoke(app, ["query", str(store), "SELECT sum(launches) AS n, 0.5 * 3 AS x FROM reports",
                                            "-f", "json"]).stdout)["rows"]
    assert row == {"n": 1, "x": 1.5}  # the torch-fp16 model's one launch; JSON numbers, not text


def test_an_output_name_whose_extension_names_no_format_is_refused_without_format(tmp_path):
    """-o q.xyz (or no extension) without --format: one line naming the query's extensions, exit 2, nothing written;
    with --format the name is taken as given."""
    from roofline.cli.commands.query import query_format
    from roofline.errors import UsageError

    for name in ("q.xyz", "q"):
        with pytest.raises(UsageError, match="extension chooses the format") as got:
            query_format(None, tmp_path / name)
        assert ".txt (table), .csv (csv), .json (json)" in got.value.hint
        assert not (tmp_path / name).exists()
    assert query_format("csv", tmp_path / "q.xyz") == "csv" and query_format(None, tmp_path / "q.csv") == "csv"


def test_sql_of_several_statements_is_one_line_exit_2(store: Path) -> None:
    result = runner.invoke(app, ["query", str(store), "SELECT 1; SELECT 2"])
    assert result.exit_code == 2 and result.stdout == "", result.output
    (line,) = result.stderr.strip().splitlines()
    assert "2 statements, and a query answers one" in line and "give one statement per query" in line
