"""The count above the list stays true while the same search is read again.

A sync, or any write to the cache, makes the window read the current search again: its first
page comes first and its full list after. The list keeps showing the full list it had
meanwhile, so the count must not say "300+ items", or "1,000+ items", between the two.
"""

from __future__ import annotations

from typing import Any

import pytest
from support.window import WindowFactory

from memex_desktop.emulator.synthetic import generate_library
from memex_desktop.ui.search_controller import FIRST_PAGE

pytestmark = [pytest.mark.gui, pytest.mark.qt_log_ignore("propagateSizeHints")]

LIBRARY_SIZE = FIRST_PAGE * 3


def test_reading_the_same_search_again_keeps_its_count(
    qtbot: Any, window_factory: WindowFactory
) -> None:
    context = window_factory(library=generate_library(LIBRARY_SIZE, seed=5, words_per_entity=8))
    window = context.window
    count = window.sort_control.count
    qtbot.waitUntil(lambda: count.text() == f"{LIBRARY_SIZE:,} items", timeout=10_000)
    shown: list[str] = []
    window.search.search_applied.connect(lambda _rows: shown.append(count.text()))
    for _ in range(3):
        applied = len(shown)
        window.search.run_current_search()
        qtbot.waitUntil(lambda applied=applied: len(shown) >= applied + 2, timeout=10_000)
    assert shown, "the search was read again"
    assert set(shown) == {f"{LIBRARY_SIZE:,} items"}
    assert window.results_model.rowCount() == LIBRARY_SIZE
