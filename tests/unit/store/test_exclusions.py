"""An excluded word keeps out every item holding it, typed in full or still being typed."""

from __future__ import annotations

import pytest
from support.caches import web_item

from memex_desktop.store import CacheReader, StoreWriter
from memex_desktop.store.reader import RANK_PROBE_LIMIT

ITEMS = RANK_PROBE_LIMIT + 150  # more titles hold the word than the title step checks


def _items() -> list[dict[str, object]]:
    return [
        web_item(
            number, f"Alpha {number}", f"text {'betamax' if number % 2 == 0 else 'gamma'} {number}"
        )
        for number in range(ITEMS)
    ]


def test_titles_holding_the_words_never_bring_back_an_excluded_item(
    writer: StoreWriter, reader: CacheReader
) -> None:
    writer.ingest_json(_items()).result()
    writer.flush_index().result()
    odd_newest_first = [f"item-{n:04d}" for n in reversed(range(ITEMS)) if n % 2 == 1]
    assert reader.search_ids("alpha -betamax", limit=ITEMS) == odd_newest_first
    # Still being typed, the excluded word stands for its completions.
    assert reader.search_ids("alpha -betam", limit=ITEMS) == odd_newest_first
    assert reader.search_ids("alpha -gamma", limit=ITEMS) == [
        f"item-{n:04d}" for n in reversed(range(ITEMS)) if n % 2 == 0
    ]


def _sparse_titles(count: int, titled_every: int, kept_every: int) -> list[dict[str, object]]:
    """Items ``Alpha`` titles every ``titled_every``; all but every ``kept_every`` hold the
    excluded word (so the titles' range holds more of it than a rare word would)."""
    return [
        web_item(
            number,
            f"{'Alpha' if number % titled_every == 0 else 'Omega'} {number}",
            f"text {'gamma' if number % kept_every == 0 else 'betamax'} {number}",
        )
        for number in range(count)
    ]


@pytest.mark.parametrize(
    ("count", "titled_every", "kept_every"),
    [
        (600, 15, 30),  # 40 titles, all checked for the excluded word
        (1800, 3, 6),  # 600 titles, more than the title step checks
    ],
)
def test_a_common_excluded_word_is_checked_in_every_title(
    writer: StoreWriter, reader: CacheReader, count: int, titled_every: int, kept_every: int
) -> None:
    writer.ingest_json(_sparse_titles(count, titled_every, kept_every)).result()
    writer.flush_index().result()
    expected = [f"item-{n:04d}" for n in reversed(range(count)) if n % kept_every == 0]
    # Few titles or many, newest first.
    assert reader.search_ids("alpha -betamax ", limit=40) == expected[:40]
