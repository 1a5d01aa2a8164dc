"""Input files opened only when they are regular files: a FIFO would block the read forever, a device could
stream without end, and a loop of symbolic links has no file at its end. Reports, report models and spec YAML
are all opened here, so each of these is one line naming the file before anything waits on it."""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from roofline.errors import RooflineError

Fail = Callable[[str, str], RooflineError]  # an error class of roofline.error
NOT_A_FOLDER = "not a folder"  # why ``unwritable_folder`` found no folder to make files in
EMPTY_FILE = "file is empty"  # what a report of no bytes is told, whatever its kinds: (message, hint)


def file_kind(mode: int) -> str:
    """What a file that is not a regular file is, in words ("a FIFO"), from its ``st_mode``."""
    kinds = ((stat.S_ISDIR, "a folder"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
             (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"))
    return next((name for test, name in kinds if test(mode)), "not a regular file")


def unwritable_folder(folder: Path) -> tuple[Path, str] | None:
    """Why no file can be made in ``folder`` (its missing folders made first): the nearest folder that exists and
    what stops it ("not a folder", "read-only file system", "permission denied"); None when files can be made."""
    there = Path(os.path.abspath(folder))
    while not os.path.lexists(there) and there != there.parent:
        there = there.parent
    if not there.is_dir():
        return there, NOT_A_FOLDER
    if os.access(there, os.W_OK | os.X_OK):
        return None
    try:
        read_only = bool(os.statvfs(there).f_flag & os.ST_RDONLY)
    except OSError:
        read_only = False
    return there, "read-only file system" if read_only else "permission denied"


def regular_file(path: Path, fail: Fail, fix: str) -> os.stat_result:
    """The status of ``path`` (a symbolic link followed) when it is a regular file; else ``fail`` naming the file
    and what it is (missing, a loop of links, a folder, a FIFO, a device, a socket), with ``fix`` for the kinds."""
    try:
        info = path.stat()
    except FileNotFoundError:
        raise fail(f"{path}: no such file", "check the path") from None
    except OSError as err:
        if err.errno == errno.ELOOP:
            raise fail(f"{path}: a loop of symbolic links, no file at its end", "point the link at a file") from None
        raise fail(f"{path}: cannot access ({err.strerror})", "check the path and its permissions") from None
    if not stat.S_ISREG(info.st_mode):
        raise fail(f"{path}: is {file_kind(info.st_mode)}, not a regular file", fix)
    return info


def open_regular(path: Path, fail: Fail, fix: str) -> BinaryIO:
    """``path`` open for reading when it is a regular file (``regular_file``). It is opened without blocking and
    checked again once open, so a file swapped for a FIFO in between is refused too."""
    regular_file(path, fail, fix)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as err:
        raise fail(f"{path}: cannot read ({err.strerror})", "check the file's permissions") from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise fail(f"{path}: is {file_kind(mode)}, not a regular file", fix)
    os.set_blocking(fd, True)
    return os.fdopen(fd, "rb")


def base_name(path: str) -> str:
    """A source file's name without its folders (the build machine's, / or \\ separated)."""
    return path.replace("\\", "/").rsplit("/", 1)[-1]
