"""roofline.ncu.container: the block walk of a .ncu-rep, on every real report and on cut, appended and broken copies
(block boundaries found independently with tests/ncu_blocks.py)."""

from __future__ import annotations

import json
import struct

from roofline.ncu import container as ncu_file
from tests.ncu_blocks import blocks

T4 = "t4_matrix-add-2d_full"
DAXPY = "rtx3070_daxpy-nvtx_custom"


def test_every_shared_report_walks_cleanly(shared_report, shared_name):
    path = shared_report(shared_name)
    shape = ncu_file.walk(path)
    assert shape == ncu_file.Walk(path.stat().st_size, results=shape.results, devices=shape.devices) and shape.results


def test_the_devices_are_the_gpu_the_session_records(shared_report, shared_name, shared_dir):
    """Against the GPU the shared folder's index names for each file (found independently)."""
    index = json.loads((shared_dir / "index.json").read_text())
    gpu = {entry["file"]: entry["gpu"] for entry in index["files"]}
    path = shared_report(shared_name)
    assert ncu_file.walk(path).devices == (gpu[path.name],)


def test_the_ncu_version_is_the_one_the_session_records_name(shared_report, shared_name, shared_dir):
    """Against the version the shared folder's index found as a string in each file (found independently)."""
    index = json.loads((shared_dir / "index.json").read_text())
    guess = {entry["file"]: entry["ncu_version_guess"] for entry in index["files"]}
    path = shared_report(shared_name)
    assert ncu_file.ncu_version(path) == guess[path.name]


def test_a_report_that_names_no_ncu_version_gives_none(shared_report, tmp_path):
    data = shared_report(T4).read_bytes()
    head = data[:blocks(data)[1][0]]  # the file header and the first block, before the session's software records
    cut = tmp_path / "cut.ncu-rep"
    cut.write_bytes(head)
    assert ncu_file.ncu_version(cut) == ""
    (tmp_path / "empty.ncu-rep").write_bytes(ncu_file.MAGIC)
    assert ncu_file.ncu_version(tmp_path / "empty.ncu-rep") == ""


def test_cut_appended_and_garbage_are_found_where_they_are(shared_report, tmp_path):
    data, other = shared_report(T4).read_bytes(), shared_report(DAXPY).read_bytes()
    parts = blocks(data)
    path = tmp_path / "x.ncu-rep"
    path.write_bytes(data[:parts[2][0] + 100])  # inside the third block (the kernel's result)
    assert ncu_file.walk(path).cut_at == parts[2][0]
    path.write_bytes(data + other[blocks(other)[0][0]:])  # another report's blocks, without its file header
    walk = ncu_file.walk(path)
    assert (walk.appended_at, walk.results_before_append, walk.cut_at, walk.garbage_at) == (len(data), 1, None, None)
    path.write_bytes(data + other)  # with its header: 'NVR\0' is no block length
    walk = ncu_file.walk(path)
    (length,) = struct.unpack("<I", ncu_file.MAGIC)
    assert walk.garbage_at == len(data) and walk.garbage == f"a block header of {length} bytes"


def test_a_malformed_block_header_is_garbage(shared_report, tmp_path):
    data = bytearray(shared_report(T4).read_bytes())
    start = blocks(bytes(data))[1][0]
    data[start + 4] = 0x0F  # the header's first field key: field 1 of wire type 7, which does not exist
    path = tmp_path / "x.ncu-rep"
    path.write_bytes(bytes(data))
    assert ncu_file.walk(path) == ncu_file.Walk(len(data), garbage_at=start, garbage="wire type 7 in a block header")


def test_another_container_version_is_not_walked(shared_report, tmp_path):
    data = bytearray(shared_report(T4).read_bytes())
    assert data[8:10] == b"\x08\x07"  # field 1 = 7
    data[9] = 8
    path = tmp_path / "v8.ncu-rep"
    path.write_bytes(bytes(data) + bytes(64))  # even with padding: nothing is claimed about an unknown version
    assert ncu_file.walk(path) == ncu_file.Walk(len(data) + 64)


# --- Counts and repeats (issue 37) ---------------------------------------------------------------------------
OCCUPANCY = "rtx5060ti_transpose-occupancy-45launches_metrics"


def rebuilt(data: bytes, change) -> bytes:
    """The report with its list of blocks changed by ``change`` (a function of the list of block bytes)."""
    parts = blocks(data)
    return data[:parts[0][0]] + b"".join(change([data[s:e] for s, e, _ in parts]))


def with_results(block: bytes, count: int) -> bytes:
    """A block whose header announces ``count`` results: field 2 rewritten, the header length with it."""
    (length,) = struct.unpack_from("<I", block)
    header, payload = block[4:4 + length], block[4 + length:]
    out, i = bytearray(), 0
    while i < len(header):
        start = i
        key, i = ncu_file._varint(header, i)
        if key & 7 == 0:
            _, i = ncu_file._varint(header, i)
            out += _varint(key) + _varint(count) if key >> 3 == 2 else header[start:i]
        elif key & 7 == 2:
            size, i = ncu_file._varint(header, i)
            i += size
            out += header[start:i]
        else:
            i += 8 if key & 7 == 1 else 4
            out += header[start:i]
    return struct.pack("<I", len(out)) + bytes(out) + payload


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        out.append(value & 0x7F | (0x80 if value >> 7 else 0))
        value >>= 7
        if not value:
            return bytes(out)


def test_the_walk_counts_the_results_the_blocks_announce(shared_report, tmp_path):
    data = shared_report(OCCUPANCY).read_bytes()
    counts = [r for _, _, r in blocks(data)]
    assert ncu_file.walk(shared_report(OCCUPANCY)).results == sum(counts) == 45
    path = tmp_path / "count.ncu-rep"
    path.write_bytes(rebuilt(data, lambda bs: [*bs[:20], with_results(bs[20], 2**32), *bs[21:]]))
    assert ncu_file.walk(path).results == 44 + 2**32


def test_a_block_repeated_byte_for_byte_is_named_with_the_launch_it_repeats(shared_report, tmp_path):
    data = shared_report(OCCUPANCY).read_bytes()
    firsts = [i for i, (_, _, r) in enumerate(blocks(data)) if r]  # launch n's block
    path = tmp_path / "repeat.ncu-rep"
    path.write_bytes(rebuilt(data, lambda bs: [*bs, bs[firsts[7]]]))
    assert ncu_file.walk(path).repeated == ((45, 7),)
    assert ncu_file.walk(shared_report(OCCUPANCY)).repeated == ()
