"""A sync waiting for a server that asked it to slow down says so for as long as it waits;
other progress lines pass after three seconds."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtTest import QTest

from memex_desktop.sync.types import SyncProgress
from memex_desktop.ui.status_bar import StatusBar

pytestmark = [pytest.mark.gui, pytest.mark.qt_log_ignore("propagateSizeHints")]

WAITING = "1,200 items so far; the server asked to slow down, asking again in 5 s"


def test_a_wait_is_said_for_as_long_as_it_lasts(qtbot: Any) -> None:
    waiting, passing = StatusBar(), StatusBar()
    for status in (waiting, passing):
        qtbot.addWidget(status)
        status.show()
        status.on_sync_started()
    waiting.on_sync_progress(SyncProgress("pull", 1200, None, WAITING, waiting_s=5.0))
    passing.on_sync_progress(SyncProgress("pull", 1200, None, "1,200 items"))
    QTest.qWait(3_400)
    assert waiting.currentMessage() == WAITING
    assert passing.currentMessage() == ""
