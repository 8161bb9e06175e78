"""The window's docked panes: notes and replies, the reference graph and the outbox.

The notes and graph panes follow what the reader shows; the graph a turn of the event loop
later, so showing a large document and reading the graph's neighbourhood are two short
GUI-thread steps instead of one long one. Each dock has a stable objectName: the window saves
and restores the dock layout by name.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Qt, QTimer, Signal, Slot
from PySide6.QtWidgets import QDockWidget, QMainWindow, QWidget

from memex_desktop.store import CacheReader, ChangeSet, Outbox
from memex_desktop.ui.graph_pane import GraphPane
from memex_desktop.ui.outbox_pane import OutboxPane
from memex_desktop.ui.tasks import TaskRunner
from memex_desktop.ui.thread_pane import ThreadPane


def make_dock(window: QMainWindow, name: str, title: str, widget: QWidget) -> QDockWidget:
    """A closable, movable, floatable dock with a stable objectName."""
    dock = QDockWidget(title, window)
    dock.setObjectName(name)
    dock.setAccessibleName(title)
    dock.setWidget(widget)
    features = QDockWidget.DockWidgetFeature
    dock.setFeatures(
        features.DockWidgetClosable | features.DockWidgetMovable | features.DockWidgetFloatable
    )
    return dock


class DockedPanes(QObject):
    """Builds the docks of a window and points their panes at what is being read.

    Signals:
        entity_activated(str): a pane asked to open this entity.
        outbox_shown(): the outbox dock was opened (its list is worth reading again).
    """

    entity_activated = Signal(str)
    outbox_shown = Signal()

    def __init__(
        self,
        window: QMainWindow,
        *,
        reader: CacheReader,
        runner: TaskRunner,
        cache_path: Path,
        outbox_path: Path,
    ) -> None:
        super().__init__(window)
        self._window = window
        self.outbox_pane = OutboxPane(window)
        self.outbox_dock = make_dock(window, "outboxdock", "Outbox", self.outbox_pane)
        window.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, self.outbox_dock)
        self.outbox_dock.hide()
        self.thread_pane = ThreadPane(reader, runner, window)
        self.graph_pane = GraphPane(reader, runner, window)
        # Notes are queued in the outbox (the pane commits them on a worker), so they work
        # offline and show at once as pending.
        self._notes_outbox: Outbox | None = Outbox(outbox_path, cache_path=cache_path)
        self.thread_pane.set_outbox(self._notes_outbox)
        self.thread_dock = make_dock(window, "threaddock", "Notes and replies", self.thread_pane)
        self.graph_dock = make_dock(window, "graphdock", "References", self.graph_pane)
        for dock in (self.thread_dock, self.graph_dock):
            window.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, dock)
        for pane in (self.thread_pane, self.graph_pane, self.outbox_pane):
            pane.entity_activated.connect(self.entity_activated)
        self._graph_due: str | None = None
        self._graph_timer = QTimer(self)  # a child timer: shutdown stops it with the others
        self._graph_timer.setSingleShot(True)
        self._graph_timer.setInterval(0)
        self._graph_timer.timeout.connect(self._on_graph_timer_timeout)

    def apply_default_sizes(self) -> None:
        """First-run proportions: notes above the graph, beside the reader."""
        docks = [self.thread_dock, self.graph_dock]
        self._window.resizeDocks(docks, [360, 360], Qt.Orientation.Horizontal)
        self._window.resizeDocks(docks, [480, 340], Qt.Orientation.Vertical)

    @Slot(str)
    def follow(self, entity_id: str) -> None:
        """Point the panes at what the reader shows now.

        A re-render of the same item (its backlinks changed) does not lay the graph out again;
        the graph follows store changes itself.
        """
        self.thread_pane.show_entity(entity_id)
        if self.graph_pane.center != entity_id:
            self._graph_due = entity_id
            self._graph_timer.start()

    @Slot()
    def _on_graph_timer_timeout(self) -> None:
        """Centre the graph on the item read last (skipped when it already is)."""
        entity_id, self._graph_due = self._graph_due, None
        if entity_id and self.graph_pane.center != entity_id:
            self.graph_pane.show_entity(entity_id)

    def on_store_changed(self, changes: ChangeSet) -> None:
        """Let the notes and the graph refresh what they show of the changes."""
        self.thread_pane.on_store_changed(changes)
        self.graph_pane.on_store_changed(changes)

    @Slot()
    def toggle_threads(self) -> None:
        """Show or hide the notes."""
        self._toggle(self.thread_dock)

    @Slot()
    def toggle_graph(self) -> None:
        """Show or hide the graph."""
        self._toggle(self.graph_dock)

    @Slot()
    def toggle_outbox(self) -> None:
        """Show or hide the outbox."""
        self._toggle(self.outbox_dock)

    @Slot()
    def show_outbox(self) -> None:
        """Bring the outbox to the front."""
        if not self.outbox_dock.isVisible():
            self._toggle(self.outbox_dock)
        else:
            self.outbox_dock.raise_()
            self.outbox_shown.emit()

    def _toggle(self, dock: QDockWidget) -> None:
        """Show (in front) or hide a dock."""
        dock.setVisible(not dock.isVisible())
        if dock.isVisible():
            dock.raise_()
            if dock is self.outbox_dock:
                self.outbox_shown.emit()

    def close(self) -> None:
        """Let go of the notes' outbox connection (the window is closing)."""
        if self._notes_outbox is not None:
            self.thread_pane.set_outbox(None)
            self._notes_outbox.close()
            self._notes_outbox = None
