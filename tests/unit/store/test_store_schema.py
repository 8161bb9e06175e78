"""Migrations, refusal of a newer schema, and known environment errors."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest

from memex_desktop.store import (
    SCHEMA_VERSION,
    CacheReader,
    DiskFullError,
    KnownStoreError,
    SchemaTooNewError,
    StoreWriter,
    open_cache,
)


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
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE future (x)")
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.commit()
    conn.close()
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
