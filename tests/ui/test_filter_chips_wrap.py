"""Filter chips at a laptop's width wrap onto more rows, each shown whole, rather than cut
their words to "Lib… ✕"; only a chip wider than the whole column ends its words with "…"."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtWidgets import QListView, QVBoxLayout, QWidget

from memex_desktop.ui.search_bar import SearchBar

pytestmark = [pytest.mark.gui, pytest.mark.qt_log_ignore("propagateSizeHints")]


def _column(qtbot: Any, width: int) -> tuple[QWidget, SearchBar]:
    """A search bar over a list, as the results column holds them, ``width`` wide (the
    column is returned too: it owns the bar)."""
    column = QWidget()
    layout = QVBoxLayout(column)
    bar = SearchBar()
    layout.addWidget(bar)
    layout.addWidget(QListView(), 1)
    bar.types.addItem("Video", "video")
    bar.tags.addItem("zul", "t-zul")
    qtbot.addWidget(column)
    column.resize(width, 500)
    column.show()
    qtbot.waitExposed(column)
    return column, bar


def test_chips_wrap_and_each_is_shown_whole(qtbot: Any) -> None:
    _kept, bar = _column(qtbot, 330)  # the results column of a 1366-pixel window
    bar.field.setText("garden bees")
    bar.set_scope_chip("Library: Note")
    bar.types.setCurrentIndex(bar.types.count() - 1)
    bar.tags.setCurrentIndex(bar.tags.count() - 1)
    qtbot.waitUntil(lambda: len(bar.chip_buttons()) == 4)
    chips = bar.chip_buttons()
    # Not cut (once the layout has caught up with the last label).
    qtbot.waitUntil(lambda: all(chip.width() >= chip.sizeHint().width() for chip in chips))
    for chip in chips:
        assert chip.isVisible()
        assert chip.geometry().right() <= bar.chips.width()
    rows = {chip.geometry().top() for chip in [*chips, bar.clear_all_button]}
    assert len(rows) > 1  # wrapped, not squeezed onto one row
    assert bar.chips.geometry().bottom() < bar.height()  # the bar grew to hold them


def test_a_chip_wider_than_the_column_takes_its_width(qtbot: Any) -> None:
    _kept, bar = _column(qtbot, 330)
    bar.field.setText("a very long query of many words that no column could ever hold whole")
    qtbot.waitUntil(lambda: len(bar.chip_buttons()) == 1)
    chip = bar.chip_buttons()[0]
    qtbot.waitUntil(chip.isVisible)
    assert chip.geometry().right() <= bar.chips.width()
    assert chip.width() < chip.sizeHint().width()  # its words end with "…"
