"""Icons, stylesheets: present, well-formed, and within what Qt can use."""

from __future__ import annotations

import re
import struct
import xml.etree.ElementTree as ET

import pytest

from memex_desktop.paths import resource_path

SVG = "{http://www.w3.org/2000/svg}"
TYPE_ICONS = (
    "web",
    "twitter",
    "youtube",
    "reddit",
    "image",
    "annotation",
    "chatThread",
    "pdf",
    "selector",
    "audioRecording",
    "book",
    "profile",
    "rssFeed",
    "other",
)


@pytest.mark.parametrize("name", ["memex-desktop", *(f"type-{t}" for t in TYPE_ICONS)])
def test_svg_icons_are_well_formed_and_self_contained(name: str) -> None:
    path = resource_path("icons", f"{name}.svg")
    root = ET.parse(path).getroot()
    assert root.tag == f"{SVG}svg"
    assert root.get("viewBox")
    drawn = [el for el in root.iter() if el.tag.removeprefix(SVG) in {"path", "circle", "rect"}]
    assert drawn
    text = path.read_text(encoding="utf-8")
    assert "href" not in text  # no external or embedded images
    assert "<script" not in text


@pytest.mark.parametrize("size", [16, 32, 48, 64, 128, 256, 512])
def test_app_icon_pngs_have_their_size(size: int) -> None:
    data = resource_path("icons", f"memex-desktop-{size}.png").read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height, depth, colour = struct.unpack(">IIBB", data[16:26])
    assert (width, height) == (size, size)
    assert (depth, colour) == (8, 6)  # 8-bit RGBA: transparent corners


def test_reader_css_stays_within_the_qtextdocument_subset() -> None:
    css = re.sub(
        r"/\*.*?\*/", "", resource_path("reader.css").read_text(encoding="utf-8"), flags=re.S
    )
    assert "url(" not in css
    assert css.count("{") == css.count("}")
    for selector in (".ref-card", ".placeholder", ".notice", ".transcript", ".meta", "blockquote"):
        assert re.search(rf"(^|[\s,]){re.escape(selector)}[\s,{{]", css, re.M), selector
    for unsupported in ("float:", "position:", "display:", "@import", "@media"):
        assert unsupported not in css


def test_style_qss_is_balanced_and_loads_no_files() -> None:
    qss = re.sub(
        r"/\*.*?\*/", "", resource_path("style.qss").read_text(encoding="utf-8"), flags=re.S
    )
    assert qss.count("{") == qss.count("}")
    assert "url(" not in qss
    for name in ("#sidebar", "#searchfield", "#resultsview", "#readerbrowser", "#statusbar"):
        assert name in qss
