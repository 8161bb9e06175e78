"""The real MainWindow against the emulator: sync, search, read, follow links, save by drop."""

from __future__ import annotations

import time
from typing import Any

import pytest
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDropEvent
from support.emulator import EmulatorFactory
from support.signals import Emitted
from support.window import WindowFactory

from memex_desktop.app import AppContext
from memex_desktop.emulator import RunningEmulator
from memex_desktop.emulator.synthetic import generate_library
from memex_desktop.sync import ConnectionState, SyncOutcome
from memex_desktop.ui.drops import URI_LIST

pytestmark = [pytest.mark.e2e, pytest.mark.qt_log_ignore("propagateSizeHints")]


@pytest.fixture
def library() -> dict[str, Any]:
    """A small synthetic library with every content type."""
    return generate_library(150, seed=7, words_per_entity=120)


@pytest.fixture
def server(emulator_factory: EmulatorFactory, library: dict[str, Any]) -> RunningEmulator:
    """The emulator on a free loopback port."""
    return emulator_factory(library=library, processing_delay_s=0.3)


@pytest.fixture
def app_context(window_factory: WindowFactory, server: Any) -> AppContext:
    """The window built by the app's own factory, with a fast-failing client."""
    return window_factory(server=server)


def _sync(qtbot: Any, context: AppContext) -> Any:
    """Run one sync and return its report."""
    blocker = Emitted(context.controller.sync_finished)
    assert context.controller.sync_now()
    blocker.wait(qtbot, 60_000)
    return blocker.args[0]


def _drop(window: Any, urls: list[str]) -> None:
    """Drop a text/uri-list on the window as a browser would."""
    mime = QMimeData()
    mime.setData(URI_LIST, "\r\n".join(urls).encode())
    event = QDropEvent(
        QPointF(400, 300),
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    window.dropEvent(event)


def _server_urls(server: Any) -> list[str]:
    """The URL of every entity the emulator holds."""
    urls = []
    for entity_id in server.state.entity_ids():
        data = server.state.entity(entity_id) or {}
        if data.get("url"):
            urls.append(str(data["url"]))
    return urls


def test_sync_search_read_link_and_save_by_drop(
    qtbot: Any, app_context: AppContext, server: Any, library: dict[str, Any]
) -> None:
    window = app_context.window
    report = _sync(qtbot, app_context)
    assert report.outcome is SyncOutcome.OK
    assert report.pulled > 0

    # Type a query: a distinctive word of a web page's title finds that page.
    web = next(e for e in library["results"] if e["type"] == "web" and e.get("title"))
    word = max(web["title"].split(), key=len)
    qtbot.keyClicks(window.search_bar.field, word)
    qtbot.waitUntil(lambda: window.results_model.query == word, timeout=10_000)
    assert web["id"] in window.results_model.ids()

    # Open a result.
    row = window.results_model.row_of(web["id"])
    assert row is not None
    opened = Emitted(window.entity_opened)
    window.results_view.setCurrentIndex(window.results_model.index(row, 0))
    opened.wait(qtbot, 10_000)
    assert opened.args == [web["id"]]

    # Follow a memex:// link from a note to what it is attached to.
    note = next(e for e in library["results"] if e["type"] == "annotation")
    target = note["reference_content_ids"][0]
    _emitted = Emitted(window.entity_opened)
    window.open_entity(note["id"])
    _emitted.wait(qtbot, 10_000)
    followed = Emitted(window.entity_opened)
    window.reader_pane.browser.anchorClicked.emit(QUrl(f"memex://entity/{target}"))
    followed.wait(qtbot, 10_000)
    assert followed.args == [target]
    back = Emitted(window.entity_opened)
    window.actions_by_key["go_back"].trigger()
    back.wait(qtbot, 10_000)
    assert back.args == [note["id"]]

    # Drop four links: two new, one already in the library, one javascript:.
    new = ["https://example.org/new-article-one", "https://example.net/new-article-two"]
    existing = web["url"]
    queued = Emitted(window.saves_queued)
    _drop(window, [*new, existing, "javascript:alert(1)"])
    queued.wait(qtbot, 10_000)
    results, refused = queued.args
    assert sorted(r.status for r in results) == ["already_saved", "queued", "queued"]
    assert len(refused) == 1
    assert "1 already in your library" in window.toast.text()
    assert window.reader_pane.current_entity_id == web["id"]

    # Offline: the server goes away, one more drop is queued, the sync says offline.
    qtbot.waitUntil(lambda: not app_context.controller.syncing, timeout=30_000)
    server.stop()
    offline_url = "https://example.com/saved-while-offline"
    queued_offline = Emitted(window.saves_queued)
    _drop(window, [offline_url])
    queued_offline.wait(qtbot, 10_000)
    assert [r.status for r in queued_offline.args[0]] == ["queued"]
    qtbot.waitUntil(lambda: app_context.controller.state is ConnectionState.OFFLINE, timeout=30_000)
    qtbot.waitUntil(lambda: not app_context.controller.syncing, timeout=30_000)
    # The server stopped: its host refuses the connection, which is said as it is.
    assert window.status.state_label.text() == "127.0.0.1 refused the connection; saves wait"
    # The same link again: it is waiting, not yet in the library.
    again = Emitted(window.saves_queued)
    _drop(window, [offline_url])
    again.wait(qtbot, 10_000)
    assert [r.status for r in again.args[0]] == ["already_queued"]
    assert "1 already waiting to be saved" in window.toast.text()
    assert "library" not in window.toast.text()

    # Back online: the three new saves arrive on the server exactly once.
    server.start()
    deadline = time.monotonic() + 60
    wanted = [*new, offline_url]
    while time.monotonic() < deadline:
        urls = _server_urls(server)
        if all(urls.count(url) >= 1 for url in wanted):
            break
        if not app_context.controller.syncing:
            app_context.controller.sync_now()
        qtbot.wait(100)
    urls = _server_urls(server)
    assert [urls.count(url) for url in wanted] == [1, 1, 1]
    assert urls.count(existing) == 1
    qtbot.waitUntil(lambda: app_context.controller.state is ConnectionState.ONLINE, timeout=30_000)
