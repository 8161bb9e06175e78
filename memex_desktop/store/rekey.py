"""Recency keys put back in date order, in a cache whose keys left it (schema 10).

Rowids are recency keys (see store/recency.py): word searches read the indexes newest key
first, so "Newest first" and the first page of "Best match" show items in key order. Older
versions spaced a sync's keys by its first page's dates; a first page whose notes pointed
all over the library left too little room for the rest, which went above every key: a
100,000-item library ended with thousands of items listed out of date order. Newer syncs
space keys correctly, but the keys of a cache never move by themselves.

A cache whose keys go down anywhere in date order gets every key anew, spaced as a full sync
spaces them, in every table holding them: ``entities``, ``entity_raw``, the queues
``fts_pending`` and ``pack_pending``, ``tag_members``, and both search indexes, which are
contentless and so are rebuilt from the stored JSON. It runs in the migration's one
transaction: a stop midway leaves the cache as it was. A cache in date order is only read.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path

from sqlite_utils import Database

from memex_desktop.store import ingest
from memex_desktop.store.compaction import has_room
from memex_desktop.store.packing import codec_of
from memex_desktop.store.recency import keys_in_date_order_sql
from memex_desktop.store.sql import insert_rows

_log = logging.getLogger(__name__)

# (steps done, steps in all) as the work goes.
Progress = Callable[[int, int], None]

# Rows whose texts are re-derived and indexed per step (and per progress report).
INDEX_BATCH_ROWS = 1000
# Rows moved to their new keys per step.
COPY_BATCH_ROWS = 5000
# Progress steps per row indexed, against one per row copied: indexing a row (its text
# tokenized) took about twelve times as long as copying it to its new key.
_INDEX_WEIGHT = 12
# The tables whose rows are keyed by an entity's rowid, copied under the new keys.
_KEYED_TABLES = ("entities", "entity_raw")
# The queues listing rowids: a few rows each, remapped in place.
_QUEUES = ("fts_pending", "pack_pending")


def descents(conn: sqlite3.Connection) -> int:
    """How many times the recency keys go down along date order (undated items first);
    0 for a cache in order.

    One walk of the created_at index, which holds the rowids: 28 ms at 100,000 items, a
    quarter of what SQLite's ``lag()`` over the same walk takes.
    """
    count = 0
    previous = -1
    for (key,) in conn.execute("SELECT rowid FROM entities ORDER BY created_at, rowid"):
        if key < previous:
            count += 1
        previous = key
    return count


def rekey_if_out_of_order(db: Database, progress: Progress | None = None) -> bool:
    """Give every item a new key in date order when the keys go down anywhere; whether it
    did. Runs inside the caller's transaction.

    Too little disk for a copy of the cache leaves the keys as they are (the cache works as
    before, searches listing some items out of date order) rather than refusing to open it.
    """
    conn = db.conn
    found = descents(conn)
    if not found:
        return False
    path = _main_file(conn)
    if path is not None and not has_room(path):
        _log.warning(
            "%s lists %d items out of date order; there is too little disk to re-key it",
            path,
            found,
        )
        return False
    _log.info("re-keying %s: its keys went down %d times in date order", path, found)
    rekey(db, progress)
    return True


def rekey(db: Database, progress: Progress | None = None) -> None:
    """Give every item the key a full sync would give it, oldest first, in every table
    that holds keys, and rebuild the search indexes under them."""
    conn = db.conn
    report = progress or (lambda _done, _total: None)
    # Indexes built by other extraction code are emptied and every row queued (what the
    # writer does at open anyway): their rows cannot be re-derived exactly.
    rebuild = not ingest.rebuild_index_if_stale(db)
    total_rows = int(conn.execute("SELECT count(*) FROM entities").fetchone()[0])
    indexed = total_rows - int(
        conn.execute(
            "SELECT count(*) FROM fts_pending WHERE rowid IN (SELECT rowid FROM entities)"
        ).fetchone()[0]
    )
    total = len(_KEYED_TABLES) * total_rows + (_INDEX_WEIGHT * indexed if rebuild else 0)
    done = 0
    report(done, total)
    _map_keys(conn)
    triggers = _drop_triggers(conn)
    for table in _KEYED_TABLES:
        for rows in _copy_under_new_keys(conn, table):
            done += rows
            report(done, total)
    for queue in _QUEUES:
        _remap_queue(conn, queue)
    _remap_tag_members(conn)
    for statement in triggers:
        conn.execute(statement)
    if rebuild:
        for rows in _reindexed(db):
            done += _INDEX_WEIGHT * rows
            report(done, total)
    report(total, total)
    conn.execute("DROP TABLE temp.rekey")


def _main_file(conn: sqlite3.Connection) -> Path | None:
    """The file of the connection's main database (None in memory)."""
    for _seq, name, file in conn.execute("PRAGMA database_list"):
        if name == "main" and file:
            return Path(file)
    return None


def _map_keys(conn: sqlite3.Connection) -> None:
    """``temp.rekey``: each cached rowid (``old``) and its key in date order (``new``)."""
    created = [
        row[0]
        for row in conn.execute(
            "SELECT created_at FROM entities WHERE created_at IS NOT NULL ORDER BY created_at"
        )
    ]
    sql, params = keys_in_date_order_sql(created)
    conn.execute("DROP TABLE IF EXISTS temp.rekey")
    # Keyed by the new key, so copies walk it in the order they write (sorting the rows
    # instead held every item's JSON in memory).
    conn.execute("CREATE TEMP TABLE rekey (new INTEGER PRIMARY KEY, old INTEGER NOT NULL UNIQUE)")
    conn.execute(f"INSERT INTO temp.rekey (old, new) {sql}", params)


def _drop_triggers(conn: sqlite3.Connection) -> list[str]:
    """Drop every trigger (those keeping tag_members would fire for every copied row, and
    renaming the copied table checks them against a schema missing it); their statements,
    to create them again."""
    found = conn.execute(
        "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' ORDER BY name"
    ).fetchall()
    for name, _sql in found:
        conn.execute(f'DROP TRIGGER "{name}"')
    return [sql for _name, sql in found]


def _copy_under_new_keys(conn: sqlite3.Connection, table: str) -> Iterator[int]:
    """Replace ``table`` with a copy of its rows under their new keys, written in key order
    (its b-tree front to back, with full pages), and build its indexes again; yields how
    many rows each step copied.

    The rows are moved a batch at a time, each batch deleted once copied, so the pages it
    frees hold the next ones: dropping the whole old table at the end kept a page of memory
    for each page it freed (190 MB at 100,000 items) and the file grew by all of it. Rows
    whose key no item holds have no new key and are not copied: nothing reads them.
    """
    (create,) = conn.execute(
        "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", [table]
    ).fetchone()
    indexes = conn.execute(
        "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? "
        "AND sql IS NOT NULL ORDER BY name",
        [table],
    ).fetchall()
    for name, _sql in indexes:
        conn.execute(f'DROP INDEX "{name}"')  # kept up through every delete, to no use
    columns = [row[1] for row in conn.execute(f"PRAGMA table_info({table})") if row[1] != "rowid"]
    listed = ", ".join(f'"{column}"' for column in columns)
    picked = ", ".join(f't."{column}"' for column in columns)
    copied = f"{table}_rekeyed"
    conn.execute(f"DROP TABLE IF EXISTS {copied}")
    conn.execute(create.replace(table, copied, 1))
    low = None
    while True:
        bounds = conn.execute(
            "SELECT min(new), max(new), count(*) FROM (SELECT new FROM temp.rekey "
            "WHERE new > coalesce(?, -9223372036854775808) ORDER BY new LIMIT ?)",
            [low, COPY_BATCH_ROWS],
        ).fetchone()
        first, last, count = bounds
        if not count:
            break
        conn.execute(
            f"INSERT INTO {copied} (rowid, {listed}) SELECT k.new, {picked} FROM temp.rekey k "
            f"CROSS JOIN {table} t ON t.rowid = k.old WHERE k.new BETWEEN ? AND ? "
            "ORDER BY k.new",
            [first, last],
        )
        conn.execute(
            f"DELETE FROM {table} WHERE rowid IN "
            "(SELECT old FROM temp.rekey WHERE new BETWEEN ? AND ?)",
            [first, last],
        )
        low = last
        yield int(count)
    conn.execute(f"DROP TABLE {table}")
    conn.execute(f"ALTER TABLE {copied} RENAME TO {table}")
    for _name, statement in indexes:
        conn.execute(statement)


def _remap_queue(conn: sqlite3.Connection, queue: str) -> None:
    """The queue of rowids ``queue`` under the new keys (rowids no item holds dropped)."""
    conn.execute(
        f"CREATE TEMP TABLE queued AS SELECT k.new AS rowid FROM {queue} q "
        "JOIN temp.rekey k ON k.old = q.rowid"
    )
    conn.execute(f"DELETE FROM {queue}")
    conn.execute(f"INSERT INTO {queue} (rowid) SELECT rowid FROM temp.queued ORDER BY rowid")
    conn.execute("DROP TABLE temp.queued")


def _remap_tag_members(conn: sqlite3.Connection) -> None:
    """Each tag's items under their new keys."""
    conn.execute(
        "CREATE TEMP TABLE members AS SELECT m.tag_id, k.new AS entity_rowid "
        "FROM tag_members m JOIN temp.rekey k ON k.old = m.entity_rowid"
    )
    conn.execute("DELETE FROM tag_members")
    conn.execute(
        "INSERT INTO tag_members (tag_id, entity_rowid) SELECT tag_id, entity_rowid "
        "FROM temp.members ORDER BY 1, 2"
    )
    conn.execute("DROP TABLE temp.members")


def _reindexed(db: Database) -> Iterator[int]:
    """Empty both search indexes and index again every row they held, under its new key
    (rows still queued stay queued); yields how many rows each step indexed."""
    conn = db.conn
    for table in ("body_fts", "title_fts"):
        conn.execute(f"INSERT INTO {table} ({table}) VALUES ('delete-all')")
    codec = codec_of(db)
    last = -1
    while True:
        rows = conn.execute(
            "SELECT rowid, raw FROM entity_raw WHERE rowid > ? "
            "AND rowid NOT IN (SELECT rowid FROM fts_pending) ORDER BY rowid LIMIT ?",
            [last, INDEX_BATCH_ROWS],
        ).fetchall()
        if not rows:
            return
        texts = [(rowid, *ingest.texts_of_stored(codec, raw)) for rowid, raw in rows]
        # Ascending keys throughout: FTS5 starts a new segment whenever a rowid is not
        # larger than the one before it in the transaction.
        insert_rows(conn, "INSERT INTO body_fts (rowid, title, author, summary, body)", texts)
        insert_rows(
            conn,
            "INSERT INTO title_fts (rowid, title, author)",
            [(rowid, title, author) for rowid, title, author, _summary, _body in texts],
        )
        last = rows[-1][0]
        yield len(rows)
