"""The store's folder: a batch stopped before its commit leaves the store as it was (its files removed by the next
collect), two collects on one store run one after the other, a folder that is no store and a store of a newer
roofline are refused in one line, and a newer roofline reads an older store's files (a column added reads null)."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest

import roofline.store.dataset as dataset
from roofline.store.collect import collect
from roofline.store.dataset import LOCK, StoreError, open_store
from roofline.store.query import query
from roofline.store.schema import STORE_SCHEMA
from tests.conftest import REPO

FP16 = REPO / "examples" / "h100" / "torch-fp16.full.json"
FP32 = REPO / "examples" / "h200" / "torch-fp32.roofline.json"


def count(store: Path, table: str = "launches") -> int:
    (n,) = query(store, f"SELECT count(*) AS n FROM {table}").column("n").to_pylist()
    return int(n)


def test_a_batch_stopped_before_its_commit_leaves_the_store_as_it_was(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    store = tmp_path / "s"
    collect([FP16], store)
    manifest, launches = (store / "manifest.json").read_text(), count(store)

    def interrupted(root: Path, record: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(dataset, "write_record", interrupted)  # the commit of the batch
    with pytest.raises(KeyboardInterrupt):
        collect([FP32], store)
    monkeypatch.undo()
    assert (store / "manifest.json").read_text() == manifest and count(store) == launches
    strays = len(list(store.rglob("*.parquet"))) - sum(len(v) for v in json.loads(manifest)["files"].values())
    assert strays > 0  # the stopped batch's files, named by no manifest
    outcome = collect([FP32], store)
    assert outcome.strays == strays and outcome.analysed == 1
    named = {f for v in json.loads((store / "manifest.json").read_text())["files"].values() for f in v}
    assert {str(p.relative_to(store)) for p in store.rglob("*.parquet")} == named


def test_two_collects_on_one_store_run_one_after_the_other(tmp_path: Path) -> None:
    import fcntl

    store = tmp_path / "s"
    collect([FP16], store)
    done: list[float] = []
    with open(store / LOCK, "a+") as held:  # another writer holds the store
        fcntl.flock(held, fcntl.LOCK_EX)
        def second() -> None:
            collect([FP32], store)
            done.append(time.monotonic())

        other = threading.Thread(target=second)
        other.start()
        time.sleep(1.0)
        assert not done  # waiting for the lock
        released = time.monotonic()
        fcntl.flock(held, fcntl.LOCK_UN)
    other.join(60)
    assert done and done[0] >= released and count(store, "reports") == 2


def test_a_missing_store_a_foreign_folder_and_a_newer_store_are_refused_in_one_line(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="no such store"):
        open_store(tmp_path / "none")
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x.txt").write_text("x")
    with pytest.raises(StoreError, match="not a roofline store and not an empty folder"):
        collect([FP16], tmp_path / "full")
    store = tmp_path / "s"
    collect([FP16], store)
    manifest = json.loads((store / "manifest.json").read_text())
    (store / "manifest.json").write_text(json.dumps({**manifest, "store_schema": 99}))
    with pytest.raises(StoreError, match="newer roofline") as refused:
        query(store, "SELECT 1")
    assert "\n" not in str(refused.value)


def test_a_file_named_as_the_store_is_said_to_be_a_file_not_an_os_error(tmp_path: Path) -> None:
    """`collect -o FILE` with no reports and `query FILE`: one line saying a store is a folder, not errno 20."""
    afile = tmp_path / "notes.txt"
    afile.write_text("x")
    for reading in (lambda: open_store(afile), lambda: query(afile, "SELECT 1")):
        with pytest.raises(StoreError, match="a file, not a roofline store") as refused:
            reading()
        assert "Errno" not in str(refused.value) and "\n" not in str(refused.value)


@pytest.mark.parametrize("where", ["under-a-file", "proc"])
def test_a_store_that_cannot_be_made_is_one_line_exit_2(tmp_path: Path, where: str) -> None:
    """A store under a file, or on a virtual file system (`/proc`), is `cannot create the store`, not a
    traceback."""
    from typer.testing import CliRunner

    from roofline.cli.app import app

    (tmp_path / "user.txt").write_text("mine")
    store = tmp_path / "user.txt" / "store" if where == "under-a-file" else Path("/proc/roofline-test-store")
    if where == "proc" and not Path("/proc/self").exists():
        pytest.skip("no /proc on this system")
    with pytest.raises(StoreError, match="cannot create the store") as refused:
        open_store(store, create=True)
    assert str(refused.value).startswith(f"{store}: ") and "\n" not in str(refused.value)
    result = CliRunner().invoke(app, ["collect", str(FP16), "-o", str(store)])
    assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1
    assert result.output.startswith(f"roofline: error: {store}: cannot create the store (")
    assert result.output.rstrip().endswith("choose a writable folder for -o STORE")
    assert (tmp_path / "user.txt").read_text() == "mine"


def as_an_older_roofline_wrote_it(store: Path, column: str) -> None:
    """The store's launches files without ``column``, its manifest of the schema before it."""
    import pyarrow.parquet as pq

    for f in open_store(store).files("launches"):
        pq.write_table(pq.read_table(f, partitioning=None).drop_columns([column]), f)
    manifest = json.loads((store / "manifest.json").read_text())
    (store / "manifest.json").write_text(json.dumps({**manifest, "store_schema": STORE_SCHEMA - 1}))


def test_a_newer_roofline_reads_an_older_store_its_new_columns_null(tmp_path: Path) -> None:
    store = tmp_path / "s"
    collect([FP16], store)
    as_an_older_roofline_wrote_it(store, "time_to_gain_s")
    got = query(store, "SELECT device, time_to_gain_s, duration_s FROM launches").to_pylist()
    assert got[0]["time_to_gain_s"] is None and got[0]["duration_s"] > 0


def test_a_newer_roofline_adds_to_an_older_store_and_writes_its_files_in_the_new_schema(tmp_path: Path) -> None:
    import pyarrow.parquet as pq

    store = tmp_path / "s"
    collect([FP16], store)
    as_an_older_roofline_wrote_it(store, "time_to_gain_s")
    collect([FP32], store)
    manifest = json.loads((store / "manifest.json").read_text())
    assert manifest["store_schema"] == STORE_SCHEMA and manifest["old_files"] == []
    assert all("time_to_gain_s" in pq.read_schema(f).names for f in open_store(store).files("launches"))
    got = query(store, "SELECT device, time_to_gain_s FROM launches ORDER BY device").to_pylist()
    assert [r["time_to_gain_s"] is None for r in got] == [True, False]  # the older rows' figure stays unknown


def test_a_collect_merges_a_partitions_small_files(tmp_path: Path) -> None:
    store = tmp_path / "s"
    reports = sorted((REPO / "examples" / "h100" / "ops").glob("op0*.json"))[:6]
    outcome = collect(reports, store, batch=1)
    assert outcome.analysed == 6
    launches = open_store(store).files("launches")
    assert len(launches) == 1  # six batches, one partition: merged once the collect ended
    assert count(store, "reports") == 6 and {str(p) for p in store.rglob("*.parquet")} == {
        str(f) for t in ("launches", "advice", "reports") for f in open_store(store).files(t)}


def test_batches_committed_before_a_stop_are_in_the_journal_and_applied_once(tmp_path: Path,
                                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    store = tmp_path / "s"
    reports = sorted((REPO / "examples" / "h100" / "ops").glob("op0*.json"))[:3]

    def stopped(self: dataset.Store) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(dataset.Store, "fold", stopped)
    with pytest.raises(KeyboardInterrupt):
        collect(reports, store, batch=1)
    monkeypatch.undo()
    records = sorted((store / dataset.JOURNAL).glob("*.json"))
    assert len(records) >= 3 and json.loads((store / "manifest.json").read_text())["reports"] == {}
    assert len(open_store(store).reports) == 3 and count(store, "reports") == 3  # read through the journal
    kept = {p.name: p.read_text() for p in records}
    outcome = collect(reports, store)
    assert outcome.unchanged == 3 and not list((store / dataset.JOURNAL).glob("*.json"))  # folded, then removed
    folded = json.loads((store / "manifest.json").read_text())
    assert len(folded["reports"]) == 3 and folded["journal"] == len(records)
    for name, text in kept.items():  # as if the fold stopped before it removed the records it holds
        (store / dataset.JOURNAL / name).write_text(text)
    assert dataset.read_manifest(store) == folded and count(store, "reports") == 3


def test_a_merge_writes_row_groups_of_bounded_size_and_keeps_every_row(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    import pyarrow.parquet as pq

    reports = sorted((REPO / "examples" / "h100" / "ops").glob("op0*.json"))[:5]
    whole, small = tmp_path / "whole", tmp_path / "small"
    collect(reports, whole, batch=1)
    monkeypatch.setattr(dataset, "MERGE_BYTES", 1)  # every file read is its own row group
    collect(reports, small, batch=1)
    (merged,) = open_store(small).files("launches")
    assert pq.ParquetFile(merged).metadata.num_row_groups == 5
    sql = "SELECT * EXCLUDE (collected_at, date) FROM launches ORDER BY path"
    assert query(small, sql).to_pylist() == query(whole, sql).to_pylist() and count(small) == count(whole) > 5


def damaged_copy(store: Path, to: Path, cut: bool = False) -> Path:
    """A copy of ``store`` with one launches file gone (or cut short: its footer lost); that file's name."""
    import shutil

    shutil.copytree(store, to)
    (lost,) = open_store(to).files("launches")[:1]
    if cut:
        lost.write_bytes(lost.read_bytes()[:300])
    else:
        lost.unlink()
    return lost


@pytest.mark.parametrize("cut", [False, True], ids=["gone", "cut-short"])
def test_a_damaged_store_is_one_line_and_collect_repairs_it(tmp_path: Path, cut: bool) -> None:
    """A Parquet file of the store gone or cut short: a query and a summary are one line naming the store and the
    fix (collect again), and ``collect`` with no report named analyses again the reports whose rows were lost, so
    the store answers as before."""
    from roofline.store.summary import summary_table

    store = tmp_path / "s"
    collect([FP16, FP32], store)
    sql = "SELECT path, count(*) AS n, sum(duration_s) AS s FROM launches GROUP BY path ORDER BY path"
    before = query(store, sql).to_pylist()
    copy = tmp_path / "copy"
    lost = damaged_copy(store, copy, cut)
    for ask in (lambda: query(copy, "SELECT 1"), lambda: summary_table(copy)):
        with pytest.raises(StoreError) as refused:
            ask()
        line = str(refused.value)
        assert "\n" not in line and line.startswith(f"{copy}: damaged store")
        assert lost.name in line and f"roofline collect -o {copy}" in line
    outcome = collect([], copy)
    assert outcome.repaired == 1 and outcome.analysed == 1 and not outcome.errors
    assert query(copy, sql).to_pylist() == before and count(copy, "reports") == 2
    assert collect([], copy).analysed == 0  # repaired: nothing to read again


def test_a_collect_of_other_reports_repairs_the_store_too(tmp_path: Path) -> None:
    store = tmp_path / "s"
    collect([FP16], store)
    copy = tmp_path / "copy"
    damaged_copy(store, copy)
    outcome = collect([FP32], copy)
    assert (outcome.analysed, outcome.repaired) == (2, 1) and count(copy, "reports") == 2


def test_a_file_unreadable_inside_is_named_by_the_query_and_once_deleted_collect_repairs_it(tmp_path: Path) -> None:
    store = tmp_path / "s"
    collect([FP16, FP32], store)
    launches = count(store)
    (bad,) = open_store(store).files("launches")[:1]
    data = bytearray(bad.read_bytes())
    data[8:-8] = b"\x55" * (len(data) - 16)  # its magic and footer length kept: whole at its ends
    bad.write_bytes(bytes(data))
    with pytest.raises(StoreError) as refused:
        count(store)
    line = str(refused.value)
    assert "\n" not in line and line.startswith(f"{bad}: damaged store") and "delete that file" in line
    bad.unlink()
    assert collect([], store).repaired == 1 and count(store) == launches


MANIFESTS = {
    "a list": "[]",
    "a schema that is text": '{"format": "roofline-store", "store_schema": "x"}',
    "no files": '{"format": "roofline-store", "store_schema": 1}',
    "an entry of the wrong type": '{"format": "roofline-store", "store_schema": 1, "files": {}, "reports": {"a": 1}}',
}


@pytest.mark.parametrize("text", MANIFESTS.values(), ids=MANIFESTS.keys())
def test_a_manifest_not_of_the_shape_roofline_writes_is_refused_in_one_line(tmp_path: Path, text: str) -> None:
    store = tmp_path / "s"
    collect([FP16], store)
    (store / "manifest.json").write_text(text)
    for act in (lambda: query(store, "SELECT 1"), lambda: collect([FP32], store)):
        with pytest.raises(StoreError, match="manifest.json") as refused:
            act()
        assert "\n" not in str(refused.value) and "collect into a new store" in str(refused.value)


RECORDS = {"no JSON": "{bad", "a list": "[1]", "no renamed": '{"seq": 999}'}


@pytest.mark.parametrize("text", RECORDS.values(), ids=RECORDS.keys())
def test_a_damaged_journal_record_is_refused_in_one_line_naming_it(tmp_path: Path, text: str) -> None:
    store = tmp_path / "s"
    collect([FP16], store)
    record = store / "journal" / "000000000999.json"
    record.parent.mkdir(exist_ok=True)
    record.write_text(text)
    for act in (lambda: query(store, "SELECT 1"), lambda: collect([FP32], store)):
        with pytest.raises(StoreError) as refused:
            act()
        assert str(refused.value).startswith(str(record)) and "\n" not in str(refused.value)
    record.unlink()  # the fix the line gives: the store is read again
    assert count(store) > 0


@pytest.mark.parametrize("command", [["query", "{store}", "SELECT 1"], ["summary", "{store}"],
                                     ["collect", "-o", "{store}"]])
def test_a_damaged_journal_record_exits_2_with_one_line(tmp_path: Path, command: list[str]) -> None:
    from typer.testing import CliRunner

    from roofline.cli.app import app

    store = tmp_path / "s"
    collect([FP16], store)
    (store / "journal").mkdir(exist_ok=True)
    (store / "journal" / "000000000999.json").write_text("[1]")
    result = CliRunner().invoke(app, [part.format(store=store) for part in command])
    assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1, result.output
    assert "000000000999.json" in result.output and "Traceback" not in result.output


def test_an_older_store_without_the_reports_missing_column_reads_it_as_null(tmp_path: Path) -> None:
    import pyarrow.parquet as pq

    store = tmp_path / "s"
    collect([FP16], store)
    for f in open_store(store).files("reports"):
        pq.write_table(pq.read_table(f, partitioning=None).drop_columns(["missing"]), f)
    manifest = json.loads((store / "manifest.json").read_text())
    (store / "manifest.json").write_text(json.dumps({**manifest, "store_schema": 1}))
    got = query(store, "SELECT label, missing FROM reports").to_pylist()
    assert got == [{"label": "torch-fp16.full", "missing": None}]


def test_an_older_store_without_the_advice_missing_column_reads_it_as_null(tmp_path: Path) -> None:
    """A store of schema 2 (before the advice rows gave their nulls' reasons) reads with the column, null."""
    import pyarrow.parquet as pq

    store = tmp_path / "s"
    collect([FP16], store)
    expected = query(store, "SELECT count(*) AS n FROM advice").column("n").to_pylist()
    for f in open_store(store).files("advice"):
        pq.write_table(pq.read_table(f, partitioning=None).drop_columns(["missing"]), f)
    manifest = json.loads((store / "manifest.json").read_text())
    (store / "manifest.json").write_text(json.dumps({**manifest, "store_schema": 2}))
    got = query(store, "SELECT count(*) AS n, count(missing) AS reasons FROM advice").to_pylist()
    assert got == [{"n": expected[0], "reasons": 0}] and expected[0] > 0
