"""Recency-ordered search indexes: newest first for common words, migration from version 1,
re-indexing when the text extraction changes, updates of rows indexed in the background."""

from __future__ import annotations

import itertools
import json
import sqlite3
from pathlib import Path

from sqlite_utils import Database

from memex_desktop.store import SCHEMA_VERSION, CacheReader, StoreWriter, open_cache
from memex_desktop.store.schema import FTS_FINGERPRINT_KEY, KEY_STEP, MIGRATIONS

T = 1_700_000_000_000


def _page(count: int, word: str, *, start: int = 0) -> list[dict]:
    # Oldest first on purpose: keys must follow created_at, not arrival order.
    return [
        {"id": f"{word}{i}", "type": "web", "title": f"Item {i}", "created_at": T + i * 1000,
         "full_text": f"{word} filler text number{i}"}
        for i in range(start, start + count)
    ]  # fmt: skip


def test_common_word_lists_newest_first(writer: StoreWriter, reader: CacheReader) -> None:
    writer.ingest_json(_page(700, "common")).result()
    writer.flush_index().result()
    assert reader.search_ids("common", limit=5) == [f"common{i}" for i in range(699, 694, -1)]
    hits = reader.search("common", limit=3, offset=2)
    assert [hit.id for hit in hits] == ["common697", "common696", "common695"]
    assert all("\x02common\x03" in hit.snippet for hit in hits)
    assert reader.search_ids("number17 ") == ["common17"]


def test_items_arriving_out_of_order_keep_recency(writer: StoreWriter, reader: CacheReader) -> None:
    items = _page(400, "mixed")
    # Newer ones, then older ones, then a few from between, then the newest.
    for chunk in (items[200:395], items[:100], items[100:106], items[395:]):
        writer.ingest_json(chunk).result()
    writer.flush_index().result()
    newest = reader.search_ids("mixed", limit=400)
    assert newest[:3] == ["mixed399", "mixed398", "mixed397"]
    present = [f"mixed{i}" for i in (*range(395, -1, -1),) if i < 106 or i >= 200]
    assert [entity_id for entity_id in newest if entity_id in present] == present[: len(newest)]
    assert reader.search_ids("", limit=2) == ["mixed399", "mixed398"]


def test_update_of_a_row_indexed_in_the_background(
    writer: StoreWriter, reader: CacheReader
) -> None:
    writer.ingest_json(_page(120, "bulk")).result()
    writer.flush_index().result()
    changed = {**_page(1, "bulk", start=5)[0], "full_text": "replacement words", "updated_at": 9}
    assert writer.ingest_json([changed]).result().entity_ids == {"bulk5"}
    assert reader.search_ids("number5 ") == []
    assert reader.search_ids("replacement") == ["bulk5"]
    assert len(reader.search_ids("bulk", limit=1000)) == 119


def test_stale_fingerprint_rebuilds_the_indexes(cache_path: Path) -> None:
    with StoreWriter(cache_path) as writer:
        writer.ingest_json(_page(30, "kept")).result()
        writer.set_sync_state(FTS_FINGERPRINT_KEY, "extract-0/older").result()
    with StoreWriter(cache_path) as writer:
        writer.flush_index().result()
    with CacheReader(cache_path) as reader:
        assert len(reader.search_ids("kept", limit=100)) == 30
        assert reader.search_ids("number7 ") == ["kept7"]
        assert reader.sync_state(FTS_FINGERPRINT_KEY) != "extract-0/older"


def test_version_1_cache_is_migrated_and_searchable(tmp_path: Path) -> None:
    path = tmp_path / "cache.db"
    db = Database(sqlite3.connect(str(path)))
    MIGRATIONS[0](db)
    db.execute("PRAGMA user_version = 1")
    for i in range(3):
        data = {"id": f"old{i}", "type": "web", "title": f"Old {i}", "created_at": T + i,
                "full_text": f"legacy body {i}"}  # fmt: skip
        db.execute(
            "INSERT INTO entities (id, type, title, created_at, raw, raw_hash, cached_at) "
            "VALUES (?, 'web', ?, ?, ?, 'h', 0)",
            [data["id"], data["title"], data["created_at"], json.dumps(data)],
        )
    db.conn.commit()
    db.close()
    with StoreWriter(path) as writer:
        writer.flush_index().result()
    with CacheReader(path) as reader:
        assert sorted(reader.search_ids("legacy")) == ["old0", "old1", "old2"]
        assert reader.search_ids("") == ["old2", "old1", "old0"]
        assert reader.raw_json("old1") == {
            "id": "old1", "type": "web", "title": "Old 1", "created_at": T + 1,
            "full_text": "legacy body 1",
        }  # fmt: skip
    reopened = open_cache(path)
    try:
        assert reopened.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert reopened.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        reopened.close()


def test_keys_stay_unique_when_gaps_run_out(writer: StoreWriter, reader: CacheReader) -> None:
    items = _page(300, "dense")
    # Alternate ends and middles so that gaps are exhausted and items land on top.
    order = [*items[::7], *items[3::7], *items[1::7], *items[5::7], *items[2::7], *items[4::7]]
    order += items[6::7]
    for start in range(0, len(order), 13):
        writer.ingest_json(order[start : start + 13]).result()
    writer.flush_index().result()
    assert sorted(reader.search_ids("dense", limit=1000)) == sorted(i["id"] for i in items)
    assert reader.search_ids("", limit=3) == ["dense299", "dense298", "dense297"]


def test_sync_order_with_older_items_arriving_early_keeps_recency(
    writer: StoreWriter, reader: CacheReader
) -> None:
    # Like a full sync: pages newest first, each also carrying a few much older items its
    # notes point at, which arrive long before their own page.
    items = _page(600, "synced")
    newest_first = items[::-1]
    early = [item for item in items if int(item["id"][6:]) % 37 == 3]
    sent: set[str] = set()
    for start in range(0, 600, 50):
        page = [item for item in newest_first[start : start + 50] if item["id"] not in sent]
        page += [item for item in early if item["id"] not in sent and item not in page][-4:]
        sent.update(item["id"] for item in page)
        writer.ingest_json(page).result()
    writer.flush_index().result()
    assert reader.search_ids("synced", limit=1000) == [f"synced{i}" for i in range(599, -1, -1)]


def test_gaps_looked_up_at_once_match_one_probe_each(tmp_path: Path) -> None:
    from memex_desktop.store.recency import _gap, _Neighbours

    db = open_cache(tmp_path / "cache.db")
    # Dates with repeats and a hole, so probes land on equal dates and between rows.
    dates = [T + (i // 3) * 1000 for i in range(60)] + [T + 500_000]
    with db.conn:
        db.conn.executemany(
            "INSERT INTO entities (rowid, id, type, title, created_at, raw_hash, complete,"
            " cached_at) VALUES (?, ?, 'web', '', ?, '', 1, 0)",
            [(1000 + 10 * i, f"e{i}", date) for i, date in enumerate(dates)],
        )
    probes = [T - 1, T, T + 1, T + 999, T + 1000, T + 19_500, T + 400_000, T + 500_000, None]
    neighbours = _Neighbours(db)
    neighbours.look_up(probes)
    for probe in probes:
        expected = _gap(db, probe)
        if probe is not None and T <= probe < T + 500_000:
            assert probe in neighbours._known  # answered by the one statement
            assert neighbours.gap(probe) == expected, probe


def test_a_full_sync_keeps_recency_after_its_first_page_carried_the_oldest_item(
    writer: StoreWriter, reader: CacheReader
) -> None:
    # A note on the first page points at the oldest item of the library, which arrives at
    # once; every later page then falls between it and the first page's items. Those pages
    # must find room by their dates, not share out an ever smaller gap between them.
    items = _page(3000, "spanned")
    newest_first = items[::-1]
    writer.ingest_json([*newest_first[:100], items[0]]).result()
    for start in range(100, 2999, 100):
        writer.ingest_json(newest_first[start : start + 100]).result()
    writer.flush_index().result()
    assert reader.search_ids("spanned", limit=3000) == [f"spanned{i}" for i in range(2999, -1, -1)]
    # And room is left between every two items, as a sync in date order leaves it, for the
    # items that arrive later from between them.
    keys = [row[0] for row in reader.db.execute("SELECT rowid FROM entities ORDER BY created_at")]
    assert min(b - a for a, b in itertools.pairwise(keys)) >= KEY_STEP // 2


def test_a_first_page_spread_over_the_library_leaves_room_for_the_rest(
    writer: StoreWriter, reader: CacheReader
) -> None:
    # A first page whose items lie a day apart (notes pointing all over the library, or a
    # server that pages in another order than by date), then the library between them, 96
    # items a day, newest first. Spaced by the first page's median gap, a day of items had
    # 64 keys; the rest went above every key, the oldest of them listed as the newest.
    day, quarter = 86_400_000, 900_000
    first = [{"id": f"day{k}", "type": "web", "title": f"Day {k}", "created_at": T + k * day,
              "full_text": "spread filler"} for k in range(30)]  # fmt: skip
    rest = [
        {
            "id": f"q{j}",
            "type": "web",
            "title": f"Quarter {j}",
            "created_at": T + j * quarter,
            "full_text": "spread filler",
        }
        for j in range(30 * 96)
        if j % 96
    ]
    writer.ingest_json(first).result()
    rest.reverse()
    for start in range(0, len(rest), 100):
        writer.ingest_json(rest[start : start + 100]).result()
    writer.flush_index().result()
    newest_first = sorted(first + rest, key=lambda item: -item["created_at"])
    assert reader.search_ids("spread", limit=5000) == [item["id"] for item in newest_first]
