"""The results list: uniform rows laid out in batches, keyboard moves, and the current result.

The view announces the result the person moves to (the window reads it) and the one they open
(Enter or a double-click). When a new list replaces the results, the result that was current
stays current if the new list has it, without being opened again. When rows come, go or move
under the person (the same search read again while a sync runs), the row they are on stays
where it was on screen. An empty list draws why it is empty (:mod:`memex_desktop.empty_states`)
with a button for the fix.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import (
    QAbstractItemModel,
    QItemSelectionModel,
    QModelIndex,
    QPersistentModelIndex,
    QPoint,
    QRect,
    Qt,
    QTimer,
    Signal,
    Slot,
)
from PySide6.QtGui import (
    QFocusEvent,
    QFont,
    QFontMetrics,
    QKeyEvent,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QResizeEvent,
)
from PySide6.QtWidgets import QAbstractItemView, QListView, QPushButton, QWidget

from memex_desktop.empty_states import EmptyState
from memex_desktop.ui.results_model import ResultsModel

# The empty state's margins and the gaps between its title, explanation and button.
EMPTY_MARGIN = 16
EMPTY_GAP = 8
EMPTY_TOP_FRACTION = 0.2  # the title starts a fifth down the list


class ResultsView(QListView):
    """The results list: uniform rows, no drops of its own (the window takes them).

    Signals:
        current_entity_changed(str): the person moved to this result (or clicked the row
            already current, which another item may have replaced in the reader).
        entity_activated(str): Enter or a double-click on this result.
        empty_action_requested(str): the empty state's button was clicked (its action).
    """

    current_entity_changed = Signal(str)
    entity_activated = Signal(str)
    empty_action_requested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("resultsview")
        self.setAccessibleName("Results")
        self.setUniformItemSizes(True)
        # Laid out in one pass (Qt's default): the model counts its rows in C++, so 100,000
        # rows take a few milliseconds. Batched layout paints no row until it is done.
        self.setLayoutMode(QListView.LayoutMode.SinglePass)
        self.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setAcceptDrops(False)
        self._results: ResultsModel | None = None
        self._kept_current: str | None = None  # current before the list was replaced
        # Whether the current row was on screen before rows came or went above it: then the
        # list follows it (a sync adding items above the one being read); a new list does not.
        self._current_on_screen = False
        # Whether that was noted in this turn of the event loop: placing the current row lays
        # the whole list out first, 4 ms at 100,000 rows, and the rows of a turn change in
        # several steps (600 runs of rows took 2.2 s of the window's time when each looked).
        self._noted_this_turn = False
        # The row the person is on while rows come, go or move (the current row when it is on
        # screen, else the top row of a list scrolled down), and how far down the viewport its
        # top was: at the end of the turn the list scrolls to have it there again.
        self._anchor: QPersistentModelIndex | None = None
        self._anchor_top = 0
        # The moves asked for while the list was about to be replaced, kept for the new list
        # (None: the list on screen is the one the keys are meant for).
        self._held_moves: list[Callable[[], None]] | None = None
        self._empty: EmptyState | None = None
        self.empty_button = QPushButton(self.viewport())
        self.empty_button.setObjectName("emptyaction")
        self.empty_button.hide()
        self.empty_button.clicked.connect(self._on_empty_button_clicked)
        self.activated.connect(self._on_activated)

    def setModel(self, model: QAbstractItemModel | None) -> None:
        """Show a ResultsModel (the view keeps its current result across list changes)."""
        results = model if isinstance(model, ResultsModel) else None
        if results is not None:
            # Before the view's own slots: once they heard that rows are about to go, the
            # view has forgotten where its rows are until the rows are gone.
            results.rowsAboutToBeInserted.connect(self._note_current_on_screen)
            results.rowsAboutToBeRemoved.connect(self._note_current_on_screen)
            results.layoutAboutToBeChanged.connect(self._note_current_on_screen)
        super().setModel(model)
        self._results = results
        if results is not None:
            results.modelAboutToBeReset.connect(self._on_model_about_to_be_reset)
            results.modelReset.connect(self._on_model_reset)
            results.modelReset.connect(self._on_rows_changed)
            results.rowsInserted.connect(self._on_rows_changed)
            results.rowsRemoved.connect(self._on_rows_changed)
            self.selectionModel().currentChanged.connect(self._on_current_changed)

    # -- the empty state -----------------------------------------------------------------

    @property
    def empty_state(self) -> EmptyState | None:
        """What the list says while it is empty (None: nothing)."""
        return self._empty

    def set_empty_state(self, state: EmptyState | None) -> None:
        """Say why the list is empty, with a button for the fix (None: the list has rows)."""
        if state == self._empty:
            return
        self._empty = state
        button = state.action_label if state is not None else ""
        self.empty_button.setText(button)
        self.empty_button.setAccessibleName(button.rstrip("…"))
        description = f"{state.title}. {state.explanation}" if state is not None else ""
        self.setAccessibleDescription(description)
        self._place_empty_button()
        self.viewport().update()

    def _showing_empty(self) -> bool:
        """Whether the empty state is on screen (set, and the list has no rows)."""
        model = self.model()
        return self._empty is not None and (model is None or model.rowCount() == 0)

    def _empty_layout(self) -> tuple[QRect, QRect, QRect]:
        """Where the title, the explanation and the button go in the viewport."""
        area = self.viewport().rect().adjusted(EMPTY_MARGIN, 0, -EMPTY_MARGIN, 0)
        top = area.top() + int(self.viewport().height() * EMPTY_TOP_FRACTION)
        wrap = Qt.TextFlag.TextWordWrap | Qt.AlignmentFlag.AlignHCenter
        title_metrics = QFontMetrics(self._title_font())
        text = self._empty.title if self._empty is not None else ""
        explanation = self._empty.explanation if self._empty is not None else ""
        bound = QRect(area.left(), top, area.width(), 10_000)
        title = title_metrics.boundingRect(bound, int(wrap), text)
        title = QRect(area.left(), top, area.width(), title.height())
        below = QRect(area.left(), title.bottom() + EMPTY_GAP, area.width(), 10_000)
        body = self.fontMetrics().boundingRect(below, int(wrap), explanation)
        body = QRect(area.left(), below.top(), area.width(), body.height())
        hint = self.empty_button.sizeHint()
        width = min(hint.width(), max(area.width(), 0))
        button = QRect(
            area.left() + (area.width() - width) // 2,
            body.bottom() + 2 * EMPTY_GAP,
            width,
            hint.height(),
        )
        return title, body, button

    def _title_font(self) -> QFont:
        """The empty state's title: the list's font, bold and a little larger."""
        font = QFont(self.font())
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 1.15 if font.pointSizeF() > 0 else 11)
        return font

    def _place_empty_button(self) -> None:
        """Show the fix's button under the explanation (hidden without a fix or with rows)."""
        shown = self._showing_empty() and bool(self._empty and self._empty.action)
        if shown:
            self.empty_button.setGeometry(self._empty_layout()[2])
        self.empty_button.setVisible(shown)

    def paintEvent(self, event: QPaintEvent) -> None:
        """The rows; on an empty list, why it is empty."""
        super().paintEvent(event)
        if not self._showing_empty() or self._empty is None:
            return
        title, body, _button = self._empty_layout()
        wrap = int(Qt.TextFlag.TextWordWrap | Qt.AlignmentFlag.AlignHCenter)
        painter = QPainter(self.viewport())
        painter.setPen(self.palette().text().color())
        painter.setFont(self._title_font())
        painter.drawText(title, wrap, self._empty.title)
        painter.setFont(self.font())
        painter.setPen(self.palette().placeholderText().color())
        painter.drawText(body, wrap, self._empty.explanation)
        painter.end()

    def resizeEvent(self, event: QResizeEvent) -> None:
        """Keep the fix's button under the explanation."""
        super().resizeEvent(event)
        self._place_empty_button()

    @Slot()
    def _on_rows_changed(self) -> None:
        """Rows came or went: the empty state shows only on an empty list."""
        self._place_empty_button()
        self.viewport().update()

    @Slot()
    def _on_empty_button_clicked(self) -> None:
        """Announce the empty state's fix."""
        if self._empty is not None and self._empty.action:
            self.empty_action_requested.emit(self._empty.action)

    # -- the current result ----------------------------------------------------------------

    def current_id(self) -> str | None:
        """The entity of the current row, if any."""
        if self._results is None or not self.currentIndex().isValid():
            return None
        return self._results.id_at(self.currentIndex().row())

    def select_entity(self, entity_id: str, *, scroll: bool = True) -> bool:
        """Make an entity's row current, and visible unless ``scroll`` is False; False when
        it is not listed."""
        row = self._results.row_of(entity_id) if self._results is not None else None
        if row is None or self._results is None:
            return False
        index = self._results.index(row, 0)
        # A view scrolls to its new current row by itself (autoScroll); not when told not to.
        following = self.hasAutoScroll()
        self.setAutoScroll(following and scroll)
        try:
            self.selectionModel().setCurrentIndex(
                index, QItemSelectionModel.SelectionFlag.ClearAndSelect
            )
        finally:
            self.setAutoScroll(following)
        if scroll:
            self.scrollTo(index)
        return True

    @Slot()
    def keep_current_visible(self) -> None:
        """Put the row the person is on back where it was once rows came, went or moved (a
        refreshed search applied), and the current result back into view when it was on
        screen (a new list starts at its top instead)."""
        self._restore_place()
        if self._current_on_screen and self.currentIndex().isValid():
            self.scrollTo(self.currentIndex())

    @Slot()
    def _note_current_on_screen(self) -> None:
        """Rows are about to come, go or move: note whether the current row is on screen now,
        and which row to keep in place (once a turn of the event loop: the rows of one turn
        change before it paints)."""
        if self._noted_this_turn:
            return
        self._noted_this_turn = True
        QTimer.singleShot(0, self, self._on_turn_over)
        current = self.currentIndex()
        place = self.visualRect(current) if current.isValid() else QRect()
        self._current_on_screen = current.isValid() and self.viewport().rect().intersects(place)
        if self._current_on_screen:
            self._anchor, self._anchor_top = QPersistentModelIndex(current), place.top()
        elif self.verticalScrollBar().value() > 0:
            # Scrolled down, away from the current row: the row at the top stays the top row.
            # At the top of the list, new rows above show (a sync's newest items).
            top = self.indexAt(QPoint(0, 0))
            self._anchor = QPersistentModelIndex(top) if top.isValid() else None
            self._anchor_top = self.rectForIndex(top).top() - self.verticalOffset()
        else:
            self._anchor = None

    @Slot()
    def _on_turn_over(self) -> None:
        """The rows of this turn of the event loop changed: put the row noted back in place."""
        self._restore_place()

    def _restore_place(self) -> None:
        """Scroll the row noted before rows changed back to where it was on screen; the next
        change notes it again."""
        self._noted_this_turn = False
        anchor, self._anchor = self._anchor, None
        if anchor is None or not anchor.isValid():
            return
        self.executeDelayedItemsLayout()
        index = self.model().index(anchor.row(), 0)
        moved = self.rectForIndex(index).top() - self.verticalOffset() - self._anchor_top
        if moved:
            bar = self.verticalScrollBar()
            bar.setValue(bar.value() + moved)

    def enter(self, *, list_coming: bool = False) -> None:
        """Take the focus, on the first result when none is current (Down in the search).

        ``list_coming``: the list on screen is about to be replaced by the one just searched
        for; the keys pressed until :meth:`list_arrived` wait for it instead of moving
        through results that are about to go.
        """
        self.setFocus()
        if list_coming:
            self._held_moves = []
        else:
            self._current_or_first()

    @Slot()
    def list_arrived(self) -> None:
        """The list searched for is on screen: carry out the keys pressed while it came."""
        held, self._held_moves = self._held_moves, None
        if held is None:
            return
        self._current_or_first()
        for move in held:
            move()

    @property
    def holding_keys(self) -> bool:
        """Whether keys wait for a list on its way."""
        return self._held_moves is not None

    def _current_or_first(self) -> None:
        if not self.currentIndex().isValid() and self.model() and self.model().rowCount():
            self.setCurrentIndex(self.model().index(0, 0))

    def _unless_held(self, move: Callable[[], None]) -> None:
        """Carry out a move now, or keep it for the list on its way."""
        if self._held_moves is None:
            move()
        else:
            self._held_moves.append(move)

    @Slot()
    def select_next(self) -> None:
        """Down / j."""
        self._unless_held(lambda: self._move_current(1))

    @Slot()
    def select_previous(self) -> None:
        """Up / k."""
        self._unless_held(lambda: self._move_current(-1))

    @Slot()
    def open_current(self) -> None:
        """Enter: open the current result."""
        self._unless_held(self._open_current_now)

    def _open_current_now(self) -> None:
        if self.currentIndex().isValid():
            self._on_activated(self.currentIndex())

    def keyPressEvent(self, event: QKeyEvent) -> None:
        """The list's own keys (Page Down, Home, End, a row's first letters) wait like the
        moves for a list on its way."""
        if self._held_moves is None:
            super().keyPressEvent(event)
            return
        kept = QKeyEvent(
            event.type(), event.key(), event.modifiers(), event.text(), event.isAutoRepeat()
        )
        self._held_moves.append(lambda: super(ResultsView, self).keyPressEvent(kept))
        event.accept()

    def focusOutEvent(self, event: QFocusEvent) -> None:
        """Keys held for a list on its way were meant for this list only: leaving it drops
        them."""
        self._held_moves = None
        super().focusOutEvent(event)

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

    def mousePressEvent(self, event: QMouseEvent) -> None:
        """A click on the current row moves nowhere, so Qt says nothing: say it, for the
        reader may show another item now (a link followed, a notice's Open)."""
        pressed = self.indexAt(event.position().toPoint())
        on_current = pressed.isValid() and pressed == self.currentIndex()
        super().mousePressEvent(event)
        if on_current and event.button() == Qt.MouseButton.LeftButton:
            self._on_current_changed(pressed, pressed)

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
        """The new list is in, shown from its top (its best match first): the result current
        before stays current when listed, wherever it is in the list."""
        kept, self._kept_current = self._kept_current, None
        self._current_on_screen = False
        self._anchor = None
        self.scrollToTop()
        if kept is not None:
            self.select_entity(kept, scroll=False)
