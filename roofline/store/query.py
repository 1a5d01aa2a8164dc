"""``roofline query STORE SQL``: DuckDB (embedded) over the store's Parquet files, the tables as views
(``launches``, ``advice``, ``reports``, ``errors``); a table with no file yet is an empty view of its schema. The
views read only the files the manifest names, by their gpu and date partitions (a ``WHERE gpu = ...`` or ``date``
reads only those folders). A store with files an older roofline wrote reads with every column of the current schema
(those files' missing columns read as null)."""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, Any

from roofline.store.dataset import Store, StoreError, open_store
from roofline.store.schema import COLUMNS, DUCK_TYPES, PARTITIONS, STORE_SCHEMA, TABLES, arrow_schema
from roofline.store.text import unique_names

if TYPE_CHECKING:  # pragma: no cover
    import duckdb
    import pyarrow as pa

SHOWN_SQL = 60  # the most of a query's text an error repeats


def connect(store: Store) -> duckdb.DuckDBPyConnection:
    """A DuckDB connection (in memory) with one view per table of the store."""
    import pyarrow as pa

    con: duckdb.DuckDBPyConnection = _duckdb().connect(":memory:")
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


def _duckdb() -> Any:
    """The duckdb module; StoreError where it is not installed."""
    try:
        import duckdb
    except ImportError:
        raise StoreError("roofline query needs duckdb", "pip install 'roofline[store]'") from None
    return duckdb


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
    """The result of one SQL statement over the store, as an Arrow table, its columns named uniquely as DuckDB names
    a subquery's (``unique_names``: ``device``, ``device_1``); StoreError (one line) for a missing or damaged store,
    SQL that DuckDB refuses and SQL that asks no rows (empty, or a statement that is no query) or holds several
    statements; UsageError for a store that is no path or SQL that is no text."""
    from roofline.core.choices import a_path, refused

    a_path("store", store, "roofline-store")
    if not isinstance(sql, str):
        raise refused("sql", sql, "a text of SQL", "give e.g. sql=\"SELECT count(*) FROM launches\"")
    st = open_store(store)
    damaged = st.damaged()
    if damaged is not None:
        raise damaged
    duckdb = _duckdb()
    try:
        con = connect(st)
    except duckdb.Error as e:
        raise _refused(st, e) from None
    try:
        _only_reads(st, sql, duckdb)
        result = con.sql(sql)
        if result is None:
            raise StoreError(f"{st.root}: query {_shown(sql)}: no rows asked (the SQL is empty, or its statement is "
                             "not a query)", "give one SELECT, e.g. roofline query STORE \"SELECT count(*) FROM "
                             "launches\"")
        table = result.to_arrow_table()
        return table.rename_columns(unique_names(table.column_names))
    except duckdb.Error as e:
        raise _refused(st, e) from None
    finally:
        con.close()


# The statement types a query may hold: SELECT (DESCRIBE, SHOW, SUMMARIZE, FROM and VALUES are SELECTs), and EXPLAIN
# of a SELECT (EXPLAIN ANALYZE runs the statement it explains: a COPY ... TO would write).
READING = ("SELECT",)
_EXPLAINED = re.compile(r"^\s*(?:(?:--[^\n]*(?:\n|$)|/\*.*?\*/)\s*)*explain\s+(?:analy[sz]e\s+)?(?:\([^)]*\)\s*)?(.*)$",
                        re.S | re.I)


def _kind(statement: Any, duckdb: Any) -> str:
    """A statement's type; an EXPLAIN's is the type of what it explains ("EXPLAIN" where that is not read)."""
    kind: str = statement.type.name
    if kind != "EXPLAIN":
        return kind
    inner = _EXPLAINED.match(statement.query)
    explained = duckdb.extract_statements(inner[1]) if inner and inner[1].strip() else []
    return explained[0].type.name if len(explained) == 1 and explained[0].type.name != "EXPLAIN" else kind


def _only_reads(st: Store, sql: str, duckdb: Any) -> None:
    """StoreError for SQL with a statement that is no query (COPY ... TO, EXPORT, ATTACH, CREATE, SET, INSTALL,
    EXPLAIN ANALYZE of one of those): a query reads the store, it never writes a file nor changes what later
    statements see. The error names the statement by its own first words and gives the fix for its kind. Then
    StoreError for SQL of several statements: a query answers one (the rows of the others would be dropped)."""
    statements = duckdb.extract_statements(sql)
    for statement in statements:
        kind = _kind(statement, duckdb)
        if kind not in READING:
            raise StoreError(f"{st.root}: query {_shown(sql)}: {_named(statement.query)} refused: a query only reads "
                             "(SELECT, WITH, DESCRIBE, SHOW, SUMMARIZE, EXPLAIN of those)",
                             REFUSED_FIX.get(kind, OTHER_FIX).format(store=st.root))
    if len(statements) > 1:
        raise StoreError(f"{st.root}: query {_shown(sql)}: {len(statements)} statements, and a query answers one "
                         "(the rows of all but the last would be dropped)", SEVERAL_FIX)


# The fix for a statement refused, by its type (DuckDB's): what the user can do instead.
WRITES_FIX = "to write the result to a file, give -o FILE (.csv or .json)"
REFUSED_FIX = {"COPY": WRITES_FIX, "EXPORT": WRITES_FIX, "COPY_DATABASE": WRITES_FIX,
               "MULTI": "DuckDB runs a PIVOT without its IN (...) list as several statements: name the values, e.g. "
                        "PIVOT launches ON bound IN ('compute', 'memory') USING count(*)"}
SEVERAL_FIX = "give one statement per query, or join them into one (UNION ALL, a WITH clause, a subquery)"
OTHER_FIX = ("give a SELECT over the views launches, advice, reports and errors; for other statements (settings, "
             "extensions, other databases) open the Parquet files under {store}/data with DuckDB itself")
_FIRST_WORDS = re.compile(r"^\s*(?:(?:--[^\n]*(?:\n|$)|/\*.*?\*/)\s*)*((?:explain\s+(?:analy[sz]e\s+)?)?[a-z_]+)",
                          re.S | re.I)


def _named(text: str) -> str:
    """A statement as its first words name it (``INSTALL``, ``EXPLAIN ANALYZE COPY``), upper case."""
    words = _FIRST_WORDS.match(text)
    return " ".join(words[1].upper().split()) if words else "that statement"


def _refused(st: Store, error: Exception) -> StoreError:
    """DuckDB's error as one line: a file of the store that cannot be read (whole at its ends, ``Store.lost``, but
    not inside), or the SQL it refuses."""
    first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    bad = st.unreadable()
    if bad is not None or str(st.root / "data") in first:
        return StoreError(f"{st.root / bad if bad else st.root}: damaged store: {first}", "delete that file, then "
                          f"roofline collect -o {st.root} analyses again the reports whose rows it held; or delete "
                          "the store and collect again")
    return StoreError(f"query: {first}", "the views are launches, advice, reports and errors "
                      "(DESCRIBE launches lists the columns)")


def _shown(sql: str) -> str:
    """The SQL as a short quoted text for a message."""
    import json

    text = " ".join(sql.split())
    return json.dumps(text if len(text) <= SHOWN_SQL else text[:SHOWN_SQL - 3] + "...")
