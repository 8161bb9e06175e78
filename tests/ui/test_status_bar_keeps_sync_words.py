"""While a sync runs, the status bar's words are the sync's: another message (a search of the
server answered, or failed) shows for its time and then gives them back; the connection state
("Online") never stands beside the sync's bar and Cancel as if the sync had stopped, also when
no page comes for longer than a progress line stays up.

The window runs against the emulator on loopback, one page at a time; while the person
searches the server, each answer is held back longer than the few seconds a progress line
used to stay up, as a server busy with a search of a large library holds the sync's pages.
"""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import Qt
from support.emulator import EmulatorFactory
from support.following_sync import slow_server
from support.signals import Emitted
from support.window import WindowFactory

from memex_desktop.api.client import MemexClient
from memex_desktop.app import AppContext
from memex_desktop.emulator import RunningEmulator
from memex_desktop.errors import ConnectionState
from memex_desktop.settings import Settings
from memex_desktop.ui import messages
from memex_desktop.ui.messages import message_line

pytestmark = [pytest.mark.gui, pytest.mark.qt_log_ignore("propagateSizeHints")]

LIBRARY_SIZE = 1_000
PAGE_SIZE = 50
ANSWER_DELAY_S = 0.2  # 20 pages, one at a time: the sync runs for seconds
SLOW_ANSWER_S = 3.5  # longer than a progress line stayed up (3 s)
SHOWN_FOR_MS = 1_500  # how long the window's other messages stay, in these tests
WAIT_MS = 60_000

Said = list[tuple[str, bool]]


def _no_sleep(_seconds: float) -> None:
    """Nothing is retried in these tests."""


@pytest.fixture
def server(emulator_factory: EmulatorFactory) -> RunningEmulator:
    """An emulator holding 1,000 items, each answer held back a little."""
    return slow_server(
        emulator_factory, LIBRARY_SIZE, seed=9, words_per_entity=20, answer_delay_s=ANSWER_DELAY_S
    )


@pytest.fixture
def context(
    window_factory: WindowFactory, server: RunningEmulator, monkeypatch: pytest.MonkeyPatch
) -> AppContext:
    """The window on a fresh data folder, reading one page at a time; a request that fails is
    not sent again (the test says which request fails)."""
    for level in list(messages.SHOWN_FOR_MS):
        monkeypatch.setitem(messages.SHOWN_FOR_MS, level, SHOWN_FOR_MS)
    client = MemexClient(
        server.base_url, api_key=server.api_key, max_retries=0, deadline_s=30.0, sleep=_no_sleep
    )
    return window_factory(
        client=client, settings=Settings(page_size=PAGE_SIZE, sync_max_in_flight=1)
    )


def _syncing(qtbot: Any, context: AppContext) -> Said:
    """Start a sync and wait for its first words; what the status bar says from then on,
    each with whether the sync still ran."""
    status, controller = context.window.status, context.controller
    assert controller.sync_now()
    qtbot.waitUntil(lambda: status.currentMessage().startswith("Syncing:"), timeout=WAIT_MS)
    said: Said = []
    status.messageChanged.connect(lambda line: said.append((line, controller.syncing)))
    return said


def _search_the_server(qtbot: Any, context: AppContext, words: str) -> None:
    """Type ``words`` in the search field and press Enter (the server is asked too)."""
    field = context.window.search_bar.field
    field.setFocus()
    qtbot.keyClicks(field, words)
    qtbot.keyClick(field, Qt.Key.Key_Return)


def _searches(server: RunningEmulator) -> int:
    """How many searches the server has been asked (the sync's pages among them)."""
    with server.state.lock:
        return sum(record.path == "/search" for record in server.state.requests)


def _finish(qtbot: Any, context: AppContext, server: RunningEmulator) -> None:
    server.faults.latency(0)
    qtbot.waitUntil(lambda: not context.controller.syncing, timeout=WAIT_MS)


def _while_syncing(said: Said) -> list[str]:
    return [line for line, syncing in said if syncing]


def test_a_search_answered_during_a_sync_gives_the_sync_its_words_back(
    qtbot: Any, context: AppContext, server: RunningEmulator
) -> None:
    controller, status = context.controller, context.window.status
    said = _syncing(qtbot, context)
    server.faults.latency(SLOW_ANSWER_S)
    answered = Emitted(controller.remote_results)
    _search_the_server(qtbot, context, "garden")
    answered.wait(qtbot, WAIT_MS)
    qtbot.waitUntil(lambda: any("from the server" in line for line, _ in said), timeout=WAIT_MS)
    # Two more pages, each after longer than a progress line stayed up.
    pages = Emitted(controller.sync_progress)
    qtbot.waitUntil(lambda: len(pages.calls) >= 2, timeout=WAIT_MS)
    assert controller.syncing
    assert status.currentMessage().startswith("Syncing:")
    assert not status.state_label.isVisible()
    _finish(qtbot, context, server)

    lines = _while_syncing(said)
    assert "" not in lines, f"the connection state showed while the sync ran: {lines}"
    answer = next(i for i, line in enumerate(lines) if "results from the server" in line)
    assert any(line.startswith("Syncing:") for line in lines[answer + 1 :]), lines
    assert controller.state is ConnectionState.ONLINE


def test_a_search_that_fails_during_a_sync_says_why_then_gives_the_sync_its_words_back(
    qtbot: Any, context: AppContext, server: RunningEmulator
) -> None:
    controller, status = context.controller, context.window.status
    said = _syncing(qtbot, context)
    server.faults.latency(SLOW_ANSWER_S)
    # Once the server holds a page the sync asked for, the next search it is asked fails:
    # the search the person starts now, not a page of the sync.
    held = _searches(server)
    qtbot.waitUntil(lambda: _searches(server) > held, timeout=WAIT_MS)
    server.faults.next_status(500, count=1, paths=["/search"])
    failed = Emitted(controller.remote_failed)
    _search_the_server(qtbot, context, "garden")
    why = message_line(failed.wait(qtbot, WAIT_MS)[1])
    qtbot.waitUntil(lambda: any(line == why for line, _ in said), timeout=WAIT_MS)
    assert controller.syncing
    assert controller.state is ConnectionState.SERVER_DOWN

    # The sync's next page says the server answers; its words come back once the failure
    # has been said for its time, and no "Retry now" stands beside them.
    qtbot.waitUntil(lambda: controller.state is ConnectionState.ONLINE, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: status.currentMessage().startswith("Syncing:"), timeout=WAIT_MS)
    assert controller.syncing
    assert not status.state_label.isVisible()
    assert not status.action_button.isVisible()
    _finish(qtbot, context, server)

    lines = _while_syncing(said)
    assert "" not in lines, f"the connection state showed while the sync ran: {lines}"
    failure = lines.index(why)
    assert any(line.startswith("Syncing:") for line in lines[failure + 1 :]), lines
