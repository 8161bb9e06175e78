"""A SaveController wired as the window wires it (toast, outbox pane, sync controller), on
a real cache and outbox in a test's folder, with no Memex account: nothing is sent.

    @pytest.fixture
    def saving(qtbot, tmp_path):
        with saving_controller(qtbot, tmp_path) as made:
            yield made
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QWidget

from memex_desktop.paths import cache_db_path, outbox_db_path
from memex_desktop.services import sync_services
from memex_desktop.settings import Settings
from memex_desktop.store import StoreWriter
from memex_desktop.ui.outbox_pane import OutboxPane
from memex_desktop.ui.save_controller import SaveController
from memex_desktop.ui.sync_controller import SyncController
from memex_desktop.ui.tasks import TaskRunner
from memex_desktop.ui.toast import Toast

SHUTDOWN_MS = 10_000


@dataclass
class Saving:
    """A SaveController with its toast, outbox pane and outbox file (no Memex account)."""

    saves: SaveController
    toast: Toast
    pane: OutboxPane
    runner: TaskRunner
    outbox_path: Path
    writer: StoreWriter


@contextmanager
def saving_controller(qtbot: Any, folder: Path) -> Iterator[Saving]:
    """A SaveController on the cache and outbox of ``folder``; its sync, tasks and writer are
    shut down after (every task must finish)."""
    cache_path, outbox_path = cache_db_path(folder), outbox_db_path(folder)
    writer = StoreWriter(cache_path)
    runner = TaskRunner(max_threads=2)
    services = sync_services(Settings(), None, writer, folder)
    sync = SyncController(services, runner, interval_minutes=0)
    window = QWidget()
    qtbot.addWidget(window)
    toast, pane = Toast(window), OutboxPane(window)
    saves = SaveController(
        runner=runner,
        sync=sync,
        cache_path=cache_path,
        outbox_path=outbox_path,
        toast=toast,
        outbox_pane=pane,
    )
    yield Saving(saves, toast, pane, runner, outbox_path, writer)
    sync.shutdown()
    assert runner.shutdown(SHUTDOWN_MS)
    writer.close()
