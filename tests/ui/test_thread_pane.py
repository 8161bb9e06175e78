"""The thread pane: nesting and order from the cache, pending notes, one copy after sync."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QUrl
from PySide6.QtWidgets import QLabel

from memex_desktop.api.content import display_title, time_text
from memex_desktop.api.models import SearchRawResponse
from memex_desktop.errors import ConnectionState, user_message
from memex_desktop.render import RenderContext, render_entity
from memex_desktop.render.document import format_timestamp
from memex_desktop.store import (
    CacheReader,
    ChangeSet,
    DatabaseLockedError,
    Outbox,
    OutboxOp,
    StoreWriter,
)
from memex_desktop.store.outbox import OutboxFailure
from memex_desktop.sync.export import export_markdown
from memex_desktop.sync.highlights import Passage, queue_highlight
from memex_desktop.ui.messages import message_line
from memex_desktop.ui.note_editor import NoteEditor
from memex_desktop.ui.outbox_pane import OutboxModel
from memex_desktop.ui.tasks import TaskRunner
from memex_desktop.ui.thread_pane import (
    PROCESSING,
    QUEUED,
    SENDING,
    WAITING,
    ThreadEntry,
    ThreadPane,
    merge_pending,
    thread_heading,
)

# The offscreen platform cannot resize, raise or grab; it says so as warnings.
pytestmark = pytest.mark.qt_log_ignore("This plugin does not support")

DAY = 86_400_000
T0 = 1_700_000_000_000


def _note(
    note_id: str, target: str, text: str, at: int, *, mentions: tuple[str, ...] = (), **extra: Any
) -> dict[str, Any]:
    nodes: list[dict[str, Any]] = [{"type": "text", "text": text}]
    nodes += [{"type": "memex-reference", "attrs": {"content_id": m}} for m in mentions]
    return {
        "id": note_id,
        "type": "annotation",
        "created_at": at,
        "updated_at": at,
        "metadata": {"status": "indexing-done"},
        "text": text,
        "content": {"type": "doc", "content": [{"type": "paragraph", "content": nodes}]},
        "reference_content_ids": [target, *mentions],
        **extra,
    }


def library() -> dict[str, Any]:
    """A page with two notes, one of them with a three-level reply chain, and a video."""
    page = {
        "id": "page",
        "type": "web",
        "title": "Gardening with bees",
        "url": "https://example.org/bees",
        "created_at": T0,
        "updated_at": T0,
        "metadata": {"status": "indexing-done"},
    }
    video = {
        "id": "video",
        "type": "youtube",
        "title": "Hive inspection",
        "url": "https://video.example/hive",
        "created_at": T0,
        "updated_at": T0,
        "metadata": {"status": "indexing-done"},
    }
    results = [
        page,
        video,
        # Deliberately out of order: the pane orders by creation time at every level.
        _note("late", "page", "A later thought", T0 + 5 * DAY, tag_ids=["t-bees"]),
        _note("first", "page", "Bees like lavender", T0 + DAY, mentions=("video",)),
        _note("r2", "first", "Second reply", T0 + 3 * DAY),
        _note("r1", "first", "First reply", T0 + 2 * DAY),
        _note("r1a", "r1", "Reply to the first reply", T0 + 4 * DAY),
        _note("r1aa", "r1a", "Third level", T0 + 4 * DAY + 1),
    ]
    refs: dict[str, Any] = {}
    for item in results:
        if item["type"] == "annotation":
            parent, *mentions = item["reference_content_ids"]
            kind = "reply" if parent not in ("page", "video") else None
            ids: list[Any] = [{"id": parent, "type": "reply"} if kind else parent, *mentions]
            refs[item["id"]] = {"contentEntityIds": ids, "tagIds": item.get("tag_ids", [])}
    return {
        "results": results,
        "referencedTags": [{"id": "t-bees", "name": "bees"}],
        "referencesByResultId": refs,
        "extraEntities": [],
        "referencedEntities": [],
        "meta": {},
    }


@pytest.fixture
def cache(tmp_path: Path) -> Iterator[tuple[Path, StoreWriter]]:
    path = tmp_path / "cache.db"
    writer = StoreWriter(path)
    writer.ingest_search_page(SearchRawResponse.model_validate(library())).result(timeout=30)
    yield path, writer
    writer.close()


@pytest.fixture
def pane(qtbot, cache, runner, tmp_path: Path) -> Iterator[ThreadPane]:
    path, _writer = cache
    reader = CacheReader(path)
    outbox = Outbox(tmp_path / "outbox.db", cache_path=path)
    widget = ThreadPane(reader, runner, outbox=outbox)
    qtbot.addWidget(widget)
    widget.resize(500, 600)
    yield widget
    widget.close()
    outbox.close()
    reader.close()


def _show(qtbot, pane: ThreadPane, entity_id: str) -> None:
    """Show an entity's thread and wait until it is drawn (it is read on a worker)."""
    with qtbot.waitSignal(pane.thread_shown, timeout=5000):
        pane.show_entity(entity_id)


def _outline(pane: ThreadPane) -> list[tuple[int, str, bool]]:
    return [(depth, entry.id, entry.pending) for depth, entry in pane.shown()]


def test_thread_is_nested_and_ordered_by_time(qtbot, pane: ThreadPane) -> None:
    _show(qtbot, pane, "page")
    assert _outline(pane) == [
        (0, "first", False),
        (1, "r1", False),
        (2, "r1a", False),
        (3, "r1aa", False),
        (1, "r2", False),
        (0, "late", False),
    ]
    assert pane.heading.text() == "6 notes on Gardening with bees"
    assert [card.entry.id for card in pane.cards] == [e for _d, e, _p in _outline(pane)]
    late = next(card for card in pane.cards if card.entry.id == "late")
    assert "tags: bees" in late.meta.text()
    assert not any(card.badge.isVisibleTo(card) for card in pane.cards)


def test_reference_cards_open_items_and_nothing_else(qtbot, pane: ThreadPane) -> None:
    _show(qtbot, pane, "page")
    card = next(card for card in pane.cards if card.entry.id == "first")
    assert "memex://entity/video" in card.body.toHtml()
    with qtbot.waitSignal(pane.entity_activated, timeout=2000) as blocker:
        card.body.anchorClicked.emit(QUrl("memex://entity/video"))
    assert blocker.args == ["video"]
    with qtbot.assertNotEmitted(pane.entity_activated):
        card.body.anchorClicked.emit(QUrl("file:///etc/passwd"))
        card.body.anchorClicked.emit(QUrl("https://example.org/"))
    assert not card.body.openLinks()


def test_offline_reply_is_queued_shown_pending_and_shown_once_after_sync(
    qtbot, pane: ThreadPane, cache
) -> None:
    _path, writer = cache
    _show(qtbot, pane, "page")
    editor = pane.open_editor("r1a")
    qtbot.keyClicks(editor.editor, "Agreed, lavender works")
    with (
        qtbot.waitSignal(pane.thread_shown, timeout=5000),
        qtbot.waitSignal(pane.note_queued, timeout=5000) as blocker,
    ):
        editor.save()
    op_id = int(blocker.args[0])
    op = pane._outbox.get(op_id)
    assert op is not None
    assert op.state == "queued"
    assert op.payload["reference_content_ids"] == ["r1a"]
    assert op.payload["type"] == "annotation"
    assert op.payload["text"] == "Agreed, lavender works"
    outline = _outline(pane)
    pending_id = f"pending:{op.external_id}"
    assert (3, pending_id, True) in outline
    assert outline.index((3, pending_id, True)) == outline.index((3, "r1aa", False)) + 1
    card = next(card for card in pane.cards if card.entry.id == pending_id)
    assert card.badge.isVisibleTo(card)
    assert card.badge.text() == QUEUED  # nothing is being sent

    # The next sync sends it and pulls it back with a server id and the same external_id.
    note = _note("server-7", "r1a", "Agreed, lavender works", T0 + 9 * DAY)
    note["external_id"] = op.external_id
    page = {
        "results": [note],
        "referencesByResultId": {
            "server-7": {"contentEntityIds": [{"id": "r1a", "type": "reply"}]}
        },
        "meta": {},
    }
    changes = writer.ingest_search_page(SearchRawResponse.model_validate(page)).result(30)
    pane._outbox.mark_accepted(op_id, "server-7")  # sent, but not confirmed yet
    with qtbot.waitSignal(pane.thread_shown, timeout=5000):
        pane.on_store_changed(changes)
    ids = [entry_id for _d, entry_id, _p in _outline(pane)]
    assert ids.count("server-7") == 1
    assert pending_id not in ids
    assert (3, "server-7", False) in _outline(pane)


def test_add_note_button_opens_an_editor_on_the_item(qtbot, pane: ThreadPane) -> None:
    _show(qtbot, pane, "video")
    # The first note on the page mentions the video: it is not on it, and is said apart.
    assert pane.heading.text() == (
        "No notes on Hive inspection yet. 1 note mentions it (under Referenced by, at the end "
        "of the item)."
    )
    assert pane.add_button.isEnabled()
    pane.add_button.click()
    assert pane.editor is not None
    assert pane.editor.target_id == "video"
    qtbot.keyClicks(pane.editor.editor, "A new note")
    with (
        qtbot.waitSignal(pane.thread_shown, timeout=5000),
        qtbot.waitSignal(pane.note_queued, timeout=5000),
    ):
        pane.editor.save_button.click()
    assert _outline(pane)[0][0:1] == (0,)
    assert _outline(pane)[0][2] is True


def test_store_changes_elsewhere_do_not_redraw(qtbot, pane: ThreadPane) -> None:
    _show(qtbot, pane, "page")
    with qtbot.assertNotEmitted(pane.thread_shown, wait=300):
        pane.on_store_changed(ChangeSet.empty())
        pane.on_store_changed(
            ChangeSet(
                frozenset({"unrelated"}), frozenset(), frozenset(), frozenset(), frozenset(), False
            )
        )


def test_merge_pending_attaches_replies_to_pending_notes() -> None:
    from memex_desktop.api.models import parse_content_entity

    def entry(entry_id: str, at: int, *, pending: bool, external: str | None = None) -> ThreadEntry:
        entity = parse_content_entity({"id": entry_id, "type": "annotation"})
        return ThreadEntry(entry_id, entity, at, None, [], pending, external_id=external)

    cached = [entry("n1", 10, pending=False, external="x1")]
    pending = [
        entry("pending:x1", 5, pending=True, external="x1"),  # already cached: dropped
        entry("pending:x2", 20, pending=True, external="x2"),
        entry("pending:x3", 30, pending=True, external="x3"),
    ]
    targets = {"pending:x1": "item", "pending:x2": "item", "pending:x3": "pending:x2"}
    merged = merge_pending("item", cached, pending, targets)
    assert [e.id for e in merged] == ["n1", "pending:x2"]
    assert [c.id for c in merged[1].children] == ["pending:x3"]


def _entry(
    entry_id: str,
    at: int,
    *,
    pending: bool,
    external: str | None = None,
    server_id: str | None = None,
) -> ThreadEntry:
    from memex_desktop.api.models import parse_content_entity

    entity = parse_content_entity({"id": entry_id, "type": "annotation"})
    return ThreadEntry(
        entry_id, entity, at, None, [], pending, external_id=external, server_id=server_id
    )


def test_merge_pending_leaves_out_notes_on_other_items() -> None:
    cached = [_entry("n1", 10, pending=False)]
    pending = [
        _entry("pending:a", 20, pending=True, external="a"),
        _entry("pending:b", 30, pending=True, external="b"),
        _entry("pending:c", 40, pending=True, external="c"),
    ]
    targets = {"pending:a": "other-item", "pending:b": "pending:a", "pending:c": "n1"}
    merged = merge_pending("item", cached, pending, targets)
    assert [e.id for e in merged] == ["n1"]
    assert [c.id for c in merged[0].children] == ["pending:c"]


def test_merge_pending_puts_replies_under_the_synced_copy_of_their_parent() -> None:
    # The parent was sent and synced (cached with its external_id); its reply is still queued
    # and names it by its pending id.
    cached = [_entry("server-1", 10, pending=False, external="p1")]
    pending = [_entry("pending:r1", 20, pending=True, external="r1")]
    merged = merge_pending("item", cached, pending, {"pending:r1": "pending:p1"})
    assert [e.id for e in merged] == ["server-1"]
    assert [c.id for c in merged[0].children] == ["pending:r1"]


def test_merge_pending_drops_a_note_cached_under_its_server_id() -> None:
    # Accepted by the server (the outbox knows the id) and cached without an external_id.
    cached = [_entry("server-9", 10, pending=False)]
    pending = [_entry("pending:x", 5, pending=True, external="x", server_id="server-9")]
    merged = merge_pending("item", cached, pending, {"pending:x": "item"})
    assert [e.id for e in merged] == ["server-9"]


def test_pending_note_on_another_item_is_not_shown_here(qtbot, pane: ThreadPane) -> None:
    _show(qtbot, pane, "video")
    editor = pane.open_editor("video")
    qtbot.keyClicks(editor.editor, "Only about the video")
    with (
        qtbot.waitSignal(pane.thread_shown, timeout=5000),
        qtbot.waitSignal(pane.note_queued, timeout=5000),
    ):
        editor.save()
    assert [entry.pending for _d, entry in pane.shown()] == [True]
    _show(qtbot, pane, "page")
    assert all(not entry.pending for _d, entry in pane.shown())


def test_outbox_changes_redraw_only_while_a_pending_note_is_shown(qtbot, pane: ThreadPane) -> None:
    _show(qtbot, pane, "page")
    with qtbot.assertNotEmitted(pane.thread_shown, wait=300):
        pane.on_outbox_changed(None)
    editor = pane.open_editor("page")
    qtbot.keyClicks(editor.editor, "Pending for now")
    with (
        qtbot.waitSignal(pane.thread_shown, timeout=5000),
        qtbot.waitSignal(pane.note_queued, timeout=5000) as queued,
    ):
        editor.save()
    op_id = int(queued.args[0])
    pane._outbox.drop(op_id)  # e.g. dropped from the outbox pane
    with qtbot.waitSignal(pane.thread_shown, timeout=2000):
        pane.on_outbox_changed(None)
    assert all(not entry.pending for _d, entry in pane.shown())


def test_links_dropped_on_the_editor_are_announced(qtbot, pane: ThreadPane) -> None:
    from PySide6.QtCore import QMimeData

    _show(qtbot, pane, "page")
    editor = pane.open_editor("page")
    mime = QMimeData()
    mime.setUrls([QUrl("https://example.org/cited-article")])
    with qtbot.waitSignal(pane.link_queued, timeout=5000) as blocker:
        editor.editor.insertFromMimeData(mime)
    op = pane._outbox.get(int(blocker.args[0]))
    assert op is not None
    assert op.url == "https://example.org/cited-article"
    assert "[[https://example.org/cited-article]]" in editor.editor.toPlainText()


def test_a_newer_selection_wins_over_a_thread_still_loading(qtbot, pane: ThreadPane) -> None:
    shown: list[str] = []
    pane.thread_shown.connect(lambda: shown.append(pane.heading.text()))
    pane.show_entity("page")
    with qtbot.waitSignal(pane.thread_shown, timeout=5000):
        pane.show_entity("video")
    with qtbot.assertNotEmitted(pane.thread_shown, wait=300):
        pass
    assert len(shown) == 1
    assert shown[0].startswith("No notes on Hive inspection yet.")
    assert pane.shown() == []


def test_a_closed_editor_is_freed(qtbot, pane: ThreadPane) -> None:
    _show(qtbot, pane, "page")
    editor = pane.open_editor("page")
    with qtbot.waitSignal(editor.destroyed, timeout=5000):
        editor.reject()


def test_an_instant_shows_the_same_local_time_in_reader_card_outbox_and_export(
    qtbot, pane: ThreadPane, tmp_path: Path
) -> None:
    _show(qtbot, pane, "page")
    card = next(card for card in pane.cards if card.entry.id == "first")
    entity = pane._reader.entity("first")
    assert entity is not None
    shown = format_timestamp(entity.created_at)
    assert shown == time_text(T0 + DAY)
    # The tests run at UTC+05:30: a pane rendering in UTC would show another time.
    utc = datetime.fromtimestamp((T0 + DAY) / 1000, UTC).strftime("%Y-%m-%d %H:%M")
    assert shown != utc
    assert f"saved {shown}" in render_entity(entity, RenderContext()).html
    assert shown in card.meta.text().split(" · ")
    # The outbox pane and the Markdown export show the same instant the same way.
    queued = OutboxOp(
        id=1, kind="save_url", url="https://a.example/", normalized_url="https://a.example/",
        external_id=None, payload=None, state="pending", attempts=0, reason=None,
        entity_id=None, created_at=T0 + DAY, updated_at=T0 + DAY, next_attempt_at=0,
    )  # fmt: skip
    model = OutboxModel()
    model.set_ops([queued])
    assert model.index(0, 2).data() == shown
    folder = export_markdown(pane._reader, tmp_path)
    page_file = next(
        path
        for path in folder.glob("*.md")
        if "first" not in path.name and ("Gardening" in path.read_text(encoding="utf-8"))
    )
    assert f"**{shown}**" in page_file.read_text(encoding="utf-8")


def test_a_reply_editor_names_the_note_by_its_title(qtbot, pane: ThreadPane) -> None:
    _show(qtbot, pane, "page")
    raw = next(entry for _d, entry in pane.shown() if entry.id == "r1").entity.raw

    def heading(editor: NoteEditor) -> str:
        return editor.findChildren(QLabel)[0].text()

    assert heading(pane.open_editor("r1")) == f"Reply to: {display_title(raw)}"
    assert heading(pane.open_editor("page")) == "Note on: Gardening with bees"


class LockedOutbox:
    """An outbox another process holds locked: nothing pending can be listed."""

    def list(self, states: tuple[str, ...] | None = None) -> list[Any]:
        raise DatabaseLockedError("database is locked")


def test_a_thread_that_cannot_be_read_says_why_in_the_persons_words(
    qtbot, cache, runner: TaskRunner
) -> None:
    path, _writer = cache
    reader = CacheReader(path)
    pane = ThreadPane(reader, runner, outbox=LockedOutbox())  # type: ignore[arg-type]
    qtbot.addWidget(pane)
    try:
        pane.show_entity("page")
        words = message_line(user_message(DatabaseLockedError("database is locked")))
        qtbot.waitUntil(lambda: words in pane.heading.text(), timeout=5000)
        assert pane.heading.text() == f"The notes could not be read. {words}"
        assert "Close the other window" in words
    finally:
        reader.close()


def _server_copy(note_id: str, external_id: str, text: str | None, status: str) -> dict[str, Any]:
    """A search page holding the server's copy of a note on the page."""
    note: dict[str, Any] = {
        "id": note_id,
        "type": "annotation",
        "external_id": external_id,
        "created_at": T0 + 9 * DAY,
        "updated_at": T0 + 9 * DAY,
        "metadata": {"status": status},
        "reference_content_ids": ["page"],
    }
    if text is not None:
        note["text"] = text
    return {
        "results": [note],
        "referencesByResultId": {note_id: {"contentEntityIds": ["page"]}},
        "meta": {},
    }


def test_a_note_the_server_sends_back_without_its_words_shows_what_was_typed(
    qtbot, pane: ThreadPane, cache
) -> None:
    _path, writer = cache
    _show(qtbot, pane, "page")
    editor = pane.open_editor("page")
    qtbot.keyClicks(editor.editor, "Every word I typed")
    with qtbot.waitSignal(pane.note_queued, timeout=5000) as queued:
        editor.save()
    op_id = int(queued.args[0])
    op = pane._outbox.get(op_id)
    assert op is not None
    # Sent: the server answers with its copy, still processing and without the text yet.
    page = _server_copy("server-8", op.external_id, None, "pending")
    changes = writer.ingest_search_page(SearchRawResponse.model_validate(page)).result(30)
    pane._outbox.mark_accepted(op_id, "server-8")
    with qtbot.waitSignal(pane.thread_shown, timeout=5000):
        pane.on_store_changed(changes)
    [card] = [card for card in pane.cards if card.entry.id == "server-8"]
    assert "Every word I typed" in card.body.toPlainText()
    assert "Still processing" not in card.body.toPlainText()
    assert card.badge.text() == PROCESSING
    assert not any(entry.pending for _d, entry in pane.shown())

    # Processed and pulled: the server's words, no marker.
    page = _server_copy("server-8", op.external_id, "Every word I typed", "indexing-done")
    changes = writer.ingest_search_page(SearchRawResponse.model_validate(page)).result(30)
    pane._outbox.mark_confirmed(op_id, "server-8")
    with qtbot.waitSignal(pane.thread_shown, timeout=5000):
        pane.on_store_changed(changes)
    [card] = [card for card in pane.cards if card.entry.id == "server-8"]
    assert "Every word I typed" in card.body.toPlainText()
    assert not card.badge.isVisibleTo(card)


def test_a_note_accepted_but_not_cached_yet_says_it_is_processing(qtbot, pane: ThreadPane) -> None:
    _show(qtbot, pane, "page")
    editor = pane.open_editor("page")
    qtbot.keyClicks(editor.editor, "On its way")
    with qtbot.waitSignal(pane.note_queued, timeout=5000) as queued:
        editor.save()
    pane._outbox.mark_accepted(int(queued.args[0]), None)
    with qtbot.waitSignal(pane.thread_shown, timeout=5000):
        pane.refresh()
    [card] = [card for card in pane.cards if card.entry.pending]
    assert card.badge.text() == PROCESSING
    assert "On its way" in card.body.toPlainText()


def test_a_note_queued_offline_says_it_waits_and_sending_only_while_in_flight(
    qtbot, pane: ThreadPane
) -> None:
    _show(qtbot, pane, "page")
    editor = pane.open_editor("page")
    qtbot.keyClicks(editor.editor, "Written on the train")
    with qtbot.waitSignal(pane.note_queued, timeout=5000) as queued:
        editor.save()
    op_id = int(queued.args[0])
    outbox = pane._outbox

    def badge() -> QLabel:
        with qtbot.waitSignal(pane.thread_shown, timeout=5000):
            pane.refresh()
        [card] = [card for card in pane.cards if card.entry.pending]
        return card.badge

    # A drain takes the note and finds no server: the engine puts it back in the queue.
    claimed = outbox.claim_next()
    assert claimed is not None
    assert claimed.id == op_id
    assert badge().text() == SENDING
    refused = "The Memex server at 127.0.0.1 refused the connection."
    outbox.mark_not_sent(op_id, OutboxFailure("network", refused), 0)
    waiting = badge()
    assert waiting.text() == WAITING
    assert "could not be reached" in waiting.toolTip()
    assert "Sending" not in waiting.toolTip()


def test_add_note_quotes_the_passage_and_without_one_starts_empty(qtbot, pane: ThreadPane) -> None:
    _show(qtbot, pane, "page")
    passage = ["Bees visit\u2029lavender first."]
    pane.set_quote_source(lambda: passage[0])
    editor = pane.add_note()
    assert editor is not None
    assert editor.target_id == "page"
    assert editor.editor.toPlainText() == "> Bees visit\n> lavender first.\n\n"
    editor.reject()
    passage[0] = ""
    editor = pane.add_note()
    assert editor is not None
    assert editor.editor.toPlainText() == ""


def test_a_long_title_is_cut_in_the_heading() -> None:
    title = "That's the whole experience " * 8
    heading = thread_heading(0, title)
    assert heading.startswith("No notes on That's the whole experience")
    assert heading.endswith("… yet.")
    assert len(heading) < 90
    assert thread_heading(2, "Short") == "2 notes on Short"


def test_no_empty_box_stands_under_the_words_before_an_item_is_picked(
    qtbot, pane: ThreadPane
) -> None:
    """Before an item is chosen (or on one without notes) the pane is its words alone: the
    list below them draws nothing, where it drew a framed white box."""
    pane.show()
    qtbot.waitExposed(pane)
    image = pane.grab().toImage()
    below = pane.scroll_area.geometry()
    background = image.pixelColor(below.center().x(), below.top() - 4)
    differing = sum(
        1
        for y in range(below.top(), below.bottom(), 4)
        for x in range(below.left(), below.right(), 4)
        if image.pixelColor(x, y) != background
    )
    assert differing == 0


def test_a_queued_highlight_says_it_waits_for_memex_while_it_cannot_be_reached(
    qtbot, pane: ThreadPane, cache
) -> None:
    path, _writer = cache
    assert pane.outbox is not None
    with CacheReader(path) as reader:
        queue_highlight(pane.outbox, reader, Passage("lavender"), target_id="page")
    pane.on_connection_changed(ConnectionState.OFFLINE, None)
    _show(qtbot, pane, "page")
    [row] = pane.highlight_rows
    assert row.facts.text() == WAITING
    assert row.facts.toolTip().startswith("Not on the server yet.")
    # Memex answers again: the row on screen says Queued, as a queued note does.
    pane.on_connection_changed(ConnectionState.ONLINE, None)
    assert row.facts.text() == QUEUED
