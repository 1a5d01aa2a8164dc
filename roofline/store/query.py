"""``roofline query STORE SQL``: DuckDB (embedded) over the store's Parquet files, the tables as views
(``launches``, ``advice``, ``reports``, ``errors``); a table with no file yet is an empty view of its schema. The
views read only the files the manifest names, by their gpu and date partitions (a ``WHERE gpu = ...`` or ``date``
reads only those folders). A store with files an older roofline wrote reads with every column of the current schema
(those files' missing columns read as null)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from roofline.store.dataset import Store, StoreError, open_store
from roofline.store.schema import COLUMNS, DUCK_TYPES, PARTITIONS, STORE_SCHEMA, TABLES, arrow_schema

if TYPE_CHECKING:  # pragma: no cover
    import duckdb
    import pyarrow as pa


def connect(store: Store) -> duckdb.DuckDBPyConnection:
    """A DuckDB connection (in memory) with one view per table of the store."""
    try:
        import duckdb
    except ImportError:
        raise StoreError("roofline query needs duckdb", "pip install 'roofline[store]'") from None
    import pyarrow as pa

    con = duckdb.connect(":memory:")
    older = int(store.manifest.get("store_schema", STORE_SCHEMA)) < STORE_SCHEMA or bool(
        store.manifest.get("old_files"))
    for table in TABLES:
        files = [str(f) for f in store.files(table)]
        if files:
            listed = ", ".join("'" + f.replace("'", "''") + "'" for f in files)
            read = f"read_parquet([{listed}], hive_partitioning = true{', union_by_name = true' if older else ''})"
            con.execute(f"CREATE VIEW {table} AS SELECT {_columns(con, table, read) if older else '*'} FROM {read}")
        else:
            con.register(f"_{table}_empty", pa.Table.from_pylist([], schema=_with_partitions(table)))
            con.execute(f"CREATE VIEW {table} AS SELECT * FROM _{table}_empty")
    return con


def _columns(con: duckdb.DuckDBPyConnection, table: str, read: str) -> str:
    """The select list of a store with an older roofline's files: every column of the current schema, null where
    no file has it, then the partitions."""
    have = {row[0] for row in con.sql(f"DESCRIBE SELECT * FROM {read}").fetchall()}
    columns = [name if name in have else f"CAST(NULL AS {DUCK_TYPES[kind]}) AS {name}" for name, kind in COLUMNS[table]]
    return ", ".join(columns + [p for p in PARTITIONS if p in have])


def _with_partitions(table: str) -> pa.Schema:
    """A table's schema with its partition columns, as its files read."""
    import pyarrow as pa

    schema = arrow_schema(table)
    if table != "errors":
        schema = schema.append(pa.field("gpu", pa.string()))
    return schema.append(pa.field("date", pa.date32()))


def query(store: str | os.PathLike[str], sql: str) -> pa.Table:
    """The result of one SQL statement over the store, as an Arrow table; StoreError (one line) for a missing
    store or SQL that DuckDB refuses."""
    import duckdb

    con = connect(open_store(store))
    try:
        return con.sql(sql).to_arrow_table()
    except duckdb.Error as e:
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise StoreError(f"query: {first}", "the views are launches, advice, reports and errors "
                         "(DESCRIBE launches lists the columns)") from None
    finally:
        con.close()
