"""The one check of the reports roofline reads: report models (``.json``) and what the ``.ncu-rep`` reader
returns (device spec YAML is read by ``safe_yaml``). It holds the physical limits a GPU measurement must respect,
checks types, finite values and ranges, and words each problem as one line naming the file, the field and the fix.

Three outcomes, by how far a problem reaches:

* a malformed document or an impossible device (wrong types, a value that is not a finite number, an SM count
  of 0) is an error: the file cannot be analysed (``ReportError``, exit 2);
* a launch whose attributes are impossible (registers per thread above 255, a zero grid, a duration of 0) is
  kept and marked ``invalid`` with the reason: it is left out of times, rankings and verdicts, the run goes on;
* records that contradict each other (several devices, duplicated range:action keys, a cut or appended file)
  become report warnings, printed on stderr and carried by every output.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from roofline.core.model import (
    LAUNCH_FIELDS,
    MODEL_FORMAT,
    MODEL_VERSION,
    MODEL_VERSIONS,
    Device,
    KernelLaunch,
    MetricTable,
    Report,
    float_column,
    table_rows,
)
from roofline.errors import ReportError
from roofline.ncu.metrics import (
    CLOCK_METRICS,
    DRAM_CLOCK,
    DURATION,
    LAUNCH_BLOCK,
    LAUNCH_GRID,
    LAUNCH_REGISTERS,
    LAUNCH_SHARED,
)

# --- Physical limits ------------------------------------------------------------------------------------------
# CUDA C Programming Guide, "Technical Specifications per Compute Capability" (every CC from 5.0 to 12.x).
MAX_REGISTERS_PER_THREAD = 255
MAX_THREADS_PER_BLOCK = 1024
MAX_SHARED_PER_BLOCK = 1 << 20  # when the device does not say: 4x the largest SM carveout so far (228 KiB)
CC_PATTERN = re.compile(r"\d{1,2}\.\d{1,2}")  # compute capability "major.minor", e.g. "8.0", "12.0"
MODEL_FIX = "regenerate the model from its .ncu-rep (roofline.load(path).to_dict()) or correct the value"
NCU_FIX = "the file is corrupt; copy it again or re-profile"
LARGEST = 1e300  # ints are exact in JSON, and those beyond this may not fit a float


@dataclass(frozen=True)
class Limit:
    """The physical range of one kind of quantity: ``low`` to ``high``, each bound open or closed."""

    low: float
    high: float = math.inf
    low_open: bool = False
    high_open: bool = False
    integer: bool = False

    def problem(self, value: object) -> str | None:
        """Why ``value`` is not such a quantity, or None when it is."""
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return f"is {_shown(value)}, expected a number"
        if isinstance(value, int) and abs(value) > LARGEST:
            return "is out of the range of numbers"
        if not math.isfinite(value):
            return f"is {value}, expected a finite number"
        if self.integer and not float(value).is_integer():
            return f"is {value:g}, expected a whole number"
        below = value <= self.low if self.low_open else value < self.low or _negative_zero(value) and self.low == 0
        above = value >= self.high if self.high_open else value > self.high
        if below or above:
            return f"is {value:g}, expected {self.describe()}"
        return None

    def describe(self) -> str:
        low = f"{self.low:g} {'<' if self.low_open else '<='} value"
        return low if math.isinf(self.high) else f"{low} {'<' if self.high_open else '<='} {self.high:g}"


def _negative_zero(value: float) -> bool:
    """-0.0: equal to 0, yet no count, size or time is ever below zero; it marks a value that was not measured."""
    return value == 0 and math.copysign(1.0, value) < 0


COUNT = Limit(0.0)  # metric values: counts, rates, percentages, clocks all start at 0
POSITIVE = Limit(0.0, low_open=True)  # peaks, bandwidths, durations
WHOLE = Limit(0.0, integer=True)  # bytes, indices
SM_COUNT = Limit(0.0, 10_000.0, low_open=True, high_open=True, integer=True)
REGISTERS = Limit(0.0, MAX_REGISTERS_PER_THREAD, integer=True)
CLOCK_HZ = Limit(1e8, 1e10)  # SM and cache clocks: 100 MHz to 10 GHz
MEMORY_CLOCK_HZ = Limit(1e8, 1e11)  # memory clocks, up to GDDR's effective data rates
DIMENSION = Limit(1.0, 2.0**32, integer=True)  # one grid or block dimension
BUS_BITS = Limit(1.0, 65536.0, integer=True)
# The device attributes the occupancy rules read, with the range each may take.
SM_ATTRIBUTES = {
    "max_warps_per_multiprocessor": Limit(1.0, 1024.0, integer=True),
    "max_blocks_per_multiprocessor": Limit(1.0, 1024.0, integer=True),
    "max_registers_per_multiprocessor": Limit(1.0, 2.0**24, integer=True),
    "num_schedulers_per_multiprocessor": Limit(1.0, 64.0, integer=True),
    "max_shared_memory_per_multiprocessor": Limit(0.0, 2.0**30, integer=True),
    "max_threads_per_block": Limit(1.0, MAX_THREADS_PER_BLOCK, integer=True),
    "reserved_shared_memory_per_block": Limit(0.0, 2.0**20, integer=True),
}


def _shown(value: object) -> str:
    """A value for a message: short, whatever it is."""
    text = repr(value) if isinstance(value, (str, int, float, bool)) or value is None else type(value).__name__
    return text if len(text) <= 40 else text[:37] + "..."


# --- Report models (.json) ------------------------------------------------------------------------------------
class _Document:
    """Typed reads of a report-model document; the first problem raises one line naming file, field and fix."""

    def __init__(self, path: str | Path) -> None:
        self.path = path

    def fail(self, field: str, problem: str) -> ReportError:
        return ReportError(f"{self.path}: {field} {problem}", MODEL_FIX)

    def mapping(self, value: object, field: str) -> Mapping[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(field, f"is {_shown(value)}, expected an object")
        return value

    def text(self, value: object, field: str) -> str:
        if not isinstance(value, str):
            raise self.fail(field, f"is {_shown(value)}, expected a string")
        return value

    def texts(self, value: object, field: str) -> None:
        if not isinstance(value, list):
            raise self.fail(field, f"is {_shown(value)}, expected a list of strings")
        for i, item in enumerate(value):
            self.text(item, f"{field}[{i}]")

    def number(self, value: object, field: str, limit: Limit) -> None:
        """A number in ``limit`` (None allowed: not measured)."""
        if value is not None:
            problem = limit.problem(value)
            if problem:
                raise self.fail(field, problem)

    def numeric(self, value: object, field: str) -> None:
        """A number a float can hold, finite or not (a non-finite metric marks its launch invalid later)."""
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.fail(field, f"is {_shown(value)}, expected a number or a string")
        if isinstance(value, int) and abs(value) > LARGEST:
            raise self.fail(field, "is out of the range of numbers")

    def keys(self, data: Mapping[str, Any], field: str, allowed: Iterable[str], required: Iterable[str]) -> None:
        unknown = sorted(set(data) - set(allowed))
        if unknown:
            raise self.fail(f"{field}.{unknown[0]}", f"is not a known field; allowed: {', '.join(allowed)}")
        absent = [k for k in required if k not in data]
        if absent:
            raise self.fail(f"{field}.{absent[0]}", "is missing")


_DEVICE_NUMBERS = {"sm_count": SM_COUNT, "max_clock_hz": CLOCK_HZ, "memory_clock_hz": MEMORY_CLOCK_HZ,
                   "memory_bus_width_bits": BUS_BITS, "l2_cache_bytes": WHOLE, "total_memory_bytes": WHOLE}
_DEVICE_FIELDS = ("name", "compute_capability", *_DEVICE_NUMBERS, "attributes")
_LAUNCH_REQUIRED = ("range_index", "action_index", "name")
_RULE_FIELDS = ("rule", "section", "title", "message", "kind")
_RULE_EXTRAS = ("focus_metrics", "speedup_pct", "speedup_type")  # optional: models written before lack them
_FOCUS_FIELDS = ("name", "value", "severity", "info")
_SPEEDUP_TYPES = ("local", "global", "")
_METRIC_TYPES = (float, int, str)  # a metric's value in a model, exactly (bool is not a number here)


def check_model_document(data: object, path: str | Path) -> set[int]:
    """The types of a report-model document (``Report.to_dict``), before it is turned into a ``Report``: every
    field of the right type and every number representable, so building the model cannot fail. Ranges are
    checked on the model (``check_report``); the positions returned are the launches with a metric value that may
    be out of range (``_counts_unsure``), found in the same pass over the values."""
    doc = _Document(path)
    top = doc.mapping(data, "the document")
    if top.get("format") != MODEL_FORMAT:
        raise ReportError(f"{path}: not a {MODEL_FORMAT} document (format={_shown(top.get('format'))})",
                          "pass a .ncu-rep file, or a .json written by Report.to_dict")
    version = top.get("version")
    if type(version) is not int or version not in MODEL_VERSIONS:
        raise ReportError(f"{path}: unsupported model version {_shown(version)}, expected "
                          f"{' or '.join(map(str, MODEL_VERSIONS))}", "regenerate the model with this roofline version")
    doc.keys(top, "document", ("format", "version", "label", "ncu_version", "device", "launches"),
             ("device", "launches"))
    doc.text(top.get("label", ""), "label")
    doc.text(top.get("ncu_version", ""), "ncu_version")
    _check_device_types(doc, doc.mapping(top["device"], "device"))
    launches = top["launches"]
    if version == MODEL_VERSION:
        return _check_launch_columns(doc, doc.mapping(launches, "launches"))
    if not isinstance(launches, list):
        raise doc.fail("launches", f"is {_shown(launches)}, expected a list")
    return {i for i, item in enumerate(launches)
            if _check_launch_types(doc, doc.mapping(item, f"launches[{i}]"), f"launches[{i}]")}


def _check_device_types(doc: _Document, device: Mapping[str, Any]) -> None:
    doc.keys(device, "device", _DEVICE_FIELDS, ("name",))
    doc.text(device["name"], "device.name")
    if device.get("compute_capability") is not None:
        doc.text(device["compute_capability"], "device.compute_capability")
    for key in _DEVICE_NUMBERS:  # types here; ranges with the device's other checks (check_report)
        if device.get(key) is not None:
            doc.numeric(device[key], f"device.{key}")
    for key, value in doc.mapping(device.get("attributes", {}), "device.attributes").items():
        if not isinstance(value, str):
            doc.numeric(value, f"device.attributes.{key}")


def _check_launch_types(doc: _Document, item: Mapping[str, Any], field: str) -> bool:
    """Refuse a launch (version 1) with a field of the wrong type; True when a metric value may be out of range."""
    doc.keys(item, field, LAUNCH_FIELDS, _LAUNCH_REQUIRED)
    for key, kind in _FIELDS.items():
        kind.check(doc, item.get(key, kind.default), f"{field}.{key}")
    metrics = doc.mapping(item.get("metrics", {}), f"{field}.metrics")
    unsure = _counts_unsure(metrics)
    for name in [n for n, v in metrics.items() if type(v) not in _METRIC_TYPES or type(v) is int and abs(v) > LARGEST
                 ] if unsure else ():
        doc.numeric(metrics[name], f"{field}.metrics.{name}")  # says why it is no number, or out of their range
    return unsure


def _check_dims(doc: _Document, dims: object, field: str) -> None:
    if dims is not None and (not isinstance(dims, list) or len(dims) != 3
                             or any(isinstance(d, bool) or not isinstance(d, int) or d < 0 for d in dims)):
        raise doc.fail(field, f"is {_shown(dims)}, expected a list of 3 whole numbers of 0 or more")


def _check_whole(doc: _Document, value: object, field: str) -> None:
    """A count of a launch's shape (registers, bytes of shared memory): a whole number of 0 or more, or null. No
    roofline model holds a negative one: such a document is refused, not read as a launch to mark invalid."""
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
        raise doc.fail(field, f"is {_shown(value)}, expected a whole number of 0 or more")


def _check_rules(doc: _Document, rules: object, field: str) -> None:
    if not isinstance(rules, list):
        raise doc.fail(field, f"is {_shown(rules)}, expected a list")
    for j, rule in enumerate(rules):
        _check_rule_types(doc, doc.mapping(rule, f"{field}[{j}]"), f"{field}[{j}]")


_PC_SAMPLING_FIELDS = ("total_samples", "pcs", "sass_missing", "source_text", "functions", "preceding")
_PC_FIELDS = ("pc_offset", "samples", "stalls", "inst_executed", "thread_inst_executed", "memory", "sass", "file",
              "line", "pc", "function_pc")


def _check_pc_sampling(doc: _Document, sampling: object, field: str) -> None:
    """A launch's per-PC counters (``model.PcSampling.to_dict``), or null."""
    if sampling is None:
        return
    item = doc.mapping(sampling, field)
    doc.keys(item, field, _PC_SAMPLING_FIELDS, ("total_samples",))
    if item["total_samples"] is None:
        raise doc.fail(f"{field}.total_samples", "is null, expected a whole number of 0 or more")
    _check_whole(doc, item["total_samples"], f"{field}.total_samples")
    doc.text(item.get("sass_missing", ""), f"{field}.sass_missing")
    for file, lines in doc.mapping(item.get("source_text", {}), f"{field}.source_text").items():
        for number, text in doc.mapping(lines, f"{field}.source_text.{file}").items():
            if not number.isdigit():
                raise doc.fail(f"{field}.source_text.{file}", f"has line {_shown(number)}, expected a line number")
            doc.text(text, f"{field}.source_text.{file}.{number}")
    pcs = item.get("pcs", [])
    if not isinstance(pcs, list):
        raise doc.fail(f"{field}.pcs", f"is {_shown(pcs)}, expected a list")
    for j, pc in enumerate(pcs):
        _check_pc(doc, doc.mapping(pc, f"{field}.pcs[{j}]"), f"{field}.pcs[{j}]")
    starts = item.get("functions", [])
    if not isinstance(starts, list):
        raise doc.fail(f"{field}.functions", f"is {_shown(starts)}, expected a list of addresses")
    for j, start in enumerate(starts):
        _check_whole(doc, start, f"{field}.functions[{j}]")
    for address, entry in doc.mapping(item.get("preceding", {}), f"{field}.preceding").items():
        at = f"{field}.preceding.{address}"
        if not address.isdigit() or not isinstance(entry, list) or len(entry) != 3:
            raise doc.fail(at, f"is {_shown(entry)}, expected [SASS text, file or null, line or null] at an address")
        doc.text(entry[0], f"{at}[0]")
        if entry[1] is not None:
            doc.text(entry[1], f"{at}[1]")
        _check_whole(doc, entry[2], f"{at}[2]")


def _check_pc(doc: _Document, pc: Mapping[str, Any], at: str) -> None:
    """One instruction's counters: whole offsets, samples and line; numbers; texts or null."""
    doc.keys(pc, at, _PC_FIELDS, ("pc_offset", "samples"))
    for key in ("pc_offset", "samples"):
        _check_whole(doc, pc[key], f"{at}.{key}")
    for key in ("line", "pc", "function_pc"):
        _check_whole(doc, pc.get(key), f"{at}.{key}")
    for key in ("inst_executed", "thread_inst_executed"):
        doc.number(pc.get(key), f"{at}.{key}", COUNT)
    for key in ("sass", "file"):
        if pc.get(key) is not None:
            doc.text(pc[key], f"{at}.{key}")
    for reason, samples in doc.mapping(pc.get("stalls", {}), f"{at}.stalls").items():
        _check_whole(doc, samples, f"{at}.stalls.{reason}")
    for name, value in doc.mapping(pc.get("memory", {}), f"{at}.memory").items():
        doc.number(value, f"{at}.memory.{name}", COUNT)


def _whole_column(column: list[Any]) -> bool:
    return set(map(type, column)) <= {int} and (not column or min(column) >= 0)


def _text_column(column: list[Any]) -> bool:
    return set(map(type, column)) <= {str}


def _whole_or_null_column(column: list[Any]) -> bool:
    return set(map(type, column)) <= {int, type(None)} and min((v for v in column if v is not None), default=0) >= 0


def _dims_column(column: list[Any]) -> bool:
    dims = [d for d in column if d is not None]
    every = list(itertools.chain.from_iterable(dims))
    return (set(map(type, column)) <= {list, type(None)} and set(map(len, dims)) <= {3}
            and set(map(type, every)) <= {int} and min(every, default=0) >= 0)


def _text_lists_column(column: list[Any]) -> bool:
    return set(map(type, column)) <= {list} and set(map(type, itertools.chain.from_iterable(column))) <= {str}


def _no_rules_column(column: list[Any]) -> bool:
    return set(map(type, column)) <= {list} and not any(column)


@dataclass(frozen=True)
class _Field:
    """A launch field but its metrics: ``check`` of one value (raising with the problem named), ``sure`` whether a
    whole version-2 column passes from its value types alone (one pass in C, so each value is looked at only when it
    does not), and the value of the field where a version-1 launch leaves it out."""

    check: Callable[[_Document, Any, str], object]
    sure: Callable[[list[Any]], bool]
    default: object = None


_FIELDS = {
    "range_index": _Field(lambda doc, v, f: doc.number(v, f, WHOLE), _whole_column),
    "action_index": _Field(lambda doc, v, f: doc.number(v, f, WHOLE), _whole_column),
    "name": _Field(_Document.text, _text_column),
    "demangled_name": _Field(_Document.text, _text_column, ""),
    "mangled_name": _Field(_Document.text, _text_column, ""),
    "grid": _Field(_check_dims, _dims_column),
    "block": _Field(_check_dims, _dims_column),
    "registers_per_thread": _Field(_check_whole, _whole_or_null_column),
    "shared_mem_per_block_bytes": _Field(_check_whole, _whole_or_null_column),
    "nvtx_ranges": _Field(_Document.texts, _text_lists_column, []),
    "nan_metrics": _Field(_Document.texts, _text_lists_column, []),
    "rules": _Field(_check_rules, _no_rules_column, []),
    "pc_sampling": _Field(_check_pc_sampling, lambda column: not any(column)),
}


def _check_launch_columns(doc: _Document, launches: Mapping[str, Any]) -> set[int]:
    """Refuse version 2's launch columns with a value of the wrong type, or of another length than ``count``; the
    positions of the launches with a metric value that may be out of range (``_metric_column_unsure``)."""
    doc.keys(launches, "launches", ("count", *LAUNCH_FIELDS), ("count", *_LAUNCH_REQUIRED))
    count = launches["count"]
    if type(count) is not int or count < 0:
        raise doc.fail("launches.count", f"is {_shown(count)}, expected a whole number")
    for key, kind in _FIELDS.items():
        column = _column(doc, launches[key], f"launches.{key}", count) if key in launches else None
        if column is not None and not kind.sure(column):
            for i, value in enumerate(column):
                kind.check(doc, value, f"launches.{key}[{i}]")
    unsure: set[int] = set()
    metrics = doc.mapping(launches.get("metrics", {}), "launches.metrics")
    for name, column in metrics.items():
        unsure |= _metric_column_unsure(doc, _column(doc, column, f"launches.metrics.{name}", count), name)
    return unsure


def _name_the_number(doc: _Document, column: list[Any], name: str, wrong: Callable[[Any], bool]) -> None:
    """Raise for the first value of a metric column that ``wrong`` finds, naming why it is not a number."""
    for i, value in enumerate(column):
        if wrong(value):
            doc.numeric(value, f"launches.metrics.{name}[{i}]")


def _column(doc: _Document, column: object, field: str, count: int) -> list[Any]:
    """A column of one value per launch (``count``)."""
    if not isinstance(column, list):
        raise doc.fail(field, f"is {_shown(column)}, expected a list of one value per launch")
    if len(column) != count:
        raise doc.fail(field, f"has {len(column)} values, expected one per launch ({count}, launches.count)")
    return column


def _metric_column_unsure(doc: _Document, column: list[Any], name: str) -> set[int]:
    """Refuse a metric column with a value that is neither a number a float can hold, a text nor null (the launch
    does not hold the metric); the positions of the numbers that may be out of COUNT's range (what
    ``_counts_unsure`` looks for, and floats above LARGEST too: the exact check finds nothing wrong with those)."""
    import numpy as np

    types = set(map(type, column))
    if types <= {str, type(None)}:
        return set()
    if not types <= {float, int, str, type(None)}:
        _name_the_number(doc, column, name, lambda v: type(v) not in (float, int, str, type(None)))
    try:
        values = float_column(column)
    except OverflowError:  # an int no float can hold
        values = None
    if values is None or int in types and bool((values > LARGEST).any()):
        _name_the_number(doc, column, name, lambda v: type(v) is int and abs(v) > LARGEST)
    assert values is not None  # an int no float can hold is above LARGEST: named just above
    with np.errstate(invalid="ignore"):
        sure = (values >= 0.0) & (values <= LARGEST) & ~np.signbit(values)
    if type(None) in types or str in types:
        sure |= np.array([v is None or type(v) is str for v in column], dtype=bool)
    return set(np.flatnonzero(~sure).tolist())


def _check_rule_types(doc: _Document, rule: Mapping[str, Any], where: str) -> None:
    """An ncu rule result: its texts, and the focus metrics and estimated speedup when the model has them."""
    doc.keys(rule, where, (*_RULE_FIELDS, *_RULE_EXTRAS), _RULE_FIELDS)
    for key in _RULE_FIELDS:
        doc.text(rule[key], f"{where}.{key}")
    if rule.get("speedup_pct") is not None:
        doc.numeric(rule["speedup_pct"], f"{where}.speedup_pct")
    if rule.get("speedup_type", "") not in _SPEEDUP_TYPES:
        raise doc.fail(f"{where}.speedup_type", f"is {_shown(rule['speedup_type'])}, expected one of "
                                                f"{', '.join(map(repr, _SPEEDUP_TYPES))}")
    focus = rule.get("focus_metrics", [])
    if not isinstance(focus, list):
        raise doc.fail(f"{where}.focus_metrics", f"is {_shown(focus)}, expected a list")
    for k, metric in enumerate(focus):
        at = f"{where}.focus_metrics[{k}]"
        doc.keys(doc.mapping(metric, at), at, _FOCUS_FIELDS, ("name",))
        doc.text(metric["name"], f"{at}.name")
        doc.text(metric.get("info", ""), f"{at}.info")
        if metric.get("value") is not None:
            doc.numeric(metric["value"], f"{at}.value")
        doc.number(metric.get("severity", 0), f"{at}.severity", WHOLE)


# --- Ranges of a loaded report ----------------------------------------------------------------------------------
def check_report(report: Report, fix: str = MODEL_FIX, launch_devices: Sequence[str] = (),
                 notes: Sequence[str] = (), foreign_from: int | None = None,
                 unsure: AbstractSet[int] | None = None, repeated: Mapping[int, int] | None = None) -> Report:
    """A report with its ranges checked: an impossible device raises ReportError (naming the field and ``fix``);
    each launch with impossible attributes is marked ``invalid``; records that contradict each other become
    ``warnings``. From an .ncu-rep come ``launch_devices`` (the device each launch names), ``notes`` (what the
    file's structure showed), ``foreign_from`` (the first launch recorded after another report was appended) and
    ``repeated`` (launch -> the earlier launch whose record it repeats byte for byte); from a model's type check,
    ``unsure``: the launches whose metric values it found may be out of range."""
    problem = device_problem(report.device)
    if problem:
        raise ReportError(f"{report.path}: {problem}", fix)
    warnings = list(notes)
    invalid = _invalid_launches(report.launches, report.device, unsure)
    if foreign_from is not None:
        invalid.update({i: "recorded after another report appended to this file"
                        for i in range(foreign_from, len(report.launches))})
    for i, why in _other_devices(report.launches, launch_devices, warnings).items():
        invalid.setdefault(i, why)
    for i, why in _duplicates(report.launches, warnings).items():
        invalid.setdefault(i, why)
    if repeated:
        warnings.append(f"{len(repeated)} launch record(s) repeat an earlier record byte for byte: each launch is "
                        "counted once")
        for i, j in repeated.items():
            invalid.setdefault(i, f"repeats the record of launch {report.launches[j].key} byte for byte")
    if invalid:
        first = min(invalid)
        warnings.append(f"{len(invalid)} of {len(report.launches)} launches are invalid and left out of times, "
                        f"rankings and verdicts (first: {report.launches[first].key}, {invalid[first]})")
    launches = tuple(replace(k, invalid=invalid[i]) if i in invalid else k for i, k in enumerate(report.launches))
    return replace(report, launches=launches, warnings=(*report.warnings, *warnings))


def device_problem(device: Device) -> str | None:
    """Why a device is impossible (an error for the whole report), or None."""
    cc = device.compute_capability
    if cc is not None and not CC_PATTERN.fullmatch(cc):
        return f"device compute_capability is {_shown(cc)}, expected major.minor such as \"8.6\""
    fields = {key: getattr(device, key) for key in _DEVICE_NUMBERS}
    attributes = {f"attributes.{k}": v for k, v in device.attributes.items() if not isinstance(v, str)}
    limits = {**_DEVICE_NUMBERS, **{f"attributes.{k}": SM_ATTRIBUTES.get(k, Limit(-math.inf)) for k in
                                    device.attributes}}
    for key, value in {**fields, **attributes}.items():
        problem = None if value is None else limits[key].problem(value)
        if problem:
            return f"device {key} {problem}"
    return None


def launch_problem(launch: KernelLaunch, device: Device) -> str | None:
    """Why a launch's attributes are impossible (it is then marked invalid), or None: its shape (registers, grid,
    block, shared memory) first, then its duration, clocks and every other metric."""
    return _shape_problem(launch, _ShapeLimits.of(device)) or _metric_problem(launch)


@dataclass(frozen=True)
class _ShapeLimits:
    """The device's limits on a launch's shape: threads per block and shared memory per block."""

    block: Limit
    shared: Limit

    @classmethod
    def of(cls, device: Device) -> _ShapeLimits:
        return cls(_limit_of(device, "max_threads_per_block", MAX_THREADS_PER_BLOCK),
                   _limit_of(device, "max_shared_memory_per_multiprocessor", MAX_SHARED_PER_BLOCK))  # largest carveout


_SHAPE_METRICS = (LAUNCH_REGISTERS, LAUNCH_GRID, LAUNCH_BLOCK, LAUNCH_SHARED)
# the duration and the clocks: a range of their own, checked first and even when not a number
_OWN_LIMITS = {DURATION: POSITIVE,
               **{name: MEMORY_CLOCK_HZ if name == DRAM_CLOCK else CLOCK_HZ for name in CLOCK_METRICS}}


def _shape_problem(launch: KernelLaunch, limits: _ShapeLimits) -> str | None:
    threads = math.prod(launch.block) if launch.block else None
    metric = launch.metrics.get
    dims = [(f"{kind}[{i}]", d) for kind in ("grid", "block") for i, d in enumerate(getattr(launch, kind) or ())]
    checks: list[tuple[str, object, Limit]] = [
        ("registers_per_thread", launch.registers_per_thread, REGISTERS),
        (LAUNCH_REGISTERS, metric(LAUNCH_REGISTERS), REGISTERS),
        *((name, d, DIMENSION) for name, d in dims),
        (LAUNCH_GRID, metric(LAUNCH_GRID), DIMENSION),
        ("block threads", threads, limits.block), (LAUNCH_BLOCK, metric(LAUNCH_BLOCK), limits.block),
        ("shared_mem_per_block_bytes", launch.shared_mem_per_block_bytes, limits.shared),
        (LAUNCH_SHARED, metric(LAUNCH_SHARED), limits.shared),
    ]
    return _first_problem(checks)


def _metric_limits(name: str) -> tuple[Limit, ...]:
    """What a metric's value must hold, in the order checked: its own range, then that of every metric (a COUNT)."""
    return (_OWN_LIMITS[name], COUNT) if name in _OWN_LIMITS else (COUNT,)


def _metric_problem(launch: KernelLaunch) -> str | None:
    metric = launch.metrics.get
    checks = [(name, metric(name), limit) for name, limit in _OWN_LIMITS.items()]
    checks += [(name, value, COUNT) for name, value in launch.metrics.items() if not isinstance(value, str)]
    return _first_problem(checks)


def _first_problem(checks: Iterable[tuple[str, object, Limit]]) -> str | None:
    for field, value, limit in checks:
        problem = None if value is None else limit.problem(value)
        if problem:
            return f"{field} {problem}"
    return None


def _invalid_launches(launches: Sequence[KernelLaunch], device: Device,
                      unsure: AbstractSet[int] | None = None) -> dict[int, str]:
    """``launch_problem`` of every launch, by position, where there is one. A launch shape is checked once per
    distinct shape; the metrics one by one only for the launches a quick look lets through (``_counts_unsure``, or
    ``unsure`` when the caller looked already, and ``_own_unsure``), so that the message names the first problem.
    Launches of one ``MetricTable`` are looked at by column."""
    limits = _ShapeLimits.of(device)
    shapes: dict[tuple[object, ...], str | None] = {}
    invalid = {}
    found = table_rows(launches)
    own = _own_unsure_rows(*found) if found else None
    for i, (launch, extra) in enumerate(zip(launches, _shape_metrics(launches, found), strict=True)):
        shape = (launch.registers_per_thread, launch.grid, launch.block, launch.shared_mem_per_block_bytes, *extra)
        try:
            why = shapes[shape] if shape in shapes else shapes.setdefault(shape, _shape_problem(launch, limits))
        except TypeError:  # a value that cannot be a key cannot be a number either: the check names it
            why = _shape_problem(launch, limits)
        suspect = i in unsure if unsure is not None else _counts_unsure(launch.metrics)
        suspect = suspect or (i in own if own is not None else _own_unsure(launch.metrics))
        why = why or (_metric_problem(launch) if suspect else None)
        if why:
            invalid[i] = why
    return invalid


def _shape_metrics(launches: Sequence[KernelLaunch],
                   found: tuple[MetricTable, list[int]] | None) -> Iterable[tuple[object, ...]]:
    """Per launch, the values of the metrics of its shape (``_SHAPE_METRICS``)."""
    if found is None:
        return (tuple(launch.metrics.get(name) for name in _SHAPE_METRICS) for launch in launches)
    table, rows = found
    columns = [table.columns.get(name) for name in _SHAPE_METRICS]
    return zip(*([column[r] for r in rows] if column else [None] * len(rows) for column in columns), strict=True)


def _own_unsure_rows(table: MetricTable, rows: Sequence[int]) -> set[int]:
    """``_own_unsure`` of the launches at ``rows`` of ``table``, by column: their positions in ``rows``."""
    import numpy as np

    unsure = np.zeros(table.count, dtype=bool)
    for name, low, high in _OWN_INSIDE:
        column = table.columns.get(name)
        if column is None:
            continue
        values = table.floats(name)  # NaN for a text, a NaN and a launch without the metric
        with np.errstate(invalid="ignore"):
            out = ~((values > low) & (values < high))
        if column.count(None):
            out &= np.array([v is not None for v in column], dtype=bool)
        unsure |= out
    return set(np.flatnonzero(unsure[np.asarray(rows, dtype=np.intp)]).tolist())


def _counts_unsure(metrics: Mapping[str, object]) -> bool:
    """False when every value surely holds COUNT: a text, a float from 0 up to infinity excluded, an int from 0 to
    LARGEST. One comprehension over the values: with many launches the cost is in reaching the values, so a model's
    type check takes this look in its own pass (``check_model_document``)."""
    return bool([v for v in metrics.values() if not (0.0 < v < math.inf or v == 0.0 and not _negative_zero(v)
                                                     if type(v) is float else
                                                     type(v) is str or type(v) is int and 0 <= v <= LARGEST)])


# the duration and the clocks strictly inside their own ranges: such a number holds its limit, open or closed
_OWN_INSIDE = tuple((name, limit.low, limit.high) for name, limit in _OWN_LIMITS.items())


def _own_unsure(metrics: Mapping[str, object]) -> bool:
    """False when the duration and the clocks, where held, are numbers strictly inside their own ranges."""
    for name, low, high in _OWN_INSIDE:
        v = metrics.get(name)
        if v is not None and not ((type(v) is float or type(v) is int) and low < v < high):
            return True
    return False


def _limit_of(device: Device, attribute: str, cap: float) -> Limit:
    """0 to the device's own limit (an attribute), or to ``cap`` when the device does not say."""
    value = device.attributes.get(attribute)
    return Limit(0.0, value if isinstance(value, (int, float)) and 0 < value <= cap else cap, integer=True)


def _other_devices(launches: Sequence[KernelLaunch], devices: Sequence[str], warnings: list[str]) -> dict[int, str]:
    """Launches whose records name another device than the first launch's (a report with another appended)."""
    if len(set(devices)) < 2:
        return {}
    first = devices[0]
    names = ", ".join(repr(d) for d in dict.fromkeys(devices))
    warnings.append(f"the records name {len(set(devices))} devices ({names}); only launches on {first!r} are "
                    "analysed")
    return {i: f"recorded on device {d!r}, not the report's {first!r}" for i, d in enumerate(devices)
            if d != first and i < len(launches)}


def _duplicates(launches: Sequence[KernelLaunch], warnings: list[str]) -> dict[int, str]:
    """Launches whose range:action key an earlier launch already has."""
    seen: set[tuple[int, int]] = set()
    repeated = {}
    for i, k in enumerate(launches):
        key = (k.range_index, k.action_index)
        if key in seen:
            repeated[i] = f"duplicates the range:action key {k.key} of an earlier launch"
        seen.add(key)
    if repeated:
        warnings.append(f"{len(repeated)} launch record(s) repeat the range:action key of an earlier one")
    return repeated
