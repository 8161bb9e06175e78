"""The graph's legend keeps to a row in the dock beside the reader at 1366×768.

Listed with their names, a drawing's content types and kinds of link took four rows of a
220-pixel dock, about a third of what the drawing had. Where the names need more than a row,
the legend shows its samples after a "Legend" button that shows the names until pressed again;
each sample still says what it is (its tooltip, the legend's description) and still hides or
shows its kind when clicked.
"""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import QEvent, QPoint, QSize, Qt
from PySide6.QtGui import QHelpEvent
from PySide6.QtWidgets import QApplication, QToolTip
from support.graph import MemoryGraph
from support.window import WindowFactory

from memex_desktop.graph.synthetic import SyntheticEdge, SyntheticNode
from memex_desktop.ui.graph_legend import EDGES, NODES, GraphLegend
from memex_desktop.ui.graph_pane import GraphPane
from memex_desktop.ui.main_window import MainWindow
from memex_desktop.ui.tasks import TaskRunner

pytestmark = [
    pytest.mark.usefixtures("app_style"),
    pytest.mark.gui,
    pytest.mark.qt_log_ignore("propagateSizeHints"),
]


def _settled(window: MainWindow) -> bool:
    QApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
    return window.graph_pane.isVisible()


@pytest.fixture
def docked(window_factory: WindowFactory, demo_library: dict[str, Any], qtbot: Any) -> GraphPane:
    """The graph pane of the window at 1366×768, drawing two hops around the demo's first
    item."""
    window = window_factory(library=demo_library).window
    size = QSize(1366, 768)
    window.resize(size)
    qtbot.waitUntil(lambda: window.size() == size, timeout=5_000)
    if not window.graph_dock.isVisible():
        window.docks.toggle_graph()
    window.graph_dock.raise_()
    qtbot.waitUntil(lambda: _settled(window), timeout=5_000)
    pane = window.graph_pane
    pane.set_hops(2)  # six content types and three kinds of link around the first item
    with qtbot.waitSignal(pane.layout_finished, timeout=10_000):
        pane.show_entity(demo_library["results"][0]["id"])
    QApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
    assert len(pane.legend.entries()) >= 8  # more than a row of names in this dock
    return pane


def _row(legend: GraphLegend) -> int:
    """The height of one row of the legend: a line of its text, or its button."""
    return max(legend.fontMetrics().height() + 2, legend.toggle.sizeHint().height())


def _tooltip(legend: GraphLegend, where: QPoint) -> str:
    QApplication.sendEvent(
        legend, QHelpEvent(QEvent.Type.ToolTip, where, legend.mapToGlobal(where))
    )
    return str(QToolTip.text())


def test_the_legend_keeps_to_a_row_and_the_drawing_keeps_most_of_the_pane(
    docked: GraphPane,
) -> None:
    legend = docked.legend
    assert docked.legend_shown()
    assert legend.height() <= _row(legend)
    assert not legend.names_shown()
    assert legend.toggle.isVisible()
    assert docked.view.height() > docked.height() / 2
    assert docked.view.height() > 6 * legend.height()
    boxes = legend.entry_rects()
    assert all(legend.rect().contains(box) for box in boxes)
    assert not legend.toggle.geometry().intersects(boxes[0])


# A tooltip window asks to be raised, which the offscreen platform cannot do.
@pytest.mark.qt_log_ignore("propagateSizeHints", "does not support raise")
def test_each_sample_says_what_it_is_and_hides_its_kind_when_clicked(
    docked: GraphPane, qtbot: Any
) -> None:
    legend = docked.legend
    description = legend.accessibleDescription()
    for entry, box in zip(legend.entries(), legend.entry_rects(), strict=True):
        assert entry.text in description
        verb = "show" if entry.hidden else "hide"
        assert _tooltip(legend, box.center()) == f"{entry.text}: click to {verb}"
    entries = legend.entries()
    where = next(
        box
        for entry, box in zip(entries, legend.entry_rects(), strict=True)
        if entry.group == NODES and entry.kind == "tag"
    )
    qtbot.mouseClick(legend, Qt.MouseButton.LeftButton, pos=where.center())
    assert docked.hidden_types() == {"tag"}
    assert not any(i.isVisible() for i in docked.node_items() if i.node.type == "tag")
    qtbot.mouseClick(legend, Qt.MouseButton.LeftButton, pos=where.center())
    assert docked.hidden_types() == frozenset()


def test_the_legend_button_shows_the_names_and_says_so(docked: GraphPane, qtbot: Any) -> None:
    legend = docked.legend
    folded_height = legend.height()
    assert docked.legend_folded()
    assert legend.toggle.text() == "▸ Legend"
    with qtbot.waitSignal(docked.legend_fold_chosen, timeout=2_000) as chosen:
        qtbot.mouseClick(legend.toggle, Qt.MouseButton.LeftButton)
    assert chosen.args == [False]
    assert legend.names_shown()
    assert legend.toggle.text() == "▾ Legend"
    qtbot.waitUntil(lambda: legend.height() > folded_height, timeout=2_000)
    boxes = legend.entry_rects()
    assert all(legend.rect().contains(box) for box in boxes)
    widths = [box.width() for box in boxes]
    assert min(widths) > legend.fontMetrics().horizontalAdvance("Tag")  # named
    with qtbot.waitSignal(docked.legend_fold_chosen, timeout=2_000) as chosen:
        qtbot.mouseClick(legend.toggle, Qt.MouseButton.LeftButton)
    assert chosen.args == [True]
    assert not legend.names_shown()
    docked.set_legend_folded(False)  # what the window restores
    assert not docked.legend_folded()
    assert legend.names_shown()


def test_names_that_fit_on_one_row_show_without_a_button(qtbot: Any, runner: TaskRunner) -> None:
    graph = MemoryGraph(
        [SyntheticNode("page", "web", "A page"), SyntheticNode("t1", "tag", "reading")],
        [SyntheticEdge("page", "t1", "tag")],
    )
    pane = GraphPane(graph, runner)
    qtbot.addWidget(pane)
    pane.resize(400, 300)
    pane.show()
    qtbot.waitExposed(pane)
    with qtbot.waitSignal(pane.layout_finished, timeout=10_000):
        pane.show_entity("page")
    legend = pane.legend
    assert [(e.group, e.text) for e in legend.entries()] == [
        (NODES, "Web page"),
        (NODES, "Tag"),
        (EDGES, "Tagged"),
    ]
    assert legend.names_shown()
    assert not legend.toggle.isVisible()
    assert legend.height() == legend.fontMetrics().height() + 2
