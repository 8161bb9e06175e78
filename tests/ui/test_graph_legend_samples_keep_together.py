"""The folded legend keeps its samples on the row of its "Legend" button where the width
allows: at two hops around a busy item, in the dock beside the reader at 1366×768, a dozen
content types and four kinds of link left the last line sample (the tags' dotted line) alone
on a row of its own. The samples now sit closer before one wraps; where they need two rows,
the dots and the lines each keep to one, rather than a line sample left alone."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from PySide6.QtCore import QSize
from support.graph_pane import docked_graph_pane, draw
from support.window import WindowFactory

from memex_desktop.ui.graph_legend import EDGE_STYLES, EDGES, NODES, GraphLegend, LegendEntry
from memex_desktop.ui.palette import TYPE_COLOURS

pytestmark = [
    pytest.mark.usefixtures("app_style"),
    pytest.mark.gui,
    pytest.mark.qt_log_ignore("propagateSizeHints"),
]

# Every content type the palette colours (the tags' too) and every kind of link.
EVERY_KIND = [LegendEntry(NODES, kind, kind) for kind in TYPE_COLOURS] + [
    LegendEntry(EDGES, kind, kind) for kind in EDGE_STYLES
]


def _rows(legend: GraphLegend, group: str) -> set[int]:
    """The rows (their tops) a group's samples are drawn on."""
    return {
        box.y()
        for entry, box in zip(legend.entries(), legend.entry_rects(), strict=True)
        if entry.group == group
    }


def test_every_kind_keeps_to_the_legends_row_in_the_dock(
    qtbot: Any, window_factory: WindowFactory, demo_library: dict[str, Any]
) -> None:
    pane = docked_graph_pane(qtbot, window_factory, demo_library, QSize(1366, 768))
    draw(qtbot, pane, demo_library["results"][0]["id"], hops=2)
    legend = pane.legend
    assert legend.is_folded()
    legend.set_entries(EVERY_KIND)
    assert not legend.names_shown()
    boxes = legend.entry_rects()
    assert {box.y() for box in boxes} == {0}, [(box.x(), box.y()) for box in boxes]
    assert all(legend.rect().contains(box) for box in boxes)
    assert not legend.toggle.geometry().intersects(boxes[0])
    # The samples are still apart: no two touch.
    for before, after in itertools.pairwise(boxes):
        assert after.left() > before.right() + 1


def test_the_dots_and_the_lines_each_keep_to_a_row_at_every_width(qtbot: Any) -> None:
    legend = GraphLegend()
    qtbot.addWidget(legend)
    legend.set_entries(EVERY_KIND)
    legend.show()
    qtbot.waitExposed(legend)
    dots_wrapped = []
    for width in range(180, 420):
        legend.resize(width, legend.height())
        assert not legend.names_shown()
        assert len(_rows(legend, EDGES)) == 1, width
        rows = {box.y() for box in legend.entry_rects()}
        assert len(rows) <= 2, width
        if len(_rows(legend, NODES)) > 1:
            dots_wrapped.append(width)
    # Only where the dozen dots do not fit beside the button do they take two rows.
    assert dots_wrapped == list(range(180, 180 + len(dots_wrapped)))
