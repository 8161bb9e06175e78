"""The emulator's own SQLite store: one row per entity holding its JSON, plus FTS5.

Entities are kept as compact JSON text and sent back verbatim, so serving a page costs a few
indexed queries and string joins rather than per-entity Python work. The FTS index is built on
the first text query: listing a big library (what a full sync does) never pays for it.
The database lives in a temporary file removed when the object is collected or closed.
Callers serialize access (the emulator state holds one lock around every call).

Two profile switches change what is stored: ``created_at`` rounded down to a resolution (so
filters, ordering and the served JSON all see the same coarse value), and a map from library-row
ids back to content ids (the stored ``id`` is always the content id).
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import tempfile
import weakref
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from memex_desktop.emulator.library import (
    JsonObject,
    attached_to,
    entity_body,
    entity_title,
    iso_from_ms,
    normalize_url,
    reference_ids_of,
    reference_targets,
    tag_ids_of,
    timestamp_ms,
    url_host,
)

ROW_COLUMNS = "e.seq, e.id, e.type, e.json, e.refs, e.targets, e.parent_id"
_CHUNK = 900  # stay well below SQLite's bound-parameter limit

_SCHEMA = """
CREATE TABLE entities (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    type TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    ready INTEGER NOT NULL,
    ready_at REAL,
    normalized_url TEXT,
    external_id TEXT,
    parent_id TEXT,
    feed_id TEXT,
    host TEXT,
    json TEXT NOT NULL,
    refs TEXT NOT NULL,
    targets TEXT NOT NULL
);
CREATE TABLE entity_tags (
    tag_id TEXT NOT NULL,
    entity_seq INTEGER NOT NULL,
    PRIMARY KEY (tag_id, entity_seq)
) WITHOUT ROWID;
"""

_INDEXES = """
CREATE INDEX IF NOT EXISTS entities_by_date ON entities (ready, created_at);
CREATE INDEX IF NOT EXISTS entities_by_type ON entities (type, ready, created_at);
CREATE INDEX IF NOT EXISTS entities_by_parent ON entities (parent_id);
CREATE INDEX IF NOT EXISTS entities_by_url ON entities (normalized_url);
CREATE INDEX IF NOT EXISTS entities_by_external_id ON entities (external_id);
CREATE INDEX IF NOT EXISTS entity_tags_by_entity ON entity_tags (entity_seq);
"""


@dataclass(frozen=True)
class EntityRow:
    """One stored entity: its JSON text, references entry and direct reference targets."""

    seq: int
    id: str
    type: str
    json: str
    refs: str
    targets_json: str
    parent_id: str | None

    @property
    def targets(self) -> list[str]:
        """Ids this entity points at (``reference_content_ids`` and rich-text references)."""
        value = json.loads(self.targets_json)
        return [item for item in value if isinstance(item, str)]

    def data(self) -> JsonObject:
        """The entity as a fresh dict (callers may modify it)."""
        value = json.loads(self.json)
        assert isinstance(value, dict)
        return value


def dumps(value: Any) -> str:
    """Compact JSON, as stored and as sent."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def mix_rank(value: object, salt: object) -> int:
    """A reproducible pseudo-random rank of ``value`` under ``salt`` (SQL ``mix_rank``).

    Orders rows by something unrelated to their content or time: ties ordered per request
    (``unstable_ties``) and the order of a server that ignores ``sortBy``.
    """
    digest = hashlib.blake2b(f"{salt}:{value}".encode(), digest_size=7).digest()
    return int.from_bytes(digest, "big")


def _close(connection: sqlite3.Connection, path: str) -> None:
    """Close the connection and remove the temporary database file."""
    connection.close()
    for suffix in ("", "-journal", "-wal", "-shm"):
        try:
            os.unlink(path + suffix)
        except FileNotFoundError:
            continue


def feed_of(entity: JsonObject, feeds_by_host: dict[str, str]) -> str | None:
    """The feed an entity came from: its ``feed_id`` (or ``metadata.feed_id``), else by host."""
    for source in (entity, entity.get("metadata")):
        if isinstance(source, dict) and isinstance(source.get("feed_id"), str):
            return str(source["feed_id"])
    host = url_host(entity.get("url"))
    return feeds_by_host.get(host) if host else None


class EntityDatabase:
    """SQLite storage and queries of the emulator (not thread-safe: callers lock)."""

    def __init__(
        self,
        *,
        created_at_resolution_ms: int = 0,
        library_id: Callable[[str], str] | None = None,
    ) -> None:
        """``created_at_resolution_ms`` > 0 rounds stored ``created_at`` down; ``library_id``
        (content id -> library-row id) makes :meth:`resolve` accept library-row ids."""
        handle, path = tempfile.mkstemp(prefix="memex-emulator-", suffix=".sqlite3")
        os.close(handle)
        self._connection = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._finalizer = weakref.finalize(self, _close, self._connection, path)
        for pragma in (
            "journal_mode=OFF",
            "synchronous=OFF",
            "temp_store=MEMORY",
            "cache_size=-262144",
        ):
            self._connection.execute(f"PRAGMA {pragma}")
        self._connection.executescript(_SCHEMA)
        self._connection.create_function("mix_rank", 2, mix_rank, deterministic=True)
        self._resolution_ms = created_at_resolution_ms
        self._library_id = library_id
        self._by_library_id: dict[str, str] = {}
        self._fts_built = False
        self._types: set[str] = set()
        self.feeds_by_host: dict[str, str] = {}

    def close(self) -> None:
        """Release the connection and delete the file."""
        self._finalizer()

    # ----------------------------------------------------------------------------- writing

    def _row(
        self, entity: JsonObject, refs: JsonObject, ready: bool, ready_at: float | None
    ) -> tuple[Any, ...]:
        """The column values of one entity."""
        created = timestamp_ms(entity.get("created_at"))
        updated = timestamp_ms(entity.get("updated_at"))
        if self._resolution_ms and created is not None:
            coarse = created - created % self._resolution_ms
            if coarse != created:
                served = iso_from_ms(coarse) if isinstance(entity["created_at"], str) else coarse
                entity = {**entity, "created_at": served}
                created = coarse
        if self._library_id is not None:
            self._by_library_id[self._library_id(str(entity["id"]))] = str(entity["id"])
        created = created if created is not None else (updated or 0)
        updated = updated if updated is not None else created
        targets = reference_targets(entity)
        for target in reference_ids_of(refs):
            if target not in targets:
                targets.append(target)
        parent = attached_to(entity)
        if parent is None and entity.get("type") == "annotation" and targets:
            parent = targets[0]
        url = entity.get("url")
        normalized = normalize_url(url) if isinstance(url, str) and url else None
        external = entity.get("external_id")
        return (
            str(entity["id"]),
            str(entity["type"]),
            created,
            updated,
            1 if ready else 0,
            ready_at,
            normalized,
            external if isinstance(external, str) else None,
            parent,
            feed_of(entity, self.feeds_by_host),
            url_host(url),
            dumps(entity),
            dumps(refs),
            dumps(targets),
        )

    def bulk_load(self, items: Iterable[tuple[JsonObject, JsonObject]]) -> int:
        """Insert many ``(entity, references entry)`` pairs in one transaction."""
        connection = self._connection
        count = 0
        connection.execute("BEGIN")
        try:
            batch: list[tuple[Any, ...]] = []
            tag_pairs: list[tuple[str, str]] = []
            for entity, refs in items:
                batch.append(self._row(entity, refs, True, None))
                self._types.add(str(entity["type"]))
                entity_id = str(entity["id"])
                for tag in {*tag_ids_of(entity), *_ref_tag_ids(refs)}:
                    tag_pairs.append((tag, entity_id))
                if len(batch) >= 2000:
                    count += self._insert_batch(batch, tag_pairs)
                    batch, tag_pairs = [], []
            count += self._insert_batch(batch, tag_pairs)
            connection.execute("COMMIT")
        except BaseException:
            if connection.in_transaction:
                connection.execute("ROLLBACK")
            raise
        # Indexes are built once after the bulk insert: much faster than maintaining them.
        connection.executescript(_INDEXES)
        return count

    def _insert_batch(self, rows: list[tuple[Any, ...]], tag_pairs: list[tuple[str, str]]) -> int:
        """Insert (or replace) rows and their tag links inside the open transaction."""
        if not rows:
            return 0
        self._connection.executemany(
            "INSERT OR REPLACE INTO entities (id, type, created_at, updated_at, ready, ready_at,"
            " normalized_url, external_id, parent_id, feed_id, host, json, refs, targets)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            rows,
        )
        self._connection.executemany(
            "INSERT OR IGNORE INTO entity_tags (tag_id, entity_seq)"
            " SELECT ?, seq FROM entities WHERE id = ?",
            tag_pairs,
        )
        return len(rows)

    def put(
        self,
        entity: JsonObject,
        refs: JsonObject,
        *,
        ready: bool,
        ready_at: float | None = None,
    ) -> None:
        """Insert or update one entity (same ``id`` keeps its place in the table)."""
        row = self._row(entity, refs, ready, ready_at)
        self._types.add(str(entity["type"]))
        connection = self._connection
        connection.execute("BEGIN")
        try:
            existing = connection.execute(
                "SELECT seq FROM entities WHERE id = ?", (row[0],)
            ).fetchone()
            if existing is None:
                cursor = connection.execute(
                    "INSERT INTO entities (id, type, created_at, updated_at, ready, ready_at,"
                    " normalized_url, external_id, parent_id, feed_id, host, json, refs, targets)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    row,
                )
                seq = int(cursor.lastrowid or 0)
            else:
                seq = int(existing[0])
                connection.execute(
                    "UPDATE entities SET type = ?, created_at = ?, updated_at = ?, ready = ?,"
                    " ready_at = ?, normalized_url = ?, external_id = ?, parent_id = ?,"
                    " feed_id = ?, host = ?, json = ?, refs = ?, targets = ? WHERE seq = ?",
                    (*row[1:], seq),
                )
            connection.execute("DELETE FROM entity_tags WHERE entity_seq = ?", (seq,))
            connection.executemany(
                "INSERT OR IGNORE INTO entity_tags (tag_id, entity_seq) VALUES (?, ?)",
                [(tag, seq) for tag in {*tag_ids_of(entity), *_ref_tag_ids(refs)}],
            )
            if self._fts_built:
                connection.execute("DELETE FROM entity_fts WHERE rowid = ?", (seq,))
                if ready:
                    connection.execute(
                        "INSERT INTO entity_fts (rowid, title, body) VALUES (?, ?, ?)",
                        (seq, entity_title(entity), entity_body(entity)),
                    )
            connection.execute("COMMIT")
        except BaseException:
            if connection.in_transaction:
                connection.execute("ROLLBACK")
            raise

    def delete(self, entity_id: str) -> bool:
        """Remove an entity; ``False`` when it did not exist."""
        row = self._connection.execute(
            "SELECT seq FROM entities WHERE id = ?", (entity_id,)
        ).fetchone()
        if row is None:
            return False
        seq = int(row[0])
        if self._library_id is not None:
            self._by_library_id.pop(self._library_id(entity_id), None)
        self._connection.execute("DELETE FROM entities WHERE seq = ?", (seq,))
        self._connection.execute("DELETE FROM entity_tags WHERE entity_seq = ?", (seq,))
        if self._fts_built:
            self._connection.execute("DELETE FROM entity_fts WHERE rowid = ?", (seq,))
        return True

    def due_for_indexing(self, now_s: float) -> list[EntityRow]:
        """Pending entities whose processing delay has passed."""
        return self.rows(
            f"SELECT {ROW_COLUMNS} FROM entities e WHERE e.ready = 0 AND e.ready_at <= ?",
            (now_s,),
        )

    # ----------------------------------------------------------------------------- reading

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[EntityRow]:
        """Run a query selecting :data:`ROW_COLUMNS` and wrap the rows."""
        return [EntityRow(*row) for row in self._connection.execute(sql, params)]

    def scalar(self, sql: str, params: Sequence[Any] = ()) -> Any:
        """The first column of the first row of a query (``None`` when no row)."""
        row = self._connection.execute(sql, params).fetchone()
        return None if row is None else row[0]

    def column(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        """The first column of every row of a query."""
        return [row[0] for row in self._connection.execute(sql, params)]

    def rows_by_seq(self, seqs: Sequence[int]) -> list[EntityRow]:
        """Entities by row number, in the order of ``seqs``."""
        found: dict[int, EntityRow] = {}
        for start in range(0, len(seqs), _CHUNK):
            chunk = list(seqs[start : start + _CHUNK])
            marks = ",".join("?" * len(chunk))
            for row in self.rows(
                f"SELECT {ROW_COLUMNS} FROM entities e WHERE e.seq IN ({marks})", chunk
            ):
                found[row.seq] = row
        return [found[seq] for seq in seqs if seq in found]

    def get(self, entity_id: str) -> EntityRow | None:
        """One entity, ready or not."""
        found = self.rows(f"SELECT {ROW_COLUMNS} FROM entities e WHERE e.id = ?", (entity_id,))
        return found[0] if found else None

    def get_many(self, ids: Iterable[str], *, ready_only: bool = True) -> dict[str, EntityRow]:
        """Entities by id (missing ids are left out)."""
        wanted = list(dict.fromkeys(ids))
        found: dict[str, EntityRow] = {}
        condition = " AND +e.ready = 1" if ready_only else ""
        for start in range(0, len(wanted), _CHUNK):
            chunk = wanted[start : start + _CHUNK]
            marks = ",".join("?" * len(chunk))
            for row in self.rows(
                f"SELECT {ROW_COLUMNS} FROM entities e WHERE e.id IN ({marks}){condition}", chunk
            ):
                found[row.id] = row
        return found

    def annotations_on(self, parent_ids: Sequence[str]) -> list[EntityRow]:
        """Ready annotations attached to any of ``parent_ids``, oldest first."""
        found: list[EntityRow] = []
        for start in range(0, len(parent_ids), _CHUNK):
            chunk = list(parent_ids[start : start + _CHUNK])
            marks = ",".join("?" * len(chunk))
            found.extend(
                self.rows(
                    f"SELECT {ROW_COLUMNS} FROM entities e WHERE e.parent_id IN ({marks})"
                    " AND +e.type = 'annotation' AND +e.ready = 1 ORDER BY e.created_at, e.seq",
                    chunk,
                )
            )
        return found

    def find_by(self, column: str, value: str) -> EntityRow | None:
        """The oldest entity whose ``normalized_url`` or ``external_id`` equals ``value``."""
        if column not in ("normalized_url", "external_id"):
            raise ValueError(f"not a lookup column: {column}")
        found = self.rows(
            f"SELECT {ROW_COLUMNS} FROM entities e WHERE e.{column} = ? ORDER BY e.seq LIMIT 1",
            (value,),
        )
        return found[0] if found else None

    def resolve(self, any_id: str) -> str | None:
        """The stored (content) id of an entity named by its content or library-row id."""
        content_id = self._by_library_id.get(any_id, any_id)
        found = self._connection.execute(
            "SELECT id FROM entities WHERE id = ?", (content_id,)
        ).fetchone()
        return None if found is None else str(found[0])

    def unlisted(self, every: int, types: Iterable[str]) -> set[str]:
        """Ids whose ``seq`` is a multiple of ``every`` (when > 0) or whose type is in ``types``."""
        kinds = list(types)
        where: list[str] = []
        params: list[Any] = []
        if every > 0:
            where.append("seq % ? = 0")
            params.append(every)
        if kinds:
            where.append(f"type IN ({','.join('?' * len(kinds))})")
            params += kinds
        if not where:
            return set()
        sql = f"SELECT id FROM entities WHERE {' OR '.join(where)}"
        return {str(item) for item in self.column(sql, params)}

    def ids(self) -> list[str]:
        """Every stored entity id, ready or not."""
        return [str(row[0]) for row in self._connection.execute("SELECT id FROM entities")]

    def types(self) -> set[str]:
        """Every content type stored so far (a type whose items were all deleted stays: a
        filter by it matches nothing). Kept as items are stored: every search asks, and
        reading it from the table cost a scan of the whole library per request, a fifth of
        the emulator's time when serving a million items."""
        return set(self._types)

    def ensure_fts(self) -> None:
        """Build the full-text index of ready entities on first need."""
        if self._fts_built:
            return
        connection = self._connection
        connection.execute("BEGIN")
        try:
            connection.execute(
                "CREATE VIRTUAL TABLE entity_fts USING fts5("
                "title, body, tokenize = 'unicode61 remove_diacritics 2')"
            )
            cursor = connection.execute("SELECT seq, json FROM entities WHERE ready = 1")
            while True:
                chunk = cursor.fetchmany(2000)
                if not chunk:
                    break
                rows = []
                for seq, text in chunk:
                    entity = json.loads(text)
                    rows.append((seq, entity_title(entity), entity_body(entity)))
                connection.executemany(
                    "INSERT INTO entity_fts (rowid, title, body) VALUES (?, ?, ?)", rows
                )
            connection.execute("COMMIT")
        except BaseException:
            if connection.in_transaction:
                connection.execute("ROLLBACK")
            raise
        self._fts_built = True


def _ref_tag_ids(refs: JsonObject) -> list[str]:
    """``tagIds`` of a references entry (strings only)."""
    ids = refs.get("tagIds")
    return [item for item in ids if isinstance(item, str)] if isinstance(ids, list) else []
