"""The check `make demo` runs first: the system libraries Qt's window plugin needs on Linux."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from memex_desktop import system_libs
from memex_desktop.system_libs import (
    MissingLibraries,
    debian_package,
    not_found_in_ldd_output,
    platform_plugin,
)

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux only")

REPO = Path(__file__).resolve().parents[3]

LDD_OUTPUT = """\
\tlinux-vdso.so.1 (0x00007ffd)
\tlibQt6XcbQpa.so.6 => /venv/PySide6/Qt/lib/libQt6XcbQpa.so.6 (0x00007f93)
\tlibxcb-cursor.so.0 => /lib/x86_64-linux-gnu/libxcb-cursor.so.0 (0x00007f93)
\tlibxcb-icccm.so.4 => not found
\tlibxcb-keysyms.so.1 => not found
\tlibxcb-icccm.so.4 => not found
\t/lib64/ld-linux-x86-64.so.2 (0x00007f93)
"""


@pytest.mark.parametrize(
    ("soname", "package"),
    [
        ("libxcb-icccm.so.4", "libxcb-icccm4"),
        ("libxcb-keysyms.so.1", "libxcb-keysyms1"),
        ("libxcb-cursor.so.0", "libxcb-cursor0"),
        ("libxcb-render-util.so.0", "libxcb-render-util0"),
        ("libxkbcommon-x11.so.0", "libxkbcommon-x11-0"),
        ("libX11-xcb.so.1", "libx11-xcb1"),
        ("libEGL.so.1", "libegl1"),
        ("libfontconfig.so.1", "libfontconfig1"),
        ("libdbus-1.so.3", "libdbus-1-3"),
        ("libpng16.so.16", "libpng16-16"),
        ("libglib-2.0.so.0", "libglib2.0-0"),
        ("libz.so.1", "zlib1g"),
        ("libGLdispatch.so.0", "libglvnd0"),
    ],
)
def test_a_missing_library_is_named_by_its_debian_package(soname: str, package: str) -> None:
    assert debian_package(soname) == package


def test_only_what_ldd_cannot_find_is_missing_each_once() -> None:
    assert not_found_in_ldd_output(LDD_OUTPUT) == ("libxcb-icccm.so.4", "libxcb-keysyms.so.1")
    assert not_found_in_ldd_output("\tlibc.so.6 => /lib/libc.so.6 (0x1)\n") == ()


@pytest.mark.parametrize(
    ("environ", "plugin"),
    [
        ({}, "xcb"),
        ({"QT_QPA_PLATFORM": "offscreen"}, "offscreen"),
        ({"QT_QPA_PLATFORM": "wayland;xcb"}, "wayland"),
        ({"QT_QPA_PLATFORM": "xcb:display=:1"}, "xcb"),
        ({"WAYLAND_DISPLAY": "wayland-0", "XDG_SESSION_TYPE": "wayland"}, "wayland"),
        ({"WAYLAND_DISPLAY": "wayland-0", "XDG_SESSION_TYPE": "x11"}, "xcb"),
    ],
)
def test_the_plugin_checked_is_the_one_qt_will_load(environ: dict[str, str], plugin: str) -> None:
    assert platform_plugin(environ) == plugin


@pytest.fixture
def fake_system(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A PATH whose ldd reports two xcb libraries missing until apt-get 'installs' them."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    installed = tmp_path / "installed"
    log = tmp_path / "apt-get.log"
    (bin_dir / "ldd").write_text(
        "#!/bin/sh\n"
        f'if [ -e "{installed}" ]; then echo "\tlibc.so.6 => /lib/libc.so.6 (0x1)"; exit 0; fi\n'
        'echo "\tlibxcb-icccm.so.4 => not found"\n'
        'echo "\tlibxcb-keysyms.so.1 => not found"\n'
    )
    (bin_dir / "apt-get").write_text(
        f'#!/bin/sh\necho "$@" >> "{log}"\nif [ "$1" = install ]; then : > "{installed}"; fi\n'
    )
    for tool in ("ldd", "apt-get"):
        (bin_dir / tool).chmod(0o755)
    monkeypatch.setenv("PATH", str(bin_dir))
    # As `make demo` runs it: the window's own platform, not the tests' offscreen one.
    monkeypatch.setenv("QT_QPA_PLATFORM", "")
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    return tmp_path


def test_as_root_the_check_installs_the_packages(
    fake_system: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert system_libs.main(["--install"], as_root=True) == 0
    calls = (fake_system / "apt-get.log").read_text().splitlines()
    assert calls == [
        "update -qq",
        "install -y --no-install-recommends libxcb-icccm4 libxcb-keysyms1",
    ]
    assert "libxcb-icccm4 libxcb-keysyms1" in capsys.readouterr().err


def test_without_root_the_check_prints_the_one_command(
    fake_system: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert system_libs.main(["--install"], as_root=False) == 1
    assert not (fake_system / "apt-get.log").exists()
    err = capsys.readouterr().err
    assert "libxcb-icccm.so.4" in err
    assert "libxcb-keysyms.so.1" in err
    command = (
        "sudo apt-get update && sudo apt-get install -y --no-install-recommends "
        "libxcb-icccm4 libxcb-keysyms1"
    )
    assert command in err


def test_a_failed_install_says_which_command_failed(
    fake_system: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (fake_system / "bin" / "apt-get").write_text("#!/bin/sh\nexit 100\n")
    assert system_libs.main(["--install"], as_root=True) == 1
    assert "`apt-get update -qq` failed." in capsys.readouterr().err


def test_without_apt_get_the_packages_are_named_for_any_package_manager() -> None:
    missing = MissingLibraries(Path("libqxcb.so"), ("libxcb-icccm.so.4",))
    text = system_libs.explanation(missing, as_root=False, has_apt=False)
    assert "libxcb-icccm.so.4" in text
    assert "libxcb-icccm4" in text
    assert "sudo" not in text


def test_nothing_missing_passes_quietly(capsys: pytest.CaptureFixture[str]) -> None:
    # This machine runs the test suite's windows, so its offscreen plugin has what it needs.
    assert (
        system_libs.missing_libraries({"QT_QPA_PLATFORM": "offscreen", "PATH": "/usr/bin:/bin"})
        is None
    )


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_make_demo_checks_the_libraries_before_it_opens_the_window() -> None:
    planned = subprocess.run(
        ["make", "-n", "demo"], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout
    check = planned.index("-m memex_desktop.system_libs --install")
    assert check < planned.index("memex-desktop --demo")


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_make_test_checks_the_offscreen_plugins_libraries_first() -> None:
    planned = subprocess.run(
        ["make", "-n", "test"], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout
    assert planned.index("-m memex_desktop.system_libs --install") < planned.index("-m pytest")
