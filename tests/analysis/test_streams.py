"""The streams view (``analysis.streams``) against figures computed another way: by hand on a small export, with
SQL straight on the real exports of ../shared/nsys-reps (the copy time under kernels as the sum of each copy's
intersection with each kernel, the idle gaps from a running maximum of the ends)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from roofline.analysis.streams import BINS, OTHERS, STREAM_ROWS, streams_view
from roofline.core.streams import StreamActivity, StreamTrace
from roofline.nsys.streams import stream_trace
from tests.conftest import find_shared_nsys
from tests.nsys import streams_export
from tests.nsys.streams_export import MS, SESSION_NS

KERNELS = "CUPTI_ACTIVITY_KIND_KERNEL"
MEMCPY = "CUPTI_ACTIVITY_KIND_MEMCPY"
MEMSET = "CUPTI_ACTIVITY_KIND_MEMSET"


def _view(*paths: Path):
    view = streams_view([stream_trace(p, p) for p in paths])
    assert view is not None
    return view


def _covered_ms(db: sqlite3.Connection, sql: str) -> set[int]:
    """The milliseconds some row of ``sql`` (start, end in whole ms) covers: an interval union without merging."""
    return {ms for s, e in db.execute(sql) for ms in range(s // MS, e // MS)}


def test_copy_time_under_kernels_counts_each_millisecond_once(tmp_path: Path) -> None:
    path = streams_export.write(tmp_path / "a.sqlite")
    (overlap,) = _view(path).overlaps
    with sqlite3.connect(path) as db:
        kernels = _covered_ms(db, f'SELECT start, "end" FROM {KERNELS}')
        copies = _covered_ms(db, f'SELECT start, "end" FROM {MEMCPY}')
    assert overlap.copy_s == pytest.approx(len(copies) * 1e-3)
    assert overlap.kernel_s == pytest.approx(len(kernels) * 1e-3)
    assert overlap.hidden_s == pytest.approx(len(copies & kernels) * 1e-3)
    assert overlap.hidden_pct == pytest.approx(100 * len(copies & kernels) / len(copies))
    assert (overlap.copy_s, overlap.hidden_s) == pytest.approx((0.028, 0.016))  # worked out by hand


def gaps_sql(tables: set[str]) -> str:
    """The five longest holes in the union of a GPU's kernels, copies and memsets, from a running maximum."""
    work = " UNION ALL ".join(f'SELECT start, "end" FROM {t} WHERE deviceId = :dev'
                              for t in (KERNELS, MEMCPY, MEMSET) if t in tables)
    return GAPS_SQL.format(work=work)


GAPS_SQL = """WITH a AS ({work}),
                    b AS (SELECT start, MAX("end") OVER (ORDER BY start, "end" ROWS BETWEEN UNBOUNDED PRECEDING
                                                         AND 1 PRECEDING) AS prev FROM a)
               SELECT prev, start - prev FROM b WHERE start > prev ORDER BY 2 DESC, 1 LIMIT 5"""


def test_the_longest_gaps_and_their_neighbours(tmp_path: Path) -> None:
    path = streams_export.write(tmp_path / "a.sqlite")
    view = _view(path)
    with sqlite3.connect(path) as db:
        expected = db.execute(gaps_sql({KERNELS, MEMCPY, MEMSET}), {"dev": 0}).fetchall()
    assert [g.start_s for g in view.gaps] == pytest.approx([s * 1e-9 for s, _ in expected])
    assert [g.length_s for g in view.gaps] == pytest.approx([n * 1e-9 for _, n in expected])
    first = view.gaps[0]  # 81 -> 100 ms: after the memset, before the kernel "tail"
    assert (first.start_s, first.length_s) == pytest.approx((0.081, 0.019))
    assert (first.before.kind, first.before.name, first.after.kind, first.after.name) == (
        "memset", "memset", "kernel", "tail")


def test_rows_count_every_launch_and_nvtx_nests_by_thread(tmp_path: Path) -> None:
    view = _view(streams_export.write(tmp_path / "a.sqlite"))
    by_stream = {r.stream: r for r in view.rows}
    assert (by_stream[7].kernels, by_stream[7].memsets, by_stream[13].copies, by_stream[0].copies) == (5, 1, 3, 3)
    assert by_stream[7].busy_s == pytest.approx(0.040)  # 0-10, 12-30, 60-70, 80-81, 100-101 ms
    assert [(n.depth, n.ranges) for n in view.nvtx] == [(0, 2), (1, 1), (2, 1)]
    assert [label.name for label in view.nvtx[0].labels] == ["step 1", "step 2"]
    assert view.aligned_by == "first_activity" and view.offsets_s == (0.0,)


def test_ranks_of_one_job_share_an_axis_by_their_session_starts(tmp_path: Path) -> None:
    """Rank 1's session began 3 ms after rank 0's and its work 2 ms later in its own clock: 5 ms later on the
    axis; files whose work never overlaps in wall-clock time each start at their own first activity."""
    a = streams_export.write(tmp_path / "a.sqlite")
    b = streams_export.write(tmp_path / "b.sqlite", SESSION_NS + 3 * MS, shift_ns=2 * MS)
    view = _view(a, b)
    assert view.aligned_by == "session_start"
    assert view.offsets_s == pytest.approx((0.0, 0.003))
    starts = {r.rank: r.kernel_bars[0][0] for r in view.rows if r.stream == 7}
    assert starts[1] - starts[0] == pytest.approx(0.005)
    far = streams_export.write(tmp_path / "c.sqlite", SESSION_NS + 10**12)
    assert _view(a, far).aligned_by == "first_activity"
    assert _view(a, streams_export.write(tmp_path / "d.sqlite", None)).aligned_by == "first_activity"


def test_streams_past_the_busiest_share_one_row(tmp_path: Path) -> None:
    view = _view(streams_export.write(tmp_path / "a.sqlite", streams=20))  # 3 streams + 19 one-launch ones
    others = [r for r in view.rows if r.stream == OTHERS]
    assert len(view.rows) == STREAM_ROWS + 1 and len(others) == 1
    assert sum(r.streams for r in view.rows) == 22
    assert sum(r.kernels for r in view.rows) == 5 + 19


def test_a_hundred_thousand_launches_draw_as_a_bounded_number_of_bars() -> None:
    spans = tuple((i * 1000, i * 1000 + 900 if i % 7 else i * 1000 + 400, 0) for i in range(100_000))
    trace = StreamTrace("big", None, (StreamActivity(0, 1, "kernel", spans),), ("k",), ())
    view = streams_view([trace])
    assert view is not None
    (row,) = view.rows
    assert row.kernels == 100_000 and len(row.kernel_bars) <= BINS + 1
    assert row.busy_s == pytest.approx(sum(e - s for s, e, _ in spans) * 1e-9)


@pytest.mark.parametrize("name", ["h200_nvfuser-matmul-nvtx_2025.1.sqlite",
                                  "rtx4060ti_llama3-inference-nvtx_2024.6.sqlite",
                                  "gp100_miniweather-openacc_2021.2-export2022.2.sqlite"])
def test_real_exports_overlap_and_gaps_match_sql(name: str) -> None:
    path = find_shared_nsys(name)
    view = _view(path)
    with sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True) as db:
        tables = {n for (n,) in db.execute("SELECT name FROM sqlite_master")}
        for o in view.overlaps:
            assert db.execute(f"SELECT COUNT(DISTINCT streamId) FROM {KERNELS} WHERE deviceId = ?",
                              (o.device,)).fetchone()[0] == 1  # one kernel stream: kernels never overlap
            hidden = db.execute(f"""SELECT SUM(MAX(0, MIN(c."end", k."end") - MAX(c.start, k.start)))
                                    FROM {MEMCPY} c JOIN {KERNELS} k ON k.deviceId = c.deviceId
                                    WHERE c.deviceId = ? AND c.start < k."end" AND k.start < c."end" """,
                                (o.device,)).fetchone()[0] if MEMCPY in tables else None
            assert o.hidden_s == pytest.approx((hidden or 0) * 1e-9)
            gaps = db.execute(gaps_sql(tables), {"dev": o.device}).fetchall()
            mine = [g for g in view.gaps if g.device == o.device]
            assert [g.length_s for g in mine] == pytest.approx([n * 1e-9 for _, n in gaps])
        launches = db.execute(f"SELECT COUNT(*) FROM {KERNELS}").fetchone()[0]
    assert sum(r.kernels for r in view.rows) == launches
