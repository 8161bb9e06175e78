"""The sync controller announces one connection state, worded for how the person signed in."""

from __future__ import annotations

import itertools
import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.signals import Emitted

from memex_desktop.api.client import MemexClient
from memex_desktop.errors import ConnectionState, Credential, StateWords
from memex_desktop.paths import cache_db_path, outbox_db_path
from memex_desktop.services import sync_services
from memex_desktop.settings import Settings
from memex_desktop.store import Outbox, StoreWriter
from memex_desktop.sync import SyncOutcome
from memex_desktop.ui.status_bar import StatusBar
from memex_desktop.ui.sync_controller import OUTBOX_RELIST_MS, SyncController
from memex_desktop.ui.tasks import TaskRunner

pytestmark = pytest.mark.gui

SAVES = 40


@pytest.fixture
def make_controller(tmp_path: Path) -> Iterator[Any]:
    """``make(client, credential)``: a controller over a fresh data folder."""
    made: list[tuple[SyncController, TaskRunner, StoreWriter]] = []

    def make(client: MemexClient | None, credential: Credential | None) -> SyncController:
        writer = StoreWriter(cache_db_path(tmp_path))
        runner = TaskRunner(max_threads=2)
        services = sync_services(Settings(), client, writer, tmp_path, credential=credential)
        controller = SyncController(services, runner, interval_minutes=0)
        made.append((controller, runner, writer))
        return controller

    yield make
    for controller, runner, writer in made:
        controller.shutdown()
        assert runner.shutdown(10_000)
        writer.close()
        if controller.services.client is not None:
            controller.services.client.close()


def test_a_refused_sign_in_reaches_the_status_bar_in_sign_in_words(
    qtbot: Any, emulator_factory: Any, make_controller: Any
) -> None:
    server = emulator_factory()
    client = MemexClient(server.base_url, bearer_token="a-revoked-token", max_retries=0)
    controller = make_controller(client, Credential("sign_in"))
    status = StatusBar()
    qtbot.addWidget(status)
    controller.state_changed.connect(status.set_state)
    announced = Emitted(controller.state_changed)
    finished = Emitted(controller.sync_finished)
    assert controller.sync_now()
    finished.wait(qtbot, 60_000)
    assert finished.args[0].outcome is SyncOutcome.AUTH_REJECTED
    state, words = announced.args
    assert state is ConnectionState.AUTH_REJECTED is controller.state
    assert isinstance(words, StateWords)
    assert status.state_label.text() == "Sign-in needed: Memex refused the sign-in"
    assert status.action_button.text() == "Sign in…"
    assert "API key" not in status.state_label.toolTip()


def test_a_failure_on_this_computer_keeps_the_connection_state_and_says_why(
    qtbot: Any, make_controller: Any, tmp_path: Path
) -> None:
    client = MemexClient("http://127.0.0.1:9", api_key="unused-key", max_retries=0)
    controller = make_controller(client, Credential("api_key"))
    # A newer version wrote the outbox, which is never opened to write: each run fails
    # before it reaches the server.
    newer = sqlite3.connect(outbox_db_path(tmp_path))
    newer.execute("PRAGMA user_version = 999")
    newer.close()
    announced = Emitted(controller.state_changed)
    finished = Emitted(controller.sync_finished)
    assert controller.sync_now()
    finished.wait(qtbot, 30_000)
    report = finished.args[0]
    assert report.outcome is SyncOutcome.FAILED
    assert report.state is None
    assert controller.state is ConnectionState.ONLINE  # nothing was learnt of the server
    announced.wait(qtbot, 5_000)
    assert "newer" in announced.args[1].message.text
    failed = Emitted(controller.remote_failed)
    assert controller.remote_search("garden", {}) == 1
    failed.wait(qtbot, 30_000)
    request, message = failed.args
    assert request == 1
    assert "newer" in message.text
    assert controller.state is ConnectionState.ONLINE


def test_a_sync_cancelled_before_it_started_still_ends_as_cancelled(
    qtbot: Any, make_controller: Any
) -> None:
    client = MemexClient("http://127.0.0.1:9", api_key="unused-key", max_retries=0)
    controller = make_controller(client, Credential("api_key"))
    runner = controller._runner
    # Every worker is busy, so the sync and the remote search wait in the queue.
    gate = threading.Event()
    blockers = [runner.run(gate.wait, 10) for _ in range(runner._pool.maxThreadCount())]
    finished = Emitted(controller.sync_finished)
    assert controller.sync_now()
    assert controller.remote_search("garden", {}) == 1
    controller.shutdown()  # cancels both before they start
    gate.set()
    assert all(blocker.wait(10) for blocker in blockers)
    finished.wait(qtbot, 10_000)
    assert [call[0].outcome for call in finished.calls] == [SyncOutcome.CANCELLED]
    assert not controller.syncing
    qtbot.waitUntil(lambda: not controller._remote_tasks, timeout=10_000)


def test_saves_sent_in_a_burst_are_announced_at_a_pace(
    qtbot: Any, emulator_factory: Any, make_controller: Any, tmp_path: Path
) -> None:
    """Each save the sync sends is heard, but the outbox is not listed again for every one
    of a long queue: at once, then at most every OUTBOX_RELIST_MS, and once after the last."""
    server = emulator_factory()
    client = MemexClient(server.base_url, api_key=server.api_key, max_retries=0)
    controller = make_controller(client, Credential("api_key"))
    with Outbox(outbox_db_path(tmp_path)) as outbox:
        for index in range(SAVES):
            outbox.enqueue_url(f"https://burst.example/{index}")
    sends: list[float] = []
    controller.sync_progress.connect(
        lambda progress: sends.append(time.monotonic()) if progress.phase == "outbox" else None
    )
    announced: list[float] = []
    controller.outbox_progressed.connect(lambda: announced.append(time.monotonic()))
    finished = Emitted(controller.sync_finished)
    assert controller.sync_now()
    assert finished.wait(qtbot, 60_000)[0].sent == SAVES
    assert len(sends) == SAVES
    qtbot.waitUntil(lambda: announced[-1] >= sends[-1], timeout=5_000)  # the last is heard
    assert announced[0] <= sends[0] + 0.5  # the first at once
    assert len(announced) < len(sends)
    spans = [later - earlier for earlier, later in itertools.pairwise(announced)]
    assert all(span >= OUTBOX_RELIST_MS / 1000 * 0.9 for span in spans), spans
