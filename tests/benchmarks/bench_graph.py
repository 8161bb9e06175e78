"""Graph benchmark: node budget + layout of a 2,000-node / 6,000-edge neighbourhood, and cancel."""

from __future__ import annotations

import pathlib
import statistics
import threading
import time
from collections.abc import Callable

from memex_desktop.graph import LayoutCancelled, layout
from memex_desktop.graph.synthetic import synthetic_neighbourhood
from memex_desktop.store.neighbourhood import DEFAULT_MAX_NODES, keep_nearest

REPEATS = 5


def _timed_ms(fn: Callable[[], None]) -> float:
    """Wall time of one call of ``fn`` in milliseconds."""
    started = time.perf_counter()
    fn()
    return (time.perf_counter() - started) * 1000


def _cancel_latency_ms(seed: int) -> float:
    """Time from setting the cancel event to the layout thread having stopped."""
    center, nodes, edges = synthetic_neighbourhood(2000, 6000, seed=seed)
    cancel = threading.Event()
    running = threading.Event()

    def work() -> None:
        running.set()
        try:
            layout(nodes, edges, center=center, iterations=10_000, cancel=cancel)
        except LayoutCancelled:
            return

    thread = threading.Thread(target=work)
    thread.start()
    running.wait(5)
    thread.join(0.2)  # let it reach the force iterations
    started = time.perf_counter()
    cancel.set()
    thread.join(10)
    return (time.perf_counter() - started) * 1000


def run(workdir: pathlib.Path, entities: int) -> dict[str, float]:
    """Medians of: budgeted layout (what the pane does), full 2,000-node layout, cancel latency."""
    del workdir, entities  # the graph size is fixed by the acceptance criterion, not the library
    center, nodes, edges = synthetic_neighbourhood(2000, 6000, seed=11)
    ids = [node.id for node in nodes]
    links = [(edge.source, edge.target, edge.kind) for edge in edges]

    def budgeted() -> None:
        kept = keep_nearest(center, ids, links, DEFAULT_MAX_NODES)
        layout(kept.ids, [(source, target) for source, target, _ in kept.edges], center=center)

    def full() -> None:
        layout(nodes, edges, center=center)

    return {
        "graph_layout_2000_ms": statistics.median(_timed_ms(budgeted) for _ in range(REPEATS)),
        "graph_layout_full_2000_ms": statistics.median(_timed_ms(full) for _ in range(REPEATS)),
        "graph_cancel_ms": statistics.median(_cancel_latency_ms(s) for s in range(REPEATS)),
    }


if __name__ == "__main__":
    print(run(pathlib.Path("."), 0))
