"""Hiding a kind of link or a content type hides what only it joined to the focused item.

Reported on a 100,000-item library: at two hops a tag pulled in "300 items +701 more", and
Filter → Tagged hid the dotted lines only, leaving 300 unconnected dots and the same count.
A node now shows while links the filter shows join it to the item within the hops chosen;
where the tags had filled the budget, what the other links reach fills it instead, and the
count says what shows and what the filter hides. Showing the kind again brings it all back.
"""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import Qt
from support.graph import MemoryGraph
from support.graph_pane import shown_ids, shown_pane, status_text

from memex_desktop.graph.synthetic import SyntheticEdge, SyntheticNode
from memex_desktop.store.neighbourhood import hop_distances
from memex_desktop.ui.graph_legend import EDGES
from memex_desktop.ui.graph_pane import GraphPane
from memex_desktop.ui.tasks import TaskRunner

pytestmark = [pytest.mark.gui, pytest.mark.qt_log_ignore("propagateSizeHints")]

MEMBERS = 1000


def _tagged_item() -> MemoryGraph:
    """An item with a tag a thousand items share, and a reference with three notes on it and
    a reference of its own: two hops away through links that are not tags."""
    nodes = [
        SyntheticNode("item", "web", "The item"),
        SyntheticNode("tag", "tag", "popular"),
        SyntheticNode("ref", "web", "What it references"),
        SyntheticNode("ref2", "pdf", "What that references"),
    ]
    edges = [
        SyntheticEdge("item", "tag", "tag"),
        SyntheticEdge("item", "ref", "references"),
        SyntheticEdge("ref", "ref2", "references"),
    ]
    for n in range(3):
        nodes.append(SyntheticNode(f"note{n}", "annotation", f"Note {n}"))
        edges.append(SyntheticEdge(f"note{n}", "ref", "annotates"))
    for n in range(MEMBERS):
        nodes.append(SyntheticNode(f"member{n:04d}", "web", f"Tagged page {n}"))
        edges.append(SyntheticEdge(f"member{n:04d}", "tag", "tag"))
    return MemoryGraph(nodes, edges)


BEYOND_THE_TAG = {"item", "ref", "ref2", "note0", "note1", "note2"}


def _listed(pane: GraphPane) -> set[str]:
    """The items of the Links list."""
    model = pane.links_model
    return {
        entity_id
        for row in range(model.rowCount())
        if (entity_id := model.entity_id(model.index(row, 0))) is not None
    }


def _assert_each_shown_node_is_joined_to_the_item(pane: GraphPane) -> None:
    """Every dot on show is within the hops through the lines on show."""
    hops = hop_distances(pane.center or "", [(s, t) for s, t, _ in pane.drawn_edges()])
    assert {node: hops.get(node) for node in shown_ids(pane) if hops.get(node, 9) > 2} == {}


def test_hiding_tags_shows_what_the_other_links_reach_and_says_what_it_hides(
    qtbot: Any, runner: TaskRunner
) -> None:
    pane = shown_pane(qtbot, runner, _tagged_item(), "item", hops=2)
    everything = shown_ids(pane)
    assert len(everything) == 300
    before = status_text(pane)
    assert before.startswith("300 items  +")
    reached = 300 + int(before.split("+")[1].split()[0].replace(",", ""))

    with qtbot.waitSignal(pane.layout_finished, timeout=30_000):
        pane.set_edge_kind_shown("tag", False)
    # The reference's notes and its own reference were crowded out of the 300 by the tag's
    # items: they are read again through the links still shown.
    assert shown_ids(pane) == BEYOND_THE_TAG
    assert not any(kind == "tag" for _, _, kind in pane.drawn_edges())
    _assert_each_shown_node_is_joined_to_the_item(pane)
    assert status_text(pane) == f"6 items, {reached - 6:,} hidden by the filter"
    assert _listed(pane) == BEYOND_THE_TAG
    tagged = next(e for e in pane.legend.entries() if e.group == EDGES and e.kind == "tag")
    assert tagged.hidden  # still in the legend, to be clicked back

    pane.set_edge_kind_shown("tag", True)
    assert not pane.is_laying_out()  # drawn again from what was read for it, at once
    assert shown_ids(pane) == everything
    assert status_text(pane) == before


def test_hiding_a_kind_of_link_hides_the_nodes_only_it_reached_at_once(
    qtbot: Any, runner: TaskRunner
) -> None:
    """A neighbourhood within the budget holds all a filter leaves: nothing is read again."""
    graph = MemoryGraph(
        [
            SyntheticNode("page", "web", "A page"),
            SyntheticNode("t1", "tag", "reading"),
            SyntheticNode("other", "web", "Another page with the tag"),
            SyntheticNode("note", "annotation", "A note"),
            SyntheticNode("reply", "annotation", "A reply"),
            SyntheticNode("both", "web", "Tagged and noted"),
        ],
        [
            SyntheticEdge("page", "t1", "tag"),
            SyntheticEdge("other", "t1", "tag"),
            SyntheticEdge("both", "t1", "tag"),
            SyntheticEdge("note", "page", "annotates"),
            SyntheticEdge("reply", "note", "reply"),
            SyntheticEdge("note", "both", "references"),
        ],
    )
    pane = shown_pane(qtbot, runner, graph, "page", hops=2)
    assert status_text(pane) == "6 items"
    calls = len(graph.calls)

    pane.set_edge_kind_shown("tag", False)
    assert not pane.is_laying_out()
    assert shown_ids(pane) == {"page", "note", "reply", "both"}  # "both" through the note
    assert status_text(pane) == "4 items, 2 hidden by the filter"
    assert _listed(pane) == {"page", "note", "reply", "both"}
    _assert_each_shown_node_is_joined_to_the_item(pane)

    pane.set_type_shown("annotation", False)  # the note joined "reply" and "both"
    assert shown_ids(pane) == {"page"}
    assert status_text(pane) == "1 item, 5 hidden by the filter"

    pane.set_edge_kind_shown("tag", True)
    assert shown_ids(pane) == {"page", "t1", "other", "both"}
    assert status_text(pane) == "4 items, 2 hidden by the filter"
    pane.show_everything()
    assert shown_ids(pane) == {"page", "t1", "other", "both", "note", "reply"}
    assert status_text(pane) == "6 items"
    assert len(graph.calls) == calls


def test_the_legend_hides_and_brings_back_a_kind_of_link_with_what_it_reached(
    qtbot: Any, runner: TaskRunner
) -> None:
    pane = shown_pane(qtbot, runner, _tagged_item(), "item", hops=2)
    everything = shown_ids(pane)
    entries = pane.legend.entries()
    where = next(
        box
        for entry, box in zip(entries, pane.legend.entry_rects(), strict=True)
        if entry.group == EDGES and entry.kind == "tag"
    ).center()
    with qtbot.waitSignal(pane.layout_finished, timeout=30_000):
        qtbot.mouseClick(pane.legend, Qt.MouseButton.LeftButton, pos=where)
    assert shown_ids(pane) == BEYOND_THE_TAG
    where = next(
        box
        for entry, box in zip(pane.legend.entries(), pane.legend.entry_rects(), strict=True)
        if entry.group == EDGES and entry.kind == "tag"
    ).center()
    qtbot.mouseClick(pane.legend, Qt.MouseButton.LeftButton, pos=where)
    assert shown_ids(pane) == everything
