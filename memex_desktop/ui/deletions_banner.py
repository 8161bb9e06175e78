"""The banner that asks before a sync marks many items deleted upstream.

A pass that finds more items gone than it may mark on its own marks none of them and says how
many it held back (``SyncReport.deletions_held``, kept in the cache's sync_state). The window
then shows this banner, non-modal, above the panes: the person confirms (a full sync that marks
them; they stay readable on the "Deleted upstream" shelf) or keeps the items as they are.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QWidget


def held_text(count: int) -> str:
    """What the banner says about ``count`` items held back."""
    items = "1 item looks" if count == 1 else f"{count:,} items look"
    return (
        f"{items} deleted on the Memex server — more than a sync marks without asking. "
        "Nothing was marked."
    )


class DeletionsBanner(QFrame):
    """Says how many items look deleted upstream, with Mark them deleted and Keep them.

    Signals:
        confirm_requested(): "Mark them deleted" was pressed (the window runs the full sync).
        kept(): "Keep them" was pressed (the banner hid itself).
    """

    confirm_requested = Signal()
    kept = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("deletionsbanner")
        self.setAccessibleName("Items deleted on the Memex server")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.count = 0
        self.label = QLabel(self)
        self.label.setObjectName("deletionsbannertext")
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.label.setWordWrap(True)
        self.label.setAccessibleName("Items deleted on the Memex server")
        self.mark_button = QPushButton("&Mark them deleted", self)
        self.mark_button.setObjectName("deletionsmark")
        self.mark_button.setAccessibleName("Mark them deleted")
        self.mark_button.setToolTip(
            "Run a full sync that marks them deleted upstream; they stay readable on the "
            "Deleted upstream shelf (Alt+M)"
        )
        self.mark_button.clicked.connect(self._on_mark_button_clicked)
        self.keep_button = QPushButton("&Keep them", self)
        self.keep_button.setObjectName("deletionskeep")
        self.keep_button.setAccessibleName("Keep them")
        self.keep_button.setToolTip(
            "Leave them as they are; this comes back if a later sync holds deletions again (Alt+K)"
        )
        self.keep_button.clicked.connect(self._on_keep_button_clicked)
        for button in (self.mark_button, self.keep_button):
            button.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
            button.setAutoDefault(False)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(12, 8, 8, 8)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.mark_button)
        layout.addWidget(self.keep_button)
        self.hide()

    def text(self) -> str:
        """What the banner says (tests read it)."""
        return self.label.text()

    @property
    def working(self) -> bool:
        """Whether the sync that marks them was asked for and has not finished."""
        return not self.mark_button.isEnabled() and self.isVisible()

    def show_held(self, count: int) -> None:
        """Ask about ``count`` items held back (the buttons usable again)."""
        self.count = count
        text = held_text(count)
        self.label.setText(text)
        self.setAccessibleDescription(text)
        self.set_working(False)
        self.show()

    def set_working(self, working: bool) -> None:
        """While the marking sync runs, the buttons wait (one confirmation is enough)."""
        self.mark_button.setEnabled(not working)
        self.keep_button.setEnabled(not working)
        self.mark_button.setText("Marking…" if working else "&Mark them deleted")

    @Slot()
    def _on_mark_button_clicked(self) -> None:
        """Confirm: the window runs a full sync that marks them."""
        self.set_working(True)
        self.confirm_requested.emit()

    @Slot()
    def _on_keep_button_clicked(self) -> None:
        """Keep them: hide until a sync holds deletions again."""
        self.hide()
        self.kept.emit()
