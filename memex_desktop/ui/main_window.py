"""The main window: sidebar, search bar, results, reader, docked panes and the status bar.

The window wires collaborators it is given (``app.build_main_window`` creates them): the GUI
thread's CacheReader, the one TaskRunner and the SyncController. Searches and renders run on
workers; the GUI thread only applies their results. Links dropped anywhere on the window are
queued in the outbox at once (no dialog) with an undo toast.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from PySide6.QtCore import (
    QByteArray,
    QItemSelectionModel,
    QMimeData,
    QModelIndex,
    QSettings,
    Qt,
    QTimer,
    QUrl,
    Signal,
    Slot,
)
from PySide6.QtGui import (
    QAction,
    QCloseEvent,
    QDragEnterEvent,
    QDragMoveEvent,
    QDropEvent,
    QGuiApplication,
    QKeySequence,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDockWidget,
    QHBoxLayout,
    QListView,
    QMainWindow,
    QSizePolicy,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from memex_desktop.store import ChangeSet, EnqueueResult, Outbox, StoreError
from memex_desktop.store.reader import QueryInterrupted
from memex_desktop.sync import SyncReport
from memex_desktop.sync.engine import STATE_DELETIONS_HELD, held_deletions
from memex_desktop.ui.about_dialog import AboutDialog
from memex_desktop.ui.actions import ACTIONS, ActionSpec
from memex_desktop.ui.deletions_banner import DeletionsBanner
from memex_desktop.ui.dialogs import ShortcutsDialog
from memex_desktop.ui.doctor_dialog import DoctorDialog
from memex_desktop.ui.drops import (
    MOZ_URL,
    PLAIN_TEXT,
    URI_LIST,
    DropVerdict,
    judge_drop,
    judge_url,
    read_shortcut_bounded,
)
from memex_desktop.ui.outbox_pane import OutboxPane
from memex_desktop.ui.reader_pane import ReaderPane
from memex_desktop.ui.readers import thread_reader
from memex_desktop.ui.results_delegate import ResultDelegate
from memex_desktop.ui.results_model import ResultsModel, SearchFilters, row_positions
from memex_desktop.ui.search_bar import SearchBar, SearchRequest
from memex_desktop.ui.sidebar import (
    Scope,
    Sidebar,
    SidebarSnapshot,
    ViewResults,
    read_sidebar_snapshot,
    run_view_search,
)
from memex_desktop.ui.status_bar import StatusBar
from memex_desktop.ui.sync_controller import (
    OutboxCounts,
    SyncController,
    enqueue_urls,
    outbox_action,
    outbox_counts,
)
from memex_desktop.ui.tasks import Task, TaskCancelled, TaskRunner
from memex_desktop.ui.toast import Toast

log = logging.getLogger(__name__)

SEARCH_LIMIT = 100_000
FIRST_PAGE = 300  # results shown at once while the full list is read
# The first page is read on the GUI thread (no thread hop between a keystroke and its results);
# a read that takes longer than this is stopped and left to a worker.
FIRST_PAGE_BUDGET_S = 0.03
FILTER_TAGS = 500  # tags offered in the filter menu
SIDEBAR_MIN_WIDTH = 200
SCOPE_LIMIT = 20_000
PRICING_URL = "https://memex.garden/pricing"
# QSettings key: the held deletions the person chose to keep (the cache's sync_state value),
# so the banner does not ask again at every start until a later sync holds deletions again.
KEPT_DELETIONS_KEY = "sync/kept_deletions"
DROP_FORMATS = (URI_LIST, MOZ_URL, PLAIN_TEXT)


@dataclass(frozen=True)
class LocalSearchResult:
    """The ids of one local search, tagged with its request number."""

    sequence: int
    request: SearchRequest
    ids: list[str]
    complete: bool = True  # False: only the first page; the full list follows
    positions: dict[str, int] | None = None  # row of each id, built on the worker


def _scope_lists_ids(scope: Scope) -> bool:
    """Whether a scope shows a list of its own (views, feeds, deleted) rather than filters."""
    return scope.kind == "deleted" or (scope.kind in ("view", "feed") and bool(scope.value))


def _scope_ids(reader: Any, scope: Scope) -> list[str] | None:
    """The ids a list-like scope shows (views, feeds, deleted), or None for filter scopes."""
    if not _scope_lists_ids(scope):
        return None
    if scope.kind == "view" and scope.value:
        return list(reader.ids_for_view(scope.value, limit=SCOPE_LIMIT))
    if scope.kind == "deleted":
        return [row.id for row in reader.deleted_upstream(limit=SCOPE_LIMIT)]
    if scope.kind == "feed" and scope.value:
        feed = next((f for f in reader.feeds() if f.id == scope.value), None)
        host = urlsplit(feed.site_url or feed.feed_url or "").hostname if feed else None
        if not host:
            return []
        host = host.removeprefix("www.")
        candidates = reader.search_ids(host.split(".")[0], limit=SCOPE_LIMIT)
        rows = reader.get_many(candidates[:SCOPE_LIMIT])
        return [
            i
            for i in candidates
            if i in rows and (urlsplit(rows[i].url or "").hostname or "").endswith(host)
        ]
    return None


def sidebar_snapshot(cache_path: Path) -> SidebarSnapshot:
    """Worker: the sidebar's counts and entries (also the filters' choices) from the cache."""
    return read_sidebar_snapshot(thread_reader(cache_path))


def _scoped_filters(request: SearchRequest, scope: Scope) -> SearchFilters:
    """The request's filters narrowed by a type or tag scope of the sidebar."""
    filters = request.filters
    if scope.kind == "type" and scope.value and not filters.types:
        filters = SearchFilters(
            (scope.value,), filters.tag_id, filters.date_from_ms, filters.date_to_ms
        )
    if scope.kind == "tag" and scope.value:
        filters = SearchFilters(
            filters.types, scope.value, filters.date_from_ms, filters.date_to_ms
        )
    return filters


def local_search(
    cache_path: Path,
    sequence: int,
    request: SearchRequest,
    scope: Scope,
    limit: int = SEARCH_LIMIT,
    *,
    cancel: threading.Event | None = None,
) -> LocalSearchResult:
    """Worker: the ids for a query within a sidebar scope (on this thread's own reader).

    With a small ``limit`` the search returns the first page only (marked incomplete when more
    may match): ranking a two-letter prefix over 100,000 items takes far longer than a page.
    A set ``cancel`` (a newer search started) stops the reads with QueryInterrupted.
    """
    reader = thread_reader(cache_path)
    if cancel is None:
        result = _local_search(reader, sequence, request, scope, limit)
    else:
        with reader.interrupted_when(cancel.is_set):
            result = _local_search(reader, sequence, request, scope, limit)
    return replace(result, positions=row_positions(result.ids))


def _local_search(
    reader: Any, sequence: int, request: SearchRequest, scope: Scope, limit: int
) -> LocalSearchResult:
    """The ids of :func:`local_search`, read with ``reader``."""
    filters = _scoped_filters(request, scope)
    listed = _scope_ids(reader, scope)
    if listed is None:
        ids = reader.search_ids(request.query, limit=limit, **filters.as_kwargs())
        return LocalSearchResult(sequence, request, ids, len(ids) < limit or limit >= SEARCH_LIMIT)
    if not request.query:
        return LocalSearchResult(sequence, request, listed)
    matching = set(reader.search_ids(request.query, limit=SEARCH_LIMIT, include_deleted=True))
    return LocalSearchResult(sequence, request, [i for i in listed if i in matching])


def list_outbox(outbox_path: Path) -> tuple[list[Any], OutboxCounts]:
    """Worker: every outbox operation and the counts."""
    outbox = Outbox(outbox_path)
    try:
        return outbox.list(), outbox_counts(outbox)
    finally:
        outbox.close()


def mime_payloads(mime: QMimeData) -> dict[str, bytes]:
    """The link-carrying formats of a drag, as bytes."""
    return {fmt: bytes(mime.data(fmt).data()) for fmt in DROP_FORMATS if mime.hasFormat(fmt)}


# Rows the results list lays out per step of the event loop (about 3 ms each).
RESULTS_LAYOUT_BATCH = 2000


class ResultsView(QListView):
    """The results list: uniform rows, no drops of its own (the window takes them)."""

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


class MainWindow(QMainWindow):
    """The application window.

    Signals:
        entity_opened(str): the reader now shows this entity.
        search_applied(int): local results for a search are on screen (row count).
        saves_queued(object): a drop or paste was handled (list of EnqueueResult, refused).
    """

    entity_opened = Signal(str)
    search_applied = Signal(int)
    saves_queued = Signal(object, object)

    def __init__(
        self,
        *,
        reader: Any,
        runner: TaskRunner,
        controller: SyncController,
        cache_path: Path,
        outbox_path: Path,
        qsettings: QSettings | None = None,
        open_settings: Callable[[MainWindow], None] | None = None,
        transcript_language: str | None = None,
        allow_remote_images: bool = False,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("mainwindow")
        self.setWindowTitle("Memex")
        self.setAccessibleName("Memex library")
        self.reader = reader
        self.runner = runner
        self.controller = controller
        self.cache_path = cache_path
        self.outbox_path = outbox_path
        self._qsettings = qsettings
        self._open_settings = open_settings
        self._search_sequence = 0
        self._applied_sequence = 0
        self._local_tasks: list[Task] = []
        self._remote_request = 0
        self._last_request = SearchRequest()
        self._last_queued: list[int] = []
        self._pending_refused: list[DropVerdict] = []
        self.actions_by_key: dict[str, QAction] = {}
        self._doctor: DoctorDialog | None = None
        self._build(transcript_language, allow_remote_images)
        self._build_actions()
        self._connect()
        self._refuse_child_drops(self)
        self.setAcceptDrops(True)
        self._restore_state()
        self._show_held_deletions()
        self.refresh_filters()
        self.refresh_outbox()
        self.run_search(self.search_bar.request())

    # -- construction ----------------------------------------------------------------------

    def _build(self, transcript_language: str | None, allow_remote_images: bool) -> None:
        """Sidebar | search + results | reader in a splitter; panes as docks."""
        self.sidebar = Sidebar(self.reader, self)
        self.search_bar = SearchBar(self)
        self.results_model = ResultsModel(self.reader, self)
        self.results_view = ResultsView(self)
        self.results_view.setModel(self.results_model)
        self.results_view.setItemDelegate(ResultDelegate(self.results_view))
        middle = QWidget(self)
        middle.setObjectName("resultscolumn")
        column = QVBoxLayout(middle)
        column.setContentsMargins(8, 8, 0, 0)
        column.setSpacing(8)
        column.addWidget(self.search_bar)
        column.addWidget(self.results_view, 1)
        self.reader_pane = ReaderPane(
            self.cache_path,
            self.runner,
            transcript_language=transcript_language,
            allow_all_remote_images=allow_remote_images,
            parent=self,
        )
        self.splitter = QSplitter(Qt.Orientation.Horizontal, self)
        self.splitter.setObjectName("mainsplitter")
        self.splitter.addWidget(self.sidebar)
        self.splitter.addWidget(middle)
        self.splitter.addWidget(self.reader_pane)
        self.splitter.setStretchFactor(0, 0)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setStretchFactor(2, 2)
        self.splitter.setSizes([220, 420, 640])
        self.splitter.setChildrenCollapsible(False)
        # The banner asking about held deletions sits above every pane, across the window.
        self.deletions_banner = DeletionsBanner(self)
        central = QWidget(self)
        central.setObjectName("centralarea")
        area = QVBoxLayout(central)
        area.setContentsMargins(0, 0, 0, 0)
        area.setSpacing(0)
        banner_row = QHBoxLayout()
        banner_row.setContentsMargins(8, 8, 8, 0)
        banner_row.addWidget(self.deletions_banner)
        area.addLayout(banner_row)
        area.addWidget(self.splitter, 1)
        self.setCentralWidget(central)
        self.status = StatusBar(self)
        self.setStatusBar(self.status)
        self.toast = Toast(self)
        self.outbox_pane = OutboxPane(self)
        self.outbox_dock = self._dock("outboxdock", "Outbox", self.outbox_pane)
        self.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, self.outbox_dock)
        self.outbox_dock.hide()
        self.thread_pane = self._optional_pane("memex_desktop.ui.thread_pane", "ThreadPane")
        self.graph_pane = self._optional_pane("memex_desktop.ui.graph_pane", "GraphPane")
        self.thread_dock = self.graph_dock = None
        # Notes are queued in the outbox (the pane commits them on a worker), so they work
        # offline and show at once as pending.
        self.notes_outbox: Outbox | None = None
        if self.thread_pane is not None:
            self.notes_outbox = Outbox(self.outbox_path, cache_path=self.cache_path)
            self.thread_pane.set_outbox(self.notes_outbox)
            self.thread_dock = self._dock("threaddock", "Notes and replies", self.thread_pane)
            self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.thread_dock)
        if self.graph_pane is not None:
            self.graph_dock = self._dock("graphdock", "References", self.graph_pane)
            self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.graph_dock)
        self._apply_default_layout()

    def _apply_default_layout(self) -> None:
        """First-run proportions: a readable sidebar, list and reader; notes above the graph.

        Saved window state (QSettings) replaces these afterwards. Long titles and filter
        choices must not widen the window past the screen, so they may shrink.
        """
        self.sidebar.setMinimumWidth(SIDEBAR_MIN_WIDTH)
        self.search_bar.field.setMinimumWidth(160)
        shrinkable = QSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.reader_pane.title_label.setSizePolicy(shrinkable)
        self.results_view.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.splitter.setSizes([SIDEBAR_MIN_WIDTH + 20, 460, 640])
        self.resize(1440, 900)
        docks = [d for d in (self.thread_dock, self.graph_dock) if d is not None]
        if docks:
            self.resizeDocks(docks, [360] * len(docks), Qt.Orientation.Horizontal)
        if len(docks) == 2:
            self.resizeDocks(docks, [480, 340], Qt.Orientation.Vertical)

    def _dock(self, name: str, title: str, widget: QWidget) -> QDockWidget:
        """A dock with a stable objectName (its state is saved by name)."""
        dock = QDockWidget(title, self)
        dock.setObjectName(name)
        dock.setAccessibleName(title)
        dock.setWidget(widget)
        dock.setFeatures(
            QDockWidget.DockWidgetFeature.DockWidgetClosable
            | QDockWidget.DockWidgetFeature.DockWidgetMovable
            | QDockWidget.DockWidgetFeature.DockWidgetFloatable
        )
        return dock

    def _optional_pane(self, module_name: str, class_name: str) -> Any:
        """A pane built by another module, when that module is installed."""
        import importlib

        try:
            module = importlib.import_module(module_name)
        except ImportError:
            log.info("%s not available; its pane is not shown", module_name)
            return None
        pane = getattr(module, class_name)(self.reader, self.runner, self)
        pane.entity_activated.connect(self._on_pane_entity_activated)
        return pane

    def _build_actions(self) -> None:
        """One QAction per declared action, with its shortcuts, in its menu."""
        handlers = self._action_handlers()
        menus: dict[str, Any] = {}
        for name in ("File", "Edit", "Go", "View", "Help"):
            menus[name] = self.menuBar().addMenu(f"&{name}")
        for spec in ACTIONS:
            action = self._make_action(spec, handlers[spec.key])
            self.actions_by_key[spec.key] = action
            if spec.scope == "results":
                action.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
                self.results_view.addAction(action)
            else:
                action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
                self.addAction(action)
            menus[spec.menu].addAction(action)
        # The connection check and About are menu entries, not keyboard actions (they are no
        # part of the shortcut table); each has a mnemonic.
        doctor = QAction("Check the &connection to Memex…", self)
        doctor.setObjectName("check_connection")
        description = "See what the Memex server does with the requests a sync depends on"
        doctor.setStatusTip(description)
        doctor.setToolTip(description)
        doctor.setWhatsThis(description)
        doctor.triggered.connect(self._on_check_connection_action)
        menus["Help"].addAction(doctor)
        self.actions_by_key["check_connection"] = doctor
        about = QAction("&About memex-desktop", self)
        about.setObjectName("about")
        about.setStatusTip("The version, the data folder and the size of the local library")
        about.setMenuRole(QAction.MenuRole.AboutRole)
        about.triggered.connect(self._on_about_action)
        menus["Help"].addSeparator()
        menus["Help"].addAction(about)
        self.actions_by_key["about"] = about

    def _make_action(self, spec: ActionSpec, handler: Callable[[], None]) -> QAction:
        """A QAction for a spec."""
        action = QAction(spec.text, self)
        action.setObjectName(spec.key)
        action.setShortcuts([QKeySequence(s) for s in spec.shortcuts])
        keys = f" ({', '.join(spec.shortcuts)})" if spec.shortcuts else ""
        action.setToolTip(spec.description + keys)
        action.setStatusTip(spec.description)
        action.setWhatsThis(spec.description)
        action.triggered.connect(handler)
        return action

    def _action_handlers(self) -> dict[str, Callable[[], None]]:
        """Which method runs each declared action."""
        return {
            "focus_search": self.search_bar.focus_field,
            "search_remote": self._on_search_remote_action,
            "sync_now": self._on_sync_now_action,
            "sync_full": self._on_sync_full_action,
            "cancel_sync": self.controller.cancel,
            "save_clipboard": self._on_save_clipboard_action,
            "undo_save": self._on_undo_save_action,
            "go_back": self.reader_pane.go_back,
            "go_forward": self.reader_pane.go_forward,
            "next_result": self._on_next_result_action,
            "previous_result": self._on_previous_result_action,
            "open_result": self._on_open_result_action,
            "open_in_browser": self.reader_pane.open_original,
            "copy_link": self.reader_pane.copy_link,
            "load_remote_images": self.reader_pane.load_remote_images,
            "focus_sidebar": self.sidebar.setFocus,
            "focus_results": self.results_view.setFocus,
            "focus_reader": self.reader_pane.browser.setFocus,
            "toggle_threads": self._on_toggle_threads_action,
            "toggle_graph": self._on_toggle_graph_action,
            "toggle_outbox": self._on_toggle_outbox_action,
            "settings": self._on_settings_action,
            "shortcuts": self.show_shortcuts,
            "quit": self._on_quit_action,
        }

    def _connect(self) -> None:
        """Wire the widgets and the controller together."""
        self.search_bar.search_changed.connect(self._on_search_bar_search_changed)
        self.search_bar.remote_requested.connect(self._on_search_bar_remote_requested)
        self.search_bar.move_to_results.connect(self._on_search_bar_move_to_results)
        self.sidebar.scope_selected.connect(self._on_sidebar_scope_selected)
        self.results_view.selectionModel().currentChanged.connect(self._on_results_current_changed)
        self.results_view.activated.connect(self._on_results_activated)
        self.reader_pane.entity_shown.connect(self._on_reader_entity_shown)
        self.reader_pane.link_refused.connect(self._on_reader_link_refused)
        self.reader_pane.message.connect(self._on_reader_message)
        self.controller.store_changed.connect(self._on_controller_store_changed)
        self.controller.sync_started.connect(self.status.on_sync_started)
        self.controller.sync_progress.connect(self.status.on_sync_progress)
        self.controller.sync_finished.connect(self.status.on_sync_finished)
        self.controller.sync_finished.connect(self._on_controller_sync_finished)
        self.controller.state_changed.connect(self.status.set_state)
        self.controller.outbox_changed.connect(self.status.on_outbox_changed)
        self.controller.outbox_changed.connect(self._on_controller_outbox_changed)
        self.controller.meta_changed.connect(self.status.on_meta_changed)
        self.controller.remote_results.connect(self._on_controller_remote_results)
        self.controller.remote_failed.connect(self._on_controller_remote_failed)
        self.status.action_requested.connect(self._on_status_action_requested)
        self.status.cancel_requested.connect(self.controller.cancel)
        self.status.outbox_requested.connect(self._on_toggle_outbox_action)
        self.toast.undo_requested.connect(self._on_toast_undo_requested)
        self.deletions_banner.confirm_requested.connect(self._on_deletions_banner_confirm_requested)
        self.deletions_banner.kept.connect(self._on_deletions_banner_kept)
        self.outbox_pane.retry_requested.connect(self._on_outbox_retry_requested)
        self.outbox_pane.drop_requested.connect(self._on_outbox_drop_requested)
        self.outbox_pane.entity_activated.connect(self._on_pane_entity_activated)
        if self.thread_pane is not None:
            self.thread_pane.note_queued.connect(self._on_thread_pane_saves_queued)
            self.thread_pane.link_queued.connect(self._on_thread_pane_saves_queued)
            self.controller.sync_finished.connect(self.thread_pane.on_outbox_changed)
        self.status.set_state(self.controller.state, None)

    def _refuse_child_drops(self, widget: QWidget) -> None:
        """Children do not take drops themselves, so a drop anywhere reaches the window."""
        for child in widget.findChildren(QWidget):
            child.setAcceptDrops(False)

    # -- persistence -----------------------------------------------------------------------

    def _restore_state(self) -> None:
        """Window geometry, dock layout and splitter sizes from QSettings."""
        if self._qsettings is None:
            return
        for key, restore in (
            ("window/geometry", self.restoreGeometry),
            ("window/state", self.restoreState),
            ("window/splitter", self.splitter.restoreState),
        ):
            value = self._qsettings.value(key)
            if isinstance(value, QByteArray | bytes):
                restore(QByteArray(value))

    def save_state(self) -> None:
        """Remember window geometry, dock layout and splitter sizes."""
        if self._qsettings is None:
            return
        self._qsettings.setValue("window/geometry", self.saveGeometry())
        self._qsettings.setValue("window/state", self.saveState())
        self._qsettings.setValue("window/splitter", self.splitter.saveState())
        self._qsettings.sync()

    def closeEvent(self, event: QCloseEvent) -> None:
        """Save the layout before closing."""
        self.save_state()
        if self.notes_outbox is not None and self.thread_pane is not None:
            self.thread_pane.set_outbox(None)
            self.notes_outbox.close()
            self.notes_outbox = None
        super().closeEvent(event)

    # -- searching -------------------------------------------------------------------------

    def run_search(self, request: SearchRequest) -> int:
        """Start a local search in the current scope; returns its sequence number.

        Searches still running for earlier requests are cancelled: their results would be
        dropped anyway, and on a small machine they take CPU from the new one.
        """
        self._search_sequence += 1
        self._last_request = request
        for task in self._local_tasks:
            task.cancel()
        self._local_tasks = [task for task in self._local_tasks if not task.is_done()]
        if not self._first_page_here(request):
            self._submit_local_search(request, FIRST_PAGE)
        if request.remote and request.query:
            self._ask_remote(request)
        return self._search_sequence

    def _first_page_here(self, request: SearchRequest) -> bool:
        """Show the first page of a filter-scoped search read on this thread; False if not done.

        The read is bounded (FIRST_PAGE ids) and timed: past FIRST_PAGE_BUDGET_S it is stopped
        and the caller hands the search to a worker, as for list scopes and store failures.
        """
        scope = self.sidebar.current_scope()
        if _scope_lists_ids(scope) or self.runner.closed:
            return False
        filters = _scoped_filters(request, scope)
        deadline = time.perf_counter() + FIRST_PAGE_BUDGET_S
        try:
            with self.reader.interrupted_when(lambda: time.perf_counter() > deadline):
                ids = self.reader.search_ids(request.query, limit=FIRST_PAGE, **filters.as_kwargs())
        except (StoreError, sqlite3.Error) as exc:  # over budget, or a failure a worker reports
            log.debug("first page left to a worker: %s", exc)
            return False
        result = LocalSearchResult(self._search_sequence, request, ids, len(ids) < FIRST_PAGE)
        self._on_local_search_finished(result)
        return True

    def _submit_local_search(self, request: SearchRequest, limit: int) -> None:
        """Search the cache on a worker for the current sequence number."""
        task = self.runner.submit(
            local_search,
            self.cache_path,
            self._search_sequence,
            request,
            self.sidebar.current_scope(),
            limit,
        )
        task.finished.connect(self._on_local_search_finished)
        task.failed.connect(self._on_local_search_failed)
        self._local_tasks.append(task)

    def _ask_remote(self, request: SearchRequest) -> None:
        """Ask the server for the query; results merge in when they arrive."""
        filters: dict[str, Any] = {}
        if request.filters.types:
            filters["content_types"] = list(request.filters.types)
        if request.filters.tag_id:
            filters["tag_ids"] = [request.filters.tag_id]
        self._remote_request = self.controller.remote_search(request.query, filters)
        if self._remote_request:
            self.status.showMessage("Asking the Memex server…", 3000)

    @Slot(object)
    def _on_local_search_finished(self, result: LocalSearchResult) -> None:
        """Show local results unless a newer search was started since.

        The first page of a search shows at once; its full list follows and is applied as row
        inserts (a full list that arrives first makes the late first page moot).
        """
        if result.sequence != self._search_sequence or result.sequence < self._applied_sequence:
            return
        if result.sequence == self._applied_sequence and (
            self._applied_complete or not result.complete
        ):
            return
        self._applied_sequence = result.sequence
        self._applied_complete = result.complete
        current = self.results_model.id_at(self.results_view.currentIndex().row())
        same = (
            result.request.query == self.results_model.query
            and result.request.filters == self._applied_filters
            and self._applied_scope == self.sidebar.current_scope()
        )
        if same and not result.complete:
            pass  # the same search again (the store changed): its full list follows as row moves
        elif same:
            self.results_model.update_ids(result.ids, result.positions)
        else:
            self.results_model.set_results(
                result.ids,
                query=result.request.query,
                filters=result.request.filters,
                positions=result.positions,
            )
        self._applied_filters = result.request.filters
        self._applied_scope = self.sidebar.current_scope()
        if current is not None:
            self.select_entity(current, open_it=False)
        self.search_applied.emit(self.results_model.rowCount())
        if not result.complete:
            self._submit_local_search(result.request, SEARCH_LIMIT)

    _applied_complete = True
    _applied_filters: SearchFilters | None = None
    _applied_scope: Scope | None = None

    @Slot(object)
    def _on_local_search_failed(self, exc: object) -> None:
        """A local search failed (a store problem): keep the old results, say why."""
        from memex_desktop.errors import user_message

        if isinstance(exc, TaskCancelled | QueryInterrupted):  # superseded by a newer search
            return
        if isinstance(exc, BaseException):
            self.status.showMessage(user_message(exc).text, 8000)

    @Slot(object)
    def _on_search_bar_search_changed(self, request: SearchRequest) -> None:
        """Typing settled or a filter changed."""
        self.run_search(request)

    @Slot(object)
    def _on_search_bar_remote_requested(self, request: SearchRequest) -> None:
        """Enter or the cloud toggle: add the server's results."""
        if request.query:
            self._ask_remote(request)

    @Slot()
    def _on_search_remote_action(self) -> None:
        """The keyboard action for a remote search."""
        request = self.search_bar.request()
        if request.query:
            self.run_search(request)
            self._ask_remote(request)

    @Slot(int, object)
    def _on_controller_remote_results(self, request: int, ids: list[str]) -> None:
        """Merge the server's results for the latest remote request."""
        if request != self._remote_request:
            return
        added = self.results_model.merge_remote(ids)
        self.status.showMessage(
            f"{len(ids)} results from the server ({added} not in the local results)", 5000
        )

    @Slot(int, object)
    def _on_controller_remote_failed(self, request: int, message: object) -> None:
        """The remote search failed; local results stay."""
        if request == self._remote_request and message is not None:
            self.status.showMessage(getattr(message, "text", str(message)), 8000)

    @Slot(object)
    def _on_sidebar_scope_selected(self, scope: Scope) -> None:
        """Show the picked scope (the Outbox entry opens the outbox pane)."""
        if scope.kind == "outbox":
            self.outbox_dock.show()
            self.outbox_dock.raise_()
            self.refresh_outbox()
            return
        self.run_search(self.search_bar.request())
        if scope.kind == "feed" and scope.value and self.controller.services.client is not None:
            self._remote_request = self.controller.remote_search("", {"feed_ids": [scope.value]})
        if scope.kind == "view" and scope.value:
            self.run_view_remote(scope.value)

    def run_view_remote(self, view_id: str) -> Task | None:
        """Also run a saved view on the server (cache-on-view); None without an account."""
        services = self.controller.services
        if services.client is None:
            return None
        task = self.runner.submit(run_view_search, services.client, services.writer, view_id)
        task.finished.connect(self._on_view_search_finished)
        task.failed.connect(self._on_view_search_failed)
        return task

    @Slot(object)
    def _on_view_search_finished(self, result: ViewResults) -> None:
        """The server's view results are cached: refresh what changed, then merge them in."""
        if result.changes:
            self._on_controller_store_changed(result.changes)
        scope = self.sidebar.current_scope()
        if scope.kind != "view" or scope.value != result.view_id:
            return
        added = self.results_model.merge_remote(result.ids)
        self.status.showMessage(
            f"{len(result.ids)} results of this view from the server"
            f" ({added} more than the cached view)",
            5000,
        )

    @Slot(object)
    def _on_view_search_failed(self, exc: object) -> None:
        """The server could not run the view: the cached results stay; say why."""
        from memex_desktop.errors import user_message

        if isinstance(exc, BaseException) and not isinstance(exc, TaskCancelled):
            self.status.showMessage(
                "Showing this view from the cache: " + user_message(exc).text, 8000
            )

    @Slot(str)
    def _on_thread_pane_saves_queued(self, _op_id: str) -> None:
        """A note, reply or cited link is queued: show it in the outbox and try to send it."""
        self.refresh_outbox()
        self.controller.sync_now()

    @Slot()
    def _on_search_bar_move_to_results(self) -> None:
        """Down in the search field: into the results."""
        self.results_view.setFocus()
        if not self.results_view.currentIndex().isValid() and self.results_model.rowCount():
            self.results_view.setCurrentIndex(self.results_model.index(0, 0))

    # -- results and reading ---------------------------------------------------------------

    def select_entity(self, entity_id: str, *, open_it: bool = True) -> bool:
        """Select an entity's row if listed; open it in the reader when asked."""
        row = self.results_model.row_of(entity_id)
        if row is not None:
            index = self.results_model.index(row, 0)
            self.results_view.selectionModel().setCurrentIndex(
                index, QItemSelectionModel.SelectionFlag.ClearAndSelect
            )
            self.results_view.scrollTo(index)
        if open_it and self.reader_pane.current_entity_id != entity_id:
            self.reader_pane.show_entity(entity_id)
        return row is not None

    def open_entity(self, entity_id: str, anchor: str | None = None) -> None:
        """Show an entity in the reader (and select it when listed)."""
        row = self.results_model.row_of(entity_id)
        if row is not None:
            self.select_entity(entity_id, open_it=False)
        self.reader_pane.show_entity(entity_id, anchor)

    @Slot(QModelIndex, QModelIndex)
    def _on_results_current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        """Moving through the results reads each one."""
        entity_id = self.results_model.id_at(current.row()) if current.isValid() else None
        if entity_id and entity_id != self.reader_pane.current_entity_id:
            self.reader_pane.show_entity(entity_id)

    @Slot(QModelIndex)
    def _on_results_activated(self, index: QModelIndex) -> None:
        """Enter or double-click: open and move to the reader."""
        entity_id = self.results_model.id_at(index.row())
        if entity_id:
            self.reader_pane.show_entity(entity_id)
            self.reader_pane.browser.setFocus()

    def _move_current(self, step: int) -> None:
        """Select the next/previous result."""
        count = self.results_model.rowCount()
        if not count:
            return
        row = self.results_view.currentIndex().row()
        row = 0 if row < 0 else max(0, min(count - 1, row + step))
        self.results_view.setCurrentIndex(self.results_model.index(row, 0))

    @Slot()
    def _on_next_result_action(self) -> None:
        """Down / j in the results."""
        self._move_current(1)

    @Slot()
    def _on_previous_result_action(self) -> None:
        """Up / k in the results."""
        self._move_current(-1)

    @Slot()
    def _on_open_result_action(self) -> None:
        """Enter in the results."""
        index = self.results_view.currentIndex()
        if index.isValid():
            self._on_results_activated(index)

    @Slot(str)
    def _on_reader_entity_shown(self, entity_id: str) -> None:
        """Point the docked panes at what is being read."""
        if self.thread_pane is not None:
            self.thread_pane.show_entity(entity_id)
        # A re-render of the same item (its backlinks changed) does not lay the graph out
        # again; the graph follows store changes itself.
        if self.graph_pane is not None and self.graph_pane.center != entity_id:
            # Next event-loop turn: showing a large document and reading the graph's
            # neighbourhood are then two short GUI-thread steps instead of one long one.
            self._graph_due = entity_id
            if self._graph_timer is None:  # a child timer: shutdown stops it with the others
                self._graph_timer = QTimer(self)
                self._graph_timer.setSingleShot(True)
                self._graph_timer.setInterval(0)
                self._graph_timer.timeout.connect(self._on_graph_due)
            self._graph_timer.start()
        title = self.reader_pane.title_label.text()
        self.setWindowTitle(f"{title} — Memex" if title else "Memex")
        self.entity_opened.emit(entity_id)

    _graph_due: str | None = None
    _graph_timer: QTimer | None = None

    @Slot()
    def _on_graph_due(self) -> None:
        """Centre the graph on the item read last (skipped when it already is)."""
        entity_id, self._graph_due = self._graph_due, None
        if entity_id and self.graph_pane is not None and self.graph_pane.center != entity_id:
            self.graph_pane.show_entity(entity_id)

    @Slot(str)
    def _on_pane_entity_activated(self, entity_id: str) -> None:
        """A docked pane asked to open an entity."""
        self.open_entity(entity_id)

    @Slot(str)
    def _on_reader_link_refused(self, reason: str) -> None:
        """Tell the person why a link did not open."""
        self.toast.show_message(reason)
        self.status.showMessage(reason, 8000)

    @Slot(str)
    def _on_reader_message(self, text: str) -> None:
        """A passing message from the reader."""
        self.status.showMessage(text, 5000)

    # -- store changes and sync ------------------------------------------------------------

    @Slot(object)
    def _on_controller_store_changed(self, changes: ChangeSet) -> None:
        """Refresh only what changed: rows, counts, the reader, the panes, the result ids."""
        self.results_model.on_store_changed(changes)
        self.reader_pane.on_store_changed(changes)
        for pane in (self.thread_pane, self.graph_pane):
            if pane is not None:
                pane.on_store_changed(changes)
        if changes:
            self.refresh_sidebar_later()
        if changes.entity_ids or changes.deleted_ids:
            self.run_search(self._last_request_local())

    def _last_request_local(self) -> SearchRequest:
        """The current search without asking the server again."""
        request = self.search_bar.request()
        return SearchRequest(request.query, request.filters, False)

    @Slot(object)
    def _on_controller_sync_finished(self, report: SyncReport) -> None:
        """After a sync: the outbox states, the sidebar and held deletions may have moved on.

        The sidebar says why views or feeds could not be read from sync_state values each
        pull writes, which are no store change: it is read again after every sync.
        """
        self.refresh_outbox()
        self.refresh_sidebar_later()
        self._update_deletions_banner(report)

    # -- deletions held back for confirmation ------------------------------------------------

    def _show_held_deletions(self) -> None:
        """At start-up: ask about deletions the last pass held back, unless they were kept."""
        try:
            held = self.reader.sync_state(STATE_DELETIONS_HELD) or ""
        except (StoreError, sqlite3.Error):  # the window opens without the banner
            log.exception("reading the held deletions failed")
            return
        kept = self._qsettings.value(KEPT_DELETIONS_KEY, "") if self._qsettings else ""
        count = held_deletions(held)
        if count > 0 and held != kept:
            self.deletions_banner.show_held(count)

    def _update_deletions_banner(self, report: SyncReport) -> None:
        """Ask again when a pass held deletions back; stop asking when a pass settled it."""
        from memex_desktop.errors import user_message

        banner = self.deletions_banner
        confirming = self.controller.last_request.confirm_deletions
        if confirming and report.deleted_upstream:
            self.toast.show_message(
                f"{report.deleted_upstream:,} item{'s' if report.deleted_upstream != 1 else ''}"
                " marked deleted upstream: still readable under Deleted upstream."
            )
        if report.deletions_held > 0:
            banner.show_held(report.deletions_held)
            # Confirmed while this sync ran: the one that marks them follows.
            banner.set_working(self.controller.confirm_pending)
        elif report.ok and report.full_pass_completed and report.not_reconciled is None:
            banner.hide()  # a complete pass checked: nothing is held back any more
        elif confirming and banner.isVisible():
            banner.set_working(False)
            why = report.not_reconciled or (
                user_message(report.error).text if report.error is not None else "the sync stopped"
            )
            self.status.showMessage(f"Nothing was marked deleted: {why}", 10_000)

    @Slot()
    def _on_deletions_banner_confirm_requested(self) -> None:
        """Mark them deleted: a full sync that marks what it held back."""
        if not self.controller.sync_now(full=True, resume_paused=True, confirm_deletions=True):
            self.deletions_banner.set_working(False)
            self.toast.show_message("Connect your Memex account first (Ctrl+,).")

    @Slot()
    def _on_deletions_banner_kept(self) -> None:
        """Keep them: not asked again at start-up about the same held deletions."""
        if self._qsettings is None:
            return
        try:
            held = self.reader.sync_state(STATE_DELETIONS_HELD) or ""
        except (StoreError, sqlite3.Error):
            log.exception("reading the held deletions failed")
            return
        self._qsettings.setValue(KEPT_DELETIONS_KEY, held)

    @Slot(object)
    def _on_controller_outbox_changed(self, counts: OutboxCounts) -> None:
        """Keep the sidebar's outbox count current."""
        self.sidebar.sidebar_model.set_section_count(
            "outbox", counts.pending + counts.awaiting + counts.attention
        )

    def refresh_filters(self) -> None:
        """Offer the cached types and tags in the search filters (read now, at start-up)."""
        try:
            types = list(self.reader.counts_by_type())
            tags = self.reader.tags(limit=FILTER_TAGS)
        except Exception:  # filters keep their old choices when the cache cannot be read
            log.exception("reading filter choices failed")
            return
        self._apply_filter_choices(types, tags)

    def _apply_filter_choices(self, types: list[str], tags: list[Any]) -> None:
        """Put types and tags (by name) into the search filters."""
        self.search_bar.set_type_choices(sorted(types))
        by_name = sorted(tags, key=lambda t: t.name.lower())[:FILTER_TAGS]
        self.search_bar.set_tag_choices([(t.name, t.id) for t in by_name])

    def refresh_sidebar_later(self) -> None:
        """Re-read sidebar counts and filter choices on a worker (one read at a time).

        Counting a large cache by type takes tens of milliseconds: never on the GUI thread
        while a sync reports changes page after page.
        """
        if self._snapshot_task is not None:
            self._snapshot_stale = True
            return
        self._snapshot_stale = False
        self._snapshot_task = self.runner.submit(sidebar_snapshot, self.cache_path)
        self._snapshot_task.finished.connect(self._on_snapshot_finished)
        self._snapshot_task.failed.connect(self._on_snapshot_failed)

    _snapshot_task: Task | None = None
    _snapshot_stale = False

    @Slot(object)
    def _on_snapshot_finished(self, snapshot: SidebarSnapshot) -> None:
        """Show the new counts and choices; read again if more changed meanwhile."""
        self._snapshot_task = None
        self.sidebar.apply_snapshot(snapshot)
        self._apply_filter_choices(list(snapshot.counts), snapshot.tags)
        if self._snapshot_stale:
            self.refresh_sidebar_later()

    @Slot(object)
    def _on_snapshot_failed(self, exc: object) -> None:
        """The old counts stay on screen; a later change reads again."""
        self._snapshot_task = None
        if not isinstance(exc, TaskCancelled):
            log.error("reading the sidebar counts failed: %r", exc)
        if self._snapshot_stale and not self.runner.closed:
            self.refresh_sidebar_later()

    def refresh_outbox(self) -> None:
        """Reload the outbox pane (off the GUI thread)."""
        task = self.runner.submit(list_outbox, self.outbox_path)
        task.finished.connect(self._on_outbox_listed)

    @Slot(object)
    def _on_outbox_listed(self, result: tuple[list[Any], OutboxCounts]) -> None:
        """Show the outbox operations and counts."""
        ops, counts = result
        self.outbox_pane.model.set_ops(ops)
        self.controller.refresh_counts(counts)

    @Slot(str)
    def _on_status_action_requested(self, action: str) -> None:
        """The status bar's fixing action: settings, retry or plans."""
        if action == "settings":
            self._on_settings_action()
        elif action == "retry":
            self.controller.sync_now(resume_paused=True)
        elif action == "plans":
            self.reader_pane._open_external(PRICING_URL)
        elif action == "doctor":
            self.show_doctor()

    @Slot()
    def _on_sync_now_action(self) -> None:
        """Ctrl+R."""
        if not self.controller.sync_now(resume_paused=True):
            self.toast.show_message("Connect your Memex account first (Ctrl+,).")

    @Slot()
    def _on_sync_full_action(self) -> None:
        """Ctrl+Shift+R."""
        self.controller.sync_now(full=True, resume_paused=True)

    # -- saving by drop / paste ------------------------------------------------------------

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        """Accept drags that carry links."""
        if any(event.mimeData().hasFormat(fmt) for fmt in DROP_FORMATS):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dragMoveEvent(self, event: QDragMoveEvent) -> None:
        """Keep accepting while the drag moves over the window."""
        if any(event.mimeData().hasFormat(fmt) for fmt in DROP_FORMATS):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        """Queue every web link of the drop; refuse the rest with a message."""
        verdicts = judge_drop(mime_payloads(event.mimeData()), read_file=read_shortcut_bounded)
        event.acceptProposedAction()
        self.save_links(verdicts)

    def save_links(self, verdicts: list[DropVerdict]) -> Task | None:
        """Queue the accepted links (in a worker, committed before the toast says so)."""
        accepted = [v.url for v in verdicts if v.accepted]
        refused = [v for v in verdicts if not v.accepted]
        if not accepted:
            reason = refused[0].reason if refused else "Nothing to save in what was dropped."
            self.toast.show_message(reason)
            self.saves_queued.emit([], refused)
            return None
        task = self.runner.submit_durable(enqueue_urls, self.cache_path, self.outbox_path, accepted)
        task.finished.connect(self._on_links_enqueued)
        task.failed.connect(self._on_links_enqueue_failed)
        self._pending_refused = refused
        return task

    def save_urls(self, urls: list[str]) -> Task | None:
        """Queue these URLs for saving (what a drop does)."""
        return self.save_links([judge_url(url) for url in urls])

    @Slot(object)
    def _on_links_enqueued(self, results: list[EnqueueResult]) -> None:
        """Say what happened to each dropped link; select one that was already saved."""
        refused, self._pending_refused = self._pending_refused, []
        queued = [r for r in results if r.status == "queued"]
        known = [r for r in results if r.status != "queued"]
        parts = []
        if queued:
            parts.append(f"Saving {len(queued)} link{'s' if len(queued) != 1 else ''}")
        if known:
            parts.append(f"{len(known)} already saved")
        if refused:
            parts.append(f"{len(refused)} refused: {refused[0].reason}")
        self._last_queued = [r.op.id for r in queued if r.op is not None]
        self.toast.show_message(" · ".join(parts) + ".", self._last_queued or None)
        for result in known:
            if result.entity_id:
                self.select_entity(result.entity_id)
                break
            if result.op is not None:
                self.outbox_pane.select_op(result.op.id)
        self.saves_queued.emit(results, refused)
        self.refresh_outbox()
        if queued:
            self.controller.sync_now()

    @Slot(object)
    def _on_links_enqueue_failed(self, exc: object) -> None:
        """The outbox could not take the saves: say so loudly (nothing was queued)."""
        from memex_desktop.errors import user_message

        message = user_message(exc) if isinstance(exc, BaseException) else None
        self.toast.show_message(
            "The links could not be queued: " + (message.text if message else str(exc))
        )

    @Slot(object)
    def _on_toast_undo_requested(self, op_ids: object) -> None:
        """Undo the saves just queued (only those not sent yet)."""
        for op_id in list(op_ids) if isinstance(op_ids, list) else []:
            task = self.runner.submit_durable(outbox_action, self.outbox_path, "undo", op_id)
            task.finished.connect(self._on_outbox_action_finished)
            task.failed.connect(self._on_outbox_action_failed)

    @Slot()
    def _on_undo_save_action(self) -> None:
        """Ctrl+Z: undo the last queued saves."""
        if self._last_queued:
            ids, self._last_queued = self._last_queued, []
            self._on_toast_undo_requested(ids)
            self.toast.show_message("Save undone.")

    @Slot()
    def _on_save_clipboard_action(self) -> None:
        """Save the link on the clipboard."""
        mime = QGuiApplication.clipboard().mimeData()
        if mime is None:
            return
        verdicts = judge_drop(mime_payloads(mime))
        if not verdicts and mime.hasText():
            verdicts = [judge_url(mime.text().strip())]
        self.save_links(verdicts)

    @Slot(object)
    def _on_outbox_retry_requested(self, op_id: int) -> None:
        """Retry one save, then try to send it."""
        task = self.runner.submit_durable(outbox_action, self.outbox_path, "retry", op_id)
        task.finished.connect(self._on_outbox_action_finished)
        task.failed.connect(self._on_outbox_action_failed)

    @Slot(object)
    def _on_outbox_drop_requested(self, op_id: int) -> None:
        """Drop one save."""
        task = self.runner.submit_durable(outbox_action, self.outbox_path, "drop", op_id)
        task.finished.connect(self._on_outbox_action_finished)
        task.failed.connect(self._on_outbox_action_failed)

    @Slot(object)
    def _on_outbox_action_finished(self, counts: OutboxCounts) -> None:
        """An outbox action went through: refresh and send what is queued."""
        self.controller.refresh_counts(counts)
        self.refresh_outbox()
        if counts.pending:
            self.controller.sync_now(resume_paused=True)

    @Slot(object)
    def _on_outbox_action_failed(self, exc: object) -> None:
        """An outbox action failed (e.g. undo after the save was sent)."""
        from memex_desktop.errors import user_message

        text = user_message(exc).text if isinstance(exc, BaseException) else str(exc)
        self.toast.show_message(text)
        self.refresh_outbox()

    # -- panes and dialogs -----------------------------------------------------------------

    def _toggle(self, dock: QDockWidget | None) -> None:
        """Show or hide a dock."""
        if dock is not None:
            dock.setVisible(not dock.isVisible())
            if dock.isVisible():
                dock.raise_()

    @Slot()
    def _on_toggle_threads_action(self) -> None:
        """Ctrl+Shift+T."""
        self._toggle(self.thread_dock)

    @Slot()
    def _on_toggle_graph_action(self) -> None:
        """Ctrl+Shift+G."""
        self._toggle(self.graph_dock)

    @Slot()
    def _on_toggle_outbox_action(self) -> None:
        """Ctrl+Shift+O."""
        self._toggle(self.outbox_dock)
        if self.outbox_dock.isVisible():
            self.refresh_outbox()

    @Slot()
    def _on_settings_action(self) -> None:
        """Ctrl+,: the settings dialog (app.py decides what applying it means)."""
        if self._open_settings is not None:
            self._open_settings(self)

    @Slot()
    def _on_quit_action(self) -> None:
        """Ctrl+Q."""
        self.close()

    @Slot()
    def show_shortcuts(self) -> None:
        """F1 / ?: every keyboard shortcut."""
        dialog = ShortcutsDialog(self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.open()

    @Slot()
    def _on_about_action(self) -> None:
        """Help > About."""
        self.show_about()

    @Slot()
    def _on_check_connection_action(self) -> None:
        """Help > Check the connection to Memex…"""
        self.show_doctor()

    def show_doctor(self) -> DoctorDialog:
        """The connection check (non-modal: the window stays usable while it runs)."""
        if self._doctor is not None:
            self._doctor.raise_()
            self._doctor.activateWindow()
            return self._doctor
        services = self.controller.services
        dialog = DoctorDialog(
            self.runner,
            services.client,
            services.writer,
            self.cache_path.parent,
            page_size=services.page_size,
            parent=self,
        )
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.finished.connect(self._on_doctor_finished)
        self._doctor = dialog
        dialog.show()
        return dialog

    @Slot(int)
    def _on_doctor_finished(self, _result: int) -> None:
        """The connection check was closed (and is being deleted)."""
        self._doctor = None

    def show_about(self) -> AboutDialog:
        """Help > About: version, data folder and cache statistics."""
        dialog = AboutDialog(self.runner, self.cache_path, self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.open()
        return dialog

    def open_url_in_browser(self, url: str) -> None:
        """Open an http(s) address after confirmation (the reader's policy)."""
        self.reader_pane._open_external(QUrl(url).toString())
