"""One reconciled advice list per launch: every estimate bounded by what the change can physically save, items on
the same cause merged into one that cites every source, ranked by the time it could save.

The bounds, by how an item saves time (``Advice.mechanism``):

* latency (stalls, occupancy, issue slots, imbalance, block size): hiding latency cannot take the kernel past its
  busiest unit's peak, so at most ``duration x (1 - busiest / 100)`` (``roofline.headroom_s``);
* work (uncoalesced accesses, excess sectors, bank conflicts, non-fused instructions, divergent lanes): at most the
  share of the work it removes (none at "1.0x"): for a memory-access pattern its excess sectors, stated or the
  stated share of one kind of access's sectors, over the kernel's L2 or DRAM sectors (``ncu_rules.rule_share``),
  and in the time model's what-if over each level's own sectors (``_level_share``);
  else the share the rule's message states for the whole kernel; and at most the busiest unit's gap where that
  unit is not one whose work is removed; where the time model bounds it too, the smaller of the two; not estimated
  where no share is known, unless the floor stays even with all of that work gone (then it saves nothing);
* roof: the time to reach the roof (or the busiest unit's peak) with the same work (``roofline.recoverable_s``);
  cutting the work itself can save more, so this is an estimate, not a bound;
* grid: a grid of fewer blocks than SMs at most ``duration x (1 - blocks / SMs)``, a partial last wave at most its
  idle block slots, either at most the busiest unit's gap;
* precision: the time of the work at its roof that a faster roof removes (computed by the item itself), and on the
  time model the units it moves work off scaled by 1 / the faster roof's ratio (``work_share``: the time the work
  takes at the faster roof stays); an item of the tool's own without that ratio is not estimated (ncu's rule on
  FP64, at most all of that work removed);
* an ncu rule of no known mechanism: at most the busiest unit's gap.

ncu's own estimate is kept beside an item (``ncu_saved_s``) where it was above the bound.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from msgspec import Struct
from msgspec.structs import replace

from roofline.analysis.ncu_rules import COALESCING, LOCAL_MEMORY, ROOF, WORK_UNITS, AdviceCause, level_bytes
from roofline.analysis.results import Advice, EstimateBound, LaunchAnalysis, ModelChange, PeakKind, Term, TimeModel
from roofline.analysis.roofline import attained_pct, gap_formula, headroom_s, recoverable_s
from roofline.analysis.time_model import LAUNCH, TAIL, Change, changed, reach, reach_floor, saving
from roofline.core.model import Device
from roofline.core.thresholds import LAUNCH_FLOOR_S, SHOWN_MIN_SHARE
from roofline.core.units import pct, seconds, si
from roofline.ncu.metrics import (
    BYTES_PER_SECTOR,
    DRAM_READ_WRITE,
    L2_HIT_RATE,
    LAUNCH_GRID,
    UNIT_LEVELS,
    access_sectors,
)

# What collects the SpeedOfLight breakdowns that give the time model its unit terms (ncu's basic set has them).
UNITS_COLLECT = "ncu --section SpeedOfLight (in --set basic and above)"
SAME = 1e-6  # an estimate within this relative distance of its bound is the bound (ncu computes it the same way)


def reconcile(items: Sequence[Advice], analysis: LaunchAnalysis, device: Device | None) -> tuple[Advice, ...]:
    """``items`` bounded, merged by topic and ranked; items a bound shows to save nothing are left out."""
    bounded = [_sized(_at_most_on_roofs_only(bounded_item(a, analysis, device), analysis)) for a in items]
    kept = [a for a in merge(bounded) if a.kind == "measurement" or a.est_saved_s is None or a.est_saved_s > 0
            or _verdicts_own(a)]
    return rank([_at_its_peak(a) if _verdicts_own(a) and a.est_saved_s == 0.0 else a for a in kept])


def _sized(a: Advice) -> Advice:
    """``a`` without the option that would size it once it is sized: an estimate, or a what-if on the time model
    (which may find no saving)."""
    return replace(a, size_with="") if a.size_with and (a.est_saved_s is not None or a.change is not None) else a


def _at_its_peak(a: Advice) -> Advice:
    """The verdict's own item of a kernel at the peak it can reach: reaching it saves nothing, less work does."""
    source = a.change.peak_source if a.change is not None else ""
    at = f" ({source})" if source else ""
    return replace(a, estimate=f"saves nothing by reaching the peak: the kernel is at the peak it can reach{at}; "
                              "only less work shortens it")


def _verdicts_own(a: Advice) -> bool:
    """The verdict's (or a library's) own item measured to an achievable peak: its change is fewer bytes or
    operations, so it stays where reaching that peak saves nothing (a kernel at the peak it can reach)."""
    measured_to = a.change.peak_source if a.change is not None else ""
    return a.topic == ROOF and a.source in ("verdict", "library") and bool(measured_to)


def _at_most_on_roofs_only(a: Advice, analysis: LaunchAnalysis) -> Advice:
    """``a`` as an upper bound ("saves at most") where its launch's time model sees the FP and byte roofs alone
    (``TimeModel.roofs_only``): the units it does not see may set a higher floor."""
    model = analysis.time_model
    if a.est_saved_s is None or a.kind == "measurement" or model is None or not model.roofs_only:
        return a
    if a.capped or a.change is not None:  # its words say "at most" already, or are made from its change
        return replace(a, capped=True, roofs_only=True)
    return replace(a, capped=True, roofs_only=True, estimate=f"at most: {a.estimate}" if a.estimate else "")


def rank(items: Sequence[Advice]) -> tuple[Advice, ...]:
    """Measurement problems first, then by estimated time saved (largest first), then those not estimated."""
    first = [a for a in items if a.kind == "measurement"]
    estimated = sorted((a for a in items if a.kind != "measurement" and a.est_saved_s is not None),
                       key=lambda a: -(a.est_saved_s or 0.0))
    rest = [a for a in items if a.kind != "measurement" and a.est_saved_s is None]
    return tuple(first + estimated + rest)


def worth_showing(item: Advice, analysis: LaunchAnalysis) -> bool:
    """Whether the terminal shows an item: one that can save ``SHOWN_MIN_SHARE`` of the kernel's time or more (by
    its estimate, or for a latency item without one by the busiest unit's gap), that nothing bounds, or the
    verdict's own item measured to an achievable peak (less work is what is left to do)."""
    duration = analysis.duration_s.value
    most = item.est_saved_s
    if item.bound_by is EstimateBound.FLOOR_UNCHANGED:
        return False
    if _verdicts_own(item):  # at the peak it can reach: less work is the advice left
        return True
    if most is None and item.mechanism == "latency":
        most = headroom_s(analysis)
    return most is None or not duration or most >= SHOWN_MIN_SHARE * duration


# --- Bounds ---------------------------------------------------------------------------------------------------
class Cap(Struct, frozen=True):
    """The most an item can save (None: no bound known), what bounds it and the bound in words; a what-if on the
    time model carries its change as data instead (the words are the renderers', ``render.report.prose``)."""

    seconds: float | None
    by: EstimateBound
    text: str = ""
    change: ModelChange | None = None


# The terms of the time model a change at one of these topics works on, by term key (``analysis.time_model``):
# fusing FP instructions or moving FP work elsewhere changes the FP pipes only (ncu's FPInstructions estimate is the
# FMA pipe's own, local gain); the issue slots are changed by issuing fewer instructions, and Tensor Cores issue one
# MMA instruction for thousands of FLOPs, so they free the issue slots of the FP instructions too.
PIPE_TERMS = {
    "fp_fusion": ("FMA", "FP64", "FP16", "shared pipe", "fp32 roof", "fp64 roof", "fp16 roof"),
    "precision:fp64": ("FP64", "fp64 roof"), "tensor_cores": ("FMA", "fp32 roof", "FP16", "fp16 roof", "issue"),
    "precision:tensor": ("tensor", "shared pipe", "tensor roof"), "issue_bound": ("issue",),
}
_ROOF_PREFIXES = {"l1": "l1tex", "l2": "lts", "dram": "dram"}  # a roof term's level -> its units' metric prefix


def change_of(a: Advice, model: TimeModel, analysis: LaunchAnalysis | None = None) -> Change | None:
    """What an item changes in the launch's time model: latency hidden (stalls, occupancy, the verdict's own
    "reach the peak"), the work at some units cut by the share it removes (to nothing where no share is stated:
    only a floor that stays even then is a result, ``cap``), the FP pipes it moves work off to a faster roof (by
    the share that roof's ratio removes), or the blocks spread evenly over the SMs; None where the item changes
    nothing the model holds (a launch's host overhead) or moves work to a roof of unknown ratio."""
    if a.mechanism in ("latency", "roof") or (a.mechanism == "none" and a.source == "ncu"):
        return Change(hide_latency=True)
    if a.mechanism == "grid":  # more SMs at work: the tail goes and latency is hidden over more warps
        tail = model.term(TAIL)
        unit = next((t for t in model.terms if t.kind in ("unit", "roof") and tail and t.metric == tail.metric), None)
        even = {TAIL: unit.seconds / tail.seconds} if tail and unit and tail.seconds else {}
        return Change(even, hide_latency=True)
    if a.mechanism == "precision" and a.work_share is None and a.source != "ncu":
        return None  # a faster roof of unknown ratio: the work does not vanish, and how fast it runs is not known
    factor = 1.0 - a.work_share if a.work_share is not None else 0.0  # precision: the share its faster rate removes
    keys = _changed_terms(a.topic, model)
    if not keys:
        return None
    if a.excess_sectors is not None and analysis is not None:  # each level loses the excess over its own sectors
        levels = {t.key: _level_of(t) for t in model.terms}
        return Change({key: 1.0 - _level_share(a, levels[key], analysis) for key in keys})
    return Change({key: factor for key in keys})


def _level_of(term: Term) -> str | None:
    """The memory level a term's unit (or roof) belongs to: "l1", "l2", "dram"; None for an SM unit."""
    return UNIT_LEVELS.get(_ROOF_PREFIXES.get(term.metric, term.metric.split("__", 1)[0]))


def _level_share(a: Advice, level: str | None, analysis: LaunchAnalysis) -> float:
    """The share of one level's sectors a memory-access item's excess sectors are, at most 1: the excess can reach a
    level only as sectors of that level, and the rest of its traffic stays; the item's own share (over the kernel's
    fewest sectors) where the level's sectors are not measured. At DRAM the compulsory bytes stay
    (``compulsory_dram_bytes``): the share is at most 1 - compulsory / DRAM bytes, and 0 where they are not known;
    they cross L2 on their way, so L2's share is at most 1 - compulsory / L2 bytes too."""
    moved = level_bytes(analysis, level) if level else None
    if not moved or a.excess_sectors is None:
        return a.work_share if a.work_share is not None else 1.0
    share = min(1.0, max(0.0, a.excess_sectors * BYTES_PER_SECTOR / moved))
    if level not in ("dram", "l2"):
        return share
    kept = compulsory_dram_bytes(a, analysis)
    if kept is None:
        return 0.0 if level == "dram" else share
    return min(share, max(0.0, 1.0 - kept / moved))


def useful_bytes(a: Advice, analysis: LaunchAnalysis) -> tuple[float, float] | None:
    """The bytes a memory-access item's accesses keep once changed, all and of stores: the L1 sectors of global
    and local loads and stores beyond its excess sectors, and the store sectors beyond the stores' part of the excess
    (``_store_excess``), x 32; None where a count is not measured."""
    counts = {(space, op): access_sectors(analysis.launch, space, op).value for space in ("global", "local")
              for op in ("ld", "st")}
    if a.excess_sectors is None or any(v is None for v in counts.values()):
        return None
    total = sum(v or 0.0 for v in counts.values())
    stores = sum(v or 0.0 for (_, op), v in counts.items() if op == "st")
    return (max(0.0, total - a.excess_sectors) * BYTES_PER_SECTOR,
            max(0.0, stores - _store_excess(a, counts[("local", "st")] or 0.0)) * BYTES_PER_SECTOR)


def _store_excess(a: Advice, local_stores: float) -> float:
    """The part of an item's excess sectors taken from the stores: the local stores where the excess is local
    memory (its loads and stores go, the global stores stay), else all of it. Where a coalescing item's excess is
    the loads' alone, "useful loads" are then every load: the lines they fetch are fetched after the change too, so
    the L2 misses of every load (sectors x the miss rate, which the excess's hits dilute) are the reads that stay."""
    excess = a.excess_sectors or 0.0
    return min(excess, local_stores) if a.topic == LOCAL_MEMORY else excess


def compulsory_dram_bytes(a: Advice, analysis: LaunchAnalysis) -> float | None:
    """The DRAM bytes a memory-access change keeps: the useful bytes (``useful_bytes``) that miss in L2 now (x (1 -
    the L2 sector hit rate); all of them where the hit rate is not measured), and at least the useful stores' bytes
    up to the DRAM bytes written (stores reach DRAM when their lines are evicted, whatever their hits); where the
    excess is the stores' alone, the loads' reads stay too (the useful loads' bytes up to the DRAM bytes read), and
    where it is the loads' alone, the writes with the useful loads that miss; never more than today's DRAM bytes.
    The hit rate counts the excess sectors, most of them hits on lines just fetched, so it alone would keep too
    few. None where a count of sectors or the DRAM bytes are not measured."""
    useful, hit = useful_bytes(a, analysis), analysis.launch.value(L2_HIT_RATE)
    moved = level_bytes(analysis, "dram")
    if useful is None or moved is None:
        return None
    hit = hit or 0.0
    read, written = (analysis.launch.value(f"{name}.sum") for name in DRAM_READ_WRITE)
    stores = min(useful[1], written) if written is not None else 0.0
    miss = 1.0 - min(100.0, max(0.0, hit)) / 100.0
    loads = useful[0] - useful[1]
    if a.excess_ops == ("st",) and read is not None:  # the loads are as they were: their reads stay
        return min(moved, max(useful[0] * miss, min(loads, read) + stores))
    if a.excess_ops == ("ld",) and written is not None:  # the stores are as they were: their writes stay
        return min(moved, max(useful[0] * miss, written + loads * miss))
    return min(moved, max(stores, useful[0] * miss))


def _changed_terms(topic: str, model: TimeModel) -> tuple[str, ...]:
    if topic in PIPE_TERMS:
        return tuple(key for key in PIPE_TERMS[topic] if model.term(key) is not None)
    prefixes = WORK_UNITS.get(topic, ())
    return tuple(t.key for t in model.terms if t.kind in ("unit", "roof")
                 and _ROOF_PREFIXES.get(t.metric, t.metric.split("__", 1)[0]) in prefixes)


def model_cap(a: Advice, analysis: LaunchAnalysis) -> Cap | None:
    """The bound of the time model: measured time minus the changed kernel's floor, never below the launch floor;
    0 where the change leaves the floor where it is. None where the model or the change is not known."""
    model = analysis.time_model
    if model is None or model.reason or model.floor is None:
        return None
    change = change_of(a, model, analysis)
    if change is None:
        return None
    most = saving(model, change)
    if most is None:
        return None
    floor = reach_floor(model) or model.floor
    after = model.term(most.floor_key) if most.floor_key else None
    kept = compulsory_dram_bytes(a, analysis) if a.excess_sectors is not None else None
    at_launch = most.floor_s <= LAUNCH_FLOOR_S
    launch = model.term(LAUNCH)
    after_name = (launch.name if at_launch and launch is not None else after.name if after is not None else "")
    model_change = ModelChange(tuple(change.scales.items()), floor.name, reach(floor), most.floor_key, most.floor_s,
                               at_launch, after_name=after_name, kept_bytes=(("dram", kept),) if kept else (),
                               peak_source=after.peak_source if after is not None else "",
                               peak_kind=after.peak_kind if after is not None else PeakKind.DATASHEET)
    if change.hide_latency:
        return Cap(most.seconds, EstimateBound.SLACK, change=model_change)
    if all(factor == 1.0 for factor in change.scales.values()):
        return Cap(0.0, EstimateBound.NOTHING_REMOVED, change=model_change)
    if not most.moved:
        return Cap(0.0, EstimateBound.FLOOR_UNCHANGED, change=model_change)
    return Cap(most.seconds, EstimateBound.CHANGED_FLOOR, change=model_change)


def cap(a: Advice, analysis: LaunchAnalysis, device: Device | None) -> Cap:
    """The bound of an item: the time model's (``model_cap``), else its mechanism's (see the module docstring); a
    grid or work item gets the smaller of the two (the same work spread over every SM; the share of the time that
    the share of the work it removes takes)."""
    if a.topic == AdviceCause.OCCUPANCY_THEORETICAL.value and not more_blocks_fit(analysis, device):
        return Cap(None, EstimateBound.NO_MORE_BLOCKS, no_more_blocks(analysis, device))
    by_model = model_cap(a, analysis)
    if by_model is not None and a.mechanism == "work" and a.work_share is None:
        # no share stated: the what-if removed all of the units' work, which the change does not; only a floor that
        # stays even then says something (the item saves nothing)
        by_model = by_model if by_model.by is EstimateBound.FLOOR_UNCHANGED else None
    if by_model is not None and a.mechanism in ("grid", "work"):
        own = _grid_cap(a, analysis, device) if a.mechanism == "grid" else _work_cap(a, analysis)
        return own if own.seconds is not None and own.seconds < (by_model.seconds or 0.0) else by_model
    if by_model is not None:
        return by_model
    if a.mechanism == "latency":
        return _gap_cap(analysis, "hiding latency cannot take the kernel past its busiest unit's peak")
    if a.mechanism == "work":
        return _work_cap(a, analysis)
    if a.mechanism == "roof":
        return Cap(recoverable_s(analysis), EstimateBound.ROOF, "the time to reach the roof or the busiest unit's "
                                                                 "peak with the same work")
    if a.mechanism == "grid":
        return _grid_cap(a, analysis, device)
    if a.mechanism == "none" and a.source == "ncu":
        return _gap_cap(
            analysis, "an ncu rule of no known mechanism cannot take the kernel past its busiest unit's peak"
        )
    return Cap(None, EstimateBound.NONE)


def grid_blocks_per_sm(analysis: LaunchAnalysis, device: Device | None) -> int | None:
    """The most blocks the grid gives one SM: ceil(blocks / SMs); None where either is not known."""
    grid, sms = analysis.launch.value(LAUNCH_GRID), device.sm_count if device is not None else None
    return math.ceil(grid / sms) if grid and sms else None


def more_blocks_fit(analysis: LaunchAnalysis, device: Device | None) -> bool:
    """Whether the grid has blocks for more resident blocks per SM than the SMs hold now: more than one wave at the
    current occupancy (ceil(blocks / SMs) above the resident blocks per SM); True where that is not known."""
    per_sm, o = grid_blocks_per_sm(analysis, device), analysis.occupancy
    now = o.blocks_per_sm if o is not None else None
    return per_sm is None or now is None or per_sm > now


def no_more_blocks(analysis: LaunchAnalysis, device: Device | None) -> str:
    """Why more blocks per SM cannot help: the grid gives each SM no more blocks than it holds already."""
    grid, per_sm = analysis.launch.value(LAUNCH_GRID), grid_blocks_per_sm(analysis, device)
    sms = device.sm_count if device is not None else 0
    held = analysis.occupancy.blocks_per_sm if analysis.occupancy is not None else None
    return (f"no saving: the grid's {grid or 0:.0f} blocks on {sms} SMs give each SM at most {per_sm}, and it holds "
            f"{held} at once already, so a higher occupancy has no more blocks to run beside them (a larger grid, "
            "or more work per block, would)")


def _gap_cap(analysis: LaunchAnalysis, why: str) -> Cap:
    """At most the busiest unit's gap, ``why``."""
    attained = attained_pct(analysis)
    text = (f"{why}: at most {gap_formula(analysis)}" if attained is not None
            else f"{why}, but no busiest unit is measured to bound it")
    return Cap(headroom_s(analysis), EstimateBound.GAP, text)


def _grid_cap(a: Advice, analysis: LaunchAnalysis, device: Device | None) -> Cap:
    """The idle SMs of a small grid, or the idle slots of a partial last wave; either at most the busiest unit's
    gap (a unit near its peak leaves little for more blocks to take)."""
    tail = a.topic == "grid:tail"
    saving = tail_saving(analysis) if tail else small_grid_saving(analysis, device)
    by, text = ((EstimateBound.IDLE_SLOTS, "at most the idle block slots of the last wave x duration") if tail
                else (EstimateBound.IDLE_SMS, "at most the same work spread over every SM"))
    gap = headroom_s(analysis, whole_blocks=False)  # the grid's change takes the tail of whole blocks away
    if saving is not None and gap is not None and gap < saving:
        return Cap(gap, EstimateBound.GAP,
                   f"{text}, and at most the busiest unit's gap, {gap_formula(analysis, whole_blocks=False)}")
    return Cap(saving, by, text)


def _work_cap(a: Advice, analysis: LaunchAnalysis) -> Cap:
    """Removing a share of the work at a unit saves at most that share of the time; where the busiest unit is
    another one, its work stays, so at most the gap to its peak as well."""
    duration = analysis.duration_s.value
    if a.work_share is None or duration is None:
        return Cap(None, EstimateBound.NONE, "removes work, but the report states no share of the work it removes")
    share = f"{100 * a.work_share:.0f}%" if a.work_share >= 0.01 else f"{100 * a.work_share:.2g}%"
    most, why = duration * a.work_share, f"removes {share} of the work at its unit"
    busiest, gap = analysis.verdict.busiest, headroom_s(analysis)
    units = WORK_UNITS.get(a.topic)
    elsewhere = busiest is not None and units is not None and busiest.metric.split("__", 1)[0] not in units
    if busiest is not None and elsewhere and gap is not None and gap < most:
        return Cap(gap, EstimateBound.GAP, f"{why}, but the busiest unit ({busiest.name}, {pct(busiest.pct)}) keeps "
                                           f"its work: at most {gap_formula(analysis)}")
    return Cap(most, EstimateBound.SHARE, f"{why}: at most that share of the kernel's time")


def bounded_item(a: Advice, analysis: LaunchAnalysis, device: Device | None) -> Advice:
    """``a`` with its estimate capped by its mechanism's bound, and never by more than measured - the launch floor
    (``_within_launch_floor``); ncu's estimate stays beside where it was above. A memory-access what-if says which
    DRAM bytes stay."""
    return _kept_said(_within_launch_floor(_bounded(a, analysis, device), analysis))


def _within_launch_floor(a: Advice, analysis: LaunchAnalysis) -> Advice:
    """No item saves more than measured - the launch floor; where the time model holds no unit terms, that is its
    bound (the launch term is the only floor known), and the item says the rest is unknown and how to bound it."""
    duration, model = analysis.duration_s.value, analysis.time_model
    if a.est_saved_s is None or duration is None or a.kind == "measurement":
        return a
    most = max(0.0, duration - LAUNCH_FLOOR_S)
    unknown = model is None or bool(model.reason) or model.floor is None
    if not unknown and a.est_saved_s <= most * (1.0 + SAME):
        return a
    if not unknown:
        return replace(a, est_saved_s=most, capped=True)
    text = (f"at most measured - the launch floor ({seconds(LAUNCH_FLOOR_S)}): the report holds no unit "
            f"throughputs, so the rest of the kernel's floor is unknown ({UNITS_COLLECT} would bound it)")
    if a.est_saved_s <= most * (1.0 + SAME):
        return replace(a, bound=f"{a.bound}; {text}" if a.bound else text)
    ncu = a.est_saved_s if a.source == "ncu" and a.ncu_saved_s is None else a.ncu_saved_s
    return replace(a, est_saved_s=most, ncu_saved_s=ncu, capped=True, bound_by=EstimateBound.LAUNCH_FLOOR,
                   bound=text, estimate=f"at most: {text}")


def _kept_said(a: Advice) -> Advice:
    """A memory-access what-if with the DRAM bytes it keeps, in its text."""
    kept = dict(a.change.kept_bytes) if a.change is not None else {}
    if not kept.get("dram") or a.est_saved_s is None:
        return a
    return replace(a, text=f"{a.text} DRAM keeps at least {si(kept['dram'], 'B')}: the bytes the threads use that "
                           "miss in L2 now, and the reads or writes of the accesses it leaves as they are (the "
                           "compulsory traffic).")


def _bounded(a: Advice, analysis: LaunchAnalysis, device: Device | None) -> Advice:
    bound = cap(a, analysis, device)
    most, raw = bound.seconds, a.est_saved_s
    a = replace(a, bound=bound.text, bound_by=bound.by, change=bound.change)
    if bound.by is EstimateBound.NO_MORE_BLOCKS:
        ncu = raw if a.source == "ncu" and raw is not None else a.ncu_saved_s
        return replace(a, est_saved_s=None, ncu_saved_s=ncu, estimate=bound.text, capped=False)
    if bound.change is not None:
        return _what_if_item(a, most, raw)
    if a.mechanism == "work" and most is None and a.source == "ncu":
        how = "not estimated: ncu's message states no share of the work removed" if raw is not None else a.estimate
        return replace(a, est_saved_s=None, ncu_saved_s=raw, estimate=how)
    if raw is None and a.mechanism == "work" and most is not None:
        return replace(a, est_saved_s=most, estimate=f"at most: {bound.text}", capped=True)
    if most is None or raw is None or raw <= most * (1.0 + SAME):
        return a
    how = f"bounded: {bound.text}" + (f" (ncu estimated {seconds(raw)})" if a.source == "ncu" else "")
    return replace(a, est_saved_s=most, ncu_saved_s=raw if a.source == "ncu" else a.ncu_saved_s, estimate=how,
                   capped=True)


def _what_if_item(a: Advice, most: float | None, raw: float | None) -> Advice:
    """``a`` bounded by its what-if on the time model: no saving where the floor stays (ncu's own estimate kept
    beside), at most measured - the changed floor where it had no estimate (a change of work) or one above that."""
    ncu = raw if a.source == "ncu" else a.ncu_saved_s
    if a.kind == "measurement":
        return a
    if a.bound_by is EstimateBound.FLOOR_UNCHANGED:
        return replace(a, est_saved_s=None, ncu_saved_s=ncu, estimate="")
    if most == 0.0:
        return replace(a, est_saved_s=0.0, estimate="")
    if raw is None and most is not None and (a.bound_by is EstimateBound.CHANGED_FLOOR or a.mechanism == "work"):
        return replace(a, est_saved_s=most, estimate="", capped=True)
    if most is None or raw is None or raw <= most * (1.0 + SAME) or a.change is None:
        return a
    return replace(a, est_saved_s=most, ncu_saved_s=ncu, estimate="", capped=True,
                   change=replace(a.change, own_above=True))


def small_grid_saving(analysis: LaunchAnalysis, device: Device | None) -> float | None:
    """A grid of fewer blocks than SMs spread over every SM: at most ``duration x (1 - blocks / SMs)``."""
    grid, duration = analysis.launch.value(LAUNCH_GRID), analysis.duration_s.value
    sms = device.sm_count if device is not None else None
    if grid is None or not sms or grid >= sms or duration is None:
        return None
    return duration * (1.0 - grid / sms)


def tail_saving(analysis: LaunchAnalysis) -> float | None:
    """A partial last wave: its idle block slots x duration (equal block durations assumed)."""
    o, duration = analysis.occupancy, analysis.duration_s.value
    if o is None or o.tail_idle_pct is None or duration is None:
        return None
    return duration * o.tail_idle_pct / 100.0


# --- Every item at once -----------------------------------------------------------------------------------
def combined(items: Sequence[Advice], analysis: LaunchAnalysis) -> tuple[float | None, float | None]:
    """Every estimated item applied at once, recomputed on the time model: (the most they save together, the floor
    of the changed kernel). Their changes' scales multiply per term; latency is hidden where any item hides it or has
    no change on the model (its own bound: idle SMs, a share of the work). Never more than the items' sum, nor than
    measured - that floor (never below the launch floor; the launch floor alone where the model holds no unit terms):
    0 where every estimate is 0. (None, None) without a measured time or an estimated item."""
    duration, model = analysis.duration_s.value, analysis.time_model
    estimated = [a for a in items if a.kind != "measurement" and a.est_saved_s is not None]  # 0 too: saves nothing
    if duration is None or not estimated:
        return None, None
    floor = LAUNCH_FLOOR_S
    if model is not None and not model.reason and model.floor is not None:
        scales: dict[str, float] = {}
        hide = False
        for a in estimated:
            for key, factor in _scales(a, model, analysis):
                scales[key] = scales.get(key, 1.0) * factor
            hide = hide or a.change is None or a.bound_by is EstimateBound.SLACK
        after, before = reach_floor(changed(model, Change(scales, hide_latency=hide))), reach_floor(model)
        floor = max(reach(after) if after is not None else 0.0, LAUNCH_FLOOR_S)
        if not hide and after is not None and before is not None and reach(after) >= reach(before):
            floor = max(reach(before), LAUNCH_FLOOR_S)
    total = sum(a.est_saved_s or 0.0 for a in estimated)
    return min(total, max(0.0, duration - floor)), floor


def _scales(a: Advice, model: TimeModel, analysis: LaunchAnalysis) -> tuple[tuple[str, float], ...]:
    """The terms an item scales: its what-if's, else (its estimate bounded by its own mechanism: a grid item's idle
    slots, the share of the work a change removes) the change it makes on the model all the same, so every item at
    once saves at least what each saves; nothing for a change of work whose share is not stated."""
    if a.change is not None:
        return a.change.scales
    stated = a.mechanism == "grid" or (a.mechanism == "work" and (a.work_share is not None or
                                                                  a.excess_sectors is not None))
    own = change_of(a, model, analysis) if stated else None
    return tuple(own.scales.items()) if own is not None else ()


def overlapping(items: Sequence[Advice], together: float | None) -> tuple[Advice, ...]:
    """``items`` with the estimated ones marked overlapping where their savings add up to more than they save
    ``together`` (``combined``'s first figure): each is a part of the same time."""
    estimated = [a for a in items if a.kind != "measurement" and a.est_saved_s]
    total = sum(a.est_saved_s or 0.0 for a in estimated)
    if together is None or len(estimated) < 2 or total <= together * (1.0 + SAME):
        return tuple(items)
    return tuple(replace(a, overlapping=True) if a in estimated else a for a in items)


# --- Merging --------------------------------------------------------------------------------------------------
def merge(items: Sequence[Advice]) -> list[Advice]:
    """One item per topic (items without a topic stay apart): the tool's own item leads, ncu's rules on the same
    cause are cited in ``also``; the estimate is the lead's, else the largest bounded one of the others (with the
    share of the work it rests on)."""
    groups: dict[str, list[Advice]] = {}
    for i, a in enumerate(items):
        groups.setdefault(cause(a.topic) or f"#{i}", []).append(a)
    return [_merged(group) for group in groups.values()]


_CAUSES = frozenset(c.value for c in AdviceCause)


def cause(topic: str) -> AdviceCause | str:
    """What items merge on: the cause that owns a topic (``AdviceCause``; one access pattern measured at several
    levels, ncu's L1TEX, L2 and DRAM access-pattern rules and the uncoalesced-sectors rule, is one cause), else the
    topic itself (a stall reason, an ncu rule of no known cause, a measurement problem)."""
    if topic.startswith(COALESCING + ":"):
        return AdviceCause.COALESCING
    return AdviceCause(topic) if topic in _CAUSES else topic


def _merged(group: list[Advice]) -> Advice:
    own = [a for a in group if a.source != "ncu"]
    lead = own[0] if own else max(group, key=lambda a: a.est_saved_s or 0.0)
    others = [a for a in group if a is not lead]
    if not others:
        return lead
    also = tuple(dict.fromkeys(s for a in (lead, *others) for s in a.also))
    causes = tuple(dict.fromkeys(c for a in (lead, *others) for c in a.causes))
    estimated = [a for a in others if a.est_saved_s is not None]
    ncu = [a.ncu_saved_s for a in group if a.ncu_saved_s is not None]
    merged = replace(lead, also=also, causes=causes, ncu_saved_s=max(ncu) if ncu else None)
    if lead.est_saved_s is None and estimated and lead.bound_by is not EstimateBound.NO_MORE_BLOCKS:
        best = max(estimated, key=lambda a: a.est_saved_s or 0.0)
        merged = replace(merged, est_saved_s=best.est_saved_s, estimate=best.estimate, bound=best.bound,
                         bound_by=best.bound_by, work_share=best.work_share, excess_sectors=best.excess_sectors,
                         capped=best.capped, change=best.change)
    return merged
