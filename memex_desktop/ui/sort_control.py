"""The order of the results (best match first, newest first or oldest first), and how many
there are."""

from __future__ import annotations

from PySide6.QtCore import Signal, Slot
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QSizePolicy, QWidget

from memex_desktop.store.search_language import SORTS, Sort

SORT_LABELS: dict[Sort, str] = {
    "relevance": "Best match",
    "newest": "Newest first",
    "oldest": "Oldest first",
}


def count_text(rows: int, *, more: bool) -> str:
    """How many results a list holds, for the line above it ("" for none: the empty list
    says why); ``more``: others match beyond the rows listed."""
    if rows == 0:
        return ""
    if more:
        return f"{rows:,}+ items"
    return "1 item" if rows == 1 else f"{rows:,} items"


class SortControl(QWidget):
    """How many results there are, and a small menu of result orders, above the results.

    Signals:
        sort_changed(str): the person picked another order ("relevance", "newest", "oldest").
    """

    sort_changed = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("sortcontrol")
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(6)
        self.count = QLabel(self)
        self.count.setObjectName("resultcount")
        row.addWidget(self.count)
        row.addStretch(1)
        self.label = QLabel("Sort:", self)
        self.combo = QComboBox(self)
        self.combo.setObjectName("sortcombo")
        self.combo.setAccessibleName("Sort results")
        self.combo.setToolTip("The order of the results")
        self.combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        for sort in SORTS:
            self.combo.addItem(SORT_LABELS[sort], sort)
        self.label.setBuddy(self.combo)
        row.addWidget(self.label)
        row.addWidget(self.combo)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        self.combo.currentIndexChanged.connect(self._on_combo_current_index_changed)

    def show_count(self, rows: int, *, more: bool = False, stopped_at: int | None = None) -> None:
        """Say how many results are listed: ``more`` when others match beyond them,
        ``stopped_at`` when the list stops at that many (the rest are not listed)."""
        self.count.setText(count_text(rows, more=more or stopped_at is not None))
        why = (
            f"The list holds the first {stopped_at:,} results. Add a word, a tag or a date "
            "to the search, or sort the other way, to reach the others."
            if stopped_at is not None
            else ""
        )
        self.count.setToolTip(why)
        self.count.setAccessibleDescription(why)

    def sort(self) -> Sort:
        """The order picked."""
        value = self.combo.currentData()
        return value if value in SORTS else "relevance"

    def set_sort(self, sort: Sort) -> None:
        """Pick an order (announced like a pick by the person)."""
        self.combo.setCurrentIndex(max(0, self.combo.findData(sort)))

    @Slot(int)
    def _on_combo_current_index_changed(self, _index: int) -> None:
        """Announce the new order."""
        self.sort_changed.emit(self.sort())
