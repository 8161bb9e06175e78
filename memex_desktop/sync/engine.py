"""The sync engine: mirror the library into the cache and deliver the outbox (DESIGN.md §3).

There is no change feed, so the library is read by paging ``POST /search`` (empty query, raw,
notes included, newest first). Each page is ingested in one transaction and the position of a
full pass is persisted after it, so a crash or quit resumes from the last page. A complete pass
is also the reconciliation: ids held locally that the server no longer returns are marked
deleted upstream (kept and listed, never erased) — and only after a COMPLETE pass, never because
the server could not be reached.

The outbox is drained one operation at a time, oldest first, with capped full-jitter backoff
that honours ``Retry-After``. URL saves are idempotent by their normalized URL and entity saves
by their ``external_id``, so repeating a save whose response was lost never duplicates it.
"""

from __future__ import annotations

import json
import logging
import random
import re
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from memex_desktop.api.content import epoch_ms
from memex_desktop.api.errors import (
    ApiError,
    AuthError,
    ContractError,
    InsufficientCredits,
    NetworkUnavailable,
    RateLimited,
    ServerError,
    ServerIncompatible,
    ServerNotAnswering,
    ValidationError,
)
from memex_desktop.api.identity import other_ids
from memex_desktop.api.models import (
    ContentEntityBase,
    JsonObject,
    ReferenceId,
    ResultReferences,
    SaveContentByUrlResponse,
    SaveContentEntityReceiptResponse,
    SaveContentEntityResponse,
    SearchMeta,
    SearchRawPage,
    parse_content_entity,
)
from memex_desktop.errors import error_kind, user_message
from memex_desktop.store import (
    CacheReader,
    ChangeAccumulator,
    ChangeSet,
    Outbox,
    OutboxOp,
    StoreWriter,
)
from memex_desktop.store.outbox import OutboxFailure
from memex_desktop.store.state_keys import STATE_DELETIONS_HELD as STATE_DELETIONS_HELD
from memex_desktop.store.state_keys import STATE_FEEDS_PROBLEM as STATE_FEEDS_PROBLEM
from memex_desktop.store.state_keys import (
    STATE_FULL_PASS,
    STATE_LAST_FULL_MS,
    STATE_LAST_SYNC_MS,
    STATE_MISSING_ONCE,
    STATE_NEWEST_MS,
)
from memex_desktop.store.state_keys import STATE_VIEWS_PROBLEM as STATE_VIEWS_PROBLEM
from memex_desktop.sync.concurrency import InFlightLimit
from memex_desktop.sync.paging import PageFetcher, Pager, PageRequest, UnreadPages
from memex_desktop.sync.patience import PUSHED_BACK_PATIENCE_S, Patience, patiently
from memex_desktop.sync.pending_parents import resolve_pending_parents
from memex_desktop.sync.probe import probe_server
from memex_desktop.sync.seen_ids import SeenIds
from memex_desktop.sync.server_profile import PagingMode, ServerProfile, state_key
from memex_desktop.sync.summary import counted
from memex_desktop.sync.types import (
    SyncCancelled,
    SyncOutcome,
    SyncProgress,
    SyncReport,
    outcome_for,
)

if TYPE_CHECKING:  # the window imports the sync long before it connects; httpx waits for that
    from memex_desktop.api.client import MemexClient

_log = logging.getLogger(__name__)

ProgressCallback = Callable[[SyncProgress], None]

# Writes queued at the writer behind the one it is writing: enough to keep it busy, few
# enough that memory stays bounded.
WRITES_AHEAD = 2
# Requests under way at once when a full pass starts (which reads every page anyway; more
# follow while the server keeps pace, up to MAX_IN_FLIGHT); an incremental pull, which usually
# stops after a page or two, asks for one page at a time. The server prepares the next page
# while this process decodes and writes the last one: with one request in flight,
# `memex-desktop bench --only sync` (20,000 entities, emulator over loopback) fell from 1,938
# and 2,156 to 1,479 and 1,358 entities/s; a real network's latency widens the gap.
FULL_PASS_IN_FLIGHT = 2
# Pages of highlights a full pass reads by type when the library listing left them out.
HIGHLIGHT_PAGES = 20
# The most requests a full pass keeps in flight when the server keeps answering as fast with
# more of them (see :mod:`memex_desktop.sync.concurrency`; the ``sync_max_in_flight`` setting).
MAX_IN_FLIGHT = 16
ALL_IDS_LIMIT = 10_000_000
# Processing statuses of items the server lists; others (pending, running ...) are unlisted.
_SETTLED_STATUSES = frozenset({None, "indexing-done", "done", "failed", "error"})
# An incremental pull reads at least this many pages, and stops at a page whose oldest item
# is older than the watermark minus the margin (items listed late keep their save time).
MIN_INCREMENTAL_PAGES = 2
INCREMENTAL_MARGIN_MS = 10 * 60 * 1000
# A pass that would mark more than this share of the library deleted (or more than
# DELETION_MAX items, or at least more than DELETION_FLOOR) waits for the person to confirm.
DELETION_SHARE = 0.02
DELETION_MAX = 200
DELETION_FLOOR = 3
# Entity saves answered 5xx this many times need attention instead of retrying forever.
MAX_SERVER_ERROR_ATTEMPTS = 6
# The newest items of a feed listed when it is opened: a feed of old posts is listed in
# part (and then only added to) rather than costing a request per hundred of its past.
FEED_LISTING_LIMIT = 1000


@dataclass(frozen=True)
class FeedItems:
    """What the server listed for a feed: item ids newest first, whether that was all of
    them, and what caching them changed."""

    feed_id: str
    ids: list[str]
    complete: bool
    changes: ChangeSet


@dataclass(frozen=True)
class OutboxPolicy:
    """How the outbox backs off: full jitter between 0 and ``base * 2**attempt``, capped."""

    base_delay_s: float = 1.0
    max_delay_s: float = 300.0
    max_drain_wait_s: float = 60.0

    def backoff_s(self, attempt: int, rand: Callable[[], float]) -> float:
        """The wait before attempt number ``attempt + 1`` (full jitter, capped)."""
        ceiling = min(self.max_delay_s, self.base_delay_s * (2.0 ** min(max(attempt, 0), 30)))
        return ceiling * min(max(rand(), 0.0), 1.0)


@dataclass
class _PassState:
    """Where an interrupted full pass stopped (persisted after every page)."""

    pass_id: str
    offset: int
    started_at_ms: int
    mode: PagingMode = "offset"
    end_ms: int | None = None

    def moved_to(self, bookmark: dict[str, Any]) -> _PassState:
        """This pass at the position ``bookmark`` (from :meth:`Pager.bookmark`)."""
        self.mode = bookmark["mode"]
        self.offset = int(bookmark["offset"])
        self.end_ms = bookmark["end_ms"]
        return self

    def dump(self) -> str:
        """The state as JSON for sync_state."""
        return json.dumps(
            {
                "id": self.pass_id,
                "offset": self.offset,
                "started_at_ms": self.started_at_ms,
                "mode": self.mode,
                "end_ms": self.end_ms,
            }
        )

    @classmethod
    def load(cls, text: str | None) -> _PassState | None:
        """The persisted state, or ``None`` when no pass is in progress (or it is unreadable)."""
        if not text:
            return None
        try:
            data = json.loads(text)
            end = data.get("end_ms")
            return cls(
                str(data["id"]),
                int(data["offset"]),
                int(data.get("started_at_ms", 0)),
                "time" if data.get("mode") == "time" else "offset",
                int(end) if end is not None else None,
            )
        except (ValueError, KeyError, TypeError, AttributeError):
            _log.warning("unreadable full-pass state ignored: %.100r", text)
            return None


def entity_time_ms(entity: JsonObject) -> int | None:
    """When the item was saved (``created_at``, the listing's sort key) in epoch ms."""
    return epoch_ms(entity.get("created_at"))


def _nested(entity: JsonObject) -> Iterator[JsonObject]:
    """The entity objects nested in an entity (its notes and the items it references)."""
    for key in ("annotations", "references", "resolvedReferences"):
        values = entity.get(key)
        if isinstance(values, list):
            for value in values:
                if isinstance(value, dict) and isinstance(value.get("id"), str):
                    yield value


def _page_entities(page: SearchRawPage) -> Iterator[JsonObject]:
    """Every entity object of a page, nested ones included (repeats possible)."""
    stack: list[JsonObject] = [*page.results, *page.extra_entities, *page.referenced_entities]
    while stack:
        entity = stack.pop()
        yield entity
        stack.extend(_nested(entity))


def _targets(entity: JsonObject) -> list[str]:
    """The entity's ``reference_content_ids`` (the strings among them)."""
    ids = entity.get("reference_content_ids")
    return [item for item in ids if isinstance(item, str)] if isinstance(ids, list) else []


def without_listed_notes(page: SearchRawPage) -> SearchRawPage:
    """The page without the notes the server lists in their parent's references entry.

    With ``includeNotes`` the server (like its documented raw example) lists a result's notes
    and replies in the result's ``referencesByResultId`` entry. The note already links to its
    parent (its first ``reference_content_ids``); kept there as well, the entry would read as
    the parent *mentioning* its own replies.
    """
    parent_of: dict[str, str] = {}
    own: dict[str, set[str]] = {}
    for entity in _page_entities(page):
        targets = _targets(entity)
        own.setdefault(entity["id"], set()).update(targets)
        if entity.get("type") == "annotation":
            if not targets:
                # Notes listed without reference_content_ids (as first-party payloads are)
                # name what they are attached to first in their own references entry.
                entry = page.references_by_result_id.get(entity["id"])
                targets = [_ref_id(item) for item in entry.content_entity_ids] if entry else []
            if targets:
                parent_of.setdefault(entity["id"], targets[0])
        notes = entity.get("annotations")
        for note in notes if isinstance(notes, list) else []:
            if isinstance(note, dict) and isinstance(note.get("id"), str):
                parent_of.setdefault(note["id"], entity["id"])
    cleaned: dict[str, ResultReferences] = {}
    changed = False
    for source, refs in page.references_by_result_id.items():
        mentioned = own.get(source, set())
        kept = [
            item
            for item in refs.content_entity_ids
            if not (parent_of.get(_ref_id(item)) == source and _ref_id(item) not in mentioned)
        ]
        if len(kept) != len(refs.content_entity_ids):
            changed = True
            refs = refs.model_copy(update={"content_entity_ids": kept})
        cleaned[source] = refs
    if not changed:
        return page
    return page.model_copy(update={"references_by_result_id": cleaned})


def _ref_id(item: str | ReferenceId) -> str:
    """The id of a ``contentEntityIds`` item (a plain id or ``{id, type}``)."""
    return item if isinstance(item, str) else item.id


class SyncEngine:
    """Pulls the library into the cache, reconciles deletions and drains the outbox.

    Not thread-safe: one run at a time (the UI runs it on one worker; the CLI on its main
    thread). Reads go through ``reader``, writes through ``writer`` (the single writer).
    """

    def __init__(
        self,
        client: MemexClient,
        writer: StoreWriter,
        outbox: Outbox,
        *,
        reader: CacheReader,
        page_size: int = 100,
        reconcile_interval_s: float = 24 * 3600.0,
        outbox_policy: OutboxPolicy | None = None,
        clock: Callable[[], float] = time.time,
        rand: Callable[[], float] = random.random,
        exact_url_lookup: bool = False,
        max_in_flight: int = MAX_IN_FLIGHT,
        patience_s: float = PUSHED_BACK_PATIENCE_S,
    ) -> None:
        """Wire the collaborators; ``clock`` and ``rand`` are injectable for tests.

        ``patience_s``: how long the refusals of one request for the server's load may last
        before the sync fails (see :mod:`memex_desktop.sync.patience`).

        ``exact_url_lookup`` lets a save left in flight by a crash be looked up on the server
        by its URL before it is sent again (an INFERRED endpoint: probed on first use, and
        not asked again once the server does not know it).
        """
        if page_size < 1:
            raise ValueError("page_size must be positive")
        if max_in_flight < 1:
            raise ValueError("max_in_flight must be positive")
        self.max_in_flight = max_in_flight
        self.patience_s = patience_s
        # How the requests in flight of the last full pass went (the log and the benchmark).
        self.in_flight: InFlightLimit | None = None
        self.client = client
        self.writer = writer
        self.outbox = outbox
        self.reader = reader
        self.page_size = page_size
        self.reconcile_interval_s = reconcile_interval_s
        self.outbox_policy = outbox_policy or OutboxPolicy()
        self._clock = clock
        self._rand = rand
        self._recovered = False
        # None: allowed and not tried yet; then whether the server answers it.
        self._url_lookup: bool | None = None if exact_url_lookup else False
        self._profile: ServerProfile | None = None
        self.last_meta: SearchMeta | None = None

    # ------------------------------------------------------------------ the whole run

    def run(
        self,
        *,
        full: bool = False,
        cancel: threading.Event | None = None,
        progress: ProgressCallback | None = None,
        resume_paused_outbox: bool = False,
        confirm_deletions: bool = False,
    ) -> SyncReport:
        """Drain the outbox, pull (full or incremental; reconciling when due), confirm saves.

        ``confirm_deletions``: the person confirmed deletions a pass held back (see
        :class:`DeletionGuard`).

        ``resume_paused_outbox`` marks a sync the person asked for: a paused outbox resumes
        and saves waiting for a retry are sent now instead of after their backoff.
        """
        cancel = cancel or threading.Event()
        drained = self.drain_outbox(
            cancel=cancel, progress=progress, resume_paused=resume_paused_outbox
        )
        if drained.outcome in (
            SyncOutcome.OFFLINE,
            SyncOutcome.AUTH_REJECTED,
            SyncOutcome.CANCELLED,
        ):
            return drained
        pulled = self.pull(
            full=full, cancel=cancel, progress=progress, confirm_deletions=confirm_deletions
        )
        outcome = pulled.outcome if not pulled.ok else drained.outcome
        error = pulled.error if not pulled.ok else drained.error
        return replace(
            pulled,
            outcome=outcome,
            error=error,
            sent=drained.sent,
            needs_attention=drained.needs_attention,
            changes=pulled.changes | drained.changes,
        )

    # ------------------------------------------------------------------ pulling

    def pull(
        self,
        *,
        full: bool = False,
        cancel: threading.Event | None = None,
        progress: ProgressCallback | None = None,
        confirm_deletions: bool = False,
    ) -> SyncReport:
        """Pull pages into the cache: a full pass (resumed if one was interrupted) or new items.

        A full pass runs when asked, when one was interrupted, on the first sync and when the
        reconciliation interval has passed; otherwise the newest pages are pulled until one is
        older than what the cache holds. The first pull from a server probes how it pages.
        ``confirm_deletions`` lets a pass mark more items deleted than the guard allows
        (the person confirmed it).
        """
        cancel = cancel or threading.Event()
        try:
            patiently(
                lambda: self.server_profile(probe=True),
                cancel,
                patience=Patience(self.patience_s, self._rand),
                waiting=_waiting_progress(progress, _PassSeen()),
            )
        except (ApiError, SyncCancelled) as exc:
            return SyncReport(outcome_for(exc), meta=self.last_meta, error=_for_sync(exc))
        interrupted = _PassState.load(self.reader.sync_state(STATE_FULL_PASS))
        newest = epoch_ms(self.reader.sync_state(STATE_NEWEST_MS))
        if full or interrupted is not None or newest is None or self.reconcile_due():
            return self._full_pass(interrupted, cancel, progress, confirm_deletions)
        return self._incremental(newest, cancel, progress)

    def reconcile(
        self, *, cancel: threading.Event | None = None, progress: ProgressCallback | None = None
    ) -> SyncReport:
        """A complete id pass that marks items gone from the server as deleted upstream."""
        return self.pull(full=True, cancel=cancel, progress=progress)

    def reconcile_due(self) -> bool:
        """Whether the last complete pass is older than the reconciliation interval."""
        last = epoch_ms(self.reader.sync_state(STATE_LAST_FULL_MS))
        if last is None:
            return True
        return self._now_ms() - last >= self.reconcile_interval_s * 1000

    def server_profile(self, *, probe: bool = False) -> ServerProfile:
        """What is known about the server; with ``probe``, probed first if it never was.

        Raises:
            ApiError: the probe could not reach the server (offline, signed out ...).
        """
        if self._profile is None:
            key = state_key(self.client.base_url)
            self._profile = ServerProfile.load(self.client.base_url, self.reader.sync_state(key))
        if probe and not self._profile.probed:
            self._profile = probe_server(self.client, self._profile, now_ms=self._now_ms())
            self._save_profile()
        return self._profile

    def _save_profile(self) -> None:
        """Remember what was learned about the server."""
        if self._profile is not None:
            self._set_state(self._profile.state_key, self._profile.dump())

    def _now_ms(self) -> int:
        """The injectable clock in epoch milliseconds."""
        return int(self._clock() * 1000)

    def _fetch_page(self, request: PageRequest) -> SearchRawPage:
        """One page of the whole library, newest first, notes included."""
        profile = self.server_profile()
        response = self.client.search_raw_page(
            "",
            limit=request.limit,
            offset=request.offset,
            sort_by="date-desc" if profile.sends_sort_by else None,
            include_notes=True,
            time_range=request.time_range(),
        )
        self.last_meta = response.meta
        return response

    def _submit_page(self, response: SearchRawPage) -> Future[ChangeSet]:
        """Queue one page for the writer (one transaction on its thread)."""
        return self.writer.ingest_search_page(without_listed_notes(response))

    def _ingest(self, response: SearchRawPage) -> ChangeSet:
        """Write one page and wait for its commit."""
        return self._submit_page(response).result()

    def _set_state(self, key: str, value: str) -> None:
        """Persist one sync_state value and wait for its commit."""
        self.writer.set_sync_state(key, value).result()

    def _pager(self, **position: Any) -> Pager:
        """A pager for this server, from ``position`` (offset, end_ms, start_ms, mode)."""
        profile = self.server_profile()
        position.setdefault("mode", profile.paging)
        return Pager(profile, self.page_size, **position)

    def _full_pass(
        self,
        interrupted: _PassState | None,
        cancel: threading.Event,
        progress: ProgressCallback | None,
        confirm_deletions: bool,
    ) -> SyncReport:
        """Page through the whole library from the persisted position; reconcile when whole."""
        state = interrupted or _PassState(uuid.uuid4().hex, 0, self._now_ms())
        # Ids seen before a crash are not known to this process, so a resumed pass cannot
        # prove an item is gone; only a pass seen whole from the start may mark deletions.
        whole = state.offset == 0 and state.end_ms is None
        # A new pass pages as the server is known to page; a resumed one as it was paging.
        pager = self._pager(mode=state.mode, end_ms=state.end_ms) if interrupted else self._pager()
        # Items deleted upstream meanwhile shift the listing up; re-reading one page (which
        # ingests as no change) keeps a few such deletions from skipping live items.
        pager.offset = max(0, state.offset - pager.limit) if state.mode == "offset" else 0
        if interrupted is None:
            self._set_state(STATE_FULL_PASS, state.dump())
        seen = _PassSeen()
        changes = ChangeSet.empty()
        # A resumed pass counts only what it reads from where it resumed: the cache's count
        # is no total for it ("18,300 of about 25,541" with 45,000 items cached).
        estimate = self._estimate_total() if whole else None
        # Pages are fetched ahead on a helper thread and queued at the writer without waiting
        # for the previous commit; the position after a page is persisted only once that page
        # has committed, so a crash or a failed write never resumes past a missing page.
        writes = _WriteQueue(self.writer, STATE_FULL_PASS)
        try:
            self.in_flight = InFlightLimit(cap=self.max_in_flight, start=FULL_PASS_IN_FLIGHT)
            for response, bookmark in self._pages(
                pager, cancel, self.in_flight, waiting=_waiting_progress(progress, seen)
            ):
                seen.add(response)
                writes.push(without_listed_notes(response), state.moved_to(bookmark).dump())
                estimate = max(estimate or 0, seen.listed) or None
                _emit(progress, "pull", seen.listed, estimate, counted(seen.listed, "item"))
            changes |= writes.drain()
        except (ApiError, SyncCancelled) as exc:
            changes |= writes.drain()  # pages already fetched are kept
            return self._pull_stopped(exc, seen, changes)
        self._save_profile()
        unread = pager.unread
        # A pass that skipped pages unread is not complete: it is not counted as the day's
        # whole pass, and it stays in progress at the first unread page (its bookmark did
        # not move past it), so the next sync resumes there and reads those items.
        complete = whole and unread is None
        changes |= self._pull_unlisted_highlights(seen, cancel)
        guard = DeletionGuard(self, confirm=confirm_deletions)
        why_not = None if whole else "the pass resumed after an interruption"
        why_not = why_not or ("; ".join(pager.unreliable) if pager.unreliable else None)
        if why_not is None:
            _emit(progress, "reconcile", seen.listed, seen.listed, "checking for deleted items")
            changes |= guard.reconcile(seen)
        else:
            _log.warning("deletions not checked: %s", why_not)
            guard.forget_seen(seen)
        changes |= self._pull_views_and_feeds()
        self._finish_pull(
            seen.newest_created, full_pass_started_ms=state.started_at_ms if complete else None
        )
        self._set_state(
            STATE_FULL_PASS, "" if unread is None else state.moved_to(pager.bookmark()).dump()
        )
        self._confirm_seen(seen)
        return self._pulled_report(
            SyncReport(
                SyncOutcome.OK,
                pulled=seen.listed,
                changes=changes,
                meta=self.last_meta,
                deleted_upstream=guard.marked,
                deletions_held=guard.held,
                full_pass_completed=complete,
                not_reconciled=why_not,
            ),
            unread,
        )

    def _incremental(
        self, newest_held: int, cancel: threading.Event, progress: ProgressCallback | None
    ) -> SyncReport:
        """Pull the newest pages until one reaches back past what the cache already holds.

        The watermark is the newest ``created_at`` (the listing's sort key; ``updated_at`` is
        the shared content row's time and can run ahead of every save). The first two pages
        are always read, and a page stops the pull only when its oldest item is older than
        the watermark minus a margin, so items that became listable late are still caught.
        """
        profile = self.server_profile()
        horizon = newest_held - INCREMENTAL_MARGIN_MS
        seen = _PassSeen()
        changes = ChangeSet.empty()
        writes = _WriteQueue(self.writer, None)
        if profile.date_ordered is False:
            # The listing is not newest first, so no page says "older from here": ask the
            # server for the window since the watermark instead, and read it to its end.
            pager = self._pager(mode="offset", start_ms=horizon)
            is_last = None
        else:
            pager = self._pager()

            def is_last(response: SearchRawPage) -> bool:
                oldest = seen.oldest_on(response)
                return (
                    pager.pages >= MIN_INCREMENTAL_PAGES and oldest is not None and oldest < horizon
                )

        try:
            for response, _bookmark in self._pages(
                pager, cancel, None, is_last, _waiting_progress(progress, seen)
            ):
                seen.add(response)
                writes.push(without_listed_notes(response), None)
                _emit(
                    progress,
                    "pull",
                    seen.listed,
                    None,
                    # Every listed item is read to find the changed ones: "100 new or
                    # changed items" said of a pull that then found none read as a contradiction.
                    f"Checking for changes: {counted(seen.listed, 'recent item')} read",
                )
            changes |= writes.drain()
        except (ApiError, SyncCancelled) as exc:
            changes |= writes.drain()  # pages already fetched are kept
            return self._pull_stopped(exc, seen, changes)
        self._save_profile()
        changes |= self._pull_views_and_feeds()
        # Past a page skipped unread the watermark stays where it was, so the next pull reads
        # down to it again and meets that page's items.
        newest = newest_held if pager.unread else _max_opt(newest_held, seen.newest_created)
        self._finish_pull(newest, full_pass_started_ms=None)
        self._confirm_seen(seen)
        return self._pulled_report(
            SyncReport(SyncOutcome.OK, pulled=seen.listed, changes=changes, meta=self.last_meta),
            pager.unread,
        )

    @staticmethod
    def _pulled_report(report: SyncReport, unread: UnreadPages | None) -> SyncReport:
        """The report of a pull that read the listing to its end: not OK when it skipped
        pages it could not read, whose items it never saw."""
        if unread is None:
            return report
        pages = "1 page" if unread.pages == 1 else f"{unread.pages} pages"
        error = ContractError(
            f"{pages} of the library could not be read ({unread.why}), so up to "
            f"{unread.items_at_most} items were not synced; the next sync reads them again"
        )
        return replace(report, outcome=outcome_for(error), error=error, unread_pages=unread.pages)

    def _pull_stopped(self, exc: BaseException, seen: _PassSeen, changes: ChangeSet) -> SyncReport:
        """The report of a pull that stopped early; what it learned of the server is kept."""
        self._save_profile()
        return SyncReport(
            outcome_for(exc),
            pulled=seen.listed,
            changes=changes,
            meta=self.last_meta,
            error=_for_sync(exc),
        )

    def _pages(
        self,
        pager: Pager,
        cancel: threading.Event,
        in_flight: InFlightLimit | None = None,
        is_last: Callable[[SearchRawPage], bool] | None = None,
        waiting: Callable[[float], None] | None = None,
    ) -> Iterator[tuple[SearchRawPage, dict[str, Any]]]:
        """Pages as ``pager`` asks for them, each with the position after it, until the
        listing ends; fetched and parsed ahead on a helper thread (see :class:`PageFetcher`),
        with as many requests in flight as ``in_flight`` learns (one at a time without it).
        ``waiting`` hears of each wait, in seconds, for a server that refuses for its load.

        Raises:
            SyncCancelled: between pages, once ``cancel`` is set.
            ApiError: when paging cannot go on (offline, refused, unpageable ...).
        """
        if cancel.is_set():
            raise SyncCancelled()
        fetcher = PageFetcher(
            self._fetch_page,
            pager,
            cancel,
            is_last=is_last,
            in_flight=in_flight,
            rand=self._rand,
            patience=Patience(self.patience_s, self._rand),
            waiting=waiting,
        )
        pushed_back = self.client.on_pushed_back
        self.client.on_pushed_back = lambda _status: fetcher.pushed_back()
        fetcher.start()
        try:
            while True:
                response, bookmark, last = fetcher.next()
                yield response, bookmark
                if last:
                    return
                if cancel.is_set():
                    raise SyncCancelled()
        finally:
            fetcher.stop()
            self.client.on_pushed_back = pushed_back
            if in_flight is not None:
                _log.info(
                    "pages fetched with up to %d requests in flight (%d slowdowns, %d refusals, "
                    "%d decreases for them)",
                    in_flight.most,
                    in_flight.slowdowns,
                    in_flight.refusals,
                    in_flight.pushbacks,
                )

    def _estimate_total(self) -> int | None:
        """How many items the library probably holds: what the cache holds, once a complete
        pass has filled it (None before: a cache a stopped first sync or a search filled in
        part says nothing of the library's size)."""
        if epoch_ms(self.reader.sync_state(STATE_LAST_FULL_MS)) is None:
            return None
        entities = self.reader.stats().entities
        return entities or None

    def _pull_unlisted_highlights(self, seen: _PassSeen, cancel: threading.Event) -> ChangeSet:
        """Highlights a whole-library listing left out, read by their type.

        A server may leave ``selector`` items out of an empty-query listing (first-party
        listings may: research/memex-api-evidence.md §2.11), and then highlights made in other
        clients would never reach the cache. After a full pass that listed none, they are
        listed by ``contentTypes`` (at most HIGHLIGHT_PAGES pages; a failure only logs). The
        ids read count as seen by the pass; unless the listing was read to its end, no
        highlight is taken for deleted by this pass.
        """
        changes = ChangeSet.empty()
        if "selector" in seen.listed_types:
            return changes
        offset = 0
        complete = False
        for _page in range(HIGHLIGHT_PAGES):
            if cancel.is_set():
                break
            try:
                response = self.client.search_raw_page(
                    "",
                    limit=self.page_size,
                    offset=offset,
                    content_types=["selector"],
                    include_notes=True,
                )
            except ApiError as exc:
                _log.warning("highlights not listed by type: %s", _reason(exc).message)
                break
            if not response.results:
                complete = True
                break
            fresh = [e for e in response.results if e.get("id") not in seen.ids]
            seen.add_ids(response)
            changes |= self._ingest(response)
            if not fresh:
                break  # the server ignores offset: what is left cannot be read this way
            offset += len(response.results)
        if not complete:
            seen.types.discard("selector")
        return changes

    def _pull_views_and_feeds(self) -> ChangeSet:
        """Refresh saved views and followed feeds (small lists; a failure only logs).

        Their shapes are not documented (memex-api.md §7), so a drift must not fail a sync
        whose library pull worked; why a list could not be read is kept for the sidebar.
        """
        changes = ChangeSet.empty()
        for key, read, store in (
            (STATE_VIEWS_PROBLEM, self.client.list_views, self.writer.upsert_views),
            (STATE_FEEDS_PROBLEM, self.client.list_feeds, self.writer.upsert_feeds),
        ):
            try:
                items = read()
            except ApiError as exc:
                _log.warning("%s not refreshed: %s", key, _reason(exc))
                self._set_state(key, user_message(exc).one_line())
                continue
            self._set_state(key, "")
            if items:
                changes |= store(items).result()  # type: ignore[arg-type]
        return changes

    def _finish_pull(self, newest: int | None, *, full_pass_started_ms: int | None) -> None:
        """Persist the watermark (only after a complete pull) and when the pass finished."""
        now = str(self._now_ms())
        if newest is not None:
            self._set_state(STATE_NEWEST_MS, str(newest))
        if full_pass_started_ms is not None:
            self._set_state(STATE_LAST_FULL_MS, now)
        self._set_state(STATE_LAST_SYNC_MS, now)

    def _confirm_seen(self, seen: _PassSeen) -> None:
        """Saves the server accepted and a pull has now returned become confirmed."""
        accepted = self.outbox.list(states=["accepted"])
        if not accepted:
            return
        ids = {op.entity_id for op in accepted if op.entity_id and op.entity_id in seen.ids}
        # The pull's items are in the cache by now, under the URL the store normalized: a
        # URL is confirmed by an item of this pull cached under it (the pass keeps no URL
        # of its own: at a million items that was a million strings held to the end).
        cached = self.reader.ids_at_normalized_urls(
            op.normalized_url for op in accepted if op.normalized_url
        )
        urls = {url for url, listed in cached.items() if any(i in seen.ids for i in listed)}
        if ids or urls:
            self.outbox.confirm_seen(ids, urls)

    # ------------------------------------------------------------------ remote search

    def remote_search(
        self, query: str, *, limit: int = 50, **filters: Any
    ) -> tuple[list[str], ChangeSet]:
        """Search on the server; results are cached first (cache-on-view), ids in server order."""
        response = self.client.search_raw_page(query, limit=limit, include_notes=True, **filters)
        self.last_meta = response.meta
        changes = self._ingest(response)
        return list(dict.fromkeys(entity["id"] for entity in response.results)), changes

    def feed_items(
        self,
        feed_id: str,
        *,
        limit: int = FEED_LISTING_LIMIT,
        cancel: threading.Event | None = None,
    ) -> FeedItems:
        """The items the server lists for a followed feed, newest first (up to ``limit``):
        cached (cache-on-view) and remembered as the feed's members for offline use.

        Pages as the full pull does (a short page is not the end); a listing that reached
        the end with nothing skipped replaces the members remembered before.
        """
        profile = self.server_profile()
        pager = Pager(profile, self.page_size)
        ids: dict[str, None] = {}
        changes: list[ChangeSet] = []
        ended = False
        while len(ids) < limit:
            if cancel is not None and cancel.is_set():
                raise SyncCancelled
            request = pager.request()
            started = time.monotonic()
            page = self.client.search_raw_page(
                "",
                limit=request.limit,
                offset=request.offset,
                sort_by="date-desc" if profile.sends_sort_by else None,
                include_notes=True,
                time_range=request.time_range(),
                feed_ids=[feed_id],
            )
            self.last_meta = page.meta
            ended = pager.take(request, page, time.monotonic() - started)
            changes.append(self._ingest(page))
            ids.update((entity["id"], None) for entity in page.results)
            if ended:
                break
        listed = list(ids)[:limit]
        complete = ended and not pager.unreliable and len(ids) <= limit
        changes.append(self.writer.record_feed_members(feed_id, listed, complete=complete).result())
        return FeedItems(feed_id, listed, complete, ChangeSet.merge(changes))

    # ------------------------------------------------------------------ the outbox

    def drain_outbox(
        self,
        *,
        cancel: threading.Event | None = None,
        progress: ProgressCallback | None = None,
        resume_paused: bool = False,
        max_wait_s: float | None = None,
    ) -> SyncReport:
        """Send queued saves oldest first, one at a time, until the queue is empty or stuck.

        Waits for backoff up to ``max_wait_s`` in total (the policy's default); a save that
        is still due later stays queued for the next sync.
        """
        cancel = cancel or threading.Event()
        budget = self.outbox_policy.max_drain_wait_s if max_wait_s is None else max_wait_s
        if not self._recovered:
            self._recheck_in_flight()
            self._recovered = True
        paused = self.outbox.paused_reason()
        if paused is not None:
            if not resume_paused:
                return SyncReport(SyncOutcome.INSUFFICIENT_CREDITS, error=None)
            self.outbox.resume()
        if resume_paused:
            self._retry_waiting_now()
        sent = attention = 0
        changes = ChangeSet.empty()
        waited = 0.0
        last_failure: BaseException | None = None
        total = self.outbox.pending_count()
        tried: set[int] = set()  # the saves this drain claimed, sent or not
        claimed = False  # a save was claimed since the last report
        while True:
            if claimed:
                # Each save is reported once it is dealt with, whatever became of it (sent,
                # refused, waiting for a retry): the outbox pane and the count of waiting
                # saves follow the sync save by save, not its end. A drain that stops for
                # want of the server or of a sign-in ends the sync, which says why itself.
                _emit_sending(progress, sent, len(tried) - sent, total)
                claimed = False
            if cancel.is_set():
                return self._drain_report(
                    SyncOutcome.CANCELLED, sent, attention, changes, SyncCancelled()
                )
            now = self._clock()
            op = self.outbox.claim_next(now)
            if op is None:
                wait = self._next_wait(now)
                if wait is None:
                    return self._drain_report(SyncOutcome.OK, sent, attention, changes, None)
                if waited + wait > budget:
                    # Saves still waiting stay queued for the next sync; that is a failure
                    # only when this drain itself met one.
                    outcome = (
                        outcome_for(last_failure) if last_failure is not None else SyncOutcome.OK
                    )
                    return self._drain_report(outcome, sent, attention, changes, last_failure)
                waited += wait
                cancel.wait(wait)  # returns early when cancelled; checked at the loop's top
                continue
            tried.add(op.id)
            claimed = True
            try:
                entity = self._send(op)
            except NetworkUnavailable as exc:
                if _answered_success(exc):
                    sent += 1
                    self._accept_unconfirmed(op, exc)
                    continue
                delay = self.outbox_policy.backoff_s(op.attempts, self._rand)
                if _unreachable(exc):
                    # Nothing reached the server: offline. The save waits for the next sync.
                    self.outbox.mark_not_sent(op.id, _reason(exc), self._clock())
                    return self._drain_report(SyncOutcome.OFFLINE, sent, attention, changes, exc)
                # The connection broke after the request went out: the save may even have been
                # applied. Resending is safe (idempotent by identity), after a backoff.
                last_failure = exc
                self.outbox.mark_failed_retryable(op.id, _reason(exc), self._clock() + delay)
                if isinstance(exc, ServerNotAnswering):
                    # Each further save would wait out its own timeout: stop until next sync.
                    return self._drain_report(outcome_for(exc), sent, attention, changes, exc)
                continue
            except AuthError as exc:
                # Not this save's fault: put it back as it was and stop until the key is fixed.
                self.outbox.mark_not_sent(op.id, _reason(exc), self._clock())
                return self._drain_report(outcome_for(exc), sent, attention, changes, exc)
            except InsufficientCredits as exc:
                self.outbox.mark_not_sent(op.id, _reason(exc), self._clock())
                self.outbox.pause(_reason(exc))
                self._attach_plans(exc)
                _emit_sending(progress, sent, len(tried) - sent, total)  # the pull goes on
                return self._drain_report(
                    SyncOutcome.INSUFFICIENT_CREDITS, sent, attention, changes, exc
                )
            except ValidationError as exc:
                self.outbox.mark_needs_attention(op.id, _reason(exc))
                attention += 1
                continue
            except ContractError as exc:
                if not _answered_success(exc):
                    last_failure = exc
                    delay = self.outbox_policy.backoff_s(op.attempts, self._rand)
                    self.outbox.mark_failed_retryable(op.id, _reason(exc), self._clock() + delay)
                    continue
                sent += 1
                self._accept_unconfirmed(op, exc)
                continue
            except ServerError as exc:
                last_failure = exc
                if op.attempts >= MAX_SERVER_ERROR_ATTEMPTS:
                    # The same failure again and again: a person has to look at it (the
                    # words say how often: see errors.failure_message).
                    self.outbox.mark_needs_attention(op.id, _reason(exc))
                    attention += 1
                    continue
                delay = self.outbox_policy.backoff_s(op.attempts, self._rand)
                if exc.retry_after is not None:  # a server down for maintenance says how long
                    delay = max(delay, exc.retry_after)
                self.outbox.mark_failed_retryable(op.id, _reason(exc), self._clock() + delay)
                continue
            except ApiError as exc:
                last_failure = exc
                delay = self.outbox_policy.backoff_s(op.attempts, self._rand)
                if isinstance(exc, RateLimited) and exc.retry_after is not None:
                    delay = max(delay, exc.retry_after)
                self.outbox.mark_failed_retryable(op.id, _reason(exc), self._clock() + delay)
                continue
            sent += 1
            # Accepted first: whatever happens to the cache write, the save is not sent again.
            self.outbox.mark_accepted(op.id, entity.id if entity is not None else None)
            if entity is not None:
                changes |= self.writer.ingest_entities([entity]).result()

    def _accept_unconfirmed(self, op: OutboxOp, exc: ApiError) -> None:
        """The server answered 2xx but the rest of its answer cannot be read: the save is
        accepted, not confirmed until a pull shows it; sending it again could save it twice."""
        _log.warning("save %d accepted with an unreadable answer: %s", op.id, exc.message)
        self.outbox.mark_accepted(op.id, _expected_entity_id(op))

    def _recheck_in_flight(self) -> None:
        """Saves a killed process left ``sending`` may have reached the server: each is
        looked for in the cache, then with the server's exact-URL lookup (where it has one),
        and only queued to be sent again when neither has it."""
        for op in self.outbox.list(states=["sending"]):
            cached = self._cached_entity_id(op)
            if cached is not None:
                _log.info("save %d, in flight at a crash, is in the cache: confirmed", op.id)
                self.outbox.mark_confirmed(op.id, cached)
                continue
            found = self._look_up_on_server(op)
            if found is not None:
                _log.info("save %d, in flight at a crash, is on the server: accepted", op.id)
                self.outbox.mark_accepted(op.id, found.id)
                self.writer.ingest_entities([found]).result()
                continue
            self.outbox.requeue_in_flight(op.id)

    def _cached_entity_id(self, op: OutboxOp) -> str | None:
        """The id of the cached entity a save made, when the cache has it."""
        if op.kind == "save_url":
            return self.outbox.known_in_cache(op.normalized_url) if op.normalized_url else None
        entity_id = client_entity_id(op)
        return entity_id if self.reader.raw_json(entity_id) is not None else None

    def _look_up_on_server(self, op: OutboxOp) -> ContentEntityBase | None:
        """The entity the server holds for a URL save, by its exact-URL lookup; None when it
        holds none, the lookup is off or unknown to the server, or the server cannot say."""
        if op.kind != "save_url" or not op.url or self._url_lookup is False:
            return None
        try:
            found = self.client.find_content_by_url(op.url)
        except ValidationError as exc:
            _log.info("the server has no exact-URL lookup (%s); not asked again", exc.message)
            self._url_lookup = False
            return None
        except ApiError as exc:
            _log.info("the exact-URL lookup failed (%s); the save is sent again", exc.message)
            return None
        self._url_lookup = True
        return found

    def _retry_waiting_now(self) -> None:
        """Make queued saves that wait for a retry due now (the person asked to sync)."""
        now_ms = self._now_ms()
        for op in self.outbox.list(states=["queued"]):
            if op.next_attempt_at > now_ms:
                self.outbox.retry(op.id)

    def _attach_plans(self, exc: InsufficientCredits) -> None:
        """Saves answer 402 without plans; fetch them so the person sees what to buy."""
        if exc.upgrade_options is not None:
            return
        try:
            exc.upgrade_options = self.client.get_available_plans()
        except ApiError as plans_error:
            _log.info("could not fetch the available plans: %s", type(plans_error).__name__)

    def _send(self, op: OutboxOp) -> ContentEntityBase | None:
        """Deliver one operation; the entity the server answered with, when it sent one."""
        if op.kind == "save_url":
            if not op.url:
                raise ValidationError("the queued save has no URL")
            url_response: SaveContentByUrlResponse = self.client.save_content_by_url(op.url)
            return url_response.entity
        data, extra = self._entity_request(op)
        refused = set(self.server_profile().refused_fields)

        def send() -> SaveContentEntityResponse | SaveContentEntityReceiptResponse:
            return self.client.save_content_entity(
                _without_fields(data, refused), **_without_fields(extra, refused)
            )

        # The server may name, one refusal at a time, each field it does not know: every
        # field sent is dropped at most once (and never sent to this server again).
        for _attempt in range(len(data) + len(extra) + 1):
            try:
                entity_response = send()
                break
            except ValidationError as exc:
                field_name = refused_field(exc.message, data, extra)
                if field_name is None or field_name in refused:
                    raise
                _log.warning("the server refused the field %s; sending without it", field_name)
                self._remember_refused(field_name)
                refused.add(field_name)
        else:  # pragma: no cover - each pass drops a field the save holds, so the loop ends
            raise ValidationError("the server refused every field of the save")
        entity = (
            entity_response.entity
            if isinstance(entity_response, SaveContentEntityResponse)
            else None
        )
        return _with_links(entity, data) if entity is not None else None

    def _entity_request(self, op: OutboxOp) -> tuple[JsonObject, JsonObject]:
        """The ``data`` of an entity save and its top-level fields, as the first-party app
        sends them: a client ``data.id`` (the same on every retry, so a retry after a lost
        answer is the same save), links in ``relatedContentIds`` and the source named by
        ``sourceContentExternalId``; ``reference_content_ids`` is kept for servers that read it.
        """
        # A reply to a note sent earlier in this queue names the note's server id by now.
        data = resolve_pending_parents(dict(op.payload or {}), self.outbox)
        if op.external_id and not data.get("external_id"):
            data["external_id"] = op.external_id
        if not isinstance(data.get("id"), str) or not data["id"]:
            data["id"] = client_entity_id(op)
        extra: JsonObject = {}
        target = data.get("target_id")
        if data.get("type") == "selector" and isinstance(target, str) and target:
            # The first-party app names the item a highlight is in at the top level too.
            extra["sourceContentId"] = target
        links = [item for item in data.get("reference_content_ids") or [] if isinstance(item, str)]
        if links:
            extra["relatedContentIds"] = links
            source = self.reader.raw_json(links[0]) or {}
            external = source.get("external_id")
            if isinstance(external, str) and external:
                extra["sourceContentExternalId"] = external
        return data, extra

    def _remember_refused(self, field_name: str) -> None:
        """Keep a refused field out of this server's saves from now on."""
        profile = self.server_profile()
        if field_name not in profile.refused_fields:
            profile.refused_fields.append(field_name)
            self._save_profile()

    def _next_wait(self, now: float) -> float | None:
        """Seconds until the next queued operation is due, or ``None`` when none is queued."""
        due = [op.next_attempt_at for op in self.outbox.list(states=["queued"])]
        if not due:
            return None
        earliest_s = min(due) / 1000.0  # the outbox keeps epoch milliseconds
        return max(earliest_s - now, 0.0)

    def _drain_report(
        self,
        outcome: SyncOutcome,
        sent: int,
        attention: int,
        changes: ChangeSet,
        error: BaseException | None,
    ) -> SyncReport:
        """The report of a drain."""
        return SyncReport(
            outcome,
            sent=sent,
            needs_attention=attention,
            changes=changes,
            error=error,
            meta=self.last_meta,
        )


class _PassSeen:
    """What a pull has seen: every id shown to exist, the types listed, the dates covered."""

    def __init__(self) -> None:
        self.ids = SeenIds()
        self.types: set[str] = set()
        self.listed_types: set[str] = set()  # of results only (not nested or referenced)
        self.listed = 0
        self.oldest_created: int | None = None
        self.newest_created: int | None = None

    def add(self, page: SearchRawPage) -> None:
        """Take in one page (results, nested and referenced items, every id of each)."""
        for entity in _page_entities(page):
            self.ids.add(entity["id"])
            self.ids.update(other_ids(entity))
            if isinstance(entity.get("type"), str):
                self.types.add(entity["type"])
        self.listed += len(page.results)
        for entity in page.results:
            if isinstance(entity.get("type"), str):
                self.listed_types.add(entity["type"])
            created = epoch_ms(entity.get("created_at"))
            if created is not None:
                self.oldest_created = _min_opt(self.oldest_created, created)
                self.newest_created = _max_opt(self.newest_created, created)

    def add_ids(self, page: SearchRawPage) -> None:
        """Take in only the ids of a page read besides the listing (by type): they exist,
        but the page says nothing of which types or dates the listing covered."""
        for entity in _page_entities(page):
            self.ids.add(entity["id"])
            self.ids.update(other_ids(entity))

    @staticmethod
    def oldest_on(page: SearchRawPage) -> int | None:
        """The oldest ``created_at`` among a page's results."""
        times = [epoch_ms(entity.get("created_at")) for entity in page.results]
        return min((t for t in times if t is not None), default=None)


class DeletionGuard:
    """Marks items deleted upstream only when a complete pass proves it, twice.

    An item is marked when missing from two consecutive complete passes, only when the
    pass listed its type at all, and never when it is older than the oldest item the pass
    saw (a listing that ends early proves nothing about older items). A pass that would mark
    more than :func:`deletion_limit` items marks nothing and records how many it held back,
    for the person to confirm (``sync --full --confirm-deletions``, or the window's banner).
    """

    def __init__(self, engine: SyncEngine, *, confirm: bool) -> None:
        self._engine = engine
        self._confirm = confirm
        self.marked = 0
        self.held = 0

    def reconcile(self, seen: _PassSeen) -> ChangeSet:
        """Compare a complete pass with the cache; mark what is proven gone."""
        engine = self._engine
        missing = self._missing(seen)
        before = set(_json_list(engine.reader.sync_state(STATE_MISSING_ONCE)))
        twice = sorted(missing & before)
        engine._set_state(STATE_MISSING_ONCE, json.dumps(sorted(missing)))
        if not twice:
            engine._set_state(STATE_DELETIONS_HELD, "")
            return ChangeSet.empty()
        library = engine.reader.stats().entities
        if len(twice) > deletion_limit(library) and not self._confirm:
            self.held = len(twice)
            _log.warning("%d items look deleted upstream; held back for confirmation", self.held)
            engine._set_state(
                STATE_DELETIONS_HELD,
                json.dumps({"count": self.held, "library": library, "at_ms": engine._now_ms()}),
            )
            return ChangeSet.empty()
        engine._set_state(STATE_DELETIONS_HELD, "")
        self.marked = len(twice)
        return engine.writer.mark_deleted_upstream(twice).result()

    def forget_seen(self, seen: _PassSeen) -> None:
        """After a pass that proves nothing: items it saw are not missing any more."""
        engine = self._engine
        before = _json_list(engine.reader.sync_state(STATE_MISSING_ONCE))
        if before:
            kept = [entity_id for entity_id in before if entity_id not in seen.ids]
            if len(kept) != len(before):
                engine._set_state(STATE_MISSING_ONCE, json.dumps(kept))

    def _missing(self, seen: _PassSeen) -> set[str]:
        """Ids held locally (and not already marked) that the pass could have listed but
        did not."""
        engine = self._engine
        if seen.oldest_created is None:
            return set()
        already = {row.id for row in engine.reader.deleted_upstream(limit=ALL_IDS_LIMIT)}
        # Read a batch at a time and filtered as they are read: not a second collection of
        # every cached id beside the pass's own at the end of a full sync.
        candidates = {
            entity_id
            for batch in engine.reader.ids_in_batches()
            for entity_id in batch
            if entity_id not in seen.ids and entity_id not in already
        }
        if not candidates:
            return candidates
        # A save the server accepted is not listed until it is processed: not gone, just new.
        in_flight = {op.entity_id for op in engine.outbox.list(states=["accepted"])}
        rows = engine.reader.get_many(candidates)
        return {
            entity_id
            for entity_id in candidates - in_flight
            if (row := rows.get(entity_id)) is not None
            and row.status in _SETTLED_STATUSES
            and row.type in seen.types
            and row.created_at is not None
            and row.created_at >= seen.oldest_created
        }


def deletion_limit(library_size: int) -> int:
    """How many deletions one pass may mark without asking: 2% of the library, at most 200,
    and at least a few (so a small library can lose an item without a question)."""
    return min(DELETION_MAX, max(DELETION_FLOOR, int(library_size * DELETION_SHARE)))


def held_deletions(text: str | None) -> int:
    """How many deletions the last pass held back (from its sync_state value)."""
    if not text:
        return 0
    try:
        data = json.loads(text)
        return int(data["count"]) if isinstance(data, dict) else 0
    except (ValueError, KeyError, TypeError):
        return 0


def _json_list(text: str | None) -> list[str]:
    """A JSON list of strings from sync_state ([] when absent or unreadable)."""
    if not text:
        return []
    try:
        data = json.loads(text)
    except ValueError:
        return []
    return [item for item in data if isinstance(item, str)] if isinstance(data, list) else []


def _for_sync(exc: BaseException) -> BaseException:
    """The error a sync reports: a request the server refused means it is incompatible."""
    if isinstance(exc, ValidationError) and not isinstance(exc, ServerIncompatible):
        return ServerIncompatible(exc.message, status_code=exc.status_code)
    return exc


# Where a refusal names the field: ``Unknown field: x``, zod's ``Unrecognized key(s) in
# object: 'x'``, ``unexpected property "x"`` ...
_REFUSED_FIELD = re.compile(
    r"(?:unknown|unrecognized|unexpected|unsupported|not allowed)[^:'\"`]*"
    r"(?::\s*|\s+)['\"`]?(?:data\.)?([A-Za-z_][\w]*)",
    re.IGNORECASE,
)
# The namespace of client ids derived for entity saves queued before they carried one.
_CLIENT_ID_NAMESPACE = uuid.UUID("6f1c3a52-8f0e-4f57-9a8c-2b7d9e1f4c30")


def refused_field(message: str, data: JsonObject, extra: JsonObject) -> str | None:
    """The field a 400 says the server does not know, when it is one this save sent."""
    for match in _REFUSED_FIELD.finditer(message or ""):
        name = match.group(1)
        if name in extra or (name in data and name not in ("type", "id")):
            return name
    return None


def _without_fields(values: JsonObject, refused: set[str]) -> JsonObject:
    """``values`` without the fields the server refused (named alike wherever they sit)."""
    if not refused:
        return values
    return {key: value for key, value in values.items() if key not in refused}


def client_entity_id(op: OutboxOp) -> str:
    """The client ``data.id`` of a queued entity save: stable for the row, so every retry is
    the same save (rows queued before saves carried one derive it from their external id)."""
    payload_id = (op.payload or {}).get("id")
    if isinstance(payload_id, str) and payload_id:
        return payload_id
    return str(uuid.uuid5(_CLIENT_ID_NAMESPACE, op.external_id or f"outbox-{op.id}"))


def _expected_entity_id(op: OutboxOp) -> str | None:
    """The id a save will be listed under when its answer could not be read."""
    return client_entity_id(op) if op.kind != "save_url" else None


def _with_links(entity: ContentEntityBase, data: JsonObject) -> ContentEntityBase:
    """The saved note (or highlight) as the cache keeps it: with the links it was sent with,
    when the server's answer leaves them out (first-party answers drop
    ``reference_content_ids``; a highlight is kept on the item it was made in)."""
    if entity.type == "selector":
        target = data.get("target_id")
        if entity.raw.get("target_id") or not isinstance(target, str) or not target:
            return entity
        return parse_content_entity({**entity.raw, "target_id": target})
    sent = data.get("reference_content_ids")
    if entity.type != "annotation" or entity.raw.get("reference_content_ids") or not sent:
        return entity
    return parse_content_entity({**entity.raw, "reference_content_ids": sent})


def _min_opt(a: int | None, b: int | None) -> int | None:
    """The smaller of two optional numbers."""
    if a is None:
        return b
    if b is None:
        return a
    return min(a, b)


class _WriteQueue:
    """Pages queued at the store writer, each followed by its bookmark once it committed.

    Up to :data:`WRITES_AHEAD` pages wait behind the one being written, so the writer never
    idles waiting for this thread; a page's bookmark (the resume offset after it) is queued
    only after that page's commit succeeded, so a failed write is never skipped on resume.
    """

    def __init__(self, writer: StoreWriter, key: str | None) -> None:
        self._writer = writer
        self._key = key
        self._pages: deque[tuple[Future[ChangeSet], str | None]] = deque()
        self._bookmarks: deque[Future[ChangeSet]] = deque()
        # Merged as pages commit: kept apart, the ten thousand pages of a million items held
        # a set of their own each until the end.
        self._committed = ChangeAccumulator()

    def push(self, response: SearchRawPage, bookmark: str | None) -> None:
        """Queue a page, waiting while more than WRITES_AHEAD pages are ahead of it."""
        self._pages.append((self._writer.ingest_search_page(response), bookmark))
        while len(self._pages) > WRITES_AHEAD:
            self._commit_oldest()

    def drain(self) -> ChangeSet:
        """Wait for every queued page and bookmark (a store error is raised here); what all
        the pages committed so far changed."""
        try:
            while self._pages:
                self._commit_oldest()
            while self._bookmarks:
                self._committed.add(self._bookmarks.popleft().result())
        finally:
            changes = self._committed.result()
        return changes

    def _commit_oldest(self) -> None:
        """Wait for the oldest page; then queue its bookmark."""
        future, bookmark = self._pages.popleft()
        self._committed.add(future.result())
        while self._bookmarks and self._bookmarks[0].done():
            self._committed.add(self._bookmarks.popleft().result())
        if self._key is not None and bookmark is not None:
            self._bookmarks.append(self._writer.set_sync_state(self._key, bookmark))


def _max_opt(a: int | None, b: int | None) -> int | None:
    """The larger of two optional numbers."""
    if a is None:
        return b
    if b is None:
        return a
    return max(a, b)


def _emit(
    progress: ProgressCallback | None, phase: str, done: int, total: int | None, message: str
) -> None:
    """Report progress when someone listens."""
    if progress is not None:
        progress(SyncProgress(phase, done, total, message))


def _emit_sending(progress: ProgressCallback | None, sent: int, unsent: int, total: int) -> None:
    """Report what a drain has done so far: ``2 saves sent``, ``1 save sent, 1 not sent``."""
    if not unsent:
        words = f"{counted(sent, 'save')} sent"
    elif not sent:
        words = f"{counted(unsent, 'save')} not sent"
    else:
        words = f"{counted(sent, 'save')} sent, {unsent:,} not sent"
    _emit(progress, "outbox", sent, max(total, sent), words)


def _waiting_progress(
    progress: ProgressCallback | None, seen: _PassSeen
) -> Callable[[float], None] | None:
    """What tells the listener that a pull waits for a server that refused it for its load."""
    if progress is None:
        return None

    def waiting(wait_s: float) -> None:
        items = counted(seen.listed, "item")
        words = f"{items} so far; the server asked to slow down, asking again in {wait_s:.0f} s"
        progress(SyncProgress("pull", seen.listed, None, words, waiting_s=wait_s))

    return waiting


def _answered_success(exc: ApiError) -> bool:
    """Whether the server had answered 2xx before its answer became unreadable."""
    return exc.status_code is not None and 200 <= exc.status_code < 300


def _unreachable(exc: NetworkUnavailable) -> bool:
    """Whether the server was not reached at all (connection refused, DNS, connect timeout)."""
    import httpx  # the client that raised this has loaded it (see the module's imports)

    return isinstance(exc.__cause__, httpx.ConnectError | httpx.ConnectTimeout)


def _reason(exc: BaseException) -> OutboxFailure:
    """Why a send failed, as the outbox keeps it: the kind the person's words are chosen by,
    and the server's message (API errors never carry a credential)."""
    return OutboxFailure(error_kind(exc), getattr(exc, "message", None) or str(exc))
