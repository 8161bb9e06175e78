"""The graph shows one hop around the item at first, and keeps the depth the person chose.

Two hops around an item with a popular tag reach most of the library ("300 items +27,514
more"): a hairball in which the focused item is lost. One hop is the default; a person who
asks for two keeps them after a restart (QSettings, as the window keeps its layout), and so
does the legend, its names shown or folded away.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QComboBox, QMainWindow
from support.graph import MemoryGraph
from support.window import WindowFactory, seeded_cache

from memex_desktop import paths
from memex_desktop.graph.synthetic import SyntheticEdge, SyntheticNode
from memex_desktop.store import CacheReader
from memex_desktop.ui.docked_panes import DockedPanes
from memex_desktop.ui.graph_pane import GraphPane
from memex_desktop.ui.tasks import TaskRunner

pytestmark = [pytest.mark.gui, pytest.mark.qt_log_ignore("propagateSizeHints")]


def _depth_box(pane: GraphPane) -> QComboBox:
    """The control the person picks the depth with."""
    box = pane.controls[0]
    assert isinstance(box, QComboBox)
    assert box.accessibleName() == "Neighbourhood depth"
    return box


def test_the_graph_shows_one_hop_around_the_item_by_default(qtbot: Any, runner: TaskRunner) -> None:
    graph = MemoryGraph(
        [
            SyntheticNode("page", "web", "A page"),
            SyntheticNode("t1", "tag", "popular"),
            SyntheticNode("other", "web", "Another page with the tag"),
        ],
        [SyntheticEdge("page", "t1", "tag"), SyntheticEdge("other", "t1", "tag")],
    )
    pane = GraphPane(graph, runner)
    qtbot.addWidget(pane)
    pane.resize(400, 400)
    pane.show()
    assert pane.hops == 1
    assert _depth_box(pane).currentText() == "1 hop"
    with qtbot.waitSignal(pane.layout_finished, timeout=10_000):
        pane.show_entity("page")
    assert set(pane.node_positions()) == {"page", "t1"}


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "data"
    seeded_cache(folder, {"results": [{"id": "page", "type": "web", "title": "A page"}]})
    return folder


class Windows:
    """Windows with docked panes on one data folder, each shut as the next opens (a restart)."""

    def __init__(self, qtbot: Any, runner: TaskRunner, data_dir: Path) -> None:
        self.qtbot = qtbot
        self.runner = runner
        self.data_dir = data_dir
        self.open: list[tuple[DockedPanes, CacheReader]] = []

    def __call__(self, qsettings: QSettings | None) -> DockedPanes:
        self.close()
        window = QMainWindow()
        self.qtbot.addWidget(window)
        reader = CacheReader(paths.cache_db_path(self.data_dir))
        docks = DockedPanes(
            window,
            reader=reader,
            runner=self.runner,
            cache_path=paths.cache_db_path(self.data_dir),
            outbox_path=paths.outbox_db_path(self.data_dir),
            qsettings=qsettings,
        )
        self.open.append((docks, reader))
        return docks

    def close(self) -> None:
        while self.open:
            docks, reader = self.open.pop()
            docks.close()
            reader.close()


@pytest.fixture
def windows(qtbot: Any, runner: TaskRunner, data_dir: Path) -> Iterator[Windows]:
    opened = Windows(qtbot, runner, data_dir)
    yield opened
    opened.close()


def test_the_depth_the_person_chose_comes_back_after_a_restart(
    windows: Windows, tmp_path: Path
) -> None:
    ini = tmp_path / "window.ini"
    docks = windows(QSettings(str(ini), QSettings.Format.IniFormat))
    assert docks.graph_pane.hops == 1
    _depth_box(docks.graph_pane).setCurrentIndex(1)  # the person asks for two hops
    assert docks.graph_pane.hops == 2

    docks = windows(QSettings(str(ini), QSettings.Format.IniFormat))
    assert docks.graph_pane.hops == 2
    _depth_box(docks.graph_pane).setCurrentIndex(0)

    docks = windows(QSettings(str(ini), QSettings.Format.IniFormat))
    assert docks.graph_pane.hops == 1


def test_the_legend_comes_back_folded_or_named_as_the_person_left_it(
    windows: Windows, tmp_path: Path
) -> None:
    ini = tmp_path / "window.ini"
    docks = windows(QSettings(str(ini), QSettings.Format.IniFormat))
    assert docks.graph_pane.legend_folded()  # a row of samples at first
    docks.graph_pane.legend.toggle.click()  # the person asks for the names
    assert not docks.graph_pane.legend_folded()

    docks = windows(QSettings(str(ini), QSettings.Format.IniFormat))
    assert not docks.graph_pane.legend_folded()
    docks.graph_pane.legend.toggle.click()

    docks = windows(QSettings(str(ini), QSettings.Format.IniFormat))
    assert docks.graph_pane.legend_folded()


def test_a_depth_kept_by_nothing_readable_starts_at_one_hop(
    windows: Windows, tmp_path: Path
) -> None:
    ini = tmp_path / "window.ini"
    settings = QSettings(str(ini), QSettings.Format.IniFormat)
    settings.setValue("graph/hops", "lots")
    settings.sync()
    assert windows(QSettings(str(ini), QSettings.Format.IniFormat)).graph_pane.hops == 1


def test_the_window_keeps_the_depth_with_its_layout(window_factory: WindowFactory) -> None:
    """The window hands its settings to the docks: the depth is kept in the file its layout
    is kept in, and comes back with the window."""
    window = window_factory().window
    _depth_box(window.graph_pane).setCurrentIndex(1)
    assert QSettings(str(window_factory.qsettings_path), QSettings.Format.IniFormat).value(
        "graph/hops"
    ) in (2, "2")
    assert window_factory().window.graph_pane.hops == 2
