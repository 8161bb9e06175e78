"""The "open in your browser?" dialog: where a web link really goes, before it is opened.

Its words come from :func:`memex_desktop.ui.links.link_confirmation`; this module only lays
them out. The width is bounded by the screen, so a 70,000-character address neither widens
the dialog nor pushes its buttons off screen: the address is shown elided on one line, and
whole in a scrolling, selectable box below it.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QGuiApplication, QTextOption
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPlainTextEdit,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from memex_desktop.ui.links import LinkConfirmation

TITLE = "Open in your browser?"
MAX_WIDTH = 720
MIN_WIDTH = 420
SCREEN_MARGIN = 48
FULL_ADDRESS_LINES = 5


class LinkDialog(QDialog):
    """Asks before a web link leaves the app; Cancel is the default."""

    def __init__(self, confirmation: LinkConfirmation, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(TITLE)
        self.setAccessibleName(TITLE)
        self.confirmation = confirmation
        self._build()
        self._fit_to_screen()

    def _build(self) -> None:
        """Site first and largest, then the warnings, the address and the buttons."""
        layout = QVBoxLayout(self)
        layout.addWidget(self._wrapped("This link leads outside memex-desktop, to:"))
        self.site_label = self._wrapped(self.confirmation.site)
        font = QFont(self.site_label.font())
        font.setPointSizeF(font.pointSizeF() * 1.5)
        font.setBold(True)
        self.site_label.setFont(font)
        self.site_label.setAccessibleName("Site")
        layout.addWidget(self.site_label)
        if self.confirmation.host != self.confirmation.site:
            layout.addWidget(self._wrapped(f"(the server {self.confirmation.host})"))
        self.warning_labels = [self._wrapped(f"⚠ {text}") for text in self.confirmation.warnings]
        for label in self.warning_labels:
            label.setAccessibleName("Warning")
            layout.addWidget(label)
        self.address_label = QLabel(self.confirmation.shown_url)
        self.address_label.setTextFormat(Qt.TextFormat.PlainText)
        self.address_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        # An address has no spaces to wrap at: it must not widen the dialog.
        self.address_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.address_label.setAccessibleName("Address")
        layout.addWidget(self.address_label)
        self.full_address: QPlainTextEdit | None = None
        if self.confirmation.elided:
            length = len(self.confirmation.open_url)
            layout.addWidget(self._wrapped(f"The whole address ({length:,} characters):"))
            self.full_address = self._full_address_box()
            layout.addWidget(self.full_address)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Open | QDialogButtonBox.StandardButton.Cancel
        )
        self.open_button = buttons.button(QDialogButtonBox.StandardButton.Open)
        self.open_button.setText("Open in browser")
        self.open_button.setAutoDefault(False)
        self.cancel_button = buttons.button(QDialogButtonBox.StandardButton.Cancel)
        self.cancel_button.setDefault(True)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.buttons = buttons

    def _wrapped(self, text: str) -> QLabel:
        """A plain-text label that wraps within the dialog's width."""
        label = QLabel(text)
        label.setTextFormat(Qt.TextFormat.PlainText)
        label.setWordWrap(True)
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        return label

    def _full_address_box(self) -> QPlainTextEdit:
        """The whole address, wrapped anywhere, a few lines high, selectable and scrolling."""
        box = QPlainTextEdit(self.confirmation.open_url)
        box.setReadOnly(True)
        box.setWordWrapMode(QTextOption.WrapMode.WrapAnywhere)
        box.setAccessibleName("Whole address")
        lines = box.fontMetrics().lineSpacing() * FULL_ADDRESS_LINES
        box.setFixedHeight(lines + 2 * box.frameWidth() + 8)
        return box

    def _fit_to_screen(self) -> None:
        """A width the screen holds, whatever the words: at most MAX_WIDTH."""
        screen = self.screen() or QGuiApplication.primaryScreen()
        available = screen.availableGeometry().width() if screen is not None else MAX_WIDTH
        width = max(min(MAX_WIDTH, available - SCREEN_MARGIN), min(MIN_WIDTH, available))
        self.setMaximumWidth(width)
        self.setMinimumWidth(min(MIN_WIDTH, width))
        self.resize(width, self.sizeHint().height())


def confirm_link(confirmation: LinkConfirmation, parent: QWidget | None = None) -> bool:
    """Show the dialog and wait: True when the person chose to open the link."""
    dialog = LinkDialog(confirmation, parent)
    return dialog.exec() == QDialog.DialogCode.Accepted
