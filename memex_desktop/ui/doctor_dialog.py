"""Help → Check the connection to Memex…: ``memex-desktop doctor`` in a window.

The probes run on a worker (they are network requests, some of them slow on a slow server);
the dialog shows "Checking…" meanwhile and can be closed at any time. What they find is shown
as a table, what the sync learned about the server is kept in the cache (the sync obeys it),
and the report is written to the data folder, where a person can find it to send along.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QPointF, QRect, QSize, Qt, Slot
from PySide6.QtGui import QBrush, QColor, QGuiApplication, QIcon, QPainter, QPen, QPixmap
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QProgressBar,
    QPushButton,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from memex_desktop.api.content import time_text
from memex_desktop.errors import user_message
from memex_desktop.services import explain_findings
from memex_desktop.store import StoreError, StoreWriter
from memex_desktop.sync.doctor import DoctorReport, public_url, run_doctor
from memex_desktop.ui import theme
from memex_desktop.ui.messages import message_line
from memex_desktop.ui.tasks import Task, TaskRunner

if TYPE_CHECKING:
    from memex_desktop.api.client import MemexClient

TITLE = "Check the connection to Memex"
CHECKING = "Checking…"
NOT_CONNECTED = (
    "Not connected to Memex: no API key or sign-in is set up, so there is no server to check. "
    "Connect first (File → Settings…, Ctrl+,), then check again."
)
HEADERS = ("Check", "Result", "What it means")
# Preferred size; on a smaller screen the dialog takes what the screen offers.
PREFERRED_WIDTH = 1040
PREFERRED_HEIGHT = 660
SCREEN_MARGIN = 40
# The Result column fits its longest text up to this width, then wraps like the meanings.
MAX_RESULT_WIDTH = 320
MARK_SIZE = 16
# (accessible word, fill colour) of a finding's mark: passed, a problem, for information.
MARKS: dict[bool | None, tuple[str, str]] = {
    True: ("Passed", "#2e7d4f"),
    False: ("Problem", "#b3261e"),
    None: ("For information", "#6b7780"),
}
# Pixels around a cell's text (both sides together): wrapped lines and neighbouring columns
# never touch.
ROW_PADDING = 10
COLUMN_PADDING = 16


@dataclass(frozen=True)
class DoctorResult:
    """A finished check: the report, where it was saved, and what could not be kept."""

    report: DoctorReport
    report_path: Path | None
    problem: str | None = None


def check_connection(
    client: MemexClient,
    writer: StoreWriter,
    data_dir: Path,
    page_size: int,
    *,
    cancel: threading.Event,
) -> DoctorResult | None:
    """Worker: run the probes, keep what they learned, write the report (None if cancelled).

    A check the person closed keeps nothing: it was not looked at, and a half-read server
    profile would only replace a better one.
    """
    report = explain_findings(run_doctor(client, page_size=page_size))
    if cancel.is_set():
        return None
    problems = []
    if report.profile is not None:
        try:
            writer.set_sync_state(report.profile.state_key, report.profile.dump()).result()
        except (StoreError, sqlite3.Error) as exc:
            problems.append(
                "What was learned could not be kept: " + message_line(user_message(exc))
            )
    path: Path | None
    try:
        path = report.write(data_dir)
    except OSError as exc:
        path = None
        problems.append("The report could not be saved: " + message_line(user_message(exc)))
    return DoctorResult(report, path, " ".join(problems) or None)


def summary_text(report: DoctorReport) -> str:
    """One line: whether a sync can work against the server, and how or why not."""
    if report.can_sync and report.profile is not None:
        how = "by time" if report.profile.paging == "time" else "by offset"
        return f"A sync can work against this server: it pages {how}."
    if report.profile is not None and report.profile.problems:
        why = "; ".join(report.profile.problems)
    elif report.error is not None:
        why = user_message(report.error).text
    else:
        failed = [f.meaning or f"{f.check}: {f.result}" for f in report.findings if f.ok is False]
        why = "; ".join(failed) or "the server could not be checked"
    return f"A sync cannot work against this server: {why.strip().rstrip('.')}."


_icons: dict[bool | None, QIcon] = {}


def mark_icon(ok: bool | None) -> QIcon:
    """A small round mark: a tick (passed), an exclamation mark (problem), a dash (info)."""
    if ok in _icons:
        return _icons[ok]
    screen = QGuiApplication.primaryScreen()
    ratio = screen.devicePixelRatio() if screen is not None else 1.0
    pixmap = QPixmap(int(MARK_SIZE * ratio), int(MARK_SIZE * ratio))
    pixmap.setDevicePixelRatio(ratio)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(QBrush(QColor(MARKS[ok][1])))
    painter.drawEllipse(QRect(0, 0, MARK_SIZE, MARK_SIZE))
    pen = QPen(QColor("#ffffff"), 2.0)
    pen.setCapStyle(Qt.PenCapStyle.RoundCap)
    pen.setJoinStyle(Qt.PenJoinStyle.RoundJoin)
    painter.setPen(pen)
    if ok is True:
        painter.drawPolyline([QPointF(4.5, 8.5), QPointF(7.0, 11.0), QPointF(11.5, 5.5)])
    elif ok is False:
        painter.drawLine(QPointF(8.0, 4.0), QPointF(8.0, 9.0))
        painter.drawPoint(QPointF(8.0, 12.0))
    else:
        painter.drawLine(QPointF(5.0, 8.0), QPointF(11.0, 8.0))
    painter.end()
    _icons[ok] = QIcon(pixmap)
    return _icons[ok]


class _PaddedDelegate(QStyledItemDelegate):
    """Rows a little taller than their text, so wrapped meanings read as a paragraph."""

    def sizeHint(
        self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> QSize:
        """The text's size plus the padding."""
        size = super().sizeHint(option, index)
        return QSize(size.width() + COLUMN_PADDING, size.height() + ROW_PADDING)


class DoctorDialog(QDialog):
    """The connection check: "Checking…" while the probes run, then their findings.

    ``client`` None (no credentials) shows why there is nothing to check instead.
    """

    def __init__(
        self,
        runner: TaskRunner,
        client: MemexClient | None,
        writer: StoreWriter,
        data_dir: Path,
        *,
        page_size: int,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("doctordialog")
        self.setWindowTitle(TITLE)
        self.setAccessibleName(TITLE)
        self._runner = runner
        self._client = client
        self._writer = writer
        self._data_dir = data_dir
        self._page_size = page_size
        self._task: Task[DoctorResult | None] | None = None
        self.result_shown: DoctorResult | None = None
        self._build()
        self.fit_to_screen()
        self.check_again()

    # -- construction ----------------------------------------------------------------------

    def _build(self) -> None:
        """Intro, busy row, findings table, summary, report path and the buttons."""
        where = public_url(self._client.base_url) if self._client is not None else ""
        self.intro_label = self._label(
            f"What the Memex server at {where} does with the requests this app depends on. "
            "Only small reads are made; nothing is saved on the server."
            if self._client is not None
            else NOT_CONNECTED,
            "About this check",
        )
        self.status_label = self._label(CHECKING, "Check status")
        self.status_label.setObjectName("doctorstatus")
        self.busy_bar = QProgressBar(self)
        self.busy_bar.setObjectName("doctorbusy")
        self.busy_bar.setAccessibleName("Checking the connection")
        self.busy_bar.setRange(0, 0)
        self.busy_bar.setTextVisible(False)
        self.busy_bar.setMaximumWidth(200)
        busy_row = QHBoxLayout()
        busy_row.addWidget(self.status_label, 1)
        busy_row.addWidget(self.busy_bar)
        self.table = self._table()
        self.summary_label = self._label("", "Summary")
        self.summary_label.setObjectName("doctorsummary")
        font = self.summary_label.font()
        font.setBold(True)
        self.summary_label.setFont(font)
        self.problem_label = self._label("", "What could not be kept")
        self.path_label = self._label("", "Where the report was saved")
        self.copy_button = QPushButton("C&opy path", self)
        self.copy_button.setObjectName("doctorcopypath")
        self.copy_button.setAccessibleName("Copy the report's path")
        self.copy_button.setToolTip("Copy where the report was saved, to send it along")
        self.copy_button.clicked.connect(self._on_copy_button_clicked)
        self.copy_button.setAutoDefault(False)
        path_row = QHBoxLayout()
        path_row.addWidget(self.path_label, 1)
        path_row.addWidget(self.copy_button)
        self.buttons = QDialogButtonBox(self)
        self.again_button = self.buttons.addButton(
            "Check &again", QDialogButtonBox.ButtonRole.ActionRole
        )
        self.again_button.setObjectName("doctoragain")
        self.again_button.setAccessibleName("Check again")
        self.again_button.clicked.connect(self._on_again_button_clicked)
        self.again_button.setAutoDefault(False)
        self.close_button = self.buttons.addButton(QDialogButtonBox.StandardButton.Close)
        self.close_button.setObjectName("doctorclose")
        self.close_button.setDefault(True)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.intro_label)
        layout.addLayout(busy_row)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.summary_label)
        layout.addWidget(self.problem_label)
        layout.addLayout(path_row)
        layout.addWidget(self.buttons)
        for widget in (self.summary_label, self.problem_label, self.path_label, self.copy_button):
            widget.hide()

    def _label(self, text: str, name: str) -> QLabel:
        """A wrapped, selectable plain-text label with an accessible name."""
        label = QLabel(text, self)
        label.setTextFormat(Qt.TextFormat.PlainText)
        label.setWordWrap(True)
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        label.setAccessibleName(name)
        return label

    def _table(self) -> QTableWidget:
        """The read-only findings table; long results and meanings wrap instead of clipping."""
        table = QTableWidget(0, len(HEADERS), self)
        table.setObjectName("doctortable")
        table.setAccessibleName("Connection check results")
        table.setHorizontalHeaderLabels(list(HEADERS))
        table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        table.setWordWrap(True)
        table.setTextElideMode(Qt.TextElideMode.ElideNone)
        table.setAlternatingRowColors(True)
        table.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        table.verticalHeader().hide()
        table.setItemDelegate(_PaddedDelegate(table))
        header = table.horizontalHeader()
        header.setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        header.sectionResized.connect(self._on_table_section_resized)
        return table

    def fit_to_screen(self, available: QRect | None = None) -> None:
        """Take the preferred size, or what the screen offers when it is smaller."""
        if available is None:
            screen = self.screen() or QGuiApplication.primaryScreen()
            available = screen.availableGeometry() if screen is not None else None
        width, height = PREFERRED_WIDTH, PREFERRED_HEIGHT
        if available is not None:
            width = min(width, available.width() - SCREEN_MARGIN)
            height = min(height, available.height() - SCREEN_MARGIN)
        self.resize(width, height)

    # -- checking --------------------------------------------------------------------------

    @property
    def busy(self) -> bool:
        """Whether a check is running."""
        return self._task is not None

    def check_again(self) -> Task[DoctorResult | None] | None:
        """Start a check (none without a client, or while one runs); its task."""
        if self._client is None:
            self._show_not_connected()
            return None
        if self._task is not None:
            return self._task
        self._set_busy(True)
        self._task = (
            self._runner.run(
                check_connection,
                self._client,
                self._writer,
                self._data_dir,
                self._page_size,
                cancel=True,
            )
            .on_success(self._on_check_finished)
            .on_failure(self._on_check_failed)
        )
        return self._task

    def _show_not_connected(self) -> None:
        """No client: say why there is nothing to check (and nothing is running)."""
        self.status_label.setText(NOT_CONNECTED)
        self.intro_label.hide()
        self.busy_bar.hide()
        self.table.hide()
        self.again_button.setEnabled(False)

    def _set_busy(self, busy: bool) -> None:
        """The busy state (Checking…, a moving bar, Cancel) or the finished one."""
        self.busy_bar.setVisible(busy)
        self.again_button.setEnabled(not busy)
        self.close_button.setText("Cancel" if busy else "Close")
        self.close_button.setAccessibleName("Cancel the check" if busy else "Close")
        if busy:
            self.status_label.setText(CHECKING)
            self.summary_label.hide()
            self.problem_label.hide()

    def reject(self) -> None:
        """Close (Escape, Close, Cancel): a running check is cancelled and keeps nothing."""
        if self._task is not None:
            self._task.cancel()
            self._task = None
        super().reject()

    @Slot(object)
    def _on_check_finished(self, result: DoctorResult | None) -> None:
        """Show the findings, the summary and where the report went."""
        if self.sender() is not self._task:
            return  # a check cancelled by closing the dialog
        self._task = None
        self._set_busy(False)
        if result is None:
            return
        self.result_shown = result
        self.show_report(result.report)
        self.status_label.setText(f"Checked at {time_text(int(time.time() * 1000))}.")
        self.problem_label.setText(result.problem or "")
        self.problem_label.setVisible(bool(result.problem))
        if result.report_path is not None:
            self.path_label.setText(f"Report saved to {result.report_path}")
        self.path_label.setVisible(result.report_path is not None)
        self.copy_button.setVisible(result.report_path is not None)

    @Slot(object)
    def _on_check_failed(self, exc: Exception) -> None:
        """The check itself broke (not a finding): say why; Check again may work."""
        if self.sender() is not self._task:
            return
        self._task = None
        self._set_busy(False)
        self.status_label.setText("The check could not run. " + message_line(user_message(exc)))

    def show_report(self, report: DoctorReport) -> None:
        """Fill the table with the findings and the summary line under it."""
        self.table.setRowCount(0)
        self.table.setRowCount(len(report.findings))
        for row, finding in enumerate(report.findings):
            word, _colour = MARKS[finding.ok]
            check = QTableWidgetItem(mark_icon(finding.ok), finding.check)
            check.setToolTip(word)
            check.setData(Qt.ItemDataRole.AccessibleTextRole, f"{word}: {finding.check}")
            result = QTableWidgetItem(finding.result)
            meaning = QTableWidgetItem(finding.meaning)
            if finding.ok is False:
                for item in (result, meaning):
                    item.setForeground(QBrush(QColor(theme.current().problem_text)))
            for column, item in enumerate((check, result, meaning)):
                item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable)
                self.table.setItem(row, column, item)
        self._size_columns()
        self.summary_label.setText(summary_text(report))
        self.summary_label.show()

    def _size_columns(self) -> None:
        """The result column as wide as its longest text (up to a limit), rows to their text."""
        wanted = max(
            self.table.sizeHintForColumn(1), self.table.horizontalHeader().sectionSizeHint(1)
        )
        self.table.setColumnWidth(1, min(wanted, MAX_RESULT_WIDTH))
        self.table.resizeRowsToContents()

    @Slot(int, int, int)
    def _on_table_section_resized(self, _column: int, _old: int, _new: int) -> None:
        """A narrower column wraps into more lines: the rows follow."""
        self.table.resizeRowsToContents()

    @Slot()
    def _on_again_button_clicked(self) -> None:
        """Check again."""
        self.check_again()

    @Slot()
    def _on_copy_button_clicked(self) -> None:
        """Put the report's path on the clipboard."""
        if self.result_shown is not None and self.result_shown.report_path is not None:
            QGuiApplication.clipboard().setText(str(self.result_shown.report_path))
            self.status_label.setText("The report's path is on the clipboard.")
