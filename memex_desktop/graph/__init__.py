"""Reference-graph layout: a cancellable force layout of a neighbourhood (no Qt).

Which nodes a neighbourhood keeps is the store's policy (``memex_desktop.store.neighbourhood``):
the cache reads it, and the pane only lays out what it was given.
"""

from memex_desktop.graph.layout import (
    Layout,
    LayoutCancelled,
    auto_iterations,
    edge_ends,
    layout,
    node_id,
)

__all__ = [
    "Layout",
    "LayoutCancelled",
    "auto_iterations",
    "edge_ends",
    "layout",
    "node_id",
]
