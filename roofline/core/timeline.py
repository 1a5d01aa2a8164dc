"""Plain data model of an Nsight Systems timeline: kernels aggregated by name, the GPUs' busy time, NVTX ranges.

The nsys reader (``roofline.nsys.timeline``) fills it from an SQLite export, aggregating the launches as numpy
columns, so a profile of a million launches becomes a few hundred of these records; everything downstream (ranking
across ranks, weighting ncu reports by real time, renderers) works on them only. Times are seconds of the application's
real run (nsys traces the kernels as they ran: no replay, the application's own clocks and caches).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from msgspec import Struct


@dataclass(frozen=True)
class KernelTime:
    """The launches of one kernel on the timeline: one instance (``name`` = scope, function and template arguments,
    as ``report`` groups, ``core.kernel_names.kernel_key``), or, grouped by function, every launch of one short name
    (``name`` = the short name, ncu's "function" name)."""

    name: str
    count: int
    total_s: float
    median_s: float
    min_s: float
    max_s: float
    devices: tuple[int, ...]  # the deviceIds it ran on
    short_name: str = ""  # nsys's shortName (ncu's function name); "" means the same as ``name``
    demangled: str = ""  # one demangled name of the group (nsys's demangledName), "" where the export has none

    @property
    def function(self) -> str:
        """The short name (ncu's function name)."""
        return self.short_name or self.name


@dataclass(frozen=True)
class LaunchConfigTime:
    """The launches of one kernel with one launch configuration (grid and block) on the timeline: what a kernel
    of an ncu report is matched with for its work (``analysis.borrowed``)."""

    name: str  # the kernel, as ``KernelTime.name``
    short_name: str
    demangled: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    count: int
    total_s: float
    median_s: float


IdleKind = Literal["other_kernels", "copy", "memset", "unified_memory", "sync", "api", "host"]
TransferKind = Literal["copy", "memset"]


@dataclass(frozen=True)
class IdleCause:
    """A part of a GPU's idle time and what filled it: kernels an NVTX filter leaves out (other_kernels), the GPU
    copying, setting or migrating memory (copy, memset,
    unified_memory), the host inside a synchronisation or another CUDA API call (sync, api: ``detail`` names it), or
    the host outside any CUDA call (host)."""

    kind: IdleKind
    detail: str  # the copy's direction and host memory kind, or the API call's name ("" for other kernels and host)
    seconds: float


class ApiCall(Struct, frozen=True):
    """The calls of one CUDA API function (its name without the export's version suffix); the timeline document
    carries it as it is."""

    name: str
    calls: int
    total_s: float
    median_s: float
    min_s: float
    max_s: float


@dataclass(frozen=True)
class Transfer:
    """Memory copies of one direction and host memory kind, or the memsets: how many, how much, how long."""

    kind: TransferKind
    direction: str  # "Host-to-Device", ..., or "memset"
    memory: str  # the host side's kind: "pageable", "pinned", ...; "" where no host memory is involved
    count: int
    bytes: int
    total_s: float
    median_s: float
    bytes_per_s: float | None = field(init=False)  # bytes over total_s (None for no time); filled when built

    def __post_init__(self) -> None:
        object.__setattr__(self, "bytes_per_s", self.bytes / self.total_s if self.total_s > 0 else None)


@dataclass(frozen=True)
class MemoryUse:
    """Device memory allocated through CUDA on one GPU over time (from the export's memory-usage events): the
    series starts at the first event; ``final_bytes`` is what was left allocated at the last."""

    device_id: int
    peak_bytes: int
    peak_at_s: float
    final_bytes: int
    series: tuple[tuple[float, int], ...]  # (seconds from the first event, bytes in use), thinned


@dataclass(frozen=True)
class DeviceTime:
    """One GPU that ran kernels: its busy time (the union of its kernels' intervals, overlaps counted once) and
    the span from its first kernel's start to its last kernel's end."""

    device_id: int
    name: str | None  # None where the export lists no GPU of that id
    launches: int
    busy_s: float
    span_s: float
    l2_bytes: int | None = None  # the GPU's L2 size where the export records it (TARGET_INFO_GPU.l2CacheSize)
    idle_causes: tuple[IdleCause, ...] = ()  # largest first; they sum to the idle time (span - busy)
    # Filled when built (``__post_init__``), from the fields above:
    idle_s: float = field(init=False)  # span - busy
    idle_share: float = field(init=False)  # of the span with no kernel running (0 for a 0 span: one instant launch)
    cause_shares: tuple[float | None, ...] = field(init=False)  # each idle cause's share of the idle time

    def __post_init__(self) -> None:
        idle = self.span_s - self.busy_s
        object.__setattr__(self, "idle_s", idle)
        object.__setattr__(self, "idle_share", 1.0 - self.busy_s / self.span_s if self.span_s > 0 else 0.0)
        object.__setattr__(self, "cause_shares", tuple(c.seconds / idle if idle > 0 else None
                                                        for c in self.idle_causes))


@dataclass(frozen=True)
class NvtxRange:
    """The push/pop or start/end ranges of one NVTX name: how often and how long (CPU time, the range's own)."""

    name: str
    count: int
    total_s: float


@dataclass(frozen=True)
class Representative:
    """The launch of a kernel that stands for all of them: the one of median duration (the lower of the two middle
    ones for an even count), by its place among the kernel's launches in start order (0 for the first), which is
    what ncu's --launch-skip counts."""

    name: str
    launch_index: int
    duration_s: float


@dataclass(frozen=True)
class Timeline:
    """One nsys profile (one file; one MPI rank where several are given): kernels ranked by total time."""

    path: str
    kernels: tuple[KernelTime, ...]  # by total time, largest first
    devices: tuple[DeviceTime, ...]  # by device id
    nvtx: tuple[NvtxRange, ...]  # by total time, largest first; empty where NVTX was not traced
    nvtx_filter: str | None = None  # --nvtx: only the kernels launched inside ranges of this name
    group_by: str = "kernel"  # "kernel": instances apart; "function": pooled by short name
    api: tuple[ApiCall, ...] = ()  # the CUDA API summary, longest total first; empty without the CUDA API trace
    transfers: tuple[Transfer, ...] = ()  # copies and memsets, longest total first
    memory: tuple[MemoryUse, ...] = ()  # per GPU, where the export records memory usage
    exported_by: str | None = None  # the nsys that exported the report given to SQLite; None for an SQLite file
    # Filled when built (``__post_init__``), from the fields above:
    kernel_s: float = field(init=False)  # the kernels' summed time (overlapping kernels count twice)
    busy_s: float = field(init=False)  # the GPUs' busy time, summed over the GPUs
    shares: tuple[float, ...] = field(init=False)  # per kernel, its time over busy_s (0 when no GPU was busy)

    def __post_init__(self) -> None:
        busy = sum(d.busy_s for d in self.devices)
        object.__setattr__(self, "kernel_s", sum(k.total_s for k in self.kernels))
        object.__setattr__(self, "busy_s", busy)
        object.__setattr__(self, "shares", tuple(k.total_s / busy if busy > 0 else 0.0 for k in self.kernels))
