"""One Arrow schema per table, the same in every file whatever the report's ncu version and GPU."""

from __future__ import annotations

from pathlib import Path

from roofline.store.dataset import open_store
from roofline.store.schema import COLUMNS, PARTITIONS, STORE_SCHEMA, TABLES, arrow_schema


def test_every_file_of_a_table_has_its_one_schema(collected: tuple[Path, list[Path]]) -> None:
    import pyarrow.parquet as pq

    store = open_store(collected[0])
    for table in ("launches", "advice", "reports"):
        files = store.files(table)
        assert len(files) >= 2  # several GPUs, so several partitions
        for f in files:
            schema = pq.read_schema(f)
            assert schema.equals(arrow_schema(table), check_metadata=False), f
            assert schema.metadata[b"roofline_store_schema"] == str(STORE_SCHEMA).encode()


def test_no_column_is_named_twice_or_after_a_partition() -> None:
    for table in TABLES:
        names = [name for name, _ in COLUMNS[table]]
        assert len(names) == len(set(names)) and not set(names) & set(PARTITIONS)
