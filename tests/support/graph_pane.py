"""The graph pane shown in a test, once it has laid out the items around one, and what it shows."""

from __future__ import annotations

from typing import Any

from memex_desktop.store import GraphReader
from memex_desktop.ui.graph_pane import GraphPane
from memex_desktop.ui.tasks import TaskRunner


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
