"""A search of any length keeps the list's layout, a search with nothing to look for says so,
and a query's problem is said once, in the list.

A tester pasted a 10,000-character query that matched nothing: the empty list quoted all of
it, the words ran off the bottom and hid Clear search. A 5 MB paste pushed the list 500 px
down (the query chip grew with the pasted lines). `((`, `😀` or `type:` listed the whole
library under a "Search: …" chip, as if every item matched; `type:gizmo` was said three times
at once (the empty list, a toast and the status bar).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QKeySequence
from PySide6.QtTest import QTest
from support.results import message_lines
from support.signals import Emitted
from support.window import WindowFactory

from memex_desktop.app import AppContext
from memex_desktop.paths import resource_path

pytestmark = [pytest.mark.gui, pytest.mark.qt_log_ignore("propagateSizeHints")]

WAIT_MS = 10_000
# The longest query the field takes (search_bar.MAX_QUERY_CHARS).
MAX_QUERY_CHARS = 2048
# Words no item of the demo library holds, as many as make 10,000 characters.
NOWHERE = " ".join(["wvqxqzz"] * 1250)[:10_000]
# A page pasted by mistake: many lines, 5 MB.
PASTED_PAGE = ("zzqwvx kqxwwv wvqxqzz\n" * 240_000)[: 5 * 1024 * 1024]


@pytest.fixture
def context(window_factory: WindowFactory) -> AppContext:
    """The window on the demo library's cache (no server)."""
    library = json.loads(resource_path("demo", "library.json").read_text(encoding="utf-8"))
    return window_factory(library=library)


def _search(qtbot: Any, context: AppContext, text: str) -> None:
    """Type a query and let its search land."""
    bar = context.window.search_bar
    bar.field.setText(text)
    bar.flush()
    qtbot.waitUntil(lambda: context.runner.active_count() == 0, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: not context.window.search.awaiting_results, timeout=WAIT_MS)


def _empty_words(context: AppContext) -> tuple[str, str]:
    state = context.window.results_view.empty_state
    assert state is not None, "the list says why it is empty"
    return state.title, state.explanation


def test_a_long_query_that_matches_nothing_is_quoted_short_and_its_fix_stays_on_screen(
    qtbot: Any, context: AppContext
) -> None:
    view = context.window.results_view
    _search(qtbot, context, "wvqxqzz kqzzvx")
    short_title, short_words = _empty_words(context)
    short_button = view.empty_button.geometry()

    _search(qtbot, context, NOWHERE)

    title, words = _empty_words(context)
    assert context.window.results_model.rowCount() == 0
    assert title.startswith("No items match \u201cwvqxqzz")
    assert title.endswith("\u2026\u201d")
    assert len(title) <= len(short_title) + 40
    assert words == short_words
    assert view.empty_button.isVisible()
    assert view.viewport().rect().contains(view.empty_button.geometry())
    assert view.empty_button.geometry().bottom() - short_button.bottom() < 60
    (chip,) = context.window.search_bar.chip_buttons()
    assert chip.label.endswith("\u2026")
    assert len(chip.label) < 60


def test_a_pasted_page_is_cut_to_the_fields_length_with_a_word_and_moves_nothing(
    qtbot: Any, context: AppContext
) -> None:
    window = context.window
    bar = window.search_bar
    _search(qtbot, context, "wvqxqzz")
    list_top = window.results_view.mapTo(window, window.results_view.rect().topLeft()).y()
    chip_height = bar.chip_buttons()[0].sizeHint().height()
    said = Emitted(window.messages.shown)

    bar.field.clear()
    QGuiApplication.clipboard().setText(PASTED_PAGE)
    bar.field.setFocus()
    QTest.keySequence(bar.field, QKeySequence.StandardKey.Paste)
    bar.flush()
    qtbot.waitUntil(lambda: context.runner.active_count() == 0, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: not window.search.awaiting_results, timeout=WAIT_MS)
    QGuiApplication.clipboard().clear()

    assert len(bar.field.text()) == MAX_QUERY_CHARS
    assert any(f"first {MAX_QUERY_CHARS:,} characters" in line for line in message_lines(said))
    (chip,) = bar.chip_buttons()
    assert "\n" not in chip.label
    assert chip.sizeHint().height() == chip_height
    qtbot.waitUntil(lambda: bar.layout().sizeHint().height() < 200, timeout=WAIT_MS)
    now_top = window.results_view.mapTo(window, window.results_view.rect().topLeft()).y()
    assert now_top == list_top
    view = window.results_view
    assert view.viewport().rect().contains(view.empty_button.geometry())


@pytest.mark.parametrize("query", ["\U0001f600", "((", '"', "-", "^", "#"])
def test_a_query_with_no_words_lists_nothing_and_says_so(
    qtbot: Any, context: AppContext, query: str
) -> None:
    _search(qtbot, context, query)

    assert context.window.results_model.rowCount() == 0
    title, words = _empty_words(context)
    assert title == "This search cannot run"
    assert words.startswith(f"\u201c{query}\u201d has no words to search for")
    assert context.window.results_view.empty_button.text() == "Clear search"


@pytest.mark.parametrize(
    ("query", "needs"),
    [
        ("type:", "type: needs a type, e.g. type:tweet."),
        ("tag:", "tag: needs a tag name, e.g. tag:reading."),
        ("site:", "site: needs a site, e.g. site:example.com."),
        ("compost type:", "type: needs a type, e.g. type:tweet."),
    ],
)
def test_a_filter_without_its_value_names_what_is_missing(
    qtbot: Any, context: AppContext, query: str, needs: str
) -> None:
    _search(qtbot, context, query)

    assert context.window.results_model.rowCount() == 0
    assert _empty_words(context) == ("This search cannot run", needs)


def test_a_query_problem_is_said_once_in_the_list(qtbot: Any, context: AppContext) -> None:
    window = context.window
    said = Emitted(window.messages.shown)
    _search(qtbot, context, "type:gizmo")
    QTest.keyClick(window.search_bar.field, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: context.runner.active_count() == 0, timeout=WAIT_MS)

    assert 'There is no type "gizmo"' in _empty_words(context)[1]
    assert not any("gizmo" in line for line in message_lines(said))
    assert not window.toast.isVisible()
    assert "gizmo" not in window.status.currentMessage()
