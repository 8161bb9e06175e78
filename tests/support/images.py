"""Real picture bytes for tests, made here: PNGs of any size, a decompression bomb, an SVG."""

from __future__ import annotations

import struct
import zlib


def _chunk(kind: bytes, data: bytes) -> bytes:
    """One PNG chunk: length, type, data, CRC."""
    crc = zlib.crc32(kind + data) & 0xFFFFFFFF
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)


def png_bytes(width: int = 4, height: int = 3, rgb: tuple[int, int, int] = (40, 120, 60)) -> bytes:
    """A valid RGB PNG of one colour that Qt decodes."""
    row = b"\x00" + bytes(rgb) * width
    pixels = zlib.compress(row * height, 9)
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", header)
        + _chunk(b"IDAT", pixels)
        + _chunk(b"IEND", b"")
    )


def png_bomb(side: int = 60_000) -> bytes:
    """A few kilobytes whose header promises ``side`` x ``side`` pixels (gigabytes decoded)."""
    header = struct.pack(">IIBBBBB", side, side, 8, 0, 0, 0, 0)
    row = b"\x00" + b"\x00" * side
    return b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header) + _chunk(b"IDAT", zlib.compress(row * 8))


SVG_WITH_SCRIPT = (
    b'<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">'
    b'<script>alert(1)</script><rect width="10" height="10"/></svg>'
)
