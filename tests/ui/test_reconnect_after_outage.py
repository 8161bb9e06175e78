"""After an outage the window reconnects by itself: backoff, a resumed sync, "Online" again.

The window runs against the emulator on loopback, which is stopped and started again on the
same port. The waits between attempts are shortened to tenths of a second; what is checked is
that they happen on their own, grow, and stop for a refusal that only the person can fix.
"""

from __future__ import annotations

from typing import Any

import pytest
from support.emulator import EmulatorFactory
from support.window import WindowFactory

from memex_desktop.api.client import MemexClient
from memex_desktop.app import AppContext
from memex_desktop.emulator import RunningEmulator
from memex_desktop.emulator.synthetic import generate_library
from memex_desktop.errors import ConnectionState
from memex_desktop.settings import Settings
from memex_desktop.sync import SyncOutcome

pytestmark = [pytest.mark.gui, pytest.mark.qt_log_ignore("propagateSizeHints")]

LIBRARY_SIZE = 600
PAGE_SIZE = 50
RECONNECT_DELAYS_MS = (200, 400, 800)
# The states a later attempt can fix by itself (the server gone, or failing).
RECONNECTING_STATES = (ConnectionState.OFFLINE, ConnectionState.SERVER_DOWN)


@pytest.fixture
def server(emulator_factory: EmulatorFactory) -> RunningEmulator:
    """An emulator holding 600 items."""
    return emulator_factory(library=generate_library(LIBRARY_SIZE, seed=5, words_per_entity=20))


def build(window_factory: WindowFactory, server: RunningEmulator) -> AppContext:
    """The window on a fresh data folder, trying again after tenths of a second."""
    context = window_factory(server=server, settings=Settings(page_size=PAGE_SIZE))
    context.controller.reconnect_delays_ms = RECONNECT_DELAYS_MS
    return context


def finished_reports(context: AppContext) -> list[Any]:
    """Every SyncReport the controller announces from now on."""
    reports: list[Any] = []
    context.controller.sync_finished.connect(reports.append)
    return reports


def test_a_first_sync_with_the_server_down_starts_by_itself_once_it_is_back(
    qtbot: Any, window_factory: WindowFactory, server: RunningEmulator
) -> None:
    server.stop()
    context = build(window_factory, server)
    controller, status = context.controller, context.window.status
    reports = finished_reports(context)
    assert controller.sync_now()
    qtbot.waitUntil(lambda: len(reports) >= 3, timeout=20_000)  # tried again, twice, alone
    assert all(report.state in RECONNECTING_STATES for report in reports)
    assert controller.state in RECONNECTING_STATES
    assert status.action_button.text()  # Retry now is still offered meanwhile
    waits = controller.reconnect_in_ms
    assert waits is not None
    assert waits <= RECONNECT_DELAYS_MS[-1] * 1.1  # a coarse timer may fire 5 % late

    server.start()
    qtbot.waitUntil(lambda: controller.state is ConnectionState.ONLINE, timeout=20_000)
    assert status.state_label.text().startswith("Online")
    qtbot.waitUntil(lambda: bool(reports) and reports[-1].ok, timeout=60_000)
    model = context.window.results_model
    qtbot.waitUntil(lambda: model.rowCount() == LIBRARY_SIZE, timeout=20_000)
    assert controller.reconnect_in_ms is None  # online: nothing more to try


def test_a_sync_cut_by_an_outage_resumes_and_says_online_before_it_ends(
    qtbot: Any, window_factory: WindowFactory, server: RunningEmulator
) -> None:
    context = build(window_factory, server)
    controller, status = context.controller, context.window.status
    reports = finished_reports(context)
    server.faults.latency(0.2)  # pages come slowly enough to stop the server between them
    assert controller.sync_now()
    qtbot.waitUntil(lambda: len(context.reader.all_ids(limit=PAGE_SIZE + 1)) > PAGE_SIZE)
    server.stop()
    qtbot.waitUntil(lambda: bool(reports), timeout=30_000)
    assert reports[0].state in RECONNECTING_STATES
    qtbot.waitUntil(lambda: status.state_label.text() != "Online", timeout=5_000)
    held = len(context.reader.all_ids(limit=LIBRARY_SIZE + 1))
    assert held < LIBRARY_SIZE

    server.faults.latency(0.5)  # the resumed sync is still running when the state changes
    server.start()
    qtbot.waitUntil(lambda: controller.state is ConnectionState.ONLINE, timeout=20_000)
    assert controller.syncing, "Online came only once the whole resumed sync had ended"
    assert status.state_label.text().startswith("Online")
    server.faults.clear()
    qtbot.waitUntil(lambda: bool(reports) and reports[-1].ok, timeout=60_000)
    assert len(context.reader.all_ids(limit=LIBRARY_SIZE + 1)) == LIBRARY_SIZE


def test_retry_now_tries_at_once_and_the_waits_go_on_growing(
    qtbot: Any, window_factory: WindowFactory, server: RunningEmulator
) -> None:
    server.stop()
    context = build(window_factory, server)
    controller, status = context.controller, context.window.status
    controller.reconnect_delays_ms = (600_000, 1_200_000)  # attempts by itself are far away
    reports = finished_reports(context)
    assert controller.sync_now()
    qtbot.waitUntil(lambda: bool(reports), timeout=20_000)
    assert controller._follow_up.isActive(), "no attempt of its own is due"
    with qtbot.waitSignal(controller.sync_started, timeout=1_000):
        status.action_button.click()  # Retry now
    qtbot.waitUntil(lambda: len(reports) == 2, timeout=20_000)
    assert controller._follow_up.remainingTime() > 600_000  # the second wait is longer
    server.start()
    with qtbot.waitSignal(controller.sync_started, timeout=1_000):
        status.action_button.click()
    qtbot.waitUntil(lambda: len(reports) == 3, timeout=60_000)
    assert reports[-1].ok
    assert controller.state is ConnectionState.ONLINE
    assert controller.reconnect_in_ms is None


def test_a_refused_key_is_not_tried_again_by_itself_though_a_save_waits(
    qtbot: Any, window_factory: WindowFactory, server: RunningEmulator
) -> None:
    client = MemexClient(server.base_url, api_key="a-revoked-key", max_retries=0)
    context = window_factory(client=client, settings=Settings(page_size=PAGE_SIZE))
    controller = context.controller
    controller.reconnect_delays_ms = RECONNECT_DELAYS_MS
    reports = finished_reports(context)
    context.window.saves.save_urls(["https://example.com/kept-for-later"])  # starts a sync
    qtbot.waitUntil(lambda: bool(reports), timeout=20_000)
    assert reports[0].outcome is SyncOutcome.AUTH_REJECTED
    assert controller.counts.pending == 1
    assert not controller._follow_up.isActive(), "a sync is due that only repeats the refusal"
    assert controller.reconnect_in_ms is None
    with qtbot.assertNotEmitted(controller.sync_started, wait=4 * RECONNECT_DELAYS_MS[-1]):
        pass
    assert len(reports) == 1
    client.close()
