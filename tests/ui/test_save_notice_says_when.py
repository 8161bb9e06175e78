"""The notice after a paste says what happens to the links, in the connection state the window
shows: "Saving 1 link." while Memex takes saves; while saves wait (Memex cannot be reached,
the usage balance is used up), that the link is queued and when it is saved, as the status bar
says why. The window runs against the emulator on loopback.
"""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtGui import QGuiApplication
from support.emulator import EmulatorFactory
from support.signals import Emitted
from support.window import WindowFactory

from memex_desktop.app import AppContext
from memex_desktop.errors import ConnectionState, queued_links_words
from memex_desktop.store import Outbox

pytestmark = [pytest.mark.gui, pytest.mark.qt_log_ignore("propagateSizeHints")]

WAIT_MS = 60_000
LINK = "https://example.org/saved-while-waiting"
OTHER = "https://example.org/saved-after-it"


def _synced(qtbot: Any, context: AppContext) -> ConnectionState:
    """Run a sync to its end; the connection state it left."""
    finished = Emitted(context.controller.sync_finished)
    assert context.controller.sync_now()
    finished.wait(qtbot, WAIT_MS)
    qtbot.waitUntil(lambda: not context.controller.syncing, timeout=WAIT_MS)
    return context.controller.state


def _paste(qtbot: Any, context: AppContext, link: str = LINK) -> str:
    """Save ``link`` from the clipboard as Ctrl+Shift+V does; what the notice says."""
    QGuiApplication.clipboard().setText(link)
    queued = Emitted(context.window.saves.saves_queued)
    context.window.actions_by_key["save_clipboard"].trigger()
    results, refused = queued.wait(qtbot, WAIT_MS)
    assert ([r.status for r in results], refused) == (["queued"], [])
    with Outbox(context.window.outbox_path) as outbox:
        assert link in [op.url for op in outbox.list()]
    return context.window.toast.text()


@pytest.mark.parametrize(
    ("state", "count", "words"),
    [
        (ConnectionState.ONLINE, 1, "Saving 1 link"),
        (ConnectionState.ONLINE, 3, "Saving 3 links"),
        (ConnectionState.OFFLINE, 1, "1 link queued: it is saved when Memex can be reached"),
        (
            ConnectionState.SERVER_DOWN,
            2,
            "2 links queued: they are saved when Memex can be reached",
        ),
        (
            ConnectionState.INSUFFICIENT_CREDITS,
            1,
            "1 link queued: it is saved when saves resume (your usage balance is used up)",
        ),
        (ConnectionState.NOT_CONFIGURED, 1, "1 link queued: it is saved once you connect to Memex"),
    ],
)
def test_queued_links_are_told_for_the_connection_state(
    state: ConnectionState, count: int, words: str
) -> None:
    assert queued_links_words(count, state) == words


def test_every_state_that_keeps_saves_waiting_says_when_they_are_saved() -> None:
    for state in ConnectionState:
        words = queued_links_words(1, state)
        saving = state is ConnectionState.ONLINE
        assert words.startswith("Saving") is saving, (state, words)
        assert ("queued: it is saved " in words) is not saving, (state, words)


def test_a_link_pasted_while_memex_refuses_the_connection_is_queued_until_it_answers(
    qtbot: Any, window_factory: WindowFactory, emulator_factory: EmulatorFactory
) -> None:
    server = emulator_factory()
    context = window_factory(server=server)
    context.controller.reconnect_delays_ms = (600_000,)  # no try of its own during the test
    server.stop()
    assert _synced(qtbot, context) in (ConnectionState.OFFLINE, ConnectionState.SERVER_DOWN)
    assert "saves wait" in context.window.status.state_label.text()
    assert _paste(qtbot, context) == "1 link queued: it is saved when Memex can be reached."
    assert context.window.toast.undo_button.isVisibleTo(context.window.toast)


def test_a_link_pasted_with_the_usage_balance_used_up_waits_for_saves_to_resume(
    qtbot: Any, window_factory: WindowFactory, emulator_factory: EmulatorFactory
) -> None:
    server = emulator_factory(balance_micros=0)
    context = window_factory(server=server)
    context.controller.reconnect_delays_ms = (600_000,)
    # Reading the library costs nothing: the first save sent finds the balance used up.
    assert _synced(qtbot, context) is ConnectionState.ONLINE
    assert _paste(qtbot, context) == "Saving 1 link."
    qtbot.waitUntil(
        lambda: context.controller.state is ConnectionState.INSUFFICIENT_CREDITS, timeout=WAIT_MS
    )
    assert "saves are paused" in context.window.status.state_label.text()
    assert _paste(qtbot, context, OTHER) == (
        "1 link queued: it is saved when saves resume (your usage balance is used up)."
    )


def test_a_link_pasted_online_is_being_saved(
    qtbot: Any, window_factory: WindowFactory, emulator_factory: EmulatorFactory
) -> None:
    context = window_factory(server=emulator_factory())
    assert _synced(qtbot, context) is ConnectionState.ONLINE
    assert _paste(qtbot, context) == "Saving 1 link."
