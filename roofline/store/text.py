"""A query's result (an Arrow table) as text: an aligned table (its text cells whole, or cut in the middle only as
far as a given width needs), CSV or JSON (``{"generator": ..., "rows": [...]}``, one object per row; null for a
value the store does not hold, never NaN). Only formatting: the figures are the store's."""

from __future__ import annotations

import csv
import io
import json
import math
from datetime import date, datetime
from typing import TYPE_CHECKING, Any, Literal

from roofline.core.version import GENERATOR
from roofline.render.names import printable

if TYPE_CHECKING:  # pragma: no cover
    import pyarrow as pa

QueryFormat = Literal["table", "csv", "json"]
QUERY_FORMATS: tuple[QueryFormat, ...] = ("table", "csv", "json")
FEWEST = 24  # the fewest characters a text column is cut to where the table must fit a width (its header whole)
CUT = "..."  # in place of the middle of a cell's text that is cut


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


def formatted(table: pa.Table, fmt: QueryFormat, width: int | None = None) -> str:
    """The table as text in ``fmt``; an aligned table fits its lines in ``width`` characters where it can, its text
    cells cut in the middle only as much as that needs (None: every cell whole)."""
    maps = {i for i, field in enumerate(table.schema) if _is_map(field.type)}
    rows = [[plain(dict(v) if i in maps and v is not None else v) for i, v in enumerate(row.values())]
            for row in table.to_pylist()]
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
    numeric = [_numeric(table, i) for i in range(len(names))]
    body = [[_cell(v) for v in row] for row in rows]
    widths = fitted([max(len(c) for c in column) for column in zip(names, *body, strict=True)],
                    [len(n) for n in names], numeric, width)
    cells = [names] + [[_cut(c, w) for c, w in zip(row, widths, strict=True)] for row in body]
    lines = ["  ".join(c.rjust(w) if numeric[i] else c.ljust(w) for i, (c, w) in
                       enumerate(zip(r, widths, strict=True))).rstrip() for r in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines) + f"\n({table.num_rows} row{'s' if table.num_rows != 1 else ''})\n"


def fitted(widths: list[int], headers: list[int], numeric: list[bool], width: int | None) -> list[int]:
    """Column widths whose line (two spaces between columns) fits ``width``: the text columns (not the numbers)
    cut to one common most, as long as it can be (never below their header nor ``FEWEST``); ``widths`` as they are
    where they fit, or with no ``width``."""
    def line(most: int) -> list[int]:
        return [w if num else min(w, max(most, h, FEWEST)) for w, h, num in zip(widths, headers, numeric, strict=True)]

    room = None if width is None else width - 2 * (len(widths) - 1)
    if room is None or not widths or sum(widths) <= room:
        return widths
    low, high = 0, max(widths)  # the largest common most whose line fits: line(low) fits, or low is 0
    while low < high:
        mid = (low + high + 1) // 2
        low, high = (mid, high) if sum(line(mid)) <= room else (low, mid - 1)
    return line(low)


def _cut(text: str, width: int) -> str:
    """``text`` in at most ``width`` characters, ``CUT`` in place of its middle when it is longer."""
    if len(text) <= width:
        return text
    if width <= len(CUT):
        return text[:width]
    head = (width - len(CUT) + 1) // 2
    return text[:head] + CUT + text[len(text) - (width - len(CUT) - head):]


def _csv(value: Any) -> Any:
    """One CSV field: empty for null, nested values as JSON, numbers in full."""
    if value is None:
        return ""
    return json.dumps(value) if isinstance(value, (list, dict)) else value


def _cell(value: Any) -> str:
    """One cell's text, whole: empty for null, numbers with 6 significant digits, nested values as JSON, control
    characters of a text as escapes (a line end would break its row)."""
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.6g}"
    return json.dumps(value) if isinstance(value, (list, dict)) else printable(str(value))


def _is_map(kind: pa.DataType) -> bool:
    """Whether a column is a map (the launches' ``missing``): written as an object, as the report document writes
    it, not as Arrow's list of pairs."""
    import pyarrow.types as t

    return bool(t.is_map(kind))


def _numeric(table: pa.Table, i: int) -> bool:
    import pyarrow.types as t

    kind = table.schema.field(i).type
    return bool(t.is_integer(kind) or t.is_floating(kind) or t.is_decimal(kind))
