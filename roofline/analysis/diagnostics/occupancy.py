"""Occupancy diagnostics of one launch (pure): theoretical vs achieved occupancy, the limiting resource(s),
waves and tail, and which change to the launch would raise the limit.

ncu's own per-resource limits (``launch__occupancy_limit_*``, resident blocks per SM) name the limiters.
The what-if answers re-derive those limits with the CUDA occupancy rules, which reproduce ncu's limits on
the reports in shared/ncu-reps (tests/analysis/diagnostics/test_occupancy.py):

* registers are allocated per warp in units of ``REGISTER_ALLOC_UNIT``; each sub-partition (scheduler) of
  the SM holds its own slice of the register file, so resident warps = floor(registers per SM / sub-partitions
  / registers per warp) x sub-partitions, and blocks = floor(warps / warps per block);
* shared memory per block, including the driver's reservation, is rounded up to the allocation unit and
  packed into the SM's shared-memory carveout;
* warps: floor(max warps per SM / warps per block); blocks: the device's max resident blocks per SM.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from typing import TypeAlias

import numpy as np
from msgspec import Struct
from msgspec.structs import replace

from roofline.analysis.results import Occupancy, OccupancyPoint, WhatIf
from roofline.core.model import Device, KernelLaunch
from roofline.core.thresholds import ACHIEVED_GAP_PTS, TAIL_IDLE_PCT
from roofline.core.units import pct
from roofline.core.units import waves as wave_count
from roofline.ncu.metrics import (
    CARVEOUT,
    DURATION,
    HINT_NAN,
    LAUNCH_BLOCK,
    LAUNCH_GRID,
    LAUNCH_REGISTERS,
    LAUNCH_SHARED,
    LIMIT_METRIC,
    LIMITERS,
    OCCUPANCY_ACHIEVED,
    OCCUPANCY_THEORETICAL,
    WAVES,
)
from roofline.ncu.validation import MAX_THREADS_PER_BLOCK

WARP_SIZE = 32
# Registers are allocated per warp in units of 256 (CUDA occupancy calculator, CC 3.0 to 12.x). Reproduces
# ncu's register limit on every launch in shared/ncu-reps and launch__registers_per_thread_allocated.
REGISTER_ALLOC_UNIT = 256
# At most 255 32-bit registers per thread (CUDA C++ Programming Guide, Technical Specifications per Compute
# Capability, CC 3.5 to 12.x): the register curve of the calculator ends there.
MAX_REGISTERS_PER_THREAD = 255
# Shared-memory allocation unit in bytes by CC major (CUDA occupancy calculator). Seen in the reports as
# launch__shared_mem_per_block_allocated: RTX 2070 SUPER (7.5) 44 B -> 256 B; RTX 4070 Ti (8.9) 8720 -> 8832 B.
SMEM_ALLOC_UNIT = {7: 256}
SMEM_ALLOC_UNIT_DEFAULT = 128

LIMITER_WORDS = {"registers": "registers", "shared_mem": "shared memory", "warps": "warps per SM",
                 "blocks": "blocks per SM", "barriers": "barriers"}
ATTRIBUTES = {  # SmResources field -> device attribute (without the device__attribute_ prefix)
    "max_warps": "max_warps_per_multiprocessor", "max_blocks": "max_blocks_per_multiprocessor",
    "registers": "max_registers_per_multiprocessor", "sub_partitions": "num_schedulers_per_multiprocessor",
    "shared_bytes": "max_shared_memory_per_multiprocessor", "max_threads_per_block": "max_threads_per_block",
}


# What one SM offers, by compute capability, where the report lacks the device attributes (older ncu reports):
# CUDA C++ Programming Guide, "Compute Capabilities", table "Technical Specifications per Compute Capability"
# (maximum resident warps and blocks per SM, 32-bit registers per SM, shared memory per SM, threads per block);
# four SM sub-partitions from Volta on; 1 KiB of shared memory per block reserved by the driver from CC 8.0 on.
_CC_RESOURCES: dict[str, dict[str, int]] = {
    "7.0": {"max_warps": 64, "max_blocks": 32, "shared_bytes": 96 * 1024},
    "7.2": {"max_warps": 64, "max_blocks": 32, "shared_bytes": 96 * 1024},
    "7.5": {"max_warps": 32, "max_blocks": 16, "shared_bytes": 64 * 1024},
    "8.0": {"max_warps": 64, "max_blocks": 32, "shared_bytes": 164 * 1024},
    "8.6": {"max_warps": 48, "max_blocks": 16, "shared_bytes": 100 * 1024},
    "8.7": {"max_warps": 48, "max_blocks": 16, "shared_bytes": 164 * 1024},
    "8.9": {"max_warps": 48, "max_blocks": 24, "shared_bytes": 100 * 1024},
    "9.0": {"max_warps": 64, "max_blocks": 32, "shared_bytes": 228 * 1024},
}
_CC_COMMON = {"registers": 65536, "sub_partitions": 4, "max_threads_per_block": 1024}
FROM_CC = "limits from the compute capability (the report lacks the device attributes)"
Ints: TypeAlias = "int | np.ndarray"  # a whole number, or a numpy array of them (the calculator's curves)


class SmResources(Struct, frozen=True):
    """What one SM offers resident blocks, from the device attributes."""

    max_warps: int
    max_blocks: int
    registers: int
    sub_partitions: int
    shared_bytes: int  # the largest shared-memory carveout
    max_threads_per_block: int
    reserved_shared_per_block: int = 0
    smem_unit: int = SMEM_ALLOC_UNIT_DEFAULT


class LaunchShape(Struct, frozen=True):
    """What one block asks of an SM: threads, registers per thread, shared bytes (with the driver's reservation)."""

    threads: int
    registers: int
    shared_bytes: int

    @property
    def warps(self) -> int:
        """Warps per block (a partial warp occupies a whole one)."""
        return math.ceil(self.threads / WARP_SIZE)


# --- Inputs -------------------------------------------------------------------------------------------
def sm_resources(device: Device) -> SmResources | None:
    """Per-SM resources from ``device.attributes``; None when an attribute is missing."""
    values = {key: device.attributes.get(attr) for key, attr in ATTRIBUTES.items()}
    numbers = {key: int(v) for key, v in values.items() if isinstance(v, (int, float)) and v > 0}
    by_cc = _CC_RESOURCES.get(device.compute_capability or "")
    reserved = device.attributes.get("reserved_shared_memory_per_block")
    if len(numbers) < len(values) and by_cc is not None:  # the compute capability's limits fill the gaps
        numbers = {**_CC_COMMON, **by_cc, **numbers}
        if not isinstance(reserved, (int, float)):
            reserved = 1024 if (device.cc_major or 0) >= 8 else 0
    if len(numbers) < len(values):
        return None
    unit = SMEM_ALLOC_UNIT.get(device.cc_major or 0, SMEM_ALLOC_UNIT_DEFAULT)
    return SmResources(**numbers, reserved_shared_per_block=int(reserved) if isinstance(reserved, (int, float)) else 0,
                       smem_unit=unit)


def launch_shape(launch: KernelLaunch) -> LaunchShape | None:
    """Block size, registers per thread and shared bytes per block from the launch__* metrics."""
    threads, regs = launch.value(LAUNCH_BLOCK), launch.value(LAUNCH_REGISTERS)
    shared = launch.value(LAUNCH_SHARED)
    if threads is None or regs is None or shared is None or threads <= 0:
        return None
    return LaunchShape(int(threads), int(regs), int(shared))


def ncu_limits(launch: KernelLaunch) -> dict[str, int]:
    """ncu's resident-block limit per resource (only those the report holds)."""
    values = {key: launch.value(LIMIT_METRIC.format(key)) for key in LIMITERS}
    return {key: int(v) for key, v in values.items() if v is not None}


# --- Occupancy rules ----------------------------------------------------------------------------------
# Each rule takes whole numbers or numpy integer arrays (broadcast against each other): the calculator's curves
# evaluate one rule over every block size, register count or shared size at once (``points``), the single launch
# point through the same rule with plain numbers.
def block_limits(threads: Ints, registers: Ints, shared_bytes: Ints, sm: SmResources,
                 carveout: int) -> dict[str, np.ndarray]:
    """Resident blocks per SM each resource allows, as ncu's launch__occupancy_limit_* (barriers excepted), at
    blocks of ``threads``, ``registers`` per thread and ``shared_bytes`` (with the driver's reservation):

    * registers: allocated per warp in units of REGISTER_ALLOC_UNIT, each sub-partition holding its slice of the
      file; a block without registers is limited by the blocks per SM only;
    * shared memory: the block's bytes rounded up to the allocation unit, packed into the ``carveout``; a block
      without shared memory is limited by the blocks per SM only;
    * warps: the SM's resident warps over the block's; blocks: the SM's resident blocks."""
    warps = _ceil_div(threads, WARP_SIZE)
    per_warp = _ceil_div(registers * WARP_SIZE, REGISTER_ALLOC_UNIT) * REGISTER_ALLOC_UNIT
    warps_per_partition = sm.registers // sm.sub_partitions // np.maximum(per_warp, REGISTER_ALLOC_UNIT)  # 0: unused
    allocated = _ceil_div(shared_bytes, sm.smem_unit) * sm.smem_unit
    return {
        "registers": np.where(registers > 0, warps_per_partition * sm.sub_partitions // warps, sm.max_blocks),
        "shared_mem": np.where(shared_bytes > 0, carveout // np.maximum(allocated, sm.smem_unit), sm.max_blocks),
        "warps": np.asarray(sm.max_warps // warps),
        "blocks": np.asarray(sm.max_blocks),
    }


def _ceil_div(a: Ints, b: int) -> Ints:
    """Whole-number ceiling of ``a / b`` (``b`` > 0)."""
    return -(-a // b)


def blocks_by_registers(shape: LaunchShape, sm: SmResources) -> int:
    """Resident blocks the register file allows (per-warp allocation, split over sub-partitions)."""
    return int(block_limits(shape.threads, shape.registers, shape.shared_bytes, sm, sm.shared_bytes)["registers"])


def blocks_by_shared(shape: LaunchShape, sm: SmResources, carveout: int) -> int:
    """Resident blocks a shared-memory carveout of ``carveout`` bytes holds."""
    return derive_limits(shape, sm, carveout)["shared_mem"]


def derive_limits(shape: LaunchShape, sm: SmResources, carveout: int) -> dict[str, int]:
    """Resident blocks per SM each resource allows, as ncu's launch__occupancy_limit_* (barriers excepted)."""
    return dict(_derived_limits(shape, sm, carveout))


@functools.lru_cache(maxsize=4096)  # launches share shapes; numpy's cost per call is in the tens of microseconds
def _derived_limits(shape: LaunchShape, sm: SmResources, carveout: int) -> tuple[tuple[str, int], ...]:
    """``derive_limits`` as pairs, made once per shape, SM and carveout."""
    limits = block_limits(shape.threads, shape.registers, shape.shared_bytes, sm, carveout)
    return tuple((key, int(value)) for key, value in limits.items())


def theoretical_pct(blocks: int, shape: LaunchShape, sm: SmResources) -> float:
    """Resident warps over the SM's maximum, in percent."""
    return float(_theoretical_pcts(blocks, shape.warps, sm))


def _theoretical_pcts(blocks: Ints, warps: Ints, sm: SmResources) -> np.ndarray:
    """Resident warps over the SM's maximum, in percent, of blocks of ``warps`` each."""
    return 100.0 * np.minimum(blocks * warps, sm.max_warps) / sm.max_warps


def tail_idle_pct(waves: float) -> float:
    """Share of block slots left idle by a partial last wave (or a grid below one wave), in percent."""
    full = math.ceil(waves - 1e-9)
    return 100.0 * (full - waves) / full if full > 0 else 0.0


# --- Diagnosis ----------------------------------------------------------------------------------------
def diagnose(launch: KernelLaunch, device: Device) -> Occupancy:
    """Occupancy, limiters, waves, and the changes that would raise the theoretical occupancy."""
    limits = ncu_limits(launch)
    missing: dict[str, str] = {}
    blocks = min(limits.values()) if limits else None
    shape, sm = launch_shape(launch), sm_resources(device)
    achieved, waves = launch.value(OCCUPANCY_ACHIEVED), launch.value(WAVES)
    _note_missing(launch, achieved, waves, limits, missing)
    if shape is None:
        missing["warps_per_block"] = shape_absent(launch)
    derived: dict[str, int] = {}
    changes: tuple[WhatIf, ...] = ()
    if shape is not None and sm is not None:
        derived = derive_limits(shape, sm, int(launch.value(CARVEOUT) or sm.shared_bytes))
        changes = what_if(shape, sm, limits.get("barriers"))
        if any(not isinstance(device.attributes.get(attr), (int, float)) for attr in ATTRIBUTES.values()):
            missing["device_attributes"] = FROM_CC
    elif limits:
        missing["what_if"] = "device attributes or launch__* shape metrics missing: limits cannot be re-derived"
    theoretical = _theoretical(launch, blocks, shape, sm, missing)
    gap = theoretical - achieved if theoretical is not None and achieved is not None else None
    occ = Occupancy(
        theoretical_pct=theoretical, achieved_pct=achieved, limits=limits,
        limiters=limiters(limits, theoretical, unused(shape, sm, limits.get("barriers"))),
        blocks_per_sm=blocks, warps_per_block=shape.warps if shape else None, waves_per_sm=waves,
        tail_idle_pct=tail_idle_pct(waves) if waves is not None else None,
        derived_limits=derived, what_if=changes, missing=missing,
        gap_pts=gap, achieved_apart=gap > ACHIEVED_GAP_PTS if gap is not None else None,
    )
    return replace(occ, findings=findings(occ, launch, sm))


def limiters(limits: Mapping[str, int], theoretical: float | None, idle: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The resources at the smallest block limit (ties together); none when the theoretical occupancy is the
    SM's maximum (100%), where no limit holds the kernel back (ncu: "not impacted by any block limit"). A resource
    the block does not use (``idle``: 0 B of shared memory) is not named beside another at the same limit: ncu
    then reports the blocks-per-SM limit for it, which is that other limit, not a shortage of the resource."""
    return _limiters(tuple(limits.items()), theoretical, idle)


@functools.lru_cache(maxsize=4096)  # launches share their limits; numpy's cost per call is in the tens of microseconds
def _limiters(limits: tuple[tuple[str, int], ...], theoretical: float | None, idle: tuple[str, ...]) -> tuple[str, ...]:
    """``limiters`` of the limits as pairs, worked out once per limits, occupancy and unused resources."""
    if not limits:
        return ()
    masks = limiter_masks({key: np.asarray(value) for key, value in limits},
                          np.asarray(0.0 if theoretical is None else theoretical),
                          {key: np.asarray(True) for key in idle})
    return tuple(key for key, mask in masks.items() if mask)


def limiter_masks(limits: Mapping[str, np.ndarray], theoretical: np.ndarray,
                  idle: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """``limiters`` at many points at once: for each resource of ``limits`` (in ``LIMITERS`` order), where it is
    named (``idle``: where the block does not use it)."""
    fewest = functools.reduce(np.minimum, limits.values())
    held = theoretical < 100.0
    tied = {key: (limits[key] == fewest) & held for key in LIMITERS if key in limits}
    used = {key: at & ~idle.get(key, np.asarray(False)) for key, at in tied.items()}
    some_used = functools.reduce(np.logical_or, used.values())
    return {key: np.where(some_used, used[key], at) for key, at in tied.items()}


def own_shared(shape: LaunchShape, sm: SmResources | None) -> int:
    """The block's own shared bytes (static and dynamic), without the driver's reservation."""
    return max(0, shape.shared_bytes - (sm.reserved_shared_per_block if sm else 0))


def unused(shape: LaunchShape | None, sm: SmResources | None, barriers_limit: int | None = None) -> tuple[str, ...]:
    """The resources the block does not use: shared memory at 0 B of its own, registers at 0 per thread, barriers
    where ncu's barrier limit is no tighter than the SM's blocks limit."""
    if shape is None:
        return ()
    idle: tuple[str, ...] = ("shared_mem",) if own_shared(shape, sm) == 0 else ()
    idle += ("registers",) if shape.registers <= 0 else ()
    spare = sm is not None and barriers_limit is not None and barriers_limit >= sm.max_blocks
    return idle + (("barriers",) if spare else ())


@functools.lru_cache(maxsize=4096)  # launches share shapes; numpy's cost per call is in the tens of microseconds
def point(shape: LaunchShape, sm: SmResources, carveout: int, barriers_limit: int | None = None) -> OccupancyPoint:
    """The occupancy calculator at ``shape`` in a ``carveout``-byte shared-memory configuration: resident blocks,
    theoretical occupancy and the limiting resources (ncu's barrier limit, when given, held as it is)."""
    blocks, theoretical, masks = points(shape.threads, shape.registers, shape.shared_bytes, sm, carveout,
                                        barriers_limit)
    return OccupancyPoint(shape.threads, shape.registers, own_shared(shape, sm), carveout, int(blocks),
                          float(theoretical), tuple(key for key, mask in masks.items() if mask))


def points(threads: Ints, registers: Ints, shared_bytes: Ints, sm: SmResources, carveout: int,
           barriers_limit: int | None = None) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]:
    """``point`` at many shapes at once (``threads``, ``registers`` per thread and ``shared_bytes`` with the
    driver's reservation, numpy arrays broadcast against each other): the resident blocks, the theoretical
    occupancy, and for each resource where it limits (``limiter_masks``)."""
    limits = block_limits(threads, registers, shared_bytes, sm, carveout)
    if barriers_limit is not None:
        limits["barriers"] = np.asarray(barriers_limit)
    blocks = functools.reduce(np.minimum, limits.values())
    theoretical = _theoretical_pcts(blocks, _ceil_div(threads, WARP_SIZE), sm)
    spare_barriers = barriers_limit is not None and barriers_limit >= sm.max_blocks
    idle = {"shared_mem": np.asarray(shared_bytes) <= sm.reserved_shared_per_block,  # none of its own (own_shared)
            "registers": np.asarray(registers) <= 0, "barriers": np.asarray(spare_barriers)}
    return blocks, theoretical, limiter_masks(limits, theoretical, idle)


def point_text(p: OccupancyPoint) -> str:
    """"256 threads, 40 registers, 0 B shared per block, 100 KiB carveout: 6 blocks, 75.0%, limited by warps"."""
    who = " and ".join(LIMITER_WORDS[k] for k in p.limiters) if p.limiters else "the SM's maximum"
    limited = f"limited by {who}" if p.limiters else who
    return (f"{p.threads} threads, {p.registers} registers, {p.shared_bytes} B shared per block, "
            f"{p.carveout_bytes / 1024:g} KiB carveout: {_blocks(p.blocks_per_sm)} per SM, "
            f"{pct(p.theoretical_pct)}, {limited}")


def _note_missing(launch: KernelLaunch, achieved: float | None, waves: float | None, limits: Mapping[str, int],
                  missing: dict[str, str]) -> None:
    """Reasons for the measurements the launch lacks."""
    if achieved is None:
        missing["achieved_pct"] = _why_absent(launch, OCCUPANCY_ACHIEVED, "--section Occupancy")
    if not limits:
        limits_metric = LIMIT_METRIC.format("*")
        missing["limiters"] = missing["blocks_per_sm"] = (
            _why_absent(launch, limits_metric, "") if DURATION in launch.nan_metrics
            else f"no {limits_metric} metrics: re-profile with --section Occupancy")
    if waves is None:
        missing["waves_per_sm"] = missing["tail_idle_pct"] = _why_absent(launch, WAVES, "--section LaunchStats")


def shape_absent(launch: KernelLaunch) -> str:
    """Why the launch's shape (``launch_shape``) is not known: the first of its metrics absent or not positive."""
    for metric in (LAUNCH_BLOCK, LAUNCH_REGISTERS, LAUNCH_SHARED):
        if launch.value(metric) is None:
            return _why_absent(launch, metric, "--section LaunchStats")
    return f"{LAUNCH_BLOCK} is {launch.value(LAUNCH_BLOCK):g}: no block size"


def _theoretical(launch: KernelLaunch, blocks: int | None, shape: LaunchShape | None, sm: SmResources | None,
                 missing: dict[str, str]) -> float | None:
    """ncu's theoretical occupancy, else ncu's block limit x warps per block over the SM's maximum."""
    value = launch.value(OCCUPANCY_THEORETICAL)
    if value is not None:
        return value
    if blocks is not None and shape is not None and sm is not None:
        return theoretical_pct(blocks, shape, sm)
    missing["theoretical_pct"] = _why_absent(launch, OCCUPANCY_THEORETICAL, "--section Occupancy")
    return None


def _why_absent(launch: KernelLaunch, metric: str, section: str) -> str:
    """Why ``metric`` is absent: ncu stored NaN for it, or for the launch's time (it measured nothing of this
    launch, and left its launch attributes out), or the report lacks ``section``."""
    if metric in launch.nan_metrics:
        return f"ncu stored NaN for {metric}: it could not measure this launch"
    if DURATION in launch.nan_metrics:
        return f"{metric} missing: ncu could not measure this launch (it stored NaN for {DURATION}); {HINT_NAN}"
    return f"{metric} missing: re-profile with {section}"


# --- What would raise the limit -----------------------------------------------------------------------
@functools.lru_cache(maxsize=1024)  # launches share shapes
def what_if(shape: LaunchShape, sm: SmResources, barriers_limit: int | None = None) -> tuple[WhatIf, ...]:
    """Changes that raise the resident blocks, assuming the driver grows the carveout as needed: a smaller
    register or shared-memory footprint, or (when warps or the block count limit) another block size."""
    limits = _effective_limits(shape, sm, barriers_limit)
    blocks = min(limits.values())
    if blocks == 0 or blocks * shape.warps >= sm.max_warps:  # a block that cannot reside has no "more blocks"
        return ()
    tied = [k for k, v in limits.items() if v == blocks]
    if "warps" in tied or "blocks" in tied:
        return _block_size_change(shape, sm, barriers_limit)
    if "barriers" in tied:
        return ()
    cap = min([v for k, v in limits.items() if k not in tied] + [sm.max_warps // shape.warps])
    targets = sorted({blocks + 1, cap}) if cap > blocks else []
    changes = (_footprint_change(shape, sm, tied, t, blocks, barriers_limit) for t in targets)
    return tuple({w.change: w for w in changes if w}.values())


def _effective_limits(shape: LaunchShape, sm: SmResources, barriers_limit: int | None) -> dict[str, int]:
    """Limits at the largest carveout (the driver picks a larger one when other limits allow more blocks)."""
    limits = derive_limits(shape, sm, sm.shared_bytes)
    if barriers_limit is not None:
        limits["barriers"] = barriers_limit
    return limits


def _footprint_change(shape: LaunchShape, sm: SmResources, tied: list[str], target: int, blocks: int,
                      barriers_limit: int | None) -> WhatIf | None:
    """The smallest cut of every tied resource that lets ``target`` blocks reside."""
    new = shape
    for resource in tied:
        cut = _shrunk(new, sm, resource, target)
        if cut is None:
            return None
        new = cut
    reached = min(_effective_limits(new, sm, barriers_limit).values())
    change = " and ".join(_describe(resource, shape, new, sm) for resource in tied)
    return _what_if(change, reached, blocks, shape, sm, point(new, sm, sm.shared_bytes, barriers_limit))


def _shrunk(shape: LaunchShape, sm: SmResources, resource: str, target: int) -> LaunchShape | None:
    """``shape`` with the largest register count or shared size (below the current one) that fits ``target``."""
    if resource == "registers":
        registers = registers_for(target, shape, sm)
        return None if registers is None else replace(shape, registers=registers)
    shared = shared_for(target, shape, sm)
    return None if shared is None else replace(shape, shared_bytes=shared)


def registers_for(target: int, shape: LaunchShape, sm: SmResources) -> int | None:
    """The most registers per thread, below the current count, at which ``target`` blocks reside (closed form:
    blocks >= target <=> registers per warp <= per-partition file // warps needed per partition)."""
    warps_needed = math.ceil(target * shape.warps / sm.sub_partitions)  # per sub-partition
    units = sm.registers // sm.sub_partitions // warps_needed // REGISTER_ALLOC_UNIT  # allocation units per warp
    registers = min(shape.registers - 1, units * REGISTER_ALLOC_UNIT // WARP_SIZE)
    return registers if registers >= 1 else None


def shared_for(target: int, shape: LaunchShape, sm: SmResources) -> int | None:
    """The largest shared size per block, whole allocation units below the current one and above the driver's
    reservation, at which ``target`` blocks reside in the largest carveout (closed form, as ``registers_for``)."""
    unit = sm.smem_unit
    fits = sm.shared_bytes // target // unit * unit  # the largest allocation that ``target`` blocks share
    steps = max(1, -((fits - shape.shared_bytes) // unit))  # ceil((current - fits) / unit), at least one
    shared = shape.shared_bytes - steps * unit
    return shared if shared > sm.reserved_shared_per_block else None


def _describe(resource: str, old: LaunchShape, new: LaunchShape, sm: SmResources) -> str:
    if resource == "registers":
        return f"registers per thread {old.registers} -> {new.registers}"
    own = [(s.shared_bytes - sm.reserved_shared_per_block) / 1024 for s in (old, new)]
    return f"shared memory per block {own[0]:.1f} -> {own[1]:.1f} KiB"


# The what-ifs count blocks in the SM's largest shared-memory carveout: the driver sizes the carveout so that shared
# memory does not limit a kernel's occupancy where the kernel sets no preference (NVIDIA Volta Tuning Guide, "Unified
# Shared Memory/L1/Texture Cache"; cudaFuncAttributePreferredSharedMemoryCarveout is a hint). Said where it matters.
CARVEOUT_GROWN = "in the SM's largest carveout, which the driver picks where the blocks need it"


def _block_size_change(shape: LaunchShape, sm: SmResources, barriers_limit: int | None) -> tuple[WhatIf, ...]:
    """The block size (multiple of a warp) closest to the current one with the highest theoretical occupancy.

    The candidates are the warp multiples up to the device's block limit, itself capped at CUDA's 1024 threads:
    at most 32 shapes, whatever the input's numbers (registers and shared memory are solved in closed form)."""
    largest = min(sm.max_threads_per_block, MAX_THREADS_PER_BLOCK)
    threads = np.arange(WARP_SIZE, largest + 1, WARP_SIZE)  # at the largest carveout, as ``_effective_limits``
    resident, theoretical, _ = points(threads, shape.registers, shape.shared_bytes, sm, sm.shared_bytes,
                                      barriers_limit)
    current = min(_effective_limits(shape, sm, barriers_limit).values())
    if not len(threads):
        return ()
    best = max(range(len(threads)), key=lambda i: (theoretical[i], -abs(threads[i] - shape.threads)))  # the first
    if theoretical[best] <= theoretical_pct(current, shape, sm) + 1e-9:
        return ()
    new, blocks = replace(shape, threads=int(threads[best])), int(resident[best])
    change = f"block size {shape.threads} -> {new.threads} threads"
    grown = f"; {CARVEOUT_GROWN}" if own_shared(shape, sm) > 0 else ""
    after = (f" ({_blocks(blocks)} of {new.warps} warps per SM; registers per thread and shared memory per block "
             f"unchanged{grown})")
    cited = point(new, sm, sm.shared_bytes, barriers_limit)
    text = (f"{change} would raise theoretical occupancy {pct(theoretical_pct(current, shape, sm))} -> "
            f"{pct(float(theoretical[best]))}{after} [calculator: {point_text(cited)}]")
    return (WhatIf(change, blocks, float(theoretical[best]), text, cited),)


def _what_if(change: str, reached: int, blocks: int, shape: LaunchShape, sm: SmResources,
             cited: OccupancyPoint) -> WhatIf:
    before, after = theoretical_pct(blocks, shape, sm), theoretical_pct(reached, shape, sm)
    text = (f"{change} would allow {_blocks(reached)} per SM instead of {blocks} ({reached / blocks:.3g}x; "
            f"theoretical occupancy {pct(before)} -> {pct(after)}) [calculator: {point_text(cited)}]")
    return WhatIf(change, reached, after, text, cited)


# --- Findings -----------------------------------------------------------------------------------------
def findings(occ: Occupancy, launch: KernelLaunch, sm: SmResources | None) -> tuple[str, ...]:
    """One-line statements, each with the numbers behind it."""
    lines = [_limit_line(occ, sm)] if occ.theoretical_pct is not None and occ.limits else []
    gap = occ.gap_pts
    if gap is not None and occ.achieved_apart:
        small_grid = occ.waves_per_sm is not None and occ.waves_per_sm < 1
        cause = ("the grid is smaller than one wave" if small_grid
                 else "load imbalance between warps or blocks, a partial last wave, or block launch overhead")
        lines.append(f"achieved occupancy {pct(occ.achieved_pct)} is {gap:.1f} points below the theoretical "
                     f"{pct(occ.theoretical_pct)}: {cause}")
    lines += _wave_lines(occ, launch)
    carveout = launch.value(CARVEOUT)
    if "shared_mem" in occ.limiters and sm is not None and carveout and carveout < sm.shared_bytes:
        shape = launch_shape(launch)
        fit = blocks_by_shared(shape, sm, sm.shared_bytes) if shape else None
        if fit is not None and fit > occ.limits["shared_mem"]:
            lines.append(f"shared memory limits to {_blocks(occ.limits['shared_mem'])} only at this launch's "
                         f"{carveout / 1024:.0f} KiB carveout; the SM's largest ({sm.shared_bytes / 1024:.0f} KiB) "
                         f"holds {fit}, and the driver picks a larger carveout when the other limits allow more blocks")
    return tuple(lines)


def _limit_line(occ: Occupancy, sm: SmResources | None) -> str:
    """The theoretical occupancy (known here) and what limits it."""
    theoretical = occ.theoretical_pct or 0.0
    who = " and ".join(LIMITER_WORDS[k] for k in occ.limiters)
    warps = f"{_blocks(occ.blocks_per_sm)} x {occ.warps_per_block} warps" if occ.warps_per_block else ""
    of = f" of {sm.max_warps} warps per SM" if sm else ""
    detail = f" ({warps}{of})" if warps else ""
    if theoretical >= 100.0:
        return f"theoretical occupancy {pct(theoretical)}{detail}: the SM's maximum"
    return f"theoretical occupancy {pct(theoretical)}{detail}, limited by {who}"


def _blocks(n: int | None) -> str:
    return f"{n} block" if n == 1 else f"{n} blocks"


def _wave_lines(occ: Occupancy, launch: KernelLaunch) -> list[str]:
    waves, grid = occ.waves_per_sm, launch.value(LAUNCH_GRID)
    if waves is None or occ.tail_idle_pct is None or occ.tail_idle_pct < TAIL_IDLE_PCT:
        return []
    if waves < 1:
        slots = f" of {grid / waves:.0f} resident-block slots" if grid and waves > 0 else ""
        return [f"{wave_count(waves)}: the grid{f' ({_blocks(int(grid))})' if grid else ''} fills {100 * waves:.1f}%"
                f"{slots}; {occ.tail_idle_pct:.0f}% of the GPU's block slots stay idle"]
    last = 100.0 * (waves - math.floor(waves))
    return [f"{waves:.2f} waves: the last wave is {last:.0f}% full, leaving about {occ.tail_idle_pct:.0f}% of "
            f"block slots idle over the run (tail effect, equal block durations assumed)"]
