"""Each pane through its public signals, every model under QAbstractItemModelTester."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QDesktopServices, QTextDocument
from PySide6.QtTest import QAbstractItemModelTester
from support.signals import Emitted
from support.window import seeded_cache

from memex_desktop import paths
from memex_desktop.api.errors import AuthError
from memex_desktop.emulator.synthetic import generate_library
from memex_desktop.errors import (
    ConnectionState,
    Credential,
    failure_message,
    state_message,
    state_words,
    user_message,
)
from memex_desktop.store import CacheReader, ChangeSet, Outbox, OutboxOp, StoreWriter
from memex_desktop.store.errors import SaveBeingSent
from memex_desktop.sync.folder_lock import FolderLock
from memex_desktop.ui.outbox_pane import OutboxModel, OutboxPane, save_state_text
from memex_desktop.ui.reader_pane import ReaderPane, SafeTextDocument
from memex_desktop.ui.results_model import ResultsModel, mark_terms, snippet_segments
from memex_desktop.ui.search_bar import SearchBar
from memex_desktop.ui.sidebar import Scope, Sidebar
from memex_desktop.ui.status_bar import STATE_ACTIONS, StatusBar
from memex_desktop.ui.sync_controller import OutboxCounts, outbox_action
from memex_desktop.ui.tasks import TaskRunner

pytestmark = pytest.mark.gui

FAIL = QAbstractItemModelTester.FailureReportingMode.Fatal


@pytest.fixture(scope="module")
def library() -> dict[str, Any]:
    """A small library with every content type."""
    return generate_library(120, seed=3, words_per_entity=80)


@pytest.fixture
def cache(tmp_path: Path, library: dict[str, Any]) -> Iterator[tuple[Path, CacheReader]]:
    """A cache.db holding the library, and a GUI-thread reader."""
    path = seeded_cache(tmp_path / "cache.db", library)
    reader = CacheReader(path)
    yield path, reader
    reader.close()


def test_results_model_passes_the_model_tester_through_changes(cache: Any) -> None:
    _path, reader = cache
    model = ResultsModel(reader)
    QAbstractItemModelTester(model, FAIL)
    ids = reader.search_ids("")
    model.set_results(ids[:80])
    assert model.rowCount() == 80
    assert model.data(model.index(0, 0))
    # A sync inserts new rows at the top and removes one: rows move, nothing resets.
    model.update_ids(ids[80:90] + ids[:40] + ids[41:80])
    assert model.ids()[:10] == ids[80:90]
    assert ids[40] not in model.ids()
    model.merge_remote([ids[0], "cloud-only-id"])
    assert model.data(model.index(0, 0), ResultsModel.ProvenanceRole) == "cached"
    row = model.row_of(ids[0])
    assert row is not None
    assert model.data(model.index(row, 0), ResultsModel.ProvenanceRole) == "both"
    last = model.index(model.rowCount() - 1, 0)
    assert model.data(last, ResultsModel.ProvenanceRole) == "cloud"
    assert model.data(last, ResultsModel.PlaceholderRole) is True
    model.on_store_changed(ChangeSet(entity_ids=frozenset(ids[:5])))
    model.set_results([])
    assert model.rowCount() == 0


def test_results_model_reads_every_row_again_after_more_changes_than_listed(
    cache: Any,
) -> None:
    path, reader = cache
    model = ResultsModel(reader)
    QAbstractItemModelTester(model, FAIL)
    ids = reader.search_ids("")[:30]
    model.set_results(ids)
    assert model.data(model.index(3, 0))
    entity = dict(reader.raw_json(ids[3]) or {}, title="Renamed by a big sync")
    writer = StoreWriter(path)
    try:
        writer.ingest_json([entity]).result()
    finally:
        writer.close()
    repainted = Emitted(model.dataChanged)
    # A first sync of a large library lists no ids, only how many changed.
    model.on_store_changed(ChangeSet(unlisted_changes=50_000))
    first, last = repainted.args[:2]
    assert (first.row(), last.row()) == (0, len(ids) - 1)
    assert "Renamed by a big sync" in str(model.data(model.index(3, 0)))


def test_snippets_mark_query_words() -> None:
    marked = mark_terms("The quick brown fox jumps", "fox")
    assert "\x02fox\x03" in marked
    assert snippet_segments("a \x02b\x03 c") == [("a ", False), ("b", True), (" c", False)]


def test_outbox_model_and_pane_signals(qtbot: Any) -> None:
    pane = OutboxPane()
    qtbot.addWidget(pane)
    QAbstractItemModelTester(pane.model, FAIL)
    ops = [
        OutboxOp(
            1,
            "save_url",
            "https://a.example/",
            "https://a.example",
            None,
            None,
            "queued",
            0,
            None,
            None,
            1,
            1,
            1,
        ),
        OutboxOp(
            2,
            "save_url",
            "https://b.example/",
            "https://b.example",
            None,
            None,
            "needs_attention",
            1,
            "bad url",
            None,
            2,
            2,
            2,
        ),
    ]
    pane.model.set_ops(ops)
    assert pane.model.rowCount() == 2
    pane.select_op(2)
    retry = Emitted(pane.retry_requested)
    pane.retry_button.click()
    retry.wait(qtbot, 5_000)
    assert retry.args == [2]
    drop = Emitted(pane.drop_requested)
    pane.drop_button.click()
    drop.wait(qtbot, 5_000)
    assert drop.args == [2]
    assert save_state_text(ops[1]).startswith("Needs attention")
    pane.model.set_ops([])
    assert isinstance(pane.model, OutboxModel)


def test_the_windows_drop_leaves_a_save_being_sent(tmp_path: Path) -> None:
    """The pane's Drop on a save a sync is sending says so and keeps it (see drop_save)."""
    outbox_path = paths.outbox_db_path(tmp_path)
    with Outbox(outbox_path) as outbox:
        outbox.enqueue_url("https://a.example/")
        claimed = outbox.claim_next()
    assert claimed is not None
    with FolderLock(paths.sync_lock_path(tmp_path)) as sender:
        assert sender.acquire()
        with pytest.raises(SaveBeingSent) as refused:
            outbox_action(outbox_path, "drop", claimed.id)
        assert "being sent right now" in user_message(refused.value).text
    assert outbox_action(outbox_path, "drop", claimed.id).pending == 0


def _failed_op(state: str, kind: str | None, reason: str, attempts: int = 1) -> OutboxOp:
    return OutboxOp(
        id=7,
        kind="save_url",
        url="https://c.example/",
        normalized_url="https://c.example",
        external_id=None,
        payload=None,
        state=state,
        attempts=attempts,
        reason=reason,
        entity_id=None,
        created_at=3,
        updated_at=3,
        next_attempt_at=3,
        error_kind=kind,
    )


@pytest.mark.parametrize(
    ("op", "shown", "in_tip"),
    [
        (
            _failed_op("queued", "rate_limited", "POST /save-content-by-url: HTTP 429: slow"),
            "Queued (retry 1: The Memex server is limiting requests.)",
            "sent again soon",
        ),
        (
            _failed_op("needs_attention", "rejected", "POST /save-content-by-url: HTTP 400: bad"),
            "Needs attention: The Memex server refused this save.",
            "HTTP 400: bad",  # the server's own words, as detail
        ),
        (
            _failed_op("needs_attention", "server_error", "HTTP 503", attempts=6),
            "Needs attention: The Memex server failed this save 6 times.",
            "Retry it later",
        ),
        (  # never sent: there was no connection, so no attempt counted
            _failed_op("queued", "network", "ConnectError: [Errno 111]", attempts=0),
            "Queued (The Memex server could not be reached.)",
            "sent again when the connection is back",
        ),
        (  # a row from before kinds were kept: no developer string in the list
            _failed_op("needs_attention", None, "RateLimited: POST /save-content-by-url: 429"),
            "Needs attention: The save could not be sent.",
            "Retry it, or drop it",
        ),
    ],
)
def test_outbox_pane_shows_why_a_save_failed_in_the_persons_words(
    qtbot: Any, op: OutboxOp, shown: str, in_tip: str
) -> None:
    pane = OutboxPane()
    qtbot.addWidget(pane)
    pane.model.set_ops([op])
    cell = pane.model.index(0, 1)
    assert cell.data() == shown
    for developer_word in ("POST", "RateLimited", "HTTP", "Errno"):
        assert developer_word not in cell.data()
    tip = cell.data(Qt.ItemDataRole.ToolTipRole)
    assert tip.startswith(shown)
    assert in_tip in tip
    assert failure_message(op.error_kind, op.reason, op.attempts).one_line() in tip


def test_sidebar_lists_types_tags_views_and_announces_scopes(qtbot: Any, cache: Any) -> None:
    _path, reader = cache
    sidebar = Sidebar(reader)
    qtbot.addWidget(sidebar)
    QAbstractItemModelTester(sidebar.sidebar_model, FAIL)
    library = sidebar.sidebar_model.section("library")
    assert library.rowCount() > 3
    assert sidebar.sidebar_model.section("tags").rowCount() > 0
    assert sidebar.sidebar_model.section("views").rowCount() == 2
    picked = Emitted(sidebar.scope_selected)
    sidebar.select_scope(Scope("type", "web"))
    picked.wait(qtbot, 5_000)
    assert picked.args[0].kind == "type"
    sidebar.refresh(outbox_pending=3)
    assert "3" in sidebar.sidebar_model.section("outbox").text()


def test_search_bar_debounces_typing_and_enter_asks_the_server(qtbot: Any) -> None:
    bar = SearchBar()
    qtbot.addWidget(bar)
    typed = Emitted(bar.search_changed)
    qtbot.keyClicks(bar.field, "garden")
    typed.wait(qtbot, 2_000)
    assert typed.args[0].query == "garden"
    remote = Emitted(bar.remote_requested)
    bar.field.returnPressed.emit()
    remote.wait(qtbot, 2_000)
    assert remote.args[0].remote
    bar.set_type_choices(["web", "youtube"])
    filtered = Emitted(bar.search_changed)
    bar.types.setCurrentIndex(2)
    filtered.wait(qtbot, 2_000)
    assert filtered.args[0].filters.types == ("youtube",)


def test_status_bar_shows_each_state_with_its_action(qtbot: Any) -> None:
    status = StatusBar()
    qtbot.addWidget(status)
    for state, button, action in (
        (ConnectionState.OFFLINE, "Retry now", "retry"),
        (ConnectionState.SERVER_DOWN, "Retry now", "retry"),
        (ConnectionState.AUTH_REJECTED, "Settings…", "settings"),
        (ConnectionState.INSUFFICIENT_CREDITS, "See plans…", "plans"),
        (ConnectionState.INCOMPATIBLE, "Check connection…", "doctor"),
        (ConnectionState.NOT_CONFIGURED, "Connect…", "settings"),
    ):
        status.set_state(state, None)
        assert status.action_button.text() == button
        assert status.state_label.text() == state_words(state).label
        assert status.state_label.toolTip() == state_message(state).one_line()
        assert STATE_ACTIONS[state] == action
    asked = Emitted(status.action_requested)
    status.action_button.click()
    asked.wait(qtbot, 5_000)
    assert asked.args == ["settings"]
    status.on_outbox_changed(OutboxCounts(pending=2, awaiting=1, attention=0))
    assert "2 saves waiting" in status.saves_button.text()


@pytest.mark.qt_log_ignore("propagateSizeHints")
def test_a_message_in_the_status_bar_is_never_drawn_under_the_states_button(qtbot: Any) -> None:
    status = StatusBar()
    qtbot.addWidget(status)
    status.show()
    status.set_state(ConnectionState.ONLINE, None)
    status.showMessage("The local library is damaged. Delete cache.db and sync again.")
    status.set_state(ConnectionState.NOT_CONFIGURED, None)  # a state that comes meanwhile
    assert not status.action_button.isVisible()
    status.clearMessage()
    assert status.action_button.isVisible()
    assert status.action_button.text() == "Connect…"
    status.showMessage("Signed in with Memex", 50)
    assert not status.action_button.isVisible()
    qtbot.waitUntil(status.action_button.isVisible, timeout=5000)  # when the message times out
    status.set_state(ConnectionState.ONLINE, None)  # no button: none comes back
    status.showMessage("Synced")
    status.clearMessage()
    assert not status.action_button.isVisible()


@pytest.mark.parametrize(
    ("credential", "label", "button"),
    [
        (Credential("sign_in"), "Sign-in needed: Memex refused the sign-in", "Sign in…"),
        (Credential("api_key"), "Sign-in needed: the API key was rejected", "Enter API key…"),
        (
            Credential("api_key", given_by="MEMEX_API_KEY"),
            "The API key given by MEMEX_API_KEY was rejected",
            "",
        ),
    ],
)
def test_status_bar_words_rejected_credentials_as_the_person_signed_in(
    qtbot: Any, credential: Credential, label: str, button: str
) -> None:
    status = StatusBar()
    qtbot.addWidget(status)
    error = AuthError("POST /search: HTTP 401: invalid", status_code=401)
    words = state_words(ConnectionState.AUTH_REJECTED, credential=credential, error=error)
    status.set_state(ConnectionState.AUTH_REJECTED, words)
    assert status.state_label.text() == label
    assert status.action_button.text() == button
    assert status.action_button.isVisibleTo(status) is bool(button)
    assert status.state_label.toolTip() == user_message(error, credential).one_line()


@pytest.mark.parametrize(
    "url",
    [
        "file:///etc/passwd",
        "javascript:alert(1)",
        "smb://server/share",
        "data:text/html,<b>x</b>",
        "ms-msdt:/id PCWDiagnostic",
    ],
)
def test_refused_links_open_nothing_and_navigate_nowhere(
    qtbot: Any, cache: Any, runner: TaskRunner, monkeypatch: pytest.MonkeyPatch, url: str
) -> None:
    path, reader = cache
    opened: list[QUrl] = []
    monkeypatch.setattr(QDesktopServices, "openUrl", opened.append)
    pane = ReaderPane(path, runner)
    qtbot.addWidget(pane)
    entity_id = reader.search_ids("")[0]
    _emitted = Emitted(pane.entity_shown)
    pane.show_entity(entity_id)
    _emitted.wait(qtbot, 10_000)
    before = pane.browser.toHtml()
    refused = Emitted(pane.link_refused)
    pane.browser.anchorClicked.emit(QUrl(url))
    refused.wait(qtbot, 5_000)
    assert refused.args[0]
    assert opened == []
    assert pane.current_entity_id == entity_id
    assert pane.browser.toHtml() == before
    assert pane.browser.source().isEmpty()


def test_web_links_open_only_after_confirmation(
    qtbot: Any, cache: Any, runner: TaskRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, _reader = cache
    opened: list[QUrl] = []
    monkeypatch.setattr(QDesktopServices, "openUrl", opened.append)
    pane = ReaderPane(path, runner)
    qtbot.addWidget(pane)
    shown: list[str] = []
    monkeypatch.setattr(pane, "confirm_external", lambda url: shown.append(url) or False)
    pane.follow_link("https://example.org/page?x=1")
    assert shown == ["https://example.org/page?x=1"]
    assert opened == []
    monkeypatch.setattr(pane, "confirm_external", lambda url: True)
    pane.follow_link("https://example.org/page?x=1")
    assert [u.toString() for u in opened] == ["https://example.org/page?x=1"]


def test_documents_never_load_local_files(qapp: Any, tmp_path: Path) -> None:
    secret = tmp_path / "secret.png"
    secret.write_bytes(b"\x89PNG not really")
    document = SafeTextDocument()
    document.setHtml(
        f'<img src="{secret.as_uri()}"><img src="{secret}"><img src="https://x.example/a.png">'
        '<img src="data:image/png;base64,iVBORw0KGgo=">'
    )
    document.size()  # lays out, which asks for every image
    refused = document.refused
    assert secret.as_uri() in refused
    assert any(str(secret) in name for name in refused)
    image = document.loadResource(
        QTextDocument.ResourceType.ImageResource.value, QUrl(secret.as_uri())
    )
    assert image is None


def test_reader_history_goes_back_and_forward(qtbot: Any, cache: Any, runner: TaskRunner) -> None:
    path, reader = cache
    first, second = reader.search_ids("")[:2]
    pane = ReaderPane(path, runner)
    qtbot.addWidget(pane)
    for entity_id in (first, second):
        _emitted = Emitted(pane.entity_shown)
        pane.show_entity(entity_id)
        _emitted.wait(qtbot, 10_000)
    back = Emitted(pane.entity_shown)
    pane.go_back()
    back.wait(qtbot, 10_000)
    assert back.args == [first]
    assert pane.can_go_forward()
    forward = Emitted(pane.entity_shown)
    pane.go_forward()
    forward.wait(qtbot, 10_000)
    assert forward.args == [second]


@pytest.mark.qt_log_ignore("propagateSizeHints")
def test_a_hint_over_the_status_bar_gives_back_the_message_it_covered(qtbot: Any) -> None:
    status = StatusBar()
    qtbot.addWidget(status)
    status.show()
    status.say("Synced 12 items", 60_000)
    status.show_hint("Opens https://tides.example.org in your browser, after asking")
    assert status.currentMessage().startswith("Opens https://tides.example.org")
    status.say("Saved 1 link", 60_000)  # a message that comes meanwhile waits for the hint
    assert status.currentMessage().startswith("Opens https://tides.example.org")
    status.show_hint("")
    assert status.currentMessage() == "Saved 1 link"
    status.say("Synced 3 items", 30)
    status.show_hint("Opens “Tide tables” in the reader")
    qtbot.wait(80)  # the covered message's time runs out under the hint
    status.show_hint("")
    assert status.currentMessage() == ""


@pytest.mark.qt_log_ignore("propagateSizeHints")
def test_the_window_shows_status_tips_as_hints(window_factory: Any) -> None:
    from PySide6.QtCore import QCoreApplication
    from PySide6.QtGui import QStatusTipEvent

    window = window_factory().window
    window.messages.inform("Synced 12 items")
    QCoreApplication.sendEvent(window, QStatusTipEvent("Opens a link in your browser"))
    assert window.status.currentMessage() == "Opens a link in your browser"
    QCoreApplication.sendEvent(window, QStatusTipEvent(""))
    assert window.status.currentMessage() == "Synced 12 items"
