"""A cache write that finds the disk full gives the WAL's space back, so the outbox still opens.

The disk is filled honestly without root or a loopback device: ``PRAGMA max_page_count`` on
the writer's own connection makes SQLite fail the write with SQLITE_FULL, the very result
code a full disk gives, through the same failure path.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from memex_desktop.emulator.synthetic import generate_library
from memex_desktop.errors import user_message
from memex_desktop.store import DiskFullError, Outbox, StoreWriter
from memex_desktop.store.outbox import read_only_ops


def _limit_pages(writer: StoreWriter, extra: int) -> None:
    """Let cache.db grow by at most ``extra`` pages from now on (0 lifts the limit)."""

    def limit(db: object) -> object:
        from memex_desktop.store.rows import ChangeSet

        count = int(db.execute("PRAGMA page_count").fetchone()[0])  # type: ignore[attr-defined]
        value = count + extra if extra else 2**31
        db.execute(f"PRAGMA max_page_count = {value}")  # type: ignore[attr-defined]
        return ChangeSet.empty()

    writer.submit(limit).result()  # type: ignore[arg-type]


def test_a_full_disk_truncates_the_caches_wal_and_the_outbox_still_opens(tmp_path: Path) -> None:
    cache = tmp_path / "cache.db"
    wal = Path(f"{cache}-wal")
    library = generate_library(400, seed=3, words_per_entity=60)["results"]
    writer = StoreWriter(cache)
    try:
        writer.ingest_json(library[:50]).result()
        assert wal.stat().st_size > 0
        _limit_pages(writer, 2)
        with pytest.raises(DiskFullError) as caught:
            writer.ingest_json(library[50:]).result()
        assert wal.stat().st_size == 0, "the failed write left the WAL holding the disk"
        message = user_message(caught.value)
        assert message.text == "The disk is full: cache.db could not be written."
        outbox = Outbox(tmp_path / "outbox.db")
        assert outbox.enqueue_url("https://saved.example/while-full").status == "queued"
        assert [op.url for op in outbox.list()] == ["https://saved.example/while-full"]
        outbox.close()
        assert len(read_only_ops(tmp_path / "outbox.db")) == 1
        # Space again: the cache takes the rest of the library.
        _limit_pages(writer, 0)
        writer.ingest_json(library[50:]).result()
    finally:
        writer.close()
