"""A list read again for the same search keeps the person's place, whatever moved in it.

A sync's items land all over a search's list, its ranking moves listed items as the sync
indexes them, and items leave it: the rows change without a reset, the selected item stays
selected, and the row the person is on stays where it was on screen.
"""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import QCoreApplication, QPoint
from support.rows import shown_list
from support.signals import Emitted

from memex_desktop.ui.results_model import ResultsModel
from memex_desktop.ui.results_view import ResultsView

pytestmark = [pytest.mark.gui, pytest.mark.qt_log_ignore("propagateSizeHints")]

LISTED = 400


def _refreshed(ids: list[str]) -> list[str]:
    """The same search read again later: its second half ranked above its first, new items
    in many places, every tenth of the old ones gone."""
    kept = [i for n, i in enumerate(ids) if n % 10 != 7]
    moved = kept[len(kept) // 2 :] + kept[: len(kept) // 2]
    refreshed: list[str] = []
    for n, entity_id in enumerate(moved):
        if n % 5 == 0:
            refreshed.append(f"new-{n}")
        refreshed.append(entity_id)
    return refreshed


def _settle() -> None:
    for _ in range(5):
        QCoreApplication.processEvents()


def _top(view: ResultsView, entity_id: str, model: ResultsModel) -> int:
    """Where the row of ``entity_id`` starts in the viewport."""
    return view.visualRect(model.index(model.row_of(entity_id) or 0, 0)).top()


def test_the_row_being_read_keeps_its_place_and_selection(qtbot: Any) -> None:
    ids = [f"old-{number}" for number in range(LISTED)]
    view, model = shown_list(qtbot, ids, query="word")
    assert view.select_entity("old-120")  # a row of the first half: it moves far down
    _settle()
    top = _top(view, "old-120", model)
    assert view.viewport().rect().intersects(view.visualRect(view.currentIndex()))
    resets = Emitted(model.modelReset)
    refreshed = _refreshed(ids)
    assert model.update_ids(refreshed)
    view.keep_current_visible()  # what the window does once the refreshed search applied
    assert model.ids() == refreshed
    assert resets.calls == []
    assert view.current_id() == "old-120"
    selected = [model.id_at(index.row()) for index in view.selectionModel().selectedIndexes()]
    assert selected == ["old-120"]
    assert _top(view, "old-120", model) == top
    _settle()
    assert _top(view, "old-120", model) == top


def test_scrolled_away_from_the_selection_the_top_row_stays_on_top(qtbot: Any) -> None:
    ids = [f"old-{number}" for number in range(LISTED)]
    view, model = shown_list(qtbot, ids, query="word")
    assert view.select_entity("old-3")
    view.verticalScrollBar().setValue(view.verticalScrollBar().maximum() // 3)
    _settle()
    on_top = model.id_at(view.indexAt(QPoint(4, 0)).row()) or ""
    top = _top(view, on_top, model)
    assert model.update_ids(_refreshed(ids))
    _settle()
    assert _top(view, on_top, model) == top
    assert view.current_id() == "old-3"
    assert not view.viewport().rect().intersects(view.visualRect(view.currentIndex()))
