"""Plain data model of a profiled report: the device and one record per kernel launch.

The reader fills it from an ``.ncu-rep`` file; everything downstream (analysis, renderers, comparisons)
works on these frozen dataclasses only. ``Report.to_dict``/``Report.from_dict`` give the project's own
serialized form (``*.roofline.json``), so a report model can be analysed again without ncu_report.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal

MODEL_FORMAT = "roofline-report-model"
MODEL_VERSION = 1

MetricValue = float | str | None

PRECISIONS = ("fp64", "fp32", "fp16", "tensor")  # compute ceilings, in display order
LEVELS = ("dram", "l2", "l1")  # memory levels, outermost first
# "spec": datasheet ceilings at the boost clock; "report": the report's peak counters at its measured clocks;
# "clock": the roofs at the clocks the kernel ran at, i.e. the report's where it holds the peak counter, else
# the datasheet's scaled to the measured clock (the default); "measured": the rates roofline calibrate measured on
# the GPU (roofline.calibration).
CeilingSet = Literal["spec", "report", "clock", "measured"]


def _frozen(d: Mapping[str, Any] | None) -> Mapping[str, Any]:
    """A read-only copy of ``d``; a read-only view is kept as it is (whoever made it chose to share the mapping)."""
    return d if type(d) is MappingProxyType else MappingProxyType(dict(d or {}))


@dataclass(frozen=True)
class Device:
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
        object.__setattr__(self, "attributes", _frozen(self.attributes))

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


@dataclass(frozen=True)
class Ceilings:
    """One set of roofs: peak FLOP/s per precision and peak bytes/s per memory level.

    ``source`` is "report" (the report's peak counters times its measured clocks), "spec" (a datasheet
    YAML in device_specs/) or "clock" (the report's roofs, the datasheet's scaled to the measured clocks where
    the report has no peak counter). A roof that cannot be given is None, with its reason in ``missing``.
    ``clock_note`` says which clock the numbers assume; ``scaled`` names, per roof taken from the datasheet
    into a "clock" set, how it was scaled.
    """

    source: CeilingSet
    flop_per_s: Mapping[str, float | None]
    bytes_per_s: Mapping[str, float | None]
    clock_note: str = ""
    tensor_dtype: str | None = None  # which Tensor Core data type the "tensor" roof is for
    missing: Mapping[str, str] = field(default_factory=dict)
    scaled: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "flop_per_s", _frozen({k: self.flop_per_s.get(k) for k in PRECISIONS}))
        object.__setattr__(self, "bytes_per_s", _frozen({k: self.bytes_per_s.get(k) for k in LEVELS}))
        object.__setattr__(self, "missing", _frozen(self.missing))
        object.__setattr__(self, "scaled", _frozen(self.scaled))

    def roof(self, key: str) -> float | None:
        """The roof of a precision (FLOP/s) or a memory level (bytes/s)."""
        return self.flop_per_s.get(key) if key in PRECISIONS else self.bytes_per_s.get(key)


SpeedupType = Literal["local", "global", ""]  # ncu's SpeedupType: LOCAL, GLOBAL, or unknown ("")


@dataclass(frozen=True)
class FocusMetric:
    """A metric an ncu rule points at: its value, ncu's severity (0 default, 1 low, 2 high) and ncu's note,
    e.g. the threshold test it applied (``'77.058 - 31.410 >= 10.000'``)."""

    name: str
    value: float | None
    severity: int = 0
    info: str = ""


@dataclass(frozen=True)
class RuleResult:
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
        return {**vars(self), "focus_metrics": [vars(f) for f in self.focus_metrics]}


@dataclass(frozen=True)
class KernelLaunch:
    """One profiled kernel launch (an ncu *action*) with the metric values the tool uses.

    ``metrics`` maps metric names to values in ncu's base units; a metric that the report does not hold
    is absent, and one that ncu stored as NaN (launch not measured) is listed in ``nan_metrics``.
    ``invalid`` is why the launch's attributes are impossible (``roofline.validation``); such a launch is
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

    def __post_init__(self) -> None:
        object.__setattr__(self, "metrics", _frozen(self.metrics))
        object.__setattr__(self, "nan_metrics", frozenset(self.nan_metrics))

    def value(self, name: str) -> float | None:
        """Numeric value of a metric as a float, or None when absent, NaN-stored or not a number."""
        v = self.metrics.get(name)
        if type(v) is float:
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


@dataclass(frozen=True)
class Report:
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

    def to_dict(self) -> dict[str, Any]:
        """Serialize to plain JSON-compatible data (the ``*.roofline.json`` form)."""
        return {
            "format": MODEL_FORMAT,
            "version": MODEL_VERSION,
            "label": self.label,
            **({"ncu_version": self.ncu_version} if self.ncu_version else {}),
            "device": _device_to_dict(self.device),
            "launches": [_launch_to_dict(launch) for launch in self.launches],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], path: str, source: str = "model") -> Report:
        """Rebuild a report from ``to_dict`` output; raises ``ValueError`` on a malformed document. The launches
        read their metrics through views of the document's mappings (copying millions of values costs seconds):
        leave ``data`` unchanged afterwards."""
        if data.get("format") != MODEL_FORMAT:
            raise ValueError(f"not a {MODEL_FORMAT} document (format={data.get('format')!r})")
        if data.get("version") != MODEL_VERSION:
            raise ValueError(f"unsupported model version {data.get('version')!r}, expected {MODEL_VERSION}")
        device = Device(**data["device"])
        launches = tuple(_launch_from_dict(item) for item in data["launches"])
        return cls(path=path, device=device, launches=launches, source=source, label=data.get("label", ""),
                   ncu_version=data.get("ncu_version", ""))


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
    }


def _rule_from_dict(item: Mapping[str, Any]) -> RuleResult:
    """A rule result; models written before focus metrics and speedups were kept load with none."""
    metrics = tuple(FocusMetric(**f) for f in item.get("focus_metrics", ()))
    return RuleResult(**{**item, "focus_metrics": metrics})


def _launch_from_dict(item: Mapping[str, Any]) -> KernelLaunch:
    fields = dict(item)
    fields["grid"] = tuple(fields["grid"]) if fields.get("grid") else None
    fields["block"] = tuple(fields["block"]) if fields.get("block") else None
    fields["nvtx_ranges"] = tuple(fields.get("nvtx_ranges", ()))
    fields["nan_metrics"] = frozenset(fields.get("nan_metrics", ()))
    fields["rules"] = tuple(_rule_from_dict(rule) for rule in fields.get("rules", ()))
    fields["metrics"] = MappingProxyType(fields.get("metrics", {}))  # the document's own, not a copy of it
    return KernelLaunch(**fields)
