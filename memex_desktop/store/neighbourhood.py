"""Which part of a neighbourhood the graph shows: nearest first, then best linked, then by id.

A person looking at an item's graph wants what is closest to it; among items equally close,
the ones with more links in the library (notes, references, tags) lead further, so they are
kept before the rest, and the id breaks the remaining ties so the same centre always shows
the same nodes. :func:`bounded_neighbourhood`
explores through a :class:`GraphSource`: the cache answers with bounded SQL reads, an in-memory
graph in tests answers from lists, and both get this one policy.

A filter (:class:`GraphFilter`) hides kinds of link and content types, and what only they
joined to the centre (:func:`shown_within`). Where the budget cut a neighbourhood and the
filter hides part of it, :func:`filtered_neighbourhood` explores it again through what the
filter shows, with the same policy and budget (:func:`read_shown` decides which). That read
asks the reader for the links of the kinds shown only: links of a hidden kind take no part of
the bounded reads, of the nodes kept, or of the "+N more" count.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
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


@dataclass(frozen=True)
class GraphFilter:
    """What the person hides of a graph: kinds of link and content types.

    A link of a hidden kind connects nothing; a node of a hidden type is not shown, so it
    connects nothing beyond it either. The centre is what the person looks at: it is always
    shown, whatever its type.
    """

    kinds: frozenset[str] = frozenset()
    types: frozenset[str] = frozenset()

    def __bool__(self) -> bool:
        """Whether it hides anything."""
        return bool(self.kinds or self.types)

    def covers(self, other: GraphFilter) -> bool:
        """Whether it hides at least everything ``other`` hides."""
        return self.kinds >= other.kinds and self.types >= other.types


EVERY_LINK = GraphFilter()
"""The filter that hides nothing."""


def shown_within(
    center: str,
    types: Mapping[str, str],
    edges: Iterable[Edge],
    hops: int,
    hidden: GraphFilter = EVERY_LINK,
) -> dict[str, int]:
    """Hop distance of each node that links the filter shows join to ``center`` within ``hops``.

    ``types`` gives the content type of each node (a node absent from it is of no hidden
    type). Only the shortest path through shown links and shown nodes counts: what was
    reached only through a hidden link or a hidden node is not within reach.
    """
    adjacent: dict[str, list[str]] = {}
    for source, target, kind in edges:
        if kind not in hidden.kinds:
            adjacent.setdefault(source, []).append(target)
            adjacent.setdefault(target, []).append(source)
    reached = {center: 0}
    frontier = [center]
    for hop in range(1, max(0, hops) + 1):
        following: list[str] = []
        for node in frontier:
            for other in adjacent.get(node, ()):
                if other not in reached and types.get(other, "") not in hidden.types:
                    reached[other] = hop
                    following.append(other)
        frontier = following
    return reached


def read_whole(hood: Neighbourhood, max_nodes: int) -> bool:
    """Whether a read holds every node within its hops: nothing left out, and room to spare.

    A read that filled its budget may have stopped before its last hop without counting
    what lay there (:func:`bounded_neighbourhood`), so only a read below the budget is whole.
    """
    return hood.omitted == 0 and len(hood.nodes) < max(1, max_nodes)


class NeighbourhoodReader(Protocol):
    """What answers neighbourhoods (the cache's reader, the tests' in-memory graph)."""

    def neighbourhood(
        self,
        entity_id: str,
        hops: int = ...,
        max_nodes: int = ...,
        *,
        hidden_kinds: frozenset[str] = ...,
    ) -> Neighbourhood:
        """The graph within ``hops`` of an entity through links not of ``hidden_kinds``, cut
        to ``max_nodes`` nodes."""
        ...


class _ShownLinks:
    """A ``GraphSource`` of the links a filter shows, read one node's neighbourhood at a time.

    A reader answers whole neighbourhoods only; the neighbourhood one hop around a node, read
    through the kinds of link the filter shows, gives its links, bounded as the reader bounds
    them, and the types of the nodes at their other ends. Links of hidden kinds are never
    read, and links to nodes of hidden types are dropped before the policy sees them, so what
    lies beyond them is never reached and the budget goes to what the filter shows.
    """

    def __init__(
        self,
        reader: NeighbourhoodReader,
        center: str,
        hidden: GraphFilter,
        stop: Callable[[], bool] | None,
    ) -> None:
        self._reader = reader
        self._center = center
        self._hidden = hidden
        self._stop = stop
        self._nodes: dict[str, GraphNode] = {}
        self._links: set[Edge] = set()

    def _shows(self, link: Edge) -> bool:
        """Whether the filter shows a link and the nodes at both its ends."""
        if link[2] in self._hidden.kinds:  # not asked for; kept out all the same
            return False
        return all(
            end == self._center
            or (node := self._nodes.get(end)) is None
            or node.type not in self._hidden.types
            for end in link[:2]
        )

    def adjacent(self, ids: Sequence[str], cap: int) -> tuple[list[Edge], int]:
        """Shown links touching ``ids`` (at most ``cap`` neighbours of each) and how many not
        read: a node with more neighbours than that keeps those its reader keeps."""
        found: list[Edge] = []
        cut = 0
        for node_id in ids:
            if self._stop is not None and self._stop():
                break
            hood = self._reader.neighbourhood(
                node_id, hops=1, max_nodes=cap, hidden_kinds=self._hidden.kinds
            )
            cut += hood.omitted
            for node in hood.nodes:
                self._nodes.setdefault(node.id, node)
            for edge in hood.edges:
                link = (edge.source, edge.target, edge.kind)
                if self._shows(link):
                    # Links among the node's neighbours are kept for edges_among.
                    self._links.add(link)
                    if node_id in link[:2]:
                        found.append(link)
        return found, cut

    def edges_among(self, ids: Sequence[str]) -> set[Edge]:
        """Shown links read so far whose two ends are both in ``ids``."""
        wanted = set(ids)
        return {link for link in self._links if link[0] in wanted and link[1] in wanted}

    def link_counts(self, ids: Sequence[str]) -> Mapping[str, int]:
        """Shown links of each of ``ids`` among those read: the best linked by what shows."""
        wanted = set(ids)
        return Counter(end for link in self._links for end in link[:2] if end in wanted)

    def graph_nodes(self, ids: Sequence[str]) -> list[GraphNode]:
        """The nodes of ``ids`` as their neighbourhoods gave them (read alone if never seen)."""
        nodes = []
        for node_id in ids:
            node = self._nodes.get(node_id)
            if node is None:
                node = self._reader.neighbourhood(node_id, hops=0, max_nodes=1).nodes[0]
            nodes.append(node)
        return nodes


def filtered_neighbourhood(
    reader: NeighbourhoodReader,
    center: str,
    hops: int = 1,
    max_nodes: int = DEFAULT_MAX_NODES,
    hidden: GraphFilter = EVERY_LINK,
    stop: Callable[[], bool] | None = None,
) -> Neighbourhood:
    """The neighbourhood the filter leaves: explored through shown links and nodes only.

    The same policy and budget as :func:`bounded_neighbourhood`: the ``max_nodes`` nearest
    items through what the filter shows, so hiding tags fills the drawing with what the
    other links reach instead of leaving it with the few the tags did not crowd out. The
    reader is asked for the links of shown kinds only, so a hub of a hidden kind (a tag on
    10,000 items) fills no bounded read and counts in no "+N more".
    ``stop`` is asked between two reads (a filter hiding kinds of link only takes one); once
    it answers True the reading ends early.
    """
    if not hidden.types:
        # One bounded read of the reader's own, through the kinds of link shown.
        return reader.neighbourhood(
            center, hops=hops, max_nodes=max_nodes, hidden_kinds=hidden.kinds
        )
    return bounded_neighbourhood(_ShownLinks(reader, center, hidden, stop), center, hops, max_nodes)


@dataclass(frozen=True)
class ShownNeighbourhood:
    """A neighbourhood read for a filter, and what it says of the one through every link.

    ``hood`` was explored skipping what ``read_for`` hides (nothing: every link); ``reached``
    counts the items within the hops through every kind of link (read, plus left out), so
    the filter hides ``reached`` less what shows less what is left out.
    """

    hood: Neighbourhood
    read_for: GraphFilter
    reached: int
    whole: bool


def read_shown(
    reader: NeighbourhoodReader,
    center: str,
    hops: int = 1,
    max_nodes: int = DEFAULT_MAX_NODES,
    hidden: GraphFilter = EVERY_LINK,
    stop: Callable[[], bool] | None = None,
) -> ShownNeighbourhood:
    """The neighbourhood through every link and, when the filter needs one, a filtered read.

    The read through every link is kept when it holds every node within the hops (the filter
    then only hides some of it), or when the filter hides content types only and none of
    what it holds. Otherwise the budget is filled again through what the filter shows: a cut
    read hiding kinds of link is always read again, since links of those kinds may have
    filled its bounded reads, crowding out links shown, and its "+N more" counts them.
    """
    full = reader.neighbourhood(center, hops=hops, max_nodes=max_nodes)
    reached = len(full.nodes) + full.omitted
    whole = read_whole(full, max_nodes)
    if hidden and not whole:
        types = {node.id: node.type for node in full.nodes}
        links = [(edge.source, edge.target, edge.kind) for edge in full.edges]
        if hidden.kinds or len(shown_within(center, types, links, hops, hidden)) < len(full.nodes):
            filtered = filtered_neighbourhood(reader, center, hops, max_nodes, hidden, stop)
            return ShownNeighbourhood(filtered, hidden, reached, read_whole(filtered, max_nodes))
    return ShownNeighbourhood(full, EVERY_LINK, reached, whole)
