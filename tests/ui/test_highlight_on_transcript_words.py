"""A highlight made on a video's transcript: its quote and the words around it are the
transcript's own text, never the ``[mm:ss]`` and ``▶`` the reader puts before each line, and it
carries the moment of the line it starts in (``start_time``, as Memex's own video highlights
do); it is painted on its words again."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtGui import QTextCursor
from support.caches import processed_item
from support.signals import Emitted
from support.window import WindowFactory

from memex_desktop.app import AppContext
from memex_desktop.ui.highlight_painter import HIGHLIGHT_ID_PROPERTY

pytestmark = [pytest.mark.gui, pytest.mark.qt_log_ignore("propagateSizeHints")]

T0 = 1_700_000_000_000
LINES = [
    ("Next week, we'll look at interleaving.", 166.4),
    ("For now, try the ten-word experiment, and bring your results.", 173.7),
    ("See you next week.", 178.6),
    ("Oh, and one more thing: caffeine before a test doesn't help recall.", 181.1),
]
LIBRARY: dict[str, Any] = {
    "results": [
        processed_item(
            "lecture",
            "youtube",
            T0,
            title="How Memories Are Kept",
            url="https://www.youtube.com/watch?v=mem0ry",
            transcript={"en": [{"text": text, "offset": at} for text, at in LINES]},
        )
    ],
    "referencesByResultId": {},
    "extraEntities": [],
    "referencedEntities": [],
    "referencedTags": [],
    "meta": {},
}
# What the reader adds before a transcript line (the moment's link, the video's link).
DECORATIONS = ("[02:", "[03:", "▶")


@pytest.fixture
def context(qtbot: Any, window_factory: WindowFactory) -> AppContext:
    context = window_factory(library=LIBRARY)
    shown = Emitted(context.window.highlights.highlights_shown)
    context.window.open_entity("lecture")
    qtbot.waitUntil(lambda: ["lecture"] in shown.calls, timeout=10_000)
    return context


def _select_line(context: AppContext, words: str) -> None:
    """Select the whole transcript line holding ``words``, as a triple click does."""
    browser = context.window.reader_pane.browser
    document = browser.document()
    block = document.findBlock(document.toPlainText().index(words))
    cursor = QTextCursor(block)
    cursor.movePosition(QTextCursor.MoveOperation.EndOfBlock, QTextCursor.MoveMode.KeepAnchor)
    browser.setTextCursor(cursor)


def _highlight(qtbot: Any, context: AppContext) -> dict[str, Any]:
    """Ctrl+Shift+H on the selection: the data queued for Memex."""
    queued = Emitted(context.window.highlights.highlight_queued)
    assert context.window.highlights.highlight_selection() is not None
    qtbot.waitUntil(lambda: len(queued.calls) == 1, timeout=10_000)
    outbox = context.window.highlights.outbox
    assert outbox is not None
    (op,) = [op for op in outbox.list() if (op.payload or {}).get("type") == "selector"]
    return dict(op.payload or {})


def test_a_transcript_line_highlighted_sends_its_words_and_its_moment(
    qtbot: Any, context: AppContext
) -> None:
    _select_line(context, "See you next week.")
    data = _highlight(qtbot, context)
    assert data["text"] == "See you next week."
    assert data["prefix"].endswith("and bring your results.\n")
    assert data["suffix"].startswith("\nOh, and one more thing: caffe")
    for field in ("text", "prefix", "suffix"):
        assert not any(label in data[field] for label in DECORATIONS), (field, data[field])
    # The moment of the line, where Memex keeps a video highlight's (start_time).
    assert data["start_time"] == 178
    # Painted on the line's words.
    reader = context.window.reader_pane
    qtbot.waitUntil(lambda: reader.highlight_painter.painted_ids() != [], timeout=10_000)
    span = reader.highlight_painter.spans[reader.highlight_painter.painted_ids()[0]][0]
    document = reader.browser.document()
    assert document.toPlainText()[span.start : span.end] == "See you next week."
    cursor = QTextCursor(document)
    cursor.setPosition(span.start + 1)
    assert cursor.charFormat().property(HIGHLIGHT_ID_PROPERTY)


def test_a_passage_over_two_lines_leaves_out_the_labels_between_them(
    qtbot: Any, context: AppContext
) -> None:
    browser = context.window.reader_pane.browser
    document = browser.document()
    text = document.toPlainText()
    start = text.index("the ten-word experiment")
    end = text.index("See you next week.") + len("See you")
    cursor = QTextCursor(document)
    cursor.setPosition(start)
    cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
    browser.setTextCursor(cursor)
    data = _highlight(qtbot, context)
    assert data["text"] == "the ten-word experiment, and bring your results.\nSee you"
    assert data["start_time"] == 173
    for field in ("text", "prefix", "suffix"):
        assert not any(label in data[field] for label in DECORATIONS), (field, data[field])


def test_a_selection_of_labels_only_is_no_passage(context: AppContext) -> None:
    browser = context.window.reader_pane.browser
    document = browser.document()
    start = document.toPlainText().index("[02:58]")
    cursor = QTextCursor(document)
    cursor.setPosition(start)
    cursor.setPosition(start + len("[02:58] ▶ "), QTextCursor.MoveMode.KeepAnchor)
    browser.setTextCursor(cursor)
    assert context.window.reader_pane.selected_passage() is None
