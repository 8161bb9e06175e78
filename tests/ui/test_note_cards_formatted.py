"""A note's card shows the markdown typed into it as formatting, not as its characters: the
same words the Reply dialog names the note by, bold where ``**`` was typed."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtGui import QFont, QTextCursor
from PySide6.QtWidgets import QLabel

from memex_desktop.api.content import display_title
from memex_desktop.api.models import SearchRawResponse, parse_content_entity
from memex_desktop.api.plain_text import plain_text
from memex_desktop.paths import resource_path
from memex_desktop.render import RenderContext, render_entity
from memex_desktop.store import CacheReader, Outbox, StoreWriter
from memex_desktop.sync.notes import annotation_payload
from memex_desktop.ui.reader_pane import backlink_words
from memex_desktop.ui.tasks import TaskRunner
from memex_desktop.ui.thread_pane import NoteCard, ThreadPane, formatted_note

pytestmark = [pytest.mark.gui, pytest.mark.qt_log_ignore("propagateSizeHints")]

T0 = 1_700_000_000_000
TYPED = "Test note from the tester about **outboxes**."
SHOWN = "Test note from the tester about outboxes."
ON_A_PASSAGE = "> Queue every save first.\n> Then send it.\n\nThe *whole* point, in `two` lines."
# A note's text naming the page it references, as Memex compiles a reference into its text.
NAMING = "Read this with **care**: [Outboxes]"


def _note(note_id: str, text: str, at: int) -> dict[str, Any]:
    """A note on the page as the note editor saves one: the text as typed."""
    note = annotation_payload(text, target_id="page", references=[], external_id=note_id)
    return {**note, "id": note_id, "created_at": at, "updated_at": at}


@pytest.fixture
def pane(qtbot: Any, tmp_path: Path, runner: TaskRunner) -> Iterator[ThreadPane]:
    """The thread pane on a page with two notes typed with markdown."""
    page = {"id": "page", "type": "web", "title": "Outboxes", "url": "https://a.example/o"}
    page |= {"created_at": T0, "updated_at": T0}
    notes = [
        _note("typed", TYPED, T0 + 1),
        _note("passage", ON_A_PASSAGE, T0 + 2),
        _note("naming", NAMING, T0 + 3),
    ]
    refs = {note["id"]: {"contentEntityIds": ["page"], "tagIds": []} for note in notes}
    library = {"results": [page, *notes], "referencesByResultId": refs, "meta": {}}
    path = tmp_path / "cache.db"
    writer = StoreWriter(path)
    writer.ingest_search_page(SearchRawResponse.model_validate(library)).result(timeout=30)
    writer.close()
    reader = CacheReader(path)
    outbox = Outbox(tmp_path / "outbox.db", cache_path=path)
    widget = ThreadPane(reader, runner, outbox=outbox)
    qtbot.addWidget(widget)
    widget.resize(500, 600)
    with qtbot.waitSignal(widget.thread_shown, timeout=10_000):
        widget.show_entity("page")
    yield widget
    widget.close()
    outbox.close()
    reader.close()


def _card(pane: ThreadPane, note_id: str) -> NoteCard:
    return next(card for card in pane.cards if card.entry.id == note_id)


def _weight_of(card: NoteCard, words: str) -> int:
    """The font weight the card's text shows ``words`` in."""
    document = card.body.document()
    found = document.find(words)
    assert not found.isNull(), document.toPlainText()
    cursor = QTextCursor(document)
    cursor.setPosition(found.selectionStart() + 1)
    return cursor.charFormat().fontWeight()


def test_a_note_card_shows_bold_where_stars_were_typed(pane: ThreadPane) -> None:
    card = _card(pane, "typed")
    shown = card.body.toPlainText()
    assert SHOWN in shown
    assert "*" not in shown
    assert _weight_of(card, "outboxes") >= QFont.Weight.DemiBold.value
    assert _weight_of(card, "tester") < QFont.Weight.DemiBold.value
    assert card.body.accessibleDescription() == SHOWN


def test_the_card_and_the_reply_dialog_show_the_same_words(pane: ThreadPane) -> None:
    editor = pane.open_editor("typed")
    assert editor.findChildren(QLabel)[0].text() == f"Reply to: {SHOWN}"
    assert SHOWN in _card(pane, "typed").body.toPlainText()


def test_a_typed_quote_and_inline_marks_show_without_their_syntax(pane: ThreadPane) -> None:
    card = _card(pane, "passage")
    shown = card.body.toPlainText()
    assert "Queue every save first." in shown
    assert "The whole point, in two lines." in shown
    assert not any(mark in shown for mark in (">", "*", "`"))
    html = card.body.document().toHtml()
    assert html.count("margin-left") >= 1  # the quote is indented as a quote


def test_referenced_by_tells_a_demo_note_without_brackets() -> None:
    """The reader's "Referenced by" line of a demo note naming the item it references."""
    library = json.loads(resource_path("demo", "library.json").read_text(encoding="utf-8"))
    note = next(item for item in library["results"] if item["id"] == "note-convergence-intent")
    titles = {item["id"]: display_title(item) for item in library["results"]}
    said = backlink_words(note, titles)
    assert said is not None
    assert "[" not in said.name
    assert "]" not in said.name
    assert "The Ana and Ben example" in said.name


@pytest.mark.parametrize(
    "address", ["javascript:alert(1)", "data:text/html,<b>x</b>", "file:///etc/passwd"]
)
def test_a_card_links_to_no_other_scheme(address: str) -> None:
    """A card's link marks go through the sanitiser's scheme allow-list, whatever
    parentheses the address holds."""
    note = parse_content_entity({"id": "n", "type": "annotation", "text": f"a [x]({address}) b"})
    html = render_entity(formatted_note(note), RenderContext(lookup=lambda _id: None)).html
    body = html.partition('class="body"')[2]
    assert "href" not in body
    assert "x</a> b" in body  # no stray ")" of the address
    assert plain_text(f"a [x]({address}) b") == "a x b"


def test_a_card_shows_a_reference_in_brackets_as_its_description_does() -> None:
    text = "The table spells it out: [Conflict Resolution Strategies for Sync Engines, Compared]"
    note = parse_content_entity({"id": "n", "type": "annotation", "text": text})
    titles = {"c": "Conflict Resolution Strategies for Sync Engines, Compared"}
    html = render_entity(formatted_note(note, titles), RenderContext(lookup=lambda _id: None)).html
    body = html.partition('class="body"')[2]
    assert "Sync Engines, Compared" in body
    assert "[" not in body
    assert "]" not in body


def test_a_cards_description_names_a_referenced_item_as_the_card_shows_it(
    pane: ThreadPane,
) -> None:
    """A screen reader hears the words the card shows: the referenced page's title without
    the brackets the note's text names it in."""
    card = _card(pane, "naming")
    assert "Read this with care: Outboxes" in card.body.toPlainText()
    assert card.body.accessibleDescription() == "Read this with care: Outboxes"
