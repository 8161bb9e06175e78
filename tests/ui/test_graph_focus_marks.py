"""Where the keyboard is in the reference graph shows at a glance: the drawing is framed 2 px in
the theme's focus colour while it has the keyboard, and so is the current tab of the Graph and
Links tab bar; neither mark moves the drawing or the tabs."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import QPoint
from PySide6.QtGui import QColor, QImage
from PySide6.QtWidgets import QWidget
from support.focus import give_focus
from support.graph import MemoryGraph

from memex_desktop.graph.synthetic import SyntheticEdge, SyntheticNode
from memex_desktop.ui.graph_pane import GraphPane
from memex_desktop.ui.palette import LIGHT
from memex_desktop.ui.tasks import TaskRunner

pytestmark = [
    pytest.mark.gui,
    pytest.mark.qt_log_ignore("propagateSizeHints"),
    pytest.mark.usefixtures("app_style"),
]

ACCENT = QColor(LIGHT.accent)


@pytest.fixture
def pane(qtbot: Any, runner: TaskRunner) -> GraphPane:
    """A drawn graph pane whose depth menu has the keyboard."""
    graph = MemoryGraph(
        [SyntheticNode("page", "web", "A page"), SyntheticNode("t1", "tag", "reading")],
        [SyntheticEdge("page", "t1", "tag")],
    )
    pane = GraphPane(graph, runner)
    qtbot.addWidget(pane)
    pane.resize(400, 360)
    pane.show()
    qtbot.waitExposed(pane)
    with qtbot.waitSignal(pane.layout_finished, timeout=10_000):
        pane.show_entity("page")
    give_focus(qtbot, pane.controls[0])
    return pane


def _grab(widget: QWidget) -> QImage:
    return widget.grab().toImage()


def _accent_at(image: QImage, points: list[QPoint]) -> list[bool]:
    """Whether each point of the image is painted in the focus colour."""
    return [image.pixelColor(point).rgb() == ACCENT.rgb() for point in points]


def test_the_drawing_is_framed_in_the_focus_colour_while_it_has_the_keyboard(
    qtbot: Any, pane: GraphPane
) -> None:
    view = pane.view
    size = view.viewport().size()
    w, h = view.width(), view.height()
    # Both pixels of the frame on each side, in the middle of that side.
    frame = [
        QPoint(x, y)
        for depth in (0, 1)
        for x, y in (
            (depth, h // 2),
            (w - 1 - depth, h // 2),
            (w // 2, depth),
            (w // 2, h - 1 - depth),
        )
    ]
    assert not any(_accent_at(_grab(view), frame))
    give_focus(qtbot, view)
    assert all(_accent_at(_grab(view), frame))
    assert view.viewport().size() == size  # the drawing does not move


def test_the_current_tab_is_outlined_in_the_focus_colour_while_the_tab_bar_has_the_keyboard(
    qtbot: Any, pane: GraphPane
) -> None:
    bar = pane.tabs.tabBar()
    tab = bar.tabRect(bar.currentIndex())
    # Across the current tab half way down (its left and right edges), and down its middle
    # (its top edge).
    across = [QPoint(x, tab.center().y()) for x in range(tab.left(), tab.right() + 1)]
    down = [QPoint(tab.center().x(), y) for y in range(tab.top(), tab.bottom() + 1)]

    def edge_pixels() -> tuple[int, int]:
        image = _grab(bar)
        return sum(_accent_at(image, across)), sum(_accent_at(image, down))

    assert edge_pixels() == (0, 0)
    give_focus(qtbot, bar)
    sides, top = edge_pixels()
    assert sides >= 4  # 2 px on each side
    assert top >= 2
    assert bar.tabRect(bar.currentIndex()) == tab  # the tabs keep their size
