"""A new list starts at its top: the best match first, whatever was scrolled to or open before.

The item open before stays the current row when the new list holds it, without pulling the
list down to it; the same search refreshed (rows added above) keeps the row a person was
looking at in view.
"""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest
from support.rows import shown_list
from support.window import WindowFactory

from memex_desktop.app import AppContext
from memex_desktop.emulator.synthetic import generate_library
from memex_desktop.ui import search_controller
from memex_desktop.ui.search_bar import SearchRequest

pytestmark = [pytest.mark.gui, pytest.mark.qt_log_ignore("propagateSizeHints")]


@pytest.fixture(scope="module")
def library() -> dict[str, Any]:
    return generate_library(600, seed=11, words_per_entity=40)


@pytest.fixture
def context(
    window_factory: WindowFactory, library: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> AppContext:
    """The window on that library, first pages of 20 so that full lists follow them."""
    monkeypatch.setattr(search_controller, "FIRST_PAGE", 20)
    context = window_factory(library=library)
    context.window.resize(1366, 768)
    return context


def _settled(qtbot: Any, context: AppContext, expected: list[str]) -> None:
    window = context.window
    qtbot.waitUntil(lambda: window.results_model.ids() == expected, timeout=10_000)
    QTest.qWait(50)  # the list lays out and paints


def _top_row(context: AppContext) -> int:
    """The row at the top edge of the list's viewport (-1: none)."""
    return context.window.results_view.indexAt(QPoint(4, 2)).row()


def _common_word(context: AppContext) -> str:
    for word in ("fas", "tris", "wo", "cri"):
        if 200 < len(context.reader.search_ids(word)) < 500:
            return word
    raise AssertionError("no common word in the synthetic library")


def test_a_new_search_starts_at_its_best_match(qtbot: Any, context: AppContext) -> None:
    window = context.window
    view = window.results_view
    everything = context.reader.search_ids("")
    _settled(qtbot, context, everything)
    # Far down the list, an item open: then a search that lists that item, not first.
    word = _common_word(context)
    found = context.reader.search_ids(word)
    opened = found[3]
    assert window.select_entity(opened)
    view.scrollToBottom()
    QTest.qWait(50)
    assert _top_row(context) > 100
    window.run_search(SearchRequest(word))
    _settled(qtbot, context, found)
    assert _top_row(context) == 0
    assert view.verticalScrollBar().value() == 0
    assert view.current_id() == opened  # still the current row, where it is in the list


def test_home_shows_the_first_row(qtbot: Any, context: AppContext) -> None:
    window = context.window
    view = window.results_view
    everything = context.reader.search_ids("")
    _settled(qtbot, context, everything)
    view.setFocus()
    QTest.keyClick(view, Qt.Key.Key_End)
    QTest.qWait(50)
    assert _top_row(context) > 100
    QTest.keyClick(view, Qt.Key.Key_Home)
    QTest.qWait(50)
    assert view.currentIndex().row() == 0
    assert _top_row(context) == 0


def test_a_search_after_the_end_of_a_list_starts_at_its_top(
    qtbot: Any, context: AppContext
) -> None:
    window = context.window
    view = window.results_view
    _settled(qtbot, context, context.reader.search_ids(""))
    view.setFocus()
    QTest.keyClick(view, Qt.Key.Key_End)
    QTest.qWait(50)
    word = _common_word(context)
    found = context.reader.search_ids(word)
    window.run_search(SearchRequest(word))
    _settled(qtbot, context, found)
    assert _top_row(context) == 0


@pytest.mark.parametrize("on_screen", [True, False])
def test_rows_added_above_the_current_row_keep_it_in_view_if_it_was(
    qtbot: Any, on_screen: bool
) -> None:
    ids = [f"old-{number}" for number in range(300)]
    view, model = shown_list(qtbot, ids)
    assert view.select_entity("old-5")
    if not on_screen:
        view.scrollToBottom()
    QTest.qWait(20)
    model.update_ids([f"new-{number}" for number in range(100)] + ids)  # a sync's new items
    view.keep_current_visible()  # what the window does once the refreshed search applied
    QTest.qWait(20)
    current = view.visualRect(view.currentIndex())
    assert view.current_id() == "old-5"
    assert view.viewport().rect().intersects(current) is on_screen
