"""Ingest of raw search pages: nested entities, edges, tags, idempotence."""

from __future__ import annotations

import json
from pathlib import Path

from memex_desktop.api.models import SearchRawResponse, View
from memex_desktop.emulator.synthetic import generate_library
from memex_desktop.store import CacheReader, StoreWriter
from memex_desktop.store.state_keys import STATE_LAST_SYNC_MS

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "store"


def _raw_page() -> SearchRawResponse:
    data = json.loads((FIXTURES / "raw_example.json").read_text(encoding="utf-8"))
    return SearchRawResponse.model_validate(data)


def test_raw_example_nested_entities_and_edges(writer: StoreWriter, reader: CacheReader) -> None:
    changes = writer.ingest_search_page(_raw_page()).result()
    assert changes.entity_ids == {"page-1", "note-1", "annotation-ref-1", "page-2"}
    assert changes.edges_changed
    assert [link.source.id for link in reader.backlinks("page-1")] == ["note-1"]
    assert reader.backlinks("page-1")[0].kind == "annotates"
    around = reader.neighbourhood("note-1", hops=1)
    kinds = {(edge.source, edge.target, edge.kind) for edge in around.edges}
    assert ("note-1", "page-1", "annotates") in kinds
    assert ("note-1", "annotation-ref-1", "references") in kinds
    assert "annotations" not in (reader.raw_json("page-1") or {})


def test_same_page_twice_changes_nothing(writer: StoreWriter) -> None:
    assert writer.ingest_search_page(_raw_page()).result()
    second = writer.ingest_search_page(_raw_page()).result()
    assert not second
    assert second.entity_ids == frozenset()


def _library_page(library: dict, start: int, size: int) -> SearchRawResponse:
    page = library["results"][start : start + size]
    refs = library["referencesByResultId"]
    return SearchRawResponse.model_validate(
        {
            "results": page,
            "referencesByResultId": {e["id"]: refs[e["id"]] for e in page if e["id"] in refs},
            "referencedTags": library["referencedTags"],
            "meta": {"offset": start, "limit": size},
        }
    )


def test_generated_library_round_trip(writer: StoreWriter, reader: CacheReader) -> None:
    library = generate_library(300, seed=3, words_per_entity=60)
    for start in range(0, 300, 100):
        writer.ingest_search_page(_library_page(library, start, 100)).result()
    writer.upsert_views([View.model_validate(view) for view in library["views"]]).result()
    assert sorted(reader.all_ids()) == sorted(e["id"] for e in library["results"])
    assert {tag.id for tag in reader.tags()} == {t["id"] for t in library["referencedTags"]}
    assert sum(reader.counts_by_type().values()) == 300
    again = [
        writer.ingest_search_page(_library_page(library, start, 100)).result()
        for start in range(0, 300, 100)
    ]
    assert not any(again)
    note = next(e for e in library["results"] if e["type"] == "annotation")
    assert reader.entity(note["id"]) is not None
    assert reader.get(note["id"]) is not None


def test_changed_entity_is_rewritten_and_reindexed(
    writer: StoreWriter, reader: CacheReader
) -> None:
    base = {"id": "w1", "type": "web", "title": "Old title", "full_text": "alpha", "updated_at": 1}
    writer.ingest_json([base]).result()
    changed = writer.ingest_json([{**base, "title": "New", "full_text": "beta", "updated_at": 2}])
    assert changed.result().entity_ids == {"w1"}
    assert reader.search_ids("alpha") == []
    assert reader.search_ids("beta") == ["w1"]


def test_deleted_upstream_is_kept_and_listed(writer: StoreWriter, reader: CacheReader) -> None:
    writer.ingest_json([{"id": "gone", "type": "web", "title": "Gone"}]).result()
    assert writer.mark_deleted_upstream(["gone"]).result().deleted_ids == {"gone"}
    assert not writer.mark_deleted_upstream(["gone"]).result()
    assert [row.id for row in reader.deleted_upstream()] == ["gone"]
    assert reader.search_ids("gone") == []
    assert reader.search_ids("gone", include_deleted=True) == ["gone"]


def test_sync_state_round_trip(writer: StoreWriter, reader: CacheReader) -> None:
    writer.set_sync_state(STATE_LAST_SYNC_MS, "1700000000000").result()
    assert reader.sync_state(STATE_LAST_SYNC_MS) == "1700000000000"
    assert reader.stats().last_sync_at == 1700000000000


def test_json_without_a_utf8_or_64_bit_form_is_kept_exactly(
    writer: StoreWriter, reader: CacheReader
) -> None:
    # Both are legal JSON: an escaped lone surrogate and an integer beyond 64 bits.
    odd = {"id": "odd", "type": "web", "title": "half \ud83d pair", "size": 10**30}
    plain = {"id": "plain", "type": "web", "title": "caf\u00e9 \u2603"}
    writer.ingest_json([odd, plain]).result()
    assert reader.raw_json("odd") == odd
    assert reader.raw_json("plain") == plain
    assert not writer.ingest_json([odd, plain]).result()  # same JSON, same hash: no change


def test_counts_by_type_leave_out_items_deleted_upstream(
    writer: StoreWriter, reader: CacheReader
) -> None:
    library = generate_library(300, seed=3, words_per_entity=20)
    for start in range(0, 300, 100):
        writer.ingest_search_page(_library_page(library, start, 100)).result()
    counted = {}
    for entity in library["results"]:
        counted[entity["type"]] = counted.get(entity["type"], 0) + 1
    assert reader.counts_by_type() == counted
    tweets = [e["id"] for e in library["results"] if e["type"] == "twitter"]
    every_pdf = [e["id"] for e in library["results"] if e["type"] == "pdf"]
    writer.mark_deleted_upstream([tweets[0], *every_pdf]).result()
    after = reader.counts_by_type()
    assert after["twitter"] == counted["twitter"] - 1
    assert "pdf" not in after  # a type with nothing live left is not listed
    assert {kind: n for kind, n in after.items() if kind != "twitter"} == {
        kind: n for kind, n in counted.items() if kind not in ("twitter", "pdf")
    }
