"""The CSV output (``report --format csv``), in long form: one row per launch and quantity, the same columns
(``LONG_COLUMNS``) for every report, so that the CSVs of any reports stack; and ``to_dataframe`` for pandas, one row
per kernel launch, one column per leaf of the JSON document but the hot spots (a table of their own per launch, in
the JSON only).

Columns are the JSON paths joined with dots (``flops.fp32``, ``ceilings.datasheet.dram_bytes_per_s``,
``advice.0.text``), the same in the CSV and the DataFrame; the report's own leaves come first under ``report.``
(path, device, spec, ceilings used). A null is an empty cell with its reason in the ``missing.<path>`` column, as
in the JSON. Numbers are in SI base units, named by the JSON's conventions (``_s``, ``_pct``, ``bytes``...);
``to_dataframe`` also gives each numeric column's unit in ``DataFrame.attrs["units"]``.

The CSV starts with its header row, so that any CSV reader takes it as it is; its first cells (the first of
``CSV_MARKS``) are how the writer recognises a CSV of its own before replacing it. A text cell a spreadsheet would
take for a formula (starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return: kernel names come from
user code) is prefixed with ``'``, as OWASP's guidance on CSV injection says (``render.names.csv_text``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from roofline.analysis.view import ReportSetView, ReportView
from roofline.errors import RooflineError
from roofline.render import REPORT_CSV_COLUMNS
from roofline.render.names import csv_text
from roofline.render.report.json import report_dict, with_reasons

if TYPE_CHECKING:  # pragma: no cover
    import pandas

PANDAS_HINT = "pip install 'roofline[pandas]' (or pip install pandas)"
HOTSPOTS = "hotspots"  # the JSON key of a launch's hot spots, left out of the rows
# (pattern on a column's path, unit): the first match gives a numeric column its unit. One place for the units of
# the JSON leaves, from the naming conventions of render.json (SI base units, suffix _s, _pct, _hz, ...).
_UNITS: tuple[tuple[re.Pattern[str], str], ...] = tuple((re.compile(p), u) for p, u in (
    (r"^missing\.", ""),
    (r"(^|\.)(flop_per_s\.|[a-z0-9]+_flop_per_s$)", "FLOP/s"),
    (r"(^|\.)(bytes_per_s\.|[a-z0-9]+_bytes_per_s$)", "B/s"),
    (r"(^|\.)(flops\.|tensor_flops_by_type\.|flops_by_type\.)", "FLOP"),
    (r"(^|\.)(bytes\.|[a-z0-9_]+_bytes$)", "B"),
    (r"^instruction_roofline\.(warp_gips|peak_warp_gips)$", "1e9 warp instructions/s"),
    (r"^instruction_roofline\.thread_gips_per_32$", "1e9 thread instructions/32/s"),
    (r"^instruction_roofline\.thread_intensity\.", "thread instructions/32/transaction"),
    (r"^instruction_roofline\.integer\.(giops|peak_giops)$", "1e9 instructions/s"),
    (r"^instruction_roofline\.integer\.intensity\.", "instructions/B"),
    (r"^instruction_roofline\.intensity\.", "warp instructions/transaction"),
    (r"^instruction_roofline\.peak_gtxn_per_s\.", "1e9 transactions/s"),
    (r"^instruction_roofline\.transactions\.", "transactions"),
    (r"^instruction_roofline\.global_memory\.(ld|st|walls\.[a-z0-9_]+|width_walls\.[a-z]+)$",
     "warp instructions/sector"),
    (r"^instruction_roofline\.shared_memory\.(ld|st|walls\.[a-z0-9_]+|width_walls\.[a-z]+)$",
     "warp instructions/wavefront"),
    (r"\.width_bytes\.[a-z]+$", "B"),
    (r"(^|\.)intensity\.", "FLOP/B"),
    (r"(_pct|pct_of_roof|pct_of_peak|pct_of_peak\.[a-z0-9_]+|utilization_pct\.[a-z0-9]+|\.pct)$", "%"),
    (r"_hz$", "Hz"),
    (r"_bits$", "bit"),
    (r"(^|\.|_)s$", "s"),
    (r"\.seconds$", "s"),
    (r"(time_share|flop_share|\.share)$", "fraction"),
))


def rows(views: Sequence[ReportView]) -> list[dict[str, Any]]:
    """One flat dict per launch, in report order: the report's leaves (``report.*``; not its ceilings, the medians
    of the launches' own, which each row carries), then the launch's."""
    out = []
    for v in views:
        doc = report_dict(v)
        left_out = ("kernels", "groups", "reasons", "ceilings")
        head = flatten({k: v for k, v in doc.items() if k not in left_out}, "report")
        out += [{**head, **flatten(with_reasons(_without_hotspots(kernel), doc["reasons"]))}
                for kernel in doc["kernels"]]
    return out


def _without_hotspots(kernel: Mapping[str, Any]) -> dict[str, Any]:
    """A kernel of the JSON document without its hot spots: a table of instructions and lines per launch, which
    one row per launch cannot hold (the JSON has them)."""
    missing = {path: i for path, i in kernel["missing"].items() if not path.startswith(HOTSPOTS)}
    return {**{key: value for key, value in kernel.items() if key != HOTSPOTS}, "missing": missing}


def flatten(value: Any, path: str = "") -> dict[str, Any]:
    """Leaves of nested dicts and lists keyed by their dotted path (list items by index); empty ones dropped."""
    if isinstance(value, Mapping):
        items = list(value.items())
    elif isinstance(value, list):
        items = list(enumerate(value))
    else:
        return {path: value}
    out: dict[str, Any] = {}
    for key, item in items:
        out.update(flatten(item, f"{path}.{key}" if path else str(key)))
    return out


def columns(table: Sequence[Mapping[str, Any]]) -> list[str]:
    """Every column of the rows, in first-seen order."""
    return list(dict.fromkeys(key for row in table for key in row))


def unit(path: str, table: Sequence[Mapping[str, Any]]) -> str:
    """The unit of a number column, also when every cell is null ("" for text and flag columns and counts)."""
    if any(isinstance(row.get(path), (str, bool)) for row in table):
        return ""
    return next((u for pattern, u in _UNITS if pattern.search(path)), "")


# The CSV's columns (``report --format csv``), the same for every report: one row per launch and quantity.
LONG_COLUMNS = REPORT_CSV_COLUMNS
DIMS = ("x", "y", "z")  # the axes of a launch's grid and block
# The field naming an item of a list of records, the first one it has (not empty): an advice item's topic (one item
# per topic and launch: "roof", "coalescing:l2", "stall:long_scoreboard"), a stall's reason, a time model term's key
# ("DRAM", "issue", "tail": its kind repeats), a unit's name, ...
_ITEM_KEYS = ("topic", "reason", "key", "kind", "name", "metric", "change")


def render(view: ReportSetView) -> str:
    """The CSV text (``render.names.csv_text``) in long form: the header row ``LONG_COLUMNS`` (starting with the
    first of ``CSV_MARKS``), then one row per launch and quantity (``long_rows``), so that the CSVs of any reports
    stack."""
    return csv_text(LONG_COLUMNS, long_rows(view.reports))


def long_rows(views: Sequence[ReportView]) -> list[tuple[Any, ...]]:
    """Per report, per launch, per quantity (a JSON leaf named by its path, the items of a list named by their own
    key): the report, the launch key and kernel name, the quantity, its number (``value``) and unit, or its text
    (``text``), and for a null the reason (``missing``). A report's own leaves (``report.*``) are rows too, with an
    empty launch."""
    out: list[tuple[Any, ...]] = []
    for v in views:
        doc = report_dict(v)
        device = doc["device"]
        head = (doc["path"], doc["source"], device["name"], device["spec_id"])
        left_out = ("path", "source", "kernels", "groups", "reasons", "ceilings")
        report_leaves = named_leaves({k: x for k, x in doc.items() if k not in left_out})
        out += [(*head, "", "", *_cells(path, x, {}, f"report.{path}")) for path, x in report_leaves.items()]
        for k, kernel in zip(v.analysis.launches, doc["kernels"], strict=True):
            kernel = with_reasons(_without_hotspots(kernel), doc["reasons"])
            why = {**kernel.pop("missing"), **_ceiling_reasons(kernel.get("ceilings") or {})}
            kernel["ceilings"] = {name: {key: x for key, x in c.items() if key != "missing"} if c else c
                                  for name, c in (kernel.get("ceilings") or {}).items()}
            leaves = _leaves(kernel, "", "")
            named = {json_path: path for path, json_path, _ in leaves}  # a reason's key, as the row names it
            rows = [(path, x, why.get(json_path)) for path, json_path, x in leaves]
            rows += [(named.get(json_path, json_path), None, reason) for json_path, reason in why.items()
                     if json_path not in named]  # a value left out whole (a null block), named by its reason
            name = kernel["name"]
            out += [(*head, k.launch.key, name, *_cells(path, x, {path: reason} if reason else {}, path))
                    for path, x, reason in rows]
    return out


def _ceiling_reasons(ceilings: Mapping[str, Mapping[str, Any] | None]) -> dict[str, str]:
    """Why each ceiling of a launch's sets is null, keyed by the path of its null (``ceilings.SET.KEY_flop_per_s``
    or ``_bytes_per_s``), from the sets' own ``missing`` (keyed by roof): each reason goes on the row it explains."""
    return {f"ceilings.{name}.{roof}_{'bytes_per_s' if f'{roof}_bytes_per_s' in c else 'flop_per_s'}": reason
            for name, c in ceilings.items() if c for roof, reason in (c.get("missing") or {}).items()}


def _cells(path: str, value: Any, why: Mapping[str, str], quantity: str) -> tuple[Any, ...]:
    """quantity, value, unit, text, missing: a number in ``value`` with its unit, any other value in ``text``."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return quantity, value, next((u for pattern, u in _UNITS if pattern.search(path)), ""), None, None
    return quantity, None, "", value, why.get(path) if value is None else None


def named_leaves(value: Any, path: str = "") -> dict[str, Any]:
    """``flatten`` with the items of a list of records keyed by their name (``_ITEM_KEYS``: a stall reason, a unit's
    metric, an advice kind; a repeat gets ``#2``...) rather than their position, and a list of texts as one text
    (joined with "; "): paths that mean the same in every report."""
    return {named: x for named, _, x in _leaves(value, path, path)}


def _leaves(value: Any, named: str, json_path: str) -> list[tuple[str, str, Any]]:
    """Each leaf as (its named path, its path in the JSON, its value); the JSON path (``advice[3].est_saved_s``)
    is the key of its reason under ``missing``."""
    def down(key: str) -> tuple[str, str]:
        return (f"{named}.{key}" if named else key), (f"{json_path}.{key}" if json_path else key)

    if isinstance(value, Mapping):
        return [leaf for key, item in value.items() for leaf in _leaves(item, *down(str(key)))]
    if not isinstance(value, list):
        return [(named, json_path, value)]
    if all(isinstance(item, str) for item in value):
        return [(named, json_path, "; ".join(value) if value else None)]
    if named.rsplit(".", 1)[-1] in ("grid", "block") and len(value) == len(DIMS):
        return [(f"{named}.{axis}", f"{json_path}[{i}]", item) for i, (axis, item) in enumerate(zip(DIMS, value,
                                                                                                   strict=True))]
    out = []
    seen: dict[str, int] = {}
    for i, item in enumerate(value):
        field = next((f for f in _ITEM_KEYS if isinstance(item, Mapping) and isinstance(item.get(f), str)
                      and item[f]), None)
        name = item[field] if field is not None else str(i)
        seen[name] = seen.get(name, 0) + 1
        key = name if seen[name] == 1 else f"{name}#{seen[name]}"
        rest = {k: x for k, x in item.items() if k != field} if field is not None else item
        out += _leaves(rest, f"{named}.{key}", f"{json_path}[{i}]")
    return out


def to_dataframe(views: ReportView | Sequence[ReportView]) -> pandas.DataFrame:
    """The launches of one report's view (or several) as a pandas DataFrame, one row per launch and one column per
    JSON leaf (units in ``.attrs["units"]``); ``roofline.to_dataframe`` takes analyses. Needs pandas: RooflineError
    with the install line otherwise."""
    return dataframe(rows([views] if isinstance(views, ReportView) else views))


def dataframe(table: Sequence[Mapping[str, Any]]) -> pandas.DataFrame:
    """Flat rows as a pandas DataFrame, one column per path in first-seen order, units in ``.attrs["units"]``.
    Needs pandas: RooflineError with the install line otherwise."""
    try:
        import pandas
    except ImportError:
        raise RooflineError("to_dataframe needs pandas, which is not installed", PANDAS_HINT) from None
    names = columns(table)
    frame = pandas.DataFrame.from_records(table, columns=names)
    frame.attrs["units"] = {name: u for name in names if (u := unit(name, table))}
    return frame
