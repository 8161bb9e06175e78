"""An uncaught exception opens the error dialog, worded as every message of the window is."""

from __future__ import annotations

import sys
import threading
from typing import Any

import pytest
from PySide6.QtWidgets import QApplication, QLabel, QPlainTextEdit

from memex_desktop import app
from memex_desktop.errors import user_message
from memex_desktop.store import DatabaseLockedError
from memex_desktop.ui.dialogs import ErrorDialog
from memex_desktop.ui.messages import message_line

pytestmark = [pytest.mark.gui, pytest.mark.qt_log_ignore("propagateSizeHints")]


def test_an_uncaught_error_is_shown_in_the_words_of_user_message(
    qtbot: Any, qapp: QApplication, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)
    monkeypatch.setattr(threading, "excepthook", threading.excepthook)
    app._install_excepthook(qapp)
    try:
        raise DatabaseLockedError("cache.db is locked")
    except DatabaseLockedError as exc:
        error = exc
    sys.excepthook(type(error), error, error.__traceback__)
    dialogs = [w for w in qapp.topLevelWidgets() if isinstance(w, ErrorDialog)]
    assert len(dialogs) == 1
    dialog = dialogs[0]
    qtbot.addWidget(dialog)
    assert dialog.isVisible()
    expected = user_message(error)
    assert expected.action
    assert dialog.findChild(QLabel).text() == message_line(expected)
    details = dialog.findChild(QPlainTextEdit).toPlainText()
    assert "DatabaseLockedError: cache.db is locked" in details
