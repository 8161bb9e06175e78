"""The results model stays consistent (QAbstractItemModelTester) while a real sync inserts rows."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QObject, QSettings, QTimer, Slot
from PySide6.QtTest import QAbstractItemModelTester

from memex_desktop.api.client import MemexClient
from memex_desktop.app import AppContext, build_main_window
from memex_desktop.emulator import EmulatorConfig, run_emulator_in_thread
from memex_desktop.emulator.synthetic import generate_library
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
def context(qtbot: Any, tmp_path: Path) -> Iterator[AppContext]:
    """The window against an emulator holding 600 items served 50 to a page."""
    server = run_emulator_in_thread(
        EmulatorConfig(library=generate_library(600, seed=9, words_per_entity=60)),
        host="127.0.0.1",
        port=0,
    )
    client = MemexClient(server.base_url, api_key=server.api_key, max_retries=1)
    qsettings = QSettings(str(tmp_path / "window.ini"), QSettings.Format.IniFormat)
    built = build_main_window(
        data_dir=tmp_path / "data", client=client, qsettings=qsettings, sync_on_start=False
    )
    built.controller.set_interval(0)
    built.controller.services.page_size = 50
    qtbot.addWidget(built.window)
    built.window.show()
    yield built
    built.shutdown()
    server.stop()


def test_model_tester_while_a_sync_inserts_rows(qtbot: Any, context: AppContext) -> None:
    window = context.window
    model = window.results_model
    tester = QAbstractItemModelTester(
        model, QAbstractItemModelTester.FailureReportingMode.Fatal, window
    )
    inserted: list[tuple[int, int]] = []
    model.rowsInserted.connect(lambda _parent, first, last: inserted.append((first, last)))
    reports: list[Any] = []
    context.controller.sync_finished.connect(reports.append)
    reader = RowReader(model)  # reads rows as a view would while the store changes
    assert context.controller.sync_now()
    qtbot.waitUntil(lambda: bool(reports), timeout=60_000)
    reader.stop()
    assert reader.reads > 0
    assert reports[0].outcome is SyncOutcome.OK
    qtbot.waitUntil(lambda: model.rowCount() >= 600, timeout=30_000)
    assert inserted, "the list grew by row inserts, not only by resets"
    assert len(set(model.ids())) == model.rowCount()
    for row in range(model.rowCount()):
        assert model.data(model.index(row, 0)) is not None
    del tester
