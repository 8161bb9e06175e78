"""Every SQLite error becomes a known (environment) error or a bug, by SQLite's result code."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from memex_desktop.store.errors import (
    DatabaseAccessError,
    DatabaseCorruptError,
    DatabaseLockedError,
    DiskFullError,
    KnownStoreError,
    StoreBugError,
    translate,
)


def _raised(action: object) -> sqlite3.Error:
    """The sqlite3 error a callable raises (real errors carry SQLite's result code)."""
    with pytest.raises(sqlite3.Error) as caught:
        action()  # type: ignore[operator]
    return caught.value


def test_a_lock_held_by_another_connection_is_known(tmp_path: Path) -> None:
    path = tmp_path / "held.db"
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("CREATE TABLE t (x)")
    holder.execute("BEGIN EXCLUSIVE")
    other = sqlite3.connect(path, timeout=0)
    try:
        exc = _raised(lambda: other.execute("SELECT * FROM t"))
        error = translate(exc, "reading held.db")
        assert isinstance(error, DatabaseLockedError)
        assert error.__cause__ is exc
    finally:
        other.close()
        holder.execute("ROLLBACK")
        holder.close()


def test_a_file_that_is_not_a_database_is_known_damage(tmp_path: Path) -> None:
    path = tmp_path / "garbage.db"
    path.write_bytes(b"this is not a database, it only has its name" * 100)
    conn = sqlite3.connect(path)
    try:
        error = translate(_raised(lambda: conn.execute("SELECT * FROM t")), "opening")
    finally:
        conn.close()
    assert isinstance(error, DatabaseCorruptError)


def test_a_folder_that_cannot_hold_the_file_is_known(tmp_path: Path) -> None:
    exc = _raised(lambda: sqlite3.connect(tmp_path / "missing" / "cache.db"))
    assert isinstance(translate(exc, "opening"), DatabaseAccessError)


@pytest.mark.parametrize(
    ("extended_code", "kind"),
    [
        (sqlite3.SQLITE_FULL, DiskFullError),
        (sqlite3.SQLITE_BUSY_SNAPSHOT, DatabaseLockedError),
        (sqlite3.SQLITE_IOERR_WRITE, DiskFullError),
        (sqlite3.SQLITE_CORRUPT_VTAB, DatabaseCorruptError),
        (sqlite3.SQLITE_READONLY_DBMOVED, DatabaseAccessError),
    ],
)
def test_extended_codes_count_by_their_primary_code(
    extended_code: int, kind: type[KnownStoreError]
) -> None:
    exc = sqlite3.OperationalError("from the environment")
    exc.sqlite_errorcode = extended_code  # type: ignore[attr-defined]
    assert isinstance(translate(exc, "writing"), kind)


def test_bad_sql_is_a_bug_that_keeps_the_sqlite_error() -> None:
    conn = sqlite3.connect(":memory:")
    try:
        exc = _raised(lambda: conn.execute("INSERT INTO no_such_table VALUES (1)"))
    finally:
        conn.close()
    error = translate(exc, "writing cache.db")
    assert isinstance(error, StoreBugError)
    assert not isinstance(error, KnownStoreError)
    assert error.__cause__ is exc
    assert "no such table" in str(error)


def test_errors_without_a_result_code_are_bugs_whatever_they_say() -> None:
    closed = sqlite3.connect(":memory:")
    closed.close()
    assert isinstance(translate(_raised(lambda: closed.execute("SELECT 1")), "x"), StoreBugError)
    # Words alone decide nothing: only SQLite's own result code says "environment".
    assert isinstance(translate(sqlite3.OperationalError("database is locked"), "x"), StoreBugError)
