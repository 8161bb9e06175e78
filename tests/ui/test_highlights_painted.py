"""Highlights from the cache (other clients' too) painted in the real reader and listed in the
notes pane: a quote found by its context, a video's moment on its transcript lines, a quote
not in the text left unpainted but listed; and both exports carry them under their item."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtGui import QTextCursor
from support.caches import processed_item
from support.signals import Emitted
from support.window import WindowFactory

from memex_desktop import paths
from memex_desktop.app import AppContext
from memex_desktop.store import CacheReader
from memex_desktop.sync.export import build_export, export_markdown
from memex_desktop.ui.highlight_painter import (
    DEFAULT_HIGHLIGHT_COLOUR,
    HIGHLIGHT_ID_PROPERTY,
    highlight_colour,
)

pytestmark = [pytest.mark.gui, pytest.mark.qt_log_ignore("propagateSizeHints")]

T0 = 1_700_000_000_000


LIBRARY: dict[str, Any] = {
    "results": [
        processed_item(
            "page",
            "web",
            T0,
            title="Compost at home",
            url="https://garden.example/compost",
            full_text=(
                "Every week you turn the heap so that air reaches the middle.\n\n"
                "In winter you still turn the heap, but less often."
            ),
        ),
        # Another client's highlight of the second "turn the heap", told apart by its context.
        processed_item(
            "sel-winter",
            "selector",
            T0 + 1,
            target_id="page",
            selector_type="text_selector",
            text="turn the heap",
            prefix="In winter you still ",
            suffix=", but less often.",
        ),
        # A quote the text no longer holds: listed, not painted.
        processed_item(
            "sel-gone",
            "selector",
            T0 + 2,
            target_id="page",
            selector_type="text_chunk",
            text="A sentence the page lost in an edit.",
        ),
        # A note attached to the highlight itself (as the first-party app links comments).
        processed_item(
            "note-on-sel",
            "annotation",
            T0 + 3,
            text="Less often in the cold.",
            reference_content_ids=["sel-winter"],
        ),
        processed_item(
            "video",
            "youtube",
            T0 + 4,
            title="Turning a heap",
            url="https://www.youtube.com/watch?v=heap1",
            transcript={
                "en": [
                    {"text": "Hello and welcome.", "offset": 0},
                    {"text": "First, the fork goes in deep.", "offset": 30},
                    {"text": "Then you lift and turn.", "offset": 60},
                    {"text": "That is all.", "offset": 90},
                ]
            },
        ),
        processed_item(
            "sel-moment",
            "selector",
            T0 + 5,
            target_id="video",
            selector_type="time_selector",
            start_time=41,
            end_time=75,
        ),
    ],
    "referencesByResultId": {
        "note-on-sel": {"contentEntityIds": ["sel-winter"], "tagIds": []},
    },
    "extraEntities": [],
    "referencedEntities": [],
    "referencedTags": [],
    "meta": {},
}


def _painted(context: AppContext) -> dict[str, str]:
    """highlight id -> the text painted with it."""
    document = context.window.reader_pane.browser.document()
    found: dict[str, str] = {}
    block = document.begin()
    while block.isValid():
        iterator = block.begin()
        while not iterator.atEnd():
            fragment = iterator.fragment()
            value = fragment.charFormat().property(HIGHLIGHT_ID_PROPERTY)
            if isinstance(value, str) and value:
                found[value] = found.get(value, "") + fragment.text()
            iterator += 1
        block = block.next()
    return found


def _open(qtbot: Any, context: AppContext, entity_id: str) -> None:
    shown = Emitted(context.window.highlights.highlights_shown)
    context.window.open_entity(entity_id)
    qtbot.waitUntil(lambda: [entity_id] in shown.calls, timeout=10_000)


@pytest.fixture
def context(window_factory: WindowFactory) -> AppContext:
    return window_factory(library=LIBRARY)


def test_other_clients_highlights_are_painted_where_their_context_says(
    qtbot: Any, context: AppContext
) -> None:
    _open(qtbot, context, "page")
    reader = context.window.reader_pane
    assert _painted(context) == {"sel-winter": "turn the heap"}
    text = reader.browser.document().toPlainText()
    span = reader.highlight_painter.span_of("sel-winter")
    assert span is not None
    assert span.start == text.index("turn the heap", text.index("turn the heap") + 1)
    assert reader.highlight_painter.unplaced == ["sel-gone"]
    # The notes pane lists both with their quotes, and the note on the highlight under it.
    pane = context.window.thread_pane
    qtbot.waitUntil(lambda: len(pane.highlight_rows) == 2)
    quotes = [row.quote.text() for row in pane.highlight_rows]
    assert quotes == ["“turn the heap”", "“A sentence the page lost in an edit.”"]
    card = next(card for card in pane.cards if card.entry.id == "note-on-sel")
    assert card.quote.text() == "On “turn the heap”"
    # Picking the highlight in the list shows its note there and its passage in the reader.
    reader.browser.verticalScrollBar().setValue(0)
    pane.highlight_rows[0].picked.emit("sel-winter")
    assert pane.shown_for_highlight is card
    # Painting again (a refresh) paints each once, and the text around is as it was.
    before = reader.browser.document().toHtml()
    reader.highlight_painter.paint(list(reader.highlight_painter.highlights))
    assert _painted(context) == {"sel-winter": "turn the heap"}
    assert reader.browser.document().toHtml() == before
    reader.show_highlights("page", [])
    assert _painted(context) == {}


def test_a_time_selector_marks_the_transcript_lines_of_its_moment(
    qtbot: Any, context: AppContext
) -> None:
    _open(qtbot, context, "video")
    painted = _painted(context)
    assert list(painted) == ["sel-moment"]
    # 0:41-1:15 is said in the lines that start at 0:30 and at 1:00, and only those.
    marked = painted["sel-moment"]
    assert "First, the fork goes in deep." in marked
    assert "Then you lift and turn." in marked
    assert "Hello" not in marked
    assert "That is all." not in marked
    pane = context.window.thread_pane
    qtbot.waitUntil(lambda: len(pane.highlight_rows) == 1)
    assert pane.highlight_rows[0].quote.text() == "The video at 00:41–01:15"


def test_a_selection_of_white_space_is_no_passage(qtbot: Any, context: AppContext) -> None:
    _open(qtbot, context, "page")
    reader = context.window.reader_pane
    cursor = QTextCursor(reader.browser.document())
    cursor.setPosition(0)
    reader.browser.setTextCursor(cursor)
    assert reader.selected_passage() is None
    messages = Emitted(context.window.highlights.message)
    assert context.window.highlights.highlight_selection() is None
    assert messages.calls == [["Select a passage in the reader to highlight it."]]


def test_exports_carry_highlights_under_their_item(context: AppContext, tmp_path: Path) -> None:
    reader = CacheReader(context.data_dir / "cache.db")
    try:
        exported = build_export(reader)
        folder = export_markdown(reader, tmp_path)
    finally:
        reader.close()
    marked = exported["highlightsByResultId"]
    assert [h["id"] for h in marked["page"]] == ["sel-winter", "sel-gone"]
    assert marked["page"][0]["text"] == "turn the heap"
    assert marked["page"][0]["prefix"] == "In winter you still "
    assert marked["page"][0]["note_ids"] == ["note-on-sel"]
    assert marked["video"] == [
        {"id": "sel-moment", "selector_type": "time_selector", "start_time": 41.0,
         "end_time": 75.0, "note_ids": []}
    ]  # fmt: skip
    json.dumps(exported)  # the file stays JSON
    page = next(folder.glob("compost-at-home-*.md")).read_text(encoding="utf-8")
    highlights = page.split("## Highlights", 1)[1]
    assert "> turn the heap" in highlights
    assert "Less often in the cold." in highlights
    assert "> A sentence the page lost in an edit." in highlights
    video = next(folder.glob("turning-a-heap-*.md")).read_text(encoding="utf-8")
    assert "> The video at 00:41–01:15" in video
    # Highlights are written under their item, not as files of their own.
    assert not [p for p in folder.glob("*.md") if p.name.startswith("selector-")]


def test_the_reader_menu_offers_highlight_and_note_on_a_selection(
    qtbot: Any, context: AppContext
) -> None:
    _open(qtbot, context, "page")
    reader = context.window.reader_pane
    controller = context.window.highlights
    menu = controller.reader_menu(reader.browser.rect().center())
    assert "Highlight selection" not in [a.text().replace("&", "") for a in menu.actions()]
    cursor = QTextCursor(reader.browser.document())
    start = reader.browser.document().toPlainText().index("air reaches")
    cursor.setPosition(start)
    cursor.setPosition(start + len("air reaches"), QTextCursor.MoveMode.KeepAnchor)
    reader.browser.setTextCursor(cursor)
    menu = controller.reader_menu(reader.browser.rect().center())
    labels = [a.text().replace("&", "") for a in menu.actions()]
    assert labels[-2:] == ["Highlight selection", "Add note"]


def test_the_mark_takes_its_colour_from_the_reader_stylesheet() -> None:
    css = paths.resource_path("reader.css").read_text(encoding="utf-8")
    colour = highlight_colour(css)
    assert (colour.red(), colour.green(), colour.blue(), colour.alpha()) == (255, 190, 0, 97)
    assert highlight_colour(".memex-highlight { background: #336699 }").name() == "#336699"
    assert highlight_colour("p { color: red }") == DEFAULT_HIGHLIGHT_COLOUR
