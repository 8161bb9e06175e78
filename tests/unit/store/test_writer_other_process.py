"""The writer outlasts another process writing the same cache.db (another memex-desktop
syncing, saving or compacting the same data folder) instead of failing as locked."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlite_utils import Database

from memex_desktop.store import StoreWriter, writer
from memex_desktop.store.rows import ChangeSet


@pytest.fixture
def store(tmp_path: Path) -> Iterator[StoreWriter]:
    with StoreWriter(tmp_path / "cache.db") as opened:
        yield opened


def _other(path: Path) -> sqlite3.Connection:
    """A connection as another process has one (its own, autocommit, no busy wait)."""
    return sqlite3.connect(path, timeout=0, isolation_level=None, check_same_thread=False)


def test_a_write_after_a_read_is_not_refused_for_another_writers_commit(
    store: StoreWriter,
) -> None:
    other = _other(store.path)
    seen: list[str] = []

    def read_then_write(db: Database) -> ChangeSet:
        db.execute("SELECT count(*) FROM sync_state").fetchone()
        # Another process writes between this task's read and its write: in a transaction
        # begun deferred, the write failed at once (SQLITE_BUSY_SNAPSHOT, no busy wait).
        try:
            other.execute("INSERT OR REPLACE INTO sync_state VALUES ('other', '1')")
            seen.append("the other process wrote")
        except sqlite3.OperationalError:
            seen.append("the other process waited")
        db.execute("INSERT OR REPLACE INTO sync_state VALUES ('mine', '1')")
        return ChangeSet.empty()

    store.submit(read_then_write).result(timeout=30)
    other.close()
    assert seen == ["the other process waited"]


def test_a_write_waits_longer_than_the_busy_timeout_for_another_process(
    store: StoreWriter, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(writer, "BUSY_TIMEOUT_S", 0.05)
    store.submit(lambda db: db.execute("PRAGMA busy_timeout = 50") and ChangeSet.empty()).result()
    other = _other(store.path)
    other.execute("BEGIN IMMEDIATE")
    other.execute("INSERT OR REPLACE INTO sync_state VALUES ('other', '1')")
    written = store.set_sync_state("mine", "1")
    # The lock is held for many busy timeouts (a compaction in another process, say).
    released = threading.Timer(1.0, lambda: other.execute("COMMIT"))
    released.start()
    try:
        written.result(timeout=30)
    finally:
        released.join()
        other.close()
    check = sqlite3.connect(store.path)
    try:
        rows = check.execute("SELECT key FROM sync_state WHERE key IN ('mine', 'other')")
        assert sorted(row[0] for row in rows) == ["mine", "other"]
    finally:
        check.close()


def test_a_lock_held_beyond_patience_still_fails_as_locked(
    store: StoreWriter, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memex_desktop.store.errors import DatabaseLockedError

    monkeypatch.setattr(writer, "BUSY_TIMEOUT_S", 0.05)
    monkeypatch.setattr(writer, "LOCK_PATIENCE_S", 0.3)
    store.submit(lambda db: db.execute("PRAGMA busy_timeout = 50") and ChangeSet.empty()).result()
    other = _other(store.path)
    other.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(DatabaseLockedError):
            store.set_sync_state("mine", "1").result(timeout=30)
    finally:
        other.execute("ROLLBACK")
        other.close()
