"""Searching: the local results of a query within a sidebar scope, with the server's merged in.

Every search gets a sequence number; results of an older one are dropped when they arrive, and
its worker is cancelled. The first page of a filter-scoped search is read on the GUI thread,
bounded in ids and in time (no thread hop between a keystroke and its results); the full list
follows from a worker and is applied as row inserts. Remote searches, saved views and feeds
also run on the server: their results are cached first, then merged in with their provenance.
The sidebar's counts and the filters' choices are read here too: they are what a search is
narrowed by.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal, Slot

from memex_desktop.errors import UserMessage, search_cut, user_message
from memex_desktop.store import CacheReader, ChangeSet, StoreError, TagRow
from memex_desktop.store.search_language import (
    SERVER_CONTENT_TYPES,
    SearchLanguageError,
    Sort,
    parse_query,
    remote_request,
)
from memex_desktop.sync import FeedItems
from memex_desktop.ui.deletions_controller import NO_ACCOUNT
from memex_desktop.ui.readers import thread_reader
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
from memex_desktop.ui.sort_control import SortControl
from memex_desktop.ui.sync_controller import SyncController
from memex_desktop.ui.tasks import Task, TaskRunner

log = logging.getLogger(__name__)

SEARCH_LIMIT = 100_000
FIRST_PAGE = 300  # results shown at once while the full list is read
# The first page is read on the GUI thread (no thread hop between a keystroke and its results);
# a read that takes longer than this is stopped and left to a worker.
FIRST_PAGE_BUDGET_S = 0.03
# The full list is read a frame after its first page is shown: a worker that starts at once
# holds the interpreter lock against every Python call of the first page's paint (keystroke
# to painted results at 20,000 items, the bench's back-to-back typing, median of 3 runs:
# p50 5.3 -> 3.8-4.3 ms, p95 7.8 -> 6.0-7.1 ms).
FULL_LIST_DELAY_MS = 16
FILTER_TAGS = 500  # tags offered in the filter menu
SCOPE_LIMIT = 20_000
# While a sync brings items the list and the sidebar follow the cache at most this often: the
# sync announces its changes only when it ends (a first sync can take an hour), and each
# refresh reads the whole list again on a worker (100,000 ids at a million items).
SYNC_REFRESH_MS = 1_000
# ...and no sooner than this many times the processor time the last refresh took (its read on
# a worker and its update on this thread): the list's own reading shares the processor and
# the interpreter lock with the sync it follows, and at 100,000 items it takes a few hundred
# milliseconds. Processor time, not wall time: a read that waited for the interpreter lock
# while the sync worked cost the sync nothing, and paced by wall time a best-match list
# followed a 20,000-item sync every 1 to 6 s instead of every second.
SYNC_REFRESH_COST_TIMES = 10
# Said instead of asking the server for a search whose sidebar type and type filter exclude
# each other.
NOTHING_TO_ASK = "The Memex server was not asked: no item is of both types chosen."
DAY_MS = 24 * 3600 * 1000
# What a failed read of the sidebar's counts is said as (before why, and what gets past it).
SIDEBAR_UNREADABLE = "The sidebar's counts could not be read"


@dataclass(frozen=True)
class LocalSearchResult:
    """The ids of one local search, tagged with its request number."""

    sequence: int
    request: SearchRequest
    ids: list[str]
    complete: bool = True  # False: only the first page; the full list follows
    stopped_at: int | None = None  # the list stops at this many though more match
    positions: dict[str, int] | None = None  # row of each id, built on the worker
    sort: Sort = "relevance"
    read_cpu_s: float = 0.0  # processor time the worker's read took


def scope_lists_ids(scope: Scope) -> bool:
    """Whether a scope shows a list of its own (views, feeds, deleted) rather than filters."""
    return scope.kind == "deleted" or (scope.kind in ("view", "feed") and bool(scope.value))


def scope_ids(reader: CacheReader, scope: Scope) -> list[str] | None:
    """The ids a list-like scope shows (views, feeds, deleted), or None for filter scopes."""
    if not scope_lists_ids(scope):
        return None
    # One more than the list shows: whether it stops short of the scope is then known.
    read = SCOPE_LIMIT + 1
    if scope.kind == "deleted":
        return [row.id for row in reader.deleted_upstream(limit=read)]
    if scope.kind == "view":
        return list(reader.ids_for_view(scope.value or "", limit=read))
    return reader.ids_for_feed(scope.value or "", limit=read)


def same_filters(shown: SearchFilters | None, asked: SearchFilters) -> bool:
    """Whether ``asked`` are the filters of the list on show (``shown``).

    A date filter's bound is worked out from the clock at each request: bounds less than a
    day apart are the same choice (the choices are days apart), and the list of the same
    search read again (a sync's pages, its end) is updated in place, not replaced.
    """
    if shown is None:
        return False
    if (
        shown.date_from_ms is not None
        and asked.date_from_ms is not None
        and abs(shown.date_from_ms - asked.date_from_ms) < DAY_MS
    ):
        shown = replace(shown, date_from_ms=asked.date_from_ms)
    return shown == asked


def scoped_search(request: SearchRequest, scope: Scope) -> dict[str, Any] | None:
    """The store's search arguments for the request's filters narrowed by a type or tag
    scope of the sidebar; None when they leave nothing to find.

    A sidebar tag is a group of its own beside the tag filter's tag: an item must carry
    both, and either chip, removed, leaves the other narrowing the list. A sidebar type and
    the type filter narrow together too: an item of the sidebar's type, when the filter
    allows it, and none at all when it does not (an item has one type).
    """
    filters = request.filters
    if scope.kind == "type" and scope.value:
        if filters.types and scope.value not in filters.types:
            return None
        filters = replace(filters, types=(scope.value,))
    arguments = filters.as_kwargs()
    if scope.kind == "tag" and scope.value:
        arguments["tag_groups"] = ((scope.value,),)
    return arguments


def local_search(
    cache_path: Path,
    sequence: int,
    request: SearchRequest,
    scope: Scope,
    limit: int = SEARCH_LIMIT,
    sort: Sort = "relevance",
    *,
    cancel: threading.Event | None = None,
) -> LocalSearchResult:
    """Worker: the ids for a query within a sidebar scope (on this thread's own reader).

    With a small ``limit`` the search returns the first page only (marked incomplete when more
    may match): ranking a two-letter prefix over 100,000 items takes far longer than a page.
    A set ``cancel`` (a newer search started) stops the reads with QueryInterrupted.
    """
    started = time.thread_time()
    reader = thread_reader(cache_path)
    if cancel is None:
        result = _local_search(reader, sequence, request, scope, limit, sort)
    else:
        with reader.interrupted_when(cancel.is_set):
            result = _local_search(reader, sequence, request, scope, limit, sort)
    positions = row_positions(result.ids)
    return replace(result, positions=positions, sort=sort, read_cpu_s=time.thread_time() - started)


def _local_search(
    reader: CacheReader,
    sequence: int,
    request: SearchRequest,
    scope: Scope,
    limit: int,
    sort: Sort = "relevance",
) -> LocalSearchResult:
    """The ids of :func:`local_search`, read with ``reader``."""
    arguments = scoped_search(request, scope)
    if arguments is None:
        return LocalSearchResult(sequence, request, [], sort=sort)
    listed = scope_ids(reader, scope)
    if listed is None:
        # One more than asked for: a library of exactly the limit is not "limit+".
        ids = reader.search_ids(request.query, limit=limit + 1, sort=sort, **arguments)
        more = len(ids) > limit
        ids = ids[:limit]
        complete = not more or limit >= SEARCH_LIMIT
        stopped = limit if limit >= SEARCH_LIMIT and more else None
        return LocalSearchResult(sequence, request, ids, complete, stopped_at=stopped)
    stopped = SCOPE_LIMIT if len(listed) > SCOPE_LIMIT else None
    listed = narrowed(reader, listed[:SCOPE_LIMIT], request, arguments)
    return LocalSearchResult(sequence, request, by_date(reader, listed, sort), stopped_at=stopped)


def narrowed(
    reader: CacheReader, listed: list[str], request: SearchRequest, arguments: dict[str, Any]
) -> list[str]:
    """Those of a list of its own (a view, a feed, the server's results of a view) that the
    search's words and the filter menus keep (``arguments``: :func:`scoped_search`'s).

    The search is read among the list's items alone (CacheReader.search_among): searching
    the whole library for a phrase and keeping the list's took 2.7 to 2.8 s at 100,000
    items, whatever the list's size (18 ms now for a list of 300).
    """
    if request.query:
        listed = reader.search_among(request.query, listed)
    return reader.filtered_ids(listed, **{**arguments, "include_deleted": True})


@dataclass(frozen=True)
class ViewAnswer:
    """A saved view's results from the server, and those of them a search keeps."""

    result: ViewResults
    # The search (and filters) ``kept`` is narrowed by; None: none yet (the query on show
    # when the view was asked meant nothing).
    request: SearchRequest | None
    kept: list[str]
    sort: Sort = "relevance"  # the order of ``kept``


def view_results_narrowed(
    cache_path: Path,
    result: ViewResults,
    request: SearchRequest,
    scope: Scope,
    sort: Sort = "relevance",
) -> ViewAnswer:
    """Worker: those of a view's results from the server the search and the filter menus of
    ``request`` keep (the server runs the view alone), in the order asked for (relevance
    keeps the server's)."""
    arguments = scoped_search(request, scope)
    if arguments is None:
        return ViewAnswer(result, request, [], sort)
    reader = thread_reader(cache_path)
    kept = narrowed(reader, result.ids, request, arguments)
    return ViewAnswer(result, request, by_date(reader, kept, sort), sort)


def view_search_narrowed(
    client: Any,
    writer: Any,
    cache_path: Path,
    view_id: str,
    request: SearchRequest,
    scope: Scope,
    sort: Sort = "relevance",
) -> ViewAnswer:
    """Worker: a saved view run on the server (its results cached), and those of its results
    the search and the filter menus on show keep."""
    result = run_view_search(client, writer, view_id)
    try:
        return view_results_narrowed(cache_path, result, request, scope, sort)
    except SearchLanguageError:  # said already; narrowed by the next search that means something
        return ViewAnswer(result, None, [], sort)


def remote_scope(scope: Scope, options: dict[str, Any]) -> dict[str, Any]:
    """The ``/search`` options of a remote search (:func:`remote_request`'s) narrowed to the
    sidebar entry on show where the server knows it: a saved view (``viewIds``), a feed
    (``feedIds``), a type or a tag. The answer is narrowed to the entry here all the same
    (:func:`remote_results_kept`): a server may not apply what it is sent."""
    narrowed = dict(options)
    if not scope.value:
        return narrowed
    if scope.kind == "view":
        narrowed["view_ids"] = [scope.value]
    elif scope.kind == "feed":
        narrowed["feed_ids"] = [scope.value]
    elif scope.kind == "type" and scope.value in SERVER_CONTENT_TYPES:
        types = narrowed.get("content_types")
        if not types or scope.value in types:
            narrowed["content_types"] = [scope.value]
    elif scope.kind == "tag" and "tag_match_strategy" not in narrowed:
        # Tags sent together must all be carried, as the sidebar's and the query's must.
        narrowed["tag_ids"] = [*narrowed.get("tag_ids", []), scope.value]
    return narrowed


@dataclass(frozen=True)
class RemoteResults:
    """A remote search's results from the server, those of them its search keeps."""

    request: int  # the number SyncController.remote_search gave the request
    ids: list[str]  # those the search, the filters and the sidebar entry keep
    total: int = 0  # how many the server answered
    scope: Scope | None = None  # the sidebar entry they were narrowed to


def remote_results_kept(
    cache_path: Path,
    request: int,
    search: SearchRequest,
    scope: Scope,
    ids: list[str],
    scope_extra: tuple[str, ...] = (),
) -> RemoteResults:
    """Worker: those of a remote search's results that keep to what the server cannot apply
    of the query (CacheReader.matching_ids: phrases and exclusions read in the items' texts,
    a few hundred milliseconds for some), to the filter menus and to the sidebar entry on
    show: the items a view, a feed or a shelf lists (``scope_extra``: more of its items, the
    server's answer for the view), a type or a tag.

    A server that searched the whole library listed items of other views as results of
    this one, and called items the cache holds "not in the local results".
    """
    reader = thread_reader(cache_path)
    unique = list(dict.fromkeys(ids))
    arguments = scoped_search(search, scope)
    if arguments is None:
        return RemoteResults(request, [], len(unique), scope)
    kept = reader.matching_ids(search.query, unique)
    listed = scope_ids(reader, scope)
    if listed is not None:
        members = {*listed, *scope_extra}
        kept = [entity_id for entity_id in kept if entity_id in members]
        arguments = {**arguments, "include_deleted": True}  # the list chose them
    return RemoteResults(request, reader.filtered_ids(kept, **arguments), len(unique), scope)


def remote_summary(total: int, kept: int, added: int, brought: int, within: str) -> str:
    """The words saying what a remote search's answer added to the list: how many the
    server found, how many of them ``within`` keeps, how many were listed already, how
    many were added, and how many of those the cache did not hold before (``brought``)."""
    said = f"{total} result{'' if total == 1 else 's'} from the server"
    if kept < total:
        said += f", {kept or 'none'} within {within}"
    if not kept:
        return said
    parts = []
    if listed := kept - added:
        parts.append(f"{listed} already in the local results")
    if added:
        if brought == added:
            origin = "new to the cache" if added == 1 else "all new to the cache"
        elif brought:
            origin = f"{brought} of them new to the cache"
        else:
            origin = "from the cache"
        parts.append(f"{added} added to the list, {origin}")
    return f"{said} ({'; '.join(parts)})"


def scope_words(scope: Scope, filters: SearchFilters) -> str:
    """What narrows a list in a sidebar entry, in words ("this view", "the filters")."""
    if scope_lists_ids(scope):
        return {"view": "this view", "feed": "this feed"}.get(scope.kind, "this shelf")
    if (scope.kind in ("type", "tag") and scope.value) or filters != SearchFilters():
        return "the filters"
    return "the search"


def by_date(reader: CacheReader, ids: list[str], sort: Sort) -> list[str]:
    """A list scope's ids in the order asked for (relevance keeps the scope's own order)."""
    if sort == "relevance":
        return ids
    created = {row.id: row.created_at or 0 for row in reader.get_many(ids).values()}
    return sorted(ids, key=lambda i: created.get(i, 0), reverse=sort == "newest")


def sidebar_snapshot(cache_path: Path) -> SidebarSnapshot:
    """Worker: the sidebar's counts and entries (also the filters' choices) from the cache."""
    return read_sidebar_snapshot(thread_reader(cache_path))


class SearchController(QObject):
    """Runs the searches the search bar and the sidebar ask for and fills the results model.

    Signals:
        search_applied(int): local results for a search are on screen (row count).
        store_changed(object): caching the server's results of a saved view changed the
            store (a ChangeSet for the panes).
        search_failed(object): the latest local search could not read the cache (the store
            error); the list keeps what it showed, and :attr:`read_problem` says why.
        message_outdated(object): a UserMessage shown that is no longer true (the window
            takes it away): about a saved view or feed no longer shown, or about a query
            problem no longer typed.
    """

    search_applied = Signal(int)
    store_changed = Signal(object)
    search_failed = Signal(object)
    message_outdated = Signal(object)

    def __init__(
        self,
        *,
        reader: CacheReader,
        runner: TaskRunner,
        sync: SyncController,
        cache_path: Path,
        sidebar: Sidebar,
        search_bar: SearchBar,
        results: ResultsModel,
        sort_control: SortControl | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._reader = reader
        self._runner = runner
        self._messages = runner.messages
        self._sync = sync
        self._cache_path = cache_path
        self._sidebar = sidebar
        self._search_bar = search_bar
        self._results = results
        self._sort_control = sort_control
        self._sequence = 0
        # What the results model shows: the search it came from and whether it is complete.
        self._applied_sequence = 0
        self._applied_complete = True
        self._applied_filters: SearchFilters | None = None
        self._applied_scope: Scope | None = None
        self._applied_sort: Sort = "relevance"
        # Whether more match than the list shows: its full list follows, or the list stops
        # at this many.
        self._applied_more = False
        self._applied_stopped_at: int | None = None
        self._local_tasks: list[Task[LocalSearchResult]] = []
        self._remote_request = 0
        # The search and the sidebar entry of the latest remote request: its answer is
        # narrowed to them, and dropped once another entry is shown.
        self._remote_search = SearchRequest()
        self._remote_scope: Scope | None = None
        # Keeping the server's results of the latest remote request to its query.
        self._remote_keeping: Task[RemoteResults] | None = None
        # Of the latest answer's results, those its caching wrote (None: any may be): the
        # others the cache held already.
        self._remote_brought: frozenset[str] | None = frozenset()
        # The words shown as a notice about a query that means nothing, taken away once it is
        # fixed; and those the empty list on show says (ResultsGuide draws them), which need
        # no notice.
        self._query_problem: UserMessage | None = None
        self._problem_listed: str | None = None
        # The saved views asked of the server, by task, and the messages shown about the
        # sidebar entry on show: an answer or a message about an entry left is dropped.
        self._view_tasks: dict[Task[ViewAnswer], str] = {}
        # The server's answer for the view on show, kept while the view is: each new search,
        # filter or order narrows its results again on a worker (the server is not asked
        # again), and they are merged into each new list. The task narrowing them, and the
        # list (``_lists_shown``) they were last merged into.
        self._view_answer: ViewAnswer | None = None
        self._view_narrowing: Task[ViewAnswer] | None = None
        # The server's results that narrowing is of (a newer view's answer may wait meanwhile).
        self._view_narrowing_of: ViewResults | None = None
        self._view_merged_into = 0
        # Counts the lists the model was given (a new search, filter, order or entry): the
        # server's results of a view are merged into each once; a list read again for the
        # same search (a store change) keeps them.
        self._lists_shown = 0
        self._scope_shown: Scope | None = None
        self._scope_messages: list[UserMessage] = []
        self._snapshot_task: Task[SidebarSnapshot] | None = None
        self._snapshot_stale = False
        # Whether a failed read of the sidebar was said (again only after one that worked).
        self._snapshot_problem_told = False
        self.sync_refresh_ms = SYNC_REFRESH_MS
        self._sync_refresh = QTimer(self)
        self._sync_refresh.setSingleShot(True)
        self._sync_refresh.timeout.connect(self._on_sync_refresh_timeout)
        # The search that re-reads the list for a running sync (0: none): its list replaces
        # the one shown only by row inserts and removals, never by a reset.
        self._sync_refresh_sequence = 0
        # The processor time the last such re-read took (seconds; its read and its update).
        self._sync_refresh_cost_s = 0.0
        # Why the latest local search could not read the cache; None once one could.
        self.read_problem: Exception | None = None
        search_bar.search_changed.connect(self._on_search_bar_search_changed)
        search_bar.remote_requested.connect(self._on_search_bar_remote_requested)
        search_bar.query_cut.connect(self._on_search_bar_query_cut)
        sidebar.scope_selected.connect(self._on_sidebar_scope_selected)
        sidebar.scope_reselected.connect(self._on_sidebar_scope_reselected)
        sync.remote_results.connect(self._on_sync_remote_results)
        sync.remote_failed.connect(self._on_sync_remote_failed)
        sync.feed_listed.connect(self._on_sync_feed_listed)
        sync.feed_listing_failed.connect(self._on_sync_feed_listing_failed)
        sync.sync_progress.connect(self._on_sync_progress)
        if sort_control is not None:
            sort_control.sort_changed.connect(self._on_sort_control_sort_changed)
            for rows_changed in (results.modelReset, results.rowsInserted, results.rowsRemoved):
                rows_changed.connect(self._show_count)

    @property
    def shown_any(self) -> bool:
        """Whether the results of a search are on screen yet (none found counts)."""
        return self._applied_sequence > 0

    @property
    def awaiting_results(self) -> bool:
        """Whether the latest search's results are not on screen yet (the list shows an
        earlier search's)."""
        return self._applied_sequence != self._sequence

    @property
    def local_tasks(self) -> list[Task[LocalSearchResult]]:
        """The local searches on workers that were running at the latest search."""
        return list(self._local_tasks)

    # -- local search ------------------------------------------------------------------------

    def run_search(self, request: SearchRequest) -> int:
        """Start a local search in the current scope; returns its sequence number.

        Searches still running for earlier requests are cancelled: their results would be
        dropped anyway, and on a small machine they take CPU from the new one.
        """
        self._sequence += 1
        for task in self._local_tasks:
            task.cancel()
        self._local_tasks = [task for task in self._local_tasks if not task.is_done()]
        try:
            parsed = parse_query(request.query)
        except SearchLanguageError as exc:
            self._show_query_problem(request, exc)
            return self._sequence
        self._withdraw_query_problem()
        # A phrase is checked on each candidate's text: at 100,000 items its first page takes
        # 16-140 ms, so on this thread it mostly ran out its budget, 30 ms of a frozen window
        # for each keystroke, before a worker read it again.
        if parsed.has_phrases or not self._first_page_here(request):
            self._submit_local_search(request, FIRST_PAGE)
        if request.remote and request.query:
            self.ask_remote(request)
        return self._sequence

    def sort(self) -> Sort:
        """The order the results are asked in."""
        return self._sort_control.sort() if self._sort_control is not None else "relevance"

    def _show_query_problem(self, request: SearchRequest, exc: SearchLanguageError) -> None:
        """A query that means nothing: no results, and the words that say what to type (the
        empty list says them: empty_state puts a query's problem first)."""
        self._applied_sequence = self._sequence
        self._applied_complete = True
        self._applied_more, self._applied_stopped_at = False, None
        self._lists_shown += 1
        self._results.set_results([], query=request.query, filters=request.filters)
        self._problem_listed = user_message(exc).text
        self._applied_filters = request.filters
        self._applied_scope = self._sidebar.current_scope()
        self._say_query_problem(exc)
        self.search_applied.emit(0)

    def _say_query_problem(self, exc: SearchLanguageError) -> None:
        """Say what a query means nothing by, once: the one place that decides where.

        The empty list of that query says it; a notice (taken away once the query is fixed)
        only when the list on show is another's. It was said three times at once: in the
        list, a toast and the status bar.
        """
        message = user_message(exc)
        if message.text == self._problem_listed:
            self._withdraw_query_problem()
            return
        self._query_problem = message
        self._messages.show(message)

    @Slot(int)
    def _on_search_bar_query_cut(self, kept: int) -> None:
        """The field cut what was pasted to its length: say so (it searches what it kept)."""
        self._messages.show(search_cut(kept))

    def _withdraw_query_problem(self) -> None:
        """The query typed now means something: the words about its problem are not true of
        it any more (they stayed up over the fixed query's results)."""
        message, self._query_problem = self._query_problem, None
        if message is not None:
            self.message_outdated.emit(message)

    @Slot(str)
    def _on_sort_control_sort_changed(self, _sort: str) -> None:
        """Another order: the same search again (the server is not asked again)."""
        self.run_current_search()

    def run_current_search(self) -> int:
        """Search again for what the search bar shows, without asking the server (the store
        changed)."""
        return self.run_search(replace(self._search_bar.request(), remote=False))

    def _first_page_here(self, request: SearchRequest) -> bool:
        """Show the first page of a filter-scoped search read on this thread; False if not done.

        The read is bounded (FIRST_PAGE ids) and timed: past FIRST_PAGE_BUDGET_S it is stopped
        and the caller hands the search to a worker, as for list scopes and store failures.
        """
        scope = self._sidebar.current_scope()
        if scope_lists_ids(scope) or self._runner.closed:
            return False
        arguments = scoped_search(request, scope)
        if arguments is None:  # filters that leave nothing: no read needed
            self._on_local_search_finished(
                LocalSearchResult(self._sequence, request, [], sort=self.sort())
            )
            return True
        deadline = time.perf_counter() + FIRST_PAGE_BUDGET_S
        try:
            with self._reader.interrupted_when(lambda: time.perf_counter() > deadline):
                ids = self._reader.search_ids(
                    request.query, limit=FIRST_PAGE, sort=self.sort(), **arguments
                )
        except (StoreError, sqlite3.Error) as exc:  # over budget, or a failure a worker reports
            log.debug("first page left to a worker: %s", exc)
            return False
        self._on_local_search_finished(
            LocalSearchResult(self._sequence, request, ids, len(ids) < FIRST_PAGE, sort=self.sort())
        )
        return True

    def _submit_local_search(self, request: SearchRequest, limit: int) -> None:
        """Search the cache on a worker for the current sequence number (a failure is shown
        by the message bridge; a superseded search is cancelled and says nothing)."""
        scope = self._sidebar.current_scope()
        task = (
            self._runner.run(
                local_search,
                self._cache_path,
                self._sequence,
                request,
                scope,
                limit,
                self.sort(),
                cancel=True,
            )
            .on_success(self._on_local_search_finished)
            .on_failure(self._on_local_search_failed)
        )
        self._local_tasks.append(task)

    @Slot(object)
    def _on_local_search_failed(self, exc: Exception) -> None:
        """Say why the cache could not be read (the next search that reads it clears that)."""
        self._messages.show_failure(exc)
        self.read_problem = exc
        self.search_failed.emit(exc)

    @Slot(object)
    def _on_local_search_finished(self, result: LocalSearchResult) -> None:
        """Show local results unless a newer search was started since.

        The first page of a search shows at once; its full list follows and is applied as row
        inserts (a full list that arrives first makes the late first page moot).
        """
        if result.sequence != self._sequence or result.sequence < self._applied_sequence:
            return
        if result.sequence == self._applied_sequence and (
            self._applied_complete or not result.complete
        ):
            return
        applying = time.thread_time()
        self._problem_listed = None
        self._applied_sequence = result.sequence
        self._applied_complete = result.complete
        self.read_problem = None
        scope = self._sidebar.current_scope()
        same = (
            result.request.query == self._results.query
            and same_filters(self._applied_filters, result.request.filters)
            and self._applied_scope == scope
            and self._applied_sort == result.sort
        )
        if same and not result.complete:
            pass  # the same search again (the store changed): its full list follows as row moves
        elif same:
            # The same search read again (a sync's pages, its end, a store change): its items
            # come in as row inserts and moves, the person's row and selection kept (a reset
            # took them back to the top of the list).
            self._results.update_ids(result.ids, result.positions)
        else:
            self._lists_shown += 1
            self._results.set_results(
                result.ids,
                query=result.request.query,
                filters=result.request.filters,
                positions=result.positions,
            )
        if result.sequence == self._sync_refresh_sequence:
            applied_cpu_s = time.thread_time() - applying
            self._sync_refresh_cost_s = result.read_cpu_s + applied_cpu_s
        self._applied_filters = result.request.filters
        self._applied_scope = scope
        self._applied_sort = result.sort
        if not (same and not result.complete):
            # The first page of the same search read again leaves the full list on screen,
            # and its count stands until the new full list replaces both.
            self._applied_more = not result.complete
            self._applied_stopped_at = result.stopped_at
        self._show_count()
        self.search_applied.emit(self._results.rowCount())
        if not result.complete:
            QTimer.singleShot(FULL_LIST_DELAY_MS, self, lambda: self._submit_full_list(result))
        self._merge_view_answer()

    @Slot()
    def _show_count(self) -> None:
        """Say above the list how many results it holds (and whether more match)."""
        if self._sort_control is not None:
            self._sort_control.show_count(
                self._results.rowCount(),
                more=self._applied_more,
                stopped_at=self._applied_stopped_at,
            )

    def _submit_full_list(self, first_page: LocalSearchResult) -> None:
        """Read the full list of a search whose first page is on screen, unless a newer
        search started since."""
        if first_page.sequence == self._sequence and not self._runner.closed:
            self._submit_local_search(first_page.request, SEARCH_LIMIT)

    @Slot(object)
    def _on_sync_progress(self, _progress: object) -> None:
        """A sync page came in: the list and the counts follow it, at most once a second."""
        if not self._sync_refresh.isActive():
            cost_ms = round(self._sync_refresh_cost_s * 1000 * SYNC_REFRESH_COST_TIMES)
            self._sync_refresh.start(max(self.sync_refresh_ms, cost_ms))

    @Slot()
    def _on_sync_refresh_timeout(self) -> None:
        """Read the counts and the list on show again on workers, unless a search is still
        being read (it shows the cache as new; the sync's next page asks again)."""
        if self._runner.closed:
            return
        self.refresh_sidebar_later()
        request = replace(self._search_bar.request(), remote=False)
        typed_since = request.query != self._results.query or not same_filters(
            self._applied_filters, request.filters
        )
        if typed_since or self.awaiting_results or not self._applied_complete:
            return
        self.reread_list()

    def reread_list(self) -> int:
        """Read the list on show again on a worker, applied as row inserts and removals (the
        selection and the scroll position stay); returns its sequence number."""
        self._sequence += 1
        self._local_tasks = [task for task in self._local_tasks if not task.is_done()]
        self._sync_refresh_sequence = self._sequence
        self._submit_local_search(replace(self._search_bar.request(), remote=False), SEARCH_LIMIT)
        return self._sequence

    @Slot(object)
    def _on_search_bar_search_changed(self, request: SearchRequest) -> None:
        """Typing settled or a filter changed."""
        self.run_search(request)

    # -- the server's results ------------------------------------------------------------------

    def ask_remote(self, request: SearchRequest) -> None:
        """Ask the server for what it can apply of the query, within the sidebar entry on
        show; the rest is applied to its results here (see :func:`remote_results_kept`),
        which merge in when they arrive."""
        try:
            parsed = parse_query(request.query)
        except SearchLanguageError as exc:
            self._say_query_problem(exc)
            return
        self._withdraw_query_problem()
        text, filters = remote_request(parsed, sort=self.sort(), tag_ids=self._reader.tag_ids_named)
        if request.filters.types:
            filters["content_types"] = list(request.filters.types)
        if request.filters.tag_id:
            filters["tag_ids"] = [*filters.get("tag_ids", []), request.filters.tag_id]
        scope = self._sidebar.current_scope()
        if scoped_search(request, scope) is None:
            # A sidebar type the type filter leaves out: no item is both, so no answer could
            # be kept (the list says why it is empty); an earlier answer is not wanted now.
            self._remote_request = 0
            self._messages.inform(NOTHING_TO_ASK)
            return
        filters = remote_scope(scope, filters)
        self._remote_search = replace(request, remote=False)
        self._remote_scope = scope
        self._remote_request = self._sync.remote_search(text, filters)
        if self._remote_request:
            self._messages.inform("Asking the Memex server…")
        elif self._sync.services.client is None:
            self._messages.warn(NO_ACCOUNT)

    @Slot()
    def search_remote(self) -> None:
        """Search the cache and the server for what the search bar shows (its keyboard action)."""
        request = self._search_bar.request()
        if request.query:
            self.run_search(request)
            self.ask_remote(request)

    @Slot(object)
    def _on_search_bar_remote_requested(self, request: SearchRequest) -> None:
        """Enter or the cloud toggle: add the server's results."""
        if request.query:
            self.ask_remote(request)

    @Slot(int, object, object)
    def _on_sync_remote_results(
        self, request: int, ids: list[str], changes: ChangeSet | None
    ) -> None:
        """The server answered the latest remote request (``changes``: what caching its
        answer wrote): keep its results to the search and the sidebar entry on a worker, then
        merge them."""
        if request != self._remote_request or self._runner.closed:
            return
        if changes is None:
            self._remote_brought = frozenset()
        else:
            every = changes.every_entity
            self._remote_brought = None if every else frozenset(changes.entity_ids)
        scope = self._remote_scope or self._sidebar.current_scope()
        view = self._view_answer
        also = (
            tuple(view.result.ids)
            if view is not None and scope.kind == "view" and view.result.view_id == scope.value
            else ()
        )
        self._remote_keeping = (
            self._runner.run(
                remote_results_kept,
                self._cache_path,
                request,
                self._remote_search,
                scope,
                ids,
                also,
            )
            .on_success(self._on_remote_results_kept)
            .on_failure(self._on_remote_results_failed)
        )

    @Slot(object)
    def _on_remote_results_kept(self, kept: RemoteResults) -> None:
        """Merge the server's results of the latest remote request that keep to its search
        and sidebar entry, unless another entry is shown since."""
        if kept.request != self._remote_request:
            return
        scope = self._sidebar.current_scope()
        if kept.scope is not None and kept.scope.key != scope.key:
            return  # the list of another entry is on show
        brought = self._remote_brought
        appended = [entity_id for entity_id in kept.ids if self._results.row_of(entity_id) is None]
        new = len(appended) if brought is None else sum(i in brought for i in appended)
        added = self._results.merge_remote(kept.ids, brought=brought)
        within = scope_words(scope, self._remote_search.filters)
        self._messages.inform(remote_summary(kept.total, len(kept.ids), added, new, within))

    @Slot(object)
    def _on_remote_results_failed(self, exc: Exception) -> None:
        """The server's results could not be kept to the query: local results stay; say
        why, unless a newer remote request was made since."""
        if self.sender() is self._remote_keeping:
            self._messages.show_failure(exc, "Keeping the server's results to the search")

    @Slot(int, object)
    def _on_sync_remote_failed(self, request: int, message: UserMessage) -> None:
        """The remote search failed; local results stay, the message says why."""
        if request == self._remote_request:
            self._messages.show(message)

    # -- saved views and feeds -----------------------------------------------------------------

    @Slot(object)
    def _on_sidebar_scope_selected(self, scope: Scope) -> None:
        """Show the picked scope; a view or a feed is also asked of the server."""
        if scope.kind == "outbox":
            return  # a pane of its own, not a list of results
        if scope != self._scope_shown:
            self._withdraw_scope_messages()
            self._scope_shown = scope
            self._view_answer = None  # the server's results of a view left are not shown
        self.run_search(self._search_bar.request())
        if scope.kind == "feed" and scope.value:
            self._sync.list_feed(scope.value)
        if scope.kind == "view" and scope.value:
            self.run_view_remote(scope.value)

    @Slot(object)
    def _on_sidebar_scope_reselected(self, scope: Scope) -> None:
        """The entry shown was clicked again: read its list and the counts anew."""
        self.refresh_sidebar_later()
        self._on_sidebar_scope_selected(scope)

    def list_feed(self) -> bool:
        """Ask the server again for the items of the feed shown; False when no feed is shown
        (or there is no account)."""
        scope = self._sidebar.current_scope()
        if scope.kind != "feed" or not scope.value:
            return False
        return self._sync.list_feed(scope.value)

    def _shows(self, kind: str, value: str) -> bool:
        """Whether the sidebar entry on show is this view or feed."""
        scope = self._sidebar.current_scope()
        return scope.kind == kind and scope.value == value

    def _say_about_scope(self, message: UserMessage) -> None:
        """Show a message about the view or feed on show, taken away once it is left."""
        self._scope_messages.append(message)
        self._messages.show(message)

    def _withdraw_scope_messages(self) -> None:
        """The entry the messages were about is left: they are no longer true of the list."""
        messages, self._scope_messages = self._scope_messages, []
        for message in messages:
            self.message_outdated.emit(message)

    def run_view_remote(self, view_id: str) -> Task[ViewAnswer] | None:
        """Also run a saved view on the server (cache-on-view), its results narrowed as the
        list on show is; None without an account."""
        services = self._sync.services
        if services.client is None:
            return None
        task = (
            self._runner.run(
                view_search_narrowed,
                services.client,
                services.writer,
                self._cache_path,
                view_id,
                replace(self._search_bar.request(), remote=False),
                self._sidebar.current_scope(),
                self.sort(),
            )
            .on_success(self._on_view_search_finished)
            .on_failure(self._on_view_search_failed)
            .on_done(self._on_view_search_done)
        )
        self._view_tasks[task] = view_id
        return task

    @Slot(object)
    def _on_view_search_finished(self, answer: ViewAnswer) -> None:
        """The server's view results are cached: refresh what changed, then merge in those
        the search and filters on show keep, unless the view was left since it was asked."""
        if answer.result.changes:
            self.store_changed.emit(answer.result.changes)
        if self._shows("view", answer.result.view_id):
            self._view_answer = answer
            self._view_merged_into = 0  # a new answer: merged into the list on show too
            self._merge_view_answer()

    def _merge_view_answer(self) -> None:
        """Merge the server's answer for the view on show into the list, narrowed by the
        search, filters and order of the list on show; once into each list.

        The list's own results come first (the list of another search would replace the
        server's), then its search, filters or order, changed since the answer was narrowed,
        narrow its results again on a worker (the server is not asked again). The list's
        request is the one narrowed by, not the search bar's: a date filter's bound moves
        with the clock, and narrowing by the bar's went on for ever.
        """
        answer = self._view_answer
        if answer is None or self._view_narrowing is not None:
            return  # nothing kept, or a narrowing on its way comes back here
        scope = self._sidebar.current_scope()
        if not self._shows("view", answer.result.view_id):
            self._view_answer = None
            return
        filters = self._applied_filters
        if filters is None or self.awaiting_results or self._applied_scope != scope:
            return  # the search's own results come first; they call this again
        request = SearchRequest(self._results.query, filters)
        sort = self._applied_sort
        if answer.request != request or answer.sort != sort:
            if not self._runner.closed:
                self._view_narrowing_of = answer.result
                self._view_narrowing = (
                    self._runner.run(
                        view_results_narrowed, self._cache_path, answer.result, request, scope, sort
                    )
                    .on_success(self._on_view_narrowing_finished)
                    .on_failure(self._on_view_narrowing_failed)
                )
            return
        if self._view_merged_into == self._lists_shown:
            return  # merged into this list already (a list read again keeps them)
        self._view_merged_into = self._lists_shown
        result, kept = answer.result, answer.kept
        added = self._results.merge_remote(kept)
        within = "" if len(kept) == len(result.ids) else f", {len(kept)} within the search"
        self._say_about_scope(
            UserMessage(
                "info",
                f"{len(result.ids)} results of this view from the server{within}"
                f" ({added} more than the cached view)",
            )
        )

    @Slot(object)
    def _on_view_narrowing_finished(self, answer: ViewAnswer) -> None:
        """The server's results of the view are narrowed by a newer search: merge them (or
        narrow them again, should the search have changed once more)."""
        self._view_narrowing = None
        self._view_narrowing_of = None
        kept = self._view_answer
        if kept is not None and kept.result is answer.result:
            self._view_answer = answer
        self._merge_view_answer()

    @Slot(object)
    def _on_view_narrowing_failed(self, exc: Exception) -> None:
        """The server's results of the view could not be narrowed by the search on show.

        A query that means nothing says so already and leaves them kept for the next
        search; a store failure drops them (the cached results stay) and says why.
        """
        self._view_narrowing = None
        narrowed, self._view_narrowing_of = self._view_narrowing_of, None
        kept = self._view_answer
        if kept is None or kept.result is not narrowed:
            # Another view's answer came meanwhile: this failure is not its own.
            self._merge_view_answer()
            return
        if isinstance(exc, SearchLanguageError):
            return
        self._view_answer = None
        self._messages.show_failure(
            exc, "Keeping this view's results from the server to the search"
        )

    @Slot(object)
    def _on_sync_feed_listed(self, listing: FeedItems) -> None:
        """The server listed a feed (its items cached and remembered): show them."""
        if not self._shows("feed", listing.feed_id):
            return
        self.run_search(self._search_bar.request())
        if not listing.complete:
            self._say_about_scope(
                UserMessage("info", f"Showing the newest {len(listing.ids):,} items of this feed")
            )

    @Slot(str, object)
    def _on_sync_feed_listing_failed(self, feed_id: str, message: UserMessage) -> None:
        """The server could not list the feed: what the cache remembers stays; say why, unless
        the person has moved on to another entry."""
        if self._shows("feed", feed_id):
            self._say_about_scope(
                replace(message, text=f"Showing this feed's items from the cache: {message.text}")
            )

    @Slot(object)
    def _on_view_search_failed(self, exc: Exception) -> None:
        """The server could not run the view: the cached results stay; say why, unless the
        person has moved on to another entry."""
        view_id = self._view_tasks.get(self.sender(), "")  # type: ignore[call-overload]
        if not self._shows("view", view_id):
            log.info("view %s could not be run on the server: %r", view_id, exc)
            return
        message = user_message(exc, self._sync.services.credential)
        self._say_about_scope(
            replace(message, text=f"Showing this view from the cache: {message.text}")
        )

    @Slot()
    def _on_view_search_done(self) -> None:
        """Forget a view asked of the server once it is over."""
        self._view_tasks.pop(self.sender(), "")  # type: ignore[call-overload]

    # -- what searches can be narrowed by ------------------------------------------------------

    def _apply_filter_choices(self, types: list[str], tags: list[TagRow]) -> None:
        """Put types and tags (by name) into the search filters."""
        self._search_bar.set_type_choices(sorted(types))
        # The most used ones when there are more than the menu offers, in the order of names.
        most_used = sorted(tags, key=lambda t: (-t.count, t.name.lower()))[:FILTER_TAGS]
        by_name = sorted(most_used, key=lambda t: t.name.lower())
        self._search_bar.set_tag_choices([(t.name, t.id) for t in by_name])

    def refresh_sidebar_later(self) -> None:
        """Re-read sidebar counts and filter choices on a worker (one read at a time).

        Counting a large cache by type takes tens of milliseconds: never on the GUI thread
        while a sync reports changes page after page.
        """
        if self._snapshot_task is not None:
            self._snapshot_stale = True
            return
        self._snapshot_stale = False
        self._snapshot_task = (
            self._runner.run(sidebar_snapshot, self._cache_path)
            .on_success(self._on_snapshot_finished)
            .on_failure(self._on_snapshot_failed)
            .on_done(self._on_snapshot_done)
        )

    @Slot(object)
    def _on_snapshot_finished(self, snapshot: SidebarSnapshot) -> None:
        """Show the new counts and choices."""
        self._snapshot_problem_told = False
        self._sidebar.apply_snapshot(snapshot)
        self._apply_filter_choices(list(snapshot.counts), snapshot.tags)

    @Slot(object)
    def _on_snapshot_failed(self, exc: Exception) -> None:
        """The old counts stay on screen and a later change reads again. Why is said once
        until a read works again (a sync reports changes page after page); a damaged cache
        is offered a fresh start by the window (through the message bridge)."""
        if self._snapshot_problem_told:
            log.error("reading the sidebar counts failed", exc_info=exc)
            return
        self._snapshot_problem_told = True
        self._messages.show_failure(exc, SIDEBAR_UNREADABLE)

    @Slot()
    def _on_snapshot_done(self) -> None:
        """Read again if more changed while this read ran."""
        self._snapshot_task = None
        if self._snapshot_stale and not self._runner.closed:
            self.refresh_sidebar_later()
