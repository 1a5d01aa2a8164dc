"""The memory picture of one launch (pure), as ncu's Memory Workload Analysis draws it: the L1 and L2 sector hit
rates and the traffic between the kernel, L1, shared memory, L2 and DRAM; and the Speed of Light percentages of its
details page. Every value is the report's own counter (names and definitions in ``roofline.ncu.metrics``:
``HIT_RATES``, ``MEMORY_EDGES``, ``SOL_UNITS``)."""

from __future__ import annotations

from roofline.analysis.results import MemoryPicture, Value
from roofline.core.model import KernelLaunch
from roofline.ncu import metrics as m


def memory_picture(launch: KernelLaunch) -> MemoryPicture:
    """The launch's hit rates and traffic per edge of the memory chart; None with the reason where not measured."""
    return MemoryPicture(hit_rate_pct={level: Value.of(m.hit_rate(launch, level)) for level in m.HIT_RATES},
                         traffic={edge: Value.of(v) for edge, v in m.memory_edges(launch).items()},
                         definitions={edge: what for edge, (_, what) in m.MEMORY_EDGES.items()},
                         sol_pct={unit: Value.of(v) for unit, v in m.speed_of_light(launch).items()})
