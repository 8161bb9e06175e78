"""Shutting the app down stops every timer; late timers and late results start nothing."""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QCoreApplication, QTimer
from support.window import WindowFactory, seeded_cache

from memex_desktop import paths
from memex_desktop.api.client import MemexClient
from memex_desktop.app import AppContext, build_main_window
from memex_desktop.emulator.synthetic import generate_library
from memex_desktop.store import ChangeSet, Outbox
from memex_desktop.sync import SyncOutcome, SyncReport
from memex_desktop.ui.search_bar import SearchRequest
from memex_desktop.ui.sync_controller import OutboxCounts, SyncResult
from memex_desktop.ui.tasks import TaskRunner

pytestmark = [pytest.mark.gui, pytest.mark.qt_log_ignore("propagateSizeHints")]


@pytest.fixture
def context(window_factory: WindowFactory) -> AppContext:
    """A window with a client (to a port nobody listens on: nothing here reaches a server)."""
    client = MemexClient("http://127.0.0.1:9", api_key="unused-key", max_retries=0)
    return window_factory(client=client)


def _active_timers(context: AppContext) -> list[QTimer]:
    """The timers of the window and the sync controller that would still fire."""
    timers = [*context.window.findChildren(QTimer), *context.controller.findChildren(QTimer)]
    return [t for t in timers if t.isActive()]


def test_shutdown_stops_every_timer(context: AppContext) -> None:
    window = context.window
    context.controller.set_interval(1)
    context.controller._follow_up.start(4_000)
    window.search_bar.field.setText("pending debounce")
    window.toast.show_message("a notice with its own timer")
    assert len(_active_timers(context)) >= 4
    context.shutdown()
    assert _active_timers(context) == []
    assert not window.isVisible()


def test_late_timers_and_results_after_shutdown_start_nothing(context: AppContext) -> None:
    controller = context.controller
    context.shutdown()
    assert context.runner.closed
    # What a periodic timer, a follow-up, a late drop or a late sync result would call.
    controller._on_timer_timeout()
    assert controller.sync_now(resume_paused=True) is False
    assert controller.remote_search("late", {}) == 0
    context.window.run_search(SearchRequest("late"))
    controller.set_interval(1)
    report = SyncReport(SyncOutcome.OK, pulled=0, changes=ChangeSet.empty())
    controller._on_sync_finished(SyncResult(report, OutboxCounts(0, 2, 0)))
    QCoreApplication.processEvents()
    assert not controller.syncing
    assert _active_timers(context) == []
    assert context.runner.active_count() == 0


def _busy_until_cancelled(started: threading.Event, *, cancel: threading.Event) -> None:
    """A long background job (a sync, a render) that stops when cancelled."""
    started.set()
    cancel.wait(30)


def test_a_note_saved_while_the_window_closes_is_not_lost(context: AppContext) -> None:
    # Every worker is busy, so the note's outbox write is still queued when the window closes.
    runner = context.runner
    threads = runner._pool.maxThreadCount()
    busy = [threading.Event() for _ in range(threads)]
    for started in busy:
        runner.run(_busy_until_cancelled, started, cancel=True)
    assert all(started.wait(10) for started in busy)
    pane = context.window.thread_pane
    assert pane is not None
    pane.show_entity("an-item")
    editor = pane.open_editor("an-item")
    editor.editor.setPlainText("Written just before quitting")
    editor.save()
    context.shutdown()
    outbox = Outbox(paths.outbox_db_path(context.data_dir))
    try:
        notes = [op for op in outbox.list() if op.kind == "save_entity"]
    finally:
        outbox.close()
    assert len(notes) == 1
    assert "Written just before quitting" in str(notes[0].payload)


def test_shutdown_drops_queued_work_but_runs_durable_writes(qtbot: Any) -> None:
    runner = TaskRunner(max_threads=1)
    started = threading.Event()
    done: list[str] = []
    runner.run(_busy_until_cancelled, started, cancel=True)
    assert started.wait(10)
    runner.run(done.append, "ordinary")
    runner.run(done.append, "durable", durable=True)
    assert runner.shutdown()
    assert done == ["durable"]


def test_quitting_before_the_first_rows_are_painted_reads_nothing_from_the_closed_cache(
    qtbot: Any, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # Quitting at once (Ctrl+Q as the window appears, the session ending): the list's first
    # paint is still due when the cache closes, and must not try to read its rows.
    seeded_cache(tmp_path, generate_library(40, seed=3, words_per_entity=8))
    context = build_main_window(data_dir=tmp_path, sync_on_start=False)
    qtbot.addWidget(context.window)
    qtbot.waitUntil(lambda: context.window.results_model.rowCount() == 40)  # not painted yet
    context.window.show()
    with caplog.at_level(logging.WARNING):
        context.shutdown()
        # What a paint still due in the event loop asks of the list for each row it draws.
        for row in range(5):
            context.window.results_model.display(row)
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []
