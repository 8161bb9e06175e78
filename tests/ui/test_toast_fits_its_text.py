"""A notice is as tall as what it says: the lines listed under its text (the links a paste did
not save, and why) fill their box, with no empty space below them."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from PySide6.QtWidgets import QApplication, QWidget

from memex_desktop.ui.toast import DETAILS_MAX_HEIGHT, Toast

pytestmark = [
    pytest.mark.gui,
    pytest.mark.qt_log_ignore("propagateSizeHints"),
    pytest.mark.qt_log_ignore("This plugin does not support"),
]

REASON = "Not a web link (only http and https links are saved)"
THREE = [f"    ftp://a.example/{name}" for name in "xyz"]


@pytest.fixture
def toast(qtbot: Any) -> Iterator[Toast]:
    """A notice over a window as wide as a main window."""
    window = QWidget()
    qtbot.addWidget(window)
    window.resize(1000, 700)
    window.show()
    qtbot.waitExposed(window)
    yield Toast(window)
    window.close()


def _show(toast: Toast, text: str, *, undo: object = None, details: list[str]) -> None:
    """Show a notice and let its layout settle (the box is sized and scrolled as shown)."""
    toast.show_message(text, undo, details=details)
    QApplication.processEvents()


def _lines_height(toast: Toast, lines: int) -> int:
    """What ``lines`` unwrapped lines of the details take, with the box's margins and frame."""
    details = toast.details
    margins = 2 * int(details.document().documentMargin()) + 2 * details.frameWidth()
    return lines * details.fontMetrics().lineSpacing() + margins


def test_a_paste_notice_with_two_lines_under_it_has_no_empty_space(toast: Toast) -> None:
    _show(toast, "Saving 1 link · 1 not saved.", undo=[1], details=[REASON, "    mailto:a@b.c"])
    details = toast.details
    assert details.isVisible()
    assert details.verticalScrollBar().maximum() == 0  # every line shows
    assert details.height() <= _lines_height(toast, 2) + 4, details.height()
    # Below the box: the notice's margin and frame, and a few pixels of rounding.
    below = toast.height() - details.geometry().bottom() - 1
    assert below <= toast.layout().contentsMargins().bottom() + toast.frameWidth() + 4, below


def test_the_next_notice_with_more_lines_grows_and_a_long_list_scrolls(toast: Toast) -> None:
    _show(toast, "1 not saved.", details=[REASON, "    ftp://a.example/x"])
    two = toast.details.height()
    _show(toast, "3 not saved.", details=[REASON, *THREE])
    assert toast.details.height() > two
    assert toast.details.verticalScrollBar().maximum() == 0
    many = [REASON, *(f"    ftp://a.example/{i}" for i in range(40))]
    _show(toast, "40 not saved.", details=many)
    assert toast.details.height() == DETAILS_MAX_HEIGHT
    assert toast.details.verticalScrollBar().maximum() > 0  # the rest is scrolled to


def test_a_notice_without_lines_is_one_line_tall(toast: Toast) -> None:
    _show(toast, "3 not saved.", details=[REASON, *THREE])
    _show(toast, "Saving 2 links.", undo=[1, 2], details=[])
    assert not toast.details.isVisible()
    inside = toast.layout().contentsMargins()
    row = max(toast.label.sizeHint().height(), toast.undo_button.sizeHint().height())
    assert toast.height() <= row + inside.top() + inside.bottom() + 2
