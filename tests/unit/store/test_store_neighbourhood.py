"""The node budget of a neighbourhood: nearest first, then best linked, then by id."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from support.graph import MemoryGraph, memory_graph

from memex_desktop.graph.synthetic import SyntheticEdge, SyntheticNode, synthetic_neighbourhood
from memex_desktop.store import CacheReader, StoreWriter
from memex_desktop.store.neighbourhood import hop_distances, keep_nearest


def test_hop_distances_are_breadth_first() -> None:
    hops = hop_distances("c", [("a", "c"), ("a", "b"), ("b", "d"), ("x", "y")])
    assert hops == {"c": 0, "a": 1, "b": 2, "d": 3}


def _links(*pairs: tuple[str, str]) -> list[tuple[str, str, str]]:
    return [(source, target, "references") for source, target in pairs]


def test_the_centre_and_the_nearest_nodes_are_kept() -> None:
    nodes = ["far", "c", "near1", "near2", "mid", "island"]
    edges = _links(("c", "near1"), ("near2", "c"), ("near1", "mid"), ("mid", "far"))
    kept = keep_nearest("c", nodes, [*edges, ("near1", "near2", "reply")], max_nodes=4)
    assert kept.ids == ["c", "near1", "near2", "mid"]
    assert kept.omitted == 2
    assert ("mid", "far", "references") not in kept.edges
    assert ("near1", "near2", "reply") in kept.edges


def test_better_linked_nodes_win_at_equal_distance() -> None:
    edges = _links(("c", "a"), ("c", "b"), ("b", "z1"), ("b", "z2"))
    assert keep_nearest("c", ["c", "a", "b", "z1", "z2"], edges, max_nodes=2).ids == ["c", "b"]


def test_ties_go_by_id_whatever_the_order_found() -> None:
    edges = _links(("c", "q"), ("c", "m"), ("c", "a"))
    assert keep_nearest("c", ["q", "m", "a"], edges, max_nodes=3).ids == ["c", "a", "m"]
    assert keep_nearest("c", ["a", "m", "q"], edges[::-1], max_nodes=3).ids == ["c", "a", "m"]


def test_within_the_limit_nothing_is_left_out() -> None:
    center, nodes, edges = synthetic_neighbourhood(50, 120, seed=4)
    links = [(e.source, e.target, e.kind) for e in edges]
    kept = keep_nearest(center, [n.id for n in nodes], links, max_nodes=300)
    assert sorted(kept.ids) == sorted(n.id for n in nodes)
    assert kept.edges == sorted(links)
    assert kept.omitted == 0


def test_a_generated_graph_is_cut_to_the_limit() -> None:
    center, nodes, edges = synthetic_neighbourhood(2000, 6000, seed=4)
    links = [(e.source, e.target, e.kind) for e in edges]
    kept = keep_nearest(center, [n.id for n in nodes], links, max_nodes=300)
    assert len(kept.ids) == 300
    assert kept.omitted == 1700
    ids = set(kept.ids)
    assert all(source in ids and target in ids for source, target, _ in kept.edges)
    assert kept.ids[0] == center


def test_one_hop_more_is_read_only_while_there_is_room() -> None:
    graph = memory_graph([("c", "a"), ("c", "b"), ("a", "far")])
    assert {node.id for node in graph.neighbourhood("c", hops=2).nodes} == {"c", "a", "b", "far"}
    full = graph.neighbourhood("c", hops=2, max_nodes=3)
    assert [node.id for node in full.nodes] == ["c", "a", "b"]
    assert full.omitted == 0  # "far" was never read: nearer nodes fill the budget


def test_the_cache_keeps_the_best_linked_neighbours(
    writer: StoreWriter, reader: CacheReader
) -> None:
    pages = [
        {"id": "c", "type": "web", "title": "Centre", "reference_content_ids": ["q", "a", "m"]},
        {"id": "m", "type": "web", "title": "M", "reference_content_ids": ["x", "y"]},
        *({"id": name, "type": "web", "title": name.upper()} for name in ("q", "a", "x", "y")),
    ]
    writer.ingest_json(pages).result()
    hood = reader.neighbourhood("c", hops=2, max_nodes=3)
    assert [node.id for node in hood.nodes] == ["c", "m", "a"]
    assert hood.omitted == 1


def test_the_in_memory_graph_answers_like_the_cache(
    writer: StoreWriter, reader: CacheReader, cache_path: Path
) -> None:
    center, nodes, edges = synthetic_neighbourhood(150, 400, seed=7, first_hop=12)
    targets: dict[str, list[str]] = {}
    for edge in edges:
        targets.setdefault(edge.source, []).append(edge.target)
    pages = [
        {"id": n.id, "type": "web", "title": n.title, "reference_content_ids": targets.get(n.id)}
        for n in nodes
    ]
    writer.ingest_json(pages).result()
    with sqlite3.connect(cache_path) as db:
        stored = db.execute("SELECT source, target, kind FROM edges").fetchall()
    graph = MemoryGraph(
        [SyntheticNode(n.id, "web", n.title) for n in nodes],
        [SyntheticEdge(*link) for link in stored],
    )
    for hops, max_nodes in ((1, 300), (2, 300), (2, 40), (1, 5)):
        for start in (center, nodes[20].id, nodes[99].id):
            assert graph.neighbourhood(start, hops, max_nodes) == reader.neighbourhood(
                start, hops, max_nodes
            ), (start, hops, max_nodes)
