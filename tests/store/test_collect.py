"""collect is incremental and goes on past bad files: an unchanged report is not read again (by its size and time,
else its content hash), a changed one replaces its rows, rows of another roofline version are analysed again, a
corrupt, truncated or foreign file is one row of the errors table, and no report named collects the store's own."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

import roofline.store.collect as collecting
from roofline.store.collect import collect, report_paths
from roofline.store.query import query
from tests.conftest import REPO

FP16 = REPO / "examples" / "h100" / "torch-fp16.full.json"
TRIAD = REPO / "examples" / "h100" / "triad-cupy.full.ncu-rep"


def copies(folder: Path) -> tuple[Path, Path]:
    folder.mkdir()
    return Path(shutil.copy(FP16, folder)), Path(shutil.copy(TRIAD, folder))


def rows(store: Path, sql: str) -> list[tuple[object, ...]]:
    return [tuple(r.values()) for r in query(store, sql).to_pylist()]


def test_an_unchanged_report_is_not_read_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fp16, triad = copies(tmp_path / "in")
    store = tmp_path / "store"
    assert collect([fp16, triad], store).analysed == 2
    before = json.loads((store / "manifest.json").read_text())
    read: list[str] = []
    def hashed(path: str) -> str:
        read.append(path)
        return "x"

    monkeypatch.setattr(collecting, "content_hash", hashed)
    again = collect([fp16, triad], store)
    assert (again.analysed, again.unchanged, read) == (0, 2, [])  # size and time the same: not even hashed
    assert json.loads((store / "manifest.json").read_text())["files"] == before["files"]


def test_a_touched_but_identical_report_is_hashed_not_analysed(tmp_path: Path) -> None:
    fp16, _ = copies(tmp_path / "in")
    store = tmp_path / "store"
    collect([fp16], store)
    fp16.write_bytes(fp16.read_bytes())  # a new modification time, the same bytes
    again = collect([fp16], store)
    assert (again.analysed, again.unchanged) == (0, 1)
    assert rows(store, "SELECT count(*) FROM reports") == [(1,)]


def test_a_changed_report_replaces_its_rows_and_leaves_the_others(tmp_path: Path) -> None:
    fp16, triad = copies(tmp_path / "in")
    store = tmp_path / "store"
    collect([fp16, triad], store)
    triad_rows = rows(store, f"SELECT launch, duration_s FROM launches WHERE path = '{triad}' ORDER BY launch")
    model = json.loads(fp16.read_text())
    metrics = model["launches"][0]["metrics"]
    duration_ns = metrics["gpu__time_duration.sum"]
    metrics["gpu__time_duration.sum"] = 2 * duration_ns
    fp16.write_text(json.dumps(model))
    assert collect([fp16], store).analysed == 1
    assert rows(store, f"SELECT count(*) FROM reports WHERE path = '{fp16}'") == [(1,)]
    (new,) = rows(store, f"SELECT duration_s FROM launches WHERE path = '{fp16}'")
    assert new[0] == pytest.approx(2 * duration_ns * 1e-9)  # ns in the model, seconds in the store
    assert rows(store, f"SELECT launch, duration_s FROM launches WHERE path = '{triad}' ORDER BY launch") == triad_rows


def test_rows_of_another_roofline_version_are_analysed_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fp16, _ = copies(tmp_path / "in")
    store = tmp_path / "store"
    collect([fp16], store)
    monkeypatch.setattr(collecting, "__version__", "99.0")
    assert collect([fp16], store).analysed == 1
    assert rows(store, "SELECT DISTINCT roofline_version FROM launches") == [("99.0",)]


def test_rows_of_another_rows_format_are_analysed_again_on_a_refresh(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """A fix to what the rows hold (the launch's own roofs) reached no store collected before it: roofline's version
    and the specs were the same, so every report read as unchanged."""
    import roofline.store.rows as row_format

    fp16, _ = copies(tmp_path / "in")
    store = tmp_path / "store"
    collect([fp16], store)
    assert collect([], store).unchanged == 1
    monkeypatch.setattr(row_format, "ROWS_FORMAT", row_format.ROWS_FORMAT + 1)
    assert collect([], store).analysed == 1


def test_bad_files_are_rows_of_the_errors_table_and_stop_nothing(tmp_path: Path) -> None:
    fp16, triad = copies(tmp_path / "in")
    bad = tmp_path / "in" / "bad"
    bad.mkdir()
    (bad / "truncated.ncu-rep").write_bytes(triad.read_bytes()[:4000])
    (bad / "garbage.ncu-rep").write_bytes(b"\0" * 512)
    (bad / "foreign.json").write_text('{"not": "a report"}')  # not a report model: a folder scan passes it by
    (bad / "cut.json").write_bytes(fp16.read_bytes()[:3000])  # a report model cut short: an error row
    store = tmp_path / "store"
    outcome = collect([tmp_path / "in"], store)
    assert outcome.analysed == 2 and len(outcome.errors) == 3
    errors = rows(store, "SELECT path, error, exit_code FROM errors ORDER BY path")
    assert [Path(str(p)).name for p, _, _ in errors] == ["cut.json", "garbage.ncu-rep", "truncated.ncu-rep"]
    assert all("\n" not in str(e) and code == 2 for _, e, code in errors)
    (bad / "cut.json").write_bytes(fp16.read_bytes())  # the file fixed: its error row goes
    collect([tmp_path / "in"], store)
    assert [Path(str(p)).name for (p,) in rows(store, "SELECT path FROM errors ORDER BY path")] == [
        "garbage.ncu-rep", "truncated.ncu-rep"]
    assert rows(store, "SELECT count(*) FROM reports") == [(3,)]


def test_no_report_named_refreshes_the_reports_the_store_holds(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    fp16, triad = copies(tmp_path / "in")
    store = tmp_path / "store"
    collect([fp16, triad], store)
    monkeypatch.setattr(collecting, "__version__", "99.0")
    assert collect([], store).analysed == 2


def test_a_change_in_any_shipped_spec_file_changes_the_analysis_key(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    import roofline.specs.catalog as catalog
    from roofline.facade import Roofline

    specs = tmp_path / "device_specs"
    shutil.copytree(catalog.builtin_folder(), specs)
    monkeypatch.setattr(catalog, "builtin_folder", lambda: specs)
    facade = Roofline()
    before = collecting.catalog_hash(facade)
    memory = next(specs.rglob("architecture/*.yaml"))  # per-architecture ceilings: no spec of the catalog
    memory.write_text(memory.read_text() + "\n# changed\n")
    assert collecting.catalog_hash(facade) != before


def test_a_folder_gives_its_reports_and_report_models_not_its_other_json_files(tmp_path: Path) -> None:
    """../shared/ncu-reps holds an index.json beside its reports: a folder scan takes the .ncu-rep files and the
    report models, so such a file is no error row."""
    model = REPO / "examples" / "h100" / "ops" / "op20-rmsnorm.json"
    shutil.copy(model, tmp_path / model.name)
    (tmp_path / "index.json").write_text(json.dumps({"reports": ["a.ncu-rep"]}))
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "x.ncu-rep").write_bytes(b"not a report")
    assert collecting.report_paths([tmp_path]) == [str((tmp_path / model.name).resolve()),
                                                   str((tmp_path / "sub" / "x.ncu-rep").resolve())]
    named = tmp_path / "index.json"
    assert collecting.report_paths([named]) == [str(named.resolve())]  # a file named is taken as given


def test_an_unchanged_report_that_failed_still_counts_as_failed(tmp_path: Path) -> None:
    """Collected again unchanged, a report the store records as failed is among the errors with its recorded line
    (``still_failed``), so a run again ends as the first did; fixed, it is analysed and its error goes."""
    fp16, triad = copies(tmp_path / "in")
    bad = tmp_path / "in" / "bad.ncu-rep"
    bad.write_bytes(triad.read_bytes()[:4000])
    store = tmp_path / "store"
    first = collect([fp16, bad], store)
    assert (first.analysed, first.still_failed, [p for p, _ in first.errors]) == (1, 0, [str(bad)])
    again = collect([fp16, bad], store)
    assert (again.analysed, again.unchanged, again.still_failed) == (0, 2, 1)
    assert again.errors == first.errors  # the line recorded in the errors table
    assert collect([], store).errors == first.errors  # the store's own reports: the same
    bad.write_bytes(triad.read_bytes())
    fixed = collect([fp16, bad], store)
    assert (fixed.analysed, fixed.errors, fixed.still_failed) == (1, (), 0)


def test_the_report_label_is_the_one_summary_and_compare_give(tmp_path: Path) -> None:
    """``reports.label`` is the report's short label (its file name without .ncu-rep or .json:
    ``pairing.path_labels``), never empty."""
    from roofline.compare.pairing import path_labels

    fp16, triad = copies(tmp_path / "in")
    store = tmp_path / "store"
    collect([fp16, triad], store)
    got = rows(store, "SELECT path, label FROM reports ORDER BY path")
    assert got == [(str(p), path_labels([str(p)])[0]) for p in sorted([fp16, triad], key=str)]
    assert [label for _, label in got] == ["torch-fp16.full", "triad-cupy.full"]


def test_a_report_whose_file_is_gone_keeps_its_rows_on_a_refresh(tmp_path: Path) -> None:
    fp16, triad = copies(tmp_path / "in")
    store = tmp_path / "store"
    collect([fp16, triad], store)
    before = rows(store, "SELECT path, launch, duration_s FROM launches ORDER BY path, launch")
    triad.unlink()
    outcome = collect([], store)  # a refresh: every report the store holds
    assert (outcome.kept_gone, outcome.errors, outcome.analysed, outcome.unchanged) == (1, (), 0, 1)
    assert rows(store, "SELECT path, launch, duration_s FROM launches ORDER BY path, launch") == before
    assert rows(store, "SELECT count(*) FROM errors") == [(0,)]
    named = collect([triad], store)  # asked for by name: still kept, and said
    assert (named.kept_gone, named.errors) == (1, ())


def test_a_failure_whose_file_is_gone_is_dropped_and_a_missing_name_leaves_no_row(tmp_path: Path) -> None:
    fp16, _ = copies(tmp_path / "in")
    bad = tmp_path / "in" / "bad.ncu-rep"
    bad.write_bytes(b"not a report")
    store = tmp_path / "store"
    typo = tmp_path / "in" / "typo.ncu-rep"
    first = collect([fp16, bad, typo], store)
    assert {p for p, _ in first.errors} == {str(bad), str(typo)}
    assert "no such file" in dict(first.errors)[str(typo)]
    assert rows(store, "SELECT path FROM errors") == [(str(bad),)]  # the typo is this run's error, not a row
    bad.unlink()
    refresh = collect([], store)
    assert (refresh.forgotten, refresh.errors) == (1, ())  # nothing is left to fix: a CI refresh passes again
    assert rows(store, "SELECT count(*) FROM errors") == [(0,)] and rows(store, "SELECT path FROM reports") == [
        (str(fp16),)]


def test_a_report_whose_values_do_not_fit_the_columns_is_an_error_row_and_the_batch_goes_on(tmp_path: Path) -> None:
    """A damaged report (registers appended from another file: tests/ncu/test_validation.py) still reads, with a
    launch value past 64 bits; collect died on it with a traceback and kept none of the batch."""
    from tests.conftest import SHARED_REPORTS

    first = SHARED_REPORTS / "rtx5060ti_transpose-occupancy-45launches_metrics.ncu-rep"
    second = SHARED_REPORTS / "a100-40gb_tree-search_full_ncu2020.3.ncu-rep"
    if not (first.is_file() and second.is_file()):
        pytest.skip("the shared reports are not in ../shared/ncu-reps")
    damaged = tmp_path / "damaged.ncu-rep"
    damaged.write_bytes(first.read_bytes() + second.read_bytes()[10:])
    _, triad = copies(tmp_path / "in")
    outcome = collect([damaged, triad], tmp_path / "store")
    ((path, line),) = outcome.errors
    assert path == str(damaged) and "rows do not fit the store's columns" in line and "\n" not in line
    assert outcome.analysed == 1 and rows(tmp_path / "store", "SELECT path FROM errors") == [(str(damaged),)]
    assert rows(tmp_path / "store", "SELECT path FROM reports") == [(str(triad),)]


def test_one_path_given_alone_is_one_report_not_its_characters(tmp_path: Path) -> None:
    _, triad = copies(tmp_path / "in")
    outcome = collect(str(triad), tmp_path / "store")
    assert (outcome.analysed, outcome.errors) == (1, ())


def test_a_read_that_ran_out_of_time_is_read_again_under_a_longer_timeout(tmp_path: Path) -> None:
    """A failure is keyed by the time limit it failed under: the same limit again is the same failure, a longer one
    reads the file again (the retry the timeout error advises)."""
    from roofline.pipeline import AnalysisOptions

    store = tmp_path / "s"
    short = collect([TRIAD], store, AnalysisOptions(time_limit_s=1e-4))
    assert short.analysed == 0 and "took longer than" in short.errors[0][1]
    again = collect([TRIAD], store, AnalysisOptions(time_limit_s=1e-4))
    assert again.still_failed == 1 and again.analysed == 0
    longer = collect([TRIAD], store, AnalysisOptions(time_limit_s=300.0))
    assert (longer.analysed, longer.errors, longer.still_failed) == (1, (), 0)
    assert rows(store, "SELECT count(*) FROM errors") == [(0,)]
    assert rows(store, "SELECT count(*) FROM reports") == [(1,)]


@pytest.mark.parametrize("holds", [[], ["notes.txt", "index.json"], ["run.nsys-rep"]])
def test_a_folder_that_holds_no_report_is_refused_before_a_store_is_made(tmp_path: Path, holds: list[str]) -> None:
    from roofline.errors import ReportError

    folder = tmp_path / "in"
    (folder / "deep").mkdir(parents=True)
    for name in holds:
        (folder / "deep" / name).write_text("{}")
    with pytest.raises(ReportError, match="a folder that holds no report") as refused:
        collect([folder, FP16], tmp_path / "s")
    assert str(folder) in str(refused.value) and "\n" not in str(refused.value)
    assert not (tmp_path / "s").exists()


def test_collect_of_a_folder_of_no_report_exits_2_in_one_line(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from roofline.cli.app import app

    (tmp_path / "empty").mkdir()
    result = CliRunner().invoke(app, ["collect", str(tmp_path / "empty"), "-o", str(tmp_path / "s")])
    assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1
    assert "holds no report" in result.output and not (tmp_path / "s").exists()


def test_a_new_store_from_paths_none_of_which_exists_is_refused_before_it_is_made(tmp_path: Path) -> None:
    """A typo'd report path makes no empty store; a store already there keeps its rule (a named file gone is one
    error, exit 2, and the store stays)."""
    from typer.testing import CliRunner

    from roofline.cli.app import app

    missing = tmp_path / "nowhere" / "x.ncu-rep"
    result = CliRunner().invoke(app, ["collect", str(missing), "-o", str(tmp_path / "s")])
    assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1
    assert "no such file or folder, so no store is made" in result.output and not (tmp_path / "s").exists()
    collect([FP16], tmp_path / "kept")
    again = CliRunner().invoke(app, ["collect", str(missing), "-o", str(tmp_path / "kept")])
    assert again.exit_code == 2 and (tmp_path / "kept" / "manifest.json").exists()


def test_collect_with_no_report_and_no_store_is_no_such_store_exit_2(tmp_path: Path) -> None:
    """`collect -o STORE` refreshes the store's own reports: a mistyped store name is `no such store`, as `query`
    says, and no empty store is made."""
    from typer.testing import CliRunner

    from roofline.cli.app import app

    result = CliRunner().invoke(app, ["collect", "-o", str(tmp_path / "none")])
    assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1
    assert f"{tmp_path / 'none'}: no such store" in result.output and not (tmp_path / "none").exists()


def test_a_fifo_named_is_an_error_row_at_once_and_never_read(tmp_path: Path) -> None:
    """A FIFO given by name would block a read forever: it is refused before anything reads it (a one-line error
    naming it, among the collect's errors), and the report beside it is collected."""
    import os
    import threading

    fifo = tmp_path / "fifo.ncu-rep"
    os.mkfifo(fifo)
    outcome: list[collecting.Outcome] = []
    run = threading.Thread(target=lambda: outcome.append(collect([fifo, FP16], tmp_path / "s")), daemon=True)
    run.start()
    run.join(120)
    if not outcome:  # unblock the hung read, so the test process ends
        with open(fifo, "wb"):
            pass
    assert outcome, "collect waited on the FIFO"
    assert outcome[0].analysed == 1 and len(outcome[0].errors) == 1
    path, line = outcome[0].errors[0]
    assert path == str(fifo) and line == f"{fifo}: is a FIFO, not a regular file: pass the .ncu-rep or .json report " \
        "file itself (save a stream to a file first)"


def test_the_content_hash_refuses_a_fifo_without_reading_it(tmp_path: Path) -> None:
    import os

    from roofline.errors import ReportError

    os.mkfifo(tmp_path / "f")
    with pytest.raises(ReportError, match="is a FIFO, not a regular file"):
        collecting.content_hash(str(tmp_path / "f"))


INTOPS = REPO / "examples" / "h200" / "intops.full.ncu-rep"  # two launches


def test_a_report_cut_short_with_launches_left_is_an_error_row_not_a_good_report(tmp_path: Path) -> None:
    """A file cut after its first launch read as a report of one launch (the other lost, a warning alone): collected
    as good, the store under-counted its launches and time without a sign. It is a row of errors, as diff refuses
    it, and stays one when collected again unchanged."""
    import roofline

    cut = tmp_path / "cut.ncu-rep"
    data = INTOPS.read_bytes()
    cut.write_bytes(data[:int(len(data) * 0.8)])
    report = roofline.load(cut)
    assert report.incomplete and len(report.launches) == 1  # of the two the whole file holds
    store = tmp_path / "s"
    outcome = collect([cut, TRIAD], store)
    assert outcome.analysed == 1 and outcome.errors == ((str(cut), f"{cut}: {collecting.INCOMPLETE}: 1 launch read and "
                                                         "the others lost, so its rows would under-count its launches "
                                                         "and time: copy the file again, or re-profile"),)
    assert rows(store, "SELECT path, exit_code FROM errors") == [(str(cut), 2)]
    assert rows(store, "SELECT path FROM reports") == [(str(TRIAD),)]
    again = collect([cut], store)
    assert (again.unchanged, again.still_failed, len(again.errors)) == (1, 1, 1)


def test_a_report_model_saved_from_an_incomplete_report_is_an_error_row(tmp_path: Path) -> None:
    model = json.loads(FP16.read_text())
    model["incomplete"] = True
    saved = tmp_path / "cut.roofline.json"
    saved.write_text(json.dumps(model))
    ((path, line),) = collect([saved], tmp_path / "s").errors
    assert path == str(saved) and line.startswith(f"{saved}: {collecting.INCOMPLETE}: ")


def test_a_truncated_shared_report_is_refused_by_collect_as_diff_refuses_it(tmp_path: Path,
                                                                           shared_report: Any) -> None:
    """The probe's file: the RTX 2080 Ti report cut at 95,000 bytes holds launch 0:0 of its two."""
    whole = shared_report("rtx2080ti_kernels_basic")
    cut = tmp_path / "cut95000.ncu-rep"
    cut.write_bytes(whole.read_bytes()[:95_000])
    ((_, line),) = collect([cut], tmp_path / "s").errors
    assert line.startswith(f"{cut}: the file is incomplete (cut short or missing records): 1 launch read")
    assert rows(tmp_path / "s", "SELECT count(*) FROM reports") == [(0,)]


def test_a_symbolic_link_is_collected_under_the_path_given_not_its_target(tmp_path: Path) -> None:
    """docs/store.md: a report is named by the path it was collected from; the link's path was its target's."""
    from roofline.store.select import store_reports

    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "link.ncu-rep").symlink_to(TRIAD)
    named = tmp_path / "named.ncu-rep"
    named.symlink_to(INTOPS)
    store = tmp_path / "s"
    assert collect([tmp_path / "in", named], store).analysed == 2
    assert rows(store, "SELECT path FROM reports ORDER BY path") == [(str(tmp_path / "in" / "link.ncu-rep"),),
                                                                     (str(named),)]
    assert store_reports(store, [str(named)]) == [str(named)]


def test_a_report_named_twice_through_a_link_is_collected_once_and_dotdot_follows_the_link(tmp_path: Path) -> None:
    """A folder holding a report and a link to it gave two reports, every sum of the store counting its launches
    twice; `far/../x` through a linked folder `far` is read where the file system puts it, not as `x` beside it."""
    import shutil

    folder = tmp_path / "in"
    folder.mkdir()
    shutil.copyfile(TRIAD, folder / "a.ncu-rep")
    (folder / "b.ncu-rep").symlink_to(folder / "a.ncu-rep")
    assert report_paths([folder]) == [str(folder / "a.ncu-rep")]
    (tmp_path / "elsewhere" / "deep").mkdir(parents=True)
    shutil.copyfile(INTOPS, tmp_path / "elsewhere" / "x.ncu-rep")
    (tmp_path / "here").mkdir()
    (tmp_path / "here" / "far").symlink_to(tmp_path / "elsewhere" / "deep")
    through = tmp_path / "here" / "far" / ".." / "x.ncu-rep"
    assert report_paths([through]) == [str(through)] and Path(report_paths([through])[0]).is_file()
    store = tmp_path / "s"
    assert collect([folder, through], store).analysed == 2
    assert rows(store, "SELECT count(*) FROM reports") == [(2,)]


@pytest.mark.parametrize(("arguments", "named"), [
    ({"workers": -1}, "workers=-1: not a whole number of at least 1: give e.g. workers=8"),
    ({"workers": 0}, "workers=0: not a whole number of at least 1"),
    ({"workers": "2"}, "workers='2': not a whole number of at least 1"),
    ({"scheduler": 5}, "scheduler=5: not a scheduler's address: give e.g. scheduler='tcp://head:8786'"),
    ({"scheduler": ""}, "scheduler='': not a scheduler's address"),
    ({"workers": 2, "scheduler": "tcp://head:8786"}, "workers=2 with scheduler='tcp://head:8786': choose one"),
    ({"options": {}}, "options={}: not an AnalysisOptions"),
    ({"batch": 0}, "batch=0: not a whole number of at least 1"),
    ({"store": None}, "store=None: not a path: give e.g. store='roofline-store'"),
    ({"paths": None}, "paths=None: not a path or a list of paths"),
    ({"paths": ["a\0b.ncu-rep"]}, "paths='a\\x00b.ncu-rep': not a valid path (it holds a NUL byte)"),
])
def test_an_argument_of_the_wrong_kind_is_refused_before_any_store_is_made(tmp_path: Path, arguments: dict[str, Any],
                                                                          named: str) -> None:
    """workers=-1 waited for ever on a cluster of no worker, leaving a store of a lock and a manifest; workers=0 ran
    here without a word; '2' and a number for the scheduler were bare TypeErrors."""
    from roofline.errors import UsageError

    call = {"paths": [TRIAD], "store": tmp_path / "s", **arguments}
    with pytest.raises(UsageError) as refused:
        collect(**call)
    assert str(refused.value).startswith(named) and "\n" not in str(refused.value)
    assert not (tmp_path / "s").exists()
