"""While a sync brings items, the list and the sidebar's counts follow the cache.

The window runs against the emulator on loopback, each answer held back a little so that a
first sync of 1,000 items takes a few seconds: the list must fill while it runs, not only when
it ends, and the person's place in the list must stay where it was.
"""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import Qt
from support.emulator import EmulatorFactory
from support.following_sync import all_items_count, slow_server, window_following_sync
from support.window import WindowFactory

from memex_desktop.app import AppContext
from memex_desktop.emulator import RunningEmulator
from memex_desktop.settings import Settings
from memex_desktop.ui.sidebar import ALL_ITEMS

pytestmark = [pytest.mark.gui, pytest.mark.qt_log_ignore("propagateSizeHints")]

LIBRARY_SIZE = 1_000
PAGE_SIZE = 50
ANSWER_DELAY_S = 0.25  # per request: 20 pages, two in flight, take 2.5 s or more


@pytest.fixture
def server(emulator_factory: EmulatorFactory) -> RunningEmulator:
    """An emulator holding 1,000 items, each answer held back a quarter of a second."""
    return slow_server(
        emulator_factory, LIBRARY_SIZE, seed=3, words_per_entity=20, answer_delay_s=ANSWER_DELAY_S
    )


@pytest.fixture
def context(window_factory: WindowFactory, server: RunningEmulator) -> AppContext:
    """The window on a fresh data folder, served 50 items to a page, refreshing often."""
    return window_following_sync(window_factory, server, Settings(page_size=PAGE_SIZE))


def test_a_first_sync_fills_the_list_and_the_counts_while_it_runs(
    qtbot: Any, context: AppContext
) -> None:
    window = context.window
    model = window.results_model
    controller = context.controller
    assert model.rowCount() == 0
    assert controller.sync_now()
    qtbot.waitUntil(lambda: model.rowCount() >= 2 * PAGE_SIZE, timeout=20_000)
    assert controller.syncing, "the list filled only when the sync ended"
    qtbot.waitUntil(lambda: all_items_count(context) >= 2 * PAGE_SIZE, timeout=20_000)
    assert controller.syncing, "the sidebar counted the items only when the sync ended"
    assert window.results_view.empty_state is None

    # The person picks a row and scrolls down a little: more pages come in below.
    view = window.results_view
    assert view.select_entity(model.id_at(3) or "", scroll=False)
    picked = view.current_id()
    view.verticalScrollBar().setValue(40)
    scrolled = view.verticalScrollBar().value()
    rows_before = model.rowCount()
    resets: list[bool] = []
    model.modelReset.connect(lambda: resets.append(True))
    qtbot.waitUntil(lambda: model.rowCount() >= rows_before + PAGE_SIZE, timeout=20_000)
    assert controller.syncing
    assert not resets, "the list was replaced, not extended"
    assert view.current_id() == picked
    assert view.verticalScrollBar().value() == scrolled

    qtbot.waitUntil(lambda: not controller.syncing, timeout=60_000)
    qtbot.waitUntil(lambda: model.rowCount() == LIBRARY_SIZE, timeout=20_000)
    qtbot.waitUntil(lambda: all_items_count(context) == LIBRARY_SIZE, timeout=20_000)
    assert view.current_id() == picked


def test_clicking_the_entry_on_show_reads_its_list_again(
    qtbot: Any, context: AppContext, server: RunningEmulator
) -> None:
    window = context.window
    model = window.results_model
    controller = context.controller
    # The list does not follow this sync by itself: what it shows comes from the click.
    window.search.sync_refresh_ms = 600_000
    assert controller.sync_now()
    qtbot.waitUntil(
        lambda: len(context.reader.all_ids(limit=PAGE_SIZE + 1)) > PAGE_SIZE, timeout=20_000
    )
    server.faults.latency(5.0)  # the rest of the sync waits: the click is what fills the list
    assert controller.syncing
    assert model.rowCount() == 0
    sidebar = window.sidebar
    rect = sidebar.visualRect(sidebar.sidebar_model.index_of(ALL_ITEMS.key))
    qtbot.mouseClick(sidebar.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    qtbot.waitUntil(lambda: model.rowCount() > PAGE_SIZE, timeout=10_000)
    assert controller.syncing, "the list filled only when the sync ended"
    assert sidebar.current_scope() == ALL_ITEMS
    qtbot.waitUntil(lambda: all_items_count(context) > PAGE_SIZE, timeout=10_000)
    assert controller.syncing
    server.faults.clear()
    qtbot.waitUntil(lambda: not controller.syncing, timeout=60_000)
