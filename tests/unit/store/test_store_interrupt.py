"""Interruptible reads (a superseded search, a GUI read over budget) and snippets by id."""

from __future__ import annotations

import itertools

import pytest

from memex_desktop.store import CacheReader, StoreWriter
from memex_desktop.store.reader import QueryInterrupted

T = 1_700_000_000_000  # epoch ms
WORDS = ("orchard", "harbour", "lantern", "meadow", "quarry")


@pytest.fixture
def many(writer: StoreWriter, reader: CacheReader) -> CacheReader:
    """600 indexed web pages, each naming one of WORDS in its title and body."""
    entities = [
        {
            "id": f"page-{number}",
            "type": "web",
            "title": f"{WORDS[number % len(WORDS)]} page {number}",
            "url": f"https://example.org/{number}",
            "full_text": f"Notes on the {WORDS[number % len(WORDS)]} number {number}.",
            "created_at": T + number,
        }
        for number in range(600)
    ]
    writer.ingest_json(entities, tags=[]).result()
    writer.flush_index().result()
    return reader


def test_a_stop_that_holds_ends_the_read(many: CacheReader) -> None:
    with pytest.raises(QueryInterrupted), many.interrupted_when(lambda: True):
        many.search_ids("")


def test_a_stop_that_fires_midway_ends_the_read(many: CacheReader) -> None:
    calls = itertools.count()
    with pytest.raises(QueryInterrupted), many.interrupted_when(lambda: next(calls) >= 2):
        many.search_ids("page")


def test_reads_are_unchanged_when_the_stop_never_holds(many: CacheReader) -> None:
    expected = many.search_ids("orchard")
    with many.interrupted_when(lambda: False):
        found = many.search_ids("orchard")
    assert found == expected
    assert len(found) == 120


def test_the_reader_works_normally_after_an_interrupted_read(many: CacheReader) -> None:
    with pytest.raises(QueryInterrupted), many.interrupted_when(lambda: True):
        many.search_ids("")
    assert len(many.search_ids("")) == 600
    assert many.get("page-3") is not None


def test_other_failures_are_not_reported_as_interruptions(many: CacheReader) -> None:
    with pytest.raises(ValueError, match="boom"), many.interrupted_when(lambda: False):
        raise ValueError("boom")


def test_snippets_by_id_match_those_of_search(many: CacheReader) -> None:
    hits = many.search("lantern", limit=10)
    ids = [hit.id for hit in hits]
    snippets = many.snippets("lantern", [*ids, "page-0", "missing-id"])
    assert {hit.id: hit.snippet for hit in hits} == {i: snippets[i] for i in ids}
    assert all("\x02lantern\x03" in snippets[i] for i in ids)
    assert "page-0" not in snippets  # an orchard page: nothing to mark
    assert "missing-id" not in snippets
    assert many.snippets("", ids) == {}
