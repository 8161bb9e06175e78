"""The order of the results: best match first, newest first or oldest first."""

from __future__ import annotations

from PySide6.QtCore import Signal, Slot
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QSizePolicy, QWidget

from memex_desktop.store.search_language import SORTS, Sort

SORT_LABELS: dict[Sort, str] = {
    "relevance": "Best match",
    "newest": "Newest first",
    "oldest": "Oldest first",
}


class SortControl(QWidget):
    """A small menu of result orders, right-aligned above the results.

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
