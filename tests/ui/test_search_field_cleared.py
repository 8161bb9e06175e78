"""A search field the window empties (Clear all, Clear search, the query's chip) looks empty:
no clear button beside nothing, its hint shown, and no search of the old words to follow."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QToolButton
from support.window import WindowFactory

from memex_desktop.app import AppContext
from memex_desktop.ui.search_bar import SearchBar, SearchRequest

pytestmark = [pytest.mark.gui, pytest.mark.qt_log_ignore("propagateSizeHints")]

WAIT_MS = 10_000
# The clear button fades in and out with the text (Qt animates it for a fifth of a second).
FADE_MS = 2_000


@pytest.fixture
def context(window_factory: WindowFactory, demo_library: dict[str, Any]) -> AppContext:
    """The window on the demo library's cache (no server)."""
    return window_factory(library=demo_library)


def settle(qtbot: Any, context: AppContext) -> None:
    """Wait until every search, read and count of the window has landed."""
    qtbot.waitUntil(lambda: context.runner.active_count() == 0, timeout=WAIT_MS)


def clear_button(bar: SearchBar) -> QToolButton:
    """The field's own clear button (Qt's, at its right end)."""
    buttons = bar.field.findChildren(QToolButton)
    assert len(buttons) == 1
    return buttons[0]


def typed(qtbot: Any, context: AppContext, text: str) -> SearchBar:
    """Type ``text`` into the window's search field; its search has landed and the clear
    button shows."""
    bar = context.window.search_bar
    qtbot.keyClicks(bar.field, text)
    bar.flush()
    settle(qtbot, context)
    qtbot.waitUntil(clear_button(bar).isVisible, timeout=FADE_MS)
    return bar


def assert_looks_empty(qtbot: Any, context: AppContext, searches: list[SearchRequest]) -> None:
    """The field is empty and looks it; the one search that followed was for nothing."""
    bar = context.window.search_bar
    qtbot.waitUntil(lambda: not clear_button(bar).isVisible(), timeout=FADE_MS)
    assert bar.field.text() == ""
    assert bar.field.placeholderText()  # the hint shows in its place
    bar.flush()  # a debounced search of the old words would go out now
    settle(qtbot, context)
    assert [request.query for request in searches] == [""]
    assert context.window.results_model.query == ""


def test_clear_all_leaves_no_clear_button(qtbot: Any, context: AppContext) -> None:
    bar = typed(qtbot, context, "garden")
    searches: list[SearchRequest] = []
    bar.search_changed.connect(searches.append)
    qtbot.mouseClick(bar.clear_all_button, Qt.MouseButton.LeftButton)
    assert_looks_empty(qtbot, context, searches)
    qtbot.keyClicks(bar.field, "c")  # typing again starts afresh
    assert bar.field.text() == "c"


def test_clear_search_of_an_empty_list_leaves_no_clear_button(
    qtbot: Any, context: AppContext
) -> None:
    bar = typed(qtbot, context, "xyzzy")
    view = context.window.results_view
    assert view.empty_button.text() == "Clear search"
    searches: list[SearchRequest] = []
    bar.search_changed.connect(searches.append)
    view.grab()  # paints the empty state and places its button
    qtbot.mouseClick(view.empty_button, Qt.MouseButton.LeftButton)
    assert_looks_empty(qtbot, context, searches)


def test_removing_the_query_chip_leaves_no_clear_button(qtbot: Any, context: AppContext) -> None:
    bar = typed(qtbot, context, "garden")
    searches: list[SearchRequest] = []
    bar.search_changed.connect(searches.append)
    chip = bar.chip_buttons()[0]
    qtbot.mouseClick(chip, Qt.MouseButton.LeftButton)
    assert_looks_empty(qtbot, context, searches)
    assert bar.chip_buttons() == []
