"""The graph's controls show whole in the real window: 960×600, 1366×768, at 100 % and 150 %."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QEvent, QSize
from PySide6.QtWidgets import QApplication
from support.window import WindowFactory

from memex_desktop.ui.main_window import MainWindow

pytestmark = [
    pytest.mark.usefixtures("app_style"),
    pytest.mark.gui,
    pytest.mark.qt_log_ignore("propagateSizeHints"),
]

SIZES = [QSize(960, 600), QSize(1366, 768)]


def _settled(window: MainWindow) -> bool:
    """Whether pending layouts have run."""
    QApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
    return window.graph_dock.isVisible() and window.graph_pane.isVisible()


@pytest.mark.parametrize("size", SIZES, ids=["960x600", "1366x768"])
def test_every_graph_control_shows_whole_in_the_window(
    window_factory: WindowFactory, demo_library: dict[str, Any], qtbot: Any, size: QSize
) -> None:
    window = window_factory(library=demo_library).window
    window.resize(size)
    qtbot.waitUntil(lambda: window.size() == size, timeout=5_000)
    if not window.graph_dock.isVisible():
        window.docks.toggle_graph()  # folded away for the reader: the person brings it back
    qtbot.waitUntil(lambda: _settled(window), timeout=5_000)
    window.graph_dock.raise_()
    qtbot.waitUntil(lambda: window.graph_pane.isVisible(), timeout=5_000)
    pane = window.graph_pane
    with qtbot.waitSignal(pane.layout_finished, timeout=10_000):
        pane.show_entity(demo_library["results"][0]["id"])  # a drawing with its legend
    QApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
    scale = float(os.environ.get("QT_SCALE_FACTOR") or 1)
    assert window.devicePixelRatio() == pytest.approx(scale)
    for control in pane.controls:
        name = control.accessibleName()
        assert control.isVisible(), name
        assert control.width() >= control.sizeHint().width(), name
        assert control.height() >= control.sizeHint().height(), name
        assert pane.rect().contains(control.geometry()), f"{name} {control.geometry()}"
        needed = control.fontMetrics().horizontalAdvance(
            control.currentText() if control is pane.controls[0] else control.text()
        )
        assert needed < control.width(), name
    assert pane.legend.width() <= pane.width()
    assert pane.view.width() > 100


@pytest.mark.skipif(
    os.environ.get("QT_SCALE_FACTOR", "") not in ("", "1"), reason="this run is the scaled one"
)
def test_every_graph_control_shows_whole_at_150_percent(request: pytest.FixtureRequest) -> None:
    """The same checks in a process where Qt scales everything by 1.5."""
    env = {**os.environ, "QT_SCALE_FACTOR": "1.5"}
    module = request.node.nodeid.split("::")[0]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", module, "-k", "window"],
        cwd=Path(__file__).resolve().parents[2],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
    assert "2 passed" in done.stdout, done.stdout[-2000:]
