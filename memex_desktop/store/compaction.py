"""Compaction: the cache file rewritten with full pages once its library has grown a lot.

A full sync receives the library newest first, so most of its rows go below the rows before
them, and SQLite leaves the pages it splits for such inserts about half full: after a full
sync of 100,000 generated items, the entities table had 45% of its bytes unused and the file
was 761 MB, 1.003 times the JSON it holds. Rewritten (``VACUUM``), every table and index is
laid out again in key order with full pages: 706 MB (0.93 times the JSON) in about 4 s. At a
million items the rewrite took 83 s, and the search p95 of the store benchmark went from 55
to 34 ms: the newest items, which a listing and most searches read first, sit side by side
on disk.

The writer compacts once writes have stopped for a while (COMPACT_AFTER_QUIET_S) and the
library has at least doubled since the last compaction, so the total work stays within
twice the final size; any write that comes meanwhile interrupts it, and it is tried again at
the next quiet moment. SQLite makes the rewrite atomic: a stop midway leaves the file as it
was.
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

from sqlite_utils import Database

# Seconds without a write before the writer compacts: longer than any gap between a sync's
# pages (a slow server answers a page within a few seconds), so a running sync is not
# interrupted page after page.
COMPACT_AFTER_QUIET_S = 10.0
# Fewer rows are not worth a rewrite: their pages are few whatever their fill.
COMPACT_MIN_ROWS = 5000
# A compaction is due once the library holds this many times the rows it held after the last.
COMPACT_GROWTH = 2
# sync_state key: how many rows the library held when it was last compacted (or when a
# compaction last failed for a reason other than a write coming).
COMPACTED_ROWS_KEY = "store.compacted_rows"
# Room a rewrite needs beside the file: a copy in SQLite's temporary file, a copy in the WAL
# (given back once copied into the file), and a margin that leaves the disk usable.
_ROOM_COPIES = 2
_ROOM_MARGIN_BYTES = 256 * 1024 * 1024


def rows_to_compact(db: Database) -> int | None:
    """The library's row count when a compaction is due now, else None."""
    conn: sqlite3.Connection = db.conn
    rows = int(conn.execute("SELECT count(*) FROM entities").fetchone()[0])
    if rows < COMPACT_MIN_ROWS:
        return None
    found = conn.execute("SELECT value FROM sync_state WHERE key = ?", [COMPACTED_ROWS_KEY])
    row = found.fetchone()
    try:
        compacted = int(row[0]) if row is not None else 0
    except ValueError:  # a damaged record: compacting once more costs only time
        compacted = 0
    return rows if rows >= COMPACT_GROWTH * compacted else None


def has_room(path: Path) -> bool:
    """Whether the disk holding ``path`` has room for a rewrite of it (see _ROOM_COPIES)."""
    try:
        size = path.stat().st_size
        free = shutil.disk_usage(path.parent).free
    except OSError:
        return False
    return free >= _ROOM_COPIES * size + _ROOM_MARGIN_BYTES


def rewrite(db: Database) -> None:
    """Rewrite the whole file with full pages and without free pages (``VACUUM``),
    incremental vacuum from then on; outside any transaction.

    SQLite builds the copy in a temporary database, in memory under the connection's
    ``temp_store=MEMORY``: a whole cache's size of memory (gigabytes at a million items).
    It is built in a temporary file instead.
    """
    db.execute("PRAGMA temp_store=FILE")
    try:
        db.execute("PRAGMA auto_vacuum=INCREMENTAL")
        db.execute("VACUUM")
    finally:
        db.execute("PRAGMA temp_store=MEMORY")


def note_compacted(db: Database, rows: int) -> None:
    """Note that the file was rewritten with ``rows`` rows in its library."""
    with db.atomic():
        db.execute(
            "INSERT OR REPLACE INTO sync_state (key, value) VALUES (?, ?)",
            [COMPACTED_ROWS_KEY, str(rows)],
        )
