"""benchmarks/bench_report.py: the floor reads the data roofline reads, and its table names every report.

The figures themselves are machine-dependent and are not asserted; these tests check that the benchmark runs on
real reports and compares like with like (a report whose FP16 count needs the SASS gets a floor that reads it).
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.conftest import REPO, find_shared_report, load_shared_report

SASS_REPORT = "h100-pcie_rmsnorm-float4_full-roofline"  # HFMA2 executed: roofline reads its SASS
SAMPLED_REPORT = "rtx3070_daxpy-nvtx_custom"  # SourceCounters: roofline reads the SASS of sampled instructions
PLAIN_REPORT = "rtx2080ti_kernels_basic"  # neither: no SASS read


def bench_report() -> ModuleType:
    """The benchmark script as a module (``benchmarks/`` is a folder of scripts, not a package)."""
    spec = importlib.util.spec_from_file_location("bench_report", REPO / "benchmarks" / "bench_report.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_report_is_marked_for_the_sass_read_only_where_roofline_reads_sass() -> None:
    bench = bench_report()
    assert bench.launches(find_shared_report(SASS_REPORT)) == (4, True)
    assert bench.launches(find_shared_report(SAMPLED_REPORT)) == (3, True)
    assert bench.launches(find_shared_report(PLAIN_REPORT)) == (2, False)


def test_the_floor_table_has_a_row_per_report_and_the_metrics_alone_beside_a_sass_floor(
        capsys: pytest.CaptureFixture[str]) -> None:
    reports = [find_shared_report(SASS_REPORT), find_shared_report(PLAIN_REPORT)]
    status = bench_report().main([*map(str, reports), "--repeat", "1", "--only", "floor"])
    out = capsys.readouterr().out
    assert status in (0, 1)  # 1: a target missed on this machine, which is not what is tested here
    ratio = r"\s+\d+\.\d{3}s\s+\d+\.\d{3}s\s+\d+\.\d\dx"
    for path, launches in zip(reports, (4, 2), strict=True):
        assert re.search(rf"^{re.escape(path.name)}\s+\d+\.\d\s+{launches}{ratio}$", out, re.M), out
    assert len(re.findall(r"^\s+the metrics alone, no SASS\s+\d+\.\d{3}s\s+\d+\.\d\dx$", out, re.M)) == 1, out
    assert re.search(r"^worst \d+\.\d\dx: (met|MISSED)$", out, re.M), out


def test_the_floor_script_reads_the_hfma2_moves_roofline_reads_unless_asked_for_the_metrics_alone(
        tmp_path: Path) -> None:
    """The floor takes the same SASS-derived count as roofline's reader, launch by launch; with --metrics-only, none."""
    from roofline.ncu.metrics import HFMA_MOVES

    counting = ("import roofline.ncu.extract as extract\n"
                "seen = []\n"
                "real = extract.hfma_moves\n"
                "extract.hfma_moves = lambda action: seen.append(real(action)) or seen[-1]\n")
    script = tmp_path / "floor.py"
    script.write_text(counting + bench_report().FLOOR + "\nprint(repr(seen))\n")
    report = find_shared_report(SASS_REPORT)
    ran = [subprocess.run([sys.executable, str(script), str(report), *extra], capture_output=True, text=True,
                          cwd=REPO, check=True).stdout.strip() for extra in ([], ["--metrics-only"])]
    expected = [launch.value(HFMA_MOVES) for launch in load_shared_report(SASS_REPORT).launches]
    assert None not in expected and ran == [repr(expected), "[]"]


@pytest.mark.skipif(shutil.which("ncu") is None, reason="needs ncu on PATH (Debian's nsight-compute, "
                    ".ci/install-system-tools)")
def test_the_ncu_table_has_a_row_per_report_ncu_reads_with_the_imports_beside(
        capsys: pytest.CaptureFixture[str]) -> None:
    bench = bench_report()
    report = find_shared_report(SAMPLED_REPORT)  # one that Debian's ncu 2022.3 reads
    bench.bench_ncu(bench.Runner(dict(os.environ), 1), [report])
    out = capsys.readouterr().out
    seconds = r"\s+\d+\.\d{3}s"  # ncu, the imports of numpy, typer and yaml, roofline
    assert re.search(rf"^{re.escape(report.name)}\s+\d+\.\d\s+3{seconds * 3}\s+\d+\.\d\dx$", out, re.M), out
    assert re.search(r"^slowest against ncu .*; on [01] of 1 reports ncu's whole export takes less than importing "
                     r"numpy, typer, yaml$", out, re.M), out
