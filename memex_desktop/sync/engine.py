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
import queue
import random
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

import httpx

from memex_desktop.api.client import MemexClient
from memex_desktop.api.errors import (
    ApiError,
    AuthError,
    ContractError,
    InsufficientCredits,
    NetworkUnavailable,
    RateLimited,
    ValidationError,
)
from memex_desktop.api.models import (
    ContentEntityBase,
    JsonObject,
    ReferenceId,
    ResultReferences,
    SaveContentByUrlResponse,
    SaveContentEntityResponse,
    SearchMeta,
    SearchRawPage,
)
from memex_desktop.store import CacheReader, ChangeSet, Outbox, OutboxOp, StoreWriter
from memex_desktop.sync.pending_parents import resolve_pending_parents
from memex_desktop.sync.types import (
    SyncCancelled,
    SyncOutcome,
    SyncProgress,
    SyncReport,
    outcome_for,
)

_log = logging.getLogger(__name__)

ProgressCallback = Callable[[SyncProgress], None]

# sync_state keys (in cache.db; losing them only costs a re-fetch).
STATE_FULL_PASS = "sync.full_pass"
STATE_NEWEST_MS = "sync.newest_ms"
STATE_LAST_FULL_MS = "sync.last_full_pass_at_ms"
STATE_LAST_SYNC_MS = "sync.last_sync_at_ms"
# Why the last pull could not read the saved views / followed feeds ("" when it could): the
# sidebar says so instead of showing an empty section.
STATE_VIEWS_PROBLEM = "sync.views_problem"
STATE_FEEDS_PROBLEM = "sync.feeds_problem"

# A server that ignores ``offset`` would page forever; no library is this large.
MAX_PAGES = 1_000_000
# Pages fetched and parsed ahead of the one being handed to the writer, and pages queued at
# the writer behind the one it is writing: enough to keep both sides busy, few enough that
# memory stays bounded (a parsed page of 100 long items is some 10-20 MB).
PREFETCH_PAGES = 2
WRITES_AHEAD = 2
# How often a fetcher blocked on a full queue checks whether the pull was abandoned.
_FETCH_POLL_S = 0.1
# Requests under way at once in a full pass (which reads every page anyway); an incremental
# pull, which usually stops after a page or two, asks for one page at a time.
FULL_PASS_IN_FLIGHT = 2
ALL_IDS_LIMIT = 10_000_000
# Processing statuses of items the server lists; others (pending, running ...) are unlisted.
_SETTLED_STATUSES = frozenset({None, "indexing-done", "done", "failed", "error"})


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

    def dump(self) -> str:
        """The state as JSON for sync_state."""
        return json.dumps(
            {"id": self.pass_id, "offset": self.offset, "started_at_ms": self.started_at_ms}
        )

    @classmethod
    def load(cls, text: str | None) -> _PassState | None:
        """The persisted state, or ``None`` when no pass is in progress (or it is unreadable)."""
        if not text:
            return None
        try:
            data = json.loads(text)
            return cls(str(data["id"]), int(data["offset"]), int(data.get("started_at_ms", 0)))
        except (ValueError, KeyError, TypeError):
            _log.warning("unreadable full-pass state ignored: %.100r", text)
            return None


def entity_time_ms(entity: JsonObject) -> int | None:
    """The newest of ``updated_at`` and ``created_at`` in epoch milliseconds, when known."""
    best: int | None = None
    for value in (entity.get("updated_at"), entity.get("created_at")):
        ms = _to_epoch_ms(value)
        if ms is not None and (best is None or ms > best):
            best = ms
    return best


def _to_epoch_ms(value: object) -> int | None:
    """Epoch milliseconds from a number or an ISO string (older payloads use strings)."""
    if not isinstance(value, int | float | str) or isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return int(value)
    try:
        return int(float(value))
    except ValueError:
        pass
    try:
        return int(datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp() * 1000)
    except ValueError:
        return None


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


def _page_entity_ids(page: SearchRawPage) -> set[str]:
    """Every entity id a page shows to exist on the server (results and everything nested)."""
    return {entity["id"] for entity in _page_entities(page)}


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
        if entity.get("type") == "annotation" and targets:
            parent_of.setdefault(entity["id"], targets[0])
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
    ) -> None:
        """Wire the collaborators; ``clock`` and ``rand`` are injectable for tests."""
        if page_size < 1:
            raise ValueError("page_size must be positive")
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
        self.last_meta: SearchMeta | None = None

    # ------------------------------------------------------------------ the whole run

    def run(
        self,
        *,
        full: bool = False,
        cancel: threading.Event | None = None,
        progress: ProgressCallback | None = None,
        resume_paused_outbox: bool = False,
    ) -> SyncReport:
        """Drain the outbox, pull (full or incremental; reconciling when due), confirm saves.

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
        pulled = self.pull(full=full, cancel=cancel, progress=progress)
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
    ) -> SyncReport:
        """Pull pages into the cache: a full pass (resumed if one was interrupted) or new items.

        A full pass runs when asked, when one was interrupted, on the first sync and when the
        reconciliation interval has passed; otherwise pages are pulled until one is older
        than the newest item held.
        """
        cancel = cancel or threading.Event()
        interrupted = _PassState.load(self.reader.sync_state(STATE_FULL_PASS))
        newest = _to_epoch_ms(self.reader.sync_state(STATE_NEWEST_MS))
        if full or interrupted is not None or newest is None or self.reconcile_due():
            return self._full_pass(interrupted, cancel, progress)
        return self._incremental(newest, cancel, progress)

    def reconcile(
        self, *, cancel: threading.Event | None = None, progress: ProgressCallback | None = None
    ) -> SyncReport:
        """A complete id pass that marks items gone from the server as deleted upstream."""
        return self.pull(full=True, cancel=cancel, progress=progress)

    def reconcile_due(self) -> bool:
        """Whether the last complete pass is older than the reconciliation interval."""
        last = _to_epoch_ms(self.reader.sync_state(STATE_LAST_FULL_MS))
        if last is None:
            return True
        return self._now_ms() - last >= self.reconcile_interval_s * 1000

    def _now_ms(self) -> int:
        """The injectable clock in epoch milliseconds."""
        return int(self._clock() * 1000)

    def _fetch_page(self, offset: int) -> SearchRawPage:
        """One page of the whole library, newest first, notes included."""
        response = self.client.search_raw_page(
            "",
            limit=self.page_size,
            offset=offset,
            sort_by="date-desc",
            include_notes=True,
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

    def _page_is_last(self, response: SearchRawPage) -> bool:
        """A page with fewer results than the limit the server applied ends the listing."""
        applied = response.meta.limit or self.page_size
        return not response.results or len(response.results) < min(applied, self.page_size)

    def _full_pass(
        self,
        interrupted: _PassState | None,
        cancel: threading.Event,
        progress: ProgressCallback | None,
    ) -> SyncReport:
        """Page through the whole library from the persisted offset; reconcile when complete."""
        state = interrupted or _PassState(uuid.uuid4().hex, 0, self._now_ms())
        # Ids seen before a crash are not known to this process, so a resumed pass cannot
        # prove an item is gone; only a pass seen whole from offset 0 may mark deletions.
        whole = state.offset == 0
        # Items deleted upstream meanwhile shift the listing up; re-reading one page (which
        # ingests as no change) keeps a few such deletions from skipping live items.
        state.offset = max(0, state.offset - self.page_size)
        if interrupted is None:
            self._set_state(STATE_FULL_PASS, state.dump())
        seen: set[str] = set()
        changes = ChangeSet.empty()
        pulled = 0
        newest: int | None = None
        estimate = self._estimate_total()
        # Pages are fetched ahead on a helper thread and queued at the writer without waiting
        # for the previous commit; the offset after a page is persisted only once that page
        # has committed, so a crash or a failed write never resumes past a missing page.
        writes = _WriteQueue(self.writer, STATE_FULL_PASS)
        try:
            pages = self._pages(state.offset, cancel, self._page_is_last, FULL_PASS_IN_FLIGHT)
            for response in pages:
                seen |= _page_entity_ids(response)
                newest = _max_opt(newest, _newest_in(response.results))
                pulled += len(response.results)
                state.offset += len(response.results)
                writes.push(without_listed_notes(response), state.dump())
                estimate = max(estimate or 0, state.offset) or None
                _emit(progress, "pull", state.offset, estimate, f"{state.offset} items")
            changes |= writes.drain()
        except (ApiError, SyncCancelled) as exc:
            changes |= writes.drain()  # pages already fetched are kept
            return SyncReport(
                outcome_for(exc), pulled=pulled, changes=changes, meta=self.last_meta, error=exc
            )
        deleted = 0
        if whole:
            _emit(progress, "reconcile", len(seen), len(seen), "checking for deleted items")
            gone = self._gone_upstream(seen)
            if gone:
                changes |= self.writer.mark_deleted_upstream(sorted(gone)).result()
                deleted = len(gone)
        changes |= self._pull_views_and_feeds()
        self._finish_pull(newest, full_pass_started_ms=state.started_at_ms)
        self._set_state(STATE_FULL_PASS, "")
        self._confirm_seen(seen)
        return SyncReport(
            SyncOutcome.OK,
            pulled=pulled,
            changes=changes,
            meta=self.last_meta,
            deleted_upstream=deleted,
            full_pass_completed=True,
        )

    def _incremental(
        self, newest_held: int, cancel: threading.Event, progress: ProgressCallback | None
    ) -> SyncReport:
        """Pull the newest pages until a whole page is no newer than what the cache holds."""
        offset = 0
        seen: set[str] = set()
        changes = ChangeSet.empty()
        newest: int | None = newest_held
        writes = _WriteQueue(self.writer, None)

        def is_last(response: SearchRawPage) -> bool:
            page_newest = _newest_in(response.results)
            old = page_newest is not None and page_newest <= newest_held
            return old or self._page_is_last(response)

        try:
            for response in self._pages(0, cancel, is_last):
                seen |= _page_entity_ids(response)
                newest = _max_opt(newest, _newest_in(response.results))
                offset += len(response.results)
                writes.push(without_listed_notes(response), None)
                _emit(progress, "pull", offset, None, f"{offset} new or changed items checked")
            changes |= writes.drain()
        except (ApiError, SyncCancelled) as exc:
            changes |= writes.drain()
            return SyncReport(
                outcome_for(exc), pulled=offset, changes=changes, meta=self.last_meta, error=exc
            )
        changes |= self._pull_views_and_feeds()
        self._finish_pull(newest, full_pass_started_ms=None)
        self._confirm_seen(seen)
        return SyncReport(SyncOutcome.OK, pulled=offset, changes=changes, meta=self.last_meta)

    def _pages(
        self,
        offset: int,
        cancel: threading.Event,
        is_last: Callable[[SearchRawPage], bool],
        in_flight: int = 1,
    ) -> Iterator[SearchRawPage]:
        """Pages from ``offset`` on until ``is_last``, fetched and parsed up to
        :data:`PREFETCH_PAGES` ahead on a helper thread while the caller handles earlier ones
        (with up to ``in_flight`` requests at once: see :class:`_PageFetcher`).

        Raises:
            SyncCancelled: between pages, once ``cancel`` is set.
            ApiError: when a page cannot be fetched.
        """
        if cancel.is_set():
            raise SyncCancelled()
        fetcher = _PageFetcher(self._fetch_page, offset, cancel, is_last, in_flight)
        try:
            for _ in range(MAX_PAGES):
                response, last = fetcher.next()
                yield response
                if last:
                    return
                if cancel.is_set():
                    raise SyncCancelled()
        finally:
            fetcher.stop()
        raise ContractError(f"the server kept returning pages after {MAX_PAGES} of them")

    def _estimate_total(self) -> int | None:
        """How many items the library probably holds: what the cache holds, if anything."""
        entities = self.reader.stats().entities
        return entities or None

    def _gone_upstream(self, seen: set[str]) -> set[str]:
        """Ids held locally (and not already marked) that a complete pass did not return."""
        held = set(self.reader.all_ids(ALL_IDS_LIMIT))
        already = {row.id for row in self.reader.deleted_upstream(limit=ALL_IDS_LIMIT)}
        candidates = held - seen - already
        if not candidates:
            return candidates
        # A save the server accepted is not listed until it is processed: not gone, just new.
        in_flight = {op.entity_id for op in self.outbox.list(states=["accepted"])}
        rows = self.reader.get_many(candidates)
        return {
            entity_id
            for entity_id in candidates - in_flight
            if entity_id in rows and rows[entity_id].status in _SETTLED_STATUSES
        }

    def _pull_views_and_feeds(self) -> ChangeSet:
        """Refresh saved views and followed feeds (small lists; a failure only logs).

        Their shapes are not documented (memex-api.md §7), so a drift must not fail a sync
        whose library pull worked.
        """
        changes = ChangeSet.empty()
        try:
            views = self.client.list_views()
            feeds = self.client.list_feeds()
        except ApiError as exc:
            _log.warning("views and feeds not refreshed: %s", _reason(exc))
            return changes
        if views:
            changes |= self.writer.upsert_views(views).result()
        if feeds:
            changes |= self.writer.upsert_feeds(feeds).result()
        return changes

    def _finish_pull(self, newest: int | None, *, full_pass_started_ms: int | None) -> None:
        """Persist the watermark (only after a complete pull) and when the pass finished."""
        now = str(self._now_ms())
        if newest is not None:
            self._set_state(STATE_NEWEST_MS, str(newest))
        if full_pass_started_ms is not None:
            self._set_state(STATE_LAST_FULL_MS, now)
        self._set_state(STATE_LAST_SYNC_MS, now)

    def _confirm_seen(self, seen: set[str]) -> None:
        """Saves the server accepted and a pull has now returned become confirmed."""
        accepted = self.outbox.list(states=["accepted"])
        ids = {op.entity_id for op in accepted if op.entity_id and op.entity_id in seen}
        if ids:
            self.outbox.confirm_seen(ids, set())

    # ------------------------------------------------------------------ remote search

    def remote_search(
        self, query: str, *, limit: int = 50, **filters: Any
    ) -> tuple[list[str], ChangeSet]:
        """Search on the server; results are cached first (cache-on-view), ids in server order."""
        response = self.client.search_raw_page(query, limit=limit, include_notes=True, **filters)
        self.last_meta = response.meta
        changes = self._ingest(response)
        return list(dict.fromkeys(entity["id"] for entity in response.results)), changes

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
            # An operation left "sending" by a killed process may or may not have reached the
            # server; sending it again is safe because saves are idempotent by identity.
            self.outbox.recover_after_crash()
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
        while True:
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
            try:
                entity = self._send(op)
            except NetworkUnavailable as exc:
                delay = self.outbox_policy.backoff_s(op.attempts, self._rand)
                if _unreachable(exc):
                    # Nothing reached the server: offline. The save waits for the next sync.
                    self.outbox.mark_failed_retryable(op.id, _reason(exc), self._clock())
                    return self._drain_report(SyncOutcome.OFFLINE, sent, attention, changes, exc)
                # The connection broke after the request went out: the save may even have been
                # applied. Resending is safe (idempotent by identity), after a backoff.
                last_failure = exc
                self.outbox.mark_failed_retryable(op.id, _reason(exc), self._clock() + delay)
                continue
            except AuthError as exc:
                # Not this save's fault: put it back as it was and stop until the key is fixed.
                self.outbox.mark_failed_retryable(op.id, _reason(exc), self._clock())
                return self._drain_report(outcome_for(exc), sent, attention, changes, exc)
            except InsufficientCredits as exc:
                self.outbox.mark_failed_retryable(op.id, _reason(exc), self._clock())
                self.outbox.pause(_reason(exc))
                self._attach_plans(exc)
                return self._drain_report(
                    SyncOutcome.INSUFFICIENT_CREDITS, sent, attention, changes, exc
                )
            except ValidationError as exc:
                self.outbox.mark_needs_attention(op.id, exc.message or _reason(exc))
                attention += 1
                continue
            except ApiError as exc:
                last_failure = exc
                delay = self.outbox_policy.backoff_s(op.attempts, self._rand)
                if isinstance(exc, RateLimited) and exc.retry_after is not None:
                    delay = max(delay, exc.retry_after)
                self.outbox.mark_failed_retryable(op.id, _reason(exc), self._clock() + delay)
                continue
            sent += 1
            if entity is not None:
                changes |= self.writer.ingest_entities([entity]).result()
            self.outbox.mark_accepted(op.id, entity.id if entity is not None else None)
            _emit(progress, "outbox", sent, max(total, sent), f"{sent} saves sent")

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
        # A reply to a note sent earlier in this queue names the note's server id by now.
        payload = resolve_pending_parents(dict(op.payload or {}), self.outbox)
        if op.external_id and not payload.get("external_id"):
            payload["external_id"] = op.external_id
        entity_response = self.client.save_content_entity(payload)
        if isinstance(entity_response, SaveContentEntityResponse):
            return entity_response.entity
        return None

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


class _PageFetcher:
    """A helper thread fetching pages in order into a bounded queue.

    The next offset depends on how many results the previous page held (a server may cap
    the page size). Once a full page showed that size, up to ``in_flight`` requests run at
    once at the offsets it predicts, so the server prepares a page while this side reads
    the one before; a page of another size drops the predictions and paging goes on from
    its real end. The queue bounds how far ahead pages are read.
    """

    def __init__(
        self,
        fetch: Callable[[int], SearchRawPage],
        offset: int,
        cancel: threading.Event,
        is_last: Callable[[SearchRawPage], bool],
        in_flight: int = 1,
    ) -> None:
        self._fetch = fetch
        self._offset = offset
        self._cancel = cancel
        self._is_last = is_last
        self._in_flight = max(1, in_flight)
        self._stopped = threading.Event()
        self._queue: queue.Queue[tuple[SearchRawPage, bool] | BaseException] = queue.Queue(
            maxsize=PREFETCH_PAGES
        )
        self._thread = threading.Thread(target=self._run, name="memex-sync-fetch", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        """Fetch until the last page, an error, a cancel or :meth:`stop`."""
        requests = ThreadPoolExecutor(self._in_flight, thread_name_prefix="memex-sync-request")
        ahead: deque[tuple[int, Future[SearchRawPage]]] = deque()
        stride: int | None = None  # results per page, once a full page showed it
        try:
            while not self._stopped.is_set():
                while len(ahead) < (self._in_flight if stride else 1):
                    offset = ahead[-1][0] + stride if ahead and stride else self._offset
                    ahead.append((offset, requests.submit(self._fetch, offset)))
                requested, future = ahead.popleft()
                try:
                    response = future.result()
                    last = self._is_last(response)
                except BaseException as exc:  # handed to the consumer, which raises it
                    self._put(exc)
                    return
                count = len(response.results)
                self._offset = requested + count
                if count != stride:
                    _cancel_all(ahead)  # predicted from another page size
                    stride = count or None
                if not self._put((response, last)) or last:
                    return
                if self._cancel.is_set():
                    return  # the consumer raises SyncCancelled after the pages it has
        finally:
            _cancel_all(ahead)
            requests.shutdown(wait=True, cancel_futures=True)

    def _put(self, item: tuple[SearchRawPage, bool] | BaseException) -> bool:
        """Queue an item, waiting for room; ``False`` when the consumer went away."""
        while not self._stopped.is_set():
            try:
                self._queue.put(item, timeout=_FETCH_POLL_S)
            except queue.Full:
                continue
            return True
        return False

    def next(self) -> tuple[SearchRawPage, bool]:
        """The next page and whether it is the last one (a fetch error is raised here)."""
        while True:
            try:
                item = self._queue.get(timeout=_FETCH_POLL_S)
            except queue.Empty:
                if not self._thread.is_alive() and self._queue.empty():
                    # Stopped on a cancel before queueing anything more.
                    raise SyncCancelled() from None
                continue
            if isinstance(item, BaseException):
                raise item
            return item

    def stop(self) -> None:
        """Stop fetching and wait for the thread (at most the request under way)."""
        self._stopped.set()
        self._thread.join()


def _cancel_all(ahead: deque[tuple[int, Future[SearchRawPage]]]) -> None:
    """Drop requests made ahead (those already under way finish; their pages are unused)."""
    while ahead:
        ahead.popleft()[1].cancel()


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
        self._committed: list[ChangeSet] = []

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
                self._committed.append(self._bookmarks.popleft().result())
        finally:
            # Merged once: a whole library's ids, re-copied after every page, cost seconds.
            changes = ChangeSet.merge(self._committed)
            self._committed = [changes]
        return changes

    def _commit_oldest(self) -> None:
        """Wait for the oldest page; then queue its bookmark."""
        future, bookmark = self._pages.popleft()
        self._committed.append(future.result())
        while self._bookmarks and self._bookmarks[0].done():
            self._committed.append(self._bookmarks.popleft().result())
        if self._key is not None and bookmark is not None:
            self._bookmarks.append(self._writer.set_sync_state(self._key, bookmark))


def _newest_in(entities: Iterable[JsonObject]) -> int | None:
    """The newest timestamp on a page."""
    best: int | None = None
    for entity in entities:
        best = _max_opt(best, entity_time_ms(entity))
    return best


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


def _unreachable(exc: NetworkUnavailable) -> bool:
    """Whether the server was not reached at all (connection refused, DNS, connect timeout)."""
    return isinstance(exc.__cause__, httpx.ConnectError | httpx.ConnectTimeout)


def _reason(exc: BaseException) -> str:
    """A short reason kept with an outbox operation (never a credential)."""
    text = getattr(exc, "message", None) or str(exc)
    return f"{type(exc).__name__}: {text}"[:500]
