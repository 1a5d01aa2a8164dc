"""A kernel's launches in one report, pooled (``KernelStats``), for comparisons, rankings and plots.

FLOPs per precision, bytes per level and time are summed over the launches; rates are summed amount / summed
time (the time-weighted mean); intensity is summed FLOPs / summed bytes; percent of roof comes from
``roofline.roof_position`` on the sums against the ceilings of the group's median-duration launch, i.e. the
ceilings that report was analysed with (its own GPU's), each roof weighted by the launches' times where their
clocks give them different roofs (``pooled_ceilings``), and the verdict from the launches' throughputs averaged
over their time (``verdict.pooled_verdict``). Times per launch are the mean, total / count.

Roof time ``T_roof = max(F_p / peak_p over precisions, B_l / BW_l over levels)``: the shortest time the roofs allow
for the measured work (``roof_time``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from msgspec import Struct, field
from msgspec.structs import replace

from roofline.analysis.hotspots import line_samples
from roofline.analysis.launches import Columns, Figure, Launches
from roofline.analysis.plot_place import Place, plain_place, roof_place
from roofline.analysis.results import LaunchAnalysis, RoofPosition, Value, Verdict, total_flops
from roofline.analysis.roofline import intensity, measured, median_known, rate, roof_position
from roofline.analysis.verdict import busy_units, pooled_verdict
from roofline.analysis.work import Work, launch_work
from roofline.core.model import LEVELS, PRECISIONS, Ceilings
from roofline.ncu import metrics as m

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

REFERENCE_S = 1.0  # roof_position's percent at a 1 s reference duration is the roof time in 1/100 s


class KernelStats(Struct, frozen=True):
    """A kernel's launches in one report, aggregated (sums, rates, intensity, roof; see module docstring)."""

    names: tuple[str, ...]
    count: int
    total_s: Value
    median_s: Value
    per_launch_s: Value
    flops: Mapping[str, Value]
    flop_per_s: Mapping[str, Value]
    bytes: Mapping[str, Value]
    bytes_per_s: Mapping[str, Value]
    intensity: Mapping[str, Value]
    ceilings: Ceilings
    roof: RoofPosition
    verdict: Verdict
    roof_time_s: Value  # per launch
    attainable_flop_per_s: Value
    durations_s: tuple[float, ...] = ()  # each launch's time, for the noise statistics (launches with a time)
    work: Work | None = None  # per launch
    datasheet: Ceilings | None = None  # its GPU's datasheet roofs (the median launch's), where a spec gives them
    sm_clock_hz: Value = Value(None, "not read")  # the SM clock the median launch ran at (ncu's measurement)
    dram_pct: float | None = None  # the median launch's DRAM at percent of its peak (its busiest DRAM unit)
    shared_mem_per_block_bytes: int | None = None  # the most any launch's blocks asked for, the driver's part included

    @property
    def why_no_roof(self) -> str:
        """Why the kernel has no percent of roof; short when the report has no FLOP or byte counter at all."""
        if all(v.value is None for v in (*self.flops.values(), *self.bytes.values())):
            head = "times only, the report has no" if self.durations_s else "no launch time nor"
            return f"{head} FLOP or byte counters ({self.flops['fp32'].reason})"
        return self.roof.reason
    line_samples: Mapping[str, int] = field(default_factory=dict)  # warp samples per source line, all launches
    total_flop_per_s: float | None = None  # all FLOP/s (every precision measured; ``total_flops`` of the rates)
    # its place on the comparison and summary plots: plain (``plain_place``) and normalized (``roof_place``)
    place: Place = Place.NO_INTENSITY
    normalized_place: Place = Place.NO_ROOF
    bound_precision: str | None = None  # the precision whose ceiling binds it (``bound_precision``)

    @property
    def name(self) -> str:
        return " | ".join(self.names)


def aggregate(launches: Launches) -> KernelStats:
    """Sum a kernel's launches into one ``KernelStats`` (rates from the sums, roof of the sums), from the report's
    columns; only the median-duration launch's analysis is built (its ceilings)."""
    c, at = launches.table.columns, launches.indices
    total = _sum(c.duration, at)
    times = measured(c.duration.values[at])
    flops = {p: _sum(c.flops[p], at) for p in PRECISIONS}
    moved = {level: _sum(c.bytes[level], at) for level in LEVELS}
    median = _median_launch(launches)
    ceilings = pooled_ceilings(median.ceilings[median.roof.ceilings], c, at)
    duration = Value(total.value, via=total.via if total.value is not None else total.reason)
    flop_per_s = {p: rate(v, duration) for p, v in flops.items()}
    roof_s = roof_time(flops, moved, ceilings)
    roof = roof_position(flops, moved, total.value, ceilings)
    intensities, all_flop_per_s = intensity(flops, moved), total_flops(flop_per_s)
    return KernelStats(
        names=tuple(dict.fromkeys(launch.name for launch in launches.kernel_launches)), count=len(launches),
        total_s=total, median_s=Value(median_known(times)) if total.value is not None else total,
        per_launch_s=per_launch(total, len(launches)),
        flops=flops, flop_per_s=flop_per_s,
        bytes=moved, bytes_per_s={level: rate(v, duration) for level, v in moved.items()},
        intensity=intensities, ceilings=ceilings,
        roof=roof, verdict=pooled_verdict(launches, roof),
        roof_time_s=per_launch(roof_s, len(launches)), attainable_flop_per_s=attainable_flop_per_s(flops, roof_s),
        durations_s=tuple(times), work=launch_work(launches), datasheet=median.ceilings.get("datasheet"),
        line_samples=line_samples(launches.kernel_launches), sm_clock_hz=_clock(median), dram_pct=_dram_pct(median),
        shared_mem_per_block_bytes=max((k.shared_mem_per_block_bytes for k in launches.kernel_launches
                                        if k.shared_mem_per_block_bytes is not None), default=None),
        total_flop_per_s=all_flop_per_s, place=plain_place(intensities["dram"].value, all_flop_per_s),
        normalized_place=roof_place(roof.pct_of_roof), bound_precision=bound_precision(flops, roof))


def bound_precision(flops: Mapping[str, Value], roof: RoofPosition) -> str | None:
    """The precision whose ceiling binds the kernel: the highest utilization among the precisions it has FLOPs in
    (the one whose FLOPs take longest at their peak); its main precision when no utilization is known."""
    used = [p for p in PRECISIONS if flops[p].value]
    util = {p: roof.utilization_pct[p] for p in used if p in roof.utilization_pct}
    if util:
        return max(util, key=lambda p: util[p])
    return max(used, key=lambda p: flops[p].value or 0.0) if used else None


def pooled_ceilings(median: Ceilings, columns: Columns, at: np.ndarray) -> Ceilings:
    """The median launch's ceilings, each roof it has replaced by the launches' own roofs weighted by their time
    (sum of roof x time / summed time; the Tensor roof over the launches of the median's Tensor Core type): the
    work the roofs allow over the kernel's time, so that the pooled percent of roof never exceeds the highest
    launch's where their clocks, and so their roofs, differ (said in the clock note)."""
    import numpy as np

    times = columns.duration.values[at]
    weighted: list[str] = []

    def roof(key: str) -> float | None:
        own, values = median.roof(key), columns.roofs[key][at]
        known = ~np.isnan(values) & (times > 0)
        if key == "tensor":
            known &= columns.tensor_dtype[at] == median.tensor_dtype
        if own is None or not known.any() or (values[known] == values[known][0]).all():
            return own
        weighted.append(key)
        return float((values[known] * times[known]).sum() / times[known].sum())

    flops, moved = {p: roof(p) for p in PRECISIONS}, {level: roof(level) for level in LEVELS}
    if not weighted:
        return median
    note = f"{median.clock_note}; roofs weighted by the launches' times (their clocks differ)"
    return replace(median, flop_per_s=flops, bytes_per_s=moved, clock_note=note, clock=median.clock)


def _dram_pct(k: LaunchAnalysis) -> float | None:
    """The DRAM's percent of its peak in a launch: the busiest DRAM unit of its SpeedOfLight breakdowns (None
    without them)."""
    dram = [u.pct for u in busy_units(k.launch) if m.UNIT_LEVELS.get(u.metric.split("__", 1)[0]) == "dram"]
    return max(dram, default=None)


def _clock(k: LaunchAnalysis) -> Value:
    """The SM clock a launch ran at (``metrics.sm_clock_hz``), or why not."""
    return Value.of(m.sm_clock_hz(k.launch))


def roof_time(flops: Mapping[str, Value], moved: Mapping[str, Value], ceilings: Ceilings) -> Value:
    """T_roof = max(F_p / peak_p, B_l / BW_l): ``roof_position`` at a 1 s reference duration, so no new formula."""
    roof = roof_position(flops, moved, REFERENCE_S, ceilings, shown_pct=0.0)  # a reference time: no tie by display
    if roof.pct_of_roof is None:
        return Value(None, roof.reason)
    return Value(roof.pct_of_roof / 100.0 * REFERENCE_S, reason=roof.reason, via=f"limited by {roof.limiter}")


def attainable_flop_per_s(flops: Mapping[str, Value], roof_s: Value) -> Value:
    """Attainable FLOP/s at the kernel's intensity = FLOPs / T_roof (= min(peak, AI x BW) for one precision)."""
    known = [v.value for v in flops.values() if v.value is not None]
    if not known:
        return Value(None, "no FLOP count: " + next((v.reason for v in flops.values() if v.reason), ""))
    if sum(known) == 0:
        return Value(None, "no floating-point work: the kernel is judged on bandwidth only")
    if not roof_s.value:
        return Value(None, roof_s.reason or "no roof time")
    return Value(sum(known) / roof_s.value, via="FLOPs / roof time")


def _sum(figure: Figure, at: np.ndarray) -> Value:
    """Sum over launches (in their order); None (with the first missing launch's reason) when any lacks it."""
    import numpy as np

    values = figure.values[at]
    gaps = np.flatnonzero(np.isnan(values))
    if len(gaps):
        return Value(None, figure.reasons[at[gaps[0]]] or "not measured")
    return Value(sum(values.tolist()), via=figure.vias[at[0]] if len(at) else "")


def per_launch(total: Value, count: int) -> Value:
    return Value(total.value / count, total.reason, total.via) if total.value is not None else total


def _median_launch(launches: Launches) -> LaunchAnalysis:
    """The launch of median duration (the lower of the two middle ones; a launch without one counts as 0)."""
    import numpy as np

    return launches[int(np.argsort(launches.times, kind="stable")[(len(launches) - 1) // 2])]
