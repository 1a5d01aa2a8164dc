"""A query's result (an Arrow table) as text: an aligned table, CSV or JSON (``{"generator": ..., "rows": [...]}``,
one object per row; null for a value the store does not hold, never NaN). Only formatting: the figures are the
store's."""

from __future__ import annotations

import csv
import io
import json
import math
from datetime import date, datetime
from typing import TYPE_CHECKING, Any, Literal

from roofline.core.version import GENERATOR

if TYPE_CHECKING:  # pragma: no cover
    import pyarrow as pa

QueryFormat = Literal["table", "csv", "json"]
QUERY_FORMATS: tuple[QueryFormat, ...] = ("table", "csv", "json")
CELL = 60  # the widest cell of the aligned table; longer texts are cut in the middle


def plain(value: Any) -> Any:
    """A cell as JSON data: dates as ISO text, non-finite numbers as null, nested values kept."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


def formatted(table: pa.Table, fmt: QueryFormat) -> str:
    """The table as text in ``fmt``."""
    rows = [[plain(v) for v in row.values()] for row in table.to_pylist()]
    names = table.column_names
    if fmt == "json":
        records = [dict(zip(names, row, strict=True)) for row in rows]
        return json.dumps({"generator": GENERATOR, "rows": records}, allow_nan=False, separators=(",", ":")) + "\n"
    if fmt == "csv":
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(names)
        writer.writerows([[_csv(v) for v in row] for row in rows])
        return out.getvalue()
    cells = [names] + [[_cell(v) for v in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(names))]
    lines = ["  ".join(c.rjust(w) if _numeric(table, i) else c.ljust(w) for i, (c, w) in
                       enumerate(zip(r, widths, strict=True))).rstrip() for r in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines) + f"\n({table.num_rows} row{'s' if table.num_rows != 1 else ''})\n"


def _csv(value: Any) -> Any:
    """One CSV field: empty for null, nested values as JSON, numbers in full."""
    if value is None:
        return ""
    return json.dumps(value) if isinstance(value, (list, dict)) else value


def _cell(value: Any) -> str:
    """One cell's text: empty for null, numbers with 6 significant digits, long texts cut in the middle."""
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.6g}"
    text = json.dumps(value) if isinstance(value, (list, dict)) else str(value)
    return text if len(text) <= CELL else text[:CELL // 2 - 1] + "..." + text[-(CELL // 2 - 2):]


def _numeric(table: pa.Table, i: int) -> bool:
    import pyarrow.types as t

    kind = table.schema.field(i).type
    return bool(t.is_integer(kind) or t.is_floating(kind) or t.is_decimal(kind))
