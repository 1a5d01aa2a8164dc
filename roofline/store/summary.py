"""``roofline summary STORE``: each report's kernel groups ranked from the store, in SQL over its ``launches``,
with the figures ``summary`` gives from the report files: per group its valid launches, their total, median,
shortest and longest time, share of the report's time, median percent of roof, recoverable time, small-grid time
and time to gain (each launch's ``analysis.advice.lead_saving``, stored when collected), ranked by time to gain,
then recoverable time, then total time (``compare.ranking.summarize``)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from roofline.core.choices import GroupBy
from roofline.store.query import query
from roofline.store.text import QueryFormat, formatted

if TYPE_CHECKING:  # pragma: no cover
    import pyarrow as pa

GROUP_KEYS: dict[GroupBy, str] = {"kernel": "kernel", "function": "function",
                                  "nvtx": "coalesce(nvtx, '(no NVTX range)')"}

SUMMARY_SQL = """
WITH g AS (
    SELECT report_id, {key} AS name, count(*) AS count, sum(duration_s) AS total_s, median(duration_s) AS median_s,
           min(duration_s) AS min_s, max(duration_s) AS max_s, median(pct_of_roof) AS median_pct_of_roof,
           sum(recoverable_s) AS recoverable_s,
           sum(CASE WHEN bound = 'small_grid' THEN coalesce(duration_s, 0) ELSE 0 END) AS small_grid_s,
           sum(time_to_gain_s) AS time_to_gain_s, min(launch) AS first
    FROM launches WHERE valid GROUP BY report_id, name),
ranked AS (
    SELECT r.path, r.device, row_number() OVER (PARTITION BY g.report_id ORDER BY
               coalesce(g.time_to_gain_s, g.recoverable_s) IS NULL, coalesce(g.time_to_gain_s, g.recoverable_s) DESC,
               g.recoverable_s IS NULL, g.recoverable_s DESC, g.total_s DESC NULLS LAST, g.first) AS rank,
           g.name, g.count, g.total_s, g.total_s / nullif(r.total_time_s, 0) AS time_share, g.time_to_gain_s,
           g.recoverable_s, g.small_grid_s, g.median_s, g.min_s, g.max_s, g.median_pct_of_roof
    FROM g JOIN reports r USING (report_id))
SELECT * FROM ranked WHERE rank <= {top} ORDER BY path, rank
"""


def summary_table(store: str | os.PathLike[str], by: GroupBy = "kernel", top: int = 10) -> pa.Table:
    """Per report of the store, its ``top`` kernel groups (by kernel, function name or NVTX range), ranked."""
    return query(store, SUMMARY_SQL.format(key=GROUP_KEYS[by], top=int(top)))


def is_store(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is a store's folder (it holds a manifest), not a report file."""
    from pathlib import Path

    from roofline.store.dataset import MANIFEST

    return Path(path).is_dir() and (Path(path) / MANIFEST).is_file()


def summary_text(store: str | os.PathLike[str], by: GroupBy, top: int, fmt: QueryFormat,
                 width: int | None = None) -> str:
    """``summary STORE``: the ranking as an aligned table (its names cut to fit ``width``, whole without), CSV or
    JSON (one object per kernel group)."""
    from roofline.compare.ranking import check_top

    check_top(top)
    return formatted(summary_table(store, by, top), fmt, width)
