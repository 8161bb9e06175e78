"""The Memex HTTP API client: one ``httpx.Client``, typed models in, typed errors out.

Every call is ``POST`` JSON to ``<base_url>/<endpoint>``. The client adds what the raw HTTP
library leaves to the caller:

* credentials only in headers (bearer XOR API key), dropped when a redirect leaves the origin;
* a 301/302/303 as :class:`ApiMoved` (never followed: the person changes the API URL);
* per-phase timeouts plus an overall deadline per call (retries and waits included), checked
  while the body streams in, so a server dripping bytes cannot hold a worker forever;
* a cap on the (decoded) response size;
* full-jitter retries honouring ``Retry-After`` for reads, and for writes only when the caller
  says the call is idempotent (the outbox sends each save with a stable identity); a request
  the server took and then met with silence for the whole timeout is not sent again;
* every failure as one of the errors of :mod:`memex_desktop.api.errors`; a body that does not
  parse or validate is a :class:`ContractError` with the raw bytes, never a crash.

One client may be shared by several threads (``httpx.Client`` is thread-safe).
"""

from __future__ import annotations

import json
import logging
import random as random_module
import re
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypedDict, TypeVar, Unpack, overload

import httpx
import pydantic
import pydantic_core

from memex_desktop.api.auth import Credentials, TokenSource, make_credentials
from memex_desktop.api.errors import (
    ApiError,
    ApiMoved,
    AuthError,
    ContractError,
    Forbidden,
    InsufficientCredits,
    NetworkUnavailable,
    RateLimited,
    ServerError,
    ServerNotAnswering,
    ServerRefused,
    ValidationError,
)
from memex_desktop.api.models import (
    INVALID_FIELDS_KEY,
    AvailablePlansOutput,
    ContentEntityBase,
    CreateViewResponse,
    EnsureSharedLinkResponse,
    Feed,
    GetAvailablePlansResponse,
    ListSharedLinksResponse,
    MemexModel,
    SaveContentByUrlResponse,
    SaveContentEntityReceiptResponse,
    SaveContentEntityResponse,
    SearchLlmReadyResponse,
    SearchMeta,
    SearchRawPage,
    SearchRawResponse,
    SharedLink,
    View,
    parse_content_entity,
)
from memex_desktop.api.retry import RetryPolicy, is_retryable_status, parse_retry_after
from memex_desktop.api.urls import normalized_api_url

_log = logging.getLogger(__name__)

DEFAULT_BASE_URL = "https://memex.garden/api"
# Answers that say the server is overloaded rather than that the request was wrong.
PUSH_BACK_STATUSES = frozenset({429, 503})
DEFAULT_TIMEOUT = httpx.Timeout(connect=10.0, read=30.0, write=30.0, pool=10.0)
DEFAULT_DEADLINE_S = 60.0
# A raw page of 100 entities with full text and transcripts is a few MB; 64 MB is far above any
# legitimate page and far below what would hurt the desktop.
DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024
MAX_REDIRECTS = 5
# The exact-URL lookup's path: INFERRED (see MemexClient.find_content_by_url).
FIND_BY_URL_PATH = "/find-content-by-url"
DEFAULT_PAGE_SIZE = 20
INSUFFICIENT_CREDITS_CODES = frozenset(
    {"INSUFFICIENT_CREDITS", "SAVE_CONTENT_INSUFFICIENT_CREDITS"}
)
# Only method-preserving redirects are followed: a POST turned into a GET would lose the body.
_FOLLOWED_REDIRECTS = frozenset({307, 308})
# A permanent or "see other" answer means the API lives elsewhere now: re-sending the POST
# there (or a GET, as browsers do) is the person's decision, made by changing the API URL.
_MOVED_REDIRECTS = frozenset({301, 302, 303})
# Every endpoint the client calls, so a moved API's new root can be read from a redirect target.
ENDPOINT_PATHS = frozenset(
    {
        "/search",
        "/execute-view-search",
        "/save-content-by-url",
        "/save-content-entity",
        "/create-view",
        "/list-views",
        "/get-available-tag-names",
        "/list-feeds",
        "/ensure-shared-library-entry-link",
        "/list-shared-library-entry-links",
        "/get-available-plans",
    }
)
# Where a listing may hold its items when the documented key is missing (the names other JSON
# APIs use); a bare JSON array is accepted too. Their shapes are undocumented (memex-api.md §7).
LISTING_FALLBACK_KEYS = ("items", "results", "data")
_SAMPLE_CHARS = 300
_MAX_MESSAGE_CHARS = 500

ModelT = TypeVar("ModelT", bound=MemexModel)
ItemT = TypeVar("ItemT")


class SearchOptions(TypedDict, total=False):
    """Filters of ``/search`` by Python name; ``SEARCH_WIRE_NAMES`` maps them to the wire.

    ``None`` means "not sent" (the server default applies). ``extra_fields`` is merged into the
    body as-is, for fields this client does not know yet.
    """

    limit: int | None
    offset: int | None
    sort_by: str | None
    content_types: list[str] | None
    tag_ids: list[str] | None
    tag: str | None
    tag_match_strategy: str | None
    time_range: Mapping[str, int | float | None] | None
    date_from: str | None
    date_to: str | None
    include_notes: bool | None
    include_chunk_context: bool | None
    include_fields: list[str] | None
    exclude_fields: list[str] | None
    view_ids: list[str] | None
    feed_ids: list[str] | None
    feed_scope: str | None
    enable_rerank: bool | None
    rerank_window: int | None
    relevance_threshold: float | None
    rewrite_query: bool | None
    force_full_query_processing: bool | None
    twitter_bot_dashboard_tid: str | None
    demo_slug: str | None
    public_token: str | None
    extra_fields: Mapping[str, Any] | None


SEARCH_WIRE_NAMES: dict[str, str] = {
    "limit": "limit",
    "offset": "offset",
    "sort_by": "sortBy",
    "content_types": "contentTypes",
    "tag_ids": "tag_ids",
    "tag": "tag",
    "tag_match_strategy": "tagMatchStrategy",
    "time_range": "timeRange",
    "date_from": "dateFrom",
    "date_to": "dateTo",
    "include_notes": "includeNotes",
    "include_chunk_context": "includeChunkContext",
    "include_fields": "includeFields",
    "exclude_fields": "excludeFields",
    "view_ids": "viewIds",
    "feed_ids": "feedIds",
    "feed_scope": "feedScope",
    "enable_rerank": "enableRerank",
    "rerank_window": "rerankWindow",
    "relevance_threshold": "relevanceThreshold",
    "rewrite_query": "rewriteQuery",
    "force_full_query_processing": "forceFullQueryProcessing",
    "twitter_bot_dashboard_tid": "twitterBotDashboardTid",
    "demo_slug": "demoSlug",
    "public_token": "publicToken",
}


@dataclass
class _Reply:
    """One HTTP response read completely (and within the limits)."""

    status_code: int
    headers: httpx.Headers
    body: bytes
    path: str
    sent_secrets: list[str] = field(default_factory=list, repr=False)


class _DeadlineExceeded(Exception):
    """Raised inside the body stream when the call's overall deadline has passed."""


class _DeadlineStream(httpx.SyncByteStream):
    """Wraps a response stream to stop reading once the overall deadline has passed.

    Checked per network chunk (before decompression), so a server dripping one byte at a
    time is cut off even when no decoded byte has come out yet.
    """

    def __init__(
        self, inner: httpx.SyncByteStream, deadline_at: float, clock: Callable[[], float]
    ) -> None:
        self._inner = inner
        self._deadline_at = deadline_at
        self._clock = clock

    def __iter__(self) -> Iterator[bytes]:
        for chunk in self._inner:
            if self._clock() >= self._deadline_at:
                raise _DeadlineExceeded
            yield chunk

    def close(self) -> None:
        self._inner.close()


class MemexClient:
    """A synchronous client of the Memex REST API (DESIGN.md §4).

    Args:
        base_url: the API root, e.g. ``https://memex.garden/api`` or an emulator's URL.
        api_key: sent as ``x-api-key`` when no bearer token is given.
        user_id: optional ``x-user-id`` sent with the API key.
        bearer_token: an OAuth access token, or a callable returning the current one; wins over
            ``api_key`` (the two are never sent together).
        refresh_bearer_token: called once per call on a 401 in bearer mode; when it returns
            ``True`` the request is sent again with the token ``bearer_token`` now returns.
        timeout: per-phase timeouts (connect/read/write/pool), or one number for all.
        deadline_s: the most one call may take, retries and their waits included.
        max_response_bytes: a larger (decoded) body is abandoned with a :class:`ContractError`.
        transport: an ``httpx`` transport (tests pass ``httpx.MockTransport``).
        max_retries: repetitions of a failed read (or idempotent write) after the first try.
        retry_policy: backoff parameters; ``max_retries`` overrides its ``max_retries``.
        on_meta: called with the ``meta`` of every search response (usage and balance).
        sleep, random, clock, wall_clock: injectable for tests (``time.sleep``,
            ``random.random``, ``time.monotonic``, ``time.time``).
    """

    def __init__(
        self,
        base_url: str = DEFAULT_BASE_URL,
        *,
        api_key: str | None = None,
        user_id: str | None = None,
        bearer_token: TokenSource | None = None,
        refresh_bearer_token: Callable[[], bool] | None = None,
        timeout: httpx.Timeout | float = DEFAULT_TIMEOUT,
        deadline_s: float = DEFAULT_DEADLINE_S,
        max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
        transport: httpx.BaseTransport | None = None,
        max_retries: int = RetryPolicy.max_retries,
        retry_policy: RetryPolicy | None = None,
        on_meta: Callable[[SearchMeta], None] | None = None,
        sleep: Callable[[float], None] = time.sleep,
        random: Callable[[], float] = random_module.random,
        clock: Callable[[], float] = time.monotonic,
        wall_clock: Callable[[], float] = time.time,
        user_agent: str = "memex-desktop",
    ) -> None:
        if deadline_s <= 0:
            raise ValueError("deadline_s must be positive")
        if max_response_bytes <= 0:
            raise ValueError("max_response_bytes must be positive")
        if max_retries < 0:
            raise ValueError("max_retries must not be negative")
        self._base_url = normalized_api_url(base_url)
        self._origin = _origin(httpx.URL(self._base_url))
        self._credentials: Credentials = make_credentials(
            api_key=api_key,
            user_id=user_id,
            bearer_token=bearer_token,
            refresh_bearer_token=refresh_bearer_token,
        )
        self._timeout = timeout if isinstance(timeout, httpx.Timeout) else httpx.Timeout(timeout)
        self._deadline_s = deadline_s
        self._max_response_bytes = max_response_bytes
        policy = retry_policy or RetryPolicy()
        self._retry = RetryPolicy(
            max_retries=max_retries,
            base_delay_s=policy.base_delay_s,
            max_delay_s=policy.max_delay_s,
            max_retry_after_s=policy.max_retry_after_s,
        )
        self.on_meta = on_meta
        # Called with the status of every 429 or 503 answer, before it is retried (the sync
        # sends fewer requests at once while the server pushes back).
        self.on_pushed_back: Callable[[int], None] | None = None
        # Token refreshes, counted, one at a time (calls may run on several threads).
        self._refresh_lock = threading.Lock()
        self._token_generation = 0
        self.last_meta: SearchMeta | None = None
        self._sleep = sleep
        self._random = random
        self._clock = clock
        self._wall_clock = wall_clock
        # Redirects are followed by _send_following_redirects, which controls credentials.
        self._http = httpx.Client(
            transport=transport,
            timeout=self._timeout,
            follow_redirects=False,
            headers={"User-Agent": user_agent, "Accept": "application/json"},
        )

    # ------------------------------------------------------------------ lifecycle

    @property
    def base_url(self) -> str:
        """The API root every endpoint path is appended to."""
        return self._base_url

    @property
    def auth_mode(self) -> str:
        """``"bearer"``, ``"api-key"`` or ``"none"``."""
        return self._credentials.mode

    def close(self) -> None:
        """Close the connection pool; the client cannot be used afterwards."""
        self._http.close()

    def __enter__(self) -> MemexClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        """Base URL and auth mode only: a client in a log line or traceback shows no secret."""
        return f"MemexClient(base_url={self._base_url!r}, auth={self._credentials.mode!r})"

    __str__ = __repr__

    # ------------------------------------------------------------------ search

    @overload
    def search(
        self, query: str = "", *, raw: Literal[True], **options: Unpack[SearchOptions]
    ) -> SearchRawResponse: ...

    @overload
    def search(
        self, query: str = "", *, raw: Literal[False] = False, **options: Unpack[SearchOptions]
    ) -> SearchLlmReadyResponse: ...

    def search(
        self, query: str = "", *, raw: bool = False, **options: Unpack[SearchOptions]
    ) -> SearchRawResponse | SearchLlmReadyResponse:
        """``POST /search``: the compact (LLM-ready) shape, or the raw graph with ``raw=True``.

        An empty query lists the library (with ``sort_by="date-desc"`` newest first). Reads
        are retried; ``last_meta`` and ``on_meta`` receive the response's ``meta``.
        """
        body = build_search_body(query, raw=raw, options=options)
        response: SearchRawResponse | SearchLlmReadyResponse
        if raw:
            response = self._request("/search", body, SearchRawResponse, retry=True)
        else:
            response = self._request("/search", body, SearchLlmReadyResponse, retry=True)
        self._record_meta(response)
        return response

    def search_raw(self, query: str = "", **options: Unpack[SearchOptions]) -> SearchRawResponse:
        """``POST /search`` with ``raw: true``: full entities, references and tags."""
        return self.search(query, raw=True, **options)

    def search_raw_page(self, query: str = "", **options: Unpack[SearchOptions]) -> SearchRawPage:
        """``POST /search`` with ``raw: true``, entities kept as JSON objects (for mirroring)."""
        body = build_search_body(query, raw=True, options=options)
        response = self._request("/search", body, SearchRawPage, retry=True)
        self._record_meta(response)
        return response

    def search_compact(
        self, query: str = "", **options: Unpack[SearchOptions]
    ) -> SearchLlmReadyResponse:
        """``POST /search`` in the compact shape (precompiled text, optional ``user_notes``)."""
        return self.search(query, raw=False, **options)

    def execute_view_search(
        self,
        view_id: str | None = None,
        *,
        public_token: str | None = None,
        limit: int | None = DEFAULT_PAGE_SIZE,
        offset: int | None = 0,
        **extra: Any,
    ) -> SearchRawResponse:
        """``POST /execute-view-search``: a saved view (or a public view token), raw shape."""
        if not view_id and not public_token:
            raise ValueError("execute_view_search needs a view_id or a public_token")
        _check_paging(limit, offset)
        body = _without_none(
            {
                "viewId": view_id,
                "publicToken": public_token,
                "limit": limit,
                "offset": offset,
                **extra,
            }
        )
        response = self._request("/execute-view-search", body, SearchRawResponse, retry=True)
        self._record_meta(response)
        return response

    # ------------------------------------------------------------------ saves

    def save_content_by_url(
        self, url: str, *, idempotent: bool = False, **extra: Any
    ) -> SaveContentByUrlResponse:
        """``POST /save-content-by-url``: save a page; the server extracts and indexes it.

        Not retried unless ``idempotent`` (a blind retry could save twice when the first
        answer was lost after the server committed).
        """
        if not url or not url.strip():
            raise ValueError("url must not be empty")
        body = {"url": url, **extra}
        return self._request("/save-content-by-url", body, SaveContentByUrlResponse, idempotent)

    def find_content_by_url(self, url: str) -> ContentEntityBase | None:
        """``POST /find-content-by-url``: the entity the library holds for ``url`` (its
        normalized form), or None when it holds none.

        INFERRED: the service names an exact-URL lookup among its MCP actions only, so a
        server without this path answers 404 (:class:`ValidationError`); callers probe it
        once and fall back. Read-only, so retried like a search.
        """
        if not url or not url.strip():
            raise ValueError("url must not be empty")
        reply = self._call(FIND_BY_URL_PATH, {"url": url}, retry=True)
        entity = self._decode_object(reply).get("entity")
        if entity is None:
            return None
        try:
            return parse_content_entity(entity)
        except ValueError as exc:
            raise ContractError(
                f"POST {reply.path}: the entity found for the URL could not be read",
                status_code=reply.status_code,
                raw_body=self._scrub_bytes(reply),
            ) from exc

    @overload
    def save_content_entity(
        self,
        data: Mapping[str, Any],
        *,
        response_mode: Literal["receipt"],
        idempotent: bool = False,
        **extra: Any,
    ) -> SaveContentEntityReceiptResponse | SaveContentEntityResponse: ...

    @overload
    def save_content_entity(
        self,
        data: Mapping[str, Any],
        *,
        response_mode: None = None,
        idempotent: bool = False,
        **extra: Any,
    ) -> SaveContentEntityResponse: ...

    def save_content_entity(
        self,
        data: Mapping[str, Any],
        *,
        response_mode: Literal["receipt"] | None = None,
        idempotent: bool = False,
        **extra: Any,
    ) -> SaveContentEntityResponse | SaveContentEntityReceiptResponse:
        """``POST /save-content-entity`` with the entity wrapped in ``data``.

        ``response_mode="receipt"`` asks for ``{ok, processingRequestId}`` instead of the
        entities (a server that ignores the mode and answers in full is accepted too). Extra
        keyword arguments are sent as top-level wire fields (``relatedContentIds`` ...).
        """
        body: dict[str, Any] = {"data": dict(data), **extra}
        if response_mode is not None:
            body["responseMode"] = response_mode
        reply = self._call("/save-content-entity", body, retry=idempotent)
        if response_mode == "receipt":
            decoded = self._decode_object(reply)
            if "entity" not in decoded:
                return self._validate(reply, decoded, SaveContentEntityReceiptResponse)
            return self._validate(reply, decoded, SaveContentEntityResponse)
        return self._parse(reply, SaveContentEntityResponse)

    # ------------------------------------------------------------------ views, tags, feeds

    def create_view(
        self,
        name: str,
        definition: Mapping[str, Any] | None = None,
        *,
        idempotent: bool = False,
        **extra: Any,
    ) -> View:
        """``POST /create-view``: a reusable saved search scope (query, types, tags, time)."""
        if not name.strip():
            raise ValueError("a view needs a name")
        body = {"name": name, "definition": dict(definition or {}), **extra}
        return self._request("/create-view", body, CreateViewResponse, idempotent).view

    def list_views(self, **extra: Any) -> list[View]:
        """``POST /list-views``: owned views plus views shared with the user.

        The shape is undocumented, so it is read leniently (see :meth:`_listing`).
        """
        reply = self._call("/list-views", dict(extra), retry=True)
        return self._listing(reply, "views", "the saved views", _parse_view)

    def get_available_tag_names(self, **extra: Any) -> list[str]:
        """``POST /get-available-tag-names``: the user's current tag names (read leniently)."""
        reply = self._call("/get-available-tag-names", dict(extra), retry=True)
        return self._listing(reply, "tagNames", "the tag names", _parse_tag_name)

    def list_feeds(self, **extra: Any) -> list[Feed]:
        """``POST /list-feeds``: subscribed RSS and YouTube feeds (ids usable as feed_ids).

        Read leniently, like :meth:`list_views`.
        """
        reply = self._call("/list-feeds", dict(extra), retry=True)
        return self._listing(reply, "feeds", "the feeds", _parse_feed)

    # ------------------------------------------------------------------ sharing, plans

    def ensure_shared_library_entry_link(
        self,
        content_id: str,
        *,
        access: Literal["view", "collaborate"] = "view",
        idempotent: bool = True,
        **extra: Any,
    ) -> SharedLink:
        """``POST /ensure-shared-library-entry-link``: create or update a share link.

        "Ensure" is idempotent by definition (the same call twice leaves one link), so it is
        retried unless the caller says otherwise.
        """
        if not content_id:
            raise ValueError("content_id must not be empty")
        body = {"contentId": content_id, "access": access, **extra}
        path = "/ensure-shared-library-entry-link"
        return self._request(path, body, EnsureSharedLinkResponse, idempotent).link

    def list_shared_library_entry_links(
        self, *, content_type: str | None = None, **extra: Any
    ) -> list[SharedLink]:
        """``POST /list-shared-library-entry-links``: existing share links and their access."""
        body = _without_none({"contentType": content_type, **extra})
        path = "/list-shared-library-entry-links"
        return self._request(path, body, ListSharedLinksResponse, retry=True).links

    def get_available_plans(self, **extra: Any) -> AvailablePlansOutput:
        """``POST /get-available-plans``: what can be bought when the balance runs out."""
        return self._request("/get-available-plans", dict(extra), GetAvailablePlansResponse, True)

    # ------------------------------------------------------------------ request machinery

    def _request(
        self, path: str, body: Mapping[str, Any], model: type[ModelT], retry: bool
    ) -> ModelT:
        """Send one call (with retries when ``retry``) and parse the answer as ``model``."""
        return self._parse(self._call(path, body, retry=retry), model)

    def _record_meta(
        self, response: SearchRawResponse | SearchRawPage | SearchLlmReadyResponse
    ) -> None:
        """Keep the latest search ``meta`` (usage, balance) and tell the listener."""
        if "meta" not in response.model_fields_set:
            return
        self.last_meta = response.meta
        if self.on_meta is not None:
            self.on_meta(response.meta)

    def _call(self, path: str, body: Mapping[str, Any], *, retry: bool) -> _Reply:
        """Send ``body`` to ``path`` until it succeeds, fails for good, or the deadline passes.

        Returns the final reply, whatever its status; raises :class:`NetworkUnavailable` when
        no reply could be obtained.
        """
        deadline_at = self._clock() + self._deadline_s
        content = json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
        retries_done = 0
        refreshed = False
        while True:
            sent_with_token = self._token_generation
            try:
                reply = self._send_following_redirects(path, content, deadline_at)
            except NetworkUnavailable as exc:
                # A request met with silence is not sent again: the caller hears now that the
                # server is not answering, not after waiting out the same silence once more.
                silent = isinstance(exc, ServerNotAnswering) and exc.silent
                wait = None if silent else self._retry_wait(retry, retries_done, None, deadline_at)
                if wait is None:
                    raise
                _log.debug("POST %s: network failure, retrying in %.2f s", path, wait)
                self._sleep(wait)
                retries_done += 1
                continue
            status = reply.status_code
            if status in PUSH_BACK_STATUSES and self.on_pushed_back is not None:
                self.on_pushed_back(status)
            if status == 401 and not refreshed and self._credentials.can_refresh():
                refreshed = True
                if self._refresh_token_once(sent_with_token):
                    _log.debug("POST %s: token refreshed after 401, sending again", path)
                    continue
            if is_retryable_status(status):
                wait = self._retry_wait(retry, retries_done, reply, deadline_at)
                if wait is not None:
                    _log.debug("POST %s: HTTP %d, retrying in %.2f s", path, status, wait)
                    self._sleep(wait)
                    retries_done += 1
                    continue
            return reply

    def _refresh_token_once(self, sent_with: int) -> bool:
        """Refresh the bearer token after a 401; whether a fresh one is there to send.

        Calls made at the same time (a sync fetches pages ahead) all get a 401 for the same
        expired token: only the first refreshes, the others send again with its result.
        """
        refresh = self._credentials.refresh_bearer_token
        with self._refresh_lock:
            if self._token_generation != sent_with:
                return True
            if refresh is None or not refresh():
                return False
            self._token_generation += 1
            return True

    def _retry_wait(
        self, retry: bool, retries_done: int, reply: _Reply | None, deadline_at: float
    ) -> float | None:
        """Seconds to wait before the next attempt, or ``None`` when it must not be retried."""
        if not retry or retries_done >= self._retry.max_retries:
            return None
        wait = self._retry.backoff_s(retries_done, self._random)
        if reply is not None:
            retry_after = self._retry_after(reply)
            if retry_after is not None:
                if retry_after > self._retry.max_retry_after_s:
                    return None
                wait = retry_after
        if self._clock() + wait >= deadline_at:
            return None
        return wait

    def _retry_after(self, reply: _Reply) -> float | None:
        """The reply's ``Retry-After`` in seconds (delta or HTTP date), if it has one."""
        return parse_retry_after(reply.headers.get("retry-after"), now_epoch_s=self._wall_clock())

    def _send_following_redirects(self, path: str, content: bytes, deadline_at: float) -> _Reply:
        """One attempt, following same-scheme 307/308 redirects with credentials kept only
        while the target stays on the configured origin."""
        url = httpx.URL(self._base_url + path)
        for _hop in range(MAX_REDIRECTS + 1):
            same_origin = _origin(url) == self._origin
            auth_headers = self._credentials.headers() if same_origin else {}
            reply = self._send_once(url, content, auth_headers, deadline_at)
            location = reply.headers.get("location")
            if reply.status_code in _MOVED_REDIRECTS and location:
                raise self._moved(url, reply, location)
            if reply.status_code not in _FOLLOWED_REDIRECTS or not location:
                return reply
            try:
                next_url = url.join(location)
            except httpx.InvalidURL as exc:
                raise ContractError(f"POST {path}: unreadable redirect target") from exc
            if next_url.scheme not in ("http", "https") or not next_url.host:
                raise ContractError(f"POST {path}: redirect to a non-HTTP location")
            if url.scheme == "https" and next_url.scheme != "https":
                raise ContractError(f"POST {path}: refused a redirect from https to http")
            if _origin(next_url) != self._origin:
                _log.info("POST %s: redirected to another origin, credentials not sent", path)
            url = next_url
        raise ContractError(f"POST {path}: more than {MAX_REDIRECTS} redirects")

    def _moved(self, url: httpx.URL, reply: _Reply, location: str) -> ContractError:
        """The error a 301/302/303 stands for: :class:`ApiMoved` naming where the API went.

        The target is resolved against the request URL, shown without any user name or
        password it carries and with every credential that was sent masked.
        """
        status = reply.status_code
        try:
            target = url.join(location)
        except httpx.InvalidURL:
            return ContractError(
                f"POST {reply.path}: HTTP {status} to an unreadable location",
                status_code=status,
            )
        if target.scheme not in ("http", "https") or not target.host:
            return ContractError(
                f"POST {reply.path}: HTTP {status} to a non-HTTP location", status_code=status
            )
        if target.userinfo:
            target = target.copy_with(username=None, password=None)
        shown = self._scrub(str(target), reply)
        return ApiMoved(
            f"POST {reply.path}: HTTP {status}: the API moved to {shown}; change the API URL",
            status_code=status,
            location=shown,
        )

    def _send_once(
        self, url: httpx.URL, content: bytes, auth_headers: dict[str, str], deadline_at: float
    ) -> _Reply:
        """Send one HTTP request and read the whole body within the deadline and size cap."""
        path = url.path
        remaining = deadline_at - self._clock()
        if remaining <= 0:
            raise NetworkUnavailable(f"POST {path}: no answer within {self._deadline_s:g} s")
        headers = {"Content-Type": "application/json", **auth_headers}
        request = self._http.build_request(
            "POST", url, content=content, headers=headers, timeout=_capped(self._timeout, remaining)
        )
        started = self._clock()
        try:
            response = self._http.send(request, stream=True, follow_redirects=False)
        except (httpx.ReadTimeout, httpx.WriteTimeout) as exc:
            # Connected, and then silence: the server is there but not answering.
            raise ServerNotAnswering(
                f"POST {path}: {url.host} took the connection but did not answer "
                f"({type(exc).__name__})",
                host=url.host,
            ) from exc
        except httpx.TimeoutException as exc:
            raise NetworkUnavailable(f"POST {path}: timed out ({type(exc).__name__})") from exc
        except httpx.TransportError as exc:
            if _refused(exc):
                raise ServerRefused(
                    f"POST {path}: {url.host} refused the connection", host=url.host
                ) from exc
            raise NetworkUnavailable(f"POST {path}: {_describe_transport_error(exc)}") from exc
        try:
            body = self._read_body(response, path, deadline_at)
        finally:
            response.close()
        _log.debug(
            "POST %s -> %d (%d bytes, %.0f ms)",
            path,
            response.status_code,
            len(body),
            (self._clock() - started) * 1000,
        )
        return _Reply(
            status_code=response.status_code,
            headers=response.headers,
            body=body,
            path=path,
            sent_secrets=[value for value in auth_headers.values() if value],
        )

    def _read_body(self, response: httpx.Response, path: str, deadline_at: float) -> bytes:
        """Read the decoded body, enforcing the deadline (per network chunk) and the size cap."""
        cap = self._max_response_bytes
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > cap:
            raise ContractError(
                f"POST {path}: response of {declared} bytes exceeds the {cap} byte limit",
                status_code=response.status_code,
            )
        stream = response.stream
        if isinstance(stream, httpx.SyncByteStream):
            response.stream = _DeadlineStream(stream, deadline_at, self._clock)
        chunks: list[bytes] = []
        size = 0
        try:
            for chunk in response.iter_bytes():
                size += len(chunk)
                if size > cap:
                    raise ContractError(
                        f"POST {path}: response exceeds the {cap} byte limit",
                        status_code=response.status_code,
                        raw_body=b"".join(chunks),
                    )
                chunks.append(chunk)
        except _DeadlineExceeded as exc:
            raise ServerNotAnswering(
                f"POST {path}: no complete answer within {self._deadline_s:g} s",
                host=response.url.host,
                status_code=response.status_code,
            ) from exc
        except httpx.TimeoutException as exc:
            raise ServerNotAnswering(
                f"POST {path}: {response.url.host} stopped answering mid-answer",
                host=response.url.host,
                status_code=response.status_code,
            ) from exc
        except (httpx.RemoteProtocolError, httpx.DecodingError) as exc:
            # The server sent headers, then less (or other) than it announced.
            raise ContractError(
                f"POST {path}: incomplete or undecodable response body",
                status_code=response.status_code,
                raw_body=b"".join(chunks),
            ) from exc
        except httpx.TransportError as exc:
            # The status line arrived (a 2xx says the call was done): kept on the error.
            raise NetworkUnavailable(
                f"POST {path}: connection lost while reading ({_describe_transport_error(exc)})",
                status_code=response.status_code,
            ) from exc
        return b"".join(chunks)

    # ------------------------------------------------------------------ answers

    def _parse(self, reply: _Reply, model: type[ModelT]) -> ModelT:
        """Turn a final reply into ``model`` or the typed error it stands for."""
        return self._validate(reply, self._decode_object(reply), model)

    def _decode_answer(self, reply: _Reply) -> Any:
        """The reply's decoded JSON (``_NOT_JSON`` when it is none), or the error the status
        or an error body stands for."""
        data = _decode_json(reply.body)
        if reply.status_code >= 400 or (
            200 <= reply.status_code < 300 and isinstance(data, dict) and _carries_error(data)
        ):
            raise self._error_for(reply, data)
        if not 200 <= reply.status_code < 300:
            raise ContractError(
                f"POST {reply.path}: unexpected HTTP {reply.status_code}",
                status_code=reply.status_code,
                raw_body=self._scrub_bytes(reply),
            )
        return data

    def _decode_object(self, reply: _Reply) -> dict[str, Any]:
        """The reply's JSON object, or the error the status or an error body stands for."""
        data = self._decode_answer(reply)
        if not isinstance(data, dict):
            what = "not JSON" if data is _NOT_JSON else f"JSON {type(data).__name__}"
            raise ContractError(
                f"POST {reply.path}: response is {what}, not a JSON object",
                status_code=reply.status_code,
                raw_body=self._scrub_bytes(reply),
            )
        return data

    def _listing(
        self,
        reply: _Reply,
        key: str,
        what: str,
        parse: Callable[[Any], ItemT],
    ) -> list[ItemT]:
        """The items of a listing answer: under the documented ``key`` (the field of its
        response model), else under one of ``LISTING_FALLBACK_KEYS``, else a bare JSON array.

        An item that does not parse is skipped and logged. An answer with no readable list,
        or whose items all fail, is a :class:`ContractError` saying it could not read
        ``what``: an empty sidebar section would claim the person has none.
        """
        data = self._decode_answer(reply)
        items, found = _find_listing(data, key)
        if items is None:
            raise ContractError(
                f"could not read {what} from the server: POST {reply.path} answered "
                f"{self._scrub(_describe_shape(data), reply)} instead of a {key!r} list",
                status_code=reply.status_code,
                raw_body=self._scrub_bytes(reply),
            )
        if found != key:
            _log.warning(
                "contract drift: POST %s has no %r list; read %s instead. Sample: %s",
                reply.path,
                key,
                "a bare JSON array" if isinstance(data, list) else repr(found),
                self._sample(reply.body, reply),
            )
        parsed: list[ItemT] = []
        for index, item in enumerate(items):
            try:
                parsed.append(parse(item))
            except (ValueError, RecursionError) as exc:
                _log.warning(
                    "POST %s: skipped item %d of %s that could not be read (%s). Sample: %s",
                    reply.path,
                    index,
                    what,
                    _describe_item_error(exc),
                    self._sample(item, reply),
                )
        if items and not parsed:
            raise ContractError(
                f"could not read {what} from the server: none of the {len(items)} items "
                f"POST {reply.path} answered could be read",
                status_code=reply.status_code,
                raw_body=self._scrub_bytes(reply),
            )
        return parsed

    def _sample(self, value: Any, reply: _Reply) -> str:
        """A short, credential-free excerpt of a body or an item, for a log line."""
        if isinstance(value, bytes):
            text = value.decode("utf-8", errors="replace")
        else:
            try:
                text = json.dumps(value, ensure_ascii=False)
            except (TypeError, ValueError, RecursionError):
                text = repr(value)
        text = self._scrub(text, reply)
        if len(text) > _SAMPLE_CHARS:
            text = text[:_SAMPLE_CHARS] + "…"
        return text

    def _validate(self, reply: _Reply, data: dict[str, Any], model: type[ModelT]) -> ModelT:
        """Validate a decoded object as ``model``; a mismatch is a :class:`ContractError`."""
        try:
            return model.model_validate(data)
        except (pydantic.ValidationError, RecursionError) as exc:
            raise ContractError(
                f"POST {reply.path}: response does not match {model.__name__}: "
                f"{_summarize_validation(exc)}",
                status_code=reply.status_code,
                raw_body=self._scrub_bytes(reply),
            ) from exc

    def _error_for(self, reply: _Reply, data: Any) -> ApiError:
        """The typed error for an error status or a 2xx body carrying ``error``/``errorCode``."""
        status = reply.status_code
        body = data if isinstance(data, dict) else {}
        error_code = body.get("errorCode")
        error_code = error_code if isinstance(error_code, str) else None
        message = self._scrub(
            f"POST {reply.path}: HTTP {status}: {_error_message(body, reply.body)}", reply
        )
        if status == 402 or error_code in INSUFFICIENT_CREDITS_CODES:
            return InsufficientCredits(
                message,
                status_code=status,
                error_code=error_code,
                upgrade_options=_parse_upgrade_options(body.get("upgradeOptions")),
            )
        if status == 403:
            # The credentials were read and this call refused (a plan, a feature, a scope):
            # the person needs the server's own words, not "sign in again".
            return Forbidden(
                self._scrub(_forbidden_text(body, reply.body), reply), status_code=status
            )
        if status == 401:
            return AuthError(message, status_code=status)
        if status == 429:
            return RateLimited(message, status_code=status, retry_after=self._retry_after(reply))
        if status == 408 or status >= 500:
            return ServerError(message, status_code=status, retry_after=self._retry_after(reply))
        # 400/404/409/422 and friends, and a 2xx body that reports an error: the server
        # understood and refused this request; repeating it would not help.
        return ValidationError(message, status_code=status)

    def _scrub(self, text: str, reply: _Reply) -> str:
        """``text`` with any credential that was sent replaced, in case a server echoes it."""
        for secret in [*reply.sent_secrets, *self._credentials.secrets()]:
            if secret:
                text = text.replace(secret, "***")
        return text

    def _scrub_bytes(self, reply: _Reply) -> bytes:
        """The raw body with credentials removed, for :attr:`ContractError.raw_body`."""
        body = reply.body
        for secret in [*reply.sent_secrets, *self._credentials.secrets()]:
            if secret:
                body = body.replace(secret.encode("utf-8"), b"***")
        return body


# ---------------------------------------------------------------------- module helpers

_NOT_JSON: Any = object()


def build_search_body(query: str, *, raw: bool, options: Mapping[str, Any]) -> dict[str, Any]:
    """The ``/search`` JSON body: wire names, paging defaults, ``None`` values left out."""
    unknown = set(options) - set(SEARCH_WIRE_NAMES) - {"extra_fields"}
    if unknown:
        raise TypeError(f"unknown search option(s): {', '.join(sorted(unknown))}")
    limit = options.get("limit", DEFAULT_PAGE_SIZE)
    offset = options.get("offset", 0)
    _check_paging(limit, offset)
    body: dict[str, Any] = {"query": query, "raw": raw}
    for name, wire_name in SEARCH_WIRE_NAMES.items():
        value = options.get(name)
        if name == "limit":
            value = limit
        elif name == "offset":
            value = offset
        elif name == "time_range" and value is not None:
            value = _without_none(dict(value))
        elif name in ("content_types", "tag_ids", "view_ids", "feed_ids") and value is not None:
            value = list(value)
        if value is not None:
            body[wire_name] = value
    body.update(options.get("extra_fields") or {})
    return body


def _check_paging(limit: int | None, offset: int | None) -> None:
    """Reject paging values the server could only refuse."""
    if limit is not None and limit < 1:
        raise ValueError("limit must be at least 1")
    if offset is not None and offset < 0:
        raise ValueError("offset must not be negative")


def _without_none(values: Mapping[str, Any]) -> dict[str, Any]:
    """``values`` without the keys whose value is ``None`` (not sent = server default)."""
    return {key: value for key, value in values.items() if value is not None}


def _origin(url: httpx.URL) -> tuple[str, str, int | None]:
    """Scheme, host and effective port: credentials are sent only within one origin."""
    default_port = {"http": 80, "https": 443}.get(url.scheme)
    return (url.scheme, url.host.lower(), url.port or default_port)


def _capped(timeout: httpx.Timeout, remaining: float) -> httpx.Timeout:
    """Per-phase timeouts no longer than what is left of the overall deadline."""

    def cap(value: float | None) -> float:
        return remaining if value is None else min(value, remaining)

    return httpx.Timeout(
        connect=cap(timeout.connect),
        read=cap(timeout.read),
        write=cap(timeout.write),
        pool=cap(timeout.pool),
    )


def _refused(exc: BaseException) -> bool:
    """Whether a connection failed because the host refused it (ECONNREFUSED somewhere in
    its causes; httpx wraps the socket's error in its own)."""
    seen: set[int] = set()
    cause: BaseException | None = exc
    while cause is not None and id(cause) not in seen:
        if isinstance(cause, ConnectionRefusedError):
            return True
        seen.add(id(cause))
        cause = cause.__cause__ or cause.__context__
    return False


def _describe_transport_error(exc: httpx.TransportError) -> str:
    """A short description of a connection failure (its class and first line)."""
    first_line = str(exc).splitlines()[0] if str(exc) else ""
    return f"{type(exc).__name__}: {first_line}"[:_MAX_MESSAGE_CHARS]


def _decode_json(body: bytes) -> Any:
    """Decode JSON safely (deep nesting gives ``_NOT_JSON``, never a crash).

    Every response body is read here. Invalid UTF-8 and lone surrogate escapes (what
    JavaScript writes for a string cut mid-emoji) become U+FFFD instead of making the whole
    answer "not JSON": the fast parse runs first, so a clean body pays nothing for that.
    """
    if not body:
        return _NOT_JSON
    try:
        return pydantic_core.from_json(body)
    except RecursionError:
        return _NOT_JSON
    except ValueError:
        repaired = repaired_json(body)
    if repaired is None:
        return _NOT_JSON
    try:
        return pydantic_core.from_json(repaired)
    except (ValueError, RecursionError):
        return _NOT_JSON


# One JSON escape: a surrogate escape (a high one with the low one after it, or a lone one),
# or any other escape, consumed whole so that ``\\ud83d`` (an escaped backslash) is not read
# as a surrogate.
_JSON_ESCAPE = re.compile(
    rb"\\(?:(u[dD][89abAB][0-9a-fA-F]{2})(\\u[dD][c-fC-F][0-9a-fA-F]{2})?"
    rb"|(u[dD][c-fC-F][0-9a-fA-F]{2})|.)",
    re.DOTALL,
)
_REPLACEMENT_ESCAPE = rb"\ufffd"


def repaired_json(body: bytes) -> bytes | None:
    """``body`` with invalid UTF-8 and lone surrogate escapes replaced by U+FFFD, or None
    when it holds neither (its JSON is broken some other way)."""
    repaired = body
    try:
        body.decode("utf-8")
    except UnicodeDecodeError:
        repaired = body.decode("utf-8", errors="replace").encode("utf-8")
    # Cheap test first: scanning every escape is only worth it when a surrogate may be there.
    if b"\\ud" in repaired or b"\\uD" in repaired:
        repaired = _JSON_ESCAPE.sub(_lone_surrogate_replaced, repaired)
    if repaired == body:
        return None
    _log.warning("repaired a response body holding invalid UTF-8 or lone surrogates")
    return repaired


def _lone_surrogate_replaced(escape: re.Match[bytes]) -> bytes:
    """One escape as it stays, or U+FFFD's escape for a lone surrogate."""
    high, low, lone_low = escape.groups()
    if (high is not None and low is None) or lone_low is not None:
        return _REPLACEMENT_ESCAPE
    return escape.group()


def _carries_error(data: Mapping[str, Any]) -> bool:
    """Whether a 2xx body reports a failure (``error``/``errorCode`` set, as the app checks)."""
    return bool(data.get("error")) or bool(data.get("errorCode"))


def _error_message(body: Mapping[str, Any], raw: bytes) -> str:
    """The server's explanation: ``error``, ``message``, ``details`` or ``msg``, else the text."""
    for key in ("error", "message", "details", "msg"):
        value = body.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()[:_MAX_MESSAGE_CHARS]
        if isinstance(value, dict | list) and value:
            return json.dumps(value, ensure_ascii=False)[:_MAX_MESSAGE_CHARS]
    text = raw.decode("utf-8", errors="replace").strip()
    return text[:_MAX_MESSAGE_CHARS] if text else "no details"


def _forbidden_text(body: Mapping[str, Any], raw: bytes) -> str:
    """The server's explanation of a 403; a generic one when it sent only markup."""
    text = _error_message(body, raw)
    if text == "no details" or (not body and text.lstrip().startswith("<")):
        return "access to this is forbidden (HTTP 403)"
    return text


def _find_listing(data: Any, key: str) -> tuple[list[Any] | None, str]:
    """A listing's items and where they were found; ``None`` when no shape fits."""
    if isinstance(data, list):
        return data, ""
    if not isinstance(data, dict):
        return None, ""
    if key in data and data[key] is None:
        return [], key  # the documented key, explicitly empty
    for candidate in (key, *LISTING_FALLBACK_KEYS):
        value = data.get(candidate)
        if isinstance(value, list):
            return value, candidate
    return None, ""


def _describe_shape(data: Any) -> str:
    """What a response held, in a few words (key names, never values)."""
    if data is _NOT_JSON:
        return "a body that is not JSON"
    if isinstance(data, dict):
        if not data:
            return "an empty object"
        keys = sorted(str(name) for name in data)
        more = f" (+{len(keys) - 8} more)" if len(keys) > 8 else ""
        return "an object with keys " + ", ".join(repr(k[:40]) for k in keys[:8]) + more
    return f"JSON {type(data).__name__}"


def _describe_item_error(exc: ValueError | RecursionError) -> str:
    """Why an item was skipped, without its (possibly long) values."""
    if isinstance(exc, pydantic.ValidationError):
        return _summarize_validation(exc)
    if isinstance(exc, RecursionError):
        return "nested too deeply"
    return str(exc)[:_MAX_MESSAGE_CHARS]


def _parse_view(item: Any) -> View:
    """One saved view of a listing."""
    return View.model_validate(item)


def _parse_feed(item: Any) -> Feed:
    """One followed feed of a listing."""
    return Feed.model_validate(item)


def _parse_tag_name(item: Any) -> str:
    """One tag name of a listing: a string, or an object naming the tag."""
    if isinstance(item, dict):
        item = item.get("name", item.get("tagName"))
    if isinstance(item, str) and item.strip():
        return item
    raise ValueError(f"not a tag name: JSON {type(item).__name__}")


def moved_api_base(location: str) -> str:
    """The API root a moved API's redirect target points at: the target without the endpoint
    path it ends with (and without query or fragment); the target itself otherwise."""
    try:
        url = httpx.URL(location)
    except httpx.InvalidURL:
        return location
    path = url.path.rstrip("/")
    for endpoint in ENDPOINT_PATHS:
        if path.endswith(endpoint):
            path = path[: -len(endpoint)]
            break
    return str(url.copy_with(path=path or "/", query=None, fragment=None)).rstrip("/")


def _parse_upgrade_options(value: Any) -> AvailablePlansOutput | None:
    """``upgradeOptions`` as a model; a malformed value is logged and dropped, not fatal."""
    if value is None:
        return None
    try:
        options = AvailablePlansOutput.model_validate(value)
    except pydantic.ValidationError as exc:
        _log.warning("ignored malformed upgradeOptions: %s", _summarize_validation(exc))
        return None
    if not options.plans and INVALID_FIELDS_KEY in (options.model_extra or {}):
        # Options whose plans could not be read are none: the plans are asked for instead.
        _log.warning("ignored malformed upgradeOptions: no readable plans")
        return None
    return options


def _summarize_validation(exc: pydantic.ValidationError | RecursionError) -> str:
    """The first few validation problems by location (no input values: they may be long)."""
    if isinstance(exc, RecursionError):
        return "nested too deeply"
    parts = [
        f"{'.'.join(str(part) for part in error['loc']) or '<root>'}: {error['msg']}"
        for error in exc.errors(include_input=False)[:3]
    ]
    more = exc.error_count() - len(parts)
    return "; ".join(parts) + (f" (+{more} more)" if more > 0 else "")


__all__ = [
    "DEFAULT_BASE_URL",
    "DEFAULT_DEADLINE_S",
    "DEFAULT_MAX_RESPONSE_BYTES",
    "DEFAULT_TIMEOUT",
    "ENDPOINT_PATHS",
    "LISTING_FALLBACK_KEYS",
    "SEARCH_WIRE_NAMES",
    "MemexClient",
    "RetryPolicy",
    "SearchOptions",
    "build_search_body",
    "moved_api_base",
]
