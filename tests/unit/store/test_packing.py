"""Stored JSON packed with zstd: every item reads back the same, plain and packed rows live
side by side, and a cache of the schema before packing is packed in place, surviving kill -9."""

from __future__ import annotations

import json
import sqlite3
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest
import zstandard
from sqlite_utils import Database
from support.caches import without_tag_members
from support.children import python_child

from memex_desktop.emulator.synthetic import generate_library
from memex_desktop.store import CacheReader, StoreWriter, ingest, packing
from memex_desktop.store.errors import DatabaseCorruptError
from memex_desktop.store.extract import NESTED_KEYS
from memex_desktop.store.packing import TRAIN_AFTER_ROWS, codec_of
from memex_desktop.store.schema import SCHEMA_VERSION

ITEMS = TRAIN_AFTER_ROWS + 300
PAGE = 100


def _odd_items() -> list[dict[str, Any]]:
    """Items whose JSON only the json module writes, or that stretch what text can hold."""
    return [
        {"id": "odd-surrogate", "type": "note", "text": "half a pair \ud800 here"},
        {"id": "odd-bigint", "type": "note", "text": "big", "count": 2**70},
        {"id": "odd-unicode", "type": "note", "text": "Ünïcödé 漢字 🙂 zwnj\u200c end"},
        {"id": "odd-nested", "type": "web", "title": "Nested", "meta": {"a": [1, {"b": None}]}},
        {"id": "odd-empty", "type": "note", "text": ""},
    ]


@pytest.fixture(scope="module")
def library_items() -> list[dict[str, Any]]:
    generated = generate_library(ITEMS, seed=3, words_per_entity=60)["results"]
    return [*generated, *_odd_items()]


def _ingest(path: Path, items: list[dict[str, Any]]) -> None:
    with StoreWriter(path) as writer:
        for start in range(0, len(items), PAGE):
            writer.ingest_json(items[start : start + PAGE]).result(60)
        writer.flush_index().result(60)
        writer.pack_now().result(60)


def _rows(path: Path, sql: str) -> list[tuple[Any, ...]]:
    """The rows of ``sql`` read through a read-only connection of its own."""
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


def _raw_column_types(path: Path) -> dict[str, int]:
    return dict(_rows(path, "SELECT typeof(raw), count(*) FROM entity_raw GROUP BY 1"))


def _every_item(path: Path) -> dict[str, Any]:
    with CacheReader(path) as reader:
        return {entity_id: reader.raw_json(entity_id) for entity_id in reader.all_ids()}


def test_every_item_reads_back_the_same_once_packed(
    tmp_path: Path, library_items: list[dict[str, Any]]
) -> None:
    path = tmp_path / "cache.db"
    _ingest(path, library_items)
    assert _raw_column_types(path) == {"blob": len(library_items)}
    stored = _every_item(path)
    expected = {
        item["id"]: {key: value for key, value in item.items() if key not in NESTED_KEYS}
        for item in library_items
    }
    assert stored == expected


def test_plain_and_packed_rows_read_alike_and_search_alike(
    tmp_path: Path, library_items: list[dict[str, Any]]
) -> None:
    path = tmp_path / "cache.db"
    with StoreWriter(path) as writer:
        # Too few items for a dictionary: stored as text, waiting to be packed.
        writer.ingest_json(library_items[:PAGE]).result(60)
        writer.flush_index().result(60)
    assert _raw_column_types(path) == {"text": PAGE}
    plain = _every_item(path)
    sought = [item for item in library_items[:PAGE:9] if item.get("title")]
    with CacheReader(path) as reader:
        plain_hits = [_phrase_hits(reader, item) for item in sought]
        plain_bounded = reader.entity_within(library_items[7]["id"], 300)
    assert all(item["id"] in hits for item, hits in zip(sought, plain_hits, strict=True))
    _ingest(path, library_items)
    assert _raw_column_types(path) == {"blob": len(library_items)}
    packed = _every_item(path)
    assert {k: packed[k] for k in plain} == plain
    with CacheReader(path) as reader:
        assert [_phrase_hits(reader, item) for item in sought] == plain_hits
        assert reader.entity_within(library_items[7]["id"], 300) == plain_bounded


def _phrase_hits(reader: CacheReader, item: dict[str, Any]) -> list[str]:
    return [hit.id for hit in reader.search(f'"{item["title"]}"', limit=50)]


def test_items_not_yet_indexed_are_found_in_their_packed_json(
    tmp_path: Path, library_items: list[dict[str, Any]]
) -> None:
    path = tmp_path / "cache.db"
    _ingest(path, library_items)
    target = next(item for item in library_items[10:] if item.get("title"))
    conn = sqlite3.connect(path)
    # Every row back in the index's backlog, which readers scan in the stored JSON.
    conn.execute("INSERT INTO body_fts (body_fts) VALUES ('delete-all')")
    conn.execute("INSERT INTO title_fts (title_fts) VALUES ('delete-all')")
    conn.execute("INSERT OR IGNORE INTO fts_pending (rowid) SELECT rowid FROM entities")
    conn.commit()
    conn.close()
    with CacheReader(path) as reader:
        found = [hit.id for hit in reader.search(f'"{target["title"]}"', limit=50)]
    assert target["id"] in found


def test_a_new_cache_gives_back_the_pages_packing_frees(
    tmp_path: Path, library_items: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    # A small cache frees fewer pages than the writer waits for before giving any back.
    monkeypatch.setattr(packing, "VACUUM_AFTER_FREE_PAGES", 16)
    path = tmp_path / "cache.db"
    _ingest(path, library_items)
    conn = sqlite3.connect(path)
    try:
        free = int(conn.execute("PRAGMA freelist_count").fetchone()[0])
        pages = int(conn.execute("PRAGMA page_count").fetchone()[0])
        (packed_bytes,) = conn.execute("SELECT sum(length(raw)) FROM entity_raw").fetchone()
    finally:
        conn.close()
    # The first rows were written plain, then packed: their pages went back.
    assert free < 16
    assert pages > 500
    json_bytes = sum(len(json.dumps(item).encode()) for item in library_items)
    assert packed_bytes < json_bytes / 2


def _as_schema_5(path: Path) -> None:
    """Turn a cache into one written before packing: plain JSON text, no packing tables."""
    db = Database(sqlite3.connect(path))
    codec = codec_of(db)
    rows = db.execute("SELECT rowid, raw FROM entity_raw").fetchall()
    plain = [(codec.text(raw).decode(), rowid) for rowid, raw in rows if isinstance(raw, bytes)]
    db.conn.executemany("UPDATE entity_raw SET raw = ? WHERE rowid = ?", plain)
    db.execute("DROP TABLE json_dictionaries")
    db.execute("DROP TABLE pack_pending")
    db.execute("DROP TABLE body_terms")
    without_tag_members(db.conn)
    db.execute("PRAGMA user_version = 5")
    db.conn.commit()
    db.execute("PRAGMA journal_mode = DELETE")
    db.execute("PRAGMA auto_vacuum = NONE")
    db.execute("VACUUM")
    db.close()


_PACKING_CHILD = textwrap.dedent(
    """
    import sys, time
    from memex_desktop.store import packing
    from memex_desktop.store.writer import StoreWriter
    packing.PACK_BATCH_ROWS = 2  # many small transactions: kill -9 lands between two
    writer = StoreWriter(sys.argv[1])
    print("open", flush=True)
    time.sleep(600)
    """
)


def _pending(path: Path) -> int:
    try:
        return int(_rows(path, "SELECT count(*) FROM pack_pending")[0][0])
    except sqlite3.OperationalError:
        return -1  # not migrated yet


def test_an_older_cache_is_packed_in_place_and_kill_9_midway_loses_nothing(
    tmp_path: Path, library_items: list[dict[str, Any]]
) -> None:
    path = tmp_path / "cache.db"
    _ingest(path, library_items)
    _as_schema_5(path)
    assert _raw_column_types(path) == {"text": len(library_items)}
    before = _every_item_read_only(path)
    with python_child(_PACKING_CHILD, str(path)) as child:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == b"open"
        deadline = time.monotonic() + 60
        while not 0 < _pending(path) < len(library_items) - 50:
            assert time.monotonic() < deadline, "packing never started"
            time.sleep(0.005)
    kinds = _raw_column_types(path)
    assert kinds.get("text", 0) > 0, kinds
    assert kinds.get("blob", 0) > 0, kinds
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert conn.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,)
    finally:
        conn.close()
    assert _every_item(path) == before  # half packed, every item reads the same
    plain_size = path.stat().st_size
    with StoreWriter(path) as writer:
        writer.pack_now().result(60)
    assert _raw_column_types(path) == {"blob": len(library_items)}
    assert _pending(path) == 0
    assert _every_item(path) == before
    # Packed, the file was rewritten once without its free pages, incremental from then on.
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA auto_vacuum").fetchone() == (2,)
        assert conn.execute("PRAGMA freelist_count").fetchone()[0] < 1024
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    finally:
        conn.close()
    assert path.stat().st_size < plain_size * 0.9


def _every_item_read_only(path: Path) -> dict[str, Any]:
    sql = "SELECT e.id, r.raw FROM entities e JOIN entity_raw r ON r.rowid = e.rowid"
    return {entity_id: json.loads(raw) for entity_id, raw in _rows(path, sql)}


def test_a_damaged_frame_or_a_missing_dictionary_is_a_damaged_cache(
    tmp_path: Path, library_items: list[dict[str, Any]]
) -> None:
    path = tmp_path / "cache.db"
    _ingest(path, library_items)
    first, second = library_items[0]["id"], library_items[1]["id"]
    conn = sqlite3.connect(path)
    (raw,) = conn.execute(
        "SELECT r.raw FROM entity_raw r JOIN entities e ON e.rowid = r.rowid WHERE e.id = ?",
        [first],
    ).fetchone()
    damaged = raw[:12] + bytes(b ^ 0x5A for b in raw[12:40]) + raw[40:]
    conn.execute(
        "UPDATE entity_raw SET raw = ? WHERE rowid = (SELECT rowid FROM entities WHERE id = ?)",
        [damaged, first],
    )
    conn.commit()
    with CacheReader(path) as reader:
        with pytest.raises(DatabaseCorruptError, match="cannot be unpacked"):
            reader.raw_json(first)
        assert reader.raw_json(second) is not None  # the other items still read
    conn.execute("DELETE FROM json_dictionaries")
    conn.commit()
    conn.close()
    with CacheReader(path) as reader, pytest.raises(DatabaseCorruptError, match="missing"):
        reader.raw_json(second)


def _frame_dictionaries(path: Path) -> set[int]:
    return {
        zstandard.get_frame_parameters(raw).dict_id
        for (raw,) in _rows(path, "SELECT raw FROM entity_raw WHERE typeof(raw) = 'blob'")
    }


def test_a_page_packed_by_its_caller_with_an_older_dictionary_is_packed_again(
    tmp_path: Path, library_items: list[dict[str, Any]]
) -> None:
    path = tmp_path / "cache.db"
    _ingest(path, library_items[:ITEMS])
    ((current,),) = _rows(path, "SELECT dict_id FROM json_dictionaries")
    samples = [json.dumps(item).encode() for item in library_items[:500]]
    other = zstandard.train_dictionary(8192, samples, k=64, d=8)
    assert other.dict_id() != current
    older = packing.PackingDictionary(other.dict_id(), other.as_bytes())
    late = [{**item, "id": f"late-{item['id']}"} for item in library_items[:50]]
    page = ingest.prepare_page(late, packing=older)
    assert all(item.packed is not None for item in page.items.values() if item.authoritative)
    with StoreWriter(path) as writer:
        writer.submit(lambda db: ingest.apply_page(db, page, now_ms=0)).result(60)
        # Handed in now, pages are packed by the caller with the dictionary in use.
        writer.ingest_json([{**late[0], "id": "later"}]).result(60)
    assert _frame_dictionaries(path) == {current}
    stored = _every_item(path)
    for item in late:
        assert stored[item["id"]] == {k: v for k, v in item.items() if k not in NESTED_KEYS}
