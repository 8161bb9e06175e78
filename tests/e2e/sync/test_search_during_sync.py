"""A search while a sync writes pages its index has not taken in yet (the index falls behind on
a large library) lists what it lists once they are indexed: ``type:tweet -fox`` never a tweet
holding "fox", ``type:tweet fox`` every cached tweet that does, on the sync's progress and
on the command line."""

from __future__ import annotations

import json
import re
import sqlite3
import threading
from typing import Any

import pytest
from support.cli import Cli
from support.secrets import TEST_API_KEY

from memex_desktop import paths
from memex_desktop.emulator.synthetic import generate_library
from memex_desktop.store import CacheReader, ingest
from memex_desktop.sync import SyncOutcome
from memex_desktop.sync.types import SyncProgress

pytestmark = pytest.mark.e2e

PAGE_SIZE = 100
EVERY = 100_000
_WORD = re.compile(r"[^\W_]+")


@pytest.fixture(scope="module")
def library() -> dict[str, Any]:
    """A generated library whose tweets hold "fox" many times, only as part of longer words
    ("foxes", "firefox"), or not at all."""
    library = generate_library(700, seed=11, words_per_entity=20)
    tweets = [entity for entity in library["results"] if entity["type"] == "twitter"]
    for number, tweet in enumerate(tweets):
        if number % 3 == 0:
            tweet["text"] += " Fox" * 15
        elif number % 3 == 1:
            tweet["text"] += " foxes run past firefox"
    return library


def _holding_fox(library: dict[str, Any]) -> set[str]:
    return {
        entity["id"]
        for entity in library["results"]
        if entity["type"] == "twitter" and "fox" in _WORD.findall(entity["text"].lower())
    }


class _HeldIndexer:
    """Keeps the cache writer from indexing what it writes until released: the rows wait in
    the index's backlog, as when indexing falls behind a sync."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.held = threading.Event()
        self.held.set()
        index_rows, index_pending = ingest.index_rows, ingest.index_pending

        def rows_unless_held(db: Any, rows: Any, memo: Any) -> int:
            return 0 if self.held.is_set() else index_rows(db, rows, memo)

        def pending_unless_held(db: Any, limit: int, memo: Any = None) -> int:
            return 0 if self.held.is_set() else index_pending(db, limit, memo)

        monkeypatch.setattr(ingest, "index_rows", rows_unless_held)
        monkeypatch.setattr(ingest, "index_pending", pending_unless_held)

    def release(self) -> None:
        self.held.clear()


def _waiting_rows(cache: Any) -> int:
    connection = sqlite3.connect(cache)
    try:
        return int(connection.execute("SELECT count(*) FROM fts_pending").fetchone()[0])
    finally:
        connection.close()


def test_a_search_during_a_sync_keeps_to_its_words_and_exclusions(
    library: dict[str, Any],
    one_profile_emulator: Any,
    harness_factory: Any,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    fox = _holding_fox(library)
    emulator = one_profile_emulator(library)
    harness = harness_factory(emulator.base_url, TEST_API_KEY, page_size=PAGE_SIZE)
    cache = paths.cache_db_path(harness.data_dir)
    indexer = _HeldIndexer(monkeypatch)
    # (tweets cached, of them holding "fox", rows waiting to be indexed) at each check.
    seen: list[tuple[int, int, int]] = []

    def check(step: SyncProgress) -> None:
        if step.phase != "pull" or step.waiting_s is not None:
            return
        with CacheReader(cache) as reader:
            # One snapshot of the cache: the writer commits the next pages meanwhile.
            reader.db.execute("BEGIN")
            waiting = int(reader.db.execute("SELECT count(*) FROM fts_pending").fetchone()[0])
            tweets = set(reader.search_ids("type:tweet", limit=EVERY))
            assert set(reader.search_ids("type:tweet -fox", limit=EVERY)) == tweets - fox
            assert set(reader.search_ids("type:tweet fox ", limit=EVERY)) == tweets & fox
            assert set(reader.search_ids('type:tweet -"fox fox"', limit=EVERY)) == tweets - fox
            reader.db.execute("COMMIT")
        seen.append((len(tweets), len(tweets & fox), waiting))

    try:
        report = harness.new_engine().run(full=True, progress=check)
        assert report.outcome is SyncOutcome.OK, report.error
        assert any(fox_cached and waiting for _, fox_cached, waiting in seen), seen
        run = Cli(capsys, harness.data_dir, emulator.base_url)

        def searched(*args: str) -> set[str]:
            status, out, err = run("search", *args, "--json", "--limit", str(EVERY))
            assert status == 0, err
            return {hit["id"] for hit in json.loads(out)}

        assert _waiting_rows(cache) > 0
        tweets = searched("type:tweet")
        assert fox <= tweets
        assert searched("type:tweet", "-fox") == tweets - fox
        indexer.release()
        harness.flush()
        assert _waiting_rows(cache) == 0
        assert searched("type:tweet", "-fox") == tweets - fox
        assert searched("type:tweet", "fox") == fox
    finally:
        indexer.release()
