"""`roofline collect` through the CLI: a folder of reports into a new store, the count said on stderr, a second run
that reads nothing again, a bad file named in one line with exit 2 while the good ones are kept, and the options
that cannot go together refused."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from roofline.cli.app import app
from tests.conftest import REPO

pytest.importorskip("duckdb", reason="duckdb not installed (pip install 'roofline[store]')")
runner = CliRunner()
H100 = REPO / "examples" / "h100"


def test_collect_a_folder_then_again_reads_nothing(tmp_path: Path) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    for name in ("torch-fp16.full.json", "triad-cupy.full.ncu-rep"):
        shutil.copy(H100 / name, folder)
    store = tmp_path / "store"
    first = runner.invoke(app, ["collect", str(folder), "-o", str(store)])
    assert first.exit_code == 0, first.output
    assert f"collected 2 reports into {store} (0 unchanged, 0 failed)" in first.stderr
    second = runner.invoke(app, ["collect", str(folder), "-o", str(store)])
    assert second.exit_code == 0 and "collected 0 reports" in second.stderr and "(2 unchanged" in second.stderr


def test_a_bad_file_is_named_in_one_line_exit_2_and_the_good_ones_are_kept(tmp_path: Path) -> None:
    bad = tmp_path / "bad.ncu-rep"
    bad.write_bytes(b"not a report")
    store = tmp_path / "store"
    result = runner.invoke(app, ["collect", str(H100 / "torch-fp16.full.json"), str(bad), "-o", str(store)])
    assert result.exit_code == 2
    errors = [line for line in result.stderr.splitlines() if line.startswith("roofline: error:")]
    assert len(errors) == 1 and str(bad) in errors[0]
    listed = runner.invoke(app, ["query", str(store), "SELECT count(*) AS n FROM launches", "-f", "csv"])
    assert listed.stdout.splitlines() == ["n", "1"]


def test_workers_and_scheduler_together_are_refused(tmp_path: Path) -> None:
    result = runner.invoke(app, ["collect", str(H100 / "torch-fp16.full.json"), "-o", str(tmp_path / "s"),
                                 "--workers", "2", "--scheduler", "tcp://localhost:8786"])
    assert result.exit_code == 2 and "choose one" in result.stderr and not (tmp_path / "s").exists()


def test_collect_into_a_folder_that_is_no_store_is_refused(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    result = runner.invoke(app, ["collect", str(H100 / "torch-fp16.full.json"), "-o", str(tmp_path)])
    assert result.exit_code == 2 and len(result.stderr.strip().splitlines()) == 1


def test_a_run_again_over_a_bad_file_still_fails_as_the_first_did(tmp_path: Path) -> None:
    """A CI re-run must not hide a failure: a report unchanged since it failed is named again in its one line, the
    count says it failed (unchanged since), and the exit status is the first run's."""
    bad = tmp_path / "bad.ncu-rep"
    bad.write_bytes((H100 / "triad-cupy.full.ncu-rep").read_bytes()[:100000])
    store = tmp_path / "st"
    first = runner.invoke(app, ["collect", str(bad), "-o", str(store)])
    second = runner.invoke(app, ["collect", str(bad), "-o", str(store)])
    assert first.exit_code == second.exit_code == 2, second.output
    errors = [[line for line in r.stderr.splitlines() if line.startswith("roofline: error:")] for r in (first, second)]
    assert errors[0] == errors[1] and len(errors[0]) == 1 and str(bad) in errors[0][0]
    assert f"collected 0 reports into {store} (1 unchanged, 1 failed, 1 of them unchanged since it failed)" \
        in second.stderr


def test_a_bad_shared_report_cut_short_still_fails_on_a_run_again(shared_report, tmp_path: Path) -> None:
    bad = tmp_path / "bad.ncu-rep"
    bad.write_bytes(shared_report("t4_matrix-add-2d_full").read_bytes()[:100000])
    for _ in range(2):
        result = runner.invoke(app, ["collect", str(bad), "-o", str(tmp_path / "st")])
        assert result.exit_code == 2 and "1 failed" in result.stderr, result.output


def test_a_report_cut_short_after_a_launch_is_named_in_one_line_exit_2(tmp_path: Path) -> None:
    """A file that still holds launches but lost others: collected as good it exited 0 with no line on stderr."""
    cut = tmp_path / "cut.ncu-rep"
    data = (REPO / "examples" / "h200" / "intops.full.ncu-rep").read_bytes()
    cut.write_bytes(data[:int(len(data) * 0.8)])
    result = runner.invoke(app, ["collect", str(cut), "-o", str(tmp_path / "st")])
    assert result.exit_code == 2, result.output
    (error,) = [line for line in result.stderr.splitlines() if line.startswith("roofline: error:")]
    assert error == (f"roofline: error: {cut}: the file is incomplete (cut short or missing records): 1 launch read "
                     "and the others lost, so its rows would under-count its launches and time: copy the file "
                     "again, or re-profile")
    assert f"collected 0 reports into {tmp_path / 'st'} (0 unchanged, 1 failed)" in result.stderr
