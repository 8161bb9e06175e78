"""A queued save says what it is: its address, or the note, reply or highlight and its item."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from memex_desktop.store import CacheReader, Outbox, StoreWriter
from memex_desktop.store.save_description import (
    SavedItem,
    describe_save,
    saved_items,
    target_ids,
)
from memex_desktop.sync.highlights import Passage, queue_highlight, queue_note_on_passage
from memex_desktop.sync.notes import queue_note

LONG_TITLE = "Composting at home: a complete guide to worms, heat, air and patience in winter"


@pytest.fixture
def outbox(tmp_path: Path) -> Iterator[Outbox]:
    box = Outbox(tmp_path / "outbox.db")
    yield box
    box.close()


@pytest.fixture
def library(writer: StoreWriter, reader: CacheReader) -> CacheReader:
    writer.ingest_json(
        [
            {"id": "page", "type": "web", "title": "Compost at home", "created_at": 1},
            {"id": "long", "type": "web", "title": LONG_TITLE, "created_at": 2},
            {
                "id": "note1",
                "type": "annotation",
                "text": "Worms like coffee grounds",
                "reference_content_ids": ["page"],
                "created_at": 3,
            },
        ]
    ).result(timeout=60)
    return reader


def _only(outbox: Outbox) -> str:
    ops = outbox.list()
    return describe_save(ops[-1])


def test_a_url_save_is_its_address(outbox: Outbox) -> None:
    outbox.enqueue_url("https://example.org/read-later")
    assert _only(outbox) == "https://example.org/read-later"


def test_a_note_names_its_item_and_its_first_words(outbox: Outbox, library: CacheReader) -> None:
    queue_note(outbox, library, "Turn it weekly.\nAnd keep it damp.", target_id="page")
    ops = outbox.list()
    assert describe_save(ops[0], saved_items(library, ops)) == (
        "Note on “Compost at home”: Turn it weekly."
    )
    # Without the cache's titles the note still says what it is, never its client id.
    assert describe_save(ops[0]) == "Note: Turn it weekly."
    assert ops[0].external_id not in describe_save(ops[0])


def test_a_reply_names_the_note_it_answers(outbox: Outbox, library: CacheReader) -> None:
    queue_note(outbox, library, "And eggshells", target_id="page", reply_to="note1")
    ops = outbox.list()
    assert describe_save(ops[0], saved_items(library, ops)) == (
        "Reply to “Worms like coffee grounds”: And eggshells"
    )


def test_a_reply_to_a_note_still_queued_names_it(outbox: Outbox) -> None:
    outbox.enqueue_entity(
        {"id": "n1", "type": "annotation", "text": "First", "reference_content_ids": ["page"]},
        external_id="x1",
    )
    outbox.enqueue_entity(
        {"type": "annotation", "text": "Second", "reference_content_ids": ["n1"]},
        external_id="x2",
    )
    ops = outbox.list()
    items = saved_items(_NoCache(), ops)
    assert [describe_save(op, items) for op in ops] == ["Note: First", "Reply to “First”: Second"]


def test_a_highlight_names_its_item_and_quote(outbox: Outbox, library: CacheReader) -> None:
    queue_highlight(outbox, library, Passage("keep it damp", "", ""), target_id="page")
    ops = outbox.list()
    assert describe_save(ops[0], saved_items(library, ops)) == (
        "Highlight in “Compost at home”: “keep it damp”"
    )


def test_a_note_on_a_passage_says_its_own_words_in_plain_words(
    outbox: Outbox, library: CacheReader
) -> None:
    """A note on a passage begins with the passage as a markdown quote (as the note editor
    starts it): its line says the note's own words, without the quote's ``>``."""
    quote = "Keep the heap as damp as a wrung-out sponge."
    text = f"> {quote}\n\n**Twice** a week in summer."
    queue_note_on_passage(outbox, library, text, Passage(quote), target_id="page")
    ops = outbox.list()
    items = saved_items(library, ops)
    assert [describe_save(op, items) for op in ops] == [
        f"Highlight in “Compost at home”: “{quote}”",
        "Note on “Compost at home”: Twice a week in summer.",
    ]
    # A note that says nothing but the quote is told by the quote, in plain words too.
    queue_note(outbox, library, f"> {quote}\n\n", target_id="page")
    assert describe_save(outbox.list()[-1], items) == f"Note on “Compost at home”: {quote}"


def test_a_links_address_takes_none_of_a_notes_words(outbox: Outbox, library: CacheReader) -> None:
    address = "https://example.com/" + "a-very-long-address/" * 4
    queue_note(outbox, library, f"See [the article]({address}) about measuring", target_id="page")
    ops = outbox.list()
    assert describe_save(ops[0], saved_items(library, ops)) == (
        "Note on “Compost at home”: See the article about measuring"
    )


def test_long_titles_and_notes_are_cut_at_a_word(outbox: Outbox, library: CacheReader) -> None:
    queue_note(outbox, library, "word " * 60, target_id="long")
    ops = outbox.list()
    text = describe_save(ops[0], saved_items(library, ops))
    title, words = text.removeprefix("Note on “").split("”: ")
    assert title.endswith("…")
    assert LONG_TITLE.startswith(title[:-1].rstrip())
    assert words.endswith("…")
    assert len(text) < 130


def test_only_the_items_the_saves_name_are_read(outbox: Outbox, library: CacheReader) -> None:
    outbox.enqueue_url("https://example.org/a")
    queue_note(outbox, library, "One", target_id="page")
    queue_note(outbox, library, "Two", target_id="page")
    assert target_ids(outbox.list()) == ["page"]


def test_an_unknown_kind_of_entity_says_its_type(outbox: Outbox) -> None:
    outbox.enqueue_entity({"type": "chatThread", "title": "Ideas"}, external_id="c1")
    assert describe_save(outbox.list()[0], {"x": SavedItem("web", "X")}) == "Chat: Ideas"


class _NoCache:
    """A cache that holds none of the items."""

    def get_many(self, ids: object) -> dict[str, object]:
        return {}
