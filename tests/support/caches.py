"""Caches filled and indexed once, for tests that read one cache many times."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path

from memex_desktop.store import CacheReader, StoreWriter
from memex_desktop.store.schema import SCHEMA_VERSION


def indexed_reader(path: Path, fill: Callable[[StoreWriter], object]) -> Iterator[CacheReader]:
    """A reader on the cache at ``path`` once ``fill`` wrote it and every row is indexed; closed
    when the generator is (use with ``yield from`` in a fixture)."""
    writer = StoreWriter(path)
    try:
        fill(writer)
        writer.flush_index().result()
    finally:
        writer.close()
    reader = CacheReader(path)
    yield reader
    reader.close()


def without_tag_members(conn: sqlite3.Connection) -> None:
    """Undo schema version 9 (tag_members and the triggers keeping it) on ``conn``: a step of
    turning a current cache into an older one."""
    for trigger in ("linked", "unlinked", "relinked", "cached"):
        conn.execute(f"DROP TRIGGER tag_members_{trigger}")
    conn.execute("DROP TABLE tag_members")


def as_schema_8(path: Path) -> None:
    """Turn the current cache at ``path`` into one schema 8 wrote (before tag_members)."""
    conn = sqlite3.connect(path)
    try:
        without_tag_members(conn)
        conn.execute("PRAGMA user_version = 8")
        conn.commit()
    finally:
        conn.close()


def as_newer_schema(path: Path) -> None:
    """Mark the database at ``path`` (created when missing) as written by a newer version."""
    conn = sqlite3.connect(path)
    try:
        conn.execute("CREATE TABLE IF NOT EXISTS future (x)")
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
        conn.commit()
    finally:
        conn.close()


def web_item(number: int, title: str, full_text: str, **more: object) -> dict[str, object]:
    """A saved web page numbered ``number``: the larger the number, the newer the item."""
    return {
        "id": f"item-{number:04d}",
        "type": "web",
        "created_at": 1_700_000_000_000 + number * 1000,
        "title": title,
        "url": f"https://example.com/{number}",
        "full_text": full_text,
        **more,
    }
