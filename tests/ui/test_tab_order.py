"""Tab goes as the eye does: the search field, the filters, the sort menu, the list, the
reader; and out of the reader at once, however many links the item holds."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QWidget
from support.focus import give_focus
from support.window import WindowFactory

from memex_desktop.app import AppContext

pytestmark = [pytest.mark.gui, pytest.mark.qt_log_ignore("propagateSizeHints")]

WAIT_MS = 5_000


@pytest.fixture
def context(window_factory: WindowFactory, demo_library: dict[str, Any]) -> AppContext:
    return window_factory(library=demo_library)


def _tab(qtbot: Any, backwards: bool = False, control: bool = False) -> QWidget | None:
    """Press Tab (Shift+Tab, Ctrl+Tab) where the focus is; the widget with focus after."""
    widget = QApplication.focusWidget()
    assert widget is not None
    modifiers = Qt.KeyboardModifier.ControlModifier if control else Qt.KeyboardModifier(0)
    key = Qt.Key.Key_Tab
    if backwards:
        key = Qt.Key.Key_Backtab
        modifiers |= Qt.KeyboardModifier.ShiftModifier
    qtbot.keyClick(widget, key, modifiers)
    return QApplication.focusWidget()


def test_tab_from_the_search_field_follows_the_column_down_to_the_reader(
    qtbot: Any, context: AppContext
) -> None:
    window = context.window
    bar = window.search_bar
    give_focus(qtbot, bar.field)
    visited = [_tab(qtbot) for _ in range(7)]
    assert visited == [
        bar.cloud,
        bar.types,
        bar.tags,
        bar.dates,
        window.sort_control.combo,
        window.results_view,
        window.reader_pane.browser,
    ]


def test_tab_leaves_the_reader_and_ctrl_tab_goes_from_link_to_link(
    qtbot: Any, context: AppContext
) -> None:
    window = context.window
    reader = window.reader_pane
    # The item with the most links of the demo library: its text and "Referenced by".
    ids = context.reader.all_ids(limit=500)
    linked = max(ids, key=lambda entity_id: len(context.reader.backlinks(entity_id)))
    with qtbot.waitSignal(reader.entity_shown, timeout=WAIT_MS):
        window.open_entity(linked)
    assert "href" in reader.browser.toHtml()
    give_focus(qtbot, reader.browser)

    # Ctrl+Tab picks the first link and stays in the reader; Enter would open it.
    assert _tab(qtbot, control=True) is reader.browser
    first = reader.browser.textCursor()
    assert first.hasSelection()
    assert first.charFormat().isAnchor()
    assert _tab(qtbot, control=True) is reader.browser
    assert reader.browser.textCursor().selectionStart() > first.selectionStart()
    assert _tab(qtbot, backwards=True, control=True) is reader.browser
    assert reader.browser.textCursor().selectionStart() == first.selectionStart()

    # Tab leaves for the next pane at once, Shift+Tab goes back to the list.
    assert _tab(qtbot) is not reader.browser
    give_focus(qtbot, reader.browser)
    assert _tab(qtbot, backwards=True) is window.results_view
