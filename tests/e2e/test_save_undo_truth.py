"""Undo after a save reached Memex: the window says it stays in the library and opens it."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import QMimeData, QPointF, Qt
from PySide6.QtGui import QDropEvent
from support.signals import Emitted
from support.window import WindowFactory

from memex_desktop.emulator import RunningEmulator
from memex_desktop.store import Outbox
from memex_desktop.ui.drops import PLAIN_TEXT

pytestmark = [pytest.mark.e2e, pytest.mark.qt_log_ignore("propagateSizeHints")]

PASTED = "read this: https://www.clip.example.com/article?fbclid=IwAR0, it's good"
SAVED = "https://www.clip.example.com/article?fbclid=IwAR0"


def _drop_text(window: Any, text: str) -> None:
    """Drop plain text on the window, as a chat app or an editor hands it over."""
    mime = QMimeData()
    mime.setData(PLAIN_TEXT, text.encode())
    event = QDropEvent(
        QPointF(400, 300),
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    window.dropEvent(event)


def _server_urls(server: RunningEmulator) -> list[str]:
    """The URL of every entity the emulator holds."""
    entities = (server.state.entity(entity_id) or {} for entity_id in server.state.entity_ids())
    return [str(data["url"]) for data in entities if data.get("url")]


def _accepted_entity(window: Any) -> str | None:
    """The item the server made of the one save, once the outbox says it was accepted."""
    with Outbox(window.outbox_path) as outbox:
        ops = outbox.list()
    assert len(ops) == 1
    if ops[0].state in ("accepted", "confirmed"):
        return ops[0].entity_id
    return None


def test_undo_after_sending_says_it_stays_and_opens_it(
    qtbot: Any, window_factory: WindowFactory, emulator: RunningEmulator
) -> None:
    context = window_factory(server=emulator)
    window = context.window
    queued = Emitted(window.saves_queued)
    _drop_text(window, PASTED)
    results, refused = queued.wait(qtbot, 10_000)
    assert ([r.status for r in results], refused) == (["queued"], [])
    assert window.toast.text() == "Saving 1 link."

    # The drop starts a sync, which sends the save: the server now has it.
    qtbot.waitUntil(lambda: _accepted_entity(window) is not None, timeout=30_000)
    entity_id = _accepted_entity(window)
    qtbot.waitUntil(lambda: not context.controller.syncing, timeout=30_000)

    window.actions_by_key["undo_save"].trigger()
    truth = "Already sent to Memex; it stays in your library."
    qtbot.waitUntil(lambda: window.toast.text() == truth, timeout=10_000)
    assert window.toast.text() != "Save undone."
    assert window.toast.open_button.isVisibleTo(window.toast)
    assert window.toast.open_button.text() == "Open"
    assert _server_urls(emulator).count(SAVED) == 1
    with Outbox(window.outbox_path) as outbox:
        assert [op.url for op in outbox.list()] == [SAVED]

    window.toast.open_button.click()
    qtbot.waitUntil(lambda: window.reader_pane.current_entity_id == entity_id, timeout=10_000)
    assert not window.toast.isVisible()


def _tried_offline(window: Any) -> bool:
    """Whether the one save was tried and found Memex unreachable."""
    with Outbox(window.outbox_path) as outbox:
        ops = outbox.list()
    return len(ops) == 1 and ops[0].error_kind == "network"


def test_undo_of_a_save_that_never_reached_memex_removes_it(
    qtbot: Any, window_factory: WindowFactory, emulator: RunningEmulator
) -> None:
    context = window_factory(server=emulator)
    window = context.window
    emulator.stop()  # offline: the drop's sync finds no server, the save waits
    queued = Emitted(window.saves_queued)
    _drop_text(window, PASTED)
    queued.wait(qtbot, 10_000)
    qtbot.waitUntil(lambda: _tried_offline(window), timeout=30_000)
    qtbot.waitUntil(lambda: not context.controller.syncing, timeout=30_000)
    with Outbox(window.outbox_path) as outbox:
        (waiting,) = outbox.list()
    assert (waiting.state, waiting.attempts) == ("queued", 0)  # a try that reached nothing
    window.actions_by_key["undo_save"].trigger()
    qtbot.waitUntil(lambda: window.toast.text() == "Save undone.", timeout=10_000)
    assert not window.toast.open_button.isVisibleTo(window.toast)
    with Outbox(window.outbox_path) as outbox:
        assert outbox.list() == []
