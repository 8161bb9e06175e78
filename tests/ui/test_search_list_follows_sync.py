"""A search's list follows the cache while a sync brings items, as "All items" does, and no
refresh, during the sync or at its end, takes the person's place or selection.

A user test: a search typed during a first sync of 20,000 items kept its count while "All
items" grew, and when the sync ended the list went back to its top, the item being read
selected somewhere far below. The search's ranking moves listed items as the sync indexes
them; a refresh then waited for the sync's end, which reset the list.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from support.emulator import EmulatorFactory
from support.following_sync import all_items_count, slow_server, window_following_sync
from support.window import WindowFactory

from memex_desktop.app import AppContext
from memex_desktop.emulator import RunningEmulator
from memex_desktop.emulator.synthetic import generate_library
from memex_desktop.settings import Settings
from memex_desktop.sync import SyncProgress

pytestmark = [pytest.mark.gui, pytest.mark.qt_log_ignore("propagateSizeHints")]

LIBRARY_SIZE = 1_200
PAGE_SIZE = 50
ANSWER_DELAY_S = 0.2  # per request, one at a time: 24 pages take 5 s or more
QUERY = "jar lel"  # two words of the generated library: most of its items hold both
WAIT_MS = 60_000
DAY_MS = 24 * 3600 * 1000


@pytest.fixture
def server(emulator_factory: EmulatorFactory) -> RunningEmulator:
    """An emulator holding 1,200 items, each answer held back a fifth of a second."""
    return slow_server(
        emulator_factory, LIBRARY_SIZE, seed=0, words_per_entity=40, answer_delay_s=ANSWER_DELAY_S
    )


@pytest.fixture
def context(window_factory: WindowFactory, server: RunningEmulator) -> AppContext:
    """The window on a fresh data folder, served 50 items to a page asked one at a time,
    refreshing often."""
    settings = Settings(page_size=PAGE_SIZE, sync_max_in_flight=1)
    return window_following_sync(window_factory, server, settings)


@pytest.mark.parametrize("sort", ["relevance", "newest", "oldest"])
def test_a_search_typed_during_a_sync_follows_it_and_keeps_the_row_being_read(
    qtbot: Any, context: AppContext, sort: str
) -> None:
    window = context.window
    model = window.results_model
    view = window.results_view
    controller = context.controller
    combo = window.sort_control.combo
    combo.setCurrentIndex(combo.findData(sort))
    assert controller.sync_now()
    qtbot.waitUntil(lambda: all_items_count(context) >= 4 * PAGE_SIZE, timeout=WAIT_MS)
    bar = window.search_bar
    bar.field.setText(QUERY)
    bar.flush()
    qtbot.waitUntil(lambda: model.query == QUERY and model.rowCount() > 0, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: not window.search.awaiting_results, timeout=WAIT_MS)
    assert controller.syncing
    resets: list[bool] = []
    model.modelReset.connect(lambda: resets.append(True))

    # The list grows with the sync, as the sidebar's count does.
    first = model.rowCount()
    qtbot.waitUntil(lambda: model.rowCount() >= first + PAGE_SIZE, timeout=WAIT_MS)
    assert controller.syncing, "the search's list grew only when the sync ended"

    # The person scrolls to the end of the list and opens an item there.
    view.scrollToBottom()
    row = model.rowCount() - 3
    assert view.select_entity(model.id_at(row) or "")
    picked = view.current_id()
    assert picked is not None
    qtbot.waitUntil(lambda: window.reader_pane.current_entity_id == picked, timeout=WAIT_MS)
    top = view.visualRect(view.currentIndex()).top()
    assert view.viewport().rect().contains(view.visualRect(view.currentIndex()))

    rows = model.rowCount()
    qtbot.waitUntil(lambda: model.rowCount() >= rows + PAGE_SIZE, timeout=WAIT_MS)
    assert controller.syncing, "the search's list grew only when the sync ended"
    assert view.current_id() == picked
    assert view.visualRect(view.currentIndex()).top() == top, "the row being read moved"

    qtbot.waitUntil(lambda: not controller.syncing, timeout=WAIT_MS)
    expected = context.reader.search_ids(QUERY, sort=sort)
    qtbot.waitUntil(lambda: model.rowCount() == len(expected), timeout=WAIT_MS)
    qtbot.waitUntil(lambda: context.runner.active_count() == 0, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: model.ids() == expected, timeout=WAIT_MS)
    assert not resets, "a refresh replaced the list (back to its top)"
    assert view.current_id() == picked
    selected = [model.id_at(index.row()) for index in view.selectionModel().selectedIndexes()]
    assert selected == [picked]
    assert view.visualRect(view.currentIndex()).top() == top, "the row being read moved"
    assert window.reader_pane.current_entity_id == picked


def _saved_lately(library: dict[str, Any]) -> dict[str, Any]:
    """The library with its items' dates moved so that the newest was saved yesterday: its
    three years are then on both sides of "Past year", whenever the test runs."""
    newest = max(item["created_at"] for item in library["results"])
    shift = int(time.time() * 1000) - DAY_MS - newest
    for item in library["results"]:
        for key in ("created_at", "updated_at"):
            if isinstance(item.get(key), int):
                item[key] += shift
    return library


def test_a_list_with_a_date_filter_follows_a_sync_in_place(
    qtbot: Any, window_factory: WindowFactory
) -> None:
    """A date filter's bound is worked out from the clock at each request: the list read
    again for the same filter is still the same search, followed in place (it was taken for
    another search: never read during a sync, and replaced, back at its top, at its end)."""
    library = _saved_lately(generate_library(600, seed=11, words_per_entity=20))
    context = window_factory(library=library)
    window = context.window
    model = window.results_model
    view = window.results_view
    search = window.search
    search.sync_refresh_ms = 10
    bar = window.search_bar
    bar.dates.setCurrentIndex(bar.dates.findData(365))
    qtbot.waitUntil(lambda: model.rowCount() > 0 and not search.awaiting_results, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: context.runner.active_count() == 0, timeout=WAIT_MS)
    assert 40 < model.rowCount() < len(library["results"])
    picked = model.id_at(model.rowCount() // 2) or ""
    assert view.select_entity(picked)  # scrolled down to it
    top = view.visualRect(view.currentIndex()).top()
    assert view.verticalScrollBar().value() > 0
    resets: list[bool] = []
    model.modelReset.connect(lambda: resets.append(True))
    applied: list[int] = []
    window.search_applied.connect(applied.append)

    # A sync's page came in: the list is read again.
    context.controller.sync_progress.emit(SyncProgress("pull", 10, None, "10 items"))
    qtbot.waitUntil(lambda: bool(applied), timeout=WAIT_MS)
    # The sync ended (the store changed): the same search again.
    search.run_current_search()
    qtbot.waitUntil(lambda: len(applied) >= 2 and not search.awaiting_results, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: context.runner.active_count() == 0, timeout=WAIT_MS)
    assert not resets, "the list was replaced, back at its top"
    assert view.current_id() == picked
    assert view.visualRect(view.currentIndex()).top() == top
