"""Input files are opened only when they are regular files: a FIFO, a device, a folder or a loop of symbolic links
is refused with one line naming it, before anything could block on it (issue 37)."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from roofline.core.files import open_regular, regular_file
from roofline.errors import ReportError

FIX = "pass a file"


def refused(path) -> str:
    with pytest.raises(ReportError) as info:
        open_regular(path, ReportError, FIX)
    assert info.value.hint in (FIX, "check the path", "point the link at a file")
    return info.value.message


def test_a_regular_file_and_a_link_to_one_are_opened(tmp_path):
    (tmp_path / "r.json").write_bytes(b"{}")
    (tmp_path / "link.json").symlink_to("r.json")
    for name in ("r.json", "link.json"):
        with open_regular(tmp_path / name, ReportError, FIX) as fh:
            assert fh.read() == b"{}"
    assert regular_file(tmp_path / "link.json", ReportError, FIX).st_size == 2


def test_a_fifo_is_refused_at_once_without_a_writer(tmp_path):
    fifo = tmp_path / "x.ncu-rep"
    os.mkfifo(fifo)
    answer: list[str] = []
    reader = threading.Thread(target=lambda: answer.append(refused(fifo)), daemon=True)
    reader.start()
    reader.join(5)
    assert answer == [f"{fifo}: is a FIFO, not a regular file"]


@pytest.mark.parametrize("links", [{"a": "b", "b": "a"}, {"a": "a"}])
def test_a_loop_of_symbolic_links_is_named(tmp_path, links):
    for name, target in links.items():
        (tmp_path / name).symlink_to(target)
    assert refused(tmp_path / "a") == f"{tmp_path / 'a'}: a loop of symbolic links, no file at its end"


def test_folders_devices_and_missing_files_are_named(tmp_path):
    assert refused(tmp_path) == f"{tmp_path}: is a folder, not a regular file"
    assert refused(tmp_path / "absent") == f"{tmp_path / 'absent'}: no such file"
    if os.path.exists("/dev/zero"):
        assert refused(Path("/dev/zero")) == "/dev/zero: is a character device, not a regular file"


def test_unwritable_folder_names_the_nearest_folder_and_why(tmp_path, monkeypatch):
    from roofline.core import files

    (tmp_path / "afile").write_text("")
    assert files.unwritable_folder(tmp_path / "new" / "deeper") is None  # made from a folder that takes files
    assert files.unwritable_folder(tmp_path / "afile" / "sub") == (tmp_path / "afile", files.NOT_A_FOLDER)
    monkeypatch.setattr(files.os, "access", lambda path, mode: False)
    monkeypatch.setattr(files.os, "statvfs", lambda path: type("V", (), {"f_flag": 0})())
    assert files.unwritable_folder(tmp_path / "new") == (tmp_path, "permission denied")
