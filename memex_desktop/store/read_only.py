"""Reading a data folder that cannot be written: a backup, a folder on a read-only mount.

SQLite opens a WAL database read-only (``mode=ro``) only when it can make the ``-shm`` index
beside it, or finds one there; in a folder nobody may write that fails ("unable to open
database file") although every page can be read. Then the file is opened ``immutable=1``:
no index, no locks, read as it lies. Pages still in a ``-wal`` are not seen that way, so the
small, precious outbox is read from a copy of the file and its WAL instead, and a cache read
so says what it leaves out (:attr:`FrozenCacheReader.wal_unread`).
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlite_utils import Database

from memex_desktop.store.errors import (
    DatabaseReadOnlyError,
    FolderNotWritableError,
    SchemaTooNewError,
    translate,
)
from memex_desktop.store.reader import CacheReader
from memex_desktop.store.schema import BUSY_TIMEOUT_S, SCHEMA_VERSION, wrapped

# The result codes of a read-only open that failed only because nothing may be made beside
# the file (its -shm index), not because the file cannot be read.
_NO_INDEX_CODES = frozenset({sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_READONLY})


def folder_write_problem(folder: Path, files: Iterable[Path] = ()) -> str | None:
    """Why nothing can be written in ``folder`` (or to one of ``files`` in it), in words for
    a person; None when it can be, or when the folder does not exist yet."""
    if not folder.is_dir():
        return None
    try:
        if os.statvfs(folder).f_flag & os.ST_RDONLY:
            return "it is on a read-only disk or mount"
    except (AttributeError, OSError):
        pass  # no statvfs (Windows): the permission check below still answers
    if not os.access(folder, os.W_OK | os.X_OK):
        return "you may not write to it"
    for file in files:
        if file.exists() and not os.access(file, os.W_OK):
            return f"{file.name} in it is read-only"
    return None


def unwritable_folder(folder: Path, files: Iterable[Path] = ()) -> FolderNotWritableError | None:
    """The error to stop at when nothing can be written in ``folder`` (or to one of
    ``files``), naming it and why; None when it can be, or does not exist yet."""
    reason = folder_write_problem(folder, files)
    return FolderNotWritableError(folder, reason) if reason is not None else None


def wal_has_pages(path: Path) -> bool:
    """Whether the database at ``path`` has a WAL beside it holding pages not yet copied in."""
    try:
        return Path(f"{path}-wal").stat().st_size > 0
    except OSError:
        return False


def connect_frozen(path: Path) -> tuple[sqlite3.Connection, bool]:
    """A connection that reads ``path`` and writes nothing beside it, and whether it reads
    the file as it lies (``immutable``, without the pages of its WAL).

    Raises:
        sqlite3.Error: the file cannot be read at all.
    """
    uri = Path(path).resolve().as_uri()
    conn = sqlite3.connect(f"{uri}?mode=ro", uri=True, timeout=BUSY_TIMEOUT_S)
    try:
        conn.execute("PRAGMA schema_version").fetchone()  # the file is opened by a first read
        return conn, False
    except sqlite3.Error as exc:
        conn.close()
        if _primary(exc) not in _NO_INDEX_CODES:
            raise
    conn = sqlite3.connect(f"{uri}?mode=ro&immutable=1", uri=True)
    return conn, True


@contextmanager
def frozen_connection(path: Path) -> Iterator[sqlite3.Connection]:
    """A read-only connection to a small database (the outbox) that sees all it holds, the
    pages of its WAL too: read in place when SQLite can, otherwise from a copy of the file
    and its WAL in a temporary folder (removed when the block ends)."""
    conn, immutable = connect_frozen(path)
    if not (immutable and wal_has_pages(path)):
        try:
            yield conn
        finally:
            conn.close()
        return
    conn.close()
    with tempfile.TemporaryDirectory(prefix="memex-desktop-") as folder:
        copy = Path(folder) / Path(path).name
        shutil.copyfile(path, copy)
        shutil.copyfile(f"{path}-wal", f"{copy}-wal")
        conn = sqlite3.connect(f"{copy.as_uri()}?mode=ro", uri=True)
        try:
            yield conn
        finally:
            conn.close()


class FrozenCacheReader(CacheReader):
    """A :class:`CacheReader` of a cache in a folder that cannot be written: it never
    migrates or creates the file, and reads it ``immutable`` when SQLite cannot make its WAL
    index (``wal_unread`` then says whether pages in ``cache.db-wal`` were left unread)."""

    wal_unread: bool = False

    def __init__(self, path: Path) -> None:
        """Open the cache at ``path`` for reading only.

        Raises:
            DatabaseReadOnlyError: the cache must be brought up to date first, which writes it.
            SchemaTooNewError: a newer version wrote it.
        """
        path = Path(path)
        try:
            conn, _immutable = connect_frozen(path)
            try:
                version = int(conn.execute("PRAGMA user_version").fetchone()[0])
            finally:
                conn.close()
        except sqlite3.Error as exc:
            raise translate(exc, f"reading {path}", file=path) from exc
        if version > SCHEMA_VERSION:
            raise SchemaTooNewError(str(path), version, SCHEMA_VERSION)
        if version < SCHEMA_VERSION:
            error = DatabaseReadOnlyError(
                f"{path} was written by an older memex-desktop and must be brought up to "
                "date before it can be read, which writes it"
            )
            error.file = path
            raise error
        super().__init__(path)

    def _connect(self) -> Database:
        """The read-only connection, immutable when it has to be."""
        try:
            conn, immutable = connect_frozen(self.path)
        except sqlite3.Error as exc:
            raise translate(exc, f"reading {self.path}", file=self.path) from exc
        self.wal_unread = immutable and wal_has_pages(self.path)
        return wrapped(conn)


def _primary(exc: sqlite3.Error) -> int | None:
    """SQLite's primary result code of ``exc`` (None when it carries none)."""
    code = getattr(exc, "sqlite_errorcode", None)
    return code & 0xFF if isinstance(code, int) else None
