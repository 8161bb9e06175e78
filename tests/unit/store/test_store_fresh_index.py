"""A large write (a sync page) commits before it is indexed; its rows are indexed at once
when no task waits, else a batch at a time, and nothing is lost when that indexing fails."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from sqlite_utils import Database

from memex_desktop.store import CacheReader, ChangeSet, StoreWriter, ingest
from memex_desktop.store import writer as writer_module
from memex_desktop.store.writer import WriteTask

T = 1_700_000_000_000
PAGE = writer_module.INLINE_INDEX_ROWS + 30


def _page(start: int, word: str) -> list[dict[str, object]]:
    return [
        {"id": f"p-{n}", "type": "web", "title": f"Page item {n}",
         "url": f"https://p.example/{n}", "created_at": T - n, "full_text": f"{word} {n}"}
        for n in range(start, start + PAGE)
    ]  # fmt: skip


def _queued(path: Path) -> int:
    with sqlite3.connect(path) as conn:
        return int(conn.execute("SELECT count(*) FROM fts_pending").fetchone()[0])


def _held_until(gate: threading.Event) -> WriteTask:
    def task(db: Database) -> ChangeSet:
        assert gate.wait(10)
        return ChangeSet.empty()

    return task


def _wait_until(done: Callable[[], bool]) -> None:
    deadline = time.monotonic() + 10
    while not done() and time.monotonic() < deadline:
        time.sleep(0.002)


def test_a_page_is_indexed_at_once_when_no_task_waits(
    writer: StoreWriter, reader: CacheReader, cache_path: Path
) -> None:
    writer.ingest_json(_page(0, "alonepageword")).result()
    _wait_until(lambda: not _queued(cache_path))
    assert _queued(cache_path) == 0
    assert len(reader.search("alonepageword", limit=500)) == PAGE


@pytest.mark.parametrize("at_once", [PAGE, 3 * PAGE])
def test_pages_back_to_back_are_indexed_a_batch_at_a_time(
    writer: StoreWriter,
    reader: CacheReader,
    cache_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    at_once: int,
) -> None:
    # One task per transaction, so the task queued behind a page runs in one of its own.
    monkeypatch.setattr(writer_module, "GROUP_TASKS", 1)
    monkeypatch.setattr(writer_module, "FLUSH_BATCH_ROWS", at_once)
    before, after = threading.Event(), threading.Event()
    busy = writer.submit(_held_until(before))
    page = writer.ingest_json(_page(0, "queuedpageword"))
    behind = writer.set_sync_state("bench.offset", "1")
    # Holds the writer while the queue is counted, so it finds no quiet moment before.
    held = writer.submit(_held_until(after))
    before.set()
    busy.result(10)
    page.result(10)
    behind.result(10)
    # A batch's worth of rows is indexed before the next task; fewer wait for a quiet moment.
    assert _queued(cache_path) == (0 if at_once <= PAGE else PAGE)
    after.set()
    held.result(10)
    writer.flush_index().result()
    assert len(reader.search("queuedpageword", limit=500)) == PAGE


def test_rows_whose_indexing_failed_stay_queued_and_are_indexed_later(
    writer: StoreWriter, reader: CacheReader, cache_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    failures: list[int] = []

    def full_disk(*_args: object) -> int:
        failures.append(1)
        raise sqlite3.OperationalError("database or disk is full")

    with monkeypatch.context() as patched:
        patched.setattr(ingest, "index_rows", full_disk)
        writer.ingest_json(_page(0, "survivorword")).result()
        _wait_until(lambda: bool(failures))
        assert failures
    # The rows stayed queued: the writer works the queue off by itself once no write waits.
    _wait_until(lambda: not _queued(cache_path))
    assert _queued(cache_path) == 0
    assert len(reader.search("survivorword", limit=500)) == PAGE
