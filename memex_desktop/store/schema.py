"""cache.db schema, its versioned migrations, and opening the file safely.

The schema version lives in ``PRAGMA user_version``. A file written by a newer
memex-desktop is refused before any connection is opened (the version is read from the
file header), so it stays byte-identical and no ``-wal``/``-shm`` files appear.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from contextvars import ContextVar
from pathlib import Path

from sqlite_utils import Database

from memex_desktop.store.errors import (
    DatabaseCorruptError,
    SchemaTooNewError,
    translate,
)

_SQLITE_MAGIC = b"SQLite format 3\x00"
_USER_VERSION_OFFSET = 60
BUSY_TIMEOUT_S = 5.0
PAGE_SIZE = 4096

# bm25 column weights of the version 1 entity_fts: title, author, summary, body.
BM25_WEIGHTS = "bm25(10.0, 4.0, 2.0, 1.0)"

_V1 = [
    """CREATE TABLE entities (
        rowid INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        type TEXT NOT NULL,
        title TEXT NOT NULL DEFAULT '',
        url TEXT,
        normalized_url TEXT,
        author TEXT,
        site TEXT,
        snippet_source TEXT NOT NULL DEFAULT '',
        created_at INTEGER,
        updated_at INTEGER,
        status TEXT,
        raw TEXT NOT NULL,
        raw_hash TEXT NOT NULL,
        complete INTEGER NOT NULL DEFAULT 1,
        cached_at INTEGER NOT NULL,
        deleted_upstream_at INTEGER
    )""",
    "CREATE INDEX entities_created ON entities(created_at)",
    "CREATE INDEX entities_type_created ON entities(type, created_at)",
    "CREATE INDEX entities_normalized_url ON entities(normalized_url)",
    "CREATE INDEX entities_title_nocase ON entities(title COLLATE NOCASE)",
    """CREATE INDEX entities_deleted ON entities(deleted_upstream_at)
        WHERE deleted_upstream_at IS NOT NULL""",
    # The searchable text of each entity (external content of entity_fts).
    """CREATE TABLE entity_text (
        rowid INTEGER PRIMARY KEY, title TEXT, author TEXT, summary TEXT, body TEXT)""",
    # Rows of entity_text not yet in entity_fts: indexing runs in batches when the writer
    # is idle, so a sync page commits fast; readers scan this backlog directly meanwhile.
    "CREATE TABLE fts_pending (rowid INTEGER PRIMARY KEY)",
    """CREATE VIRTUAL TABLE entity_fts USING fts5(
        title, author, summary, body,
        content='entity_text', content_rowid='rowid',
        tokenize='unicode61 remove_diacritics 2')""",
    f"INSERT INTO entity_fts(entity_fts, rank) VALUES ('rank', '{BM25_WEIGHTS}')",
    # Titles and authors again, in a small index that ranks title hits cheaply.
    """CREATE VIRTUAL TABLE title_fts USING fts5(
        title, author, content='entity_text', content_rowid='rowid',
        tokenize='unicode61 remove_diacritics 2')""",
    "INSERT INTO title_fts(title_fts, rank) VALUES ('rank', 'bm25(4.0, 1.0)')",
    """CREATE TABLE tags (
        id TEXT PRIMARY KEY, name TEXT NOT NULL, created_at INTEGER, updated_at INTEGER,
        raw TEXT NOT NULL)""",
    """CREATE TABLE entity_tags (
        entity_id TEXT NOT NULL, tag_id TEXT NOT NULL, PRIMARY KEY (entity_id, tag_id)
    ) WITHOUT ROWID""",
    "CREATE INDEX entity_tags_tag ON entity_tags(tag_id, entity_id)",
    """CREATE TABLE edges (
        source TEXT NOT NULL, target TEXT NOT NULL, kind TEXT NOT NULL, timestamp_s REAL,
        PRIMARY KEY (source, target, kind)
    ) WITHOUT ROWID""",
    "CREATE INDEX edges_target ON edges(target, kind)",
    """CREATE TABLE views (
        id TEXT PRIMARY KEY, name TEXT NOT NULL, definition TEXT NOT NULL, raw TEXT NOT NULL)""",
    """CREATE TABLE feeds (
        id TEXT PRIMARY KEY, title TEXT NOT NULL, feed_url TEXT, site_url TEXT,
        source_platform TEXT, raw TEXT NOT NULL)""",
    "CREATE TABLE sync_state (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
]


def _migrate_v1(db: Database) -> None:
    """The first schema: entities, searchable text, tags, edges, views, feeds, sync state."""
    for statement in _V1:
        db.execute(statement)


# Rowids of entities are recency keys: a larger rowid is a newer item (created_at order),
# so FTS doclists, which are in rowid order, can be read newest first and abandoned after
# the first screenful. Keys are KEY_STEP apart (new items go between their neighbours),
# which keeps the rowid deltas stored in every doclist entry at one byte.
KEY_STEP = 64
FIRST_KEY = 1 << 40


# bm25 column weights of body_fts (title, author, summary, body) and title_fts (title, author).
BODY_BM25_WEIGHTS = "bm25(10.0, 4.0, 2.0, 1.0)"
TITLE_BM25_WEIGHTS = "bm25(4.0, 1.0)"
# Both indexes are contentless with detail=column: half the size of a positional index and
# twice as fast to build. The text is never stored twice: it is re-derived from the raw JSON
# for snippets and for removing an old version from the index (see FTS_FINGERPRINT_KEY).
_FTS_TABLES = [
    """CREATE VIRTUAL TABLE body_fts USING fts5(
        title, author, summary, body, content='', detail=column,
        tokenize='unicode61 remove_diacritics 2')""",
    f"INSERT INTO body_fts(body_fts, rank) VALUES ('rank', '{BODY_BM25_WEIGHTS}')",
    # Titles and authors again, small, with prefix indexes for as-you-type queries.
    """CREATE VIRTUAL TABLE title_fts USING fts5(
        title, author, content='', detail=column, prefix='2 3',
        tokenize='unicode61 remove_diacritics 2')""",
    f"INSERT INTO title_fts(title_fts, rank) VALUES ('rank', '{TITLE_BM25_WEIGHTS}')",
]
# sync_state key holding the fingerprint of the text extraction the indexes were built with.
FTS_FINGERPRINT_KEY = "store.fts_fingerprint"

_V2_ENTITIES = """CREATE TABLE entities (
        rowid INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        type TEXT NOT NULL,
        title TEXT NOT NULL DEFAULT '',
        url TEXT,
        normalized_url TEXT,
        author TEXT,
        site TEXT,
        snippet_source TEXT NOT NULL DEFAULT '',
        created_at INTEGER,
        updated_at INTEGER,
        status TEXT,
        raw_hash TEXT NOT NULL,
        complete INTEGER NOT NULL DEFAULT 1,
        cached_at INTEGER NOT NULL,
        deleted_upstream_at INTEGER
    )"""
_V2_INDEXES = [
    "CREATE INDEX entities_created ON entities(created_at)",
    "CREATE INDEX entities_type_created ON entities(type, created_at)",
    "CREATE INDEX entities_normalized_url ON entities(normalized_url)",
    "CREATE INDEX entities_title_nocase ON entities(title COLLATE NOCASE)",
    """CREATE INDEX entities_deleted ON entities(deleted_upstream_at)
        WHERE deleted_upstream_at IS NOT NULL""",
]


def _migrate_v2(db: Database) -> None:
    """Recency rowids, raw JSON in a table of its own, contentless column-detail indexes.

    Entities keep their data; their rowids become recency keys and every one is queued in
    fts_pending, so the writer rebuilds both search indexes from the stored JSON in the
    background (readers scan the backlog meanwhile). No re-sync is needed.
    """
    for name in ("entity_fts", "title_fts", "entity_text", "fts_pending"):
        db.execute(f"DROP TABLE IF EXISTS {name}")
    db.execute("ALTER TABLE entities RENAME TO entities_v1")
    for index in ("entities_created", "entities_type_created", "entities_normalized_url",
                  "entities_title_nocase", "entities_deleted"):  # fmt: skip
        db.execute(f"DROP INDEX IF EXISTS {index}")
    db.execute(_V2_ENTITIES)
    db.execute("CREATE TABLE entity_raw (rowid INTEGER PRIMARY KEY, raw TEXT NOT NULL)")
    db.execute(
        f"CREATE TEMP TABLE rekey AS SELECT rowid AS old, {FIRST_KEY} + {KEY_STEP} * "
        "row_number() OVER (ORDER BY created_at NULLS FIRST, rowid) AS new FROM entities_v1"
    )
    columns = (
        "id, type, title, url, normalized_url, author, site, snippet_source, created_at, "
        "updated_at, status, raw_hash, complete, cached_at, deleted_upstream_at"
    )
    db.execute(
        f"INSERT INTO entities (rowid, {columns}) SELECT k.new, {columns} "
        "FROM entities_v1 v JOIN temp.rekey k ON k.old = v.rowid"
    )
    db.execute(
        "INSERT INTO entity_raw (rowid, raw) SELECT k.new, v.raw "
        "FROM entities_v1 v JOIN temp.rekey k ON k.old = v.rowid"
    )
    db.execute("DROP TABLE temp.rekey")
    db.execute("DROP TABLE entities_v1")
    for statement in _V2_INDEXES:
        db.execute(statement)
    db.execute("CREATE TABLE fts_pending (rowid INTEGER PRIMARY KEY)")
    db.execute("INSERT INTO fts_pending (rowid) SELECT rowid FROM entities")
    for statement in _FTS_TABLES:
        db.execute(statement)
    db.execute("DELETE FROM sync_state WHERE key = ?", [FTS_FINGERPRINT_KEY])


def _migrate_v3(db: Database) -> None:
    """Other ids of an item (the library row id beside the content id), resolving to its one id.

    Rows cached under a library row id although their JSON names a content id are re-keyed
    to the content id (as the API layer now keys them), with their edges and tags, unless
    that id is already cached.
    """
    db.execute(
        """CREATE TABLE entity_aliases (
            alias TEXT PRIMARY KEY, id TEXT NOT NULL) WITHOUT ROWID"""
    )
    db.execute("CREATE INDEX entity_aliases_id ON entity_aliases(id)")
    canonical = (
        "coalesce(nullif(json_extract(r.raw, '$.contentEntityId'), ''),"
        " nullif(json_extract(r.raw, '$.content_id'), ''))"
    )
    db.execute(
        f"""CREATE TEMP TABLE rekey AS
            SELECT e.id AS old, {canonical} AS new FROM entities e
            JOIN entity_raw r ON r.rowid = e.rowid
            WHERE json_valid(r.raw) AND typeof({canonical}) = 'text' AND {canonical} != e.id
              AND NOT EXISTS (SELECT 1 FROM entities o WHERE o.id = {canonical})"""
    )
    db.execute("INSERT OR IGNORE INTO entity_aliases (alias, id) SELECT old, new FROM temp.rekey")
    db.execute(
        "UPDATE entities SET id = (SELECT new FROM temp.rekey WHERE old = entities.id) "
        "WHERE id IN (SELECT old FROM temp.rekey)"
    )
    for table, column in (("edges", "source"), ("edges", "target"), ("entity_tags", "entity_id")):
        db.execute(
            f"UPDATE OR REPLACE {table} SET {column} = "
            f"(SELECT new FROM temp.rekey WHERE old = {table}.{column}) "
            f"WHERE {column} IN (SELECT old FROM temp.rekey)"
        )
    db.execute("DROP TABLE temp.rekey")


def _migrate_v4(db: Database) -> None:
    """Which items each followed feed holds, as the server listed them, and when it did.

    Membership was guessed from the feed's host before; nothing is carried over: a feed's
    items are listed by the server the next time it is opened online.
    """
    db.execute(
        """CREATE TABLE feed_members (
            feed_id TEXT NOT NULL, entity_id TEXT NOT NULL,
            PRIMARY KEY (feed_id, entity_id)) WITHOUT ROWID"""
    )
    db.execute(
        """CREATE TABLE feed_listings (
            feed_id TEXT PRIMARY KEY, listed_at_ms INTEGER NOT NULL, complete INTEGER NOT NULL)"""
    )


def _migrate_v5(db: Database) -> None:
    """Where the person was reading each item: the character at the top of the reader."""
    db.execute(
        """CREATE TABLE reading_positions (
            entity_id TEXT PRIMARY KEY, position INTEGER NOT NULL,
            updated_at_ms INTEGER NOT NULL) WITHOUT ROWID"""
    )


def _migrate_v6(db: Database) -> None:
    """Stored JSON packed with zstd (see store/packing.py).

    Nothing is rewritten here: every row is listed in pack_pending and the writer packs them
    in batches while idle, a transaction each, so opening stays fast and a cache stopped at
    any moment holds plain and packed rows, both readable.
    """
    db.execute(
        """CREATE TABLE json_dictionaries (
            dict_id INTEGER PRIMARY KEY, dictionary BLOB NOT NULL,
            trained_at_ms INTEGER NOT NULL)"""
    )
    db.execute("CREATE TABLE pack_pending (rowid INTEGER PRIMARY KEY)")
    db.execute("INSERT INTO pack_pending (rowid) SELECT rowid FROM entity_raw")


def _migrate_v7(db: Database) -> None:
    """The created_at index also holds each row's id, so that listing the newest items
    reads the index alone. Looking every row up in the table for its id made the window's
    first listing (100,000 items) touch the whole table: 0.34 s and 64 MB of mapped pages
    at 100,000 items against 0.08 s and 7 MB, and hundreds of megabytes at a million."""
    db.execute("DROP INDEX entities_created")
    db.execute("CREATE INDEX entities_created ON entities(created_at, rowid, id)")


def _migrate_v8(db: Database) -> None:
    """The words of the body index, listed (see store/terms.py). The list starts empty and
    incomplete; the writer fills it from the index while idle, a step at a time."""
    db.execute("CREATE TABLE body_terms (term TEXT PRIMARY KEY) WITHOUT ROWID")


def _migrate_v9(db: Database) -> None:
    """Each tag's items by rowid (``tag_members``), kept by triggers as entity_tags and
    entities change.

    A tag filter looked each item up by its id; by rowid, a tag's items are a range of one
    index in recency order. On a million items "#vym-fus" (3,094 items) listed its newest 50
    in 7.8 instead of 14.5 ms, and "tag:skex broastgran" took 27 instead of 51 ms. Building
    the table took 3.3 s there (1.2 million links).
    """
    db.execute(
        """CREATE TABLE tag_members (
            tag_id TEXT NOT NULL, entity_rowid INTEGER NOT NULL,
            PRIMARY KEY (tag_id, entity_rowid)) WITHOUT ROWID"""
    )
    db.execute(
        "INSERT OR IGNORE INTO tag_members (tag_id, entity_rowid) SELECT t.tag_id, e.rowid "
        "FROM entity_tags t JOIN entities e ON e.id = t.entity_id ORDER BY 1, 2"
    )
    for statement in _TAG_MEMBER_TRIGGERS:
        db.execute(statement)


# Links are written before or after their item, so both sides keep tag_members. Items are
# never deleted from the cache (only marked) and never change id or rowid in place.
_TAG_MEMBER_TRIGGERS = [
    """CREATE TRIGGER tag_members_linked AFTER INSERT ON entity_tags BEGIN
        INSERT OR IGNORE INTO tag_members (tag_id, entity_rowid)
        SELECT NEW.tag_id, rowid FROM entities WHERE id = NEW.entity_id;
    END""",
    """CREATE TRIGGER tag_members_unlinked AFTER DELETE ON entity_tags BEGIN
        DELETE FROM tag_members WHERE tag_id = OLD.tag_id
        AND entity_rowid = (SELECT rowid FROM entities WHERE id = OLD.entity_id);
    END""",
    """CREATE TRIGGER tag_members_relinked AFTER UPDATE ON entity_tags BEGIN
        DELETE FROM tag_members WHERE tag_id = OLD.tag_id
        AND entity_rowid = (SELECT rowid FROM entities WHERE id = OLD.entity_id);
        INSERT OR IGNORE INTO tag_members (tag_id, entity_rowid)
        SELECT NEW.tag_id, rowid FROM entities WHERE id = NEW.entity_id;
    END""",
    """CREATE TRIGGER tag_members_cached AFTER INSERT ON entities BEGIN
        INSERT OR IGNORE INTO tag_members (tag_id, entity_rowid)
        SELECT tag_id, NEW.rowid FROM entity_tags WHERE entity_id = NEW.id;
    END""",
]


def _migrate_v10(db: Database) -> None:
    """Recency keys back in date order where an older version's sync left them out of it
    (see store/rekey.py); a cache in order is only read (about 30 ms at 100,000 items)."""
    # Imported here: rekey reaches this module through the ingest code it re-indexes with.
    from memex_desktop.store.rekey import rekey_if_out_of_order

    rekey_if_out_of_order(db, _progress.get())


# (steps done, steps in all) of a long migration, as it goes; called on the thread opening
# the cache.
MigrationProgress = Callable[[int, int], None]
# Where the migrations running on this thread report their progress (set by open_cache for
# its call, so every migration keeps its one-argument shape).
_progress: ContextVar[MigrationProgress | None] = ContextVar("migration_progress", default=None)


# Append-only: migration N brings a file from user_version N-1 to N.
MIGRATIONS: list[Callable[[Database], None]] = [
    _migrate_v1,
    _migrate_v2,
    _migrate_v3,
    _migrate_v4,
    _migrate_v5,
    _migrate_v6,
    _migrate_v7,
    _migrate_v8,
    _migrate_v9,
    _migrate_v10,
]
SCHEMA_VERSION = len(MIGRATIONS)


def file_schema_version(path: Path) -> int | None:
    """The schema version recorded in the file, or None when it does not exist or is empty.

    Reads the header bytes only (no connection, so nothing is written) unless a ``-wal``
    file exists, whose newer header pages only SQLite itself can see.
    """
    if not path.exists():
        return None
    if Path(f"{path}-wal").exists():
        return _version_via_sqlite(path)
    with path.open("rb") as handle:
        header = handle.read(100)
    if not header:
        return None
    if len(header) < 100 or not header.startswith(_SQLITE_MAGIC):
        error = DatabaseCorruptError(f"{path} is not an SQLite database")
        error.file = path
        raise error
    return int.from_bytes(header[_USER_VERSION_OFFSET : _USER_VERSION_OFFSET + 4], "big")


def _version_via_sqlite(path: Path) -> int:
    """``user_version`` read through a read-only connection (reading the file as it lies
    where SQLite cannot make the WAL's index beside it, as in a folder nobody may write)."""
    from memex_desktop.store.read_only import connect_frozen  # which imports this module

    try:
        conn, _as_it_lies = connect_frozen(path)
        try:
            row = conn.execute("PRAGMA user_version").fetchone()
        finally:
            conn.close()
    except sqlite3.Error as exc:
        raise translate(exc, f"reading {path}", file=path) from exc
    return int(row[0])


def check_not_too_new(path: Path, supported: int) -> None:
    """Raise SchemaTooNewError, touching nothing, when the file is newer than ``supported``."""
    found = file_schema_version(path)
    if found is not None and found > supported:
        raise SchemaTooNewError(str(path), found, supported)


def migrations_pending(path: Path) -> int:
    """How many migrations opening the cache at ``path`` will apply: 0 for a current file and
    for one that does not exist yet. Reads the file's header only.

    Raises:
        SchemaTooNewError: the file was written by a newer version.
        DatabaseCorruptError: the file is not an SQLite database.
    """
    found = file_schema_version(path)
    if found is None or found == 0:
        return 0  # a new cache: its tables are created in milliseconds
    if found > SCHEMA_VERSION:
        raise SchemaTooNewError(str(path), found, SCHEMA_VERSION)
    return SCHEMA_VERSION - found


def cached_item_count(path: Path) -> int:
    """How many items the cache at ``path`` holds, touching nothing: 0 when there is no cache
    or it cannot be read (the start that opens it says why)."""
    if not path.is_file():
        return 0
    try:
        conn = connect(path, read_only=True)
        try:
            row = conn.execute("SELECT count(*) FROM entities").fetchone()
        finally:
            conn.close()
    except sqlite3.Error:
        return 0
    return int(row[0])


def connect(path: Path, *, read_only: bool = False) -> sqlite3.Connection:
    """A connection in legacy transaction mode (what sqlite-utils expects)."""
    if read_only:
        return sqlite3.connect(
            f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=BUSY_TIMEOUT_S
        )
    return sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_S)


def wrapped(conn: sqlite3.Connection) -> Database:
    """sqlite-utils' wrapper of ``conn``, without sqlite-utils plugins.

    A plugin installed beside the app would run its code on every connection to the cache,
    and looking for plugins reads the metadata of every installed package: 12 ms, before
    the window's first frame, in the development environment's 72 packages.
    """
    return Database(conn, execute_plugins=False)


def open_cache(path: Path, *, progress: MigrationProgress | None = None) -> Database:
    """Open (creating it if needed) cache.db in WAL mode with every migration applied;
    ``progress`` hears how far a long one has come.

    Raises:
        SchemaTooNewError: the file was written by a newer version; it is left untouched.
        KnownStoreError: disk full, locked or damaged file.
    """
    path = Path(path)
    check_not_too_new(path, SCHEMA_VERSION)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        db = wrapped(connect(path))
        reporting = _progress.set(progress)
        try:
            _prepare(db, path)
        except BaseException:
            db.close()
            raise
        finally:
            _progress.reset(reporting)
    except sqlite3.Error as exc:
        raise translate(exc, f"opening {path}", file=path) from exc
    return db


WRITER_CACHE_KIB = 32 * 1024


def _prepare(db: Database, path: Path) -> None:
    """Set connection pragmas and apply pending migrations, each in its own transaction."""
    version = int(db.execute("PRAGMA user_version").fetchone()[0])
    if version > SCHEMA_VERSION:
        raise SchemaTooNewError(str(path), version, SCHEMA_VERSION)
    if version == 0:
        # Small pages: a sync page touches a leaf of every index keyed by id, URL or title
        # for almost every item, and each touched page is written whole to the WAL (16 KB
        # pages wrote 17 MB per page of 100 items). FTS5 keeps its own 4 KB leaves anyway.
        db.execute(f"PRAGMA page_size={PAGE_SIZE}")
        # Packing an item's JSON frees most of its pages; incremental vacuum lets the writer
        # give them back to the file system a step at a time (only settable while empty).
        db.execute("PRAGMA auto_vacuum=INCREMENTAL")
    db.enable_wal()
    # A cache can be rebuilt by a sync, so NORMAL (durable across app crashes) is enough.
    db.execute("PRAGMA synchronous=NORMAL")
    db.execute("PRAGMA temp_store=MEMORY")
    # The writer's page cache (readers keep SQLite's small default). The file's pages stay in
    # the system's cache anyway; this one saves copying them. Measured on the sync benchmark
    # (100,000 items): peak RSS 307-313 MB with 64 MB here, 262-268 MB with 32 MB and 242 MB
    # with 16 MB, at the same sync time; the store benchmark's ingest rate was level too.
    db.execute(f"PRAGMA cache_size=-{WRITER_CACHE_KIB}")
    # Keep the WAL from staying at its high-water mark after a full sync.
    db.execute("PRAGMA journal_size_limit=67108864")
    for number in range(version + 1, SCHEMA_VERSION + 1):
        with db.atomic():
            MIGRATIONS[number - 1](db)
            db.execute(f"PRAGMA user_version = {number}")
