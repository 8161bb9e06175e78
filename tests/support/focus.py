"""Giving a widget the keyboard in a test, as a click or a shortcut would."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QWidget


def give_focus(qtbot: Any, widget: QWidget, timeout_ms: int = 5_000) -> None:
    """Activate ``widget``'s window and focus ``widget``; return once it has the keyboard."""
    widget.window().activateWindow()
    widget.setFocus(Qt.FocusReason.OtherFocusReason)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is widget, timeout=timeout_ms)
