"""An excluded word keeps out every item holding it, typed in full or still being typed."""

from __future__ import annotations

from pathlib import Path

from memex_desktop.store import CacheReader, StoreWriter
from memex_desktop.store.reader import RANK_PROBE_LIMIT

ITEMS = RANK_PROBE_LIMIT + 150  # more titles hold the word than the title step checks


def _fill(path: Path) -> None:
    with StoreWriter(path) as writer:
        writer.ingest_json(
            [
                {
                    "id": f"item-{number:04d}",
                    "type": "web",
                    "created_at": 1_700_000_000_000 + number * 1000,
                    "title": f"Alpha {number}",
                    "url": f"https://example.com/{number}",
                    "full_text": f"text {'betamax' if number % 2 == 0 else 'gamma'} {number}",
                }
                for number in range(ITEMS)
            ]
        ).result()
        writer.flush_index().result()


def test_titles_holding_the_words_never_bring_back_an_excluded_item(tmp_path: Path) -> None:
    path = tmp_path / "cache.db"
    _fill(path)
    odd_newest_first = [f"item-{n:04d}" for n in reversed(range(ITEMS)) if n % 2 == 1]
    with CacheReader(path) as reader:
        assert reader.search_ids("alpha -betamax", limit=ITEMS) == odd_newest_first
        # Still being typed, the excluded word stands for its completions.
        assert reader.search_ids("alpha -betam", limit=ITEMS) == odd_newest_first
        assert reader.search_ids("alpha -gamma", limit=ITEMS) == [
            f"item-{n:04d}" for n in reversed(range(ITEMS)) if n % 2 == 0
        ]
