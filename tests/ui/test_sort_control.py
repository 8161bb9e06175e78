"""The sort control: the same search in another order; a query that means nothing says so."""

from __future__ import annotations

import json
from typing import Any

import pytest
from support.search_table import LIBRARY
from support.window import WindowFactory

from memex_desktop.app import AppContext
from memex_desktop.ui.sort_control import SORT_LABELS, SortControl

pytestmark = [pytest.mark.gui, pytest.mark.qt_log_ignore("propagateSizeHints")]

NEWEST = ["tweet-1", "reddit-1", "worm-guide", "video-1", "other-site"]


@pytest.fixture
def context(window_factory: WindowFactory) -> AppContext:
    """The window on the search language's table library."""
    return window_factory(library=json.loads(LIBRARY.read_text(encoding="utf-8")))


def test_the_sort_control_changes_the_order(qtbot: Any, context: AppContext) -> None:
    window = context.window
    control = window.findChild(SortControl, "sortcontrol")
    assert control is not None
    assert control.isVisible()
    assert control.combo.currentText() == SORT_LABELS["relevance"]
    window.search_bar.field.setText("worm bin")
    window.search_bar.flush()
    qtbot.waitUntil(lambda: window.results_model.rowCount() == len(NEWEST), timeout=10_000)
    relevant = window.results_model.ids()
    assert relevant != NEWEST  # titles holding both words first, not the newest
    for sort, expected in (("newest", NEWEST), ("oldest", NEWEST[::-1]), ("relevance", relevant)):
        control.combo.setCurrentIndex(control.combo.findData(sort))
        qtbot.waitUntil(lambda expected=expected: window.results_model.ids() == expected)


def test_an_unknown_type_empties_the_list_and_says_which_types_there_are(
    qtbot: Any, context: AppContext
) -> None:
    window = context.window
    window.search_bar.field.setText("worm type:gizmo")
    window.search_bar.flush()
    qtbot.waitUntil(lambda: window.results_view.empty_state is not None)
    assert window.results_model.rowCount() == 0
    explanation = window.results_view.empty_state.explanation
    assert 'There is no type "gizmo"' in explanation
    assert "tweet" in explanation
    window.search_bar.field.setText("worm type:tweet")
    window.search_bar.flush()
    qtbot.waitUntil(lambda: window.results_model.ids() == ["tweet-1"])
