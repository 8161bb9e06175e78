"""Compaction: once a library has grown, the writer rewrites the cache with full pages when
writes stop for a while; every item reads back the same, a write never waits for it, a disk
without room is left alone, and kill -9 midway leaves the cache as it was."""

from __future__ import annotations

import sqlite3
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from sqlite_utils import Database
from support.children import python_child

from memex_desktop.emulator.synthetic import generate_library
from memex_desktop.store import CacheReader, StoreWriter, compaction

ITEMS = 2000
PAGE = 100


@pytest.fixture(scope="module")
def library_items() -> list[dict[str, Any]]:
    """Items newest first, as a full sync receives them."""
    items = generate_library(ITEMS, seed=5, words_per_entity=60)["results"]
    return sorted(items, key=lambda item: item["created_at"], reverse=True)


@pytest.fixture(autouse=True)
def _small_libraries_compact(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(compaction, "COMPACT_MIN_ROWS", 100)


def _sync(writer: StoreWriter, items: list[dict[str, Any]]) -> None:
    for start in range(0, len(items), PAGE):
        writer.ingest_json(items[start : start + PAGE]).result(60)
    writer.flush_index().result(60)
    writer.merge_index().result(60)
    writer.pack_now().result(60)


def _every_item(path: Path) -> dict[str, Any]:
    with CacheReader(path) as reader:
        return {entity_id: reader.raw_json(entity_id) for entity_id in reader.all_ids()}


def _compacted_rows(path: Path) -> int | None:
    conn = sqlite3.connect(path)
    try:
        row = conn.execute(
            "SELECT value FROM sync_state WHERE key = ?", [compaction.COMPACTED_ROWS_KEY]
        ).fetchone()
    finally:
        conn.close()
    return None if row is None else int(row[0])


def _unused_share(path: Path) -> float:
    """The share of the entities table's bytes its pages leave unused."""
    conn = sqlite3.connect(path)
    try:
        size, unused = conn.execute(
            "SELECT sum(pgsize), sum(unused) FROM dbstat WHERE name = 'entities'"
        ).fetchone()
    finally:
        conn.close()
    return float(unused) / float(size)


def test_a_library_synced_newest_first_is_rewritten_with_full_pages_reading_the_same(
    tmp_path: Path, library_items: list[dict[str, Any]]
) -> None:
    path = tmp_path / "cache.db"
    with StoreWriter(path) as writer:
        _sync(writer, library_items)
        before = _every_item(path)
        sparse = _unused_share(path)
        with CacheReader(path) as reader:
            found = reader.search("the", limit=50)
        size = path.stat().st_size
        assert writer.compact_now().result(60) is True
        # Done once: not again until the library has doubled.
        assert writer.compact_now().result(60) is False
    assert _compacted_rows(path) == len(library_items)
    assert _every_item(path) == before
    with CacheReader(path) as reader:
        assert reader.search("the", limit=50) == found
    assert _unused_share(path) < sparse / 2, (sparse, _unused_share(path))
    assert path.stat().st_size < size * 0.95
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert conn.execute("PRAGMA auto_vacuum").fetchone() == (2,)  # incremental still
        assert conn.execute("PRAGMA temp_store").fetchone() == (0,)  # a fresh connection's
    finally:
        conn.close()
    assert not Path(f"{path}-wal").exists() or Path(f"{path}-wal").stat().st_size < size / 10


def test_the_writer_compacts_by_itself_once_writes_stop_and_again_after_doubling(
    tmp_path: Path, library_items: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(compaction, "COMPACT_AFTER_QUIET_S", 0.3)
    path = tmp_path / "cache.db"
    half = len(library_items) // 2
    with StoreWriter(path) as writer:
        _sync(writer, library_items[:half])
        _wait_for(lambda: _compacted_rows(path) == half)
        _sync(writer, library_items[half : half + 200])  # grown, not doubled
        time.sleep(1.0)
        assert _compacted_rows(path) == half
        _sync(writer, library_items[half + 200 :])
        _wait_for(lambda: _compacted_rows(path) == len(library_items))


def test_a_write_interrupts_a_compaction_which_runs_again_at_the_next_quiet_moment(
    tmp_path: Path, library_items: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "cache.db"
    rewrite = compaction.rewrite
    started = threading.Event()
    attempts: list[str] = []

    def rewrite_slowly_the_first_time(db: Database) -> None:
        if attempts:
            attempts.append("rewritten")
            rewrite(db)
            return
        attempts.append("interrupted")
        started.set()
        # Minutes of work unless interrupted, in place of a large cache's rewrite.
        db.execute(
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n "
            "WHERE i < 10000000000) SELECT count(*) FROM n"
        ).fetchall()

    monkeypatch.setattr(compaction, "rewrite", rewrite_slowly_the_first_time)
    with StoreWriter(path) as writer:
        _sync(writer, library_items[:1000])
        monkeypatch.setattr(compaction, "COMPACT_AFTER_QUIET_S", 0.2)
        writer.set_sync_state("nudge", "1").result(10)  # the quiet moment starts now
        assert started.wait(30), "the writer never compacted"
        began = time.monotonic()
        writer.set_sync_state("bookmark", "2").result(30)
        assert time.monotonic() - began < 5  # not minutes: the write stopped the rewrite
        assert _compacted_rows(path) is None
        _wait_for(lambda: _compacted_rows(path) == 1000)
    assert attempts == ["interrupted", "rewritten"]


def test_a_disk_without_room_for_a_second_copy_is_not_compacted(
    tmp_path: Path, library_items: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(compaction, "_ROOM_MARGIN_BYTES", 1 << 62)
    path = tmp_path / "cache.db"
    with StoreWriter(path) as writer:
        _sync(writer, library_items[:500])
        size = path.stat().st_size
        assert writer.compact_now().result(60) is False
    assert _compacted_rows(path) is None
    assert path.stat().st_size >= size


def test_a_compaction_that_fails_is_not_tried_again_until_the_library_has_doubled(
    tmp_path: Path, library_items: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    attempts: list[int] = []

    def no_room_for_the_temporary_copy(db: Database) -> None:
        attempts.append(1)
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(compaction, "rewrite", no_room_for_the_temporary_copy)
    path = tmp_path / "cache.db"
    with StoreWriter(path) as writer:
        _sync(writer, library_items[:600])
        assert writer.compact_now().result(60) is False
        _sync(writer, library_items[600:900])
        assert writer.compact_now().result(60) is False  # grown, not doubled: not tried
        assert len(attempts) == 1
        _sync(writer, library_items[900:1200])
        assert writer.compact_now().result(60) is False
        assert len(attempts) == 2
        assert len(_every_item(path)) == 1200


# A writer that freezes midway through its rewrite (a progress handler blocks VACUUM once it
# has run a while) and says so, to be killed there.
_COMPACTING_CHILD = textwrap.dedent(
    """
    import sys, time
    from memex_desktop.store import StoreWriter, compaction

    compaction.COMPACT_MIN_ROWS = 100
    rewrite = compaction.rewrite
    steps = []

    def frozen_midway(db):
        def progress():
            steps.append(1)
            if len(steps) == 20:
                print("midway", flush=True)
                time.sleep(600)
            return 0
        db.conn.set_progress_handler(progress, 1000)
        rewrite(db)

    compaction.rewrite = frozen_midway
    with StoreWriter(sys.argv[1]) as writer:
        writer.compact_now().result()
    """
)


def test_kill_9_during_a_compaction_leaves_the_cache_as_it_was(
    tmp_path: Path, library_items: list[dict[str, Any]]
) -> None:
    path = tmp_path / "cache.db"
    with StoreWriter(path) as writer:
        _sync(writer, library_items)
    before = _every_item(path)
    with python_child(_COMPACTING_CHILD, str(path)) as child:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == b"midway"
    assert _every_item(path) == before
    assert _compacted_rows(path) is None
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    finally:
        conn.close()
    # And the next writer compacts it.
    with StoreWriter(path) as writer:
        assert writer.compact_now().result(60) is True
    assert _every_item(path) == before


def _wait_for(condition: Any, timeout_s: float = 30.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "not within the time allowed"
        time.sleep(0.02)
