"""Force-directed layout of a reference-graph neighbourhood, in pure Python.

The layout starts from a radial placement (hop distance from the centre gives the ring, the
breadth-first tree gives each node an angular wedge) and refines it with Fruchterman-Reingold
iterations whose repulsion only looks at nearby nodes through a uniform grid, so one iteration
costs O(nodes + edges) instead of O(nodes²). The number of iterations is derived from the graph
size (never from the clock) so a given seed always gives the same positions, and the work loop
checks a cancel event every few hundred pair computations so a cancelled layout stops at once.
"""

from __future__ import annotations

import math
import random
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

IDEAL_EDGE = 60.0
"""Preferred distance between two linked nodes, in scene units."""

WORK_BUDGET = 800_000
"""Pair and edge computations an automatic layout may spend (about 200 ms for 2,000 nodes)."""

MIN_ITERATIONS = 6
MAX_ITERATIONS = 80
REPULSION_REACH = 1.0
"""Repulsion is ignored beyond this many ideal edge lengths (the grid cell size)."""
CANCEL_CHECK_EVERY = 256
"""Pair computations between two looks at the cancel event (about 0.1 ms of work)."""


class NodeLike(Protocol):
    """Anything with an ``id`` (the store's ``GraphNode``)."""

    @property
    def id(self) -> str: ...


class EdgeLike(Protocol):
    """Anything with ``source`` and ``target`` ids (the store's ``GraphEdge``)."""

    @property
    def source(self) -> str: ...

    @property
    def target(self) -> str: ...


NodeInput = str | NodeLike
EdgeInput = tuple[str, str] | EdgeLike


class LayoutCancelled(Exception):
    """Raised by :func:`layout` when its cancel event was set before it finished."""


@dataclass(frozen=True)
class Layout:
    """Scene positions by node id; the centre node sits at (0, 0)."""

    positions: dict[str, tuple[float, float]]
    iterations: int = 0

    def bounds(self) -> tuple[float, float, float, float]:
        """Smallest (left, top, right, bottom) box holding every position."""
        if not self.positions:
            return (0.0, 0.0, 0.0, 0.0)
        xs = [p[0] for p in self.positions.values()]
        ys = [p[1] for p in self.positions.values()]
        return (min(xs), min(ys), max(xs), max(ys))


def node_id(node: NodeInput) -> str:
    """The id of a node given as a string or as a node object."""
    return node if isinstance(node, str) else node.id


def edge_ends(edge: EdgeInput) -> tuple[str, str]:
    """(source, target) of an edge given as a pair or as an edge object."""
    if isinstance(edge, tuple):
        return edge[0], edge[1]
    return edge.source, edge.target


def auto_iterations(node_count: int, edge_count: int) -> int:
    """Iterations that fit the work budget for this size; depends on the size only."""
    # Each node meets about a dozen grid neighbours per iteration, plus one step per edge.
    per_iteration = max(1, node_count * 12 + edge_count * 2)
    return max(MIN_ITERATIONS, min(MAX_ITERATIONS, WORK_BUDGET // per_iteration))


def layout(
    nodes: Iterable[NodeInput],
    edges: Iterable[EdgeInput],
    *,
    center: str | None,
    seed: int = 0,
    iterations: int | None = None,
    cancel: threading.Event | None = None,
) -> Layout:
    """Positions for every node: deterministic for a seed, cancellable, O(n + m) per iteration.

    ``iterations=None`` picks a count from the graph size (see :func:`auto_iterations`).
    Raises :class:`LayoutCancelled` when ``cancel`` is set while it runs.
    """
    ids = sorted({node_id(n) for n in nodes})
    if not ids:
        return Layout({})
    index = {nid: i for i, nid in enumerate(ids)}
    pairs = _edge_pairs(edges, index)
    rounds = auto_iterations(len(ids), len(pairs)) if iterations is None else max(0, iterations)
    rng = random.Random(seed)
    centre = index.get(center) if center is not None else None
    xs, ys, bands = _radial_start(len(ids), pairs, centre, rng)
    _check(cancel)
    _refine(xs, ys, pairs, bands if centre is not None else None, rounds, cancel)
    return Layout({nid: (xs[i], ys[i]) for i, nid in enumerate(ids)}, rounds)


def _check(cancel: threading.Event | None) -> None:
    """Stop with :class:`LayoutCancelled` when the event is set."""
    if cancel is not None and cancel.is_set():
        raise LayoutCancelled


def _edge_pairs(edges: Iterable[EdgeInput], index: dict[str, int]) -> list[tuple[int, int]]:
    """Distinct undirected index pairs for edges whose both ends are laid out."""
    seen: set[tuple[int, int]] = set()
    for edge in edges:
        a, b = edge_ends(edge)
        ia, ib = index.get(a), index.get(b)
        if ia is None or ib is None or ia == ib:
            continue
        seen.add((ia, ib) if ia < ib else (ib, ia))
    return sorted(seen)


def _adjacency(count: int, pairs: Sequence[tuple[int, int]]) -> list[list[int]]:
    """Neighbour lists, sorted so traversal order does not depend on edge order."""
    adjacent: list[list[int]] = [[] for _ in range(count)]
    for a, b in pairs:
        adjacent[a].append(b)
        adjacent[b].append(a)
    for neighbours in adjacent:
        neighbours.sort()
    return adjacent


def _bfs_forest(
    adjacent: list[list[int]], centre: int | None, rng: random.Random
) -> tuple[list[int], list[int], list[list[int]]]:
    """Depth, parent and children of a breadth-first forest rooted at the centre first."""
    count = len(adjacent)
    depth = [-1] * count
    parent = [-1] * count
    children: list[list[int]] = [[] for _ in range(count)]
    others = list(range(count))
    rng.shuffle(others)
    roots = ([centre] if centre is not None else []) + others
    extra_depth = 0
    for root in roots:
        if depth[root] != -1:
            continue
        # Components not linked to the centre go on rings outside the connected part.
        depth[root] = 0 if root == centre else extra_depth + 1
        queue = [root]
        head = 0
        while head < len(queue):
            node = queue[head]
            head += 1
            for other in adjacent[node]:
                if depth[other] == -1:
                    depth[other] = depth[node] + 1
                    parent[other] = node
                    children[node].append(other)
                    queue.append(other)
        extra_depth = max(extra_depth, max(depth[n] for n in queue))
    return depth, parent, children


def _radial_start(
    count: int, pairs: Sequence[tuple[int, int]], centre: int | None, rng: random.Random
) -> tuple[list[float], list[float], list[tuple[float, float]]]:
    """Ring per hop distance, wedge per breadth-first subtree, annuli sized for their crowd."""
    adjacent = _adjacency(count, pairs)
    depth, parent, children = _bfs_forest(adjacent, centre, rng)
    # Leaves under each node decide the width of its wedge.
    order = sorted(range(count), key=lambda n: depth[n])
    weight = [1.0] * count
    for node in reversed(order):
        if children[node]:
            weight[node] = float(sum(weight[c] for c in children[node]))
    roots = [n for n in order if parent[n] == -1]
    # Annulus of each depth: its area grows with the number of nodes it must hold.
    per_depth: dict[int, int] = {}
    for d in depth:
        per_depth[d] = per_depth.get(d, 0) + 1
    inner: dict[int, float] = {}
    outer: dict[int, float] = {}
    radius = 0.0
    for d in sorted(per_depth):
        start = radius + (IDEAL_EDGE if d > 0 else 0.0)
        area = per_depth[d] * (IDEAL_EDGE * 0.9) ** 2
        end = math.sqrt(start * start + area / math.pi) if d > 0 else 0.0
        inner[d], outer[d] = start, max(start, end)
        radius = outer[d]
    angle_from = [0.0] * count
    angle_to = [0.0] * count
    total = sum(weight[r] for r in roots) or 1.0
    offset = rng.random() * 2 * math.pi
    cursor = offset
    for root in roots:
        angle_from[root] = cursor
        cursor += 2 * math.pi * weight[root] / total
        angle_to[root] = cursor
    xs = [0.0] * count
    ys = [0.0] * count
    golden = (math.sqrt(5) - 1) / 2
    phase = rng.random()
    for rank, node in enumerate(order):
        lo, hi = angle_from[node], angle_to[node]
        # Children split the parent's wedge in proportion to their own subtrees.
        cursor = lo
        span = hi - lo
        for child in children[node]:
            angle_from[child] = cursor
            cursor += span * weight[child] / weight[node]
            angle_to[child] = cursor
        d = depth[node]
        if d == 0 and node == centre:
            continue
        # A low-discrepancy radius spreads crowded wedges through the annulus.
        u = (phase + rank * golden) % 1.0
        r0, r1 = inner[d], outer[d]
        r = math.sqrt(r0 * r0 + u * (r1 * r1 - r0 * r0))
        theta = (lo + hi) / 2
        xs[node] = r * math.cos(theta)
        ys[node] = r * math.sin(theta)
    # Each node may drift one edge length in or out of its starting radius: enough to untangle,
    # too little for the strong pull of dense links to pile a ring onto its inner edge.
    bands = []
    for n in range(count):
        r = math.hypot(xs[n], ys[n])
        bands.append((max(inner[depth[n]], r - IDEAL_EDGE), min(outer[depth[n]], r + IDEAL_EDGE)))
    return xs, ys, bands


def _refine(
    xs: list[float],
    ys: list[float],
    pairs: Sequence[tuple[int, int]],
    bands: Sequence[tuple[float, float]] | None,
    rounds: int,
    cancel: threading.Event | None,
) -> None:
    """Fruchterman-Reingold with grid-bounded repulsion and linear cooling, in place.

    With ``bands`` each node stays within its (inner, outer) radius around the origin: hop
    distance stays readable, and the rings cannot collapse into a ball however dense the links.
    """
    count = len(xs)
    if count < 2 or rounds <= 0:
        return
    k = IDEAL_EDGE
    k2 = k * k
    cell = k * REPULSION_REACH
    reach2 = cell * cell
    spread = max(max(abs(x) for x in xs), max(abs(y) for y in ys), k)
    start_temp = max(k, spread / 10)
    degree = [0] * count
    for a, b in pairs:
        degree[a] += 1
        degree[b] += 1
    # Attraction shared out by degree keeps dense neighbourhoods from collapsing into a ball.
    pull = [(1.0 / math.sqrt(max(1, min(degree[a], degree[b])))) / k for a, b in pairs]
    is_set = cancel.is_set if cancel is not None else None
    budget = CANCEL_CHECK_EVERY
    for step in range(rounds):
        temp = start_temp * (1 - step / rounds) + 1.0
        fx = [0.0] * count
        fy = [0.0] * count
        grid: dict[tuple[int, int], list[int]] = {}
        for i in range(count):
            key = (int(xs[i] // cell), int(ys[i] // cell))
            bucket = grid.get(key)
            if bucket is None:
                grid[key] = [i]
            else:
                bucket.append(i)
        for (gx, gy), members in grid.items():
            # Each unordered pair of cells is visited once: itself and four forward neighbours.
            for nkey in ((gx, gy), (gx + 1, gy), (gx - 1, gy + 1), (gx, gy + 1), (gx + 1, gy + 1)):
                others = members if nkey == (gx, gy) else grid.get(nkey)
                if others is None:
                    continue
                same = others is members
                for a_pos, a in enumerate(members):
                    ax = xs[a]
                    ay = ys[a]
                    fax = 0.0
                    fay = 0.0
                    for b in members[a_pos + 1 :] if same else others:
                        dx = ax - xs[b]
                        dy = ay - ys[b]
                        d2 = dx * dx + dy * dy
                        if d2 >= reach2:
                            continue
                        if d2 < 0.01:
                            # Coincident nodes: push apart along a direction fixed by their ids.
                            dx = 0.1 * (1 + (a * 7 + b) % 5)
                            dy = 0.1 * (1 + (a * 3 + b) % 7)
                            d2 = dx * dx + dy * dy
                        f = k2 / d2
                        px = dx * f
                        py = dy * f
                        fax += px
                        fay += py
                        fx[b] -= px
                        fy[b] -= py
                    fx[a] += fax
                    fy[a] += fay
                    budget -= len(others)
                    if budget <= 0:
                        budget = CANCEL_CHECK_EVERY
                        if is_set is not None and is_set():
                            raise LayoutCancelled
        for (a, b), weight in zip(pairs, pull, strict=True):
            dx = xs[a] - xs[b]
            dy = ys[a] - ys[b]
            # Attraction d²/k along the edge (a vector of length d²/k), weighted by degree.
            f = math.sqrt(dx * dx + dy * dy) * weight
            fx[a] -= dx * f
            fy[a] -= dy * f
            fx[b] += dx * f
            fy[b] += dy * f
        if is_set is not None and is_set():
            raise LayoutCancelled
        for i in range(count):
            gx_ = fx[i]
            gy_ = fy[i]
            length = math.sqrt(gx_ * gx_ + gy_ * gy_)
            if length > 0:
                scale = min(length, temp) / length
                xs[i] += gx_ * scale
                ys[i] += gy_ * scale
        if bands is not None:
            for i in range(count):
                low, high = bands[i]
                x = xs[i]
                y = ys[i]
                r = math.sqrt(x * x + y * y)
                if r > high or r < low:
                    if r < 1e-9:
                        xs[i] = low
                        continue
                    scale = (high if r > high else low) / r
                    xs[i] = x * scale
                    ys[i] = y * scale
