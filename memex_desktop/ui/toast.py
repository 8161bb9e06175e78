"""A small transient notice over the bottom of the window, with optional Undo and Open buttons.

A notice may carry details (one line per link that was not saved, say): they are shown in a
scrollable box below the text, and the notice then stays until it is closed, so nothing it
names disappears before it can be read.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal, Slot
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

TOAST_MS = 6_000
DETAILS_MAX_HEIGHT = 160


class Toast(QFrame):
    """A notice that hides itself after a few seconds.

    Signals:
        undo_requested(object): Undo was clicked; carries the token given to show_message().
        open_requested(object): the open button was clicked; carries its token.
    """

    undo_requested = Signal(object)
    open_requested = Signal(object)

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.setObjectName("toast")
        self.setAccessibleName("Notice")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.label = QLabel(self)
        self.label.setObjectName("toasttext")
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.label.setWordWrap(True)
        self.undo_button = QPushButton("Undo", self)
        self.undo_button.setObjectName("toastundo")
        self.undo_button.setAccessibleName("Undo")
        self.undo_button.clicked.connect(self._on_undo_clicked)
        self.open_button = QPushButton("Open", self)
        self.open_button.setObjectName("toastaction")
        self.open_button.clicked.connect(self._on_open_clicked)
        self.close_button = QPushButton("Close", self)
        self.close_button.setObjectName("toastclose")
        self.close_button.setAccessibleName("Close the notice")
        self.close_button.clicked.connect(self.hide)
        self.details = QPlainTextEdit(self)
        self.details.setObjectName("toastdetails")
        self.details.setAccessibleName("Details")
        self.details.setReadOnly(True)
        self.details.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.label, 1)
        row.addWidget(self.open_button)
        row.addWidget(self.undo_button)
        row.addWidget(self.close_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(14, 8, 8, 8)
        layout.addLayout(row)
        layout.addWidget(self.details)
        self._token: object | None = None
        self._open_token: object | None = None
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self.hide)
        parent.installEventFilter(self)
        self.hide()

    def show_message(
        self,
        text: str,
        undo_token: object | None = None,
        *,
        open_token: object | None = None,
        open_label: str = "Open",
        details: Sequence[str] = (),
    ) -> None:
        """Show ``text``; each token adds a button (Undo, ``open_label``) that hands it back.

        With ``details`` (one line each), the notice lists them and stays until closed.
        """
        self._token = undo_token
        self._open_token = open_token
        self.label.setText(text)
        self.undo_button.setVisible(undo_token is not None)
        self.open_button.setText(open_label)
        self.open_button.setAccessibleName(open_label)
        self.open_button.setVisible(open_token is not None)
        self.details.setPlainText("\n".join(details))
        self.details.setVisible(bool(details))
        self.close_button.setVisible(bool(details))
        self._place()
        self.show()
        self.raise_()
        if details:
            self._timer.stop()
        else:
            self._timer.start(TOAST_MS)

    def details_lines(self) -> list[str]:
        """The detail lines shown (tests read them)."""
        text = self.details.toPlainText()
        return text.split("\n") if text else []

    def text(self) -> str:
        """The text shown (tests read it)."""
        return self.label.text()

    def _place(self) -> None:
        """Centre at the bottom of the parent, above the status bar."""
        parent = self.parentWidget()
        if parent is None:
            return
        width = min(560, max(280, parent.width() - 80))
        self.setFixedWidth(width)
        if not self.details.isHidden():
            self.details.setFixedHeight(self._details_height(width))
        self.adjustSize()
        x = (parent.width() - width) // 2
        y = parent.height() - self.height() - 48
        self.move(max(0, x), max(0, y))

    def _details_height(self, width: int) -> int:
        """How tall the details must be to show every line (wrapped as the box wraps them)
        in a notice ``width`` wide: no empty space under the last, and no more than
        DETAILS_MAX_HEIGHT (the box scrolls beyond)."""
        self.details.ensurePolished()  # the style sheet's font and frame
        layout = self.layout()
        sides = layout.contentsMargins() if layout is not None else None
        margins = sides.left() + sides.right() if sides is not None else 0
        frame = 2 * self.details.frameWidth()
        lines = QTextDocument()
        lines.setDefaultFont(self.details.font())
        lines.setDocumentMargin(self.details.document().documentMargin())
        lines.setPlainText(self.details.toPlainText())
        lines.setTextWidth(max(1, width - margins - frame))
        # The box scrolls unless a pixel is left below its last line.
        return min(DETAILS_MAX_HEIGHT, math.ceil(lines.size().height()) + frame + 2)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Stay in place when the window is resized."""
        if (
            watched is self.parentWidget()
            and event.type() == QEvent.Type.Resize
            and self.isVisible()
        ):
            self._place()
        return super().eventFilter(watched, event)

    @Slot()
    def _on_open_clicked(self) -> None:
        """Hand the open token back and hide."""
        token, self._open_token = self._open_token, None
        self.hide()
        if token is not None:
            self.open_requested.emit(token)

    @Slot()
    def _on_undo_clicked(self) -> None:
        """Hand the token back and hide."""
        token, self._token = self._token, None
        self.hide()
        if token is not None:
            self.undo_requested.emit(token)
