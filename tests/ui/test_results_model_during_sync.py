"""The results model stays consistent (QAbstractItemModelTester) while a real sync inserts rows."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import QObject, QTimer, Slot
from PySide6.QtTest import QAbstractItemModelTester
from support.emulator import EmulatorFactory
from support.window import WindowFactory

from memex_desktop.app import AppContext
from memex_desktop.emulator import RunningEmulator
from memex_desktop.emulator.synthetic import generate_library
from memex_desktop.settings import Settings
from memex_desktop.sync import SyncOutcome

pytestmark = [pytest.mark.gui, pytest.mark.qt_log_ignore("propagateSizeHints")]


class RowReader(QObject):
    """Reads every seventh row every few milliseconds on the GUI thread."""

    def __init__(self, model: Any) -> None:
        super().__init__()
        self.model = model
        self.reads = 0
        self._timer = QTimer(self)
        self._timer.setInterval(5)
        self._timer.timeout.connect(self._on_timer_timeout)
        self._timer.start()

    def stop(self) -> None:
        self._timer.stop()

    @Slot()
    def _on_timer_timeout(self) -> None:
        for row in range(0, self.model.rowCount(), 7):
            self.model.data(self.model.index(row, 0))
            self.reads += 1


@pytest.fixture
def server(emulator_factory: EmulatorFactory) -> tuple[RunningEmulator, list[dict[str, Any]]]:
    """An emulator holding 300 items now; 300 more are added during the test."""
    library = generate_library(600, seed=9, words_per_entity=60)
    later = library["results"][300:]
    library["results"] = library["results"][:300]
    return emulator_factory(library=library), later


@pytest.fixture
def context(window_factory: WindowFactory, server: Any) -> AppContext:
    """The window against the emulator, served 50 items to a page."""
    running, _later = server
    return window_factory(server=running, settings=Settings(page_size=50))


def _sync(qtbot: Any, context: AppContext, *, full: bool = False) -> Any:
    """Run one sync; its report."""
    reports: list[Any] = []
    context.controller.sync_finished.connect(reports.append)
    assert context.controller.sync_now(full=full)
    qtbot.waitUntil(lambda: bool(reports), timeout=60_000)
    context.controller.sync_finished.disconnect(reports.append)
    return reports[0]


def test_model_tester_while_a_sync_inserts_rows(
    qtbot: Any, context: AppContext, server: Any
) -> None:
    window = context.window
    model = window.results_model
    tester = QAbstractItemModelTester(
        model, QAbstractItemModelTester.FailureReportingMode.Fatal, window
    )
    assert _sync(qtbot, context).outcome is SyncOutcome.OK
    qtbot.waitUntil(lambda: model.rowCount() == 300, timeout=30_000)
    running, later = server
    for entity in later:
        running.state.put_entity(entity)
    inserted: list[tuple[int, int]] = []
    model.rowsInserted.connect(lambda _parent, first, last: inserted.append((first, last)))
    reader = RowReader(model)  # reads rows as a view would while the store changes
    try:
        assert _sync(qtbot, context, full=True).outcome is SyncOutcome.OK
        qtbot.waitUntil(lambda: model.rowCount() == 600, timeout=30_000)
    finally:
        reader.stop()
    assert reader.reads > 0
    assert inserted, "the new items arrived as row inserts, not as a reset"
    assert len(set(model.ids())) == model.rowCount()
    for row in range(model.rowCount()):
        assert model.data(model.index(row, 0)) is not None
    del tester
