"""The outbox pane: every queued save with its state, and retry / drop for each."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
    Signal,
    Slot,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from memex_desktop.api.content import time_text
from memex_desktop.errors import UserMessage, failure_message, save_state_words
from memex_desktop.store import OutboxOp
from memex_desktop.store.save_description import SavedItem, describe_save

log = logging.getLogger(__name__)

Index = QModelIndex | QPersistentModelIndex


def failure_of(op: OutboxOp) -> UserMessage | None:
    """Why the save's last attempt failed, in the person's words (None: nothing failed).

    A save that could not even be sent (no connection) counts no attempt, but says why it
    waits all the same.
    """
    tried = op.attempts > 0 or op.error_kind is not None
    failed = op.state == "needs_attention" or (op.state == "queued" and tried)
    if not failed or not (op.error_kind or op.reason or op.state == "needs_attention"):
        return None
    return failure_message(op.error_kind, op.reason, op.attempts)


def save_state_text(op: OutboxOp, processing: bool | None = None) -> str:
    """Where a save is: queued -> sent -> processing -> in library (or what went wrong)."""
    failure = failure_of(op)
    words = save_state_words(op.state, processing)
    if failure is None:
        return words
    if op.state == "queued":
        if op.attempts == 0:
            return f"{words} ({failure.text})"
        return f"{words} (retry {op.attempts}: {failure.text})"
    if op.state == "needs_attention":
        return f"{words}: {failure.text}"
    return words


def save_state_tip(op: OutboxOp) -> str:
    """The state with the whole story of a failure: the server's words and what to do."""
    failure = failure_of(op)
    if failure is None:
        return save_state_text(op)
    return f"{save_state_text(op)}\n{failure.one_line()}"


class OutboxModel(QAbstractTableModel):
    """The outbox operations, newest first (a few hundred at most; read from the outbox db).

    Each says what it saves (:func:`describe_save`, as ``outbox list`` does): a link's
    address, a note with its item and first words.
    """

    COLUMNS = ("Save", "State", "Queued at")
    OpIdRole = Qt.ItemDataRole.UserRole + 1
    EntityIdRole = Qt.ItemDataRole.UserRole + 2
    StateRole = Qt.ItemDataRole.UserRole + 3

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._ops: list[OutboxOp] = []
        self._descriptions: list[str] = []

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        """Number of operations."""
        return 0 if parent.isValid() else len(self._ops)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        """What is saved, state, time."""
        return 0 if parent.isValid() else len(self.COLUMNS)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        """Column titles."""
        if (
            orientation == Qt.Orientation.Horizontal
            and role == Qt.ItemDataRole.DisplayRole
            and 0 <= section < len(self.COLUMNS)
        ):
            return self.COLUMNS[section]
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        """Cell text and the op's id / entity / state in custom roles."""
        if not index.isValid() or not 0 <= index.row() < len(self._ops):
            return None
        op = self._ops[index.row()]
        if role == self.OpIdRole:
            return op.id
        if role == self.EntityIdRole:
            return op.entity_id
        if role == self.StateRole:
            return op.state
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            column = index.column()
            if column == 0:
                return self._descriptions[index.row()]
            if column == 1 and role == Qt.ItemDataRole.ToolTipRole:
                return save_state_tip(op)
            if column == 1:
                return save_state_text(op)
            if column == 2:
                return time_text(op.created_at) or ""
        return None

    def set_ops(self, ops: list[OutboxOp], items: Mapping[str, SavedItem] | None = None) -> None:
        """Show these operations (newest first), the notes and highlights named by the items
        they are on (``items``, read from the cache); rows whose op is unchanged keep their
        place."""
        ordered = sorted(ops, key=lambda op: (op.created_at or 0, op.id), reverse=True)
        described = [describe_save(op, items) for op in ordered]
        if [op.id for op in ordered] == [op.id for op in self._ops]:
            changed = [
                row
                for row, op in enumerate(ordered)
                if op != self._ops[row] or described[row] != self._descriptions[row]
            ]
            self._ops, self._descriptions = ordered, described
            for row in changed:
                self.dataChanged.emit(self.index(row, 0), self.index(row, len(self.COLUMNS) - 1))
            return
        self.beginResetModel()
        self._ops, self._descriptions = ordered, described
        self.endResetModel()

    def op_at(self, row: int) -> OutboxOp | None:
        """The operation of a row."""
        return self._ops[row] if 0 <= row < len(self._ops) else None


EMPTY_OUTBOX = (
    "No saves waiting. Links you drop on the window or save from the clipboard "
    "(Ctrl+Shift+V) wait here until Memex has them, offline too."
)


class OutboxPane(QWidget):
    """Table of saves with Retry, Drop and Open buttons.

    Signals:
        retry_requested(object): retry this op id.
        drop_requested(object): drop this op id.
        entity_activated(str): open the entity a confirmed save became.
    """

    retry_requested = Signal(object)
    drop_requested = Signal(object)
    entity_activated = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("outboxpane")
        self.model = OutboxModel(self)
        self.table = QTableView(self)
        self.table.setObjectName("outboxtable")
        self.table.setAccessibleName("Queued saves")
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.verticalHeader().hide()
        # What is saved and its state share the width (each ends with "…" when cut, the whole
        # text is its tooltip); the time always shows whole.
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        header.setMinimumSectionSize(header.fontMetrics().averageCharWidth() * 6)
        self.table.setShowGrid(False)
        self.table.doubleClicked.connect(self._on_table_double_clicked)
        # An empty table says what would be in it, instead of a blank grid.
        self.empty = QLabel(EMPTY_OUTBOX, self)
        self.empty.setObjectName("outboxempty")
        self.empty.setWordWrap(True)
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.retry_button = QPushButton("Retry", self)
        self.retry_button.setAccessibleName("Retry the selected save")
        self.drop_button = QPushButton("Drop", self)
        self.drop_button.setAccessibleName("Drop the selected save")
        self.retry_button.clicked.connect(self._on_retry_clicked)
        self.drop_button.clicked.connect(self._on_drop_clicked)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.retry_button)
        buttons.addWidget(self.drop_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.empty, 1)
        layout.addLayout(buttons)
        self.table.selectionModel().selectionChanged.connect(self._on_selection_changed)
        for rows_changed in (
            self.model.modelReset,
            self.model.rowsInserted,
            self.model.rowsRemoved,
        ):
            rows_changed.connect(self._on_rows_changed)
        self._on_selection_changed()
        self._on_rows_changed()

    def selected_op(self) -> OutboxOp | None:
        """The selected operation."""
        rows = self.table.selectionModel().selectedRows()
        return self.model.op_at(rows[0].row()) if rows else None

    def select_op(self, op_id: int) -> None:
        """Select the row of an operation."""
        for row in range(self.model.rowCount()):
            if self.model.index(row, 0).data(OutboxModel.OpIdRole) == op_id:
                self.table.selectRow(row)
                return

    @Slot()
    def _on_rows_changed(self) -> None:
        """The table while there are saves, else the words saying what it would hold."""
        empty = self.model.rowCount() == 0
        self.table.setVisible(not empty)
        self.empty.setVisible(empty)

    @Slot()
    def _on_selection_changed(self) -> None:
        """Retry fits failed or waiting saves; drop fits anything not yet in the library."""
        op = self.selected_op()
        self.retry_button.setEnabled(bool(op and op.state in ("needs_attention", "queued")))
        self.drop_button.setEnabled(bool(op and op.state != "confirmed"))

    @Slot()
    def _on_retry_clicked(self) -> None:
        """Ask for the selected save to be retried."""
        op = self.selected_op()
        if op is not None:
            self.retry_requested.emit(op.id)

    @Slot()
    def _on_drop_clicked(self) -> None:
        """Ask for the selected save to be dropped."""
        op = self.selected_op()
        if op is not None:
            self.drop_requested.emit(op.id)

    @Slot(QModelIndex)
    def _on_table_double_clicked(self, index: QModelIndex) -> None:
        """Open what a save became, once the server gave it an id."""
        entity_id = index.data(OutboxModel.EntityIdRole)
        if entity_id:
            self.entity_activated.emit(entity_id)
