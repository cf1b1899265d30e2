"""Decode-check a PNG without third-party libraries (used by ``validate``)."""
from __future__ import annotations

import struct
import zlib

CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}


def png_size(path) -> tuple[int, int]:
    """(width, height) after checking signature, chunk CRCs and the full pixel stream."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG (bad signature)")
    pos, idat, header = 8, [], None
    while pos < len(data):
        if pos + 8 > len(data):
            raise ValueError("truncated chunk header")
        length, ctype = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        crc = data[pos + 8 + length:pos + 12 + length]
        if len(body) != length or len(crc) != 4:
            raise ValueError("truncated chunk")
        if zlib.crc32(ctype + body) != struct.unpack(">I", crc)[0]:
            raise ValueError(f"bad CRC in {ctype.decode(errors='replace')} chunk")
        if ctype == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif ctype == b"IDAT":
            idat.append(body)
        elif ctype == b"IEND":
            break
        pos += 12 + length
    if header is None or not idat:
        raise ValueError("missing IHDR or IDAT")
    width, height, depth, colour, _c, _f, interlace = header
    raw = zlib.decompress(b"".join(idat))
    if interlace == 0:
        row = 1 + (width * CHANNELS[colour] * depth + 7) // 8
        if len(raw) != row * height:
            raise ValueError(f"pixel data has {len(raw)} bytes, expected {row * height}")
    return width, height
