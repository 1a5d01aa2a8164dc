"""The whole-application view of ``roofline summary``: launches grouped by kernel (or NVTX range), aggregated,
and ranked by the time they would save with their busiest unit at its peak. Pure functions over
``ReportAnalysis``; no I/O."""

from __future__ import annotations

from collections.abc import Sequence

from msgspec import Struct
from msgspec.structs import replace

from roofline.analysis.kernels import KernelStats, aggregate
from roofline.analysis.launches import KernelGroup, ReportAnalysis
from roofline.analysis.roofline import group_by_kernel, rank_by_recoverable_time
from roofline.compare.pairing import ReportRef, path_labels, report_labels, report_ref
from roofline.core.choices import GroupBy
from roofline.core.thresholds import LAUNCH_FLOOR_S
from roofline.core.units import seconds
from roofline.errors import UsageError

# What the recoverable time counts (analysis.recoverable_s), said wherever it is shown.
RECOVERABLE_COUNTS = ("recoverable = each launch's time above its busiest unit's peak (the largest of the SM and "
                      "memory throughputs, percent of roof and the busiest SM unit in whole blocks per SM), at "
                      "most its time above the launch floor "
                      f"({seconds(LAUNCH_FLOOR_S)}); small-grid launches (too few blocks to fill the GPU) "
                      "are not held back by a unit's peak, so their time is counted apart as small grids (more or "
                      "smaller blocks, batching or fusion is their fix)")


class SummaryRow(Struct, frozen=True):
    """One kernel (or NVTX range) of an application: its launches grouped, aggregated and ranked."""

    rank: int
    group: KernelGroup
    stats: KernelStats
    recoverable_share: float | None  # recoverable time / the report's total time


class AppSummary(Struct, frozen=True):
    """The top groups of one report by recoverable time (or by time when no roof position exists)."""

    report: ReportRef
    by: GroupBy
    ranked_by: str
    rows: tuple[SummaryRow, ...]
    group_count: int
    shown_share: float | None
    recoverable_s: float | None
    small_grid_s: float  # small-grid launches: their time, not counted as recoverable


def summarize(analysis: ReportAnalysis, by: GroupBy, top: int, label: str = "") -> AppSummary:
    """Group launches by kernel or NVTX range, rank by recoverable time, keep the top ``top``."""
    check_top(top)
    total = analysis.total_time_s
    groups = rank_by_recoverable_time(group_by_kernel(analysis.valid_launches, total, by))
    rows = tuple(SummaryRow(i + 1, g, aggregate(g.launches), _share(g.recoverable_s, total))
                 for i, g in enumerate(groups[:top]))
    saved = [g.recoverable_s for g in groups if g.recoverable_s is not None]
    shares = [r.group.time_share for r in rows if r.group.time_share is not None]
    return AppSummary(report_ref(analysis, label or report_labels([analysis])[0]), by, _ranked_by(groups, rows), rows,
                      len(groups), sum(shares) if shares else None, sum(saved) if saved else None,
                      sum(g.small_grid_s for g in groups))


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


def _ranked_by(groups: Sequence[KernelGroup], rows: Sequence[SummaryRow]) -> str:
    """What the ranking means: recoverable time, or total time with the reason there is no roof position."""
    if any(g.recoverable_s is not None for g in groups):
        return "recoverable time"
    if not rows:
        return "nothing: no launch of this report is valid"
    return f"total time (recoverable time unknown: {rows[0].stats.why_no_roof})"
