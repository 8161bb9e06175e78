"""The note editor: [[ references, dropped links saved, Ctrl+Enter saves, Escape asks first."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QMimeData, Qt, QUrl

from memex_desktop.errors import user_message
from memex_desktop.store import DiskFullError, Outbox, SearchHit
from memex_desktop.ui.messages import message_line
from memex_desktop.ui.note_editor import (
    NoteEditor,
    PickedReference,
    annotation_payload,
    quoted_passage,
)
from memex_desktop.ui.tasks import TaskRunner

# The offscreen platform cannot resize, raise or grab; it says so as warnings.
pytestmark = pytest.mark.qt_log_ignore("This plugin does not support")


def _hit(entity_id: str, entity_type: str, title: str) -> SearchHit:
    return SearchHit(entity_id, entity_type, title, url=None, snippet="", created_at=None)


class TitleReader:
    """A ``TitleSearch``: every word of the query in the title, like CacheReader.search."""

    def __init__(self) -> None:
        self.items = [
            _hit("video", "youtube", "Hive inspection"),
            _hit("page", "web", "Gardening with bees"),
            _hit("tweet", "twitter", "Bee facts thread"),
        ]
        self.queries: list[str] = []

    def search(self, query: str, *, limit: int = 50) -> list[SearchHit]:
        self.queries.append(query)
        words = query.casefold().split()
        return [h for h in self.items if all(w in h.title.casefold() for w in words)][:limit]


@pytest.fixture
def outbox(tmp_path: Path) -> Iterator[Outbox]:
    box = Outbox(tmp_path / "outbox.db", cache_path=tmp_path / "cache.db")
    yield box
    box.close()


@pytest.fixture
def editor(qtbot, outbox: Outbox) -> NoteEditor:
    dialog = NoteEditor(
        TitleReader(), outbox, target_id="page", target_label="Gardening", is_reply=False
    )
    qtbot.addWidget(dialog)
    dialog.show()
    return dialog


def test_payload_of_plain_text_and_references() -> None:
    refs = [PickedReference("video", "Hive inspection"), PickedReference("unused", "Not here")]
    data = annotation_payload(
        "See [[Hive inspection]] now\nsecond line",
        target_id="note-1",
        references=refs,
        external_id="ext-1",
    )
    assert data["type"] == "annotation"
    assert data["external_id"] == "ext-1"
    assert data["reference_content_ids"] == ["note-1", "video"]
    assert data["text"] == "See Hive inspection now\nsecond line"
    assert data["content"] == {
        "type": "doc",
        "content": [
            {
                "type": "paragraph",
                "content": [
                    {"type": "text", "text": "See "},
                    {"type": "memex-reference", "attrs": {"content_id": "video"}},
                    {"type": "text", "text": " now"},
                ],
            },
            {"type": "paragraph", "content": [{"type": "text", "text": "second line"}]},
        ],
    }


def test_the_target_is_never_repeated_among_mentions() -> None:
    data = annotation_payload(
        "[[A]] and [[A]]",
        target_id="a",
        references=[PickedReference("a", "A")],
        external_id="e",
    )
    assert data["reference_content_ids"] == ["a"]


def test_double_bracket_opens_the_completer_and_enter_picks(qtbot, editor: NoteEditor) -> None:
    text = editor.editor
    text.setFocus()
    qtbot.keyClicks(text, "Compare with [[hive")
    popup = text.completer.popup()
    qtbot.waitUntil(popup.isVisible, timeout=2000)
    assert text.completions.stringList() == ["Hive inspection (Video)"]
    with qtbot.waitSignal(text.reference_picked, timeout=2000) as blocker:
        qtbot.keyClick(text, Qt.Key.Key_Return)
    assert blocker.args == ["video"]
    assert text.toPlainText() == "Compare with [[Hive inspection]] "
    qtbot.keyClicks(text, "and [[bee")
    qtbot.waitUntil(popup.isVisible, timeout=2000)
    assert len(text.completions.stringList()) == 2
    qtbot.keyClick(text, Qt.Key.Key_Escape)
    assert not popup.isVisible()
    qtbot.keyClicks(text, " facts")
    assert not popup.isVisible()
    with qtbot.waitSignal(editor.note_queued, timeout=5000) as queued:
        editor.save_button.click()
    op = editor._outbox.get(int(queued.args[0]))
    assert op.payload["reference_content_ids"] == ["page", "video"]
    assert op.external_id == editor.external_id


def test_empty_note_is_not_queued(qtbot, editor: NoteEditor) -> None:
    with qtbot.assertNotEmitted(editor.note_queued):
        editor.save()
    assert editor.error.isVisibleTo(editor)
    assert editor._outbox.pending_count() == 0


def test_dropping_a_link_queues_its_save_and_cites_it(qtbot, editor: NoteEditor) -> None:
    mime = QMimeData()
    mime.setUrls([QUrl("https://example.org/new-article")])
    with qtbot.waitSignal(editor.url_queued, timeout=2000):
        editor.editor.insertFromMimeData(mime)
    queued = editor._outbox.list()
    assert [op.url for op in queued] == ["https://example.org/new-article"]
    assert "[[https://example.org/new-article]]" in editor.editor.toPlainText()
    content = editor.payload()["content"]["content"][0]["content"]
    assert {"type": "link", "attrs": {"href": "https://example.org/new-article"}} in content[0][
        "marks"
    ]


def test_dropping_an_unsafe_link_saves_nothing(qtbot, editor: NoteEditor) -> None:
    mime = QMimeData()
    mime.setUrls([QUrl("file:///etc/passwd")])
    with qtbot.assertNotEmitted(editor.url_queued):
        editor.editor.insertFromMimeData(mime)
    assert editor._outbox.list() == []


DISK_FULL = DiskFullError("database or disk is full")


class BrokenOutbox:
    """An outbox whose disk refuses writes."""

    def enqueue_entity(self, data: dict, *, external_id: str) -> None:
        raise DISK_FULL

    def enqueue_url(self, url: str) -> None:
        raise DISK_FULL


class BuggyOutbox(BrokenOutbox):
    """An outbox that fails in a way nobody planned for."""

    def enqueue_url(self, url: str) -> None:
        raise RuntimeError("unexpected")


def _dialog(qtbot, outbox: object, runner: TaskRunner) -> NoteEditor:
    dialog = NoteEditor(
        TitleReader(),
        outbox,  # type: ignore[arg-type]
        target_id="page",
        target_label="Gardening",
        is_reply=False,
        runner=runner,
    )
    qtbot.addWidget(dialog)
    dialog.show()
    return dialog


def test_with_a_runner_the_note_is_committed_on_a_worker(
    qtbot, outbox: Outbox, runner: TaskRunner
) -> None:
    dialog = NoteEditor(
        TitleReader(),
        outbox,
        target_id="page",
        target_label="Gardening",
        is_reply=False,
        runner=runner,
    )
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.keyClicks(dialog.editor, "Written while offline")
    with qtbot.waitSignal(dialog.note_queued, timeout=5000) as queued:
        dialog.save_button.click()
        dialog.save()  # a second click while saving queues nothing more
    assert dialog.result() == NoteEditor.DialogCode.Accepted
    ops = outbox.list()
    assert [op.id for op in ops] == [int(queued.args[0])]
    assert ops[0].payload["text"] == "Written while offline"


def test_a_failed_commit_keeps_the_text_and_allows_another_try(qtbot, runner: TaskRunner) -> None:
    dialog = _dialog(qtbot, BrokenOutbox(), runner)
    qtbot.keyClicks(dialog.editor, "Precious words")
    with qtbot.assertNotEmitted(dialog.note_queued, wait=200):
        dialog.save_button.click()
        qtbot.waitUntil(lambda: dialog.error.isVisibleTo(dialog), timeout=5000)
    assert "still here" in dialog.error.text()
    assert dialog.editor.toPlainText() == "Precious words"
    assert dialog.save_button.isEnabled()
    assert dialog.isVisible()
    assert message_line(user_message(DISK_FULL)) in dialog.error.text()
    assert "Free some disk space" in dialog.error.text()


def test_a_link_that_cannot_be_queued_is_cited_and_the_editor_says_why(
    qtbot, runner: TaskRunner
) -> None:
    dialog = _dialog(qtbot, BrokenOutbox(), runner)
    mime = QMimeData()
    mime.setUrls([QUrl("https://example.org/full-disk")])
    with qtbot.assertNotEmitted(dialog.url_queued, wait=200):
        dialog.editor.insertFromMimeData(mime)
        qtbot.waitUntil(lambda: dialog.error.isVisibleTo(dialog), timeout=5000)
    assert message_line(user_message(DISK_FULL)) in dialog.error.text()
    assert "[[https://example.org/full-disk]]" in dialog.editor.toPlainText()


def test_an_unforeseen_failure_of_a_dropped_link_reaches_the_message_bridge(
    qtbot, runner: TaskRunner
) -> None:
    dialog = _dialog(qtbot, BuggyOutbox(), runner)
    mime = QMimeData()
    mime.setUrls([QUrl("https://example.org/bug")])
    with qtbot.waitSignal(runner.messages.shown, timeout=5000) as shown:
        dialog.editor.insertFromMimeData(mime)
    assert shown.args == [user_message(RuntimeError("unexpected"))]


def test_ctrl_enter_saves_the_note(qtbot, editor: NoteEditor, outbox: Outbox) -> None:
    qtbot.keyClicks(editor.editor, "Saved from the keyboard")
    with qtbot.waitSignal(editor.note_queued, timeout=5000):
        qtbot.keyClick(editor.editor, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert [op.payload["text"] for op in outbox.list()] == ["Saved from the keyboard"]
    assert editor.result() == NoteEditor.DialogCode.Accepted


def test_ctrl_enter_on_the_keypad_saves_too(qtbot, editor: NoteEditor, outbox: Outbox) -> None:
    qtbot.keyClicks(editor.editor, "From the keypad")
    modifiers = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.KeypadModifier
    with qtbot.waitSignal(editor.note_queued, timeout=5000):
        qtbot.keyClick(editor.editor, Qt.Key.Key_Enter, modifiers)
    assert len(outbox.list()) == 1


def test_escape_on_a_typed_note_asks_and_keep_editing_keeps_it(
    qtbot, editor: NoteEditor, outbox: Outbox
) -> None:
    qtbot.keyClicks(editor.editor, "Half a thought")
    qtbot.keyClick(editor.editor, Qt.Key.Key_Escape)
    question = editor.question
    assert question is not None
    qtbot.waitUntil(question.isVisible, timeout=5000)
    assert question.text() == "Discard this note?"
    keep, _discard = _answers(question)
    assert question.defaultButton() is keep
    assert question.escapeButton() is keep
    keep.click()
    assert editor.isVisible()
    assert editor.editor.toPlainText() == "Half a thought"
    # Asked again, Discard closes the editor and nothing is queued.
    qtbot.keyClick(editor.editor, Qt.Key.Key_Escape)
    qtbot.waitUntil(question.isVisible, timeout=5000)
    with qtbot.waitSignal(editor.rejected, timeout=5000):
        _answers(question)[1].click()
    assert not editor.isVisible()
    assert outbox.list() == []


def _answers(question) -> tuple:
    """The question's Keep editing and Discard buttons."""
    buttons = {button.text(): button for button in question.buttons()}
    assert set(buttons) == {"Keep editing", "Discard"}
    return buttons["Keep editing"], buttons["Discard"]


def test_cancel_and_closing_ask_too(qtbot, editor: NoteEditor) -> None:
    qtbot.keyClicks(editor.editor, "Not yet saved")
    editor.close()
    assert editor.isVisible()
    assert editor.question is not None
    qtbot.waitUntil(editor.question.isVisible, timeout=5000)


def test_escape_on_an_empty_note_closes_without_asking(qtbot, editor: NoteEditor) -> None:
    qtbot.keyClicks(editor.editor, "   ")
    with qtbot.waitSignal(editor.rejected, timeout=5000):
        qtbot.keyClick(editor.editor, Qt.Key.Key_Escape)
    assert editor.question is None
    assert not editor.isVisible()


def test_escape_with_only_the_quoted_passage_closes_without_asking(qtbot, outbox: Outbox) -> None:
    dialog = NoteEditor(
        TitleReader(),
        outbox,
        target_id="page",
        target_label="Gardening",
        is_reply=False,
        draft=quoted_passage("Bees like lavender."),
    )
    qtbot.addWidget(dialog)
    dialog.show()
    assert dialog.editor.toPlainText() == "> Bees like lavender.\n\n"
    assert dialog.editor.textCursor().position() == len("> Bees like lavender.\n\n")
    with qtbot.waitSignal(dialog.rejected, timeout=5000):
        qtbot.keyClick(dialog.editor, Qt.Key.Key_Escape)
    assert dialog.question is None


def test_escape_closes_the_completer_before_it_asks(qtbot, editor: NoteEditor) -> None:
    qtbot.keyClicks(editor.editor, "See [[bee")
    popup = editor.editor.completer.popup()
    qtbot.waitUntil(popup.isVisible, timeout=5000)
    qtbot.keyClick(editor.editor, Qt.Key.Key_Escape)
    assert not popup.isVisible()
    assert editor.question is None
    assert editor.isVisible()


def test_a_passage_becomes_a_markdown_quote() -> None:
    assert quoted_passage("") == ""
    assert quoted_passage("  \n ") == ""
    assert quoted_passage("One line.") == "> One line.\n\n"
    # Qt's selections separate paragraphs with U+2029; blank lines stay in the quote.
    assert quoted_passage("First.\u2029\u2029Second.\n") == "> First.\n>\n> Second.\n\n"
