"""The blocks of a .ncu-rep, found independently of roofline.ncu.container: for tests that cut or rearrange reports."""

from __future__ import annotations

import struct


def blocks(data: bytes) -> list[tuple[int, int, int]]:
    """(start, end, number of results) of each block of a .ncu-rep: after the 'NVR\\0' magic and the file
    header (u32 length + message), each block is a u32 header length, a header message whose field 2 is
    the number of results and field 5 the payload size, then the payload."""
    def fields(msg: bytes) -> dict[int, int]:
        out, i = {}, 0
        while i < len(msg):
            key, i = varint(msg, i)
            if key & 7 == 0:
                out[key >> 3], i = varint(msg, i)
            elif key & 7 == 2:
                size, i = varint(msg, i)
                i += size
            else:
                i += 8 if key & 7 == 1 else 4
        return out

    def varint(b: bytes, i: int) -> tuple[int, int]:
        value = shift = 0
        while True:
            byte = b[i]
            i += 1
            value |= (byte & 0x7F) << shift
            shift += 7
            if byte < 0x80:
                return value, i

    (header_len,) = struct.unpack_from("<I", data, 4)
    i, out = 8 + header_len, []
    while i < len(data):
        (n,) = struct.unpack_from("<I", data, i)
        f = fields(data[i + 4:i + 4 + n])
        end = i + 4 + n + f.get(5, 0)
        out.append((i, end, f.get(2, 0)))
        i = end
    return out
