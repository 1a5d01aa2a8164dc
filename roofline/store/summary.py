"""``roofline summary STORE``: each report's kernel groups ranked from the store, in SQL over its ``launches``,
with the figures ``summary`` gives from the report files: per group its valid launches, their total, median,
shortest and longest time, share of the report's time, median percent of roof, recoverable time, small-grid time
and time to gain (each launch's ``analysis.advice.lead_saving``, stored when collected), ranked by time to gain,
then recoverable time, then total time (``compare.ranking.summarize``). A figure no launch of a group holds is null,
with the reason of its first launch (the lowest ``launch`` that has one in its ``missing``; the small-grid time is
null where no launch has both a time and a verdict); ``summary_document`` makes them the
``store_summary`` document (``documents.summary_store``), which ``summary STORE`` writes as JSON or as the file
summary's table."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from roofline.core.choices import GroupBy
from roofline.store.query import query

if TYPE_CHECKING:  # pragma: no cover
    import pyarrow as pa

    from roofline.documents.summary_store import StoreSummaryJson

GROUP_KEYS: dict[GroupBy, str] = {"kernel": "kernel", "function": "function",
                                  "nvtx": "coalesce(nvtx, '(no NVTX range)')"}

SUMMARY_SQL = """
WITH g AS (
    SELECT report_id, {key} AS name, count(*) AS count, sum(duration_s) AS total_s, median(duration_s) AS median_s,
           min(duration_s) AS min_s, max(duration_s) AS max_s, median(pct_of_roof) AS median_pct_of_roof,
           sum(recoverable_s) AS recoverable_s,
           CASE WHEN count(CASE WHEN bound IS NOT NULL THEN duration_s END) = 0 THEN NULL
                ELSE sum(CASE WHEN bound = 'small_grid' THEN duration_s ELSE 0 END) END AS small_grid_s,
           sum(time_to_gain_s) AS time_to_gain_s, min(launch) AS first,
           arg_min(map_extract(missing, 'duration_s')[1], launch) AS why_time,
           arg_min(map_extract(missing, 'pct_of_roof')[1], launch) AS why_roof,
           arg_min(map_extract(missing, 'recoverable_s')[1], launch) AS why_recoverable,
           arg_min(map_extract(missing, 'time_to_gain_s')[1], launch) AS why_gain,
           arg_min(map_extract(missing, 'bound')[1], launch) AS why_bound
    FROM launches WHERE valid GROUP BY report_id, name),
ranked AS (
    SELECT r.path, r.device, row_number() OVER (PARTITION BY g.report_id ORDER BY
               coalesce(g.time_to_gain_s, g.recoverable_s) IS NULL, coalesce(g.time_to_gain_s, g.recoverable_s) DESC,
               g.recoverable_s IS NULL, g.recoverable_s DESC, g.total_s DESC NULLS LAST, g.first) AS rank,
           g.name, g.count, g.total_s, g.total_s / nullif(r.total_time_s, 0) AS time_share, g.time_to_gain_s,
           g.recoverable_s, g.small_grid_s, g.median_s, g.min_s, g.max_s, g.median_pct_of_roof,
           g.why_time, g.why_roof, g.why_recoverable, g.why_gain, g.why_bound
    FROM g JOIN reports r USING (report_id))
SELECT * FROM ranked WHERE rank <= {top} ORDER BY path, rank
"""


REPORTS_SQL = "SELECT path, label, device, launches, total_time_s FROM reports ORDER BY path"


def summary_table(store: str | os.PathLike[str], by: GroupBy = "kernel", top: int = 10) -> pa.Table:
    """Per report of the store, its ``top`` kernel groups (by kernel, function name or NVTX range), ranked; beside
    each null figure's column ``why_*``, the reason of its first launch (time, roof, recoverable, gain, verdict)."""
    return query(store, SUMMARY_SQL.format(key=GROUP_KEYS[by], top=int(top)))


def summary_document(store: str | os.PathLike[str], by: GroupBy = "kernel", top: int = 10) -> StoreSummaryJson:
    """The ``store_summary`` document: the store's reports and their ``top`` groups each, ranked."""
    from roofline.compare.ranking import check_top
    from roofline.documents.summary_store import store_summary_json

    check_top(top)
    return store_summary_json(str(store), by, top, query(store, REPORTS_SQL).to_pylist(),
                              summary_table(store, by, top).to_pylist())


def is_store(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is a store's folder (it holds a manifest), not a report file."""
    from pathlib import Path

    from roofline.store.dataset import MANIFEST

    return Path(path).is_dir() and (Path(path) / MANIFEST).is_file()
