"""The store's tables and their one Arrow schema each, the same for every ncu version and GPU: a figure a report
does not hold is null (its reason in its row's ``missing``), never a column left out. ``STORE_SCHEMA`` is the
version of these schemas the manifest carries; a column is only ever added (a newer roofline reads an older store,
the columns it lacks read as null)."""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    import pyarrow as pa

# The version of the tables below; bumped when a column is added (2: the reports' missing, 3: the advice's).
STORE_SCHEMA = 3
PARTITIONS = ("gpu", "date")  # the folders a table is split into: gpu=<slug>/date=<YYYY-MM-DD>
TABLES = ("launches", "advice", "reports", "errors")

PRECISIONS = ("fp64", "fp32", "fp16", "tensor")
LEVELS = ("dram", "l2", "l1")

# Every table opens with the columns that name the report a row comes from.
_SOURCE = [("report_id", "str"), ("path", "str"), ("device", "str"), ("ncu_version", "str"),
           ("roofline_version", "str"), ("catalog_hash", "str"), ("content_hash", "str"),
           ("collected_at", "ts")]

COLUMNS: dict[str, list[tuple[str, str]]] = {
    "reports": [*_SOURCE, ("label", "str"), ("source", "str"), ("compute_capability", "str"), ("sm_count", "i64"),
                ("max_clock_hz", "f64"), ("spec_id", "str"), ("ceilings_used", "str"), ("launches", "i64"),
                ("total_time_s", "f64"), ("warnings", "list_str"), ("size_bytes", "i64"), ("missing", "map")],
    "launches": [
        *_SOURCE, ("compute_capability", "str"), ("spec_id", "str"), ("launch", "i64"), ("range", "i64"),
        ("action", "i64"), ("function", "str"), ("demangled_name", "str"), ("kernel", "str"), ("nvtx", "str"),
        ("library", "str"), ("valid", "bool"), ("grid_size", "i64"), ("block_size", "i64"),
        ("registers_per_thread", "i64"), ("shared_mem_per_block_bytes", "i64"),
        ("duration_s", "f64"), ("time_share", "f64"),
        *[(f"flops_{p}", "f64") for p in PRECISIONS], *[(f"flop_per_s_{p}", "f64") for p in PRECISIONS],
        *[(f"bytes_{lv}", "f64") for lv in LEVELS], *[(f"bytes_per_s_{lv}", "f64") for lv in LEVELS],
        *[(f"intensity_{lv}", "f64") for lv in LEVELS],
        ("ceilings_used", "str"), *[(f"roof_{p}_flop_per_s", "f64") for p in PRECISIONS],
        *[(f"roof_{lv}_bytes_per_s", "f64") for lv in LEVELS],
        ("pct_of_roof", "f64"), ("limiter", "str"), ("bound", "str"), ("verdict_basis", "str"),
        ("sm_pct", "f64"), ("memory_pct", "f64"), ("waves_per_sm", "f64"), ("busiest_unit", "str"),
        ("busiest_pct", "f64"), ("verdict", "str"), ("recoverable_s", "f64"), ("time_to_gain_s", "f64"),
        ("measured_s", "f64"), ("floor_s", "f64"), ("floor_term", "str"), ("slack_s", "f64"), ("terms", "terms"),
        ("occupancy_theoretical_pct", "f64"), ("occupancy_achieved_pct", "f64"), ("occupancy_limiters", "list_str"),
        ("tensor_status", "str"), ("tensor_pipe_active_pct", "f64"), ("top_stall", "str"),
        ("top_stall_share", "f64"), ("issue_active_pct", "f64"), ("l1_hit_rate_pct", "f64"),
        ("l2_hit_rate_pct", "f64"), ("advice_count", "i64"), ("combined_saved_s", "f64"),
        ("combined_floor_s", "f64"), ("flags", "list_str"), ("missing", "map")],
    "advice": [*_SOURCE, ("launch", "i64"), ("kernel", "str"), ("library", "str"), ("rank", "i64"),
               ("kind", "str"), ("title", "str"), ("cause", "str"), ("topic", "str"), ("mechanism", "str"),
               ("source", "str"), ("work_share", "f64"), ("est_saved_s", "f64"), ("ncu_saved_s", "f64"),
               ("bound_by", "str"), ("overlapping", "bool"), ("peak_kind", "str"), ("missing", "map")],
    "errors": [("path", "str"), ("content_hash", "str"), ("roofline_version", "str"), ("catalog_hash", "str"),
               ("collected_at", "ts"), ("error", "str"), ("exit_code", "i64"), ("size_bytes", "i64")],
}


# A column's type in DuckDB, for the null an older store's files read as where they lack the column.
DUCK_TYPES = {"str": "VARCHAR", "f64": "DOUBLE", "i64": "BIGINT", "bool": "BOOLEAN", "ts": "TIMESTAMPTZ",
              "list_str": "VARCHAR[]", "map": "MAP(VARCHAR, VARCHAR)",
              "terms": "STRUCT(key VARCHAR, kind VARCHAR, seconds DOUBLE, achievable_s DOUBLE, peak_kind VARCHAR)[]"}


def arrow_type(kind: str) -> pa.DataType:
    """The Arrow type of a column kind."""
    import pyarrow as pa

    term = pa.struct([("key", pa.string()), ("kind", pa.string()), ("seconds", pa.float64()),
                      ("achievable_s", pa.float64()), ("peak_kind", pa.string())])
    return {"str": pa.string(), "f64": pa.float64(), "i64": pa.int64(), "bool": pa.bool_(),
            "ts": pa.timestamp("us", tz="UTC"), "list_str": pa.list_(pa.string()),
            "map": pa.map_(pa.string(), pa.string()), "terms": pa.list_(term)}[kind]


@cache
def arrow_schema(table: str) -> pa.Schema:
    """The Arrow schema of one table's files (the partition columns, gpu and date, are in the folder names)."""
    import pyarrow as pa

    return pa.schema([(name, arrow_type(kind)) for name, kind in COLUMNS[table]],
                     metadata={"roofline_store_schema": str(STORE_SCHEMA)})
