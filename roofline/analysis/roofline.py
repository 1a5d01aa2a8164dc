"""Roofline analysis: pure functions from the report model (and ceilings) to plain result structs.

Per launch: FLOPs and FLOP/s per precision, bytes and bytes/s per memory level, arithmetic intensity,
the ceilings (the report's own, the datasheet's, and the roofs at the clocks the kernel ran at), percent of
roof, the verdict (``roofline.analysis.verdict``) and the launch's share of the profiled time. Per kernel name: the
launches grouped. No I/O, no printing. The result types are in ``roofline.analysis.results``; the diagnostics and the
advice are added by ``roofline.pipeline``.

Percent of roof is time-based: the shortest time the roofs allow, ``max(FLOPs_p / peak_p over
precisions, bytes_l / bandwidth_l over levels)``, over the measured time. For a kernel of one precision
this equals achieved FLOP/s over the attainable ``min(peak, intensity x bandwidth)`` at its tightest
level, and it stays defined for kernels with no FLOPs (a copy kernel is judged on bandwidth).
"""

from __future__ import annotations

import functools
import math
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar, cast

from roofline.analysis.launches import Columns, Figure, KernelGroup, KernelSpread, Launches, LaunchTable, ReportAnalysis
from roofline.analysis.results import (
    InvertedLevel,
    LaunchAnalysis,
    PeakKind,
    RoofPosition,
    Side,
    Term,
    Value,
    Verdict,
    counted_flops,
    total_flops,
)
from roofline.analysis.verdict import SM_ROOFS, NoThroughputs, launch_verdict, throughputs, whole_blocks_pct
from roofline.core.choices import GroupBy
from roofline.core.cohorts import (
    Cohort,
    argmax_key,
    at_key,
    cohorts,
    is_none,
    launch_plan,
    nonzero,
    per_launch,
    shared,
    smallest,
    take_launch,
    where,
)
from roofline.core.kernel_names import kernel_key
from roofline.core.labels import NAMES
from roofline.core.model import (
    LEVELS,
    PRECISIONS,
    Ceilings,
    CeilingSet,
    Device,
    KernelLaunch,
    Report,
    roof_intensity,
)
from roofline.core.thresholds import (
    ABOVE_CEILING_TOLERANCE,
    CLOCK_TOLERANCE,
    LAUNCH_FLOOR_S,
    ROOF_SHOWN_PCT,
    SAME_ROOF,
    UNLOCKED_CLOCK_SHARE,
)
from roofline.core.units import pct, seconds
from roofline.ncu import metrics as m

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

    from roofline.specs.catalog import DeviceSpec

T = TypeVar("T")
DEFAULT_TENSOR_DTYPE = "fp16"  # tensor roof shown for kernels that do no tensor math
DEFAULT_CEILINGS: CeilingSet = "kernel-clock"  # the roofs at the clocks the kernel ran at


# --- Ceilings -----------------------------------------------------------------------------------------
def report_ceilings(launch: KernelLaunch, device: Device, tensor_dtype: str,
                    traffic: Mapping[str, m.Traffic] | None = None,
                    base_clock_hz: float | None = None) -> tuple[Ceilings, dict[str, str]]:
    """The report's own roofs for one launch (peak counters x measured clocks) and the L2/L1 definitions; the clock
    note compares the measured SM clock with the spec's ``base_clock_hz`` where given."""
    flops = {p: m.cuda_core_peak(launch, p) for p in ("fp64", "fp32", "fp16")}
    flops["tensor"] = m.tensor_peak(launch, device, tensor_dtype)
    traffic = traffic or _traffic(launch, device)
    bw = {level: t.peak_bytes_per_s for level, t in traffic.items()}
    missing = {k: v.reason for k, v in {**flops, **bw}.items() if v.value is None}
    collect = {k: v.hint for k, v in {**flops, **bw}.items() if v.value is None and v.missing and v.hint and not v.via}
    clock = m.sm_clock_hz(launch).value  # the GPC clock in a basic set, which holds no SM clock
    note = per_launch(_clock_note, clock, device.max_clock_hz, base_clock_hz, m.clock_read(launch),
                      m.duration_s(launch).value) if nonzero(clock) else "no measured SM clock"
    ceilings = Ceilings("measured-clock", {k: v.value for k, v in flops.items()}, {k: v.value for k, v in bw.items()},
                        clock_note=note, tensor_dtype=tensor_dtype, missing=missing, collect=collect,
                        sm_clock_hz=clock if nonzero(clock) else None)
    return ceilings, {level: t.definition for level, t in traffic.items()}



def _clock_note(clock: float, maximum: float | None, base: float | None = None, read: bool = True,
                duration_s: float | None = None) -> str:
    """What the measured SM clock says of ncu's clock control: at the GPU's maximum, at the spec's base clock (within
    CLOCK_TOLERANCE), below or above it; not judged where the spec has no base clock (ncu's default lock is named,
    not claimed: launches of one report can run at clocks 25% apart there, not all at base). A clock
    not ``read`` from a clock metric (SM cycles over the duration) or over a launch ``metrics.too_short_for_clock``
    is not called held down below base (as ``metrics.clock_judged``)."""
    measured = f"measured SM clock {clock / 1e9:.3g} GHz" if read else \
        f"SM clock {clock / 1e9:.3g} GHz (elapsed cycles over the duration)"
    short = m.too_short_for_clock(duration_s)
    if (short or not read) and base and base * (1 - CLOCK_TOLERANCE) > clock:
        why = f"a launch of {(duration_s or 0.0) * 1e6:.3g} us reads its clock low" if short else \
            "the duration counts the launch's start"
        return f"{measured}, below the base clock {base / 1e9:.3g} GHz: not judged ({why})"
    if maximum and clock >= UNLOCKED_CLOCK_SHARE * maximum:
        return f"{measured}, the GPU's maximum: not locked (--clock-control none)"
    if not base:
        return f"{measured}, not judged: the spec gives no base clock (ncu locks base unless --clock-control none)"
    if abs(clock - base) <= CLOCK_TOLERANCE * base:
        return f"{measured}, locked to base ({base / 1e9:.3g} GHz)"
    if clock < base:
        return (f"{measured}, {100 * (1 - clock / base):.0f}% below the base clock {base / 1e9:.3g} GHz: held down "
                "by power or heat during the replays, not locked to base")
    return f"{measured}, above the base clock {base / 1e9:.3g} GHz: not locked to base (--clock-control none)"


def _traffic(launch: KernelLaunch, device: Device) -> dict[str, m.Traffic]:
    return {"dram": m.dram_traffic(launch), "l2": m.l2_traffic(launch), "l1": m.l1_traffic(launch, device)}


def clock_ceilings(report: Ceilings, sheet: Ceilings | None, spec: DeviceSpec | None, launch: KernelLaunch,
                   device: Device) -> Ceilings:
    """The roofs at the clocks the kernel ran at: the report's own where it holds the peak counter, else the
    datasheet's scaled by measured clock / datasheet clock (SM clock / boost clock for compute and caches,
    measured DRAM clock / the device's memory clock for DRAM), each scaled roof named in ``scaled``."""
    roofs: dict[str, float | None] = {}
    scaled: dict[str, str] = {}
    unscaled: list[str] = []
    capped: list[str] = []  # scaled to the GPU's maximum SM clock: no measured one
    missing: dict[str, str] = {}
    for key in (*PRECISIONS, *LEVELS):
        roofs[key] = report.roof(key)
        datasheet = sheet.roof(key) if sheet is not None else None
        if roofs[key] is None and datasheet is not None and spec is not None:
            factor, how, clocked = _clock_factor(key, spec, launch, device, report.tensor_dtype or "")
            roofs[key], scaled[key] = datasheet * factor, how
            unscaled += [] if clocked else [key]
            capped += [key] if clocked and key != "dram" and m.sm_clock_hz(launch).value is None else []
        elif roofs[key] is None:
            why = sheet.missing.get(key, "") if sheet is not None else "no device spec for this GPU"
            missing[key] = f"{report.missing.get(key, 'no peak counter')}; datasheet: {why}"
    note = per_launch(str.__add__, report.clock_note, _datasheet_note(scaled, unscaled, capped))
    return Ceilings("kernel-clock", {k: roofs[k] for k in PRECISIONS}, {k: roofs[k] for k in LEVELS}, clock_note=note,
                    tensor_dtype=report.tensor_dtype, missing=missing, scaled=scaled, unscaled=tuple(unscaled),
                    clock=report.clock, collect={k: report.collect[k] for k in missing if k in report.collect},
                    at_max_clock=bool(capped), sm_clock_hz=_kernel_clock(report, sheet, device, scaled, capped))


def _kernel_clock(report: Ceilings, sheet: Ceilings | None, device: Device, scaled: Mapping[str, str],
                  capped: Sequence[str]) -> float | None:
    """The SM clock of a kernel-clock set: the measured one, else the GPU's maximum where the datasheet's roofs were
    brought to it, else the datasheet's boost clock where its roofs at that clock (not DRAM's, not the Tensor
    figure's own clock) were taken unscaled; None where no roof is at a known SM clock."""
    if report.sm_clock_hz is not None:
        return report.sm_clock_hz
    if capped:
        return device.max_clock_hz
    return sheet.sm_clock_hz if sheet is not None and any(k not in ("dram", "tensor") for k in scaled) else None


def _datasheet_note(scaled: Mapping[str, str], unscaled: Sequence[str], capped: Sequence[str]) -> str:
    """The clock note's part on the roofs taken from the datasheet: which went to the measured clocks, which to the
    GPU's maximum SM clock (no measured one) and which stayed at the datasheet's; "" where none was taken."""
    def names(keys: Sequence[str]) -> str:
        return ", ".join(NAMES[k] for k in keys)

    measured = [k for k in scaled if k not in unscaled and k not in capped]
    parts = [f"datasheet roofs scaled to the measured clocks for {names(measured)}" if measured else "",
             f"datasheet roofs scaled to the GPU's maximum SM clock for {names(capped)} (no measured clock)"
             if capped else "",
             f"datasheet roofs unscaled for {names(unscaled)} (no measured clock)" if unscaled else ""]
    return "".join(f"; {p}" for p in parts if p)


def _clock_factor(key: str, spec: DeviceSpec, launch: KernelLaunch, device: Device,
                  tensor_dtype: str) -> tuple[float, str, bool]:
    """(factor, how, whether a measured clock scaled it) that brings a datasheet roof (of the Tensor Core type
    ``tensor_dtype``, for the Tensor roof) from the clock its figure holds at to the clock the launch ran at."""
    if key == "dram":
        clock, reference = launch.value(m.DRAM_CLOCK), device.memory_clock_hz
        if nonzero(clock) and reference:
            # a DRAM clock above the device's maximum memory clock is a short launch's measuring noise (up to
            # 1.54x on the few-microsecond launches of the shared reports): the datasheet roof is the most
            return smallest(1.0, clock / reference), per_launch(_dram_scaling, clock, reference), True
        return 1.0, "datasheet, unscaled (the report holds no measured DRAM clock or no device memory clock)", False
    sm_clock = m.sm_clock_hz(launch)
    reference = spec.clock_of(key, tensor_dtype)
    if sm_clock.value is None:
        top = device.max_clock_hz
        if top is not None and top < reference * (1 - SAME_ROOF):
            # no measured clock, but the GPU's own maximum SM clock lies below the figure's (a laptop part at its
            # power limit): the roof a kernel could reach there is at most the datasheet's at that clock
            return top / reference, per_launch(_max_clock_scaling, top, reference), True
        named = "boost clock" if reference == spec.boost_clock_hz else "clock of its Tensor figures"
        return 1.0, f"datasheet at the {reference / 1e9:.3g} GHz {named}, unscaled (no measured clock)", False
    return sm_clock.value / reference, per_launch(_sm_scaling, sm_clock.value, reference), True


def _dram_scaling(clock: float, reference: float) -> str:
    factor = min(1.0, clock / reference)
    return (f"datasheet x {factor:.2f} (measured DRAM clock {clock / 1e9:.3g} GHz / the device's "
            f"{reference / 1e9:.3g} GHz{', capped at 1' if clock > reference else ''})")


def _max_clock_scaling(clock: float, reference: float) -> str:
    return (f"datasheet x {clock / reference:.2f} (no measured clock: the report's maximum SM clock "
            f"{clock / 1e9:.4g} GHz / the datasheet's {reference / 1e9:.4g} GHz)")


def _sm_scaling(clock: float, reference: float) -> str:
    return (f"datasheet x {clock / reference:.2f} (measured SM clock {clock / 1e9:.3g} GHz / the datasheet's "
            f"{reference / 1e9:.3g} GHz)")


# --- One launch ---------------------------------------------------------------------------------------
def analyze_launch(launch: KernelLaunch, device: Device, spec: DeviceSpec | None = None,
                   use: CeilingSet = "measured-clock", total_time_s: float | None = None) -> LaunchAnalysis:
    """Analyse one launch against the report's ceilings and, when given, the spec's; ``use`` picks the
    set that percent-of-roof and the bound are computed from ("measured-clock" or "datasheet"); ``total_time_s`` (of
    all launches in the report) gives the launch's time share."""
    measured = m.duration_s(launch)
    duration = Value.of(measured)
    flops = {p: m.cuda_core_flops(launch, p) for p in ("fp64", "fp32", "fp16")}
    flops["tensor"], by_type = m.tensor_flops(launch, device)
    tensor_dtype = shared(main_tensor_type(by_type))
    traffic = _traffic(launch, device)
    moved = {level: t.bytes for level, t in traffic.items()}
    ceilings, definitions = report_ceilings(launch, device, tensor_dtype, traffic,
                                            spec.base_clock_hz if spec is not None else None)
    all_ceilings: dict[CeilingSet, Ceilings] = {"measured-clock": ceilings}
    sheet = None
    if spec is not None:
        from roofline.specs.catalog import spec_ceilings

        sheet = all_ceilings["datasheet"] = spec_ceilings(spec, tensor_dtype)
    all_ceilings["kernel-clock"] = clock_ceilings(ceilings, sheet, spec, launch, device)
    if spec is not None and spec.measured is not None:
        from roofline.specs.calibration import measured_ceilings

        all_ceilings["calibrated"] = measured_ceilings(spec.measured, tensor_dtype)
    flop_values = {p: Value.of(v) for p, v in flops.items()}
    byte_values = {level: Value.of(v) for level, v in moved.items()}
    roof = roof_position(flop_values, byte_values, duration.value, all_ceilings[use])
    l2_total = Value.of(m.l2_total_bytes(launch))
    return LaunchAnalysis(
        launch=launch,
        duration_s=duration,
        flops=flop_values,
        flop_per_s={p: rate(v, duration) for p, v in flop_values.items()},
        tensor_flops_by_type=by_type,
        bytes=byte_values,
        bytes_per_s={level: rate(v, duration) for level, v in byte_values.items()},
        intensity=intensity(flop_values, byte_values),
        definitions={k: v for k, v in definitions.items() if v},
        ceilings=all_ceilings,
        roof=roof,
        verdict=launch_verdict(launch, roof),
        time_share=time_share(duration.value, total_time_s),
        flags=above_ceiling_flags(roof),
        notes=tuple(n for q in (*flops.values(), *moved.values()) for n in q.notes),
        l2_total_bytes=l2_total,
        inverted_levels=inverted_levels(traffic, l2_total),
        whole_blocks_pct=whole_blocks_pct(launch, device.sm_count,
                                          sm_roof_pcts(flop_values, byte_values, all_ceilings["kernel-clock"],
                                                       duration.value)),
        total_flops=total_flops(flop_values),
    )


def sm_roof_pcts(flops: Mapping[str, Value], moved: Mapping[str, Value], c: Ceilings, duration: Any) -> list[Any]:
    """The work at each roof inside the SMs (each precision's FLOPs, the L1 bytes) over that kernel-clock roof, as a
    percentage of the duration: the time model's roof terms there (``time_model``), for a report without the
    breakdowns' units."""
    if duration is None:
        return []
    pairs = [((flops if key in PRECISIONS else moved)[key].value, c.roof(key)) for key in SM_ROOFS]
    return [where((work > 0) & (peak > 0), 100.0 * work / where(peak > 0, peak, 1.0) / duration, 0.0)
            for work, peak in pairs if work is not None and peak is not None]


def main_tensor_type(by_type: Mapping[str, Any]) -> Any:
    """Per launch, the Tensor Core source type whose roof is shown: the one with the most FLOPs, else the default."""
    return argmax_key(by_type) if any(nonzero(v) for v in by_type.values()) else DEFAULT_TENSOR_DTYPE


def time_share(duration_s: float | None, total_time_s: float | None) -> float | None:
    """A launch's share of the time of all launches of its report; None where either is not measured."""
    return duration_s / total_time_s if duration_s is not None and total_time_s else None


def invalid_launch(launch: KernelLaunch, spec: DeviceSpec | None = None,
                   use: CeilingSet = "measured-clock") -> LaunchAnalysis:
    """A launch whose attributes are impossible (``launch.invalid``): kept with every number None and the reason,
    so it stays visible in every output while times, rankings and verdicts leave it out."""
    why = Value(None, f"invalid launch: {launch.invalid}")
    none = dict.fromkeys(PRECISIONS, why)
    levels = dict.fromkeys(LEVELS, why)
    missing = dict.fromkeys((*PRECISIONS, *LEVELS), why.reason)
    unmeasured: tuple[CeilingSet, ...] = ("measured-clock", "kernel-clock")
    all_ceilings = {source: Ceilings(source, {}, {}, clock_note="", missing=missing) for source in unmeasured}
    if spec is not None:
        from roofline.specs.catalog import spec_ceilings

        all_ceilings["datasheet"] = spec_ceilings(spec)
        if spec.measured is not None:
            from roofline.specs.calibration import measured_ceilings

            all_ceilings["calibrated"] = measured_ceilings(spec.measured, DEFAULT_TENSOR_DTYPE)
    return LaunchAnalysis(launch=launch, duration_s=why, flops=none, flop_per_s=none, tensor_flops_by_type={},
                          bytes=levels, bytes_per_s=levels, intensity=levels, definitions={}, ceilings=all_ceilings,
                          roof=RoofPosition(use, None, None, {}, why.reason),
                          verdict=Verdict(None, None, reason=why.reason), l2_total_bytes=why)


def rate(amount: Value, duration: Value) -> Value:
    """An amount per second of ``duration``; None with the reason when either is missing or zero (the missing
    one's cause, metrics and option kept as data)."""
    if amount.value is None:
        return _absent_as(amount, amount.reason)
    if duration.value is None or shared(duration.value <= 0):
        return _absent_as(duration, f"no kernel duration: {duration.reason or 'zero duration'}")
    return Value(amount.value / duration.value, via=f"({amount.via}) / duration")


def _absent_as(source: Value, reason: str) -> Value:
    """A value absent because ``source`` is: ``reason``, with its cause, missing metrics and option."""
    return Value(None, reason, missing=source.missing, collect=source.collect, cause=source.cause)


def intensity(flops: Mapping[str, Value], moved: Mapping[str, Value]) -> dict[str, Value]:
    """FLOPs of all precisions per byte at each level (FLOP/byte). Where a precision's FLOPs are not measured, the
    intensity counts the measured ones, a lower bound that says so (its ``via``; as data,
    ``LaunchAnalysis.intensity_leaves_out``), unless they count none: the kernel may do all of its math in the
    precision not measured, so its intensity is not measured either (None with that precision's reason), never
    0."""
    import numpy as np

    known = list(counted_flops(flops).values())
    unmeasured = [p for p, v in flops.items() if v.value is None]
    first = next((v for v in flops.values() if v.value is None and v.cause is not None), None)
    # whether the measured FLOPs are all zero, as one array: a cohort is split by it (``flop_parts``), while one
    # precision's FLOPs (FP16 less the HFMA2 moves) may be zero in some of its launches and not in others
    none_counted = bool(known) and bool(unmeasured) and bool(shared(functools.reduce(
        np.logical_and, [np.asarray(v) == 0 for v in known])))
    out = {}
    for level, b in moved.items():
        if not known:
            reason = "no FLOP count: " + "; ".join(v.reason for v in flops.values() if v.reason)
            out[level] = _absent_as(first, reason) if first is not None else Value(None, reason)
        elif b.value is None:
            out[level] = _absent_as(b, b.reason)
        elif none_counted:
            out[level] = _partly_counted(flops, unmeasured, first)
        elif shared(b.value == 0):
            out[level] = Value(None, f"no bytes moved at {level}: intensity is unbounded")
        else:
            left_out = f" (leaves out unmeasured {', '.join(unmeasured)})" if unmeasured else ""
            out[level] = Value(sum(known) / b.value, via=f"FLOPs / {level} bytes{left_out}")
    return out


def _partly_counted(flops: Mapping[str, Value], unmeasured: Sequence[str], first: Value | None) -> Value:
    """The intensity of a launch whose measured precisions count no FLOPs while others are not measured: not
    measured, with the reason of those precisions (and, as data, the metrics they lack)."""
    why = "; ".join(f"{NAMES[p]} ({flops[p].reason})" if flops[p].reason else NAMES[p] for p in unmeasured)
    reason = f"FLOPs not measured in full: the measured precisions count none, and these are not measured: {why}"
    return _absent_as(first, reason) if first is not None else Value(None, reason)


def inverted_levels(traffic: Mapping[str, m.Traffic], l2_total: Value) -> tuple[InvertedLevel, ...]:
    """Where a level's definition counts one direction only and so shows fewer bytes than the level outside it (an
    inverted-looking hierarchy): which levels, what the inner one counts, and where all L2 traffic is."""
    return per_launch(_inverted_levels, traffic, l2_total)


def _inverted_levels(traffic: Mapping[str, m.Traffic], l2_total: Value) -> tuple[InvertedLevel, ...]:
    out = []
    for outer, inner in (("dram", "l2"), ("l2", "l1")):
        inside, outside = traffic[inner].bytes.value, traffic[outer].bytes.value
        if not traffic[inner].one_way or inside is None or outside is None or inside >= outside:
            continue
        total = l2_total.via if l2_total.value is not None else ""
        out.append(InvertedLevel(inner, outer, traffic[inner].one_way, traffic[inner].counter, total))
    return tuple(out)


def roof_position(flops: Mapping[str, Value], moved: Mapping[str, Value], duration: float | None,
                  ceilings: Ceilings, shown_pct: float = ROOF_SHOWN_PCT) -> RoofPosition:
    """Percent of roof and limiter against one ceiling set (time-based, see module docstring); roofs under
    ``shown_pct`` tie for the limiter (``roof_limiter``; 0 where the percent is no launch's, as ``roof_time``'s)."""
    if not nonzero(duration):
        return RoofPosition(ceilings.source, None, None, {}, "no kernel duration")
    util: dict[str, float] = {}
    unroofed: list[tuple[str, str, float]] = []  # precisions without a ceiling: (name, why, FLOPs), said where run
    gaps = []
    for p in PRECISIONS:
        amount, peak = flops[p].value, ceilings.flop_per_s[p]
        if amount is None:
            continue
        if nonzero(peak):
            util[p] = 100.0 * amount / duration / peak
        else:
            unroofed.append((p, ceilings.missing.get(p, "unknown"), amount))
    for level in LEVELS:
        amount, bw = moved[level].value, ceilings.bytes_per_s[level]
        if amount is None:
            gaps.append(f"{level} bytes: {moved[level].reason}")
        elif nonzero(bw):
            util[level] = 100.0 * amount / duration / bw
        else:
            gaps.append(f"{level} ceiling: {ceilings.missing.get(level, 'unknown')}")
    # a Tensor roof without tensor work is no roof the launch is at (its zero count is common to a cohort)
    if not util or all(p == "tensor" and shared(flops[p].value == 0) for p in util):
        reason = per_launch(_gaps_reason, "nothing to compare with a roof: ", tuple(unroofed), tuple(gaps), True)
        return RoofPosition(ceilings.source, None, None, {}, reason)
    limiter = roof_limiter(util, shown_pct)
    reason = per_launch(_gaps_reason, "partial: leaves out ", tuple(unroofed), tuple(gaps), False)
    return RoofPosition(ceilings.source, at_key(util, limiter), limiter, util, reason)


def roof_limiter(util: Mapping[str, Any], shown_pct: float = ROOF_SHOWN_PCT) -> Any:
    """The roof with the highest utilization; where every roof is under ``shown_pct`` (all print "0.0%"), the
    first of the memory levels, then the precisions, that has one: noise below what is shown no longer picks "FP64"
    for one launch and "DRAM" for its identical twin."""
    order = [k for k in (*LEVELS, *PRECISIONS) if k in util]
    shown = {k: where(util[k] < shown_pct, 0.0, util[k]) for k in order}
    return argmax_key(shown)


def _gaps_reason(lead: str, unroofed: tuple[tuple[str, str, float], ...], gaps: tuple[str, ...],
                 always: bool) -> str:
    """A launch's reason: ``lead`` and what its roof position leaves out, the precisions without a ceiling that it
    ran (FLOPs above zero) first; "" where nothing is left out, unless ``always``."""
    left_out = [f"{p} ceiling: {why}" for p, why, amount in unroofed if amount > 0] + list(gaps)
    return lead + "; ".join(left_out) if left_out or always else ""


def above_ceiling_flags(roof: RoofPosition) -> tuple[str, ...]:
    """Roofs the launch claims to beat: a measurement or counting problem, never a success."""
    return per_launch(_above_ceiling, roof.utilization_pct, roof.ceilings)


def _above_ceiling(utilization_pct: Mapping[str, float], ceilings: CeilingSet) -> tuple[str, ...]:
    return tuple(
        f"{key} at {pct:.0f}% of the {ceilings} ceiling: above the roof, so a measurement or counting "
        "problem (short kernel mixing replay passes, clocks above the ceiling's, or a miscounted metric)"
        for key, pct in utilization_pct.items() if pct > 100.0 + ABOVE_CEILING_TOLERANCE
    )


# --- A whole report -----------------------------------------------------------------------------------
def analyze_report(report: Report, spec: DeviceSpec | None = None, spec_match: str = "",
                   use: CeilingSet | None = None, group_by: GroupBy = "kernel") -> ReportAnalysis:
    """Analyse every launch, share of time and groups. ``use`` defaults to "kernel-clock" (the roofs at the clocks
    the kernel ran at). The valid launches are analysed per cohort (``roofline.core.cohorts``) and each launch's
    ``LaunchAnalysis`` is built when read (the pipeline adds the diagnostics and the advice after). ``group_by``
    says what a group of launches is (``GroupBy``)."""
    import numpy as np

    chosen = use or DEFAULT_CEILINGS
    launches = report.launches
    valid = [i for i, launch in enumerate(launches) if not launch.invalid]
    groups = [([valid[r] for r in rows], cohort) for rows, cohort in cohorts([launches[i] for i in valid],
                                                                             m.sign_tested)]
    durations = np.full(len(launches), np.nan)
    for rows, value in _per_cohort(groups, report.device, lambda c: m.duration_s(c).value):
        durations[rows] = np.nan if value is None else value
    known = durations[valid]
    known = known[~np.isnan(known)].tolist()
    total = sum(known) if known else None
    parts: list[tuple[Sequence[int], LaunchAnalysis]] = [
        *_per_cohort(groups, report.device, lambda c: analyze_launch(c, report.device, spec, chosen, total)),
        *(([i], invalid_launch(launch, spec, chosen)) for i, launch in enumerate(launches) if launch.invalid)]
    table = LaunchTable(launches, parts, launch_columns(launches, parts))
    every = table.all()
    return ReportAnalysis(report=report, spec_id=spec.id if spec else None, spec_match=spec_match,
                          ceilings_used=chosen, launches=every, total_time_s=total,
                          groups=group_by_kernel(every.where(~table.columns.invalid), total, group_by))


def analyze_launches(launches: Sequence[KernelLaunch], device: Device, spec: DeviceSpec | None = None,
                     use: CeilingSet | None = None) -> list[LaunchAnalysis]:
    """Valid launches analysed as ``analyze_report`` analyses them, but without their time share, the one figure
    that needs every launch of the report: for work on launches before the rest of their report is read."""
    chosen = use or DEFAULT_CEILINGS
    out: list[Any] = [None] * len(launches)
    groups = cohorts(launches, m.sign_tested)
    for rows, result in _per_cohort(groups, device, lambda c: analyze_launch(c, device, spec, chosen)):
        plan = launch_plan(result)
        for place, i in enumerate(rows):
            out[i] = take_launch(result, place, plan)  # as ``LaunchTable.row`` takes a launch out of its part
    return out


def _per_cohort(groups: Sequence[tuple[list[int], Cohort]], device: Device,
                fn: Callable[[KernelLaunch], T]) -> list[tuple[list[int], T]]:
    """``fn`` over each cohort (a cohort stands in for a launch) in parts that read the same tensor metrics
    (``tensor_parts``): each part's launches (positions in the report) and result."""
    import numpy as np

    run = cast("Callable[[Cohort], T]", fn)
    with np.errstate(all="ignore"):  # overflow to inf and 0/0 to NaN, silently, as with Python's floats
        return [([rows[at[i]] for i in within], run(sub)) for rows, cohort in groups
                for at, part in tensor_parts(cohort, device) for within, sub in flop_parts(part, device)]


def flop_parts(cohort: Cohort, device: Device) -> list[tuple[list[int], Cohort]]:
    """The cohort in parts whose launches agree on whether their measured FLOPs are all zero, each part with its
    positions in the cohort: ``intensity`` chooses between a value and "not measured" by it, and the FP16 FLOPs
    less the HFMA2 register moves (``ncu.metrics.cuda_core_flops``) can be zero in one launch and not in another
    holding the same metrics."""
    import numpy as np

    launch = cast("KernelLaunch", cohort)  # a cohort stands in for a launch in the formulas
    values = [m.cuda_core_flops(launch, p).value for p in ("fp64", "fp32", "fp16")]
    known = [np.asarray(v) == 0 for v in (*values, m.tensor_flops(launch, device)[0].value) if v is not None]
    zero = functools.reduce(np.logical_and, known) if known else False  # scalars (shared) and arrays broadcast
    return cohort.split(zero if np.ndim(zero) else bool(zero))


def tensor_parts(cohort: Cohort, device: Device) -> list[tuple[list[int], Cohort]]:
    """The cohort in parts whose launches read the same tensor metrics: the same main Tensor Core type
    (``main_tensor_type``) and the same peak metric of it (``m.tensor_peak_metric``), each part with its positions in
    the cohort. The only choice of metrics that differs between launches holding the same metrics."""
    def launch(c: Cohort) -> KernelLaunch:
        return cast("KernelLaunch", c)  # a cohort stands in for a launch in the formulas

    out = []
    for rows, part in cohort.split(main_tensor_type(m.tensor_flops(launch(cohort), device)[1])):
        dtype = shared(main_tensor_type(m.tensor_flops(launch(part), device)[1]))
        out += [([rows[i] for i in at], piece) for at, piece in part.split(m.tensor_peak_metric(launch(part), dtype))]
    return out


def launch_columns(launches: Sequence[KernelLaunch], parts: Sequence[tuple[Sequence[int], LaunchAnalysis]]) -> Columns:
    """The columns of a report's launches from the analyses of its parts (a cohort's, of arrays, or one launch's)."""
    import numpy as np

    n = len(launches)
    col = functools.partial(np.full, n, np.nan)
    duration, flops, moved = _figure(n), {p: _figure(n) for p in PRECISIONS}, {level: _figure(n) for level in LEVELS}
    pct, attained, whole, sm, memory, waves, instructions = col(), col(), col(), col(), col(), col(), col()
    bound, no_throughputs = np.full(n, None, dtype=object), np.full(n, "", dtype=object)
    moves, definitions = col(), {level: np.full(n, "", dtype=object) for level in LEVELS}
    roofs = {key: col() for key in (*PRECISIONS, *LEVELS)}
    tensor_dtype = np.full(n, None, dtype=object)
    units: dict[str, tuple[str, Side, np.ndarray]] = {}
    for rows, a in parts:
        at = np.asarray(rows, dtype=np.intp)
        for figure, value in ((duration, a.duration_s), *((flops[p], a.flops[p]) for p in PRECISIONS),
                              *((moved[level], a.bytes[level]) for level in LEVELS)):
            figure.values[at], figure.reasons[at], figure.vias[at] = _number(value.value), value.reason, value.via
        pct[at], bound[at] = _number(a.roof.pct_of_roof), a.verdict.bound
        attained[at], whole[at] = _number(a.verdict.attained_pct), _number(a.whole_blocks_pct)
        instructions[at] = _number(a.launch.value(m.INSTRUCTIONS))
        moves[at] = _number(m.hfma_move_flops(a.launch))
        for level, text in a.definitions.items():
            definitions[level][at] = text
        used = a.ceilings[a.roof.ceilings]
        for key in roofs:
            roofs[key][at] = _number(used.roof(key))
        tensor_dtype[at] = used.tensor_dtype
        t = throughputs(a.launch)
        if isinstance(t, NoThroughputs):
            no_throughputs[at] = t
            continue
        sm[at], memory[at], waves[at] = t.sm_pct, t.memory_pct, _number(t.waves_per_sm)
        for u in t.units:
            units.setdefault(u.metric, (u.name, u.side, col()))[2][at] = u.pct
    threads = np.array([None if launch.invalid else _number(m.launch_threads(launch)) for launch in launches],
                       dtype=float)  # an invalid launch's shape is not read: it may be no number at all
    invalid = np.array([bool(launch.invalid) for launch in launches], dtype=bool)
    saved = recoverable_time(duration.values, bound, pct, attained, whole)
    return Columns(duration, flops, moved, pct, bound, attained, saved, small_grid_time(duration.values, bound),
                   no_throughputs, sm, memory, waves, units, instructions, threads, invalid, moves, definitions, roofs,
                   tensor_dtype)


def _figure(n: int) -> Figure:
    import numpy as np

    return Figure(np.full(n, np.nan), np.full(n, "", dtype=object), np.full(n, "", dtype=object))


def _number(value: Any) -> Any:
    """A value for a float column: NaN for None."""
    return math.nan if value is None else value


# --- A report's ceilings ------------------------------------------------------------------------------------
CEILING_ORDER: tuple[CeilingSet, ...] = ("datasheet", "kernel-clock", "measured-clock", "calibrated")


def report_level_ceilings(launches: Sequence[LaunchAnalysis],
                          sources: Sequence[CeilingSet] = CEILING_ORDER) -> dict[CeilingSet, Ceilings]:
    """The ceilings of a whole report, one per set of ``sources`` its launches hold, the one figure every output
    shows: each roof the median over the launches weighted by their time (a launch counts for its time: short
    launches run at other clocks), the measured roofs only where any launch has one (a datasheet fallback is never
    mixed into a measured median), the tensor roof over the launches whose roof is for the Tensor Core type shown
    (``shown_tensor_dtype``). A set without any roof (the measured-clock set of a report without peak counters)
    takes its clock note from the launch at the time-weighted median SM clock, the launch the other sets' medians
    describe, not from the first launch."""
    dtype = shown_tensor_dtype(launches)
    out: dict[CeilingSet, Ceilings] = {}
    at_clock: LaunchAnalysis | None | bool = False  # the launch at the median clock, found when first needed
    clocks_apart = clocks_differ(launches)
    for source in sources:
        timed = [(k.ceilings[source], k.duration_s.value or 0.0) for k in launches if source in k.ceilings]
        if not timed:
            continue
        if at_clock is False and not any(c.roof(key) is not None for c, _ in timed for key in (*PRECISIONS, *LEVELS)):
            at_clock = at_the_median_clock(launches)
        lead = at_clock.ceilings.get(source) if isinstance(at_clock, LaunchAnalysis) else None
        out[source] = _median_set(source, timed, dtype, lead, clocks_apart)
    return out


def clocks_differ(launches: Sequence[LaunchAnalysis]) -> bool:
    """Whether the launches' measured SM clocks differ by more than ``SAME_ROOF`` (what a roof at those clocks
    would): the test of a set without any roof, whose notes give the clocks as rounded text."""
    clocks = [clock for k in launches
              if (clock := m.sm_clock_hz(k.launch).value) is not None and math.isfinite(clock) and clock > 0]
    return bool(clocks) and not math.isclose(min(clocks), max(clocks), rel_tol=SAME_ROOF)


def at_the_median_clock(launches: Sequence[LaunchAnalysis]) -> LaunchAnalysis | None:
    """The launch at the time-weighted median SM clock; None where no launch has a clock."""
    clocked = [(clock, k.duration_s.value or 0.0, k) for k in launches
               if (clock := m.sm_clock_hz(k.launch).value) is not None and math.isfinite(clock) and clock > 0]
    if not clocked:
        return None
    weights = [w if math.isfinite(w) and w > 0 else 0.0 for _, w, _ in clocked]
    median = weighted_median([c for c, _, _ in clocked], weights)
    return next((k for clock, _, k in clocked if clock == median), None)


def _median_set(source: CeilingSet, timed: Sequence[tuple[Ceilings, float]], dtype: str,
                at_median_clock: Ceilings | None = None, clocks_apart: bool = False) -> Ceilings:
    sets = [c for c, _ in timed]
    same_type = [(c, w) for c, w in timed if c.tensor_dtype == dtype] or list(timed)
    roofs = {key: _weighted_roof(same_type if key == "tensor" else timed, key) for key in (*PRECISIONS, *LEVELS)}
    flops = {p: roofs[p][0] for p in PRECISIONS}
    bandwidth = {level: roofs[level][0] for level in LEVELS}
    shown = {key: value for key, (value, _) in roofs.items()}
    lead = _at_the_median([c for c, _ in same_type], shown, at_median_clock)
    # no roof to compare: the launches' measured clocks tell whether they ran at different clocks
    differ = roofs_differ(sets, shown, lead.tensor_dtype) if any(v is not None for v in shown.values()) else \
        clocks_apart
    pooled = POOLED_NOTE.format(len(sets)) if differ else ""
    note = "; ".join(part for part in (lead.clock_note, pooled) if part)
    missing = {key: why for c in reversed(sets) for key, why in c.missing.items() if roofs[key][0] is None}
    scaled = {key: _nearest(sets, key, roofs[key][0]).scaled[key] for key in (*PRECISIONS, *LEVELS) if roofs[key][1]}
    unscaled = tuple(dict.fromkeys(key for c in sets for key in c.unscaled if roofs[key][1]))
    collect = {key: how for c in reversed(sets) for key, how in c.collect.items() if key in missing}
    return Ceilings(source, flops, bandwidth, clock_note=note, tensor_dtype=lead.tensor_dtype, missing=missing,
                    scaled=scaled, unscaled=unscaled, clock=lead.clock, collect=collect, sm_clock_hz=lead.sm_clock_hz)


# The note on roofs that are medians over launches whose own roofs differ, in one place: the report's clock note
# (JSON ``clock_note``) and the renderers' note on roofs taken from the datasheet; the number of launches fills it.
POOLED_NOTE = "each roof the time-weighted median of {} launches, which ran at different clocks"


def roofs_differ(sets: Sequence[Ceilings], shown: Mapping[str, float | None], dtype: str | None = None) -> bool:
    """Whether any launch's roof differs from the one shown for it (``shown``: the report's, by key), whatever the
    roof's source (a peak counter or the datasheet scaled to the launch's clock): each launch's percent of roof
    uses its own. The Tensor roof is compared on the launches of the Tensor Core type shown (``dtype``) only: the
    others' is another type's roof, not another clock's."""
    return any(not math.isclose(roof, value, rel_tol=SAME_ROOF) for c in sets for key, value in shown.items()
               if value is not None and (roof := c.roof(key)) is not None
               and (key != "tensor" or dtype is None or c.tensor_dtype == dtype))


def tensor_median(timed: Sequence[tuple[Ceilings, float]]) -> float | None:
    """The tensor roof over launches of one Tensor Core type with their times, as ``report_level_ceilings`` takes
    the report's (the time-weighted median, ``_weighted_roof``)."""
    return _weighted_roof(timed, "tensor")[0]


def _weighted_roof(timed: Sequence[tuple[Ceilings, float]], key: str) -> tuple[float | None, bool]:
    """One roof over launches: the time-weighted median of the launches' measured roofs (not taken from the
    datasheet, ``Ceilings.scaled``), else of their datasheet fallbacks; and whether it is a fallback. Launches
    without a time count once each where none has one."""
    known = [(roof, w, key in c.scaled) for c, w in timed if (roof := c.roof(key)) is not None]
    own = [(v, w) for v, w, fallback in known if not fallback]
    chosen, fallback = (own, False) if own else ([(v, w) for v, w, _ in known], True)
    if not chosen:
        return None, False
    return weighted_median([v for v, _ in chosen if v is not None], [w for _, w in chosen]), fallback and bool(known)


def weighted_median(values: Sequence[float], weights: Sequence[float]) -> float:
    """The value at half the total weight (values sorted; the lower one at an exact half); the plain median where
    no weight is positive."""
    if not any(w > 0 for w in weights):
        return cast(float, median_known(list(values)))
    pairs = sorted(zip(values, weights, strict=True))
    half, acc = sum(w for _, w in pairs) / 2.0, 0.0
    for value, weight in pairs:
        acc += weight
        if acc >= half:
            return value
    return pairs[-1][0]


def _nearest(sets: Sequence[Ceilings], key: str, median: float | None) -> Ceilings:
    """Of the sets that took roof ``key`` from the datasheet, the one whose roof is nearest ``median``: its scaling
    (the factor, the clocks) is the one the report's roof shows."""
    scaled = [c for c in sets if key in c.scaled]
    return min(scaled, key=lambda c: abs((c.roof(key) or 0.0) - (median or 0.0)))


def _at_the_median(sets: Sequence[Ceilings], roofs: Mapping[str, float | None],
                   at_median_clock: Ceilings | None = None) -> Ceilings:
    """The set whose first known roof is nearest its median: the launch at the median clock, whose clock note
    describes the median roofs; where no roof is known, ``at_median_clock`` (the launch at the time-weighted median
    SM clock), else the first set."""
    key = next((k for k in (*PRECISIONS, *LEVELS) if roofs.get(k) is not None), None)
    median = roofs.get(key) if key is not None else None
    if key is None or median is None:
        return at_median_clock if at_median_clock is not None else sets[0]
    known = [c for c in sets if c.roof(key) is not None]
    return min(known, key=lambda c: abs(cast(float, c.roof(key)) - median), default=sets[0])


def shown_tensor_dtype(launches: Sequence[LaunchAnalysis]) -> str:
    """The Tensor Core type a report's tensor roof is shown for: the one most launches that ran tensor instructions
    compute in, else the first launch's, else FP16."""
    used = [dtype for k in launches if k.flops["tensor"].value and (dtype := k.ceilings["measured-clock"].tensor_dtype)]
    if used:
        return Counter(used).most_common(1)[0][0]  # on a tie, the type met first
    return next((k.ceilings["measured-clock"].tensor_dtype for k in launches), None) or "fp16"


def median_known(values: Sequence[float | None]) -> float | None:
    """Median of the values that were measured (the middle one, or the mean of the two middle ones); None when none
    was. Sorted here: numpy's median imports numpy.ma (10 ms) and the statistics module costs 6 ms of imports."""
    known = sorted(v for v in values if v is not None)
    if not known:
        return None
    middle = len(known) // 2
    return float(known[middle] if len(known) % 2 else (known[middle - 1] + known[middle]) / 2)


def group_by_kernel(launches: Launches, total_s: float | None, by: GroupBy = "kernel") -> tuple[KernelGroup, ...]:
    """Group launches by kernel (demangled name), function name or innermost NVTX range (``GroupBy``), largest total
    time first."""
    groups_of: dict[str, list[int]] = {}
    for i, launch in zip(launches.indices.tolist(), launches.kernel_launches, strict=True):
        groups_of.setdefault(_group_key(launch, by), []).append(i)
    groups = [_group(name, launches.table.view(rows), total_s, by) for name, rows in groups_of.items()]
    return tuple(sorted(groups, key=lambda g: -(g.total_s or 0.0)))


def _group_key(launch: KernelLaunch, by: GroupBy) -> str:
    if by == "nvtx":
        return " > ".join(launch.nvtx_ranges) or "(no NVTX range)"
    return kernel_key(launch.name, launch.demangled_name) if by == "kernel" else launch.name


def recoverable_time(duration: np.ndarray, bound: np.ndarray, pct_of_roof: np.ndarray,
                     attained: np.ndarray, whole_blocks: np.ndarray) -> np.ndarray:
    """Time each launch would save with its busiest unit at its peak: duration x (1 - attained / 100), where
    attained is the highest of percent of roof, the SM and memory throughputs (a unit busy X% of the time bounds the
    run time to X% of it for the same work) and the busiest unit in the SMs in whole blocks per SM
    (``verdict.whole_blocks_pct``: the SM with the most blocks does its share in the same time, the time model's
    tail), never below 0 nor more than the duration above the launch floor (no launch is shorter,
    ``LAUNCH_FLOOR_S``); NaN without a duration or any of the four. A small-grid launch is held back by its few
    blocks, not by a unit's peak: 0 here, its time is ``small_grid_time``."""
    import numpy as np

    above_floor = np.maximum(0.0, duration - LAUNCH_FLOOR_S)
    most = np.fmax(np.fmax(pct_of_roof, attained), whole_blocks)
    saved = np.minimum(duration * np.maximum(0.0, 1.0 - most / 100.0), above_floor)
    return np.where(np.isnan(duration), np.nan, np.where(bound == "small_grid", 0.0, saved))


def small_grid_time(duration: np.ndarray, bound: np.ndarray) -> np.ndarray:
    """The time of each small-grid launch (too few blocks to fill the GPU: the grid, not a unit's peak, sets
    it), 0 for the other launches with a verdict, NaN for a launch without a time or a verdict (whether it is a
    small grid is not known)."""
    import numpy as np

    known = ~np.isnan(duration) & ~is_none(bound)
    return np.where(known, np.where(bound == "small_grid", duration, 0.0), np.nan)


def recoverable_s(launch_analysis: LaunchAnalysis) -> float | None:
    """A launch's recoverable time: where it has a time model, the time above its floor at the peaks a kernel can
    reach (``TimeModel.within_reach``: the grade's most saved, one definition of the busiest unit for both), else
    ``recoverable_time`` of its throughputs; 0 for a small grid either way (its time is counted apart)."""
    saved = _recoverable(launch_analysis, launch_analysis.verdict.bound)
    model = launch_analysis.time_model
    return model.within_reach(saved) if saved is not None and model is not None else saved


def ridge_point(analysis: LaunchAnalysis) -> tuple[float | None, str | None]:
    """Ridge point of the main precision's ceiling against the limiting memory level's roof, and that precision."""
    c, precision = analysis.ceilings.get(analysis.roof.ceilings), analysis.main_precision
    if c is None or precision is None or analysis.roof.limiter not in LEVELS:
        return None, precision
    peak, bandwidth = c.flop_per_s[precision], c.bytes_per_s[analysis.roof.limiter]
    return (roof_intensity(peak, bandwidth) if peak and bandwidth else None), precision


def attained_pct(analysis: LaunchAnalysis, whole_blocks: bool = True) -> float | None:
    """How close the launch is to a peak: the highest of its percent of roof, its SM and memory throughputs and
    (``whole_blocks``) its busiest unit in the SMs in whole blocks per SM (the figure ``recoverable_time`` takes),
    None when none is measured."""
    known = [v for v in (analysis.roof.pct_of_roof, analysis.verdict.attained_pct,
                         analysis.whole_blocks_pct if whole_blocks else None) if v is not None and not math.isnan(v)]
    return max(known) if known else None


def gap_formula(analysis: LaunchAnalysis, whole_blocks: bool = True) -> str:
    """How ``headroom_s`` and ``recoverable_s`` are obtained for this launch, as the estimates quote it: on its time
    model, measured minus the floor at the peaks a kernel can reach, that floor's term named with its time and the
    peak it is at (with the blocks spread evenly without ``whole_blocks``); without one, the gap to the busiest
    unit's peak (in whole blocks per SM where that binds and ``whole_blocks``), and where it binds, the launch
    floor."""
    floor = reach_floor_text(analysis, whole_blocks)
    if floor:
        return f"measured - {floor}"
    attained, duration = attained_pct(analysis, whole_blocks), analysis.duration_s.value
    binds = whole_blocks and attained is not None and attained != attained_pct(analysis, False)
    text = f"duration x (1 - {pct(attained)}{WHOLE_BLOCKS_WORDS if binds else ''})"
    if attained is not None and duration and duration * (1 - attained / 100) > duration - LAUNCH_FLOOR_S:
        text += f", at most duration - the {seconds(LAUNCH_FLOOR_S)} launch floor"
    return text


def reach_floor_text(analysis: LaunchAnalysis, whole_blocks: bool = True) -> str:
    """The launch's floor at the peaks a kernel can reach, as the advice names it: "the floor at the peaks a kernel
    can reach (DRAM, 4.65 ms, at its achievable bandwidth)" (its term, its time and the peak it is at; the blocks
    spread evenly without ``whole_blocks``); "" without a time model that has one."""
    model = analysis.time_model
    floor = model.reach_floor_term(whole_blocks) if model is not None else None
    if floor is None:
        return ""
    return f"the floor at the peaks a kernel can reach ({floor.name}, {seconds(floor.reach_s)}{_peak_words(floor)})"


WHOLE_BLOCKS_WORDS = ", the busiest unit in the SMs in whole blocks per SM"
# The peak a floor term's time is at, as the estimates quote it (``Term.peak_kind``; the datasheet's says nothing).
PEAK_WORDS = {PeakKind.CALIBRATED: "at its calibrated roof", PeakKind.ACHIEVABLE: "at its achievable bandwidth",
              PeakKind.REACHED: "at the bandwidth the launch itself reached"}


def _peak_words(term: Term) -> str:
    """", at its achievable bandwidth" and the like for a floor term measured to a peak below the datasheet's; ""
    for the datasheet's peak and the launch floor."""
    words = PEAK_WORDS.get(term.peak_kind) if term.achievable_s is not None and term.kind != "launch" else None
    return f", {words}" if words else ""


def headroom_s(analysis: LaunchAnalysis, whole_blocks: bool = True) -> float | None:
    """The most that hiding latency or raising occupancy can save, small grids included, since neither lets a unit
    run past the peak it can reach: on the launch's time model, the time above its floor at those peaks
    (``TimeModel.reach_gap``, the figure of the verdict's own item and the grade); without one, the gap to the
    busiest unit's peak (``recoverable_time`` without its small-grid rule). Without ``whole_blocks``, with the
    blocks spread evenly over the SMs: what a change of the grid, which takes the tail of whole blocks away, is held
    to."""
    model = analysis.time_model
    gap = model.reach_gap(whole_blocks) if model is not None else None
    return gap if gap is not None else _recoverable(analysis, None, whole_blocks)


def _recoverable(analysis: LaunchAnalysis, bound: str | None, whole_blocks: bool = True) -> float | None:
    return _recoverable_of(analysis.duration_s.value, bound, analysis.roof.pct_of_roof, analysis.verdict.attained_pct,
                           analysis.whole_blocks_pct if whole_blocks else None)


@functools.lru_cache(maxsize=4096)
def _recoverable_of(duration: float | None, bound: str | None, pct_of_roof: float | None, attained: float | None,
                    whole_blocks: float | None) -> float | None:
    """``recoverable_time`` of one launch's figures (None where unmeasured): the advice and the view ask for each
    launch's several times, so each set of figures is worked out once."""
    import numpy as np

    saved = recoverable_time(
        np.array([_number(duration)]),
        np.array([bound], dtype=object),
        np.array([_number(pct_of_roof)]),
        np.array([_number(attained)]),
        np.array([_number(whole_blocks)]),
    )
    return None if np.isnan(saved[0]) else float(saved[0])


def rank_by_recoverable_time(groups: Sequence[KernelGroup]) -> list[KernelGroup]:
    """Groups with the most recoverable time first; groups without a roof position last."""
    return sorted(groups, key=lambda g: (g.recoverable_s is None, -(g.recoverable_s or 0.0)))


def _group(name: str, launches: Launches, total_s: float | None, by: GroupBy = "kernel") -> KernelGroup:
    c, at = launches.table.columns, launches.indices
    times, pcts, saved, small = (measured(values[at]) for values in (c.duration.values, c.pct_of_roof,
                                                                      c.recoverable, c.small_grid))
    total = sum(times) if times else None
    return KernelGroup(
        name=name, launches=launches, total_s=total,
        median_s=median_known(times),
        min_s=min(times) if times else None, max_s=max(times) if times else None,
        time_share=total / total_s if total is not None and total_s else None,
        median_pct_of_roof=median_known(pcts),
        recoverable_s=sum(saved) if saved else None,
        small_grid_s=sum(small) if small else None,
        functions=tuple(dict.fromkeys(launch.name for launch in launches.kernel_launches)), by=by,
    )


def measured(values: np.ndarray) -> list[float]:
    """The measured values of a column (not NaN), in order, as floats."""
    import numpy as np

    found: list[float] = values[~np.isnan(values)].tolist()
    return found


# --- Several reports of one job (MPI ranks) ----------------------------------------------------------
def spread_across_reports(analyses: Sequence[ReportAnalysis], threshold_pct: float) -> tuple[KernelSpread, ...]:
    """Per kernel name some report ran, its total time in each report that ran it (``total_s``: a report that did
    not is left out, the kernel missing there; None where it ran without a measured time) and the spread over
    those, flagged where it passes ``threshold_pct`` (a rank that is slower) or the kernel is missing from a report
    (a rank that runs a kernel the others do not). Only for reports of one GPU model where some kernel is in two of
    them; otherwise empty, ``across_reports_note`` saying why."""
    if len(analyses) < 2 or not _shared_kernel(analyses) or _not_compared(analyses):
        return ()
    paths = {a.report.path for a in analyses}
    spreads = []
    for name in dict.fromkeys(g.name for a in analyses for g in a.groups):
        totals = {a.report.path: g.total_s for a in analyses for g in a.groups if g.name == name}
        known = [t for t in totals.values() if t is not None]
        spread = 100.0 * (max(known) - min(known)) / min(known) if len(known) > 1 and min(known) > 0 else None
        missing = len(totals) < len(paths)
        spreads.append(KernelSpread(name, totals, spread, missing or (spread is not None and spread > threshold_pct)))
    return tuple(spreads)


def across_reports_note(analyses: Sequence[ReportAnalysis], spreads: Sequence[KernelSpread]) -> str:
    """Why several reports' kernels are not compared where some kernel is in two of them (``spreads`` empty: the
    reports come from different GPU models); "" where they are compared, for a single report, and for reports with
    no kernel in common (other programs, not ranks of one job: nothing to compare, nothing to say)."""
    if spreads or len(analyses) < 2 or not _shared_kernel(analyses):
        return ""
    why = _not_compared(analyses)
    return f"kernels not compared: {why}" if why else ""


def _shared_kernel(analyses: Sequence[ReportAnalysis]) -> bool:
    """Whether some kernel name is in two of the reports."""
    runs = Counter(name for a in analyses for name in {g.name for g in a.groups})
    return any(n > 1 for n in runs.values())


def _not_compared(analyses: Sequence[ReportAnalysis]) -> str:
    """Why the reports' kernel times say nothing of one another: different GPU models (each report numbered in the
    order given); "" for reports of one GPU model."""
    gpus: dict[str, list[str]] = {}
    for i, a in enumerate(analyses, 1):
        gpus.setdefault(a.device.name, []).append(str(i))
    if len(gpus) > 1:
        return "they come from different GPUs (" + "; ".join(
            f"{'reports' if len(n) > 1 else 'report'} {', '.join(n)}: {gpu}" for gpu, n in gpus.items()) + ")"
    return ""
