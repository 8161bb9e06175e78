"""The sidebar shows every entry's count whole, however narrow it is (the name gives way), and
says how many tags it leaves out."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QFontMetrics
from support.window import WindowFactory

from memex_desktop.store import CacheReader, StoreWriter
from memex_desktop.ui import search_controller, sidebar
from memex_desktop.ui.sidebar import COUNT_GAP, Sidebar, SidebarModel, entry_layout

pytestmark = [pytest.mark.gui, pytest.mark.qt_log_ignore("propagateSizeHints")]

ITEMS = 1234
TAG = {"id": "tag-long", "name": "a tag whose name is far too long for any sidebar"}


@pytest.fixture
def reader(tmp_path: Path) -> Iterator[CacheReader]:
    """A cache of ITEMS web pages, each carrying TAG."""
    path = tmp_path / "cache.db"
    with StoreWriter(path) as writer:
        entities = [
            {
                "id": f"web-{n}",
                "type": "web",
                "title": f"Page {n}",
                "url": f"https://example.org/{n}",
                "created_at": 1_700_000_000_000 + n,
                "tag_ids": [TAG["id"]],
            }
            for n in range(ITEMS)
        ]
        writer.ingest_json(entities, tags=[TAG]).result()
    opened = CacheReader(path)
    yield opened
    opened.close()


def _entry(sidebar: Sidebar, section: str, name: str) -> Any:
    parent = sidebar.sidebar_model.section(section)
    for row in range(parent.rowCount()):
        child = parent.child(row)
        if child.data(SidebarModel.NameRole) == name:
            return child
    raise AssertionError(f"no entry {name!r} in {section}")


def test_a_narrow_entry_shortens_its_name_and_keeps_its_count(qtbot: Any) -> None:
    narrow = Sidebar(None, read_now=False)
    qtbot.addWidget(narrow)
    metrics = QFontMetrics(narrow.font())
    room = QRect(0, 0, 120, 20)
    shown, name_room, number = entry_layout(room, metrics, "All items in the library", 1_000_000)
    assert number == "1,000,000"
    assert shown.endswith("…")
    assert shown != "All items in the library"
    assert metrics.horizontalAdvance(shown) <= name_room.width()
    assert name_room.right() + COUNT_GAP + metrics.horizontalAdvance(number) <= room.right()
    wide = QRect(0, 0, 600, 20)
    assert entry_layout(wide, metrics, "All items", 1_000_000)[0] == "All items"


def test_the_sidebar_names_and_counts_every_entry(qtbot: Any, reader: CacheReader) -> None:
    shown = Sidebar(reader)
    qtbot.addWidget(shown)
    shown.resize(140, 400)
    shown.show()
    qtbot.waitExposed(shown)
    every = _entry(shown, "library", "All items")
    assert every.data(SidebarModel.CountRole) == ITEMS
    assert every.text() == f"All items  ({ITEMS:,})"  # what a screen reader reads
    assert every.data(Qt.ItemDataRole.AccessibleTextRole) == every.text()
    tag = _entry(shown, "tags", TAG["name"])
    assert tag.data(SidebarModel.CountRole) == ITEMS
    assert tag.toolTip() == f"{TAG['name']}: {ITEMS:,}"  # the whole name, where it is cut
    # The tag's row is too narrow for its name: the name is what gives way.
    rect = shown.visualRect(tag.index())
    name, _room, number = entry_layout(rect, shown.fontMetrics(), TAG["name"], ITEMS)
    assert number == f"{ITEMS:,}"
    assert name.endswith("…")
    assert not shown.grab().isNull()  # the delegate paints every kind of row


def test_tags_left_out_are_counted_and_the_filter_offers_the_most_used(
    window_factory: WindowFactory,
    demo_library: dict[str, Any],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sidebar, "MAX_TAGS_SHOWN", 3)
    monkeypatch.setattr(search_controller, "FILTER_TAGS", 2)
    context = window_factory(library=demo_library)
    window = context.window
    every = sorted(context.reader.tags(), key=lambda tag: (-tag.count, tag.name.lower()))
    assert len(every) > 3
    section = window.sidebar.sidebar_model.section("tags")
    rows = [section.child(row) for row in range(section.rowCount())]
    assert [row.data(SidebarModel.NameRole) for row in rows[:-1]] == [t.name for t in every[:3]]
    note = rows[-1]
    assert note.text() == f"{len(every) - 3:,} more tags"
    assert "tag:name" in note.toolTip()
    assert not note.isSelectable()
    assert not note.isEnabled()
    combo = window.search_bar.tags
    offered = [combo.itemText(i) for i in range(1, combo.count())]
    assert offered == sorted((t.name for t in every[:2]), key=str.lower)
