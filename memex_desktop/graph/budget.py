"""Cut a neighbourhood down to a node budget, keeping what is nearest to the centre."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from memex_desktop.graph.layout import EdgeInput, NodeInput, edge_ends, node_id

DEFAULT_MAX_NODES = 300
"""Nodes the graph pane shows at most; the rest is summarised as "+N more"."""

N = TypeVar("N", bound=NodeInput)
E = TypeVar("E", bound=EdgeInput)


@dataclass(frozen=True)
class Budgeted(Generic[N, E]):
    """The kept nodes and the edges between them, plus what was left out."""

    nodes: list[N]
    edges: list[E]
    omitted: int
    hops: dict[str, int]
    hidden_neighbours: dict[str, int]
    """Per kept node, how many of its neighbours were left out (for "+N" badges)."""

    def summary(self) -> str:
        """The "+N more" line shown under the graph, or "" when nothing was left out."""
        return f"+{self.omitted} more" if self.omitted else ""


def hop_distances(center: str, edges: Iterable[tuple[str, str]]) -> dict[str, int]:
    """Breadth-first hop count from ``center`` over undirected edges (reachable nodes only)."""
    adjacent: dict[str, list[str]] = {}
    for a, b in edges:
        adjacent.setdefault(a, []).append(b)
        adjacent.setdefault(b, []).append(a)
    hops = {center: 0}
    frontier = [center]
    while frontier:
        following: list[str] = []
        for node in frontier:
            for other in sorted(adjacent.get(node, ())):
                if other not in hops:
                    hops[other] = hops[node] + 1
                    following.append(other)
        frontier = following
    return hops


def budget(
    nodes: Sequence[N],
    edges: Sequence[E],
    *,
    center: str,
    max_nodes: int = DEFAULT_MAX_NODES,
) -> Budgeted[N, E]:
    """Keep at most ``max_nodes`` nodes: nearest by hops first, then best linked, then by id.

    Nodes not connected to the centre count as farthest. The centre is always kept.
    """
    pairs = [edge_ends(e) for e in edges]
    hops = hop_distances(center, pairs)
    degree: dict[str, int] = {}
    for a, b in pairs:
        degree[a] = degree.get(a, 0) + 1
        degree[b] = degree.get(b, 0) + 1
    unreachable = len(nodes) + 1

    def rank(node: N) -> tuple[int, int, str]:
        """Sort key: centre first, nearer hops, more links, then id for a stable order."""
        nid = node_id(node)
        return (hops.get(nid, unreachable), -degree.get(nid, 0), nid)

    ranked = sorted(nodes, key=rank)
    kept = ranked[: max(1, max_nodes)]
    kept_ids = {node_id(n) for n in kept}
    kept_edges = [
        e for e, (a, b) in zip(edges, pairs, strict=True) if a in kept_ids and b in kept_ids
    ]
    hidden: dict[str, int] = {}
    for a, b in set(pairs):
        if a in kept_ids and b not in kept_ids:
            hidden[a] = hidden.get(a, 0) + 1
        elif b in kept_ids and a not in kept_ids:
            hidden[b] = hidden.get(b, 0) + 1
    return Budgeted(
        nodes=kept,
        edges=kept_edges,
        omitted=len(ranked) - len(kept),
        hops={nid: hops[nid] for nid in kept_ids if nid in hops},
        hidden_neighbours=hidden,
    )
