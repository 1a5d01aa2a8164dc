"""A query's table as text: JSON with null for a missing or non-finite value, CSV with full numbers and nested
values as JSON, an aligned table with its row count."""

from __future__ import annotations

import json

import pyarrow as pa

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
