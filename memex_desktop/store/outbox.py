"""outbox.db: what the person saved that the server has not confirmed yet. Never lost.

Every operation is acknowledged only after its COMMIT. The file uses WAL with
``synchronous=FULL``: each commit fsyncs the WAL once (a rollback journal needs two syncs
per commit), committed rows survive power loss, and the GUI thread can read the queue
while the sync thread writes. Each thread gets its own connection; writes take the lock
up front (``BEGIN IMMEDIATE``) so two writers never deadlock on a lock upgrade.

The file is precious: it is looked at read-only before it is opened for writing. One written
by a newer version is left untouched (:class:`SchemaTooNewError`); a damaged one is copied
aside and what can be read goes into a fresh outbox (:mod:`memex_desktop.store.outbox_recovery`,
reported in :attr:`Outbox.recovery`). The disposable cache never takes the outbox's disk space:
when space is short, the cache's WAL is truncated before the outbox is opened, and the outbox's
own WAL is kept a few saves long; a save that finds the disk full gives both back and is tried
once more.
"""

from __future__ import annotations

import builtins
import json
import logging
import os
import shutil
import sqlite3
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from memex_desktop.store.errors import (
    DatabaseCorruptError,
    DiskFullError,
    KnownStoreError,
    SchemaTooNewError,
    translate,
)
from memex_desktop.store.outbox_recovery import (
    ROW_COLUMNS,
    OutboxRecovery,
    clean_rows,
    copy_aside,
    salvage,
)
from memex_desktop.store.read_only import frozen_connection
from memex_desktop.store.urls import earlier_key_prefixes, normalize_url, savable_url

_log = logging.getLogger(__name__)

OutboxState = Literal["queued", "sending", "accepted", "confirmed", "needs_attention"]
STATES: tuple[OutboxState, ...] = ("queued", "sending", "accepted", "confirmed", "needs_attention")
OUTBOX_SCHEMA_VERSION = 2
_BUSY_TIMEOUT_S = 10.0
# Below this much free space the cache's WAL is truncated before the outbox opens: the WAL
# index and a few commits of saves must fit.
MIN_FREE_BYTES = 8 * 1024 * 1024
_MAX_REASON_CHARS = 500
# Pages the outbox's WAL grows to before it is copied into the file (a few saves).
_WAL_PAGES = 16
# Which normalize_url the URL saves are keyed by (control key "url_keys"): 2 drops ``www.``
# and fbclid, gclid, mc_cid, mc_eid. A file keyed by an earlier one is keyed again when it is
# opened; the schema is unchanged, so earlier versions still open the file.
URL_KEYS_VERSION = 2

_SCHEMA = [
    """CREATE TABLE IF NOT EXISTS ops (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        kind TEXT NOT NULL,
        url TEXT,
        normalized_url TEXT UNIQUE,
        external_id TEXT UNIQUE,
        payload TEXT,
        state TEXT NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        reason TEXT,
        entity_id TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        next_attempt_at INTEGER NOT NULL
    )""",
    "CREATE INDEX IF NOT EXISTS ops_due ON ops(state, next_attempt_at, id)",
    "CREATE TABLE IF NOT EXISTS control (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
]
# (schema version, its statements), oldest first: a file is brought up from its version, so
# every version is applied once and rows written by older versions stay readable.
_MIGRATIONS: tuple[tuple[int, tuple[str, ...]], ...] = (
    (1, tuple(_SCHEMA)),
    # Why the last attempt failed, as a stable kind the person's words are chosen by
    # (memex_desktop.errors.ErrorKind); ``reason`` keeps the server's own message.
    (2, ("ALTER TABLE ops ADD COLUMN error_kind TEXT",)),
)
_OP_COLUMNS = (
    "id, kind, url, normalized_url, external_id, payload, state, attempts, reason, entity_id, "
    "created_at, updated_at, next_attempt_at, error_kind"
)


@dataclass(frozen=True)
class OutboxOp:
    """One queued operation (``payload`` is the entity JSON of a save_entity)."""

    id: int
    kind: str
    url: str | None
    normalized_url: str | None
    external_id: str | None
    payload: dict[str, Any] | None
    state: str
    attempts: int
    reason: str | None
    entity_id: str | None
    created_at: int
    updated_at: int
    next_attempt_at: int
    # The kind of the last failure (None before any, and for rows older than kinds).
    error_kind: str | None = None


@dataclass(frozen=True)
class OutboxFailure:
    """Why sending an operation failed: a stable short kind and the server's message."""

    kind: str
    message: str = ""


@dataclass(frozen=True)
class EnqueueResult:
    """What happened to a save request; it is committed when this is returned."""

    status: Literal["queued", "already_queued", "already_saved"]
    op: OutboxOp | None
    entity_id: str | None


@dataclass(frozen=True)
class UndoAnswer:
    """The outbox's answer to an undo: the save was removed, or it stays as ``op`` says.

    ``op`` is None when the save was removed, or when there was none by that id (dropped
    or undone already); otherwise it is the save as it is now, on its way or in the library.
    """

    undone: bool
    op: OutboxOp | None = None


def _now_ms() -> int:
    return int(time.time() * 1000)


def _as_ms(value: float | None) -> int:
    """Epoch ms from ms or seconds (values below 1e11 are seconds); now when None."""
    if value is None:
        return _now_ms()
    return int(value * 1000 if abs(value) < 1e11 else value)


def _paused_failure(value: str) -> OutboxFailure:
    """The failure a pause was stored with; older versions stored their own text, and only
    ever paused because the usage balance ran out."""
    try:
        data = json.loads(value)
    except ValueError:
        data = None
    if isinstance(data, dict) and isinstance(data.get("kind"), str):
        return OutboxFailure(data["kind"], str(data.get("message") or ""))
    return OutboxFailure("insufficient_credits", value)


def _op(row: tuple[Any, ...]) -> OutboxOp:
    payload = json.loads(row[5]) if row[5] else None
    return OutboxOp(row[0], row[1], row[2], row[3], row[4], payload, *row[6:])


class Outbox:
    """The durable queue of saves; safe to use from several threads at once."""

    def __init__(
        self,
        path: Path,
        *,
        cache_path: Path | None = None,
        min_free_bytes: int = MIN_FREE_BYTES,
    ) -> None:
        """Open (creating, migrating or recovering) the outbox at ``path``.

        Raises:
            SchemaTooNewError: a newer version wrote the file; it is left untouched.
            KnownStoreError: the disk is full, the file locked or not writable.
        """
        self.path = Path(path)
        self.cache_path = Path(cache_path) if cache_path else self.path.with_name("cache.db")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # Connections are lent to one thread at a time and given back after each use, not
        # kept per thread: the GUI's worker threads lose their thread-local values after every
        # task, and a connection per task kept for good grew a reading session by about
        # 0.3 MB per item opened. A thread that asks again while it holds one (a read inside a
        # write) gets the same one back.
        self._lock = threading.Lock()
        self._idle: builtins.list[sqlite3.Connection] = []
        self._lent: dict[int, tuple[sqlite3.Connection, int]] = {}  # thread -> (conn, depth)
        # Connections lent before the last close(): closed when given back.
        self._retired: set[int] = set()
        # Set when this open found the file damaged and recovered what it could.
        self.recovery: OutboxRecovery | None = None
        make_room_for_outbox(self.path, self.cache_path, min_free_bytes)
        version = self._inspect()
        if version is None:
            self.recovery = self._recover()
            version = OUTBOX_SCHEMA_VERSION
        if version < OUTBOX_SCHEMA_VERSION:
            self._migrate()
        self._rekey_urls()

    def _inspect(self) -> int | None:
        """The file's schema version, read without writing (0 for a new file); None when it
        is damaged.

        Raises:
            SchemaTooNewError: the file is newer than this version; nothing was written.
        """
        if not self.path.exists() or self.path.stat().st_size == 0:
            return 0
        try:
            conn = sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=ro", uri=True)
            try:
                version = int(conn.execute("PRAGMA user_version").fetchone()[0])
                if version > OUTBOX_SCHEMA_VERSION:
                    raise _too_new(self.path, version)
                problems = conn.execute("PRAGMA quick_check").fetchall()
            finally:
                conn.close()
        except sqlite3.Error as exc:
            error = translate(exc, f"reading {self.path}", file=self.path)
            if isinstance(error, DatabaseCorruptError):
                _log.warning("%s is damaged: %s", self.path, exc)
                return None
            raise error from exc
        if problems != [("ok",)]:
            _log.warning("%s is damaged: %s", self.path, problems[:5])
            return None
        return version

    def _migrate(self) -> None:
        """Bring the file up to this version's schema, each version's statements once."""
        with self._write() as conn:
            version = int(conn.execute("PRAGMA user_version").fetchone()[0])
            if version > OUTBOX_SCHEMA_VERSION:
                raise _too_new(self.path, version)
            for target, statements in _MIGRATIONS:
                if version < target:
                    for statement in statements:
                        conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {OUTBOX_SCHEMA_VERSION}")

    def _url_keys_version(self, conn: sqlite3.Connection) -> int:
        """The normalize_url version the file's URL saves are keyed by (1 before it was kept)."""
        row = conn.execute("SELECT value FROM control WHERE key = 'url_keys'").fetchone()
        return int(row[0]) if row and str(row[0]).isdigit() else 1

    def _rekey_urls(self) -> None:
        """Key URL saves written by an earlier version as this one does, so they are found.

        A row whose new key another row holds already (the same page saved twice, as
        ``www.`` and bare) keeps its old key: both saves stay and nothing is lost. A file that
        cannot be written now is keyed the next time it is opened.
        """
        try:
            with self._conn() as conn:
                if self._url_keys_version(conn) >= URL_KEYS_VERSION:
                    return
            with self._write() as conn:
                if self._url_keys_version(conn) >= URL_KEYS_VERSION:
                    return
                rows = conn.execute(
                    "SELECT id, url, normalized_url FROM ops "
                    "WHERE kind = 'save_url' AND url IS NOT NULL ORDER BY id"
                ).fetchall()
                for op_id, url, key in rows:
                    try:
                        new_key = normalize_url(url)
                    except ValueError:
                        continue
                    if new_key != key:
                        conn.execute(
                            "UPDATE OR IGNORE ops SET normalized_url = ? WHERE id = ?",
                            (new_key, op_id),
                        )
                conn.execute(
                    "INSERT OR REPLACE INTO control (key, value) VALUES ('url_keys', ?)",
                    (str(URL_KEYS_VERSION),),
                )
        except (KnownStoreError, sqlite3.Error) as exc:
            _log.warning("the URL saves of %s were not keyed again: %s", self.path, exc)

    def _recover(self) -> OutboxRecovery:
        """Copy the damaged file aside and put what can be read into a fresh outbox."""
        try:
            copy = copy_aside(self.path)
            rows, method = salvage(copy)
            fresh = self.path.with_name(f"{self.path.name}.recovering-{os.getpid()}")
            fresh.unlink(missing_ok=True)
            recovered = _write_fresh(fresh, clean_rows(rows, _now_ms()))
            # The damaged file's journal must not be applied to the fresh one (both are
            # in the copy).
            for suffix in ("-wal", "-shm"):
                Path(f"{self.path}{suffix}").unlink(missing_ok=True)
            os.replace(fresh, self.path)
        except OSError as exc:
            raise DatabaseCorruptError(
                f"{self.path} is damaged and could not be copied aside ({exc}); it was left "
                "as it is"
            ) from exc
        recovery = OutboxRecovery(copy, recovered, method)
        _log.warning("%s", recovery.message())
        return recovery

    # ------------------------------------------------------------------ connections

    @contextmanager
    def _conn(self) -> Iterator[sqlite3.Connection]:
        """A connection for the calling thread alone while the block runs (an idle one, or a
        new one); the same one again for a block inside the block."""
        thread = threading.get_ident()
        with self._lock:
            conn, depth = self._lent.get(thread, (None, 0))
            if conn is None and self._idle:
                conn = self._idle.pop()
        if conn is None:
            conn = self._open_connection()
        with self._lock:
            self._lent[thread] = (conn, depth + 1)
        try:
            yield conn
        finally:
            retired = False
            with self._lock:
                if depth:  # a block inside another: the outer one still holds it
                    self._lent[thread] = (conn, depth)
                else:
                    del self._lent[thread]
                    retired = id(conn) in self._retired
                    self._retired.discard(id(conn))
                    if not retired:
                        self._idle.append(conn)
            if retired:
                conn.close()

    def _open_connection(self) -> sqlite3.Connection:
        try:
            conn = sqlite3.connect(
                str(self.path),
                timeout=_BUSY_TIMEOUT_S,
                isolation_level=None,
                check_same_thread=False,
            )
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=FULL")
            # A save commits a few pages; the WAL's default 1,000 pages (4 MB) would take the
            # last room of a nearly full disk, so it is copied back and cut short often.
            conn.execute(f"PRAGMA wal_autocheckpoint={_WAL_PAGES}")
            conn.execute(f"PRAGMA journal_size_limit={_WAL_PAGES * 4096}")
        except sqlite3.Error as exc:
            raise translate(exc, f"opening {self.path}", file=self.path) from exc
        return conn

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One immediate transaction; committed (durably) when the block ends."""
        with self._conn() as conn:
            try:
                conn.execute("BEGIN IMMEDIATE")
                try:
                    yield conn
                except BaseException:
                    conn.execute("ROLLBACK")
                    raise
                conn.execute("COMMIT")
            except sqlite3.Error as exc:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise translate(exc, f"writing {self.path.name}", file=self.path) from exc

    def _read(self, sql: str, params: Iterable[Any] = ()) -> builtins.list[tuple[Any, ...]]:
        try:
            with self._conn() as conn:
                return conn.execute(sql, list(params)).fetchall()
        except sqlite3.Error as exc:
            raise translate(exc, f"reading {self.path.name}", file=self.path) from exc

    # ------------------------------------------------------------------ enqueue

    def enqueue_url(
        self, url: str, *, known_in_cache: Callable[[str], str | None] | None = None
    ) -> EnqueueResult:
        """Queue a URL save (committed on return).

        Raises:
            CredentialsInUrl: when ``url`` holds a user name or password (never queued).
            ValueError: when ``url`` is not an http(s) URL (the message says why).
        """
        normalized = savable_url(url)
        lookup = known_in_cache or self.known_in_cache
        entity_id = lookup(normalized)
        if entity_id is not None:
            return EnqueueResult("already_saved", None, entity_id)
        try:
            op, inserted = self._insert_url(url.strip(), normalized)
        except DiskFullError:
            self.give_back_room()
            op, inserted = self._insert_url(url.strip(), normalized)
        if inserted:
            return EnqueueResult("queued", op, None)
        if op.state in ("accepted", "confirmed"):
            return EnqueueResult("already_saved", op, op.entity_id)
        return EnqueueResult("already_queued", op, op.entity_id)

    def _insert_url(self, url: str, normalized: str) -> tuple[OutboxOp, bool]:
        """The save of ``normalized`` (committed) and whether this call inserted it."""
        now = _now_ms()
        with self._write() as conn:
            cursor = conn.execute(
                "INSERT INTO ops (kind, url, normalized_url, state, created_at, updated_at, "
                "next_attempt_at) VALUES ('save_url', ?, ?, 'queued', ?, ?, ?) "
                "ON CONFLICT (normalized_url) DO NOTHING",
                (url, normalized, now, now, now),
            )
            inserted = cursor.rowcount > 0
            row = conn.execute(
                f"SELECT {_OP_COLUMNS} FROM ops WHERE normalized_url = ?", (normalized,)
            ).fetchone()
        return _op(row), inserted

    def give_back_room(self) -> None:
        """Copy the outbox's WAL and the cache's into their files and cut both WALs to zero
        bytes (best effort), after a write found the disk full.

        Each commit appends its pages to the WAL until a checkpoint, so on a nearly full disk
        the outbox's own WAL is what runs out of room first; given back, the same few pages
        take many more saves.
        """
        try:
            with self._conn() as conn:
                conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
        except (KnownStoreError, sqlite3.Error) as exc:
            _log.warning("could not truncate the WAL of %s: %s", self.path.name, exc)
        truncate_wal(self.cache_path)

    def enqueue_entity(
        self, data: dict[str, Any], *, external_id: str, kind: str = "save_entity"
    ) -> EnqueueResult:
        """Queue an entity save (a note) identified by a client ``external_id``.

        The save gets its client ``id`` here (unless ``data`` has one), kept in the row: the
        first-party app names a new entity by its client id, so every retry of this save,
        after a lost answer too, is the same save to the server.
        """
        if not external_id:
            raise ValueError("an entity save needs an external_id to stay idempotent")
        if not isinstance(data.get("id"), str) or not data["id"]:
            data = {**data, "id": str(uuid.uuid4())}
        payload = json.dumps(data, ensure_ascii=False)
        now = _now_ms()
        with self._write() as conn:
            cursor = conn.execute(
                "INSERT INTO ops (kind, external_id, payload, state, created_at, updated_at, "
                "next_attempt_at) VALUES (?, ?, ?, 'queued', ?, ?, ?) "
                "ON CONFLICT (external_id) DO NOTHING",
                (kind, external_id, payload, now, now, now),
            )
            inserted = cursor.rowcount > 0
            row = conn.execute(
                f"SELECT {_OP_COLUMNS} FROM ops WHERE external_id = ?", (external_id,)
            ).fetchone()
        op = _op(row)
        return EnqueueResult("queued" if inserted else "already_queued", op, op.entity_id)

    def known_in_cache(self, normalized: str) -> str | None:
        """The id of a cached entity with this normalized URL (http or https), if any.

        The cache may hold keys an earlier normalize_url gave (with ``www.`` or a tracking
        parameter): candidates are found by where such keys begin and compared normalized
        again, so items cached before the rules changed are still found.
        """
        if not self.cache_path.exists():
            return None
        wanted = {
            normalized,
            normalized.replace("https://", "http://", 1),
            normalized.replace("http://", "https://", 1),
        }
        prefixes = earlier_key_prefixes(normalized)
        ranges = " OR ".join(
            ["normalized_url = ? OR normalized_url BETWEEN ? AND ?"] * len(prefixes)
        )
        params = [value for p in prefixes for value in (p, f"{p}?", f"{p}?\U0010ffff")]
        try:
            conn = sqlite3.connect(f"{self.cache_path.resolve().as_uri()}?mode=ro", uri=True)
            try:
                rows = conn.execute(
                    f"SELECT id, normalized_url FROM entities WHERE ({ranges}) "
                    "AND deleted_upstream_at IS NULL ORDER BY rowid LIMIT 1000",
                    params,
                ).fetchall()
            finally:
                conn.close()
        except sqlite3.Error:
            # The cache is disposable and may be missing or mid-rebuild: then just queue.
            return None
        for entity_id, key in rows:
            try:
                if normalize_url(str(key)) in wanted:
                    return str(entity_id)
            except ValueError:
                continue
        return None

    # ------------------------------------------------------------------ reads

    def list(self, states: Iterable[str] | None = None) -> builtins.list[OutboxOp]:
        """Operations (optionally only in ``states``), oldest first."""
        if states is None:
            rows = self._read(f"SELECT {_OP_COLUMNS} FROM ops ORDER BY id LIMIT 100000")
        else:
            wanted = builtins.list(states)
            marks = ",".join("?" * len(wanted))
            rows = self._read(
                f"SELECT {_OP_COLUMNS} FROM ops WHERE state IN ({marks}) ORDER BY id LIMIT 100000",
                wanted,
            )
        return [_op(row) for row in rows]

    def get(self, op_id: int) -> OutboxOp | None:
        """One operation by id."""
        rows = self._read(f"SELECT {_OP_COLUMNS} FROM ops WHERE id = ?", [op_id])
        return _op(rows[0]) if rows else None

    def pending_count(self) -> int:
        """Saves not yet accepted by the server (queued or being sent)."""
        return int(
            self._read("SELECT count(*) FROM ops WHERE state IN ('queued', 'sending')")[0][0]
        )

    def due_count(self, now: float | None = None) -> int:
        """Queued operations a drain would send now (none while the outbox is paused)."""
        if self.paused_reason() is not None:
            return 0
        rows = self._read(
            "SELECT count(*) FROM ops WHERE state = 'queued' AND next_attempt_at <= ?",
            [_as_ms(now)],
        )
        return int(rows[0][0])

    # ------------------------------------------------------------------ state changes

    def claim_next(self, now: float | None = None) -> OutboxOp | None:
        """The oldest due queued operation, moved to ``sending`` (None when paused or idle).

        ``now`` is epoch ms (or seconds); the current time when omitted.
        """
        if self.paused_reason() is not None:
            return None
        with self._write() as conn:
            row = conn.execute(
                "SELECT id FROM ops WHERE state = 'queued' AND next_attempt_at <= ? "
                "ORDER BY id LIMIT 1",
                (_as_ms(now),),
            ).fetchone()
            if row is None:
                return None
            conn.execute(
                "UPDATE ops SET state = 'sending', attempts = attempts + 1, updated_at = ? "
                "WHERE id = ?",
                (_now_ms(), row[0]),
            )
            claimed = conn.execute(f"SELECT {_OP_COLUMNS} FROM ops WHERE id = ?", row).fetchone()
        return _op(claimed)

    def _set(self, op_id: int, state: OutboxState, **fields: Any) -> None:
        assignments = "".join(f", {name} = ?" for name in fields)
        with self._write() as conn:
            cursor = conn.execute(
                f"UPDATE ops SET state = ?, updated_at = ?{assignments} WHERE id = ?",
                (state, _now_ms(), *fields.values(), op_id),
            )
            if cursor.rowcount == 0:
                raise KeyError(f"no outbox operation {op_id}")

    def mark_accepted(self, op_id: int, entity_id: str | None) -> None:
        """The server took the save (it becomes confirmed once a pull shows the entity)."""
        self._set(op_id, "accepted", entity_id=entity_id, reason=None, error_kind=None)

    def mark_failed_retryable(self, op_id: int, failure: OutboxFailure, retry_at: float) -> None:
        """Back to the queue, to be retried at ``retry_at`` (epoch ms or seconds)."""
        self._set(
            op_id,
            "queued",
            reason=failure.message[:_MAX_REASON_CHARS],
            error_kind=failure.kind,
            next_attempt_at=_as_ms(retry_at),
        )

    def mark_not_sent(self, op_id: int, failure: OutboxFailure, retry_at: float) -> None:
        """Back to the queue, due at ``retry_at``, as if never tried: the server never took
        this send (it was not reached, or refused the credentials or the plan unread).

        ``attempts`` counts only the sends that may have reached the server, which is what
        undo needs to know: a save whose every try was refused so can still be undone.
        """
        with self._write() as conn:
            conn.execute(
                "UPDATE ops SET state = 'queued', attempts = max(attempts - 1, 0), reason = ?, "
                "error_kind = ?, updated_at = ?, next_attempt_at = ? WHERE id = ?",
                (
                    failure.message[:_MAX_REASON_CHARS],
                    failure.kind,
                    _now_ms(),
                    _as_ms(retry_at),
                    op_id,
                ),
            )

    def mark_needs_attention(self, op_id: int, failure: OutboxFailure) -> None:
        """The server refused it for a reason retrying cannot fix; kept with that reason."""
        self._set(
            op_id,
            "needs_attention",
            reason=failure.message[:_MAX_REASON_CHARS],
            error_kind=failure.kind,
        )

    def mark_confirmed(self, op_id: int, entity_id: str | None = None) -> None:
        """The saved entity was seen in a pull (or found in the cache, as ``entity_id``)."""
        if entity_id is None:
            self._set(op_id, "confirmed")
        else:
            self._set(op_id, "confirmed", entity_id=entity_id, reason=None, error_kind=None)

    def requeue_in_flight(self, op_id: int) -> bool:
        """Queue again, due now, an operation a crash left ``sending`` (once it is known not
        to have arrived); False when it is no longer ``sending``."""
        with self._write() as conn:
            cursor = conn.execute(
                "UPDATE ops SET state = 'queued', updated_at = ?, next_attempt_at = ? "
                "WHERE id = ? AND state = 'sending'",
                (_now_ms(), _now_ms(), op_id),
            )
            return cursor.rowcount > 0

    def confirm_seen(self, entity_ids: Iterable[str], normalized_urls: Iterable[str]) -> int:
        """Confirm accepted (or still queued) operations whose entity or URL a pull returned."""
        ids = builtins.list(entity_ids)
        urls = builtins.list(normalized_urls)
        now = _now_ms()
        confirmed = 0
        with self._write() as conn:
            for start in range(0, max(len(ids), len(urls)), 500):
                id_chunk = ids[start : start + 500]
                url_chunk = urls[start : start + 500]
                cursor = conn.execute(
                    "UPDATE ops SET state = 'confirmed', updated_at = ? "
                    "WHERE state IN ('accepted', 'queued') AND ("
                    f"entity_id IN ({','.join('?' * len(id_chunk))}) OR "
                    f"normalized_url IN ({','.join('?' * len(url_chunk))}))",
                    (now, *id_chunk, *url_chunk),
                )
                confirmed += cursor.rowcount
        return confirmed

    def retry(self, op_id: int) -> None:
        """Queue a failed operation again, due now."""
        self._set(op_id, "queued", reason=None, error_kind=None, next_attempt_at=_now_ms())

    def drop(self, op_id: int, *, unless_sending: bool = False) -> bool:
        """Forget an operation (the person gave up on it); False when it does not exist or,
        with ``unless_sending``, is being sent (see :func:`sync.folder_lock.drop_save`)."""
        sql = "DELETE FROM ops WHERE id = ?" + (" AND state != 'sending'" if unless_sending else "")
        with self._write() as conn:
            return conn.execute(sql, (op_id,)).rowcount > 0

    def undo(self, op_id: int) -> UndoAnswer:
        """Drop an operation that was never sent; one already on its way stays, as answered."""
        with self._write() as conn:
            cursor = conn.execute(
                "DELETE FROM ops WHERE id = ? AND state = 'queued' AND attempts = 0", (op_id,)
            )
            if cursor.rowcount > 0:
                return UndoAnswer(True)
            row = conn.execute(f"SELECT {_OP_COLUMNS} FROM ops WHERE id = ?", (op_id,)).fetchone()
        return UndoAnswer(False, _op(row) if row else None)

    def pause(self, failure: OutboxFailure) -> None:
        """Stop handing out operations (e.g. out of credits) until :meth:`resume`."""
        value = json.dumps({"kind": failure.kind, "message": failure.message[:_MAX_REASON_CHARS]})
        with self._write() as conn:
            conn.execute(
                "INSERT OR REPLACE INTO control (key, value) VALUES ('paused', ?)", (value,)
            )

    def resume(self) -> None:
        """Hand out operations again."""
        with self._write() as conn:
            conn.execute("DELETE FROM control WHERE key = 'paused'")

    def paused_reason(self) -> OutboxFailure | None:
        """Why the outbox is paused, or None."""
        rows = self._read("SELECT value FROM control WHERE key = 'paused'")
        return _paused_failure(str(rows[0][0])) if rows else None

    def recover_after_crash(self) -> int:
        """Operations left ``sending`` by a crash go back to the queue; returns how many."""
        with self._write() as conn:
            return conn.execute(
                "UPDATE ops SET state = 'queued', updated_at = ? WHERE state = 'sending'",
                (_now_ms(),),
            ).rowcount

    def close(self) -> None:
        """Close every connection: the idle ones now, the lent ones once given back (a
        window closing never frees a connection a worker is reading from)."""
        with self._lock:
            idle, self._idle = self._idle, []
            self._retired.update(id(conn) for conn, _depth in self._lent.values())
        for conn in idle:
            conn.close()

    def __enter__(self) -> Outbox:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def _too_new(path: Path, version: int) -> SchemaTooNewError:
    """The error for an outbox a newer version wrote (the file is not touched)."""
    return SchemaTooNewError(str(path), version, OUTBOX_SCHEMA_VERSION)


def _write_fresh(path: Path, rows: builtins.list[tuple[Any, ...]]) -> int:
    """Create an outbox at ``path`` holding ``rows`` (ROW_COLUMNS order); how many it holds."""
    conn = sqlite3.connect(str(path), isolation_level=None)
    try:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=FULL")
        conn.execute("BEGIN IMMEDIATE")
        for _target, statements in _MIGRATIONS:
            for statement in statements:
                conn.execute(statement)
        marks = ",".join("?" * len(ROW_COLUMNS))
        inserted = 0
        for row in rows:
            # Two rows for one URL or external id (a row found twice): the first is kept.
            cursor = conn.execute(
                f"INSERT OR IGNORE INTO ops ({', '.join(ROW_COLUMNS)}) VALUES ({marks})", row
            )
            inserted += cursor.rowcount
        conn.execute(f"PRAGMA user_version = {OUTBOX_SCHEMA_VERSION}")
        conn.execute("COMMIT")
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()
    return inserted


def make_room_for_outbox(outbox_path: Path, cache_path: Path, min_free_bytes: int) -> None:
    """When the disk has less than ``min_free_bytes`` free, truncate the cache's WAL so the
    outbox can open and commit (the cache is disposable; the saves are not)."""
    try:
        free = shutil.disk_usage(outbox_path.parent).free
    except OSError:
        return
    wal = Path(f"{cache_path}-wal")
    if free >= min_free_bytes or not wal.exists() or wal.stat().st_size == 0:
        return
    held = wal.stat().st_size
    truncate_wal(cache_path)
    _log.warning(
        "low disk space (%d bytes free): truncated %s (it held %d bytes) for the outbox",
        free,
        wal.name,
        held,
    )


def truncate_wal(path: Path) -> None:
    """Copy a database's WAL back into it and truncate the WAL to zero bytes (best effort)."""
    try:
        conn = sqlite3.connect(str(path), timeout=1.0)
        try:
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
        finally:
            conn.close()
    except sqlite3.Error as exc:
        _log.warning("could not truncate the WAL of %s: %s", path.name, exc)


def read_only_ops(path: Path) -> builtins.list[OutboxOp]:
    """The operations of an outbox read without writing anything (for one that cannot be
    opened: a newer version's, or on a full disk); columns it lacks read as empty."""
    try:
        # Read in a folder that cannot be written too (a backup, a read-only mount).
        with frozen_connection(Path(path)) as conn:
            present = {str(row[1]) for row in conn.execute("PRAGMA table_info(ops)")}
            wanted = [name if name in present else "NULL" for name in ROW_COLUMNS]
            rows = conn.execute(
                f"SELECT {', '.join(wanted)} FROM ops ORDER BY id LIMIT 100000"
            ).fetchall()
    except sqlite3.Error as exc:
        raise translate(exc, f"reading {path}", file=Path(path)) from exc
    ops = []
    for row in rows:
        try:
            ops.append(_op(row))
        except (TypeError, ValueError):
            _log.warning("outbox row %r could not be read", row[0])
    return ops
