"""ncu's occupancy calculator for one launch (pure): theoretical occupancy against threads per block, registers
per thread and shared memory per block, each curve with the launch's other two values held, the limiting
resources named at every point.

The rules are ``diagnostics.occupancy``'s (they reproduce ncu's ``launch__occupancy_limit_*``); the SM's limits
come from the report's device attributes, else from the compute capability. Each curve is stored as runs of
equal occupancy (``OccupancyStep``): a few dozen numbers instead of one point per register or 128 B.

Constants and where they come from (``OccupancyLimits.sources`` says which one each launch used):

* max warps and blocks per SM, 32-bit registers per SM, shared memory per SM, threads per block: the report's
  ``device__attribute_*``, else the CUDA C++ Programming Guide's table "Technical Specifications per Compute
  Capability" (``occupancy._CC_RESOURCES``);
* 255 registers per thread at most: the same table;
* registers allocated per warp in units of 256, split over the SM's 4 sub-partitions; shared memory allocated
  in units of 256 B (CC 7.x) or 128 B (CC 8.0 on): the CUDA occupancy calculator (CUDA_Occupancy_Calculator.xls,
  "GPU Data" sheet), checked against ncu's ``launch__*_allocated`` values in shared/ncu-reps;
* the driver's shared memory reserved per block: ``device__attribute_reserved_shared_memory_per_block``, else 1 KiB
  from CC 8.0 on (CUDA C++ Programming Guide, "Shared Memory" of compute capability 8.x).
"""

from __future__ import annotations

import functools

import numpy as np
from msgspec.structs import replace

from roofline.analysis.diagnostics import occupancy as occ
from roofline.analysis.results import (
    Occupancy,
    OccupancyCalculator,
    OccupancyCurve,
    OccupancyLimits,
    OccupancyStep,
)
from roofline.core.model import Device, KernelLaunch
from roofline.ncu.metrics import CARVEOUT, LIMIT_METRIC
from roofline.ncu.validation import MAX_THREADS_PER_BLOCK

GUIDE = "CUDA C++ Programming Guide, Technical Specifications per Compute Capability"
CALCULATOR = "CUDA occupancy calculator (GPU Data sheet)"
RESERVE = "CUDA C++ Programming Guide, compute capability 8.x shared memory: 1 KB reserved per block"
_ATTRIBUTE_OF = {  # OccupancyLimits field -> SmResources field read from a device attribute
    "max_warps_per_sm": "max_warps", "max_blocks_per_sm": "max_blocks", "registers_per_sm": "registers",
    "sub_partitions": "sub_partitions", "shared_bytes_per_sm": "shared_bytes",
    "max_threads_per_block": "max_threads_per_block",
}
CURVES = ("threads", "registers", "shared_bytes")


def diagnose(launch: KernelLaunch, device: Device) -> Occupancy:
    """``occupancy.diagnose`` with the calculator attached (None where the launch's shape or the SM's limits are
    unknown)."""
    o = occ.diagnose(launch, device)
    found = calculator(launch, device)
    if found is not None:
        return replace(o, calculator=found)
    why = (occ.shape_absent(launch) if occ.launch_shape(launch) is None else
           f"the SM's limits are not known: device attributes missing and no table entry for compute capability "
           f"{device.compute_capability or '?'}")
    return replace(o, missing={**o.missing, "calculator": why})


def calculator(launch: KernelLaunch, device: Device) -> OccupancyCalculator | None:
    """The launch's point and the three curves through it."""
    shape, sm = occ.launch_shape(launch), occ.sm_resources(device)
    if shape is None or sm is None:
        return None
    ncu = occ.ncu_limits(launch)
    carveout, note = calculator_carveout(launch, shape, sm, ncu.get("shared_mem"))
    barriers = ncu.get("barriers")
    return OccupancyCalculator(
        compute_capability=device.compute_capability, limits=limits(device, sm, barriers),
        launch=occ.point(shape, sm, carveout, barriers), curves=curves(shape, sm, carveout, barriers),
        carveout_note=note)


def calculator_carveout(launch: KernelLaunch, shape: occ.LaunchShape, sm: occ.SmResources,
                        ncu_shared: int | None) -> tuple[int, str]:
    """The shared-memory configuration the curves hold: the launch's (launch__shared_mem_config_size), or the SM's
    largest where only that one gives ncu's shared-memory limit (ncu 2020.3 and 2021.2 size the limit so)."""
    chosen = launch.value(CARVEOUT)
    if chosen is None or chosen <= 0:
        return sm.shared_bytes, f"the SM's largest carveout ({CARVEOUT} missing)"
    carveout = int(chosen)
    if ncu_shared is not None and occ.blocks_by_shared(shape, sm, carveout) != ncu_shared \
            and occ.blocks_by_shared(shape, sm, sm.shared_bytes) == ncu_shared:
        return sm.shared_bytes, (f"the SM's largest carveout: this ncu sizes {LIMIT_METRIC.format('shared_mem')} by "
                                 f"it, not by the launch's {carveout / 1024:g} KiB")
    return carveout, f"the launch's carveout ({CARVEOUT})"


def limits(device: Device, sm: occ.SmResources, barriers: int | None) -> OccupancyLimits:
    """The constants the calculator uses, each with its source."""
    sources = {key: _source(device, field) for key, field in _ATTRIBUTE_OF.items()}
    sources |= {"register_alloc_unit": f"{CALCULATOR}: register allocation unit, per warp",
                "max_registers_per_thread": GUIDE,
                "shared_alloc_unit": f"{CALCULATOR}: shared memory allocation unit size",
                "reserved_shared_per_block": _reserve_source(device)}
    if barriers is not None:
        sources["barriers_limit"] = LIMIT_METRIC.format("barriers")
    return OccupancyLimits(
        max_warps_per_sm=sm.max_warps, max_blocks_per_sm=sm.max_blocks, registers_per_sm=sm.registers,
        register_alloc_unit=occ.REGISTER_ALLOC_UNIT, sub_partitions=sm.sub_partitions,
        max_registers_per_thread=occ.MAX_REGISTERS_PER_THREAD, shared_bytes_per_sm=sm.shared_bytes,
        shared_alloc_unit=sm.smem_unit, reserved_shared_per_block=sm.reserved_shared_per_block,
        max_threads_per_block=sm.max_threads_per_block, barriers_limit=barriers, sources=sources)


def _source(device: Device, field: str) -> str:
    attribute = occ.ATTRIBUTES[field]
    if isinstance(device.attributes.get(attribute), (int, float)):
        return f"device__attribute_{attribute}"
    return f"{GUIDE} (compute capability {device.compute_capability})"


def _reserve_source(device: Device) -> str:
    if isinstance(device.attributes.get("reserved_shared_memory_per_block"), (int, float)):
        return "device__attribute_reserved_shared_memory_per_block"
    return RESERVE if (device.cc_major or 0) >= 8 else f"none before compute capability 8.0 ({GUIDE})"


# --- Curves ------------------------------------------------------------------------------------------------
@functools.lru_cache(maxsize=1024)  # launches share shapes (the 154-launch A100 report: 5 shapes)
def curves(shape: occ.LaunchShape, sm: occ.SmResources, carveout: int,
           barriers: int | None = None) -> tuple[OccupancyCurve, ...]:
    """Occupancy against threads per block (warp multiples up to the device's limit), registers per thread (1 to
    255) and the block's own shared bytes (allocation units up to what the carveout holds beside the driver's
    reservation), the launch's other two values held; each curve's points at once (``occupancy.points``)."""
    largest_threads = min(sm.max_threads_per_block, MAX_THREADS_PER_BLOCK)
    room = max(0, carveout - sm.reserved_shared_per_block)
    threads = np.arange(occ.WARP_SIZE, largest_threads + 1, occ.WARP_SIZE)
    registers = np.arange(1, occ.MAX_REGISTERS_PER_THREAD + 1)
    own = np.arange(0, room + 1, sm.smem_unit)
    varied: dict[str, tuple[int, np.ndarray, tuple[occ.Ints, occ.Ints, occ.Ints]]] = {  # name -> (unit, its
        # values, the shapes there: threads, registers, shared bytes with the driver's reservation)
        "threads": (occ.WARP_SIZE, threads, (threads, shape.registers, shape.shared_bytes)),
        "registers": (1, registers, (shape.threads, registers, shape.shared_bytes)),
        "shared_bytes": (sm.smem_unit, own, (shape.threads, shape.registers, own + sm.reserved_shared_per_block)),
    }
    launch_value = {"threads": shape.threads, "registers": shape.registers, "shared_bytes": occ.own_shared(shape, sm)}
    return tuple(OccupancyCurve(name, unit, launch_value[name], runs(xs, *occ.points(*at, sm, carveout, barriers)))
                 for name, (unit, xs, at) in varied.items())


def runs(xs: np.ndarray, blocks: np.ndarray, theoretical: np.ndarray,
         limiting: dict[str, np.ndarray]) -> tuple[OccupancyStep, ...]:
    """The points of a curve (at ``xs``, in order) with their blocks, occupancy and limiters, consecutive points
    of equal values merged into one step."""
    same = (blocks[1:] == blocks[:-1]) & (theoretical[1:] == theoretical[:-1])
    for mask in limiting.values():
        same &= mask[1:] == mask[:-1]
    starts = np.flatnonzero(np.concatenate(([True], ~same)))[:len(xs)]
    ends = np.append(starts[1:], len(xs)) - 1
    return tuple(OccupancyStep(int(xs[a]), int(xs[b]), int(blocks[a]), float(theoretical[a]),
                               tuple(key for key, mask in limiting.items() if mask[a]))
                 for a, b in zip(starts, ends, strict=True))


def at(curve: OccupancyCurve, value: int) -> OccupancyStep | None:
    """The step of ``curve`` holding ``value`` (None outside the curve)."""
    return next((s for s in curve.steps if s.low <= value <= s.high), None)
