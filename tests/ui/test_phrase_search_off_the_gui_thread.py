"""A quoted phrase is searched on a worker from the first page on: each candidate's text is
checked, which on a large library outlasts the GUI thread's budget for a first page (a frozen
window at each keystroke). Plain words keep their first page on the GUI thread."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from support.window import WindowFactory

from memex_desktop.app import AppContext

pytestmark = [pytest.mark.gui, pytest.mark.qt_log_ignore("propagateSizeHints")]

WAIT_MS = 10_000


@pytest.fixture
def context(window_factory: WindowFactory, demo_library: dict[str, Any]) -> AppContext:
    return window_factory(library=demo_library)


def _searched_on_the_gui_thread(
    qtbot: Any, context: AppContext, monkeypatch: pytest.MonkeyPatch, query: str
) -> bool:
    """Type ``query``, let its results land; whether the window's own reader searched."""
    gui_reads: list[str] = []
    search_ids = context.reader.search_ids

    def recorded(text: str, **kwargs: Any) -> list[str]:
        if threading.current_thread() is threading.main_thread():
            gui_reads.append(text)
        return search_ids(text, **kwargs)

    monkeypatch.setattr(context.reader, "search_ids", recorded)
    bar = context.window.search_bar
    bar.field.setText(query)
    bar.flush()
    qtbot.waitUntil(lambda: context.window.results_model.query == query, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: context.runner.active_count() == 0, timeout=WAIT_MS)
    assert context.window.results_model.rowCount() > 0
    return query in gui_reads


def test_a_phrase_is_searched_on_a_worker(
    qtbot: Any, context: AppContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert not _searched_on_the_gui_thread(qtbot, context, monkeypatch, '"local-first"')


def test_plain_words_show_their_first_page_from_the_gui_thread(
    qtbot: Any, context: AppContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _searched_on_the_gui_thread(qtbot, context, monkeypatch, "compost")
