"""The Outbox pane and the status bar's count of waiting saves follow each save as a sync sends
it, not only when the whole sync has ended.

The window runs against the emulator on loopback, stopped while a note, a highlight and a
link are queued, then started again on the same port; each answer is held back a little, so
that the full pass that follows the sends runs for seconds after the saves were accepted.
"""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtGui import QTextCursor
from support.emulator import EmulatorFactory
from support.signals import Emitted
from support.window import WindowFactory

from memex_desktop.app import AppContext
from memex_desktop.emulator import RunningEmulator
from memex_desktop.emulator.synthetic import generate_library
from memex_desktop.errors import ConnectionState
from memex_desktop.settings import Settings
from memex_desktop.sync import SyncReport
from memex_desktop.ui.thread_pane import PROCESSING

pytestmark = [pytest.mark.gui, pytest.mark.qt_log_ignore("propagateSizeHints")]

ITEM = "compost"
PASSAGE = "air reaches the middle"
LINK = "https://tides.example.org/tables"
LIBRARY_SIZE = 1_000
PAGE_SIZE = 50
# One page at a time, each held back this long: the full pass takes 20 answers or more.
ANSWER_DELAY_S = 0.3
WAIT_MS = 60_000


@pytest.fixture
def server(emulator_factory: EmulatorFactory) -> RunningEmulator:
    """An emulator holding 1,000 items and one article to write a note on and highlight."""
    library = generate_library(LIBRARY_SIZE, seed=11, words_per_entity=20)
    library["results"].append(
        {
            "id": ITEM,
            "type": "web",
            "title": "Compost at home",
            "url": "https://garden.example/compost",
            "full_text": f"Every week you turn the heap so that {PASSAGE}.",
            "created_at": 1_700_000_000_000,
            "updated_at": 1_700_000_000_000,
            "metadata": {"status": "indexing-done"},
        }
    )
    # Saves stay "processing" on the server for the whole test: the notes pane can only
    # learn that the note was sent from the outbox, not from the note turning up in a page.
    return emulator_factory(library=library, processing_delay_s=600)


@pytest.fixture
def context(qtbot: Any, window_factory: WindowFactory, server: RunningEmulator) -> AppContext:
    """The window, synced, reading ITEM; it tries nothing again by itself during a test."""
    context = window_factory(
        server=server, settings=Settings(page_size=PAGE_SIZE, sync_max_in_flight=1)
    )
    context.controller.reconnect_delays_ms = (600_000,)
    assert _sync(qtbot, context).ok
    shown = Emitted(context.window.highlights.highlights_shown)
    context.window.open_entity(ITEM)
    qtbot.waitUntil(lambda: [ITEM] in shown.calls, timeout=WAIT_MS)
    qtbot.waitUntil(context.window.thread_pane.add_button.isEnabled, timeout=WAIT_MS)
    return context


def _sync(qtbot: Any, context: AppContext, *, full: bool = False) -> SyncReport:
    """Wait for any running sync, run one more and return its report."""
    qtbot.waitUntil(lambda: not context.controller.syncing, timeout=WAIT_MS)
    finished = Emitted(context.controller.sync_finished)
    assert context.controller.sync_now(full=full)
    report: SyncReport = finished.wait(qtbot, WAIT_MS)[0]
    return report


def _queue_three_saves(qtbot: Any, context: AppContext) -> None:
    """A note on ITEM, a highlight of PASSAGE and a link, as the window queues them."""
    window = context.window
    editor = window.thread_pane.open_editor(ITEM)
    qtbot.keyClicks(editor.editor, "Turn it weekly")
    noted = Emitted(window.thread_pane.note_queued)
    editor.save()
    noted.wait(qtbot, WAIT_MS)

    browser = window.reader_pane.browser
    start = browser.document().toPlainText().index(PASSAGE)
    cursor = QTextCursor(browser.document())
    cursor.setPosition(start)
    cursor.setPosition(start + len(PASSAGE), QTextCursor.MoveMode.KeepAnchor)
    browser.setTextCursor(cursor)
    highlighted = Emitted(window.highlights.highlight_queued)
    assert window.highlights.highlight_selection() is not None
    highlighted.wait(qtbot, WAIT_MS)

    linked = Emitted(window.saves.saves_queued)
    assert window.saves.save_urls([LINK]) is not None
    linked.wait(qtbot, WAIT_MS)


def _states(context: AppContext) -> list[str]:
    """What the Outbox pane says of each save."""
    model = context.window.outbox_pane.model
    return [str(model.index(row, 1).data()) for row in range(model.rowCount())]


def _all_moved_on(context: AppContext) -> bool:
    """Whether the Outbox pane says no save still waits to be sent."""
    return all(not state.startswith(("Queued", "Sending")) for state in _states(context))


def _note_sent(context: AppContext) -> bool:
    """The notes pane's card of the note says the server has it."""
    cards = context.window.thread_pane.cards
    return [card.badge.text() for card in cards] == [PROCESSING]


def test_the_outbox_and_the_count_follow_each_save_while_the_sync_goes_on(
    qtbot: Any, context: AppContext, server: RunningEmulator
) -> None:
    controller, status = context.controller, context.window.status
    context.window.docks.show_outbox()
    server.stop()
    assert _sync(qtbot, context).state is ConnectionState.OFFLINE
    _queue_three_saves(qtbot, context)
    qtbot.waitUntil(lambda: not controller.syncing, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: len(_states(context)) == 3, timeout=WAIT_MS)
    qtbot.waitUntil(
        lambda: all(state.startswith("Queued") for state in _states(context)), timeout=WAIT_MS
    )
    assert status.saves_button.text() == "3 saves waiting"

    # Memex is back; a sync sends the saves first, then reads the whole library for seconds.
    server.start()
    server.faults.latency(ANSWER_DELAY_S)
    finished = Emitted(controller.sync_finished)
    assert controller.sync_now(full=True)
    qtbot.waitUntil(lambda: _all_moved_on(context), timeout=WAIT_MS)
    assert controller.syncing, "the Outbox pane followed the saves only once the sync ended"
    assert all(state.startswith("Sent") for state in _states(context)), _states(context)
    qtbot.waitUntil(lambda: status.saves_button.text() == "3 processing", timeout=WAIT_MS)
    assert controller.syncing, "the count of waiting saves followed only the sync's end"
    # The notes pane beside the item says the note was sent, not that it waits.
    qtbot.waitUntil(lambda: _note_sent(context), timeout=WAIT_MS)
    assert controller.syncing, "the notes pane followed the note only once the sync ended"
    assert not finished.calls

    server.faults.latency(0)
    finished.wait(qtbot, WAIT_MS)
    assert len(_states(context)) == 3
