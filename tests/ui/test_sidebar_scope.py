"""The list shows the sidebar entry last picked, and its chip says so, wherever the keyboard
goes in the sidebar; an entry that goes away gives the list back to All items."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from support.window import WindowFactory

from memex_desktop.ui.search_bar import SearchRequest
from memex_desktop.ui.sidebar import ALL_ITEMS, Scope, SidebarModel

pytestmark = [pytest.mark.gui, pytest.mark.qt_log_ignore("propagateSizeHints")]


def _picked_first_tag(window: Any) -> Scope:
    """Pick the sidebar's first tag, as a click does; its scope."""
    tag = window.sidebar.sidebar_model.section("tags").child(0)
    scope: Scope = tag.data(SidebarModel.ScopeRole)
    window.sidebar.setFocus()
    window.sidebar.setCurrentIndex(tag.index())
    return scope


def test_the_keyboard_on_a_section_title_keeps_the_entry_picked(
    window_factory: WindowFactory, demo_library: dict[str, Any], qtbot: Any
) -> None:
    context = window_factory(library=demo_library)
    window = context.window
    sidebar = window.sidebar
    scope = _picked_first_tag(window)
    tagged = context.reader.ids_with_tag(scope.value or "")
    qtbot.waitUntil(lambda: window.results_model.ids() == tagged, timeout=10_000)
    QTest.keyClick(sidebar, Qt.Key.Key_Up)  # onto the Tags title, which selects nothing
    assert sidebar.currentIndex() == sidebar.sidebar_model.section("tags").index()
    assert sidebar.current_scope() == scope
    window.run_search(SearchRequest(""))
    qtbot.waitUntil(lambda: window.results_model.ids() == tagged, timeout=10_000)
    assert any(scope.label in label for label in window.search_bar.chip_labels())


def test_an_entry_that_goes_away_gives_the_list_back_to_all_items(
    window_factory: WindowFactory, demo_library: dict[str, Any], qtbot: Any
) -> None:
    context = window_factory(library=demo_library)
    window = context.window
    sidebar = window.sidebar
    scope = _picked_first_tag(window)
    assert sidebar.current_scope() == scope
    snapshot = sidebar.snapshot
    assert snapshot is not None
    picked: list[Scope] = []
    sidebar.scope_selected.connect(picked.append)
    sidebar.apply_snapshot(
        replace(snapshot, tags=[t for t in snapshot.tags if t.id != scope.value])
    )
    assert sidebar.current_scope() == ALL_ITEMS
    assert picked == [ALL_ITEMS]  # announced: the list and its chip follow
    everything = context.reader.search_ids("")
    qtbot.waitUntil(lambda: window.results_model.ids() == everything, timeout=10_000)


def test_entries_follow_their_counts_and_the_one_picked_stays_picked(
    window_factory: WindowFactory, demo_library: dict[str, Any], qtbot: Any
) -> None:
    context = window_factory(library=demo_library)
    window = context.window
    sidebar = window.sidebar
    tags_section = sidebar.sidebar_model.section("tags")
    last = tags_section.child(tags_section.rowCount() - 1)
    scope: Scope = last.data(SidebarModel.ScopeRole)
    sidebar.setFocus()
    sidebar.setCurrentIndex(last.index())
    assert sidebar.current_scope() == scope
    snapshot = sidebar.snapshot
    assert snapshot is not None
    picked: list[Scope] = []
    sidebar.scope_selected.connect(picked.append)
    # A sync brought many items of the last tag: it now has the most.
    most = max(tag.count for tag in snapshot.tags) + 1
    grown = [replace(t, count=most) if t.id == scope.value else t for t in snapshot.tags]
    sidebar.apply_snapshot(replace(snapshot, tags=grown))
    first = tags_section.child(0)
    assert first.data(SidebarModel.ScopeRole) == scope
    assert f"({most:,})" in first.text()
    assert sidebar.currentIndex() == first.index()  # still picked, where it is now
    assert sidebar.current_scope() == scope
    assert picked == []  # nothing new was picked: the list is not read again
    listed = [
        tags_section.child(row).data(SidebarModel.ScopeRole)
        for row in range(tags_section.rowCount())
    ]
    expected = sorted(grown, key=lambda tag: (-tag.count, tag.name.lower()))
    assert [s.value for s in listed if s is not None] == [t.id for t in expected][: len(listed)]
