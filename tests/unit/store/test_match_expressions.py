"""What the search indexes are asked: every word required once, nothing asked twice."""

from __future__ import annotations

from memex_desktop.store import CacheReader, StoreWriter
from memex_desktop.store.query import groups_expression
from memex_desktop.store.search_language import Term


def _words(*spec: str) -> list[list[Term]]:
    """Groups of one word each; a trailing ``*`` marks a word still being typed."""
    return [[Term((word.rstrip("*"),), prefix=word.endswith("*"))] for word in spec]


def test_a_word_asked_twice_is_asked_once() -> None:
    assert groups_expression(_words("bia", "hel", "bia"), 4) == '"bia" AND "hel"'


def test_a_prefix_a_required_word_starts_is_left_out() -> None:
    assert groups_expression(_words("biark", "hel", "bia*"), 2) == '"biark" AND "hel"'
    assert groups_expression(_words("bia", "bia*"), 2) == '"bia"'


def test_a_prefix_no_required_word_starts_stays() -> None:
    assert groups_expression(_words("hel", "bia*"), 2) == '"hel" AND "bia"*'
    # Too short to be read as a prefix: the word itself is required, and "biark" is not it.
    assert groups_expression(_words("biark", "bi*"), 4) == '"biark" AND "bi"'


def test_alternatives_and_phrases_are_never_left_out() -> None:
    groups = [[Term(("bia",))], [Term(("bia",), prefix=True), Term(("hel",))]]
    assert groups_expression(groups, 2) == '"bia" AND ("bia"* OR "hel")'
    phrase = [[Term(("bia",))], [Term(("bia", "hel"), phrase=True, prefix=True)]]
    assert groups_expression(phrase, 2) == '"bia" AND ("bia" AND "hel")'


def test_a_title_with_repeated_words_finds_what_it_found_before(
    writer: StoreWriter, reader: CacheReader
) -> None:
    titles = ["Bia Hel Bia Mion", "Bia Hel Mion", "Biark Hel Mion", "Hel Mion", "Bia Bia"]
    writer.ingest_json(
        [
            {
                "id": f"item-{number}",
                "type": "web",
                "created_at": 1_700_000_000_000 + number,
                "title": title,
                "url": f"https://example.com/{number}",
                "full_text": f"{title} and more words",
            }
            for number, title in enumerate(titles)
        ]
    ).result()
    writer.flush_index().result()
    assert set(reader.search_ids("Bia Hel Bia Mi")) == {"item-0", "item-1"}
    assert set(reader.search_ids("bia mion bia")) == {"item-0", "item-1"}
    assert set(reader.search_ids("biark hel bia")) == {"item-2"}
    assert set(reader.search_ids("bia bia")) == {"item-0", "item-1", "item-4"}
