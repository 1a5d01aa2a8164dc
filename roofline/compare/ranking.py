"""The whole-application view of ``roofline summary``: launches grouped by kernel (or NVTX range), aggregated,
and ranked by their time to gain (``analysis.advice.time_to_gain``: what each launch's first advice item saves,
the figure ``report`` shows), else by the time they would save with their busiest unit at its peak. Each row says
which figure placed it (``ranked_by_kind``, ``ranked_by_value_s``): a kernel without an estimated saving is placed
by its recoverable time, one without either by its total time. Pure functions over ``ReportAnalysis``; no I/O."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from msgspec import Struct
from msgspec.structs import replace

from roofline.analysis.advice import rank_by_time_to_gain, unestimated
from roofline.analysis.kernels import KernelStats, aggregate
from roofline.analysis.launches import KernelGroup, ReportAnalysis, no_valid_launch
from roofline.analysis.roofline import (
    group_by_kernel,
    rank_by_recoverable_time,
    report_level_ceilings,
    tensor_median,
)
from roofline.compare.pairing import ReportRef, path_labels, report_labels, report_ref
from roofline.core.choices import GroupBy
from roofline.core.model import Ceilings
from roofline.core.thresholds import LAUNCH_FLOOR_S
from roofline.core.units import seconds
from roofline.errors import REPROFILE_INVALID, ReportError, UsageError

# What the recoverable time counts (analysis.recoverable_s), said wherever it is shown.
RECOVERABLE_COUNTS = ("recoverable = each launch's time above its floor at the peaks a kernel can reach, where it "
                      "has a time model (the grade's most saved keeping the work and grid: a full peak is not "
                      "always reachable), else its time above its busiest unit's peak (the largest of the SM and "
                      "memory throughputs, percent of roof and the busiest SM unit in whole blocks per SM), at "
                      f"most its time above the launch floor ({seconds(LAUNCH_FLOOR_S)}); small-grid launches (too "
                      "few blocks to fill the GPU) "
                      "are not held back by a unit's peak, so their time is counted apart as small grids, by the "
                      "grade too (more or smaller blocks, batching or fusion is their fix)")


# Which launches the time to gain counts (analysis.advice.lead_saving, time_to_gain, unestimated): the one rule,
# said word for word by the summary's legend, its JSON (time_to_gain_counts), `summary --help` and docs/comparisons.md.
TIME_TO_GAIN_RULE = ("a launch whose advice has no estimated item adds nothing (how many such launches a kernel has, "
                     "and their recoverable time, are given with it); a launch with neither advice nor a time model "
                     "adds its recoverable time; a kernel without any estimated item is placed by its recoverable "
                     "time")
# What the time to gain counts (analysis.advice.time_to_gain), said wherever the summary shows it.
TIME_TO_GAIN_COUNTS = ("to gain = what each launch's first estimated advice item saves (the most one change saves), "
                       "summed over the kernel's launches: the report's time to gain and the first item of its "
                       f"advice; {TIME_TO_GAIN_RULE}")


# The figure that placed a summary row: its time to gain; else (no estimated saving, or a report ranked by
# recoverable time) its recoverable time; else (neither) its total time, after the others.
RankedByKind = Literal["time_to_gain", "recoverable", "total_time"]


class SummaryRow(Struct, frozen=True):
    """One kernel (or NVTX range) of an application: its launches grouped, aggregated and ranked."""

    rank: int
    group: KernelGroup
    stats: KernelStats
    recoverable_share: float | None  # recoverable time / the report's total time
    time_to_gain_s: float | None = None  # the kernel's time to gain (``analysis.advice.time_to_gain``)
    ranked_by_kind: RankedByKind = "time_to_gain"  # the figure that placed the row (``placed_by``)
    ranked_by_value_s: float | None = None  # that figure, in seconds
    # of a row with a time to gain, its timed launches without an estimated item, which that figure leaves out, and
    # their recoverable time summed (``advice.unestimated``); None for a row without a time to gain
    unestimated_launches: int | None = None
    unestimated_recoverable_s: float | None = None


class AppSummary(Struct, frozen=True):
    """The top groups of one report by time to gain (a group without one by its recoverable time), by recoverable
    time where the report was not advised, or by time when no roof position exists."""

    report: ReportRef
    by: GroupBy
    ranked_by: str
    rows: tuple[SummaryRow, ...]
    group_count: int
    shown_share: float | None
    recoverable_s: float | None
    small_grid_s: float | None  # small-grid launches: their time, not recoverable (None: no group's is known)
    time_to_gain_s: float | None = None  # the groups' times to gain summed, None where no group has one
    # in a ranking by time to gain, the groups without one, placed by their recoverable time, and that time summed
    groups_without_gain: int = 0
    without_gain_recoverable_s: float | None = None  # 0 where no group lacks a time to gain; None unless ranked by it
    no_kernel: str = ""  # why the report has no kernel group (``launches.no_valid_launch``); "" where it has one
    # the report's ceilings as ``report`` shows them, one per Tensor Core type it computes in (``report_roofs``)
    ceilings: tuple[Ceilings, ...] = ()


def summarize(analysis: ReportAnalysis, by: GroupBy, top: int, label: str = "") -> AppSummary:
    """Group launches by kernel or NVTX range, rank by time to gain (then recoverable time), keep the top ``top``."""
    check_top(top)
    total = analysis.total_time_s
    grouped = group_by_kernel(analysis.valid_launches, total, by)
    advised = _advised(analysis)
    ranked = (rank_by_time_to_gain(grouped) if advised
              else [(g.recoverable_s, g) for g in rank_by_recoverable_time(grouped)])
    groups = [g for _, g in ranked]
    placed = [placed_by(gain, g, advised) for gain, g in ranked]
    rows = tuple(SummaryRow(i + 1, g, aggregate(g.launches), _share(g.recoverable_s, total), gain, *place,
                            *(unestimated(g) if advised and gain is not None else (None, None)))
                 for i, ((gain, g), place) in enumerate(list(zip(ranked, placed, strict=True))[:top]))
    saved = [g.recoverable_s for g in groups if g.recoverable_s is not None]
    small = [g.small_grid_s for g in groups if g.small_grid_s is not None]
    gains = [gain for gain, _ in ranked if gain is not None]
    shares = [r.group.time_share for r in rows if r.group.time_share is not None]
    by_gain = advised and bool(gains)
    without = [value for kind, value in placed if by_gain and kind == "recoverable" and value is not None]
    return AppSummary(report_ref(analysis, label or report_labels([analysis])[0]), by,
                      _ranked_by(groups, rows, by_gain), rows, len(groups),
                      sum(shares) if shares else None, sum(saved) if saved else None,
                      sum(small) if small else None, sum(gains) if gains else None,
                      len(without), float(sum(without)) if by_gain else None,
                      "" if groups else no_valid_launch(analysis), report_roofs(analysis))


def nothing_to_summarise(summaries: Sequence[AppSummary]) -> list[ReportError]:
    """One ReportError (one line) per report where no report has a valid launch, nothing at all to summarise (as
    ``grade`` refuses a report without one); none where one report has one (a report without any is summarised as
    such beside the others)."""
    if any(s.group_count for s in summaries):
        return []
    return [ReportError(f"{s.report.path}: nothing to summarise: {s.no_kernel or 'no kernel group'}",
                        REPROFILE_INVALID)
            for s in summaries]


def placed_by(gain: float | None, group: KernelGroup, advised: bool) -> tuple[RankedByKind, float | None]:
    """The figure that placed a group (``RankedByKind``) and its value: its time to gain where the report was
    advised and it has one, else its recoverable time, else its total time."""
    if advised and gain is not None:
        return "time_to_gain", gain
    if group.recoverable_s is not None:
        return "recoverable", group.recoverable_s
    return "total_time", group.total_s


def _advised(analysis: ReportAnalysis) -> bool:
    """Whether every launch was given whole, diagnosed and advised (the pipeline's ``diagnostics``): else each
    launch's time to gain is its recoverable time (``advice.lead_saving``), read from the columns without building
    a launch."""
    if not analysis.launches.table.built >= len(analysis.report.launches) > 0:
        return False
    return any(k.time_model is not None for k in analysis.valid_launches)


def labelled(summaries: Sequence[AppSummary]) -> list[AppSummary]:
    """The summaries of one run with their reports' labels told apart (``pairing.report_labels``): each report was
    summarised alone (in a worker or on an MPI rank), so only here are the other reports known."""
    labels = path_labels([s.report.path for s in summaries])
    return [replace(s, report=replace(s.report, label=label)) for s, label in zip(summaries, labels, strict=True)]


def check_top(top: int) -> None:
    """UsageError for a ``--top`` below 1."""
    if top < 1:
        raise UsageError(f"--top {top}: must be at least 1", "e.g. --top 10")


def _share(part: float | None, total: float | None) -> float | None:
    return part / total if part is not None and total else None


def _ranked_by(groups: Sequence[KernelGroup], rows: Sequence[SummaryRow], gains: bool) -> str:
    """What the ranking means: time to gain, recoverable time, or total time with the reason there is no roof
    position."""
    if gains:
        return "time to gain"
    if any(g.recoverable_s is not None for g in groups):
        return "recoverable time"
    if not rows:
        return "nothing: no launch of this report is valid"
    return f"total time (recoverable time unknown: {rows[0].stats.why_no_roof})"


def report_roofs(analysis: ReportAnalysis) -> tuple[Ceilings, ...]:
    """The report's ceilings of the set it is judged against, the figure ``report`` shows and draws
    (``report_level_ceilings``: each roof the time-weighted median over its launches), first; then, per other
    Tensor Core type its launches compute in, the same with the tensor roof of that type (the median over the
    launches of that type, as the report's own is over those of its type). Empty where no launch has that set, and
    where the launches' analyses are not all built (an analysis without diagnostics: the summary builds only the
    launches it shows, and each group's roof is then its own launches' pooled): ``summary`` diagnoses every launch."""
    source = analysis.ceilings_used
    if analysis.launches.table.built < len(analysis.launches):
        return ()
    shown = report_level_ceilings(analysis.launches, (source,)).get(source)
    if shown is None:
        return ()
    of_type: dict[str, list[tuple[Ceilings, float]]] = {}
    for k in analysis.launches:
        c = k.ceilings.get(source)
        if c is not None and c.tensor_dtype not in (None, shown.tensor_dtype) and k.flops["tensor"].value:
            of_type.setdefault(c.tensor_dtype, []).append((c, k.duration_s.value or 0.0))
    return (shown, *(replace(shown, flop_per_s={**shown.flop_per_s, "tensor": tensor_median(timed)}, tensor_dtype=dtype)
                     for dtype, timed in of_type.items()))
