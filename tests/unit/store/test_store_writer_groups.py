"""Tasks queued behind each other share one transaction, yet each succeeds or fails alone."""

from __future__ import annotations

import sqlite3
import threading

import pytest
from sqlite_utils import Database

from memex_desktop.store import CacheReader, ChangeSet, StoreWriter
from memex_desktop.store.errors import StoreBugError


def _held_until(gate: threading.Event) -> object:
    def task(db: Database) -> ChangeSet:
        assert gate.wait(10)
        return ChangeSet.empty()

    return task


def _write_then_fail(db: Database) -> ChangeSet:
    db.execute("INSERT INTO sync_state (key, value) VALUES ('undone', 'x')")
    raise ValueError("a bug in one task")


def _bad_statement(db: Database) -> ChangeSet:
    db.execute("INSERT INTO sync_state (key, value) VALUES ('also-undone', 'x')")
    db.execute("INSERT INTO no_such_table VALUES (1)")
    return ChangeSet.empty()


def test_queued_tasks_fail_alone(writer: StoreWriter, reader: CacheReader) -> None:
    gate = threading.Event()
    busy = writer.submit(_held_until(gate))  # type: ignore[arg-type]
    # Queued while the writer is busy, so the writer takes them as one group.
    first = writer.set_sync_state("first", "1")
    failing = writer.submit(_write_then_fail)
    broken = writer.submit(_bad_statement)
    last = writer.set_sync_state("last", "2")
    gate.set()
    busy.result(10)
    assert first.result(10) is not None
    with pytest.raises(ValueError, match="a bug in one task"):
        failing.result(10)
    with pytest.raises(StoreBugError) as bug:
        broken.result(10)
    assert isinstance(bug.value.__cause__, sqlite3.Error)
    assert last.result(10) is not None
    assert reader.sync_state("first") == "1"
    assert reader.sync_state("last") == "2"
    assert reader.sync_state("undone") is None
    assert reader.sync_state("also-undone") is None


def test_queued_pages_all_commit(writer: StoreWriter, reader: CacheReader) -> None:
    gate = threading.Event()
    busy = writer.submit(_held_until(gate))  # type: ignore[arg-type]
    pages = [
        writer.ingest_json([{"id": f"item-{n}", "type": "web", "title": f"Item {n}"}])
        for n in range(12)
    ]
    gate.set()
    busy.result(10)
    assert [page.result(10).entity_ids for page in pages] == [
        frozenset({f"item-{n}"}) for n in range(12)
    ]
    assert sorted(reader.all_ids()) == sorted(f"item-{n}" for n in range(12))
