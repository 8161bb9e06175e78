"""Back, Forward and a link followed in the reader move the list's mark with it: the row
marked is the item read, and no row is marked when the item read is not listed."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import Qt
from support.window import WindowFactory

from memex_desktop.app import AppContext
from memex_desktop.emulator.synthetic import generate_library

pytestmark = [pytest.mark.gui, pytest.mark.qt_log_ignore("propagateSizeHints")]


@pytest.fixture
def context(window_factory: WindowFactory) -> AppContext:
    return window_factory(library=generate_library(40, seed=3, words_per_entity=20))


def _read(qtbot: Any, context: AppContext, entity_id: str) -> None:
    window = context.window
    qtbot.waitUntil(lambda: window.reader_pane.current_entity_id == entity_id, timeout=10_000)


def _marked(context: AppContext) -> list[str]:
    view = context.window.results_view
    model = context.window.results_model
    return [str(model.id_at(index.row())) for index in view.selectionModel().selectedRows()]


def test_back_and_forward_mark_the_item_read(qtbot: Any, context: AppContext) -> None:
    window = context.window
    listed = context.reader.search_ids("")
    qtbot.waitUntil(lambda: window.results_model.ids() == listed, timeout=10_000)
    first, second = listed[2], listed[7]
    for entity_id in (first, second):
        assert window.results_view.select_entity(entity_id)
        _read(qtbot, context, entity_id)
    window.actions_by_key["go_back"].trigger()
    _read(qtbot, context, first)
    assert window.results_view.current_id() == first
    assert _marked(context) == [first]
    window.actions_by_key["go_forward"].trigger()
    _read(qtbot, context, second)
    assert _marked(context) == [second]


def test_back_to_an_item_not_listed_marks_no_row(qtbot: Any, context: AppContext) -> None:
    window = context.window
    listed = context.reader.search_ids("")
    qtbot.waitUntil(lambda: window.results_model.ids() == listed, timeout=10_000)
    unlisted, listed_one = listed[0], listed[5]
    window.results_model.set_results(listed[1:])  # a list that leaves the first item out
    window.open_entity(unlisted)
    _read(qtbot, context, unlisted)
    assert window.results_view.select_entity(listed_one)
    _read(qtbot, context, listed_one)
    window.actions_by_key["go_back"].trigger()
    _read(qtbot, context, unlisted)
    assert _marked(context) == []


def test_a_link_followed_in_the_reader_marks_its_item(qtbot: Any, context: AppContext) -> None:
    window = context.window
    listed = context.reader.search_ids("")
    qtbot.waitUntil(lambda: window.results_model.ids() == listed, timeout=10_000)
    assert window.results_view.select_entity(listed[0])
    _read(qtbot, context, listed[0])
    window.reader_pane.follow_link(f"memex://entity/{listed[9]}")
    _read(qtbot, context, listed[9])
    assert _marked(context) == [listed[9]]
    window.results_model.set_results(listed[:5])  # a list without the next one
    assert window.results_view.select_entity(listed[1])
    window.reader_pane.follow_link(f"memex://entity/{listed[12]}")
    _read(qtbot, context, listed[12])
    assert _marked(context) == []


def test_clicking_the_current_row_reads_it_again(qtbot: Any, context: AppContext) -> None:
    """After reading an item the list does not show (a link, a notice's Open), the row that
    was current is still there to click: a click reads it, as on any other row."""
    window = context.window
    listed = context.reader.search_ids("")
    qtbot.waitUntil(lambda: window.results_model.ids() == listed, timeout=10_000)
    window.results_model.set_results(listed[1:])
    assert window.results_view.select_entity(listed[3])
    _read(qtbot, context, listed[3])
    window.reader_pane.show_entity(listed[0])  # not listed: the list keeps its current row
    _read(qtbot, context, listed[0])
    view = window.results_view
    assert view.current_id() == listed[3]
    row = view.visualRect(view.currentIndex()).center()
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=row)
    _read(qtbot, context, listed[3])
    assert _marked(context) == [listed[3]]
