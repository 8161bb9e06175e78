"""Searches of combined words find the newest matches however many there are.

Words asked for together (or one without another) are read from the index forwards first,
and read again newest first only when they match many items; a pasted title's typed word is
looked up among its few hits. Each count below lands in one of those cases: fewer matches
than a page, more than a page but fewer than two, and many more.
"""

from __future__ import annotations

import pytest
from support.caches import web_item

from memex_desktop.store import CacheReader, StoreWriter

ITEMS = 400
PAGE = 50
# Every item holds these four words: asked for together, they are "many words".
COMMON = "kappa lambda mu nu"
MARKS = {"scarce": 40, "middling": 5, "plenty": 2}  # a mark on every n-th item


def _marks(number: int) -> list[str]:
    marks = [word for word, every in MARKS.items() if number % every == 0]
    if number % 40 == 20:
        marks.append("scarcer")  # a completion of "scarce", on items without it
    return marks


def _items() -> list[dict[str, object]]:
    return [
        web_item(number, f"Item {number}", f"{COMMON} {' '.join(_marks(number))} filler{number}")
        for number in range(ITEMS)
    ]


def _newest(keep: object) -> list[str]:
    return [f"item-{n:04d}" for n in reversed(range(ITEMS)) if keep(n)][:PAGE]  # type: ignore[operator]


@pytest.fixture
def indexed(writer: StoreWriter, reader: CacheReader) -> CacheReader:
    writer.ingest_json(_items()).result()
    writer.flush_index().result()
    return reader


@pytest.mark.parametrize("mark", list(MARKS))
def test_many_words_together_find_the_newest_matches(indexed: CacheReader, mark: str) -> None:
    every = MARKS[mark]
    assert indexed.search_ids(f"{COMMON} {mark} ", limit=PAGE) == _newest(lambda n: n % every == 0)


@pytest.mark.parametrize("mark", list(MARKS))
def test_a_word_without_another_finds_the_newest_matches(indexed: CacheReader, mark: str) -> None:
    every = MARKS[mark]
    assert indexed.search_ids(f"kappa -{mark} ", limit=PAGE) == _newest(lambda n: n % every)


def test_a_phrase_without_a_word_finds_every_match(indexed: CacheReader) -> None:
    # A phrase reads more candidates than the page; the scarce ones are all found.
    assert indexed.search_ids('"kappa lambda" -middling -plenty ', limit=PAGE) == _newest(
        lambda n: n % 5 and n % 2
    )


@pytest.mark.parametrize("query", [f"{COMMON} scarce", "kappa scarce"])
def test_the_word_as_typed_comes_before_its_completions(indexed: CacheReader, query: str) -> None:
    # Many words (the typed word looked up among the hits) and few (the words as typed
    # read over the hits' range) put the same items first.
    holding = [f"item-{n:04d}" for n in reversed(range(ITEMS)) if n % 40 == 0]
    completing = [f"item-{n:04d}" for n in reversed(range(ITEMS)) if n % 40 == 20]
    assert indexed.search_ids(query, limit=PAGE) == holding + completing
