"""Best match: among matches equally good (the word in the title; the word in the text only),
the newest come first, for a word few items hold as for one many hold, on a page, in the
whole list the window reads, and from whichever item the list is read on."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.caches import indexed_reader, web_item

from memex_desktop.store import CacheReader, StoreWriter
from memex_desktop.store.reader import RANK_PROBE_LIMIT

DAY_MS = 86_400_000
ITEMS = RANK_PROBE_LIMIT + 200  # more hold the common word than a search reads at first
RARE_IN_TITLE = {40, 170, 260, 390, 480}
RARE_IN_TEXT = {10, 95, 230, 300, 455}
COMMON_IN_TITLE = set(range(7, ITEMS, 23))


def _item(number: int) -> dict[str, object]:
    """Item ``number`` of the library, saved ``number`` days after the first."""
    title = ["Notes", str(number)]
    text = ["plain words"]
    if number in RARE_IN_TITLE:
        title.insert(1, "spygiosleal")
    if number in RARE_IN_TEXT:
        text.append("spygiosleal")
    if number in COMMON_IN_TITLE:
        title.insert(1, "vor")
    else:
        text.append("vor")
    item = web_item(number, " ".join(title), " ".join(text))
    item["created_at"] = 1_690_000_000_000 + number * DAY_MS
    return item


def _newest_first(numbers: set[int]) -> list[str]:
    return [f"item-{number:04d}" for number in sorted(numbers, reverse=True)]


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Iterator[CacheReader]:
    """The items saved in no order of their dates, as a sync of several passes leaves them."""
    items = [_item(number) for number in range(ITEMS)]
    random.Random(7).shuffle(items)

    def fill(writer: StoreWriter) -> None:
        for start in range(0, len(items), 100):
            writer.ingest_json(items[start : start + 100]).result()

    yield from indexed_reader(Path(tmp_path_factory.mktemp("dated")) / "cache.db", fill)


RARE = _newest_first(RARE_IN_TITLE) + _newest_first(RARE_IN_TEXT)
COMMON = _newest_first(COMMON_IN_TITLE) + _newest_first(set(range(ITEMS)) - COMMON_IN_TITLE)


@pytest.mark.parametrize(("query", "expected"), [("spygiosleal", RARE), ("vor", COMMON)])
@pytest.mark.parametrize("typed", ["", " "], ids=["being typed", "typed"])
def test_equally_good_matches_come_newest_first(
    library: CacheReader, query: str, expected: list[str], typed: str
) -> None:
    query += typed
    assert library.search_ids(query, limit=50) == expected[:50]
    assert library.search_ids(query, limit=301) == expected[:301]
    assert library.search_ids(query, limit=100_000) == expected
    assert [hit.id for hit in library.search(query, limit=20)] == expected[:20]
    assert [hit.id for hit in library.search(query, limit=3, offset=4)] == expected[4:7]
