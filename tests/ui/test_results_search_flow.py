"""Instant search: the first page read at once, the full list appended, old searches cancelled.

Also the results model's bookkeeping for long lists and the delegate's eliding and painting.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QFontMetrics
from PySide6.QtTest import QAbstractItemModelTester
from support.rows import made_up_row
from support.signals import Emitted
from support.window import WindowFactory

from memex_desktop.app import AppContext
from memex_desktop.emulator.synthetic import generate_library
from memex_desktop.store import CacheReader, EntityRow
from memex_desktop.store import reader as reader_module
from memex_desktop.store.errors import DatabaseCorruptError, DatabaseLockedError
from memex_desktop.ui import search_controller
from memex_desktop.ui.results_delegate import ResultDelegate, elide
from memex_desktop.ui.results_model import ResultsModel, row_positions
from memex_desktop.ui.search_bar import SearchRequest

pytestmark = [pytest.mark.gui, pytest.mark.qt_log_ignore("propagateSizeHints")]

FAIL = QAbstractItemModelTester.FailureReportingMode.Fatal


@pytest.fixture(scope="module")
def library() -> dict[str, Any]:
    """A library with every content type."""
    return generate_library(150, seed=5, words_per_entity=60)


@pytest.fixture
def context(
    window_factory: WindowFactory, library: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> AppContext:
    """The window on a cache of that library; first pages of 10 results, so full lists follow."""
    monkeypatch.setattr(search_controller, "FIRST_PAGE", 10)
    return window_factory(library=library)


def _common_word(reader: CacheReader) -> str:
    """A word found in many items (more than a first page) of the synthetic library."""
    for word in ("py", "tum", "coark"):
        if len(reader.search_ids(word)) > 30:
            return word
    raise AssertionError("the synthetic library has no common word")


def test_first_page_shows_at_once_and_the_full_list_follows(
    qtbot: Any, context: AppContext
) -> None:
    window = context.window
    QAbstractItemModelTester(window.results_model, FAIL)
    word = _common_word(context.reader)
    expected = context.reader.search_ids(word)
    applied = Emitted(window.search_applied)
    window.run_search(SearchRequest(word))
    # Read on the GUI thread: the first page is on screen when run_search returns.
    assert applied.calls == [[10]]
    assert window.results_model.ids() == expected[:10]
    qtbot.waitUntil(lambda: window.results_model.rowCount() == len(expected), timeout=10_000)
    assert window.results_model.ids() == expected
    assert window.results_model.row_of(expected[-1]) == len(expected) - 1


def test_the_same_search_again_keeps_the_full_list_on_screen(
    qtbot: Any, context: AppContext
) -> None:
    window = context.window
    word = _common_word(context.reader)
    expected = context.reader.search_ids(word)
    window.run_search(SearchRequest(word))
    qtbot.waitUntil(lambda: window.results_model.ids() == expected, timeout=10_000)
    removed, resets = (
        Emitted(window.results_model.rowsRemoved),
        Emitted(window.results_model.modelReset),
    )
    window.run_search(SearchRequest(word))  # what a change in the store does
    assert window.results_model.rowCount() == len(expected)
    qtbot.waitUntil(lambda: context.runner.active_count() == 0, timeout=10_000)
    assert window.results_model.ids() == expected
    assert (removed.calls, resets.calls) == ([], [])


def test_a_first_page_over_budget_is_read_by_a_worker(
    qtbot: Any, context: AppContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    window = context.window
    word = _common_word(context.reader)
    expected = context.reader.search_ids(word)
    monkeypatch.setattr(search_controller, "FIRST_PAGE_BUDGET_S", 0.0)
    monkeypatch.setattr(reader_module, "INTERRUPT_CHECK_STEPS", 1)
    applied = Emitted(window.search_applied)
    window.run_search(SearchRequest(word))
    assert applied.calls == []
    qtbot.waitUntil(lambda: window.results_model.ids() == expected, timeout=10_000)
    assert window.status.currentMessage() == ""


def test_a_failing_read_on_the_gui_thread_leaves_the_search_to_a_worker(
    qtbot: Any, context: AppContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    window = context.window
    word = _common_word(context.reader)
    expected = context.reader.search_ids(word)

    def failing(*_args: Any, **_kwargs: Any) -> list[str]:
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(window.reader, "search_ids", failing)
    applied = Emitted(window.search_applied)
    window.run_search(SearchRequest(word))
    assert applied.calls == []
    qtbot.waitUntil(lambda: window.results_model.ids() == expected, timeout=10_000)


def test_superseded_searches_are_cancelled_quietly(
    qtbot: Any, context: AppContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    window = context.window
    word = _common_word(context.reader)
    # Every search goes to a worker, where a newer one interrupts its reads.
    monkeypatch.setattr(search_controller, "FIRST_PAGE_BUDGET_S", 0.0)
    monkeypatch.setattr(reader_module, "INTERRUPT_CHECK_STEPS", 1)
    told = Emitted(window.messages.shown)
    for stem in ("t", "co", "cum", word[:1], "gro"):
        window.run_search(SearchRequest(stem))
    superseded = window.search.local_tasks
    window.run_search(SearchRequest(word))
    assert superseded
    assert all(task.cancelled for task in superseded)
    expected = context.reader.search_ids(word)
    qtbot.waitUntil(lambda: window.results_model.ids() == expected, timeout=10_000)
    qtbot.waitUntil(lambda: context.runner.active_count() == 0, timeout=10_000)
    assert window.results_model.query == word
    assert told.calls == []
    assert window.status.currentMessage() == ""


def test_a_failing_search_on_a_worker_says_why_in_the_status_bar(
    qtbot: Any, context: AppContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    window = context.window
    window.run_search(SearchRequest("before"))
    qtbot.waitUntil(lambda: context.runner.active_count() == 0, timeout=10_000)
    shown = window.results_model.ids()

    def locked(*_args: Any, **_kwargs: Any) -> Any:
        raise DatabaseLockedError("reading cache.db: the database is locked by another program")

    monkeypatch.setattr(search_controller, "thread_reader", locked)
    monkeypatch.setattr(window.reader, "search_ids", locked)
    told = Emitted(window.messages.shown)
    window.run_search(SearchRequest("after"))
    told.wait(qtbot, 10_000)
    assert told.args[0].text.startswith("The local library is busy")
    assert window.status.currentMessage() == (
        "The local library is busy (another memex-desktop is writing to it). "
        "Close the other window or command and try again."
    )
    assert window.results_model.ids() == shown


def test_a_list_the_cache_cannot_fill_says_it_cannot_be_read_not_that_nothing_matches(
    qtbot: Any, context: AppContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    window = context.window

    def damaged(*_args: Any, **_kwargs: Any) -> Any:
        raise DatabaseCorruptError("reading cache.db: the database file is damaged")

    monkeypatch.setattr(search_controller, "thread_reader", damaged)
    monkeypatch.setattr(window.reader, "search_ids", damaged)
    monkeypatch.setattr(window.reader, "all_ids", damaged)
    window.results_model.set_results([], query="")
    window.run_search(SearchRequest(""))
    qtbot.waitUntil(lambda: window.results_view.empty_state is not None, timeout=10_000)
    qtbot.waitUntil(
        lambda: window.results_view.empty_state.title == "Your library cannot be read",
        timeout=10_000,
    )
    assert "damaged" in window.results_view.empty_state.explanation
    monkeypatch.undo()
    window.run_search(SearchRequest(""))  # readable again: the list and no such words
    qtbot.waitUntil(lambda: window.results_model.rowCount() > 0, timeout=10_000)
    assert window.search.read_problem is None
    assert window.results_view.empty_state is None


def test_the_full_list_is_appended_to_its_first_page(qapp: Any) -> None:
    model = ResultsModel(_RowsReader())
    QAbstractItemModelTester(model, FAIL)
    ids = [f"id-{number}" for number in range(50)]
    model.set_results(ids[:10], query="word")
    resets, inserted, removed = (
        Emitted(model.modelReset),
        Emitted(model.rowsInserted),
        Emitted(model.rowsAboutToBeRemoved),
    )
    model.update_ids(ids, row_positions(ids))
    assert (resets.calls, removed.calls) == ([], [])
    assert [call[1:] for call in inserted.calls] == [[10, 49]]
    assert model.ids() == ids
    assert model.row_of("id-49") == 49
    assert model.data(model.index(30, 0), ResultsModel.ProvenanceRole) == "cached"


def test_ids_are_deduplicated_without_matching_positions(qapp: Any) -> None:
    model = ResultsModel(_RowsReader())
    model.set_results(["a", "b", "a", "c"], positions={"a": 0})
    assert model.ids() == ["a", "b", "c"]
    assert model.row_of("c") == 2
    model.update_ids(["a", "b", "c", "b", "d"], positions={"x": 0})
    assert model.ids() == ["a", "b", "c", "d"]


def test_server_results_stay_after_the_full_local_list(qapp: Any) -> None:
    model = ResultsModel(_RowsReader())
    QAbstractItemModelTester(model, FAIL)
    model.set_results(["a", "b"], query="word")
    model.merge_remote(["b", "cloud-1"])
    model.update_ids(["a", "b", "c", "d"])
    assert model.ids() == ["a", "b", "c", "d", "cloud-1"]
    provenance = [model.data(model.index(row, 0), ResultsModel.ProvenanceRole) for row in range(5)]
    assert provenance == ["cached", "both", "cached", "cached", "cloud"]


def test_rows_read_for_an_earlier_search_get_the_new_snippets(qapp: Any) -> None:
    reader = _RowsReader()
    model = ResultsModel(reader)
    ids = [f"id-{number}" for number in range(8)]
    model.set_results(ids, query="first")
    assert model.data(model.index(0, 0), ResultsModel.SnippetRole) == "\x02first\x03 of id-0"
    model.set_results(ids, query="second")
    assert model.data(model.index(3, 0), ResultsModel.SnippetRole) == "\x02second\x03 of id-3"
    assert reader.row_reads == 1  # the rows were kept; only the snippets were read again
    assert reader.snippet_reads == 2


@pytest.mark.parametrize("width", [-5, 0, 3, 40, 120, 300, 2000])
def test_eliding_a_prefix_gives_what_eliding_the_whole_text_gives(qapp: Any, width: int) -> None:
    metrics = QFontMetrics(QFont())
    texts = [
        "",
        "short",
        "iiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiii tail",
        "WWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWW",
        "A long snippet about gardening, tomatoes and the patience they ask for " * 4,
    ]
    for text in texts:
        expected = metrics.elidedText(text, Qt.TextElideMode.ElideRight, width)
        assert elide(metrics, text, width, metrics.averageCharWidth()) == expected


def test_the_delegate_paints_marked_selected_and_missing_rows(qtbot: Any) -> None:
    from PySide6.QtWidgets import QListView

    model = ResultsModel(_RowsReader())
    ids = [f"id-{number}" for number in range(30)]
    model.set_results([*ids, "gone"], query="word")
    view = QListView()
    qtbot.addWidget(view)
    view.setUniformItemSizes(True)
    view.setModel(model)
    delegate = ResultDelegate(view)
    view.setItemDelegate(delegate)
    view.resize(420, 600)
    view.show()
    view.setCurrentIndex(model.index(1, 0))
    assert not view.grab().isNull()
    fonts = delegate._fonts_for(view.font())
    layout = delegate.layout_for(model.index(0, 0), fonts, 300)
    assert [run.matched for run in layout.snippet][:2] == [True, False]
    assert layout.title.startswith("Title of id-0")
    view.scrollToBottom()
    assert not view.grab().isNull()
    missing = delegate.layout_for(model.index(30, 0), fonts, 300)
    assert missing.entity_type == "missing"


class _RowsReader:
    """A stand-in for CacheReader: rows and snippets made up from the ids, reads counted."""

    closed = False

    def __init__(self) -> None:
        self.row_reads = 0
        self.snippet_reads = 0

    def get_many(self, ids: Sequence[str]) -> dict[str, EntityRow]:
        self.row_reads += 1
        return {
            entity_id: made_up_row(
                entity_id,
                title=f"Title of {entity_id} " + "with many more words " * 5,
                url=f"https://example.org/{entity_id}",
                site="example.org",
                snippet_source="plain text",
            )
            for entity_id in ids
            if entity_id != "gone"
        }

    def snippets(self, query: str, ids: Sequence[str]) -> dict[str, str]:
        self.snippet_reads += 1
        return {entity_id: f"\x02{query}\x03 of {entity_id}" for entity_id in ids}


def test_the_line_above_the_list_says_how_many_results_it_holds(
    qtbot: Any, context: AppContext
) -> None:
    window = context.window
    count = window.sort_control.count
    word = _common_word(context.reader)
    expected = context.reader.search_ids(word)
    window.run_search(SearchRequest(word))
    assert count.text() == "10+ items"  # the first page; its full list follows
    qtbot.waitUntil(lambda: count.text() == f"{len(expected)} items", timeout=10_000)
    assert count.toolTip() == ""
    window.run_search(SearchRequest("zzzznothingmatchesthis"))
    qtbot.waitUntil(lambda: count.text() == "", timeout=10_000)  # the empty list says why


def test_a_list_that_stops_short_of_every_match_says_so(
    qtbot: Any, context: AppContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(search_controller, "SEARCH_LIMIT", 40)
    window = context.window
    count = window.sort_control.count
    window.run_search(SearchRequest(""))  # every item: more than the list may hold
    qtbot.waitUntil(lambda: window.results_model.rowCount() == 40, timeout=10_000)
    qtbot.waitUntil(lambda: count.text() == "40+ items", timeout=10_000)
    assert "first 40 results" in count.toolTip()
    assert count.accessibleDescription() == count.toolTip()


def test_a_list_of_exactly_its_limit_is_whole(
    qtbot: Any, context: AppContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A library of exactly 100,000 items read "100,000+ items", as if some were left out."""
    window = context.window
    everything = len(context.reader.search_ids("", limit=10_000))
    monkeypatch.setattr(search_controller, "SEARCH_LIMIT", everything)
    count = window.sort_control.count
    window.run_search(SearchRequest(""))
    qtbot.waitUntil(lambda: count.text() == f"{everything:,} items", timeout=10_000)
    assert window.results_model.rowCount() == everything


def test_keys_pressed_while_a_new_list_is_on_its_way_go_to_the_new_list(
    qtbot: Any, context: AppContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Typing a word, then Down, Down and Enter at once opens the second result of that word,
    not of the list the word replaces."""
    window = context.window
    old_word = _common_word(context.reader)
    window.run_search(SearchRequest(old_word))
    qtbot.waitUntil(lambda: context.runner.active_count() == 0, timeout=10_000)
    old = window.results_model.ids()
    new_word = next(
        word
        for word in ("lorem", "wuz", "nond", "fym", "shy", "rai")
        if len(context.reader.search_ids(word)) >= 2
        and context.reader.search_ids(word)[:2] != old[:2]
    )
    expected = context.reader.search_ids(new_word)
    # A slow cache: the new list's first page comes from a worker, after the keys.
    monkeypatch.setattr(search_controller, "FIRST_PAGE_BUDGET_S", 0.0)
    monkeypatch.setattr(reader_module, "INTERRUPT_CHECK_STEPS", 1)
    field = window.search_bar.field
    field.setFocus()
    qtbot.waitUntil(field.hasFocus)
    opened = Emitted(window.results_view.entity_activated)
    field.setText(new_word)  # typed; the search waits for typing to settle
    qtbot.keyClick(field, Qt.Key.Key_Down)
    assert window.results_view.hasFocus()
    assert window.results_view.holding_keys
    qtbot.keyClick(window.results_view, Qt.Key.Key_Down)
    qtbot.keyClick(window.results_view, Qt.Key.Key_Return)
    assert opened.calls == []  # nothing of the old list was opened
    qtbot.waitUntil(lambda: not window.results_view.holding_keys, timeout=10_000)
    assert window.results_model.ids()[:2] == expected[:2]
    assert opened.calls == [[expected[1]]]


def test_keys_held_for_a_list_are_dropped_when_the_list_loses_the_keyboard(
    qtbot: Any, context: AppContext
) -> None:
    window = context.window
    window.run_search(SearchRequest(_common_word(context.reader)))
    view = window.results_view
    view.enter(list_coming=True)
    qtbot.waitUntil(view.hasFocus)
    opened = Emitted(view.entity_activated)
    qtbot.keyClick(view, Qt.Key.Key_Return)
    window.search_bar.field.setFocus()
    qtbot.waitUntil(lambda: not view.hasFocus())
    view.list_arrived()
    assert not view.holding_keys
    assert opened.calls == []
