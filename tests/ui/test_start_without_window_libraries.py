"""Started on a Linux desktop that lacks a library of Qt's X11 plugin, the window says which
Debian packages to install and ends with status 1, before Qt would abort with its own words."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from memex_desktop import app, system_libs

pytestmark = pytest.mark.gui


def test_missing_window_libraries_are_named_before_qt_starts(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.delenv("QT_QPA_PLATFORM", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setenv("DISPLAY", ":0")
    monkeypatch.setattr(system_libs.sys, "platform", "linux")
    plugin = tmp_path / "libqxcb.so"

    def missing(_environ: object = None) -> system_libs.MissingLibraries:
        return system_libs.MissingLibraries(plugin, ("libxcb-cursor.so.0",))

    def no_qt() -> None:
        raise AssertionError("the QApplication was created")

    monkeypatch.setattr(system_libs, "libraries_missing_at_start", missing)
    monkeypatch.setattr(app, "create_application", no_qt)
    status = app.run_gui(argparse.Namespace(url=None))
    assert status == 1
    err = capsys.readouterr().err
    assert "libxcb-cursor0" in err
    assert "The window cannot open" in err
