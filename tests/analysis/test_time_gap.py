"""`timeline --work` names the kernels whose nsys and ncu times are more than 2x apart and the likely cause, and
places the kernels on the roofs of a GPU no YAML names by deriving them from the report's device attributes, as
`report` does. The profile is a small export written here with the kernels of a shared RTX 5060 Ti report: one
8x slower in nsys with unified-memory migrations under its launches (as a stdpar code with managed memory shows
them), one as fast, one 3x faster; the migrations are checked against SQL on the export."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from types import SimpleNamespace

import pytest

from roofline.analysis.time_gap import time_gaps
from roofline.core.streams import Migration
from roofline.facade import Roofline
from roofline.ncu import metrics as m
from roofline.render.timeline.plot import build, draw
from roofline.render.timeline.work import has_points, time_gap_lines
from roofline.specs.catalog import DERIVED_ID, SpecCatalog
from tests.conftest import find_shared_report

REPORT = "rtx5060ti_transpose_basic"
GPU = "NVIDIA GeForce RTX 5060 Ti"
US = 1000
# short name, demangled, nsys duration (ns) per launch: ncu times them at 61 us, 67 us and 66 us
KERNELS = [("transposeMatrix", "transposeMatrix(float *, float *, int, int)", 500 * US),
           ("transposeMatrixOptimized", "transposeMatrixOptimized(float *, float *, int, int)", 67 * US),
           ("transposeMatrixHighlyOptimized", "transposeMatrixHighlyOptimized(float *, float *, int, int)", 20 * US)]
MIGRATION = 64 * 1024  # bytes of each unified-memory move, two under each launch of transposeMatrix


def _export(path: Path) -> Path:
    """Three launches of each kernel, one after the other, grid and block 32x32 as in the report."""
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT)")
    names = [n for short, dem, _ in KERNELS for n in (short, dem)]
    db.executemany("INSERT INTO StringIds VALUES (?, ?)", list(enumerate(names)))
    db.execute('CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INT, "end" INT, deviceId INT, streamId INT, '
               "correlationId INT, globalPid INT, demangledName INT, shortName INT, gridX INT, gridY INT, gridZ INT, "
               "blockX INT, blockY INT, blockZ INT)")
    db.execute('CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INT, "end" INT, deviceId INT, streamId INT, '
               "copyKind INT, srcKind INT, dstKind INT, bytes INT)")
    db.execute("CREATE TABLE TARGET_INFO_GPU (id INT, name TEXT, l2CacheSize INT)")
    db.execute("INSERT INTO TARGET_INFO_GPU VALUES (0, ?, 33554432)", (GPU,))
    now = 0
    for i, (_, _, ns) in enumerate(KERNELS * 3):
        k = i % len(KERNELS)
        db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?, ?, 0, 7, ?, 1, ?, ?, 32, 32, 1, 32, 32, 1)",
                   (now, now + ns, i, 2 * k + 1, 2 * k))
        if k == 0:
            for at in (now + 10 * US, now + 200 * US):
                db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (?, ?, 0, 0, 11, 4, 4, ?)",
                           (at, at + 50 * US, MIGRATION))
        now += ns + 100 * US
    db.commit()
    db.close()
    return path


@pytest.fixture
def document(tmp_path: Path):
    report = find_shared_report(REPORT)
    profile = _export(tmp_path / "app.sqlite")
    facade = Roofline(catalog=SpecCatalog([]))  # no YAML names the GPU: its spec is derived from the report
    return profile, facade.timeline([profile], work=[report]).timelines


def test_a_kernel_slower_in_nsys_under_migrations_names_them(document) -> None:
    profile, doc = document
    gaps = {g.short_name: g for g in doc.time_gaps}
    slow = gaps["transposeMatrix"]
    assert slow.slower == "nsys" and slow.causes == ("managed_memory_migration",)
    with sqlite3.connect(profile) as db:
        moved, launches = db.execute("""SELECT SUM(m.bytes), COUNT(DISTINCT k.rowid) FROM CUPTI_ACTIVITY_KIND_MEMCPY m
                                        JOIN CUPTI_ACTIVITY_KIND_KERNEL k ON m.start < k."end" AND k.start < m."end"
                                        WHERE m.copyKind IN (11, 12, 13)""").fetchone()
        covered = db.execute("""SELECT SUM(MIN(m."end", k."end") - MAX(m.start, k.start))
                                FROM CUPTI_ACTIVITY_KIND_MEMCPY m JOIN CUPTI_ACTIVITY_KIND_KERNEL k
                                ON m.start < k."end" AND k.start < m."end" """).fetchone()[0]
    assert (slow.migrated_bytes, slow.launches_migrating, slow.launches) == (moved, launches, 3)
    assert slow.migration_s == pytest.approx(covered * 1e-9)
    assert slow.nsys_s == pytest.approx(500e-6)
    assert slow.nsys_over_ncu == pytest.approx(slow.nsys_s / slow.ncu_s)
    assert "transposeMatrixOptimized" not in gaps  # 67 us in both
    fast = gaps["transposeMatrixHighlyOptimized"]
    assert fast.slower == "ncu" and fast.launches_migrating == 0 and fast.causes
    lines = time_gap_lines(doc.time_gaps)
    assert any("unified-memory pages migrated" in line and "transposeMatrix " in line for line in lines)


def test_the_nsys_gpu_gets_the_spec_report_derives(document) -> None:
    _, doc = document
    assert doc.work is not None and doc.work.spec_id == DERIVED_ID
    assert doc.time_gaps[0].boost_clock_hz == pytest.approx(2.617e9)  # the report's max_gpu_frequency
    assert not any("no device spec" in n for n in doc.work.notes)


def test_no_roofline_panel_without_a_point(document) -> None:
    """The basic-set report measures no FLOPs: no kernel has a place on the roofline, and no empty panel is drawn
    (the streams panel and the kernels' panel are)."""
    _, doc = document
    assert doc.work is not None and not has_points(doc.work)
    assert len(build(doc).axes) == 2
    assert draw(doc, "png")[:4] == b"\x89PNG"


def _kernel(time_s: float, ncu_s: float, dram: float | None = None) -> SimpleNamespace:
    nsys = SimpleNamespace(count=4)
    return SimpleNamespace(name="k", short_name="k", grid=(1, 1, 1), block=(32, 1, 1), time_s=time_s,
                           ncu_time_s=ncu_s, bytes={"dram": dram}, nsys=nsys)


def test_ncu_slower_is_put_on_its_clock_or_its_cache_flush() -> None:
    """ncu 3x slower: at 1.2 GHz against a 2.0 GHz boost, the clocks; with 1 MB of DRAM traffic in a 32 MB L2, the
    flushed caches; with neither, unexplained. Within 2x, nothing; nsys slower without migrations, unexplained."""
    key = ("k", (1, 1, 1), (32, 1, 1))

    def causes(k: SimpleNamespace, clock: float | None) -> tuple[str, ...]:
        launch = SimpleNamespace(name="k", demangled_name="", grid=(1, 1, 1), block=(32, 1, 1),
                                 value=lambda metric: clock if metric == m.SM_CLOCK else None, nan_metrics=None)
        reports = [SimpleNamespace(valid_launches=[SimpleNamespace(launch=launch)])]
        gaps = time_gaps(SimpleNamespace(kernels=[k]), reports,  # type: ignore[arg-type]
                         {key: Migration(4, 0, 0, 0.0, 0)}, 2e9, 32 * 2**20)
        return gaps[0].causes if gaps else ()

    assert causes(_kernel(1e-3, 3e-3, dram=1e6), 1.2e9) == ("ncu_clocks_locked", "ncu_cache_flush")
    assert causes(_kernel(1e-3, 3e-3, dram=1e9), 1.2e9) == ("ncu_clocks_locked",)
    assert causes(_kernel(1e-3, 3e-3, dram=1e6), 1.95e9) == ("ncu_cache_flush",)
    assert causes(_kernel(1e-3, 3e-3, dram=1e9), None) == ("unexplained",)
    assert causes(_kernel(1e-3, 1.9e-3), 1.2e9) == ()
    assert causes(_kernel(3e-3, 1e-3), None) == ("unexplained",)


def test_summary_nsys_names_the_gap_of_kernels_matched_by_name(tmp_path: Path) -> None:
    """`summary --nsys` (what `analyze --from-nsys` runs after ncu) pairs by name: the same kernel is named with its
    migrations pooled over its launch configurations, grid and block null, and the generic "more than 2x apart"
    note no longer names it (its cause is given)."""
    report = find_shared_report(REPORT)
    profile = _export(tmp_path / "app.sqlite")
    view = Roofline().realtime([report], profile).view
    gaps = {g.short_name: g for g in view.time_gaps}
    slow = gaps["transposeMatrix"]
    assert slow.causes == ("managed_memory_migration",) and slow.grid is None
    assert (slow.migrated_bytes, slow.launches_migrating) == (6 * MIGRATION, 3)
    apart = [n for n in view.notes if "more than 2x apart" in n]
    assert all("transposeMatrix," not in n and not n.endswith("transposeMatrix") for n in apart)
    assert any("transposeMatrixHighlyOptimized" in n for n in apart)


def test_migrations_and_page_faults_under_each_kernel_match_sql(tmp_path: Path) -> None:
    """The reader's migrations per kernel and launch configuration (``nsys.streams.migrations``) on the small
    multi-stream export: reduce's two launches have three moves and three GPU page faults under them, gemm's none;
    a fault under no launch counts nowhere."""
    from roofline.nsys.streams import migrations
    from tests.nsys import streams_export

    path = streams_export.write(tmp_path / "s.sqlite")
    moved = migrations(path, path)
    reduce = moved[("reduce", (32, 1, 1), (256, 1, 1))]
    with sqlite3.connect(path) as db:
        faults = db.execute("""SELECT COUNT(*) FROM CUDA_UM_GPU_PAGE_FAULT_EVENTS f JOIN CUPTI_ACTIVITY_KIND_KERNEL k
                               ON f.start >= k.start AND f.start < k."end" WHERE k.shortName = 2""").fetchone()[0]
        size = db.execute("""SELECT SUM(m.bytes) FROM CUPTI_ACTIVITY_KIND_MEMCPY m JOIN CUPTI_ACTIVITY_KIND_KERNEL k
                             ON m.start < k."end" AND k.start < m."end"
                             WHERE k.shortName = 2 AND m.copyKind = 11""").fetchone()[0]
    assert (reduce.launches, reduce.launches_with, reduce.bytes, reduce.faults) == (2, 2, size, faults)
    assert (size, faults) == (262144, 3) and reduce.seconds == pytest.approx(0.004)
    gemm = moved[("gemm", (64, 1, 1), (256, 1, 1))]
    assert (gemm.launches, gemm.launches_with, gemm.bytes, gemm.faults) == (2, 0, 0, 0)
