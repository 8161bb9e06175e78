"""Linux desktop integration files validate with the freedesktop tools."""

from __future__ import annotations

import configparser
import shutil
import subprocess
from pathlib import Path

import pytest

LINUX = Path(__file__).resolve().parents[2] / "packaging" / "linux"
DESKTOP_FILE = LINUX / "garden.memex.MemexDesktop.desktop"
METAINFO_FILE = LINUX / "garden.memex.MemexDesktop.metainfo.xml"


def _run_tool(*command: str) -> None:
    if shutil.which(command[0]) is None:
        pytest.skip(f"{command[0]} is not installed (Debian package desktop-file-utils/appstream)")
    result = subprocess.run(command, capture_output=True, text=True, check=False, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr


def test_desktop_file_validates() -> None:
    _run_tool("desktop-file-validate", str(DESKTOP_FILE))


def test_metainfo_validates() -> None:
    _run_tool("appstreamcli", "validate", "--no-net", str(METAINFO_FILE))


def test_desktop_file_handles_memex_links() -> None:
    parser = configparser.ConfigParser(interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read(DESKTOP_FILE, encoding="utf-8")
    entry = parser["Desktop Entry"]
    assert "x-scheme-handler/memex" in entry["MimeType"].split(";")
    assert entry["Exec"].endswith("%u")
    assert (LINUX.parents[1] / "resources" / "icons" / f"{entry['Icon']}.svg").is_file()


def test_metainfo_release_matches_version() -> None:
    from memex_desktop import __version__

    assert f'release version="{__version__}"' in METAINFO_FILE.read_text(encoding="utf-8")
