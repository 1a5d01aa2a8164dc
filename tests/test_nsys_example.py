"""examples/nsys/h100-examples.sqlite: up to date with examples/make_nsys_example.py, its kernels those of the
examples/h100 reports with their measured durations, and read by `roofline timeline` as an nsys export."""

from __future__ import annotations

import runpy
import sqlite3
from pathlib import Path

import roofline
from roofline.nsys.timeline import read_timeline

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
EXPORT = EXAMPLES / "nsys" / "h100-examples.sqlite"
GENERATOR = EXAMPLES / "make_nsys_example.py"


def table_rows(path: Path) -> dict[str, list[tuple[object, ...]]]:
    """Every table's rows, in rowid order."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        names = [n for (n,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        return {n: db.execute(f"SELECT * FROM {n} ORDER BY rowid").fetchall() for n in names}
    finally:
        db.close()


def test_the_shipped_export_is_what_its_generator_writes(tmp_path: Path) -> None:
    fresh = tmp_path / "h100-examples.sqlite"
    runpy.run_path(str(GENERATOR), run_name="not_main")["write"](fresh)
    assert table_rows(EXPORT) == table_rows(fresh)


def test_the_export_is_small() -> None:
    assert EXPORT.stat().st_size < 200_000


def test_each_kernel_lasts_its_reports_measured_duration() -> None:
    """Every report's launch appears with its names, grid and block, and lasts its gpu__time_duration.sum."""
    rows = table_rows(EXPORT)
    strings = {int(str(i)): str(v) for i, v in rows["StringIds"]}
    db = sqlite3.connect(f"file:{EXPORT}?mode=ro", uri=True)
    kernels = db.execute('SELECT shortName, demangledName, gridX, gridY, gridZ, blockX, blockY, blockZ, '
                         '"end" - start FROM CUPTI_ACTIVITY_KIND_KERNEL').fetchall()
    db.close()
    seen = {(strings[s], strings[d], (gx, gy, gz), (bx, by, bz), ns) for s, d, gx, gy, gz, bx, by, bz, ns in kernels}
    program = runpy.run_path(str(GENERATOR), run_name="not_main")
    for name in (r for p in program["PROGRAMS"] for r in p.reports):
        for launch in roofline.load(EXAMPLES / "h100" / name).launches:
            duration = round(launch.value("gpu__time_duration.sum") or 0.0)
            assert (launch.name, launch.demangled_name, launch.grid, launch.block, duration) in seen, name


def test_the_timeline_reads_it_as_an_h100_export() -> None:
    t = read_timeline(EXPORT)
    assert [d.name for d in t.devices] == ["NVIDIA H100 80GB HBM3"]
    assert t.kernels[0].name == "sgemm_tiled"
    assert {r.name for r in t.nvtx} == {"fp32", "fp64", "bf16", "fp16", "fp8"}
    fp16 = read_timeline(EXPORT, "fp16")
    assert [(k.name, k.count) for k in fp16.kernels] == [("nvjet_sm90_hsh_256x128_64x4_1x2_h_bz_coopA_NNT", 2)]
