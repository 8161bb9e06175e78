"""The graph pane: layout off the GUI thread, cancel on re-selection, clicks, the Links list."""

from __future__ import annotations

import gc
import threading
import time
from typing import Any

import pytest
from PySide6.QtCore import QElapsedTimer, QObject, Qt, QTimer, Slot
from PySide6.QtTest import QAbstractItemModelTester
from PySide6.QtWidgets import QLabel
from support.graph import MemoryGraph
from support.window import seeded_cache

from memex_desktop.errors import user_message
from memex_desktop.graph.synthetic import (
    SyntheticEdge,
    SyntheticNode,
    synthetic_neighbourhood,
)
from memex_desktop.store import DatabaseLockedError
from memex_desktop.ui.graph_pane import GraphPane, LinksModel, NodeItem, PreparedGraph
from memex_desktop.ui.messages import message_line
from memex_desktop.ui.tasks import TaskRunner

# The offscreen platform warns that it cannot resize windows to their size hints.
pytestmark = pytest.mark.qt_log_ignore("propagateSizeHints")


def _small_reader() -> MemoryGraph:
    nodes = [
        SyntheticNode("page", "web", "A page"),
        SyntheticNode("note1", "annotation", "First note"),
        SyntheticNode("reply1", "annotation", "A reply"),
        SyntheticNode("video", "youtube", "A video"),
        SyntheticNode("t1", "tag", "reading"),
        SyntheticNode("far", "web", "Far away"),
    ]
    edges = [
        SyntheticEdge("note1", "page", "annotates"),
        SyntheticEdge("reply1", "note1", "reply"),
        SyntheticEdge("note1", "video", "references"),
        SyntheticEdge("page", "t1", "tag"),
        SyntheticEdge("far", "video", "references"),
    ]
    return MemoryGraph(nodes, edges)


@pytest.fixture
def small_pane(qtbot, runner: TaskRunner) -> GraphPane:
    pane = GraphPane(_small_reader(), runner)
    qtbot.addWidget(pane)
    pane.resize(600, 400)
    pane.show()
    return pane


class Heartbeat(QObject):
    """A 16 ms timer on the GUI thread recording the longest gap between its ticks."""

    def __init__(self) -> None:
        super().__init__()
        self.clock = QElapsedTimer()
        self.worst_ms = 0
        self.ticks = 0
        self.timer = QTimer(self)
        self.timer.setInterval(16)
        self.timer.timeout.connect(self._on_timer_timeout)

    def start(self) -> None:
        self.clock.start()
        self.timer.start()

    @Slot()
    def _on_timer_timeout(self) -> None:
        self.worst_ms = max(self.worst_ms, self.clock.restart())
        self.ticks += 1


def test_links_tab_lists_the_neighbourhood(qtbot, small_pane: GraphPane) -> None:
    small_pane.set_hops(2)
    with qtbot.waitSignal(small_pane.layout_finished, timeout=10_000):
        small_pane.show_entity("page")
    QAbstractItemModelTester(
        small_pane.links_model, QAbstractItemModelTester.FailureReportingMode.Fatal
    )
    model = small_pane.links_model
    tops = [model.index(r, 0) for r in range(model.rowCount())]
    texts = [t.data() for t in tops]
    assert texts[0] == "A page (Web page)"
    assert [model.index(r, 0, tops[0]).data() for r in range(model.rowCount(tops[0]))] == [
        "annotated by: First note (Note)",
        "tag: reading (Tag)",
    ]
    note = next(t for t in tops if t.data(Qt.ItemDataRole.UserRole) == "note1")
    assert [model.index(r, 0, note).data() for r in range(model.rowCount(note))] == [
        "annotates: A page (Web page)",
        "references: A video (Video)",
        "replied to by: A reply (Note)",
    ]
    assert "far" not in [t.data(Qt.ItemDataRole.UserRole) for t in tops]  # three hops away
    assert texts[1:] == sorted(texts[1:], key=str.casefold)


def test_a_small_budget_keeps_the_nearest_and_says_how_many_more(
    qtbot, small_pane: GraphPane
) -> None:
    small_pane.max_nodes = 4
    with qtbot.waitSignal(small_pane.layout_finished, timeout=10_000):
        small_pane.show_entity("note1")
    # One hop from the note: the page, the reply and the video; the reply has fewest links.
    assert set(small_pane.node_positions()) == {"note1", "page", "video", "reply1"}
    small_pane.max_nodes = 3
    with qtbot.waitSignal(small_pane.layout_finished, timeout=10_000):
        small_pane.show_entity("note1")
    assert set(small_pane.node_positions()) == {"note1", "page", "video"}
    model = small_pane.links_model
    assert model.index(model.rowCount() - 1, 0).data() == "+1 more not shown"


def test_enter_in_links_opens_the_item(qtbot, small_pane: GraphPane) -> None:
    with qtbot.waitSignal(small_pane.layout_finished, timeout=10_000):
        small_pane.show_entity("page")
    small_pane.tabs.setCurrentWidget(small_pane.links)
    tree = small_pane.links
    tree.setFocus()
    model = small_pane.links_model
    tree.setCurrentIndex(model.index(0, 0, model.index(0, 0)))
    with qtbot.waitSignal(small_pane.entity_activated, timeout=2000) as blocker:
        qtbot.keyClick(tree, Qt.Key.Key_Return)
    assert blocker.args == ["note1"]


def test_one_hop_leaves_out_second_neighbours(qtbot, small_pane: GraphPane) -> None:
    small_pane.set_hops(1)
    with qtbot.waitSignal(small_pane.layout_finished, timeout=10_000):
        small_pane.show_entity("page")
    assert set(small_pane.node_positions()) == {"page", "note1", "t1"}


def _viewport_pos(pane: GraphPane, entity_id: str):
    item = pane.node_item(entity_id)
    assert isinstance(item, NodeItem)
    return pane.view.mapFromScene(item.scenePos())


def test_click_opens_and_double_click_recentres(qtbot, small_pane: GraphPane) -> None:
    with qtbot.waitSignal(small_pane.layout_finished, timeout=10_000):
        small_pane.show_entity("page")
    where = _viewport_pos(small_pane, "note1")
    with qtbot.waitSignal(small_pane.entity_activated, timeout=2000) as blocker:
        qtbot.mouseClick(small_pane.view.viewport(), Qt.MouseButton.LeftButton, pos=where)
    assert blocker.args == ["note1"]
    with qtbot.waitSignal(small_pane.layout_finished, timeout=10_000):
        qtbot.mouseDClick(small_pane.view.viewport(), Qt.MouseButton.LeftButton, pos=where)
    assert small_pane.center == "note1"
    assert small_pane.node_positions()["note1"] == (0.0, 0.0)


def test_same_centre_gives_the_same_drawing(qtbot, small_pane: GraphPane) -> None:
    with qtbot.waitSignal(small_pane.layout_finished, timeout=10_000):
        small_pane.show_entity("page")
    first = small_pane.node_positions()
    with qtbot.waitSignal(small_pane.layout_finished, timeout=10_000):
        small_pane.show_entity("page")
    assert small_pane.node_positions() == first


def test_zoom_changes_scale_and_idle_pane_runs_no_timers(qtbot, small_pane: GraphPane) -> None:
    with qtbot.waitSignal(small_pane.layout_finished, timeout=10_000):
        small_pane.show_entity("page")
    before = small_pane.view.transform().m11()
    small_pane.zoom_in()
    assert small_pane.view.transform().m11() == pytest.approx(before * 1.2)
    small_pane.zoom_out()
    assert small_pane.view.transform().m11() == pytest.approx(before)
    assert not small_pane.is_laying_out()
    assert not [t for t in small_pane.findChildren(QTimer) if t.isActive()]


def test_reselection_cancels_the_running_layout(qtbot, runner: TaskRunner) -> None:
    center, nodes, edges = synthetic_neighbourhood(2000, 6000, seed=9)
    pane = GraphPane(MemoryGraph(nodes, edges), runner)
    qtbot.addWidget(pane)
    pane.max_nodes = 2000
    pane.show_entity(center)
    first = pane._task
    assert first is not None
    drawn: list[str] = []
    pane.layout_finished.connect(lambda: drawn.append(pane.center or ""))
    with qtbot.waitSignal(pane.layout_finished, timeout=20_000):
        pane.show_entity(nodes[5].id)
    assert first.cancel_event.is_set()
    qtbot.waitUntil(first.is_done, timeout=5000)
    assert drawn == [nodes[5].id]


def _busy_baseline_ms(qtbot, seconds: float) -> int:
    """Worst heartbeat gap while a plain Python thread spins: what this machine does anyway.

    On a loaded two-core machine the scheduler and the interpreter lock alone can delay the
    GUI thread; the pane is only blamed for gaps beyond that.
    """
    heartbeat = Heartbeat()
    stop = threading.Event()

    def spin() -> None:
        total = 0
        while not stop.is_set():
            total += sum(range(200))

    worker = threading.Thread(target=spin)
    worker.start()
    heartbeat.start()
    deadline = time.perf_counter() + seconds
    qtbot.waitUntil(lambda: time.perf_counter() >= deadline, timeout=int(seconds * 1000) + 5000)
    stop.set()
    worker.join()
    heartbeat.timer.stop()
    return heartbeat.worst_ms


@pytest.mark.parametrize(
    ("max_nodes", "budget_ms"),
    [
        # The fast suite only catches freezes: after hundreds of tests in one process, the
        # leftovers of earlier tests add GUI-thread gaps of their own (316 ms against 250 once,
        # on a machine whose own noise measured 64 ms).
        (None, 500),
        # The 100 ms budget, in the slow suite: the default node budget and all 2,000 nodes.
        pytest.param(None, 100, marks=pytest.mark.slow),
        pytest.param(2000, 100, marks=pytest.mark.slow),
    ],
)
def test_layout_of_2000_nodes_keeps_the_gui_responsive(
    qtbot,
    runner: TaskRunner,
    max_nodes: int | None,
    budget_ms: int,
    request: pytest.FixtureRequest,
) -> None:
    center, nodes, edges = synthetic_neighbourhood(2000, 6000, seed=10)
    reader = MemoryGraph(nodes, edges)
    pane = GraphPane(reader, runner)
    qtbot.addWidget(pane)
    pane.resize(800, 600)
    pane.show()
    pane.set_hops(2)  # the most a person can ask for
    if max_nodes is not None:
        pane.max_nodes = max_nodes
    qtbot.waitExposed(pane)
    pane.grab()  # first paint loads fonts; that one-off cost is not what is measured here
    # The objects hundreds of earlier tests left in this process are not the pane's: keep the
    # collector's full passes over them out of the measurement.
    gc.collect()
    gc.freeze()
    request.addfinalizer(gc.unfreeze)
    heartbeat = Heartbeat()
    started = time.perf_counter()
    with qtbot.waitSignal(pane.layout_finished, timeout=30_000):
        # The bounded cache read happens here; the heartbeat watches the layout that follows.
        pane.show_entity(center)
        assert pane.is_laying_out()
        heartbeat.start()
    heartbeat.timer.stop()
    elapsed = time.perf_counter() - started
    # A blocked GUI thread would not tick at all however long the layout took.
    assert heartbeat.ticks >= 1 or elapsed < 0.05, "no heartbeat during the layout"
    assert len(pane.node_positions()) == (max_nodes or pane.max_nodes)
    noise = max(0, _busy_baseline_ms(qtbot, elapsed) - 16)
    assert heartbeat.worst_ms <= budget_ms + noise, (
        f"GUI stalled {heartbeat.worst_ms} ms during a {elapsed:.2f} s layout "
        f"(machine noise {noise} ms)"
    )


def test_graph_of_a_real_cache(qtbot, runner: TaskRunner, tmp_path) -> None:
    from memex_desktop.store import CacheReader

    def item(item_id: str, kind: str, **extra: object) -> dict[str, object]:
        return {"id": item_id, "type": kind, "created_at": 1, "updated_at": 1, **extra}

    page = {
        "results": [
            item("page", "web", title="A page"),
            item("note", "annotation", text="hi", reference_content_ids=["page"]),
            item("reply", "annotation", text="yo", reference_content_ids=["note"]),
        ],
        "referencesByResultId": {
            "note": {"contentEntityIds": ["page"]},
            "reply": {"contentEntityIds": [{"id": "note", "type": "reply"}]},
        },
        "meta": {},
    }
    reader = CacheReader(seeded_cache(tmp_path / "cache.db", page))
    try:
        pane = GraphPane(reader, runner)
        qtbot.addWidget(pane)
        pane.set_hops(2)
        with qtbot.waitSignal(pane.layout_finished, timeout=10_000):
            pane.show_entity("page")
        assert set(pane.node_positions()) == {"page", "note", "reply"}
        model = pane.links_model
        note = next(
            model.index(r, 0)
            for r in range(model.rowCount())
            if model.index(r, 0).data(Qt.ItemDataRole.UserRole) == "note"
        )
        texts = [model.index(r, 0, note).data() for r in range(model.rowCount(note))]
        assert any(t.startswith("annotates: A page") for t in texts)
        assert any(t.startswith("replied to by: ") for t in texts)
    finally:
        reader.close()


def test_stop_ends_the_layout_at_once_and_draws_nothing(qtbot, runner: TaskRunner) -> None:
    center, nodes, edges = synthetic_neighbourhood(2000, 6000, seed=11)
    pane = GraphPane(MemoryGraph(nodes, edges), runner)
    qtbot.addWidget(pane)
    pane.max_nodes = 2000
    pane.show_entity(center)
    task = pane._task
    assert task is not None
    assert pane._stop.isVisibleTo(pane)
    with qtbot.assertNotEmitted(pane.layout_finished, wait=300):
        pane._stop.click()
        assert pane._status.text() == "Layout stopped. The Links tab lists every link."
        assert not pane.is_laying_out()
        assert not pane._stop.isVisibleTo(pane)
        assert task.cancelled
        qtbot.waitUntil(task.is_done, timeout=10_000)
    assert pane._status.text() == "Layout stopped. The Links tab lists every link."


class LockedGraph(MemoryGraph):
    """A graph source whose database another process holds locked."""

    def neighbourhood(self, entity_id: str, hops: int = 1, max_nodes: int = 0) -> Any:
        raise DatabaseLockedError("database is locked")


def test_a_graph_that_cannot_be_read_says_why_in_the_persons_words(
    qtbot, runner: TaskRunner
) -> None:
    pane = GraphPane(LockedGraph([], []), runner)
    qtbot.addWidget(pane)
    words = message_line(user_message(DatabaseLockedError("database is locked")))
    pane.show_entity("page")
    qtbot.waitUntil(lambda: not pane.is_laying_out(), timeout=5000)
    assert pane._status.text() == (
        f"The graph could not be drawn. {words} The Links tab lists every link."
    )


def test_a_large_count_of_items_left_out_reads_with_separators(qtbot) -> None:
    model = LinksModel()
    model.set_neighbourhood(
        PreparedGraph(center="a", nodes={}, edges=[], omitted=185_447, order=[])
    )
    assert model.index(model.rowCount() - 1, 0).data() == "+185,447 more not shown"


def _words_in_place(pane: GraphPane) -> str | None:
    """The words shown where the drawing and the Links list would be, if they are shown."""
    label = pane.findChild(QLabel, "graphWords")
    if label is None or not label.isVisible():
        return None
    assert label.height() > 3 * label.fontMetrics().height()  # the box's place, not a line
    return str(label.text())


def test_no_empty_box_shows_before_an_item_or_for_one_without_links(
    qtbot, runner: TaskRunner
) -> None:
    graph = MemoryGraph(
        [SyntheticNode("alone", "book", "A book"), *_small_reader().nodes],
        _small_reader().edges,
    )
    pane = GraphPane(graph, runner)
    qtbot.addWidget(pane)
    pane.resize(300, 400)
    pane.show()
    qtbot.waitExposed(pane)
    assert _words_in_place(pane) == "Select an item to see its links."
    assert not pane.tabs.isVisible()
    with qtbot.waitSignal(pane.layout_finished, timeout=10_000):
        pane.show_entity("alone")
    words = _words_in_place(pane)
    assert words is not None
    assert words.startswith("No links yet.")
    assert not pane.tabs.isVisible()  # neither a blank drawing nor a list of the item alone
    assert not pane.links.isVisible()
    with qtbot.waitSignal(pane.layout_finished, timeout=10_000):
        pane.show_entity("page")
    assert _words_in_place(pane) is None
    assert pane.view.isVisible()
    pane.tabs.setCurrentWidget(pane.links)
    assert pane.links.isVisible()
