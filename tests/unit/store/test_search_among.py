"""A list of its own (a saved view, the server's results of one) narrowed by a search keeps
the same items as searching the whole library and keeping those it lists, read among the
list's items alone: phrases, exclusions, operators, exact titles and addresses, prefixes the
title index alone completes, deleted items and rows not indexed yet."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from support.caches import (
    SAVED_AT,
    page,
    put_back_in_backlog,
    tag,
    tweet,
    write_indexed,
    write_unindexed,
)

from memex_desktop.store import CacheReader

TAGS = [tag("zul"), tag("mor")]


ITEMS = [
    tweet(1, "the quick fox " * 14, tag_ids=["tag-zul"]),
    tweet(2, "foxes run at dawn", tag_ids=["tag-zul", "tag-mor"]),
    tweet(3, "get firefox now"),
    tweet(4, "FOX news tonight", tag_ids=["tag-mor"]),
    tweet(5, "nothing to see here", tag_ids=["tag-zul"]),
    tweet(6, "Café society meets at dawn"),
    # The phrase's words stand in two texts of the item, not next to each other in one.
    tweet(
        7,
        "a photo of the quick",
        images=["https://pbs.twimg.example/media/7.jpg"],
        image_analysis={"https://pbs.twimg.example/media/7.jpg": {"description": "fox at rest"}},
    ),
    tweet(8, "Fox fox fox " * 6 + "at dawn", tag_ids=["tag-zul"]),
    tweet(9, "the fox quick to run, quick fox at dawn", tag_ids=["tag-mor"]),
    page(1, "Kitchen scraps", full_text="Open them in the firefox browser."),
    page(2, "Kitchen fox", full_text="A fox visits the compost.", tag_ids=["tag-zul"]),
    page(3, "Menu", html="<p>Un caf&eacute; au lait, s'il vous pla&icirc;t.</p>"),
    page(4, "Cafe notes", full_text="Plain words about cafe tables."),
    # Two and three letters complete a title's word, not a body's (which needs four).
    page(5, "Zyxt gallery", full_text="pictures of the quick fox at rest"),
    page(6, "Zyx", full_text="a short page about dawn"),
    {
        "id": "video-01",
        "type": "youtube",
        "created_at": SAVED_AT + 20 * 60_000,
        "url": "https://www.youtube.com/watch?v=quickfox01",
        "title": "The quick fox, filmed at dawn",
        "description": "Kitchen garden visitors",
        "tag_ids": ["tag-mor"],
    },
    page(7, "Gone fox page", full_text="the quick fox left at dawn", tag_ids=["tag-zul"]),
]
DELETED = "page-07"
# Others beside them: a list of a few items among many is read item by item, a list of
# most of the library as its range of the index.
OTHERS = [
    {
        "id": f"other-{number:03d}",
        "type": "web",
        "created_at": SAVED_AT + number * 1_000,
        "url": f"https://others.example/{number}",
        "title": f"Other page {number}",
        "full_text": f"filler {'the quick fox at dawn' if number % 7 == 0 else 'words'} {number}",
    }
    for number in range(600)
]

QUERIES = [
    "fox",
    "fox ",
    "fo",
    "zy",
    "zyx",
    "zyx ",
    "quick fox",
    '"quick fox"',
    '"fox at"',
    '"quick fox" -dawn',
    '"quick fox" -"at dawn"',
    'fox -"quick fox"',
    "fox -dawn",
    "fox -daw",
    "fox -fire",
    "-fox",
    '-"quick fox"',
    "dawn -foxes ",
    "fox OR firefox -kitchen",
    "type:tweet fox",
    "type:web fox",
    "-type:tweet fox",
    'type:video "quick fox"',
    "tag:zul",
    "tag:zul fox",
    "#mor dawn",
    "-tag:zul fox",
    "tag:zul -fox",
    "tag:nosuchtag fox",
    'tag:mor "quick fox" -news',
    "site:pages.example",
    "site:pages.example fox",
    "-site:x.com dawn",
    "site:youtube.com quick",
    "Kitchen scraps",
    "Kitchen scraps -firefox",
    "https://pages.example/3",
    "pages.example/4",
    "cafe ",
    "café",
    "is:deleted",
    "is:deleted fox",
    "fox is:deleted",
    "nothing matches this",
]


def _searched(reader: CacheReader, query: str, ids: list[str]) -> list[str]:
    """What narrowing a list by a search did before: the library searched, its list kept."""
    matching = set(reader.search_ids(query, limit=100_000, include_deleted=True))
    return [entity_id for entity_id in dict.fromkeys(ids) if entity_id in matching]


@pytest.fixture(scope="module", params=["alone", "among 600 others"])
def library(request: pytest.FixtureRequest) -> list[dict[str, Any]]:
    return ITEMS if request.param == "alone" else [*ITEMS, *OTHERS]


@pytest.fixture(
    scope="module", params=["indexed", "not indexed yet", "half put back in the backlog"]
)
def reader(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    library: list[dict[str, Any]],
) -> Iterator[CacheReader]:
    path = tmp_path_factory.mktemp("among") / "cache.db"
    if request.param == "not indexed yet":
        write_unindexed(path, library, tags=TAGS, deleted=[DELETED])
    else:
        write_indexed(path, library, tags=TAGS, deleted=[DELETED])
    if request.param == "half put back in the backlog":
        put_back_in_backlog(path, where="rowid % 2 = 0")
    with CacheReader(path) as cache_reader:
        yield cache_reader


EVERY_ID = [str(item["id"]) for item in ITEMS]
LISTS = {
    "every item": [*EVERY_ID, *(str(item["id"]) for item in OTHERS)],
    "the items above": EVERY_ID,
    "every other, newest first": EVERY_ID[::-2],
    "repeats and ids not cached": [EVERY_ID[3], "no-such-id", *EVERY_ID[:6], EVERY_ID[3]],
}


@pytest.mark.parametrize("listed", list(LISTS))
@pytest.mark.parametrize("query", QUERIES)
def test_a_list_narrowed_among_its_items_keeps_what_a_library_search_kept(
    reader: CacheReader, query: str, listed: str
) -> None:
    ids = LISTS[listed]
    assert reader.search_among(query, ids) == _searched(reader, query, ids)


def test_the_queries_tell_items_apart(reader: CacheReader) -> None:
    """The comparison means something: most queries keep some of the items and drop others."""
    sizes = {query: len(reader.search_among(query, EVERY_ID)) for query in QUERIES}
    telling = [query for query, size in sizes.items() if 0 < size < len(EVERY_ID)]
    assert len(telling) >= len(QUERIES) - 3
    assert reader.search_among('"quick fox"', EVERY_ID) == [
        "tweet-01", "tweet-09", "page-05", "video-01", "page-07",
    ]  # fmt: skip
    assert "tweet-07" not in reader.search_among('"quick fox"', EVERY_ID)  # words apart
    assert reader.search_among("zy", EVERY_ID) == ["page-05", "page-06"]  # titles only
    assert reader.search_among("https://pages.example/3", EVERY_ID) == ["page-03"]


def test_a_list_is_narrowed_without_searching_the_library(
    reader: CacheReader, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only the list's rows are read: the library's own search is never run."""

    def refused(*_args: object, **_kwargs: object) -> list[str]:
        raise AssertionError("the whole library was searched")

    monkeypatch.setattr(reader, "_ranked_ids", refused)
    monkeypatch.setattr(reader, "_candidate_ids", refused)
    assert reader.search_among('"quick fox" -dawn', EVERY_ID) == ["tweet-01", "page-05"]
