"""Store errors: environment problems a person can act on, apart from programming bugs."""

from __future__ import annotations

import sqlite3


class StoreError(Exception):
    """Base of every error the store raises on purpose."""


class KnownStoreError(StoreError):
    """A problem of the environment (disk full, database locked or damaged, too new), not a bug."""


class DiskFullError(KnownStoreError):
    """The disk (or the database size limit) is full; nothing of the failed write was kept."""


class DatabaseLockedError(KnownStoreError):
    """Another process holds the database lock for longer than the busy timeout."""


class DatabaseCorruptError(KnownStoreError):
    """The file is not a database or is damaged; the cache can be rebuilt by a full sync."""


class SchemaTooNewError(KnownStoreError):
    """The file was written by a newer memex-desktop; it is left untouched."""

    def __init__(self, path: str, found: int, supported: int) -> None:
        super().__init__(
            f"{path} has schema version {found}, newer than the {supported} this version of "
            "memex-desktop understands; it was left untouched. Update memex-desktop, or move "
            "the file away to start a fresh cache."
        )
        self.path = path
        self.found = found
        self.supported = supported


_FULL_WORDS = ("database or disk is full", "disk i/o error")
_LOCKED_WORDS = ("database is locked", "database table is locked")
_CORRUPT_WORDS = ("malformed", "file is not a database", "database disk image")


def translate(exc: sqlite3.Error, context: str) -> StoreError | None:
    """The KnownStoreError matching an sqlite3 error, or None when the error is a bug."""
    code = getattr(exc, "sqlite_errorcode", None)
    message = str(exc).lower()
    if code == sqlite3.SQLITE_FULL or any(word in message for word in _FULL_WORDS[:1]):
        return DiskFullError(f"{context}: the disk is full ({exc})")
    if code in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED) or any(
        word in message for word in _LOCKED_WORDS
    ):
        return DatabaseLockedError(f"{context}: the database is locked by another program ({exc})")
    if code in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB) or any(
        word in message for word in _CORRUPT_WORDS
    ):
        return DatabaseCorruptError(f"{context}: the database file is damaged ({exc})")
    if code == sqlite3.SQLITE_IOERR or _FULL_WORDS[1] in message:
        return DiskFullError(f"{context}: the disk could not be written ({exc})")
    return None
