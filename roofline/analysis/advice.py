"""Advice for one analysed launch: concrete recommendations fitted to what the kernel is, each stating the
condition that makes it apply (and not given when it fails), tied to the measurement that calls for it, and
carrying the time it could save.

Inputs are the launch's verdict and roofline position (``analysis.roofline``, ``analysis.verdict``), its
diagnostics (``analysis.diagnostics``), its library (``analysis.libraries``), its kind (``analysis.kernel_kind``:
tiny grid, GEMM-like, reduction, streaming) and ncu's own rule results (``analysis.ncu_rules``). The tool's items
and ncu's are reconciled into one list (``analysis.reconcile``): one item per cause citing every source, each
estimate bounded by what the change can physically save, ranked by it. The tool's own estimates:

* the recoverable time (``analysis.roofline.recoverable_s``: the time above the kernel's floor at the peaks it can
  reach, the grade's most saved) for the verdict's own advice, a part of it (a stall reason's share) for what the
  warps wait on;
* the time of the FP work at its roof times the part a faster roof removes, for Tensor Cores, FP32 and a
  faster Tensor Core data type;
* the idle block slots of a partial last wave; the SMs a grid under one wave leaves idle.

Every renderer shows the same list (the table and the reports for the kernels of ``kernels_to_advise``, JSON for
every launch); the terminal leaves out items estimated under 1% of the kernel's time.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from msgspec.structs import replace

from roofline.analysis.diagnostics.occupancy import LIMITER_WORDS, WARP_SIZE, point_text
from roofline.analysis.diagnostics.stalls import describe
from roofline.analysis.diagnostics.tensor_cores import architecture, half_types, no_faster_text, tf32_gain
from roofline.analysis.hotspots import locate
from roofline.analysis.instructions import GLOBAL_WALLS, width_wall
from roofline.analysis.kernel_kind import KernelKind, kernel_kind
from roofline.analysis.launches import KernelGroup, ReportAnalysis
from roofline.analysis.libraries import Library, library
from roofline.analysis.ncu_rules import (
    COALESCING,
    LOCAL_MEMORY,
    ROOF,
    SHAPE_TOPICS,
    SMALL_GRID,
    AdviceCause,
    excess_share,
    rule_items,
)
from roofline.analysis.reconcile import (
    combined,
    merge,
    more_blocks_fit,
    no_more_blocks,
    overlapping,
    rank,
    reconcile,
    small_grid_saving,
    tail_saving,
)
from roofline.analysis.results import Advice, Cause, LaunchAnalysis, Mechanism, Occupancy, Verdict, VerdictCause
from roofline.analysis.roofline import (
    attained_pct,
    gap_formula,
    rank_by_recoverable_time,
    reach_floor_text,
    recoverable_s,
    ridge_point,
)
from roofline.analysis.verdict import BOUND_WORDS, unit_whole_blocks_pct
from roofline.core.labels import NAMES
from roofline.core.model import LEVELS, Device
from roofline.core.thresholds import (
    ACHIEVED_GAP_PTS,
    BALANCED_PTS,
    FULL_WAVE,
    IDLE_LANES_NAMED,
    LATENCY_BELOW_PCT,
    LAUNCH_OVERHEAD_S,
    LOCAL_SECTORS_SHARE,
    NEAR_ROOF_PCT,
    ONE_ELIGIBLE_WARP,
    SHORT_LAUNCH_S,
    STALL_SHARE_SECOND,
    TAIL_IDLE_PCT,
    TENSOR_NO_GAIN_RATIO,
    TENSOR_SHARE_USED,
    WEAK_FP64_RATIO,
)
from roofline.core.units import pct, ratio, seconds, si
from roofline.core.units import waves as wave_count
from roofline.ncu import metrics as m
from roofline.ncu.metrics import FP64_PIPE, ISSUE_SLOTS, LAUNCH_BLOCK, LAUNCH_GRID

if TYPE_CHECKING:  # pragma: no cover
    from roofline.specs.catalog import DeviceSpec

ADVISED_KERNELS = 8  # kernels whose advice the table and the reports show, most time to gain first (``time_to_gain``)
# Dense Tensor Core input types, slower to faster per the datasheets (one step up halves the time per FLOP or so).
TENSOR_TYPES_BY_SPEED = ("fp64", "tf32", "fp16", "bf16", "fp8")
SMALLER_BLOCKS_MIN_THREADS = 64  # a block of at least two warps can be split into smaller blocks
FP64_TOPIC = "precision:fp64"  # the FP64 rate's item (a GPU of reduced FP64 rate)
GRID_TOPICS = ("grid:small", "grid:tail")  # the grid's own items (a library call's size, for a library kernel)
# The change each busy compute unit suggests (breakdown metric up to its first '.').
UNIT_CHANGES = {
    m.PIPE_FP64: "fewer FP64 operations (FP32 where the accuracy allows; fused multiply-adds instead of separate "
                 "multiplies and adds)",
    m.PIPE_FMA: "fewer FP32 operations (fused multiply-adds, strength reduction) or, for matrix math, Tensor Cores",
    m.PIPE_FMA_HEAVY: "fewer FP32 and integer-multiply operations (fused multiply-adds)",
    m.PIPE_ALU: "less integer and logic work (hoist index arithmetic out of loops, simpler address computation)",
    m.PIPE_ALU_HEAVY: "less integer and logic work (hoist index arithmetic out of loops)",
    m.PIPE_XU: "fewer special-function operations (sin, exp, sqrt, conversions): fast intrinsics where the accuracy "
               "allows, or table lookups",
    m.PIPE_LSU: "fewer load/store instructions (wider vector accesses, data kept in registers)",
    m.ISSUE_ACTIVE: "fewer instructions per result (unrolling, vector accesses, less index arithmetic)",
    m.INST_ISSUED: "fewer instructions per result (unrolling, vector accesses, less index arithmetic)",
}
# What cuts the traffic of a memory-bound kernel, by its kind (``analysis.kernel_kind``); {narrow}: the 16-bit
# types this GPU computes in (``narrow_types``).
TRAFFIC_CHANGES = {
    "streaming": "each byte is used about once, so there is nothing for tiling to keep on chip: move fewer bytes "
                 "(fuse with the kernel that produces or consumes the data, narrower storage types such as "
                 "{narrow}, 128-bit vector loads and stores, no re-reads of the same array)",
    "reduction": "a reduction is done when its input has been read once at full bandwidth: read it in one pass "
                 "with 128-bit vector loads, combine in registers and warp shuffles, and write one partial result "
                 "per block",
    "extra_traffic": "DRAM moves {times} the bytes the global loads and stores request, so most of its traffic is "
                     "not their data and no byte is simply used once: local memory (register spills and per-thread "
                     "arrays indexed at run time: check the spills with -Xptxas -v) or texture and surface "
                     "accesses; cut that traffic first, then move fewer bytes (fusion, narrower storage types such "
                     "as {narrow})",
}


def kernels_to_advise(a: ReportAnalysis) -> list[KernelGroup]:
    """The kernels whose advice is shown (for their longest launch): the ADVISED_KERNELS with the most time to
    gain."""
    return [g for _, g in rank_by_time_to_gain(a.groups)[:ADVISED_KERNELS]]


def rank_by_time_to_gain(groups: Sequence[KernelGroup]) -> list[tuple[float | None, KernelGroup]]:
    """(time to gain, group) with the most time to gain first (``time_to_gain``); a group with none (no advice
    item estimated: a latency-bound kernel without warp-state data) takes its place by its recoverable time, the
    time above its busiest unit's peak, so the kernel that holds most of the time is not advised last; groups with
    neither last; ties in the order of recoverable time."""
    gains = [(time_to_gain(g), g) for g in rank_by_recoverable_time(groups)]
    placed = [(gain, g, gain if gain is not None else g.recoverable_s) for gain, g in gains]
    return [(gain, g) for gain, g, key in sorted(placed, key=lambda row: (row[2] is None, -(row[2] or 0.0)))]


def time_to_gain(group: KernelGroup) -> float | None:
    """A group's time to gain: over its launches, what the first estimated advice item saves (the most one change
    saves, ``lead_saving``), the same figure its advice shows first; None where no launch has one."""
    saved = [s for k in group.launches if (s := lead_saving(k)) is not None]
    return sum(saved) if saved else None


def unestimated(group: KernelGroup) -> tuple[int, float | None]:
    """The timed launches of a group without any estimated advice item (a latency-bound launch beside one whose last
    wave a grid change would fill), which ``time_to_gain`` leaves out: how many, and their recoverable time summed
    (None where none of them has one)."""
    left = [k for k in group.launches if lead_saving(k) is None and k.duration_s.value is not None]
    known = [r for k in left if (r := recoverable_s(k)) is not None]
    return len(left), sum(known) if known else None


def lead_saving(k: LaunchAnalysis) -> float | None:
    """What a launch's first estimated advice item saves (the items are ranked by it); None without one. A launch
    the analysis did not advise (no time model: one of many launches of a kernel, read in columns) counts its
    recoverable time, the verdict's own item before its bound."""
    if k.time_model is None and not k.advice:
        return recoverable_s(k)
    return next((a.est_saved_s for a in k.advice if a.kind != "measurement" and a.est_saved_s is not None), None)


def advise(k: LaunchAnalysis, device: Device | None = None, spec: DeviceSpec | None = None
           ) -> tuple[tuple[Advice, ...], float | None, float | None]:
    """Every recommendation for one launch whose condition holds, reconciled with ncu's rules and ranked (see the
    module docstring), with what its estimated items save together and the floor of the kernel they leave
    (``reconcile.combined``, worked out once)."""
    lib = library((k.launch.name, k.launch.demangled_name))
    kind = kernel_kind(k, lib, ridge_point(k)[0])
    items = [Advice(kind="measurement", title="Re-profile before optimizing",
                    text=f"Re-profile before optimizing: {flag}.", cause=flag, source="roofline",
                    condition="a rate above its roof", estimate="not estimated: fix the measurement first",
                    topic=f"measurement:{flag}")
             for flag in k.flags]
    items += _verdict_items(k, lib, kind, spec, device)
    items += _tensor_cores(k) + _fp64(k) + _grid(k, device) + _launch_overhead(k)
    if lib is None:
        items += _issue_bound(k) + _uncoalesced(k) + _local_memory(k)
        items += _occupancy(k, device) + _stalls(k)
    if k.verdict.bound == "small_grid":  # too few warps, blocks or busy pipes: the grid's one point
        items = [replace(a, topic=SMALL_GRID) if a.topic in SHAPE_TOPICS else a for a in items]
    items += rule_items(k, {a.topic for a in items}, kind.name == "tiny_grid")
    items = _one_cause(items, k)
    items = _fp64_point(items, k)
    advice = reconcile(items, k, device)
    if lib is not None:
        advice = _one_library_item(advice)
    located = tuple(_located(item, k) for item in advice)
    saved, floor = combined(located, k)
    return overlapping(located, saved), saved, floor


def _one_cause(items: list[Advice], k: LaunchAnalysis) -> list[Advice]:
    """The launch shape's items as the cause that owns them: under one wave (by the verdict or the waves), the
    block size, the issue slots, the occupancy and, with blocks under one warp, their idle lanes (ncu's
    ThreadDivergence) are the small grid's point; with blocks under one warp on a larger grid, the idle lanes are
    the block size's."""
    waves = k.occupancy.waves_per_sm if k.occupancy is not None else None
    small = k.verdict.bound == "small_grid" or (waves is not None and waves < FULL_WAVE)
    threads = k.launch.value(LAUNCH_BLOCK)
    sub_warp = threads is not None and threads < WARP_SIZE

    def owner(topic: str) -> str:
        idle_lanes = sub_warp and topic == AdviceCause.DIVERGENCE.value
        if small and (topic in SHAPE_TOPICS or idle_lanes):
            return SMALL_GRID
        return AdviceCause.BLOCK_SIZE.value if idle_lanes else topic

    return [a if owner(a.topic) == a.topic else replace(a, topic=owner(a.topic)) for a in items]


def _fp64_point(items: list[Advice], k: LaunchAnalysis) -> list[Advice]:
    """Where the FP64 pipe is the busiest unit on a GPU of reduced FP64 rate, relieving that pipe (the verdict's
    item: fewer FP64 operations, FP32 where the accuracy allows) and the FP64 rate's item are one point: the rate's
    item leads and the verdict's, with ncu's rules cited on it, joins it."""
    busiest = k.verdict.busiest
    rate = [a for a in items if a.topic == FP64_TOPIC and a.source != "ncu"]
    if not rate or busiest is None or not busiest.metric.startswith(FP64_PIPE):
        return items
    rest = [replace(a, topic=FP64_TOPIC) if a.topic == ROOF else a for a in items if a not in rate]
    return [*rate, *rest]


def _one_library_item(items: tuple[Advice, ...]) -> tuple[Advice, ...]:
    """A library kernel's advice on its call as one item: its grid (a small grid, a partial last wave) is the call's
    size, so that item's estimate joins the library's item; ncu's rules are cited on it (the launch shape, the
    occupancy and the code are the library's), never listed beside it. Without a library item ncu's rules are left
    out, as the library's code is not the caller's."""
    lead = [a for a in items if a.topic == ROOF and a.source != "ncu"][:1]
    if not lead:
        return tuple(a for a in items if a.source != "ncu")
    folded = [replace(a, topic=ROOF) for a in items if a.topic in GRID_TOPICS and a.source != "ncu"]
    cited = [replace(a, topic=ROOF, est_saved_s=None, ncu_saved_s=None, causes=()) for a in items if a.source == "ncu"]
    rest = [a for a in items if a not in lead and a.topic not in GRID_TOPICS and a.source != "ncu"]
    (merged,) = merge([*lead, *folded, *cited])
    if lead[0].est_saved_s is None and folded and merged.est_saved_s is not None:  # the grid's estimate, and its bound
        merged = replace(merged, mechanism=folded[0].mechanism)
    return rank([merged, *rest])


def _located(item: Advice, k: LaunchAnalysis) -> Advice:
    """An item about a stall reason or a memory pattern, with the lines (or instructions) that hold it, from the
    launch's hot spots: its own topic's, else those of the first cause merged into it that has them (an ncu stall
    rule cited in the verdict's item)."""
    where = next((w for t in (item.topic, *item.causes) if (w := locate(k.hotspots, t))), "")
    return replace(item, text=f"{item.text} Where: {where}.") if where else item


def level_traffic(k: LaunchAnalysis, level: str) -> tuple[float | None, str]:
    """The bytes moved at a memory level and what they count: at L2, all traffic (loads and stores) where the
    level's own definition counts one direction only and so shows less (a store-heavy kernel's L2 reads can be 0)."""
    moved, total = k.bytes[level].value, k.l2_total_bytes.value
    if level == "l2" and total is not None and (moved is None or moved < total):
        return total, "all L2 traffic, loads and stores"
    return moved, ""


# --- The verdict's own advice -------------------------------------------------------------------------
def _gap(k: LaunchAnalysis) -> tuple[float | None, str]:
    """The recoverable time (``roofline.recoverable_s``: the time above the floor at the peaks a kernel can reach,
    the grade's most saved), and how it was obtained (``roofline.gap_formula``)."""
    if k.verdict.bound == "small_grid":
        return None, "not estimated: a small grid is held back by its few blocks, not by a unit's peak"
    saved = recoverable_s(k)
    if saved is None:
        return None, "not estimated: no throughput and no roof position"
    return saved, f"recoverable time: {gap_formula(k)}"


def _verdict_items(k: LaunchAnalysis, lib: Library | None, kind: KernelKind,
                   spec: DeviceSpec | None, device: Device | None = None) -> list[Advice]:
    v = k.verdict
    if lib is not None:
        measured = k.duration_s.value is not None or v.bound is not None
        return _library(k, lib, spec, device) if measured else []
    if v.bound == "memory":
        return [_memory(k, kind, device)]
    if v.bound == "compute":
        return [_compute(k, device, spec)]
    if v.bound == "balanced":
        saved, how = _gap(k)
        return [Advice(kind="balanced", title="Cut work and traffic together",
                       text=f"Compute (SM {pct(v.sm_pct)}) and memory ({pct(v.memory_pct)}) are both busy and within "
                            f"{BALANCED_PTS:.0f} points of each other: only doing less of both helps (fusing kernels "
                            "to skip round trips through memory, narrower data types, removing redundant work).",
                       cause="", verdict_cause=VerdictCause(v),
                       source="verdict", est_saved_s=saved, condition=_verdict_condition(v), estimate=how,
                       topic=ROOF, mechanism="roof")]
    if v.bound is None and v.cause is Cause.MISSING_METRICS and k.roof.pct_of_roof is not None:
        return [Advice(kind="measurement", title="Collect the throughputs for a verdict",
                       text=f"No verdict: {v.reason}.",
                       cause=f"closest FP/byte roof at {pct(k.roof.pct_of_roof)}, no throughputs", source="verdict",
                       condition=f"no SpeedOfLight throughputs and no FP/byte roof at {LATENCY_BELOW_PCT:.0f}% or more",
                       estimate="not estimated: nothing measured to estimate from", topic="measurement:verdict",
                       missing=v.missing, collect=v.collect)]
    return []


def _verdict_condition(v: Verdict) -> str:
    """The verdict an item rests on, shortly: "verdict memory (SpeedOfLight throughputs): DRAM busiest at 83.4%"."""
    basis = "the FP/byte roofs alone" if v.basis == "roofline" else "SpeedOfLight throughputs"
    busiest = f": {v.busiest.name} busiest at {pct(v.busiest.pct)}" if v.busiest else ""
    return f"verdict {v.bound} ({basis}){busiest}"


def _memory(k: LaunchAnalysis, kind: KernelKind, device: Device | None = None) -> Advice:
    """Memory-bound: cut the traffic at the busiest memory unit's level (or name the unit when it is no level), as
    the kernel's kind allows: fewer bytes for streaming kernels and reductions, reuse for the others."""
    v = k.verdict
    busiest = v.busiest
    level = _level_of(busiest.metric) if busiest is not None else None
    level = level or (k.roof.limiter if k.roof.limiter in LEVELS else None)
    saved, how = _gap(k)
    words = kind.name.replace("_", " ")
    condition = _verdict_condition(v) + (f"; {'an' if words[0] in 'aeiou' else 'a'} {words} kernel ({kind.why})"
                                         if kind.why else "")
    cause = f"{busiest.name} at {pct(busiest.pct)} of its peak" if busiest is not None else ""
    common = Advice(kind="memory", title="", text="", cause=cause, source="verdict", est_saved_s=saved,
                    condition=condition, estimate=how, topic=ROOF, mechanism="roof",
                    verdict_cause=None if busiest is not None else VerdictCause(v))
    moved, counts = level_traffic(k, level) if level is not None else (None, "")
    if level is None or moved is None:
        unit = busiest.name if busiest is not None else "the memory system"
        return replace(common, title=f"Relieve {unit}",
                       text=f"{unit} is the busiest memory unit ({cause}): reduce the requests it serves (coalesced, "
                            "wider accesses; data reused from shared memory or registers; fused kernels).")
    name = NAMES[level]
    amount = f"{si(moved, 'B')}{f', {counts}' if counts else ''}"
    if kind.name in TRAFFIC_CHANGES:
        title = "Find the DRAM traffic beyond the requests" if kind.name == "extra_traffic" else "Move fewer bytes"
        return replace(common, title=title,
                       text=f"{name} traffic ({amount}) sets the time ({cause}): "
                            f"{_traffic_change(kind, device)}.")
    if k.total_flops == 0 and all(f.value is not None for f in k.flops.values()):
        return replace(common, title="Move fewer bytes",
                       text=f"{name} traffic ({amount}) sets the time ({cause}) and the kernel does no "
                            "floating-point math: only moving fewer bytes helps (fusion with the producer or consumer "
                            "kernel, narrower data types).")
    if k.total_flops is None:
        return replace(common, title=f"Cut {name} traffic",
                       text=f"Cut {name} traffic: {amount} ({cause}). The report counts no FLOPs, so whether the "
                            "kernel reuses data is unknown: where it reads data more than once, keep it in shared "
                            "memory or registers (tiling); otherwise fuse it with the kernels that produce or consume "
                            "the data, or use narrower data types.")
    ridge, precision = ridge_point(k)
    target = f" towards the {NAMES[precision]} ridge point of {ratio(ridge)} FLOP/byte" if ridge and precision else ""
    least = "least " if k.intensity_leaves_out else ""  # FLOPs of a precision not measured: a lower bound
    at = f", at {least}{ratio(moved and k.total_flops / moved)} FLOP/byte" if k.total_flops else ""
    return replace(common, title=f"Cut {name} traffic",
                       text=f"Cut {name} traffic: {amount} ({cause}){at}. Raise the intensity{target} by reusing "
                            "data from shared memory or registers (tiling), fusing kernels, or narrower data types.")


def _traffic_change(kind: KernelKind, device: Device | None) -> str:
    """What cuts the traffic of a kernel of this kind (``TRAFFIC_CHANGES``), with its numbers: the 16-bit types
    this GPU computes in, and for extra traffic how many times the requested bytes DRAM moves."""
    times = f"{1 / kind.reuse:.2g}x" if kind.reuse else "more than twice"
    return TRAFFIC_CHANGES[kind.name].format(narrow=narrow_types(device), times=times)


def _level_of(metric: str) -> str | None:
    """The memory level a breakdown unit (or roof key) belongs to, if any."""
    if metric in LEVELS:
        return metric
    return m.UNIT_LEVELS.get(metric.split("__", 1)[0]) if "__" in metric else None


def _compute(k: LaunchAnalysis, device: Device | None = None, spec: DeviceSpec | None = None) -> Advice:
    """Compute-bound: the busiest compute unit, the headroom left in it (on the SMs with the most blocks, where
    whole blocks per SM keep it busier there than on average: the time model's tail) and the change that relieves
    it."""
    v = k.verdict
    busiest = v.busiest
    saved, how = _gap(k)
    common = Advice(kind="compute", title="", text="", cause="", source="verdict", est_saved_s=saved,
                    condition=_verdict_condition(v), estimate=how, topic=ROOF, mechanism="roof")
    if busiest is None:
        return replace(common, title="Do fewer operations", text="only fewer or cheaper operations shorten it.",
                       verdict_cause=VerdictCause(v, in_text=True))
    base = busiest.metric.split(".", 1)[0]
    change = _tensor_change(k, spec) if base == m.PIPE_TENSOR else UNIT_CHANGES.get(base) or (
        f"fewer {NAMES[base]} operations" if base in NAMES else "fewer or cheaper operations on that unit")
    sms = device.sm_count if device else None
    where, headroom = _headroom(busiest.pct, unit_whole_blocks_pct(busiest, k.launch, sms), k.launch.value(LAUNCH_GRID),
                                sms)
    return replace(common, title=f"Relieve the {busiest.name}",
                       text=f"The {busiest.name} is the busiest unit at {pct(busiest.pct)} of its peak{where}, so "
                            f"{headroom}: {change}.", cause=f"{busiest.name} at {pct(busiest.pct)} of its peak")


def _tensor_change(k: LaunchAnalysis, spec: DeviceSpec | None) -> str:
    """What relieves a busy tensor pipe: the dense Tensor Core types faster than the launch's on this GPU's datasheet
    (none named without a datasheet), or fewer matrix operations."""
    now = spec.peaks.get(f"tensor_{k.ceilings[k.roof.ceilings].tensor_dtype}") if spec is not None else None
    if spec is None or not now:
        return "a faster Tensor Core data type, where this GPU has one, or fewer matrix operations"
    faster = [t.upper() for t in TENSOR_TYPES_BY_SPEED if spec.peaks.get(f"tensor_{t}", 0.0) > now]
    if not faster:
        return f"fewer matrix operations (no faster dense Tensor Core type in the {spec.id} datasheet)"
    return f"a faster Tensor Core data type ({'/'.join(faster)}, if the accuracy allows) or fewer matrix operations"


def _headroom(average_pct: float, fullest_pct: float | None, blocks: float | None,
              sms: int | None) -> tuple[str, str]:
    """What a compute item says of its busiest unit beside its percent: the percent on the SMs with the most blocks
    (``fullest_pct``), where that changes the speed-up written and is not above 100% (there its blocks did unequal
    work), and the speed-up left in the unit."""
    if average_pct <= 0:
        return "", "it is idle"
    at, where = average_pct, ""
    if (fullest_pct is not None and blocks and sms and fullest_pct < 100
            and pct(fullest_pct) != pct(average_pct) and _left(fullest_pct) != _left(average_pct)):
        at = fullest_pct
        where = (f" ({pct(at)} on the SMs that run {math.ceil(blocks / sms)} of its {blocks:.0f} blocks, where the "
                 f"average SM runs {blocks / sms:.3g})")
    return where, f"at most {_left(at)} is left there" if at < 100 else "no speed-up is left there"


def _left(pct_of_peak: float) -> str:
    """The speed-up left in a unit at this percent of its peak, as the advice writes it."""
    return f"{100 / pct_of_peak:.3g}x"


def _library(k: LaunchAnalysis, lib: Library, spec: DeviceSpec | None, device: Device | None = None) -> list[Advice]:
    """A library kernel: what the caller can change (its registers and shared memory are the library's). A GEMM
    near its busiest unit's peak whose data type is known gets only the faster data type, with its gain, or
    nothing."""
    v = k.verdict
    used = _gemm_type(k)
    on_tensor = used is not None and used.startswith("tensor_")
    tensor_item = k.tensor_cores is not None and bool(k.tensor_cores.advice)  # it says which type gains, if any
    near = (v.attained_pct or 0.0) >= NEAR_ROOF_PCT
    if lib.kind == "gemm" and used is not None and near:
        # math on the CUDA cores with the Tensor Core item given: the faster type is that item's cause, said once
        return [] if tensor_item and not on_tensor else _faster_type(k, lib, spec, used)
    saved, how = _gap(k)
    mechanism: Mechanism = "roof"
    if lib.kind == "gemm" and near and tensor_item and not on_tensor and saved is not None:
        # its type unknown (no FLOPs counted): the gap to the peak is latency slack, not what a call's shape wins
        saved, how, mechanism = None, (f"not estimated: its {seconds(saved)} to the busiest unit's peak is latency "
                                       "slack, which a new problem shape does not take; the gain of Tensor Core "
                                       "kernels is the Tensor Core item's"), "none"
    verdict = BOUND_WORDS[v.bound] if v.bound else "no verdict"
    busiest = f", busiest unit {v.busiest.name} at {pct(v.busiest.pct)}" if v.busiest else ""
    change = lib.caller_advice + _fp32_data(k, lib, spec, device)
    if lib.type_advice and not (on_tensor or tensor_item):
        change += f"; {lib.type_advice}" + (f" ({_half_inputs(device)} inputs)" if lib.half_inputs else "")
    duration, waves = k.duration_s.value, v.waves_per_sm
    small = (duration is not None and duration < SHORT_LAUNCH_S) or (waves is not None and waves < FULL_WAVE)
    change += f"; {lib.small_advice}" if lib.small_advice and small else ""
    return [Advice(kind="library", title=f"Tune the {lib.name} call",
                   text=f"A {lib.name} {lib.kind} kernel ({seconds(k.duration_s.value)}, {verdict}{busiest}): its "
                        f"code is the library's, so change the call: {change}.", cause="",
                   verdict_cause=VerdictCause(v), source="library", est_saved_s=saved,
                   condition=f"a {lib.name} kernel by its name ('{k.launch.name}'): registers, shared memory and "
                             "block size are not the caller's to change", estimate=how, topic=ROOF,
                   mechanism=mechanism)]


def _fp32_data(k: LaunchAnalysis, lib: Library, spec: DeviceSpec | None, device: Device | None) -> str:
    """What a library call of FP32 data needs for Tensor Core kernels on this GPU, as the Tensor Core item says it:
    TF32 enabled (``Library.tf32_mode``) where the GPU's TF32 Tensor Cores are faster than its FP32 cores, or no
    peak tells; the 16-bit inputs with their gain where TF32 runs no faster (GeForce and workstation Ampere and Ada,
    ``tensor_cores.no_faster_text``); the 16-bit inputs where the GPU takes no TF32 (before compute capability 8.0);
    "" for a library without the switch or a GPU without Tensor Cores."""
    if not lib.tf32_mode:
        return ""
    arch = architecture(device) if device is not None else None
    if arch is not None and "tf32" not in arch.float_types:
        halves = half_types(arch)
        return (f"; for FP32 data, Tensor Core kernels only with {halves} inputs, if the accuracy allows (this GPU's "
                "Tensor Cores take no TF32)") if halves else ""
    gain, half = tf32_gain(k, device, spec)
    if arch is not None and gain is not None and gain < TENSOR_NO_GAIN_RATIO:
        return f"; for FP32 data, {no_faster_text('TF32', 'FP32', gain, half, arch)}"
    return f"; for FP32 data only with TF32 enabled: {lib.tf32_mode}"


# BF16 arithmetic in hardware from compute capability 8.0 (CUDA C++ Programming Guide, __nv_bfloat16 arithmetic and
# the BF16 Tensor Core types of Ampere); before it FP16 is the 16-bit type a GPU computes in.
BF16_FROM_CC = (8, 0)


def narrow_types(device: Device | None) -> str:
    """The 16-bit floating-point types to suggest for narrower data on this GPU: FP16/BF16 from compute capability
    8.0 on, FP16 before (BF16 has no hardware there), both with that condition said where it is not known."""
    cc = device.cc_tuple if device is not None else None
    if cc is None:
        return "FP16 (or BF16 from compute capability 8.0)"
    return "FP16/BF16" if cc >= BF16_FROM_CC else "FP16"


def _half_inputs(device: Device | None) -> str:
    """The 16-bit input types a library call can take on this GPU: its Tensor Cores' (``tensor_cores.half_types``),
    else those it computes in (``narrow_types``)."""
    arch = architecture(device) if device is not None else None
    return (half_types(arch) if arch is not None else "") or narrow_types(device)


def _gemm_type(k: LaunchAnalysis) -> str | None:
    """The datasheet peak key of the type most of a launch's FLOPs ran in ("tensor_bf16", "fp32"), None when no
    FLOPs were counted."""
    by_type = {t: f for t, f in k.tensor_flops_by_type.items() if f}
    share = k.tensor_cores.flop_share if k.tensor_cores is not None else None
    if by_type and (share or 0.0) >= TENSOR_SHARE_USED:
        return "tensor_" + max(by_type, key=lambda t: by_type[t])
    precision = k.main_precision
    return precision if precision in ("fp64", "fp32", "fp16") else None


def _faster_type(k: LaunchAnalysis, lib: Library, spec: DeviceSpec | None, used: str) -> list[Advice]:
    """A library GEMM near its peak: the next faster dense Tensor Core type of this GPU's datasheet and what it
    would save, or nothing when there is none (or no datasheet to tell)."""
    now = spec.peaks.get(used) if spec is not None else None
    if spec is None or not now:
        return []
    faster = [(spec.peaks[f"tensor_{t}"], t) for t in TENSOR_TYPES_BY_SPEED if spec.peaks.get(f"tensor_{t}", 0.0) > now]
    if not faster:
        return []
    peak, dtype = min(faster)
    name, precision = used.removeprefix("tensor_").upper(), "tensor" if used.startswith("tensor_") else used
    saved, how = _faster_roof(k, peak / now, precision, f"the {dtype.upper()} Tensor Core roof")
    return [Advice(kind="precision", title=f"{dtype.upper()} Tensor Cores, if the accuracy allows",
                   text=f"A {lib.name} GEMM at {pct(k.verdict.attained_pct)} of its busiest unit's peak: the call is "
                        f"near what this GPU does in {name}. Only a faster data type shortens it: {dtype.upper()} "
                        f"Tensor Cores peak at {si(peak, 'FLOP/s')}, {peak / now:.3g}x the {name} peak ({spec.id} "
                        "datasheet).",
                   cause=f"{name} GEMM at {pct(k.verdict.attained_pct)} of its peak", source="library",
                   est_saved_s=saved, condition=f"a {lib.name} GEMM at {NEAR_ROOF_PCT:.0f}% of its peak or more",
                   estimate=how, topic="precision:tensor", mechanism="precision", work_share=faster_share(peak / now))]


# --- Tensor Cores and precision -----------------------------------------------------------------------
def _tensor_cores(k: LaunchAnalysis) -> list[Advice]:
    """Tensor Core advice: only for a kernel its name or instruction mix shows to be a matrix multiply."""
    t = k.tensor_cores
    if t is None or not t.advice:
        return []
    saved, how = _faster_roof(k, t.roof_ratio, k.main_precision, "a Tensor Core roof")
    return [Advice(kind="tensor_cores", title="Tensor Cores", text=t.advice,
                   cause=f"matrix-multiply-like ({t.matmul_like}), math on the CUDA cores", source="tensor_cores",
                   est_saved_s=saved,
                   condition=f"a matrix multiply or convolution ({t.matmul_like}) with its floating-point math on the "
                             "CUDA cores", estimate=how, topic="tensor_cores", mechanism="precision",
                   size_with=t.size_with, work_share=faster_share(t.roof_ratio))]


def faster_share(gain: float | None) -> float | None:
    """The share of a unit's time a roof ``gain`` times higher removes, 1 - 1 / gain: the what-if keeps the time
    the work takes at the faster roof (None where no gain is known, or none above 1)."""
    return 1.0 - 1.0 / gain if gain is not None and gain > 1.0 else None


def _faster_roof(k: LaunchAnalysis, gain: float | None, precision: str | None, what: str) -> tuple[float | None, str]:
    """Time saved by moving a precision's work to a roof ``gain`` times higher: its time at its own roof x
    (1 - 1 / gain); where not estimated, which of the two is not known."""
    util = k.roof.utilization_pct.get(precision or "")
    duration = k.duration_s.value
    if gain is None or gain <= 1.0:
        return None, f"not estimated: the ratio of {what} to the kernel's roof is not known"
    if util is None or duration is None:
        return None, f"not estimated: no {NAMES.get(precision or '', 'FP')} work measured at its roof"
    return (duration * util / 100.0 * (1.0 - 1.0 / gain),
            f"its {NAMES.get(precision or '', 'FP')} work at {pct(util)} of its roof, on {what} {gain:.3g}x higher")


def _fp64(k: LaunchAnalysis) -> list[Advice]:
    """FP64 work on a GPU whose FP64 rate is a small fraction of its FP32 one (GeForce and workstation boards:
    1/64 or 1/32), where the FP64 work takes longer than the FP32 work at their roofs (or the FP64 pipe is the
    busiest unit): the rate is said, whichever precision has more FLOPs."""
    c = k.ceilings.get(k.roof.ceilings)
    if c is None:
        return []
    fp32, fp64 = c.flop_per_s["fp32"], c.flop_per_s["fp64"]
    flops64, flops32 = k.flops["fp64"].value, k.flops["fp32"].value or 0.0
    if not fp64 or not fp32 or not flops64 or fp32 / fp64 < WEAK_FP64_RATIO:
        return []
    floor = k.time_model.largest_unit if k.time_model is not None else None
    fp64_floor = floor is not None and floor.metric.startswith(FP64_PIPE)
    if flops64 / fp64 <= flops32 / fp32 and not fp64_floor:
        return []
    times = fp32 / fp64
    saved, how = _faster_roof(k, times, "fp64", "the FP32 roof")
    work = f"its FP64 work ({si(flops64, 'FLOP')}) takes {seconds(flops64 / fp64)} at that rate"
    if fp64_floor and floor is not None:  # the pipe's time counts its conversions (F2F) and moves too
        work = (f"its FP64 pipe is the busiest unit, {pct(floor.inputs.get('pct_of_peak'))} of its peak: "
                f"{seconds(floor.seconds)} of the {seconds(k.duration_s.value)} at its peak (FP64 FLOPs "
                f"{si(flops64, 'FLOP')}, conversions to and from FP64 included)")
        saved, how = None, "the FP64 pipe's work at the FP32 rate, on the time model"
    return [Advice(kind="precision", title="Use FP32 where the accuracy allows",
                   text=f"FP64 runs at 1/{times:.0f} of the FP32 rate on this GPU ({si(fp64, 'FLOP/s')} vs "
                        f"{si(fp32, 'FLOP/s')}), and {work}: use FP32 where the accuracy allows, or run it on a GPU "
                        "with full-rate FP64 (1/2 of FP32 on the data-centre boards).",
                   cause=f"FP64 at 1/{times:.0f} of the FP32 rate", source="roofline", est_saved_s=saved,
                   condition=f"FP64 work that takes longer than the FP32 work, on an FP32 rate at least "
                             f"{WEAK_FP64_RATIO:g}x the FP64 one",
                   estimate=how, topic=FP64_TOPIC, mechanism="precision", work_share=faster_share(times))]


# --- Grid, waves and occupancy ------------------------------------------------------------------------
def _grid(k: LaunchAnalysis, device: Device | None) -> list[Advice]:
    """Under one full wave: how much of the GPU the grid fills (never an occupancy what-if there); from one wave
    on, a partial last wave that leaves block slots idle."""
    o = k.occupancy
    if o is None or o.waves_per_sm is None:
        return []
    waves = o.waves_per_sm
    if waves >= FULL_WAVE:
        if o.tail_idle_pct is None or o.tail_idle_pct < TAIL_IDLE_PCT:
            return []
        return [Advice(kind="waves", title="Fill the last wave",
                       text=f"{wave_count(waves)} per SM leave {o.tail_idle_pct:.0f}% of the block slots idle: size "
                            "the grid to a whole number of waves, or use more, smaller blocks.",
                       cause=f"{wave_count(waves)} per SM, {o.tail_idle_pct:.0f}% of block slots idle",
                       source="occupancy", est_saved_s=tail_saving(k),
                       condition=f"one wave or more and a last wave leaving at least {TAIL_IDLE_PCT:.0f}% of block "
                                 "slots idle",
                       estimate="the idle block slots of the last wave x duration (equal block durations assumed)",
                       topic="grid:tail", mechanism="grid")]
    return [_small_grid(k, waves, device)]


def launch_overhead_share(duration_s: float) -> float:
    """The host's launch cost as a share of launch plus run time, L / (L + d) with L = ``LAUNCH_OVERHEAD_S``:
    launches issued back to back, each waiting for the host to launch it (no overlap, no CUDA Graph)."""
    return LAUNCH_OVERHEAD_S / (LAUNCH_OVERHEAD_S + duration_s)


def _small_grid(k: LaunchAnalysis, waves: float, device: Device | None) -> Advice:
    """A grid under one wave: the grid, not the block or a unit's peak, is what holds the kernel back."""
    grid, threads = k.launch.value(LAUNCH_GRID), k.launch.value(LAUNCH_BLOCK)
    sms = device.sm_count if device is not None else None
    shape = f"{_blocks(int(grid))}" + (f" of {int(threads)} threads" if threads else "") if grid is not None else ""
    if grid is not None and sms:
        fills = f"the grid ({shape}) fills {min(int(grid), sms)} of {sms} SMs"
    else:
        fills = f"the grid fills {100 * waves:.1f}% of the GPU's resident-block slots"
    duration = k.duration_s.value
    overhead = ""
    if k.verdict.bound == "small_grid" and duration is not None and duration < SHORT_LAUNCH_S:
        share = launch_overhead_share(duration)
        overhead = (f" At {seconds(duration)} per launch, the host's launch cost (about {seconds(LAUNCH_OVERHEAD_S)}) "
                    f"is ~{100 * share:.0f}% of launch plus run time: batch the work into fewer launches, fuse it, "
                    "or capture the sequence in a CUDA Graph.")
    saved = small_grid_saving(k, device)
    how = (f"at most: the same work spread over all {sms} SMs instead of {int(grid or 0)}" if saved is not None
           else "not estimated: the gain depends on how the work splits into more blocks")
    return Advice(kind="small_grid", title="Fill the GPU",
                  text=f"{wave_count(waves)}: {fills}: {_split_advice(threads, grid, sms)} (or run independent kernels "
                       f"concurrently in streams).{overhead}", cause=f"{wave_count(waves)} per SM", source="occupancy",
                  est_saved_s=saved,
                  condition=f"under one full wave ({wave_count(waves)} per SM), where occupancy limits do not matter",
                  estimate=how, topic="grid:small", mechanism="grid", capped=saved is not None)


def _split_advice(threads: float | None, grid: float | None, sms: int | None) -> str:
    """How to give the GPU more blocks: split the work finer; smaller blocks only where a block has warps to
    spare and the grid leaves SMs without a block (with every SM holding one, smaller blocks add no warps); a block
    under one warp leaves lanes idle as well."""
    if threads is not None and threads < WARP_SIZE:
        return (f"the grid, not the block, is the problem, and {int(threads)}-thread blocks also leave "
                f"{WARP_SIZE - int(threads)} of {WARP_SIZE} lanes of each warp idle: spread the work over more blocks "
                f"of at least {WARP_SIZE} threads")
    if threads is not None and threads >= SMALLER_BLOCKS_MIN_THREADS and grid is not None and sms and grid < sms:
        return "split the work over more blocks (smaller blocks, or more work items)"
    return "give the launch more work items, so that it has more blocks (the grid, not the block, is the problem)"


def _blocks(n: int) -> str:
    return f"{n} block" if n == 1 else f"{n} blocks"


def _occupancy(k: LaunchAnalysis, device: Device | None = None) -> list[Advice]:
    """Occupancy changes, for a latency-bound (or undecided) kernel that fills at least one wave: the closed-form
    what-if of a register or shared-memory limit (or block size), and the achieved-to-theoretical gap."""
    o = k.occupancy
    if o is None or k.verdict.bound == "small_grid" or (o.waves_per_sm or 0.0) < FULL_WAVE:
        return []
    items: list[Advice] = []
    bound = BOUND_WORDS.get(k.verdict.bound or "", "no verdict")
    if o.what_if and o.theoretical_pct is not None and o.limiters:
        items.append(_what_if(k, o, bound, device))
    if k.verdict.bound not in ("latency", None):
        return items
    if o.gap_pts is not None and o.achieved_apart:
        items.append(Advice(kind="occupancy", title="Balance the work",
                            text=f"Achieved occupancy {pct(o.achieved_pct)} trails the theoretical "
                                 f"{pct(o.theoretical_pct)} by {o.gap_pts:.0f} points: balance the work across warps "
                                 "and blocks.",
                            cause=f"achieved occupancy {o.gap_pts:.0f} points below the theoretical",
                            source="occupancy",
                            condition=f"{bound}, at least one full wave, and achieved occupancy more than "
                                      f"{ACHIEVED_GAP_PTS:.0f} points below the theoretical",
                            estimate="not estimated: depends on the imbalance's cause", topic="occupancy:achieved",
                            mechanism="latency"))
    return items


def _what_if(k: LaunchAnalysis, o: Occupancy, bound: str, device: Device | None = None) -> Advice:
    """The closed-form what-if of the resource that limits the theoretical occupancy, with what more resident warps
    can do at most (``_latency_limit``); nothing where the grid has no more blocks for an SM than it holds already
    (``reconcile.more_blocks_fit``), which the item says. Its saving is its estimate, bounded on the time model like
    every item's (``reconcile``), never a figure of its own in the text."""
    limiters = " and ".join(LIMITER_WORDS[x] for x in o.limiters)
    effect = f"; more resident warps hide latency, {_latency_limit(k)}" if _latency_limit(k) else ""
    if not more_blocks_fit(k, device):
        effect = f". But {no_more_blocks(k, device).removeprefix('no saving: ')}"
    how = " (__launch_bounds__ or -maxrregcount)" if "registers" in o.limiters else ""
    further = f"; at most: {o.what_if[-1].text}" if len(o.what_if) > 1 else ""  # the smallest step first
    now = f" [calculator: {point_text(o.calculator.launch)}]" if o.calculator is not None else ""
    return Advice(kind="occupancy", title="Raise the theoretical occupancy",
                  text=f"Theoretical occupancy is {pct(o.theoretical_pct)}, limited by {limiters}{now}: "
                       f"{o.what_if[0].text}{how}{further}{effect}.",
                  cause=f"theoretical occupancy {pct(o.theoretical_pct)}, limited by {limiters}", source="occupancy",
                  condition=f"{bound}, {_waves_or_unknown(o.waves_per_sm)} (at least one full wave), and a limit "
                            "below the SM's maximum",
                  estimate="not estimated: more resident warps hide latency by an amount the report cannot tell",
                  topic="occupancy:theoretical", mechanism="latency")


def _latency_limit(k: LaunchAnalysis) -> str:
    """How far hiding latency can take a launch, as the occupancy item says it: down to its floor at the peaks a
    kernel can reach (``roofline.reach_floor_text``: the floor the verdict's own item, the grade and the recoverable
    time are measured to), else up to its busiest unit's peak; a limit, not a saving, so no figure in the text can
    stand above what every item saves at once. "" where neither is known."""
    floor = reach_floor_text(k)
    if floor:
        return f"taking the kernel at most down to {floor}"
    attained = attained_pct(k)
    return (f"taking the busiest unit at most up to its peak (at {pct(attained)} of it now)" if attained is not None
            else "")


# --- Latency: what the warps wait on ------------------------------------------------------------------
def _stalls(k: LaunchAnalysis) -> list[Advice]:
    """For latency and small-grid verdicts: the main stall reasons and the issue-slot use, each with its change."""
    s = k.stalls
    if k.verdict.bound not in ("latency", "small_grid") or s is None:
        return []
    bound = BOUND_WORDS[k.verdict.bound]
    if not s.reasons:
        return [Advice(kind="stalls", title="Collect what the warps wait on",
                       text=f"The report has no warp-state data to tell why this {bound} kernel (SM "
                            f"{pct(k.verdict.sm_pct)}, memory {pct(k.verdict.memory_pct)} of peak) waits: "
                            f"{s.missing.get('reasons', '')}.", cause="no warp-state stall metrics", source="stalls",
                       condition=f"{bound} and no WarpStateStats in the report",
                       estimate="not estimated: nothing measured to estimate from", topic="measurement:stalls")]
    gap, how = _gap(k)
    items = []
    unit = "cycles per issued instruction" if s.source.startswith("cycles") else "samples"
    for i, (reason, value, share) in enumerate(s.reasons[:2]):
        if i and share < STALL_SHARE_SECOND:
            break
        what, change = describe(reason)
        saved = gap * share if gap is not None else None
        items.append(Advice(kind="stalls", title=f"Warps wait on {what}",
                            text=f"Warps wait on {what} ({reason.replace('_', ' ')}: {value:.3g} {unit}, "
                                 f"{100 * share:.0f}% of the stalls): {change}.",
                            cause=f"{reason} {100 * share:.0f}% of stalls ({s.source})", source="stalls",
                            est_saved_s=saved, condition=f"{bound} and {reason} among the largest stall reasons",
                            estimate=f"{100 * share:.0f}% (its share of the stalls) of the {how}" if saved is not None
                            else how,
                            topic=f"stall:{reason}", mechanism="latency"))
    if s.eligible_per_scheduler is not None and s.eligible_per_scheduler < ONE_ELIGIBLE_WARP:
        issue = f"issue in {pct(s.issue_active_pct, 0)} of active cycles " if s.issue_active_pct is not None else ""
        resident = f" of {s.active_per_scheduler:.3g} resident" if s.active_per_scheduler is not None else ""
        items.append(Advice(kind="latency", title="Get more warps ready to issue",
                            text=f"The schedulers {issue}with {s.eligible_per_scheduler:.2g} eligible warps "
                                 f"each{resident}: too few warps are ready to hide latency; raise the warps in flight "
                                 "(more blocks, higher occupancy) or the independent instructions per warp.",
                            cause=f"{s.eligible_per_scheduler:.2g} eligible warps per scheduler", source="stalls",
                            condition=f"{bound} and fewer than {ONE_ELIGIBLE_WARP:g} eligible warp per scheduler",
                            estimate="not estimated: the stall reasons above carry the estimate", topic="issue",
                            mechanism="latency"))
    return items


# --- The instruction roofline's advice ----------------------------------------------------------------------
# Sectors per warp instruction above which no word size up to 16 bytes coalesces: 32 threads x 16 bytes fill 16
# sectors, 4-byte words 4 (the unit-stride wall). Where the SASS counts the widths, each access is also held to its
# own words' floor (32 for the 32-byte words of CC 10.0 on); without them, 16 is the floor the saving counts from.
WIDEST_COALESCED_SECTORS = 16
_OPERATIONS = {"ld": "loads", "st": "stores"}


def _issue_bound(k: LaunchAnalysis) -> list[Advice]:
    """Warp instructions issued at ``LATENCY_BELOW_PCT`` of the schedulers' peak or more: only fewer instructions
    shorten the kernel; not estimated (the report cannot say how many could go)."""
    r = k.instruction_roofline
    rate, peak = (r.warp_gips.value, r.peak_warp_gips.value) if r is not None else (None, None)
    if r is None or rate is None or not peak or 100 * rate / peak < LATENCY_BELOW_PCT:
        return []
    share = 100 * rate / peak
    busiest = k.verdict.busiest
    # the issue slots the busiest unit: the verdict's own item makes this point, this one is cited there
    point = ROOF if busiest is not None and busiest.metric.startswith(ISSUE_SLOTS) else "issue_bound"
    threads = r.thread_gips_per_32.value
    idle = (f"; {pct(100 * (1 - threads / rate))} of the lanes of issued instructions are inactive or predicated off, "
            "so converged warps would issue fewer" if threads is not None and threads < rate * IDLE_LANES_NAMED else "")
    return [Advice(kind="instructions", title="Issue fewer instructions",
                   text=f"Issue-bound at {pct(share)} of the peak warp instruction rate ({ratio(rate)} of "
                        f"{ratio(peak)} warp GIPS){idle}: only fewer instructions per element shorten it (wider "
                        "loads and stores, fewer index and address computations, cheaper integer math, unrolled "
                        "loops).",
                   cause=f"warp instructions at {pct(share)} of the issue peak", source="instructions",
                   condition=f"warp GIPS at {pct(LATENCY_BELOW_PCT, 0)} of the issue peak or more",
                   estimate="not estimated: the report cannot say how many instructions could go",
                   topic=point, mechanism="work")]


def _uncoalesced(k: LaunchAnalysis) -> list[Advice]:
    """Global loads or stores moving more sectors per warp instruction than any coalesced access does and than
    their own words need (``_coalesced_floor``); the estimate is ncu's access-pattern rules', merged on the same
    cause, bounded. The work it removes is at most the sectors beyond the bytes used, else beyond that floor
    (``_excess_sectors``), as a share of the kernel's fewest sectors at L1, L2 and DRAM (``excess_share``): the
    other accesses' sectors stay."""
    r = k.instruction_roofline
    intensity = r.global_memory.intensity if r is not None else {}
    floors = {op: _coalesced_floor(k, op) for op in intensity}
    scattered = {op: 1 / v.value for op, v in intensity.items()
                 if v.value and 1 / v.value > max(WIDEST_COALESCED_SECTORS, floors[op][0])}
    if not scattered:
        return []
    found = ", ".join(f"{_OPERATIONS[op]} {ratio(n)}" for op, n in scattered.items())
    excess = sum(_excess_sectors(k, op, floors[op][0]) for op in scattered)
    need = " and ".join(_floor_words(op, *floors[op], len(scattered) > 1) for op in scattered)
    assumed = [op for op in scattered if not floors[op][1] and m.sector_use(k.launch, op).value is None]
    bound = (f" The report counts no access widths (no {m.PER_OPCODE_WARP_INST}, --set full): the saving counts "
             f"only the sectors beyond {WIDEST_COALESCED_SECTORS} per warp instruction, the floor of the widest "
             "(16-byte) words, the least a coalesced access of any of those widths saves." if assumed else "")
    topic = f"{COALESCING}:l1"
    return [Advice(kind="instructions", title="Coalesce global accesses",
                   text=f"Uncoalesced: global {found} sectors per warp instruction, where {need}: let neighbouring "
                        "threads access neighbouring addresses (structure of arrays, transposing through shared "
                        f"memory).{bound}",
                   cause=f"global {found} sectors per warp instruction", source="instructions",
                   condition=f"more than {WIDEST_COALESCED_SECTORS} sectors per global warp instruction and more "
                             "than its words take coalesced",
                   estimate="not estimated: the word size sets how many sectors coalesced accesses need",
                   topic=topic, mechanism="work", work_share=excess_share(excess, k, topic),
                   excess_sectors=excess, excess_ops=tuple(scattered))]


def _coalesced_floor(k: LaunchAnalysis, op: str) -> tuple[float, dict[int, float]]:
    """The sectors a warp instruction of global ``op`` takes at least, coalesced, and the widths that set it
    (bytes per thread -> warp instructions, ``metrics.access_widths``): over a mix of widths the mean of each
    instruction's own floor; without counted widths the widest words' floor (``WIDEST_COALESCED_SECTORS``), which
    no access exceeds, and no widths."""
    widths = (m.access_widths(k.launch, "global") or {}).get(op) or {}
    if not widths:
        return float(WIDEST_COALESCED_SECTORS), {}
    return 1 / width_wall(widths, "global"), widths


def _floor_words(op: str, floor: float, widths: dict[int, float], named: bool) -> str:
    """What global ``op``'s words take coalesced, as the uncoalesced item says it: one width's floor, a mix's mean
    floor said as a mean, or the 4- and 16-byte words' floors where no width was counted."""
    whose = f"its {_OPERATIONS[op]}' " if named else "its "
    if not widths:
        unit = round(1 / GLOBAL_WALLS["unit_stride"])
        return f"4-byte words take {unit} when coalesced and 16-byte words {WIDEST_COALESCED_SECTORS}"
    if len(widths) == 1:
        return f"{whose}{next(iter(widths))}-byte words take {ratio(floor)} when coalesced"
    mix = ", ".join(f"{n:,.0f} of {w} bytes" for w, n in sorted(widths.items(), key=lambda wn: -wn[1]))
    return (f"{whose}words take {ratio(floor)} on average when coalesced (a mean over a mix of widths, not one "
            f"access size: warp instructions {mix} a thread)")


def _local_memory(k: LaunchAnalysis) -> list[Advice]:
    """Local loads and stores taking ``LOCAL_SECTORS_SHARE`` or more of the L1 sectors of global and local accesses:
    per-thread data in local memory (register spills, arrays indexed at run time), which lives in device memory
    behind L1. The change keeps that data in registers: the work it removes is the local sectors, as a share of the
    kernel's fewest sectors at L1, L2 and DRAM (``excess_share``), each level losing at most its own sectors."""
    counts = {(space, op): m.access_sectors(k.launch, space, op).value for space in ("local", "global")
              for op in ("ld", "st")}
    if any(v is None for v in counts.values()):
        return []
    local = (counts[("local", "ld")] or 0.0) + (counts[("local", "st")] or 0.0)
    total = local + (counts[("global", "ld")] or 0.0) + (counts[("global", "st")] or 0.0)
    if not local or local < LOCAL_SECTORS_SHARE * total:
        return []
    found = f"local loads and stores {pct(100 * local / total)} of the global and local L1 sectors ({si(local)})"
    return [Advice(kind="memory", title="Keep per-thread data in registers",
                   text=f"Local memory: {found}. Local memory is per-thread data the compiler could not keep in "
                        "registers (spills, or arrays indexed with values known only at run time); it lives in "
                        "device memory behind L1. Check the spills with -Xptxas -v, make array indices "
                        "compile-time constants (unrolled loops), or ease register pressure (fewer live values, "
                        "__launch_bounds__).",
                   cause=found, source="instructions",
                   condition=f"local memory {pct(100 * LOCAL_SECTORS_SHARE)} or more of the global and local L1 "
                             "sectors",
                   estimate="not estimated: the local sectors' share of the traffic is not known",
                   topic=LOCAL_MEMORY, mechanism="work", work_share=excess_share(local, k, LOCAL_MEMORY),
                   excess_sectors=local)]


def _excess_sectors(k: LaunchAnalysis, op: str, floor: float) -> float:
    """The sectors global ``op`` accesses moved beyond the bytes their threads used (``metrics.sector_use``), else
    beyond ``floor`` sectors per warp instruction (``_coalesced_floor``)."""
    instructions, sectors = (v.value or 0.0 for v in m.global_accesses(k.launch)[op])
    used = m.sector_use(k.launch, op).value
    return sectors * (1.0 - used) if used is not None else max(0.0, sectors - floor * instructions)


def _launch_overhead(k: LaunchAnalysis) -> list[Advice]:
    """A launch as short as the launch overhead (the small-grid item says it for small grids)."""
    duration = k.duration_s.value
    if duration is None or duration >= SHORT_LAUNCH_S or k.verdict.bound == "small_grid":
        return []
    return [Advice(kind="launch_overhead", title="Fuse or graph the launches",
                   text=f"Each launch takes {seconds(duration)}, the order of the launch overhead itself: fuse it "
                        "with neighbouring kernels or capture the sequence in a CUDA Graph.",
                   cause=f"{seconds(duration)} per launch", source="roofline",
                   condition=f"a launch shorter than {seconds(SHORT_LAUNCH_S)}",
                   estimate="not estimated: the launch cost is host time, outside the kernel's measured time",
                   topic="launch_overhead")]


def _waves_or_unknown(value: float | None) -> str:
    """A wave count with its noun, or that it is not known."""
    return wave_count(value) if value is not None else "waves not known"
