"""Tab goes through the notes pane before it leaves it: from Add note to its highlights and each
note's Reply (and its text, and Show more), in the order they stand, and only then to the
References pane. The notes' cards are made after the window's other panes, so they came last
in the focus chain: Tab went from Add note to the References toolbar and back to the first
note's Reply."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import QEvent, QSize, Qt
from PySide6.QtWidgets import QApplication, QWidget
from support.window import WindowFactory

from memex_desktop.app import AppContext
from memex_desktop.ui.main_window import MainWindow
from memex_desktop.ui.thread_pane import load_thread

pytestmark = [pytest.mark.gui, pytest.mark.qt_log_ignore("propagateSizeHints")]

WAIT_MS = 10_000
SIZE = QSize(1366, 768)


def _takes_tab(widget: QWidget, window: MainWindow) -> bool:
    """Whether Tab would stop at the widget (as QWidget.focusNextPrevChild decides)."""
    return bool(
        widget.focusPolicy() & Qt.FocusPolicy.TabFocus
        and widget.isVisibleTo(window)
        and widget.isEnabled()
    )


def _tab_stops_from(start: QWidget, window: MainWindow) -> list[QWidget]:
    """The widgets Tab stops at after ``start``, once round the window's focus chain."""
    stops = []
    widget = start.nextInFocusChain()
    while widget is not start:
        if _takes_tab(widget, window):
            stops.append(widget)
        widget = widget.nextInFocusChain()
    return stops


def _within(widget: QWidget, ancestor: QWidget) -> bool:
    return widget is ancestor or ancestor.isAncestorOf(widget)


@pytest.fixture
def context(qtbot: Any, window_factory: WindowFactory, demo_library: dict[str, Any]) -> AppContext:
    """The window at 1366 × 768, the notes above the graph, reading the item with most notes."""
    context = window_factory(library=demo_library)
    window = context.window
    window.resize(SIZE)
    qtbot.waitUntil(lambda: window.size() == SIZE, timeout=WAIT_MS)
    window.arrange_default_panes(SIZE.width(), SIZE.height())
    QApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
    ids = context.reader.all_ids(limit=500)
    noted = max(
        ids, key=lambda entity_id: len(load_thread(context.reader, None, entity_id).entries)
    )
    pane = window.thread_pane
    with qtbot.waitSignal(pane.thread_shown, timeout=WAIT_MS):
        window.open_entity(noted)
    qtbot.waitUntil(lambda: window.graph_pane.center == noted, timeout=WAIT_MS)
    assert len(pane.cards) >= 2
    assert window.thread_dock.isVisible()
    assert window.graph_dock.isVisible()
    return context


def test_tab_goes_from_add_note_through_every_note_before_the_references(
    context: AppContext,
) -> None:
    window = context.window
    pane = window.thread_pane
    stops = _tab_stops_from(pane.add_button, window)
    leaves = next(i for i, widget in enumerate(stops) if not _within(widget, pane))
    in_the_notes = [widget for widget in stops[:leaves] if widget is not pane.scroll_area]
    cards = [widget for card in pane.cards for widget in (card.reply, card.body, card.toggle)]
    expected = [widget for widget in (*pane.highlight_rows, *cards) if _takes_tab(widget, window)]
    assert in_the_notes == expected
    # Nothing of the notes pane comes back after the References pane.
    assert not any(_within(widget, pane) for widget in stops[leaves:] if widget is not pane)
    assert _within(stops[leaves], window.graph_pane)


def test_tab_order_holds_after_the_notes_are_read_again(qtbot: Any, context: AppContext) -> None:
    window = context.window
    pane = window.thread_pane
    with qtbot.waitSignal(pane.thread_shown, timeout=WAIT_MS):
        pane.refresh()
    # A card put in a shown layout shows a turn of the event loop later.
    qtbot.waitUntil(lambda: pane.cards[-1].reply.isVisibleTo(window), timeout=WAIT_MS)
    stops = _tab_stops_from(pane.add_button, window)
    replies = [stops.index(card.reply) for card in pane.cards]
    assert replies == sorted(replies)
    graph = next(i for i, widget in enumerate(stops) if _within(widget, window.graph_pane))
    assert replies[-1] < graph
    first = pane.highlight_rows[0] if pane.highlight_rows else pane.cards[0].reply
    assert stops[0] in (first, pane.scroll_area)
