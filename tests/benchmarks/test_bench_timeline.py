"""benchmarks/bench_timeline.py: its synthetic export is one the reader reads right (the figures against an
independent aggregation), so the benchmark times a correct read. The timing itself is not asserted."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

from roofline.nsys.timeline import read_timeline
from tests.conftest import REPO
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


def test_the_benchmark_reports_its_figures(tmp_path: Path) -> None:
    bench = bench_timeline()
    path = tmp_path / "synthetic.sqlite"
    bench.make_export(path, launches=2000, kernels=5)
    seconds, cpu, mb, kernels, launches = bench.measure(path)
    assert (kernels, launches) == (5, 2000) and seconds > 0 and cpu > 0 and mb > 0
