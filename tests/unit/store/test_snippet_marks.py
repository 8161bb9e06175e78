"""What a snippet marks: every word of the query and every phrase, as the search matched them."""

from __future__ import annotations

import re

import pytest

from memex_desktop.store import CacheReader, StoreWriter
from memex_desktop.store.query import python_snippet, snippet_terms

T = 1_700_000_000_000
FILLER = " ".join(f"filler{n}" for n in range(40))


def _marked(snippet: str) -> list[str]:
    """The marked pieces of a snippet, in order."""
    return re.findall("\x02([^\x03]*)\x03", snippet)


def _item(entity_id: str, full_text: str) -> dict[str, object]:
    return {
        "id": entity_id,
        "type": "web",
        "title": f"Page {entity_id}",
        "url": f"https://example.org/{entity_id}",
        "full_text": full_text,
        "created_at": T,
    }


@pytest.fixture
def cache(writer: StoreWriter, reader: CacheReader) -> CacheReader:
    writer.ingest_json(
        [
            _item("both", f"{FILLER} trus stark jar diong fox kyn jar fox"),
            _item("phrase", f"{FILLER} fox near here then the jar and fox jar after it"),
            _item("stems", "the jars of a jar, a jarl and foxes beside a fox and a foxglove"),
            _item("typing", "carrying a carrot and a car through the carriage house"),
        ]
    ).result()
    writer.flush_index().result()
    return reader


def test_every_query_word_is_marked_wherever_it_stands(cache: CacheReader) -> None:
    snippet = cache.snippets("fox jar ", ["both"])["both"]
    assert _marked(snippet) == ["jar", "fox", "jar", "fox"]
    assert "stark \x02jar\x03 diong \x02fox\x03" in snippet


def test_a_phrase_is_marked_whole_where_it_stands(cache: CacheReader) -> None:
    snippet = cache.snippets('"fox jar"', ["phrase"])["phrase"]
    assert _marked(snippet) == ["fox jar"]
    assert "and \x02fox jar\x03 after" in snippet


def test_a_phrase_and_a_word_are_each_marked(cache: CacheReader) -> None:
    snippet = cache.snippets('"fox jar" near', ["phrase"])["phrase"]
    assert _marked(snippet) == ["near", "fox jar"]


def test_words_typed_in_full_mark_those_words_only(cache: CacheReader) -> None:
    snippet = cache.snippets("jar fox ", ["stems"])["stems"]
    assert _marked(snippet) == ["jar", "fox"]


def test_a_word_being_typed_marks_the_words_it_begins_as_the_search_matched_them(
    cache: CacheReader,
) -> None:
    # From four letters the body is searched by prefix; a shorter stem matches whole words.
    assert _marked(cache.snippets("carr", ["typing"])["typing"]) == [
        "carrying",
        "carrot",
        "carriage",
    ]
    assert _marked(cache.snippets("car", ["typing"])["typing"]) == ["car"]


def test_search_hits_carry_the_same_marks(cache: CacheReader) -> None:
    hits = {hit.id: hit.snippet for hit in cache.search('"fox jar"')}
    assert _marked(hits["phrase"]) == ["fox jar"]


def test_a_search_without_words_gives_the_start_of_the_text(
    writer: StoreWriter, reader: CacheReader
) -> None:
    writer.ingest_json(
        [{**_item("tagged", "Beginning of the text, then more words"), "tag_ids": ["t1"]}],
        tags=[{"id": "t1", "name": "zul"}],
    ).result()
    writer.flush_index().result()
    assert reader.search("tag:zul")[0].snippet.startswith("Beginning of the text")
    assert reader.snippets("tag:zul", ["tagged"]) == {}


@pytest.mark.parametrize("before", ["", "İstanbul and "])
def test_marks_keep_the_text_as_written(before: str) -> None:
    # "İ" lowercases to two characters: the text is then searched in any case as it stands.
    text = f"{before}The FOX, a Jar; fox-jar and foxes"
    snippet = python_snippet(text, snippet_terms('"fox jar" fox '), 160)
    assert _marked(snippet) == ["FOX", "fox-jar"]
    assert snippet.startswith(before)
