"""With a kind of link hidden, the graph pane reads and counts what the other kinds reach.

The read for a filter took each node's links of every kind, cut to a bound, before the
filter applied: hiding Tagged on a tag shared by thousands of items said "+700 more" of items
no link shown reaches, and hiding the notes of a page noted thousands of times left the page
alone, the items citing it crowded out by the notes. Both read from a real cache here.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.graph_pane import shown_ids, shown_pane, status_text

from memex_desktop.store import CacheReader, StoreWriter
from memex_desktop.ui.tasks import TaskRunner

pytestmark = [pytest.mark.gui, pytest.mark.qt_log_ignore("propagateSizeHints")]

HUB = 2000
CITING = {"citing0", "citing1", "citing2"}


@pytest.fixture
def reader(tmp_path: Path) -> Iterator[CacheReader]:
    """A cache with a tag on ``HUB`` items and a page with ``HUB`` notes that three cite."""
    path = tmp_path / "cache.db"
    writer = StoreWriter(path)
    try:
        members = [
            {"id": f"member{n:04d}", "type": "web", "title": f"Tagged {n}", "tag_ids": ["popular"]}
            for n in range(HUB)
        ]
        notes = [
            {"id": f"note{n:04d}", "type": "annotation", "text": f"Note {n}",
             "reference_content_ids": ["page"]}
            for n in range(HUB)
        ]  # fmt: skip
        citing = [
            {"id": name, "type": "web", "title": name, "reference_content_ids": ["page"]}
            for name in sorted(CITING)
        ]
        page = {"id": "page", "type": "web", "title": "A much noted page"}
        writer.ingest_json(
            [*members, page, *notes, *citing], tags=[{"id": "popular", "name": "popular"}]
        ).result(30)
    finally:
        writer.close()
    cache = CacheReader(path)
    yield cache
    cache.close()


def test_hiding_tags_on_a_popular_tag_counts_nothing_more(
    qtbot: Any, runner: TaskRunner, reader: CacheReader
) -> None:
    pane = shown_pane(qtbot, runner, reader, "popular")
    assert status_text(pane) == f"300 items  +{HUB - 299:,} more"

    with qtbot.waitSignal(pane.layout_finished, timeout=30_000):
        pane.set_edge_kind_shown("tag", False)
    assert shown_ids(pane) == {"popular"}
    assert status_text(pane) == f"1 item, {HUB:,} hidden by the filter"


def test_hiding_notes_shows_what_cites_the_page_and_counts_nothing_more(
    qtbot: Any, runner: TaskRunner, reader: CacheReader
) -> None:
    pane = shown_pane(qtbot, runner, reader, "page")
    assert not shown_ids(pane) & CITING  # the notes filled the budget

    with qtbot.waitSignal(pane.layout_finished, timeout=30_000):
        pane.set_edge_kind_shown("annotates", False)
    assert shown_ids(pane) == {"page", *CITING}
    assert {kind for _, _, kind in pane.drawn_edges()} == {"references"}
    assert status_text(pane) == f"4 items, {HUB:,} hidden by the filter"

    pane.set_edge_kind_shown("annotates", True)
    assert not pane.is_laying_out()  # drawn again from what was read for it, at once
    assert status_text(pane) == f"300 items  +{HUB + 3 - 299:,} more"
