"""What is active and why the list is empty: the search bar's chips and the list's empty state.

The sidebar entry that narrows the results shows as a chip in the search bar (removing it goes
back to All items). Whenever the list is empty, the words of
:func:`memex_desktop.empty_states.empty_state` for the query, the filters, the sidebar entry,
the cache and the connection are drawn in it; its Clear search and Clear all are done here,
the fixes that reach the account (sign in, sync) by the window.
"""

from __future__ import annotations

import logging
import sqlite3
from dataclasses import replace
from typing import Any

from PySide6.QtCore import QObject, Slot

from memex_desktop.empty_states import CLEAR_ALL, CLEAR_SEARCH, ListContext, empty_state
from memex_desktop.errors import ConnectionState, fresh_cache_offer, user_message
from memex_desktop.store import StoreError
from memex_desktop.store.search_language import SearchLanguageError, SearchQuery, parse_query
from memex_desktop.ui.messages import message_line
from memex_desktop.ui.results_model import ResultsModel
from memex_desktop.ui.results_view import ResultsView
from memex_desktop.ui.search_bar import SearchBar
from memex_desktop.ui.search_controller import SearchController
from memex_desktop.ui.sidebar import ALL_ITEMS, Scope, Sidebar
from memex_desktop.ui.sync_controller import SyncController

log = logging.getLogger(__name__)

# How a sidebar entry reads as a chip.
SCOPE_CHIP_PREFIX = {"type": "Library", "tag": "Tag", "view": "View", "feed": "Feed"}
# Sidebar entries that narrow the results like a filter menu (the others are lists).
FILTER_SCOPES = ("type", "tag")
OFFLINE_STATES = (ConnectionState.OFFLINE, ConnectionState.SERVER_DOWN)


def scope_chip_text(scope: Scope) -> str | None:
    """The chip of a sidebar entry (None for All items and the Outbox, which narrow nothing)."""
    if scope.kind in ("all", "outbox"):
        return None
    prefix = SCOPE_CHIP_PREFIX.get(scope.kind)
    return f"{prefix}: {scope.label}" if prefix else scope.label


class ResultsGuide(QObject):
    """Keeps the chips and the empty state true to what the list shows."""

    def __init__(
        self,
        *,
        reader: Any,
        sidebar: Sidebar,
        search_bar: SearchBar,
        results: ResultsModel,
        view: ResultsView,
        sync: SyncController,
        search: SearchController,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._reader = reader
        self._search = search
        self._sidebar = sidebar
        self._search_bar = search_bar
        self._results = results
        self._view = view
        self._sync = sync
        self._scope = sidebar.current_scope()
        sidebar.scope_selected.connect(self._on_sidebar_scope_selected)
        search_bar.scope_removed.connect(self._on_search_bar_scope_removed)
        view.empty_action_requested.connect(self._on_view_empty_action_requested)
        results.modelReset.connect(self.refresh)
        results.rowsInserted.connect(self._on_results_rows_inserted)
        results.rowsRemoved.connect(self.refresh)
        sync.sync_started.connect(self.refresh)
        sync.sync_finished.connect(self.refresh)
        sync.state_changed.connect(self.refresh)
        search.search_failed.connect(self.refresh)
        # A search that lands the same list (a feed listed again, empty as before) resets
        # nothing, and what the list is known to be may have changed all the same.
        search.search_applied.connect(self.refresh)
        search_bar.set_scope_chip(scope_chip_text(self._scope))
        self.refresh()

    def list_context(self) -> ListContext:
        """What the list shows, for the empty state's words."""
        filters = list(self._search_bar.filter_labels())
        scope = self._scope
        chip = scope_chip_text(scope)
        if scope.kind in FILTER_SCOPES and chip:
            filters.insert(0, chip)
        problem = self._search.read_problem
        offer = fresh_cache_offer(problem, self._reader.path) if problem is not None else None
        unreadable = ""
        if problem is not None:
            message = user_message(problem)
            # With the fresh start on offer, its words replace the fix done by hand.
            unreadable = f"{message.text} {offer.words}" if offer else message_line(message)
        problem_words, unknown_tags, narrows = self._query_problems(self._results.query)
        return ListContext(
            query_problem=problem_words,
            unknown_tags=unknown_tags,
            query_narrows=narrows,
            unreadable=unreadable,
            fresh_start=offer is not None,
            query=self._results.query,
            filters=tuple(filters),
            scope=scope.kind,
            scope_label=scope.label,
            library_empty=self._library_empty(),
            signed_in=self._sync.services.client is not None,
            offline=self._sync.state in OFFLINE_STATES,
            syncing=self._sync.syncing,
            feed_listed=self._feed_listed(scope),
        )

    def _query_problems(self, query: str) -> tuple[str, tuple[str, ...], bool]:
        """Why ``query`` means nothing (in words), its tag names no cached tag has, and
        whether it narrows beyond its words (see ListContext.query_narrows)."""
        if not query:
            return "", (), False
        try:
            parsed = parse_query(query)
        except SearchLanguageError as exc:
            return user_message(exc).text, (), False
        narrows = replace(parsed, text="", groups=(), free_text="") != SearchQuery() or any(
            len(group) > 1 or any(term.phrase for term in group) for group in parsed.groups
        )
        names = dict.fromkeys(name for group in parsed.tags for name in group)
        try:
            unknown = tuple(name for name in names if not self._reader.tag_ids_named(name))
        except (StoreError, sqlite3.Error):  # the search that meets the problem reports it
            log.exception("reading the tags of a query failed")
            unknown = ()
        return "", unknown, narrows

    def _feed_listed(self, scope: Scope) -> bool:
        """Whether the server ever listed the feed on show (True for other entries)."""
        if scope.kind != "feed" or not scope.value:
            return True
        try:
            return self._reader.feed_listing(scope.value) is not None
        except (StoreError, sqlite3.Error):  # the search that meets the problem reports it
            log.exception("reading whether a feed was listed failed")
            return True

    def _library_empty(self) -> bool:
        """Whether the cache holds no item at all (one bounded read)."""
        try:
            return not self._reader.all_ids(limit=1)
        except (StoreError, sqlite3.Error):  # the search that meets the problem reports it
            log.exception("reading whether the cache is empty failed")
            return False

    @Slot()
    def refresh(self) -> None:
        """Draw why the list is empty (or nothing, when it has rows); nothing after shutdown,
        when the window's reader is closed and late signals still arrive."""
        if self._sync.closed:
            return
        if self._results.rowCount():
            self._view.set_empty_state(None)
        else:
            self._view.set_empty_state(empty_state(self.list_context()))

    @Slot()
    def _on_results_rows_inserted(self) -> None:
        """Rows arrived: the list is not empty any more."""
        self._view.set_empty_state(None)

    @Slot(object)
    def _on_sidebar_scope_selected(self, scope: Scope) -> None:
        """A new sidebar entry: its chip (the outbox is a pane, the list stays as it was)."""
        if scope.kind == "outbox":
            return
        self._scope = scope
        self._search_bar.set_scope_chip(scope_chip_text(scope))

    @Slot()
    def _on_search_bar_scope_removed(self) -> None:
        """The sidebar entry's chip was removed: back to All items (its search follows)."""
        self._sidebar.select_scope(ALL_ITEMS)

    @Slot(str)
    def _on_view_empty_action_requested(self, action: str) -> None:
        """Clear search and Clear all of an empty list (the window does the other fixes)."""
        if action == CLEAR_SEARCH:
            self._search_bar.clear_query()
        elif action == CLEAR_ALL:
            self._search_bar.clear_all()
