"""A query's table as text: JSON with null for a missing or non-finite value, CSV with full numbers and nested
values as JSON, an aligned table with its row count; each column in its place whatever its name, and a value of any
DuckDB type written as data (checked against DuckDB's own text of it)."""

from __future__ import annotations

import json

import pyarrow as pa
import pytest

from roofline.core.version import GENERATOR
from roofline.store.text import formatted

TABLE = pa.table({"name": ["a", None], "t": [1.5, float("nan")], "n": [1, 2], "l": [["x"], []]})


def test_json_carries_the_mark_and_writes_null_for_missing_and_non_finite_values() -> None:
    doc = json.loads(formatted(TABLE, "json"))
    assert doc == {"generator": GENERATOR, "rows": [{"name": "a", "t": 1.5, "n": 1, "l": ["x"]},
                                                    {"name": None, "t": None, "n": 2, "l": []}]}


def test_csv_has_a_header_full_numbers_and_nested_values_as_json() -> None:
    lines = formatted(pa.table({"t": [0.1234567891234], "l": [["x", "y"]]}), "csv").splitlines()
    assert lines == ["t,l", '0.1234567891234,"[""x"", ""y""]"']


def test_the_table_aligns_columns_and_counts_rows() -> None:
    lines = formatted(TABLE, "table").splitlines()
    assert lines[0].split() == ["name", "t", "n", "l"] and set(lines[1]) <= {"-", " "}
    assert lines[-1] == "(2 rows)" and len(lines) == 5


LONG = pa.table({"name": ["k" * 70 + "_one", "k" * 70 + "_two"], "n": [123456, 7]})


def test_the_table_keeps_every_cell_whole_with_no_width() -> None:
    text = formatted(LONG, "table")
    assert all(name in text for name in LONG.column("name").to_pylist()) and "..." not in text


def test_the_table_cuts_names_in_the_middle_only_as_much_as_a_width_needs() -> None:
    whole = formatted(LONG, "table").splitlines()
    assert formatted(LONG, "table", max(map(len, whole))).splitlines() == whole  # it fits: nothing cut
    lines = formatted(LONG, "table", 60).splitlines()
    assert max(len(line) for line in lines[:-1]) == 60
    first, second = (line.split()[0] for line in lines[2:4])
    assert first != second and first.endswith("_one") and "..." in first and first.startswith("kkk")
    assert lines[2].split()[1] == "123456"  # numbers are never cut


def test_a_width_too_narrow_cuts_names_no_shorter_than_their_floor() -> None:
    from roofline.store.text import FEWEST

    lines = formatted(LONG, "table", 10).splitlines()
    assert len(lines[2].split()[0]) == FEWEST


def test_a_map_column_is_an_object_in_json_and_csv_as_the_report_document_writes_it() -> None:
    kind = pa.map_(pa.string(), pa.string())
    table = pa.table({"missing": pa.array([[("flops_fp64", "not collected")], None], type=kind)})
    assert json.loads(formatted(table, "json"))["rows"] == [{"missing": {"flops_fp64": "not collected"}},
                                                            {"missing": None}]
    assert formatted(table, "csv").splitlines()[1] == '"{""flops_fp64"": ""not collected""}"'


def test_a_line_end_in_a_text_cell_is_an_escape_and_keeps_its_row_whole() -> None:
    lines = formatted(pa.table({"s": ["a\nb\tc"], "n": [1]}), "table").splitlines()
    assert len(lines) == 4 and lines[2].split() == ["a\\nb\\tc", "1"]


def test_columns_of_one_name_are_each_written_in_their_place() -> None:
    """``SELECT 1 AS a, 2 AS a, 3 AS b``: the CSV and the table keep the header as DuckDB gives it and each value
    under its column; JSON keys are made unique as DuckDB names a subquery's columns."""
    table = pa.Table.from_arrays([pa.array([1]), pa.array([2]), pa.array([3])], names=["a", "a", "b"])
    assert formatted(table, "csv").splitlines() == ["a,a,b", "1,2,3"]
    lines = formatted(table, "table").splitlines()
    assert lines[0].split() == ["a", "a", "b"] and lines[2].split() == ["1", "2", "3"]
    assert json.loads(formatted(table, "json"))["rows"] == [{"a": 1, "a_1": 2, "b": 3}]


def test_unique_names_are_those_duckdb_gives_a_subquerys_columns() -> None:
    """Checked against DuckDB itself: ``SELECT * FROM (SELECT ... AS a, ... AS a)`` names its columns."""
    import duckdb

    from roofline.store.text import unique_names

    con = duckdb.connect()
    for names in (["a", "a"], ["a", "a", "a", "a_1", "a_2"], ["a_1", "a", "a"], ["A", "a", "a_1"], ["x", "y"],
                  ["device", "path", "device", "path", "device"]):
        select = ", ".join(f'{i} AS "{n}"' for i, n in enumerate(names))
        assert unique_names(names) == con.sql(f"SELECT * FROM (SELECT {select})").columns, names


def test_every_duckdb_type_is_written_in_every_format_decimals_as_json_numbers() -> None:
    """DuckDB's ``test_all_types()`` (each type at its least, greatest and null): no format raises; JSON holds a
    HUGEINT as its whole number, a DECIMAL as a number, times, intervals, UUIDs and BLOBs as DuckDB's text."""
    import duckdb

    con = duckdb.connect()
    lists = "date_array, timestamp_array, timestamptz_array"  # lists of dates Python cannot hold: the next test
    table = con.sql(f"SELECT * EXCLUDE ({lists}) FROM test_all_types()").to_arrow_table()
    import csv
    import io

    assert formatted(table, "table").splitlines()[-1] == "(3 rows)"
    written = list(csv.reader(io.StringIO(formatted(table, "csv"))))
    assert written[0] == table.column_names and len(written) == 4
    rows = json.loads(formatted(table, "json"))["rows"]
    assert rows[0]["hugeint"] == -(2 ** 127) and rows[1]["hugeint"] == 2 ** 127 - 1
    assert rows[0]["dec_4_1"] == -999.9 and rows[1]["dec_18_6"] == 999999999999.999999
    texts = con.sql("SELECT time::VARCHAR AS time, time_ns::VARCHAR AS time_ns, interval::VARCHAR AS interval, "
                    "uuid::VARCHAR AS uuid, blob::VARCHAR AS blob FROM test_all_types()").to_arrow_table().to_pylist()
    for row, text in zip(rows, texts, strict=True):
        assert {key: row[key] for key in text} == text
    assert rows[0]["timestamp"].startswith("<value out of range")  # Arrow's text: Python's datetime stops at year 1


def test_a_list_of_values_python_cannot_hold_is_one_line_naming_the_column() -> None:
    import duckdb

    from roofline.store.dataset import StoreError

    table = duckdb.connect().sql("SELECT date_array FROM test_all_types()").to_arrow_table()
    with pytest.raises(StoreError) as refused:
        formatted(table, "json")
    assert "\n" not in str(refused.value) and "'date_array'" in str(refused.value)
    assert 'CAST("date_array" AS VARCHAR)' in str(refused.value)


def test_a_decimal_keeps_its_digits_in_the_csv_and_the_table_and_is_a_number_in_json() -> None:
    from decimal import Decimal

    table = pa.table({"d": pa.array([Decimal("1.50")], pa.decimal128(10, 2)),
                      "h": pa.array([Decimal(2 ** 100)], pa.decimal128(38, 0)),
                      "n": pa.array([[Decimal("0.25")]], pa.list_(pa.decimal128(4, 2)))})
    assert formatted(table, "csv").splitlines()[1] == f"1.50,{2 ** 100},[0.25]"
    assert formatted(table, "table").splitlines()[2].split() == ["1.50", str(2 ** 100), "[0.25]"]
    assert json.loads(formatted(table, "json"))["rows"] == [{"d": 1.5, "h": 2 ** 100, "n": [0.25]}]


def test_an_interval_reads_as_duckdb_writes_it() -> None:
    import duckdb

    from roofline.store.text import plain

    con = duckdb.connect()
    for interval in ("INTERVAL 3 DAY", "INTERVAL 14 MONTH + INTERVAL 5 SECOND + INTERVAL 7 MICROSECOND",
                     "INTERVAL 0 DAY", "-INTERVAL 1 HOUR", "-INTERVAL 14 MONTH", "INTERVAL 1 DAY - INTERVAL 90 MINUTE",
                     "-INTERVAL 500 MICROSECOND", "INTERVAL 12 MONTH"):
        value, text = con.sql(f"SELECT {interval} AS v, ({interval})::VARCHAR AS t").to_arrow_table().to_pylist()[
            0].values()
        assert plain(value) == text, interval
