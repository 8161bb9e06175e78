"""Ctrl+V with a link copied saves it, as Ctrl+Shift+V does, wherever the keyboard is not in a
text field (the results list, the reader, the sidebar); in the search field it pastes, as
everywhere, and saves nothing."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication, QWidget
from support.emulator import small_library
from support.signals import Emitted
from support.window import WindowFactory

from memex_desktop.app import AppContext
from memex_desktop.store import Outbox
from memex_desktop.ui.actions import ACTIONS_BY_KEY

pytestmark = [pytest.mark.gui, pytest.mark.qt_log_ignore("propagateSizeHints")]

LINK = "https://example.org/copied-link"
WAIT_MS = 10_000


@pytest.fixture
def context(window_factory: WindowFactory) -> AppContext:
    """The window on a small library, a link on the clipboard."""
    context = window_factory(library=small_library())
    context.window.activateWindow()
    QGuiApplication.clipboard().setText(f"have a look: {LINK}")
    return context


def _queued(context: AppContext) -> list[str]:
    """The links waiting in the outbox."""
    with Outbox(context.window.outbox_path) as outbox:
        return [op.url for op in outbox.list() if op.url]


def _ctrl_v_saves(qtbot: Any, context: AppContext, widget: QWidget) -> None:
    """Ctrl+V in ``widget`` saves the link copied, and the notice says so."""
    widget.setFocus()
    QApplication.processEvents()
    assert widget.hasFocus()
    queued = Emitted(context.window.saves.saves_queued)
    qtbot.keyClick(widget, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)
    results, refused = queued.wait(qtbot, WAIT_MS)
    assert ([r.status for r in results], refused) == (["queued"], [])
    assert _queued(context) == [LINK]
    assert context.window.toast.text().endswith(
        "link queued: it is saved once you connect to Memex."
    )


def test_ctrl_v_on_the_results_list_saves_the_link_copied(qtbot: Any, context: AppContext) -> None:
    _ctrl_v_saves(qtbot, context, context.window.results_view)


def test_ctrl_v_in_the_reader_saves_the_link_copied(qtbot: Any, context: AppContext) -> None:
    _ctrl_v_saves(qtbot, context, context.window.reader_pane.browser)


def test_ctrl_v_in_the_search_field_pastes_and_saves_nothing(
    qtbot: Any, context: AppContext
) -> None:
    field = context.window.search_bar.field
    field.setFocus()
    QApplication.processEvents()
    queued = Emitted(context.window.saves.saves_queued)
    qtbot.keyClick(field, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)
    assert field.text() == f"have a look: {LINK}"
    # A save would be queued on a worker: once every task is done, none was.
    qtbot.waitUntil(lambda: context.runner.active_count() == 0, timeout=WAIT_MS)
    assert queued.calls == []
    assert _queued(context) == []


def test_the_shortcut_list_names_ctrl_v_with_where_it_pastes() -> None:
    spec = ACTIONS_BY_KEY["save_clipboard"]
    assert spec.shortcuts == ("Ctrl+Shift+V", "Ctrl+V")
    assert "except in a text field, where it pastes" in spec.description
