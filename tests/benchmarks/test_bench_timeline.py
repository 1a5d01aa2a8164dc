"""benchmarks/bench_timeline.py: its exports (a real export's kernel rows repeated, or synthetic) are ones the
reader reads right (every figure against an independent aggregation), so the benchmark times a correct read. The
timing itself is not asserted."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

from roofline.nsys.timeline import read_timeline
from tests.conftest import REPO, find_shared_nsys
from tests.nsys import independent


def bench_timeline() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_timeline", REPO / "benchmarks" / "bench_timeline.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_synthetic_export_is_read_as_an_independent_aggregation_reads_it(tmp_path: Path) -> None:
    path = tmp_path / "synthetic.sqlite"
    bench_timeline().make_export(path, launches=5000, kernels=7)
    t = read_timeline(path)
    independent.assert_same({k.name: (k.count, k.total_s, k.median_s, k.min_s, k.max_s) for k in t.kernels},
                            {n: (e["count"], e["total_s"], e["median_s"], e["min_s"], e["max_s"])
                             for n, e in independent.per_kernel(path).items()})
    busy = independent.busy(path)
    assert [d.device_id for d in t.devices] == [0, 1]
    independent.assert_same({str(d.device_id): (d.busy_s,) for d in t.devices},
                            {str(d): (b,) for d, b in busy.items()})
    assert all(d.busy_s < sum(k.total_s for k in t.kernels if d.device_id in k.devices) for d in t.devices)


def test_the_repeated_export_holds_copies_that_follow_one_another(tmp_path: Path) -> None:
    """Each copy of the 2,596 miniWeather rows starts after the one before ends; the document's figures are the
    row-by-row figures to the bit, as on the real export (tests/nsys/test_timeline.py)."""
    source = find_shared_nsys("gp100_miniweather-openacc_2021.2-export2022.2.sqlite")
    path = tmp_path / "repeated.sqlite"
    bench_timeline().repeat_export(source, path, 3 * 2596 + 100)
    rows = independent.rows(path, 'SELECT start, "end", correlationId FROM CUPTI_ACTIVITY_KIND_KERNEL ORDER BY rowid')
    assert len(rows) == 3 * 2596 + 100
    copies = [rows[i:i + 2596] for i in range(0, len(rows), 2596)]
    for before, after in zip(copies, copies[1:], strict=False):
        assert max(e for _, e, _ in before) < min(s for s, _, _ in after)
        assert max(c for *_, c in before) < min(c for *_, c in after)
    for by in ("kernel", "function"):
        independent.assert_exact(path, read_timeline(path, group_by=by), by)


def test_the_benchmark_reports_its_figures(tmp_path: Path) -> None:
    bench = bench_timeline()
    path = tmp_path / "synthetic.sqlite"
    bench.make_export(path, launches=2000, kernels=5)
    seconds, cpu, mib = bench.run_cli(path, tmp_path / "out.json")
    assert seconds > 0 and cpu > 0 and mib > 0
    assert bench.launches_in(tmp_path / "out.json") == 2000
    assert min(bench.floor(path)) > 0
