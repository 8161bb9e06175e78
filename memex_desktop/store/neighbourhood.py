"""Which part of a neighbourhood the graph shows: nearest first, then best linked, then by id.

A person looking at an item's graph wants what is closest to it; among items equally close,
the ones with more links in the library (notes, references, tags) lead further, so they are
kept before the rest, and the id breaks the remaining ties so the same centre always shows
the same nodes. :func:`bounded_neighbourhood`
explores through a :class:`GraphSource`: the cache answers with bounded SQL reads, an in-memory
graph in tests answers from lists, and both get this one policy.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from memex_desktop.store.rows import GraphEdge, GraphNode, Neighbourhood

DEFAULT_MAX_NODES = 300
"""Nodes the graph pane shows at most; the rest is summarised as "+N more"."""

EDGE_CHECK_LIMIT = 1000
"""Most ids whose links among one another are read in one more query (two IN lists of this
size stay within a few milliseconds); above it only the links found while exploring count."""

Edge = tuple[str, str, str]
"""(source, target, kind) of one link."""


class GraphSource(Protocol):
    """Where a neighbourhood is explored: the links of given nodes and what the nodes are."""

    def adjacent(self, ids: Sequence[str], cap: int) -> tuple[list[Edge], int]:
        """Links touching ``ids`` (about ``cap`` of each kind at most) and how many were cut."""
        ...

    def edges_among(self, ids: Sequence[str]) -> set[Edge]:
        """Every link whose two ends are both in ``ids``."""
        ...

    def link_counts(self, ids: Sequence[str]) -> Mapping[str, int]:
        """How many links each of ``ids`` has in the whole graph (absent: none)."""
        ...

    def graph_nodes(self, ids: Sequence[str]) -> list[GraphNode]:
        """The nodes of ``ids``, in that order (unknown ids as ``missing`` nodes)."""
        ...


@dataclass(frozen=True)
class Nearest:
    """The ids kept within the budget (best first), the links among them, and how many not."""

    ids: list[str]
    edges: list[Edge]
    omitted: int


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


def keep_nearest(
    center: str,
    ids: Iterable[str],
    edges: Iterable[Edge],
    max_nodes: int = DEFAULT_MAX_NODES,
    link_counts: Mapping[str, int] | None = None,
) -> Nearest:
    """Keep at most ``max_nodes`` of ``ids``: fewest hops, then most links, then by id.

    The centre is always kept; nodes not connected to it count as farthest. Links are counted
    in ``edges`` unless ``link_counts`` gives the counts (of the whole graph) instead.
    """
    links = set(edges)
    pairs = [(source, target) for source, target, _kind in links]
    hops = hop_distances(center, pairs)
    degree = Counter(end for pair in pairs for end in pair) if link_counts is None else link_counts
    candidates = list(dict.fromkeys([center, *ids]))
    unreachable = len(candidates) + 1
    ranked = sorted(
        candidates,
        key=lambda node: (hops.get(node, unreachable), -degree.get(node, 0), node),
    )
    kept = ranked[: max(1, max_nodes)]
    chosen = set(kept)
    kept_edges = sorted(edge for edge in links if edge[0] in chosen and edge[1] in chosen)
    return Nearest(kept, kept_edges, len(ranked) - len(kept))


def bounded_neighbourhood(
    source: GraphSource, center: str, hops: int = 1, max_nodes: int = DEFAULT_MAX_NODES
) -> Neighbourhood:
    """The graph within ``hops`` of ``center``, cut to ``max_nodes`` by :func:`keep_nearest`.

    Each hop reads a bounded number of links, so a hub (a tag on 10,000 items) costs no more
    than the budget. A hop is explored only while the nodes found so far leave room: nearer
    nodes always win, so farther ones could not be kept anyway. ``omitted`` counts the nodes
    found but left out and the links the bounded reads cut.
    """
    max_nodes = max(1, max_nodes)
    distance = {center: 0}
    found: set[Edge] = set()
    cut = 0
    frontier = [center]
    for hop in range(1, max(0, hops) + 1):
        if not frontier or len(distance) >= max_nodes:
            break
        edges, unread = source.adjacent(frontier, 2 * max_nodes)
        cut += unread
        frontier = []
        for edge in edges:
            found.add(edge)
            for end in edge[:2]:
                if end not in distance:
                    distance[end] = hop
                    frontier.append(end)
    candidates = list(distance)
    if len(candidates) <= EDGE_CHECK_LIMIT:
        found |= source.edges_among(candidates)
    counts: Mapping[str, int] | None = None
    if len(candidates) > max_nodes:
        # Only the farthest level read can be cut (every nearer one fitted): rank it by
        # its links in the whole library, most of which these bounded reads never saw.
        farthest = max(distance.values())
        counts = source.link_counts([node for node, hop in distance.items() if hop == farthest])
    nearest = keep_nearest(center, candidates, found, max_nodes, counts)
    edges = nearest.edges
    if len(candidates) > EDGE_CHECK_LIMIT and len(nearest.ids) <= EDGE_CHECK_LIMIT:
        edges = sorted({*edges, *source.edges_among(nearest.ids)})
    return Neighbourhood(
        center=center,
        nodes=source.graph_nodes(nearest.ids),
        edges=[GraphEdge(*edge) for edge in edges],
        omitted=nearest.omitted + cut,
    )
