"""Graph labels cover no node and sit beside their own, around every item of the demo library.

In the dock beside the reader, the bold label of the PDF "Container Growing in Dense Cities"
covered half of the note next to it (the focused item's label took a place over other dots
when it had no free one), and that note's label sat off a corner of its dot, away to the left.
Here every item and tag of the demo library is drawn at one hop and at two, in the window's
own graph pane at 1366×768 and at 1920×1080, from a real cache: no label may cover any node's
dot, and each must sit a couple of pixels from its own dot's edge, further from every other
dot, with no other dot beside it nearer its middle (but the focused item's bold one), so that
a person sees which node it names.
"""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import QSize
from support.graph_pane import docked_graph_pane, draw, label_problems
from support.window import WindowFactory

pytestmark = [
    pytest.mark.usefixtures("app_style"),
    pytest.mark.gui,
    pytest.mark.qt_log_ignore("propagateSizeHints"),
]

WINDOWS = {"1366x768": QSize(1366, 768), "1920x1080": QSize(1920, 1080)}
PDF = "pdf-urban-soil"
NOTE_BESIDE_IT = "note-morning-watering-r1"


@pytest.mark.parametrize("window", WINDOWS)
def test_the_pdf_and_the_note_beside_it_are_labelled_apart(
    qtbot: Any, window_factory: WindowFactory, demo_library: dict[str, Any], window: str
) -> None:
    """The drawing the person reported, at one hop: both named, neither over a dot."""
    pane = docked_graph_pane(qtbot, window_factory, demo_library, WINDOWS[window])
    draw(qtbot, pane, PDF, 1)
    assert NOTE_BESIDE_IT in pane.node_positions()
    assert label_problems(pane) == []
    labels = pane.shown_labels()
    assert {PDF, NOTE_BESIDE_IT} <= set(labels)
    # The focused item's name, whole or shortened, in bold.
    title = labels[PDF].text.text()
    assert "Container Growing in Dense Cities".startswith(title.removesuffix("…"))
    assert labels[PDF].text.font().bold()


@pytest.mark.parametrize("hops", [1, 2])
@pytest.mark.parametrize("window", WINDOWS)
def test_no_label_covers_a_node_around_any_item_of_the_demo(
    qtbot: Any,
    window_factory: WindowFactory,
    demo_library: dict[str, Any],
    window: str,
    hops: int,
) -> None:
    pane = docked_graph_pane(qtbot, window_factory, demo_library, WINDOWS[window])
    items = [item["id"] for item in demo_library["results"]]
    items += [tag["id"] for tag in demo_library["referencedTags"]]
    problems: dict[str, list[str]] = {}
    unnamed = []
    drawn = 0
    for item in items:
        draw(qtbot, pane, item, hops)
        if not pane.node_positions():
            continue  # an item without links: words instead of a drawing
        drawn += 1
        found = label_problems(pane)
        for _ in range(2):  # closer in, the labels are placed again
            pane.zoom_in()
            found += label_problems(pane)
        if found:
            problems[item] = found
        pane.fit()
        if item not in pane.shown_labels():
            unnamed.append(item)
    assert drawn > 60
    assert problems == {}
    # The focused item is always named: first, and shortened or beside its dot raised or
    # lowered where its whole name has no room.
    assert unnamed == []
