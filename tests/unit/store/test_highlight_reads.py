"""An item's highlights and their notes are read from the links into the item, however many
highlights and notes the library holds."""

from __future__ import annotations

from pathlib import Path

import pytest

from memex_desktop.store import CacheReader, StoreWriter
from memex_desktop.store.highlights import HIGHLIGHTS_OF, NOTES_ON, cached_highlights

PAGE = {"id": "page-1", "type": "web", "title": "A page", "url": "https://example.org/a"}
HIGHLIGHT = {
    "id": "highlight-1",
    "type": "selector",
    "target_id": "page-1",
    "text": "a passage worth keeping",
    "created_at": 1_700_000_000_000,
}
NOTE = {
    "id": "note-1",
    "type": "annotation",
    "text": "why it is worth keeping",
    "reference_content_ids": ["highlight-1"],
    "created_at": 1_700_000_001_000,
}
# Many other highlights and notes, on other items: what a scan by type would walk.
OTHERS = [
    {"id": f"other-{n}", "type": "selector", "target_id": f"elsewhere-{n}", "text": "x"}
    for n in range(200)
]


@pytest.fixture
def reader(tmp_path: Path) -> CacheReader:
    path = tmp_path / "cache.db"
    with StoreWriter(path) as writer:
        writer.ingest_json([PAGE, HIGHLIGHT, NOTE, *OTHERS]).result()
    return CacheReader(path)


def test_an_items_highlights_come_with_their_notes(reader: CacheReader) -> None:
    with reader:
        found = cached_highlights(reader, "page-1")
    assert [highlight.id for highlight in found] == ["highlight-1"]
    assert found[0].note_ids == ("note-1",)


@pytest.mark.parametrize("sql", [HIGHLIGHTS_OF, NOTES_ON])
def test_the_links_into_the_item_are_read_first(reader: CacheReader, sql: str) -> None:
    with reader:
        plan = [row[-1] for row in reader.db.execute(f"EXPLAIN QUERY PLAN {sql}", ["[]", 10])]
    assert plan[0].startswith("SEARCH g USING COVERING INDEX edges_target"), plan
    assert any("entities" in step and "(id=?)" in step for step in plan), plan
