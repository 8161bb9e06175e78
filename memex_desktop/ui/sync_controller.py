"""Runs the SyncEngine in the background, periodically and on demand, and reports to the panes.

Each run builds its engine on the worker thread (:meth:`SyncServices.engine`) with its own
cache reader and outbox connection (SQLite connections belong to their thread), sharing the
API client (httpx clients are thread-safe) and the single StoreWriter. Results come back to the
GUI thread as signals; ``store_changed`` carries the ChangeSet so each pane refreshes only what
it shows, and ``state_changed`` the :class:`ConnectionState` with its words.
"""

from __future__ import annotations

import logging
import math
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from PySide6.QtCore import QObject, QTimer, Signal, Slot

from memex_desktop import paths
from memex_desktop.api.models import SearchMeta
from memex_desktop.errors import ConnectionState, Credential, state_words, user_message
from memex_desktop.services import SyncServices
from memex_desktop.store import CacheReader, ChangeSet, Outbox
from memex_desktop.sync import (
    FeedItems,
    SyncEngine,
    SyncOutcome,
    SyncProgress,
    SyncReport,
    outcome_for,
)
from memex_desktop.sync.folder_lock import FolderLock, drop_save, release_and_hand_over
from memex_desktop.ui.tasks import Task, TaskRunner

if TYPE_CHECKING:
    from memex_desktop.api.client import MemexClient

log = logging.getLogger(__name__)

FOLLOW_UP_MS = 4_000  # how soon to look again while saves are being processed
OFFLINE_RETRY_MS = 30_000  # how soon to try again after a failed sync with queued saves
# While the server cannot be reached the sync tries again on its own, waiting longer each time
# and at most the last of these: a server back after an outage is found within minutes, and a
# long one costs a request every few minutes, not a loop.
RECONNECT_DELAYS_MS = (15_000, 30_000, 60_000, 120_000, 240_000)
# The states a later attempt can fix by itself; the others (sign-in, credits, an incompatible
# server) need the person, and trying again would only repeat the refusal.
RECONNECTING_STATES = frozenset({ConnectionState.OFFLINE, ConnectionState.SERVER_DOWN})

# While a sync sends saves, the outbox is worth listing again at most this often: a queue of
# hundreds sent in seconds is a listing or two a second, not hundreds.
OUTBOX_RELIST_MS = 500

# What the status bar says while another memex-desktop syncs the same data folder.
WAITING_FOR_OTHER_SYNC = "waiting for another memex-desktop syncing this data folder"

OutboxAction = Literal["retry", "drop", "undo"]


@dataclass(frozen=True)
class OutboxCounts:
    """Saves waiting to be sent, and saves sent but not yet seen in the library."""

    pending: int
    awaiting: int
    attention: int


@dataclass(frozen=True)
class SyncRequest:
    """What a sync was asked to do: a full pass, resume a paused outbox, mark held deletions."""

    full: bool = False
    resume_paused: bool = False
    confirm_deletions: bool = False

    def merged(self, other: SyncRequest) -> SyncRequest:
        """A request that does everything both ask for (one asked while another runs)."""
        return SyncRequest(
            self.full or other.full,
            self.resume_paused or other.resume_paused,
            self.confirm_deletions or other.confirm_deletions,
        )


@dataclass(frozen=True)
class SyncResult:
    """A finished run: the engine's report plus the outbox counts afterwards."""

    report: SyncReport
    counts: OutboxCounts


def outbox_counts(outbox: Outbox) -> OutboxCounts:
    """Count queued/sending, accepted and needs-attention operations."""
    ops = outbox.list()
    return OutboxCounts(
        pending=sum(op.state in ("queued", "sending") for op in ops),
        awaiting=sum(op.state == "accepted" for op in ops),
        attention=sum(op.state == "needs_attention" for op in ops),
    )


def run_sync(
    services: SyncServices,
    request: SyncRequest,
    *,
    cancel: threading.Event,
    progress: Callable[[object], None],
) -> SyncResult:
    """Worker: one sync run with connections owned by this thread.

    It holds the data folder's lock (see sync/folder_lock.py): while another memex-desktop
    syncs the same folder, this one waits for it to end instead of pulling alongside it, and
    it sends the saves other processes queued while it ran before it lets go.
    """
    reader = CacheReader(services.cache_path)
    outbox = Outbox(services.outbox_path)
    lock = FolderLock(paths.sync_lock_path(services.cache_path.parent))
    try:
        if not lock.acquire(cancel=cancel):
            progress(SyncProgress("pull", 0, None, WAITING_FOR_OTHER_SYNC))
            if not lock.acquire(wait_s=math.inf, cancel=cancel):
                return SyncResult(SyncReport(SyncOutcome.CANCELLED), outbox_counts(outbox))
        engine = services.engine(reader, outbox)
        report = engine.run(
            full=request.full or request.confirm_deletions,
            cancel=cancel,
            progress=progress,
            resume_paused_outbox=request.resume_paused,
            confirm_deletions=request.confirm_deletions,
        )
        if report.ok:
            for drained in release_and_hand_over(
                lock, outbox, lambda: engine.drain_outbox(cancel=cancel, progress=progress)
            ):
                report = replace(
                    report,
                    sent=report.sent + drained.sent,
                    needs_attention=report.needs_attention + drained.needs_attention,
                    changes=report.changes | drained.changes,
                )
        return SyncResult(report, outbox_counts(outbox))
    finally:
        lock.release()
        outbox.close()
        reader.close()


# A remote search's ids in server order, what caching them changed, and the server's meta.
RemoteAnswer = tuple[list[str], ChangeSet, SearchMeta | None]


@contextmanager
def _worker_engine(services: SyncServices) -> Iterator[SyncEngine]:
    """A sync engine with this worker thread's own reader and outbox connections."""
    reader = CacheReader(services.cache_path)
    outbox = Outbox(services.outbox_path)
    try:
        yield services.engine(reader, outbox)
    finally:
        outbox.close()
        reader.close()


def run_remote_search(services: SyncServices, query: str, filters: dict[str, Any]) -> RemoteAnswer:
    """Worker: a remote search, cached on arrival (ids in server order)."""
    with _worker_engine(services) as engine:
        ids, changes = engine.remote_search(query, **filters)
        return ids, changes, engine.last_meta


def list_feed_items(services: SyncServices, feed_id: str) -> FeedItems:
    """Worker: the items the server lists for a feed, cached and remembered as its members."""
    with _worker_engine(services) as engine:
        return engine.feed_items(feed_id)


def outbox_action(outbox_path: Path, action: OutboxAction, op_id: int) -> OutboxCounts:
    """Worker: retry, drop or undo one outbox operation."""
    outbox = Outbox(outbox_path)
    try:
        if action == "retry":
            outbox.retry(op_id)
        elif action == "drop":
            drop_save(outbox, op_id, paths.sync_lock_path(outbox_path.parent))
        else:
            outbox.undo(op_id)
        return outbox_counts(outbox)
    finally:
        outbox.close()


def _connected_state(client: MemexClient | None) -> ConnectionState:
    """Online until a sync says otherwise, or not configured without a client."""
    return ConnectionState.ONLINE if client is not None else ConnectionState.NOT_CONFIGURED


class SyncController(QObject):
    """Periodic and manual syncs, remote searches and outbox operations.

    Signals:
        sync_started(): a sync began.
        sync_progress(object): a SyncProgress from the engine.
        sync_finished(object): the SyncReport of a finished sync.
        store_changed(object): a ChangeSet (sync, remote search).
        state_changed(object, object): the ConnectionState and its StateWords.
        outbox_changed(object): OutboxCounts after anything touched the outbox.
        outbox_progressed(): the running sync sent a save or tried to: the outbox (its
            pane, its counts) is worth listing again before the sync ends.
        remote_results(int, object, object): a remote search's request number, its ids and
            what caching its answer wrote (a ChangeSet, or None: nothing).
        remote_failed(int, object): a remote search's request number and UserMessage.
        feed_listed(object): the FeedItems the server listed for a feed (cached).
        feed_listing_failed(str, object): the feed's id and why it could not be listed (a
            UserMessage).
        meta_changed(object): the SearchMeta of the latest server answer.
    """

    sync_started = Signal()
    sync_progress = Signal(object)
    sync_finished = Signal(object)
    store_changed = Signal(object)
    state_changed = Signal(object, object)
    outbox_changed = Signal(object)
    outbox_progressed = Signal()
    remote_results = Signal(int, object, object)
    remote_failed = Signal(int, object)
    feed_listed = Signal(object)
    feed_listing_failed = Signal(str, object)
    meta_changed = Signal(object)

    def __init__(
        self,
        services: SyncServices,
        runner: TaskRunner,
        *,
        interval_minutes: int = 15,
        connecting: bool = False,
        reconnect_delays_ms: Sequence[int] = RECONNECT_DELAYS_MS,
        parent: QObject | None = None,
    ) -> None:
        """``connecting``: the client comes later (:meth:`set_client`); until then the state
        is ONLINE, as it is until a sync says otherwise, not "no account".
        ``reconnect_delays_ms``: the waits before each new attempt while the server cannot be
        reached (the last one repeats)."""
        super().__init__(parent)
        self.services = services
        self._runner = runner
        self._task: Task[SyncResult] | None = None
        # Asked for while a sync ran: it follows that one (full and confirmation kept).
        self._again: SyncRequest | None = None
        # The running sync's request, or the last one's: while sync_finished is delivered it
        # describes the sync that finished (a queued one starts only afterwards).
        self.last_request = SyncRequest()
        self._remote_request = 0
        self._remote_tasks: dict[Task[RemoteAnswer], int] = {}
        self._feed_tasks: dict[Task[FeedItems], str] = {}
        self._closed = False
        self.state = ConnectionState.ONLINE if connecting else _connected_state(services.client)
        # Whether the client is still to come (set_client): the state is not known yet.
        self.connecting = connecting
        self.last_meta: SearchMeta | None = None
        self.counts = OutboxCounts(0, 0, 0)
        self.reconnect_delays_ms = tuple(reconnect_delays_ms)
        # Syncs in a row that could not reach the server: the next one waits longer.
        self._failed_reconnects = 0
        self._timer = QTimer(self)
        self._timer.timeout.connect(self._on_timer_timeout)
        self._follow_up = QTimer(self)
        self._follow_up.setSingleShot(True)
        self._follow_up.timeout.connect(self._on_timer_timeout)
        # Paces outbox_progressed; set when saves moved on since it was last emitted.
        self._outbox_pace = QTimer(self)
        self._outbox_pace.setSingleShot(True)
        self._outbox_pace.setInterval(OUTBOX_RELIST_MS)
        self._outbox_pace.timeout.connect(self._on_outbox_pace_timeout)
        self._outbox_moved = False
        self.set_interval(interval_minutes)

    # -- configuration ------------------------------------------------------------------------

    def set_interval(self, minutes: int) -> None:
        """Sync every ``minutes`` (0 turns periodic syncs off)."""
        if minutes > 0 and not self._closed:
            self._timer.start(minutes * 60_000)
        else:
            self._timer.stop()

    def set_client(self, client: MemexClient | None, credential: Credential | None = None) -> None:
        """Use another API client, signed in as ``credential`` (after the settings changed)."""
        self.services.client = client
        self.services.credential = credential
        self.connecting = False
        self._set_state(_connected_state(client))

    def shutdown(self) -> None:
        """Stop every timer and the running sync; later calls start nothing (idempotent).

        Results of work that finished just before arrive afterwards by queued signals; they are
        still announced, but schedule nothing, so no timer of a closed window fires later.
        """
        self._closed = True
        self._again = None
        self._timer.stop()
        self._follow_up.stop()
        self._outbox_pace.stop()
        if self._task is not None:
            self._task.cancel()
        for task in self._remote_tasks:
            task.cancel()

    @property
    def closed(self) -> bool:
        """Whether shutdown() was called."""
        return self._closed

    @property
    def syncing(self) -> bool:
        """Whether a sync is running."""
        return self._task is not None

    @property
    def reconnect_in_ms(self) -> int | None:
        """How soon the next attempt to reach the server starts (None: none is waiting)."""
        if not self._follow_up.isActive() or self.state not in RECONNECTING_STATES:
            return None
        return self._follow_up.remainingTime()

    @property
    def confirm_pending(self) -> bool:
        """Whether a sync that marks held deletions was asked for and waits for its turn."""
        return self._again is not None and self._again.confirm_deletions

    # -- syncing ------------------------------------------------------------------------------

    @Slot()
    def sync_now(
        self, full: bool = False, resume_paused: bool = False, confirm_deletions: bool = False
    ) -> bool:
        """Start a sync unless one runs (then another follows it); False without an account.

        ``confirm_deletions``: a full pass that marks the items a previous pass held back
        (the person confirmed them). After shutdown() nothing starts and the answer is False.
        """
        if self._closed:
            return False
        if self.services.client is None:
            self._set_state(ConnectionState.NOT_CONFIGURED)
            return False
        request = SyncRequest(full, resume_paused, confirm_deletions)
        if self._task is not None:
            self._again = request if self._again is None else self._again.merged(request)
            return True
        self._follow_up.stop()
        self._task = (
            self._runner.run(run_sync, self.services, request, cancel=True, progress=True)
            .on_success(self._on_sync_finished)
            .on_failure(self._on_sync_failed)
            .on_progress(self._on_sync_progress)
            .on_done(self._on_sync_done)
        )
        self.last_request = request
        self.sync_started.emit()
        return True

    @Slot()
    def cancel(self) -> None:
        """Stop the running sync at its next page boundary."""
        self._again = None
        if self._task is not None:
            self._task.cancel()

    @Slot()
    def _on_timer_timeout(self) -> None:
        """Periodic or follow-up sync."""
        self.sync_now()

    @Slot(object)
    def _on_sync_progress(self, value: object) -> None:
        """Forward the engine's progress; progress means the server answered.

        A sync resumed after an outage may run for minutes: the window says it is back
        online with the first page, not when the whole pass is done; and the outbox says
        what became of each save as it is sent, not when the pull that follows has ended.
        """
        if not isinstance(value, SyncProgress):
            return
        if self.state in RECONNECTING_STATES and value.message != WAITING_FOR_OTHER_SYNC:
            self._failed_reconnects = 0
            self._set_state(ConnectionState.ONLINE)
        self.sync_progress.emit(value)
        if value.phase == "outbox":
            self._announce_outbox_progress()

    def _announce_outbox_progress(self) -> None:
        """Emit outbox_progressed now, or once OUTBOX_RELIST_MS have passed since the last
        (after shutdown(), never: a closed window lists nothing)."""
        if self._closed:
            return
        if self._outbox_pace.isActive():
            self._outbox_moved = True
            return
        self._outbox_moved = False
        self.outbox_progressed.emit()
        self._outbox_pace.start()

    @Slot()
    def _on_outbox_pace_timeout(self) -> None:
        """Saves moved on while outbox_progressed waited: say so now."""
        if self._outbox_moved:
            self._announce_outbox_progress()

    @Slot(object)
    def _on_sync_finished(self, result: SyncResult) -> None:
        """Apply a finished sync: state, meta, counts, changes; schedule a follow-up."""
        self._task = None
        report = result.report
        if report.meta is not None:
            self.last_meta = report.meta
            self.meta_changed.emit(report.meta)
        if report.state is not None:
            self._set_state(report.state, report.error)
        self.counts = result.counts
        self.outbox_changed.emit(result.counts)
        if report.changes:
            self.store_changed.emit(report.changes)
        self.sync_finished.emit(report)
        self._schedule_next(report)

    def _schedule_next(self, report: SyncReport) -> None:
        """Run again soon when asked during the run, while saves are still in flight, or
        after a backoff while the server cannot be reached."""
        if self._closed:
            return
        unreachable = report.state in RECONNECTING_STATES
        self._failed_reconnects = self._failed_reconnects + 1 if unreachable else 0
        if self._again is not None:
            self._sync_again()
        elif unreachable:
            self._follow_up.start(self._reconnect_delay_ms())
        elif report.ok and self.counts.awaiting:
            self._follow_up.start(FOLLOW_UP_MS)
        elif report.outcome is SyncOutcome.FAILED and self.counts.pending:
            self._follow_up.start(OFFLINE_RETRY_MS)

    def _reconnect_delay_ms(self) -> int:
        """The wait before the next attempt to reach the server: longer after each failure."""
        delays = self.reconnect_delays_ms or RECONNECT_DELAYS_MS
        return delays[min(self._failed_reconnects, len(delays)) - 1]

    @Slot(object)
    def _on_sync_failed(self, exc: Exception) -> None:
        """A sync raised (a bug or a store problem): report it, keep the app running."""
        self._task = None
        log.error("sync failed", exc_info=exc)
        report = SyncReport(outcome_for(exc), error=exc)
        self._set_state(report.state or self.state, exc)
        self.sync_finished.emit(report)
        if self._again is not None and not self._closed:
            self._sync_again()

    @Slot()
    def _on_sync_done(self) -> None:
        """A sync that was cancelled before it reported anything still ends as cancelled.

        Whoever showed the sync as running (the status bar's progress) hears that it
        stopped; a sync asked for since was dropped by the cancel, so nothing follows.
        """
        if self._task is None or self.sender() is not self._task:
            return  # it reported already (and a sync that followed it may be running)
        self._task = None
        self.sync_finished.emit(SyncReport(SyncOutcome.CANCELLED))

    def _sync_again(self) -> None:
        """Run the sync asked for while the last one ran."""
        request, self._again = self._again, None
        if request is not None:
            self.sync_now(request.full, request.resume_paused, request.confirm_deletions)

    def _set_state(self, state: ConnectionState, error: BaseException | None = None) -> None:
        """Remember and announce the connection state, in words that fit the credentials."""
        self.state = state
        words = state_words(state, credential=self.services.credential, error=error)
        self.state_changed.emit(state, words)

    # -- remote search ------------------------------------------------------------------------

    def remote_search(self, query: str, filters: dict[str, Any]) -> int:
        """Ask the server; returns the request number (0 without an account or after shutdown)."""
        if self._closed:
            return 0
        if self.services.client is None:
            self._set_state(ConnectionState.NOT_CONFIGURED)
            return 0
        self._remote_request += 1
        task = (
            self._runner.run(run_remote_search, self.services, query, filters)
            .on_success(self._on_remote_finished)
            .on_failure(self._on_remote_failed)
            .on_done(self._on_remote_done)
        )
        self._remote_tasks[task] = self._remote_request
        return self._remote_request

    def _remote_request_of_sender(self) -> int:
        """The request number of the remote search whose task emitted the current signal."""
        return self._remote_tasks.get(self.sender(), 0)  # type: ignore[call-overload]

    @Slot(object)
    def _on_remote_finished(self, result: RemoteAnswer) -> None:
        """Cache-on-view finished: announce the changes, then the ids."""
        request = self._remote_request_of_sender()
        ids, changes, meta = result
        if meta is not None:
            self.last_meta = meta
            self.meta_changed.emit(meta)
        if self.state is not ConnectionState.ONLINE:
            self._set_state(ConnectionState.ONLINE)
        if changes:
            self.store_changed.emit(changes)
        self.remote_results.emit(request, ids, changes or None)

    @Slot(object)
    def _on_remote_failed(self, exc: Exception) -> None:
        """A remote search failed: the local results stay; say why."""
        request = self._remote_request_of_sender()
        state = outcome_for(exc).state
        if state is None:  # a store error or a bug, not the server: the state stays
            log.error("remote search failed", exc_info=exc)
        else:
            self._set_state(state, exc)
        self.remote_failed.emit(request, user_message(exc, self.services.credential))

    @Slot()
    def _on_remote_done(self) -> None:
        """Forget a remote search once it is over (a cancelled one reports nothing else)."""
        self._remote_tasks.pop(self.sender(), 0)  # type: ignore[call-overload]

    # -- feeds ---------------------------------------------------------------------------------

    def list_feed(self, feed_id: str) -> bool:
        """Ask the server for a feed's items (cached on arrival); False without an account or
        after shutdown. A failure that means the server cannot be reached says so in the
        connection state, as a failed sync does."""
        if self._closed:
            return False
        if self.services.client is None:
            self._set_state(ConnectionState.NOT_CONFIGURED)
            return False
        task = (
            self._runner.run(list_feed_items, self.services, feed_id)
            .on_success(self._on_feed_listing_finished)
            .on_failure(self._on_feed_listing_failed)
            .on_done(self._on_feed_listing_done)
        )
        self._feed_tasks[task] = feed_id
        return True

    @Slot(object)
    def _on_feed_listing_finished(self, listing: FeedItems) -> None:
        """The server answered: it is reachable; announce the changes, then the listing."""
        if self.state is not ConnectionState.ONLINE:
            self._set_state(ConnectionState.ONLINE)
        if listing.changes:
            self.store_changed.emit(listing.changes)
        self.feed_listed.emit(listing)

    @Slot(object)
    def _on_feed_listing_failed(self, exc: Exception) -> None:
        """The feed could not be listed: the connection state follows; say why, for it."""
        feed_id = self._feed_tasks.get(self.sender(), "")  # type: ignore[call-overload]
        state = outcome_for(exc).state
        if state is None:  # a store error or a bug, not the server: the state stays
            log.error("listing feed %s failed", feed_id, exc_info=exc)
        else:
            self._set_state(state, exc)
        self.feed_listing_failed.emit(feed_id, user_message(exc, self.services.credential))

    @Slot()
    def _on_feed_listing_done(self) -> None:
        """Forget a feed listing once it is over."""
        self._feed_tasks.pop(self.sender(), "")  # type: ignore[call-overload]

    # -- outbox --------------------------------------------------------------------------------

    def refresh_counts(self, counts: OutboxCounts) -> None:
        """Adopt outbox counts computed elsewhere (after a drop or an outbox action)."""
        self.counts = counts
        self.outbox_changed.emit(counts)
