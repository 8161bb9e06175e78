"""A picture is judged by its own bytes: four raster formats with their sizes, nothing else."""

from __future__ import annotations

import struct

import pytest
from support.images import SVG_WITH_SCRIPT, png_bomb, png_bytes

from memex_desktop import paths
from memex_desktop.render.image_check import (
    NotAnImage,
    TooManyPixels,
    check_image,
    image_format,
)


def _gif(width: int, height: int) -> bytes:
    return b"GIF89a" + struct.pack("<HH", width, height) + b"\x00" * 20


def _jpeg(width: int, height: int) -> bytes:
    """A JPEG start: an APP0 segment, then the frame header naming the size."""
    app0 = (
        b"\xff\xe0" + struct.pack(">H", 16) + b"JFIF\x00" + b"\x01\x02\x00\x00\x01\x00\x01\x00\x00"
    )
    frame = b"\xff\xc0" + struct.pack(">HBHHB", 17, 8, height, width, 3) + b"\x00" * 9
    return b"\xff\xd8" + app0 + frame + b"\xff\xd9"


def _webp(chunk: bytes, payload: bytes) -> bytes:
    return b"RIFF" + struct.pack("<I", 4 + 8 + len(payload)) + b"WEBP" + chunk + payload


def test_a_png_is_read_with_its_size() -> None:
    checked = check_image(png_bytes(30, 20))
    assert (checked.format, checked.width, checked.height) == ("png", 30, 20)


def test_a_gif_is_read_with_its_size() -> None:
    checked = check_image(_gif(64, 48))
    assert (checked.format, checked.width, checked.height) == ("gif", 64, 48)


def test_a_jpeg_frame_header_is_found_after_its_metadata() -> None:
    checked = check_image(_jpeg(800, 600))
    assert (checked.format, checked.width, checked.height) == ("jpeg", 800, 600)


def test_the_demo_jpegs_are_real_jpegs() -> None:
    body = paths.resource_path("demo", "media", "media.example.com", "images", "worm-compost.jpg")
    checked = check_image(body.read_bytes())
    assert (checked.format, checked.width, checked.height) == ("jpeg", 640, 420)


@pytest.mark.parametrize(
    ("body", "size"),
    [
        (_webp(b"VP8X", struct.pack("<I", 16) + b"\x00" * 4 + (99).to_bytes(3, "little")
               + (49).to_bytes(3, "little")), (100, 50)),
        (_webp(b"VP8L", struct.pack("<I", 10) + b"\x2f" + ((99) | (49 << 14)).to_bytes(4, "little")
               + b"\x00" * 5), (100, 50)),
        (_webp(b"VP8 ", struct.pack("<I", 10) + b"\x00\x00\x00\x9d\x01\x2a"
               + struct.pack("<HH", 100, 50)), (100, 50)),
    ],
)  # fmt: skip
def test_each_kind_of_webp_is_read_with_its_size(body: bytes, size: tuple[int, int]) -> None:
    checked = check_image(body)
    assert (checked.format, (checked.width, checked.height)) == ("webp", size)


@pytest.mark.parametrize(
    "body",
    [
        SVG_WITH_SCRIPT,
        b"<svg xmlns='http://www.w3.org/2000/svg'/>",
        b"<!doctype html><html><body>a sign-in page</body></html>",
        b"",
        b"\x89PNG\r\n\x1a\n",  # a signature and nothing after it
        b"\xff\xd8\xff\xe0\x00\x10JFIF",  # a JPEG cut before its frame header
        b"BM" + b"\x00" * 60,  # BMP: a format the reader does not take
    ],
)
def test_anything_else_is_not_an_image(body: bytes) -> None:
    assert image_format(body) is None or body.startswith((b"\x89PNG", b"\xff\xd8"))
    with pytest.raises(NotAnImage):
        check_image(body)


def test_an_svg_is_named_as_such() -> None:
    with pytest.raises(NotAnImage, match="SVG"):
        check_image(SVG_WITH_SCRIPT)


@pytest.mark.parametrize(
    "body", [png_bomb(60_000), png_bytes(20_000, 1), _gif(6000, 6000), _jpeg(65_000, 65_000)]
)
def test_a_header_promising_too_many_pixels_is_refused(body: bytes) -> None:
    with pytest.raises(TooManyPixels):
        check_image(body)
