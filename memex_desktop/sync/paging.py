"""Paging through the library without trusting page length (DESIGN.md §3).

First-party listings drop rows after the SQL LIMIT and echo the limit that was asked for, so a
short page is not the end: a pass ends on an EMPTY page only. Ids are de-duplicated within a
pass; a page of ids all seen already means the server ignores ``offset`` (or reshuffles ties),
and paging goes on by time instead (``timeRange.end`` = the oldest ``created_at`` seen, as the
first-party feed does); a server that can be paged neither way is reported within three pages,
never hammered. The page cap is learned from repeated short pages; the page size halves when a
page fails for its size (an answer too slow to finish, 5xx, 413, an oversized body) and grows
back while pages come fast. A page met with silence ends the pass at once: the server is not
answering (the next pass asks for half as much). :class:`Pager` is the decision logic (no I/O);
:class:`PageFetcher` runs it on a helper thread, with requests sent ahead while the server
answers pages of a steady size (as many as an
:class:`~memex_desktop.sync.concurrency.InFlightLimit` allows).
"""

from __future__ import annotations

import itertools
import logging
import queue
import random
import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from memex_desktop.api.content import epoch_ms
from memex_desktop.api.errors import (
    ApiError,
    ContractError,
    NetworkUnavailable,
    ServerError,
    ServerIncompatible,
    ServerNotAnswering,
    ValidationError,
)
from memex_desktop.api.models import UNREADABLE_TYPE, SearchRawPage
from memex_desktop.api.retry import RetryPolicy
from memex_desktop.sync.concurrency import InFlightLimit
from memex_desktop.sync.patience import Patience, pushed_back
from memex_desktop.sync.server_profile import (
    FIRST_PAGE_SIZE,
    MIN_PAGE_SIZE,
    PagingMode,
    ServerProfile,
)
from memex_desktop.sync.types import SyncCancelled

_log = logging.getLogger(__name__)

# Pages fetched and parsed ahead of the one being handed to the writer: enough to keep both
# sides busy, few enough that memory stays bounded (a parsed page of 100 long items is some
# 10-20 MB).
PREFETCH_PAGES = 2
# How often a fetcher blocked on a full queue checks whether the pull was abandoned.
_FETCH_POLL_S = 0.1
# A page answered within this time counts towards growing the page size back.
FAST_PAGE_S = 2.0
FAST_PAGES_TO_GROW = 3
# Halvings of the page size within one pass before a failing page is reported instead.
MAX_SHRINKS = 4
# Pages in a row with nothing new before a pass gives up (each strategy above moves on
# after one or two; this bounds any combination of them).
MAX_STALE_PAGES = 8
# Readings of the items of one created_at instant (see Pager._scan_tie).
MAX_TIE_SCANS = 4
# Short pages before the largest of them is taken for the server's page cap.
CAP_AFTER_SHORT_PAGES = 3
# Unreadable pages in a row before the pass gives up (each is skipped, the pass not trusted).
MAX_MALFORMED_IN_A_ROW = 3
# How an unreadable page (cut-off JSON, garbage) is asked for again before it is skipped:
# the client's backoff for failed reads, since such a page is usually a passing fault.
UNREADABLE_PAGE_RETRY = RetryPolicy()


@dataclass(frozen=True)
class PageRequest:
    """One ``/search`` page: offset and limit, and the ``timeRange`` bounds (inclusive)."""

    offset: int
    limit: int
    end_ms: int | None = None
    start_ms: int | None = None

    def time_range(self) -> dict[str, int] | None:
        """The request's ``timeRange``, when it has one."""
        bounds = {
            key: value
            for key, value in (("start", self.start_ms), ("end", self.end_ms))
            if value is not None
        }
        return bounds or None


@dataclass
class Pager:
    """Decides each page request from the pages before it (not thread-safe; one pass).

    ``unreliable`` collects why this pass cannot prove anything is missing from the library
    (skipped items, unreadable pages, offset paging that repeated items). ``unread`` holds
    what pages were skipped unread: their items were never seen, so the position a pass
    resumes from stays at the first of them (see :meth:`bookmark`).
    """

    profile: ServerProfile
    max_size: int
    offset: int = 0
    end_ms: int | None = None
    start_ms: int | None = None
    mode: PagingMode = "offset"
    limit: int = 0
    seen: set[str] = field(default_factory=set)
    ended: bool = False
    pages: int = 0
    sent: int = 0
    unreliable: list[str] = field(default_factory=list)
    oldest_ms: int | None = None
    _previous_full: bool = False
    _short_pages: int = 0
    _tie: int | None = None
    _stale_pages: int = 0
    _tie_last_ids: list[str] = field(default_factory=list)
    _tie_fresh: bool = False
    _tie_scans: int = 0
    _outer_start: int | None = None
    _most_sent: int = 0
    _fast: int = 0
    _shrinks: int = 0
    _malformed_in_a_row: int = 0
    unread: UnreadPages | None = None

    def __post_init__(self) -> None:
        if self.limit <= 0:
            # A server not met before starts at a page size most servers take quickly.
            size = self.profile.page_size or FIRST_PAGE_SIZE
            self.limit = max(1, min(size, self.max_size, self.profile.page_cap or size))

    # ------------------------------------------------------------------ requests

    def request(self) -> PageRequest:
        """The next page to ask for."""
        limit = self.limit
        if self._tie is not None:
            # Each reading of tied items asks in other steps: a server whose order of ties
            # depends on the request then shows them in other orders.
            limit = max(MIN_PAGE_SIZE, self.limit - 3 * (self._tie_scans - 1))
        return PageRequest(self.offset, limit, self.end_ms, self.start_ms)

    def predicted(self, after: PageRequest) -> PageRequest | None:
        """The request after ``after`` if its page comes back full (offset paging only)."""
        if self.mode != "offset":
            return None
        return PageRequest(after.offset + after.limit, after.limit, after.end_ms, after.start_ms)

    def bookmark(self) -> dict[str, Any]:
        """Where a pass interrupted after the pages taken so far resumes: never past a page
        skipped unread, whose items would otherwise wait for the next whole pass."""
        if self.unread is not None:
            return dict(self.unread.resume_at)
        return {"mode": self.mode, "offset": self.offset, "end_ms": self.end_ms}

    # ------------------------------------------------------------------ answers

    def take(self, request: PageRequest, page: SearchRawPage, elapsed_s: float) -> bool:
        """Learn from the page answering ``request``; ``True`` when the listing has ended.

        Raises:
            ServerIncompatible: the server can be paged neither by offset nor by time.
        """
        if page.parse.problem is not None:
            self.malformed(request, page.parse.problem)
            return False
        self._malformed_in_a_row = 0
        sent = page.parse.sent
        self.pages += 1
        self.sent += sent
        if page.parse.skipped:
            self._distrust(f"the server sent {page.parse.skipped} items that are not entities")
        ids = _listed_ids(page)
        if sent and not ids:
            self.malformed(request, "no item on the page could be read")
            return False
        fresh = [entity_id for entity_id in ids if entity_id not in self.seen]
        self.seen.update(ids)
        # Readings of tied items go over seen ones by design, bounded on their own.
        stale = bool(ids) and not fresh and self._tie is None
        self._stale_pages = self._stale_pages + 1 if stale else 0
        if self._stale_pages >= MAX_STALE_PAGES:
            # Whatever the reason, a server that keeps sending what was seen is not paged on.
            raise ServerIncompatible(
                f"the server sent only items already seen on {self._stale_pages} pages in a row"
            )
        times = [t for t in (epoch_ms(e.get("created_at")) for e in page.results) if t is not None]
        if times:
            oldest_here = min(times)
            self.oldest_ms = (
                oldest_here if self.oldest_ms is None else min(self.oldest_ms, oldest_here)
            )
        if any(a < b for a, b in itertools.pairwise(times)):
            self.profile.date_ordered = False
        self._adapt_size(request, sent, elapsed_s)
        if self.mode == "offset":
            if sent == 0:
                self.ended = True
            else:
                self._take_by_offset(request, sent, ids, fresh, times)
        else:
            self._take_by_time(request, sent, ids, fresh, times)
        self._previous_full = sent >= request.limit
        return self.ended

    def _take_by_offset(
        self, request: PageRequest, sent: int, ids: list[str], fresh: list[str], times: list[int]
    ) -> None:
        if ids and not fresh:
            # The same items again at a new offset: the server ignores offset.
            self.profile.offset_honoured = False
            self._switch_to_time("the server ignores offset", skipped_some=False)
            return
        repeated = len(ids) - len(fresh)
        if fresh and repeated and (self._previous_full or not _seen_first(ids, repeated, fresh)):
            # After a full page the next offset starts past it: items seen again mean the
            # listing moved under the pass (ties reshuffled, items added), so some may have
            # been skipped. After a short page, rows the server dropped were counted by it but
            # not sent, so the page may start with a few items seen already; seen items
            # anywhere else mean the order moved.
            self._distrust("offset pages overlapped, so some items may have been skipped")
            if self.profile.time_paging is not False and self.profile.date_ordered is not False:
                self._switch_to_time("offset pages overlap", skipped_some=True)
                return
        # Advance by what was sent: a short page may be short because rows were dropped
        # after the server's LIMIT, and going by the limit would then skip real items.
        self.offset = request.offset + sent

    def _take_by_time(
        self, request: PageRequest, sent: int, ids: list[str], fresh: list[str], times: list[int]
    ) -> None:
        if self._tie is not None:
            self._scan_tie(request, sent, ids, fresh)
            return
        end = request.end_ms
        if sent == 0:
            if request.offset == 0:
                self.ended = True  # nothing at or before the boundary: the listing is done
            else:
                self._move_past(end)
            return
        if not times:
            raise ServerIncompatible(
                "the server's items carry no created_at, so the library cannot be paged by time"
            )
        oldest, newest = min(times), max(times)
        if end is not None and newest > end:
            self.profile.time_paging = False
            if not fresh:
                raise ServerIncompatible(
                    "the server ignores both offset and timeRange, so the library cannot be paged"
                )
        if end is not None and oldest == newest == end:
            # Every item of the page shares the boundary's created_at: more may share it than
            # a page holds. Read that instant alone, by offset, until it runs dry.
            self._start_tie_scan(end)
            return
        if fresh and (end is None or oldest < end):
            self.profile.time_paging = self.profile.time_paging is not False or None
            # Inclusive: the items tied at the boundary come again (and are de-duplicated)
            # rather than being skipped.
            self.end_ms = oldest
            self.offset = 0
            return
        # Nothing new before the boundary (its ties are all seen, or the rows after them were
        # dropped): look strictly before it.
        self._move_past(oldest if end is None or oldest < end else end)

    def _start_tie_scan(self, instant: int) -> None:
        """Page through the items created at ``instant`` (timeRange start = end)."""
        self._tie = instant
        self._tie_fresh = False
        self._tie_last_ids = []
        self._tie_scans = 1
        self._outer_start = self.start_ms
        self.start_ms = self.end_ms = instant
        self.offset = 0

    def _scan_tie(self, request: PageRequest, sent: int, ids: list[str], fresh: list[str]) -> None:
        """One page of a tie scan. A server may order tied items differently for every
        request (``ORDER BY created_at`` alone), so offset pages within them can skip some:
        the instant is read again while a reading finds anything new (a few times at most)."""
        if fresh:
            self._tie_fresh = True
        again = ids == self._tie_last_ids  # a server ignoring offset sends the same page
        self._tie_last_ids = ids
        if sent and not again:
            self.offset = request.offset + sent
            return
        # This reading is over.
        if self._tie_fresh and self._tie_scans < MAX_TIE_SCANS:
            self._tie_scans += 1
            self._tie_fresh = False
            self._tie_last_ids = []
            self.offset = 0
            return
        if self._tie_fresh:
            self._distrust("items sharing one created_at may have been skipped")
        instant = self._tie
        self._tie = None
        self.start_ms = self._outer_start
        assert instant is not None
        self._move_past(instant)

    def _move_past(self, boundary: int | None) -> None:
        """Ask next for what is strictly older than ``boundary``."""
        if boundary is None:
            self.ended = True
            return
        self.end_ms = boundary - 1
        self.offset = 0

    def _switch_to_time(self, why: str, *, skipped_some: bool) -> None:
        if self.profile.time_paging is False or self.profile.date_ordered is False:
            raise ServerIncompatible(f"{why}, and it cannot be paged by time either")
        _log.warning("%s: paging by time from here on", why)
        if skipped_some:
            self._distrust(why)
        self.profile.paging = "time"
        self.mode = "time"
        self.end_ms = self.oldest_ms
        self.offset = 0

    def malformed(self, request: PageRequest, why: str) -> None:
        """A page that could not be read: skip past it (offset paging) or give up.

        Raises:
            ServerIncompatible: too many unreadable pages in a row.
        """
        self._distrust(f"a page could not be read ({why})")
        if self.unread is None:
            self.unread = UnreadPages(
                {"mode": self.mode, "offset": request.offset, "end_ms": request.end_ms}
            )
        self.unread.pages += 1
        self.unread.items_at_most += request.limit
        self.unread.why = why
        self._malformed_in_a_row += 1
        if self._malformed_in_a_row >= MAX_MALFORMED_IN_A_ROW:
            raise ServerIncompatible(f"the server's pages could not be read ({why})")
        # Past it: by offset, within the time window when paging by time.
        self.offset = request.offset + request.limit

    def shrink(self) -> bool:
        """Halve the page size after a page failed for its size; ``False`` when it cannot."""
        if self._shrinks >= MAX_SHRINKS or self.limit <= MIN_PAGE_SIZE:
            return False
        self._shrinks += 1
        self._fast = 0
        self.limit = max(MIN_PAGE_SIZE, self.limit // 2)
        self.profile.page_size = self.limit
        _log.info("page size lowered to %d", self.limit)
        return True

    def _adapt_size(self, request: PageRequest, sent: int, elapsed_s: float) -> None:
        """Learn the server's page cap; grow the page size back while pages come fast.

        A cap is the most a page ever held when pages keep coming back short: rows dropped
        after the LIMIT only make pages shorter, so the largest short page is the best guess.
        """
        known = self.profile.page_cap
        if known is not None and sent > known:
            self.profile.page_cap = known = None  # the server sends more now: learn again
        if sent >= request.limit:
            self._short_pages = 0
        elif sent > 0 and (known is None or request.limit > known):
            # Only pages that asked for more than the known cap say anything about it: below
            # it, pages are short because rows were dropped.
            self._short_pages += 1
            self._most_sent = max(self._most_sent, sent)
            if self._short_pages >= CAP_AFTER_SHORT_PAGES and self._most_sent >= MIN_PAGE_SIZE:
                if self.profile.page_cap != self._most_sent:
                    _log.info("the server returns at most %d items per page", self._most_sent)
                self.profile.page_cap = self._most_sent
                self.limit = min(self.limit, self._most_sent)
        if elapsed_s < FAST_PAGE_S:
            self._fast += 1
        else:
            self._fast = 0
        ceiling = min(self.max_size, self.profile.page_cap or self.max_size)
        if self._fast >= FAST_PAGES_TO_GROW and self.limit < ceiling:
            self.limit = min(ceiling, self.limit * 2)
            self._fast = 0
        self.profile.page_size = self.limit

    def _distrust(self, why: str) -> None:
        if why not in self.unreliable:
            self.unreliable.append(why)


@dataclass
class UnreadPages:
    """Pages a pass skipped unread: where the first was (a :meth:`Pager.bookmark`), how
    many, how many items they could have held, and why the last could not be read."""

    resume_at: dict[str, Any]
    pages: int = 0
    items_at_most: int = 0
    why: str = ""


def _listed_ids(page: SearchRawPage) -> list[str]:
    """The ids of a page's results that have a place in the listing (stand-ins for
    unreadable items carry no time and no place in it)."""
    return [str(entity["id"]) for entity in page.results if entity["type"] != UNREADABLE_TYPE]


def unreadable_page(page: SearchRawPage) -> str | None:
    """Why a page that arrived cannot be read as a page of the listing (None when it can)."""
    if page.parse.problem is not None:
        return page.parse.problem
    if page.parse.sent and not _listed_ids(page):
        return "no item on the page could be read"
    return None


def unreadable_answer(exc: ApiError) -> bool:
    """Whether a failed page was an answer that could not be read (cut-off JSON, garbage),
    which may read well when asked again, rather than a failure with a handling of its own."""
    return (
        isinstance(exc, ContractError)
        and not isinstance(exc, ServerIncompatible)
        and not size_related(exc)
    )


def _seen_first(ids: list[str], repeated: int, fresh: list[str]) -> bool:
    """Whether the items of a page seen already are the first ``repeated`` ones."""
    return ids[repeated:] == fresh


def size_related(exc: BaseException) -> bool:
    """Whether a failed page may succeed smaller (an answer too slow to finish, 5xx but 503,
    413, an oversized body); a page that got no answer at all is not (see :func:`unanswered`)."""
    if isinstance(exc, ServerError):
        return exc.status_code != 503
    if isinstance(exc, ValidationError):
        return exc.status_code == 413
    if isinstance(exc, NetworkUnavailable):
        if unanswered(exc):
            return False
        import httpx  # the client that raised this has loaded it; a start need not

        return isinstance(exc.__cause__, httpx.ReadTimeout) or "within" in exc.message
    if isinstance(exc, ContractError):
        return "byte limit" in exc.message
    return False


def unanswered(exc: BaseException) -> bool:
    """Whether a page got no answer at all: the server took the request and said nothing for
    the whole read timeout."""
    return isinstance(exc, ServerNotAnswering) and exc.silent


Fetch = Callable[[PageRequest], SearchRawPage]
# What the fetcher hands over: the page, the resume point after it, whether it is the last.
FetchedPage = tuple[SearchRawPage, dict[str, Any], bool]


class PageFetcher:
    """A helper thread fetching pages in order into a bounded queue.

    Once a full page showed the page size, requests run at once at the offsets it predicts
    (as many as ``in_flight`` allows, which learns from every answer; none ahead without it),
    so the server prepares pages while this side reads the one before; a page of another size
    (or a switch to time paging) drops the predictions. ``pushed_back`` is to be called when
    the server refuses a request for its load (the client retries it on its own). A page whose
    answer cannot be read is asked for again, after ``retry``'s backoff, before the pager
    skips it. A page the server still refuses for its load is asked for again as ``patience``
    allows (see :mod:`memex_desktop.sync.patience`); ``waiting`` hears each such wait, in
    seconds, so the person knows why nothing moves.
    """

    def __init__(
        self,
        fetch: Fetch,
        pager: Pager,
        cancel: threading.Event,
        *,
        is_last: Callable[[SearchRawPage], bool] | None = None,
        in_flight: InFlightLimit | None = None,
        clock: Callable[[], float] = time.monotonic,
        retry: RetryPolicy = UNREADABLE_PAGE_RETRY,
        rand: Callable[[], float] = random.random,
        patience: Patience | None = None,
        waiting: Callable[[float], None] | None = None,
    ) -> None:
        self._fetch = fetch
        self._retry = retry
        self._patience = patience or Patience(rand=rand)
        self._waiting = waiting
        self._rand = rand
        self.pager = pager
        self._cancel = cancel
        self._is_last = is_last
        self.in_flight = in_flight
        self._limit_lock = threading.Lock()
        self._clock = clock
        self._stopped = threading.Event()
        self._queue: queue.Queue[FetchedPage | BaseException] = queue.Queue(maxsize=PREFETCH_PAGES)
        self._thread = threading.Thread(target=self._run, name="memex-sync-fetch", daemon=True)

    def start(self) -> None:
        """Start fetching (once whoever hears of refusals, see :meth:`pushed_back`, is set)."""
        self._thread.start()

    def _timed_fetch(self, request: PageRequest) -> tuple[SearchRawPage, float]:
        started = self._clock()
        page = self._fetch(request)
        elapsed = self._clock() - started
        if self.in_flight is not None:
            with self._limit_lock:
                self.in_flight.answered(elapsed)
        return page, elapsed

    def pushed_back(self) -> None:
        """The server refused a request for its load: fewer requests in flight (any thread)."""
        if self.in_flight is not None:
            with self._limit_lock:
                self.in_flight.pushed_back()

    def _writer_behind(self, behind: bool) -> None:
        """Tell the limit whether fetched pages wait for the writer (it does not grow then)."""
        if self.in_flight is not None:
            with self._limit_lock:
                self.in_flight.writer_behind(behind)

    def _wanted_in_flight(self) -> int:
        """How many requests to keep under way now."""
        if self.in_flight is None:
            return 1
        with self._limit_lock:
            return self.in_flight.limit

    def _run(self) -> None:
        """Fetch until the last page, an error, a cancel or :meth:`stop`."""
        workers = self.in_flight.cap if self.in_flight is not None else 1
        requests = ThreadPoolExecutor(workers, thread_name_prefix="memex-sync-request")
        ahead: deque[tuple[PageRequest, Future[tuple[SearchRawPage, float]]]] = deque()
        steady = False  # the last page was full, so the next offsets are predictable
        unreadable_tries = 0  # of the page asked for now
        try:
            while not self._stopped.is_set():
                wanted = self.pager.request()
                if ahead and ahead[0][0] != wanted:
                    _cancel_all(ahead)  # predicted from another page size or mode
                if not ahead:
                    ahead.append((wanted, requests.submit(self._timed_fetch, wanted)))
                while steady and len(ahead) < self._wanted_in_flight():
                    predicted = self.pager.predicted(ahead[-1][0])
                    if predicted is None:
                        break
                    ahead.append((predicted, requests.submit(self._timed_fetch, predicted)))
                request, future = ahead.popleft()
                failure: ApiError | None = None
                try:
                    page, elapsed = future.result()
                except ApiError as exc:
                    failure = exc
                except BaseException as exc:  # handed to the consumer, which raises it
                    self._put(exc)
                    return
                if failure is None:
                    why = unreadable_page(page)
                else:
                    why = failure.message if unreadable_answer(failure) else None
                again = why is not None and unreadable_tries < self._retry.max_retries
                if again or failure is not None:  # the pages predicted after it wait
                    _cancel_all(ahead)
                    steady = False
                if failure is not None and pushed_back(failure):
                    wait_s = self._patience.wait_after(failure)
                    if wait_s is None:
                        self._put(failure)
                        return
                    # Not a warning: the progress tells the person, and the pass goes on.
                    slow_down = f"the server asked to slow down: {failure}"
                    if not self._wait(request, wait_s, slow_down, logging.INFO):
                        return
                    continue
                self._patience.answered()
                if again:
                    if not self._back_off(request, unreadable_tries, why or ""):
                        return
                    unreadable_tries += 1
                    continue
                unreadable_tries = 0
                if failure is not None:
                    if not self._recover(request, failure):
                        self._put(_reported(failure))
                        return
                    continue
                try:
                    last = self.pager.take(request, page, elapsed)
                    if not last and self._is_last is not None:
                        last = self._is_last(page)
                except ApiError as exc:
                    self._put(exc)
                    return
                steady = page.parse.sent == request.limit and self.pager.mode == "offset"
                if not self._put((page, self.pager.bookmark(), last)) or last:
                    return
                if self._cancel.is_set():
                    return  # the consumer raises SyncCancelled after the pages it has
        finally:
            _cancel_all(ahead)
            requests.shutdown(wait=True, cancel_futures=True)

    def _back_off(self, request: PageRequest, tries: int, why: str) -> bool:
        """Wait before asking again for a page that could not be read; ``False`` when the
        pull was stopped or cancelled meanwhile."""
        return self._wait(
            request,
            self._retry.backoff_s(tries, self._rand),
            f"it could not be read ({why})",
            logging.WARNING,
        )

    def _wait(self, request: PageRequest, wait_s: float, why: str, level: int) -> bool:
        """Wait ``wait_s`` before asking for ``request`` again because of ``why`` (logged at
        ``level``); ``False`` when the pull was stopped or cancelled meanwhile."""
        _log.log(
            level, "a page (offset %d): %s; asking again in %.1f s", request.offset, why, wait_s
        )
        if self._waiting is not None:
            self._waiting(wait_s)
        # The real clock: the injectable one times pages and may stand still in tests.
        until = time.monotonic() + wait_s
        while (left := until - time.monotonic()) > 0:
            if self._stopped.wait(min(left, _FETCH_POLL_S)) or self._cancel.is_set():
                return False
        return not (self._stopped.is_set() or self._cancel.is_set())

    def _recover(self, request: PageRequest, exc: ApiError) -> bool:
        """Whether paging can go on after ``exc`` (a smaller page, or past an unreadable one)."""
        if unanswered(exc):
            # Silence says the server is not answering, whatever the page's size: the pass
            # ends now, where each smaller page would wait out the same silence while the
            # person waits. Should the size have been to blame after all (no server was seen
            # to be), the next pass asks for smaller pages.
            self.pager.shrink()
            return False
        if size_related(exc):
            return self.pager.shrink()
        if unreadable_answer(exc):
            try:
                self.pager.malformed(request, exc.message)
            except ServerIncompatible:
                return False
            return True
        return False

    def _put(self, item: FetchedPage | BaseException) -> bool:
        """Queue an item, waiting for room; ``False`` when the consumer went away."""
        try:
            self._queue.put_nowait(item)
        except queue.Full:
            self._writer_behind(True)
        else:
            self._writer_behind(False)
            return True
        while not self._stopped.is_set():
            try:
                self._queue.put(item, timeout=_FETCH_POLL_S)
            except queue.Full:
                continue
            return True
        return False

    def next(self) -> FetchedPage:
        """The next page, its resume point, and whether it is the last (errors raised here)."""
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


def _reported(exc: ApiError) -> ApiError:
    """The error a failed page is reported as: a refused request means incompatible."""
    if isinstance(exc, ValidationError) and exc.status_code != 413:
        return ServerIncompatible(exc.message, status_code=exc.status_code)
    return exc


def _cancel_all(ahead: deque[Any]) -> None:
    """Drop requests made ahead (those already under way finish; their pages are unused)."""
    while ahead:
        ahead.popleft()[1].cancel()
