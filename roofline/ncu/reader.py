"""Read ``.ncu-rep`` files (through NVIDIA's ``ncu_report`` module) and report models into ``Report``.

This is the only module that imports ``ncu_report``. The native reader runs in a forked child process,
so a file that crashes it ends in a one-line error, never in a signal that kills the CLI, and a file it
spins on is killed after a time limit scaled to the file's size. Before that, the container is walked
(``roofline.ncu.container``) for a cut, an appended report or garbage. Only the metrics the analysis uses are read
(``metrics.to_read``, the one list beside the formulas), plus a count of roofline's own: the thread executions of
zero-product HFMA2 instructions (``metrics.HFMA_MOVES``), from the per-instruction SASS counts and text. Every
report, from either kind of file, passes ``roofline.ncu.validation`` before it is returned.

The SASS text comes from ncu_report's disassembler, which only the child may start: a process forked after it ran
hangs in it (its helper thread is not inherited), so the parent never reads SASS.

The child can be started ahead (``read_ahead``): the CLI starts the one report of a command before it parses
its command line, so ncu_report's parse (most of the cost of a report) runs beside the option parser's import.
This module imports little at its top, so that start comes early.

The child sends its answer in frames (``_Frames``): the device, then the launches in batches as they are read, then
the end. The parent builds the launches of each batch as it arrives and hands them to ``early`` (the pipeline works
out their diagnostics there, while the rest of the file is read); the child never waits for the parent to take a
frame.
"""

from __future__ import annotations

import atexit
import os
import re
import select
import signal
import stat
import time
from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any

from roofline.errors import ReportError
from roofline.ncu import container as ncu_file

if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable, Sequence

    from roofline.core.model import Device, KernelLaunch, Report

    Early = Callable[[Device, Sequence[KernelLaunch]], None]

NCU_MAGIC = ncu_file.MAGIC
LFS_POINTER = b"version https://git-lfs"
MODEL_SUFFIX = ".json"
# Parsing a model takes about this many times its size in memory (its text, then the numbers and lists it holds:
# measured 2.8x for a 100,000-launch model of version 2, 2.1x for version 1).
MODEL_PARSE_FACTOR = 3
# The reader's time limit: ncu_report reads 10-20 MB/s here, so this leaves a 5-10x margin on large files.
READ_LIMIT_BASE_S = 30.0
READ_LIMIT_S_PER_MIB = 0.5
DEVICE_NAME = "device__attribute_display_name"
DEVICE_PREFIX = "device__attribute_"
_RULE_KINDS = {0: "info", 1: "ok", 2: "optimization", 3: "warning", 4: "error"}  # ncu_report.MsgType
_SPEEDUP_TYPES = {1: "local", 2: "global"}  # ncu_report.SpeedupType (0: unknown)
FRAME_LAUNCHES = 16  # launches per frame from the child: the parent's work on the last one is all that waits on it
_LENGTH_BYTES = 8  # each frame's pickle follows its length
PIPE_BYTES = 1 << 20  # the pipe from the child holds this much where the system lets it (Linux; 64 KiB otherwise)
_ENDS = ("ok", "error", "missing-module")  # the kinds of the last frame: how the read ended


def load_report(path: str | os.PathLike[str], time_limit_s: float | None = None, early: Early | None = None) -> Report:
    """Load one report file (``.ncu-rep`` or a ``.json`` report model), validated; ReportError on bad input.
    ``time_limit_s`` bounds the native reader (default: ``read_time_limit`` of the file's size). ``early`` is given
    the device and each batch of an ``.ncu-rep``'s launches as they are read, before they are validated: the
    report's launches that pass are these very objects."""
    p = Path(path)
    size = _check_file(p)
    if p.suffix == MODEL_SUFFIX:
        report = _load_model(p, size)
    else:
        _check_magic(p)
        report = _load_ncu_rep(p, time_limit_s or read_time_limit(size), early)
    if not report.launches:
        raise ReportError(f"{p}: holds no kernel launches",
                          "the profiled run matched no kernel, or the file is truncated; re-profile or copy it again")
    return report


def read_time_limit(size_bytes: int) -> float:
    """Seconds the native reader may take on a file of this size before it is killed."""
    return READ_LIMIT_BASE_S + READ_LIMIT_S_PER_MIB * size_bytes / 2**20


def _check_file(p: Path) -> int:
    """The size of a readable regular file; ReportError naming what it is otherwise."""
    try:
        info = p.stat()
    except FileNotFoundError:
        raise ReportError(f"{p}: no such file", "check the path") from None
    except OSError as err:
        raise ReportError(f"{p}: cannot access ({err.strerror})", "check the path and its permissions") from None
    if stat.S_ISDIR(info.st_mode):
        raise ReportError(f"{p}: is a folder, not a report", "name the .ncu-rep file inside it")
    if not stat.S_ISREG(info.st_mode):
        raise ReportError(f"{p}: is not a regular file (a device, FIFO or socket)", "save the report to a file first")
    if info.st_size == 0:
        raise ReportError(f"{p}: file is empty", "the profiling run did not finish; profile again")
    if not os.access(p, os.R_OK):
        raise ReportError(f"{p}: cannot read (permission denied)", "check the file's permissions")
    return info.st_size


def _check_magic(p: Path) -> None:
    with _opened(p) as fh:
        head = fh.read(len(LFS_POINTER))
    if head.startswith(LFS_POINTER):
        raise ReportError(f"{p}: is a Git LFS pointer, not the report", "run 'git lfs pull' to fetch the file")
    if not head.startswith(NCU_MAGIC):
        raise ReportError(f"{p}: not an Nsight Compute report (no NVR header)",
                          "pass a .ncu-rep file written by ncu, or a .json report model")


def _opened(p: Path) -> Any:
    """``p`` opened for reading, or ReportError naming why not."""
    try:
        return p.open("rb")
    except OSError as err:
        raise ReportError(f"{p}: cannot read ({err.strerror})", "check the file's permissions") from None


def _load_model(p: Path, size: int) -> Report:
    """A report model: bounded size, UTF-8 JSON, every field typed (``validation.check_model_document``), its ranges
    checked (``validation.check_report``)."""
    import json

    from roofline.core.model import Report
    from roofline.ncu import validation

    not_model = "pass a .ncu-rep file or a .json written by roofline"
    largest = model_max_bytes()
    if size > largest:
        raise ReportError(f"{p}: {size / 2**20:.0f} MiB is over the {largest >> 20} MiB of report model this machine "
                          f"can parse (about {MODEL_PARSE_FACTOR}x the file in memory)",
                          "analyse it on a machine with more memory, or the .ncu-rep it came from")
    with _opened(p) as fh:
        raw = fh.read()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise ReportError(f"{p}: not UTF-8 text (byte {err.start})", not_model) from None
    del raw  # the bytes and their text would both stay alive through the parse
    try:
        data = json.loads(text)
    except RecursionError:
        raise ReportError(f"{p}: JSON nested too deeply to be a report model", not_model) from None
    except ValueError as err:  # json.JSONDecodeError, and numbers too long to convert
        raise ReportError(f"{p}: not a valid roofline report model ({err})", not_model) from None
    del text
    unsure = validation.check_model_document(data, p)
    return validation.check_report(Report.from_dict(data, str(p)), unsure=unsure)


def model_max_bytes() -> int:
    """The largest report model this machine parses: its physical memory over MODEL_PARSE_FACTOR."""
    return physical_memory() // MODEL_PARSE_FACTOR


def physical_memory() -> int:
    """Bytes of physical memory, 3 GiB where the system does not tell (a model of 1 GiB then)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):  # no sysconf (Windows) or no such name
        return 3 << 30


def _load_ncu_rep(p: Path, time_limit_s: float, early: Early | None = None) -> Report:
    """Walk the container, read it in a child within the time limit, and validate what it holds."""
    from roofline.core.model import Device, Report
    from roofline.ncu import validation

    child = _take_ahead(p)
    try:
        shape = ncu_file.walk(p)
        if shape.garbage_at is not None:
            raise ReportError(f"{p}: not ncu records from byte {shape.garbage_at} of {shape.size} ({shape.garbage})",
                              "the file is corrupt, padded or has other data appended; copy it again or re-profile")
        read = _read_in_child(p, time_limit_s, _Assembly(early), child)
        child = None
    finally:
        if child is not None:
            child.stop()
    notes, empty = [], read.empty_launch
    if empty is not None:
        if shape.cut_at is None or not read.launches:
            raise ReportError(f"{p}: launch {empty} holds no data (no kernel name, no metrics)",
                              "the file is truncated or corrupt; copy it again or re-profile")
        notes.append(f"the file ends inside a record (byte {shape.size}; the record starts at {shape.cut_at}): "
                     f"launch {empty} and any after it are missing; copy the file again")
    elif shape.cut_at is not None:
        notes.append(f"the file ends inside a record (byte {shape.size}; the record starts at {shape.cut_at}); "
                     "copy the file again")
    foreign = None
    if shape.appended_at is not None:
        notes.append(f"another report is appended at byte {shape.appended_at}: its records are not analysed")
        foreign = shape.results_before_append
    report = Report(path=str(p), device=read.device or Device(name="unknown"), launches=tuple(read.launches),
                    source="ncu-rep", ncu_version=ncu_file.ncu_version(p))
    return validation.check_report(report, validation.NCU_FIX, read.launch_devices, notes, foreign)


class _Assembly:
    """The report as the child's frames bring it: the device, the launches (each batch handed to ``early`` as it
    is built), the device each launch's record names (for the integrity check), and where the read ended: at the
    end of the file, or at a launch without data (a cut file), named in ``empty_launch``."""

    def __init__(self, early: Early | None) -> None:
        self.early = early
        self.device: Device | None = None
        self.launches: list[KernelLaunch] = []
        self.launch_devices: list[str] = []
        self.empty_launch: str | None = None

    def take(self, frames: Sequence[tuple[Any, ...]]) -> None:
        """Frames of the child's answer but the last, in order: ("device", its dict) or ("launches", dicts,
        devices). Their launches go to ``early`` at once: it works on launches by the array, best in large batches."""
        from roofline.core.model import Device, launch_from_dict

        batch: list[KernelLaunch] = []
        for frame in frames:
            if frame[0] == "device":
                self.device = Device(**frame[1])
            else:
                batch += map(launch_from_dict, frame[1])
                self.launch_devices += frame[2]
        self.launches += batch
        if self.early is not None and self.device is not None and batch:
            self.early(self.device, batch)


# --- The child process --------------------------------------------------------------------------------
class _Child:
    """A forked child reading one file, and the pipe its pickled answer comes through."""

    def __init__(self, path: str) -> None:
        self.started = time.monotonic()
        read_fd, write_fd = os.pipe()
        _widen(write_fd)
        self.pid = os.fork()
        if self.pid == 0:  # the child ends here: nothing, not even Ctrl-C, unwinds into the parent's code
            code = 1
            try:
                os.close(read_fd)
                _child_main(path, write_fd)
                code = 0
            finally:
                os._exit(code)
        os.close(write_fd)
        self.fd = read_fd
        self.owner = os.getpid()

    def answer(self, p: Path, time_limit_s: float, take: Callable[[list[tuple[Any, ...]]], None]) -> tuple[str, Any]:
        """The child's last frame, (status, payload), the frames before it handed to ``take`` as they come, read
        until the time limit (counted from the child's start) passes; a child that ends without its last frame (killed
        by a signal) or that we kill at the limit becomes a ReportError."""
        try:
            end = _read_frames(self.fd, self.started + time_limit_s, take)
        except BaseException:  # ``take`` failed, or Ctrl-C: the child's answer is not wanted
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
        with suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGKILL)
        with suppress(ChildProcessError):
            os.waitpid(self.pid, 0)
        self.pid = 0  # reaped: its id may be another process's now


def _widen(fd: int) -> None:
    """Let the pipe hold ``PIPE_BYTES``, so that a frame of launches (about 7 KB each) goes through whole while the
    parent is busy: the rest of a frame the pipe cannot take waits in the child until its next frame."""
    import fcntl

    setsize = getattr(fcntl, "F_SETPIPE_SZ", None)
    if setsize is not None:
        with suppress(OSError):  # above the system's limit for this user: the pipe keeps its size
            fcntl.fcntl(fd, setsize, PIPE_BYTES)


# Children started ahead, by the identity of their file (device, inode, size, modification time).
_AHEAD: dict[tuple[int, int, int, int], _Child] = {}


def read_ahead(path: str | os.PathLike[str]) -> bool:
    """Start reading an ``.ncu-rep`` file in a child now; ``load_report`` of the same, unchanged file takes its
    answer (with the time limit counted from now). Anything but a regular file with the ncu header, or a
    platform without fork, is left alone (False). Children nobody took are killed at exit."""
    p = Path(path)
    try:
        with p.open("rb") as fh:
            head = fh.read(len(NCU_MAGIC))
        key = _identity(p)
    except OSError:
        return False
    if not head.startswith(NCU_MAGIC) or key is None or not hasattr(os, "fork") or key in _AHEAD:
        return False
    if not _AHEAD:
        atexit.register(stop_reading_ahead)
    _AHEAD[key] = _Child(str(p))
    return True


def _identity(p: Path) -> tuple[int, int, int, int] | None:
    """What tells a file from another one and from its own later versions; None for anything but a regular file."""
    try:
        info = p.stat()
    except OSError:
        return None
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns) if stat.S_ISREG(info.st_mode) else None


def _take_ahead(p: Path) -> _Child | None:
    """The child started ahead for this very file, unchanged since, if any (a forked worker's inherited entries are
    not its children)."""
    key = _identity(p)
    child = None if key is None else _AHEAD.pop(key, None)
    return child if child is not None and child.owner == os.getpid() else None


def stop_reading_ahead() -> None:
    """Kill and reap the children started ahead that nobody took (after a pipeline run, and at exit)."""
    while _AHEAD:
        _AHEAD.popitem()[1].stop()


def _read_in_child(p: Path, time_limit_s: float, into: _Assembly, child: _Child | None = None) -> _Assembly:
    """``into``, with the report read by ``child`` (one started ahead) or by a child forked now (ncu_report imported
    first, so every child starts with it loaded). Where the platform cannot fork, read in this process (no crash
    isolation and no time limit there)."""
    if child is None:
        with suppress(ImportError):
            import ncu_report  # noqa: F401
    if child is None and not hasattr(os, "fork"):
        status, payload = _answer(str(p), lambda frame: into.take([frame]))
    else:
        status, payload = (child or _Child(str(p))).answer(p, time_limit_s, into.take)
    if status == "error":
        raise ReportError(f"{p}: {payload}", "the file is corrupt, truncated or from an unsupported ncu version; "
                          "upgrade ncu-report (pip install -U ncu-report) or re-profile")
    if status == "missing-module":
        raise ReportError(f"{p}: cannot read .ncu-rep files: {payload}", "pip install ncu-report")
    into.empty_launch = payload
    return into


_PAST_LIMIT: tuple[str, Any] = ("past-limit", None)  # what _read_frames returns when the deadline passes first


def _read_frames(fd: int, deadline: float, take: Callable[[list[tuple[Any, ...]]], None]) -> tuple[str, Any] | None:
    """The child's last frame, the ones before it handed to ``take`` as they come (all the pipe holds at once); None
    when the pipe closes before the last frame (the child died), ``_PAST_LIMIT`` when the deadline passes first."""
    import pickle

    waiting = bytearray()
    while True:  # what came before the deadline is taken, however long this process worked on the frames before
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
            take(frames)
        if last is not None:
            return (last[0], last[1])


def _exit_code(status: int) -> int:
    """Like multiprocessing's exitcode: minus the signal number for a child killed by a signal."""
    return -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)


def _child_main(path: str, write_fd: int) -> None:
    """The forked child: read the report, sending its frames as it goes, send the last one, and end at once."""
    _silence_native_output()
    frames = _Frames(write_fd)
    frames.send(_answer(path, frames.send))
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


def _answer(path: str, send: Callable[[tuple[Any, ...]], None]) -> tuple[str, Any]:
    """The last frame, (status, payload): ("ok", the launch without data where a cut file ends, or None), or a
    failure kind and its message; the frames before it go to ``send`` as the file is read."""
    try:
        import ncu_report
    except ImportError as err:
        return "missing-module", str(err)
    try:
        return "ok", _read(ncu_report, path, send)
    except Exception as err:  # the native module raises assorted errors on corrupt input
        return "error", f"{type(err).__name__}: {err}"


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


# --- Reading (in the child) ---------------------------------------------------------------------------
def _read(ncu_report: Any, path: str, send: Callable[[tuple[Any, ...]], None]) -> str | None:
    """Read an ncu_report context (runs in the child), sending ("device", its dict) from the first launch, then
    ("launches", the launches' dicts, the device each one's record names) every ``FRAME_LAUNCHES`` launches. Reading
    stops at the first launch without data (a cut file), which is returned; None when every launch has data."""
    ctx = ncu_report.load_report(path)
    value = _value_reader(ncu_report)
    launches: list[dict[str, Any]] = []
    devices: list[str] = []
    device_sent, empty = False, None
    for r in range(ctx.num_ranges()):
        rng = ctx.range_by_idx(r)
        for a in range(rng.num_actions()):
            action = rng.action_by_idx(a)
            name, names = action.name(), action.metric_names()  # metric_names() is costly: call it once
            if name is None or not names:
                empty = f"{r}:{a}"
                break
            if not device_sent:
                send(("device", _device(action, names, value)))
                device_sent = True
            launches.append(_launch(ncu_report, action, r, a, name, names, value))
            devices.append(str(value(action.metric_by_name(DEVICE_NAME))))
            if len(launches) == FRAME_LAUNCHES:
                send(("launches", launches, devices))
                launches, devices = [], []
        if empty:
            break
    if launches:
        send(("launches", launches, devices))
    return empty


def _value_reader(ncu_report: Any) -> Callable[[Any], Any]:
    """metric -> its value (a number or a string) or None, by its value kind: what ``IMetric.value()`` does,
    without the table of readers it builds on every call (a third of the cost of a value)."""
    metric = ncu_report.IMetric
    by_kind = {metric.ValueKind_DOUBLE: metric.as_double, metric.ValueKind_FLOAT: metric.as_double,
               metric.ValueKind_UINT32: metric.as_uint64, metric.ValueKind_UINT64: metric.as_uint64,
               metric.ValueKind_STRING: metric.as_string}

    def value(m: Any) -> Any:
        read = None if m is None else by_kind.get(m.kind())
        return None if read is None else read(m)

    return value


def _device(action: Any, names: Sequence[str], value: Callable[[Any], Any]) -> dict[str, Any]:
    import math

    attrs = {}
    for name in names:
        if name.startswith(DEVICE_PREFIX):
            v = value(action.metric_by_name(name))
            if isinstance(v, (int, float, str)) and not (isinstance(v, float) and math.isnan(v)):
                attrs[name.removeprefix(DEVICE_PREFIX)] = v
    major, minor = attrs.get("compute_capability_major"), attrs.get("compute_capability_minor")
    khz = attrs.get("max_gpu_frequency_khz") or attrs.get("clock_rate")
    mem_khz = attrs.get("max_mem_frequency_khz") or attrs.get("memory_clock_rate")
    return {
        "name": str(attrs.get("display_name", "unknown")),
        "compute_capability": f"{major}.{minor}" if major is not None and minor is not None else None,
        "sm_count": _int(attrs.get("multiprocessor_count")),
        "max_clock_hz": float(khz) * 1e3 if khz else None,
        "memory_clock_hz": float(mem_khz) * 1e3 if mem_khz else None,
        "memory_bus_width_bits": _int(attrs.get("global_memory_bus_width")),
        "l2_cache_bytes": _int(attrs.get("l2_cache_size")),
        "total_memory_bytes": _int(attrs.get("total_memory")),
        "attributes": attrs,
    }


def _int(v: Any) -> int | None:
    return int(v) if isinstance(v, (int, float)) and v == v else None  # v == v: not NaN


def _launch(ncu_report: Any, action: Any, r: int, a: int, function_name: str, names: Sequence[str],
            value: Callable[[Any], Any]) -> dict[str, Any]:
    from roofline.ncu import metrics as m

    get = action.metric_by_name
    metrics: dict[str, Any] = {}
    nan: list[str] = []
    for name in m.to_read(names):
        _keep(value(get(name)), name, metrics, nan)
    for breakdown in m.BREAKDOWNS:  # the units each throughput is the maximum of, listed in its breakdown string
        listed = metrics.get(breakdown)
        for unit in (m.breakdown_units(str(listed)) if listed else ()):
            if unit not in metrics and unit not in nan:
                _keep(value(get(unit)), unit, metrics, nan)
    moves = hfma_moves(action) if m.counts_hfma(metrics) else None
    if moves is not None:
        metrics[m.HFMA_MOVES] = moves
    dims = [_int(metrics.get(name)) for name in (*m.GRID_DIMS, *m.BLOCK_DIMS)]
    return {
        "range_index": r,
        "action_index": a,
        "name": function_name,
        "demangled_name": action.name(ncu_report.IAction.NameBase_DEMANGLED),
        "mangled_name": action.name(ncu_report.IAction.NameBase_MANGLED),
        "grid": dims[:3] if None not in dims[:3] else None,
        "block": dims[3:] if None not in dims[3:] else None,
        "registers_per_thread": _int(metrics.get(m.LAUNCH_REGISTERS)),
        "shared_mem_per_block_bytes": _int(metrics.get(m.LAUNCH_SHARED)),
        "nvtx_ranges": _nvtx(action),
        "metrics": metrics,
        "nan_metrics": nan,
        "rules": _rules(action),
    }


def hfma_moves(action: Any) -> float | None:
    """Thread executions of zero-product HFMA2 instructions (``metrics.HFMA_MOVES``), from the per-instruction
    counts and SASS text; None where the launch has no such counts, ncu counted no HFMA2 executed, or the HFMA2s
    found do not add up to ncu's own HFMA2 count (a SASS text it cannot give). The SASS text (a disassembler
    started on first use, about half a second) is read only until every HFMA2 execution is accounted for."""
    from roofline.ncu import metrics as m

    by_opcode, per_pc = action.metric_by_name(m.PER_OPCODE_THREAD_INST), action.metric_by_name(m.PER_PC_THREAD_INST)
    if by_opcode is None or per_pc is None:
        return None
    opcodes = by_opcode.correlation_ids()
    expected = sum(by_opcode.as_double(i) for i in range(by_opcode.num_instances())
                   if opcodes.as_string(i) == m.HFMA2_OPCODE)
    if not expected > 0:
        return None
    pcs, found, moves = per_pc.correlation_ids(), 0.0, 0.0
    for i in range(per_pc.num_instances()):
        executed = per_pc.as_double(i)
        zero_product = hfma2_zero_product(action.sass_by_pc(pcs.as_uint64(i))) if executed > 0 else None
        if zero_product is not None:
            found += executed
            moves += executed if zero_product else 0.0
            if found >= expected:
                break
    return moves if found == expected else None


# An HFMA2 instruction's text: optional predicate guard, the opcode and its modifiers, destination, multiplicands.
_HFMA2 = re.compile(r"\s*(?:@!?U?P\w+\s+)?HFMA2(?:\.\w+)*\s+([^,]+),([^,]+),([^,]+)")
_ZERO_REGISTER = re.compile(r"-?\|?RZ\|?(?:\.\w+)?")  # RZ with a sign, an absolute value or a lane selector


def hfma2_zero_product(sass: str) -> bool | None:
    """Whether an HFMA2's two multiplicands are both the zero register (a register move, no arithmetic); None for
    any other instruction."""
    match = _HFMA2.match(sass)
    if match is None:
        return None
    return all(_ZERO_REGISTER.fullmatch(operand.strip()) for operand in match.group(2, 3))


def _keep(v: Any, name: str, metrics: dict[str, Any], nan: list[str]) -> None:
    """Store one metric's value (numbers and strings); a NaN is listed apart, an absent metric is skipped."""
    if isinstance(v, float) and v != v:
        nan.append(name)
    elif isinstance(v, (int, float, str)):
        metrics[name] = v


def _nvtx(action: Any) -> list[str]:
    """NVTX ranges around the launch, outermost first, as ``domain:range`` (domain omitted if default)."""
    state = action.nvtx_state()
    if state is None:
        return []
    out = []
    for domain_id in state.domains():
        domain = state.domain_by_id(domain_id)
        prefix = "" if domain.name() in ("", "<default domain>") else f"{domain.name()}:"
        out += [prefix + name for name in (*domain.start_end_ranges(), *domain.push_pop_ranges())]
    return out


def _rules(action: Any) -> list[dict[str, Any]]:
    """The rule results that carry a message, with their focus metrics and estimated speedup, in the model's
    form (``RuleResult.to_dict``)."""
    out = []
    for rule in action.rule_results_as_dicts():
        msg = rule.get("rule_message") or {}
        text = (msg.get("message") or "").strip()
        if text:
            speedup = rule.get("speedup_estimation") or {}
            out.append({"rule": rule.get("rule_identifier", ""), "section": rule.get("section_identifier", ""),
                        "title": msg.get("title", ""), "message": text,
                        "kind": _RULE_KINDS.get(msg.get("type", -1), "info"),
                        "focus_metrics": [_focus(f) for f in rule.get("focus_metrics") or ()],
                        "speedup_pct": _finite(speedup.get("speedup")),
                        "speedup_type": _SPEEDUP_TYPES.get(speedup.get("type", 0), "")})
    return out


def _focus(item: dict[str, Any]) -> dict[str, Any]:
    return {"name": str(item.get("name", "")), "value": _finite(item.get("value")),
            "severity": int(item.get("severity") or 0), "info": str(item.get("info") or "")}


def _finite(v: Any) -> float | None:
    return float(v) if isinstance(v, (int, float)) and v == v and abs(v) != float("inf") else None
