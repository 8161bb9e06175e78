"""A newer or damaged outbox.db is never opened read-write: saves are preserved or recovered,
and the words name outbox.db; a disk short of space is freed from the cache's WAL first."""

from __future__ import annotations

import hashlib
import os
import sqlite3
from pathlib import Path

import pytest

from memex_desktop.errors import user_message
from memex_desktop.store import Outbox, SchemaTooNewError, StoreWriter
from memex_desktop.store.errors import DatabaseCorruptError, DatabaseReadOnlyError, translate
from memex_desktop.store.outbox import OUTBOX_SCHEMA_VERSION, read_only_ops

SAVES = 300


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _outbox_with_saves(path: Path, count: int = SAVES) -> None:
    """An outbox holding ``count`` URL saves, closed (its WAL copied into the file)."""
    outbox = Outbox(path)
    for index in range(count):
        outbox.enqueue_url(f"https://site{index}.example/{'long-path-' * 8}{index}")
    outbox.close()


def _ops_leaf_pages(path: Path) -> list[int]:
    """The page numbers of the ops table's leaves (where its rows live)."""
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute(
            "SELECT pageno FROM dbstat WHERE name = 'ops' AND pagetype = 'leaf' ORDER BY pageno"
        ).fetchall()
        page_size = int(conn.execute("PRAGMA page_size").fetchone()[0])
    finally:
        conn.close()
    assert page_size == 4096
    return [int(row[0]) for row in rows]


def _overwrite_page(path: Path, page: int) -> None:
    with path.open("r+b") as handle:
        handle.seek((page - 1) * 4096)
        handle.write(b"\xa5" * 4096)


def test_an_outbox_written_by_a_newer_version_is_left_untouched(tmp_path: Path) -> None:
    path = tmp_path / "outbox.db"
    _outbox_with_saves(path, 3)
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {OUTBOX_SCHEMA_VERSION + 5}")
    conn.close()
    before = _digest(path)
    with pytest.raises(SchemaTooNewError) as caught:
        Outbox(path)
    assert _digest(path) == before
    message = user_message(caught.value)
    assert "outbox.db" in message.text
    assert "newer memex-desktop" in message.text
    assert "fresh cache" not in message.one_line()
    # Its saves can still be shown, read without writing.
    assert [op.url for op in read_only_ops(path)][:1] == [
        f"https://site0.example/{'long-path-' * 8}0"
    ]
    assert _digest(path) == before


def test_a_damaged_outbox_is_copied_aside_and_its_readable_saves_recovered(
    tmp_path: Path,
) -> None:
    path = tmp_path / "outbox.db"
    _outbox_with_saves(path)
    leaves = _ops_leaf_pages(path)
    assert len(leaves) > 4
    _overwrite_page(path, leaves[len(leaves) // 2])
    damaged = _digest(path)

    outbox = Outbox(path)
    try:
        recovery = outbox.recovery
        assert recovery is not None
        assert _digest(recovery.copy) == damaged, "the copy is not the damaged file as found"
        assert recovery.copy.parent == tmp_path
        assert recovery.copy.name.startswith("outbox.db.damaged-")
        listed = outbox.list()
        assert len(listed) == recovery.recovered
        assert SAVES // 2 < recovery.recovered < SAVES, "one leaf of rows is lost, no more"
        assert all(op.state == "queued" and op.url for op in listed)
        words = recovery.message()
        assert f"{recovery.recovered} saves were recovered" in words
        assert str(recovery.copy) in words
        # The fresh outbox is sound and takes new saves.
        assert outbox.enqueue_url("https://after.example/new").status == "queued"
        conn = sqlite3.connect(path)
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        conn.close()
    finally:
        outbox.close()
    # Opened again, nothing is recovered twice.
    again = Outbox(path)
    assert again.recovery is None
    assert len(again.list()) == recovery.recovered + 1
    again.close()


def test_without_the_sqlite3_program_rows_are_read_one_by_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "outbox.db"
    _outbox_with_saves(path, 50)
    _overwrite_page(path, _ops_leaf_pages(path)[-1])
    monkeypatch.setenv("PATH", str(tmp_path / "no-programs-here"))
    outbox = Outbox(path)
    try:
        assert outbox.recovery is not None
        assert outbox.recovery.method == "row by row"
        assert 0 < outbox.recovery.recovered < 50
    finally:
        outbox.close()


def test_a_file_that_is_no_database_is_kept_and_a_fresh_outbox_starts(tmp_path: Path) -> None:
    path = tmp_path / "outbox.db"
    path.write_bytes(b"these bytes are not an SQLite database " * 300)
    garbage = _digest(path)
    outbox = Outbox(path)
    try:
        assert outbox.recovery is not None
        assert outbox.recovery.recovered == 0
        assert _digest(outbox.recovery.copy) == garbage
        assert "0 saves were recovered" in outbox.recovery.message()
        assert outbox.enqueue_url("https://fresh.example/").status == "queued"
    finally:
        outbox.close()


def test_errors_about_the_outbox_name_outbox_db_and_tell_the_truth(tmp_path: Path) -> None:
    error = DatabaseCorruptError("reading outbox.db: the database file is damaged")
    error.file = tmp_path / "outbox.db"
    message = user_message(error)
    assert "outbox.db" in message.text
    assert message.action is not None
    assert "cache.db" not in message.one_line()
    assert "queued saves are kept" not in message.one_line()
    cache_error = DatabaseCorruptError("reading cache.db: damaged")
    cache_error.file = tmp_path / "cache.db"
    assert "Delete cache.db" in (user_message(cache_error).action or "")


def test_a_read_only_cache_is_called_read_only_with_its_name(tmp_path: Path) -> None:
    path = tmp_path / "cache.db"
    StoreWriter(path).close()
    conn = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)
    try:
        with pytest.raises(sqlite3.OperationalError) as caught:
            conn.execute("PRAGMA user_version = 7")
    finally:
        conn.close()
    error = translate(caught.value, "writing cache.db", file=path)
    assert isinstance(error, DatabaseReadOnlyError)
    message = user_message(error)
    assert message.text == "cache.db is read-only: memex-desktop cannot write it."
    assert "report" not in message.one_line().lower()


def test_short_of_space_the_caches_wal_is_truncated_before_the_outbox_opens(
    tmp_path: Path,
) -> None:
    cache = tmp_path / "cache.db"
    holder = sqlite3.connect(cache, isolation_level=None)
    holder.execute("PRAGMA journal_mode=WAL")
    holder.execute("PRAGMA wal_autocheckpoint=0")
    holder.execute("CREATE TABLE filler (x BLOB)")
    holder.execute("INSERT INTO filler VALUES (randomblob(400000))")
    wal = Path(f"{cache}-wal")
    try:
        assert wal.stat().st_size > 400000
        # More free space than any disk has: the check finds the disk short.
        outbox = Outbox(tmp_path / "outbox.db", min_free_bytes=2**62)
        outbox.enqueue_url("https://kept.example/")
        outbox.close()
        assert wal.stat().st_size == 0
        assert holder.execute("SELECT length(x) FROM filler").fetchone() == (400000,)
    finally:
        holder.close()


def test_opening_a_current_outbox_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "outbox.db"
    _outbox_with_saves(path, 2)
    before = (_digest(path), os.stat(path).st_mtime_ns)
    outbox = Outbox(path)
    assert len(outbox.list()) == 2
    outbox.close()
    assert (_digest(path), os.stat(path).st_mtime_ns) == before
