"""The graph pane shown in a test, once it has laid out the items around one, and what it shows:
alone, or docked in the real window; and what is wrong with its labels, as a person sees them."""

from __future__ import annotations

import itertools
import math
from typing import Any

from PySide6.QtCore import QEvent, QPointF, QRectF, QSize
from PySide6.QtWidgets import QApplication

from memex_desktop.store import GraphReader
from memex_desktop.ui.graph_pane import LABEL_GAP, GraphPane, LabelItem, NodeItem
from memex_desktop.ui.tasks import TaskRunner
from support.window import WindowFactory

# How far (screen pixels) a label's edge may be from its dot's: its gap, and a pixel of
# rounding.
NEAR_PX = LABEL_GAP + 1.0


def shown_pane(
    qtbot: Any, runner: TaskRunner, reader: GraphReader, center: str, *, hops: int | None = None
) -> GraphPane:
    """A 500 by 500 graph pane on ``reader``, shown, once it laid out the items around
    ``center`` (``hops`` links away, when given)."""
    pane = GraphPane(reader, runner)
    qtbot.addWidget(pane)
    pane.resize(500, 500)
    pane.show()
    qtbot.waitExposed(pane)
    if hops is not None:
        pane.set_hops(hops)
    with qtbot.waitSignal(pane.layout_finished, timeout=30_000):
        pane.show_entity(center)
    return pane


def shown_ids(pane: GraphPane) -> set[str]:
    """The ids of the nodes the pane draws."""
    return {item.node.id for item in pane.node_items() if item.isVisible()}


def status_text(pane: GraphPane) -> str:
    """The line under the graph: how many items show, and how many more or hidden."""
    return str(pane._status.text())


def docked_graph_pane(
    qtbot: Any, window_factory: WindowFactory, library: dict[str, Any], size: QSize
) -> GraphPane:
    """The graph pane of the real window on ``library``, at ``size`` with its first-run panes
    (at 1366 × 768 its drawing is about 290 × 175 px, beside the reader)."""
    window = window_factory(library=library).window
    window.resize(size)
    qtbot.waitUntil(lambda: window.size() == size, timeout=5_000)
    window.arrange_default_panes(size.width(), size.height())
    if not window.graph_dock.isVisible():
        window.docks.toggle_graph()
    window.graph_dock.raise_()
    QApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
    qtbot.waitUntil(window.graph_pane.isVisible, timeout=5_000)
    return window.graph_pane


def draw(qtbot: Any, pane: GraphPane, entity_id: str, hops: int = 1) -> None:
    """Draw the items ``hops`` links around ``entity_id`` and wait until they are laid out."""
    pane.set_hops(hops)
    with qtbot.waitSignal(pane.layout_finished, timeout=10_000):
        pane.show_entity(entity_id)


def _dot(node: NodeItem) -> tuple[QPointF, float]:
    """The centre of a node's dot and its radius with its outline (scene units)."""
    return node.scenePos(), node.radius + node.pen().widthF() / 2


def gap_px(pane: GraphPane, rect: QRectF, node: NodeItem) -> float:
    """Screen pixels between a label's rectangle and the edge of a node's dot."""
    centre, radius = _dot(node)
    dx = max(rect.left() - centre.x(), 0.0, centre.x() - rect.right())
    dy = max(rect.top() - centre.y(), 0.0, centre.y() - rect.bottom())
    return (math.hypot(dx, dy) - radius) * pane.view.zoom()


def _middle_px(pane: GraphPane, rect: QRectF, node: NodeItem) -> float:
    """Screen pixels between the middle of a label's rectangle and the edge of a node's dot."""
    centre, radius = _dot(node)
    middle = rect.center()
    return (math.hypot(middle.x() - centre.x(), middle.y() - centre.y()) - radius) * (
        pane.view.zoom()
    )


def label_problems(pane: GraphPane) -> list[str]:
    """What is wrong with the labels shown: a dot covered, a label away from its dot, as near
    another, or with another dot beside it nearer its middle (but the focused item's, whose
    bold face says whose it is), two labels overlapping."""
    nodes = [node for node in pane.node_items() if node.isVisible()]
    labels: dict[str, LabelItem] = pane.shown_labels()
    view = pane.view.visible_scene_rect()
    problems = []
    for node_id, label in labels.items():
        rect = label.sceneBoundingRect()
        for node in nodes:
            if node.mapToScene(node.shape()).intersects(rect):
                problems.append(f"{node_id}'s label covers {node.node.id}")
        own = pane.node_item(node_id)
        assert own is not None
        gap = gap_px(pane, rect, own)
        if gap > NEAR_PX:
            problems.append(f"{node_id}'s label is {gap:.1f} px from its dot")
        if node_id == pane.center:
            continue
        # Beside the label: within its height of it (a pixel of rounding spared), and on screen.
        beside = label.rect().height() - LABEL_GAP - 1.0
        middle = _middle_px(pane, rect, own)
        for node in nodes:
            if node is own:
                continue
            near = gap_px(pane, rect, node)
            if near <= gap + 1:
                problems.append(f"{node_id}'s label is as near {node.node.id} as its own dot")
            elif (
                near < beside
                and view.intersects(node.sceneBoundingRect())
                and _middle_px(pane, rect, node) < middle - 1
            ):
                problems.append(f"{node_id}'s label reads as {node.node.id}'s")
    for (a_id, a), (b_id, b) in itertools.combinations(labels.items(), 2):
        if a.sceneBoundingRect().intersects(b.sceneBoundingRect()):
            problems.append(f"{a_id}'s and {b_id}'s labels overlap")
    return problems
