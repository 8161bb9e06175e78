"""Highlights between the reader and the notes pane.

Highlight (Ctrl+Shift+H) turns the passage selected in the reader into a ``selector`` on the
item, queued in the outbox on a worker and painted at once as pending; Add note with a passage
selected writes a note on that passage (the highlight and a note linked to it). Whenever the
item on screen, the cache or the outbox changes, the item's highlights are read again (cached
and pending, each once) and painted; a click on one opens its note in the notes pane, and a
highlight picked in the notes pane is shown in the text.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import QObject, QPoint, Qt, Signal, Slot
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QDockWidget, QMenu

from memex_desktop.errors import user_message
from memex_desktop.store import ChangeSet, Outbox
from memex_desktop.store.highlights import Highlight, item_highlights
from memex_desktop.sync.highlights import Passage, QueuedHighlight, queue_highlight
from memex_desktop.ui.messages import message_line
from memex_desktop.ui.reader_pane import ReaderPane
from memex_desktop.ui.readers import thread_reader
from memex_desktop.ui.tasks import Task, TaskRunner
from memex_desktop.ui.thread_pane import ThreadPane

log = logging.getLogger(__name__)

NOTHING_SELECTED = "Select a passage in the reader to highlight it."


def queue_highlight_in_worker(
    cache_path: Path, outbox: Outbox, passage: Passage, entity_id: str
) -> QueuedHighlight:
    """Worker: commit a highlight to the outbox (durable before this returns)."""
    return queue_highlight(outbox, thread_reader(cache_path), passage, target_id=entity_id)


def load_highlights_in_worker(
    cache_path: Path, outbox: Outbox | None, entity_id: str, sequence: int
) -> tuple[int, str, list[Highlight]]:
    """Worker: the highlights of an item, cached and pending (with the read's number)."""
    return sequence, entity_id, item_highlights(thread_reader(cache_path), outbox, entity_id)


class HighlightController(QObject):
    """Makes highlights from the reader's selection and keeps the painted ones current.

    Signals:
        highlight_queued(str): a highlight was committed to the outbox (its op id).
        highlights_shown(str): the highlights of this item were read and painted.
        message(str): something to tell the person (the status bar).
    """

    highlight_queued = Signal(str)
    highlights_shown = Signal(str)
    message = Signal(str)

    def __init__(
        self,
        *,
        reader_pane: ReaderPane,
        thread_pane: ThreadPane,
        runner: TaskRunner,
        cache_path: Path,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._reader = reader_pane
        self._threads = thread_pane
        self._runner = runner
        self._cache_path = cache_path
        self._load: Task[tuple[int, str, list[Highlight]]] | None = None
        self._load_sequence = 0
        self._save: Task[QueuedHighlight] | None = None
        self._saving_for = ""
        self._menu_actions: list[QAction] = []
        reader_pane.entity_shown.connect(self._on_reader_entity_shown)
        reader_pane.highlight_clicked.connect(self._on_reader_highlight_clicked)
        thread_pane.highlight_picked.connect(self._on_thread_highlight_picked)
        thread_pane.note_queued.connect(self._on_thread_note_queued)
        thread_pane.set_passage_source(reader_pane.selected_passage)

    def offer_in_reader_menu(self, actions: Sequence[QAction]) -> None:
        """Offer these actions (Highlight, Add note) in the reader's right-click menu, after
        its own (Copy, Select all), while a passage is selected."""
        self._menu_actions = list(actions)
        browser = self._reader.browser
        browser.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        browser.customContextMenuRequested.connect(self._on_browser_menu_requested)

    def reader_menu(self, point: QPoint) -> QMenu:
        """The reader's right-click menu at ``point``: Qt's, then the highlight actions."""
        browser = self._reader.browser
        menu = browser.createStandardContextMenu(point)
        if self._reader.selected_passage() is not None and self._menu_actions:
            menu.addSeparator()
            for action in self._menu_actions:
                menu.addAction(action)
        return menu

    @Slot(QPoint)
    def _on_browser_menu_requested(self, point: QPoint) -> None:
        """Right click in the reader."""
        menu = self.reader_menu(point)
        menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        menu.popup(self._reader.browser.viewport().mapToGlobal(point))

    @property
    def outbox(self) -> Outbox | None:
        """Where highlights are queued (the notes pane's outbox, when it is the real one)."""
        outbox = self._threads.outbox
        return outbox if isinstance(outbox, Outbox) else None

    # ------------------------------------------------------------------ actions

    @Slot()
    def highlight_selection(self) -> Task[QueuedHighlight] | None:
        """Highlight: the passage selected in the reader becomes a highlight of the item."""
        entity_id = self._reader.current_entity_id
        passage = self._reader.selected_passage()
        outbox = self.outbox
        if entity_id is None or passage is None:
            self.message.emit(NOTHING_SELECTED)
            return None
        if outbox is None:
            self.message.emit("Highlights cannot be saved: the outbox is not open.")
            return None
        self._saving_for = entity_id
        self._save = (
            self._runner.run(
                queue_highlight_in_worker,
                self._cache_path,
                outbox,
                passage,
                entity_id,
                durable=True,
            )
            .on_success(self._on_highlight_committed)
            .on_failure(self._on_highlight_failed)
        )
        return self._save

    @Slot(object)
    def _on_highlight_committed(self, queued: QueuedHighlight) -> None:
        """The highlight is durable: paint it at once, list it, and let the sync send it."""
        self._save = None
        # Painted in the item it was made in (named as the reader names it), if still shown.
        self._reader.add_highlight(self._saving_for, queued.highlight)
        self.reload()  # a read begun before the commit would paint without it
        self._threads.refresh()
        if queued.result is None or queued.result.op is None:
            self.message.emit("That passage is highlighted already.")
            return
        self.message.emit("Highlighted; it is sent at the next sync.")
        self.highlight_queued.emit(str(queued.result.op.id))

    @Slot(object)
    def _on_highlight_failed(self, exc: Exception) -> None:
        """The highlight could not be stored: say why (nothing was queued)."""
        self._save = None
        log.error("could not queue the highlight", exc_info=exc)
        self.message.emit(
            "The highlight could not be stored on this computer. " + message_line(user_message(exc))
        )

    @Slot()
    def add_note(self) -> object:
        """Add note: on the passage selected in the reader (highlighted, quoted), else on the
        item."""
        return self._threads.add_note()

    # ------------------------------------------------------------------ keeping the paint current

    @Slot()
    def reload(self) -> None:
        """Read the highlights of the item on screen again (on a worker) and paint them."""
        entity_id = self._reader.current_entity_id
        if entity_id is None or self._reader.rendering:
            return  # a render on its way shows the item, and reads them then
        if self._load is not None:
            self._load.cancel()
        self._load_sequence += 1
        self._load = (
            self._runner.run(
                load_highlights_in_worker,
                self._cache_path,
                self.outbox,
                entity_id,
                self._load_sequence,
            )
            .on_success(self._on_highlights_loaded)
            .on_failure(self._on_highlights_failed)
        )

    @Slot(object)
    def _on_highlights_loaded(self, loaded: tuple[int, str, list[Highlight]]) -> None:
        """Paint what was read, unless a newer read was asked for or the item changed."""
        sequence, entity_id, highlights = loaded
        if sequence != self._load_sequence:
            return
        self._load = None
        if entity_id != self._reader.current_entity_id:
            return
        self._reader.show_highlights(entity_id, highlights)
        self.highlights_shown.emit(entity_id)

    @Slot(object)
    def _on_highlights_failed(self, exc: Exception) -> None:
        """The highlights could not be read: the text stays readable without them."""
        self._load = None
        log.warning("reading the highlights failed: %s", exc)

    @Slot(object)
    def on_store_changed(self, changes: ChangeSet) -> None:
        """The cache changed: a highlight may have arrived (or its server copy), which links
        it to its item; a change of the item or of a highlight shown matters too."""
        entity_id = self._reader.current_entity_id
        if entity_id is None or not changes:
            return
        shown = {entity_id} | {h.id for h in self._reader.highlight_painter.highlights}
        if changes.edges_changed or changes.touches(shown):
            self.reload()

    @Slot(object)
    def on_outbox_changed(self, _value: object = None) -> None:
        """Saves moved on (sent, confirmed, dropped): pending highlights may have changed."""
        self.reload()

    @Slot(str)
    def _on_reader_entity_shown(self, _entity_id: str) -> None:
        """A (new rendering of an) item is on screen: paint its highlights."""
        self.reload()

    @Slot(str)
    def _on_thread_note_queued(self, _op_id: str) -> None:
        """A note was queued (a note on a passage queues its highlight too)."""
        self.reload()

    @Slot(str)
    def _on_reader_highlight_clicked(self, highlight_id: str) -> None:
        """A painted highlight was clicked: its note (or its line) in the notes pane."""
        dock = self._threads.parentWidget()
        if isinstance(dock, QDockWidget) and dock.isHidden():
            dock.show()
            dock.raise_()
        self._threads.show_highlight(highlight_id)

    @Slot(str)
    def _on_thread_highlight_picked(self, highlight_id: str) -> None:
        """A highlight was picked in the notes pane: show it in the text."""
        if not self._reader.scroll_to_highlight(highlight_id):
            self.message.emit("This highlight's passage is not found in the text shown.")
