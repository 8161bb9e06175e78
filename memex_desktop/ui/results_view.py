"""The results list: uniform rows laid out in batches, keyboard moves, and the current result.

The view announces the result the person moves to (the window reads it) and the one they open
(Enter or a double-click). When a new list replaces the results, the result that was current
stays current if the new list has it, without being opened again.
"""

from __future__ import annotations

from PySide6.QtCore import QAbstractItemModel, QItemSelectionModel, QModelIndex, Signal, Slot
from PySide6.QtWidgets import QAbstractItemView, QListView, QWidget

from memex_desktop.ui.results_model import ResultsModel

# Rows the results list lays out per step of the event loop (about 3 ms each).
RESULTS_LAYOUT_BATCH = 2000


class ResultsView(QListView):
    """The results list: uniform rows, no drops of its own (the window takes them).

    Signals:
        current_entity_changed(str): the person moved to this result.
        entity_activated(str): Enter or a double-click on this result.
    """

    current_entity_changed = Signal(str)
    entity_activated = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("resultsview")
        self.setAccessibleName("Results")
        self.setUniformItemSizes(True)
        # Laid out in one pass, the view asks the (Python) model about every row, twice: a
        # 100,000-row list froze the window for 200 ms whenever it changed. In batches,
        # the layout is spread over the event loop in steps of a few milliseconds.
        self.setLayoutMode(QListView.LayoutMode.Batched)
        self.setBatchSize(RESULTS_LAYOUT_BATCH)
        self.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setAcceptDrops(False)
        self._results: ResultsModel | None = None
        self._kept_current: str | None = None  # current before the list was replaced
        self.activated.connect(self._on_activated)

    def setModel(self, model: QAbstractItemModel | None) -> None:
        """Show a ResultsModel (the view keeps its current result across list changes)."""
        super().setModel(model)
        self._results = model if isinstance(model, ResultsModel) else None
        if self._results is not None:
            self._results.modelAboutToBeReset.connect(self._on_model_about_to_be_reset)
            self._results.modelReset.connect(self._on_model_reset)
            self.selectionModel().currentChanged.connect(self._on_current_changed)

    def current_id(self) -> str | None:
        """The entity of the current row, if any."""
        if self._results is None or not self.currentIndex().isValid():
            return None
        return self._results.id_at(self.currentIndex().row())

    def select_entity(self, entity_id: str) -> bool:
        """Make an entity's row current and visible; False when it is not listed."""
        row = self._results.row_of(entity_id) if self._results is not None else None
        if row is None or self._results is None:
            return False
        index = self._results.index(row, 0)
        self.selectionModel().setCurrentIndex(
            index, QItemSelectionModel.SelectionFlag.ClearAndSelect
        )
        self.scrollTo(index)
        return True

    @Slot()
    def keep_current_visible(self) -> None:
        """Scroll the current result into view (rows were inserted above it)."""
        if self.currentIndex().isValid():
            self.scrollTo(self.currentIndex())

    @Slot()
    def enter(self) -> None:
        """Take the focus, on the first result when none is current (Down in the search)."""
        self.setFocus()
        if not self.currentIndex().isValid() and self.model() and self.model().rowCount():
            self.setCurrentIndex(self.model().index(0, 0))

    @Slot()
    def select_next(self) -> None:
        """Down / j."""
        self._move_current(1)

    @Slot()
    def select_previous(self) -> None:
        """Up / k."""
        self._move_current(-1)

    @Slot()
    def open_current(self) -> None:
        """Enter: open the current result."""
        if self.currentIndex().isValid():
            self._on_activated(self.currentIndex())

    def _move_current(self, step: int) -> None:
        """Make the next (or previous) row current."""
        count = self.model().rowCount() if self.model() else 0
        if count:
            row = self.currentIndex().row()
            row = 0 if row < 0 else max(0, min(count - 1, row + step))
            self.setCurrentIndex(self.model().index(row, 0))

    @Slot(QModelIndex, QModelIndex)
    def _on_current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        """Announce the result moved to (a list reset moves to no row: nothing to say)."""
        if self._results is not None and current.isValid():
            entity_id = self._results.id_at(current.row())
            if entity_id:
                self.current_entity_changed.emit(entity_id)

    @Slot(QModelIndex)
    def _on_activated(self, index: QModelIndex) -> None:
        """Enter or double-click on a row."""
        entity_id = self._results.id_at(index.row()) if self._results is not None else None
        if entity_id:
            self.entity_activated.emit(entity_id)

    @Slot()
    def _on_model_about_to_be_reset(self) -> None:
        """A new list replaces the results: remember which one was current."""
        self._kept_current = self.current_id()

    @Slot()
    def _on_model_reset(self) -> None:
        """The new list is in: the result current before stays current when listed."""
        kept, self._kept_current = self._kept_current, None
        if kept is not None:
            self.select_entity(kept)
