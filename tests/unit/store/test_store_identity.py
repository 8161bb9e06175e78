"""Items known by two ids (library row and content): keyed by one, resolvable by either."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from support.caches import without_tag_members

from memex_desktop.api.models import SearchRawPage
from memex_desktop.store import CacheReader, StoreWriter, open_cache


def _page(results: list[dict], **extra: object) -> SearchRawPage:
    return SearchRawPage.model_validate({"results": results, **extra})


def test_item_is_keyed_by_its_content_id_and_found_by_either(
    writer: StoreWriter, reader: CacheReader
) -> None:
    writer.ingest_search_page(
        _page([{"id": "ul-1", "content_id": "c-1", "type": "web", "title": "Compost"}])
    ).result()
    assert reader.all_ids() == ["c-1"]
    assert reader.get("ul-1") is not None
    assert reader.get("ul-1").id == "c-1"  # type: ignore[union-attr]
    assert (reader.raw_json("ul-1") or {})["userLibraryId"] == "ul-1"
    assert reader.canonical_ids(["ul-1", "c-1", "nope"]) == {"ul-1": "c-1"}


def test_note_naming_its_page_by_library_id_is_attached_to_the_page(
    writer: StoreWriter, reader: CacheReader
) -> None:
    # The page arrives first; a later page's note names it by its library row id.
    writer.ingest_search_page(
        _page([{"id": "ul-1", "content_id": "c-1", "type": "web", "title": "Compost"}])
    ).result()
    note = {
        "id": "ul-2",
        "content_id": "n-1",
        "type": "annotation",
        "text": "worms",
        "reference_content_ids": ["ul-1"],
    }
    writer.ingest_search_page(_page([note])).result()
    assert [link.source.id for link in reader.backlinks("c-1")] == ["n-1"]


def test_edges_naming_an_alias_move_when_the_item_arrives(
    writer: StoreWriter, reader: CacheReader
) -> None:
    # The note comes first and names a page nobody has seen under any id yet.
    note = {"id": "n-1", "type": "annotation", "text": "w", "reference_content_ids": ["ul-1"]}
    writer.ingest_search_page(_page([note])).result()
    writer.ingest_search_page(
        _page([{"id": "ul-1", "content_id": "c-1", "type": "web", "title": "Compost"}])
    ).result()
    assert [link.source.id for link in reader.backlinks("c-1")] == ["n-1"]


def test_references_by_result_id_keyed_by_library_id(
    writer: StoreWriter, reader: CacheReader
) -> None:
    page = _page(
        [
            {"id": "ul-1", "content_id": "c-1", "type": "web", "title": "Compost"},
            {"id": "ul-2", "content_id": "n-1", "type": "annotation", "text": "w"},
        ],
        referencesByResultId={"ul-2": {"contentEntityIds": ["c-1"]}},
    )
    assert set(page.references_by_result_id) == {"n-1"}
    writer.ingest_search_page(page).result()
    assert [link.source.id for link in reader.backlinks("c-1")] == ["n-1"]


def test_migration_rekeys_rows_cached_under_their_library_id(tmp_path: Path) -> None:
    path = tmp_path / "cache.db"
    db = open_cache(path)
    db.close()
    conn = sqlite3.connect(path)
    # A cache written before items were keyed by content id, at schema version 2.
    for later in (
        "entity_aliases", "feed_members", "feed_listings", "reading_positions",
        "json_dictionaries", "pack_pending", "body_terms",
    ):  # fmt: skip
        conn.execute(f"DROP TABLE {later}")  # tables of schema versions 3 and later
    without_tag_members(conn)
    conn.execute("PRAGMA user_version = 2")
    conn.execute(
        "INSERT INTO entities (rowid, id, type, raw_hash, cached_at)"
        " VALUES (7, 'ul-1', 'web', 'h', 0)"
    )
    conn.execute(
        "INSERT INTO entity_raw (rowid, raw) VALUES "
        """(7, '{"id": "ul-1", "content_id": "c-1", "type": "web"}')"""
    )
    conn.execute("INSERT INTO edges (source, target, kind) VALUES ('n-1', 'ul-1', 'annotates')")
    conn.commit()
    conn.close()
    open_cache(path).close()
    with CacheReader(path) as reader:
        assert reader.all_ids() == ["c-1"]
        assert reader.canonical_ids(["ul-1"]) == {"ul-1": "c-1"}
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("SELECT source, target FROM edges").fetchall() == [("n-1", "c-1")]
    finally:
        conn.close()
