"""MemexClient against httpx.MockTransport: auth, request bodies, retries, limits, errors."""

from __future__ import annotations

import json
import logging
from typing import Any

import httpx
import pytest
from support.api_client import (
    BASE_URL,
    PLANS,
    DripStream,
    EndlessStream,
    FakeClock,
    Recorder,
    json_response,
    make_client,
    raw_page,
)
from support.secrets import TEST_API_KEY, TEST_BEARER_TOKEN, TEST_USER_ID

from memex_desktop.api.client import (
    SEARCH_WIRE_NAMES,
    MemexClient,
    SearchOptions,
    build_search_body,
)
from memex_desktop.api.errors import (
    AuthError,
    ContractError,
    InsufficientCredits,
    NetworkUnavailable,
    RateLimited,
    ServerError,
    ServerNotAnswering,
    ValidationError,
)
from memex_desktop.api.models import (
    SaveContentEntityReceiptResponse,
    SaveContentEntityResponse,
    SearchLlmReadyResponse,
    SearchMeta,
    SearchRawResponse,
)

COMPACT = {"results": [{"type": "web", "url": "https://a", "createdAt": None, "text": "x"}]}


# ---------------------------------------------------------------------- auth


def test_api_key_mode_sends_key_and_user_id_only() -> None:
    recorder = Recorder([json_response(200, raw_page())])
    client, _ = make_client(recorder, user_id=TEST_USER_ID)
    client.search_raw("q")
    headers = recorder.requests[0].headers
    assert headers["x-api-key"] == TEST_API_KEY
    assert headers["x-user-id"] == TEST_USER_ID
    assert "authorization" not in headers
    assert headers["content-type"] == "application/json"
    assert TEST_API_KEY not in str(recorder.requests[0].url)
    assert client.auth_mode == "api-key"


def test_bearer_wins_over_api_key_and_is_never_sent_with_it() -> None:
    recorder = Recorder([json_response(200, raw_page())])
    client, _ = make_client(recorder, user_id=TEST_USER_ID, bearer_token=TEST_BEARER_TOKEN)
    client.search_raw("q")
    headers = recorder.requests[0].headers
    assert headers["authorization"] == f"Bearer {TEST_BEARER_TOKEN}"
    assert "x-api-key" not in headers
    assert "x-user-id" not in headers
    assert client.auth_mode == "bearer"


def test_bearer_callable_refreshed_once_on_401_then_retried() -> None:
    tokens = ["expired-token", TEST_BEARER_TOKEN]
    refreshes: list[int] = []

    def refresh() -> bool:
        refreshes.append(1)
        tokens.pop(0)
        return True

    recorder = Recorder([json_response(401, {"error": "invalid JWT"}), json_response(200, PLANS)])
    client, _ = make_client(recorder, bearer_token=lambda: tokens[0], refresh_bearer_token=refresh)
    plans = client.get_available_plans()
    assert plans.default_plan_id == "starter-10"
    assert [r.headers["authorization"] for r in recorder.requests] == [
        "Bearer expired-token",
        f"Bearer {TEST_BEARER_TOKEN}",
    ]
    assert refreshes == [1]


def test_401_after_refresh_is_auth_error_and_refresh_runs_once() -> None:
    calls: list[int] = []

    def refresh() -> bool:
        calls.append(1)
        return True

    recorder = Recorder([json_response(401, {"error": "invalid JWT"})])
    client, _ = make_client(recorder, bearer_token=TEST_BEARER_TOKEN, refresh_bearer_token=refresh)
    with pytest.raises(AuthError) as caught:
        client.save_content_by_url("https://example.com/a")
    assert caught.value.status_code == 401
    assert "invalid JWT" in caught.value.message
    assert len(calls) == 1
    assert len(recorder.requests) == 2


def test_refresh_that_fails_does_not_resend() -> None:
    recorder = Recorder([json_response(401, {"error": "expired"})])
    client, _ = make_client(
        recorder, bearer_token=TEST_BEARER_TOKEN, refresh_bearer_token=lambda: False
    )
    with pytest.raises(AuthError):
        client.list_views()
    assert len(recorder.requests) == 1


def test_repr_and_exceptions_never_show_credentials() -> None:
    recorder = Recorder([json_response(403, {"error": f"key {TEST_API_KEY} is revoked"})])
    client, _ = make_client(recorder, user_id=TEST_USER_ID)
    assert TEST_API_KEY not in repr(client)
    assert TEST_API_KEY not in str(client)
    assert "api-key" in repr(client)
    with pytest.raises(AuthError) as caught:
        client.list_feeds()
    assert TEST_API_KEY not in str(caught.value)
    assert "***" in str(caught.value)


def test_constructor_rejects_bad_urls_and_arguments() -> None:
    with pytest.raises(ValueError, match="http"):
        MemexClient("ftp://memex.test")
    with pytest.raises(ValueError, match="password") as caught:
        MemexClient("https://user:secret@memex.test/api")
    assert "secret" not in str(caught.value)
    with pytest.raises(ValueError, match="query"):
        MemexClient("https://memex.test/api?key=1")
    with pytest.raises(ValueError, match="bearer_token"):
        MemexClient(BASE_URL, refresh_bearer_token=lambda: True)
    with pytest.raises(ValueError, match="deadline_s"):
        MemexClient(BASE_URL, deadline_s=0)
    with MemexClient(BASE_URL + "/") as client:
        assert client.base_url == BASE_URL
        assert client.auth_mode == "none"


# ---------------------------------------------------------------------- request bodies


def test_every_search_option_has_a_wire_name() -> None:
    assert set(SearchOptions.__annotations__) - {"extra_fields"} == set(SEARCH_WIRE_NAMES)


def test_search_maps_every_option_to_its_wire_name() -> None:
    recorder = Recorder([json_response(200, raw_page())])
    client, _ = make_client(recorder)
    options: dict[str, Any] = {
        "limit": 50,
        "offset": 100,
        "sort_by": "date-desc",
        "content_types": ("web", "pdf"),
        "tag_ids": ["t1"],
        "tag": "reading ai",
        "tag_match_strategy": "OR",
        "time_range": {"start": 1, "end": None},
        "date_from": "2026-01-01",
        "date_to": "2026-02-01",
        "include_notes": True,
        "include_chunk_context": False,
        "include_fields": ["title"],
        "exclude_fields": ["html"],
        "view_ids": ["v1"],
        "feed_ids": ["f1"],
        "feed_scope": "all",
        "enable_rerank": True,
        "rerank_window": 40,
        "relevance_threshold": 0.25,
        "rewrite_query": False,
        "force_full_query_processing": True,
        "twitter_bot_dashboard_tid": "tid",
        "demo_slug": "demo",
        "public_token": "pub",
        "extra_fields": {"futureField": 1},
    }
    client.search("hello", raw=True, **options)
    assert recorder.body() == {
        "query": "hello",
        "raw": True,
        "limit": 50,
        "offset": 100,
        "sortBy": "date-desc",
        "contentTypes": ["web", "pdf"],
        "tag_ids": ["t1"],
        "tag": "reading ai",
        "tagMatchStrategy": "OR",
        "timeRange": {"start": 1},
        "dateFrom": "2026-01-01",
        "dateTo": "2026-02-01",
        "includeNotes": True,
        "includeChunkContext": False,
        "includeFields": ["title"],
        "excludeFields": ["html"],
        "viewIds": ["v1"],
        "feedIds": ["f1"],
        "feedScope": "all",
        "enableRerank": True,
        "rerankWindow": 40,
        "relevanceThreshold": 0.25,
        "rewriteQuery": False,
        "forceFullQueryProcessing": True,
        "twitterBotDashboardTid": "tid",
        "demoSlug": "demo",
        "publicToken": "pub",
        "futureField": 1,
    }
    assert recorder.requests[0].url == httpx.URL(BASE_URL + "/search")
    assert recorder.requests[0].method == "POST"


def test_search_defaults_and_shapes() -> None:
    recorder = Recorder([json_response(200, COMPACT), json_response(200, raw_page(2))])
    client, _ = make_client(recorder)
    compact = client.search_compact()
    assert isinstance(compact, SearchLlmReadyResponse)
    assert recorder.body() == {"query": "", "raw": False, "limit": 20, "offset": 0}
    raw = client.search_raw("x", limit=None, offset=None)
    assert isinstance(raw, SearchRawResponse)
    assert [e.id for e in raw.results] == ["e0", "e1"]
    assert recorder.body() == {"query": "x", "raw": True}


def test_search_rejects_bad_paging_and_unknown_options() -> None:
    with pytest.raises(ValueError, match="limit"):
        build_search_body("", raw=False, options={"limit": 0})
    with pytest.raises(ValueError, match="offset"):
        build_search_body("", raw=False, options={"offset": -1})
    with pytest.raises(TypeError, match="sortBy"):
        build_search_body("", raw=False, options={"sortBy": "date-desc"})


def test_last_meta_and_on_meta_follow_each_search() -> None:
    seen: list[SearchMeta] = []
    recorder = Recorder([json_response(200, raw_page(1)), json_response(200, COMPACT)])
    client, _ = make_client(recorder, on_meta=seen.append)
    client.search_raw()
    assert client.last_meta is not None
    assert client.last_meta.returned_count == 1
    client.search_compact()  # no meta in the body: the last one stays
    assert client.last_meta.returned_count == 1
    assert len(seen) == 1


def test_save_bodies_and_receipt_mode() -> None:
    entity = {"id": "n1", "type": "annotation", "text": "hi", "created_at": 1, "updated_at": 1}
    recorder = Recorder(
        [
            json_response(200, {"entity": entity, "tags": [], "isNew": True}),
            json_response(200, {"entity": entity, "entities": [], "isNew": False}),
            json_response(200, {"ok": True, "processingRequestId": "req-1"}),
            json_response(200, {"entity": entity, "entities": [entity], "isNew": True}),
        ]
    )
    client, _ = make_client(recorder)
    saved = client.save_content_by_url("https://example.com/a", tag_ids=["t"])
    assert saved.is_new is True
    assert recorder.body() == {"url": "https://example.com/a", "tag_ids": ["t"]}
    full = client.save_content_entity({"type": "annotation", "text": "hi"}, relatedContentIds=["x"])
    assert isinstance(full, SaveContentEntityResponse)
    assert recorder.body() == {
        "data": {"type": "annotation", "text": "hi"},
        "relatedContentIds": ["x"],
    }
    receipt = client.save_content_entity({"url": "https://b"}, response_mode="receipt")
    assert isinstance(receipt, SaveContentEntityReceiptResponse)
    assert receipt.processing_request_id == "req-1"
    assert recorder.body()["responseMode"] == "receipt"
    # A server that ignores responseMode and answers in full is accepted.
    ignored = client.save_content_entity({"url": "https://b"}, response_mode="receipt")
    assert isinstance(ignored, SaveContentEntityResponse)


def test_other_endpoints_paths_and_bodies() -> None:
    view = {"id": "v1", "name": "Reading", "definition": {"query": "ai"}}
    link = {"sharedResourceId": "s1", "accessMode": "public_link", "contentId": "e1"}
    feed = {"id": "f1", "title": "Blog", "feed_url": "https://b/rss"}
    recorder = Recorder(
        [
            json_response(200, {"view": view}),
            json_response(200, {"views": [view]}),
            json_response(200, raw_page(1)),
            json_response(200, {"tagNames": ["ai", "reading"]}),
            json_response(200, {"feeds": [feed]}),
            json_response(200, {"link": link}),
            json_response(200, {"links": [link]}),
            json_response(200, PLANS),
        ]
    )
    client, _ = make_client(recorder)
    assert client.create_view("Reading", {"query": "ai"}).id == "v1"
    assert client.list_views()[0].display_name == "Reading"
    assert client.execute_view_search("v1", limit=5).results[0].id == "e0"
    assert client.get_available_tag_names() == ["ai", "reading"]
    assert client.list_feeds()[0].feed_url == "https://b/rss"
    assert client.ensure_shared_library_entry_link("e1", access="collaborate").content_id == "e1"
    assert client.list_shared_library_entry_links(content_type="web")[0].shared_resource_id == "s1"
    assert client.get_available_plans().plans[0].plan_name == "Starter"
    paths = [request.url.path for request in recorder.requests]
    assert paths == [
        "/api/create-view",
        "/api/list-views",
        "/api/execute-view-search",
        "/api/get-available-tag-names",
        "/api/list-feeds",
        "/api/ensure-shared-library-entry-link",
        "/api/list-shared-library-entry-links",
        "/api/get-available-plans",
    ]
    bodies = [json.loads(request.content) for request in recorder.requests]
    assert bodies[0] == {"name": "Reading", "definition": {"query": "ai"}}
    assert bodies[1] == {}
    assert bodies[2] == {"viewId": "v1", "limit": 5, "offset": 0}
    assert bodies[5] == {"contentId": "e1", "access": "collaborate"}
    assert bodies[6] == {"contentType": "web"}
    assert client.last_meta is not None


# ---------------------------------------------------------------------- retries


def test_reads_retry_5xx_with_full_jitter_backoff() -> None:
    recorder = Recorder(
        [
            json_response(503, {"error": "busy"}),
            json_response(502, {"error": "busy"}),
            json_response(200, raw_page()),
        ]
    )
    client, clock = make_client(recorder, random=lambda: 0.5)
    assert client.search_raw().results
    assert clock.sleeps == [0.25, 0.5]  # half of 0.5 s, then half of 1 s


def test_retries_stop_after_max_retries_with_server_error() -> None:
    recorder = Recorder([json_response(500, {"message": "boom"})])
    client, clock = make_client(recorder, max_retries=2)
    with pytest.raises(ServerError, match="boom") as caught:
        client.list_feeds()
    assert caught.value.status_code == 500
    assert len(recorder.requests) == 3
    assert len(clock.sleeps) == 2


@pytest.mark.parametrize(
    ("header", "expected_wait"),
    [("3", 3.0), ("Tue, 14 Nov 2023 22:13:25 GMT", 5.0), ("garbage", 0.5)],
)
def test_retry_after_seconds_and_http_date_are_honoured(header: str, expected_wait: float) -> None:
    recorder = Recorder(
        [
            json_response(429, {"error": "slow down"}, {"Retry-After": header}),
            json_response(200, raw_page()),
        ]
    )
    clock = FakeClock(wall=1_700_000_000.0)  # 2023-11-14 22:13:20 GMT
    client, clock = make_client(recorder, clock=clock, random=lambda: 1.0, max_retries=1)
    client.search_raw()
    assert clock.sleeps == [pytest.approx(expected_wait)]


def test_rate_limited_after_retries_carries_retry_after() -> None:
    recorder = Recorder([json_response(429, {"error": "slow"}, {"Retry-After": "2"})])
    client, clock = make_client(recorder, max_retries=1)
    with pytest.raises(RateLimited) as caught:
        client.search_compact()
    assert caught.value.retry_after == 2.0
    assert clock.sleeps == [2.0]


def test_a_503_after_retries_carries_the_wait_the_server_named() -> None:
    recorder = Recorder([json_response(503, {"error": "maintenance"}, {"Retry-After": "2"})])
    client, clock = make_client(recorder, max_retries=1)
    with pytest.raises(ServerError) as caught:
        client.search_raw()
    assert (caught.value.status_code, caught.value.retry_after) == (503, 2.0)
    assert clock.sleeps == [2.0]
    recorder.responses[:] = [json_response(503, {"error": "down"})]
    with pytest.raises(ServerError) as unannounced:
        client.search_raw()
    assert unannounced.value.retry_after is None


def test_a_503_naming_a_long_wait_fails_at_once_with_it() -> None:
    recorder = Recorder([json_response(503, {"error": "maintenance"}, {"Retry-After": "120"})])
    client, clock = make_client(recorder)
    with pytest.raises(ServerError) as caught:
        client.search_raw()
    assert caught.value.retry_after == 120.0
    assert clock.sleeps == []


def test_long_retry_after_is_not_waited_for() -> None:
    recorder = Recorder([json_response(429, {"error": "slow"}, {"Retry-After": "3600"})])
    client, clock = make_client(recorder)
    with pytest.raises(RateLimited) as caught:
        client.list_views()
    assert caught.value.retry_after == 3600.0
    assert clock.sleeps == []


def test_connection_errors_are_retried_for_reads() -> None:
    recorder = Recorder(
        [httpx.ConnectError("refused"), httpx.ReadError("reset"), json_response(200, PLANS)]
    )
    client, clock = make_client(recorder)
    assert client.get_available_plans().plans
    assert len(clock.sleeps) == 2


@pytest.mark.parametrize("silence", [httpx.ReadTimeout("silent"), httpx.WriteTimeout("silent")])
def test_a_request_met_with_silence_is_not_sent_again(silence: Exception) -> None:
    """The server took it and said nothing for the whole timeout: the caller hears that it
    is not answering now, not after the same silence once more."""
    recorder = Recorder([silence, json_response(200, PLANS)])
    client, clock = make_client(recorder)
    with pytest.raises(ServerNotAnswering) as caught:
        client.get_available_plans()
    assert caught.value.silent
    assert len(recorder.requests) == 1
    assert clock.sleeps == []


def test_an_answer_that_stalls_partway_is_asked_for_again() -> None:
    """Its status came: the server is there, and the next answer may come whole."""

    class Stalls(httpx.SyncByteStream):
        def __iter__(self):  # type: ignore[no-untyped-def]
            yield b'{"plans": ['
            raise httpx.ReadTimeout("stalled")

    recorder = Recorder(
        [lambda request: httpx.Response(200, stream=Stalls()), json_response(200, PLANS)]
    )
    client, _ = make_client(recorder)
    assert client.get_available_plans().plans
    assert len(recorder.requests) == 2


def test_connection_errors_end_as_network_unavailable() -> None:
    recorder = Recorder([httpx.ConnectError("Name or service not known")])
    client, _ = make_client(recorder, max_retries=1)
    with pytest.raises(NetworkUnavailable, match="ConnectError"):
        client.search_raw()
    assert len(recorder.requests) == 2


def test_saves_are_not_retried_unless_idempotent() -> None:
    entity = {"id": "e1", "type": "web", "url": "https://a"}
    recorder = Recorder([json_response(503, {"error": "busy"})])
    client, clock = make_client(recorder)
    with pytest.raises(ServerError):
        client.save_content_by_url("https://a")
    with pytest.raises(ServerError):
        client.save_content_entity({"url": "https://a"})
    recorder.responses[:] = [httpx.ConnectError("down")]
    with pytest.raises(NetworkUnavailable):
        client.save_content_by_url("https://a")
    assert len(recorder.requests) == 3
    assert clock.sleeps == []
    recorder.responses[:] = [
        json_response(503, {"error": "busy"}),
        json_response(200, {"entity": entity, "tags": [], "isNew": True}),
    ]
    assert client.save_content_by_url("https://a", idempotent=True).entity.id == "e1"
    assert len(clock.sleeps) == 1


def test_retries_stop_at_the_overall_deadline() -> None:
    recorder = Recorder([json_response(503, {"error": "busy"})])
    client, clock = make_client(recorder, deadline_s=2.0, max_retries=10, random=lambda: 1.0)
    with pytest.raises(ServerError):
        client.search_raw()
    assert sum(clock.sleeps) < 2.0
    assert clock.sleeps == [0.5, 1.0]


# ---------------------------------------------------------------------- deadline and size


def test_dripping_body_is_aborted_by_the_deadline() -> None:
    clock = FakeClock()
    body = json.dumps(raw_page()).encode()
    recorder = Recorder(
        [lambda request: httpx.Response(200, stream=DripStream(body, clock, interval_s=0.5))]
    )
    client, _ = make_client(recorder, clock=clock, deadline_s=3.0, max_retries=0)
    with pytest.raises(NetworkUnavailable, match="within 3 s"):
        client.search_raw()
    assert clock.now - 1000.0 == pytest.approx(3.0)


def test_per_phase_timeouts_are_capped_by_the_deadline() -> None:
    recorder = Recorder([json_response(200, PLANS)])
    client, _ = make_client(recorder, deadline_s=4.0, timeout=httpx.Timeout(30.0, connect=2.0))
    client.get_available_plans()
    timeouts = recorder.requests[0].extensions["timeout"]
    assert timeouts == {"connect": 2.0, "read": 4.0, "write": 4.0, "pool": 4.0}


def test_declared_oversized_body_is_refused() -> None:
    big = json.dumps(raw_page(50)).encode()
    recorder = Recorder([httpx.Response(200, content=big)])
    client, _ = make_client(recorder, max_response_bytes=1000)
    with pytest.raises(ContractError, match="1000 byte limit"):
        client.search_raw()


def test_streamed_oversized_body_is_abandoned() -> None:
    stream = EndlessStream(b"x" * 4096)
    recorder = Recorder([lambda request: httpx.Response(200, stream=stream)])
    client, _ = make_client(recorder, max_response_bytes=100_000)
    with pytest.raises(ContractError, match="byte limit") as caught:
        client.search_raw()
    assert stream.produced <= 100_000 + 4096
    assert len(caught.value.raw_body) <= 4096


def test_truncated_body_is_a_contract_error() -> None:
    class Truncated(httpx.SyncByteStream):
        def __iter__(self):  # type: ignore[no-untyped-def]
            yield b'{"results": ['
            raise httpx.RemoteProtocolError("peer closed connection without sending body")

    recorder = Recorder([lambda request: httpx.Response(200, stream=Truncated())])
    client, _ = make_client(recorder, max_retries=0)
    with pytest.raises(ContractError, match="incomplete") as caught:
        client.search_raw()
    assert caught.value.raw_body == b'{"results": ['


# ---------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    ("status", "body", "error_type"),
    [
        (400, {"error": "Unsupported contentTypes filter values: x."}, ValidationError),
        (404, {"message": "no such view"}, ValidationError),
        (409, {"details": {"field": "url"}}, ValidationError),
        (422, {"msg": "bad"}, ValidationError),
        (401, {"error": "invalid JWT"}, AuthError),
        (403, {"error": "forbidden"}, AuthError),
        (402, {"error": "no money"}, InsufficientCredits),
        (429, {"error": "slow"}, RateLimited),
        (408, {"error": "timeout"}, ServerError),
        (500, {"error": "boom"}, ServerError),
        (504, "gateway timeout (html)", ServerError),
        (418, "teapot", ValidationError),
    ],
)
def test_status_maps_to_typed_error(status: int, body: Any, error_type: type[Exception]) -> None:
    content = json.dumps(body).encode() if isinstance(body, dict) else body.encode()
    recorder = Recorder([httpx.Response(status, content=content)])
    client, _ = make_client(recorder, max_retries=0)
    with pytest.raises(error_type) as caught:
        client.list_views()
    error = caught.value
    assert getattr(error, "status_code", None) == status
    expected = next(iter(body.values())) if isinstance(body, dict) else body
    fragment = expected if isinstance(expected, str) else json.dumps(expected)
    assert fragment in str(error)


@pytest.mark.parametrize("status", [200, 402])
@pytest.mark.parametrize("code", ["INSUFFICIENT_CREDITS", "SAVE_CONTENT_INSUFFICIENT_CREDITS"])
def test_insufficient_credits_with_upgrade_options(status: int, code: str) -> None:
    body = {"error": "Not enough usage balance", "errorCode": code, "upgradeOptions": PLANS}
    recorder = Recorder([json_response(status, body)])
    client, _ = make_client(recorder)
    with pytest.raises(InsufficientCredits) as caught:
        client.search_raw("q", enable_rerank=True)
    error = caught.value
    assert error.error_code == code
    assert error.status_code == status
    assert error.upgrade_options is not None
    assert error.upgrade_options.plans[0].id == "starter-10"
    assert len(recorder.requests) == 1


def test_malformed_upgrade_options_do_not_hide_the_error() -> None:
    body = {"errorCode": "INSUFFICIENT_CREDITS", "upgradeOptions": {"plans": "none"}}
    client, _ = make_client(Recorder([json_response(402, body)]))
    with pytest.raises(InsufficientCredits) as caught:
        client.search_raw()
    assert caught.value.upgrade_options is None


def test_2xx_body_with_unknown_error_is_a_validation_error() -> None:
    client, _ = make_client(Recorder([json_response(200, {"error": "query too long"})]))
    with pytest.raises(ValidationError, match="query too long"):
        client.search_compact("q" * 10)


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"<html>Bad gateway</html>",
        b'{"results": [',
        b"\xff\xfe\x00garbage",
        b"[1, 2, 3]",
        b'"just a string"',
        b"[" * 100_000 + b"]" * 100_000,
        b'{"results": "not a list", "meta": 7}',
        b'{"view": {"name": "no id"}}',
        b'{"view": {"id": ["not", "a", "string"]}}',
    ],
)
def test_undecodable_or_invalid_bodies_are_contract_errors(content: bytes) -> None:
    client, _ = make_client(Recorder([httpx.Response(200, content=content)]))
    with pytest.raises(ContractError) as caught:
        client.create_view("x") if b"view" in content else client.search_raw()
    assert caught.value.raw_body == content[:4096]


def test_entity_with_a_list_as_type_is_a_contract_error() -> None:
    body = {"entity": {"id": "e", "type": ["web"]}, "tags": [], "isNew": True}
    client, _ = make_client(Recorder([json_response(200, body)]))
    with pytest.raises(ContractError, match="SaveContentByUrlResponse"):
        client.save_content_by_url("https://a")


def test_unfollowed_redirect_status_is_a_contract_error() -> None:
    recorder = Recorder([httpx.Response(302, headers={"Location": "/elsewhere"})])
    client, _ = make_client(recorder)
    with pytest.raises(ContractError, match="302"):
        client.list_feeds()


# ---------------------------------------------------------------------- redirects


def _redirect(location: str, status: int = 307) -> httpx.Response:
    return httpx.Response(status, headers={"Location": location})


def test_same_origin_redirect_is_followed_with_credentials() -> None:
    recorder = Recorder([_redirect("/api/v2/list-feeds", 308), json_response(200, {"feeds": []})])
    client, _ = make_client(recorder)
    assert client.list_feeds() == []
    second = recorder.requests[1]
    assert second.url == httpx.URL("https://memex.test/api/v2/list-feeds")
    assert second.headers["x-api-key"] == TEST_API_KEY
    assert second.method == "POST"
    assert second.content == recorder.requests[0].content


@pytest.mark.parametrize(
    "target",
    [
        "https://other.test/api/search",
        "https://memex.test:8443/api/search",
        "https://evil.memex.test/api/search",
    ],
)
@pytest.mark.parametrize("mode", ["api_key", "bearer_token"])
def test_cross_origin_redirect_drops_credentials(target: str, mode: str) -> None:
    recorder = Recorder([_redirect(target), json_response(200, raw_page())])
    credentials: dict[str, Any] = (
        {"bearer_token": TEST_BEARER_TOKEN} if mode == "bearer_token" else {}
    )
    client, _ = make_client(recorder, user_id=TEST_USER_ID, **credentials)
    client.search_raw()
    first, second = recorder.requests
    assert {"x-api-key", "authorization"} & set(first.headers)
    assert second.url == httpx.URL(target)
    for name in ("authorization", "x-api-key", "x-user-id"):
        assert name not in second.headers


def test_https_to_http_redirect_is_refused() -> None:
    recorder = Recorder([_redirect("http://memex.test/api/search")])
    client, _ = make_client(recorder)
    with pytest.raises(ContractError, match="https to http"):
        client.search_raw()
    assert len(recorder.requests) == 1


def test_redirect_loop_is_cut() -> None:
    recorder = Recorder([_redirect("/api/search")])
    client, _ = make_client(recorder)
    with pytest.raises(ContractError, match="redirects"):
        client.search_raw()
    assert len(recorder.requests) == 6


# ---------------------------------------------------------------------- logs


def test_debug_logs_name_the_path_but_never_the_key(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    recorder = Recorder([json_response(500, {"error": "x"}), json_response(200, raw_page())])
    client, _ = make_client(recorder, user_id=TEST_USER_ID)
    client.search_raw()
    text = caplog.text
    assert "/api/search" in text
    assert TEST_API_KEY not in text
    assert TEST_USER_ID not in text
