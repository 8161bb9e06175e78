"""The sidebar shows every entry's count whole, however narrow it is: the name gives way."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QFontMetrics

from memex_desktop.store import CacheReader, StoreWriter
from memex_desktop.ui.sidebar import COUNT_GAP, Sidebar, SidebarModel, entry_layout

pytestmark = pytest.mark.gui

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
    sidebar = Sidebar(None, read_now=False)
    qtbot.addWidget(sidebar)
    metrics = QFontMetrics(sidebar.font())
    room = QRect(0, 0, 120, 20)
    shown, name_room, number = entry_layout(room, metrics, "All items in the library", 1_000_000)
    assert number == "1,000,000"
    assert shown.endswith("…") and shown != "All items in the library"
    assert metrics.horizontalAdvance(shown) <= name_room.width()
    assert name_room.right() + COUNT_GAP + metrics.horizontalAdvance(number) <= room.right()
    wide = QRect(0, 0, 600, 20)
    assert entry_layout(wide, metrics, "All items", 1_000_000)[0] == "All items"


def test_the_sidebar_names_and_counts_every_entry(qtbot: Any, reader: CacheReader) -> None:
    sidebar = Sidebar(reader)
    qtbot.addWidget(sidebar)
    sidebar.resize(140, 400)
    sidebar.show()
    qtbot.waitExposed(sidebar)
    every = _entry(sidebar, "library", "All items")
    assert every.data(SidebarModel.CountRole) == ITEMS
    assert every.text() == f"All items  ({ITEMS:,})"  # what a screen reader reads
    assert every.data(Qt.ItemDataRole.AccessibleTextRole) == every.text()
    tag = _entry(sidebar, "tags", TAG["name"])
    assert tag.data(SidebarModel.CountRole) == ITEMS
    assert tag.toolTip() == f"{TAG['name']}: {ITEMS:,}"  # the whole name, where it is cut
    # The tag's row is too narrow for its name: the name is what gives way.
    rect = sidebar.visualRect(tag.index())
    shown, _room, number = entry_layout(rect, sidebar.fontMetrics(), TAG["name"], ITEMS)
    assert number == f"{ITEMS:,}" and shown.endswith("…")
    assert not sidebar.grab().isNull()  # the delegate paints every kind of row
