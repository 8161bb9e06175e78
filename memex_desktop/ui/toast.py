"""A small transient notice over the bottom of the window, with an optional Undo button."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal, Slot
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QWidget

TOAST_MS = 6_000


class Toast(QFrame):
    """A notice that hides itself after a few seconds.

    Signals:
        undo_requested(object): Undo was clicked; carries the token given to show().
    """

    undo_requested = Signal(object)

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
        layout = QHBoxLayout(self)
        layout.setContentsMargins(14, 8, 8, 8)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.undo_button)
        self._token: object | None = None
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self.hide)
        parent.installEventFilter(self)
        self.hide()

    def show_message(self, text: str, undo_token: object | None = None) -> None:
        """Show ``text``; with a token, an Undo button that hands the token back."""
        self._token = undo_token
        self.label.setText(text)
        self.undo_button.setVisible(undo_token is not None)
        self._place()
        self.show()
        self.raise_()
        self._timer.start(TOAST_MS)

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
        self.adjustSize()
        x = (parent.width() - width) // 2
        y = parent.height() - self.height() - 48
        self.move(max(0, x), max(0, y))

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
    def _on_undo_clicked(self) -> None:
        """Hand the token back and hide."""
        token, self._token = self._token, None
        self.hide()
        if token is not None:
            self.undo_requested.emit(token)
