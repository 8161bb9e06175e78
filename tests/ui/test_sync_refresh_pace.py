"""While a sync runs, the list re-reads itself no sooner than ten times the processor time
the last re-read took: at 100,000 items a re-read takes a few hundred milliseconds of the
processor and the interpreter lock that the sync it follows needs too. A re-read that only
waited (for the interpreter lock, the disk) cost the sync nothing and spaces nothing out."""

from __future__ import annotations

import time
from typing import Any

import pytest
from support.window import WindowFactory

from memex_desktop.emulator.synthetic import generate_library
from memex_desktop.sync import SyncProgress
from memex_desktop.ui import search_controller
from memex_desktop.ui.search_controller import SYNC_REFRESH_COST_TIMES

pytestmark = [pytest.mark.gui, pytest.mark.qt_log_ignore("propagateSizeHints")]

READ_S = 0.2


def test_a_slow_re_read_spaces_out_the_next(
    qtbot: Any, window_factory: WindowFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    context = window_factory(library=generate_library(50, seed=3, words_per_entity=5))
    search = context.window.search
    search.sync_refresh_ms = 50
    read = search_controller._local_search

    def slow_read(*args: Any, **kwargs: Any) -> Any:
        busy_until = time.thread_time() + READ_S
        while time.thread_time() < busy_until:  # a list of 100,000 items read
            pass
        return read(*args, **kwargs)

    monkeypatch.setattr(search_controller, "_local_search", slow_read)
    with qtbot.waitSignal(context.window.search_applied, timeout=5_000):
        search.reread_list()
    context.controller.sync_progress.emit(SyncProgress("pull", 10, None, "10 items"))
    # The timer waits out at least ten times the read, well past the 50 ms asked for.
    assert search._sync_refresh.isActive()
    assert search._sync_refresh.interval() >= READ_S * 1000 * SYNC_REFRESH_COST_TIMES


def test_a_re_read_that_only_waited_spaces_nothing_out(
    qtbot: Any, window_factory: WindowFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A re-read slowed by the sync's own work (waiting for the interpreter lock, for the
    disk) took the sync nothing: the list follows it at the pace asked for."""
    context = window_factory(library=generate_library(50, seed=3, words_per_entity=5))
    search = context.window.search
    search.sync_refresh_ms = 50
    read = search_controller._local_search

    def waiting_read(*args: Any, **kwargs: Any) -> Any:
        time.sleep(READ_S)  # the lock and the disk busy with the sync
        return read(*args, **kwargs)

    monkeypatch.setattr(search_controller, "_local_search", waiting_read)
    with qtbot.waitSignal(context.window.search_applied, timeout=5_000):
        search.reread_list()
    context.controller.sync_progress.emit(SyncProgress("pull", 10, None, "10 items"))
    assert search._sync_refresh.isActive()
    assert search._sync_refresh.interval() < READ_S * 1000
