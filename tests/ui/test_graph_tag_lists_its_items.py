"""A tag in the reference graph, clicked or opened from the Links list, lists its items as its
sidebar entry does: the sidebar picks the tag, the list shows the items carrying it, and the
reader keeps the item it showed (a tag is not an item: there is no page of it to read)."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import QSize, Qt
from support.caches import tagged_pages_library
from support.graph_pane import docked_graph_pane
from support.window import WindowFactory

from memex_desktop.ui.graph_pane import GraphPane
from memex_desktop.ui.main_window import MainWindow
from memex_desktop.ui.sidebar import Scope

pytestmark = [pytest.mark.gui, pytest.mark.qt_log_ignore("propagateSizeHints")]

WAIT_MS = 10_000
GARDEN = Scope("tag", "t-garden", "garden")
# item id -> the tags it carries
CARRIES = {"page": ["t-garden"], "other": ["t-garden"], "bees": ["t-bees"]}


def _library() -> dict[str, Any]:
    """Three web pages carrying the tags of CARRIES."""
    return tagged_pages_library(CARRIES, {"t-garden": "garden", "t-bees": "bees"})


@pytest.fixture
def pane(qtbot: Any, window_factory: WindowFactory) -> GraphPane:
    """The docked graph of the window, drawn around "page" as the reader shows it."""
    pane = docked_graph_pane(qtbot, window_factory, _library(), QSize(1366, 768))
    window = _window(pane)
    with qtbot.waitSignal(pane.layout_finished, timeout=WAIT_MS):
        window.open_entity("page")
    assert window.reader_pane.current_entity_id == "page"
    return pane


def _window(pane: GraphPane) -> MainWindow:
    window = pane.window()
    assert isinstance(window, MainWindow)
    return window


def _assert_lists_the_tag_and_keeps_the_item(qtbot: Any, window: MainWindow) -> None:
    qtbot.waitUntil(lambda: window.sidebar.current_scope().key == GARDEN.key, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: set(window.results_model.ids()) == {"page", "other"}, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: not window.search.awaiting_results, timeout=WAIT_MS)
    reader = window.reader_pane
    assert reader.current_entity_id == "page"
    assert "not in the local library" not in reader.browser.toPlainText()
    assert window.graph_pane.center == "page"


def test_a_click_on_a_tag_node_lists_the_tags_items(qtbot: Any, pane: GraphPane) -> None:
    tag = pane.node_item("t-garden")
    assert tag is not None
    where = pane.view.mapFromScene(tag.scenePos())
    qtbot.mouseClick(pane.view.viewport(), Qt.MouseButton.LeftButton, pos=where)
    _assert_lists_the_tag_and_keeps_the_item(qtbot, _window(pane))


def test_enter_on_a_tag_in_links_lists_the_tags_items(qtbot: Any, pane: GraphPane) -> None:
    pane.tabs.setCurrentWidget(pane.links)
    model = pane.links_model
    row = next(
        row for row in range(model.rowCount()) if model.entity_id(model.index(row, 0)) == "t-garden"
    )
    pane.links.setFocus()
    pane.links.setCurrentIndex(model.index(row, 0))
    qtbot.keyClick(pane.links, Qt.Key.Key_Return)
    _assert_lists_the_tag_and_keeps_the_item(qtbot, _window(pane))


def test_an_item_node_still_opens_in_the_reader(qtbot: Any, pane: GraphPane) -> None:
    with qtbot.waitSignal(pane.entity_activated, timeout=WAIT_MS) as opened:
        pane._on_links_activated(pane.links_model.index(0, 0))
    assert opened.args == ["page"]
