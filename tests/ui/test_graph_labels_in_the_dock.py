"""In the dock beside the reader, every node of a small drawing is named, each beside its own.

Tried on the demo library at 1366 × 768 (the drawing about 290 × 175 px) around the talk "The
Network Is an Optimisation": the note and the highlight beside it had no label though a
shortened one had room, "Design review: offline saves" ran from a corner of its dot to lie
between the focused item, "offline" and "favourites", and once the person highlighted two
passages of the talk, the drawing laid out again without the talk's own label.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from PySide6.QtCore import QSize
from support.graph_pane import docked_graph_pane, draw, label_problems
from support.window import WindowFactory

from memex_desktop.ui.graph_pane import GraphPane

pytestmark = [
    pytest.mark.usefixtures("app_style"),
    pytest.mark.gui,
    pytest.mark.qt_log_ignore("propagateSizeHints"),
]

LAPTOP = QSize(1366, 768)
TALK = "youtube-local-first-talk"
DESIGN_REVIEW = "chatThread-offline-design"
# The passages the person highlighted (a time selector on the talk's transcript each).
PASSAGES = {
    "selector-switch-to-demo": (181.0, 183.0, "Let me switch to the demo."),
    "selector-pull-the-cable": (190.0, 194.0, "I'm going to pull the network cable now."),
}


def _highlight(entity_id: str, start: float, end: float, text: str) -> dict[str, Any]:
    """A time selector on the talk, as a sync brings one back."""
    return {
        "id": entity_id,
        "type": "selector",
        "created_at": 1_720_000_000_000,
        "updated_at": 1_720_000_000_000,
        "user_id": "demo-user",
        "metadata": {"status": "indexing-done"},
        "target_id": TALK,
        "selector_type": "time_selector",
        "text": text,
        "reference_content_ids": [TALK],
        "start_time": start,
        "end_time": end,
    }


@pytest.fixture
def pane(qtbot: Any, window_factory: WindowFactory, demo_library: dict[str, Any]) -> GraphPane:
    docked = docked_graph_pane(qtbot, window_factory, demo_library, LAPTOP)
    draw(qtbot, docked, TALK)
    return docked


def test_every_node_around_the_talk_is_named_where_a_shortened_name_has_room(
    pane: GraphPane,
) -> None:
    view = pane.view.viewport().size()
    # The docked drawing the person saw.
    assert view.width() < 320
    assert view.height() < 200
    drawn = {node.node.id for node in pane.node_items() if node.isVisible()}
    labels = pane.shown_labels()
    assert set(labels) == drawn
    assert label_problems(pane) == []
    # The names that had no room whole are cut, their ends marked.
    cut = [label.text.text() for label in labels.values() if label.text.text().endswith("…")]
    assert cut
    # The talk's is in bold.
    assert labels[TALK].text.font().bold()


def test_the_design_reviews_label_is_not_left_among_other_nodes(pane: GraphPane) -> None:
    label = pane.shown_labels().get(DESIGN_REVIEW)
    assert label is not None
    # Its middle nearer its own dot than the talk's, "offline"'s or "favourites"'.
    middle = label.sceneBoundingRect().center()

    def away(node_id: str) -> float:
        dot = pane.node_item(node_id)
        assert dot is not None
        centre = dot.scenePos()
        return math.hypot(middle.x() - centre.x(), middle.y() - centre.y()) - dot.radius

    for other in (TALK, "tag-offline", "tag-favourites"):
        assert away(DESIGN_REVIEW) < away(other), other


def test_the_talks_label_shows_after_two_passages_are_highlighted(
    qtbot: Any, window_factory: WindowFactory, pane: GraphPane
) -> None:
    context = window_factory.built[-1]
    passages = [_highlight(key, *passage) for key, passage in PASSAGES.items()]
    changes = context.writer.ingest_json(passages).result()
    with qtbot.waitSignal(pane.layout_finished, timeout=10_000):
        pane.on_store_changed(changes)
    assert set(PASSAGES) <= set(pane.node_positions())
    labels = pane.shown_labels()
    assert TALK in labels
    assert "The Network Is an Optimisation".startswith(labels[TALK].text.text().removesuffix("…"))
    assert label_problems(pane) == []


def test_a_node_without_its_label_names_itself_under_the_pointer(pane: GraphPane) -> None:
    for node in pane.node_items():
        assert node.toolTip().startswith(node.node.title or node.node.id)
    for node_id, label in pane.shown_labels().items():
        dot = pane.node_item(node_id)
        assert dot is not None
        assert label.toolTip() == dot.toolTip()
