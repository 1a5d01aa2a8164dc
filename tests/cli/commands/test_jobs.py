"""`--jobs N` of report, summary, compare and diff: the reports are analysed in worker processes, and the output,
the messages and the exit status are byte for byte those of a serial run (--jobs 1)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from roofline.cli.app import app

runner = CliRunner()
ENV = {"COLUMNS": "100"}
REPORTS = ("a100-40gb_cublas-sgemm_basic", "rtx2080ti_kernels_basic", "a10g_sgemm-progression_basic",
           "rtx3070_daxpy-nvtx_custom", "h800_flash-attn-fwd_full", "rtx3080_sgemm-vs-cublas_full")


@pytest.fixture
def files(shared_report, tmp_path: Path) -> list[str]:
    """Real reports, one named twice (once through a link: read once, shown twice) and a bad file in the middle."""
    paths = [str(shared_report(name)) for name in REPORTS]
    link = tmp_path / "again.ncu-rep"
    link.symlink_to(paths[0])
    bad = tmp_path / "bad.ncu-rep"
    bad.write_bytes(b"not a report\n")
    return [*paths[:3], str(bad), *paths[3:], str(link)]


def same_as_serial(*args: str) -> tuple[int, str, str]:
    """Run ``args`` with --jobs 1 and with --jobs 3; assert identical results and return them."""
    serial = runner.invoke(app, [*args, "--jobs", "1"], env=ENV)
    parallel = runner.invoke(app, [*args, "--jobs", "3"], env=ENV)
    assert serial.exception is None or isinstance(serial.exception, SystemExit), serial.exception
    assert (parallel.exit_code, parallel.stdout, parallel.stderr) == (serial.exit_code, serial.stdout, serial.stderr)
    return serial.exit_code, serial.stdout, serial.stderr


@pytest.mark.parametrize("fmt", ["json", "table", "csv"])
def test_report_in_workers_is_byte_identical(files: list[str], fmt: str) -> None:
    code, out, err = same_as_serial("report", *files, "--format", fmt)
    assert code == 2 and "bad.ncu-rep" in err and out  # the good reports are written, the bad one named
    if fmt == "json":
        reports = json.loads(out)["reports"]
        assert len(reports) == len(REPORTS) + 1 and reports[-1]["kernels"] == reports[0]["kernels"]  # named twice


@pytest.mark.parametrize("fmt", ["json", "table"])
def test_summary_in_workers_is_byte_identical(files: list[str], fmt: str) -> None:
    code, out, err = same_as_serial("summary", *files, "--top", "3", "--format", fmt)
    assert code == 2 and "bad.ncu-rep" in err and out


def test_compare_in_workers_is_byte_identical(shared_report) -> None:
    a, b = shared_report("a10g_sgemm-progression_basic"), shared_report("a10g_sgemm-blocktiling_roofline")
    code, out, _ = same_as_serial("compare", str(a), str(b), str(a), "--format", "json")
    assert code == 0 and '"kind":"compare"' in out.replace(" ", "")


def test_diff_in_workers_is_byte_identical(shared_report) -> None:
    base, new = shared_report("a10g_sgemm-progression_basic"), shared_report("a10g_sgemm-blocktiling_roofline")
    code, out, _ = same_as_serial("diff", str(base), str(new), "--fail-if-slower", "5", "--format", "json")
    assert code in (0, 1) and '"kind":"diff"' in out.replace(" ", "")


def test_a_bad_report_in_a_worker_ends_compare_with_its_one_line_error(shared_report, tmp_path: Path) -> None:
    bad = tmp_path / "bad.ncu-rep"
    bad.write_bytes(b"")
    code, out, err = same_as_serial("compare", str(shared_report(REPORTS[0])), str(bad))
    assert code == 2 and out == "" and err.startswith(f"roofline: error: {bad}") and err.count("\n") == 1


def test_jobs_below_one_is_refused() -> None:
    result = runner.invoke(app, ["summary", "x.ncu-rep", "--jobs", "0"])
    assert result.exit_code == 2 and "--jobs" in result.stderr
