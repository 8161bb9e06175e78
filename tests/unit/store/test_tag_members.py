"""Each tag's items by rowid (tag_members) hold exactly the links of entity_tags to cached
items: after the migration that builds them, as items and links arrive in either order, as
links go, and after a kill -9 midway through the migration."""

from __future__ import annotations

import sqlite3
import textwrap
from pathlib import Path
from typing import Any

from support.caches import as_schema_8, web_item
from support.children import python_child

from memex_desktop.store import CacheReader, StoreWriter
from memex_desktop.store.schema import SCHEMA_VERSION

ITEMS = 400
TAGS = [{"id": f"tag-{index}", "name": f"t{index}"} for index in range(4)]


def _entity(number: int, tags: list[str] | None = None) -> dict[str, Any]:
    tag_ids = tags if tags is not None else [f"tag-{number % 4}", f"tag-{number % 3}"]
    return web_item(number, f"Item {number}", f"words of item {number}", tag_ids=tag_ids)


def _cache(path: Path) -> None:
    with StoreWriter(path) as writer:
        entities = [_entity(number) for number in range(ITEMS)]
        writer.ingest_json(entities, tags=TAGS).result()
        writer.flush_index().result()


def _members(path: Path) -> set[tuple[str, int]]:
    conn = sqlite3.connect(path)
    try:
        return set(conn.execute("SELECT tag_id, entity_rowid FROM tag_members"))
    finally:
        conn.close()


def _links(path: Path) -> set[tuple[str, int]]:
    """What tag_members must hold: every link of a cached item, by the item's rowid."""
    conn = sqlite3.connect(path)
    try:
        return set(
            conn.execute(
                "SELECT t.tag_id, e.rowid FROM entity_tags t JOIN entities e ON e.id = t.entity_id"
            )
        )
    finally:
        conn.close()


def _tagged(path: Path, tag: str) -> list[str]:
    with CacheReader(path) as reader:
        return reader.search_ids(f"#{tag}", limit=ITEMS)


def _expected(tag_index: int) -> list[str]:
    return [f"item-{n:04d}" for n in reversed(range(ITEMS)) if tag_index in (n % 4, n % 3)]


def test_an_older_cache_gains_a_member_for_every_link(tmp_path: Path) -> None:
    path = tmp_path / "cache.db"
    _cache(path)
    as_schema_8(path)
    with StoreWriter(path):
        pass
    assert len(_links(path)) > ITEMS
    assert _members(path) == _links(path)
    for index in range(4):
        assert _tagged(path, f"t{index}") == _expected(index)


def test_a_link_written_before_its_item_counts_once_the_item_arrives(tmp_path: Path) -> None:
    path = tmp_path / "cache.db"
    _cache(path)
    conn = sqlite3.connect(path)
    conn.execute("INSERT INTO entity_tags (entity_id, tag_id) VALUES ('item-9000', 'tag-1')")
    conn.commit()
    conn.close()
    assert "item-9000" not in _tagged(path, "t1")
    with StoreWriter(path) as writer:
        writer.ingest_json([_entity(9000, ["tag-1"])]).result()
    assert _tagged(path, "t1")[0] == "item-9000"
    assert _members(path) == _links(path)


def test_a_tag_taken_off_an_item_no_longer_finds_it(tmp_path: Path) -> None:
    path = tmp_path / "cache.db"
    _cache(path)
    assert "item-0005" in _tagged(path, "t2")  # 5 % 3 == 2
    with StoreWriter(path) as writer:
        writer.ingest_json([_entity(5, ["tag-1"])]).result()
    assert "item-0005" not in _tagged(path, "t2")
    assert "item-0005" in _tagged(path, "t1")
    assert _members(path) == _links(path)


_MIGRATING_CHILD = textwrap.dedent(
    """
    import sys, time
    from memex_desktop.store import schema

    build = schema.MIGRATIONS[8]
    steps = []

    def frozen_midway(db):
        def progress():
            steps.append(1)
            if len(steps) == 5:
                print("midway", flush=True)
                time.sleep(600)
            return 0
        db.conn.set_progress_handler(progress, 100)
        build(db)

    schema.MIGRATIONS[8] = frozen_midway
    schema.open_cache(schema.Path(sys.argv[1]))
    """
)


def test_kill_9_midway_through_the_migration_leaves_a_cache_that_migrates_next_time(
    tmp_path: Path,
) -> None:
    path = tmp_path / "cache.db"
    _cache(path)
    as_schema_8(path)
    with python_child(_MIGRATING_CHILD, str(path)) as child:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == b"midway"
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA user_version").fetchone() == (8,)
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert not conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'tag_members'").fetchall()
    finally:
        conn.close()
    assert _tagged(path, "t3") == _expected(3)  # the reader migrates it
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,)
    finally:
        conn.close()
    assert _members(path) == _links(path)
