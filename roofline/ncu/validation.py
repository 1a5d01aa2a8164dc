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

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from pathlib import Path
from typing import Any

from msgspec import Struct
from msgspec.structs import replace

from roofline.core.model import (
    MODEL_FORMAT,
    MODEL_VERSIONS,
    Device,
    KernelLaunch,
    MetricTable,
    Report,
    float_column,
    table_rows,
)
from roofline.core.version import GENERATED_BY
from roofline.errors import ReportError
from roofline.ncu.metrics import (
    CLOCK_METRICS,
    DRAM_CLOCK,
    DURATION,
    LAUNCH_BLOCK,
    LAUNCH_GRID,
    LAUNCH_REGISTERS,
    LAUNCH_SHARED,
    UNMEASURED,
    measured_nothing,
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
# One launch's duration (ns): at most a day. The longest kernels profiled run seconds to minutes (ncu replays
# each one several times, and a job's time limit ends it long before); a day is far past any real launch, yet keeps
# every figure made from it finite (1e18 FLOP/s for a day is 1e23 FLOP), where 1e308 ns gave inf% and nan.
MAX_LAUNCH_NS = 86_400e9


class Limit(Struct, frozen=True):
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
POSITIVE = Limit(0.0, low_open=True)  # peaks, bandwidths
DURATION_NS = Limit(0.0, MAX_LAUNCH_NS, low_open=True)  # one launch: above 0, at most a day
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


def _not_a_model(top: dict[str, Any], path: str | Path) -> ReportError:
    """The error for a JSON file that is no report model: one roofline wrote as an output (its generator mark first),
    or any other."""
    model = "a .json report model written by roofline.Report.to_dict (docs/report.md)"
    mark = top.get("generator")
    if isinstance(mark, str) and mark.startswith(GENERATED_BY):
        return ReportError(f"{path}: an analysis roofline wrote ({mark}, --format json), not a report model",
                           f"pass the .ncu-rep it was made from, or {model}")
    found = f"its format is {_shown(top['format'])}" if "format" in top else 'it has no "format" field'
    return ReportError(f"{path}: not a {MODEL_FORMAT} document ({found})", f"pass a .ncu-rep file, or {model}")


# The device's numbers and the range each may take (the device of a report is refused outside them).
_DEVICE_NUMBERS = {"sm_count": SM_COUNT, "max_clock_hz": CLOCK_HZ, "memory_clock_hz": MEMORY_CLOCK_HZ,
                   "memory_bus_width_bits": BUS_BITS, "l2_cache_bytes": WHOLE, "total_memory_bytes": WHOLE}


# --- Report models (.json) ------------------------------------------------------------------------------------
def check_model_document(data: object, path: str | Path) -> set[int]:
    """The types of a report-model document (``Report.to_dict``), before it is turned into a ``Report``: checked
    against the document types generated from the model's structs (``core.model_document``, by msgspec), so
    building the model cannot fail; the first problem is one line naming the file, the field and the fix. Ranges
    are checked on the model (``check_report``); the positions returned are the launches with a metric value that
    may be out of range (``_counts_unsure``)."""
    import msgspec

    from roofline.core import model_document as document

    top = data if isinstance(data, dict) else {}
    if top.get("format") != MODEL_FORMAT:
        raise _not_a_model(top, path)
    version = top.get("version")
    if type(version) is not int or version not in MODEL_VERSIONS:
        raise ReportError(f"{path}: unsupported model version {_shown(version)}, expected "
                          f"{' or '.join(map(str, MODEL_VERSIONS))}", "regenerate the model with this roofline version")
    if "launches" not in top:
        raise ReportError(f"{path}: the document: object missing required field `launches`", MODEL_FIX)
    launches = top["launches"]
    _convert(msgspec, {**top, "launches": None}, document.head_type(), path, "")  # launches: by version, below
    if version == 1:
        _convert(msgspec, launches, list[document.launch_type()], path, "launches")  # type: ignore[misc]
        suspects = {i for i, item in enumerate(launches) if _counts_unsure(item.get("metrics", {}))}
        for i in sorted(suspects):  # a value that is no metric at all is among them: named
            for name, value in launches[i].get("metrics", {}).items():
                field = f"launches[{i}].metrics.{name}"
                _convert(msgspec, value, document.METRIC, path, field)
                if type(value) is int and abs(value) > LARGEST:
                    raise ReportError(f"{path}: {field} is out of the range of numbers", MODEL_FIX)
        return suspects
    _convert(msgspec, launches, dict[str, Any], path, "launches")
    _convert(msgspec, {**launches, "metrics": {}}, document.columns_type(), path, "launches")  # metrics: below
    count = launches["count"]
    for key, column in launches.items():
        if key != "count":
            _one_per_launch(column if key != "metrics" else {}, f"launches.{key}", count, path)
    unsure: set[int] = set()
    _convert(msgspec, launches.get("metrics", {}), dict[str, Any], path, "launches.metrics")
    for name, column in launches.get("metrics", {}).items():
        field = f"launches.metrics.{name}"
        _one_per_launch(column, field, count, path)
        _convert(msgspec, column, document.METRIC_COLUMN, path, field)
        unsure |= _metric_column_unsure(column, field, path)
    return unsure


def _convert(msgspec: Any, value: object, kind: Any, path: str | Path, field: str) -> None:
    """Check ``value`` against the document type ``kind``; ReportError naming the field (below ``field``) and what
    msgspec found wrong."""
    try:
        msgspec.convert(value, kind)
    except msgspec.ValidationError as err:
        problem, _, where = str(err).partition(" - at `")  # msgspec's form: "Expected ... - at `$.a[0].b`"
        key = where.startswith("key` in `")  # "- at `key` in `$.a`": a key of that object
        at = (field + where.removeprefix("key` in `").rstrip("`").removeprefix("$")).removeprefix(".")
        at = f"a key of {at or 'the document'}" if key else at or "the document"
        raise ReportError(f"{path}: {at}: {problem[:1].lower()}{problem[1:]}", MODEL_FIX) from None


def _one_per_launch(column: object, field: str, count: int, path: str | Path) -> None:
    """A column holds one value per launch (``count``)."""
    if isinstance(column, list) and len(column) != count:
        raise ReportError(f"{path}: {field} has {len(column)} values, expected one per launch ({count}, "
                          "launches.count)", MODEL_FIX)


def _metric_column_unsure(column: list[Any], field: str, path: str | Path) -> set[int]:
    """The positions of a metric column's numbers that may be out of COUNT's range (what ``_counts_unsure`` looks
    for, and floats above LARGEST too: the exact check finds nothing wrong with those); an int no float holds, or
    one above LARGEST, is refused."""
    import numpy as np

    types = set(map(type, column))
    if types <= {str, type(None)}:
        return set()
    try:
        values = float_column(column)
    except OverflowError:  # an int no float can hold
        values = None
    if values is None or int in types and bool((values > LARGEST).any()):
        for i, v in enumerate(column):
            if type(v) is int and abs(v) > LARGEST:
                raise ReportError(f"{path}: {field}[{i}] is out of the range of numbers", MODEL_FIX)
    assert values is not None  # an int no float can hold is above LARGEST: refused just above
    with np.errstate(invalid="ignore"):
        sure = (values >= 0.0) & (values <= LARGEST) & ~np.signbit(values)
    if type(None) in types or str in types:
        sure |= np.array([v is None or type(v) is str for v in column], dtype=bool)
    return set(np.flatnonzero(~sure).tolist())


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
    invalid = launch_problems(report.launches, report.device, unsure)
    invalid.update({i: UNMEASURED for i, k in enumerate(report.launches) if i not in invalid and unmeasured(k)})
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


def unmeasured(launch: KernelLaunch) -> bool:
    """Whether a launch has no duration and no other measurement (``UNMEASURED``: left out as invalid)."""
    return launch.value(DURATION) is None and measured_nothing(launch)


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


class _ShapeLimits(Struct, frozen=True):
    """The device's limits on a launch's shape: threads per block and shared memory per block."""

    block: Limit
    shared: Limit

    @classmethod
    def of(cls, device: Device) -> _ShapeLimits:
        return cls(_limit_of(device, "max_threads_per_block", MAX_THREADS_PER_BLOCK),
                   _limit_of(device, "max_shared_memory_per_multiprocessor", MAX_SHARED_PER_BLOCK))  # largest carveout


_SHAPE_METRICS = (LAUNCH_REGISTERS, LAUNCH_GRID, LAUNCH_BLOCK, LAUNCH_SHARED)
# the duration and the clocks: a range of their own, checked first and even when not a number
_OWN_LIMITS = {DURATION: DURATION_NS,
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


def launch_problems(launches: Sequence[KernelLaunch], device: Device,
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
