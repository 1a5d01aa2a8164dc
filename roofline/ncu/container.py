"""The ``.ncu-rep`` container, walked without NVIDIA's reader to check that a file is whole before it is read.

A report is the magic ``NVR\\0``, a little-endian u32 length and a file header (protobuf; field 1 = container
version), then blocks: a u32 length, a block header (protobuf; field 2 = number of kernel results, field 3 =
session or device information, field 5 = payload size) and the payload. Every report in ../shared/ncu-reps
(ncu 2020.3 to 2025.2) is container version 7 and walks cleanly. The walk finds:

* a file cut inside its last block (a copy that stopped early): the complete launches can still be read;
* a second session header, i.e. another report's blocks appended after this one's (``cat a.ncu-rep b.ncu-rep``
  without b's file header): ncu_report reads them as more launches of the first GPU;
* bytes that are not blocks (zero padding, garbage): ncu_report would spin through them, so the file is refused;
* how many kernel results the blocks announce (``results``), which the reader compares with the launches it got: a
  block header whose count was changed (ncu_report then drops the launch) or records spliced in from another report;
* a block of results repeated byte for byte (``repeated``): ncu_report reads it as one more launch. Blocks are told
  apart by their header and the first and last ``FINGERPRINT_BYTES`` of their payload (unique among the launches of
  every report in ../shared/ncu-reps), and only blocks alike in those are compared whole.

Only headers are read (the payloads are skipped), so the walk costs a few milliseconds per thousand launches.
Files of another container version are not walked.

``ncu_version`` reads the version of ncu that wrote the report from the same headers: the session's first blocks
name the software it ran with, one record each (field 8: {1: component, 2: version}), e.g. "CUDA Version",
"Display Driver Version" and "Nsight Compute Target" with "2024.1.0.0 (build 33681293) (public-release)"
(every report in ../shared/ncu-reps, ncu 2020.3 to 2025.2). ncu_report itself offers no call for it.
"""

from __future__ import annotations

import struct
from pathlib import Path
from typing import BinaryIO, NamedTuple

MAGIC = b"NVR\x00"
KNOWN_VERSIONS = frozenset({7})
MAX_HEADER_BYTES = 1 << 20  # block headers seen are < 16 KiB
MAX_BLOCKS_WALKED = 1_000_000  # a bound on the walk itself; real reports have about one block per launch
_RESULTS, _INFO, _PAYLOAD = 2, 3, 5  # block header fields
_SESSION_START = 0x10  # the session block's information begins with field 2 (a varint): the session's start time
_COMPONENT, _NAME, _VERSION = 8, 1, 2  # a software record in a block's information: {1: component, 2: version}
_DEVICE, _DEVICE_NAME = 6, 2  # a device record in a block's information: {1: device id, 2: name, 3: attributes}
NCU_COMPONENT = b"Nsight Compute Target"
VERSION_BLOCKS = 64  # the session's records come first (blocks 4 to 7 in every shared report)
FINGERPRINT_BYTES = 64


class Walk(NamedTuple):
    """What the container shows: where it stops being blocks (``garbage_at``, ``cut_at``), and where a second
    session begins (``appended_at``, with the number of kernel results before it). Nothing, for a container
    version the walk does not know."""

    size: int
    cut_at: int | None = None  # the offset of a block that ends past the end of the file
    garbage_at: int | None = None
    garbage: str = ""
    appended_at: int | None = None
    results_before_append: int = 0
    results: int | None = None  # kernel results the blocks announce, when the walk reached the end of the file
    repeated: tuple[tuple[int, int], ...] = ()  # (launch, the earlier launch whose block it repeats byte for byte)
    devices: tuple[str, ...] = ()  # the GPUs the first session's device records name, in order


class _Malformed(Exception):
    """A block header that is not a protobuf message."""


def walk(path: Path) -> Walk:
    """Walk the blocks of a report whose magic was checked; never reads a payload."""
    size = path.stat().st_size
    with path.open("rb") as fh:
        fh.seek(len(MAGIC))
        head = fh.read(4)
        (length,) = struct.unpack("<I", head) if len(head) == 4 else (size,)
        header = fh.read(min(length, MAX_HEADER_BYTES)) if length <= MAX_HEADER_BYTES else b""
        if _version(header) not in KNOWN_VERSIONS:
            return Walk(size)
        return _blocks(fh, len(MAGIC) + 4 + length, size)


def ncu_version(path: Path) -> str:
    """The version of ncu that wrote a report whose magic was checked (``2024.1.0.0``), or "" when its first
    blocks name none (a container version the walk does not know, or a file cut before the session's records)."""
    size = path.stat().st_size
    with path.open("rb") as fh:
        fh.seek(len(MAGIC))
        head = fh.read(4)
        if len(head) < 4:
            return ""
        pos = len(MAGIC) + 4 + struct.unpack("<I", head)[0]
        for _ in range(VERSION_BLOCKS):
            fh.seek(pos)
            head = fh.read(4)
            length = struct.unpack("<I", head)[0] if len(head) == 4 else 0
            if not 0 < length <= MAX_HEADER_BYTES or pos + 4 + length > size:
                return ""
            try:
                fields = _fields(fh.read(length))
                version = _component_version(fields.get(_INFO))
            except _Malformed:
                return ""
            if version:
                return version
            pos += 4 + length + _number(fields, _PAYLOAD)
    return ""


def _component_version(info: int | bytes | None) -> str:
    """The version number an "Nsight Compute Target" record gives (its first word), else ""."""
    record = _fields(info).get(_COMPONENT) if isinstance(info, bytes) else None
    fields = _fields(record) if isinstance(record, bytes) else {}
    version = fields.get(_VERSION)
    if fields.get(_NAME) != NCU_COMPONENT or not isinstance(version, bytes):
        return ""
    return version.decode("ascii", "replace").split(" ")[0]


def _version(header: bytes) -> int | None:
    try:
        return _number(_fields(header), 1)
    except _Malformed:
        return None


def _number(fields: dict[int, int | bytes], number: int) -> int:
    """A varint field's value; 0 when absent (protobuf's default) or not a varint."""
    value = fields.get(number, 0)
    return value if isinstance(value, int) else 0


def _blocks(fh: BinaryIO, pos: int, size: int) -> Walk:
    """Walk block after block from ``pos``: the first inconsistency ends the walk."""
    results = sessions = 0
    appended_at: int | None = None
    before_append = 0
    devices: dict[str, None] = {}
    seen = _Blocks(fh)
    for _ in range(MAX_BLOCKS_WALKED):
        if pos >= size:
            break
        fh.seek(pos)
        head = fh.read(4)
        if len(head) < 4:
            return Walk(size, cut_at=pos, appended_at=appended_at, results_before_append=before_append)
        (length,) = struct.unpack("<I", head)
        if not 0 < length <= MAX_HEADER_BYTES:
            return Walk(size, garbage_at=pos, garbage=f"a block header of {length} bytes",
                        appended_at=appended_at, results_before_append=before_append)
        if pos + 4 + length > size:
            return Walk(size, cut_at=pos, appended_at=appended_at, results_before_append=before_append)
        try:
            fields = _fields(fh.read(length))
        except _Malformed as err:
            return Walk(size, garbage_at=pos, garbage=str(err), appended_at=appended_at,
                        results_before_append=before_append)
        info = fields.get(_INFO)
        if isinstance(info, bytes) and info[:1] == bytes([_SESSION_START]):
            sessions += 1
            if sessions == 2:
                appended_at, before_append = pos, results
        elif sessions < 2 and not _number(fields, _RESULTS):
            devices.update(dict.fromkeys(_device_name(info)))
        end = pos + 4 + length + _number(fields, _PAYLOAD)
        if end > size:
            return Walk(size, cut_at=pos, appended_at=appended_at, results_before_append=before_append)
        if _number(fields, _RESULTS):
            seen.add(pos, 4 + length, end, results)
        results += _number(fields, _RESULTS)
        pos = end
    else:
        return Walk(size, appended_at=appended_at, results_before_append=before_append)
    return Walk(size, appended_at=appended_at, results_before_append=before_append, results=results,
                repeated=tuple(seen.repeated), devices=tuple(devices))


def _device_name(info: int | bytes | None) -> tuple[str, ...]:
    """The GPU a device record names (``NVIDIA GeForce RTX 4090``), as a one-item tuple; () for any other block."""
    try:
        record = _fields(info).get(_DEVICE) if isinstance(info, bytes) else None
        name = _fields(record).get(_DEVICE_NAME) if isinstance(record, bytes) else None
    except _Malformed:
        return ()
    return (name.decode("utf-8", "replace"),) if isinstance(name, bytes) and name else ()


class _Blocks:
    """The blocks of results met so far, by fingerprint, and those that repeat an earlier one byte for byte, as
    (launch, earlier launch): a block's launches are numbered by the results announced before it."""

    def __init__(self, fh: BinaryIO) -> None:
        self.fh = fh
        self.first: dict[bytes, list[tuple[int, int, int]]] = {}
        self.repeated: list[tuple[int, int]] = []

    def add(self, start: int, header: int, end: int, launch: int) -> None:
        self.fh.seek(start)
        key = self.fh.read(header + min(FINGERPRINT_BYTES, end - start - header))
        self.fh.seek(max(start + header, end - FINGERPRINT_BYTES))
        key += self.fh.read(FINGERPRINT_BYTES)
        alike = self.first.setdefault(key, [])
        whole = None
        for other_start, other_end, other_launch in alike:
            whole = whole if whole is not None else self._bytes(start, end)
            if other_end - other_start == end - start and self._bytes(other_start, other_end) == whole:
                self.repeated.append((launch, other_launch))
                return
        alike.append((start, end, launch))

    def _bytes(self, start: int, end: int) -> bytes:
        self.fh.seek(start)
        return self.fh.read(end - start)


def _fields(message: bytes) -> dict[int, int | bytes]:
    """The first value of each field of a protobuf message (varints and length-delimited only matter here)."""
    out: dict[int, int | bytes] = {}
    i = 0
    while i < len(message):
        key, i = _varint(message, i)
        number, wire = key >> 3, key & 7
        if number == 0:
            raise _Malformed("field number 0 in a block header")
        if wire == 0:
            value, i = _varint(message, i)
            out.setdefault(number, value)
        elif wire == 2:
            n, i = _varint(message, i)
            if i + n > len(message):
                raise _Malformed("a field longer than its block header")
            out.setdefault(number, message[i:i + n])
            i += n
        elif wire in (1, 5):
            i += 8 if wire == 1 else 4
        else:
            raise _Malformed(f"wire type {wire} in a block header")
    if i != len(message):
        raise _Malformed("a field longer than its block header")
    return out


def _varint(data: bytes, i: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        if i >= len(data) or shift > 63:
            raise _Malformed("a number cut short in a block header")
        byte = data[i]
        i += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, i
