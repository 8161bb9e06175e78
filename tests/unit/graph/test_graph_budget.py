"""Budgeting a neighbourhood: nearest first, the rest counted as "+N more"."""

from __future__ import annotations

from memex_desktop.graph import budget, hop_distances
from memex_desktop.graph.synthetic import synthetic_neighbourhood


def test_hop_distances_are_breadth_first() -> None:
    hops = hop_distances("c", [("a", "c"), ("a", "b"), ("b", "d"), ("x", "y")])
    assert hops == {"c": 0, "a": 1, "b": 2, "d": 3}


def test_budget_keeps_the_centre_and_nearest_nodes() -> None:
    nodes = ["far", "c", "near1", "near2", "mid", "island"]
    edges = [("c", "near1"), ("near2", "c"), ("near1", "mid"), ("mid", "far"), ("near1", "near2")]
    kept = budget(nodes, edges, center="c", max_nodes=4)
    assert kept.nodes == ["c", "near1", "near2", "mid"]
    assert kept.omitted == 2
    assert kept.summary() == "+2 more"
    assert ("mid", "far") not in kept.edges
    assert kept.hidden_neighbours == {"mid": 1}
    assert kept.hops == {"c": 0, "near1": 1, "near2": 1, "mid": 2}


def test_budget_prefers_better_linked_nodes_at_equal_distance() -> None:
    nodes = ["c", "a", "b", "z1", "z2"]
    edges = [("c", "a"), ("c", "b"), ("b", "z1"), ("b", "z2")]
    assert budget(nodes, edges, center="c", max_nodes=2).nodes == ["c", "b"]


def test_budget_within_limit_changes_nothing() -> None:
    center, nodes, edges = synthetic_neighbourhood(50, 120, seed=4)
    kept = budget(nodes, edges, center=center, max_nodes=300)
    assert sorted(n.id for n in kept.nodes) == sorted(n.id for n in nodes)
    assert kept.edges == edges
    assert kept.omitted == 0
    assert kept.summary() == ""


def test_budget_on_generated_graph_respects_the_limit() -> None:
    center, nodes, edges = synthetic_neighbourhood(2000, 6000, seed=4)
    kept = budget(nodes, edges, center=center, max_nodes=300)
    assert len(kept.nodes) == 300
    assert kept.omitted == 1700
    ids = {n.id for n in kept.nodes}
    assert all(e.source in ids and e.target in ids for e in kept.edges)
    assert center in ids
