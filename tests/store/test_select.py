"""The reports a store names for compare and diff: found by path (as collected or relative), file name and report
id; refused in one line when the name fits none or several, collect could not analyse the file, or the file is gone
or changed since it was collected; a file touched but not changed is still the one analysed."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from roofline.store.collect import collect
from roofline.store.dataset import StoreError, open_store
from roofline.store.select import store_reports
from tests.conftest import REPO

pytest.importorskip("pyarrow", reason="pyarrow not installed (pip install 'roofline[store]')")
H100 = REPO / "examples" / "h100"
H200 = REPO / "examples" / "h200"
NAMES = ("torch-fp64.roofline.json", "torch-fp64.full.json")


@pytest.fixture
def store(tmp_path: Path) -> tuple[Path, list[Path]]:
    """A store of copies of three report models (two H100 runs of one program, one H200 run of another) and one
    broken file."""
    (tmp_path / "h100").mkdir()
    (tmp_path / "h200").mkdir()
    files = [Path(shutil.copy(H100 / n, tmp_path / "h100")) for n in NAMES]
    files.append(Path(shutil.copy(H200 / "torch-fp64.roofline.json", tmp_path / "h200")))
    broken = tmp_path / "h100" / "broken.json"
    broken.write_text('{"format": "roofline-report-model", ')
    outcome = collect([*files, broken], tmp_path / "s")
    assert outcome.analysed == 3 and len(outcome.errors) == 1
    return tmp_path / "s", files


def test_a_report_is_named_by_its_path_its_tail_or_its_id(store: tuple[Path, list[Path]],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    root, files = store
    full = str(files[1].resolve())
    report_id = open_store(root).reports[full]["report_id"]
    monkeypatch.chdir(files[1].parent)
    for name in (full, "torch-fp64.full.json", "h100/torch-fp64.full.json", "./torch-fp64.full.json",
                 report_id, report_id[:8]):
        assert store_reports(root, [name]) == [full], name
    assert store_reports(root, ["h100/torch-fp64.roofline.json", "torch-fp64.full.json"]) == [
        str(files[0].resolve()), full]


@pytest.mark.parametrize(("name", "words"), [
    ("torch-fp64.roofline.json", "names 2 reports of the store"),  # one in h100/, one in h200/
    ("fp64.full.json", "not the name of a report"),  # a tail is whole path components
    ("broken.json", "collect could not analyse"),
])
def test_a_name_for_none_several_or_a_failed_report_is_refused(store: tuple[Path, list[Path]], name: str,
                                                               words: str) -> None:
    with pytest.raises(StoreError, match=words) as caught:
        store_reports(store[0], [name])
    assert "\n" not in str(caught.value)


def test_a_file_gone_or_changed_since_collect_is_refused(store: tuple[Path, list[Path]]) -> None:
    root, files = store
    files[0].unlink()
    with pytest.raises(StoreError, match="the file is gone"):
        store_reports(root, ["h100/torch-fp64.roofline.json"])
    files[1].write_text(files[1].read_text() + " ")
    with pytest.raises(StoreError, match="changed since it was collected"):
        store_reports(root, ["torch-fp64.full.json"])


def test_a_file_touched_but_not_changed_is_accepted(store: tuple[Path, list[Path]]) -> None:
    root, files = store
    os.utime(files[2], ns=(1, 1))
    assert store_reports(root, ["h200/torch-fp64.roofline.json"]) == [str(files[2].resolve())]
