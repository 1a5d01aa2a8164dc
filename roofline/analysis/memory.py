"""The memory picture of one launch (pure), as ncu's Memory Workload Analysis draws it: the L1 and L2 sector hit
rates (the L2's of loads and of stores apart), the traffic between the kernel, L1, shared memory, L2 and DRAM with
each edge in percent of its path's peak, and the Speed of Light percentages of its details page. Every value is the
report's own counter (names and definitions in ``roofline.ncu.metrics``: ``HIT_RATES``, ``L2_OP_HIT_RATES``,
``MEMORY_EDGES``, ``EDGE_PCT``, ``SOL_UNITS``)."""

from __future__ import annotations

from collections.abc import Mapping

from roofline.analysis.results import MemoryNote, MemoryNoteKind, MemoryPicture, Value
from roofline.core.model import KernelLaunch
from roofline.ncu import metrics as m

FULL_PCT = 100.0
# The Speed of Light units whose percent ncu states over their active cycles (``m.PCT_ACTIVE``), not the elapsed ones
SOL_OVER_ACTIVE = tuple(unit for unit, name in m.SOL_UNITS.items() if name.endswith(m.PCT_ACTIVE))


def memory_picture(launch: KernelLaunch) -> MemoryPicture:
    """The launch's hit rates and traffic per edge of the memory chart; None with the reason where not measured."""
    hit_rates = {level: Value.of(m.hit_rate(launch, level)) for level in m.HIT_RATES}
    by_op = {op: Value.of(v) for op, v in m.l2_hit_rates_by_op(launch).items()}
    return MemoryPicture(hit_rate_pct=hit_rates,
                         traffic={edge: Value.of(v) for edge, v in m.memory_edges(launch).items()},
                         definitions={edge: what for edge, (_, what) in m.MEMORY_EDGES.items()},
                         sol_pct={unit: Value.of(v) for unit, v in m.speed_of_light(launch).items()},
                         traffic_pct={edge: Value.of(v) for edge, v in m.edge_pcts(launch).items()},
                         l2_hit_rate_pct_by_op=by_op, notes=_notes(hit_rates, by_op), sol_over_active=SOL_OVER_ACTIVE)


def _notes(hit_rates: Mapping[str, Value], by_op: Mapping[str, Value]) -> tuple[MemoryNote, ...]:
    """The note on an L2 hit rate above 100% (of all operations, of the loads or of the stores), which is no error,
    and whether the loads' and stores' rates that split it were measured."""
    rates = [v.value for v in (hit_rates["l2"], *by_op.values()) if v.value is not None]
    if not any(rate > FULL_PCT for rate in rates):
        return ()
    return (MemoryNote(MemoryNoteKind.L2_ABOVE_FULL, split=all(v.value is not None for v in by_op.values())),)
