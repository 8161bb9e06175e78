"""A note queued while the window knows Memex cannot be reached says at once that it waits for
it ("Queued: sent when Memex can be reached"), not only after a send was tried; online it says
"Queued"; and a card on screen follows the connection as it goes and comes back.

The window runs against the emulator on loopback, stopped and started on the same port. A
second holder of the data folder's sync lock (another memex-desktop syncing the folder) keeps
the window's sends waiting, so what a card says is never the outcome of a try.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from support.signals import Emitted
from support.window import WindowFactory

from memex_desktop import paths
from memex_desktop.app import AppContext
from memex_desktop.emulator import RunningEmulator
from memex_desktop.errors import ConnectionState
from memex_desktop.store import OutboxOp
from memex_desktop.sync import SyncOutcome, SyncReport
from memex_desktop.sync.folder_lock import FolderLock
from memex_desktop.ui.thread_pane import QUEUED, WAITING, NoteCard, ThreadPane

pytestmark = [pytest.mark.gui, pytest.mark.qt_log_ignore("propagateSizeHints")]

ITEM = "web-1"
WAIT_MS = 60_000


@pytest.fixture
def context(qtbot: Any, window_factory: WindowFactory, emulator: RunningEmulator) -> AppContext:
    """The window, synced, on ITEM; it tries nothing again by itself during a test."""
    context = window_factory(server=emulator)
    context.controller.reconnect_delays_ms = (600_000,)
    assert _sync(qtbot, context).outcome is SyncOutcome.OK
    opened = Emitted(context.window.entity_opened)
    context.window.open_entity(ITEM)
    assert opened.wait(qtbot) == [ITEM]
    qtbot.waitUntil(context.window.thread_pane.add_button.isEnabled, timeout=WAIT_MS)
    return context


def _sync(qtbot: Any, context: AppContext) -> SyncReport:
    """Wait for any running sync, run one more and return its report."""
    qtbot.waitUntil(lambda: not context.controller.syncing, timeout=WAIT_MS)
    finished = Emitted(context.controller.sync_finished)
    assert context.controller.sync_now()
    report: SyncReport = finished.wait(qtbot, WAIT_MS)[0]
    return report


@contextmanager
def another_sync_holds_the_folder(context: AppContext) -> Iterator[None]:
    """The data folder's sync lock, held as another memex-desktop syncing it would."""
    cache_path = context.controller.services.cache_path
    with FolderLock(paths.sync_lock_path(cache_path.parent)) as lock:
        assert lock.acquire()
        yield


def _write_note(qtbot: Any, pane: ThreadPane, words: str) -> list[str]:
    """Save a note on ITEM; what the card of every pending note says each time the pane
    draws the thread from then on (the first entry: what it said first)."""
    said: list[str] = []

    def record() -> None:
        said.extend(card.badge.text() for card in pane.cards if card.entry.pending)

    pane.thread_shown.connect(record)
    editor = pane.open_editor(ITEM)
    qtbot.keyClicks(editor.editor, words)
    queued = Emitted(pane.note_queued)
    editor.save()
    queued.wait(qtbot, WAIT_MS)
    qtbot.waitUntil(lambda: bool(said), timeout=WAIT_MS)
    return said


def _pending_card(pane: ThreadPane) -> NoteCard:
    [card] = [card for card in pane.cards if card.entry.pending]
    return card


def _note_ops(pane: ThreadPane) -> list[OutboxOp]:
    outbox = pane.outbox
    assert outbox is not None
    return [op for op in outbox.list() if op.kind == "save_entity"]


def _sent(pane: ThreadPane) -> bool:
    """The note is on the server: no card says it waits in the queue."""
    return bool(pane.cards) and all(
        card.badge.text() not in (QUEUED, WAITING) for card in pane.cards
    )


def test_a_note_written_offline_says_at_once_that_it_waits_for_memex(
    qtbot: Any, context: AppContext, emulator: RunningEmulator
) -> None:
    pane = context.window.thread_pane
    emulator.stop()
    assert _sync(qtbot, context).state is ConnectionState.OFFLINE
    with another_sync_holds_the_folder(context):
        said = _write_note(qtbot, pane, "Written on the train")
        assert said[0] == WAITING
        [op] = _note_ops(pane)
        assert (op.state, op.attempts, op.error_kind) == ("queued", 0, None)  # never tried
        card = _pending_card(pane)
        assert card.badge.text() == WAITING
        assert card.badge.toolTip().startswith("Not on the server yet.")
        assert "refused the connection" in card.badge.toolTip()  # as the status bar says
        assert card.badge.accessibleName() == WAITING

        # Memex is back: the window says so, the note is sent.
        emulator.start()
    qtbot.waitUntil(lambda: context.controller.state is ConnectionState.ONLINE, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: _sent(pane), timeout=WAIT_MS)
    assert all(op.state not in ("queued", "sending") for op in _note_ops(pane))


def test_a_queued_card_follows_the_connection_while_it_is_shown(
    qtbot: Any, context: AppContext, emulator: RunningEmulator
) -> None:
    pane = context.window.thread_pane
    controller = context.controller
    with another_sync_holds_the_folder(context):
        said = _write_note(qtbot, pane, "Written at the desk")
        assert said[0] == QUEUED  # online: nothing says Memex cannot be reached
        card = _pending_card(pane)

        # A search of the server finds none: the card on screen says the note waits for it.
        emulator.stop()
        controller.remote_search("bees", {})
        qtbot.waitUntil(lambda: controller.state is ConnectionState.OFFLINE, timeout=WAIT_MS)
        assert card.badge.text() == WAITING
        assert "refused the connection" in card.badge.toolTip()
        [op] = _note_ops(pane)
        assert op.error_kind is None  # it follows the connection, not a failed send

        # Memex answers again: the card says Queued, as before.
        emulator.start()
        controller.remote_search("bees", {})
        qtbot.waitUntil(lambda: controller.state is ConnectionState.ONLINE, timeout=WAIT_MS)
        card = _pending_card(pane)
        assert card.badge.text() == QUEUED
        assert "refused" not in card.badge.toolTip()
    # The other sync is done: the window sends the note.
    qtbot.waitUntil(lambda: _sent(pane), timeout=WAIT_MS)
