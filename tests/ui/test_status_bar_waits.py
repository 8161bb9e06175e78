"""A sync waiting for a server that asked it to slow down says so for as long as it waits,
then what it fetched; other progress lines stay until the next one or the sync's end; a sync
that brings no page for a while says so instead of spinning on in silence."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtTest import QTest

from memex_desktop.sync.types import SyncOutcome, SyncProgress, SyncReport
from memex_desktop.ui import status_bar
from memex_desktop.ui.status_bar import StatusBar

pytestmark = [pytest.mark.gui, pytest.mark.qt_log_ignore("propagateSizeHints")]

# The engine's words for a wait; the status bar names what its number counts.
WAITING = "1,200 items so far; the server asked to slow down, asking again in 5 s"
FETCHED = "Syncing: 1,200 items fetched so far"
SAID = f"{FETCHED}; the server asked to slow down, asking again in 5 s"


def test_a_wait_is_said_for_as_long_as_it_lasts(qtbot: Any) -> None:
    waiting, fetching = StatusBar(), StatusBar()
    for status in (waiting, fetching):
        qtbot.addWidget(status)
        status.show()
        status.on_sync_started()
    waiting.on_sync_progress(SyncProgress("pull", 1200, None, WAITING, waiting_s=5.0))
    fetching.on_sync_progress(SyncProgress("pull", 1200, 1200, "1,200 items"))
    QTest.qWait(3_400)
    assert waiting.currentMessage() == SAID
    assert fetching.currentMessage() == FETCHED  # the sync still runs: its words stay
    # The wait is over: what was fetched, not the wait (long past) nor the connection state.
    qtbot.waitUntil(lambda: waiting.currentMessage() == FETCHED, timeout=3_000)
    for status in (waiting, fetching):
        status.on_sync_finished(SyncReport(SyncOutcome.OFFLINE))
        assert status.currentMessage() == ""  # the state says why it stopped


def test_a_sync_that_brings_nothing_for_a_while_says_so(
    qtbot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(status_bar, "QUIET_SYNC_MS", 300)
    status = StatusBar()
    qtbot.addWidget(status)
    status.show()
    status.on_sync_started()
    qtbot.waitUntil(lambda: status.currentMessage().startswith("Still syncing: no page came"))
    assert "may be slow or not answering" in status.currentMessage()
    status.on_sync_progress(SyncProgress("pull", 50, None, "50 items"))
    assert status.currentMessage() == "50 items"
    # Waiting as the server asked is said by the wait itself, not taken for silence.
    status.on_sync_progress(SyncProgress("pull", 1200, None, WAITING, waiting_s=5.0))
    QTest.qWait(900)
    assert status.currentMessage() == SAID
    # Later phases work on this computer and say what they do.
    status.on_sync_progress(SyncProgress("reconcile", 50, 50, "checking for deleted items"))
    QTest.qWait(700)
    assert status.currentMessage() == "Checking for items deleted on the server…"
    status.on_sync_finished(SyncReport(SyncOutcome.CANCELLED))
    QTest.qWait(700)
    assert not status.currentMessage().startswith("Still syncing")
