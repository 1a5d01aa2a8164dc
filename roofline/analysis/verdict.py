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
from dataclasses import dataclass
from typing import TYPE_CHECKING

from roofline.analysis.launches import Launches
from roofline.analysis.results import Bound, BusyUnit, RoofPosition, Side, Verdict
from roofline.core.cohorts import largest, per_row, same
from roofline.core.labels import NAMES
from roofline.core.model import LEVELS, PRECISIONS, KernelLaunch
from roofline.core.units import pct
from roofline.ncu import metrics as m

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

# Thresholds of ncu's SOLBottleneck rule (Nsight Compute 2022.3, sections/SpeedOfLight.py: balanced_threshold,
# latency_bound_threshold, no_bound_threshold, waves_threshold); the rule reproduces every SOLBottleneck
# verdict stored in shared/ncu-reps (tests/analysis/test_verdict.py).
BALANCED_PTS = 10.0
LATENCY_BELOW_PCT = 60.0
HIGH_THROUGHPUT_PCT = 80.0
FULL_WAVE = 1.0
NCU_TITLES: Mapping[str, str] = {  # ncu's verdict title -> the bound it gives ("High Throughput" is by side)
    "High Compute Throughput": "compute", "High Memory Throughput": "memory", "Balanced Throughput": "balanced",
    "Latency Issue": "latency", "Small Grid": "small_grid",
}
TOP_UNITS = 3  # busiest units listed beside the verdict

# Names of the units the throughput breakdowns list (metric name up to its first '.'): (short, full). Units not
# listed are named by their metric prefix (UNIT_PREFIXES) and the rest of the metric name.
UNIT_NAMES: Mapping[str, tuple[str, str]] = {
    "sm__pipe_fp64_cycles_active": ("FP64", "FP64 pipe"), "sm__pipe_fma_cycles_active": ("FMA", "FMA pipe"),
    "sm__pipe_fmaheavy_cycles_active": ("FMA", "FMA pipe (heavy)"), "sm__pipe_alu_cycles_active": ("ALU", "ALU pipe"),
    "sm__pipe_aluheavy_cycles_active": ("ALU", "ALU pipe (heavy)"),
    "sm__inst_executed_pipe_xu": ("XU", "XU pipe (special functions, conversions)"),
    "sm__inst_executed_pipe_lsu": ("LSU", "LSU pipe (load/store instructions)"),
    "sm__pipe_tensor_cycles_active": ("tensor", "tensor pipe"),
    "sm__pipe_tensor_op_dmma_cycles_active": ("tensor", "tensor pipe (DMMA)"),
    "sm__pipe_tensor_type_hmma_hgmma_qgmma_imma_igmma_bmma_bgmma_cycles_active": ("tensor", "tensor pipe (MMA)"),
    "sm__pipe_shared_cycles_active": ("FP16/tensor", "shared FP16/tensor pipe"),  # one pipe: FP16 and tensor
    "sm__inst_executed_pipe_fp16": ("FP16", "FP16 pipe"), "sm__pipe_tma_cycles_active": ("TMA", "TMA pipe"),
    "sm__issue_active": ("issue", "issue slots"), "sm__inst_executed": ("issue", "instruction issue"),
    "sm__inst_executed_pipe_adu": ("ADU", "ADU pipe (address divergence)"),
    "sm__inst_executed_pipe_cbu_pred_on_any": ("CBU", "CBU pipe (branches)"),
    "sm__inst_executed_pipe_uniform": ("uniform", "uniform pipe"), "sm__inst_executed_pipe_ipa": ("IPA", "IPA pipe"),
    "sm__inst_executed_pipe_tex": ("TEX", "TEX pipe"), "sm__mio_inst_issued": ("MIO", "MIO instruction issue"),
    "sm__mio2rf_writeback_active": ("MIO", "MIO register writeback"),
    "sm__mio_pq_read_cycles_active": ("MIO", "MIO queue reads"),
    "sm__mio_pq_write_cycles_active": ("MIO", "MIO queue writes"),
    "idc__request_cycles_active": ("IDC", "indexed constant cache"),
    "dram__cycles_active": ("DRAM", "DRAM"), "fbpa__dram_sectors": ("DRAM", "DRAM sectors"),
    "l1tex__data_pipe_lsu_wavefronts": ("L1", "L1 LSU data pipe"),
    "l1tex__data_pipe_tex_wavefronts": ("L1", "L1 TEX data pipe"),
    "l1tex__data_bank_reads": ("L1", "L1 data-bank reads"), "l1tex__data_bank_writes": ("L1", "L1 data-bank writes"),
    "l1tex__lsuin_requests": ("L1", "L1 LSU requests"), "l1tex__f_wavefronts": ("L1", "L1 TEX F stage"),
    "l1tex__lsu_writeback_active": ("L1", "L1 load writeback"),
    "l1tex__tex_writeback_active": ("L1", "L1 texture writeback"),
    "l1tex__m_l1tex2xbar_req_cycles_active": ("L1", "L1 -> L2 requests"),
    "l1tex__m_xbar2l1tex_read_sectors": ("L1", "L2 -> L1 reads"),
    "l1tex__texin_sm2tex_req_cycles_active": ("L1", "L1 texture requests"),
    "lts__t_sectors": ("L2", "L2 sectors"), "lts__t_tag_requests": ("L2", "L2 tag lookups"),
    "lts__d_sectors": ("L2", "L2 data"), "lts__d_sectors_fill_device": ("L2", "L2 fills from DRAM"),
    "lts__d_sectors_fill_sysmem": ("L2", "L2 fills from system memory"),
    "lts__lts2xbar_cycles_active": ("L2", "L2 -> SM crossbar"),
    "lts__xbar2lts_cycles_active": ("L2", "SM -> L2 crossbar"),
    "lts__d_atomic_input_cycles_active": ("L2", "L2 atomics"),
}
UNIT_PREFIXES: Mapping[str, str] = {  # metric prefix -> unit, as ncu's rule names the memory side's bottleneck
    "dram": "DRAM", "fbpa": "DRAM", "fbp": "DRAM", "lts": "L2", "ltc": "L2", "syslts": "system L2", "l1tex": "L1",
    "sm": "SM", "idc": "SM", "gpu": "memory system",
}


@dataclass(frozen=True)
class Throughputs:
    """What the rule reads: the two throughputs, the waves per SM and every unit of both breakdowns (in their
    order)."""

    sm_pct: float
    memory_pct: float
    waves_per_sm: float | None
    units: tuple[BusyUnit, ...]


# --- The rule -----------------------------------------------------------------------------------------
def classify(sm_pct: float, memory_pct: float, waves: float | None) -> tuple[Bound | None, str]:
    """(bound, ncu's verdict title) from the two throughputs and the waves per SM; the bound is None when
    the waves, needed to tell a small grid from latency, are unknown."""
    if same((sm_pct >= HIGH_THROUGHPUT_PCT) | (memory_pct >= HIGH_THROUGHPUT_PCT)):
        return ("compute" if same(sm_pct >= memory_pct) else "memory"), "High Throughput"
    if same((sm_pct < LATENCY_BELOW_PCT) & (memory_pct < LATENCY_BELOW_PCT)):
        if waves is None:
            return None, ""
        return ("small_grid", "Small Grid") if same(waves < FULL_WAVE) else ("latency", "Latency Issue")
    if same(abs(sm_pct - memory_pct) >= BALANCED_PTS):
        if same(sm_pct > memory_pct):
            return "compute", "High Compute Throughput"
        return "memory", "High Memory Throughput"
    return "balanced", "Balanced Throughput"


# --- Inputs -------------------------------------------------------------------------------------------
def throughputs(launch: KernelLaunch) -> Throughputs | str:
    """The rule's inputs for one launch, or why the report cannot give them."""
    sm, memory = launch.value(m.SM_THROUGHPUT), launch.value(m.MEMORY_THROUGHPUT)
    if sm is None or memory is None:
        nan = sorted({m.SM_THROUGHPUT, m.MEMORY_THROUGHPUT} & launch.nan_metrics)
        if nan:
            return f"ncu stored NaN for {nan[0]}: it could not measure this launch; {m.HINT_NAN}"
        return f"no SpeedOfLight throughputs ({m.SM_THROUGHPUT.split('.')[0]}, " \
               f"{m.MEMORY_THROUGHPUT.split('.')[0]}) in the report; {m.HINT_THROUGHPUT}"
    return Throughputs(sm, memory, launch.value(m.WAVES), busy_units(launch))


def busy_units(launch: KernelLaunch) -> tuple[BusyUnit, ...]:
    """Every unit the two breakdowns list, with its percent of peak, in the breakdowns' order; ncu's aggregates of
    other units (``m.INTERNAL_ACTIVITY``) are no unit and are left out."""
    units = []
    sides: tuple[Side, Side] = ("compute", "memory")
    for breakdown, side in zip(m.BREAKDOWNS, sides, strict=True):
        listed = launch.metrics.get(breakdown)
        for metric in (m.breakdown_units(str(listed)) if listed else ()):
            if m.INTERNAL_ACTIVITY in metric:
                continue
            value = launch.value(metric)
            if value is not None:
                units.append(BusyUnit(unit_name(metric), value, side, metric))
    return tuple(units)


def _ranked(units: Sequence[BusyUnit], side: Side | None) -> tuple[BusyUnit | None, tuple[BusyUnit, ...]]:
    """The busiest unit of ``side`` (of both sides when None) and the ``TOP_UNITS`` busiest. Over a cohort they are
    made per launch when it is taken out (``per_row``): the units' names are the cohort's, only their percentages
    are the launch's, so a launch builds the few units it keeps and not all of them."""
    labels = tuple((u.name, u.side, u.metric) for u in units)
    pcts = tuple(u.pct for u in units)
    return per_row(_busiest, labels, pcts, side), per_row(_top, labels, pcts)


def _by_load(pcts: Sequence[float]) -> list[int]:
    """The units' positions, busiest first (in their given order among equals)."""
    return sorted(range(len(pcts)), key=lambda i: -pcts[i])


def _busiest(labels: Sequence[tuple[str, Side, str]], pcts: Sequence[float], side: Side | None) -> BusyUnit | None:
    return next((_unit(labels[i], pcts[i]) for i in _by_load(pcts) if side is None or labels[i][1] == side), None)


def _top(labels: Sequence[tuple[str, Side, str]], pcts: Sequence[float]) -> tuple[BusyUnit, ...]:
    return tuple(_unit(labels[i], pcts[i]) for i in _by_load(pcts)[:TOP_UNITS])


def _unit(label: tuple[str, Side, str], pct: float) -> BusyUnit:
    name, side, metric = label
    return BusyUnit(name, pct, side, metric)


@functools.lru_cache(maxsize=1024)
def unit_name(metric: str) -> str:
    """A breakdown unit's human name ("FP64 pipe", "DRAM", "L2 -> SM crossbar", ...)."""
    base = metric.split(".", 1)[0]
    if base in UNIT_NAMES:
        return UNIT_NAMES[base][1]
    prefix, _, rest = base.partition("__")
    return f"{UNIT_PREFIXES.get(prefix, prefix)} {rest.replace('_', ' ')}".strip()


def short_name(unit: BusyUnit) -> str:
    """A unit's short name for a table cell ("FP64", "ALU", "issue", "L1", "DRAM"; a roof's key in capitals)."""
    base = unit.metric.split(".", 1)[0]
    if base in UNIT_NAMES:
        return UNIT_NAMES[base][0]
    if unit.metric in NAMES:
        return NAMES[unit.metric]
    return UNIT_PREFIXES.get(base.partition("__")[0], base)


# --- Verdicts -----------------------------------------------------------------------------------------
def decide(t: Throughputs) -> Verdict:
    """The verdict from the throughputs, with the busiest unit of the deciding side."""
    bound, title = classify(t.sm_pct, t.memory_pct, t.waves_per_sm)
    side: Side | None = "memory" if bound == "memory" else "compute" if bound == "compute" else None
    reason = "" if bound is not None else f"both throughputs below {LATENCY_BELOW_PCT:.0f}% and {m.WAVES} missing " \
        "(small grid or latency?): re-profile with --section LaunchStats"
    return Verdict(bound, "throughput" if bound else None, t.sm_pct, t.memory_pct, t.waves_per_sm,
                   *_ranked(t.units, side), title, reason)


def from_roofline(roof: RoofPosition, why_no_throughputs: str) -> Verdict:
    """The verdict from the FP and byte roofs alone (a report without throughputs): compute, memory or
    balanced when a roof is at or above the latency threshold, otherwise none (see the module docstring)."""
    util = roof.utilization_pct
    compute = largest([util[p] for p in PRECISIONS if p in util] or [0.0])
    memory = largest([util[level] for level in LEVELS if level in util] or [0.0])
    if not util:
        return Verdict(None, None, reason=f"{why_no_throughputs}; and no FP or byte roof position either")
    if same((compute < LATENCY_BELOW_PCT) & (memory < LATENCY_BELOW_PCT)):
        return Verdict(None, None, reason=f"{why_no_throughputs}; the FP and byte roofs alone (all below "
                       f"{LATENCY_BELOW_PCT:.0f}%) cannot tell latency from integer, special-function, load/store or "
                       "tensor work")
    bound, _ = classify(compute, memory, None)
    units = tuple(BusyUnit(f"{NAMES[key]} roof", value, "compute" if key in PRECISIONS else "memory", key)
                  for key, value in util.items())
    side: Side | None = "compute" if bound == "compute" else "memory" if bound == "memory" else None
    return Verdict(bound, "roofline", None, None, None, *_ranked(units, side),
                   reason=f"roofline only: {why_no_throughputs}")


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
    return sum((values * weights).tolist()) / total


def _pooled_units(units: Mapping[str, tuple[str, Side, np.ndarray]], at: np.ndarray, weights: np.ndarray,
                  total: float) -> tuple[BusyUnit, ...]:
    """Each unit's time-weighted mean over the launches that list it, busiest first; among equals, in the order
    the launches list them (the first launch's busiest first)."""
    import numpy as np

    seen = []
    for order, (metric, (name, side, column)) in enumerate(units.items()):
        values = column[at]
        present = ~np.isnan(values)
        if present.any():
            first = int(np.argmax(present))
            summed = sum((values[present] * weights[present]).tolist())
            seen.append(((first, -float(values[first]), order), BusyUnit(name, summed / total, side, metric)))
    pooled = (unit for _, unit in sorted(seen, key=lambda item: item[0]))
    return tuple(sorted(pooled, key=lambda u: -u.pct))


# --- Words --------------------------------------------------------------------------------------------
BOUND_WORDS: Mapping[str, str] = {"compute": "compute-bound", "memory": "memory-bound",
                                  "balanced": "balanced (compute and memory)", "latency": "latency-bound",
                                  "small_grid": "small grid"}


def explain(v: Verdict) -> str:
    """One line: the verdict, the measurement that decides it and the busiest unit."""
    if v.bound is None:
        return f"no verdict: {v.reason}"
    busiest = f"{v.busiest.name} at {pct(v.busiest.pct)} of its peak" if v.busiest else ""
    if v.basis == "roofline":
        return (f"{BOUND_WORDS[v.bound]} (roofline only): {busiest}; units the FP roofline does not measure "
                f"(integer, special-function, load/store, tensor) are unseen without the SpeedOfLight section")
    both = f"SM {pct(v.sm_pct)}, memory {pct(v.memory_pct)} of peak"
    waves = f", {v.waves_per_sm:.3g} waves per SM" if v.waves_per_sm is not None else ""
    ncu = f"; ncu: {v.ncu_title}" if v.ncu_title else ""
    if v.bound in ("latency", "small_grid"):
        limit = f"both below {LATENCY_BELOW_PCT:.0f}%"
        return f"{BOUND_WORDS[v.bound]}: {both}, {limit}{waves}; busiest: {busiest}{ncu}"
    return f"{BOUND_WORDS[v.bound]}: {busiest} ({both}{waves}{ncu})"
