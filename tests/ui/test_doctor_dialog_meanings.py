"""Help → Check the connection to Memex… fills the "What it means" column of every row: the
same words ``memex-desktop doctor`` prints, also kept in the saved report."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from support.secrets import TEST_API_KEY

from memex_desktop.api.client import MemexClient
from memex_desktop.store import StoreWriter
from memex_desktop.ui.doctor_dialog import HEADERS, DoctorDialog
from memex_desktop.ui.tasks import TaskRunner

pytestmark = pytest.mark.gui

CHECK_TIMEOUT_MS = 30_000
MEANING = HEADERS.index("What it means")


@pytest.fixture
def runner() -> Iterator[TaskRunner]:
    runner = TaskRunner(max_threads=1)
    yield runner
    assert runner.shutdown()


@pytest.fixture
def writer(tmp_path: Path) -> Iterator[StoreWriter]:
    writer = StoreWriter(tmp_path / "cache.db")
    yield writer
    writer.close()


def _checked(qtbot: Any, runner: TaskRunner, writer: StoreWriter, tmp_path: Path, url: str) -> Any:
    """The dialog after a check of the server at ``url``; its table's rows (check, meaning)."""
    client = MemexClient(url, api_key=TEST_API_KEY, max_retries=0)
    dialog = DoctorDialog(runner, client, writer, tmp_path, page_size=10)
    qtbot.addWidget(dialog)
    qtbot.waitUntil(lambda: not dialog.busy, timeout=CHECK_TIMEOUT_MS)
    client.close()
    model = dialog.table.model()
    rows = {
        model.index(row, 0).data(Qt.ItemDataRole.DisplayRole): model.index(row, MEANING).data(
            Qt.ItemDataRole.DisplayRole
        )
        for row in range(model.rowCount())
    }
    return dialog, rows


def test_every_row_says_what_it_means(
    qtbot: Any, runner: TaskRunner, writer: StoreWriter, tmp_path: Path, emulator: Any
) -> None:
    dialog, rows = _checked(qtbot, runner, writer, tmp_path, emulator.base_url)
    assert len(rows) >= 10
    assert [check for check, meaning in rows.items() if not meaning] == []
    assert rows["reachable"] == "The server answers and accepts your credentials."
    assert dialog.result_shown is not None
    report = json.loads(dialog.result_shown.report_path.read_text(encoding="utf-8"))
    assert {f["check"]: f["meaning"] for f in report["findings"]} == rows


def test_without_a_server_the_rows_say_what_still_works(
    qtbot: Any, runner: TaskRunner, writer: StoreWriter, tmp_path: Path
) -> None:
    _dialog, rows = _checked(qtbot, runner, writer, tmp_path, "http://127.0.0.1:9")
    assert set(rows) == {"API URL", "authentication", "reachable"}
    assert [check for check, meaning in rows.items() if not meaning] == []
    assert "Everything already synced is readable" in rows["reachable"]
