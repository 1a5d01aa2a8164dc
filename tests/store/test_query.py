"""DuckDB over a store: the four views, an empty table with its columns, the gpu and date partitions as columns
that a filter prunes by folder, and one-line errors for SQL DuckDB refuses and a missing store."""

from __future__ import annotations

from pathlib import Path

import pytest

from roofline.store.collect import collect
from roofline.store.dataset import StoreError
from roofline.store.query import query
from roofline.store.schema import COLUMNS
from tests.conftest import REPO


def test_the_views_hold_every_column_and_the_partitions(collected: tuple[Path, list[Path]]) -> None:
    store, paths = collected
    for table, columns in COLUMNS.items():
        names = query(store, f"SELECT * FROM {table} LIMIT 0").column_names
        assert set(names) >= {c for c, _ in columns} | {"date"}
    assert query(store, "SELECT count(DISTINCT path) AS n FROM launches").column("n").to_pylist() == [len(paths)]


def test_a_filter_on_gpu_reads_only_that_partitions_files(collected: tuple[Path, list[Path]]) -> None:
    store, _ = collected
    plan = query(store, "EXPLAIN ANALYZE SELECT count(*) FROM launches WHERE gpu = 'nvidia-h200'").to_pylist()
    text = " ".join(str(v) for row in plan for v in row.values())
    assert "Total Files Read: 1" in text
    (n,) = query(store, "SELECT count(*) AS n FROM launches WHERE gpu = 'nvidia-h200'").column("n").to_pylist()
    assert n > 0


def test_an_empty_errors_table_is_a_view_with_its_columns(tmp_path: Path) -> None:
    store = tmp_path / "s"
    collect([REPO / "examples" / "h100" / "torch-fp16.full.json"], store)
    result = query(store, "SELECT path, error FROM errors")
    assert result.num_rows == 0 and result.column_names == ["path", "error"]


def test_bad_sql_and_a_missing_store_are_one_line(collected: tuple[Path, list[Path]], tmp_path: Path) -> None:
    store, _ = collected
    for sql in ("SELEC 1", "SELECT nope FROM launches", "SELECT * FROM missing_table"):
        with pytest.raises(StoreError) as refused:
            query(store, sql)
        assert "\n" not in str(refused.value) and str(refused.value).startswith("query: ")
    with pytest.raises(StoreError, match="no such store"):
        query(tmp_path / "none", "SELECT 1")


def test_the_public_api_collects_and_queries_as_the_store_does(tmp_path: Path) -> None:
    """``roofline.collect`` and ``roofline.query`` are the store's own, and a report's launch time is the one the
    facade's analysis gives for the same file."""
    import roofline

    model = REPO / "examples" / "h100" / "torch-fp16.full.json"
    outcome = roofline.collect([model], tmp_path / "s")
    assert (outcome.analysed, outcome.unchanged, outcome.errors) == (1, 0, ())
    sql = "SELECT path, duration_s FROM launches ORDER BY launch"
    table = roofline.query(tmp_path / "s", sql)
    assert table.to_pylist() == query(tmp_path / "s", sql).to_pylist()
    (analysis,) = roofline.analyze_files([model])
    assert table.column("duration_s").to_pylist() == [k.duration_s.value for k in analysis.launches]
    assert table.column("path").to_pylist() == [str(model.resolve())] * len(analysis.launches)
    assert {"collect", "query"} <= set(roofline.__all__)


@pytest.mark.parametrize("sql", ["", " ", ";", " ; ; "])
def test_sql_that_asks_no_rows_is_one_line_naming_the_store(collected: tuple[Path, list[Path]], sql: str) -> None:
    store, _ = collected
    with pytest.raises(StoreError) as refused:
        query(store, sql)
    line = str(refused.value)
    assert "\n" not in line and line.startswith(f"{store}: query ") and "give one SELECT" in line


def test_a_statement_that_writes_is_refused_and_no_file_is_written(collected: tuple[Path, list[Path]],
                                                                   tmp_path: Path) -> None:
    store, _ = collected
    kept = tmp_path / "precious.txt"
    kept.write_text("keep\n")
    for sql in (f"COPY (SELECT 'gone' AS x) TO '{kept}' (FORMAT csv)", f"EXPORT DATABASE '{tmp_path / 'db'}'",
                f"ATTACH '{tmp_path / 'new.db'}'", "SELECT 1; CREATE TABLE t AS SELECT 1", "SET threads = 1",
                f"EXPLAIN ANALYZE COPY (SELECT 1) TO '{kept}'", f"/* x */ explain analyse COPY (SELECT 1) TO '{kept}'",
                "EXPLAIN ANALYZE SET threads = 1"):
        with pytest.raises(StoreError) as refused:
            query(store, sql)
        assert "\n" not in str(refused.value) and "refused: a query only reads" in str(refused.value)
    assert kept.read_text() == "keep\n" and sorted(p.name for p in tmp_path.iterdir()) == ["precious.txt"]
    for sql in ("DESCRIBE launches", "SHOW TABLES", "SUMMARIZE SELECT 1", "WITH a AS (SELECT 1 AS x) SELECT x FROM a",
                "-- a comment\nSELECT count(*) FROM launches", "EXPLAIN ANALYZE SELECT count(*) FROM launches",
                "EXPLAIN (FORMAT json) SELECT 1"):
        assert query(store, sql).num_rows >= 1


@pytest.mark.parametrize(("sql", "named", "fix"), [
    ("INSTALL httpfs", "INSTALL refused", "open the Parquet files under"),
    ("ATTACH 'x.db'", "ATTACH refused", "open the Parquet files under"),
    ("USE system", "USE refused", "give a SELECT over the views"),
    ("PRAGMA version", "PRAGMA refused", "give a SELECT over the views"),
    ("PIVOT launches ON bound USING count(*)", "PIVOT refused", "PIVOT launches ON bound IN ('compute', 'memory')"),
    ("COPY launches TO 'x.csv'", "COPY refused", "give -o FILE"),
    ("/* a */ explain  analyse COPY (SELECT 1) TO 'x'", "EXPLAIN ANALYSE COPY refused", "give -o FILE"),
])
def test_a_refused_statement_is_named_by_its_own_words_with_the_fix_for_its_kind(
        collected: tuple[Path, list[Path]], sql: str, named: str, fix: str) -> None:
    """The user's own keyword names the statement (never DuckDB's type: LOAD for INSTALL, SET for USE, MULTI for a
    PIVOT), and only COPY and EXPORT are told to give -o FILE."""
    store, _ = collected
    with pytest.raises(StoreError) as refused:
        query(store, sql)
    line = str(refused.value)
    assert "\n" not in line and f": {named}: a query only reads" in line and fix in line
    assert ("-o FILE" in line) == ("COPY" in named)
    assert not any(f" {kind} " in line for kind in ("LOAD", "MULTI", "SET") if kind not in sql.upper())


def test_columns_of_one_name_come_back_each_named_apart_as_duckdb_names_them(
        collected: tuple[Path, list[Path]]) -> None:
    """A join selecting ``device`` twice: both columns, named ``device`` and ``device_1`` as DuckDB names a
    subquery's, each with its own values."""
    store, _ = collected
    sql = ("SELECT l.path, l.device, r.device, r.launches FROM launches l JOIN reports r USING (report_id) "
           "ORDER BY l.path, l.launch LIMIT 3")
    table = query(store, sql)
    assert table.column_names == ["path", "device", "device_1", "launches"]
    assert table.column_names == query(store, f"SELECT * FROM ({sql})").column_names
    rows = table.to_pylist()
    assert rows and all(row["device"] == row["device_1"] for row in rows)
    wide = query(store, "SELECT * FROM launches l JOIN reports r USING (report_id) LIMIT 1")
    assert len(set(wide.column_names)) == wide.num_columns


@pytest.mark.parametrize("sql", ["SELECT 1; SELECT 2", "SELECT count(*) FROM launches; SELECT count(*) FROM reports;",
                                 "SELECT 1;\n-- a comment\nSELECT 2"])
def test_sql_of_several_statements_is_refused_naming_the_fix(collected: tuple[Path, list[Path]], sql: str) -> None:
    """``SELECT 1; SELECT 2`` printed the last statement's rows alone, the first's dropped without a word."""
    from roofline.store.query import SEVERAL_FIX

    store, _ = collected
    with pytest.raises(StoreError) as refused:
        query(store, sql)
    line = str(refused.value)
    assert "\n" not in line and line.startswith(f"{store}: query ")
    assert ": 2 statements, and a query answers one" in line
    assert line.endswith(SEVERAL_FIX)
    assert query(store, "SELECT 2 AS x;").column("x").to_pylist() == [2]  # one statement and its ';': answered


@pytest.mark.parametrize(("store", "sql", "named"), [
    ("s", None, "sql=None: not a text of SQL"),
    ("s", 5, "sql=5: not a text of SQL"),
    (None, "SELECT 1", "store=None: not a path: give e.g. store='roofline-store'"),
    ("a\0b", "SELECT 1", "store='a\\x00b': not a valid path (it holds a NUL byte)"),
])
def test_a_store_or_sql_of_the_wrong_kind_is_one_line_naming_it(collected: tuple[Path, list[Path]], store: object,
                                                                sql: object, named: str) -> None:
    """duckdb's several-line TypeError (``extract_statements(): incompatible function arguments``) and os.fspath's
    came through."""
    import roofline
    from roofline.errors import UsageError

    path = collected[0] if store == "s" else store
    with pytest.raises(UsageError) as refused:
        roofline.query(path, sql)  # type: ignore[arg-type]
    assert str(refused.value).startswith(named) and "\n" not in str(refused.value)
