"""Recency keys put back in date order, in a cache whose keys left it (schema 10).

Rowids are recency keys (see store/recency.py): word searches read the indexes newest key
first, so "Newest first" and the first page of "Best match" show items in key order. Older
versions spaced a sync's keys by its first page's dates; a first page whose notes pointed
all over the library left too little room for the rest, which went above every key: a
100,000-item library ended with thousands of items listed out of date order. Newer syncs
space keys correctly, but the keys of a cache never move by themselves.

A cache whose keys go down anywhere in date order gets them back in order in every table
holding them: ``entities``, ``entity_raw``, the queues ``fts_pending`` and ``pack_pending``,
``tag_members`` and both search indexes. When few items are out of place, only they move
(with the neighbours that make room for them), out of the indexes and back in under their
new keys: 215 items in 1 s on a 100,000-item cache an older version synced. Otherwise every
item gets a new key, spaced as a full sync spaces them, and both indexes, contentless, are
rebuilt from the stored JSON: about 40 s at 100,000 items. Either runs in the migration's
one transaction: a stop midway leaves the cache as it was. A cache in date order is only
read.
"""

from __future__ import annotations

import logging
import sqlite3
from array import array
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

from sqlite_utils import Database

from memex_desktop.store import ingest
from memex_desktop.store.compaction import has_room
from memex_desktop.store.packing import codec_of
from memex_desktop.store.recency import keys_back_in_order, keys_in_date_order_sql
from memex_desktop.store.schema import MigrationProgress
from memex_desktop.store.sql import IN_LIST, in_ids, insert_rows

_log = logging.getLogger(__name__)

# Rows whose texts are re-derived and indexed per step (and per progress report).
INDEX_BATCH_ROWS = 1000
# Rows moved to their new keys per step.
COPY_BATCH_ROWS = 5000
# Progress steps per row indexed, against one per row copied: indexing a row (its text
# tokenized) took about twelve times as long as copying it to its new key.
_INDEX_WEIGHT = 12
# The tables whose rows are keyed by an entity's rowid, copied under the new keys.
_KEYED_TABLES = ("entities", "entity_raw")


def descents(conn: sqlite3.Connection) -> int:
    """How many times the recency keys go down along date order (undated items first);
    0 for a cache in order.

    One walk of the created_at index, which holds the rowids: 28 ms at 100,000 items, a
    quarter of what SQLite's ``lag()`` over the same walk takes.
    """
    count = 0
    previous = -(1 << 63)
    for (key,) in conn.execute("SELECT rowid FROM entities ORDER BY created_at, rowid"):
        if key < previous:
            count += 1
        previous = key
    return count


def rekey_if_out_of_order(db: Database, progress: MigrationProgress | None = None) -> bool:
    """Put the keys back in date order when they go down anywhere; whether it did. Runs
    inside the caller's transaction.

    When few items are out of place (see :func:`.recency.keys_back_in_order`) only they move,
    with the neighbours that make room for them; otherwise every item gets a new key. Too
    little disk for a copy of the cache leaves the keys as they are then (the cache works
    as before, searches listing some items out of date order) rather than refusing to open.
    """
    conn = db.conn
    found = descents(conn)
    if not found:
        return False
    keys = array("q")
    created: list[int | None] = []
    for key, date in conn.execute(
        "SELECT rowid, created_at FROM entities ORDER BY created_at, rowid"
    ):
        keys.append(key)
        created.append(date)
    moves = keys_back_in_order(keys, created)
    del keys, created
    path = _main_file(conn)
    if moves is not None:
        _log.info("%s: %d keys out of date order, %d items moved", path, found, len(moves))
        move(db, moves, progress)
        return True
    if path is not None and not has_room(path):
        _log.warning(
            "%s lists items out of date order (%d places); too little disk to re-key it",
            path,
            found,
        )
        return False
    _log.info("%s: %d keys out of date order, every item re-keyed", path, found)
    rekey(db, progress)
    return True


def move(db: Database, moves: Mapping[int, int], progress: MigrationProgress | None = None) -> None:
    """Give the items at the keys of ``moves`` their new keys, in every table that holds
    keys, and move them in both search indexes."""
    conn = db.conn
    report = progress or (lambda _done, _total: None)
    steps = 3
    report(0, steps)
    stale = ingest.rebuild_index_if_stale(db)
    # Each moved row is parked above every key first: a new key may be the old key of
    # another moved row.
    (highest,) = conn.execute("SELECT max(rowid) FROM entities").fetchone()
    top = max([int(highest), *moves.values()]) + 1
    conn.execute("DROP TABLE IF EXISTS temp.rekey")
    conn.execute(
        "CREATE TEMP TABLE rekey (new INTEGER PRIMARY KEY, old INTEGER NOT NULL UNIQUE, "
        "parked INTEGER NOT NULL UNIQUE)"
    )
    insert_rows(
        conn,
        "INSERT INTO temp.rekey (old, new, parked)",
        [(old, new, top + rank) for rank, (old, new) in enumerate(sorted(moves.items()))],
    )
    indexed = (
        []
        if stale
        else [
            row[0]
            for row in conn.execute(
                "SELECT old FROM temp.rekey WHERE old NOT IN (SELECT rowid FROM fts_pending) "
                "ORDER BY old"
            )
        ]
    )
    _index(db, indexed, "delete")
    report(1, steps)
    triggers = _drop_triggers(conn)
    _remap_references(conn)
    # Stored JSON of no item, where a moved item is to go: nothing reads it.
    conn.execute(
        "DELETE FROM entity_raw WHERE rowid IN (SELECT new FROM temp.rekey) "
        "AND rowid NOT IN (SELECT rowid FROM entities)"
    )
    for table in _KEYED_TABLES:
        for source, target in (("old", "parked"), ("parked", "new")):
            conn.execute(
                f"UPDATE {table} SET rowid = (SELECT {target} FROM temp.rekey "
                f"WHERE {source} = {table}.rowid) "
                f"WHERE rowid IN (SELECT {source} FROM temp.rekey)"
            )
    for statement in triggers:
        conn.execute(statement)
    report(2, steps)
    _index(db, sorted(moves[old] for old in indexed), "insert")
    conn.execute("DROP TABLE temp.rekey")
    report(steps, steps)


def rekey(db: Database, progress: MigrationProgress | None = None) -> None:
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
    _remap_references(conn)
    for table in _KEYED_TABLES:
        for rows in _copy_under_new_keys(conn, table):
            done += rows
            report(done, total)
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


# The tables referring to items by key besides those keyed by it: (table, key column,
# the columns of its rows' other values).
_REFERRING = (
    ("fts_pending", "rowid", ""),
    ("pack_pending", "rowid", ""),
    ("tag_members", "entity_rowid", "tag_id, "),
)


def _remap_references(conn: sqlite3.Connection) -> None:
    """The queues and each tag's items under the new keys of ``temp.rekey``, before the
    items move (while ``entities`` still says which keys hold an item).

    Entries of no item leave too: an item may now take their key.
    """
    for table, column, others in _REFERRING:
        conn.execute(
            f"CREATE TEMP TABLE remapped AS SELECT {others}k.new AS {column} FROM {table} t "
            f"JOIN temp.rekey k ON k.old = t.{column}"
        )
        conn.execute(
            f"DELETE FROM {table} WHERE {column} IN (SELECT old FROM temp.rekey) "
            f"OR {column} NOT IN (SELECT rowid FROM entities)"
        )
        conn.execute(
            f"INSERT INTO {table} ({others}{column}) SELECT {others}{column} "
            f"FROM temp.remapped ORDER BY {others}{column}"
        )
        conn.execute("DROP TABLE temp.remapped")


def _index(db: Database, rowids: Sequence[int], command: str) -> None:
    """Insert the rows at ``rowids`` (ascending) into both indexes, or with ``command``
    "delete" take them out, their texts re-derived from their stored JSON (the extraction
    fingerprint makes them what was indexed)."""
    conn = db.conn
    codec = codec_of(db)
    head, value = ("body_fts, rowid", "'delete', ") if command == "delete" else ("rowid", "")
    title_head = head.replace("body_fts", "title_fts")
    for start in range(0, len(rowids), INDEX_BATCH_ROWS):
        batch = rowids[start : start + INDEX_BATCH_ROWS]
        rows = conn.execute(
            f"SELECT rowid, raw FROM entity_raw WHERE rowid IN {IN_LIST} ORDER BY rowid",
            [in_ids(batch)],
        ).fetchall()
        texts = [(rowid, *ingest.texts_of_stored(codec, raw)) for rowid, raw in rows]
        conn.executemany(
            f"INSERT INTO body_fts ({head}, title, author, summary, body) "
            f"VALUES ({value}?, ?, ?, ?, ?)",
            texts,
        )
        conn.executemany(
            f"INSERT INTO title_fts ({title_head}, title, author) VALUES ({value}?, ?, ?)",
            [row[:3] for row in texts],
        )


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
