"""Help → Check the connection to Memex…, and the incompatible state that offers it.

The real window against the emulator on loopback: the probes run on a worker while the
window keeps working, the findings fill a table, what was learned lands in the cache and the
report in the data folder.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QFontMetrics, QGuiApplication
from PySide6.QtWidgets import QStyle, QStyleOptionViewItem
from support.secrets import SECRETS, TEST_API_KEY
from support.signals import Emitted
from support.window import WindowFactory

from memex_desktop.api.client import MemexClient
from memex_desktop.api.content import time_text
from memex_desktop.app import AppContext
from memex_desktop.errors import user_message
from memex_desktop.store import StoreWriter
from memex_desktop.sync import SyncOutcome
from memex_desktop.sync.doctor import REPORT_NAME
from memex_desktop.sync.server_profile import state_key
from memex_desktop.ui.doctor_dialog import CHECKING, HEADERS, NOT_CONNECTED, DoctorDialog
from memex_desktop.ui.messages import message_line
from memex_desktop.ui.tasks import TaskRunner

# The offscreen platform cannot raise a window (the menu entry raises an open check).
pytestmark = [
    pytest.mark.gui,
    pytest.mark.qt_log_ignore("propagateSizeHints", "does not support raise"),
]

CHECK_TIMEOUT_MS = 30_000


def _open_from_help_menu(context: AppContext) -> DoctorDialog:
    """Trigger the Help menu entry; the dialog it opened."""
    window = context.window
    help_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Help")
    action = window.actions_by_key["check_connection"]
    assert action in help_menu.actions()
    action.trigger()
    dialog = window._doctor
    assert isinstance(dialog, DoctorDialog)
    return dialog


def _wait_checked(qtbot: Any, dialog: DoctorDialog) -> None:
    qtbot.waitUntil(lambda: not dialog.busy, timeout=CHECK_TIMEOUT_MS)


def _table_rows(dialog: DoctorDialog) -> list[tuple[str, str, str]]:
    table = dialog.table
    return [
        tuple(table.item(row, column).text() for column in range(3))  # type: ignore[misc]
        for row in range(table.rowCount())
    ]


def test_the_check_fills_the_table_keeps_the_profile_and_saves_the_report(
    qtbot: Any,
    window_factory: WindowFactory,
    emulator_factory: Any,
) -> None:
    server = emulator_factory()
    context = window_factory(server=server)
    action = context.window.actions_by_key["check_connection"]
    assert action.text() == "Check the &connection to Memex…"
    assert action.statusTip()

    dialog = _open_from_help_menu(context)
    assert dialog.isVisible()
    assert not dialog.isModal()  # the window stays usable while the probes run
    assert dialog.busy
    assert dialog.status_label.text() == CHECKING
    assert dialog.close_button.text() == "Cancel"
    assert not dialog.again_button.isEnabled()
    before_ms = int(time.time() * 1000)
    _wait_checked(qtbot, dialog)
    after_ms = int(time.time() * 1000)
    # When it was checked, in the local time every pane shows.
    assert dialog.status_label.text() in {
        f"Checked at {time_text(before_ms)}.",
        f"Checked at {time_text(after_ms)}.",
    }

    result = dialog.result_shown
    assert result is not None
    report = result.report
    assert [dialog.table.horizontalHeaderItem(c).text() for c in range(3)] == list(HEADERS)
    # The table is the report's rows, the textual mark replaced by an icon.
    assert _table_rows(dialog) == [(c.split(" ", 1)[1], r, m) for c, r, m in report.rows()]
    marks = {"ok": "Passed", "!!": "Problem", "--": "For information"}
    for row, (check, _result, _meaning) in enumerate(report.rows()):
        item = dialog.table.item(row, 0)
        assert not item.icon().isNull()
        assert item.data(Qt.ItemDataRole.AccessibleTextRole) == (f"{marks[check[:2]]}: {check[3:]}")
        assert not item.flags() & Qt.ItemFlag.ItemIsEditable
    assert (
        "reachable",
        "yes, credentials accepted",
        "The server answers and accepts your credentials.",
    ) in _table_rows(dialog)
    assert dialog.summary_label.isVisible()
    assert dialog.summary_label.text() == "A sync can work against this server: it pages by offset."
    assert dialog.close_button.text() == "Close"

    # What was learned is kept for the sync; the report is in the data folder, no secret in it.
    stored = json.loads(context.reader.sync_state(state_key(server.base_url)) or "{}")
    assert stored["probed_at_ms"] is not None
    assert stored["offset_honoured"] is True
    path = context.data_dir / REPORT_NAME
    assert result.report_path == path
    assert path.is_file()
    assert not any(secret in path.read_text(encoding="utf-8") for secret in SECRETS)
    assert dialog.path_label.text() == f"Report saved to {path}"
    qtbot.mouseClick(dialog.copy_button, Qt.MouseButton.LeftButton)
    assert QGuiApplication.clipboard().text() == str(path)

    # Check again asks the server again.
    searches = sum(1 for r in server.state.requests if r.path == "/search")
    qtbot.mouseClick(dialog.again_button, Qt.MouseButton.LeftButton)
    assert dialog.busy
    _wait_checked(qtbot, dialog)
    assert sum(1 for r in server.state.requests if r.path == "/search") > searches

    # The same menu entry raises the open dialog; Escape closes it.
    context.window.actions_by_key["check_connection"].trigger()
    assert context.window._doctor is dialog
    qtbot.keyClick(dialog, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: context.window._doctor is None, timeout=5_000)


def test_a_slow_check_can_be_cancelled_while_the_window_keeps_working(
    qtbot: Any,
    window_factory: WindowFactory,
    emulator_factory: Any,
) -> None:
    server = emulator_factory()
    context = window_factory(server=server)
    window = context.window
    server.faults.latency(1.5, count=1)  # the first probe is slow
    dialog = window.show_doctor()
    assert dialog.busy
    # The probes are under way (the server has the first one) ...
    qtbot.waitUntil(
        lambda: any(r.path == "/search" for r in server.state.requests), timeout=CHECK_TIMEOUT_MS
    )
    # ... and the window searches its cache meanwhile.
    applied = Emitted(window.search_applied)
    window.run_search(window.search_bar.request())
    applied.wait(qtbot, 5_000)
    assert dialog.busy
    task = dialog._task
    assert task is not None
    qtbot.mouseClick(dialog.close_button, Qt.MouseButton.LeftButton)
    assert window._doctor is None
    assert task.cancelled
    # The cancelled check ran to its end on the worker but kept nothing.
    qtbot.waitUntil(task.is_done, timeout=CHECK_TIMEOUT_MS)
    assert context.runner.wait_for_idle(CHECK_TIMEOUT_MS)
    assert not (context.data_dir / REPORT_NAME).exists()
    assert context.reader.sync_state(state_key(server.base_url)) is None


def test_a_server_that_refuses_the_listing_cannot_sync(
    qtbot: Any,
    window_factory: WindowFactory,
    emulator_factory: Any,
) -> None:
    server = emulator_factory()
    context = window_factory(server=server)
    refusal = {"error": "Unknown field: query"}
    server.faults.next_status(400, count=2, body=refusal, paths=["/search"])
    dialog = context.window.show_doctor()
    _wait_checked(qtbot, dialog)
    rows = _table_rows(dialog)
    assert ("empty query lists the library", "no") in [(c, r) for c, r, _m in rows]
    assert dialog.summary_label.text().startswith(
        "A sync cannot work against this server: an empty query is refused: "
    )
    assert dialog.summary_label.text().endswith("Unknown field: query.")
    problem = next(row for row, (check, *_rest) in enumerate(rows) if check == "sync")
    assert dialog.table.item(problem, 0).data(Qt.ItemDataRole.AccessibleTextRole) == (
        "Problem: sync"
    )
    stored = json.loads(context.reader.sync_state(state_key(server.base_url)) or "{}")
    assert stored["empty_query"] is False


def test_without_credentials_the_dialog_says_so_and_checks_nothing(
    qtbot: Any, window_factory: WindowFactory
) -> None:
    context = window_factory()
    assert context.controller.services.client is None
    dialog = _open_from_help_menu(context)
    assert not dialog.busy
    assert dialog.status_label.text() == NOT_CONNECTED
    assert not dialog.table.isVisible()
    assert not dialog.again_button.isEnabled()
    assert dialog._task is None
    qtbot.mouseClick(dialog.close_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: context.window._doctor is None, timeout=5_000)
    assert context.runner.wait_for_idle(CHECK_TIMEOUT_MS)
    assert not (context.data_dir / REPORT_NAME).exists()


def test_an_incompatible_server_shows_its_state_and_offers_the_check(
    qtbot: Any,
    window_factory: WindowFactory,
    emulator_factory: Any,
) -> None:
    server = emulator_factory()
    context = window_factory(server=server)
    window = context.window
    finished = Emitted(context.controller.sync_finished)
    assert context.controller.sync_now()
    finished.wait(qtbot, CHECK_TIMEOUT_MS)
    assert finished.calls[-1][0].ok

    refusal = {"error": "Invalid request: includeNotes is not supported"}
    server.faults.next_status(400, count=20, body=refusal, paths=["/search"])
    assert context.controller.sync_now(full=True)
    qtbot.waitUntil(lambda: len(finished.calls) == 2, timeout=CHECK_TIMEOUT_MS)
    report = finished.calls[-1][0]
    assert report.outcome is SyncOutcome.INCOMPATIBLE
    status = window.status
    assert status.state_label.text() == "Memex server incompatible"
    assert report.error is not None
    assert status.state_label.toolTip() == user_message(report.error).one_line()
    assert "does not accept what this version" in status.state_label.toolTip()
    status.clearMessage()  # the state and its button show once the sync's message is gone
    assert status.action_button.isVisibleTo(window)
    assert status.action_button.text() == "Check connection…"
    assert status.action_button.accessibleName() == "Check connection"

    server.faults.clear()
    qtbot.mouseClick(status.action_button, Qt.MouseButton.LeftButton)
    dialog = window._doctor
    assert isinstance(dialog, DoctorDialog)
    assert dialog.isVisible()
    _wait_checked(qtbot, dialog)
    assert dialog.summary_label.text().startswith("A sync can work")
    dialog.close()


def _clipped_cells(dialog: DoctorDialog) -> list[str]:
    """Cells whose text does not fit the space the table gives it."""
    table = dialog.table
    style = table.style()
    delegate = table.itemDelegate()
    clipped = []
    for row in range(table.rowCount()):
        for column in range(table.columnCount()):
            index = table.model().index(row, column)
            option = QStyleOptionViewItem()
            option.initFrom(table)
            delegate.initStyleOption(option, index)
            option.rect = table.visualRect(index)
            option.features |= QStyleOptionViewItem.ViewItemFeature.WrapText
            space = style.subElementRect(QStyle.SubElement.SE_ItemViewItemText, option, table)
            space = space.adjusted(3, 0, -3, 0)  # the style's text margin
            needed = QFontMetrics(option.font).boundingRect(
                QRect(0, 0, space.width(), 100_000),
                int(Qt.TextFlag.TextWordWrap | Qt.AlignmentFlag.AlignLeft),
                option.text,
            )
            if needed.width() > space.width() or needed.height() > space.height():
                clipped.append(f"row {row} column {column}: {option.text!r}")
    return clipped


@pytest.mark.parametrize("reachable", [True, False], ids=["server", "offline"])
def test_the_dialog_fits_a_1366_by_768_screen_with_nothing_clipped(
    qtbot: Any,
    window_factory: WindowFactory,
    emulator_factory: Any,
    reachable: bool,
) -> None:
    server = emulator_factory(profile="first-party")
    context = window_factory(server=server)
    if not reachable:  # the longest meaning: offline, with what still works and what to do
        server.stop()
    context.window.resize(1366, 768)
    dialog = context.window.show_doctor()
    dialog.fit_to_screen(QRect(0, 0, 1366, 768))
    _wait_checked(qtbot, dialog)
    assert dialog.width() <= 1366
    assert dialog.height() <= 768
    table = dialog.table
    qtbot.waitUntil(lambda: table.viewport().width() > 0, timeout=5_000)
    widths = sum(table.columnWidth(column) for column in range(3))
    assert widths <= table.viewport().width()
    assert table.columnWidth(2) >= 300  # the meanings have room to read
    assert _clipped_cells(dialog) == []
    if not reachable:
        offline = next(r for r in range(table.rowCount()) if table.item(r, 0).text() == "reachable")
        assert table.rowHeight(offline) > table.rowHeight(0)  # wrapped, not cut
    summary = dialog.summary_label
    assert summary.heightForWidth(summary.width()) <= summary.height()
    dialog.close()


def test_a_check_that_breaks_says_why_and_can_be_tried_again(
    qtbot: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    broken = RuntimeError("a probe tripped")

    def run_doctor(*_args: Any, **_kwargs: Any) -> Any:
        raise broken

    monkeypatch.setattr("memex_desktop.ui.doctor_dialog.run_doctor", run_doctor)
    runner = TaskRunner(max_threads=1)
    writer = StoreWriter(tmp_path / "cache.db")
    client = MemexClient("http://127.0.0.1:9", api_key=TEST_API_KEY, max_retries=0)
    try:
        dialog = DoctorDialog(runner, client, writer, tmp_path, page_size=10)
        qtbot.addWidget(dialog)
        _wait_checked(qtbot, dialog)
        words = message_line(user_message(broken))
        assert dialog.status_label.text() == f"The check could not run. {words}"
        assert "report this problem" in words
        assert dialog.again_button.isEnabled()
        assert dialog.close_button.text() == "Close"
        assert dialog.result_shown is None
    finally:
        assert runner.shutdown()
        writer.close()
        client.close()
