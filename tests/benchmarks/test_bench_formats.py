"""benchmarks/bench_formats.py: the commands it times, and how it judges the 1.5x target (figures not asserted)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

from tests.conftest import REPO


def bench_formats() -> ModuleType:
    """The benchmark script as a module (``benchmarks/`` is a folder of scripts, not a package)."""
    spec = importlib.util.spec_from_file_location("bench_formats", REPO / "benchmarks" / "bench_formats.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_each_output_is_the_command_a_user_runs_written_to_the_folder(tmp_path) -> None:
    bench, report = bench_formats(), Path("r.ncu-rep")
    assert bench.report_command(report, "plot", tmp_path) == ["plot", "r.ncu-rep", "-o", str(tmp_path / "out.png")]
    assert bench.report_command(report, "html", tmp_path) == ["report", "r.ncu-rep", "-f", "html", "-o",
                                                              str(tmp_path / "out.html")]
    assert bench.compare_command((Path("a"), Path("b")), "table --plot", tmp_path) == [
        "compare", "a", "b", "-f", "table", "-o", str(tmp_path / "compare.table"), "--plot",
        str(tmp_path / "compare.png")]


def test_the_target_is_judged_on_the_drawn_outputs_wall_time_against_the_table() -> None:
    bench = bench_formats()
    medians = {"table": (1.0, 0.5), "json": (3.0, 3.0), "markdown": (1.5, 2.0), "html": (1.2, 0.6), "plot": (1.4, 0.7)}
    rows, met = bench.table_rows("`r`", medians)
    assert met  # json's 3x is no drawn output; markdown's 1.5x wall is within; CPU ratios are shown, not judged
    assert rows[0] == "| `r`, wall | 1.00 s | 3.00 s (3.00x) | 1.50 s (1.50x) | 1.20 s (1.20x) | 1.40 s (1.40x) |"
    assert rows[1] == "| same, CPU | 0.50 s | 3.00 s (6.00x) | 2.00 s (4.00x) | 0.60 s (1.20x) | 0.70 s (1.40x) |"
    assert not bench.table_rows("`r`", {**medians, "plot": (1.51, 0.7)})[1]


def test_a_command_is_timed_whole_and_a_failure_names_it() -> None:
    bench = bench_formats()
    wall, cpu = bench.timed(["--version"])
    assert wall > 0 and cpu > 0
    try:
        bench.timed(["report", "no-such-file.ncu-rep"])
    except RuntimeError as err:
        assert "roofline report no-such-file.ncu-rep: exit 2" in str(err)
    else:
        raise AssertionError("a failing command must raise")
