"""Find in the article: a bar under the reader's toolbar, and the matching it does.

Ctrl+F (while the reader has focus) opens it; typing finds every match at once, counted
("3 of 17") and highlighted, the current one selected and scrolled to. Enter or F3 goes to
the next match, Shift+Enter or Shift+F3 to the previous one (both wrap); Escape closes it and
takes the marks off, the current match's selection too.

The current match is the selection (so Ctrl+Shift+H highlights it and a note quotes it), drawn
in the palette's ``find_current`` while the bar is open: the reader's own selection colour is
a pale amber beside the pale yellow of the other matches, and hard to tell from them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from PySide6.QtCore import QEvent, QObject, Qt, Signal, Slot
from PySide6.QtGui import QColor, QKeyEvent, QTextCharFormat, QTextCursor, QTextDocument
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QTextEdit,
    QToolButton,
    QWidget,
)

from memex_desktop.ui import theme
from memex_desktop.ui.palette import Palette

# Matches painted at once: beyond this only the count and the current one show (a word in a
# 1 MB article can match tens of thousands of times; painting each costs the layout).
MAX_PAINTED_MATCHES = 2000


@dataclass(frozen=True)
class Match:
    """One occurrence: where it starts in the document's plain text, and how long it is."""

    start: int
    length: int


def find_matches(text: str, needle: str) -> list[Match]:
    """Every occurrence of ``needle`` in ``text``, ignoring case, in order (none for "")."""
    if not needle.strip():
        return []
    # re's case-insensitive matching keeps positions in the original text (lowering it
    # first would not: "İ".lower() is two characters).
    pattern = re.compile(re.escape(needle), re.IGNORECASE)
    return [Match(found.start(), found.end() - found.start()) for found in pattern.finditer(text)]


def count_text(current: int | None, total: int, needle: str) -> str:
    """The bar's count: "3 of 17", "No matches", or nothing before anything is typed."""
    if not needle.strip():
        return ""
    if total == 0:
        return "No matches"
    return f"{(current or 0) + 1:,} of {total:,}"


class FindBar(QWidget):
    """The find field, its count and its buttons; the reader does the finding.

    Signals:
        text_changed(str): the text to find changed.
        step(int): go to the next (+1) or previous (-1) match.
        closed(): the bar was closed (Escape or its close button).
    """

    text_changed = Signal(str)
    step = Signal(int)
    closed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("readerfindbar")
        row = QHBoxLayout(self)
        row.setContentsMargins(8, 2, 8, 2)
        self.field = QLineEdit(self)
        self.field.setObjectName("readerfindfield")
        self.field.setPlaceholderText("Find in this item")
        self.field.setAccessibleName("Find in this item")
        self.field.setClearButtonEnabled(True)
        self.field.textChanged.connect(self.text_changed)
        self.field.installEventFilter(self)
        self.count_label = QLabel("", self)
        self.count_label.setObjectName("readerfindcount")
        self.count_label.setAccessibleName("Matches")
        self.previous_button = self._button("‹", "Previous match (Shift+F3)", "Previous match")
        self.next_button = self._button("›", "Next match (F3)", "Next match")
        self.close_button = self._button("✕", "Close (Escape)", "Close find")
        self.previous_button.clicked.connect(lambda: self.step.emit(-1))
        self.next_button.clicked.connect(lambda: self.step.emit(1))
        self.close_button.clicked.connect(self.close_bar)
        row.addWidget(self.field, 1)
        row.addWidget(self.count_label)
        row.addWidget(self.previous_button)
        row.addWidget(self.next_button)
        row.addWidget(self.close_button)
        self.setVisible(False)

    def _button(self, text: str, tip: str, name: str) -> QToolButton:
        button = QToolButton(self)
        button.setText(text)
        button.setToolTip(tip)
        button.setAccessibleName(name)
        button.setAutoRaise(True)
        return button

    def open_bar(self) -> None:
        """Show the bar with its text selected, ready to type over."""
        self.setVisible(True)
        self.field.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.field.selectAll()

    @Slot()
    def close_bar(self) -> None:
        """Hide the bar (its text stays for F3)."""
        if self.isVisible():
            self.setVisible(False)
            self.closed.emit()

    def set_count(self, current: int | None, total: int) -> None:
        """Show where the current match is among all of them."""
        self.count_label.setText(count_text(current, total, self.field.text()))
        has_matches = total > 0
        self.previous_button.setEnabled(has_matches)
        self.next_button.setEnabled(has_matches)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Enter / Shift+Enter step through the matches; Escape closes the bar."""
        if watched is self.field and event.type() == QEvent.Type.KeyPress:
            assert isinstance(event, QKeyEvent)
            if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
                shifted = bool(event.modifiers() & Qt.KeyboardModifier.ShiftModifier)
                self.step.emit(-1 if shifted else 1)
                return True
            if event.key() == Qt.Key.Key_Escape:
                self.close_bar()
                return True
        return super().eventFilter(watched, event)


class ArticleFinder:
    """The matches of one needle in one document, and the selections that paint them."""

    def __init__(self, view: QTextEdit) -> None:
        self.view = view
        self.needle = ""
        self.matches: list[Match] = []
        self.current: int | None = None
        self._document: QTextDocument | None = None
        # The match selected last (start, end): taken off with the paint, unless the person
        # selected something else since.
        self._selected: tuple[int, int] | None = None
        # The view's own style sheet while the current match's colours stand in for it.
        self._own_style: str | None = None

    def find(self, needle: str) -> None:
        """Find ``needle`` in the view's document; the current match is the first at or after
        the top of what is shown."""
        self.needle = needle
        document = self.view.document()
        self._document = document
        self.matches = find_matches(document.toPlainText(), needle)
        if not self.matches:
            self.current = None
        else:
            top = self.view.cursorForPosition(self.view.viewport().rect().topLeft()).position()
            self.current = next(
                (index for index, match in enumerate(self.matches) if match.start >= top), 0
            )
        self._paint()

    def step(self, direction: int) -> None:
        """Make the next (+1) or previous (-1) match current, wrapping around."""
        if self._document is not self.view.document():
            self.find(self.needle)  # another item is shown now
        if not self.matches:
            return
        current = self.current if self.current is not None else -direction
        self.current = (current + direction) % len(self.matches)
        self._paint()

    def clear(self) -> None:
        """Forget the matches and take their paint off, and the selection of the current one
        (the text cursor stays where it was)."""
        self.matches = []
        self.current = None
        self.view.setExtraSelections([])
        self._restore_selection_colours()
        cursor = self.view.textCursor()
        if self._selected == (cursor.selectionStart(), cursor.selectionEnd()):
            cursor.clearSelection()
            bar = self.view.verticalScrollBar()
            scrolled = bar.value()
            self.view.setTextCursor(cursor)
            bar.setValue(scrolled)  # the text stays where the person scrolled it
        self._selected = None

    def _cursor(self, match: Match) -> QTextCursor:
        cursor = QTextCursor(self.view.document())
        cursor.setPosition(match.start)
        cursor.setPosition(match.start + match.length, QTextCursor.MoveMode.KeepAnchor)
        return cursor

    def _selection_colours(self, palette: Palette) -> None:
        """Draw the selection (the current match) in the current match's colours."""
        if self._own_style is None:
            self._own_style = self.view.styleSheet()
        # The view's own sheet wins over the application's, whatever its selectors.
        style = (
            f"QTextEdit {{ selection-background-color: {palette.find_current}; "
            f"selection-color: {palette.find_current_text}; }}"
        )
        if self.view.styleSheet() != style:
            self.view.setStyleSheet(style)

    def _restore_selection_colours(self) -> None:
        """The view's selection in its own colours again."""
        if self._own_style is not None:
            self.view.setStyleSheet(self._own_style)
            self._own_style = None

    def _paint(self) -> None:
        """Highlight the matches near the current one and select (and show) that one."""
        selections: list[QTextEdit.ExtraSelection] = []
        if self.matches:
            assert self.current is not None
            palette = theme.current()
            colours = {
                False: (QColor(palette.find_match), None),
                True: (QColor(palette.find_current), QColor(palette.find_current_text)),
            }
            half = MAX_PAINTED_MATCHES // 2
            first = max(0, self.current - half)
            for index in range(first, min(len(self.matches), first + MAX_PAINTED_MATCHES)):
                selection = QTextEdit.ExtraSelection()
                selection.cursor = self._cursor(self.matches[index])
                background, text = colours[index == self.current]
                paint = QTextCharFormat()
                paint.setBackground(background)
                if text is not None:
                    paint.setForeground(text)
                selection.format = paint
                selections.append(selection)
            self._selection_colours(palette)
            current = self.matches[self.current]
            self.view.setTextCursor(self._cursor(current))
            self._selected = (current.start, current.start + current.length)
            self.view.ensureCursorVisible()
        else:
            self._restore_selection_colours()
        self.view.setExtraSelections(selections)
