"""Plain data model of a profiled report: the device and one record per kernel launch.

The reader fills it from an ``.ncu-rep`` file; everything downstream (analysis, renderers, comparisons)
works on these frozen structs (msgspec) only. ``Report.to_dict``/``Report.from_dict`` give the project's own
serialized form (``*.roofline.json``), so a report model can be analysed again without ncu_report.

The serialized form has two versions. Version 1 (what the reader builds, and hand-written models) lists the
launches, each with its own metric object. Version 2, which ``to_dict`` writes, holds the launches by column: one
list per field and per metric (null where a launch does not hold the metric), so a metric's name is written once
and not once per launch. Launches loaded from version 2 read their metrics through ``MetricRow`` views of those
columns (``MetricTable``) instead of one dict each: a million launches fit in memory.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from types import MappingProxyType
from typing import Any, Literal

from msgspec import Struct, field
from msgspec.structs import asdict, force_setattr

from roofline.core import readonly  # noqa: F401  (read-only mappings pickle: results travel to workers and back)

MODEL_FORMAT = "roofline-report-model"
MODEL_VERSION = 2  # the version to_dict writes
MODEL_VERSIONS = (1, 2)  # the versions from_dict reads
# a launch's fields in the serialized form, in order (version 2 writes one column of each)
LAUNCH_FIELDS = ("range_index", "action_index", "name", "demangled_name", "mangled_name", "grid", "block",
                 "registers_per_thread", "shared_mem_per_block_bytes", "nvtx_ranges", "metrics", "nan_metrics",
                 "rules", "pc_sampling")

MetricValue = float | str | None

PRECISIONS = ("fp64", "fp32", "fp16", "tensor")  # compute ceilings, in display order
LEVELS = ("dram", "l2", "l1")  # memory levels, outermost first
# The ceiling sets, named as every output names them (command line, JSON, tables, docs): "kernel-clock", the roofs
# at the clocks the kernel ran at, i.e. the report's where it holds the peak counter, else the datasheet's scaled
# to the measured clock (the default); "datasheet", the device spec at the boost clock; "measured-clock", the
# report's peak counters at its measured clocks; "calibrated", the rates roofline calibrate measured on the GPU
# (roofline.specs.calibration).
CeilingSet = Literal["kernel-clock", "datasheet", "measured-clock", "calibrated"]


def _frozen(d: Mapping[Any, Any] | None) -> Mapping[Any, Any]:
    """A read-only copy of ``d``; a read-only view is kept as it is (whoever made it chose to share the mapping)."""
    return d if type(d) is MappingProxyType or type(d) is MetricRow else MappingProxyType(dict(d or {}))


def float_column(column: Sequence[MetricValue]) -> Any:
    """A metric column as a float64 numpy array, NaN for a text and for None (a launch without the metric); raises
    OverflowError for an int no float can hold."""
    import numpy as np

    numbers = column if str not in set(map(type, column)) else [None if type(v) is str else v for v in column]
    return np.array(numbers, dtype=float)


class MetricTable:
    """The metric values of a version-2 model's launches: one list per metric, one element per launch, None where
    the launch does not hold the metric. The lists are the document's own; nothing changes them. ``floats``,
    ``layouts`` and ``signs`` are what the columnar analysis (``roofline.core.cohorts``) reads, made once per table."""

    __slots__ = ("columns", "count", "_floats", "_layouts", "_signs")

    def __init__(self, columns: Mapping[str, list[MetricValue]], count: int) -> None:
        self.columns = columns
        self.count = count
        self._floats: dict[str, Any] = {}
        self._layouts: list[tuple[Any, ...]] | None = None
        self._signs: dict[Callable[[str], bool], list[bytes]] = {}

    def floats(self, name: str) -> Any:
        """A metric's column as a float64 numpy array: NaN where a launch does not hold the metric as a number."""
        if name not in self._floats:
            self._floats[name] = float_column(self.columns[name])
        return self._floats[name]

    def layouts(self) -> list[tuple[Any, ...]]:
        """Per launch, what sets its metrics apart from other launches': which metrics it holds, which of them as
        texts, and the texts (columns whose values are all numbers tell no launch apart and are left out)."""
        if self._layouts is None:
            varying = [column for column in self.columns.values() if str in (kinds := set(map(type, column)))
                       or type(None) in kinds]
            marks = [[v if type(v) is str else v is None for v in column] for column in varying]
            self._layouts = list(zip(*marks, strict=True)) if marks else [()] * self.count
        return self._layouts

    def signs(self, signed: Callable[[str], bool]) -> list[bytes]:
        """Per launch, the sign of each number it holds among the metrics ``signed`` selects (1, 0 or -1; 0 for NaN,
        a text or no value), packed: columns whose numbers have one sign for every launch tell no launch apart and
        are left out."""
        if signed not in self._signs:
            import numpy as np

            varying = []
            for name in filter(signed, self.columns):
                x = self.floats(name)
                sign = (x > 0).astype(np.int8) - (x < 0)
                if not (sign == sign[0]).all():
                    varying.append(sign)
            self._signs[signed] = list(map(bytes, np.stack(varying, axis=1))) if varying else [b""] * self.count
        return self._signs[signed]

    def __getstate__(self) -> tuple[Mapping[str, list[MetricValue]], int]:
        return self.columns, self.count  # what the analysis made from the columns is made again where needed

    def __setstate__(self, state: tuple[Mapping[str, list[MetricValue]], int]) -> None:
        self.__init__(*state)  # type: ignore[misc]


def table_rows(launches: Sequence[KernelLaunch]) -> tuple[MetricTable, list[int]] | None:
    """The one ``MetricTable`` all ``launches`` read their metrics from, with each launch's row in it; None when
    any launch holds its own metrics or another table's."""
    metrics = [launch.metrics for launch in launches]
    if not metrics or not all(type(m) is MetricRow for m in metrics):
        return None
    views: list[MetricRow] = metrics  # type: ignore[assignment]  # all MetricRow, as just checked
    table = views[0].table
    if any(view.table is not table for view in views):
        return None
    return table, [view.index for view in views]


class MetricRow(Mapping[str, MetricValue]):
    """One launch's metrics, read from the columns of a ``MetricTable``: the metrics whose value is not None, in
    the table's column order. Read-only."""

    __slots__ = ("table", "index")

    def __init__(self, table: MetricTable, index: int) -> None:
        self.table = table
        self.index = index

    def __getitem__(self, name: str) -> MetricValue:
        column = self.table.columns.get(name)
        value = None if column is None else column[self.index]
        if value is None:
            raise KeyError(name)
        return value

    def get(self, name: str, default: Any = None) -> Any:
        column = self.table.columns.get(name)
        value = None if column is None else column[self.index]
        return default if value is None else value

    def __contains__(self, name: object) -> bool:
        column = self.table.columns.get(name)  # type: ignore[call-overload]
        return column is not None and column[self.index] is not None

    def __iter__(self) -> Iterator[str]:
        i = self.index
        return (name for name, column in self.table.columns.items() if column[i] is not None)

    def __len__(self) -> int:
        i = self.index
        return sum(column[i] is not None for column in self.table.columns.values())

    def __repr__(self) -> str:
        return f"MetricRow({dict(self)!r})"


class Device(Struct, frozen=True):
    """The GPU a report was taken on, from the ``device__attribute_*`` metrics."""

    name: str
    compute_capability: str | None = None
    sm_count: int | None = None
    max_clock_hz: float | None = None
    memory_clock_hz: float | None = None
    memory_bus_width_bits: int | None = None
    l2_cache_bytes: int | None = None
    total_memory_bytes: int | None = None
    attributes: Mapping[str, MetricValue] = field(default_factory=dict)

    def __post_init__(self) -> None:
        force_setattr(self, "attributes", _frozen(self.attributes))

    @property
    def cc_major(self) -> int | None:
        """Major compute capability as an integer (7 for Volta/Turing, 8 for Ampere/Ada, ...)."""
        return int(self.compute_capability.split(".")[0]) if self.compute_capability else None

    @property
    def cc_tuple(self) -> tuple[int, int] | None:
        if not self.compute_capability:
            return None
        major, minor = self.compute_capability.split(".")
        return int(major), int(minor)


class Ceilings(Struct, frozen=True):
    """One set of roofs: peak FLOP/s per precision and peak bytes/s per memory level.

    ``source`` is "measured-clock" (the report's peak counters times its measured clocks), "datasheet" (a YAML
    in device_specs/), "kernel-clock" (the report's roofs, the datasheet's scaled to the measured clocks where
    the report has no peak counter) or "calibrated". A roof that cannot be given is None, with its reason in
    ``missing``. ``clock_note`` says which clock the numbers assume; ``scaled`` names, per roof taken from the
    datasheet into a "kernel-clock" set, how it was scaled (``unscaled`` lists those left unscaled).
    """

    source: CeilingSet
    flop_per_s: Mapping[str, float | None]
    bytes_per_s: Mapping[str, float | None]
    clock_note: str = ""
    tensor_dtype: str | None = None  # which Tensor Core data type the "tensor" roof is for
    missing: Mapping[str, str] = field(default_factory=dict)
    scaled: Mapping[str, str] = field(default_factory=dict)
    unscaled: tuple[str, ...] = ()  # the roofs of ``scaled`` left at the datasheet's clock (no measured clock)
    clock: str = ""  # the clock alone, the first part of ``clock_note`` (which may go on after a ";")
    collect: Mapping[str, str] = field(default_factory=dict)  # per roof in ``missing`` for want of metrics: the option
    at_max_clock: bool = False  # roofs of ``scaled`` went to the GPU's maximum SM clock, below the datasheet's (no
    # measured clock: ``analysis.roofline._clock_factor``)
    sm_clock_hz: float | None = None  # the SM clock the roofs are at (``clock`` as a number); None: none known

    def __post_init__(self) -> None:
        if not self.clock:
            force_setattr(self, "clock", self.clock_note)
        force_setattr(self, "flop_per_s", _frozen({k: self.flop_per_s.get(k) for k in PRECISIONS}))
        force_setattr(self, "bytes_per_s", _frozen({k: self.bytes_per_s.get(k) for k in LEVELS}))
        force_setattr(self, "missing", _frozen(self.missing))
        force_setattr(self, "scaled", _frozen(self.scaled))
        force_setattr(self, "collect", _frozen(self.collect))

    def roof(self, key: str) -> float | None:
        """The roof of a precision (FLOP/s) or a memory level (bytes/s)."""
        return self.flop_per_s.get(key) if key in PRECISIONS else self.bytes_per_s.get(key)


def roof_intensity(flop_per_s: float, bandwidth: float) -> float:
    """The FLOP per byte at which a memory roof of ``bandwidth`` reaches ``flop_per_s``: the ridge point, where that
    is a compute roof (FLOP/s over bytes/s)."""
    return flop_per_s / bandwidth


def memory_roof(bandwidth: float, intensity: float) -> float:
    """The FLOP/s a memory roof of ``bandwidth`` allows at ``intensity`` FLOP per byte: bandwidth x intensity."""
    return bandwidth * intensity


SpeedupType = Literal["local", "global", ""]  # ncu's SpeedupType: LOCAL, GLOBAL, or unknown ("")


class FocusMetric(Struct, frozen=True):
    """A metric an ncu rule points at: its value, ncu's severity (0 default, 1 low, 2 high) and ncu's note,
    e.g. the threshold test it applied (``'77.058 - 31.410 >= 10.000'``)."""

    name: str
    value: float | None
    severity: int = 0
    info: str = ""


class RuleResult(Struct, frozen=True):
    """One message of an ncu rule (``rule_results``) attached to a launch, with the metrics it points at and
    ncu's estimated speedup: ``speedup_pct`` percent, of the kernel's run time when ``speedup_type`` is
    "global", of one hardware unit's efficiency in isolation when it is "local"."""

    rule: str
    section: str
    title: str
    message: str
    kind: str  # "info", "ok", "optimization", "warning", "error" (ncu's MsgType)
    focus_metrics: tuple[FocusMetric, ...] = ()
    speedup_pct: float | None = None
    speedup_type: SpeedupType = ""

    def to_dict(self) -> dict[str, Any]:
        """Plain data (the report model's form)."""
        return {**asdict(self), "focus_metrics": [asdict(f) for f in self.focus_metrics]}


class PcCounters(Struct, frozen=True):
    """One SASS instruction of a launch with its per-PC counters (SourceCounters section): its warp samples in all
    and per stall reason (ncu's reason names, "selected" included: a warp issuing), the instructions it executed,
    the memory and branch counters ncu keeps per PC (by metric name, ``ncu.metrics.PC_MEMORY``), and its SASS text
    and source line where the report gives them (None otherwise)."""

    pc_offset: int  # bytes from the start of the function the instruction belongs to
    samples: int
    stalls: Mapping[str, int] = field(default_factory=dict)
    inst_executed: float | None = None
    thread_inst_executed: float | None = None
    memory: Mapping[str, float] = field(default_factory=dict)
    sass: str | None = None
    file: str | None = None
    line: int | None = None
    pc: int | None = None  # the absolute address (None in models written before it was kept)
    function_pc: int | None = None  # the start address of the function the instruction belongs to

    def __post_init__(self) -> None:
        force_setattr(self, "stalls", _frozen(self.stalls))
        force_setattr(self, "memory", _frozen(self.memory))

    def to_dict(self) -> dict[str, Any]:
        """Plain data (the report model's form)."""
        return {**asdict(self), "stalls": dict(self.stalls), "memory": dict(self.memory)}


class PcSampling(Struct, frozen=True):
    """A launch's per-PC counters: every instruction with warp samples or a nonzero memory or branch counter, the
    launch's total of warp samples, why the SASS text is absent ("" where ncu_report gave it), and the text of the
    source lines around the sampled ones where the report holds its source (file -> line -> text)."""

    total_samples: int
    pcs: tuple[PcCounters, ...] = ()
    sass_missing: str = ""
    source_text: Mapping[str, Mapping[int, str]] = field(default_factory=dict)
    functions: tuple[int, ...] = ()  # the start address of each function the launch ran, in address order
    # the instructions before each one whose warps waited on a dependency (absolute PC -> (SASS text, source file,
    # line)), where the producer of the awaited register is looked for (``analysis.hotspots``)
    preceding: Mapping[int, tuple[str, str | None, int | None]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        force_setattr(self, "source_text", _frozen({f: _frozen(lines) for f, lines in self.source_text.items()}))
        force_setattr(self, "preceding", _frozen({pc: tuple(v) for pc, v in self.preceding.items()}))

    def to_dict(self) -> dict[str, Any]:
        """Plain data (the report model's form: line numbers and PCs as JSON keys are strings)."""
        return {"total_samples": self.total_samples, "pcs": [pc.to_dict() for pc in self.pcs],
                "sass_missing": self.sass_missing,
                "source_text": {f: {str(n): t for n, t in lines.items()} for f, lines in self.source_text.items()},
                "functions": list(self.functions),
                "preceding": {str(pc): list(v) for pc, v in self.preceding.items()}}

    @classmethod
    def from_dict(cls, item: Mapping[str, Any]) -> PcSampling:
        """The inverse of ``to_dict``."""
        return cls(item["total_samples"], tuple(PcCounters(**pc) for pc in item.get("pcs", ())),
                   item.get("sass_missing", ""),
                   {f: {int(n): t for n, t in lines.items()} for f, lines in item.get("source_text", {}).items()},
                   tuple(item.get("functions", ())),
                   {int(pc): tuple(v) for pc, v in item.get("preceding", {}).items()})


MAX_NAME_CHARS = 1 << 16  # a kernel name is cut beyond this (real ones, demangled templates included: < 5,000)
_NAME_FIELDS = ("name", "demangled_name", "mangled_name")


class KernelLaunch(Struct, frozen=True):
    """One profiled kernel launch (an ncu *action*) with the metric values the tool uses.

    ``metrics`` maps metric names to values in ncu's base units; a metric that the report does not hold
    is absent, and one that ncu stored as NaN (launch not measured) is listed in ``nan_metrics``.
    ``invalid`` is why the launch's attributes are impossible (``roofline.ncu.validation``); such a launch is
    kept in the report but left out of times, rankings and verdicts.
    """

    range_index: int
    action_index: int
    name: str
    demangled_name: str = ""
    mangled_name: str = ""
    grid: tuple[int, int, int] | None = None
    block: tuple[int, int, int] | None = None
    registers_per_thread: int | None = None
    shared_mem_per_block_bytes: int | None = None
    nvtx_ranges: tuple[str, ...] = ()
    metrics: Mapping[str, MetricValue] = field(default_factory=dict)
    nan_metrics: frozenset[str] = frozenset()
    rules: tuple[RuleResult, ...] = ()
    invalid: str = ""
    pc_sampling: PcSampling | None = None  # the per-PC counters, where the report holds warp samples per PC

    def __post_init__(self) -> None:
        force_setattr(self, "metrics", _frozen(self.metrics))
        for key in _NAME_FIELDS:  # names are the profiled program's data: bounded before anything searches them
            text = getattr(self, key)
            if isinstance(text, str) and len(text) > MAX_NAME_CHARS:
                force_setattr(self, key, text[:MAX_NAME_CHARS - 1] + "…")
        force_setattr(self, "nan_metrics", frozenset(self.nan_metrics))

    def value(self, name: str) -> float | None:
        """Numeric value of a metric as a float, or None when absent, NaN-stored or not a number."""
        v = self.metrics.get(name)
        if type(v) is float or v is None:
            return v
        return float(v) if isinstance(v, int | float) and not isinstance(v, bool) else None

    @property
    def threads(self) -> int | None:
        """Threads launched (grid x block), None when the launch configuration is unknown."""
        if not self.grid or not self.block:
            return None
        return self.grid[0] * self.grid[1] * self.grid[2] * self.block[0] * self.block[1] * self.block[2]

    @property
    def key(self) -> str:
        """Stable launch identifier inside its report: ``range:action``."""
        return f"{self.range_index}:{self.action_index}"


INCOMPLETE_FILE = "the file is incomplete (cut short or missing records)"  # diff's and collect's refusal
INCOMPLETE_MODEL = "saved from an incomplete report (cut short or missing records): launches it held are missing"


class Report(Struct, frozen=True):
    """A loaded report: where it came from, the device, and its kernel launches in report order. ``warnings``
    say where its records contradict each other (several devices, repeated keys, a cut or appended file).
    ``ncu_version`` is the version of ncu that wrote it ("2024.1.0.0"), "" when unknown."""

    path: str
    device: Device
    launches: tuple[KernelLaunch, ...]
    source: str = "ncu-rep"  # or "model" for the project's own serialized form
    label: str = ""  # free text, e.g. "synthetic example" for hand-written models
    warnings: tuple[str, ...] = ()
    ncu_version: str = ""
    incomplete: bool = False  # the file was cut short or lost records: launches it held are missing (a warning says)

    def to_dict(self) -> dict[str, Any]:
        """Serialize to plain JSON-compatible data (the ``*.roofline.json`` form, version 2: launches by column)."""
        return {
            "format": MODEL_FORMAT,
            "version": MODEL_VERSION,
            "label": self.label,
            **({"ncu_version": self.ncu_version} if self.ncu_version else {}),
            **({"incomplete": True} if self.incomplete else {}),
            "device": _device_to_dict(self.device),
            "launches": _launch_columns([_launch_to_dict(launch) for launch in self.launches]),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], path: str, source: str = "model") -> Report:
        """Rebuild a report from a serialized form (version 1 or 2) that passed ``ncu.validation``'s check of the
        document (its format, version and types: ``roofline.load`` checks them). The launches read their metrics
        through views of the document's mappings or columns (copying millions of values costs seconds): leave
        ``data`` unchanged afterwards."""
        device = Device(**data["device"])
        items = data["launches"]
        launches = tuple(map(launch_from_dict, items)) if data["version"] == 1 else _launches_from_columns(items)
        incomplete = bool(data.get("incomplete", False))
        return cls(path=path, device=device, launches=launches, source=source, label=data.get("label", ""),
                   ncu_version=data.get("ncu_version", ""), incomplete=incomplete,
                   warnings=(INCOMPLETE_MODEL,) if incomplete else ())


def _device_to_dict(device: Device) -> dict[str, Any]:
    return {
        "name": device.name,
        "compute_capability": device.compute_capability,
        "sm_count": device.sm_count,
        "max_clock_hz": device.max_clock_hz,
        "memory_clock_hz": device.memory_clock_hz,
        "memory_bus_width_bits": device.memory_bus_width_bits,
        "l2_cache_bytes": device.l2_cache_bytes,
        "total_memory_bytes": device.total_memory_bytes,
        "attributes": dict(device.attributes),
    }


def _launch_to_dict(launch: KernelLaunch) -> dict[str, Any]:
    return {
        "range_index": launch.range_index,
        "action_index": launch.action_index,
        "name": launch.name,
        "demangled_name": launch.demangled_name,
        "mangled_name": launch.mangled_name,
        "grid": list(launch.grid) if launch.grid else None,
        "block": list(launch.block) if launch.block else None,
        "registers_per_thread": launch.registers_per_thread,
        "shared_mem_per_block_bytes": launch.shared_mem_per_block_bytes,
        "nvtx_ranges": list(launch.nvtx_ranges),
        "metrics": dict(launch.metrics),
        "nan_metrics": sorted(launch.nan_metrics),
        "rules": [rule.to_dict() for rule in launch.rules],
        "pc_sampling": launch.pc_sampling.to_dict() if launch.pc_sampling else None,
    }


def _launch_columns(items: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Version 2's launches: the launches' fields by column, and one column per metric any launch holds (None
    where a launch does not), metrics in order of first appearance."""
    names = dict.fromkeys(name for item in items for name in item["metrics"])
    columns: dict[str, Any] = {"count": len(items)}
    for key in LAUNCH_FIELDS:
        columns[key] = ({name: [item["metrics"].get(name) for item in items] for name in names} if key == "metrics"
                        else [item[key] for item in items])
    return columns


def _launches_from_columns(columns: Mapping[str, Any]) -> tuple[KernelLaunch, ...]:
    """The launches of version 2's columns; absent columns take the field's default, and every launch reads its
    metrics from one shared ``MetricTable``."""
    count = columns["count"]
    table = MetricTable(columns.get("metrics", {}), count)
    required = LAUNCH_FIELDS[:3]  # range_index, action_index, name
    fields = [columns[key] if key in required else columns.get(key) or [None] * count
              for key in LAUNCH_FIELDS if key != "metrics"]
    launches = []
    for i, (r, a, name, demangled, mangled, grid, block, registers, shared, nvtx, nan, rules, pcs) in enumerate(
            zip(*fields, strict=True)):
        launches.append(KernelLaunch(
            r, a, name, demangled or "", mangled or "", tuple(grid) if grid else None, tuple(block) if block else None,
            registers, shared, tuple(nvtx) if nvtx else (), MetricRow(table, i), frozenset(nan or ()),
            tuple(map(_rule_from_dict, rules)) if rules else (),
            pc_sampling=PcSampling.from_dict(pcs) if pcs else None))
    return tuple(launches)


def _rule_from_dict(item: Mapping[str, Any]) -> RuleResult:
    """A rule result; models written before focus metrics and speedups were kept load with none."""
    metrics = tuple(FocusMetric(**f) for f in item.get("focus_metrics", ()))
    return RuleResult(**{**item, "focus_metrics": metrics})


def launch_from_dict(item: Mapping[str, Any]) -> KernelLaunch:
    """A launch from its dict form (a version-1 model's, or the reader's); its metrics are a view of the dict's."""
    fields = dict(item)
    fields["grid"] = tuple(fields["grid"]) if fields.get("grid") else None
    fields["block"] = tuple(fields["block"]) if fields.get("block") else None
    fields["nvtx_ranges"] = tuple(fields.get("nvtx_ranges", ()))
    fields["nan_metrics"] = frozenset(fields.get("nan_metrics", ()))
    fields["rules"] = tuple(_rule_from_dict(rule) for rule in fields.get("rules", ()))
    pcs = fields.get("pc_sampling")
    fields["pc_sampling"] = PcSampling.from_dict(pcs) if pcs else None
    fields["metrics"] = MappingProxyType(fields.get("metrics", {}))  # the document's own, not a copy of it
    return KernelLaunch(**fields)
