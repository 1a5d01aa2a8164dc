"""A query's result (an Arrow table) as text: an aligned table (its text cells whole, or cut in the middle only as
far as a given width needs), CSV or JSON (``{"generator": ..., "rows": [...]}``, one object per row; null for a
value the store does not hold, never NaN). Each column in its place, whatever its name; a value of any DuckDB type
written as data (``plain``). Only formatting: the figures are the store's."""

from __future__ import annotations

import csv
import io
import json
import math
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Literal

from roofline.core.version import GENERATOR
from roofline.render.names import printable

if TYPE_CHECKING:  # pragma: no cover
    import pyarrow as pa

QueryFormat = Literal["table", "csv", "json"]
QUERY_FORMATS: tuple[QueryFormat, ...] = ("table", "csv", "json")
FEWEST = 24  # the fewest characters a text column is cut to where the table must fit a width (its header whole)
CUT = "..."  # in place of the middle of a cell's text that is cut
BLOB_ESCAPED = frozenset(b'"\'\\')  # the printable bytes DuckDB writes as \xNN in a BLOB's text, as the others


def unique_names(names: list[str]) -> list[str]:
    """Column names made unique as DuckDB names a subquery's columns (``SELECT * FROM (SELECT 1 AS a, 2 AS a)``:
    ``a``, ``a_1``): a name met before, in any case, takes the first ``_N`` suffix (N from 1) that no column before
    it has."""
    seen: dict[str, int] = {}  # each name met, lower case: the last suffix it took
    out = []
    for name in names:
        new = name
        while new.lower() in seen:
            seen[name.lower()] += 1
            new = f"{name}_{seen[name.lower()]}"
        seen[new.lower()] = 0
        out.append(new)
    return out


def plain(value: Any) -> Any:
    """A cell as JSON data: a decimal of no fractional digits (DuckDB's HUGEINT, ``sum`` of integers) as the whole
    number, one with some (a DECIMAL) as the nearest float (what a JSON reader takes it as); dates, times and
    intervals as text; bytes (a BLOB) as DuckDB writes them (``\\xAA`` for a byte that is no printable ASCII, a
    quote or a backslash); non-finite numbers as null; nested values kept; any other value (a UUID) as its text."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, Decimal):
        return int(value) if int(value.as_tuple().exponent) >= 0 else plain(float(value))
    if isinstance(value, (datetime, date, time)):
        return value.isoformat()
    if isinstance(value, (bytes, bytearray)):
        return "".join(f"\\x{b:02X}" if b < 32 or b >= 127 or b in BLOB_ESCAPED else chr(b) for b in value)
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if _is_interval(value):
        return interval_text(*value)
    if isinstance(value, timedelta):
        return str(value)
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return str(value)


def _is_interval(value: Any) -> bool:
    """Whether ``value`` is an Arrow interval (DuckDB's INTERVAL): months, days and nanoseconds."""
    return isinstance(value, tuple) and type(value).__name__ == "MonthDayNano"


def interval_text(months: int, days: int, nanoseconds: int) -> str:
    """An interval as DuckDB writes it: ``1 year 2 months 3 days 00:00:05.000007`` (``00:00:00`` for none)."""
    years, months = divmod(months, 12) if months >= 0 else (-divmod(-months, 12)[0], -divmod(-months, 12)[1])
    parts = [f"{n} {unit}{'s' if abs(n) != 1 else ''}" for n, unit in ((years, "year"), (months, "month"),
                                                                        (days, "day")) if n]
    micros = nanoseconds // 1000 if nanoseconds >= 0 else -(-nanoseconds // 1000)
    if micros or not parts:
        parts.append(("-" if micros < 0 else "") + clock_text(abs(micros), 1_000_000))
    return " ".join(parts)


def clock_text(count: int, per_second: int) -> str:
    """A time of day (or an interval's time) of ``count`` units of ``1 / per_second`` second as DuckDB writes it:
    ``HH:MM:SS`` and the fraction's digits, but its trailing zeros."""
    seconds, fraction = divmod(count, per_second)
    minutes, seconds = divmod(seconds, 60)
    hours, minutes = divmod(minutes, 60)
    digits = len(str(per_second)) - 1
    return f"{hours:02d}:{minutes:02d}:{seconds:02d}" + f".{fraction:0{digits}d}".rstrip("0").rstrip(".")


def formatted(table: pa.Table, fmt: QueryFormat, width: int | None = None) -> str:
    """The table as text in ``fmt``, each column in its place (JSON keys made unique: ``unique_names``); an aligned
    table fits its lines in ``width`` characters where it can, its text cells cut in the middle only as much as that
    needs (None: every cell whole)."""
    names = table.column_names
    columns = [column_values(table, i) for i in range(table.num_columns)]
    rows = [list(row) for row in zip(*columns, strict=True)] if columns else [[] for _ in range(table.num_rows)]
    if fmt == "json":
        records = [dict(zip(unique_names(names), map(plain, row), strict=True)) for row in rows]
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


def column_values(table: pa.Table, i: int) -> list[Any]:
    """Column ``i``'s values as Python values (a map as a dict, as the report document writes one); a value Python
    cannot hold (a date past year 9999) as Arrow's text of it; StoreError (one line) for a column of such
    values that Arrow cannot write as text either (a list of them)."""
    import pyarrow as pa

    from roofline.store.dataset import StoreError

    column = table.column(i)
    if pa.types.is_time(column.type):  # Python's time holds neither 24:00:00 nor nanoseconds: from the count
        per_second = {"s": 1, "ms": 1_000, "us": 1_000_000, "ns": 1_000_000_000}[column.type.unit]
        return [None if n is None else clock_text(n, per_second)
                for n in column.cast(pa.int32() if column.type.bit_width == 32 else pa.int64()).to_pylist()]
    try:
        values = column.to_pylist()
    except (ValueError, OverflowError, pa.ArrowException) as err:
        try:
            values = column.cast(pa.string()).to_pylist()
        except pa.ArrowException:
            name = table.column_names[i]
            raise StoreError(f"query: column {name!r} ({column.type}) holds a value Python cannot hold ({err})",
                             f'cast it to text in the SQL: CAST("{name}" AS VARCHAR)') from None
    if _is_map(column.type):
        return [None if v is None else dict(v) for v in values]
    return list(values)


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
    """One CSV field: empty for null, numbers in full (a decimal with all its digits), nested values as JSON, any
    other value as ``plain`` writes it."""
    if isinstance(value, Decimal):
        return str(value)
    value = plain(value)
    if value is None:
        return ""
    return json.dumps(value) if isinstance(value, (list, dict)) else value


def _cell(value: Any) -> str:
    """One cell's text, whole: empty for null, numbers with 6 significant digits (a decimal with all its digits),
    nested values as JSON, any other value as ``plain`` writes it, control characters of a text as escapes (a line
    end would break its row)."""
    if isinstance(value, Decimal):
        return str(value)
    value = plain(value)
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
