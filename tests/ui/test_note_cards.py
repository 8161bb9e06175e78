"""Note cards show every word: as tall as their text, long ones folded, the wheel for the pane.

The tests read a real cache (``seeded_cache``) into a real, shown thread pane, or write a note
in the real window against the emulator; heights are measured against the card's own document
laid out again at the card's width.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QApplication
from support.signals import Emitted
from support.window import seeded_cache

from memex_desktop.store import CacheReader, Outbox
from memex_desktop.sync import SyncOutcome
from memex_desktop.ui.tasks import TaskRunner
from memex_desktop.ui.thread_pane import (
    FOLD_AFTER_LINES,
    FOLDED_LINES,
    PROCESSING,
    NoteCard,
    ThreadPane,
    line_bottoms,
)

pytestmark = pytest.mark.qt_log_ignore("This plugin does not support", "propagateSizeHints")

T0 = 1_700_000_000_000
WORDS = [f"w{number:04d}" for number in range(2000)]
# Twenty paragraphs of a hundred words: a long note as people write one.
LONG_TEXT = "\n\n".join(" ".join(WORDS[start : start + 100]) for start in range(0, 2000, 100))


def _note(note_id: str, text: str, at: int) -> dict[str, Any]:
    paragraphs = [
        {"type": "paragraph", "content": [{"type": "text", "text": block}]}
        for block in text.split("\n\n")
    ]
    return {
        "id": note_id,
        "type": "annotation",
        "created_at": at,
        "updated_at": at,
        "metadata": {"status": "indexing-done"},
        "text": text,
        "content": {"type": "doc", "content": paragraphs},
        "reference_content_ids": ["page"],
    }


def library() -> dict[str, Any]:
    """A page with a 2,000-word note and a short one after it."""
    page = {
        "id": "page",
        "type": "web",
        "title": "A long read",
        "url": "https://example.org/long",
        "created_at": T0,
        "updated_at": T0,
        "metadata": {"status": "indexing-done"},
    }
    results = [page, _note("long", LONG_TEXT, T0 + 1), _note("short", "A short note.", T0 + 2)]
    return {
        "results": results,
        "referencesByResultId": {n["id"]: {"contentEntityIds": ["page"]} for n in results[1:]},
        "meta": {},
    }


@pytest.fixture
def pane(qtbot: Any, tmp_path: Path, runner: TaskRunner) -> Iterator[ThreadPane]:
    """A shown thread pane on the page, its thread drawn."""
    path = seeded_cache(tmp_path / "data", library())
    reader = CacheReader(path)
    outbox = Outbox(tmp_path / "outbox.db", cache_path=path)
    widget = ThreadPane(reader, runner, outbox=outbox)
    qtbot.addWidget(widget)
    widget.resize(360, 600)
    widget.show()
    with qtbot.waitSignal(widget.thread_shown, timeout=5000):
        widget.show_entity("page")
    yield widget
    widget.close()
    outbox.close()
    reader.close()


def _card(pane: ThreadPane, note_id: str) -> NoteCard:
    return next(card for card in pane.cards if card.entry.id == note_id)


def _height_at_width(card: NoteCard) -> float:
    """The card's document laid out anew at the width its text box has now."""
    document = card.body.document().clone()
    document.setTextWidth(card.body.viewport().width())
    return document.size().height()


def _laid_out(qtbot: Any, card: NoteCard) -> None:
    """Wait until the card's text box has its width in the pane and its text that width."""
    qtbot.waitUntil(
        lambda: (
            card.body.viewport().width() > 100
            and card.body.document().textWidth() == card.body.viewport().width()
        ),
        timeout=5000,
    )


def test_a_long_note_is_folded_on_a_line_and_unfolds_to_every_word(
    qtbot: Any, pane: ThreadPane
) -> None:
    card = _card(pane, "long")
    _laid_out(qtbot, card)
    body = card.body
    assert body.toPlainText().split() == WORDS
    # Folded: its first lines, ending on a line's bottom (no glyph cut), with Show more.
    lines = line_bottoms(body.document())
    assert len(lines) > FOLD_AFTER_LINES
    qtbot.waitUntil(lambda: card.toggle.isVisibleTo(card), timeout=5000)
    assert card.toggle.text() == "Show more"
    assert body.height() == math.ceil(lines[FOLDED_LINES - 1]) + 1
    assert body.height() < lines[FOLDED_LINES]  # the next line is not partly shown
    assert body.fade.isVisibleTo(body)
    assert body.fade.geometry().bottom() == body.viewport().height() - 1

    qtbot.mouseClick(card.toggle, Qt.MouseButton.LeftButton)
    assert card.toggle.text() == "Show less"
    assert not body.fade.isVisibleTo(body)
    needed = _height_at_width(card)
    assert needed > 40 * body.fontMetrics().lineSpacing()  # the whole note, not a window on it
    assert body.height() >= needed
    qtbot.waitUntil(lambda: card.height() >= needed, timeout=5000)  # the pane lays it out
    assert body.verticalScrollBar().maximum() == 0  # nothing inside it to scroll to

    # Narrower, the text wraps onto more lines and the card grows with it.
    before = body.height()
    pane.resize(260, 600)
    qtbot.waitUntil(lambda: body.height() > before, timeout=5000)
    _laid_out(qtbot, card)
    assert body.height() >= _height_at_width(card)

    qtbot.mouseClick(card.toggle, Qt.MouseButton.LeftButton)
    assert card.toggle.text() == "Show more"
    assert body.height() == math.ceil(line_bottoms(body.document())[FOLDED_LINES - 1]) + 1


def test_a_short_note_is_whole_and_offers_no_toggle(qtbot: Any, pane: ThreadPane) -> None:
    card = _card(pane, "short")
    _laid_out(qtbot, card)
    assert not card.toggle.isVisibleTo(card)
    assert not card.body.fade.isVisibleTo(card.body)
    assert card.body.height() >= _height_at_width(card)
    assert card.body.height() >= card.body.fontMetrics().height()


def _wheel(widget: Any, steps: int) -> QWheelEvent:
    """Turn the wheel over the middle of ``widget`` (negative steps scroll down)."""
    inside = QPointF(widget.width() / 2, widget.height() / 2)
    event = QWheelEvent(
        inside,
        QPointF(widget.mapToGlobal(inside.toPoint())),
        QPoint(0, 0),
        QPoint(0, 120 * steps),
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
        Qt.ScrollPhase.NoScrollPhase,
        False,
    )
    QApplication.sendEvent(widget, event)
    return event


def test_the_wheel_over_a_card_scrolls_the_pane_not_the_card(qtbot: Any, pane: ThreadPane) -> None:
    card = _card(pane, "long")
    _laid_out(qtbot, card)
    qtbot.mouseClick(card.toggle, Qt.MouseButton.LeftButton)
    bar = pane.scroll_area.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 0, timeout=5000)
    assert bar.value() == 0
    _wheel(card.body.viewport(), -3)
    assert bar.value() > 0
    assert card.body.verticalScrollBar().value() == 0
    scrolled = bar.value()
    _wheel(card.body.viewport(), 1)
    assert bar.value() < scrolled


def test_a_folded_card_keeps_its_first_line_in_view(qtbot: Any, pane: ThreadPane) -> None:
    card = _card(pane, "long")
    _laid_out(qtbot, card)
    qtbot.waitUntil(lambda: card.toggle.isVisibleTo(card), timeout=5000)
    # Moving the caret to the end (keys, a search) would scroll a text box: this one stays.
    card.body.moveCursor(card.body.textCursor().MoveOperation.End)
    card.body.ensureCursorVisible()
    assert card.body.verticalScrollBar().value() == 0


def _sync(qtbot: Any, context: Any) -> Any:
    """Wait for any running sync, run one more and return its report."""
    qtbot.waitUntil(lambda: not context.controller.syncing, timeout=60_000)
    finished = Emitted(context.controller.sync_finished)
    assert context.controller.sync_now()
    return finished.wait(qtbot, 60_000)[0]


def test_a_note_written_on_a_passage_keeps_its_words_while_the_server_processes_it(
    qtbot: Any, window_factory: Any, emulator_factory: Any
) -> None:
    server = emulator_factory(processing_delay_s=600)  # the server takes its time
    context = window_factory(server=server)
    window = context.window
    assert _sync(qtbot, context).outcome is SyncOutcome.OK
    opened = Emitted(window.entity_opened)
    window.open_entity("web-1")
    assert opened.wait(qtbot) == ["web-1"]
    pane = window.thread_pane
    qtbot.waitUntil(lambda: pane.add_button.isEnabled(), timeout=10_000)

    # A passage selected in the reader starts the note as a quote (Add note, Ctrl+Shift+N).
    browser = window.reader_pane.browser
    passage = "Cloud apps are convenient but fragile."
    found = browser.document().find(passage)
    assert found.hasSelection()
    browser.setTextCursor(found)
    assert window.reader_pane.selected_text() == passage
    window.actions_by_key["add_note"].trigger()
    editor = pane.editor
    assert editor is not None
    assert editor.target_id == "web-1"
    assert editor.editor.toPlainText() == f"> {passage}\n\n"
    qtbot.keyClicks(editor.editor, "Fragile how, exactly?")
    external_id = editor.external_id

    # Ctrl+Enter saves; the window sends it at once and the server answers "pending".
    sent = Emitted(context.controller.sync_finished)
    qtbot.keyClick(editor.editor, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert sent.wait(qtbot, 60_000)[0].outcome is SyncOutcome.OK
    [stored] = [
        data
        for entity_id in server.state.entity_ids()
        if (data := server.state.entity(entity_id) or {}).get("external_id") == external_id
    ]
    assert stored["metadata"]["status"] == "pending"

    def written() -> NoteCard | None:
        return next((card for card in pane.cards if card.entry.id == stored["id"]), None)

    qtbot.waitUntil(lambda: written() is not None, timeout=10_000)
    card = written()
    assert card is not None
    words = card.body.toPlainText()
    # The passage shows once, as the quote the note is on, above what the note says.
    assert card.quote.isVisibleTo(card)
    assert card.quote.text() == f"On “{passage}”"
    assert passage not in words
    assert "Fragile how, exactly?" in words
    assert "Still processing" not in words
    assert card.badge.isVisibleTo(card)
    assert card.badge.text() == PROCESSING
    assert not card.entry.pending  # the server's copy, shown once
    assert [e.id for _d, e in pane.shown()].count(stored["id"]) == 1
    # The window is small here, so its notes pane is folded away; shown, the card fits its text.
    if not pane.isVisible():
        window.actions_by_key["toggle_threads"].trigger()
    qtbot.waitUntil(pane.isVisible, timeout=5000)
    _laid_out(qtbot, card)
    assert card.body.height() >= _height_at_width(card) > card.body.fontMetrics().lineSpacing()


def test_reply_answers_the_note_in_focus_else_the_newest(qtbot: Any, pane: ThreadPane) -> None:
    editor = pane.reply_to_current()
    assert editor is not None
    assert editor.target_id == "short"  # nothing in focus: the newest note
    editor.reject()
    long_card = _card(pane, "long")
    pane.window().activateWindow()
    long_card.body.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is long_card.body, timeout=5000)
    editor = pane.reply_to_current()
    assert editor is not None
    assert editor.target_id == "long"
    assert editor.windowTitle() == "Reply"
