"""Caches for tests: saved items made up to fill them, written indexed or as a sync writes
them before indexing, and caches filled and indexed once for tests that read one many times."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from memex_desktop.store import CacheReader, StoreWriter, ingest, open_cache
from memex_desktop.store.schema import SCHEMA_VERSION

SAVED_AT = 1_700_000_000_000  # epoch ms: when the first made-up item was saved


# When the first of tagged_pages_library's pages was saved.
TAGGED_PAGES_T0 = 1_700_000_000_000


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
        "created_at": SAVED_AT + number * 1000,
        "title": title,
        "url": f"https://example.com/{number}",
        "full_text": full_text,
        **more,
    }


def tag(name: str) -> dict[str, Any]:
    """The tag called ``name``, as the server lists it (its id is "tag-" and the name)."""
    return {"id": f"tag-{name}", "name": name}


def tweet(number: int, text: str, **more: Any) -> dict[str, Any]:
    """A saved tweet numbered ``number`` (id "tweet-NN"), saved ``number`` minutes after
    SAVED_AT."""
    return {
        "id": f"tweet-{number:02d}",
        "type": "twitter",
        "created_at": SAVED_AT + number * 60_000,
        "url": f"https://x.com/someone/status/{1000 + number}",
        "author_name": "Some One",
        "text": text,
        **more,
    }


def page(number: int, title: str, **more: Any) -> dict[str, Any]:
    """A saved web page numbered ``number`` (id "page-NN"), saved half a minute after the
    tweet of the same number."""
    return {
        "id": f"page-{number:02d}",
        "type": "web",
        "created_at": SAVED_AT + number * 60_000 + 30_000,
        "url": f"https://pages.example/{number}",
        "title": title,
        **more,
    }


def write_indexed(
    path: Path,
    items: Sequence[dict[str, Any]],
    *,
    tags: Sequence[dict[str, Any]] = (),
    deleted: Sequence[str] = (),
) -> None:
    """``items`` in the cache at ``path``, ``deleted`` of them deleted upstream, all indexed."""
    writer = StoreWriter(path)
    try:
        writer.ingest_json(items, tags=tags).result()
        if deleted:
            writer.mark_deleted_upstream(deleted).result()
        writer.flush_index().result()
    finally:
        writer.close()


def write_unindexed(
    path: Path,
    items: Sequence[dict[str, Any]],
    *,
    tags: Sequence[dict[str, Any]] = (),
    deleted: Sequence[str] = (),
) -> None:
    """``items`` in the cache at ``path`` as a sync page is written, before the index has
    taken them in; ``deleted`` of them deleted upstream."""
    db = open_cache(path)
    with db.conn:
        ingest.apply_page(db, ingest.prepare_page(items, tags=tags), now_ms=0)
        if deleted:
            ingest.mark_deleted_upstream(db, deleted, SAVED_AT)
    db.close()


def put_back_in_backlog(path: Path, where: str = "") -> None:
    """Put the indexed rows of the cache at ``path`` (those ``where`` keeps, an SQL condition
    on entities, when given) back in the index's backlog, as a crash or a new index leaves
    them."""
    conn = sqlite3.connect(path)
    try:
        with conn:
            conn.execute(
                "INSERT OR IGNORE INTO fts_pending (rowid) SELECT rowid FROM entities"
                + (f" WHERE {where}" if where else "")
            )
    finally:
        conn.close()


def processed_item(entity_id: str, kind: str, at: int, **fields: Any) -> dict[str, Any]:
    """The saved item ``entity_id`` of type ``kind``, created and last changed at ``at``
    (epoch ms), that the server has finished processing."""
    return {
        "id": entity_id,
        "type": kind,
        "created_at": at,
        "updated_at": at,
        "metadata": {"status": "indexing-done"},
        **fields,
    }


def tagged_pages_library(carries: dict[str, list[str]], tags: dict[str, str]) -> dict[str, Any]:
    """A search page of web pages, one per item id of ``carries``, each carrying the tag ids
    given there (``tags``: every tag's name by id), a minute apart, processed."""
    results = [
        {
            "id": item,
            "type": "web",
            "title": f"Page {item}",
            "url": f"https://example.org/{item}",
            "created_at": TAGGED_PAGES_T0 + number * 60_000,
            "updated_at": TAGGED_PAGES_T0 + number * 60_000,
            "tag_ids": item_tags,
            "metadata": {"status": "indexing-done"},
        }
        for number, (item, item_tags) in enumerate(carries.items())
    ]
    return {
        "results": results,
        "referencedTags": [{"id": tag, "name": name} for tag, name in tags.items()],
        "referencesByResultId": {},
        "extraEntities": [],
        "referencedEntities": [],
        "meta": {},
    }
