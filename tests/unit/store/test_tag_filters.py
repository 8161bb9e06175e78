"""A tag filter finds the same items whichever way the search reaches them.

A small tag's items are listed and sorted; a large tag's are found by walking the library
newest first and looking each item up in the tag index. Both must give exactly the tagged
items, newest first, and so must a tag beside words, types and exclusions.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from support.caches import indexed_reader

from memex_desktop.store import CacheReader
from memex_desktop.store.query import make_filters

ITEMS = 300
BIG = "tag-big"
SMALL = "tag-small"
MIDDLE = "tag-middle"
TAGS = [
    {"id": BIG, "name": "big"},
    {"id": SMALL, "name": "small"},
    {"id": MIDDLE, "name": "middle"},
]


def _tags_of(number: int) -> list[str]:
    tags = []
    if number % 6 != 0:
        tags.append(BIG)  # 250 of 300: found by the walk
    if number % 60 == 7:
        tags.append(SMALL)  # 5 of 300: listed
    if number % 3 == 1:
        tags.append(MIDDLE)
    return tags


def _entity(number: int) -> dict[str, Any]:
    return {
        "id": f"item-{number:04d}",
        "type": "web" if number % 2 else "note",
        "created_at": 1_700_000_000_000 + number * 60_000,
        "title": f"Item {number} {'garden' if number % 4 == 0 else 'kitchen'}",
        "url": f"https://example.com/{number}",
        "full_text": f"words of item {number} {'compost' if number % 5 == 0 else 'soil'}",
        "tag_ids": _tags_of(number),
    }


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Iterator[CacheReader]:
    path = tmp_path_factory.mktemp("tags") / "cache.db"
    entities = [_entity(number) for number in range(ITEMS)]
    yield from indexed_reader(path, lambda writer: writer.ingest_json(entities, tags=TAGS).result())


def _newest(condition: Any, limit: int = 50) -> list[str]:
    chosen = [number for number in range(ITEMS) if condition(number)]
    return [f"item-{number:04d}" for number in sorted(chosen, reverse=True)][:limit]


def test_the_library_holds_a_tag_too_large_to_list_and_one_small_enough(
    library: CacheReader,
) -> None:
    # The two ways are both taken below: a large tag is walked, a small one listed.
    assert not library._small_tag(make_filters(tag_id=BIG), 50)
    assert library._small_tag(make_filters(tag_id=SMALL), 50)


@pytest.mark.parametrize(
    ("query", "tag_id", "expected"),
    [
        ("#big", None, lambda n: BIG in _tags_of(n)),
        ("#small", None, lambda n: SMALL in _tags_of(n)),
        ("", BIG, lambda n: BIG in _tags_of(n)),
        ("", SMALL, lambda n: SMALL in _tags_of(n)),
        ("#big #middle", None, lambda n: {BIG, MIDDLE} <= set(_tags_of(n))),
        ("#big -#middle", None, lambda n: BIG in _tags_of(n) and MIDDLE not in _tags_of(n)),
        ("-#big", None, lambda n: BIG not in _tags_of(n)),
        ("type:web #big", None, lambda n: n % 2 == 1 and BIG in _tags_of(n)),
        ("#small", MIDDLE, lambda n: {SMALL, MIDDLE} <= set(_tags_of(n))),
    ],
)
def test_a_tag_lists_exactly_its_items_newest_first(
    library: CacheReader, query: str, tag_id: str | None, expected: Any
) -> None:
    found = library.search_ids(query, tag_id=tag_id, limit=50)
    assert found == _newest(expected)


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("compost #big", lambda n: n % 5 == 0 and BIG in _tags_of(n)),
        ("compost -#big", lambda n: n % 5 == 0 and BIG not in _tags_of(n)),
        ("garden tag:small", lambda n: n % 4 == 0 and SMALL in _tags_of(n)),
        ("soil tag:big -tag:middle", lambda n: n % 5 != 0 and _tags_of(n) == [BIG]),
    ],
)
def test_a_tag_beside_words_keeps_exactly_the_tagged_matches(
    library: CacheReader, query: str, expected: Any
) -> None:
    found = library.search_ids(query, limit=ITEMS)
    assert sorted(found) == sorted(_newest(expected, limit=ITEMS))


@pytest.mark.parametrize(
    ("query", "tag_id", "groups", "expected"),
    [
        ("", BIG, [[MIDDLE]], lambda n: {BIG, MIDDLE} <= set(_tags_of(n))),
        ("", None, [[BIG], [SMALL]], lambda n: {BIG, SMALL} <= set(_tags_of(n))),
        ("", MIDDLE, [[SMALL, BIG]], lambda n: MIDDLE in _tags_of(n) and _tags_of(n) != [MIDDLE]),
        # The query's tags narrow further rather than replace the groups.
        ("#small", BIG, [[MIDDLE]], lambda n: {BIG, SMALL, MIDDLE} <= set(_tags_of(n))),
        ("-#middle", None, [[BIG]], lambda n: BIG in _tags_of(n) and MIDDLE not in _tags_of(n)),
        (
            "soil",
            None,
            [[BIG], [MIDDLE]],
            lambda n: n % 5 != 0 and {BIG, MIDDLE} <= set(_tags_of(n)),
        ),
    ],
)
def test_every_tag_group_narrows_beside_the_tag_and_the_query(
    library: CacheReader, query: str, tag_id: str | None, groups: Any, expected: Any
) -> None:
    found = library.search_ids(query, tag_id=tag_id, tag_groups=groups, sort="newest", limit=ITEMS)
    assert found == _newest(expected, limit=ITEMS)
    assert found  # each case keeps some items: narrowing to nothing would prove little
