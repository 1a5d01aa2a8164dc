"""The numbers of the summary plot (``render.compare.plot``): one GPU's kernel groups over its reports, merged and
numbered as the summary's tables rank them (one report: its table's rank; several: the figures that ranked them,
``SummaryRow.ranked_by_value_s``, summed over those reports), each group's bar (its time, the part of it not
recoverable and its share of the reports' time) in a unit that keeps the bar axis readable, each report's
group as a share of the longest one (its marker's size) and the ceilings its roof is drawn from: its report's,
the ones ``report`` draws (``ranking.report_roofs``), with the tensor roof of the group's Tensor Core type. Pure
functions; no I/O."""

from __future__ import annotations

from collections.abc import Sequence

from msgspec import Struct

from roofline.compare.ranking import AppSummary, SummaryRow
from roofline.core.model import Ceilings

TIME_UNITS = ((1.0, "s"), (1e-3, "ms"), (1e-6, "us"))  # the bar axis's unit: the largest the longest bar reaches


class GroupBar(Struct, frozen=True):
    """One group's bar: its time summed over the reports (with a time) and the recoverable part of it (None where
    a report does not know it), in seconds; the same in the panel's unit with the part not recoverable
    (``attained``, the recoverable part 0 where unknown); its share of the reports' time in percent (None without
    their whole time); and the small-grid part, counted apart as the summary's text counts it (``small_grid_s``:
    None where no report knows it; ``small_grid`` in the panel's unit, within ``attained``, and ``peak_bound``, the
    rest of ``attained``: the time held by the units' peaks and the launch floor). Drawn from the left: peak-bound,
    small grids (from ``peak_bound``), recoverable (from ``attained``)."""

    total_s: float
    recoverable_s: float | None
    total: float
    attained: float
    recoverable: float
    share_pct: float | None
    small_grid_s: float | None = None
    small_grid: float = 0.0
    peak_bound: float = 0.0


class MergedGroup(Struct, frozen=True):
    """A kernel group of a GPU's reports: its rows (one per report that shows it), its number (rank over all of
    them) and its bar (None where no report has its time)."""

    name: str
    number: int
    rows: tuple[SummaryRow, ...]
    bar: GroupBar | None


class GpuGroups(Struct, frozen=True):
    """A GPU's reports (their summaries) and their groups, in number order; per row of the reports (in their order,
    summary by summary) its time over the longest row's (0 to 1: its marker's size); the reports' whole time (None
    where a report does not have one) and the bars' unit; per row, the ceilings its roof is drawn from
    (``row_ceilings``)."""

    summaries: tuple[AppSummary, ...]
    groups: tuple[MergedGroup, ...]
    sizes: tuple[float, ...]
    total_s: float | None
    unit: str
    ceilings: tuple[Ceilings, ...] = ()


def gpu_panels(summaries: Sequence[AppSummary]) -> tuple[GpuGroups, ...]:
    """The summaries' groups per GPU (its name and spec: the reports on it together), in the order of each GPU's
    first report (``gpu_groups``)."""
    gpus: dict[tuple[str, str | None], list[AppSummary]] = {}
    for s in summaries:
        gpus.setdefault((s.report.device, s.report.spec_id), []).append(s)
    return tuple(gpu_groups(on_one) for on_one in gpus.values())


def gpu_groups(summaries: Sequence[AppSummary]) -> GpuGroups:
    """The groups of the summaries of one GPU's reports merged and numbered (``GpuGroups``)."""
    rows = [r for s in summaries for r in s.rows]
    grouped: dict[str, list[SummaryRow]] = {}
    for r in rows:
        grouped.setdefault(r.group.name, []).append(r)
    names = sorted(grouped, key=lambda name: _merged_rank(grouped[name]))
    totals = [s.report.total_time_s for s in summaries]
    total_s = None if any(t is None for t in totals) else sum(t or 0.0 for t in totals)
    times = {name: [r.group.total_s for r in grouped[name] if r.group.total_s is not None] for name in names}
    scale, unit = _time_unit(max((sum(t) for t in times.values() if t), default=0.0))
    groups = tuple(MergedGroup(name, n, tuple(grouped[name]), _bar(grouped[name], times[name], scale, total_s))
                   for n, name in enumerate(names, 1))
    longest = max((r.group.total_s or 0.0 for r in rows), default=0.0)
    sizes = tuple((r.group.total_s or 0.0) / longest if longest else 0.0 for r in rows)
    ceilings = tuple(row_ceilings(s, r) for s in summaries for r in s.rows)
    return GpuGroups(tuple(summaries), groups, sizes, total_s, unit, ceilings)


def row_ceilings(summary: AppSummary, row: SummaryRow) -> Ceilings:
    """The ceilings a summary row's roof is drawn from: its report's (``AppSummary.ceilings``) for the row's Tensor
    Core type; the row's own (its launches pooled) where the report has none of that type."""
    dtype = row.stats.ceilings.tensor_dtype
    return next((c for c in summary.ceilings if c.tensor_dtype == dtype or not row.stats.flops["tensor"].value),
                row.stats.ceilings)


def _bar(rows: Sequence[SummaryRow], times: Sequence[float], scale: float, total_s: float | None) -> GroupBar | None:
    if not times:
        return None
    total = sum(times)
    recoverable = [r.group.recoverable_s for r in rows]
    known = None if any(x is None for x in recoverable) else sum(x or 0.0 for x in recoverable)
    small = [r.group.small_grid_s for r in rows if r.group.small_grid_s is not None]
    grid = sum(small) if small else None
    attained = total - (known or 0.0)
    return GroupBar(total, known, total / scale, attained / scale, (known or 0.0) / scale,
                    100.0 * total / total_s if total_s else None, grid, (grid or 0.0) / scale,
                    (attained - (grid or 0.0)) / scale)


def _merged_rank(rows: Sequence[SummaryRow]) -> tuple[bool, float, int]:
    """A group's sort key over several reports, as each report's table ranks its rows: the most of the figures that
    ranked it (time to gain, else recoverable time) summed first; placed by its total time in any report (neither
    known): last; ties by its best rank. One report: its table's order."""
    unplaced = any(r.ranked_by_kind == "total_time" for r in rows)
    placed = sum(r.ranked_by_value_s or 0.0 for r in rows if r.ranked_by_kind != "total_time")
    return unplaced, -placed, min(r.rank for r in rows)


def _time_unit(longest_s: float) -> tuple[float, str]:
    """Scale and unit that keep the bar axis readable (s, ms or us)."""
    return next(((f, u) for f, u in TIME_UNITS[:-1] if longest_s >= f), TIME_UNITS[-1])
