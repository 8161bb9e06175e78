"""Whether fetched bytes are a picture the reader shows, read from the bytes alone.

A server names any content type it likes, and a saved page names any address, so what comes
back is judged by its own first bytes: a PNG, JPEG, GIF or WebP whose header gives its size.
Everything else is refused, SVG above all (a document that may carry script and load more
resources), and so is a picture whose header promises more pixels than the reader decodes
(a few kilobytes of compressed data can unpack into gigabytes).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Literal

ImageFormat = Literal["png", "jpeg", "gif", "webp"]

# A 25-megapixel photo decodes into 100 MB; an item may show two dozen pictures.
MAX_IMAGE_PIXELS = 25_000_000
MAX_IMAGE_SIDE = 16_384
# How far into a JPEG its frame header is looked for (it comes after the metadata segments).
_JPEG_SCAN_BYTES = 1_000_000
_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
# JPEG start-of-frame markers (C4, C8 and CC are other segments that share the range).
_JPEG_FRAMES = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}


class NotAnImage(Exception):
    """The bytes are not a picture the reader shows; the text says why (for the log)."""


class TooManyPixels(Exception):
    """The picture is bigger than the reader decodes."""


@dataclass(frozen=True)
class CheckedImage:
    """The bytes of a picture that passed the check, with its format and size in pixels."""

    body: bytes
    format: ImageFormat
    width: int
    height: int


def _png_size(body: bytes) -> tuple[int, int]:
    """Width and height from a PNG's IHDR chunk, which must come first."""
    if len(body) < 24 or body[12:16] != b"IHDR":
        raise NotAnImage("PNG without its header chunk")
    width, height = struct.unpack(">II", body[16:24])
    return int(width), int(height)


def _gif_size(body: bytes) -> tuple[int, int]:
    """Width and height of a GIF's logical screen."""
    if len(body) < 10:
        raise NotAnImage("GIF cut short")
    width, height = struct.unpack("<HH", body[6:10])
    return int(width), int(height)


def _jpeg_size(body: bytes) -> tuple[int, int]:
    """Width and height from a JPEG's start-of-frame segment."""
    at = 2
    end = min(len(body), _JPEG_SCAN_BYTES)
    while at + 4 <= end:
        if body[at] != 0xFF:
            raise NotAnImage("JPEG segments out of order")
        marker = body[at + 1]
        if marker == 0xFF:  # fill byte before a marker
            at += 1
            continue
        if marker in (0x01, *range(0xD0, 0xD8)):  # markers without a length
            at += 2
            continue
        (length,) = struct.unpack(">H", body[at + 2 : at + 4])
        if marker in _JPEG_FRAMES:
            if at + 9 > len(body):
                break
            height, width = struct.unpack(">HH", body[at + 5 : at + 9])
            return int(width), int(height)
        if length < 2:
            raise NotAnImage("JPEG segment of no length")
        at += 2 + length
    raise NotAnImage("JPEG without a frame header")


def _webp_size(body: bytes) -> tuple[int, int]:
    """Width and height from a WebP's first chunk (lossy, lossless or extended)."""
    if len(body) < 30:
        raise NotAnImage("WebP cut short")
    chunk = body[12:16]
    if chunk == b"VP8 ":
        if body[23:26] != b"\x9d\x01\x2a":
            raise NotAnImage("WebP frame without its start code")
        width, height = struct.unpack("<HH", body[26:30])
        return int(width) & 0x3FFF, int(height) & 0x3FFF
    if chunk == b"VP8L":
        if body[20] != 0x2F:
            raise NotAnImage("lossless WebP without its signature")
        bits = int.from_bytes(body[21:25], "little")
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if chunk == b"VP8X":
        width = int.from_bytes(body[24:27], "little") + 1
        height = int.from_bytes(body[27:30], "little") + 1
        return width, height
    raise NotAnImage("WebP of an unknown kind")


def image_format(body: bytes) -> ImageFormat | None:
    """The format the first bytes announce, or None for anything the reader does not show."""
    if body.startswith(_PNG_SIGNATURE):
        return "png"
    if body.startswith(b"\xff\xd8\xff"):
        return "jpeg"
    if body.startswith((b"GIF87a", b"GIF89a")):
        return "gif"
    if body[:4] == b"RIFF" and body[8:12] == b"WEBP":
        return "webp"
    return None


_SIZE_READERS = {"png": _png_size, "jpeg": _jpeg_size, "gif": _gif_size, "webp": _webp_size}


def check_image(
    body: bytes, max_pixels: int = MAX_IMAGE_PIXELS, max_side: int = MAX_IMAGE_SIDE
) -> CheckedImage:
    """``body`` as a picture the reader shows.

    Raises:
        NotAnImage: the bytes are no PNG, JPEG, GIF or WebP (SVG, HTML, a truncated header).
        TooManyPixels: the header names more than ``max_pixels`` or a side over ``max_side``.
    """
    found = image_format(body)
    if found is None:
        head = body[:256].lstrip().lower()
        if head.startswith((b"<?xml", b"<svg")) or b"<svg" in head:
            raise NotAnImage("an SVG document")
        raise NotAnImage("not a PNG, JPEG, GIF or WebP picture")
    width, height = _SIZE_READERS[found](body)
    if width <= 0 or height <= 0:
        raise NotAnImage(f"{found} of no size")
    if width > max_side or height > max_side or width * height > max_pixels:
        raise TooManyPixels(f"{width}x{height} pixels")
    return CheckedImage(body, found, width, height)
