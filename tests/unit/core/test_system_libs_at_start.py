"""The window's start-up check of Qt's X11 libraries: cheap (one load of the plugin Qt loads
anyway, only when Qt will use xcb on a display), and, when a library is missing, the words
that name the Debian packages to install instead of Qt's abort."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from memex_desktop import system_libs

MISSING = "libxcb-cursor.so.0: cannot open shared object file: No such file or directory"


def _plugin_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "platforms"
    folder.mkdir()
    (folder / "libqxcb.so").write_bytes(b"not a real plugin")
    return folder


def _refused(_path: str) -> object:
    raise OSError(MISSING)


def _loaded(_path: str) -> object:
    return object()


@pytest.fixture(autouse=True)
def _linux(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(system_libs.sys, "platform", "linux")


def test_a_missing_library_is_named_with_its_package(tmp_path: Path) -> None:
    environ = {"DISPLAY": ":0", "PATH": "/nonexistent"}  # no ldd: the loader's word is kept
    missing = system_libs.libraries_missing_at_start(environ, _plugin_dir(tmp_path), _refused)
    assert missing is not None
    assert missing.sonames == ("libxcb-cursor.so.0",)
    assert missing.packages == ["libxcb-cursor0"]
    words = system_libs.explanation(missing, as_root=False, has_apt=True)
    assert "libxcb-cursor0" in words
    assert "qt.qpa" not in words


@pytest.mark.parametrize(
    "environ",
    [
        {"QT_QPA_PLATFORM": "offscreen", "DISPLAY": ":0"},
        {"QT_QPA_PLATFORM": "wayland", "DISPLAY": ":0"},
        {},  # no display: Qt says so itself
        {"DISPLAY": ":0", "WAYLAND_DISPLAY": "wayland-0", "XDG_SESSION_TYPE": "wayland"},
    ],
    ids=["offscreen", "wayland", "no-display", "wayland-session"],
)
def test_nothing_is_loaded_unless_qt_uses_xcb_on_a_display(
    tmp_path: Path, environ: dict[str, str]
) -> None:
    def load(path: str) -> object:
        raise AssertionError(f"loaded {path}")

    assert system_libs.libraries_missing_at_start(environ, _plugin_dir(tmp_path), load) is None


@pytest.mark.parametrize("platform", ["", "xcb"])
def test_a_plugin_that_loads_says_nothing(tmp_path: Path, platform: str) -> None:
    environ = {"DISPLAY": ":0", "QT_QPA_PLATFORM": platform}
    assert system_libs.libraries_missing_at_start(environ, _plugin_dir(tmp_path), _loaded) is None


def test_a_load_that_fails_for_another_reason_is_left_to_qt(tmp_path: Path) -> None:
    def broken(_path: str) -> object:
        raise OSError("libqxcb.so: invalid ELF header")

    environ = {"DISPLAY": ":0"}
    assert system_libs.libraries_missing_at_start(environ, _plugin_dir(tmp_path), broken) is None


def test_the_check_on_this_machine_takes_a_few_milliseconds() -> None:
    """The real plugin, loaded as Qt will load it (in a process of its own): a few ms at
    most; ldd runs only when a library is missing."""
    measure = (
        "import time; from memex_desktop import system_libs; t = time.perf_counter(); "
        "m = system_libs.libraries_missing_at_start({'DISPLAY': ':0', 'QT_QPA_PLATFORM': 'xcb'}); "
        "print(m is None, (time.perf_counter() - t) * 1000)"
    )
    done = subprocess.run(
        [sys.executable, "-c", measure], capture_output=True, text=True, check=True, timeout=60
    )
    loaded, took_ms = done.stdout.split()
    if loaded != "True":
        pytest.skip("this machine lacks a library of Qt's X11 plugin")
    assert float(took_ms) < 50  # generous for a loaded CI machine; about 2-5 ms here
