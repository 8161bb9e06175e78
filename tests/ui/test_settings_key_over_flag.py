"""A key given in Settings (or a sign-in there) is what a window started with ``--api-key``
uses from then on: the flag's key no longer wins once the person has given another."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import keyring
import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QDialog
from support.keyrings import MemoryKeyring
from support.window import command_args

from memex_desktop.app import OpenedWindow, open_window, show_settings_dialog
from memex_desktop.emulator import RunningEmulator
from memex_desktop.settings import CONNECTION_ENV_VARS, Settings
from memex_desktop.ui.dialogs import SettingsDialog

pytestmark = [pytest.mark.gui, pytest.mark.qt_log_ignore("propagateSizeHints")]


def test_a_key_given_in_settings_replaces_a_rejected_api_key_flag(
    qtbot: Any, tmp_path: Path, emulator: RunningEmulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in CONNECTION_ENV_VARS:
        monkeypatch.delenv(name, raising=False)
    backend = MemoryKeyring()
    monkeypatch.setattr(keyring, "get_keyring", lambda: backend)
    Settings(sync_interval_minutes=0).save()
    opened = open_window(
        command_args(tmp_path / "data", api_url=emulator.base_url, api_key="not-the-key")
    )
    assert isinstance(opened, OpenedWindow)
    context = opened.context
    qtbot.addWidget(context.window)
    try:
        with qtbot.waitSignal(context.controller.sync_finished, timeout=60_000) as first:
            pass  # the start connects once its list is painted, and syncs
        assert not first.args[0].ok  # the flag's key is refused

        def give_the_key() -> None:
            dialog = QApplication.activeModalWidget()
            assert isinstance(dialog, SettingsDialog)
            dialog.api_key.setText(emulator.api_key)
            dialog.done(QDialog.DialogCode.Accepted)

        QTimer.singleShot(0, give_the_key)
        with qtbot.waitSignal(context.controller.sync_finished, timeout=60_000) as second:
            assert show_settings_dialog(context, context.window)
        assert second.args[0].ok, second.args[0]
        assert context.api_key is None
    finally:
        context.shutdown()
