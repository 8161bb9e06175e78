"""While a sync runs, the list re-reads itself no sooner than ten times the processor time
the last re-read took: at 100,000 items a re-read takes a few hundred milliseconds of the
processor and the interpreter lock that the sync it follows needs too. A re-read that only
waited (for the interpreter lock, the disk) cost the sync nothing and spaces nothing out."""

from __future__ import annotations

import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from support.window import WindowFactory

from memex_desktop.emulator.synthetic import generate_library
from memex_desktop.store import StoreWriter
from memex_desktop.sync import SyncProgress
from memex_desktop.ui import search_controller
from memex_desktop.ui.readers import close_thread_readers
from memex_desktop.ui.search_bar import SearchRequest
from memex_desktop.ui.search_controller import SYNC_REFRESH_COST_TIMES
from memex_desktop.ui.sidebar import ALL_ITEMS

pytestmark = [pytest.mark.gui, pytest.mark.qt_log_ignore("propagateSizeHints")]

READ_S = 0.2


def _pace_after_a_read_of(
    qtbot: Any,
    window_factory: WindowFactory,
    monkeypatch: pytest.MonkeyPatch,
    *,
    processor_s: float,
    waited_s: float,
) -> int:
    """The pause (ms) before the list follows a sync again, after a re-read that used
    ``processor_s`` of the processor and waited ``waited_s`` besides."""
    context = window_factory(library=generate_library(50, seed=3, words_per_entity=5))
    search = context.window.search
    search.sync_refresh_ms = 50
    read = search_controller.local_search

    def timed_read(*args: Any, **kwargs: Any) -> Any:
        time.sleep(waited_s)
        return replace(read(*args, **kwargs), read_cpu_s=processor_s)

    monkeypatch.setattr(search_controller, "local_search", timed_read)
    with qtbot.waitSignal(context.window.search_applied, timeout=15_000):
        search.reread_list()
    context.controller.sync_progress.emit(SyncProgress("pull", 10, None, "10 items"))
    assert search._sync_refresh.isActive()
    return int(search._sync_refresh.interval())


def test_a_slow_re_read_spaces_out_the_next(
    qtbot: Any, window_factory: WindowFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    pause = _pace_after_a_read_of(
        qtbot, window_factory, monkeypatch, processor_s=READ_S, waited_s=0.0
    )
    # At least ten times the read, well past the 50 ms asked for.
    assert pause >= READ_S * 1000 * SYNC_REFRESH_COST_TIMES


def test_a_re_read_that_only_waited_spaces_nothing_out(
    qtbot: Any, window_factory: WindowFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A re-read slowed by the sync's own work took the sync nothing: the list follows it at
    the pace asked for."""
    pause = _pace_after_a_read_of(
        qtbot, window_factory, monkeypatch, processor_s=0.001, waited_s=READ_S
    )
    assert pause < READ_S * 1000


def test_a_read_counts_the_processor_time_it_took_not_its_waits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    read = search_controller._local_search

    def working_then_waiting(*args: Any, **kwargs: Any) -> Any:
        busy_until = time.thread_time() + READ_S
        while time.thread_time() < busy_until:  # work: ranking a long list
            pass
        time.sleep(READ_S)  # a wait: the interpreter lock, the disk
        return read(*args, **kwargs)

    monkeypatch.setattr(search_controller, "_local_search", working_then_waiting)
    cache = tmp_path / "cache.db"
    StoreWriter(cache).close()
    results: list[Any] = []

    def search_on_a_worker() -> None:
        try:
            results.append(search_controller.local_search(cache, 1, SearchRequest(), ALL_ITEMS))
        finally:
            close_thread_readers()

    worker = threading.Thread(target=search_on_a_worker)
    worker.start()
    worker.join()
    assert READ_S <= results[0].read_cpu_s < 2 * READ_S
