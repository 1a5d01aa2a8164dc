"""One time model per launch: the time each unit's measured work needs at that unit's peak, at the kernel's clock,
beside the launch floor and the waves' tail. The largest term is the kernel's floor; measured minus floor is the
slack. Every estimate of the tool (advice, comparisons, projections) is a what-if on this model: change a term,
recompute the floor, and the kernel can save at most measured minus the new floor, never going below the launch
floor. Pure functions over a launch's analysis.

The terms:

* **a unit** of the SpeedOfLight breakdowns (each pipe, the issue slots, LSU/MIO, L1, L2, DRAM): ncu states its
  throughput as percent of the unit's peak over the elapsed cycles, i.e. work / (peak rate x elapsed); so the
  time its work needs at its peak is ``pct / 100 x duration``. Sub-counters of one unit (the L2's tag lookups and
  data, the DRAM's cycles and sectors) make one term, the largest of them;
* **a roof** where the report has no breakdowns: the FLOPs of a precision or the bytes of a level over the
  kernel-clock ceiling (``work / peak``);
* **the tail**: a block's work runs on one SM, so the SM with the most blocks does ``ceil(B / S)`` of them against
  an average of ``B / S`` (B blocks, S SMs): the busiest SM-side unit's term times ``ceil(B / S) / (B / S)``
  (equal work per block assumed); a grid of fewer blocks than SMs leaves SMs idle the same way;
* **the launch floor**: no launch is shorter than the shortest launch ncu measured (``LAUNCH_FLOOR_S``).

The terms are times at the datasheet peaks (the roofs of the plot and the tables). A what-if is measured to the peak
a kernel can reach: a memory level's term also holds its time at the calibrated roof where ``roofline calibrate``
ran, else DRAM at the achievable fraction of the GPU's memory type and an L2 counted in sectors at the default L2
fraction (``specs.achievable``; ``Term.achievable_s``, with its source in ``Term.peak_source``), the L2's crossbar
cycles and tag requests at their full peak, the fraction never below the one the launch itself reached, a unit's
time there that of its counter that takes longest (``_reached_by``); the floors of a what-if (``reach_floor``) are
made of those times.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from typing import TYPE_CHECKING

from msgspec import Struct, field
from msgspec.structs import replace

from roofline.analysis.results import LaunchAnalysis, PeakKind, Term, TimeModel
from roofline.analysis.verdict import SM_ROOFS, busy_units, in_the_sms, paced_by_blocks, whole_blocks
from roofline.core.model import LEVELS, PRECISIONS, Device
from roofline.core.thresholds import LAUNCH_FLOOR_S, SAME_FLOOR
from roofline.core.units import si
from roofline.ncu import metrics as m

LAUNCH, TAIL = "launch", "tail"
ACHIEVABLE_LEVELS = ("dram", "l2")  # the levels whose achievable peak ``specs.achievable`` knows

if TYPE_CHECKING:  # pragma: no cover
    from roofline.specs.catalog import DeviceSpec


def time_model(k: LaunchAnalysis, device: Device | None = None, spec: DeviceSpec | None = None) -> TimeModel:
    """The model of one launch (see the module docstring)."""
    duration = k.duration_s.value
    roofs = _counter_roofs(k)
    units = _unit_terms(k, duration, spec, roofs) if duration is not None else []
    reason = "" if units else (f"no launch time: {k.duration_s.reason}" if duration is None else
                               "no unit measured: neither SpeedOfLight breakdowns nor FP or byte roofs")
    if not units and duration is not None:
        units = [_achievable(t, spec, duration, roofs) for t in _roof_terms(k)]
        reason = "" if units else reason
    terms = [*units, _launch_term()]
    tail = _tail_term(k, units, device)
    if tail is not None:
        terms.append(tail)
    return _model(duration, terms, reason)


_RANK = {"unit": 0, "roof": 0, "tail": 1, "launch": 2}  # the order of terms of equal time


def _ordered(terms: list[Term]) -> tuple[Term, ...]:
    """Largest first; among equals, units before the tail before the launch floor."""
    return tuple(sorted(terms, key=lambda t: (-t.seconds, _RANK[t.kind])))


def _unit_terms(k: LaunchAnalysis, duration: float, spec: DeviceSpec | None = None,
                roofs: Mapping[str, float] | None = None) -> list[Term]:
    """One term per unit of the breakdowns: the largest of its counters' percent of peak, x duration; its time at
    the peak a kernel can reach (``_achievable``) the largest of its counters' (an L2 whose crossbar is the busiest
    counter may still be bound sooner by its sectors, which reach a smaller fraction of their peak)."""
    best: dict[str, Term] = {}
    reach: dict[str, Term] = {}
    for u in busy_units(k.launch):
        key, sm_local = _unit_key(u.metric)
        term = _achievable(Term(key, u.name, "unit", u.pct / 100.0 * duration, "pct_of_peak / 100 x duration",
                                {"pct_of_peak": u.pct, "duration_s": duration}, u.metric, u.side, sm_local),
                           spec, duration, roofs or {})
        if key not in best or best[key].inputs["pct_of_peak"] < u.pct:
            best[key] = term
        if key not in reach or reach[key].reach_s < term.reach_s:
            reach[key] = term
    return [_reached_by(term, reach[key]) for key, term in best.items()]


def _reached_by(term: Term, slowest: Term) -> Term:
    """A unit's term with its time at the reachable peak from the counter of the unit that takes longest there."""
    if slowest is term or slowest.reach_s <= term.reach_s:
        return term
    return replace(term, achievable_s=slowest.reach_s, peak_kind=slowest.peak_kind,
                   peak_source=f"{slowest.metric.split('.')[0]}: {slowest.peak_source}",
                   peak_fraction=slowest.peak_fraction, peak_metric=slowest.metric)


@functools.lru_cache(maxsize=1024)
def _unit_key(metric: str) -> tuple[str, bool]:
    """A breakdown metric's term key and whether its unit is inside the SMs: the same for every launch."""
    return m.unit_short_name(metric), in_the_sms(metric)


def _roof_terms(k: LaunchAnalysis) -> list[Term]:
    """Without breakdowns: the FLOPs of each precision and the bytes of each level at the kernel-clock roofs."""
    c = k.ceilings.get("kernel-clock") or k.ceilings.get(k.roof.ceilings)
    if c is None:
        return []
    terms = []
    for key, work, peak, unit in ([(p, k.flops[p].value, c.flop_per_s.get(p), "flops") for p in PRECISIONS]
                                  + [(lv, k.bytes[lv].value, c.bytes_per_s.get(lv), "bytes") for lv in LEVELS]):
        if work and peak:
            terms.append(Term(f"{key} roof", f"{key} roof", "roof", work / peak, f"{unit} / peak_per_s",
                              {unit: work, "peak_per_s": peak}, key, "compute" if unit == "flops" else "memory",
                              key in SM_ROOFS))
    return terms


def _counter_roofs(k: LaunchAnalysis) -> dict[str, float]:
    """The launch's kernel-clock byte roofs by level (its report's peak counters): the peak a unit term's time is at,
    against which a calibrated roof is a fraction where the spec states no datasheet figure for the level."""
    c = k.ceilings.get("kernel-clock")
    return {lv: rate for lv, rate in c.bytes_per_s.items() if rate} if c is not None else {}


def _achievable(term: Term, spec: DeviceSpec | None, duration: float, roofs: Mapping[str, float]) -> Term:
    """A memory level's term with its time at the peak a kernel can reach there (``achievable_s``: the term's time,
    at ncu's peak counter for the launch, over the fraction of that peak the calibrated rate or the spec's
    achievable figure is (``_reachable_fraction``, ``_at_running_peak``), never below the fraction the launch
    reached, so never above the measured time); other terms, and every term without a spec, as they are."""
    level = _level(term.metric)
    if spec is None or level not in ACHIEVABLE_LEVELS:
        return term
    fraction, source, kind, of_counter = _reachable_fraction(spec, level, roofs.get(level), term.metric)
    if not of_counter:
        fraction, source = _at_running_peak(fraction, source, spec, level, roofs.get(level))
    reached = term.seconds / duration if duration > 0 else 0.0
    if fraction >= 1.0 or fraction <= 0.0:
        return term
    if reached > fraction:
        fraction, source = reached, f"the launch itself reached {100 * reached:.1f}% of the peak ({source})"
        kind = PeakKind.REACHED
    return replace(term, achievable_s=term.seconds / fraction, peak_source=source, peak_kind=kind,
                   peak_fraction=fraction)


def _at_running_peak(fraction: float, source: str, spec: DeviceSpec, level: str,
                     counter_roof: float | None) -> tuple[float, str]:
    """A fraction of the level's datasheet peak as a fraction of ncu's own peak for the launch, which the term's time
    is at, with the bandwidth it applies named. Below the datasheet's by more than ``RUNNING_PEAK_GAP`` (an RTX
    3080's DRAM counter reads 733.9 against 760 GB/s), the fraction holds of ncu's peak: the term's percent is of
    it, and a kernel reaches no more of it than of a datasheet's; above (an H800's counter over the 3.35 TB/s it
    states), the datasheet bandwidth's smaller fraction of the counter's. Never past the fraction named; unchanged
    where either peak is not known."""
    datasheet = spec.memory_bandwidth_bytes_per_s if level == "dram" else spec.l2_bytes_per_s
    if not datasheet or not counter_roof or fraction >= 1.0:
        return fraction, source
    if counter_roof < datasheet * (1.0 - RUNNING_PEAK_GAP):
        return fraction, (f"{source}; of ncu's own peak for the launch, {si(counter_roof, 'B/s')}: "
                          f"{si(fraction * counter_roof, 'B/s')}")
    return fraction * min(1.0, datasheet / counter_roof), source


CROSSBAR_PEAK = ("its full peak: an L2 counter of cycles active (the crossbar's, busy every cycle at most) or of tag "
                 "requests, not of sectors, which an L2 calibration and the default fraction measure")
RUNNING_PEAK_GAP = 0.01  # ncu's peak counter this far below the datasheet's is named beside the bandwidth applied


@functools.lru_cache(maxsize=1024)
def _level(metric: str) -> str | None:
    """The memory level of a term's breakdown metric (a roof term's metric is its level): the same for every
    launch."""
    return m.UNIT_LEVELS.get(metric.split("__", 1)[0]) if "__" in metric else metric


def _reachable_fraction(spec: DeviceSpec, level: str, counter_roof: float | None = None, metric: str = ""
                        ) -> tuple[float, str, PeakKind, bool]:
    """The fraction of a level's peak a kernel can reach, and whether it is already of ncu's peak for the launch: for
    an L2 counter not of sectors (``metric``: the crossbar's cycles active, tag requests), its full peak; else the
    rate ``roofline calibrate`` measured under ncu's clocks (the clocks a report's kernels run at) over that
    counter's peak; else over the datasheet figure, the one it measured at the default clocks; else, for the L2, the
    default fraction of ncu's L2 peak (``specs.achievable.l2_default_fraction``); else
    ``specs.achievable.achievable_fraction`` (the spec's achievable figure or its memory type's), of the
    datasheet's."""
    from roofline.specs.achievable import achievable_fraction, l2_default_fraction, shown_path

    if level == "l2" and not _counts_sectors(metric):
        return 1.0, CROSSBAR_PEAK, PeakKind.ACHIEVABLE, True
    roof = spec.measured.roofs.get(level) if spec.measured is not None else None
    rate = (roof.ncu or roof.default) if roof is not None else None
    datasheet = (spec.memory_bandwidth_bytes_per_s if level == "dram" else spec.l2_bytes_per_s) or counter_roof
    if rate is not None and roof is not None and datasheet and spec.measured is not None:
        under_ncu = roof.ncu is not None and bool(counter_roof)
        clocks = "ncu's clocks" if roof.ncu is not None else "the default clocks"
        peak = counter_roof if under_ncu and counter_roof else datasheet
        return (min(1.0, rate.median / peak),
                f"roofline calibrate, {roof.method}, under {clocks}: {rate.median / 1e12:.3g} TB/s "
                f"({shown_path(spec.measured.path)})", PeakKind.CALIBRATED, under_ncu)
    default = l2_default_fraction() if level == "l2" else None
    if default is not None:
        applied = f", {si(counter_roof, 'B/s')}: {si(default.value * counter_roof, 'B/s')}" if counter_roof else ""
        return (default.value, f"{default.value:.2f} of ncu's own L2 peak for the launch{applied} ({default.source})",
                PeakKind.ACHIEVABLE, True)
    fraction, source = achievable_fraction(spec, level)
    return fraction, source, PeakKind.ACHIEVABLE, False


def _counts_sectors(metric: str) -> bool:
    """Whether an L2 term counts sectors or bytes (its roof, ``lts__t_sectors``, ``lts__d_sectors``), the traffic an
    L2 calibration measures, rather than cycles active (the crossbar's, busy every cycle at most) or tag requests."""
    return "__" not in metric or "sectors" in metric or "bytes" in metric


def _launch_term() -> Term:
    return Term(LAUNCH, "launch floor", "launch", LAUNCH_FLOOR_S, "shortest launch ncu measured",
                {"launch_floor_s": LAUNCH_FLOOR_S})


def _tail_term(k: LaunchAnalysis, units: list[Term], device: Device | None) -> Term | None:
    """The busiest SM-side unit's time with whole blocks per SM: x ceil(B / S) / (B / S) (of the units whole blocks
    change, ``paced_by_blocks``, and the roofs inside the SMs)."""
    blocks = k.launch.value(m.LAUNCH_GRID)
    sms = device.sm_count if device is not None else None
    local = [t for t in units if t.sm_local and (t.kind == "roof" or paced_by_blocks(t.metric))]
    if not blocks or not sms or not local:
        return None
    busiest = max(local, key=lambda t: t.seconds)
    factor = float(whole_blocks(blocks, sms))
    inputs = {"unit_s": busiest.seconds, "blocks": blocks, "sms": float(sms), "rounds": float(math.ceil(blocks / sms))}
    waves = k.launch.value(m.WAVES)
    if waves is not None:
        inputs["waves_per_sm"] = waves
    return Term(TAIL, f"{busiest.name}, in whole blocks per SM", "tail", busiest.seconds * factor,
                "unit_s x ceil(blocks / sms) / (blocks / sms)", inputs, busiest.metric, busiest.side, True)


# --- What-ifs -------------------------------------------------------------------------------------------------
class Change(Struct, frozen=True):
    """What a piece of advice changes: each named term's time scaled by a factor (bytes down to the useful bytes,
    instructions removed, one pipe made faster), or latency hidden (``hide_latency``: the kernel runs at its floor)."""

    scales: Mapping[str, float] = field(default_factory=dict)
    hide_latency: bool = False


def changed(model: TimeModel, change: Change) -> TimeModel:
    """The model after ``change``; the tail follows its unit, or moves to the SM unit the change leaves busiest."""
    terms = []
    for t in model.terms:
        factor = _factor(model, t, change)
        terms.append(t if factor is None else replace(
            t, seconds=t.seconds * factor, achievable_s=None if t.achievable_s is None else t.achievable_s * factor))
    return _model(model.measured_s, _retailed(model, terms, change), model.reason)


def _retailed(model: TimeModel, terms: list[Term], change: Change) -> list[Term]:
    """``terms`` with the tail on the busiest changed SM unit that whole blocks pace (``_tail_term``'s choice): a
    change that cuts the busiest unit's work can leave another the busiest, whose whole blocks then set the tail.
    A change of the tail itself (blocks spread evenly) keeps its own."""
    old, tail = model.term(TAIL), next((t for t in terms if t.kind == "tail"), None)
    unit_s = old.inputs.get("unit_s") if old is not None else None
    if old is None or tail is None or TAIL in change.scales or not unit_s:
        return terms
    factor = old.seconds / unit_s
    local = [t for t in terms if t.kind != "tail" and t.sm_local and (t.kind == "roof" or paced_by_blocks(t.metric))]
    busiest = max(local, key=lambda t: t.seconds, default=None)
    if busiest is None or busiest.seconds * factor <= tail.seconds:
        return terms
    moved = replace(tail, name=f"{busiest.name}, in whole blocks per SM", seconds=busiest.seconds * factor,
                    inputs={**tail.inputs, "unit_s": busiest.seconds}, metric=busiest.metric, side=busiest.side,
                    achievable_s=None if busiest.achievable_s is None else busiest.achievable_s * factor)
    return [moved if t is tail else t for t in terms]


def _factor(model: TimeModel, t: Term, change: Change) -> float | None:
    """The factor ``change`` scales a term of ``model`` by (None: unchanged); the tail follows its unit, times its
    own scale where it has one (blocks spread evenly and the unit's work cut, both at once)."""
    own = change.scales.get(t.key)
    if t.kind != "tail":
        return own
    unit = next((change.scales[u.key] for u in model.terms if u.kind != "tail" and u.metric == t.metric
                 and u.key in change.scales), None)
    return own if unit is None else unit if own is None else own * unit


def _model(measured_s: float | None, terms: list[Term], reason: str) -> TimeModel:
    """The model of these terms, largest first, with its slack: measured minus the floor (at least 0)."""
    ordered = _ordered(terms)
    slack = None if measured_s is None or not ordered else max(0.0, measured_s - ordered[0].seconds)
    return TimeModel(measured_s, ordered, reason, slack)


def reach(term: Term) -> float:
    """A term's time at the peak a kernel can reach (``Term.reach_s``)."""
    return term.reach_s


def reach_floor(model: TimeModel) -> Term | None:
    """The term whose time at the reachable peak is the largest (the first such in the model's order): the floor a
    what-if measures savings to."""
    return max(model.terms, key=reach, default=None)


class Saving(Struct, frozen=True):
    """The most a change saves (``seconds``; 0: it leaves the floor where it is) and the changed kernel's floor."""

    seconds: float
    floor_s: float
    floor_key: str
    moved: bool  # whether the change lowers the floor (or, hiding latency, whether there is slack to take)


def saving(model: TimeModel, change: Change) -> Saving | None:
    """Measured time minus the changed kernel's floor (never below the launch floor); None without a measured time
    or unit terms. A change that leaves the floor where it is saves nothing."""
    if model.measured_s is None or model.floor is None or model.reason:
        return None
    after, before = reach_floor(changed(model, change)), reach_floor(model)
    assert after is not None and before is not None
    floor = max(reach(after), LAUNCH_FLOOR_S)
    if change.hide_latency:
        most = max(0.0, model.measured_s - floor)
        return Saving(most, floor, after.key, most > 0.0)
    if reach(after) >= reach(before) * (1.0 - SAME_FLOOR):
        return Saving(0.0, reach(before), before.key, False)
    return Saving(max(0.0, model.measured_s - floor), floor, after.key, True)


def unit_key(metric: str) -> str:
    """The term key of a breakdown metric (its unit's short name)."""
    return m.unit_short_name(metric)
