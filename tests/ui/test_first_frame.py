"""What a window does before its first frame, and what it leaves for after it.

Counting a large cache by type and tag takes tenths of a second at a million items: the
window reads the sidebar on a worker and shows it when the read lands, sections open.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest
from support.window import WindowFactory

from memex_desktop.ui import search_controller, sidebar
from memex_desktop.ui.sidebar import ALL_ITEMS, SECTIONS, SidebarModel, SidebarSnapshot

pytestmark = [pytest.mark.gui, pytest.mark.qt_log_ignore("propagateSizeHints")]


def test_the_window_counts_its_library_on_a_worker_and_shows_the_counts(
    window_factory: WindowFactory,
    demo_library: dict[str, Any],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    read_on: list[bool] = []
    read = sidebar.read_sidebar_snapshot

    def recorded(reader: Any) -> SidebarSnapshot:
        read_on.append(threading.current_thread() is threading.main_thread())
        return read(reader)

    monkeypatch.setattr(sidebar, "read_sidebar_snapshot", recorded)
    monkeypatch.setattr(search_controller, "read_sidebar_snapshot", recorded)
    context = window_factory(library=demo_library)  # shown, once its reads have landed
    assert read_on == [False]  # one read, off the GUI thread
    window = context.window
    model = window.sidebar.sidebar_model
    everything = sum(context.reader.counts_by_type().values())
    all_items = model.index_of(ALL_ITEMS.key)
    assert all_items.data() == f"All items  ({everything:,})"
    assert window.sidebar.current_scope() == ALL_ITEMS
    for row in range(model.rowCount()):
        section = model.index(row, 0)
        if model.hasChildren(section):
            assert window.sidebar.isExpanded(section), section.data()
    tags_section = model.index([key for key, _title in SECTIONS].index("tags"), 0)
    tags = [model.index(row, 0, tags_section) for row in range(model.rowCount(tags_section))]
    assert tags
    assert all(index.data(SidebarModel.ScopeRole).kind == "tag" for index in tags)
    assert window.search_bar.tags.count() > 1  # the filters got the same read's tags
