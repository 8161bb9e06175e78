"""What a feed says about itself: never once the person has moved on, and, empty, why."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import Qt
from support.emulator import EmulatorFactory, small_library
from support.window import WindowFactory

from memex_desktop.app import AppContext
from memex_desktop.errors import ConnectionState, UserMessage
from memex_desktop.ui.messages import message_line
from memex_desktop.ui.sidebar import Scope

pytestmark = [pytest.mark.gui, pytest.mark.qt_log_ignore("propagateSizeHints")]

WAIT_MS = 10_000
BLOG = Scope("feed", "feed-blog", "Example blog")
QUIET = Scope("feed", "feed-quiet", "Quiet feed")
PYTHON = Scope("view", "view-python", "Python")


def _library() -> dict[str, Any]:
    """The small library with a feed the server lists no items for."""
    library = small_library()
    library["feeds"].append({"id": "feed-quiet", "title": "Quiet feed", "source_platform": "rss"})
    return library


def _settle(qtbot: Any, context: AppContext) -> None:
    qtbot.waitUntil(lambda: context.runner.active_count() == 0, timeout=WAIT_MS)


def _empty_words(context: AppContext) -> tuple[str, str]:
    view = context.window.results_view
    state = view.empty_state
    assert state is not None, "the list says nothing"
    button = view.empty_button
    return state.title, button.text() if button.isVisible() else ""


def _heard(context: AppContext) -> list[str]:
    """Every message the window is asked to show from now on, as it shows them."""
    lines: list[str] = []

    def hear(message: UserMessage) -> None:
        lines.append(message_line(message))

    context.window.messages.shown.connect(hear)
    return lines


def _offline_window(window_factory: WindowFactory, emulator_factory: EmulatorFactory) -> AppContext:
    gone = emulator_factory(library=_library())
    gone.stop()  # nothing listens on its port any more
    return window_factory(library=_library(), server=gone)


def test_a_feed_that_fails_after_the_person_moved_on_says_nothing(
    qtbot: Any, window_factory: WindowFactory, emulator_factory: EmulatorFactory
) -> None:
    context = _offline_window(window_factory, emulator_factory)
    window = context.window
    heard = _heard(context)
    window.sidebar.select_scope(BLOG)
    window.sidebar.select_scope(PYTHON)  # before the server's answer about the feed comes
    _settle(qtbot, context)
    assert not [line for line in heard if "feed" in line]
    assert "feed" not in window.toast.text() or not window.toast.isVisible()
    assert "feed" not in window.status.currentMessage()


def test_a_feed_message_goes_when_the_person_moves_on(
    qtbot: Any, window_factory: WindowFactory, emulator_factory: EmulatorFactory
) -> None:
    context = _offline_window(window_factory, emulator_factory)
    window = context.window
    heard = _heard(context)
    window.sidebar.select_scope(BLOG)
    _settle(qtbot, context)
    [line] = [line for line in heard if "feed" in line]
    assert line.startswith("Showing this feed's items from the cache: ")
    assert window.toast.isVisible()
    assert window.toast.text() == line
    # The listing found no server: the window says so everywhere, as a failed sync does.
    assert context.controller.state is ConnectionState.OFFLINE
    assert _empty_words(context) == ("This feed has not been listed yet", "Try again")
    assert "cannot be reached" in window.results_view.empty_state.explanation

    window.sidebar.select_scope(PYTHON)
    assert not (window.toast.isVisible() and window.toast.text() == line)
    assert window.status.currentMessage() != line


def test_a_feed_never_listed_offline_says_so_even_with_words_typed(
    qtbot: Any, window_factory: WindowFactory, emulator_factory: EmulatorFactory
) -> None:
    context = _offline_window(window_factory, emulator_factory)
    window = context.window
    window.search_bar.field.setText("python")
    window.search_bar.flush()
    window.sidebar.select_scope(BLOG)
    _settle(qtbot, context)
    assert _empty_words(context) == ("This feed has not been listed yet", "Try again")


def test_a_feed_the_server_lists_empty_says_so_and_lists_it_again(
    qtbot: Any, window_factory: WindowFactory, emulator_factory: EmulatorFactory
) -> None:
    server = emulator_factory(library=_library())
    context = window_factory(library=_library(), server=server)
    window = context.window
    with qtbot.waitSignal(context.controller.feed_listed, timeout=WAIT_MS):
        window.sidebar.select_scope(QUIET)
    _settle(qtbot, context)
    assert context.reader.feed_listing("feed-quiet") is not None
    assert _empty_words(context) == ("This feed has no items on Memex", "List again")
    assert "Sync" not in window.results_view.empty_button.text()

    with qtbot.waitSignal(context.controller.feed_listed, timeout=WAIT_MS) as listed:
        qtbot.mouseClick(window.results_view.empty_button, Qt.MouseButton.LeftButton)
    assert listed.args[0].feed_id == "feed-quiet"
