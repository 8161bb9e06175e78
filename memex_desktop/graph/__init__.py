"""Reference-graph layout: budgeted neighbourhoods and a cancellable force layout (no Qt)."""

from memex_desktop.graph.budget import DEFAULT_MAX_NODES, Budgeted, budget, hop_distances
from memex_desktop.graph.layout import (
    Layout,
    LayoutCancelled,
    auto_iterations,
    edge_ends,
    layout,
    node_id,
)

__all__ = [
    "DEFAULT_MAX_NODES",
    "Budgeted",
    "Layout",
    "LayoutCancelled",
    "auto_iterations",
    "budget",
    "edge_ends",
    "hop_distances",
    "layout",
    "node_id",
]
