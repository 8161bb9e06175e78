"""A note not saved when the window closes is kept as a draft and comes back in the next one."""

from __future__ import annotations

import logging
import threading
from typing import Any

import pytest
from PySide6.QtWidgets import QLabel, QMessageBox
from support.window import WindowFactory

from memex_desktop import paths
from memex_desktop.app import AppContext
from memex_desktop.drafts import DraftStore, draft_key, drafts_path
from memex_desktop.store import Outbox
from memex_desktop.sync.highlights import Passage
from memex_desktop.ui import note_editor
from memex_desktop.ui.note_editor import DRAFT_KEPT_AFTER_MS, NoteEditor
from memex_desktop.ui.thread_pane import ThreadPane, reopened_words

# The offscreen platform can neither propagate size hints nor raise a window.
pytestmark = [
    pytest.mark.gui,
    pytest.mark.qt_log_ignore("propagateSizeHints", r"support raise\(\)"),
]

ITEM = "web-sync-is-a-feature"
WAIT_MS = 10_000


def _pane_on_item(context: AppContext) -> ThreadPane:
    pane = context.window.thread_pane
    pane.show_entity(ITEM)
    return pane


def _reopened(qtbot: Any, context: AppContext) -> NoteEditor:
    """The one editor the window opened again at start-up."""
    pane = context.window.thread_pane
    qtbot.waitUntil(lambda: len(pane.editors) == 1, timeout=WAIT_MS)
    [editor] = pane.editors.values()
    return editor


def _queued_notes(context: AppContext) -> list[str]:
    outbox = Outbox(paths.outbox_db_path(context.data_dir))
    try:
        return [str(op.payload) for op in outbox.list() if op.kind == "save_entity"]
    finally:
        outbox.close()


def test_a_note_left_open_when_the_window_closes_is_back_in_the_next_window(
    qtbot: Any, window_factory: WindowFactory, demo_library: dict[str, Any]
) -> None:
    context = window_factory(library=demo_library)
    editor = _pane_on_item(context).open_editor(ITEM)
    qtbot.keyClicks(editor.editor, "Half a thought about sync")
    context.window.close()
    assert editor.question is None  # closing the window asks nothing
    assert not editor.isVisible()

    context = window_factory()
    editor = _reopened(qtbot, context)
    assert editor.editor.toPlainText() == "Half a thought about sync"
    assert editor.target_id == ITEM
    assert editor.windowTitle() == "Add note"
    assert editor.notice.isVisible()
    assert editor.typed()  # the words are the person's: Escape asks before it drops them
    status = context.window.status
    qtbot.waitUntil(lambda: status.currentMessage() == reopened_words(1), timeout=WAIT_MS)
    # Opening a note on the same item brings the same editor forward.
    assert _pane_on_item(context).open_editor(ITEM) is editor

    with qtbot.waitSignal(context.window.thread_pane.note_queued, timeout=WAIT_MS):
        editor.save()
    assert not drafts_path(context.data_dir).exists()
    [note] = _queued_notes(context)
    assert "Half a thought about sync" in note

    pane = window_factory().window.thread_pane
    assert pane.reopen_drafts() == []
    assert pane.editors == {}


def test_quitting_with_ctrl_q_keeps_every_open_note(
    qtbot: Any, window_factory: WindowFactory, demo_library: dict[str, Any]
) -> None:
    context = window_factory(library=demo_library)
    pane = _pane_on_item(context)
    note = pane.open_editor(ITEM)
    qtbot.keyClicks(note.editor, "On the item")
    reply = pane.open_editor("a-note-being-answered")
    qtbot.keyClicks(reply.editor, "An answer")
    untouched = pane.open_editor("another-note")
    context.window.actions_by_key["quit"].trigger()
    assert not context.window.isVisible()
    kept = DraftStore(drafts_path(context.data_dir)).all()
    assert {(d.target_id, d.text, d.is_reply) for d in kept} == {
        (ITEM, "On the item", False),
        ("a-note-being-answered", "An answer", True),
    }
    assert not untouched.isVisible()

    context = window_factory()
    pane = context.window.thread_pane
    qtbot.waitUntil(lambda: len(pane.editors) == 2, timeout=WAIT_MS)
    titles = {e.target_id: e.windowTitle() for e in pane.editors.values()}
    assert titles == {ITEM: "Add note", "a-note-being-answered": "Reply"}


def _busy_until_cancelled(started: threading.Event, *, cancel: threading.Event) -> None:
    """A long background job that holds a worker until the runner shuts down."""
    started.set()
    cancel.wait(30)


def test_a_note_being_committed_when_the_window_closes_leaves_no_draft(
    qtbot: Any, window_factory: WindowFactory, demo_library: dict[str, Any]
) -> None:
    # Every worker is busy, so the note's outbox write is still queued when the window closes:
    # it runs at shutdown (durable work) and forgets the draft Save wrote.
    context = window_factory(library=demo_library)
    runner = context.runner
    busy = [threading.Event() for _ in range(runner._pool.maxThreadCount())]
    for started in busy:
        runner.run(_busy_until_cancelled, started, cancel=True)
    assert all(started.wait(10) for started in busy)
    editor = _pane_on_item(context).open_editor(ITEM)
    qtbot.keyClicks(editor.editor, "Saved as the window closed")
    editor.save()
    assert DraftStore(drafts_path(context.data_dir)).get(draft_key(ITEM)) is not None
    context.shutdown()
    assert not drafts_path(context.data_dir).exists()
    [note] = _queued_notes(context)
    assert "Saved as the window closed" in note
    pane = window_factory().window.thread_pane
    assert pane.reopen_drafts() == []


def test_typing_is_kept_a_moment_later_without_closing_anything(
    qtbot: Any, window_factory: WindowFactory, demo_library: dict[str, Any]
) -> None:
    # What a crash or a kill would find on disk: the words typed up to a second before.
    context = window_factory(library=demo_library)
    editor = _pane_on_item(context).open_editor(ITEM)
    qtbot.keyClicks(editor.editor, "Written before the power cut")
    store = DraftStore(drafts_path(context.data_dir))

    def kept_text() -> str | None:
        draft = store.get(draft_key(ITEM))
        return draft.text if draft is not None else None

    qtbot.waitUntil(
        lambda: kept_text() == "Written before the power cut", timeout=DRAFT_KEPT_AFTER_MS * 5
    )
    draft = store.get(draft_key(ITEM))
    assert draft is not None
    assert draft.external_id == editor.external_id


def test_discarding_the_note_forgets_its_draft(
    qtbot: Any, window_factory: WindowFactory, demo_library: dict[str, Any]
) -> None:
    context = window_factory(library=demo_library)
    editor = _pane_on_item(context).open_editor(ITEM)
    qtbot.keyClicks(editor.editor, "Not worth keeping")
    editor.keep_draft()
    assert drafts_path(context.data_dir).exists()
    editor.reject()
    question = editor.question
    assert question is not None
    [discard] = [
        b
        for b in question.buttons()
        if question.buttonRole(b) == QMessageBox.ButtonRole.DestructiveRole
    ]
    discard.click()
    assert not editor.isVisible()
    assert context.window.thread_pane.editors == {}
    assert not drafts_path(context.data_dir).exists()
    context.window.close()
    assert not drafts_path(context.data_dir).exists()


def test_a_note_on_a_passage_comes_back_on_that_passage(
    qtbot: Any, window_factory: WindowFactory, demo_library: dict[str, Any]
) -> None:
    context = window_factory(library=demo_library)
    passage = Passage("sync is a feature", prefix="Treat ", suffix=" people see")
    editor = _pane_on_item(context).note_on_passage(passage)
    assert editor is not None
    qtbot.keyClicks(editor.editor, "Yes: and an honest one.")
    written = editor.editor.toPlainText()
    context.window.close()

    context = window_factory()
    editor = _reopened(qtbot, context)
    assert editor.draft_key == draft_key(ITEM, "sync is a feature")
    assert editor.editor.toPlainText() == written
    headings = [label.text() for label in editor.findChildren(QLabel)]
    assert any(h.startswith("Note on: ") and "sync is a feature" in h for h in headings)
    with qtbot.waitSignal(context.window.thread_pane.note_queued, timeout=WAIT_MS):
        editor.save()
    outbox = Outbox(paths.outbox_db_path(context.data_dir))
    try:
        kinds = sorted(op.kind for op in outbox.list())
    finally:
        outbox.close()
    assert kinds == ["save_entity", "save_entity"]  # the passage's highlight, then the note
    assert not drafts_path(context.data_dir).exists()


def test_a_damaged_drafts_file_is_logged_and_the_window_works(
    qtbot: Any,
    window_factory: WindowFactory,
    demo_library: dict[str, Any],
    caplog: pytest.LogCaptureFixture,
) -> None:
    data_dir = window_factory.data_dir
    data_dir.mkdir(parents=True)
    drafts_path(data_dir).write_text("{ not json", encoding="utf-8")
    with caplog.at_level(logging.ERROR, logger="memex_desktop.drafts"):
        context = window_factory(library=demo_library)
        assert context.window.thread_pane.reopen_drafts() == []
    assert any("drafts.json is damaged" in r.getMessage() for r in caplog.records)
    assert context.window.thread_pane.editors == {}
    editor = _pane_on_item(context).open_editor(ITEM)
    qtbot.keyClicks(editor.editor, "Still kept")
    context.window.close()
    [draft] = DraftStore(drafts_path(data_dir)).all()
    assert draft.text == "Still kept"


def test_a_note_whose_draft_cannot_be_written_is_not_lost_without_asking(
    qtbot: Any,
    window_factory: WindowFactory,
    demo_library: dict[str, Any],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    asked: list[int] = []
    answers = iter([False, True])  # Keep writing, then Close and discard

    def answer(_parent: object, count: int) -> bool:
        asked.append(count)
        return next(answers)

    monkeypatch.setattr(note_editor, "close_over_unkept_notes", answer)
    context = window_factory(library=demo_library)
    drafts_path(context.data_dir).mkdir()  # where the file belongs, nothing can be written
    editor = _pane_on_item(context).open_editor(ITEM)
    qtbot.keyClicks(editor.editor, "Nowhere to keep this")
    context.window.close()
    assert asked == [1]
    assert context.window.isVisible()
    assert editor.isVisible()
    assert "could not be kept" in editor.error.text()
    assert editor.editor.toPlainText() == "Nowhere to keep this"
    with qtbot.waitSignal(context.window.thread_pane.note_queued, timeout=WAIT_MS):
        editor.save()  # the outbox still takes it: then the window closes unasked
    context.window.close()
    assert not context.window.isVisible()
    assert asked == [1]
    [note] = _queued_notes(context)
    assert "Nowhere to keep this" in note
    # Asked again with words nowhere to keep, the person may still close and lose them.
    other = window_factory()
    lost = _pane_on_item(other).open_editor(ITEM)
    qtbot.keyClicks(lost.editor, "Let this go")
    other.window.close()
    assert asked == [1, 1]
    assert not other.window.isVisible()
    assert not lost.isVisible()
