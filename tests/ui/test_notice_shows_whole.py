"""A notice shows whole inside the window, above the pane docked at the bottom (the outbox),
whether the pane was open first or opens while the notice shows; a notice that stays has a
Close button the keyboard reaches, and Escape in it closes it too; the keyboard then goes back
to where it was. An error stays until it is closed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QRect, Qt
from PySide6.QtWidgets import QApplication
from support.window import WindowFactory

from memex_desktop.app import AppContext
from memex_desktop.errors import UserMessage
from memex_desktop.ui.main_window import MainWindow
from memex_desktop.ui.toast import Toast

pytestmark = [
    pytest.mark.gui,
    pytest.mark.qt_log_ignore("propagateSizeHints"),
    pytest.mark.usefixtures("app_style"),
]

REFUSED = (
    "Not saved: javascript:alert(document.cookie) — Only web links (http and https) can be "
    "saved; javascript: links are refused."
)
GRABS = Path("/tmp/h12")


@pytest.fixture
def context(window_factory: WindowFactory) -> AppContext:
    """The window at the size of a laptop's screen, the outbox pane closed."""
    context = window_factory()
    context.window.resize(1366, 740)
    if context.window.outbox_dock.isVisible():
        context.window.docks.toggle_outbox()
    QApplication.processEvents()
    return context


def _in_window(window: MainWindow, widget: Any) -> QRect:
    """Where ``widget`` shows, in the window's coordinates."""
    return QRect(widget.mapTo(window, widget.rect().topLeft()), widget.size())


def _shows_whole(window: MainWindow, toast: Toast) -> None:
    """The notice is inside the window, clear of the outbox pane and in front of every pane."""
    QApplication.processEvents()
    notice = _in_window(window, toast)
    assert window.rect().contains(notice), (notice, window.rect())
    dock = window.outbox_dock
    assert dock.isVisible()
    assert not notice.intersects(_in_window(window, dock)), (notice, dock.geometry())
    assert notice.bottom() < _in_window(window, window.statusBar()).top()
    # Nothing of the window is painted over it: at its centre and corners, it is what shows.
    for point in (notice.center(), notice.topLeft(), notice.bottomRight()):
        shown = window.childAt(point)
        assert shown is toast or toast.isAncestorOf(shown), (point, shown)


def _grab(widget: Any, name: str) -> None:
    """Keep a picture of ``widget`` to look at (the notice over the window)."""
    GRABS.mkdir(parents=True, exist_ok=True)
    widget.grab().save(str(GRABS / name))


def test_a_notice_shows_above_the_outbox_pane_open_before_it(context: AppContext) -> None:
    window, toast = context.window, context.window.toast
    window.docks.show_outbox()
    QApplication.processEvents()
    toast.show_message("1 link queued: it is saved when Memex can be reached.", [1])
    _shows_whole(window, toast)
    _grab(window, "notice-above-outbox.png")


def test_a_notice_moves_above_the_outbox_pane_opened_while_it_shows(
    context: AppContext,
) -> None:
    window, toast = context.window, context.window.toast
    toast.show_message(REFUSED, stays=True)
    QApplication.processEvents()
    window.docks.show_outbox()
    _shows_whole(window, toast)
    # Closed again: the notice goes back down to where it was.
    low = toast.y()
    window.docks.toggle_outbox()
    QApplication.processEvents()
    assert toast.y() > low


def test_a_notice_that_stays_has_a_close_button_the_keyboard_reaches(
    qtbot: Any, context: AppContext
) -> None:
    window, toast = context.window, context.window.toast
    toast.show_message(REFUSED, stays=True)
    QApplication.processEvents()
    close = toast.close_button
    assert toast.stays()
    assert close.isVisible()
    assert close.accessibleName() == "Close notice"
    assert close.text()
    _grab(toast, "notice-that-stays.png")
    # Tab moves through the window, and on through the notice.
    window.activateWindow()
    window.results_view.setFocus()
    for _ in range(60):
        if close.hasFocus():
            break
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
    assert close.hasFocus()
    qtbot.keyClick(close, Qt.Key.Key_Space)
    assert toast.isHidden()


@pytest.mark.parametrize(
    "key",
    [Qt.Key.Key_Escape, Qt.Key.Key_Return, Qt.Key.Key_Enter],
    ids=["escape", "return", "enter"],
)
def test_escape_or_enter_in_a_notice_closes_it(
    qtbot: Any, context: AppContext, key: Qt.Key
) -> None:
    toast = context.window.toast
    toast.show_message(REFUSED, stays=True)
    context.window.activateWindow()
    toast.close_button.setFocus()
    qtbot.keyClick(toast.close_button, key)
    assert toast.isHidden()


@pytest.mark.parametrize("key", [Qt.Key.Key_Space, Qt.Key.Key_Escape], ids=["close", "escape"])
def test_closing_a_notice_from_the_keyboard_gives_it_back_to_where_it_was(
    qtbot: Any, context: AppContext, key: Qt.Key
) -> None:
    """Qt would move the keyboard on to the window's next widget, away from where the person
    was before they went to the notice."""
    window, toast = context.window, context.window.toast
    toast.show_message(REFUSED, stays=True)
    window.activateWindow()
    field = window.search_bar.field
    field.setFocus()
    qtbot.waitUntil(field.hasFocus, timeout=2000)
    toast.close_button.setFocus()  # as Tab brings it there
    assert toast.close_button.hasFocus()
    toast.show_message("Another notice.", stays=True)  # a second one comes meanwhile
    qtbot.keyClick(toast.close_button, key)
    assert toast.isHidden()
    assert field.hasFocus()


def test_an_error_stays_until_it_is_closed_and_a_warning_goes_by_itself(
    context: AppContext,
) -> None:
    window, toast = context.window, context.window.toast
    window.messages.show(UserMessage("error", "The note was not kept: the disk is full."))
    assert toast.isVisible()
    assert toast.stays()
    toast.close_button.click()
    window.messages.warn("The server answers slowly.")
    assert toast.isVisible()
    assert not toast.stays()


def test_a_passing_notice_can_be_closed_too(context: AppContext) -> None:
    toast = context.window.toast
    toast.show_message("Saving 1 link.", [1])
    assert not toast.stays()
    assert toast.close_button.isVisible()
    assert toast.undo_button.isVisible()
    _grab(toast, "notice-with-undo.png")
