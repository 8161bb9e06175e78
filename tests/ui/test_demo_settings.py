"""Settings saved in the demo: the demo stays connected, and only what the person changed is
kept for the starts on their own library.

The demo is started as ``memex-desktop --demo`` starts it (:func:`memex_desktop.app.open_window`),
by someone who has used the app before (a settings file exists), its emulator and all.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QDialog
from support.window import command_args

from memex_desktop.app import OpenedWindow, open_window, show_settings_dialog
from memex_desktop.settings import CONNECTION_ENV_VARS, Settings
from memex_desktop.sync import SyncReport
from memex_desktop.ui.dialogs import SettingsDialog

pytestmark = [pytest.mark.gui, pytest.mark.qt_log_ignore("propagateSizeHints")]

OWN_INTERVAL = 20


@pytest.fixture
def demo(qtbot: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[OpenedWindow]:
    """The demo window of someone whose own settings sync every 20 minutes."""
    for name in CONNECTION_ENV_VARS:
        monkeypatch.delenv(name, raising=False)
    Settings(sync_interval_minutes=OWN_INTERVAL).save()
    opened = open_window(command_args(tmp_path / "own-data", demo=True))
    assert isinstance(opened, OpenedWindow)
    qtbot.addWidget(opened.context.window)
    with qtbot.waitSignal(opened.context.controller.sync_finished, timeout=60_000) as first:
        pass  # the demo syncs as it opens
    assert first.args[0].ok
    yield opened
    opened.context.shutdown()


def _save_settings(
    qtbot: Any, opened: OpenedWindow, change: Callable[[SettingsDialog], None]
) -> SyncReport:
    """Open Settings in the window, ``change`` the dialog, Save; the sync saving starts."""

    def answer() -> None:
        dialog = QApplication.activeModalWidget()
        assert isinstance(dialog, SettingsDialog)
        change(dialog)
        dialog.done(QDialog.DialogCode.Accepted)

    context = opened.context
    QTimer.singleShot(0, answer)
    with qtbot.waitSignal(context.controller.sync_finished, timeout=60_000) as synced:
        assert show_settings_dialog(context, context.window)
    report: SyncReport = synced.args[0]
    return report


def test_saving_the_settings_unchanged_keeps_the_demo_connected_and_the_own_interval(
    qtbot: Any, demo: OpenedWindow
) -> None:
    context = demo.context
    assert context.settings.sync_interval_minutes == 1  # the demo looks every minute

    report = _save_settings(qtbot, demo, lambda _dialog: None)

    assert report.ok, report  # still signed in to the demo's server with the demo's key
    assert context.client is not None
    assert "Not connected" not in context.window.status.currentMessage()
    assert context.settings.sync_interval_minutes == 1
    assert Settings.load().sync_interval_minutes == OWN_INTERVAL


def test_what_the_person_changes_in_the_demo_is_saved(qtbot: Any, demo: OpenedWindow) -> None:
    def choose(dialog: SettingsDialog) -> None:
        dialog.interval.setValue(5)
        dialog.theme.setCurrentIndex(dialog.theme.findData("dark"))

    assert _save_settings(qtbot, demo, choose).ok
    saved = Settings.load()
    assert (saved.sync_interval_minutes, saved.theme) == (5, "dark")
    assert demo.context.settings.sync_interval_minutes == 5


def test_the_reader_text_size_is_kept_without_the_demo_interval(demo: OpenedWindow) -> None:
    demo.context.keep_text_size(130)
    saved = Settings.load()
    assert (saved.reader_text_size_percent, saved.sync_interval_minutes) == (130, OWN_INTERVAL)


def test_the_title_names_the_demo_library_once_and_the_app_once(
    qtbot: Any, demo: OpenedWindow
) -> None:
    window = demo.context.window
    assert window.windowTitle() == "Demo library — Memex"
    window.open_entity(demo.context.reader.all_ids(1)[0])
    qtbot.waitUntil(lambda: bool(window.reader_pane.title_label.text()), timeout=10_000)
    title = window.reader_pane.title_label.text()
    assert window.windowTitle() == f"{title} — Demo library — Memex"
