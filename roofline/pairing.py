"""Pair kernels across reports (GPU generations, before/after), with measured and ceiling-expected speedups,
and project them onto another GPU. Pure functions over ``ReportAnalysis``; no I/O.

A kernel in one report is the group of its launches under a match key (``KernelStats``): FLOPs per
precision, bytes per level and time are summed over the launches; rates are summed amount / summed time
(the time-weighted mean); intensity is summed FLOPs / summed bytes; percent of roof comes from
``analysis.roof_position`` on the sums against the ceilings of the group's median-duration launch, i.e. the
ceilings that report was analysed with (its own GPU's), and the verdict from the launches' throughputs averaged
over their time (``verdict.pooled_verdict``). Times per launch are the mean, total / count, so
that every figure below comes from the same totals.

* Roof time ``T_roof = max(F_p / peak_p over precisions, B_l / BW_l over levels)``: the shortest time the
  roofs allow for the measured work (``roof_time``).
* Measured speedup of report i over the base (report 0) = time per launch (base) / time per launch (i).
* Expected speedup from the ceilings alone = T_roof per launch (base) / T_roof per launch (i). For one
  precision and the same work on both sides, ``T_roof = F / min(peak, AI x BW)``, so this is the ratio of
  attainable performance ``min(peak, AI x BW)`` at the kernel's intensity on each GPU's own roofline.
* ``kept_up`` = measured / expected = percent of roof (i) / percent of roof (base): 1 means the kernel
  gained exactly what the hardware allows, below 1 it fell behind its new roof.
* Projection onto a spec: ``T_roof`` of the measured work against the spec's ceilings, a lower bound on the
  time there (never a measurement); levels or precisions the spec gives no ceiling for are left out, named.

The regression gate (``roofline.regression``) and the whole-application ranking (``roofline.ranking``) are
built on these pairs and aggregates.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from roofline.analysis import intensity, rate, roof_position
from roofline.errors import RooflineError
from roofline.kernel_families import family
from roofline.model import LEVELS, PRECISIONS, Ceilings, CeilingSet
from roofline.results import LaunchAnalysis, ReportAnalysis, RoofPosition, Value, Verdict
from roofline.timelimit import REGEX_LIMIT_S, within
from roofline.verdict import pooled_verdict

if TYPE_CHECKING:  # pragma: no cover
    from roofline.specs import DeviceSpec

MatchMode = Literal["name", "demangled", "order", "family", "regex"]  # --match: the modes, or regex:PATTERN
MATCH_MODES: tuple[MatchMode, ...] = ("name", "demangled", "order", "family")
_REFERENCE_S = 1.0  # roof_position's percent at a 1 s reference duration is the roof time in 1/100 s


# --- One kernel in one report ---------------------------------------------------------------------------
@dataclass(frozen=True)
class KernelStats:
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

    @property
    def name(self) -> str:
        return " | ".join(self.names)


def aggregate(launches: Sequence[LaunchAnalysis]) -> KernelStats:
    """Sum a kernel's launches into one ``KernelStats`` (rates from the sums, roof of the sums)."""
    total = _sum([a.duration_s for a in launches])
    times = [a.duration_s.value for a in launches if a.duration_s.value is not None]
    flops = {p: _sum([a.flops[p] for a in launches]) for p in PRECISIONS}
    moved = {level: _sum([a.bytes[level] for a in launches]) for level in LEVELS}
    ceilings = _median_launch(launches).ceilings[launches[0].roof.ceilings]
    duration = Value(total.value, via=total.via if total.value is not None else total.reason)
    roof_s = roof_time(flops, moved, ceilings)
    roof = roof_position(flops, moved, total.value, ceilings)
    return KernelStats(
        names=tuple(dict.fromkeys(a.launch.name for a in launches)), count=len(launches), total_s=total,
        median_s=Value(statistics.median(times)) if total.value is not None else total,
        per_launch_s=_per_launch(total, len(launches)),
        flops=flops, flop_per_s={p: rate(v, duration) for p, v in flops.items()},
        bytes=moved, bytes_per_s={level: rate(v, duration) for level, v in moved.items()},
        intensity=intensity(flops, moved), ceilings=ceilings,
        roof=roof, verdict=pooled_verdict([(a.launch, a.duration_s.value) for a in launches], roof),
        roof_time_s=_per_launch(roof_s, len(launches)), attainable_flop_per_s=_attainable(flops, roof_s))


def roof_time(flops: Mapping[str, Value], moved: Mapping[str, Value], ceilings: Ceilings) -> Value:
    """T_roof = max(F_p / peak_p, B_l / BW_l): ``roof_position`` at a 1 s reference duration, so no new formula."""
    roof = roof_position(flops, moved, _REFERENCE_S, ceilings)
    if roof.pct_of_roof is None:
        return Value(None, roof.reason)
    return Value(roof.pct_of_roof / 100.0 * _REFERENCE_S, reason=roof.reason, via=f"limited by {roof.limiter}")


def why_no_roof(s: KernelStats) -> str:
    """Why a kernel has no percent of roof; short when the report has no FLOP or byte counter at all."""
    if all(v.value is None for v in (*s.flops.values(), *s.bytes.values())):
        return f"times only, the report has no FLOP or byte counters ({s.flops['fp32'].reason})"
    return s.roof.reason


def _attainable(flops: Mapping[str, Value], roof_s: Value) -> Value:
    """Attainable FLOP/s at the kernel's intensity = FLOPs / T_roof (= min(peak, AI x BW) for one precision)."""
    known = [v.value for v in flops.values() if v.value is not None]
    if not known:
        return Value(None, "no FLOP count: " + next((v.reason for v in flops.values() if v.reason), ""))
    if sum(known) == 0:
        return Value(None, "no floating-point work: the kernel is judged on bandwidth only")
    if not roof_s.value:
        return Value(None, roof_s.reason or "no roof time")
    return Value(sum(known) / roof_s.value, via="FLOPs / roof time")


def _sum(values: Sequence[Value]) -> Value:
    """Sum over launches; None (with the first launch's reason) when any launch lacks the value."""
    known = [v.value for v in values if v.value is not None]
    if len(known) < len(values):
        missing = next(v for v in values if v.value is None)
        return Value(None, missing.reason or "not measured")
    return Value(sum(known), via=values[0].via if values else "")


def _per_launch(total: Value, count: int) -> Value:
    return Value(total.value / count, total.reason, total.via) if total.value is not None else total


def _median_launch(launches: Sequence[LaunchAnalysis]) -> LaunchAnalysis:
    ordered = sorted(launches, key=lambda a: a.duration_s.value or 0.0)
    return ordered[(len(ordered) - 1) // 2]


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


def keyed_kernels(analysis: ReportAnalysis, matcher: Matcher, index: int) -> dict[Key, list[LaunchAnalysis]]:
    """Launches of report ``index`` by match key, in order of first launch (user regexes under a time limit)."""
    out: dict[Key, list[LaunchAnalysis]] = {}
    order: dict[str, int] = {}

    def key_all() -> dict[Key, list[LaunchAnalysis]]:
        for a in analysis.valid_launches:
            key = _map_key(a, matcher, index) or _mode_key(a, matcher, order)
            out.setdefault(key, []).append(a)
        return out

    return within(REGEX_LIMIT_S, f"the --match/--map patterns on the names in {analysis.report.path}", key_all)


def _map_key(a: LaunchAnalysis, matcher: Matcher, index: int) -> Key | None:
    for patterns in matcher.maps:
        rx = patterns[index]
        if rx.fullmatch(a.launch.name) or rx.fullmatch(a.launch.demangled_name):
            return "map", "=".join(p.pattern for p in patterns)
    return None


def _mode_key(a: LaunchAnalysis, matcher: Matcher, order: dict[str, int]) -> Key:
    mode, name = matcher.mode, a.launch.name
    if mode == "demangled":
        return "demangled", a.launch.demangled_name or name
    if mode == "order":
        return "order", str(order.setdefault(name, len(order) + 1))
    if mode == "family":  # a library kernel's architecture-neutral family, else its own name
        return "family", family(name, a.launch.demangled_name)
    rx = matcher.pattern
    if mode == "regex" and rx is not None:
        found = rx.search(name) or rx.search(a.launch.demangled_name)
        if found:
            key = found.group(1) if rx.groups and found.group(1) else found.group(0)
            return f"regex:{rx.pattern}", key
    return "name", name


# --- Comparing reports --------------------------------------------------------------------------------
@dataclass(frozen=True)
class ReportRef:
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


@dataclass(frozen=True)
class Projection:
    """Roofline lower bound on the time per launch of a kernel's measured work on another GPU (a bound)."""

    target: str
    bound_s: Value
    limiter: str | None
    left_out: tuple[str, ...]
    max_speedup: Value  # measured time per launch / bound: the most the target could gain


@dataclass(frozen=True)
class KernelPair:
    """A kernel of the base report matched in other reports: its stats in each (None where absent) and the
    speedups of each report relative to the base (report 0)."""

    key: str
    matched_by: str
    sides: tuple[KernelStats | None, ...]
    speedup: tuple[Value, ...]
    expected_speedup: tuple[Value, ...]
    kept_up: tuple[Value, ...]
    projections: tuple[Projection | None, ...] = ()

    @property
    def label(self) -> str:
        """The kernel name, or ``a -> b`` when the names differ between reports."""
        names = [s.name for s in self.sides if s is not None]
        return names[0] if len(set(names)) == 1 else " -> ".join(names)

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


@dataclass(frozen=True)
class Comparison:
    """Kernels of the base report paired with the other reports; ``unmatched[i]`` are the kernels of report i
    left without a partner (for the base: in no other report; for the others: not in the base)."""

    reports: tuple[ReportRef, ...]
    matching: str
    pairs: tuple[KernelPair, ...]
    unmatched: tuple[tuple[str, ...], ...]
    project_to: str | None = None


def report_labels(analyses: Sequence[ReportAnalysis]) -> list[str]:
    """Short report labels: file names without extension, numbered when the same file appears twice."""
    return path_labels([a.report.path for a in analyses])


def path_labels(paths: Sequence[str]) -> list[str]:
    """``report_labels`` of the reports at these paths."""
    stems = [Path(path).name.removesuffix(".ncu-rep").removesuffix(".json") for path in paths]
    return [s if stems.count(s) == 1 else f"{s}#{stems[:i + 1].count(s)}" for i, s in enumerate(stems)]


def report_ref(analysis: ReportAnalysis, label: str) -> ReportRef:
    """The identifying facts of one analysed report."""
    d = analysis.device
    return ReportRef(label, analysis.report.path, d.name, d.compute_capability, analysis.spec_id,
                     analysis.ceilings_used, len(analysis.launches), analysis.total_time_s, analysis.report.warnings)


def pair_reports(analyses: Sequence[ReportAnalysis], matcher: Matcher = Matcher(),
                 project_to: DeviceSpec | None = None) -> Comparison:
    """Pair each base kernel found in at least one other report (largest base time first; with one report,
    every kernel) and compute speedups and projections."""
    if not analyses:
        raise RooflineError("no report to compare", "pass two or more report files")
    labels = report_labels(analyses)
    keyed = [keyed_kernels(a, matcher, i) for i, a in enumerate(analyses)]
    rows = [k for k in keyed[0] if len(keyed) == 1 or any(k in kd for kd in keyed[1:])]
    pairs = [_pair(k, aggregate(keyed[0][k]), [aggregate(kd[k]) if k in kd else None for kd in keyed[1:]], labels,
                   project_to) for k in rows]
    pairs.sort(key=lambda p: -(p.base.total_s.value or 0.0))
    paired = set(rows)
    unmatched = tuple(tuple(_key_text(k, kd[k]) for k in kd if k not in paired) for kd in keyed)
    return Comparison(tuple(report_ref(a, label) for a, label in zip(analyses, labels, strict=True)), matcher.label,
                      tuple(pairs), unmatched, project_to.id if project_to else None)


def _key_text(key: Key, launches: Sequence[LaunchAnalysis]) -> str:
    """A key as shown to the user: the kernel names behind an order key, else the key itself."""
    return key[1] if key[0] != "order" else " | ".join(dict.fromkeys(a.launch.name for a in launches))


def _pair(key: Key, base: KernelStats, others: list[KernelStats | None], labels: Sequence[str],
          target: DeviceSpec | None) -> KernelPair:
    """Speedups of every side over the base (side 0); a side absent from its report gets None with why."""
    sides = [base, *others]
    speedup: list[Value] = []
    expected: list[Value] = []
    for side, label in zip(sides, labels, strict=True):
        absent = Value(None, f"kernel not in {label}")
        speedup.append(_ratio(base.per_launch_s, side.per_launch_s, "time per launch") if side else absent)
        expected.append(_ratio(base.roof_time_s, side.roof_time_s, "roof time") if side else absent)
    kept = tuple(_ratio(a, b, "speedup") for a, b in zip(speedup, expected, strict=True))
    projections = tuple(project(s, target) if s else None for s in sides) if target is not None else ()
    how = {"map": f"map {key[1]}", "order": f"order #{key[1]}"}.get(key[0], key[0])
    return KernelPair(f"#{key[1]}" if key[0] == "order" else key[1], how, tuple(sides), tuple(speedup),
                      tuple(expected), kept, projections)


def _ratio(num: Value, den: Value, what: str) -> Value:
    """num / den as a Value, None with the reason when either side is missing or zero."""
    if num.value is None or den.value is None:
        return Value(None, f"no {what}: {num.reason or den.reason or 'not measured'}")
    if den.value == 0:
        return Value(None, f"zero {what}")
    return Value(num.value / den.value)


def project(stats: KernelStats, spec: DeviceSpec) -> Projection:
    """Lower bound on the time per launch of this kernel's measured work against ``spec``'s ceilings."""
    from roofline.specs import spec_ceilings

    target = spec_ceilings(spec, stats.ceilings.tensor_dtype)
    bound = _per_launch(roof_time(stats.flops, stats.bytes, target), stats.count)
    limiter = roof_position(stats.flops, stats.bytes, _REFERENCE_S, target).limiter
    return Projection(spec.id, bound, limiter, _left_out(stats, target),
                      _ratio(stats.per_launch_s, bound, "projected bound"))


def _left_out(stats: KernelStats, target: Ceilings) -> tuple[str, ...]:
    """Precisions and levels the projection cannot include: no ceiling in the spec, or not measured."""
    out = [f"{p} (no {p} ceiling in the spec)" for p in PRECISIONS
           if stats.flops[p].value and not target.flop_per_s[p]]
    for level in LEVELS:
        if stats.bytes[level].value is None:
            out.append(f"{level} (bytes not measured)")
        elif not target.bytes_per_s[level]:
            out.append(f"{level} (no {level} bandwidth in the spec)")
    return tuple(out)
