"""A small transient notice over the bottom of the window, with optional Undo and Open buttons
and a Close button.

A notice may carry details (one line per link that was not saved, say): they are shown in a
scrollable box below the text, and the notice then stays until it is closed (its Close button,
or Escape while the keyboard is in it), so nothing it names disappears before it can be read.

Over a main window the notice sits at the bottom of the central area, above any pane docked
at the bottom, and in front of the panes docked at the sides: it always shows whole.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from PySide6.QtCore import QEvent, QObject, QRect, Qt, QTimer, Signal, Slot
from PySide6.QtGui import QKeyEvent, QTextDocument
from PySide6.QtWidgets import (
    QApplication,
    QFrame,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)
from shiboken6 import isValid

TOAST_MS = 6_000
DETAILS_MAX_HEIGHT = 160
# Between the notice and the bottom of the area it sits in (and the sides of a narrow one).
MARGIN = 16
# Below the notice over a widget that is no main window: room for a status bar, as a main
# window's central area leaves.
BOTTOM_ROOM = 32
FOCUS_SHOWN = (
    "#toastundo:focus, #toastaction:focus, #toastclose:focus { text-decoration: underline; }"
)


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
        self.close_button.setAccessibleName("Close notice")
        self.close_button.setToolTip("Close notice (Escape)")
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
        # The buttons are words on the dark notice, without the outline that shows the
        # keyboard on other buttons: the one the keyboard is on is underlined instead, and
        # Enter presses it as Space does.
        self.setStyleSheet(FOCUS_SHOWN)
        for button in (self.undo_button, self.open_button, self.close_button):
            button.setAutoDefault(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(14, 8, 8, 8)
        layout.addLayout(row)
        layout.addWidget(self.details)
        self._token: object | None = None
        self._open_token: object | None = None
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self.hide)
        # Where the keyboard was before it came into the notice: it goes back there when the
        # notice closes (Qt would move it on to the window's next widget instead).
        self._focus_before: QWidget | None = None
        application = QApplication.instance()
        if isinstance(application, QApplication):
            application.focusChanged.connect(self._on_focus_changed)
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
        stays: bool = False,
    ) -> None:
        """Show ``text``; each token adds a button (Undo, ``open_label``) that hands it back.

        With ``details`` (one line each), the notice lists them and stays until closed, as it
        does when it ``stays``; else it goes after TOAST_MS. Every notice can be closed.
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
        self._place()
        self.show()
        self.raise_()
        if details or stays:
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

    def stays(self) -> bool:
        """Whether the notice shown stays until it is closed (tests read it)."""
        return not self.isHidden() and not self._timer.isActive()

    def _area(self, parent: QWidget) -> QRect:
        """Where the notice may sit, in the parent's coordinates: a main window's central
        area (the panes docked around it, the menu and status bars left out), else the
        parent above room for a status bar."""
        central = parent.centralWidget() if isinstance(parent, QMainWindow) else None
        if central is None:
            return parent.rect().adjusted(0, 0, 0, -BOTTOM_ROOM)
        # The area changes size when a pane is docked, shown or hidden: the notice follows.
        central.installEventFilter(self)
        return central.geometry()

    def _place(self) -> None:
        """Centre at the bottom of the free area (above any pane docked at the bottom),
        whole inside the parent and in front of its other children."""
        parent = self.parentWidget()
        if parent is None:
            return
        area = self._area(parent)
        width = min(560, max(280, area.width() - 80), parent.width())
        self.setFixedWidth(width)
        if not self.details.isHidden():
            self.details.setFixedHeight(self._details_height(width))
        self.adjustSize()
        x = area.left() + (area.width() - width) // 2
        y = max(area.bottom() + 1 - self.height() - MARGIN, area.top())
        # Taller than the area: it covers the panes below rather than leave the window.
        y = min(y, parent.height() - self.height())
        self.move(max(0, min(x, parent.width() - width)), max(0, y))
        self.raise_()

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
        """Stay in place when the window is resized or a docked pane comes or goes."""
        parent = self.parentWidget()
        central = parent.centralWidget() if isinstance(parent, QMainWindow) else None
        if (
            watched in (parent, central)
            and event.type() in (QEvent.Type.Resize, QEvent.Type.Move)
            and self.isVisible()
        ):
            self._place()
        return super().eventFilter(watched, event)

    @Slot(QWidget, QWidget)
    def _on_focus_changed(self, old: QWidget | None, new: QWidget | None) -> None:
        """Remember the widget the keyboard came from when it comes into the notice."""
        if new is not None and self.isAncestorOf(new):
            if old is not None and old is not self and not self.isAncestorOf(old):
                self._focus_before = old
        elif new is not None:
            self._focus_before = None  # the keyboard went elsewhere: nothing to give back

    def setVisible(self, visible: bool) -> None:
        """Closed with the keyboard in it, the notice gives the keyboard back to the widget
        it came from, where that is still there to take it."""
        if visible:  # another notice: the keyboard still came from where it did
            super().setVisible(visible)
            return
        focused = QApplication.focusWidget()
        giving_back = focused is not None and self.isAncestorOf(focused)
        before, self._focus_before = self._focus_before, None
        super().setVisible(visible)
        if (
            giving_back
            and before is not None
            and isValid(before)
            and before.isVisible()
            and before.isEnabled()
        ):
            before.setFocus(Qt.FocusReason.OtherFocusReason)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        """Escape closes the notice while the keyboard is in it."""
        if event.key() == Qt.Key.Key_Escape:
            self.hide()
            event.accept()
            return
        super().keyPressEvent(event)

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
