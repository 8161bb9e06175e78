"""A long list changing under the person's eyes (a sync adding items, a full list following
its first page) is painted at once, not blanked while 100,000 rows are laid out again."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QColor, QImage
from PySide6.QtTest import QAbstractItemModelTester
from support.caches import indexed_reader, web_item

from memex_desktop.store import CacheReader
from memex_desktop.ui.results_delegate import ResultDelegate
from memex_desktop.ui.results_model import ResultsModel
from memex_desktop.ui.results_view import ResultsView

pytestmark = [pytest.mark.gui, pytest.mark.qt_log_ignore("propagateSizeHints")]

LISTED = 100_000
CACHED = 60


@pytest.fixture
def reader(tmp_path: Path) -> Iterator[CacheReader]:
    items = [web_item(n, f"Saved page number {n}", "words " * 20) for n in range(CACHED)]
    yield from indexed_reader(tmp_path / "cache.db", lambda writer: writer.ingest_entities(items))


@pytest.fixture
def view(qtbot: Any, reader: CacheReader) -> tuple[ResultsView, ResultsModel]:
    view = ResultsView()
    model = ResultsModel(reader, view)
    # Checks every change of the model as it happens; aborts the tests on a broken one.
    QAbstractItemModelTester(model, QAbstractItemModelTester.FailureReportingMode.Fatal, view)
    view.setItemDelegate(ResultDelegate(view))
    view.setModel(model)
    view.resize(600, 500)
    qtbot.addWidget(view)
    view.show()
    qtbot.waitExposed(view)
    return view, model


def _ids(reader: CacheReader) -> list[str]:
    """The cached items newest first, then ids the cache does not hold (placeholder rows)."""
    return reader.search_ids("") + [f"elsewhere-{n}" for n in range(LISTED - CACHED)]


def _ink(image: QImage) -> int:
    """Pixels of the row text's colour or darker in the left part of the viewport."""
    background = QColor(image.pixel(image.width() - 2, image.height() - 2)).lightness()
    return sum(
        1
        for y in range(0, image.height(), 3)
        for x in range(4, min(image.width(), 160), 3)
        if abs(QColor(image.pixel(x, y)).lightness() - background) > 60
    )


def _painted_after_one_turn(view: ResultsView) -> int:
    """The ink on the list after the event loop turned once: what a person sees next."""
    QCoreApplication.processEvents()
    return _ink(view.viewport().grab().toImage())


def test_rows_added_above_a_long_list_are_painted_at_once(
    view: tuple[ResultsView, ResultsModel], reader: CacheReader
) -> None:
    results_view, model = view
    listed = _ids(reader)
    model.set_results(listed[1:])
    settled = _painted_after_one_turn(results_view)
    assert settled > 100
    model.update_ids(listed)  # the newest item arrives above the others
    assert model.rowCount() == LISTED
    assert _painted_after_one_turn(results_view) > settled // 2


def test_a_full_list_following_its_first_page_is_painted_at_once(
    view: tuple[ResultsView, ResultsModel], reader: CacheReader
) -> None:
    results_view, model = view
    listed = _ids(reader)
    model.set_results(listed[:50])
    first_page = _painted_after_one_turn(results_view)
    model.update_ids(listed)
    assert model.rowCount() == LISTED
    assert _painted_after_one_turn(results_view) > first_page // 2
    results_view.scrollToBottom()
    assert _painted_after_one_turn(results_view) > 100  # placeholders, painted
    assert model.id_at(LISTED - 1) == listed[-1]


def test_rows_removed_and_inserted_keep_the_current_row(
    view: tuple[ResultsView, ResultsModel], reader: CacheReader
) -> None:
    results_view, model = view
    listed = reader.search_ids("")
    model.set_results(listed)
    assert results_view.select_entity(listed[30])
    changed = [listed[0], "arrived-1", *listed[5:29], "arrived-2", *listed[29:]]
    model.update_ids(changed)
    assert model.ids() == changed
    assert results_view.current_id() == listed[30]
    assert results_view.currentIndex().row() == changed.index(listed[30])


def test_items_landing_in_many_places_do_not_lay_the_list_out_for_each(
    view: tuple[ResultsView, ResultsModel], reader: CacheReader
) -> None:
    """A sync's items may come in between hundreds of listed ones: the view places its
    current row once a turn of the event loop, not before each run of new rows (each placing
    lays out the whole list: 600 of them held the window for seconds)."""
    results_view, model = view
    listed = _ids(reader)
    arriving = set(listed[CACHED :: (LISTED - CACHED) // 30])
    model.set_results([i for i in listed if i not in arriving])
    assert results_view.select_entity(listed[10])
    placed = 0
    place = results_view.visualRect

    def counted_place(index: Any) -> Any:
        nonlocal placed
        # Qt's own calls come here too: only the view's noting of its current row counts.
        placed += sys._getframe(1).f_code.co_name == "_note_current_on_screen"
        return place(index)

    results_view.visualRect = counted_place  # type: ignore[method-assign]
    assert model.update_ids(listed)
    turns = 0
    while model.rowCount() < LISTED:
        QCoreApplication.processEvents()
        turns += 1
        assert turns < 1_000
    assert model.ids() == listed
    assert 0 < placed <= turns + 1
    assert results_view.current_id() == listed[10]
    assert model.row_of(listed[-1]) == LISTED - 1
