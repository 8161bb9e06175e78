"""Migrations, refusal of a newer schema, and known environment errors."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest
from sqlite_utils import hookimpl
from sqlite_utils.plugins import pm
from support.caches import as_newer_schema, without_tag_members

from memex_desktop.store import (
    SCHEMA_VERSION,
    CacheReader,
    DiskFullError,
    KnownStoreError,
    SchemaTooNewError,
    StoreWriter,
    open_cache,
)
from memex_desktop.store.schema import cached_item_count


def test_new_cache_gets_every_migration_and_wal(tmp_path: Path) -> None:
    db = open_cache(tmp_path / "cache.db")
    try:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        for table in ("entities", "tags", "entity_tags", "edges", "views", "feeds", "sync_state"):
            assert db[table].exists()
    finally:
        db.close()
    reopened = open_cache(tmp_path / "cache.db")  # nothing pending: opens cleanly
    reopened.close()


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_newer_schema_is_refused_and_left_byte_identical(tmp_path: Path) -> None:
    path = tmp_path / "cache.db"
    as_newer_schema(path)
    before = _digest(path)
    for opener in (open_cache, StoreWriter, CacheReader):
        with pytest.raises(SchemaTooNewError, match="newer") as caught:
            opener(path)
        assert isinstance(caught.value, KnownStoreError)
        assert _digest(path) == before
        assert not Path(f"{path}-wal").exists()
        assert not Path(f"{path}-shm").exists()


def test_disk_full_is_a_known_error_and_nothing_is_half_written(cache_path: Path) -> None:
    writer = StoreWriter(cache_path)
    try:
        writer.submit(lambda db: _limit_pages(db)).result()
        big = [
            {"id": f"e{i}", "type": "web", "title": f"page {i}", "full_text": "word " * 4000}
            for i in range(200)
        ]
        with pytest.raises(DiskFullError):
            writer.ingest_json(big).result()
        small = writer.ingest_json([{"id": "ok", "type": "web", "title": "fits"}]).result()
        assert small.entity_ids == {"ok"}
    finally:
        writer.close()
    reader = CacheReader(cache_path)
    try:
        assert reader.all_ids() == ["ok"]
    finally:
        reader.close()


def _limit_pages(db: object) -> object:
    from memex_desktop.store import ChangeSet

    pages = db.execute("PRAGMA page_count").fetchone()[0]  # type: ignore[attr-defined]
    db.execute(f"PRAGMA max_page_count = {pages + 40}")  # type: ignore[attr-defined]
    return ChangeSet.empty()


def test_the_newest_first_listing_reads_the_created_index_alone(tmp_path: Path) -> None:
    """Version 7: a cache of version 6 gets the created_at index holding ids, and listing
    the newest items no longer looks each row up in the table."""
    from memex_desktop.emulator.synthetic import generate_library

    path = tmp_path / "cache.db"
    items = generate_library(120, seed=4, words_per_entity=10)["results"]
    with StoreWriter(path) as writer:
        writer.ingest_json(items).result()
    conn = sqlite3.connect(path)
    conn.execute("DROP INDEX entities_created")
    conn.execute("CREATE INDEX entities_created ON entities(created_at)")
    conn.execute("DROP TABLE body_terms")
    without_tag_members(conn)
    conn.execute("PRAGMA user_version = 6")
    conn.commit()
    conn.close()
    with CacheReader(path) as reader:
        before = reader.search_ids("", limit=1000)
    with StoreWriter(path):
        pass
    with CacheReader(path) as reader:
        listed = reader.search_ids("", limit=1000)
        plan = reader.db.execute(
            "EXPLAIN QUERY PLAN SELECT e.id FROM entities e "
            "ORDER BY e.created_at DESC, e.rowid DESC LIMIT 5"
        ).fetchall()
    assert len(listed) > 60
    assert listed == before
    assert "COVERING INDEX entities_created" in plan[-1][-1]


def test_sqlite_utils_plugins_never_run_on_the_cache_connections(tmp_path: Path) -> None:
    seen: list[sqlite3.Connection] = []

    class Plugin:
        @hookimpl
        def prepare_connection(self, conn: sqlite3.Connection) -> None:
            seen.append(conn)

    pm.register(Plugin(), name="memex-test-plugin")
    try:
        with StoreWriter(tmp_path / "cache.db") as writer:
            writer.ingest_json([{"id": "a", "type": "note", "text": "x"}]).result(30)
        with CacheReader(tmp_path / "cache.db") as reader:
            assert reader.all_ids() == ["a"]
    finally:
        pm.unregister(name="memex-test-plugin")
    assert seen == []


def test_the_items_of_a_cache_are_counted_without_touching_it(tmp_path: Path) -> None:
    path = tmp_path / "cache.db"
    assert cached_item_count(path) == 0  # none yet: and none made
    assert not path.exists()
    with StoreWriter(path) as writer:
        writer.ingest_json([{"id": f"w{n}", "type": "web", "title": "t"} for n in range(3)])
    assert cached_item_count(path) == 3
    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(b"not a database at all" * 10)
    assert cached_item_count(garbage) == 0
    assert garbage.read_bytes() == b"not a database at all" * 10
