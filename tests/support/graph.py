"""An in-memory reference graph that answers ``neighbourhood()`` with the cache's own policy."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from memex_desktop.graph.synthetic import SyntheticEdge, SyntheticNode
from memex_desktop.store import GraphNode, Neighbourhood
from memex_desktop.store.neighbourhood import DEFAULT_MAX_NODES, Edge, bounded_neighbourhood


@dataclass
class MemoryGraph:
    """A ``GraphSource`` over lists and a ``GraphReader`` callable from any thread.

    Only where the links come from differs from ``CacheReader``: the exploration, the node
    budget and the "+N more" count are the production ones.
    """

    nodes: list[SyntheticNode]
    edges: list[SyntheticEdge]
    calls: list[tuple[str, int, int]] = field(default_factory=list)
    path: Path | None = None

    def __post_init__(self) -> None:
        self._by_id = {node.id: node for node in self.nodes}
        self._links: list[Edge] = [(e.source, e.target, e.kind) for e in self.edges]

    def neighbourhood(
        self,
        entity_id: str,
        hops: int = 1,
        max_nodes: int = DEFAULT_MAX_NODES,
        *,
        hidden_kinds: frozenset[str] = frozenset(),
    ) -> Neighbourhood:
        """What ``CacheReader.neighbourhood`` answers for the same graph (links of
        ``hidden_kinds`` left unread)."""
        self.calls.append((entity_id, hops, max_nodes))
        if not hidden_kinds:
            return bounded_neighbourhood(self, entity_id, hops, max_nodes)
        shown = [edge for edge in self.edges if edge.kind not in hidden_kinds]
        return bounded_neighbourhood(MemoryGraph(self.nodes, shown), entity_id, hops, max_nodes)

    def adjacent(self, ids: Sequence[str], cap: int) -> tuple[list[Edge], int]:
        """Outgoing and incoming links of ``ids``, at most ``cap`` of each, and how many cut."""
        wanted = set(ids)
        outgoing = [link for link in self._links if link[0] in wanted]
        incoming = [link for link in self._links if link[1] in wanted]
        cut = max(0, len(outgoing) - cap) + max(0, len(incoming) - cap)
        return outgoing[:cap] + incoming[:cap], cut

    def edges_among(self, ids: Sequence[str]) -> set[Edge]:
        """Links with both ends in ``ids``."""
        wanted = set(ids)
        return {link for link in self._links if link[0] in wanted and link[1] in wanted}

    def link_counts(self, ids: Sequence[str]) -> dict[str, int]:
        """Links of each of ``ids`` in the whole graph."""
        wanted = set(ids)
        counts = Counter(end for link in self._links for end in link[:2] if end in wanted)
        return dict(counts)

    def graph_nodes(self, ids: Sequence[str]) -> list[GraphNode]:
        """The nodes of ``ids``; an unknown id is a ``missing`` node, as in the cache."""
        return [self._node(node_id) for node_id in ids]

    def _node(self, node_id: str) -> GraphNode:
        node = self._by_id.get(node_id)
        if node is None:
            return GraphNode(node_id, "missing", node_id)
        return GraphNode(node.id, node.type, node.title)


def memory_graph(pairs: Iterable[tuple[str, str]], kind: str = "references") -> MemoryGraph:
    """A graph of untitled web pages from (source, target) pairs."""
    links = list(pairs)
    ids = dict.fromkeys(end for pair in links for end in pair)
    return MemoryGraph(
        [SyntheticNode(node_id, "web", node_id) for node_id in ids],
        [SyntheticEdge(source, target, kind) for source, target in links],
    )
