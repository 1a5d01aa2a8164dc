"""Kernels placed on a GPU's roofline with their work from an ncu report and their time from an nsys timeline
(`timeline --work`, `analyze --no-counters --work-from`): the fallback where ncu is refused the counters.

The work a launch does (FLOPs of each precision, bytes moved at each memory level) is set by the problem and the
code, not by the GPU's speed, so a report made where counters are allowed (another machine, another GPU) gives it;
nsys times each launch where ncu cannot run. A report's launch and the timeline's launches are matched by kernel
instance (``kernel_key``) and launch configuration (grid and block): the same kernel on the same problem. Per
match: FLOPs and bytes per launch (the mean over the report's launches of that configuration), time per launch
(nsys's median), so performance = FLOPs / time and arithmetic intensity = FLOPs / bytes at each level. The roofs
are the datasheet's of the GPU that nsys ran on (``device_specs/``): attainable = min(compute roof of the kernel's
main precision, intensity x bandwidth at each level), and percent of roof = performance / attainable.

What this assumes, and says: DRAM bytes depend on the L2 size (a working set that fits one GPU's L2 and not the
other's is read from DRAM once on one and many times on the other), so a note names two GPUs whose L2 sizes differ
by ``L2_RATIO_FLAG`` or more. Pure functions; no I/O.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence

from msgspec import Struct

from roofline.analysis.launches import ReportAnalysis
from roofline.core.kernel_names import kernel_key
from roofline.core.model import LEVELS, PRECISIONS, Ceilings, Device
from roofline.core.thresholds import L2_RATIO_FLAG
from roofline.core.timeline import LaunchConfigTime, Timeline
from roofline.core.units import dims
from roofline.specs.catalog import DeviceSpec, spec_ceilings

Dims = tuple[int, int, int]


class BorrowedKernel(Struct, frozen=True):
    """One kernel instance and launch configuration: its work per launch (ncu), its time (nsys), its place."""

    name: str  # the instance (``kernel_key``)
    short_name: str
    grid: Dims
    block: Dims
    nsys: LaunchConfigTime
    ncu_launches: int  # the report's launches of this instance and configuration (their mean work is used)
    ncu_time_s: float | None  # the report's median duration of them (ncu's replay, for comparison)
    flops: dict[str, float | None]  # per launch, by precision (PRECISIONS); None: not measured
    tensor_dtype: str | None  # the Tensor Core data type with the most FLOPs, where the kernel ran Tensor Cores
    bytes: dict[str, float | None]  # per launch, by memory level (LEVELS)
    precision: str | None  # the precision with the most FLOPs (its roof is the compute roof); None: no FLOPs
    compute_roof: float | None  # FLOP/s of that precision on the nsys GPU (datasheet), None without a spec
    bandwidth: dict[str, float | None]  # bytes/s per level on the nsys GPU (datasheet)

    @property
    def time_s(self) -> float:
        """The time per launch: nsys's median launch of this configuration."""
        return self.nsys.median_s

    @property
    def total_flops(self) -> float | None:
        known = [v for v in self.flops.values() if v is not None]
        return sum(known) if known else None

    @property
    def flop_per_s(self) -> float | None:
        f = self.total_flops
        return f / self.time_s if f and self.time_s > 0 else None

    def bytes_per_s(self, level: str) -> float | None:
        b = self.bytes.get(level)
        return b / self.time_s if b is not None and self.time_s > 0 else None

    def intensity(self, level: str) -> float | None:
        """FLOPs per byte at ``level`` (None without FLOPs or bytes)."""
        f, b = self.total_flops, self.bytes.get(level)
        return f / b if f and b else None

    @property
    def attainable(self) -> tuple[float, str] | None:
        """The roof at this kernel's intensity and which roof it is: the compute roof, or a level's bandwidth x
        intensity, whichever is lowest (None without FLOPs or a compute roof)."""
        if not self.total_flops or self.compute_roof is None or self.precision is None:
            return None
        limits = [(self.compute_roof, self.precision)]
        for level in LEVELS:
            i, bw = self.intensity(level), self.bandwidth.get(level)
            if i is not None and bw is not None:
                limits.append((i * bw, level))
        return min(limits)

    @property
    def pct_of_roof(self) -> float | None:
        """Performance over the attainable roof, in percent; for a kernel without FLOPs, its busiest level's
        bandwidth share."""
        at, perf = self.attainable, self.flop_per_s
        if at is not None and perf is not None:
            return perf / at[0] * 100
        shares = [bps / bw * 100 for level in LEVELS
                  if (bps := self.bytes_per_s(level)) is not None and (bw := self.bandwidth.get(level))]
        return max(shares) if shares and not self.total_flops else None

    @property
    def limiter(self) -> str | None:
        """The roof that bounds it: a precision, or a memory level."""
        at = self.attainable
        if at is not None:
            return at[1]
        shares = {level: bps / bw for level in LEVELS
                  if (bps := self.bytes_per_s(level)) is not None and (bw := self.bandwidth.get(level))}
        return max(shares, key=lambda k: shares[k]) if shares and not self.total_flops else None


class BorrowedWork(Struct, frozen=True):
    """The timeline's kernels with the report's work, against the nsys GPU's roofs."""

    reports: tuple[str, ...]
    ncu_gpu: str  # the reports' GPUs, comma-separated
    nsys_gpu: str | None
    spec_id: str | None  # the spec of the nsys GPU; None: no roofs (unknown GPU)
    ceilings: Ceilings | None  # the spec's datasheet roofs (the tensor roof per kernel is in its compute_roof)
    kernels: tuple[BorrowedKernel, ...]  # by nsys total time, largest first
    unmatched_ncu: tuple[str, ...]  # the report's kernels with no launch of that instance and configuration in nsys
    unmatched_nsys: tuple[LaunchConfigTime, ...]  # the timeline's with no launch of them in the report
    notes: tuple[str, ...]

    @property
    def label(self) -> str:
        return f"work measured by ncu on {self.ncu_gpu}, time by nsys on {self.nsys_gpu or 'an unnamed GPU'}"

    @property
    def matched_share(self) -> float:
        """The matched kernels' share of the timeline's kernel time."""
        total = sum(c.total_s for c in (*(k.nsys for k in self.kernels), *self.unmatched_nsys))
        return sum(k.nsys.total_s for k in self.kernels) / total if total > 0 else 0.0


def borrow_work(timeline: Timeline, configs: Sequence[LaunchConfigTime], analyses: Sequence[ReportAnalysis],
                spec: DeviceSpec | None) -> BorrowedWork:
    """Match the reports' launches with the timeline's by instance and launch configuration, and place each."""
    by_config: dict[tuple[str, Dims, Dims], list] = {}
    for la in (la for a in analyses for la in a.valid_launches):
        launch = la.launch
        if launch.grid is None or launch.block is None:
            continue
        name = launch.name if timeline.group_by == "function" else kernel_key(launch.name, launch.demangled_name)
        by_config.setdefault((name, launch.grid, launch.block), []).append(la)
    nsys = {(c.name, c.grid, c.block): c for c in configs}
    ceilings = spec_ceilings(spec) if spec is not None else None
    kernels = [_kernel(nsys[key], launches, spec) for key, launches in by_config.items() if key in nsys]
    kernels.sort(key=lambda k: (-k.nsys.total_s, k.name))
    matched = {(k.name, k.grid, k.block) for k in kernels}
    gpu = timeline.devices[0] if timeline.devices else None
    devices = list({a.device.name: a.device for a in analyses}.values())
    return BorrowedWork(tuple(a.report.path for a in analyses), ", ".join(d.name for d in devices),
                        gpu.name if gpu else None, spec.id if spec else None, ceilings, tuple(kernels),
                        tuple(_describe(*key) for key in by_config if key not in nsys),
                        tuple(c for c in configs if (c.name, c.grid, c.block) not in matched),
                        _notes(devices, gpu.l2_bytes if gpu else None, spec, gpu.name if gpu else None))


def _kernel(config: LaunchConfigTime, launches: list, spec: DeviceSpec | None) -> BorrowedKernel:
    """One match: the mean work of the report's launches, the nsys GPU's roofs for it."""
    flops = {p: _mean([la.flops[p].value for la in launches]) for p in PRECISIONS}
    data = {lv: _mean([la.bytes[lv].value for la in launches]) for lv in LEVELS}
    tensor: dict[str, float] = {}
    for la in launches:
        for dtype, n in la.tensor_flops_by_type.items():
            tensor[dtype] = tensor.get(dtype, 0.0) + n
    dtype = max(tensor, key=lambda d: tensor[d]) if any(tensor.values()) else None
    known = {p: v for p, v in flops.items() if v}
    precision = max(known, key=lambda p: known[p]) if known else None
    ceilings = spec_ceilings(spec, dtype) if spec is not None else None
    times = [la.duration_s.value for la in launches if la.duration_s.value is not None]
    return BorrowedKernel(config.name, config.short_name, config.grid, config.block, config, len(launches),
                          statistics.median(times) if times else None, flops, dtype, data, precision,
                          ceilings.roof(precision) if ceilings is not None and precision else None,
                          dict(ceilings.bytes_per_s) if ceilings is not None else dict.fromkeys(LEVELS))


def _mean(values: Sequence[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return sum(known) / len(known) if known else None


def _describe(name: str, grid: Dims, block: Dims) -> str:
    return f"{name} grid {dims(grid)} block {dims(block)}"


def _notes(devices: Sequence[Device], nsys_l2: int | None, spec: DeviceSpec | None,
           nsys_gpu: str | None) -> tuple[str, ...]:
    """Where the numbers may mislead: L2 sizes apart, no spec for the nsys GPU."""
    notes = []
    l2 = nsys_l2 or (spec.l2_bytes if spec is not None else None)
    for device in devices:
        ncu_l2 = device.l2_cache_bytes
        if ncu_l2 and l2 and max(ncu_l2, l2) / min(ncu_l2, l2) >= L2_RATIO_FLAG:
            notes.append(f"the L2 of {device.name} holds {ncu_l2 / 2**20:.0f} MiB, that of "
                         f"{nsys_gpu or 'the nsys GPU'} {l2 / 2**20:.0f} MiB: a working set between the two sizes "
                         "stays in one L2 and not in the other, so the DRAM bytes (and the DRAM intensity) may "
                         "differ on the nsys GPU; FLOPs and L1 bytes do not depend on it")
    if spec is None:
        notes.append(f"no device spec matches {nsys_gpu or 'the nsys GPU'}: the kernels have no roofs; add one "
                     "with --specs (roofline specs list shows the known GPUs)")
    return tuple(notes)
