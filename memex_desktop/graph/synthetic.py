"""Generated neighbourhoods of a given size, for benchmarks and tests of the graph pane."""

from __future__ import annotations

import random
from dataclasses import dataclass

EDGE_KINDS = ("annotates", "references", "reply", "tag")
NODE_TYPES = ("web", "twitter", "youtube", "reddit", "image", "annotation", "pdf", "tag")


@dataclass(frozen=True)
class SyntheticNode:
    """A node shaped like the store's ``GraphNode``."""

    id: str
    type: str
    title: str


@dataclass(frozen=True)
class SyntheticEdge:
    """An edge shaped like the store's ``GraphEdge``."""

    source: str
    target: str
    kind: str


def synthetic_neighbourhood(
    nodes: int = 2000, edges: int = 6000, *, seed: int = 0, first_hop: int = 60
) -> tuple[str, list[SyntheticNode], list[SyntheticEdge]]:
    """(centre, nodes, edges) of a two-hop neighbourhood: a tree plus random cross links."""
    rng = random.Random(seed)
    ids = [f"n{i:06d}" for i in range(nodes)]
    made = [
        SyntheticNode(nid, rng.choice(NODE_TYPES), f"Item {i} " + rng.choice("abcdefgh") * 3)
        for i, nid in enumerate(ids)
    ]
    links: dict[tuple[str, str], str] = {}
    ring = max(1, min(first_hop, nodes - 1))
    for i in range(1, nodes):
        parent = 0 if i <= ring else rng.randint(1, ring)
        links[(ids[i], ids[parent])] = rng.choice(EDGE_KINDS)
    wanted = max(edges, len(links))
    while len(links) < wanted and nodes > 1:
        a, b = rng.randrange(1, nodes), rng.randrange(1, nodes)
        if a != b and (ids[b], ids[a]) not in links:
            links[(ids[a], ids[b])] = rng.choice(EDGE_KINDS)
    made_edges = [SyntheticEdge(a, b, kind) for (a, b), kind in links.items()]
    return ids[0], made, made_edges
