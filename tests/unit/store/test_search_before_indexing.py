"""Items the search index does not hold yet (a sync's latest pages, a backlog a crash left)
are found and left out as they are once indexed: an exclusion never lists an item holding
the excluded word or phrase, and a word or phrase misses none of them."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
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

TAGS = [tag("zul")]


ITEMS = [
    tweet(1, "the quick fox " * 14, tag_ids=["tag-zul"]),
    tweet(2, "foxes run at dawn", tag_ids=["tag-zul"]),
    tweet(3, "get firefox now"),
    tweet(4, "FOX news tonight"),
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
    page(1, "Kitchen scraps", full_text="Open them in the firefox browser."),
    page(2, "Kitchen fox", full_text="A fox visits the compost."),
    page(3, "Menu", html="<p>Un caf&eacute; au lait, s'il vous pla&icirc;t.</p>"),
    page(4, "Cafe notes", full_text="Plain words about cafe tables."),
]


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[CacheReader]:
    path = tmp_path_factory.mktemp("indexed") / "cache.db"
    write_indexed(path, ITEMS, tags=TAGS)
    with CacheReader(path) as reader:
        yield reader


@pytest.fixture(scope="module", params=["not indexed yet", "put back in the backlog"])
def unindexed(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[CacheReader]:
    """ITEMS not indexed yet (as a sync's latest pages are); or indexed, then every row put
    back in the index's backlog (as a crash or a new index leaves them)."""
    path = tmp_path_factory.mktemp("unindexed") / "cache.db"
    if request.param == "not indexed yet":
        write_unindexed(path, ITEMS, tags=TAGS)
    else:
        write_indexed(path, ITEMS, tags=TAGS)
        put_back_in_backlog(path)
    conn = sqlite3.connect(path)
    waiting = conn.execute("SELECT count(*) FROM fts_pending").fetchone()[0]
    conn.close()
    assert waiting == len(ITEMS)
    with CacheReader(path) as reader:
        yield reader


EXPECTED = {
    # Still being typed, a three-letter excluded word is that word only, as in the index.
    "type:tweet -fox": ["tweet-06", "tweet-05", "tweet-03", "tweet-02"],
    "type:tweet -fox ": ["tweet-06", "tweet-05", "tweet-03", "tweet-02"],
    "tag:zul type:tweet -fox": ["tweet-05", "tweet-02"],
    "type:tweet fox ": ["tweet-08", "tweet-07", "tweet-04", "tweet-01"],
    "kitchen -fox ": ["page-01"],
    "cafe ": ["tweet-06", "page-04", "page-03"],
    "café ": ["tweet-06", "page-04", "page-03"],
    "type:web -cafe ": ["page-02", "page-01"],
    '"quick fox"': ["tweet-01"],
    'type:tweet -"quick fox"': [
        "tweet-08", "tweet-07", "tweet-06", "tweet-05", "tweet-04", "tweet-03", "tweet-02",
    ],
    "dawn -foxes ": ["tweet-08", "tweet-06"],
    "fox OR firefox -kitchen": ["tweet-08", "tweet-07", "tweet-04", "tweet-03", "tweet-01"],
}  # fmt: skip


@pytest.mark.parametrize("query", list(EXPECTED))
def test_the_index_finds_what_the_test_says(indexed: CacheReader, query: str) -> None:
    assert indexed.search_ids(query, sort="newest") == EXPECTED[query]


@pytest.mark.parametrize("sort", ["newest", "oldest", "relevance"])
@pytest.mark.parametrize("query", list(EXPECTED))
def test_items_not_indexed_yet_match_as_once_indexed(
    unindexed: CacheReader, indexed: CacheReader, query: str, sort: Any
) -> None:
    found = unindexed.search_ids(query, sort=sort)
    if sort == "relevance":  # rows not indexed yet come after the index's hits
        assert sorted(found) == sorted(indexed.search_ids(query, sort=sort))
    else:
        assert found == indexed.search_ids(query, sort=sort)
    first_page = [hit.id for hit in unindexed.search(query, sort=sort, limit=3)]
    assert first_page == found[:3]


def test_the_server_results_a_search_keeps_are_the_same_before_indexing(
    unindexed: CacheReader, indexed: CacheReader
) -> None:
    every_id = [item["id"] for item in ITEMS]
    for query in EXPECTED:
        assert unindexed.matching_ids(query, every_id) == indexed.matching_ids(query, every_id)


def test_a_word_is_found_however_many_rows_wait_to_be_indexed(tmp_path: Path) -> None:
    """The oldest of thousands of rows waiting to be indexed holds the word."""
    items = [
        {"id": f"row-{n:05d}", "type": "web", "created_at": SAVED_AT + n * 1000,
         "title": f"Row {n}", "url": f"https://rows.example/{n}",
         "full_text": "quillwort grows here" if n == 0 else f"filler words {n}"}
        for n in range(3000)
    ]  # fmt: skip
    path = tmp_path / "cache.db"
    write_unindexed(path, items)
    with CacheReader(path) as reader:
        assert reader.search_ids("quillwort") == ["row-00000"]
        assert reader.search_ids('"quillwort grows"', sort="newest") == ["row-00000"]
        assert reader.search_ids("quillwort -fox", sort="oldest") == ["row-00000"]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("https://pages.example/3", ["page-03"]),  # "https" is no word of its texts
        ("Kitchen scraps -fox", ["page-01"]),
        ("Kitchen scraps -firefox", []),
    ],
)
def test_an_exact_address_or_title_is_found_before_indexing(
    unindexed: CacheReader, indexed: CacheReader, query: str, expected: list[str]
) -> None:
    assert indexed.search_ids(query) == expected
    assert unindexed.search_ids(query) == expected
