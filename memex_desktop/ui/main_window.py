"""The main window: sidebar, search bar, results, reader, docked panes and the status bar.

The window is made as a frame (its title, its size, "Opening the library…"), which a start
shows at once; :meth:`MainWindow.open_library` then builds its widgets in it and wires the
collaborators it is given (``app.build_main_window`` creates them: the GUI thread's
CacheReader, the one TaskRunner and the SyncController). The
work is done elsewhere: :class:`SearchController` fills the results, :class:`SaveController`
queues dropped and pasted links, :class:`DeletionsController` asks about held deletions,
:class:`DockedPanes` keeps the docks on what is read and :class:`HighlightController` makes
and paints highlights. Every message for the person arrives through the runner's
:class:`MessageBridge`, shown here in the status bar (and the toast when it matters).
"""

from __future__ import annotations

import hashlib
import itertools
import logging
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import (
    QByteArray,
    QEvent,
    QProcess,
    QSettings,
    QSize,
    Qt,
    QTimer,
    QUrl,
    Signal,
    Slot,
)
from PySide6.QtGui import (
    QCloseEvent,
    QDragEnterEvent,
    QDragMoveEvent,
    QDropEvent,
    QResizeEvent,
    QStatusTipEvent,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QSizePolicy,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from memex_desktop.empty_states import FRESH_CACHE, LIST_FEED
from memex_desktop.errors import UserMessage, fresh_cache_offer
from memex_desktop.settings import DEFAULT_READER_ITEM_TEXT_MB
from memex_desktop.ui.first_frames import after_first_results
from memex_desktop.ui.messages import SHOWN_FOR_MS, message_line

# The panes and what they read are imported by open_library, which builds them: a start
# shows the window's frame before any of them is imported (the store, sqlite-utils and the
# panes' modules: with them the frame came at 0.40 s of a start instead of 0.24, bench_ui's
# cold_start_ms at 10,000 items; see app.open_window).
if TYPE_CHECKING:
    from memex_desktop.render.image_cache import ImageSource
    from memex_desktop.store import CacheReader, ChangeSet
    from memex_desktop.sync import SyncReport
    from memex_desktop.ui.about_dialog import AboutDialog
    from memex_desktop.ui.doctor_dialog import DoctorDialog
    from memex_desktop.ui.search_bar import SearchRequest
    from memex_desktop.ui.sidebar import Scope
    from memex_desktop.ui.sync_controller import OutboxCounts, SyncController
    from memex_desktop.ui.tasks import TaskRunner

log = logging.getLogger(__name__)

PRICING_URL = "https://memex.garden/pricing"
# The first-run window: this size, or the screen's free area when that is smaller.
FIRST_RUN_SIZE = (1440, 900)
# The smallest window every pane is laid out for (README: "works from 960×600 up").
SMALLEST_SIZE = (960, 600)
# What a window manager adds around a window (title bar, borders): the first-run size leaves
# room for it, so that the status bar never ends up below the edge of a 1366×768 screen.
FRAME_ALLOWANCE = (16, 48)
# First-run shares of the central area's width (the reader takes the rest), with bounds.
SIDEBAR_SHARE, SIDEBAR_BOUNDS = 0.18, (150, 230)
RESULTS_SHARE, RESULTS_BOUNDS = 0.32, (250, 440)
# Where the person was (the sidebar entry picked, the item read) is kept in QSettings for
# each of the last few data folders: the demo's is another library, made anew at each start.
PLACES_GROUP = "places"
MAX_PLACES_KEPT = 8


def first_run_sizes(
    available: QSize | None,
) -> tuple[tuple[int, int], tuple[int, int], bool]:
    """The window's first-run size and least size on a screen of ``available`` size, and
    whether the screen is smaller than the first-run size (then the window fills it, frame
    and all, where a window manager can maximize it)."""
    width, height = FIRST_RUN_SIZE
    least_width, least_height = SMALLEST_SIZE
    if available is None:
        return (width, height), (least_width, least_height), False
    room_width = available.width() - FRAME_ALLOWANCE[0]
    room_height = available.height() - FRAME_ALLOWANCE[1]
    fills = width > room_width or height > room_height
    return (
        (min(width, room_width), min(height, room_height)),
        (min(least_width, room_width), min(least_height, room_height)),
        fills,
    )


class MainWindow(QMainWindow):
    """The application window.

    Signals:
        entity_opened(str): the reader now shows this entity.
        search_applied(int): local results for a search are on screen (row count).
        saves_queued(object, object): a drop or paste was handled (the EnqueueResults of the
            links queued or already saved, and the refused DropVerdicts).
        fresh_cache_requested(object): starting with a fresh cache gets past this store
            error (a damaged cache met by a search, the list's rows, a sync, the sidebar's
            counts, the reader's item or any failure the message bridge words: asked once,
            as soon as it is met; or the person asked with the list's button). The app asks
            the person as a start over a damaged cache does, and builds the window again.
    """

    entity_opened = Signal(str)
    fresh_cache_requested = Signal(object)
    search_applied = Signal(int)
    saves_queued = Signal(object, object)

    def __init__(
        self, *, qsettings: QSettings | None = None, parent: QWidget | None = None
    ) -> None:
        """The window's frame: its title, its size (as the person left it) and an empty
        central area saying the library is being opened. A start shows it at once and builds
        the panes in it with :meth:`open_library`."""
        super().__init__(parent)
        self.setObjectName("mainwindow")
        # Names a library that is not the person's own in the title ("Demo library").
        self._library_label = ""
        self._item_title = ""
        self._show_title()
        self.setAccessibleName("Memex library")
        self._qsettings = qsettings
        # Whether the panes exist: until they do, the window is a frame that takes no drops,
        # hints or layout work (a start paints it before the panes' modules are imported).
        self.library_built = False
        # Whether open_library began: a frame it failed in is not used again.
        self.library_started = False
        # Whether the person closed the frame before its library was built: the start ends.
        self.closed_before_library = False
        opening = QLabel("Opening the library…", self)
        opening.setObjectName("openinglibrary")
        opening.setAlignment(Qt.AlignmentFlag.AlignCenter)
        opening.setEnabled(False)  # dimmed: words about the window, not a part of it
        self.setCentralWidget(opening)
        self._first_run_size = self._apply_default_size()
        self._geometry_restored = False
        self._restore_geometry()

    def open_library(
        self,
        *,
        reader: CacheReader,
        runner: TaskRunner,
        controller: SyncController,
        cache_path: Path,
        outbox_path: Path,
        open_settings: Callable[[MainWindow], None] | None = None,
        transcript_language: str | None = None,
        allow_remote_images: bool = False,
        reader_item_text_mb: float = DEFAULT_READER_ITEM_TEXT_MB,
        reader_text_size_percent: int = 100,
        remember_reading_position: Callable[[str, int], object] | None = None,
        reader_images: ImageSource | None = None,
    ) -> None:
        """Build the panes in the frame and wire the collaborators ``app.build_main_window``
        made: the GUI thread's CacheReader, the one TaskRunner and the SyncController."""
        from memex_desktop.ui.deletions_controller import DeletionsController
        from memex_desktop.ui.highlight_controller import HighlightController
        from memex_desktop.ui.menus import build_menus
        from memex_desktop.ui.results_guide import ResultsGuide
        from memex_desktop.ui.save_controller import SaveController
        from memex_desktop.ui.search_controller import SearchController

        if self.library_started:
            raise RuntimeError("the window has its library already")
        self.library_started = True
        qsettings = self._qsettings
        self.reader = reader
        self.runner = runner
        self.messages = runner.messages
        self.controller = controller
        self.cache_path = cache_path
        self.outbox_path = outbox_path
        self._open_settings = open_settings
        self._doctor: DoctorDialog | None = None
        self._reader_text_size = reader_text_size_percent
        self._remember_reading_position = remember_reading_position
        self._reader_images = reader_images
        # Where the person was at the last quit comes back after the first results are
        # painted; until it has, closing keeps it as it was.
        self._place_restored = False
        self._item_due: str | None = None  # the item to bring back, being looked for
        self._row_due: str | None = None  # the item read, its row not marked yet
        self._list_moves = False  # the sidebar entry brought back lists other items
        self._closing = False
        # The store error a fresh cache gets past, met since the window opened: the person
        # is asked once, when the event loop is back (never from inside a read or a paint).
        self._fresh_cache_due: BaseException | None = None
        self._fresh_cache_asked = False
        self._ask_fresh_cache = QTimer(self)
        self._ask_fresh_cache.setSingleShot(True)
        self._ask_fresh_cache.setInterval(0)
        self._ask_fresh_cache.timeout.connect(self._on_ask_fresh_cache_timeout)
        self._build(transcript_language, allow_remote_images, reader_item_text_mb)
        self.search = SearchController(
            reader=reader,
            runner=runner,
            sync=controller,
            cache_path=cache_path,
            sidebar=self.sidebar,
            search_bar=self.search_bar,
            results=self.results_model,
            sort_control=self.sort_control,
            parent=self,
        )
        self.guide = ResultsGuide(
            reader=reader,
            sidebar=self.sidebar,
            search_bar=self.search_bar,
            results=self.results_model,
            view=self.results_view,
            sync=controller,
            search=self.search,
            parent=self,
        )
        self.saves = SaveController(
            runner=runner,
            sync=controller,
            cache_path=cache_path,
            outbox_path=outbox_path,
            toast=self.toast,
            outbox_pane=self.outbox_pane,
            parent=self,
        )
        self.deletions = DeletionsController(
            reader=reader,
            sync=controller,
            banner=self.deletions_banner,
            toast=self.toast,
            messages=self.messages,
            qsettings=qsettings,
            parent=self,
        )
        self.highlights = HighlightController(
            reader_pane=self.reader_pane,
            thread_pane=self.thread_pane,
            runner=runner,
            cache_path=cache_path,
            parent=self,
        )
        self.actions_by_key = build_menus(self, self.results_view, self._action_handlers())
        if self.isVisible():
            self._show_new_parts()
        self._apply_default_pane_layout()
        self.highlights.offer_in_reader_menu(
            [self.actions_by_key["highlight"], self.actions_by_key["add_note"]]
        )
        self._connect()
        for child in self.findChildren(QWidget):  # a drop anywhere reaches the window
            child.setAcceptDrops(False)
        self.setAcceptDrops(True)
        self._restore_layout()
        if self.isVisible() and self.focusWidget() is None:
            # On screen before its panes, the window had nothing to give the keyboard to when
            # it became active (Qt gives it to the first pane then): it goes there now.
            self.focusNextPrevChild(True)
        self.library_built = True
        self.deletions.show_held()
        # The counts and filter choices are read on a worker: at a million items reading them
        # here kept the first frame waiting 130-200 ms.
        self.search.refresh_sidebar_later()
        self.saves.refresh_outbox()
        self.search.run_search(self.search_bar.request())
        if qsettings is not None:
            after_first_results(self, self._on_first_results_painted)

    # -- construction ----------------------------------------------------------------------

    def _build(
        self, transcript_language: str | None, allow_remote_images: bool, item_text_mb: float
    ) -> None:
        """Sidebar | search + results | reader in a splitter; panes as docks."""
        from memex_desktop.ui.deletions_banner import DeletionsBanner
        from memex_desktop.ui.docked_panes import DockedPanes
        from memex_desktop.ui.reader_pane import ReaderPane
        from memex_desktop.ui.results_delegate import ResultDelegate
        from memex_desktop.ui.results_model import ResultsModel
        from memex_desktop.ui.results_view import ResultsView
        from memex_desktop.ui.search_bar import SearchBar
        from memex_desktop.ui.sidebar import Sidebar
        from memex_desktop.ui.sort_control import SortControl
        from memex_desktop.ui.status_bar import StatusBar
        from memex_desktop.ui.toast import Toast

        self.sidebar = Sidebar(self.reader, self, read_now=False)
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
        self.sort_control = SortControl(middle)
        column.addWidget(self.sort_control)
        column.addWidget(self.results_view, 1)
        self.reader_pane = ReaderPane(
            self.cache_path,
            self.runner,
            transcript_language=transcript_language,
            allow_all_remote_images=allow_remote_images,
            item_text_mb=item_text_mb,
            text_size_percent=self._reader_text_size,
            remember_position=self._remember_reading_position,
            images=self._reader_images,
            parent=self,
        )
        self.splitter = QSplitter(Qt.Orientation.Horizontal, self)
        self.splitter.setObjectName("mainsplitter")
        for position, (widget, stretch) in enumerate(
            ((self.sidebar, 0), (middle, 1), (self.reader_pane, 2))
        ):
            self.splitter.addWidget(widget)
            self.splitter.setStretchFactor(position, stretch)
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
        self.status = StatusBar(self, cache_path=self.cache_path)
        self.setStatusBar(self.status)
        self.toast = Toast(self)
        self.docks = DockedPanes(
            self,
            reader=self.reader,
            runner=self.runner,
            cache_path=self.cache_path,
            outbox_path=self.outbox_path,
            qsettings=self._qsettings,
        )
        self.outbox_pane, self.outbox_dock = self.docks.outbox_pane, self.docks.outbox_dock
        self.thread_pane, self.thread_dock = self.docks.thread_pane, self.docks.thread_dock
        self.graph_pane, self.graph_dock = self.docks.graph_pane, self.docks.graph_dock
        self._set_tab_order()

    def _show_new_parts(self) -> None:
        """Show the parts just made in the window on screen (its frame) now, as Qt would show
        them on its next round of events, and lay them out: the first-run arrangement and
        the saved layout are then applied to panes that are there. Left to Qt, the hidden
        side panes were neither folded for a narrow window nor given their saved widths, and
        the menu bar came after the first results, moving every pane down. The lists lay
        their rows out now too: the window, on screen already, paints before their own
        layout comes round (the sidebar's rows were drawn cramped for a frame)."""
        explicitly_hidden = Qt.WidgetAttribute.WA_WState_ExplicitShowHide
        for part in self.findChildren(QWidget, options=Qt.FindChildOption.FindDirectChildrenOnly):
            if part.isWindow() or (part.isHidden() and part.testAttribute(explicitly_hidden)):
                continue
            part.show()
        layout = self.layout()
        if layout is not None:
            layout.activate()
        for view in self.findChildren(QAbstractItemView):
            view.doItemsLayout()

    def _set_tab_order(self) -> None:
        """Tab goes as the eye does down the middle column and on to the reader: the search
        field, the filter menus, the filter chips, the sort menu, the list, the item (widgets
        are made in another order: the list before the sort menu above it). The search bar
        keeps its chips in place as they come and go."""
        chain = (
            *self.search_bar.focus_order(),
            self.sort_control.combo,
            self.results_view,
            self.reader_pane.browser,
        )
        for first, second in itertools.pairwise(chain):
            self.setTabOrder(first, second)

    def _apply_default_size(self) -> tuple[int, int]:
        """The first-run size on this screen (maximized when the screen is smaller), and the
        least size; returns the first-run size. Saved geometry (QSettings) replaces it."""
        screen = self.screen()
        free = screen.availableGeometry().size() if screen is not None else None
        (width, height), (least_width, least_height), fills = first_run_sizes(free)
        # Smaller, the panes cannot show what they hold (the filters, the reader's title, the
        # notes): the window does not shrink past this, unless the screen itself is smaller.
        self.setMinimumSize(least_width, least_height)
        self.resize(width, height)
        if fills:  # after the resize, which would take it back to a normal window
            self.setWindowState(self.windowState() | Qt.WindowState.WindowMaximized)
        return width, height

    def _apply_default_pane_layout(self) -> None:
        """First-run proportions: the reader widest, then the list, the side panes, the sidebar.

        Saved window state (QSettings) replaces these afterwards. Long titles must not widen
        the window past the screen, so the reader's title may shrink.
        """
        shrinkable = QSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.reader_pane.title_label.setSizePolicy(shrinkable)
        self.results_view.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        # A frame on screen may have another size already (maximized, or resized by the
        # window manager or the person while the library was opened): the panes fit it.
        size = (self.width(), self.height()) if self.isVisible() else self._first_run_size
        self.arrange_default_panes(*size)

    def arrange_default_panes(self, width: int, height: int) -> None:
        """The first-run pane sizes for a window of this size (the reader gets the most)."""
        side = self.docks.apply_default_sizes(width, height)
        self.docks.fit_width(width)
        if self.docks.thread_dock.isHidden() and self.docks.graph_dock.isHidden():
            side = 0  # folded away: the central area has the whole width
        central = width - side
        sidebar = _share(central, SIDEBAR_SHARE, SIDEBAR_BOUNDS)
        results = _share(central, RESULTS_SHARE, RESULTS_BOUNDS)
        self.splitter.setSizes([sidebar, results, max(0, central - sidebar - results)])

    def _action_handlers(self) -> dict[str, Callable[[], object]]:
        """Which method runs each declared action."""
        return {
            "focus_search": self.search_bar.focus_field,
            "find_in_item": self._on_find_action,
            "search_remote": self.search.search_remote,
            "sync_now": self._on_sync_now_action,
            "sync_full": self._on_sync_full_action,
            "cancel_sync": self._on_cancel_sync_action,
            "save_clipboard": self.saves.save_clipboard,
            "undo_save": self._on_undo_save_action,
            "add_note": self.highlights.add_note,
            "highlight": self.highlights.highlight_selection,
            "reply_note": self._on_reply_note_action,
            "go_back": self.reader_pane.go_back,
            "go_forward": self.reader_pane.go_forward,
            "next_result": self.results_view.select_next,
            "previous_result": self.results_view.select_previous,
            "open_result": self.results_view.open_current,
            "open_in_browser": self.reader_pane.open_original,
            "copy_link": self.reader_pane.copy_link,
            "load_remote_images": self.reader_pane.load_remote_images,
            "bigger_text": self.reader_pane.bigger_text,
            "smaller_text": self.reader_pane.smaller_text,
            "default_text_size": self.reader_pane.default_text_size,
            "focus_sidebar": self.sidebar.setFocus,
            "focus_results": self.results_view.setFocus,
            "focus_reader": self.reader_pane.browser.setFocus,
            "toggle_threads": self.docks.toggle_threads,
            "toggle_graph": self.docks.toggle_graph,
            "toggle_outbox": self.docks.toggle_outbox,
            "settings": self._on_settings_action,
            "shortcuts": self.show_shortcuts,
            "quit": self.close,
            "check_connection": self.show_doctor,
            "open_demo": self.open_demo,
            "about": self.show_about,
        }

    def _connect(self) -> None:
        """Wire the widgets, the controllers and the message bridge together."""
        self.messages.shown.connect(self._on_messages_shown)
        self.search.search_applied.connect(self.results_view.keep_current_visible)
        self.search.search_applied.connect(self.search_applied)
        self.search.search_applied.connect(self.results_view.list_arrived)
        self.search.search_failed.connect(self.results_view.list_arrived)
        self.search.search_failed.connect(self._on_search_search_failed)
        self.messages.watch_cache(self.cache_path)
        self.messages.fresh_cache_met.connect(self._on_messages_fresh_cache_met)
        self.results_model.rows_unreadable.connect(self._on_results_rows_unreadable)
        self.search.store_changed.connect(self._on_store_changed)
        self.search.message_outdated.connect(self._on_search_message_outdated)
        self.saves.saves_queued.connect(self.saves_queued)
        self.saves.entity_found.connect(self.select_entity)
        self.saves.outbox_requested.connect(self.docks.show_outbox)
        self.search_bar.move_to_results.connect(self._on_search_bar_move_to_results)
        self.sidebar.scope_selected.connect(self._on_sidebar_scope_selected)
        self.sidebar.scope_reselected.connect(self._on_sidebar_scope_selected)
        self.results_view.current_entity_changed.connect(self._on_results_current_changed)
        self.results_view.entity_activated.connect(self._on_results_entity_activated)
        self.reader_pane.entity_shown.connect(self._on_reader_entity_shown)
        self.reader_pane.went_to.connect(self._on_reader_went_to)
        self.reader_pane.link_refused.connect(self.messages.warn)
        self.reader_pane.message.connect(self.messages.inform)
        self.docks.entity_activated.connect(self.open_entity)
        self.docks.tag_activated.connect(self._on_docks_tag_activated)
        self.docks.outbox_shown.connect(self.saves.refresh_outbox)
        self.thread_pane.note_queued.connect(self.saves.on_queued_elsewhere)
        self.thread_pane.link_queued.connect(self.saves.on_queued_elsewhere)
        self.thread_pane.set_quote_source(self.reader_pane.selected_text)
        self.highlights.highlight_queued.connect(self.saves.on_queued_elsewhere)
        self.highlights.message.connect(self.messages.inform)
        sync = self.controller
        sync.store_changed.connect(self._on_store_changed)
        sync.sync_started.connect(self.status.on_sync_started)
        sync.sync_progress.connect(self.status.on_sync_progress)
        sync.sync_finished.connect(self.status.on_sync_finished)
        sync.sync_finished.connect(self._on_controller_sync_finished)
        sync.sync_finished.connect(self.thread_pane.on_outbox_changed)
        sync.sync_finished.connect(self.highlights.on_outbox_changed)
        # A note or a highlight sent says so while the sync that sent it reads on for minutes.
        sync.outbox_progressed.connect(self.thread_pane.on_outbox_changed)
        sync.outbox_progressed.connect(self.highlights.on_outbox_changed)
        sync.state_changed.connect(self.status.set_state)
        sync.state_changed.connect(self.thread_pane.on_connection_changed)
        sync.outbox_changed.connect(self.status.on_outbox_changed)
        sync.outbox_changed.connect(self._on_controller_outbox_changed)
        sync.meta_changed.connect(self.status.on_meta_changed)
        self.status.action_requested.connect(self._on_status_action_requested)
        self.results_view.empty_action_requested.connect(self._on_status_action_requested)
        self.status.cancel_requested.connect(sync.cancel)
        self.status.outbox_requested.connect(self.docks.toggle_outbox)
        if sync.connecting:
            self.status.show_connecting()
        else:
            self.status.set_state(sync.state, None)
            self.thread_pane.on_connection_changed(sync.state, None)

    # -- persistence -----------------------------------------------------------------------

    def _restore_geometry(self) -> None:
        """The window's size and place as the person left them (QSettings)."""
        if self._qsettings is None:
            return
        value = self._qsettings.value("window/geometry")
        if not isinstance(value, QByteArray | bytes):
            return
        # The saved size and state replace the first run's, which fills a screen smaller
        # than the first-run size (restoring keeps a maximized window maximized otherwise).
        first_run_state = self.windowState()
        self.setWindowState(first_run_state & ~Qt.WindowState.WindowMaximized)
        self._geometry_restored = self.restoreGeometry(QByteArray(value))
        if not self._geometry_restored:
            self.setWindowState(first_run_state)

    def _restore_layout(self) -> None:
        """Dock layout and splitter sizes as the person left them (QSettings)."""
        if self._qsettings is None:
            return
        restored = self._geometry_restored
        for key, restore in (
            ("window/state", self.restoreState),
            ("window/splitter", self.splitter.restoreState),
        ):
            value = self._qsettings.value(key)
            if isinstance(value, QByteArray | bytes):
                restored = bool(restore(QByteArray(value))) or restored
        if restored:
            tabbed = self._qsettings.value("window/tabbed_for_width", False)
            self.docks.tabbed_for_width = tabbed in (True, "true")
            folded = self._qsettings.value("window/folded_for_width", "")
            # QSettings gives one name as a string, several as a list.
            names = [folded] if isinstance(folded, str) else folded
            if isinstance(names, list):
                self.docks.folded_for_width = {str(name) for name in names if name}
            # The saved arrangement is the person's: only a later change of width rearranges.
            self.docks.fit_width(self.width(), rearrange=False)

    def save_state(self) -> None:
        """Remember window geometry, dock layout and splitter sizes."""
        if self._qsettings is None or not self.library_built:
            return
        self._qsettings.setValue("window/geometry", self.saveGeometry())
        self._qsettings.setValue("window/state", self.saveState())
        self._qsettings.setValue("window/splitter", self.splitter.saveState())
        self._qsettings.setValue("window/tabbed_for_width", self.docks.tabbed_for_width)
        self._qsettings.setValue("window/folded_for_width", sorted(self.docks.folded_for_width))
        self._save_place()
        self._qsettings.sync()

    # -- where the person was --------------------------------------------------------------

    def _place_group(self) -> str:
        """The QSettings group of where the person was in this data folder's library."""
        folder = str(self.cache_path.parent.resolve())
        return f"{PLACES_GROUP}/{hashlib.sha256(folder.encode()).hexdigest()[:16]}"

    def _save_place(self) -> None:
        """Remember the sidebar entry picked and the item read, for the next start."""
        from memex_desktop.ui.sidebar import ALL_ITEMS

        if self._qsettings is None:
            return
        scope = self.sidebar.current_scope()
        # The Outbox entry opens a pane, not a list: the list goes on showing All items.
        key = self.sidebar.wanted_key or (scope.key if scope.kind != "outbox" else ALL_ITEMS.key)
        item = self.reader_pane.current_entity_id or self._item_due
        if not self._place_restored and key == ALL_ITEMS.key and not item:
            return  # closed before the place came back, and nothing picked: it stays kept
        group = self._place_group()
        self._qsettings.setValue(f"{group}/sidebar", key)
        if item:
            self._qsettings.setValue(f"{group}/item", item)
        else:
            self._qsettings.remove(f"{group}/item")
        kept = self._qsettings.value(f"{PLACES_GROUP}/recent", [])
        # QSettings gives one name as a string, several as a list.
        names = [kept] if isinstance(kept, str) else kept if isinstance(kept, list) else []
        recent = [group, *(str(name) for name in names if name and name != group)]
        for gone in recent[MAX_PLACES_KEPT:]:
            self._qsettings.remove(gone)
        self._qsettings.setValue(f"{PLACES_GROUP}/recent", recent[:MAX_PLACES_KEPT])

    @Slot()
    def _on_first_results_painted(self) -> None:
        """The library is on screen: where the person was comes back next, after what a
        start does at this point (connecting, among others)."""
        QTimer.singleShot(0, self, self._restore_place)

    @Slot()
    def _restore_place(self) -> None:
        """Pick the sidebar entry and open the item of the last quit, where they still exist
        (else All items and no item, quietly). What was opened meanwhile (an entry the person
        picked) stays; a link the start was given is read in All items, which lists it (the
        entry of the last quit may not), its row marked once listed."""
        from memex_desktop.ui.sidebar import ALL_ITEMS

        if self._closing or self._qsettings is None or self._place_restored:
            return
        self._place_restored = True
        group = self._place_group()
        opened = self.reader_pane.current_entity_id  # the link the start was given, if any
        key = self._qsettings.value(f"{group}/sidebar", "")
        if (
            opened is None
            and isinstance(key, str)
            and key
            and self.sidebar.current_scope().key == ALL_ITEMS.key
        ):
            self.sidebar.pick_when_listed(key)
            picked = self.sidebar.current_scope().key == key
            self._list_moves = key != ALL_ITEMS.key and (picked or self.sidebar.wanted_key == key)
        item = self._qsettings.value(f"{group}/item", "")
        if opened is not None:
            if not self.results_view.select_entity(opened):
                self._mark_row_when_listed(opened)
        elif isinstance(item, str) and item:
            self._item_due = item
            self.runner.run(cached_item, self.cache_path, item).on_success(
                self._on_place_item_read
            ).on_failure(self._on_place_item_failed)

    @Slot(object)
    def _on_place_item_read(self, found: str | None) -> None:
        """Open the item read at the last quit, when the cache still has it and nothing else
        was opened meanwhile; its row is marked once a list shows it."""
        due, self._item_due = self._item_due, None
        if found is None or found != due or self._closing:
            return
        if self.reader_pane.current_entity_id is not None:
            return
        self.reader_pane.show_entity(found)
        listed = self.results_view.select_entity(found)
        entry_coming = self.sidebar.wanted_key is not None or self.search.awaiting_results
        if not listed or (self._list_moves and entry_coming):
            self._mark_row_when_listed(found)

    def _mark_row_when_listed(self, entity_id: str) -> None:
        """Mark the row of the item read in the next list that shows it: the list of the
        entry brought back, or the whole list that follows a first page."""
        if self._row_due is None:
            self.search.search_applied.connect(self._on_search_search_applied)
            self.search_bar.search_changed.connect(self._on_search_bar_search_changed)
        self._row_due = entity_id

    @Slot(object)
    def _on_place_item_failed(self, exc: Exception) -> None:
        """The cache could not say: nothing is opened (the list says what is wrong with it)."""
        self._item_due = None
        log.info("the item read at the last quit could not be looked up: %r", exc)

    @Slot(int)
    def _on_search_search_applied(self, _rows: int) -> None:
        """A list is on screen: the row of the item brought back is marked in it, when it is
        listed and still read."""
        due = self._row_due
        if self.sidebar.wanted_key is not None:
            return  # the entry brought back is not listed yet: this list is not its own
        if (
            due is not None
            and self.reader_pane.current_entity_id == due
            and not self.results_view.select_entity(due)
        ):
            return  # not in this list: perhaps in the next (the entry's, its full list)
        self._forget_row_due()

    @Slot(object)
    def _on_search_bar_search_changed(self, _request: object) -> None:
        """The person searches: the list is theirs, no row is marked for them."""
        self._forget_row_due()

    def _forget_row_due(self) -> None:
        """No row waits to be marked any longer."""
        if self._row_due is not None:
            self._row_due = None
            self.search.search_applied.disconnect(self._on_search_search_applied)
            self.search_bar.search_changed.disconnect(self._on_search_bar_search_changed)

    def event(self, event: QEvent) -> bool:
        """A status tip (a link or menu entry pointed at, or left) is a hint over the status
        bar's message, which comes back when the tip goes (Qt would clear it)."""
        if isinstance(event, QStatusTipEvent) and self.library_built:
            self.status.show_hint(event.tip())
            return True
        return super().event(event)

    def resizeEvent(self, event: QResizeEvent) -> None:
        """A narrow window tabs the side panes together or folds them; a wider one undoes it."""
        super().resizeEvent(event)
        if self.library_built:
            self.docks.fit_width(event.size().width())

    def closeEvent(self, event: QCloseEvent) -> None:
        """Keep unsaved notes as drafts, save the layout (and where the item was being read).

        A note whose words could not be kept (the disk is full or read-only) stays open,
        saying why, and so does the window. A frame whose library is not built yet has
        nothing to keep.
        """
        if not self.library_built:
            self.closed_before_library = True
            super().closeEvent(event)
            return
        if not self.thread_pane.keep_drafts():
            event.ignore()
            return
        self._closing = True
        self.reader_pane.remember_position()
        self.save_state()
        self.docks.close()
        super().closeEvent(event)

    # -- messages, drops -------------------------------------------------------------------

    @Slot(object)
    def _on_messages_shown(self, message: UserMessage) -> None:
        """Every message in the status bar; warnings and errors also in the toast, an error
        or a lasting message until it is closed (what was not done, what became of the
        person's data, must not go before the person read it)."""
        line = message_line(message)
        self.status.say(line, SHOWN_FOR_MS[message.level])
        if message.level != "info":
            self.toast.show_message(line, stays=message.level == "error" or message.lasting)

    @Slot(object)
    def _on_search_message_outdated(self, message: UserMessage) -> None:
        """A message no longer true goes, where it still shows: about a view or feed the
        person has left, or about a query problem since fixed."""
        line = message_line(message)
        if self.toast.isVisible() and self.toast.text() == line:
            self.toast.hide()
        if self.status.currentMessage() == line:
            self.status.say("", 0)

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        """Accept drags that carry links (once there is a library to save them in)."""
        from memex_desktop.ui.save_controller import carries_links

        if self.library_built and carries_links(event.mimeData()):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dragMoveEvent(self, event: QDragMoveEvent) -> None:
        """Keep accepting while the drag moves over the window."""
        from memex_desktop.ui.save_controller import carries_links

        if self.library_built and carries_links(event.mimeData()):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        """Queue every web link of the drop; refuse the rest with a message."""
        event.acceptProposedAction()
        self.saves.save_dropped(event.mimeData())

    # -- results and reading ---------------------------------------------------------------

    def run_search(self, request: SearchRequest) -> int:
        """Start a local search in the current scope; returns its sequence number."""
        return self.search.run_search(request)

    @Slot(str)
    def select_entity(self, entity_id: str, *, open_it: bool = True) -> bool:
        """Select an entity's row if listed; open it in the reader when asked."""
        listed = self.results_view.select_entity(entity_id)
        if open_it and self.reader_pane.current_entity_id != entity_id:
            self.reader_pane.show_entity(entity_id)
        return listed

    @Slot(str)
    def open_entity(self, entity_id: str, anchor: str | None = None) -> None:
        """Show an entity in the reader (and select it when listed)."""
        self.results_view.select_entity(entity_id)
        self.reader_pane.show_entity(entity_id, anchor)

    @Slot(str, str)
    def _on_docks_tag_activated(self, tag_id: str, name: str) -> None:
        """A tag in the graph lists its items as its sidebar entry does (the tag filter's,
        where the sidebar does not list it); the reader keeps its item."""
        from memex_desktop.ui.sidebar import Scope

        scope = Scope("tag", tag_id, name)
        if self.sidebar.sidebar_model.index_of(scope.key).isValid():
            self.sidebar.select_scope(scope)
        elif (choice := self.search_bar.tags.findData(tag_id)) >= 0:
            self.search_bar.tags.setCurrentIndex(choice)

    @Slot()
    def _on_search_bar_move_to_results(self) -> None:
        """Down in the search field: into the list; keys pressed before the list of what was
        just typed is in wait for it."""
        self.results_view.enter(list_coming=self.search.awaiting_results)

    @Slot(object)
    def _on_sidebar_scope_selected(self, scope: Scope) -> None:
        """The Outbox entry opens the outbox pane (the search controller shows the others)."""
        if scope.kind == "outbox":
            self.docks.show_outbox()

    @Slot(str)
    def _on_results_current_changed(self, entity_id: str) -> None:
        """Moving through the results reads each one."""
        if entity_id != self.reader_pane.current_entity_id:
            self.reader_pane.show_entity(entity_id)

    @Slot(str)
    def _on_results_entity_activated(self, entity_id: str) -> None:
        """Enter or double-click: open and move to the reader."""
        self.reader_pane.show_entity(entity_id)
        self.reader_pane.browser.setFocus()

    @Slot(str)
    def _on_reader_went_to(self, entity_id: str) -> None:
        """Back, Forward or a link followed: the list marks the item read now, or none when
        it is not listed (the row read before would say the wrong thing)."""
        if not self.results_view.select_entity(entity_id):
            self.results_view.clearSelection()

    @Slot(str)
    def _on_reader_entity_shown(self, entity_id: str) -> None:
        """Point the docked panes at what is being read; the title says what it is."""
        self.docks.follow(entity_id)
        self._item_title = self.reader_pane.title_label.text()
        self._show_title()
        self.entity_opened.emit(entity_id)

    def set_library_label(self, label: str) -> None:
        """Name the library in the title, when it is not the person's own ("Demo library")."""
        self._library_label = label
        self._show_title()

    def _show_title(self) -> None:
        """The title reads "Item — Library — Memex": the app's name last, as Qt would add
        it, so that it is not added twice."""
        parts = (self._item_title, self._library_label, "Memex")
        self.setWindowTitle(" — ".join(part for part in parts if part))

    # -- store changes and sync ------------------------------------------------------------

    @Slot(object)
    def _on_store_changed(self, changes: ChangeSet) -> None:
        """Refresh only what changed: rows, counts, the reader, the panes, the result ids."""
        self.results_model.on_store_changed(changes)
        self.reader_pane.on_store_changed(changes)
        self.highlights.on_store_changed(changes)
        self.docks.on_store_changed(changes)
        if changes:
            self.search.refresh_sidebar_later()
        if changes.entities_changed:
            self.search.run_current_search()

    @Slot(object)
    def _on_controller_sync_finished(self, report: SyncReport) -> None:
        """After a sync: the outbox states and the sidebar may have moved on.

        The sidebar says why views or feeds could not be read from sync_state values each
        pull writes, which are no store change: it is read again after every sync.
        """
        self.saves.refresh_outbox()
        self.search.refresh_sidebar_later()
        if report.error is not None:
            self._offer_fresh_cache(report.error)

    # -- a cache found damaged after the start ---------------------------------------------

    def _offer_fresh_cache(self, exc: BaseException) -> bool:
        """Whether starting with a fresh cache gets past ``exc``; the first time it does, the
        person is asked (fresh_cache_requested) once the event loop is back."""
        if fresh_cache_offer(exc, self.cache_path) is None:
            return False
        if not self._fresh_cache_asked:
            self._fresh_cache_asked = True
            self._fresh_cache_due = exc
            self._ask_fresh_cache.start()
        return True

    @Slot()
    def _on_ask_fresh_cache_timeout(self) -> None:
        """Ask about the damaged cache met (the app shows the question a start shows)."""
        exc, self._fresh_cache_due = self._fresh_cache_due, None
        if exc is not None and not self._closing:
            self.fresh_cache_requested.emit(exc)

    @Slot(object)
    def _on_search_search_failed(self, exc: Exception) -> None:
        """A search could not read the cache: the list says why; a damaged cache is offered
        a fresh start, as at start."""
        self._offer_fresh_cache(exc)

    @Slot(object)
    def _on_messages_fresh_cache_met(self, exc: BaseException) -> None:
        """A failure said (the sidebar's counts, the reader's item, any task's) met a damaged
        cache: offered a fresh start, as at start."""
        self._offer_fresh_cache(exc)

    @Slot(object)
    def _on_results_rows_unreadable(self, exc: Exception) -> None:
        """The list's rows could not be read. A damaged cache empties the list (its empty
        state says why, with "Start with a fresh cache…") rather than listing thousands of
        rows that cannot load, and is offered a fresh start; anything else is said."""
        if not self._offer_fresh_cache(exc):
            self.messages.show_failure(exc)
            return
        # Read by the empty state when the list resets: the same as a search that failed.
        self.search.read_problem = exc
        self.results_model.empty()

    @Slot(object)
    def _on_controller_outbox_changed(self, counts: OutboxCounts) -> None:
        """Keep the sidebar's outbox count current."""
        self.sidebar.set_outbox_count(counts.pending + counts.awaiting + counts.attention)

    @Slot(str)
    def _on_status_action_requested(self, action: str) -> None:
        """The status bar's fixing action: settings, retry, plans or the connection check."""
        if action == "settings":
            self._on_settings_action()
        elif action == "retry":
            self.controller.sync_now(resume_paused=True)
        elif action == "plans":
            self.reader_pane.open_external(PRICING_URL)
        elif action == "doctor":
            self.show_doctor()
        elif action == LIST_FEED:
            self.search.list_feed()
        elif action == FRESH_CACHE and self.search.read_problem is not None:
            self.fresh_cache_requested.emit(self.search.read_problem)

    @Slot()
    def _on_find_action(self) -> None:
        """Ctrl+F: find in the item while the reader is in use, else the library search."""
        focused = QApplication.focusWidget()
        in_reader = focused is not None and (
            focused is self.reader_pane or self.reader_pane.isAncestorOf(focused)
        )
        if in_reader and self.reader_pane.current_entity_id is not None:
            self.reader_pane.open_find()
        else:
            self.search_bar.focus_field()

    @Slot()
    def _on_sync_now_action(self) -> None:
        """Ctrl+R."""
        from memex_desktop.ui.deletions_controller import NO_ACCOUNT

        if not self.controller.sync_now(resume_paused=True):
            self.messages.warn(NO_ACCOUNT)

    @Slot()
    def _on_sync_full_action(self) -> None:
        """Ctrl+Shift+R."""
        from memex_desktop.ui.deletions_controller import NO_ACCOUNT

        if not self.controller.sync_now(full=True, resume_paused=True):
            self.messages.warn(NO_ACCOUNT)

    # An action with nothing to act on says so: a shortcut that does nothing at all reads as
    # a shortcut that is broken.

    @Slot()
    def _on_cancel_sync_action(self) -> None:
        """Ctrl+.: stop the running sync."""
        if self.controller.syncing:
            self.controller.cancel()
        else:
            self.messages.inform("No sync is running.")

    @Slot()
    def _on_undo_save_action(self) -> None:
        """Ctrl+Z: undo the saves queued last."""
        if self.saves.undo_last() is None:
            self.messages.inform("No save to undo.")

    @Slot()
    def _on_reply_note_action(self) -> None:
        """Reply to the note in focus, else the newest one shown."""
        if self.thread_pane.reply_to_current() is None:
            self.messages.inform("No note to reply to: open an item with notes first.")

    # -- panes and dialogs -----------------------------------------------------------------

    @Slot()
    def _on_settings_action(self) -> None:
        """Ctrl+,: the settings dialog (app.py decides what applying it means)."""
        if self._open_settings is not None:
            self._open_settings(self)

    @Slot()
    def show_shortcuts(self) -> None:
        """F1 / ?: every keyboard shortcut."""
        from memex_desktop.ui.dialogs import ShortcutsDialog  # see app.py: when asked for

        dialog = ShortcutsDialog(self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.open()

    @Slot()
    def show_doctor(self) -> DoctorDialog:
        """The connection check (non-modal: the window stays usable while it runs)."""
        if self._doctor is not None:
            self._doctor.raise_()
            self._doctor.activateWindow()
            return self._doctor
        # Imported when asked for: the check brings the HTTP client, which a start does not need
        # before its first frame.
        from memex_desktop.ui.doctor_dialog import DoctorDialog

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

    @Slot()
    def show_about(self) -> AboutDialog:
        """Help > About: version, data folder and cache statistics."""
        from memex_desktop.ui.about_dialog import AboutDialog

        dialog = AboutDialog(self.runner, self.cache_path, self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.open()
        return dialog

    @Slot()
    def open_demo(self) -> bool:
        """Help > Open the demo library: a second memex-desktop, on the demo (its own data
        folder and emulator, so this window's library is never touched)."""
        program, arguments = demo_command()
        started = start_detached(program, arguments)
        if started:
            self.messages.inform("Opening the demo library in a second window…")
        else:
            self.messages.warn(
                "The demo library could not be opened.", f"Run: {program} {' '.join(arguments)}"
            )
        return started

    def open_url_in_browser(self, url: str) -> None:
        """Open an http(s) address after confirmation (the reader's policy)."""
        self.reader_pane.open_external(QUrl(url).toString())


def cached_item(cache_path: Path, entity_id: str) -> str | None:
    """Worker: ``entity_id`` when the cache still has that item, else None."""
    from memex_desktop.ui.readers import thread_reader

    return entity_id if thread_reader(cache_path).get(entity_id) is not None else None


def demo_command() -> tuple[str, list[str]]:
    """The program and arguments that open memex-desktop on its demo library."""
    if getattr(sys, "frozen", False):  # a packaged app: its own executable
        return sys.executable, ["--demo"]
    return sys.executable, ["-m", "memex_desktop", "--demo"]


def start_detached(program: str, arguments: list[str]) -> bool:
    """Start a program that outlives this one; whether it started."""
    started, _pid = QProcess.startDetached(program, arguments)
    return bool(started)


def _share(total: int, share: float, bounds: tuple[int, int]) -> int:
    """``share`` of ``total`` pixels, kept within ``bounds``."""
    low, high = bounds
    return max(low, min(high, round(total * share)))
