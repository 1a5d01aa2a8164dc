"""The bottleneck verdict of a launch over every unit of the GPU, decided as ncu's SpeedOfLight rule
(``SOLBottleneck``) decides it, with the busiest unit named. Pure functions over the report model.

Inputs: SM = ``sm__throughput`` and MEM = ``gpu__compute_memory_throughput``, each the busiest unit of its
side in percent of that unit's peak over the elapsed time (every pipe, the issue slots, L1, L2, DRAM: the
units each is the maximum of are listed in its ``breakdown:`` metric), and W = waves per SM. The rule:

* SM or MEM at or above ``HIGH_THROUGHPUT_PCT``: ncu's "High Throughput"; compute when SM >= MEM, else memory;
* both below ``LATENCY_BELOW_PCT``: ``small_grid`` when W < ``FULL_WAVE`` ("Small Grid"), else ``latency``;
* otherwise ``compute`` or ``memory`` by the busier side when they differ by ``BALANCED_PTS`` or more
  ("High Compute/Memory Throughput"), else ``balanced``.

The FP roofline cannot see integer, special-function, load/store or tensor work, so it only stands in for
the throughputs where a report lacks them (``basis`` "roofline"), and then never concludes latency: a kernel
below the FP and byte roofs may be busy in a unit the roofline does not measure.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from msgspec import Struct

from roofline.analysis.launches import Launches
from roofline.analysis.results import Bound, BusyUnit, Cause, RoofPosition, Side, Verdict
from roofline.core.cohorts import is_none, largest, nonzero, per_launch, where
from roofline.core.labels import NAMES
from roofline.core.model import LEVELS, PRECISIONS, KernelLaunch
from roofline.core.thresholds import BALANCED_PTS, FULL_WAVE, HIGH_THROUGHPUT_PCT, LATENCY_BELOW_PCT
from roofline.ncu import metrics as m

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

# The rule's thresholds are ncu's (``core.thresholds``); the rule reproduces every SOLBottleneck verdict stored in
# shared/ncu-reps (tests/analysis/test_verdict.py).
NCU_TITLES: Mapping[str, str] = {  # ncu's verdict title -> the bound it gives ("High Throughput" is by side)
    "High Compute Throughput": "compute", "High Memory Throughput": "memory", "Balanced Throughput": "balanced",
    "Latency Issue": "latency", "Small Grid": "small_grid",
}
TOP_UNITS = 3  # busiest units listed beside the verdict

class Throughputs(Struct, frozen=True):
    """What the rule reads: the two throughputs, the waves per SM and every unit of both breakdowns (in their
    order)."""

    sm_pct: float
    memory_pct: float
    waves_per_sm: float | None
    units: tuple[BusyUnit, ...]


class NoThroughputs(Struct, frozen=True):
    """Why a launch has no SpeedOfLight throughputs: the cause, the metrics missing and the option that collects
    them (or re-measures them), and the line that says it."""

    cause: Cause
    text: str
    missing: tuple[str, ...] = ()
    collect: str = ""

    def __str__(self) -> str:
        return self.text


# --- The rule -----------------------------------------------------------------------------------------
def classify(sm_pct: float, memory_pct: float, waves: float | None) -> tuple[Bound | None, str]:
    """(bound, ncu's verdict title) from the two throughputs and the waves per SM; the bound is None when
    the waves, needed to tell a small grid from latency, are unknown. Per launch over a cohort's arrays."""
    high = (sm_pct >= HIGH_THROUGHPUT_PCT) | (memory_pct >= HIGH_THROUGHPUT_PCT)
    low = (sm_pct < LATENCY_BELOW_PCT) & (memory_pct < LATENCY_BELOW_PCT)
    apart = abs(sm_pct - memory_pct) >= BALANCED_PTS
    compute = where(high, sm_pct >= memory_pct, sm_pct > memory_pct)
    bound = where(high | apart, where(compute, "compute", "memory"), "balanced")
    title = where(high, "High Throughput", where(apart, where(compute, "High Compute Throughput",
                                                              "High Memory Throughput"), "Balanced Throughput"))
    if waves is None:
        return where(low & ~high, None, bound), where(low & ~high, "", title)
    small = waves < FULL_WAVE
    return (where(low & ~high, where(small, "small_grid", "latency"), bound),
            where(low & ~high, where(small, "Small Grid", "Latency Issue"), title))


# --- Inputs -------------------------------------------------------------------------------------------
def throughputs(launch: KernelLaunch) -> Throughputs | NoThroughputs:
    """The rule's inputs for one launch, or why the report cannot give them."""
    sm, memory = launch.value(m.SM_THROUGHPUT), launch.value(m.MEMORY_THROUGHPUT)
    if sm is None or memory is None:
        nan = sorted({m.SM_THROUGHPUT, m.MEMORY_THROUGHPUT} & launch.nan_metrics)
        if nan:
            return NoThroughputs(Cause.OTHER, f"ncu stored NaN for {nan[0]}: it could not measure this "
                                 f"launch; {m.HINT_NAN}", (nan[0],), m.HINT_NAN)
        names = (m.SM_THROUGHPUT.split('.')[0], m.MEMORY_THROUGHPUT.split('.')[0])
        return NoThroughputs(Cause.MISSING_METRICS, f"no SpeedOfLight throughputs ({', '.join(names)}) in the "
                             f"report; {m.HINT_THROUGHPUT}", (m.SM_THROUGHPUT, m.MEMORY_THROUGHPUT), m.HINT_THROUGHPUT)
    return Throughputs(sm, memory, launch.value(m.WAVES), busy_units(launch))


SM_LOCAL = ("sm", "smsp", "l1tex", "idc")  # metric prefixes of the units inside each SM: a block's work runs on one
SM_ROOFS = (*PRECISIONS, "l1")  # the roofs of the work inside each SM: every precision's FLOPs, the L1 bytes


def whole_blocks(blocks: Any, sms: int) -> Any:
    """How much longer the SM with the most blocks works than the average SM, ``ceil(B / S) / (B / S)`` (B blocks, S
    SMs; equal work per block assumed): per launch over a cohort."""
    import numpy as np

    per_sm = blocks / sms
    return np.ceil(per_sm) / per_sm


def in_the_sms(metric: str) -> bool:
    """Whether a breakdown unit is inside each SM (``SM_LOCAL``): a block's work on it runs on that block's SM."""
    return metric.split("__", 1)[0] in SM_LOCAL


@functools.lru_cache(maxsize=1024)  # asked per unit of every launch, of the few metrics the breakdowns list
def paced_by_blocks(metric: str) -> bool:
    """Whether whole blocks per SM change a unit's figure: a unit inside the SMs whose percent is over every SM's
    elapsed cycles (``m.PCT_ELAPSED``, as ncu's breakdowns list them). A percent over each SM's active cycles
    leaves the idle ones out, so it already stands for the SMs that were busy longest."""
    return in_the_sms(metric) and metric.endswith(m.PCT_ELAPSED)


def unit_whole_blocks_pct(unit: BusyUnit, launch: KernelLaunch, sm_count: int | None) -> float | None:
    """One unit at its percent of peak on the SMs with the most blocks (``whole_blocks``); None for a unit whole
    blocks do not change (``paced_by_blocks``), or without a grid size or the SM count."""
    blocks = launch.value(m.LAUNCH_GRID)
    if not paced_by_blocks(unit.metric) or not nonzero(blocks) or not sm_count:
        return None
    return float(unit.pct * whole_blocks(blocks, sm_count))


def whole_blocks_pct(launch: KernelLaunch, sm_count: int | None, roof_pcts: Sequence[Any] = ()) -> Any:
    """The busiest unit inside the SMs at its percent of peak in whole blocks per SM (``whole_blocks``): the time
    model's tail as a percentage of the duration (``analysis.time_model``), the least time the launch needs with its
    work in its blocks. Where the report has no breakdowns, the largest of ``roof_pcts`` (the work at each roof
    inside the SMs over that roof, as a percentage of the duration: the model's roof terms there) stands for the
    busiest unit. A unit whole blocks do not change (``paced_by_blocks``) counts at its own percent. None without
    either, a grid size or the SM count."""
    listed = busy_units(launch)
    units = [u for u in listed if in_the_sms(u.metric)]
    blocks = launch.value(m.LAUNCH_GRID)
    if not (units if listed else roof_pcts) or not nonzero(blocks) or not sm_count:
        return None
    factor = whole_blocks(blocks, sm_count)
    if not listed:
        return largest(list(roof_pcts)) * factor
    return largest([u.pct * factor if paced_by_blocks(u.metric) else u.pct for u in units])


def busy_units(launch: KernelLaunch) -> tuple[BusyUnit, ...]:
    """Every unit the two breakdowns list, with its percent of peak, in the breakdowns' order; ncu's aggregates of
    other units (``m.INTERNAL_ACTIVITY``) are no unit and are left out."""
    units = []
    sides: tuple[Side, Side] = ("compute", "memory")
    for breakdown, side in zip(m.BREAKDOWNS, sides, strict=True):
        listed = launch.metrics.get(breakdown)
        for metric, name in (_named_units(str(listed)) if listed else ()):
            value = launch.value(metric)
            if value is not None:
                units.append(BusyUnit(name, value, side, metric))
    return tuple(units)


@functools.lru_cache(maxsize=256)
def _named_units(listed: str) -> tuple[tuple[str, str], ...]:
    """The units a breakdown lists, each metric with its name, ncu's aggregates (``m.INTERNAL_ACTIVITY``) left out:
    every launch of a report lists the same, so they are named once."""
    units = m.breakdown_units(listed)
    return tuple((metric, unit_name(metric)) for metric in units if m.INTERNAL_ACTIVITY not in metric)


def _ranked(units: Sequence[BusyUnit], side: Side | None,
            none: bool) -> tuple[BusyUnit | None, tuple[BusyUnit, ...]]:
    """The busiest unit of ``side`` (of both sides when None) and the ``TOP_UNITS`` busiest, neither where ``none``
    (a launch without a verdict). Over a cohort they are made per launch when it is taken out (``per_launch``): the
    units' names are the cohort's, only their percentages are the launch's, so a launch builds the few units it
    keeps and not all of them."""
    labels = tuple((u.name, u.side, u.metric) for u in units)
    pcts = tuple(u.pct for u in units)
    # the labels are every launch's: bound to the maker, not searched for per-launch values as its inputs are
    return (per_launch(functools.partial(_busiest, labels), pcts, side, none),
            per_launch(functools.partial(_top, labels), pcts, none))


def _by_load(pcts: Sequence[float]) -> list[int]:
    """The units' positions, busiest first (in their given order among equals: a reversed sort keeps it)."""
    return sorted(range(len(pcts)), key=pcts.__getitem__, reverse=True)


def _busiest(labels: Sequence[tuple[str, Side, str]], pcts: Sequence[float], side: Side | None,
             none: bool) -> BusyUnit | None:
    if none:
        return None
    return next((_unit(labels[i], pcts[i]) for i in _by_load(pcts) if side is None or labels[i][1] == side), None)


def _top(labels: Sequence[tuple[str, Side, str]], pcts: Sequence[float], none: bool) -> tuple[BusyUnit, ...]:
    return () if none else tuple(_unit(labels[i], pcts[i]) for i in _by_load(pcts)[:TOP_UNITS])


def _unit(label: tuple[str, Side, str], pct: float) -> BusyUnit:
    name, side, metric = label
    return BusyUnit(name, pct, side, metric)


@functools.lru_cache(maxsize=1024)
def unit_name(metric: str) -> str:
    """A breakdown unit's human name ("FP64 pipe", "DRAM", "L2 -> SM crossbar", ...)."""
    base = metric.split(".", 1)[0]
    if base in m.BREAKDOWN_UNITS:
        return m.BREAKDOWN_UNITS[base][1]
    prefix, _, rest = base.partition("__")
    return f"{m.UNIT_PREFIXES.get(prefix, prefix)} {rest.replace('_', ' ')}".strip()


def decide(t: Throughputs) -> Verdict:
    """The verdict from the throughputs, with the busiest unit of the deciding side."""
    bound, title = classify(t.sm_pct, t.memory_pct, t.waves_per_sm)
    undecided = is_none(bound)
    reason = where(undecided, f"both throughputs below {LATENCY_BELOW_PCT:.0f}% and {m.WAVES} missing (small grid or "
                   "latency?): re-profile with --section LaunchStats", "")
    return Verdict(bound, where(undecided, None, "throughput"), t.sm_pct, t.memory_pct, t.waves_per_sm,
                   *_ranked(t.units, _side(bound), False), title, reason)


def _side(bound: Bound | None) -> Side | None:
    """Per launch, the side a bound names (compute or memory), None for the others."""
    side: Side | None = where(bound == "memory", "memory", where(bound == "compute", "compute", None))
    return side


def from_roofline(roof: RoofPosition, why: NoThroughputs | str) -> Verdict:
    """The verdict from the FP and byte roofs alone (a report without throughputs): compute, memory or
    balanced when a roof is at or above the latency threshold, otherwise none (see the module docstring)."""
    gap = why if isinstance(why, NoThroughputs) else NoThroughputs(Cause.OTHER, why)
    why_no_throughputs = gap.text
    util = roof.utilization_pct
    compute = largest([util[p] for p in PRECISIONS if p in util] or [0.0])
    memory = largest([util[level] for level in LEVELS if level in util] or [0.0])
    if not util:
        return Verdict(None, None, reason=f"{why_no_throughputs}; and no FP or byte roof position either",
                       cause=gap.cause, missing=gap.missing, collect=gap.collect)
    low = (compute < LATENCY_BELOW_PCT) & (memory < LATENCY_BELOW_PCT)
    bound = where(low, None, classify(compute, memory, None)[0])
    units = tuple(BusyUnit(f"{NAMES[key]} roof", value, "compute" if key in PRECISIONS else "memory", key)
                  for key, value in util.items())
    reason = where(low, f"{why_no_throughputs}; the FP and byte roofs alone (all below {LATENCY_BELOW_PCT:.0f}%) "
                   "cannot tell latency from integer, special-function, load/store or tensor work",
                   f"roofline only: {why_no_throughputs}")
    return Verdict(bound, where(low, None, "roofline"), None, None, None, *_ranked(units, _side(bound), low),
                   reason=reason, cause=gap.cause, missing=gap.missing, collect=gap.collect)


def launch_verdict(launch: KernelLaunch, roof: RoofPosition) -> Verdict:
    """The verdict of one launch: from its throughputs, else from its roofline position (labelled)."""
    t = throughputs(launch)
    return decide(t) if isinstance(t, Throughputs) else from_roofline(roof, t)


def pooled_verdict(launches: Launches, roof: RoofPosition) -> Verdict:
    """The verdict of several launches of one kernel: their throughputs, waves and units averaged over the
    launches' time (from the report's columns); from ``roof`` (the pooled roofline) when any launch lacks them."""
    import numpy as np

    c, at = launches.table.columns, launches.indices
    missing = c.no_throughputs[at]
    weights = launches.times
    total = sum(weights.tolist())
    if (missing != "").any() or not len(at) or total <= 0:
        return from_roofline(roof, next((why for why in missing.tolist() if why), "no launch with a duration"))
    waves = c.waves[at]
    return decide(Throughputs(_mean(c.sm_pct[at], weights, total), _mean(c.memory_pct[at], weights, total),
                              None if np.isnan(waves).any() else _mean(waves, weights, total),
                              _pooled_units(c.units, at, weights, total)))


def _mean(values: np.ndarray, weights: np.ndarray, total: float) -> float:
    """Time-weighted mean, summed in launch order."""
    mean: float = sum((values * weights).tolist()) / total
    return mean


def _pooled_units(units: Mapping[str, tuple[str, Side, np.ndarray]], at: np.ndarray, weights: np.ndarray,
                  total: float) -> tuple[BusyUnit, ...]:
    """Each unit's time-weighted mean over the launches that list it, busiest first; among equals, in the order
    the launches list them (the first launch's busiest first)."""
    import numpy as np

    if not units:
        return ()
    rows = np.stack([column[at] for _, _, column in units.values()])  # one row per unit, one column per launch
    values, products, marks = rows.tolist(), (rows * weights).tolist(), (~np.isnan(rows)).tolist()
    seen = []
    for order, ((metric, (name, side, _)), row, product, mark) in enumerate(zip(units.items(), values, products,
                                                                                marks, strict=True)):
        if True in mark:
            first = mark.index(True)
            summed = sum([p for p, present in zip(product, mark, strict=True) if present])
            seen.append(((first, -row[first], order), BusyUnit(name, summed / total, side, metric)))
    pooled = (unit for _, unit in sorted(seen, key=lambda item: item[0]))
    return tuple(sorted(pooled, key=lambda u: -u.pct))


# --- Words --------------------------------------------------------------------------------------------
BOUND_WORDS: Mapping[str, str] = {"compute": "compute-bound", "memory": "memory-bound",
                                  "balanced": "balanced (compute and memory)", "latency": "latency-bound",
                                  "small_grid": "small grid"}

