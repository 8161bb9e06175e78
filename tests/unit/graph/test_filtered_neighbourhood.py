"""What a graph filter leaves: the nodes shown links still join to the centre, and a budget
filled again through them when the budget had cut the neighbourhood."""

from __future__ import annotations

from support.graph import MemoryGraph

from memex_desktop.graph.synthetic import SyntheticEdge, SyntheticNode
from memex_desktop.store.neighbourhood import (
    EVERY_LINK,
    GraphFilter,
    filtered_neighbourhood,
    read_shown,
    read_whole,
    shown_within,
)

NO_TAGS = GraphFilter(kinds=frozenset({"tag"}))
NO_NOTES = GraphFilter(types=frozenset({"annotation"}))


def _node(node_id: str, kind: str = "web") -> SyntheticNode:
    return SyntheticNode(node_id, kind, node_id)


def _tagged_item(members: int, cited: int = 0) -> MemoryGraph:
    """An item with a tag that ``members`` other items share, and a reference whose notes,
    own reference and ``cited`` items more are two hops away (what the person reported on
    100,000 items)."""
    nodes = [_node("item"), _node("tag", "tag"), _node("ref"), _node("ref2")]
    edges = [
        SyntheticEdge("item", "tag", "tag"),
        SyntheticEdge("item", "ref", "references"),
        SyntheticEdge("ref", "ref2", "references"),
    ]
    for n in range(3):
        nodes.append(_node(f"note{n}", "annotation"))
        edges.append(SyntheticEdge(f"note{n}", "ref", "annotates"))
    for n in range(members):
        nodes.append(_node(f"member{n:04d}"))
        edges.append(SyntheticEdge(f"member{n:04d}", "tag", "tag"))
    for n in range(cited):
        nodes.append(_node(f"cited{n:03d}"))
        edges.append(SyntheticEdge("ref", f"cited{n:03d}", "references"))
    return MemoryGraph(nodes, edges)


BEYOND_THE_REFERENCE = {"item", "ref", "ref2", "note0", "note1", "note2"}


def _types(graph: MemoryGraph) -> dict[str, str]:
    return {node.id: node.type for node in graph.nodes}


def _links(graph: MemoryGraph) -> list[tuple[str, str, str]]:
    return [(edge.source, edge.target, edge.kind) for edge in graph.edges]


def test_a_hidden_kind_of_link_joins_nothing_and_other_links_still_do() -> None:
    graph = MemoryGraph(
        [_node("c"), _node("t", "tag"), _node("both"), _node("only-tag"), _node("far")],
        [
            SyntheticEdge("c", "t", "tag"),
            SyntheticEdge("both", "t", "tag"),
            SyntheticEdge("only-tag", "t", "tag"),
            SyntheticEdge("c", "both", "references"),
            SyntheticEdge("both", "far", "reply"),
        ],
    )
    everything = shown_within("c", _types(graph), _links(graph), 2)
    assert everything == {"c": 0, "t": 1, "both": 1, "only-tag": 2, "far": 2}
    assert shown_within("c", _types(graph), _links(graph), 2, NO_TAGS) == {
        "c": 0,
        "both": 1,
        "far": 2,
    }
    # Within the hops chosen: "far" is two hops away through the links still shown.
    assert "far" not in shown_within("c", _types(graph), _links(graph), 1, NO_TAGS)


def test_links_through_a_hidden_node_no_longer_join_what_lies_beyond_it() -> None:
    graph = MemoryGraph(
        [_node("page"), _node("note", "annotation"), _node("reply", "annotation"), _node("ref")],
        [
            SyntheticEdge("note", "page", "annotates"),
            SyntheticEdge("reply", "note", "reply"),
            SyntheticEdge("note", "ref", "references"),
        ],
    )
    assert set(shown_within("page", _types(graph), _links(graph), 2)) == {
        "page",
        "note",
        "reply",
        "ref",
    }
    assert set(shown_within("page", _types(graph), _links(graph), 2, NO_NOTES)) == {"page"}
    # The focused item shows, and joins, whatever its type.
    assert set(shown_within("note", _types(graph), _links(graph), 1, NO_NOTES)) == {
        "note",
        "page",
        "ref",
    }


def test_hiding_the_tags_that_filled_the_budget_fills_it_through_the_other_links() -> None:
    graph = _tagged_item(members=1000)
    full = graph.neighbourhood("item", hops=2, max_nodes=300)
    assert len(full.nodes) == 300
    assert full.omitted > 700
    # The tag's members crowded the reference's neighbours out of the read: filtering what
    # was read would leave the item and its reference alone.
    kept = shown_within(
        "item", _types(graph), [(e.source, e.target, e.kind) for e in full.edges], 2, NO_TAGS
    )
    assert set(kept) == {"item", "ref"}

    filtered = filtered_neighbourhood(graph, "item", 2, 300, NO_TAGS)
    assert {node.id for node in filtered.nodes} == BEYOND_THE_REFERENCE
    assert filtered.omitted == 0
    assert not any(edge.kind == "tag" for edge in filtered.edges)

    shown = read_shown(graph, "item", 2, 300, NO_TAGS)
    assert {node.id for node in shown.hood.nodes} == BEYOND_THE_REFERENCE
    assert shown.read_for == NO_TAGS
    assert shown.whole  # everything the other links reach within two hops is in it
    assert shown.reached == len(full.nodes) + full.omitted


def test_the_budget_means_the_same_through_the_links_shown() -> None:
    """Hiding tags leaves 300 nodes at most, the nearest first, and counts the rest."""
    graph = _tagged_item(members=50, cited=400)
    filtered = filtered_neighbourhood(graph, "item", 2, 300, NO_TAGS)
    ids = [node.id for node in filtered.nodes]
    assert len(ids) == 300
    assert ids[:2] == ["item", "ref"]  # one hop away: kept before anything two hops away
    assert not {"tag"} & set(ids)
    assert not any(node_id.startswith("member") for node_id in ids)
    assert filtered.omitted == 404 - 298  # the cited items, the notes and ref2 left out
    assert not read_whole(filtered, 300)


def test_a_read_that_holds_every_node_is_kept_for_any_filter() -> None:
    graph = _tagged_item(members=20)
    shown = read_shown(graph, "item", 2, 300, NO_TAGS)
    assert shown.read_for == EVERY_LINK  # the filter hides part of it; nothing to read again
    assert shown.whole
    assert len(shown.hood.nodes) == shown.reached == 4 + 3 + 20


def test_a_cut_read_the_filter_hides_nothing_of_is_kept() -> None:
    graph = _tagged_item(members=1000)
    shown = read_shown(graph, "item", 2, 300, GraphFilter(types=frozenset({"pdf"})))
    assert shown.read_for == EVERY_LINK
    assert not shown.whole
    assert len(shown.hood.nodes) == 300


def test_a_filtered_read_stops_when_asked() -> None:
    """A filter hiding content types reads one node's links at a time, asking between."""
    graph = _tagged_item(members=10)
    asked: list[str] = []

    def stop() -> bool:
        asked.append("stop?")
        return len(asked) > 1  # the centre's links, then nothing more

    no_tags_nor_pdfs = GraphFilter(kinds=frozenset({"tag"}), types=frozenset({"pdf"}))
    filtered = filtered_neighbourhood(graph, "item", 2, 300, no_tags_nor_pdfs, stop)
    assert {node.id for node in filtered.nodes} == {"item", "ref"}
