"""One view per report: everything the renderers of a report show, decided here so that they only format it.

``report_view`` takes a report's analysis and picks what is shown: the report-level ceilings, the roofs taken from
the datasheet, the kernel ranking, the kernels advised (and for each the advice items, the hot spots with their
source listing and the ridge point), each launch's recoverable time, each kernel's pooled figures for the plot, and
why values are n/a (``Unavailable``: a cause, the values it leaves out, the metrics missing and the option that
collects them). The verdicts stay data (``Verdict``): their sentences are the renderers' prose. ``report_set``
adds, for several reports of one job, each kernel's spread across them. A renderer reads only these fields (and
the result types they hold).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal, get_args

from msgspec import Struct
from msgspec.structs import replace

from roofline.analysis.advice import kernels_to_advise, rank_by_time_to_gain, time_to_gain
from roofline.analysis.diagnostics.stalls import describe
from roofline.analysis.diagnostics.tensor_cores import has_tensor_cores
from roofline.analysis.hotspots import context, top_rows
from roofline.analysis.kernels import KernelStats, aggregate
from roofline.analysis.launches import KernelGroup, KernelSpread, Launches, ReportAnalysis
from roofline.analysis.ncu_rules import clean_rule_text
from roofline.analysis.reconcile import worth_showing
from roofline.analysis.results import Advice, Cause, HotRow, LaunchAnalysis, Value
from roofline.analysis.roofline import (
    across_reports_note,
    rate,
    recoverable_s,
    report_level_ceilings,
    ridge_point,
    roofs_differ,
    spread_across_reports,
)
from roofline.core.labels import NAMES
from roofline.core.model import LEVELS, PRECISIONS, Ceilings, CeilingSet
from roofline.core.thresholds import BANDWIDTH_VIEW_SHARE
from roofline.errors import LeftOutCause
from roofline.ncu.metrics import COLLECT_HINTS, FlopNote

CEILING_SETS: tuple[CeilingSet, ...] = get_args(CeilingSet)
SKIPPED_RULE_KINDS = ("ok",)  # ncu rule results not listed under a kernel


class Unavailable(Struct, frozen=True):
    """One reason for n/a values and what it leaves out: the values (("FLOPs", "FP64"), ("duration", "")), the
    launches it affects (keys), and as data its cause, the metrics missing and the option that collects them;
    ``detail`` is the analysis's own line where the cause is not missing metrics."""

    cause: Cause
    values: tuple[tuple[str, str], ...]
    launches: frozenset[str]
    missing: tuple[str, ...] = ()
    collect: str = ""  # the ncu option that collects the missing metrics ("re-profile with --set full")
    detail: str = ""


class HotSpot(Struct, frozen=True):
    """One hot line (or instruction) of an advised kernel and the report's source text around it."""

    row: HotRow
    listing: tuple[tuple[int, str], ...]


class RuleMessage(Struct, frozen=True):
    """One of ncu's rule results for a launch, its message as plain text."""

    kind: str
    title: str
    text: str


class AdvisedKernel(Struct, frozen=True):
    """A kernel whose advice is shown, for its longest launch: all its items, the ones the terminal shows (worth
    showing), its hot spots, its ridge point, what its warps wait on (each stall reason and its plain name) and
    ncu's rule messages."""

    group: KernelGroup
    advice: tuple[Advice, ...]
    brief: tuple[Advice, ...]
    hotspots: tuple[HotSpot, ...]
    ridge: float | None
    ridge_precision: str | None
    stall_names: tuple[tuple[str, str], ...]
    rules: tuple[RuleMessage, ...]
    notes: tuple[FlopNote, ...] = ()  # the longest launch's notes on what it ran (``shown_notes``)
    gain: float | None = None  # the kernel's time to gain (``advice.time_to_gain``)
    l2_all_traffic_per_s: float | None = None  # all L2 traffic per second, where the L2 bytes are another count

    @property
    def longest(self) -> LaunchAnalysis:
        return self.group.longest


class LevelPoint(Struct, frozen=True):
    """A kernel's timed launches pooled, at one memory level, where the roofline plot places them: FLOP per byte
    there and FLOP/s of all counted precisions (None without FLOPs), bytes/s, and per ceiling set the percent of
    that level's roof (``level_roof``; absent where the level has none: drawn hollow). ``all_traffic``: the L2
    point at all L2 traffic, where the report's L2 definition counts none of the kernel's bytes (no roof counts
    it)."""

    level: str
    intensity: float | None
    flop_per_s: float | None
    bytes_per_s: float | None
    roof_pct: Mapping[CeilingSet, float] = {}
    all_traffic: bool = False


class PooledPoints(Struct, frozen=True):
    """A kernel's place on the roofline plot: the FLOP/s of all counted precisions of its timed launches pooled
    (None where no precision's FLOPs are measured), and its points, level by level in the hierarchy's order."""

    flop_per_s: float | None
    points: tuple[LevelPoint, ...]


class ScaledRoofs(Struct, frozen=True):
    """The kernel-clock roofs taken from the datasheet (no peak counter in the report), and those of them left
    unscaled (no measured clock), each in the order of PRECISIONS then LEVELS."""

    roofs: tuple[str, ...]
    unscaled: tuple[str, ...]
    every: bool = False  # every roof the set holds came from the datasheet: the report gave it no peak counter
    pooled: int = 0  # with ``every`` (no clock note shown): the launches whose differing roofs the shown are medians of
    at_max_clock: bool = False  # no launch has a measured SM clock: the scaled roofs went to the GPU's maximum clock


class DetailPlots(Struct, frozen=True):
    """Whether a kernel's longest launch has a place on each detail plot of its report (``detail_plots``)."""

    instruction: bool | None  # a rate with an intensity at some level or a wall; None: no instruction roofline
    memory: bool  # L1 or L2 hit rates measured
    occupancy: bool  # the occupancy calculator's inputs: the launch shape and the SM's limits


class ReportView(Struct, frozen=True):
    """What every output of one report shows (see the module docstring); per-launch tuples follow
    ``analysis.launches``, ``pooled`` follows ``analysis.groups``."""

    analysis: ReportAnalysis
    ceilings: Mapping[CeilingSet, Ceilings]
    scaled: ScaledRoofs | None
    ranking: tuple[KernelGroup, ...]  # every kernel, the most time to gain first (``advice.rank_by_time_to_gain``)
    advised: tuple[AdvisedKernel, ...]
    recoverable_s: tuple[float | None, ...]
    pooled: tuple[KernelStats | None, ...]
    unavailable: tuple[Unavailable, ...]
    roof_keys: tuple[str, ...] = (*PRECISIONS, *LEVELS)  # the ceilings rows shown (``roofs_run``)
    notes: tuple[FlopNote, ...] = ()  # the launches' notes on what they ran, each once (``shown_notes``)
    gains: tuple[float | None, ...] = ()  # per ``ranking`` entry, its time to gain (``advice.time_to_gain``)
    points: tuple[PooledPoints | None, ...] = ()  # per kernel (``pooled``), its place on the plot
    # per ceiling set, each level's roof on the plot and the set it comes from (``level_roof``)
    level_roofs: Mapping[CeilingSet, Mapping[str, tuple[float, CeilingSet]]] = {}
    # per ceiling set other than the datasheet, each roof (``roof_keys``) over the datasheet's (``datasheet_ratios``)
    datasheet_ratios: Mapping[CeilingSet, Mapping[str, float]] = {}
    # the share of the profiled time of the kernels on the plot without FLOPs (``flopless_share``), and whether
    # it is over BANDWIDTH_VIEW_SHARE: the plot then adds the bandwidth view
    flopless_share: float = 0.0
    bandwidth_view: bool = False
    # per plot view ("roofline": kernels with FLOPs placed; "bandwidth": kernels with bytes/s), entry n: the share
    # of the profiled time of its kernels past the first n of the report (``shares_past``): the plot's "other"
    shares_past: Mapping[str, tuple[float, ...]] = {}
    on_plot: bool = False  # whether the roofline plot holds a point: a kernel placed, or the bandwidth view
    detail_plots: tuple[DetailPlots, ...] = ()  # per kernel (``analysis.groups``), its place on the detail plots
    plot_numbers: tuple[int, ...] = ()  # per ``ranking`` entry, its number on the plot (by time: ``analysis.groups``)


class LeftOut(Struct, frozen=True):
    """A report file the command could not analyse (the others went on): its path, the error's line and its
    cause."""

    path: str
    error: str
    cause: LeftOutCause = LeftOutCause.OTHER  # the error's (``errors.RooflineError.left_out``)


class ReportSetView(Struct, frozen=True):
    """The reports of one command, per kernel its spread across them (several reports of one job), and the files
    left out."""

    reports: tuple[ReportView, ...]
    spreads: tuple[KernelSpread, ...] = ()
    left_out: tuple[LeftOut, ...] = ()
    across_note: str = ""  # why several reports' kernels are not compared (``roofline.across_reports_note``)


def report_set(analyses: Sequence[ReportAnalysis], spread_threshold_pct: float | None = None,
               left_out: tuple[LeftOut, ...] = ()) -> ReportSetView:
    """The views of the reports; with ``spread_threshold_pct`` and several reports, the kernels compared across
    them (flagged above the threshold); the files ``left_out``."""
    if spread_threshold_pct is None or len(analyses) < 2:
        return ReportSetView(tuple(report_view(a) for a in analyses), (), left_out)
    spreads = spread_across_reports(analyses, spread_threshold_pct)
    note = across_reports_note(analyses, spreads)
    return ReportSetView(tuple(report_view(a) for a in analyses), spreads, left_out, note)


def report_view(report_analysis: ReportAnalysis) -> ReportView:
    """The view of one report's analysis."""
    launches = list(report_analysis.launches)
    keys = roofs_run(launches, has_tensor_cores(report_analysis.device))
    ranked = rank_by_time_to_gain(report_analysis.groups)
    sets = report_level_ceilings(report_analysis.launches)
    pooled = tuple(_pooled(g) for g in report_analysis.groups)
    points = tuple(_points(g, stats, sets) for g, stats in zip(report_analysis.groups, pooled, strict=True))
    flopless = flopless_share(report_analysis.groups, points)
    return ReportView(
        report_analysis,
        sets,
        _pooled_roofs(scaled_roofs(launches, keys), launches, sets),
        tuple(g for _, g in ranked),
        tuple(_advised(g, keys) for g in kernels_to_advise(report_analysis)),
        tuple(recoverable_s(k) for k in launches),
        pooled,
        unavailable(report_analysis, keys),
        keys,
        tuple(dict.fromkeys(n for k in launches for n in shown_notes(k, keys))),
        tuple(gain for gain, _ in ranked),
        points,
        {name: {level: roof for level in LEVELS if (roof := level_roof(sets, name, level)) is not None}
         for name in CEILING_SETS},
        datasheet_ratios(sets, keys),
        flopless,
        flopless > BANDWIDTH_VIEW_SHARE,
        shares_past(report_analysis.groups, points),
        flopless > BANDWIDTH_VIEW_SHARE or any(p is not None and any(pt.intensity for pt in p.points) for p in points),
        tuple(detail_plots(g.longest) for g in report_analysis.groups),
        _plot_numbers(report_analysis.groups, [g for _, g in ranked]),
    )


def _plot_numbers(by_time: Sequence[KernelGroup], ranking: Sequence[KernelGroup]) -> tuple[int, ...]:
    """Each ranked kernel's number on the plot, where kernels go by time (1 = longest)."""
    number = {id(g): i for i, g in enumerate(by_time, 1)}
    return tuple(number[id(g)] for g in ranking)


def detail_plots(launch: LaunchAnalysis) -> DetailPlots:
    """Which detail plots the launch has a place on: the instruction roofline (a warp rate with an intensity at
    some level or a wall, or an integer rate with an intensity), the memory chart, the occupancy calculator."""
    r, memory, occupancy = launch.instruction_roofline, launch.memory, launch.occupancy
    placed = None
    if r is not None:
        walls = any(v.value for w in (r.global_memory, r.shared_memory) for v in w.intensity.values())
        placed = (bool(r.warp_gips.value) and (any(v.value for v in r.intensity.values()) or walls)
                  or r.integer.giops.value is not None and any(v.value for v in r.integer.intensity.values()))
    return DetailPlots(placed, memory is not None and any(v.value is not None for v in memory.hit_rate_pct.values()),
                       occupancy is not None and occupancy.calculator is not None)


def on_detail_plot(view: ReportSetView, plot: Literal["instruction", "memory", "occupancy"], top: int) -> bool:
    """Whether a detail plot of the reports holds a kernel, among the ``top`` longest of a report that it draws:
    those with an instruction roofline for the instruction plot, every kernel for the memory and occupancy
    charts."""
    for v in view.reports:
        if plot == "instruction":
            shown = [p.instruction for p in v.detail_plots if p.instruction is not None][:top]
        else:
            shown = [p.memory if plot == "memory" else p.occupancy for p in v.detail_plots[:top]]
        if any(shown):
            return True
    return False


def shares_past(groups: Sequence[KernelGroup], points: Sequence[PooledPoints | None]) -> dict[str, tuple[float, ...]]:
    """Per plot view, for n from 0 to the number of kernels, the share of the profiled time of the kernels past
    the first n that the view shows: "roofline" those with an intensity at some level, "bandwidth" those with
    bytes/s at some level (the kernels' ``points``, in the order of ``groups``)."""
    shown = {"roofline": [any(pt.intensity for pt in p.points) if p is not None else False for p in points],
             "bandwidth": [any(pt.bytes_per_s for pt in p.points) if p is not None else False for p in points]}
    return {view: tuple(sum(g.time_share or 0.0 for g, s in zip(groups[n:], marks[n:], strict=True) if s)
                        for n in range(len(groups) + 1)) for view, marks in shown.items()}


def flopless_share(groups: Sequence[KernelGroup], points: Sequence[PooledPoints | None]) -> float:
    """The share of the profiled time of the kernels on the plot without FLOPs: points at some level, none of them
    with an intensity (the kernels' ``points``, in the order of ``groups``)."""
    return sum(g.time_share or 0.0 for g, p in zip(groups, points, strict=True)
               if p is not None and p.points and not any(pt.intensity for pt in p.points))


def datasheet_ratios(sets: Mapping[CeilingSet, Ceilings], keys: Sequence[str]) -> dict[CeilingSet, dict[str, float]]:
    """Per ceiling set other than the datasheet, each roof of ``keys`` over the datasheet's, where both are known
    and not zero."""
    sheet = sets.get("datasheet")
    if sheet is None:
        return {}
    return {name: {key: roof / base for key in keys if (roof := c.roof(key)) and (base := sheet.roof(key))}
            for name, c in sets.items() if name != "datasheet"}


def shown_notes(analysis: LaunchAnalysis, keys: Sequence[str]) -> tuple[FlopNote, ...]:
    """A launch's notes but those on a precision no launch ran (the roofs ``keys`` leave out): with the full set, a
    note on the zero-product HFMA2s left out of FP16 FLOPs concerns nothing an FP32 kernel ran."""
    return tuple(n for n in analysis.notes if n.precision not in PRECISIONS or n.precision in keys)


def roofs_run(launches: Sequence[LaunchAnalysis], tensor_cores: bool = True) -> tuple[str, ...]:
    """The roofs that concern what the launches ran or could run: each precision some valid launch executed FLOPs of
    (or whose FLOPs it could not measure), every memory level; all of them where no launch is valid. Without
    ``tensor_cores`` on the GPU, never the Tensor roof: its FLOPs are none, measured or not."""
    valid = [k for k in launches if not k.launch.invalid]
    possible = PRECISIONS if tensor_cores else tuple(p for p in PRECISIONS if p != "tensor")
    if not valid:
        return (*possible, *LEVELS)
    ran = tuple(p for p in possible if any(k.flops[p].value is None or k.flops[p].value != 0 for k in valid))
    return (*ran, *LEVELS)


def _advised(g: KernelGroup, keys: Sequence[str]) -> AdvisedKernel:
    k = g.longest
    h = k.hotspots
    spots = tuple(HotSpot(row, context(h, row)) for row in top_rows(h)) if h is not None and h.total_samples else ()
    ridge, precision = ridge_point(k)
    stalls = tuple((r, describe(r)[0]) for r, _, _ in k.stalls.reasons) if k.stalls is not None else ()
    rules = tuple(dict.fromkeys(RuleMessage(r.kind, r.title, clean_rule_text(r.message)) for r in k.launch.rules
                                if r.kind not in SKIPPED_RULE_KINDS))
    other_count = k.l2_total_bytes.via != k.bytes["l2"].via  # the L2 bytes are not all traffic's counter
    return AdvisedKernel(g, k.advice, tuple(item for item in k.advice if worth_showing(item, k)), spots,
                         ridge, precision, stalls, rules, shown_notes(k, keys),
                         time_to_gain(g), rate(k.l2_total_bytes, k.duration_s).value if other_count else None)


def _pooled(g: KernelGroup) -> KernelStats | None:
    """A kernel's timed launches pooled (summed FLOPs and bytes over summed time); None when none has a time."""
    timed = g.launches.where(g.launches.times != 0)
    return aggregate(timed) if len(timed) else None


def level_roof(sets: Mapping[CeilingSet, Ceilings], source: CeilingSet, level: str
               ) -> tuple[float, CeilingSet] | None:
    """A level's roof on the plot against ``source``: that set's bandwidth, else the measured-clock one (drawn and
    labelled as such), with the set it comes from; None without either."""
    for name in dict.fromkeys((source, "measured-clock")):
        ceilings = sets.get(name)
        bandwidth = ceilings.bytes_per_s[level] if ceilings is not None else None
        if ceilings is not None and bandwidth:
            return bandwidth, ceilings.source
    return None


def _points(g: KernelGroup, stats: KernelStats | None, sets: Mapping[CeilingSet, Ceilings]) -> PooledPoints | None:
    """A kernel's place on the plot (``PooledPoints``); None where no launch of it has a time."""
    if stats is None:
        return None
    rate = stats.total_flop_per_s
    points = []
    for level in LEVELS:
        moved = stats.bytes_per_s[level].value
        if not moved:
            continue
        roofs = {name: roof for name in CEILING_SETS if (roof := level_roof(sets, name, level)) is not None}
        points.append(LevelPoint(level, stats.intensity[level].value if rate else None, rate or None, moved,
                                 {name: 100.0 * moved / bandwidth for name, (bandwidth, _) in roofs.items()}))
    timed = g.launches.where(g.launches.times != 0)
    total = _l2_total_point(timed, stats.bytes_per_s["l2"].value, rate)
    points += [total] if total is not None else []
    points.sort(key=lambda pt: LEVELS.index(pt.level))  # joined in the hierarchy's order: DRAM, L2, L1
    return PooledPoints(rate, tuple(points))


def _l2_total_point(timed: Launches, one_way: float | None, rate: float | None) -> LevelPoint | None:
    """Where the L2 definition of the report counts no bytes (a kernel that only stores, counted by loads) but all
    L2 traffic is known: the L2 point at all traffic (no roof: that roof counts the other definition)."""
    totals = [k.l2_total_bytes.value for k in timed]
    seconds_ = [k.duration_s.value for k in timed]
    if one_way or any(t is None for t in totals) or not all(seconds_) or not sum(t or 0.0 for t in totals):
        return None
    moved, flops = sum(t or 0.0 for t in totals), sum(k.total_flops or 0.0 for k in timed)
    return LevelPoint("l2", flops / moved if rate else None, rate or None, moved / sum(s or 0.0 for s in seconds_),
                      all_traffic=True)


def _pooled_roofs(scaled: ScaledRoofs | None, launches: Sequence[LaunchAnalysis],
                  sets: Mapping[CeilingSet, Ceilings]) -> ScaledRoofs | None:
    """``scaled`` with the number of launches pooled into the kernel-clock roofs shown where any launch's roof
    differs from them and no clock note says so (``every``: the roofs all came from the datasheet)."""
    shown = sets.get("kernel-clock")
    if scaled is None or not scaled.every or shown is None:
        return scaled
    own = [k.ceilings["kernel-clock"] for k in launches if "kernel-clock" in k.ceilings]
    differ = roofs_differ(own, {key: shown.roof(key) for key in (*PRECISIONS, *LEVELS)}, shown.tensor_dtype)
    return replace(scaled, pooled=len(own)) if differ else scaled


def scaled_roofs(launches: Sequence[LaunchAnalysis], shown: Sequence[str] = (*PRECISIONS, *LEVELS)
                 ) -> ScaledRoofs | None:
    """The roofs any timed launch's kernel-clock set took from the datasheet, and which were left unscaled (on every
    launch that took it from the datasheet: one scaled by a measured clock makes it scaled); None when none. A
    launch without a time (ncu measured nothing) weighs nothing in the report's roofs, so it adds none here, unless
    no launch has a time (the report's roofs are then every launch's). Only the ``shown`` roofs (the ceilings rows,
    ``roofs_run``) are named: a note on the Tensor roof under a table without a Tensor row explains nothing."""
    timed = [k for k in launches if k.duration_s.value]
    sets = [k.ceilings["kernel-clock"] for k in timed or launches]
    scaled = {key for c in sets for key in c.scaled}
    if not scaled:
        return None
    unscaled = {key for key in scaled if all(key in c.unscaled for c in sets if key in c.scaled)}
    held = [{key for key, value in (*c.flop_per_s.items(), *c.bytes_per_s.items()) if value is not None} for c in sets]
    every = any(held) and all(roofs <= set(c.scaled) for roofs, c in zip(held, sets, strict=True))
    order = [key for key in (*PRECISIONS, *LEVELS) if key in shown and key in scaled]
    if not order:
        return None
    at_max = any(c.at_max_clock for c in sets)
    return ScaledRoofs(tuple(order), tuple(key for key in order if key in unscaled), every, at_max_clock=at_max)


def unavailable(report_analysis: ReportAnalysis, roofs: Sequence[str] = (*PRECISIONS, *LEVELS)
                ) -> tuple[Unavailable, ...]:
    """Why values are n/a, one entry per cause, fix and set of launches, naming the values it leaves out: the
    metrics the report lacks grouped by the option that collects them, any other reason as the analysis gives it.
    Only the FLOPs and roofs of the precisions in ``roofs`` (``roofs_run``) count: no fix is offered for FLOPs the
    GPU cannot execute."""
    found: dict[tuple[str, str, str], set[str]] = {}  # (what, which, reason) -> launch keys, in first-seen order
    kinds: dict[str, tuple[Cause, tuple[str, ...], str, str]] = {}
    shown = [p for p in PRECISIONS if p in roofs]
    for k in report_analysis.valid_launches:
        launch = k.launch.key  # made once per launch, not per value it lacks
        values = (*(("FLOPs", p, k.flops[p]) for p in shown),
                  *(("bytes", level, k.bytes[level]) for level in LEVELS), ("duration", "", k.duration_s))
        for what, key, v in values:
            if v.value is None:
                found.setdefault((what, NAMES.get(key, ""), v.reason), set()).add(launch)
                if v.reason not in kinds:
                    kinds[v.reason] = _kind(v)
        if k.verdict.bound is None:
            found.setdefault(("bound", "", k.verdict.reason), set()).add(launch)
            kinds.setdefault(k.verdict.reason, (Cause.OTHER, (), "", k.verdict.reason))
        used = k.ceilings[report_analysis.ceilings_used]
        for roof, why in used.missing.items():
            if roof in PRECISIONS and roof not in roofs:
                continue
            found.setdefault((f"{used.source} roof", NAMES[roof], why), set()).add(launch)
            collect = used.collect.get(roof, "")
            kinds.setdefault(why, (Cause.MISSING_METRICS, (), collect, why) if collect in COLLECT_HINTS
                             else (Cause.OTHER, (), "", why))
    lines: dict[tuple[Cause, str, str, frozenset[str]], dict[str, list[str]]] = {}
    missing: dict[tuple[Cause, str, str, frozenset[str]], tuple[str, ...]] = {}
    for (what, which, why), keys in found.items():
        cause, metrics, collect, detail = kinds[why]
        at = (cause, collect, "" if collect else detail, frozenset(keys))
        missing[at] = tuple(dict.fromkeys((*missing.get(at, ()), *metrics)))
        names = lines.setdefault(at, {}).setdefault(what, [])
        names += [which] if which else []
    return tuple(Unavailable(cause, tuple((what, ", ".join(which)) for what, which in named.items()), keys,
                             missing[cause, collect, detail, keys], collect, detail)
                 for (cause, collect, detail, keys), named in lines.items())


def _kind(v: Value) -> tuple[Cause, tuple[str, ...], str, str]:
    """A value's cause as data: (cause, metrics missing, the option collecting them, the analysis's line); metrics
    missing are grouped by their option where it is one of the stock sets' (``COLLECT_HINTS``)."""
    if v.cause is Cause.MISSING_METRICS and v.collect in COLLECT_HINTS:
        return Cause.MISSING_METRICS, v.missing, v.collect, v.reason
    return Cause.OTHER, (), "", v.reason
