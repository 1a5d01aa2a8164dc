"""The forked child that reads one ``.ncu-rep`` with NVIDIA's ``ncu_report``, and the frames its answer comes in.

A crash of the native reader kills the child, not the CLI, and a child past its time limit is killed. The child
sends the device, then the launches in batches as it reads them (``ncu.extract``), then how the read ended, each
frame pickled after its length; it never waits for the parent to take a frame (``_Frames``).

The child can be started ahead (``read_ahead``): the CLI starts the one report a command line names before it
imports the command's module and parses its command line, so ncu_report's parse (most of the cost of a small report)
runs beside those imports (docs/benchmarks.md). Whether the command reads reports, and their SASS, is known only
once its module is imported (its facts): the child opens and parses the file, then waits for that word
(``decide_ahead``). This module imports little at its top, so that start comes early.
The SASS text comes from ncu_report's disassembler, which only the child may start: a process forked after it ran
hangs in it (its helper thread is not inherited), so the parent never reads SASS.
"""

from __future__ import annotations

import atexit
import os
import select
import signal
import stat
import time
from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any

from roofline.core.files import open_regular
from roofline.errors import ReportError
from roofline.ncu.container import MAGIC as NCU_MAGIC

if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable, Generator

_LENGTH_BYTES = 8  # each frame's pickle follows its length
PIPE_BYTES = 1 << 20  # the pipe from the child holds this much where the system lets it (Linux; 64 KiB otherwise)
_ENDS = ("ok", "error", "missing-module")  # the kinds of the last frame: how the read ended


class Child:
    """A forked child reading one file, and the pipe its pickled answer comes through. A child started with ``sass``
    None opens and parses the file, then waits for ``decide`` to say whether it reads the SASS."""

    def __init__(self, path: str, sass: bool | None = True) -> None:
        self.started = time.monotonic()
        read_fd, write_fd = os.pipe()
        _widen(write_fd)
        told, self.word = os.pipe() if sass is None else (-1, -1)
        try:
            self.pid = os.fork()
        except OSError:  # no process can be made now (EAGAIN, ENOMEM): no pipe is left open
            for fd in (read_fd, write_fd, told, self.word):
                _close(fd)
            raise
        if self.pid == 0:  # the child ends here: nothing, not even Ctrl-C, unwinds into the parent's code
            code = 1
            try:
                os.close(read_fd)
                _close(self.word)
                _child_main(path, write_fd, _told(told) if sass is None else sass)
                code = 0
            finally:
                os._exit(code)
        os.close(write_fd)
        _close(told)
        self.fd = read_fd
        self.owner = os.getpid()

    def decide(self, sass: bool) -> None:
        """Tell a child started with ``sass`` None whether it reads the SASS of the sampled instructions; its time
        limit counts from now (the command's imports, while it waited, are not its read's time)."""
        with suppress(OSError):  # the child has ended (a file it could not open): its last frame says why
            os.write(self.word, b"1" if sass else b"0")
        _close(self.word)
        self.word = -1
        self.started = time.monotonic()

    def frames(self, p: Path, time_limit_s: float) -> Generator[list[tuple[Any, ...]], None, tuple[str, Any]]:
        """The child's frames but the last, yielded as they come, read until the time limit (counted from the
        child's start) passes; returns the last frame, (status, payload). A child that ends without its last frame
        (killed by a signal) or that we kill at the limit becomes a ReportError."""
        try:
            end = yield from read_frames(self.fd, self.started + time_limit_s)
        except BaseException:  # the reader's consumer failed or stopped, or Ctrl-C: the answer is not wanted
            self.stop()
            raise
        os.close(self.fd)
        self.fd = -1
        if end is _PAST_LIMIT:
            self.stop()
            raise ReportError(f"{p}: reading took longer than {time_limit_s:g} s and was stopped",
                              "the file may be corrupt; if it is a large real report, raise --timeout (seconds)")
        _, status = os.waitpid(self.pid, 0)
        self.pid = 0
        if end is None:
            raise ReportError(f"{p}: the ncu_report reader crashed on this file (exit {_exit_code(status)})",
                              "the file is corrupt or truncated; copy it again or re-profile")
        return end

    def stop(self) -> None:
        """Kill the child and reap it (its answer is not wanted)."""
        if self.owner != os.getpid() or self.pid == 0:  # a forked worker inherits the entry, not the child
            return
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1
        _close(self.word)
        self.word = -1
        with suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGKILL)
        with suppress(ChildProcessError):
            os.waitpid(self.pid, 0)
        self.pid = 0  # reaped: its id may be another process's now


def _close(fd: int) -> None:
    """Close a pipe's end, where there is one (-1: none)."""
    if fd >= 0:
        os.close(fd)


def _told(fd: int) -> Callable[[], bool]:
    """In the child: what waits for the parent's word on ``fd`` (whether to read the SASS). A parent that closes the
    pipe without a word does not want the read: the child ends there."""

    def wait() -> bool:
        word = os.read(fd, 1)
        if not word:
            os._exit(0)
        os.close(fd)
        return word == b"1"

    return wait


def _widen(fd: int) -> None:
    """Let the pipe hold ``PIPE_BYTES``, so that a frame of launches (about 7 KB each) goes through whole while the
    parent is busy: the rest of a frame the pipe cannot take waits in the child until its next frame."""
    import fcntl

    setsize = getattr(fcntl, "F_SETPIPE_SZ", None)
    if setsize is not None:
        with suppress(OSError):  # above the system's limit for this user: the pipe keeps its size
            fcntl.fcntl(fd, setsize, PIPE_BYTES)


# Children started ahead, by the identity of their file (device, inode, size, modification time) and whether they
# read the SASS of sampled instructions (None: not told yet, ``decide_ahead``).
_AHEAD: dict[tuple[tuple[int, int, int, int], bool | None], Child] = {}


def read_ahead(path: str | os.PathLike[str], sass: bool | None = True) -> bool:
    """Start reading an ``.ncu-rep`` file in a child now; ``load_report`` of the same, unchanged file (with the same
    ``sass``) takes its answer (with the time limit counted from now). With ``sass`` None the child opens the file
    and waits until ``decide_ahead`` says whether the SASS is read. Anything but a regular file with the ncu header,
    or a platform without fork, is left alone (False). Children nobody took are killed at exit."""
    p = Path(path)
    try:  # a FIFO or a loop of links is left to load_report, which names it
        with open_regular(p, ReportError, "") as fh:
            head = fh.read(len(NCU_MAGIC))
        key = _identity(p)
    except (OSError, ReportError):
        return False
    if not head.startswith(NCU_MAGIC) or key is None or not hasattr(os, "fork") or (key, sass) in _AHEAD:
        return False
    try:
        child = Child(str(p), sass)
    except OSError:  # the fork failed: the reader reads it itself later (and says why it cannot, if it cannot)
        return False
    if not _AHEAD:
        atexit.register(stop_reading_ahead)
    _AHEAD[key, sass] = child
    return True


def _identity(p: Path) -> tuple[int, int, int, int] | None:
    """What tells a file from another one and from its own later versions; None for anything but a regular file."""
    try:
        info = p.stat()
    except OSError:
        return None
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns) if stat.S_ISREG(info.st_mode) else None


def decide_ahead(sass: bool | None) -> None:
    """Tell the children started ahead without knowing it whether they read the SASS; None: the command reads no
    report, and they are stopped."""
    for key, child in list(_AHEAD.items()):
        if key[1] is None:
            del _AHEAD[key]
            if sass is None or (key[0], sass) in _AHEAD:
                child.stop()
            else:
                child.decide(sass)
                _AHEAD[key[0], sass] = child


def take_ahead(p: Path, sass: bool = True) -> Child | None:
    """The child started ahead for this very file, unchanged since, reading as ``sass`` says, if any (a forked
    worker's inherited entries are not its children)."""
    key = _identity(p)
    child = None if key is None else _AHEAD.pop((key, sass), None)
    return child if child is not None and child.owner == os.getpid() else None


def stop_reading_ahead() -> None:
    """Kill and reap the children started ahead that nobody took (after a pipeline run, and at exit)."""
    while _AHEAD:
        _AHEAD.popitem()[1].stop()


_PAST_LIMIT: tuple[str, Any] = ("past-limit", None)  # what read_frames returns when the deadline passes first


def read_frames(fd: int, deadline: float) -> Generator[list[tuple[Any, ...]], None, tuple[str, Any] | None]:
    """The child's frames but the last, yielded as they come (all the pipe holds at once); returns the last frame,
    None when the pipe closes before it (the child died), ``_PAST_LIMIT`` when the deadline passes first. The time
    the consumer spends on the frames it was given (the pipeline diagnoses them) moves the deadline on: the limit
    bounds the reader, not the work done with what it read."""
    import pickle

    waiting = bytearray()
    while True:
        if not select.select([fd], [], [], max(0.0, deadline - time.monotonic()))[0]:
            return _PAST_LIMIT
        chunk = os.read(fd, PIPE_BYTES)
        if not chunk:
            return None
        waiting += chunk
        frames = []
        while len(waiting) >= _LENGTH_BYTES:
            end = _LENGTH_BYTES + int.from_bytes(waiting[:_LENGTH_BYTES], "little")
            if len(waiting) < end:
                break
            frames.append(pickle.loads(waiting[_LENGTH_BYTES:end]))
            del waiting[:end]
        last = frames.pop() if frames and frames[-1][0] in _ENDS else None
        if frames:
            given = time.monotonic()
            yield frames
            deadline += time.monotonic() - given
        if last is not None:
            return (last[0], last[1])


def _exit_code(status: int) -> int:
    """Like multiprocessing's exitcode: minus the signal number for a child killed by a signal."""
    return -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)


def _child_main(path: str, write_fd: int, sass: bool | Callable[[], bool]) -> None:
    """The forked child: read the report, sending its frames as it goes, send the last one, and end at once."""
    _silence_native_output()
    frames = _Frames(write_fd)
    frames.send(answer(path, frames.send, sass))
    frames.close()
    # The answer is sent: end now. A normal exit first tears down the native report objects (tens of ms on
    # large reports) while the parent waits; nothing is left to flush (stdout/stderr are null).
    os._exit(0)


class _Frames:
    """The child's end of the pipe: each frame pickled after its length, written as far as the pipe takes it now.
    The rest waits here for the next frame, so that the read never stops for a parent busy elsewhere."""

    def __init__(self, fd: int) -> None:
        os.set_blocking(fd, False)
        self.fd = fd
        self.waiting = bytearray()

    def send(self, frame: tuple[Any, ...]) -> None:
        import pickle

        data = pickle.dumps(frame, protocol=pickle.HIGHEST_PROTOCOL)
        self.waiting += len(data).to_bytes(_LENGTH_BYTES, "little") + data
        with suppress(BlockingIOError):
            del self.waiting[:os.write(self.fd, self.waiting)]

    def close(self) -> None:
        """Write what waits, blocking now, and close the pipe."""
        os.set_blocking(self.fd, True)
        while self.waiting:
            del self.waiting[:os.write(self.fd, self.waiting)]
        os.close(self.fd)


def answer(path: str, send: Callable[[tuple[Any, ...]], None],
           sass: bool | Callable[[], bool] = True) -> tuple[str, Any]:
    """The last frame, (status, payload): ("ok", the launch without data where a cut file ends, or None), or a
    failure kind and its message; the frames before it go to ``send`` as the file is read (``sass``: whether the
    sampled instructions' SASS is read, or what tells it once the file is open and parsed)."""
    try:
        import ncu_report
    except ImportError as err:
        return "missing-module", str(err)
    from roofline.ncu import extract

    try:
        ctx = extract.opened(ncu_report, _native_path(path))
        return "ok", extract.read(ncu_report, ctx, send, sass if isinstance(sass, bool) else sass())
    except Exception as err:  # the native module raises assorted errors on corrupt input
        return "error", f"{type(err).__name__}: {err}"


def _native_path(path: str) -> str:
    """A path ncu_report can take: it wants UTF-8, so a name with bytes that are not (held as surrogates) is passed
    as the descriptor of the opened file (this process is the child: the descriptor ends with it)."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return f"/dev/fd/{os.open(path, os.O_RDONLY)}"
    return path


def _silence_native_output() -> None:
    """Send the child's stdout/stderr to the null device: the native reader logs parse errors there
    (absl/protobuf lines), which would break the CLI's one-line error messages."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        os.close(devnull)
    except OSError:  # pragma: no cover - keep reading even if the descriptors cannot be redirected
        pass
