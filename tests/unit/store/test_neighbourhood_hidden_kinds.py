"""A filter hiding kinds of link reads the neighbourhood through the kinds it shows only.

The read for a filter took each node's links of every kind, cut to a bound, before the
filter applied: with Tagged hidden, a tag on thousands of items said "+700 more" of items
only the hidden links reached, and an item with thousands of notes on it lost the items
that reference it when Notes were hidden, crowded out of the bounded read by the notes.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from support.graph import MemoryGraph

from memex_desktop.graph.synthetic import SyntheticEdge, SyntheticNode
from memex_desktop.store import CacheReader, StoreWriter
from memex_desktop.store.neighbourhood import GraphFilter, read_shown

HUB = 2000
NO_TAGS = GraphFilter(kinds=frozenset({"tag"}))
NO_NOTE_LINKS = GraphFilter(kinds=frozenset({"annotates"}))
CITING = {"citing0", "citing1", "citing2"}


def _popular_tag(writer: StoreWriter, count: int = HUB) -> None:
    """A tag on ``count`` items, and nothing else linked to them."""
    members = [
        {"id": f"member{n:04d}", "type": "web", "title": f"Tagged page {n}", "tag_ids": ["popular"]}
        for n in range(count)
    ]
    writer.ingest_json(members, tags=[{"id": "popular", "name": "popular"}]).result()


def _much_noted_page(writer: StoreWriter, count: int = HUB) -> None:
    """A page with ``count`` notes on it, which three items reference (one of them a PDF)."""
    notes: list[dict[str, Any]] = [
        {"id": f"note{n:04d}", "type": "annotation", "text": f"Note {n}",
         "reference_content_ids": ["page"]}
        for n in range(count)
    ]  # fmt: skip
    citing = [
        {"id": name, "type": kind, "title": name, "reference_content_ids": ["page"]}
        for name, kind in (("citing0", "web"), ("citing1", "web"), ("citing2", "pdf"))
    ]
    writer.ingest_json([{"id": "page", "type": "web", "title": "Page"}, *notes, *citing]).result()


def test_hiding_tags_counts_no_item_only_the_tag_reaches(
    writer: StoreWriter, reader: CacheReader
) -> None:
    _popular_tag(writer)
    shown = read_shown(reader, "popular", 1, 300, NO_TAGS)
    assert [node.id for node in shown.hood.nodes] == ["popular"]
    assert shown.hood.omitted == 0  # no "+N more": nothing more shows through other links
    assert shown.whole
    assert shown.reached == 1 + HUB  # the filter hides every member


def test_links_of_a_hidden_kind_crowd_out_no_link_shown(
    writer: StoreWriter, reader: CacheReader
) -> None:
    _much_noted_page(writer)
    full = reader.neighbourhood("page", 1, 300)
    assert full.omitted > 0  # the notes filled the budget
    assert not {node.id for node in full.nodes} & CITING

    shown = read_shown(reader, "page", 1, 300, NO_NOTE_LINKS)
    assert {node.id for node in shown.hood.nodes} == {"page", *CITING}
    assert not any(edge.kind == "annotates" for edge in shown.hood.edges)
    assert shown.hood.omitted == 0
    assert shown.reached == 1 + HUB + len(CITING)


def test_a_read_cut_by_the_budget_counts_no_item_only_a_hidden_kind_reaches(
    writer: StoreWriter, reader: CacheReader
) -> None:
    """Every node the budget kept still shows, yet "+N more" counted the items citing it."""
    _much_noted_page(writer)
    no_citations = GraphFilter(kinds=frozenset({"references"}))
    shown = read_shown(reader, "page", 1, 300, no_citations)
    assert len(shown.hood.nodes) == 300
    assert not {node.id for node in shown.hood.nodes} & CITING
    assert shown.hood.omitted == HUB + 1 - 300  # the notes left out, not the citing items
    assert shown.reached == 1 + HUB + len(CITING)


def test_a_filter_hiding_types_too_reads_only_the_kinds_it_shows(
    writer: StoreWriter, reader: CacheReader
) -> None:
    """Hiding a content type reads node by node; those reads skip the hidden kinds too."""
    _much_noted_page(writer)
    hidden = GraphFilter(kinds=frozenset({"annotates"}), types=frozenset({"pdf"}))
    shown = read_shown(reader, "page", 2, 300, hidden)
    assert {node.id for node in shown.hood.nodes} == {"page", "citing0", "citing1"}
    assert shown.hood.omitted == 0


def test_the_in_memory_graph_hides_kinds_as_the_cache_does(
    writer: StoreWriter, reader: CacheReader, cache_path: Path
) -> None:
    """The tests' in-memory graph answers a filter as the cache does, cut by the budget."""
    _much_noted_page(writer, 150)
    _popular_tag(writer, 150)
    tagged = {"id": "page", "type": "web", "title": "Page", "tag_ids": ["popular"]}
    writer.ingest_json([tagged]).result()
    with sqlite3.connect(cache_path) as db:
        links = db.execute("SELECT source, target, kind FROM edges").fetchall()
        links += db.execute("SELECT entity_id, tag_id, 'tag' FROM entity_tags").fetchall()
    ids = {end for link in links for end in link[:2]}
    nodes = [reader.neighbourhood(node_id, 0, 1).nodes[0] for node_id in sorted(ids)]
    graph = MemoryGraph(
        [SyntheticNode(node.id, node.type, node.title) for node in nodes],
        [SyntheticEdge(*link) for link in links],
    )
    for hidden in (frozenset({"tag"}), frozenset({"annotates"}), frozenset({"references", "tag"})):
        for hops, max_nodes in ((1, 300), (2, 300), (2, 40)):
            expected = reader.neighbourhood("page", hops, max_nodes, hidden_kinds=hidden)
            assert not any(edge.kind in hidden for edge in expected.edges)
            answer = graph.neighbourhood("page", hops, max_nodes, hidden_kinds=hidden)
            assert answer == expected, (hidden, hops, max_nodes)
