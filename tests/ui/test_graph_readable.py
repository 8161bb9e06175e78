"""The graph reads at the 300-node budget: labels apart, Fit that fits, a legend, filters.

A real pane lays out a real 300-node neighbourhood (the default budget over a 2,000-node
graph); the checks read the scene's own items.
"""

from __future__ import annotations

import itertools
from collections import Counter
from typing import Any

import pytest
from PySide6.QtCore import QPoint, QRectF, Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication
from support.graph import MemoryGraph

from memex_desktop.api.content import type_label
from memex_desktop.graph.synthetic import SyntheticEdge, SyntheticNode, synthetic_neighbourhood
from memex_desktop.store.neighbourhood import DEFAULT_MAX_NODES, hop_distances
from memex_desktop.ui.graph_legend import EDGES, NODES, edge_name
from memex_desktop.ui.graph_pane import FIT_MARGIN, HUB_LINKS, GraphPane, LabelItem, NodeItem
from memex_desktop.ui.tasks import TaskRunner

pytestmark = pytest.mark.qt_log_ignore("propagateSizeHints")


@pytest.fixture(scope="module")
def big_graph() -> tuple[str, MemoryGraph]:
    center, nodes, edges = synthetic_neighbourhood(2000, 6000, seed=21)
    return center, MemoryGraph(nodes, edges)


@pytest.fixture
def pane(qtbot: Any, runner: TaskRunner, big_graph: tuple[str, MemoryGraph]) -> GraphPane:
    center, reader = big_graph
    shown = GraphPane(reader, runner)
    qtbot.addWidget(shown)
    shown.resize(760, 560)
    shown.show()
    qtbot.waitExposed(shown)
    shown.set_hops(2)  # as far as a person can ask: the node budget is what limits it
    with qtbot.waitSignal(shown.layout_finished, timeout=30_000):
        shown.show_entity(center)
    assert len(shown.node_positions()) == DEFAULT_MAX_NODES == 300
    return shown


def _drawn_rect(label: LabelItem) -> QRectF:
    """What a label covers in the scene: its backdrop and its text."""
    return label.sceneBoundingRect().united(label.text.sceneBoundingRect())


def _assert_labels_apart(pane: GraphPane) -> None:
    labels = pane.shown_labels()
    assert labels, "no label shown"
    for (a_id, a), (b_id, b) in itertools.combinations(labels.items(), 2):
        assert not _drawn_rect(a).intersects(_drawn_rect(b)), (a_id, b_id)


def _labels_over_dots_or_labels(pane: GraphPane) -> list[str]:
    """What the labels shown do wrong: cover a node's dot, overlap another label, or leave
    the view."""
    seen = pane.view.visible_scene_rect()
    nodes = [node for node in pane.node_items() if node.isVisible()]
    labels = pane.shown_labels()
    problems = []
    for node_id, label in labels.items():
        rect = _drawn_rect(label)
        if not seen.contains(rect):
            problems.append(f"{node_id}'s label leaves the view")
        for node in nodes:
            if node.mapToScene(node.shape()).intersects(rect):
                problems.append(f"{node_id}'s label covers {node.node.id}")
    for (a_id, a), (b_id, b) in itertools.combinations(labels.items(), 2):
        if _drawn_rect(a).intersects(_drawn_rect(b)):
            problems.append(f"{a_id}'s and {b_id}'s labels overlap")
    return problems


def _visible_nodes(pane: GraphPane) -> list[NodeItem]:
    return [item for item in pane.node_items() if item.isVisible()]


def _assert_every_node_in_view(pane: GraphPane) -> None:
    seen = pane.view.visible_scene_rect()
    nodes = _visible_nodes(pane)
    assert nodes
    outside = [n.node.id for n in nodes if not seen.contains(n.sceneBoundingRect())]
    assert not outside, f"{len(outside)} nodes outside {seen}"


def _assert_fills_the_view(pane: GraphPane) -> None:
    """Fitted, not merely inside: the nodes reach across one side of the view, but its margin."""
    nodes = QRectF()
    for item in _visible_nodes(pane):
        nodes = nodes.united(item.sceneBoundingRect())
    on_screen = pane.view.mapFromScene(nodes).boundingRect()
    room = pane.view.viewport().rect().adjusted(FIT_MARGIN, FIT_MARGIN, -FIT_MARGIN, -FIT_MARGIN)
    share = max(on_screen.width() / room.width(), on_screen.height() / room.height())
    assert share > 0.97, share


def _in_view(pane: GraphPane) -> list[str]:
    seen = pane.view.visible_scene_rect()
    return [n.node.id for n in _visible_nodes(pane) if seen.contains(n.pos())]


def _hubs(pane: GraphPane) -> set[str]:
    """The nodes with many links drawn (HUB_LINKS or more)."""
    degree = Counter(end for source, target, _ in pane.drawn_edges() for end in (source, target))
    return {node for node, links in degree.items() if links >= HUB_LINKS}


def _labelled_share(pane: GraphPane) -> float:
    """Of the nodes in view, the share that is labelled."""
    in_view = _in_view(pane)
    return len(set(in_view) & set(pane.shown_labels())) / len(in_view)


def test_no_two_labels_overlap_at_any_zoom_and_zooming_in_labels_more(pane: GraphPane) -> None:
    _assert_labels_apart(pane)
    at_fit = len(pane.shown_labels())
    assert 5 < at_fit < 300
    assert pane.center in pane.shown_labels()  # the focused item is labelled first
    shares = [_labelled_share(pane)]
    for _ in range(8):
        pane.zoom_in()
        _assert_labels_apart(pane)
        shares.append(_labelled_share(pane))
    # The nodes in view change as the view closes in, so the share is not strictly monotonic.
    assert min(shares) == shares[0] < shares[3] < shares[-1]
    assert shares[-1] > 0.85 > 3 * shares[0]
    for _ in range(12):
        pane.zoom_out()
        _assert_labels_apart(pane)
    assert len(pane.shown_labels()) <= at_fit


def test_labels_stay_in_view_and_off_other_nodes(qtbot: Any, pane: GraphPane) -> None:
    # No label covers a dot, not even the focused item's or a hub's: one with no room waits.
    assert _labels_over_dots_or_labels(pane) == []
    for _ in range(5):
        pane.zoom_in()
        assert _labels_over_dots_or_labels(pane) == []
    viewport = pane.view.viewport()
    qtbot.mousePress(viewport, Qt.MouseButton.LeftButton, pos=QPoint(400, 300))
    qtbot.mouseMove(viewport, QPoint(250, 200))
    qtbot.mouseRelease(viewport, Qt.MouseButton.LeftButton, pos=QPoint(250, 200))
    assert _labels_over_dots_or_labels(pane) == []
    _assert_labels_apart(pane)


def test_an_unlabelled_node_gets_its_label_when_zoomed_into(pane: GraphPane) -> None:
    shown = pane.shown_labels()
    node = next(n for n in pane.node_items() if n.node.id not in shown)
    for _ in range(15):
        pane.view.centerOn(node)
        if node.node.id in pane.shown_labels():
            break
        pane.zoom_in()
    assert node.node.id in pane.shown_labels()
    _assert_labels_apart(pane)


def test_labels_keep_their_size_on_screen(pane: GraphPane) -> None:
    """Whatever the zoom, a label is its text's width on screen with a little padding (at Fit
    the focused item's may be shortened, and whole once zoomed in)."""
    label = pane.shown_labels()[pane.center or ""]
    view = pane.view

    def on_screen_width() -> float:
        rect = label.sceneBoundingRect()
        return view.mapFromScene(rect.topRight()).x() - view.mapFromScene(rect.topLeft()).x()

    for _ in range(3):
        text_width = label.text.boundingRect().width()
        assert text_width < on_screen_width() < text_width + 12
        pane.zoom_in()
        pane.zoom_in()
        assert label.isVisible()


def test_a_hidden_label_shows_while_the_pointer_is_on_its_node(qtbot: Any, pane: GraphPane) -> None:
    shown = pane.shown_labels()
    view = pane.view
    seen = view.visible_scene_rect()
    unlabelled = next(
        item
        for item in pane.node_items()
        if item.node.id not in shown and seen.contains(item.sceneBoundingRect())
    )
    where = view.mapFromScene(unlabelled.scenePos())
    # Only that node under the point: another node's dot would take the hover.
    assert view.node_at(where) == unlabelled.node.id
    qtbot.mouseMove(view.viewport(), QPoint(2, 2))
    qtbot.mouseMove(view.viewport(), where)
    qtbot.waitUntil(lambda: unlabelled.node.id in pane.shown_labels(), timeout=3000)
    label = pane.shown_labels()[unlabelled.node.id]
    assert label.zValue() > max(other.zValue() for other in shown.values())
    assert unlabelled.toolTip().startswith(unlabelled.node.title)
    qtbot.mouseMove(view.viewport(), QPoint(2, 2))
    qtbot.waitUntil(lambda: unlabelled.node.id not in pane.shown_labels(), timeout=3000)
    assert set(pane.shown_labels()) == set(shown)


def test_a_hover_label_at_the_edge_stays_in_view(qtbot: Any, pane: GraphPane) -> None:
    for _ in range(3):  # nodes close to the view's right edge, with long labels
        pane.zoom_in()
    shown = pane.shown_labels()
    view = pane.view
    seen = view.visible_scene_rect()
    candidates = [
        item
        for item in pane.node_items()
        if item.node.id not in shown and seen.contains(item.sceneBoundingRect())
    ]
    rightmost = max(candidates, key=lambda item: item.scenePos().x())
    where = view.mapFromScene(rightmost.scenePos())
    qtbot.mouseMove(view.viewport(), QPoint(2, 2))
    qtbot.mouseMove(view.viewport(), where)
    if view.node_at(where) != rightmost.node.id:
        pytest.skip("another node's dot covers the rightmost one")
    qtbot.waitUntil(lambda: rightmost.node.id in pane.shown_labels(), timeout=3000)
    label = pane.shown_labels()[rightmost.node.id]
    assert seen.contains(label.sceneBoundingRect())


def test_after_the_layout_every_node_is_in_view(pane: GraphPane) -> None:
    _assert_every_node_in_view(pane)
    _assert_fills_the_view(pane)


def test_fit_brings_every_node_back_after_zoom_and_pan(qtbot: Any, pane: GraphPane) -> None:
    for _ in range(8):
        pane.zoom_in()
    viewport = pane.view.viewport()
    qtbot.mousePress(viewport, Qt.MouseButton.LeftButton, pos=QPoint(100, 100))
    qtbot.mouseMove(viewport, QPoint(300, 250))
    qtbot.mouseRelease(viewport, Qt.MouseButton.LeftButton, pos=QPoint(300, 250))
    seen = pane.view.visible_scene_rect()
    assert any(not seen.contains(n.sceneBoundingRect()) for n in pane.node_items())
    pane.resize(500, 400)  # the person's zoom survives a resize; labels follow the new view
    qtbot.waitUntil(lambda: pane.view.viewport().width() < 500)
    seen = pane.view.visible_scene_rect()
    assert any(not seen.contains(n.sceneBoundingRect()) for n in pane.node_items())
    assert all(seen.contains(label.sceneBoundingRect()) for label in pane.shown_labels().values())
    fit = next(b for b in pane.findChildren(type(pane.filter_button)) if b.text() == "Fit")
    qtbot.mouseClick(fit, Qt.MouseButton.LeftButton)
    _assert_every_node_in_view(pane)
    _assert_fills_the_view(pane)
    _assert_labels_apart(pane)


@pytest.mark.parametrize("size", [(320, 700), (900, 300), (1200, 800)])
def test_a_fitted_drawing_fits_again_when_the_pane_is_resized(
    qtbot: Any, pane: GraphPane, size: tuple[int, int]
) -> None:
    pane.resize(*size)
    qtbot.waitUntil(lambda: pane.size().width() == size[0])
    QApplication.processEvents()
    _assert_every_node_in_view(pane)
    _assert_fills_the_view(pane)
    _assert_labels_apart(pane)


def test_a_graph_laid_out_while_hidden_fits_when_first_shown(
    qtbot: Any, runner: TaskRunner, big_graph: tuple[str, MemoryGraph]
) -> None:
    center, reader = big_graph
    pane = GraphPane(reader, runner)
    qtbot.addWidget(pane)
    with qtbot.waitSignal(pane.layout_finished, timeout=30_000):
        pane.show_entity(center)
    pane.resize(640, 480)
    pane.show()
    qtbot.waitExposed(pane)
    _assert_every_node_in_view(pane)
    _assert_fills_the_view(pane)
    _assert_labels_apart(pane)


def test_the_legend_lists_each_kind_present(pane: GraphPane, big_graph: Any) -> None:
    items = pane.node_items()
    types = {item.node.type for item in items}
    kinds = {kind for _, _, kind in pane.drawn_edges()}
    entries = pane.legend.entries()
    assert {e.kind for e in entries if e.group == NODES} == types
    assert {e.kind for e in entries if e.group == EDGES} == kinds
    assert len(entries) == len(types) + len(kinds)
    for entry in entries:
        wanted = type_label(entry.kind) if entry.group == NODES else edge_name(entry.kind)
        assert entry.text == wanted
        assert entry.text in pane.legend.accessibleDescription()
    assert "Web page" in {e.text for e in entries}
    # Every entry is drawn inside the legend, none on another.
    legend_rect = pane.legend.rect()
    boxes = pane.legend.entry_rects()
    assert all(legend_rect.contains(box) for box in boxes)
    assert not any(a.intersects(b) for a, b in itertools.combinations(boxes, 2))


def test_the_legend_can_give_its_rows_to_the_drawing(qtbot: Any, pane: GraphPane) -> None:
    height = pane.view.height()
    menu = pane.filter_menu
    menu.aboutToShow.emit()
    toggle = next(a for a in menu.actions() if a.text() == "Show the legend")
    assert toggle.isChecked()
    toggle.trigger()
    assert not pane.legend_shown()
    qtbot.waitUntil(lambda: pane.view.height() > height)
    _assert_every_node_in_view(pane)
    _assert_fills_the_view(pane)
    menu.aboutToShow.emit()
    toggle = next(a for a in menu.actions() if a.text() == "Show the legend")
    assert not toggle.isChecked()
    toggle.trigger()
    assert pane.legend_shown()


def test_the_legend_wraps_in_a_narrow_pane(qtbot: Any, pane: GraphPane) -> None:
    pane.resize(pane.minimumSizeHint().width(), 560)
    qtbot.waitUntil(lambda: pane.legend.height() > pane.legend.minimumSizeHint().height())
    legend_rect = pane.legend.rect()
    assert all(legend_rect.contains(box) for box in pane.legend.entry_rects())


def _assert_joined_to_the_centre(pane: GraphPane) -> None:
    """Every node on show is within two hops of the centre through the lines on show."""
    hops = hop_distances(pane.center or "", [(s, t) for s, t, _ in pane.drawn_edges()])
    assert all(hops.get(node.node.id, 3) <= 2 for node in _visible_nodes(pane))


def test_hiding_a_content_type_hides_its_nodes_their_edges_and_labels(
    qtbot: Any, pane: GraphPane
) -> None:
    center = pane.center
    before = {item.node.id for item in pane.node_items()}
    # The budget cut this neighbourhood: what the other types join is read to fill it again.
    with qtbot.waitSignal(pane.layout_finished, timeout=30_000):
        pane.set_type_shown("web", False)
    shown = _visible_nodes(pane)
    assert len(shown) == DEFAULT_MAX_NODES
    assert not any(i.node.type == "web" for i in shown if i.node.id != center)
    hidden = {i.node.id for i in pane.node_items() if not i.isVisible()}
    assert not any(s in hidden or t in hidden for s, t, _ in pane.drawn_edges())
    assert not hidden & set(pane.shown_labels())
    _assert_joined_to_the_centre(pane)
    _assert_labels_apart(pane)
    _assert_every_node_in_view(pane)
    web = next(e for e in pane.legend.entries() if e.kind == "web")
    assert web.hidden
    assert "hidden by the filter" in pane._status.text()
    pane.set_type_shown("web", True)
    assert {item.node.id for item in _visible_nodes(pane)} == before
    assert pane.hidden_types() == frozenset()


def test_hiding_an_edge_kind_hides_its_edges_and_what_only_they_reached(
    qtbot: Any, pane: GraphPane
) -> None:
    before = pane.drawn_edges()
    assert any(kind == "reply" for _, _, kind in before)
    with qtbot.waitSignal(pane.layout_finished, timeout=30_000):
        pane.set_edge_kind_shown("reply", False)
    assert not any(kind == "reply" for _, _, kind in pane.drawn_edges())
    _assert_joined_to_the_centre(pane)
    pane.show_everything()
    assert pane.drawn_edges() == before


def test_the_filter_menu_lists_the_kinds_and_hides_what_it_says(
    qtbot: Any, pane: GraphPane
) -> None:
    menu = pane.filter_menu
    menu.aboutToShow.emit()
    actions = {a.text(): a for a in menu.actions() if a.isCheckable() and a.data()}
    present = [type_label(t) for t in pane.types_present()]
    present += [edge_name(k) for k in pane.edge_kinds_present()]
    assert sorted(actions) == sorted(present)
    assert all(action.isChecked() for action in actions.values())
    with qtbot.waitSignal(pane.layout_finished, timeout=30_000):
        actions["Video"].trigger()
        actions["Reference"].trigger()
    assert pane.hidden_types() == {"youtube"}
    assert pane.hidden_edge_kinds() == {"references"}
    shown = _visible_nodes(pane)
    assert len(shown) == DEFAULT_MAX_NODES
    assert not any(i.node.type == "youtube" for i in shown if not i.is_center)
    assert not any(kind == "references" for _, _, kind in pane.drawn_edges())
    _assert_joined_to_the_centre(pane)
    menu.aboutToShow.emit()  # shown again: ticks say what is shown; "Show everything" clears
    actions = {a.text(): a for a in menu.actions()}
    assert not actions["Video"].isChecked()
    assert actions["Tweet"].isChecked()
    actions["Show everything"].trigger()
    assert pane.hidden_types() == pane.hidden_edge_kinds() == frozenset()
    assert all(item.isVisible() for item in pane.node_items())


def test_a_click_on_a_legend_entry_hides_and_shows_that_kind(qtbot: Any, pane: GraphPane) -> None:
    entries = pane.legend.entries()
    boxes = pane.legend.entry_rects()
    where = next(box for e, box in zip(entries, boxes, strict=True) if e.kind == "tag")
    node_entry = next(e for e in entries if e.group == NODES and e.kind == "tag")
    assert node_entry  # the tag type and the tag edge kind both have an entry
    point = where.center()
    qtbot.mouseClick(pane.legend, Qt.MouseButton.LeftButton, pos=point)
    assert pane.hidden_types() == {"tag"}
    qtbot.mouseClick(pane.legend, Qt.MouseButton.LeftButton, pos=point)
    assert pane.hidden_types() == frozenset()


def test_filters_outlive_a_recentring(qtbot: Any, pane: GraphPane) -> None:
    pane.set_type_shown("image", False)
    other = next(i.node.id for i in pane.node_items() if i.node.type == "web" and not i.is_center)
    with qtbot.waitSignal(pane.layout_finished, timeout=30_000):
        pane.show_entity(other)
    images = [i for i in pane.node_items() if i.node.type == "image"]
    assert images
    assert not any(item.isVisible() for item in images)
    _assert_every_node_in_view(pane)
    _assert_labels_apart(pane)


def test_labels_take_the_palettes_colours(pane: GraphPane) -> None:
    dark = QPalette()
    dark.setColor(QPalette.ColorRole.Base, QColor("#1e1e1e"))
    dark.setColor(QPalette.ColorRole.Text, QColor("#f0f0f0"))
    dark.setColor(QPalette.ColorRole.Window, QColor("#2b2b2b"))
    dark.setColor(QPalette.ColorRole.WindowText, QColor("#eeeeee"))
    pane.setPalette(dark)
    QApplication.processEvents()
    for label in pane.shown_labels().values():
        assert label.text.brush().color() == QColor("#f0f0f0")
        assert label.brush().color().rgb() == QColor("#1e1e1e").rgb()
    pane.zoom_in()  # labels made after the change take the same colours
    for label in pane.shown_labels().values():
        assert label.text.brush().color() == QColor("#f0f0f0")
    # The legend's names are drawn in the palette's text colour, readable on its background.
    pane.set_legend_folded(False)
    assert pane.legend.names_shown()
    image = pane.legend.grab().toImage()
    light = sum(
        1
        for x in range(0, image.width(), 2)
        for y in range(0, image.height(), 2)
        if QColor(image.pixel(x, y)).lightness() > 200
    )
    assert light > 20


def test_controls_are_never_squeezed_below_their_size(qtbot: Any, pane: GraphPane) -> None:
    narrow = pane.minimumSizeHint().width()
    assert narrow <= 320
    pane.resize(narrow, 400)
    qtbot.waitUntil(lambda: pane.width() == narrow)
    QApplication.processEvents()
    for control in pane.controls:
        assert control.isVisible()
        assert control.width() >= control.sizeHint().width(), control.accessibleName()
        assert pane.rect().contains(control.geometry()), control.accessibleName()
    for a, b in itertools.combinations(pane.controls, 2):
        assert not a.geometry().intersects(b.geometry())
    # Wrapped onto more rows, they still sit above the status line and the drawing.
    below = min(pane._status.geometry().top(), pane.tabs.mapTo(pane, QPoint(0, 0)).y())
    assert max(control.geometry().bottom() for control in pane.controls) < below


def test_a_crowded_narrow_drawing_covers_no_dot_and_names_its_focus_and_hubs_zoomed_in(
    qtbot: Any, runner: TaskRunner
) -> None:
    """Two hops through three tags many items share, in a side column 220 pixels wide: at Fit
    no label covers a dot or another label, even where that leaves the focused item and the
    tags unnamed; a few steps of zoom toward the focused item name it (shortened if need be),
    and a few more toward a tag name that tag, once it has room where no other dot lies nearer
    its label's middle."""
    center = "focused"
    title = "Sty Mel Sat Try Sheefeel Bia"
    tags = [f"tag-{n}" for n in range(3)]
    nodes = [SyntheticNode(center, "web", title)]
    nodes += [SyntheticNode(tag, "tag", f"{tag}-name") for tag in tags]
    edges = [SyntheticEdge(center, tag, "tagged") for tag in tags]
    for tag in tags:
        for n in range(90):
            nodes.append(SyntheticNode(f"{tag}-{n}", "web", f"Page {n} tagged {tag}"))
            edges.append(SyntheticEdge(f"{tag}-{n}", tag, "tagged"))
    pane = GraphPane(MemoryGraph(nodes, edges), runner)
    qtbot.addWidget(pane)
    pane.resize(220, 680)
    pane.show()
    qtbot.waitExposed(pane)
    pane.set_hops(2)
    with qtbot.waitSignal(pane.layout_finished, timeout=30_000):
        pane.show_entity(center)
    assert len(pane.node_positions()) == len(nodes) == 274
    assert set(tags) <= _hubs(pane)
    zoom_in = next(b for b in pane.findChildren(type(pane.filter_button)) if b.text() == "+")

    def zoom_toward(node_id: str, steps: int) -> None:
        """Click + with ``node_id`` in the middle of the view until it is named."""
        node = pane.node_item(node_id)
        assert node is not None
        for _ in range(steps):
            pane.view.centerOn(node)
            qtbot.mouseClick(zoom_in, Qt.MouseButton.LeftButton)
            assert _labels_over_dots_or_labels(pane) == []
            if node_id in pane.shown_labels():
                return

    for tag in tags:
        pane.fit()
        assert _labels_over_dots_or_labels(pane) == []
        zoom_toward(center, 5)
        labels = pane.shown_labels()
        assert center in labels
        named = labels[center].text.text()
        assert title.startswith(named.removesuffix("…"))
        assert labels[center].text.font().bold()
        zoom_toward(tag, 8)
        assert pane.shown_labels()[tag].text.text() == f"{tag}-name"
