"""Read ``.ncu-rep`` files and report models (``.json``) into ``Report``: the file checks, the model's parse,
and the assembly of what the child process reading an ``.ncu-rep`` sends.

The native reader runs in a forked child (``ncu.child``; what it reads with ``ncu_report`` is ``ncu.extract``),
so a file that crashes it ends in a one-line error, never in a signal that kills the CLI, and a file it spins on
is killed after a time limit scaled to the file's size. Before that, the container is walked (``ncu.container``)
for a cut, an appended report or garbage. Every report, from either kind of file, passes ``ncu.validation``
before it is returned. The child sends the launches in batches as it reads them; ``ReportReading.batches`` yields
each batch as it arrives, and ``ReportReading.report`` is the validated report: those very launches, in the order
yielded, some marked invalid.
"""

from __future__ import annotations

import os
from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

from msgspec import Struct

from roofline.core.files import EMPTY_FILE, open_regular, regular_file
from roofline.core.thresholds import READ_LIMIT_BASE_S, READ_LIMIT_S_PER_MIB
from roofline.errors import ReportError
from roofline.ncu import container as ncu_file
from roofline.ncu.child import Child, answer, take_ahead

if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Generator, Sequence

    from roofline.core.model import Device, KernelLaunch, Report

NCU_MAGIC = ncu_file.MAGIC
LFS_POINTER = b"version https://git-lfs"
NSYS_HEADS = (b"SQLite format 3\x00", b"NVIDIA Tegra Profiler Report ")  # an Nsight Systems export, or report
MODEL_SUFFIX = ".json"
NOT_A_FILE_FIX = "pass the .ncu-rep or .json report file itself (save a stream to a file first)"
# Parsing a model takes about this many times its size in memory (its text, then the numbers and lists it holds:
# measured 2.8x for a 100,000-launch model of version 2, 2.1x for version 1).
MODEL_PARSE_FACTOR = 3
MODEL_HEAD_BYTES = 4096  # read first, to refuse a file that cannot be a JSON object before reading it whole
JSON_SPACE = b" \t\r\n\xef\xbb\xbf"  # white space JSON allows before a value, and a UTF-8 byte-order mark


def load_report(path: str | os.PathLike[str], time_limit_s: float | None = None, sass: bool = True) -> Report:
    """Load one report file (``.ncu-rep`` or a ``.json`` report model), validated; ReportError on bad input.
    ``time_limit_s`` bounds the native reader (default: ``read_time_limit`` of the file's size). ``sass=False`` leaves
    out the SASS text of the sampled instructions of an ``.ncu-rep`` (what commands that show no hot spots do: the
    disassembler is slow)."""
    reading = ReportReading(path, time_limit_s, sass)
    for _ in reading.batches():
        pass
    return reading.report()


class Batch(Struct, frozen=True):
    """Launches of an ``.ncu-rep`` as the child sent them, not yet validated, and the report's device."""

    device: Device
    launches: tuple[KernelLaunch, ...]


class ReportReading:
    """One report file being read: ``batches`` yields an ``.ncu-rep``'s launches as they arrive (a model yields
    none), then ``report`` is the whole report, validated. The report's launches are the batches' launches in the
    order yielded; validation only marks some invalid (another object then)."""

    def __init__(self, path: str | os.PathLike[str], time_limit_s: float | None = None, sass: bool = True) -> None:
        self.path = Path(path)
        self.size = _check_file(self.path)
        self.time_limit_s = time_limit_s or read_time_limit(self.size)
        self.sass = sass
        self._report: Report | None = None

    def batches(self) -> Generator[Batch, None, None]:
        """The launches as the reader brings them, batch by batch (none for a model, parsed whole)."""
        if self.path.suffix == MODEL_SUFFIX:
            self._report = _load_model(self.path, self.size)
            return
        _check_magic(self.path)
        self._report = yield from _read_ncu_rep(self.path, self.time_limit_s, self.sass)

    def report(self) -> Report:
        """The report, validated, once ``batches`` is done (read now where it was not); ReportError on bad input."""
        if self._report is None:
            for _ in self.batches():
                pass
        assert self._report is not None
        if not self._report.launches:
            raise ReportError(f"{self.path}: holds no kernel launches", "the profiled run matched no kernel, or the "
                              "file is truncated; re-profile or copy it again")
        return self._report


def read_time_limit(size_bytes: int) -> float:
    """Seconds the native reader may take on a file of this size before it is killed."""
    return READ_LIMIT_BASE_S + READ_LIMIT_S_PER_MIB * size_bytes / 2**20


def _check_file(p: Path) -> int:
    """The size of a readable, non-empty regular file; ReportError naming what it is otherwise (``core.files``)."""
    info = regular_file(p, ReportError, NOT_A_FILE_FIX)
    if info.st_size == 0:
        raise ReportError(f"{p}: {EMPTY_FILE}", "the profiling run did not finish; profile again")
    if not os.access(p, os.R_OK):
        raise ReportError(f"{p}: cannot read (permission denied)", "check the file's permissions")
    return info.st_size


def _check_magic(p: Path) -> None:
    with _opened(p) as fh:
        head = fh.read(max(len(LFS_POINTER), *map(len, NSYS_HEADS)))
    if head.startswith(LFS_POINTER):
        raise ReportError(f"{p}: is a Git LFS pointer, not the report", "run 'git lfs pull' to fetch the file")
    if head.startswith(NSYS_HEADS):
        raise ReportError(f"{p}: not an Nsight Compute report (no NVR header) but an Nsight Systems profile",
                          "rank its kernels with roofline timeline PROFILE, or weigh .ncu-rep reports by it with "
                          "roofline summary REPORT --nsys PROFILE")
    if not head.startswith(NCU_MAGIC):
        raise ReportError(f"{p}: not an Nsight Compute report (no NVR header)",
                          "pass a .ncu-rep file written by ncu, or a .json report model")


def _opened(p: Path) -> BinaryIO:
    """``p`` opened for reading, or ReportError naming why not (it is no longer a regular file, say)."""
    return open_regular(p, ReportError, NOT_A_FILE_FIX)


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
        head = fh.read(MODEL_HEAD_BYTES)
        opening = head.lstrip(JSON_SPACE)[:1]
        if opening not in (b"{", b"") or (not opening and len(head) < MODEL_HEAD_BYTES):
            shown = f"byte 0x{opening[0]:02x}" if opening else "nothing but white space"
            raise ReportError(f"{p}: not a report model (a JSON object starts with '{{', this file with {shown})",
                              not_model)
        raw = head + fh.read()  # the whole file only once it can be a model: a 2 GB file of zeros is not read
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


def _read_ncu_rep(p: Path, time_limit_s: float, sass: bool = True) -> Generator[Batch, None, Report]:
    """Walk the container, read it in a child within the time limit, yielding each batch of launches as it is
    built, and return the report, validated."""
    from roofline.core.model import Device, Report
    from roofline.ncu import validation

    child = take_ahead(p, sass)
    try:
        shape = ncu_file.walk(p)
        if shape.garbage_at is not None:
            raise ReportError(f"{p}: not ncu records from byte {shape.garbage_at} of {shape.size} ({shape.garbage})",
                              "the file is corrupt, padded or has other data appended; copy it again or re-profile")
        read = _Assembly()
        child, started = None, child
        yield from _read_in_child(p, time_limit_s, read, started, sass)
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
    if shape.results is not None and shape.results != len(read.launches) and empty is None:
        notes.append(f"the file's records announce {shape.results} kernel results, {len(read.launches)} were read: a "
                     "record's header is corrupt or records come from another report; copy the file again")
    _check_session_device(p, shape.devices, read.device.name if read.device else "")
    foreign = None
    if shape.appended_at is not None:
        notes.append(f"another report is appended at byte {shape.appended_at}: its records are not analysed")
        foreign = shape.results_before_append
    incomplete = shape.cut_at is not None or (shape.results is not None and shape.results != len(read.launches))
    report = Report(path=str(p), device=read.device or Device(name="unknown"), launches=tuple(read.launches),
                    source="ncu-rep", ncu_version=ncu_file.ncu_version(p), incomplete=incomplete)
    repeated = {i: j for i, j in shape.repeated if i < len(report.launches)}
    return validation.check_report(report, validation.NCU_FIX, read.launch_devices, notes, foreign,
                                   repeated=repeated)


def _check_session_device(p: Path, session: Sequence[str], device: str) -> None:
    """Refuse a file whose report device (its first launch's) is none of the GPUs its session records: result records
    spliced into another report's session, so which GPU they ran on cannot be told. Launches naming other devices
    beside the report's are left out with a warning (``validation.check_report``); a session naming no GPU passes."""
    if session and device and device not in session:
        named = ", ".join(repr(name) for name in session)
        raise ReportError(f"{p}: the session records {named}, but its launches were measured on {device!r}: records "
                          "spliced from two reports", "use the original report files, or re-profile")


class _Assembly:
    """The report as the child's frames bring it: the device, the launches, the device each launch's record names
    (for the integrity check), and where the read ended: at the end of the file, or at a launch without data (a cut
    file), named in ``empty_launch``."""

    def __init__(self) -> None:
        self.device: Device | None = None
        self.launches: list[KernelLaunch] = []
        self.launch_devices: list[str] = []
        self.empty_launch: str | None = None

    def take(self, frames: Sequence[tuple[Any, ...]]) -> Batch | None:
        """Frames of the child's answer but the last, in order: ("device", its dict) or ("launches", dicts,
        devices); the batch of launches they bring (None before the device, or without launches)."""
        from roofline.core.model import Device, launch_from_dict

        batch: list[KernelLaunch] = []
        for frame in frames:
            if frame[0] == "device":
                self.device = Device(**frame[1])
            else:
                batch += map(launch_from_dict, frame[1])
                self.launch_devices += frame[2]
        self.launches += batch
        return Batch(self.device, tuple(batch)) if self.device is not None and batch else None


def _read_in_child(p: Path, time_limit_s: float, into: _Assembly, child: Child | None = None,
                   sass: bool = True) -> Generator[Batch, None, None]:
    """Read the report into ``into`` with ``child`` (one started ahead) or a child forked now (ncu_report imported
    first, so every child starts with it loaded), yielding each batch of launches as it is built. Where the
    platform cannot fork, read in this process (no crash isolation and no time limit there)."""
    if child is None:
        with suppress(ImportError):
            import ncu_report  # noqa: F401
    if child is None and not hasattr(os, "fork"):
        frames: list[tuple[Any, ...]] = []
        status, payload = answer(str(p), frames.append, sass)
        batch = into.take(frames)
        if batch is not None:
            yield batch
    else:
        status, payload = yield from _built(into, (child or Child(str(p), sass)).frames(p, time_limit_s))
    if status == "error":
        raise ReportError(f"{p}: {payload}", "the file is corrupt, truncated or from an unsupported ncu version; "
                          "upgrade ncu-report (pip install -U ncu-report) or re-profile")
    if status == "missing-module":
        raise ReportError(f"{p}: cannot read .ncu-rep files: {payload}", "pip install ncu-report")
    into.empty_launch = payload


def _built(into: _Assembly, arrivals: Generator[list[tuple[Any, ...]], None, tuple[str, Any]]
           ) -> Generator[Batch, None, tuple[str, Any]]:
    """Each batch of launches ``into`` builds from the frames as they arrive; returns the child's last frame."""
    try:
        while True:
            try:
                arrived = next(arrivals)
            except StopIteration as stop:
                last: tuple[str, Any] = stop.value
                return last
            batch = into.take(arrived)
            if batch is not None:
                yield batch
    finally:
        arrivals.close()  # a consumer that stops early stops the child
