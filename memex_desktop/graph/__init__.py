"""Reference-graph layout and label placement (no Qt).

The layout is a cancellable force layout of a neighbourhood; label placement picks the labels
a drawing can show beside their own dots without covering a dot or another label.

Which nodes a neighbourhood keeps is the store's policy (``memex_desktop.store.neighbourhood``):
the cache reads it, and the pane only lays out what it was given.
"""

from memex_desktop.graph.labels import (
    Box,
    LabelCandidate,
    importance_order,
    label_candidate,
    moved_inside,
    place_beside_dots,
    places_around,
    places_beside,
    shortened,
)
from memex_desktop.graph.layout import (
    Layout,
    LayoutCancelled,
    auto_iterations,
    edge_ends,
    layout,
    node_id,
)

__all__ = [
    "Box",
    "LabelCandidate",
    "Layout",
    "LayoutCancelled",
    "auto_iterations",
    "edge_ends",
    "importance_order",
    "label_candidate",
    "layout",
    "moved_inside",
    "node_id",
    "place_beside_dots",
    "places_around",
    "places_beside",
    "shortened",
]
