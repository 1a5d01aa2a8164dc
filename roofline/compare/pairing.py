"""Pair kernels across reports (GPU generations, before/after), with measured and ceiling-expected speedups,
and project them onto another GPU. Pure functions over ``ReportAnalysis``; no I/O.

A kernel in one report is the group of its launches under a match key, pooled by ``analysis.kernels.aggregate``
(``KernelStats``: summed work over summed time, the roof time ``T_roof`` of the sums), so that every figure below
comes from the same totals.

* Work first (``roofline.analysis.work``): the work per launch of report i against the base; a pair whose work on
  the resource governing both (else FLOPs, else threads launched) differs beyond the tolerance is "different work",
  and its figure to compare is a throughput ratio (bytes/s, FLOP/s, ...), not a speedup of times.
* Measured speedup of report i over the base (report 0) = 1 / the median of the pairwise launch-time ratios
  i / base (Hodges-Lehmann, ``roofline.compare.noise``), with its interval where both sides have enough launches; for
  one launch each, time (base) / time (i).
* Expected speedup from the ceilings alone = T_gov per launch (base) / T_gov per launch (i), given only where
  a roof governs: both sides' verdicts compute or memory. ``T_gov`` = the work on the side's governing resource
  (``analysis.work.governing``: the bytes of a level or the FLOPs of a precision) over its roof, so a roof the
  kernel is not bound by (a fill kernel's FP64 on a GPU weak in FP64) sets no expectation. A latency-bound or
  small-grid side gets none, and its launch-overhead share ``L / (L + d)`` (host launch cost L,
  ``core.thresholds.LAUNCH_OVERHEAD_S``, over launch plus median run time d: launches issued back to back).
* ``kept_up`` = measured / expected = percent of roof (i) / percent of roof (base): 1 means the kernel
  gained exactly what the hardware allows, below 1 it fell behind its new roof.
* Projection onto a spec: each side's time on another GPU, from its measured time scaled on its governing
  resource, with an interval and the roofline lower bound (``compare.projection``).

The regression gate (``compare.regression``) and the whole-application ranking (``compare.ranking``) are
built on these pairs and aggregates.
"""

from __future__ import annotations

import enum
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal, NamedTuple

from msgspec import Struct

from roofline.analysis.advice import launch_overhead_share
from roofline.analysis.grade import State, clock_condition
from roofline.analysis.kernels import KernelStats, aggregate
from roofline.analysis.launches import Launches, ReportAnalysis
from roofline.analysis.results import Cause, Value
from roofline.analysis.work import WorkCheck, compare_work, governing
from roofline.compare.noise import Change, compare_times
from roofline.compare.plottable import Plottable, plottable
from roofline.compare.projection import Projection, SharedMemoryFit, project, shared_memory_fit
from roofline.compare.projection_launches import (
    SAME_TIME,
    WorkloadProjection,
    kernel_speedup,
    project_everywhere,
    project_workload,
)
from roofline.core import display
from roofline.core.choices import TargetClock
from roofline.core.kernel_families import family
from roofline.core.kernel_names import PAIR_ARROW
from roofline.core.labels import NAMES, letter, measure_label
from roofline.core.model import CeilingSet, Device
from roofline.core.resources import Resource
from roofline.core.thresholds import (
    ALPHA,
    LAUNCH_OVERHEAD_S,
    MAX_ALPHA,
    MAX_WORK_TOLERANCE_PCT,
    SIMILAR_NAMES,
    WORK_TOLERANCE,
)
from roofline.core.timelimit import REGEX_LIMIT_S, within
from roofline.core.units import seconds
from roofline.errors import RooflineError

if TYPE_CHECKING:  # pragma: no cover

    from roofline.specs.catalog import DeviceSpec, SpecCatalog

MatchMode = Literal["name", "demangled", "order", "family", "regex"]  # --match: the modes, or regex:PATTERN
MATCH_MODES: tuple[MatchMode, ...] = ("name", "demangled", "order", "family")
GOVERNED = ("compute", "memory")  # the verdicts under which a roof sets the time, so the roofs predict a speedup
LAUNCH_BOUND = ("latency", "small_grid")  # held back by latency or too few blocks: no roof governs
NO_EXPECTATION = "no roofline expectation"


class ExpectedBasis(str, enum.Enum):
    """How a side's expected speedup is made (``_expected_on``): by ``roofline project``'s model, or as the ratio of
    the governing roof times, and then why not by the model."""

    BASE = "base"  # the base itself: its expected speedup is 1 by definition
    PROJECTION = "projection"  # the base's launches over their projection onto the side's GPU at its base clock
    ROOF_TIME_ONE_GPU = "roof_time_one_gpu"  # roof time A / roof time B: the reports share one GPU (one spec)
    ROOF_TIME_WORK_APART = "roof_time_work_apart"  # each side's own work at its own roofs: the work differs, or
    # could not be compared, so the base's launches projected say nothing of the side's
    ROOF_TIME_NO_TARGET_SPEC = "roof_time_no_target_spec"  # the side's GPU has no catalog spec to project onto
    ROOF_TIME_NO_BASE_CLOCK = "roof_time_no_base_clock"  # the side's spec gives no base clock to project at
    ROOF_TIME_NO_SOURCE_SPEC = "roof_time_no_source_spec"  # the base's GPU has no spec, nor device attributes
    # that give its rates


class UnderBound(str, enum.Enum):
    """Why a side's projected interval (``project``'s per-launch model) reaches under the roofline bound beside it
    (the per-kernel model's: the kernel's summed work at the target's datasheet peaks at the chosen clock)."""

    OTHER_KERNEL = "other_kernel"  # another kernel likely runs there (``projection_launches.OTHER_KERNEL``): the
    # interval holds its work, which the measured work does not bound
    L2_TERM = "l2_term"  # the bound counts the DRAM bytes the target's smaller L2 adds; the interval's floor the
    # measured DRAM bytes
    FLOORS_APART = "floors_apart"  # the interval's floor takes each launch's work at the target's peaks at its
    # boost clock, the bound the kernel's summed work at the chosen clock


class ClockRan(Struct, frozen=True):
    """The SM clock a side's launches of a kernel ran at (their median, ``analysis.grade.clock_condition``) against
    the base clock of its GPU's spec that its expected speedup by projection assumes there."""

    state: State  # locked_base, above_base, below_base, short_launches or unknown (no clock in the report)
    clock_hz: float | None
    base_clock_hz: float

    @property
    def apart(self) -> bool:
        """Whether the side ran beyond ``CLOCK_TOLERANCE`` of the base clock assumed (its launches long enough to
        read it), so that its kept up counts that change of clock too."""
        return self.state in (State.ABOVE_BASE, State.BELOW_BASE)


# --- Matching kernels across reports ------------------------------------------------------------------
@dataclass(frozen=True)
class Matcher:
    """How kernels are paired: a mode (name, demangled, order, family, regex) and explicit ``A=B`` pattern maps."""

    mode: MatchMode = "name"
    pattern: re.Pattern[str] | None = None
    maps: tuple[tuple[re.Pattern[str], ...], ...] = ()

    @property
    def label(self) -> str:
        text = f"regex:{self.pattern.pattern}" if self.pattern else self.mode
        return text + "".join(f" + map {'='.join(p.pattern for p in mp)}" for mp in self.maps)


def parse_matcher(match: str = "name", maps: Sequence[str] = (), reports: int = 2) -> Matcher:
    """Parse ``--match`` and ``--map`` (one ``=``-separated full-match regex per report); RooflineError if bad."""
    pattern = None
    mode: MatchMode
    if match.startswith("regex:"):
        pattern = _compile(match.removeprefix("regex:"), "--match regex:")
        mode = "regex"
    elif match in MATCH_MODES:
        mode = next(m for m in MATCH_MODES if m == match)
    else:
        raise RooflineError(f"--match '{match}': unknown matching mode",
                            "use name, demangled, order, family or regex:PATTERN")
    return Matcher(mode, pattern, tuple(_parse_map(text, reports) for text in maps))


def _parse_map(text: str, reports: int) -> tuple[re.Pattern[str], ...]:
    parts = text.split("=")
    if len(parts) != reports or not all(parts):
        raise RooflineError(f"--map '{text}': needs {reports} non-empty names or patterns joined by '='",
                            "e.g. --map 'ampere_sgemm_.*=sm90_xmma_.*' (one per report, in report order)")
    return tuple(_compile(p, "--map") for p in parts)


def _compile(expr: str, option: str) -> re.Pattern[str]:
    try:
        return re.compile(expr)
    except re.error as err:
        raise RooflineError(f"{option} '{expr}': invalid regular expression ({err})", "fix the pattern") from None


Key = tuple[str, str]  # (how it was matched, key text)


def keyed_kernels(analysis: ReportAnalysis, matcher: Matcher, index: int,
                  launches: Launches | None = None) -> dict[Key, Launches]:
    """Launches of report ``index`` (its valid ones unless ``launches`` are given) by match key, in order of first
    launch. A key depends on the names only, so the patterns run once per distinct pair of names, under the time
    limit of user regexes (not once per launch: a million launches would take longer than the limit with the
    simplest pattern)."""
    launches = analysis.valid_launches if launches is None else launches
    names = [(launch.name, launch.demangled_name) for launch in launches.kernel_launches]
    order: dict[str, int] = {}

    def key_each() -> dict[tuple[str, str], Key]:
        return {pair: _map_key(*pair, matcher, index) or _mode_key(*pair, matcher, order)
                for pair in dict.fromkeys(names)}

    keys = within(REGEX_LIMIT_S, f"the --match/--map patterns on the names in {analysis.report.path}", key_each)
    out: dict[Key, list[int]] = {}
    for i, pair in zip(launches.indices.tolist(), names, strict=True):
        out.setdefault(keys[pair], []).append(i)
    return {key: launches.table.view(rows) for key, rows in out.items()}


def _map_key(name: str, demangled: str, matcher: Matcher, index: int) -> Key | None:
    for patterns in matcher.maps:
        if _map_matches(patterns[index], name, demangled):
            return "map", "=".join(p.pattern for p in patterns)
    return None


def _map_matches(rx: re.Pattern[str], name: str, demangled: str) -> bool:
    """Whether a ``--map`` pattern takes a kernel: a full match of its name or its demangled name."""
    return bool(rx.fullmatch(name) or rx.fullmatch(demangled))


def _mode_key(name: str, demangled: str, matcher: Matcher, order: dict[str, int]) -> Key:
    mode = matcher.mode
    if mode == "demangled":
        return "demangled", demangled or name
    if mode == "order":
        return "order", str(order.setdefault(name, len(order) + 1))
    if mode == "family":  # a library kernel's architecture-neutral family, else its own name
        return "family", family(name, demangled)
    rx = matcher.pattern
    if mode == "regex" and rx is not None:
        found = rx.search(name) or rx.search(demangled)
        if found:
            key = found.group(1) if rx.groups and found.group(1) else found.group(0)
            return f"regex:{rx.pattern}", key
    return "name", name


# --- Comparing reports --------------------------------------------------------------------------------
class ReportRef(Struct, frozen=True):
    """Which report a column is: a short label, the file, the GPU and the ceilings it was judged against."""

    label: str
    path: str
    device: str
    compute_capability: str | None
    spec_id: str | None
    ceilings_used: CeilingSet
    launches: int
    total_time_s: float | None
    warnings: tuple[str, ...] = ()  # where the report's records contradict each other
    sm_count: int | None = None
    ncu_version: str = ""  # "" when the report does not say
    incomplete: bool = False  # the file was cut short: some of its launches are missing
    valid_launches: int | None = None  # the launches analysed (not marked invalid); None: not counted


class KernelPair(Struct, frozen=True):
    """A kernel of the base report matched in other reports: its stats in each (None where absent), its work
    against the base's, and the change of each report relative to the base (report 0): the launch-time ratio with
    its noise interval (``change``: other / base, None for the base or without times), the speedup, the speedup
    the roofs expect where a roof governs, and the launch-overhead share of launch-bound sides."""

    key: str
    matched_by: str
    sides: tuple[KernelStats | None, ...]
    speedup: tuple[Value, ...]
    expected_speedup: tuple[Value, ...]
    kept_up: tuple[Value, ...]
    projections: tuple[Projection | None, ...] = ()
    work: tuple[WorkCheck | None, ...] = ()  # other vs base; None for the base and where absent
    change: tuple[Change | None, ...] = ()
    launch_overhead: tuple[Value, ...] = ()  # share of launch plus run time, per side
    # per side, the work per launch in the unit of its work check (``WorkCheck.unit_key``) over the median launch
    # time, of the base and of that side: (base, side); None for the base and without a work check
    throughputs: tuple[tuple[float | None, float | None] | None, ...] = ()
    expected_throughput: tuple[float | None, ...] = ()  # per side, the expected speedup x the work ratio
    method: str = "name"  # how the pair was matched, alone: name, map, order, family, demangled, regex:PATTERN
    expected_basis: tuple[ExpectedBasis | None, ...] = ()  # per side, how its expected speedup is made (None: none)
    # per side expected by projection, the clock its launches ran at against the base clock assumed there
    expected_clock: tuple[ClockRan | None, ...] = ()
    under_bound: tuple[UnderBound | None, ...] = ()  # per side projected, why its interval goes under its bound

    def different_work(self, i: int) -> bool:
        """Whether report i's kernel does other work than the base's (beyond the tolerance)."""
        check = self.work[i] if self.work else None
        return check is not None and check.different

    def flops_differ(self, i: int) -> bool:
        """Whether report i's FLOPs of some precision differ from the base's beyond the tolerance, deciding or not."""
        check = self.work[i] if self.work else None
        return check is not None and any(m.differs for m in check.measures
                                          if Resource.of(m.key).kind == "flops")

    def headline(self, i: int) -> Change | None:
        """The figure to compare report i with the base by, as a ratio with its interval (higher = better): the
        speedup for the same work, the throughput ratio (work per second, i / base) for different work."""
        change, check = (self.change[i], self.work[i]) if self.change else (None, None)
        if change is None:
            return None
        if check is not None and check.different and check.work_ratio:
            return change.inverted().scaled(check.work_ratio)
        return change.inverted()

    def work_known(self, i: int) -> bool:
        """Whether report i's work could be compared with the base's (FLOPs, or threads for the same kernel): where
        not, a ratio of times is a speedup only if the work happens to be the same."""
        check = self.work[i] if self.work else None
        return check is not None and bool(check.basis)

    def headline_kind(self, i: int) -> str:
        """What ``headline`` is: "speedup" (the same work), "throughput" (different work) or "time_ratio" (work
        not compared)."""
        if self.headline_unit(i) != "speedup":
            return "throughput"
        return "speedup" if self.work_known(i) else "time_ratio"

    def headline_unit(self, i: int) -> str:
        """"speedup", or the throughput unit of what decided ("DRAM bytes/s", "FP32 FLOP/s", "FLOP/s",
        "threads/s", ...) for different work."""
        check = self.work[i] if self.work else None
        return check.unit if check is not None and check.different and check.work_ratio else "speedup"

    @property
    def label(self) -> str:
        """The kernel name, or ``a -> b`` when the names differ between reports."""
        return PAIR_ARROW.join(self.names)

    @property
    def names(self) -> tuple[str, ...]:
        """The names ``label`` joins: one where every report present shares it, else each one's."""
        return _names(self.sides)

    def label_to(self, i: int) -> str:
        """The kernel's name in the base report and report ``i``, or ``a -> b`` when the two differ (the label of
        a table of the base against report ``i``)."""
        return PAIR_ARROW.join(self.names_to(i))

    def names_to(self, i: int) -> tuple[str, ...]:
        """The names ``label_to`` joins: one where the base report and report ``i`` share it, else both."""
        return _names((self.sides[0], self.sides[i]))

    @property
    def base(self) -> KernelStats:
        """The kernel in the base report (always there: pairs start from the base report's kernels)."""
        return self.side(0)

    def side(self, i: int) -> KernelStats:
        """The kernel in report ``i``; KeyError where it is absent (``sides[i]`` is None there)."""
        found = self.sides[i]
        if found is None:
            raise KeyError(f"kernel {self.key} is not in report {i}")
        return found


class OwnGpu(Struct, frozen=True):
    """The report's own GPU among the GPUs a workload is projected onto: the SM clock the report ran at (the median
    over its launches) against the spec's base clock, the one ncu locks while profiling (``source_clock``, as
    ``analysis.grade.clock_condition`` reads it), and the clock the projection runs the launches at there. Its row's
    speedup is that change of clock, not an error of the model."""

    target: str  # the spec id of the report's GPU, the row of ``Comparison.everywhere``
    source_clock: State  # locked_base, above_base, below_base, or unknown (no clock, or no base clock in the spec)
    source_clock_hz: float | None  # the report's median SM clock
    base_clock_hz: float | None  # the spec's base clock
    clock: str  # the clock the projection takes there (``--clock``)
    clock_hz: float


class KernelFit(Struct, frozen=True):
    """Whether a kernel's blocks, as built, fit the shared memory a block may have on a target
    (``projection.shared_memory_fit``), or why that is not checked."""

    target: str
    kernel: str
    fit: SharedMemoryFit | str

    @property
    def unfit(self) -> bool:
        """Whether the kernel cannot launch there as built."""
        return isinstance(self.fit, SharedMemoryFit) and not self.fit.fits


class Unmeasured(Struct, frozen=True):
    """A kernel report ``report`` ran with every launch invalid (no time), which another report ran with valid ones:
    it falls among that other report's unmatched kernels; ``other_s`` is its time there, in report ``other``."""

    name: str
    report: int
    other: int
    other_s: float


class Comparison(Struct, frozen=True):
    """Kernels of the base report paired with the other reports; ``unmatched[i]`` are the kernels of report i
    left without a partner (for the base: in no other report; for the others: not in the base)."""

    reports: tuple[ReportRef, ...]
    matching: str
    pairs: tuple[KernelPair, ...]
    unmatched: tuple[tuple[str, ...], ...]
    project_to: str | None = None
    alpha: float = ALPHA
    work_tolerance: float = WORK_TOLERANCE
    clock: TargetClock = "sustained"  # the target clock of the projections (``project_to``)
    workload: WorkloadProjection | None = None  # every launch of the base report projected (``project_to``)
    everywhere: tuple[WorkloadProjection, ...] = ()  # the base report onto several GPUs, fastest first (``--to all``)
    confidence: float = 1.0 - 2 * ALPHA  # of the noise intervals: 1 - 2 alpha (two-sided)
    plottable: Plottable = Plottable.NO_PAIRS  # whether the comparison plot holds a point, or why not (``plottable``)
    own_gpu: OwnGpu | None = None  # ``everywhere``'s row of the report's own GPU and the clocks behind it
    unmeasured: tuple[Unmeasured, ...] = ()  # kernels one of two reports ran with no valid launch (``_unmeasured``)
    fits: tuple[KernelFit, ...] = ()  # each kernel of the base report: its blocks' shared memory on each target

    def unfit(self, target: str) -> tuple[KernelFit, ...]:
        """The kernels that cannot launch on ``target`` as built (``fits``)."""
        return tuple(f for f in self.fits if f.target == target and f.unfit)

    def _repr_html_(self) -> str | None:
        """The comparison as Jupyter shows it: the hook the Python API registers (the HTML comparison without its
        plot, ``roofline.core.display``)."""
        return display.html("compare", self)


def report_labels(analyses: Sequence[ReportAnalysis]) -> list[str]:
    """Short report labels: file names without extension, numbered when the same file appears twice."""
    return path_labels([a.report.path for a in analyses])


def path_labels(paths: Sequence[str]) -> list[str]:
    """``report_labels`` of the reports at these paths: each file's name without its extension; two of one name
    from two folders by their folders' names (``h100/triad`` and ``h200/triad``); what is left alike numbered in
    order (``triad#1``, ``triad#2``: one file given twice, or two folders of one name)."""
    stems = [Path(path).name.removesuffix(".ncu-rep").removesuffix(".json") for path in paths]
    places = [os.path.abspath(path) for path in paths]

    def label(i: int) -> str:
        """The stem; with its folder's name where another file of that stem is in a folder of another name, else its
        extension where another file of that stem has another (``x.ncu-rep`` beside ``x.json``)."""
        others = [Path(places[j]) for j in range(len(paths)) if stems[j] == stems[i] and places[j] != places[i]]
        here = Path(places[i])
        if any(o.parent.name != here.parent.name for o in others):
            return f"{here.parent.name}/{stems[i]}"
        return here.name if any(o.name != here.name for o in others) else stems[i]

    labels = [label(i) for i in range(len(paths))]
    return [s if labels.count(s) == 1 else f"{s}#{labels[:i + 1].count(s)}" for i, s in enumerate(labels)]


def report_ref(analysis: ReportAnalysis, label: str) -> ReportRef:
    """The identifying facts of one analysed report."""
    d = analysis.device
    return ReportRef(label, analysis.report.path, d.name, d.compute_capability, analysis.spec_id,
                     analysis.ceilings_used, len(analysis.launches), analysis.total_time_s, analysis.report.warnings,
                     d.sm_count, analysis.report.ncu_version, analysis.report.incomplete,
                     len(analysis.valid_launches))


@dataclass(frozen=True)
class PairOptions:
    """How pairs are judged: the work tolerance (a fraction) and the alpha of the noise intervals."""

    work_tolerance: float = WORK_TOLERANCE
    alpha: float = ALPHA
    clock: TargetClock = "sustained"  # the target clock of projections (--project-to, project --clock)


def pair_options(work_tolerance_pct: float = 100.0 * WORK_TOLERANCE, alpha: float = ALPHA,
                 clock: TargetClock = "sustained") -> PairOptions:
    """``--work-tolerance`` (percent) and ``--alpha`` checked; RooflineError (one line) if out of range."""
    if not 0.0 < alpha < MAX_ALPHA:
        raise RooflineError(f"--alpha {alpha:g}: must be above 0 and below {MAX_ALPHA:g}",
                            f"e.g. --alpha {ALPHA:g} (the default)")
    if not 0.0 <= work_tolerance_pct < MAX_WORK_TOLERANCE_PCT:
        raise RooflineError(f"--work-tolerance {work_tolerance_pct:g}: must be a percent from 0 to below "
                            f"{MAX_WORK_TOLERANCE_PCT:g}",
                            f"e.g. --work-tolerance {100 * WORK_TOLERANCE:g} (the default)")
    return PairOptions(work_tolerance_pct / 100.0, alpha, clock)


def pair_reports(analyses: Sequence[ReportAnalysis], matcher: Matcher = Matcher(),
                 project_to: DeviceSpec | None = None, options: PairOptions = PairOptions(),
                 catalog: SpecCatalog | None = None) -> Comparison:
    """Pair each base kernel found in at least one other report (largest base time first; with one report,
    every kernel) and compare work, times, expectations and projections; each report's spec is looked up in
    ``catalog`` (the one the analyses matched against: the built-in specs by default)."""
    if not analyses:
        raise RooflineError("no report to compare", "pass two or more report files")
    labels = report_labels(analyses)
    keyed = [keyed_kernels(a, matcher, i) for i, a in enumerate(analyses)]
    require_maps_used(analyses, matcher)
    rows = [k for k in keyed[0] if len(keyed) == 1 or any(k in kd for kd in keyed[1:])]
    devices = [a.device for a in analyses]
    one = one_gpu(analyses)
    specs = _expectation_specs(analyses, catalog, one)
    bases = _specs(analyses, catalog) if project_to is not None else [None] * len(analyses)
    pairs = [_pair(k, aggregate(keyed[0][k]), [aggregate(kd[k]) if k in kd else None for kd in keyed[1:]], labels,
                   project_to, options, devices, specs, bases, keyed[0][k],
                   tuple(kd.get(k) for kd in keyed), tuple(_derived(a) for a in analyses)
                   if project_to is not None else (), one) for k in rows]
    pairs.sort(key=lambda p: -(p.base.total_s.value or 0.0))
    paired = set(rows)
    unmatched = tuple(tuple(_key_text(k, kd[k]) for k in kd if k not in paired) for kd in keyed)
    source = (bases[0] or _derived(analyses[0])) if project_to is not None else None
    workload = _workload(analyses[0], source, project_to, options.clock) if project_to is not None else None
    own = own_gpu(analyses[0], source, (workload,)) if source is not None and workload is not None else None
    fits = tuple(KernelFit(project_to.id, p.key, p.projections[0].shared_memory) for p in pairs
                 if project_to is not None and p.projections and p.projections[0] is not None)
    return Comparison(tuple(report_ref(a, label) for a, label in zip(analyses, labels, strict=True)), matcher.label,
                      tuple(pairs), unmatched, project_to.id if project_to else None, options.alpha,
                      options.work_tolerance, options.clock, workload, confidence=1.0 - 2 * options.alpha,
                      plottable=plottable([p.sides for p in pairs]), own_gpu=own,
                      unmeasured=_unmeasured(analyses, matcher, keyed), fits=fits)


def one_gpu(analyses: Sequence[ReportAnalysis]) -> list[bool]:
    """Per report, whether it ran on the base report's GPU: the same spec, and for a GPU no catalog spec names (its
    spec derived from its device attributes, or none) the same device name."""
    from roofline.specs.catalog import DERIVED_ID

    ids = [a.spec_id for a in analyses]
    names = [a.device.name for a in analyses]
    return [ids[i] == ids[0] and (ids[0] not in (None, DERIVED_ID) or names[i] == names[0])
            for i in range(len(analyses))]


def _unmeasured(analyses: Sequence[ReportAnalysis], matcher: Matcher,
                keyed: Sequence[dict[Key, Launches]]) -> tuple[Unmeasured, ...]:
    """The kernels one of two reports ran with no valid launch (each one invalid: failed, or not replayed) that the
    other ran with valid ones, so they fall among the other's unmatched. Sought by name where kernels are matched by
    their order (the invalid launches' order is not the valid ones')."""
    invalid = [a.launches.where(a.launches.table.columns.invalid[a.launches.indices]) for a in analyses]
    if len(analyses) != 2 or not any(len(launches.indices) for launches in invalid):
        return ()
    by = Matcher() if matcher.mode == "order" else matcher
    valid = keyed if by is matcher else [keyed_kernels(a, by, i) for i, a in enumerate(analyses)]
    found = []
    for i, analysis in enumerate(analyses):
        if not len(invalid[i].indices):
            continue
        other = 1 - i
        for key in keyed_kernels(analysis, by, i, invalid[i]):
            if key in valid[other] and key not in valid[i]:
                launches = valid[other][key]
                found.append(Unmeasured(_key_text(key, launches), i, other, float(launches.times.sum())))
    return tuple(found)


def _workload(analysis: ReportAnalysis, source: DeviceSpec | None, target: DeviceSpec,
              clock: TargetClock) -> WorkloadProjection | None:
    """The base report's launches projected onto ``target`` (``compare.projection_launches``); the source GPU's
    rates per SM and clock from ``source``, its spec or else the one its device attributes give (``specs.derived``);
    None without either."""
    if source is None:
        return None
    return project_workload(analysis.valid_launches, analysis.device, source, target, clock)


def _derived(analysis: ReportAnalysis) -> DeviceSpec | None:
    """The source GPU's spec from its device attributes (``specs.derived``), None where they do not give one."""
    from roofline.specs.derived import derive

    found = derive(analysis.device)
    return found.spec if found is not None else None


def project_onto_many(analysis: ReportAnalysis, targets: Sequence[DeviceSpec],
                      clock: TargetClock = "sustained", catalog: SpecCatalog | None = None) -> Comparison:
    """``roofline project REPORT --to all`` (or several ids): the report's workload projected onto each of
    ``targets``, fastest total first (``projection_launches.project_everywhere``), in a comparison of that report
    alone; RooflineError (one line) where neither a spec nor the device attributes give the source GPU's rates."""
    source = _specs([analysis], catalog)[0] or _derived(analysis)
    if source is None:
        raise RooflineError(f"{analysis.report.path}: no spec for {analysis.device.name} and its device attributes "
                            "do not give its rates", "pass --specs with a spec for it")
    c = pair_reports([analysis], options=PairOptions(clock=clock), catalog=catalog)
    everywhere = project_everywhere(analysis.valid_launches, analysis.device, source, targets, clock)
    fits = tuple(KernelFit(t.id, p.key, shared_memory_fit(p.base, analysis.device, t)) for t in targets
                 for p in c.pairs)
    return Comparison(c.reports, c.matching, c.pairs, c.unmatched, None, c.alpha, c.work_tolerance, clock, None,
                      everywhere, c.confidence, c.plottable, own_gpu(analysis, source, everywhere), fits=fits)


def own_gpu(analysis: ReportAnalysis, source: DeviceSpec, everywhere: Sequence[WorkloadProjection]) -> OwnGpu | None:
    """The row of the report's own GPU among ``everywhere`` (one row: ``--to`` its own GPU alone), with the clock the
    report ran at and the projection's there (``OwnGpu``); None where that GPU is not among the projected ones."""
    row = next((w for w in everywhere if w.target == source.id and w.launches), None)
    if row is None or row.clock_hz is None:
        return None
    ran = clock_condition(analysis.valid_launches, source)
    return OwnGpu(row.target, ran.state, ran.measured, ran.expected, row.clock, row.clock_hz)


def _names(sides: Sequence[KernelStats | None]) -> tuple[str, ...]:
    """One name where the sides present share it, else each side's name."""
    names = tuple(s.name for s in sides if s is not None)
    return names[:1] if len(set(names)) == 1 else names


def require_common(c: Comparison) -> None:
    """RooflineError (one line) when two or more reports share no kernel: the nearest pair of names across them and
    a ``--map`` that would pair them (``difflib`` similarity of the names)."""
    if c.pairs or len(c.reports) < 2:
        return
    import difflib

    def nearest(a: str, b: str) -> float:
        return difflib.SequenceMatcher(None, a, b).ratio()

    candidates = [(nearest(a, b), a, b) for a in c.unmatched[0] for b in c.unmatched[1]]
    apart = " and ".join(r.path for r in c.reports)
    if not candidates:
        raise RooflineError(f"{apart}: no kernel in common ({c.matching} matching): "
                            f"{'A' if not c.unmatched[0] else 'B'} has no valid kernel launch",
                            "check the --kernel filter, or profile the kernel in both")
    similarity, a, b = max(candidates)
    alone = all(len(names) == 1 for names in c.unmatched[:2])  # one kernel each: a rename, likely
    if similarity < SIMILAR_NAMES and not alone:  # nothing alike: the reports may profile different programs
        raise RooflineError(f"{apart}: no kernel in common ({c.matching} matching), and no names alike "
                            f"(nearest: A {a!r}, B {b!r})", "check that both profile the same program, or pair "
                            f"kernels with --map BASE=NEW or --match {_other_modes(c.matching)}")
    pair_them = f"--map '{re.escape(a)}={re.escape(b)}', " if len(c.reports) == 2 else "--map A=B=..., "
    raise RooflineError(f"{apart}: no kernel in common ({c.matching} matching); nearest names: A {a!r}, B {b!r}",
                        f"pair them with {pair_them}or --match {_other_modes(c.matching)}")


def _other_modes(matching: str) -> str:
    """The --match modes that may pair what ``matching`` (the mode used) did not: never that one again."""
    used = "regex:PATTERN" if matching.startswith("regex:") else matching
    return "|".join(m for m in ("family", "order", "regex:PATTERN") if m != used)


def require_maps_used(analyses: Sequence[ReportAnalysis], matcher: Matcher) -> None:
    """RooflineError (one line) for a ``--map`` whose pattern for a report matches none of its kernels (a typo
    would otherwise pair nothing, silently): the report, the pattern and the report's nearest kernel name. A pattern
    is tested as ``_map_key`` tests it (a full match of the name or the demangled name), so one whose kernels an
    earlier ``--map`` took is kept: it matches, it just pairs nothing more."""
    import difflib
    import functools

    if not matcher.maps:
        return
    names = [dict.fromkeys((k.name, k.demangled_name) for k in a.valid_launches.kernel_launches) for a in analyses]
    matched = [within(REGEX_LIMIT_S, f"the --map patterns on the names in {a.report.path}",
                      functools.partial(_maps_matching, matcher, i, names[i])) for i, a in enumerate(analyses)]
    for m, patterns in enumerate(matcher.maps):
        for i, analysis in enumerate(analyses):
            if m in matched[i]:
                continue
            text = "=".join(p.pattern for p in patterns)
            _refuse_invalid_only(analysis, i, patterns[i], text)
            near = difflib.get_close_matches(patterns[i].pattern, sorted({n for n, _ in names[i]}), 1, 0.0)
            nearest = f"; nearest kernel name: {near[0]!r}" if near else ""
            raise RooflineError(f"{analysis.report.path}: --map '{text}': its pattern for this report "
                                f"({letter(i)}), {patterns[i].pattern!r}, matches no kernel{nearest}",
                                "a --map pattern must match a whole kernel name (or its demangled name); "
                                "roofline summary FILE lists them")


def _refuse_invalid_only(analysis: ReportAnalysis, index: int, rx: re.Pattern[str], text: str) -> None:
    """RooflineError where a ``--map`` pattern that matches no valid kernel of a report matches launches of it that
    are invalid (left out of every time): the pattern is right, the launches cannot be compared."""
    invalid = [k for k in analysis.report.launches if k.invalid]
    hit = within(REGEX_LIMIT_S, f"the --map patterns on the names in {analysis.report.path}",
                 lambda: next((k for k in invalid if _map_matches(rx, k.name, k.demangled_name)), None))
    if hit is not None:
        raise RooflineError(f"{analysis.report.path}: --map '{text}': its pattern for this report ({letter(index)}) "
                            f"matches only invalid launches ({hit.name}, first {hit.key}: {hit.invalid})",
                            "re-profile that kernel, or map another one")


def _maps_matching(matcher: Matcher, index: int, names: Iterable[tuple[str, str]]) -> set[int]:
    """The indices of the ``--map`` patterns that fully match a (name, demangled name) of report ``index``."""
    pairs = list(names)
    return {m for m, patterns in enumerate(matcher.maps)
            if any(_map_matches(patterns[index], name, demangled) for name, demangled in pairs)}


def _key_text(key: Key, launches: Launches) -> str:
    """A key as shown to the user: the kernel names behind an order or --map key (not the map's text), else the key
    itself."""
    if key[0] not in ("order", "map"):
        return key[1]
    return " | ".join(dict.fromkeys(k.name for k in launches.kernel_launches))


def _specs(analyses: Sequence[ReportAnalysis], catalog: SpecCatalog | None) -> list[DeviceSpec | None]:
    """Each report's device spec (the one of ``catalog``, built-in by default, its analysis matched), None where
    it matched none (a spec derived from its device attributes has no catalog id)."""
    ids = [a.spec_id for a in analyses]
    if catalog is None:
        from roofline.specs.catalog import load_catalog

        catalog = load_catalog()
    known = {spec.id: spec for spec in catalog.specs}
    return [known.get(i) if i else None for i in ids]


def _expectation_specs(analyses: Sequence[ReportAnalysis], catalog: SpecCatalog | None,
                       one: Sequence[bool]) -> list[DeviceSpec | None]:
    """Each report's spec for the expected speedups across GPUs (``_expected_on``): its catalog spec, else the one its
    device attributes give (``specs.derived``, as ``roofline project`` takes for its source); none where every
    report ran on the base's GPU (``one_gpu``: the ratio of the roof times, no spec read)."""
    if all(one):
        return [None] * len(analyses)
    return [spec or _derived(a) for spec, a in zip(_specs(analyses, catalog), analyses, strict=True)]


def _pair(key: Key, base: KernelStats, others: list[KernelStats | None], labels: Sequence[str],
          target: DeviceSpec | None, options: PairOptions, devices: Sequence[Device],
          specs: Sequence[DeviceSpec | None] = (), bases: Sequence[DeviceSpec | None] = (),
          base_launches: Launches | None = None, side_launches: Sequence[Launches | None] = (),
          derived: Sequence[DeviceSpec | None] = (), one: Sequence[bool] = ()) -> KernelPair:
    """Work, time change and expectation of every side against the base (side 0, its launches ``base_launches``);
    a side absent from its report gets None with why. ``specs``: each report's spec for the expectations across
    GPUs (``_expectation_specs``), ``one``: whether each report ran on the base's GPU. Each side's projection onto
    ``target`` takes its launches (``side_launches``) through ``project``'s per-launch model (``_per_launch``)."""
    sides = [base, *others]
    launches = [side_launches[i] if i < len(side_launches) else None for i in range(len(sides))]
    changes = [_change(base, side, options.alpha) if side and i else None for i, side in enumerate(sides)]
    speedup = [_speedup(base, side, change, label) for side, change, label in zip(sides, changes, labels, strict=True)]
    work = tuple(compare_work(base.work, s.work, options.work_tolerance, s.names == base.names,
                              (governing(base.verdict, base.roof), governing(s.verdict, s.roof)))
                 if i and s and s.work and base.work else None for i, s in enumerate(sides))
    found = [_expected_on(base, side, i, devices[0], specs, Across(one[i] if i < len(one) else True,
                                                                   check is not None and not check.different,
                                                                   base_launches, launches[i]))
             if side else Expected(Value(None, f"kernel not in {labels[i]}"))
             for i, (side, check) in enumerate(zip(sides, work, strict=True))]
    expected = [e.value for e in found]
    kept = tuple(_ratio(a, b, "speedup") for a, b in zip(speedup, expected, strict=True))
    rates = tuple((throughput(base, check.unit_key), throughput(side, check.unit_key)) if check and side else None
                  for check, side in zip(work, sides, strict=True))
    expected_rate = tuple(e.value * check.work_ratio if check and check.work_ratio and e.value is not None else None
                          for check, e in zip(work, expected, strict=True))
    projected = [_projected(s, d, spec or (derived[i] if i < len(derived) else None), bases[i] if i < len(bases)
                            else None, launches[i], target, options.clock) if s and target is not None else None
                 for i, (s, d, spec) in enumerate(zip(sides, devices, bases, strict=True))] if target else []
    how = {"map": f"map {key[1]}", "order": f"order #{key[1]}"}.get(key[0], key[0])
    return KernelPair(f"#{key[1]}" if key[0] == "order" else key[1], how, tuple(sides), tuple(speedup),
                      tuple(expected), kept, tuple(x[0] if x else None for x in projected), work, tuple(changes),
                      tuple(launch_overhead(s) if s else Value(None, "kernel absent") for s in sides), rates,
                      expected_rate, key[0], tuple(e.basis for e in found), tuple(e.clock for e in found),
                      tuple(x[1] if x else None for x in projected))


def _speedup(base: KernelStats, side: KernelStats | None, change: Change | None, label: str) -> Value:
    """A side's speedup over the base: 1 / its median pairwise time ratio, else the ratio of the times per launch;
    None with why where the kernel is not in that side's report."""
    if side is None:
        return Value(None, f"kernel not in {label}")
    if change is not None:
        return Value(1.0 / change.ratio, via="1 / median pairwise time ratio (Hodges-Lehmann)")
    return _ratio(base.per_launch_s, side.per_launch_s, "time per launch")


def _projected(s: KernelStats, device: Device, source: DeviceSpec | None, spec: DeviceSpec | None,
               launches: Launches | None, target: DeviceSpec,
               clock: TargetClock) -> tuple[Projection, UnderBound | None]:
    """One side's projection onto ``target`` (``_per_launch``: its launches through ``project``'s per-launch model,
    from ``source``, its spec or the derived one; ``spec``: its catalog spec, for the per-kernel model) and why its
    interval goes under its roofline bound, where it does (``under_bound``)."""
    got, other = _per_launch(project(s, device, target, clock, source_spec=spec), launches, device, source, target,
                             clock)
    return got, under_bound(got, other)


def under_bound(p: Projection, other_kernel: Sequence[str]) -> UnderBound | None:
    """Why a projection's interval reaches under its roofline bound (``UnderBound``; ``other_kernel``: the keys of
    ``projection_launches.OTHER_KERNEL`` its launches carry); None where its low end is at the bound or above, or
    either is missing."""
    low, bound = p.low_s.value, p.bound_s.value
    if low is None or bound is None or low >= bound * (1.0 - SAME_TIME):
        return None
    if other_kernel:
        return UnderBound.OTHER_KERNEL
    if p.l2 is not None and p.l2.factor > 1.0:
        return UnderBound.L2_TERM
    return UnderBound.FLOORS_APART


def _per_launch(p: Projection, launches: Launches | None, device: Device, source: DeviceSpec | None,
                target: DeviceSpec, clock: TargetClock) -> tuple[Projection, tuple[str, ...]]:
    """The kernel's projection with its time, interval and governing unit from ``project``'s per-launch model
    (``projection_launches.project_workload`` over its launches, the mean per launch: the number ``roofline
    project`` gives the same launches); the roofline bound, the clocks, the L2 term and the shared-memory fit stay
    the kernel's. Without the launches or a source spec, the time is null with why. Also the keys of
    ``OTHER_KERNEL`` its launches carry there."""
    from msgspec.structs import replace

    if launches is None or source is None:
        why = Value(None, f"no per-launch projection: {'no launches' if launches is None else 'no source spec'}")
        return replace(p, projected_s=why, low_s=why, high_s=why, basis=str(why.reason)), ()
    w = project_workload(launches, device, source, target, clock)
    if w.projected_s is None or w.low_s is None or w.high_s is None or not w.launch_count:
        why = Value(None, f"no projection onto {target.id}: {w.reason or 'no projected time'}")
        return replace(p, projected_s=why, low_s=why, high_s=why, basis=str(why.reason)), ()
    n = w.launch_count
    basis = (f"the mean of {n} launch{'es' if n > 1 else ''} projected per unit onto {target.id} at its {w.clock} "
             "clock (roofline project's model)")
    other = tuple(dict.fromkeys(key for x in w.launches for key in x.other_kernel))
    return replace(p, projected_s=Value(w.projected_s / n, via=basis), low_s=Value(w.low_s / n, via=basis),
                   high_s=Value(w.high_s / n, via=basis), basis=basis, governing=w.governing), other


def throughput(s: KernelStats, key: str) -> float | None:
    """Work per launch of a measure (``Work.amount``: DRAM bytes, FP32 FLOPs, threads, ...) over the median launch
    time; None without a measure key, the amount or a time."""
    w, t = s.work, s.median_s.value
    amount = w.amount(key) if w is not None and key else None
    return amount / t if amount is not None and t else None


def _change(base: KernelStats, side: KernelStats, alpha: float) -> Change | None:
    """The other side's launch times over the base's (None when either side has none)."""
    if not base.durations_s or not side.durations_s:
        return None
    return compare_times(base.durations_s, side.durations_s, alpha)


class Across(NamedTuple):
    """What a side's expectation across GPUs needs beside the two kernels: whether its report ran on the base's GPU
    (``one_gpu``), whether its work is the base's (the base's launches projected then stand for it), and the base's
    and the side's launches of the kernel."""

    one_gpu: bool
    same_work: bool
    base_launches: Launches | None
    launches: Launches | None


class Expected(NamedTuple):
    """A side's expected speedup, how it is made (None where there is none), and for one by projection the clock the
    side's launches ran at against the base clock assumed there."""

    value: Value
    basis: ExpectedBasis | None = None
    clock: ClockRan | None = None


def _expected_on(base: KernelStats, side: KernelStats, i: int, source: Device,
                 specs: Sequence[DeviceSpec | None], across: Across) -> Expected:
    """The expected speedup of side ``i``: none where no roof governs a side (``_expected``); for the same work on
    another GPU, the base's launches over their projection onto that GPU at its base clock, the clock ncu locks
    (``compare.projection_launches.kernel_speedup``: ``roofline project A --to B --clock base``'s number for this
    kernel), where ``project`` can make it: the side's GPU has a catalog spec with a base clock and the base's GPU
    rates (a spec, or its device attributes); else, and on one GPU, the ratio of the governing roof times
    (``ExpectedBasis`` says which, and why)."""
    by_roofs = _expected(base, side, i)
    if by_roofs.value is None:
        return Expected(by_roofs)  # no roof governs a side (latency, small grid, balanced)
    if not i:
        return Expected(by_roofs, ExpectedBasis.BASE)
    if across.one_gpu:
        return Expected(by_roofs, ExpectedBasis.ROOF_TIME_ONE_GPU)
    if not across.same_work:
        return Expected(by_roofs, ExpectedBasis.ROOF_TIME_WORK_APART)
    source_spec, spec = (specs[0], specs[i]) if i < len(specs) else (None, None)
    base_hz = spec.base_clock_hz if spec is not None and projectable(spec) else None
    if source_spec is None or spec is None or base_hz is None:
        return Expected(by_roofs, _no_projection(source_spec, spec))
    if across.base_launches is None:
        return Expected(Value(None, f"no projection onto {spec.id}: the base's launches not given"))
    got = kernel_speedup(across.base_launches, source, source_spec, spec, "base")
    if got.value is None:
        return Expected(got)
    ran = clock_condition(across.launches, spec) if across.launches is not None else None
    return Expected(got, ExpectedBasis.PROJECTION,
                    ClockRan(ran.state, ran.measured, base_hz) if ran is not None else None)


def projectable(target: DeviceSpec) -> bool:
    """Whether ``roofline project --to ... --clock base`` takes ``target``: a catalog spec (a derived one has no id
    to name) with a base clock."""
    from roofline.specs.catalog import DERIVED_ID

    return target.id != DERIVED_ID and target.base_clock_hz is not None


def _no_projection(source: DeviceSpec | None, target: DeviceSpec | None) -> ExpectedBasis:
    """Why ``project`` cannot project the base's launches onto a side's GPU at its base clock (the roof times then):
    no rates for the base's GPU, no catalog spec for the side's (``project --to`` takes a spec id), or no base clock
    in it."""
    from roofline.specs.catalog import DERIVED_ID

    if source is None:
        return ExpectedBasis.ROOF_TIME_NO_SOURCE_SPEC
    if target is None or target.id == DERIVED_ID:
        return ExpectedBasis.ROOF_TIME_NO_TARGET_SPEC
    return ExpectedBasis.ROOF_TIME_NO_BASE_CLOCK


def _expected(base: KernelStats, side: KernelStats, i: int) -> Value:
    """Roof time (base) / roof time (side i), where a roof governs both sides (verdict compute or memory); the
    reasons name the reports by letter (A = the base)."""
    verdicts = ((letter(0), base.verdict), (letter(i), side.verdict)) if i else ((letter(0), base.verdict),)
    launch = [f"{name}: {v.bound.replace('_', ' ')}" for name, v in verdicts if v.bound in LAUNCH_BOUND]
    if launch:
        return Value(None, f"{NO_EXPECTATION}: launch or latency bound ({', '.join(launch)})",
                     cause=Cause.NO_EXPECTATION)
    for name, v in verdicts:
        if v.bound is None:
            return Value(None, f"{NO_EXPECTATION}: no verdict on {name} ({v.reason or 'not decided'})",
                         cause=Cause.NO_EXPECTATION)
        if v.bound not in GOVERNED:
            return Value(None, f"{NO_EXPECTATION}: {name} is {v.bound} (compute and memory both busy, no single "
                               "roof sets its time)", cause=Cause.NO_EXPECTATION)
    return _ratio(governed_time(base), governed_time(side), "roof time")


def governed_time(s: KernelStats) -> Value:
    """The time per launch of the kernel's governing resource at its roof (work on it / its ceiling): the roof that
    sets its time, not the nearest one (a fill kernel's FP64 roof on a GPU weak in FP64 sets nothing)."""
    resource = governing(s.verdict, s.roof)
    group, key = Resource.of(resource)
    if not key:
        return Value(None, f"no roof for what bounds it ({resource or 'no verdict'})")
    measured = (s.flops if group == "flops" else s.bytes)[key]
    roof = s.ceilings.roof(key)
    if measured.value is None or not roof:
        return Value(None, f"{measure_label(resource or '')}: {measured.reason}" if measured.value is None else
                     f"no {NAMES[key]} roof in the {s.ceilings.source} ceilings")
    return Value(measured.value / s.count / roof, via=f"{resource} per launch / its {s.ceilings.source} roof")


def launch_overhead(s: KernelStats) -> Value:
    """For a latency-bound or small-grid kernel: the host's launch cost as a share of launch plus run time,
    L / (L + median launch time), launches issued back to back (``advice.launch_overhead_share``)."""
    if s.verdict.bound not in LAUNCH_BOUND:
        return Value(None, "not launch or latency bound")
    if s.median_s.value is None:
        return Value(None, f"no launch time: {s.median_s.reason}")
    return Value(launch_overhead_share(s.median_s.value),
                 via=f"{s.count} launches x {seconds(LAUNCH_OVERHEAD_S)} assumed host launch cost, against "
                     f"{seconds(s.median_s.value)} median run time each, launches back to back")


def _ratio(num: Value, den: Value, what: str) -> Value:
    """num / den as a Value, None with the reason when either side is missing or zero."""
    if num.value is None or den.value is None:
        return Value(None, f"no {what}: {num.reason or den.reason or 'not measured'}")
    if den.value == 0:
        return Value(None, f"zero {what}")
    return Value(num.value / den.value)
