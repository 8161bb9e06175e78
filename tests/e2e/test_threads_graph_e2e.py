"""Threads and the reference graph in the real window, against the emulator's demo library.

Open an item, see its thread, follow a reference card to another item (the graph re-centres,
the reader lists what references it), write a reply while the server is down, reconnect, sync,
and find the reply on the server once and in the thread once, under its server id, with the
item picked with ``[[`` in its ``reference_content_ids``.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from PySide6.QtCore import Qt, QUrl
from PySide6.QtTest import QAbstractItemModelTester
from support.secrets import TEST_API_KEY
from support.signals import Emitted
from support.window import WindowFactory

from memex_desktop import paths
from memex_desktop.api.client import MemexClient
from memex_desktop.app import AppContext
from memex_desktop.sync import SyncOutcome
from memex_desktop.ui.sidebar import ALL_ITEMS, Scope
from memex_desktop.ui.thread_pane import PROCESSING, ThreadPane

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.qt_log_ignore("propagateSizeHints", "This plugin does not support"),
]

ITEM = "web-local-first-five-lessons"
NOTE = "note-lesson-two-outbox"
REPLIES = ["note-lesson-two-outbox-r1", "note-lesson-two-outbox-r2"]
CITED = "web-outbox-pattern"
PICKED = "youtube-local-first-talk"


@pytest.fixture
def demo_library() -> dict[str, Any]:
    """The bundled demo library (read at test time from the package's resources)."""
    library = json.loads(paths.resource_path("demo", "library.json").read_text(encoding="utf-8"))
    assert isinstance(library, dict)
    return library


@pytest.fixture
def server(emulator_factory: Any, demo_library: dict[str, Any]) -> Any:
    """The emulator serving the demo library."""
    return emulator_factory(library=demo_library)


@pytest.fixture
def app_context(window_factory: WindowFactory, server: Any) -> AppContext:
    """The window from the app's own factory, with a client that fails fast when offline."""
    return window_factory(server=server)


def _sync(qtbot: Any, context: AppContext) -> Any:
    """Wait for any running sync, run one more and return its report."""
    qtbot.waitUntil(lambda: not context.controller.syncing, timeout=60_000)
    finished = Emitted(context.controller.sync_finished)
    assert context.controller.sync_now()
    return finished.wait(qtbot, 60_000)[0]


def _open(qtbot: Any, context: AppContext, entity_id: str) -> None:
    """Open an entity in the reader and wait until its thread and graph follow."""
    window = context.window
    opened = Emitted(window.entity_opened)
    window.open_entity(entity_id)
    assert opened.wait(qtbot) == [entity_id]


def _outline(pane: ThreadPane) -> list[tuple[int, str, bool]]:
    return [(depth, entry.id, entry.pending) for depth, entry in pane.shown()]


def _server_notes(server: Any, external_id: str) -> list[dict[str, Any]]:
    """Every entity the emulator holds with this client external_id."""
    found = []
    for entity_id in server.state.entity_ids():
        data = server.state.entity(entity_id) or {}
        if data.get("external_id") == external_id:
            found.append(data)
    return found


def test_thread_reference_graph_and_offline_reply(
    qtbot: Any, app_context: AppContext, server: Any
) -> None:
    window = app_context.window
    pane = window.thread_pane
    graph = window.graph_pane
    assert pane is not None
    assert graph is not None
    assert window.thread_dock is not None
    assert window.thread_dock.widget() is pane
    assert _sync(qtbot, app_context).outcome is SyncOutcome.OK

    # Open an item: its thread shows, nested and in order; the graph centres on it.
    _open(qtbot, app_context, ITEM)
    qtbot.waitUntil(lambda: graph.center == ITEM and not graph.is_laying_out(), timeout=10_000)
    thread = [(0, NOTE, False), (1, REPLIES[0], False), (2, REPLIES[1], False)]
    qtbot.waitUntil(lambda: _outline(pane) == thread, timeout=10_000)
    assert pane.add_button.isEnabled()

    # Follow the reference card of the first note: the reader, history and graph follow.
    card = next(card for card in pane.cards if card.entry.id == NOTE)
    assert f"memex://entity/{CITED}" in card.body.toHtml()
    opened = Emitted(window.entity_opened)
    card.body.anchorClicked.emit(QUrl(f"memex://entity/{CITED}"))
    assert opened.wait(qtbot) == [CITED]
    assert window.reader_pane.current_entity_id == CITED
    qtbot.waitUntil(lambda: graph.center == CITED and not graph.is_laying_out(), timeout=10_000)
    assert NOTE in graph.node_positions()
    # The cited item's reader lists the note under "Referenced by".
    document = window.reader_pane.current_document
    assert document is not None
    assert "Referenced by" in document.toPlainText()
    assert f'href="memex://entity/{NOTE}"' in document.toHtml()
    # A backlink in the reader opens the note; a click on a graph node opens that item.
    opened = Emitted(window.entity_opened)
    window.reader_pane.browser.anchorClicked.emit(QUrl(f"memex://entity/{NOTE}"))
    assert opened.wait(qtbot) == [NOTE]
    qtbot.waitUntil(lambda: graph.center == NOTE and not graph.is_laying_out(), timeout=10_000)
    assert REPLIES[0] in graph.node_positions()
    opened = Emitted(window.entity_opened)
    graph.view.node_clicked.emit(REPLIES[0])
    assert opened.wait(qtbot) == [REPLIES[0]]
    qtbot.waitUntil(lambda: graph.center == REPLIES[0], timeout=10_000)
    for previous in (NOTE, CITED, ITEM):
        back = Emitted(window.entity_opened)
        window.actions_by_key["go_back"].trigger()
        assert back.wait(qtbot) == [previous]
    qtbot.waitUntil(lambda: graph.center == ITEM, timeout=10_000)

    # The server goes away; a reply to the last reply is written, picking an item with [[.
    server.stop()
    editor = pane.open_editor(REPLIES[1])
    text = editor.editor
    text.setFocus()
    qtbot.keyClicks(text, "Same identity rule as in [[Network Is an Optimisation")
    popup = text.completer.popup()
    qtbot.waitUntil(popup.isVisible, timeout=5000)
    labels = text.completions.stringList()
    wanted = "The Network Is an Optimisation: Building Local-First Apps (Video)"
    assert wanted in labels
    for _step in range(labels.index(wanted)):
        qtbot.keyClick(popup, Qt.Key.Key_Down)
    picked = Emitted(text.reference_picked)
    qtbot.keyClick(text, Qt.Key.Key_Return)
    assert picked.wait(qtbot) == [PICKED]
    qtbot.keyClicks(text, "see the talk.")
    external_id = editor.external_id
    queued = Emitted(pane.note_queued)
    offline = Emitted(app_context.controller.sync_finished)
    editor.save_button.click()
    queued.wait(qtbot)
    pending_id = f"pending:{external_id}"
    qtbot.waitUntil(lambda: (3, pending_id, True) in _outline(pane), timeout=10_000)
    card = next(card for card in pane.cards if card.entry.id == pending_id)
    assert card.badge.isVisibleTo(card)
    # Queuing asked for a sync; with the server down it reports offline and keeps the reply.
    assert offline.wait(qtbot, 60_000)[0].outcome is SyncOutcome.OFFLINE
    assert (3, pending_id, True) in _outline(pane)
    assert _server_notes(server, external_id) == []

    # Reconnect and sync: the reply reaches the server once, and shows once with its id.
    server.start()
    assert _sync(qtbot, app_context).outcome is SyncOutcome.OK
    notes = _server_notes(server, external_id)
    assert len(notes) == 1
    server_id = notes[0]["id"]
    assert notes[0]["reference_content_ids"] == [REPLIES[1], PICKED]
    assert notes[0]["text"] == (
        "Same identity rule as in The Network Is an Optimisation: Building Local-First Apps "
        "see the talk."
    )
    qtbot.waitUntil(lambda: (3, server_id, False) in _outline(pane), timeout=10_000)
    ids = [entry_id for _depth, entry_id, _pending in _outline(pane)]
    assert ids.count(server_id) == 1
    assert pending_id not in ids
    # Sent: nothing says "Sending…"; the server may still be processing the reply.
    assert {card.badge.text() for card in pane.cards if card.badge.isVisibleTo(card)} <= {
        PROCESSING
    }

    # Another sync changes nothing: still exactly one copy on the server and in the thread,
    # now processed (no marker left).
    assert _sync(qtbot, app_context).outcome is SyncOutcome.OK
    assert len(_server_notes(server, external_id)) == 1
    ids = [entry_id for _depth, entry_id, _pending in _outline(pane)]
    assert ids.count(server_id) == 1
    qtbot.waitUntil(
        lambda: not any(card.badge.isVisibleTo(card) for card in pane.cards), timeout=10_000
    )


def _write(qtbot: Any, pane: ThreadPane, target: str, text: str) -> str:
    """Write and queue a note on (or reply to) ``target``; returns its pending id."""
    editor = pane.open_editor(target)
    pending_id = f"pending:{editor.external_id}"
    qtbot.keyClicks(editor.editor, text)
    queued = Emitted(pane.note_queued)
    editor.save_button.click()
    queued.wait(qtbot)
    return pending_id


def test_reply_to_a_pending_reply_names_its_parent_by_server_id(
    qtbot: Any, app_context: AppContext, server: Any
) -> None:
    window = app_context.window
    pane = window.thread_pane
    assert pane is not None
    assert _sync(qtbot, app_context).outcome is SyncOutcome.OK
    _open(qtbot, app_context, ITEM)
    server.stop()
    qtbot.waitUntil(lambda: (2, REPLIES[1], False) in _outline(pane), timeout=10_000)
    first = _write(qtbot, pane, REPLIES[1], "Written on the train.")
    qtbot.waitUntil(lambda: (3, first, True) in _outline(pane), timeout=10_000)
    second = _write(qtbot, pane, first, "And a follow-up to it.")
    qtbot.waitUntil(lambda: (4, second, True) in _outline(pane), timeout=10_000)
    qtbot.waitUntil(lambda: not app_context.controller.syncing, timeout=60_000)

    server.start()
    assert _sync(qtbot, app_context).outcome is SyncOutcome.OK
    [parent] = _server_notes(server, first.removeprefix("pending:"))
    [child] = _server_notes(server, second.removeprefix("pending:"))
    assert parent["reference_content_ids"] == [REPLIES[1]]
    assert child["reference_content_ids"] == [parent["id"]]
    qtbot.waitUntil(lambda: (4, child["id"], False) in _outline(pane), timeout=10_000)
    assert (3, parent["id"], False) in _outline(pane)
    ids = [entry_id for _depth, entry_id, _pending in _outline(pane)]
    assert first not in ids
    assert second not in ids


def _select(qtbot: Any, context: AppContext, scope: Scope) -> list[str]:
    """Pick a sidebar entry and return the ids of the results shown for it."""
    window = context.window
    # The sidebar lists entries after a read on a worker: wait for the entry to be there.
    qtbot.waitUntil(
        lambda: window.sidebar.sidebar_model.index_of(scope.key).isValid(), timeout=10_000
    )
    applied = Emitted(window.search_applied)
    window.sidebar.select_scope(scope)
    assert window.sidebar.current_scope().key == scope.key
    applied.wait(qtbot)
    return window.results_model.ids()


def test_tags_and_saved_views_filter_the_results_offline_and_online(
    qtbot: Any, app_context: AppContext, server: Any, demo_library: dict[str, Any]
) -> None:
    window = app_context.window
    reader = app_context.reader
    tester = QAbstractItemModelTester(
        window.results_model, QAbstractItemModelTester.FailureReportingMode.Fatal
    )
    assert _sync(qtbot, app_context).outcome is SyncOutcome.OK
    qtbot.waitUntil(lambda: window.results_model.rowCount() >= 40, timeout=10_000)
    everything = set(window.results_model.ids())

    # A tag shows exactly the cached items carrying it.
    tagged = {e["id"] for e in demo_library["results"] if "tag-local-first" in e.get("tag_ids", [])}
    assert tagged
    shown = _select(qtbot, app_context, Scope("tag", "tag-local-first", "local-first"))
    assert set(shown) == tagged & set(reader.ids_with_tag("tag-local-first"))
    assert set(shown) < everything

    # A new talk reaches the server only (saved from another device).
    with MemexClient(server.base_url, api_key=TEST_API_KEY) as other_device:
        saved = other_device.save_content_entity(
            {
                "type": "youtube",
                "title": "Sync engines explained",
                "url": "https://video.example/sync-engines",
            }
        )
    new_id = saved.entity.id
    assert reader.get(new_id) is None
    qtbot.waitUntil(
        lambda: (
            (server.state.entity(new_id) or {}).get("metadata", {}).get("status") == "indexing-done"
        ),
        timeout=10_000,
    )
    view = Scope("view", "view-talks-and-papers", "Talks and papers")
    talks = set(reader.ids_for_view("view-talks-and-papers"))
    assert talks

    # Offline the view runs on the cache; the server's part fails and says so.
    server.stop()
    assert set(_select(qtbot, app_context, view)) == talks
    qtbot.waitUntil(lambda: "from the cache" in window.status.currentMessage(), timeout=30_000)
    assert new_id not in window.results_model.ids()

    # Online the server's results are cached first, then merged in with their provenance.
    server.start()
    _select(qtbot, app_context, ALL_ITEMS)
    _select(qtbot, app_context, view)
    qtbot.waitUntil(lambda: new_id in window.results_model.ids(), timeout=30_000)
    assert reader.get(new_id) is not None
    row = window.results_model.row_of(new_id)
    assert row is not None
    provenance = window.results_model.index(row, 0).data(window.results_model.ProvenanceRole)
    # "cloud" when the view's server part brought it; "cached" when the server part of the
    # All items selection just before had already cached it (cache-on-view) by the time the
    # view read the cache; "both" when the view's server part then listed it too. All are
    # right; which one comes first is a race.
    assert provenance in ("cloud", "cached", "both")
    assert talks <= set(window.results_model.ids())
    del tester
