"""An empty Saved views or Feeds section says why: none exist, or the server could not be read."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QAbstractItemModelTester

from memex_desktop.api.models import Feed, View
from memex_desktop.store import CacheReader, StoreWriter
from memex_desktop.sync.engine import STATE_FEEDS_PROBLEM, STATE_VIEWS_PROBLEM
from memex_desktop.ui.sidebar import Scope, Sidebar, SidebarModel, read_sidebar_snapshot

pytestmark = pytest.mark.gui

FAIL = QAbstractItemModelTester.FailureReportingMode.Fatal
VIEWS_PROBLEM = (
    "The Memex server sent a response this version does not understand. could not read the "
    "saved views from the server: POST /api/list-views answered an object with keys 'foo'"
)
FEEDS_PROBLEM = "The Memex server refused this: Feeds need the Pro plan."


@pytest.fixture
def store(tmp_path: Path) -> Iterator[tuple[StoreWriter, CacheReader]]:
    """An empty cache: its writer (to plant what a sync writes) and a GUI-thread reader."""
    path = tmp_path / "cache.db"
    writer = StoreWriter(path)
    reader = CacheReader(path)
    yield writer, reader
    reader.close()
    writer.close()


def _rows(sidebar: Sidebar, key: str) -> list[Any]:
    section = sidebar.sidebar_model.section(key)
    return [section.child(row) for row in range(section.rowCount())]


def _sidebar(qtbot: Any, reader: CacheReader) -> Sidebar:
    sidebar = Sidebar(reader)
    qtbot.addWidget(sidebar)
    QAbstractItemModelTester(sidebar.sidebar_model, FAIL)
    return sidebar


def _assert_placeholder(item: Any, text: str, tooltip: str) -> None:
    assert item.text() == text
    assert item.toolTip() == tooltip
    assert not item.isEnabled()
    assert not item.isSelectable()
    assert item.font().italic()
    assert item.data(SidebarModel.ScopeRole) is None
    assert item.data(Qt.ItemDataRole.AccessibleTextRole) == text


def test_empty_sections_without_a_problem_say_there_are_none(qtbot: Any, store: Any) -> None:
    _writer, reader = store
    sidebar = _sidebar(qtbot, reader)
    (views,) = _rows(sidebar, "views")
    _assert_placeholder(views, "No saved views", "")
    (feeds,) = _rows(sidebar, "feeds")
    _assert_placeholder(feeds, "No feeds", "")


def test_empty_sections_with_a_problem_say_they_could_not_be_read(qtbot: Any, store: Any) -> None:
    writer, reader = store
    writer.set_sync_state(STATE_VIEWS_PROBLEM, VIEWS_PROBLEM).result()
    writer.set_sync_state(STATE_FEEDS_PROBLEM, FEEDS_PROBLEM).result()
    sidebar = _sidebar(qtbot, reader)
    (views,) = _rows(sidebar, "views")
    _assert_placeholder(views, "Could not read saved views from the server", VIEWS_PROBLEM)
    (feeds,) = _rows(sidebar, "feeds")
    _assert_placeholder(feeds, "Could not read feeds from the server", FEEDS_PROBLEM)
    assert read_sidebar_snapshot(reader).views_problem == VIEWS_PROBLEM


def test_placeholders_follow_the_sync_state_and_give_way_to_entries(qtbot: Any, store: Any) -> None:
    writer, reader = store
    sidebar = _sidebar(qtbot, reader)
    first = _rows(sidebar, "views")[0]
    sidebar.refresh()
    assert _rows(sidebar, "views") == [first]  # updated in place, not redrawn

    writer.set_sync_state(STATE_VIEWS_PROBLEM, VIEWS_PROBLEM).result()
    sidebar.refresh()
    (views,) = _rows(sidebar, "views")
    assert views is first
    _assert_placeholder(views, "Could not read saved views from the server", VIEWS_PROBLEM)

    writer.upsert_views([View(id="view-1", name="Reading")]).result()
    writer.upsert_feeds([Feed(id="feed-1", title="Garden blog")]).result()
    sidebar.refresh()
    # Views read by an earlier sync are shown even while the last one could not read them.
    assert [item.text() for item in _rows(sidebar, "views")] == ["Reading"]
    assert [item.text() for item in _rows(sidebar, "feeds")] == ["Garden blog"]
    assert all(item.isEnabled() for item in _rows(sidebar, "views"))

    writer.set_sync_state(STATE_VIEWS_PROBLEM, "").result()
    sidebar.refresh()
    assert [item.text() for item in _rows(sidebar, "views")] == ["Reading"]


def test_selection_skips_placeholders(qtbot: Any, store: Any) -> None:
    writer, reader = store
    writer.upsert_feeds([Feed(id="feed-1", title="Garden blog")]).result()
    sidebar = _sidebar(qtbot, reader)
    assert _rows(sidebar, "views")[0].text() == "No saved views"
    sidebar.select_scope(Scope("feed", "feed-1"))
    assert sidebar.current_scope() == Scope("feed", "feed-1", "Garden blog")
    assert not sidebar.sidebar_model.index_of("view:anything").isValid()
    placeholder = _rows(sidebar, "views")[0].index()
    assert not bool(placeholder.flags() & Qt.ItemFlag.ItemIsSelectable)
    assert not bool(placeholder.flags() & Qt.ItemFlag.ItemIsEnabled)
