"""The window's docked panes: notes and replies, the reference graph and the outbox.

The notes and graph panes follow what the reader shows; the graph a turn of the event loop
later, so showing a large document and reading the graph's neighbourhood are two short
GUI-thread steps instead of one long one. Each dock has a stable objectName: the window saves
and restores the dock layout by name.

The side column fits the window's width: wide, the notes sit above the graph; narrower, they
share the column as tabs; narrowest, the column folds away so the list and the reader keep
their room. A narrowed window narrows the column in proportion (Qt would keep its width and
take every pixel from the list and the reader). Widening undoes only what narrowing did: a
dock the person hid stays hidden, one the person showed or arranged stays as it is.

The graph's depth (one hop or two) is the person's choice, kept across restarts in the
window's QSettings: those handed over, else the application's own (the same file, as the app
names itself before it opens a window); a window given none remembers nothing.

The side column keeps the window's whole height: the outbox opens below the list and the
reader, which have height to spare, instead of across the window, where it squeezed the notes
and the graph to a strip.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, QSettings, Qt, QTimer, Signal, Slot
from PySide6.QtWidgets import QDockWidget, QMainWindow, QWidget

from memex_desktop.store import CacheReader, ChangeSet, Outbox
from memex_desktop.ui.graph_pane import HOPS, GraphPane
from memex_desktop.ui.outbox_pane import OutboxPane
from memex_desktop.ui.tasks import TaskRunner
from memex_desktop.ui.thread_pane import ThreadPane

# Below this window width the notes and the graph are tabs of one column...
COMPACT_WIDTH = 1200
# ...and below this one the column folds away (View shows either pane again).
FOLDED_WIDTH = 1040
# The side column's share of the window on first run, and its bounds in pixels.
DOCK_SHARE = 0.22
DOCK_WIDTH_BOUNDS = (220, 380)
# QSettings key of the graph's depth (1 or 2 hops).
GRAPH_HOPS_KEY = "graph/hops"
# Whether the graph's legend shows only its samples (its names hidden behind "Legend").
GRAPH_LEGEND_FOLDED_KEY = "graph/legend_folded"
# The outbox opens at least this share of the window's height (a few saves and its buttons).
OUTBOX_SHARE = 0.25


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
        tag_activated(str, str): the graph asked to list the items of this tag (id, name).
        outbox_shown(): the outbox dock was opened (its list is worth reading again).
    """

    entity_activated = Signal(str)
    tag_activated = Signal(str, str)
    outbox_shown = Signal()

    def __init__(
        self,
        window: QMainWindow,
        *,
        reader: CacheReader,
        runner: TaskRunner,
        cache_path: Path,
        outbox_path: Path,
        qsettings: QSettings | None = None,
    ) -> None:
        super().__init__(window)
        self._window = window
        self._qsettings = qsettings  # the window's: the graph's depth is kept with its layout
        self.outbox_pane = OutboxPane(window)
        self.outbox_dock = make_dock(window, "outboxdock", "Outbox", self.outbox_pane)
        window.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, self.outbox_dock)
        self.outbox_dock.hide()
        self._keep_side_column_whole()
        self.thread_pane = ThreadPane(reader, runner, window)
        self.graph_pane = GraphPane(reader, runner, window)
        self._restore_graph_hops()
        self.graph_pane.hops_chosen.connect(self._on_graph_pane_hops_chosen)
        self._restore_graph_legend()
        self.graph_pane.legend_fold_chosen.connect(self._on_graph_pane_legend_fold_chosen)
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
        self.graph_pane.tag_activated.connect(self.tag_activated)
        self.tabbed_for_width = False  # the docks were tabbed because the window was narrow
        self.folded_for_width: set[str] = set()  # the docks hidden because it was narrower
        self._mode: str | None = None  # "wide", "tabbed" or "folded"
        self._window_width = 0  # the width fit_width last arranged for
        # The window's width and the side column's before the window first widened (say, it
        # was maximized): narrowing back to that width gives the column its width back
        # rather than narrowing it in proportion (which left it narrower than it was),
        # unless the person resized the column meanwhile.
        self._before_widening: tuple[int, int] | None = None
        self._graph_due: str | None = None
        self._graph_timer = QTimer(self)  # a child timer: shutdown stops it with the others
        self._graph_timer.setSingleShot(True)
        self._graph_timer.setInterval(0)
        self._graph_timer.timeout.connect(self._on_graph_timer_timeout)

    def _restore_graph_hops(self) -> None:
        """Show the depth the person chose last (the pane's own when none was kept)."""
        if self._qsettings is None:
            return
        kept = self._qsettings.value(GRAPH_HOPS_KEY)
        # QSettings gives back an ini file's numbers as text.
        if isinstance(kept, int | str) and str(kept) in {str(hops) for hops in HOPS}:
            self.graph_pane.set_hops(int(kept))

    @Slot(int)
    def _on_graph_pane_hops_chosen(self, hops: int) -> None:
        """Remember the graph's depth for the next start."""
        if self._qsettings is not None:
            self._qsettings.setValue(GRAPH_HOPS_KEY, hops)
            self._qsettings.sync()

    def _restore_graph_legend(self) -> None:
        """Show the legend's names, or only its samples, as the person left it."""
        if self._qsettings is None:
            return
        kept = self._qsettings.value(GRAPH_LEGEND_FOLDED_KEY)
        if kept in (True, False, "true", "false"):  # an ini file gives text back
            self.graph_pane.set_legend_folded(kept in (True, "true"))

    @Slot(bool)
    def _on_graph_pane_legend_fold_chosen(self, folded: bool) -> None:
        """Remember whether the legend shows its names, for the next start."""
        if self._qsettings is not None:
            self._qsettings.setValue(GRAPH_LEGEND_FOLDED_KEY, folded)
            self._qsettings.sync()

    def apply_default_sizes(self, window_width: int, window_height: int) -> int:
        """First-run proportions: notes above the graph, beside the reader, a fifth wide.

        Returns the side column's width.
        """
        low, high = DOCK_WIDTH_BOUNDS
        width = max(low, min(high, round(window_width * DOCK_SHARE)))
        docks = [self.thread_dock, self.graph_dock]
        self._window.resizeDocks(docks, [width, width], Qt.Orientation.Horizontal)
        notes = round(window_height * 0.55)
        self._window.resizeDocks(docks, [notes, window_height - notes], Qt.Orientation.Vertical)
        return width

    def fit_width(self, window_width: int, *, rearrange: bool = True) -> None:
        """Arrange the side column for a window this wide, undoing what a narrower one did.

        ``rearrange=False`` only notes the width: a restored layout stays as it was saved.
        """
        if window_width < FOLDED_WIDTH:
            mode = "folded"
        elif window_width < COMPACT_WIDTH:
            mode = "tabbed"
        else:
            mode = "wide"
        previous, self._mode = self._mode, mode
        narrower_than, self._window_width = self._window_width, window_width
        # A restored dock layout brings the corners it was saved with.
        self._keep_side_column_whole()
        if rearrange and 0 < narrower_than < window_width and self._before_widening is None:
            side = self._side_column_width()
            if side is not None:
                self._before_widening = (narrower_than, side)
        if rearrange and 0 < window_width < narrower_than:
            kept = self._before_widening
            if kept is not None and window_width <= kept[0]:
                self._before_widening = None
            side = self._side_column_width()
            if kept is not None and window_width <= kept[0] and side == kept[1]:
                # Not resized by the person while wider: as it was at that width.
                before_width, side = kept
                self._set_side_column_width(round(side * window_width / before_width))
            else:
                self._narrow_side_column(window_width / narrower_than)
        if not rearrange or mode == previous:
            return
        if mode != "folded":
            self._unfold_side_docks()
        if mode == "wide":
            self._split_side_docks()
        else:
            self._tab_side_docks()
        if mode == "folded":
            self._fold_side_docks()

    def _side_docks(self) -> list[QDockWidget]:
        """The notes and the graph where they are shown docked in the side column."""
        window = self._window
        return [
            dock
            for dock in (self.thread_dock, self.graph_dock)
            if not dock.isHidden()
            and not dock.isFloating()
            and window.dockWidgetArea(dock) == Qt.DockWidgetArea.RightDockWidgetArea
        ]

    def _side_column_width(self) -> int | None:
        """How wide the side column is (None: nothing is docked in it)."""
        docks = self._side_docks()
        return max(dock.width() for dock in docks) if docks else None

    def _set_side_column_width(self, width: int) -> None:
        """Make the docked notes and graph ``width`` wide, not below their least width."""
        docks = self._side_docks()
        if docks:
            low, _high = DOCK_WIDTH_BOUNDS
            self._window.resizeDocks(
                docks, [max(low, width)] * len(docks), Qt.Orientation.Horizontal
            )

    def _narrow_side_column(self, ratio: float) -> None:
        """Narrow the docked notes and graph by ``ratio``, not below their least width."""
        width = self._side_column_width()
        if width is not None and round(width * ratio) < width:
            self._set_side_column_width(round(width * ratio))

    def _keep_side_column_whole(self) -> None:
        """Give the bottom right corner to the side column, so a dock below (the outbox)
        spans the list and the reader only."""
        self._window.setCorner(Qt.Corner.BottomRightCorner, Qt.DockWidgetArea.RightDockWidgetArea)

    def _fold_side_docks(self) -> None:
        """Hide the docked notes and graph (remembered, to show them again when wider)."""
        for dock in (self.thread_dock, self.graph_dock):
            if not dock.isHidden() and not dock.isFloating():
                self.folded_for_width.add(dock.objectName())
                dock.hide()

    def _unfold_side_docks(self) -> None:
        """Show again the docks that folding hid."""
        for dock in (self.thread_dock, self.graph_dock):
            if dock.objectName() in self.folded_for_width:
                dock.show()
        self.folded_for_width.clear()
        self.thread_dock.raise_()

    def _side_docks_share_a_column(self) -> bool:
        """Whether the notes and the graph are both docked, in the same dock area."""
        window = self._window
        thread, graph = self.thread_dock, self.graph_dock
        if thread.isFloating() or graph.isFloating():
            return False
        return window.dockWidgetArea(thread) == window.dockWidgetArea(graph)

    def _tabbed(self) -> bool:
        """Whether the notes and the graph are tabs of one place."""
        return self.graph_dock in self._window.tabifiedDockWidgets(self.thread_dock)

    def _tab_side_docks(self) -> None:
        """Make the graph a tab behind the notes (both shown and side by side only)."""
        shown = not self.thread_dock.isHidden() and not self.graph_dock.isHidden()
        if not shown or not self._side_docks_share_a_column() or self._tabbed():
            return
        self._window.tabifyDockWidget(self.thread_dock, self.graph_dock)
        self.thread_dock.raise_()
        self.tabbed_for_width = True

    def _split_side_docks(self) -> None:
        """Put the notes back above the graph, if they were tabbed for a narrow window."""
        if not self.tabbed_for_width:
            return
        self.tabbed_for_width = False
        if not self._tabbed() or not self._side_docks_share_a_column():
            return
        # Docking the graph again (splitDockWidget keeps a tab a tab) puts it below the notes.
        area = self._window.dockWidgetArea(self.thread_dock)
        self._window.addDockWidget(area, self.graph_dock, Qt.Orientation.Vertical)
        self.graph_dock.show()
        height = max(1, self.thread_dock.height() + self.graph_dock.height())
        notes = round(height * 0.55)
        docks = [self.thread_dock, self.graph_dock]
        self._window.resizeDocks(docks, [notes, height - notes], Qt.Orientation.Vertical)

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
        """Show (in front) or hide a dock; shown in a narrow window, notes and graph share.

        Either way the dock is now where the person put it: widening does not change it.
        """
        self.folded_for_width.discard(dock.objectName())
        dock.setVisible(not dock.isVisible())
        if dock.isVisible():
            if self._mode in ("tabbed", "folded") and dock in (self.thread_dock, self.graph_dock):
                self._tab_side_docks()
            dock.raise_()
            if dock is self.outbox_dock:
                self._give_the_outbox_room()
                self.outbox_shown.emit()

    def _give_the_outbox_room(self) -> None:
        """Open the outbox tall enough for a few saves, unless it is apart from the window or
        already that tall."""
        dock = self.outbox_dock
        window = self._window
        wanted = round(window.height() * OUTBOX_SHARE)
        if dock.isFloating() or dock.height() >= wanted:
            return
        if window.dockWidgetArea(dock) in (
            Qt.DockWidgetArea.TopDockWidgetArea,
            Qt.DockWidgetArea.BottomDockWidgetArea,
        ):
            window.resizeDocks([dock], [wanted], Qt.Orientation.Vertical)

    def close(self) -> None:
        """Let go of the notes' outbox connection (the window is closing)."""
        if self._notes_outbox is not None:
            self.thread_pane.set_outbox(None)
            self._notes_outbox.close()
            self._notes_outbox = None
