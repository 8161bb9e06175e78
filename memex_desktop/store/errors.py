"""Store errors: environment problems a person can act on, apart from programming bugs."""

from __future__ import annotations

import sqlite3
from pathlib import Path


class StoreError(Exception):
    """Base of every error the store raises on purpose; ``file`` is the database it is about
    (None when not known), so the words for a person name the right file."""

    file: Path | None = None


class KnownStoreError(StoreError):
    """A problem of the environment (disk full, database locked or damaged, too new), not a bug."""


class DiskFullError(KnownStoreError):
    """The disk (or the database size limit) is full; nothing of the failed write was kept."""


class DatabaseLockedError(KnownStoreError):
    """Another process holds the database lock for longer than the busy timeout."""


class DatabaseCorruptError(KnownStoreError):
    """The file is not a database or is damaged; the cache can be rebuilt by a full sync."""


class DatabaseAccessError(KnownStoreError):
    """The file cannot be opened or written here (permissions, a read-only folder or disk)."""


class DatabaseReadOnlyError(DatabaseAccessError):
    """The file (or its folder or disk) can be read but not written."""


class FolderNotWritableError(DatabaseAccessError):
    """Nothing can be written in the data folder: ``reason`` says why in words for a person
    (a read-only disk or mount, no permission, a read-only file in it)."""

    def __init__(self, folder: Path, reason: str) -> None:
        super().__init__(f"cannot write in the data folder {folder}: {reason}")
        self.folder = folder
        self.reason = reason


class SchemaTooNewError(KnownStoreError):
    """The file was written by a newer memex-desktop; it is left untouched."""

    def __init__(self, path: str, found: int, supported: int) -> None:
        advice = (
            "it holds saves not sent yet: update memex-desktop to send them"
            if Path(path).name.startswith("outbox")
            else "update memex-desktop, or move the file away to start a fresh cache"
        )
        super().__init__(
            f"{path} has schema version {found}, newer than the {supported} this version of "
            f"memex-desktop understands; it was left untouched: {advice}."
        )
        self.path = path
        self.file = Path(path)
        self.found = found
        self.supported = supported


class SaveBeingSent(StoreError):
    """A save the person asked to drop is being sent right now and cannot be called back."""

    def __init__(self, op_id: int) -> None:
        super().__init__(f"operation {op_id} is being sent now")
        self.op_id = op_id


class SearchLanguageError(ValueError):
    """A search the search language cannot mean anything by (an unknown type, a date that is
    not one); the message says what to type instead. Not a failure of the store."""


class StoreBugError(StoreError):
    """An SQLite error no environment explains (bad SQL, a misused connection): a bug.

    The SQLite error it stands for is its ``__cause__``; the person is asked to report it.
    """


# Primary result codes (the low byte of SQLite's extended codes) that the environment
# causes: a full disk, a lock held elsewhere, a damaged file, a failing device.
_FULL_CODES = frozenset({sqlite3.SQLITE_FULL})
_LOCKED_CODES = frozenset({sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED})
_CORRUPT_CODES = frozenset({sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB})
_DEVICE_CODES = frozenset({sqlite3.SQLITE_IOERR})
_ACCESS_CODES = frozenset({sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_PERM})
_READONLY_CODES = frozenset({sqlite3.SQLITE_READONLY})


def translate(
    exc: sqlite3.Error, context: str, *, file: Path | None = None
) -> KnownStoreError | StoreBugError:
    """The store's error for an sqlite3 error, by SQLite's result code: a KnownStoreError for
    what the environment causes, a StoreBugError for everything else; ``exc`` is its cause
    and ``file`` the database it happened to."""
    error = _classify(exc, context)
    error.__cause__ = exc
    error.file = file
    return error


def _classify(exc: sqlite3.Error, context: str) -> KnownStoreError | StoreBugError:
    """The error class and words of :func:`translate`."""
    code = getattr(exc, "sqlite_errorcode", None)
    primary = code & 0xFF if isinstance(code, int) else None
    if primary in _FULL_CODES:
        return DiskFullError(f"{context}: the disk is full ({exc})")
    if primary in _LOCKED_CODES:
        return DatabaseLockedError(f"{context}: the database is locked by another program ({exc})")
    if primary in _CORRUPT_CODES:
        return DatabaseCorruptError(f"{context}: the database file is damaged ({exc})")
    if primary in _DEVICE_CODES:
        return DiskFullError(f"{context}: the disk could not be written ({exc})")
    if primary in _READONLY_CODES:
        return DatabaseReadOnlyError(f"{context}: the file is read-only ({exc})")
    if primary in _ACCESS_CODES:
        return DatabaseAccessError(f"{context}: the file cannot be opened or written ({exc})")
    return StoreBugError(f"{context}: {type(exc).__name__}: {exc}")
