"""Quoted phrases: a search finds exactly the items whose text holds the phrase.

The indexes hold no word positions, so a phrase is looked for in the stored JSON of each
item whose index row holds its words (store/phrases.py), from its first word or, where that
stands far more often, from its last. These tests hold the search to a plain check of every
item: the index holds the phrase's words, and one text of its JSON, cut into words as the
index cuts them, holds them one after the other.
"""

from __future__ import annotations

import functools
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import memex_desktop.store.reader as reader_module
from memex_desktop.store import CacheReader, StoreWriter
from memex_desktop.store.extract import columns
from memex_desktop.store.phrases import PhraseFinder, lowered_json, phrase_in_json
from memex_desktop.store.query import text_tokens
from memex_desktop.store.reader import QueryInterrupted
from memex_desktop.store.search_language import Term, parse_query

T = 1_700_000_000_000  # epoch ms
ITEMS = 2500
# "bin" stands far more often than "worm": "bin worm" is read from its last word.
_WEIGHTED = {"bin": 30, "compost": 8, "worm": 1, "tea": 3, "leaf": 3, "mulch": 2, "soil": 2}
# Between two words: what the index skips (punctuation, a newline, an underscore, a dash)
# and, once in a while, a word that breaks the phrase.
_GAPS = [" "] * 12 + [", ", ". ", "\n", " — ", "-", "_", " (", '" ', "\t", "\u00a0", " 🌱 "]


def _word(rng: random.Random) -> str:
    word = rng.choices(list(_WEIGHTED), weights=list(_WEIGHTED.values()))[0]
    shape = rng.random()
    if shape < 0.1:
        return word.upper()
    if shape < 0.3:
        return word.capitalize()
    if shape < 0.33:
        return word + "s"  # another word: "bins" is not "bin"
    return word


def _text(rng: random.Random, words: int) -> str:
    """Words of the vocabulary between gaps; "alder" only ever first and "birch" only ever
    last, so that many items hold both and none the phrase "alder birch"."""
    parts = ["Alder" if rng.random() < 0.5 else "kale"]
    for _ in range(words):
        parts += [rng.choice(_GAPS), _word(rng)]
    if rng.random() < 0.05:
        parts += [" ", rng.choice(["Café straw", "cafe STRAW", "café, straw"])]
    parts += [" end ", "birch" if rng.random() < 0.6 else "oak"]
    return "".join(parts)


def _items() -> list[dict[str, Any]]:
    rng = random.Random(7)
    items = []
    for n in range(ITEMS):
        long = n % 7 == 0  # some long texts: a phrase's words stand many times in them
        item: dict[str, Any] = {
            "id": f"p-{n:05d}",
            "type": "web",
            "title": _text(rng, 3),
            "url": f"https://g.example/{'-'.join(rng.sample(list(_WEIGHTED), 2))}",
            "full_text": _text(rng, 400 if long else 25),
            "created_at": T + n,
        }
        if n % 11 == 0:  # a phrase split between the title and the text is not one
            item["title"] += " compost"
            item["full_text"] = "bin " + item["full_text"]
        items.append(item)
    return items


Library = tuple[Path, list[dict[str, Any]]]


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Library:
    """A packed, indexed cache of :func:`_items` (module-wide: it takes a few seconds)."""
    path = tmp_path_factory.mktemp("phrases") / "cache.db"
    items = _items()
    writer = StoreWriter(path)
    try:
        writer.ingest_json(items).result()
        writer.flush_index().result()
        writer.pack_now().result()
    finally:
        writer.close()
    return path, items


@pytest.fixture
def searched(library: Library) -> Iterator[CacheReader]:
    reader = CacheReader(library[0])
    yield reader
    reader.close()


def _texts(value: Any) -> Iterator[str]:
    """Every text in a JSON value (not the keys)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for inner in value.values():
            yield from _texts(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from _texts(inner)


def _holds_phrase(item: dict[str, Any], words: list[str]) -> bool:
    """Whether one text of the item holds ``words`` one after the other (as the index cuts
    and folds words)."""
    for text in _texts(item):
        tokens = text_tokens(text)
        for at in range(len(tokens) - len(words) + 1):
            if tokens[at : at + len(words)] == words:
                return True
    return False


def _indexed_words(item: dict[str, Any]) -> set[str]:
    """The words the search index holds for the item."""
    found = columns(item)
    texts = [found[key] or "" for key in ("text_title", "text_author", "text_summary", "text_body")]
    return {word for text in texts for word in text_tokens(text)}


def _plain_check(
    items: list[dict[str, Any]], query: str, *, found_by_words: bool = True
) -> set[str]:
    """The ids of the items that hold the query's phrases and words and none it excludes,
    each item checked on its own: a word where the index holds it, a phrase where a text of
    the item's JSON holds its words one after the other (and, for items ``found_by_words``
    in the index, not given by a server, where the index holds its words)."""
    parsed = parse_query(query)

    def matches(item: dict[str, Any], indexed: set[str], term: Term) -> bool:
        words = text_tokens(" ".join(term.words))
        if not term.phrase:
            return indexed.issuperset(words)
        # An excluded phrase can only stand where the index holds its words.
        given = not found_by_words and term not in parsed.excluded
        held = given or indexed.issuperset(words)
        return held and _holds_phrase(item, words)

    found = set()
    for item in items:
        indexed = _indexed_words(item)
        if all(
            any(matches(item, indexed, term) for term in group) for group in parsed.groups
        ) and not any(matches(item, indexed, term) for term in parsed.excluded):
            found.add(item["id"])
    return found


PHRASES = [
    '"compost bin"',  # common words, next to each other across every kind of gap
    '"Compost BIN"',  # the case typed does not matter
    '"bin compost"',
    '"bin worm"',  # read from "worm": "bin" stands far more often
    '"worm tea leaf"',
    '"bin bin"',
    '"cafe straw"',  # written with and without the accent
    '"café straw"',
    '"alder birch"',  # both words in most items, next to each other in none
    '"soil zzqx"',  # a word no item holds
    'compost -"bin worm"',
    '"mulch soil" OR "soil mulch"',
]


@pytest.mark.parametrize("query", PHRASES)
@pytest.mark.parametrize("backwards", [None, False, True])
def test_a_phrase_finds_exactly_the_items_a_plain_check_of_every_item_finds(
    library: Library,
    searched: CacheReader,
    monkeypatch: pytest.MonkeyPatch,
    query: str,
    backwards: bool | None,
) -> None:
    """Read from whichever end it is settled on, or always forwards, or always backwards."""
    monkeypatch.setattr(
        reader_module, "PhraseFinder", functools.partial(PhraseFinder, backwards=backwards)
    )
    expected = _plain_check(library[1], query)
    newest = searched.search_ids(query, limit=100_000, sort="newest")
    assert set(newest) == expected
    assert newest == sorted(newest, reverse=True)  # ids grow with creation here
    assert set(searched.search_ids(query, limit=100_000)) == expected
    # The window's first page: read in rounds, a candidate checked once.
    first_page = searched.search_ids(query, limit=51)
    assert len(first_page) == min(51, len(expected))
    assert set(first_page) <= expected
    assert searched.search_ids(query, limit=51, sort="newest") == newest[:51]


def test_phrases_that_match_nothing_and_everything_are_told_apart(
    library: Library, searched: CacheReader
) -> None:
    """The corpus is what the test above needs: the phrases span from none to most."""
    items = library[1]
    assert _plain_check(items, '"alder birch"') == set()
    assert len(_plain_check(items, "alder birch")) > ITEMS // 4
    assert len(_plain_check(items, '"compost bin"')) > ITEMS // 4
    assert 0 < len(_plain_check(items, '"cafe straw"')) < ITEMS // 10


def test_results_a_server_sent_keep_to_the_phrase(library: Library, searched: CacheReader) -> None:
    """Ids from elsewhere (a remote search) are checked for the phrase in their JSON; their
    words are the server's to match."""
    ids = [item["id"] for item in library[1]][::-1]
    expected = _plain_check(library[1], '"bin worm"', found_by_words=False)
    assert searched.matching_ids('compost "bin worm"', ids) == [i for i in ids if i in expected]


def test_the_full_list_of_a_phrase_stops_when_a_newer_search_supersedes_it(
    searched: CacheReader, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Checking every candidate's text is the long part of a phrase's full list: a stop
    asked for while it runs takes effect within one batch of candidates."""
    checked = 0

    class CountingFinder(PhraseFinder):
        def __call__(self, lowered: str | bytes) -> bool:
            nonlocal checked
            checked += 1
            return super().__call__(lowered)

    monkeypatch.setattr(reader_module, "PhraseFinder", CountingFinder)
    with pytest.raises(QueryInterrupted), searched.interrupted_when(lambda: checked > 0):
        searched.search_ids('"alder birch"', limit=100_000)
    assert 0 < checked <= reader_module._VERIFY_BATCH
    checked = 0
    assert searched.search_ids('"alder birch"', limit=100_000) == []
    assert checked > ITEMS // 2  # uninterrupted, it checks every candidate


# The words of the phrases looked for, and what stands between them in the texts: what JSON
# escapes (quotes, backslashes, a newline, control characters), what it does not (a no-break
# space, accents), colons (keys), underscores, and the letters and digits of escapes.
_WORDS = ["a", "b", "ab", "n", "u0", "é", "e", "ne", "0"]
_PIECES = [*_WORDS, "A", " ", '"', "\\", ":", "_", "-", "\n", "\x1f", "\u00a0", "\u00e9"]
_TRICKY = st.lists(st.sampled_from(_PIECES), max_size=12).map("".join)
_PHRASE_WORDS = st.lists(st.sampled_from(_WORDS), min_size=2, max_size=3)


@settings(max_examples=500, deadline=None)
@given(
    st.recursive(
        _TRICKY | st.integers(min_value=-99, max_value=99),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_TRICKY, inner, max_size=3),
        max_leaves=6,
    ),
    _PHRASE_WORDS,
)
def test_ascii_json_read_as_bytes_either_way_agrees_with_the_text(
    value: Any, words: list[str]
) -> None:
    """Bytes, forwards or backwards, find a phrase exactly where the text does (JSON as
    the store writes it, and with every letter past ASCII escaped)."""
    for raw in (orjson.dumps(value), json.dumps(value).encode()):
        expected = phrase_in_json(Term(tuple(words), phrase=True), raw.decode().lower())
        for backwards in (False, True):
            finder = PhraseFinder(tuple(words), backwards=backwards)
            assert finder(lowered_json(raw)) is expected


@pytest.mark.parametrize(
    ("value", "words", "holds"),
    [
        ({"full_text": "compost" + " -" * 200 + " bin"}, ("compost", "bin"), True),
        ({"full_text": "a\\compost bin"}, ("compost", "bin"), False),  # after a backslash
        ({"full_text": "a\ncompost bin"}, ("compost", "bin"), True),  # after a newline
        ({"compost bin": "x"}, ("compost", "bin"), False),  # a key
        ({"a": "compost", "bin": "x"}, ("compost", "bin"), False),  # across a key
        ({"tags": ["compost", "bin"]}, ("compost", "bin"), True),  # one list
        ({"full_text": 'compost "bin"'}, ("compost", "bin"), True),
        ({"full_text": "compost\u00e9 bin"}, ("compost", "bin"), False),
        ({"full_text": "COMPOST\tBIN"}, ("compost", "bin"), True),
        ({"full_text": "compost\x1fbin"}, ("compost", "bin"), True),  # \u001f in JSON
        ({"full_text": "bin " * 50 + "compost bins"}, ("compost", "bin"), False),
    ],
)
def test_a_phrase_in_json_read_every_way(
    value: dict[str, Any], words: tuple[str, ...], holds: bool
) -> None:
    """As text, and as bytes forwards and backwards, in JSON as the store writes it."""
    raw = orjson.dumps(value)
    assert phrase_in_json(Term(words, phrase=True), raw.decode().lower()) is holds
    for backwards in (False, True):
        assert PhraseFinder(words, backwards=backwards)(lowered_json(raw)) is holds
