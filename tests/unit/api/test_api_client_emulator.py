"""MemexClient against the Memex emulator on a real loopback socket.

Every endpoint, both auth modes, and the failures a network and a server can produce: 401,
402 with upgrade options, 429 with Retry-After, 5xx, a dropped connection, a truncated body, a
body dripping one byte per half second, and a redirect to another origin.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from support.secrets import TEST_API_KEY, TEST_BEARER_TOKEN, TEST_USER_ID

from memex_desktop.api.client import MemexClient
from memex_desktop.api.errors import (
    AuthError,
    ContractError,
    InsufficientCredits,
    NetworkUnavailable,
    RateLimited,
    ServerError,
    ServerRefused,
    ValidationError,
)
from memex_desktop.api.models import (
    SaveContentEntityReceiptResponse,
    SearchLlmReadyResponse,
    SearchRawResponse,
)
from memex_desktop.emulator import EmulatorConfig, RunningEmulator, run_emulator_in_thread

DAY_MS = 86_400_000
T0 = 1_760_000_000_000


def _library() -> dict[str, Any]:
    """A small library: three pages, a note on the first, a tag, a view and a feed."""
    pages = [
        {"id": f"page-{i}", "type": "web", "url": f"https://example.com/{i}",
         "title": f"Gardening notes {i}", "full_text": f"compost and soil, part {i}",
         "created_at": T0 + i * DAY_MS, "updated_at": T0 + i * DAY_MS,
         "metadata": {"status": "indexing-done"}, "tag_ids": ["tag-soil"] if i == 0 else []}
        for i in range(3)
    ]  # fmt: skip
    note = {
        "id": "note-1", "type": "annotation", "text": "remember the compost ratio",
        "content": {"type": "doc", "content": [{"type": "paragraph", "content": [
            {"type": "text", "text": "remember the compost ratio"}]}]},
        "reference_content_ids": ["page-0"], "created_at": T0 + 5, "updated_at": T0 + 5,
        "metadata": {"status": "indexing-done"},
    }  # fmt: skip
    return {
        "results": [*pages, note],
        "extraEntities": [],
        "referencesByResultId": {
            "page-0": {"contentEntityIds": [], "tagIds": ["tag-soil"]},
            "note-1": {"contentEntityIds": ["page-0"], "tagIds": []},
        },
        "referencedEntities": [],
        "referencedTags": [{"id": "tag-soil", "name": "soil", "created_at": T0}],
        "meta": {"offset": 0, "limit": 4, "returnedCount": 4},
        "views": [{"id": "view-soil", "name": "Soil", "definition": {"tag_ids": ["tag-soil"]}}],
        "feeds": [{"id": "feed-1", "title": "Garden blog", "feed_url": "https://g.example/rss",
                   "site_url": "https://g.example", "source_platform": "rss"}],
    }  # fmt: skip


@pytest.fixture(scope="module")
def running() -> Iterator[RunningEmulator]:
    """One emulator for the module (starting uvicorn per test would dominate the run time)."""
    config = EmulatorConfig(
        library=_library(),
        api_key=TEST_API_KEY,
        bearer_tokens=frozenset({TEST_BEARER_TOKEN}),
        processing_delay_s=0.0,
    )
    with run_emulator_in_thread(config) as emulator:
        yield emulator


@pytest.fixture
def emu(running: RunningEmulator) -> Iterator[RunningEmulator]:
    """The shared emulator with faults cleared and the balance restored around each test."""
    running.faults.clear()
    running.state.set_balance(10_000_000)
    yield running
    running.faults.clear()
    running.state.set_balance(10_000_000)


class _NoWait:
    """A sleep that records the requested waits instead of waiting."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


def _client(emu: RunningEmulator, **kwargs: Any) -> MemexClient:
    if "bearer_token" not in kwargs:
        kwargs.setdefault("api_key", TEST_API_KEY)
    kwargs.setdefault("sleep", _NoWait())
    kwargs.setdefault("deadline_s", 10.0)
    return MemexClient(emu.base_url, **kwargs)


# ---------------------------------------------------------------------- every endpoint


def test_search_compact_and_raw(emu: RunningEmulator) -> None:
    with _client(emu) as client:
        compact = client.search("compost", include_notes=True)
        assert isinstance(compact, SearchLlmReadyResponse)
        assert compact.results
        assert all(result.url for result in compact.results)
        raw = client.search_raw("", sort_by="date-desc", content_types=["web"], limit=2)
        assert isinstance(raw, SearchRawResponse)
        assert [entity.id for entity in raw.results] == ["page-2", "page-1"]
        assert raw.meta.limit == 2
        assert client.last_meta is raw.meta
        second = client.search_raw("", sort_by="date-desc", content_types=["web"], offset=2)
        assert [entity.id for entity in second.results] == ["page-0"]
        tagged = client.search_raw(tag_ids=["tag-soil"])
        assert [entity.id for entity in tagged.results] == ["page-0"]
        window = client.search_raw(
            time_range={"start": T0 + DAY_MS, "end": T0 + 2 * DAY_MS - 1}, content_types=["web"]
        )
        assert [entity.id for entity in window.results] == ["page-1"]


def test_unknown_search_value_is_a_validation_error(emu: RunningEmulator) -> None:
    with _client(emu) as client, pytest.raises(ValidationError) as caught:
        client.search_raw(content_types=["no-such-type"])
    assert caught.value.status_code == 400
    assert "contentTypes" in caught.value.message


def test_saves_by_url_and_entity_including_receipt(emu: RunningEmulator) -> None:
    with _client(emu) as client:
        first = client.save_content_by_url("https://example.org/new-article")
        assert first.is_new is True
        again = client.save_content_by_url("https://example.org/new-article")
        assert again.is_new is False
        assert again.entity.id == first.entity.id
        note = {"type": "annotation", "text": "a new note", "reference_content_ids": ["page-1"]}
        saved = client.save_content_entity(note)
        assert saved.entity.type == "annotation"
        receipt = client.save_content_entity(
            {"url": "https://example.org/receipt"}, response_mode="receipt"
        )
        assert isinstance(receipt, SaveContentEntityReceiptResponse)
        assert receipt.ok is True
        assert receipt.processing_request_id


def test_views_tags_feeds_links_and_plans(emu: RunningEmulator) -> None:
    with _client(emu) as client:
        view = client.create_view("Recent web", {"contentTypes": ["web"], "sortBy": "date-desc"})
        assert view.display_name == "Recent web"
        views = {v.id: v for v in client.list_views()}
        assert {"view-soil", view.id} <= set(views)
        in_view = client.execute_view_search(view.id, limit=50).results
        assert {"page-0", "page-1", "page-2"} <= {entity.id for entity in in_view}
        assert {entity.type for entity in in_view} == {"web"}
        created = [int(entity.created_at or 0) for entity in in_view]
        assert created == sorted(created, reverse=True)
        soil = client.execute_view_search("view-soil").results
        assert [entity.id for entity in soil] == ["page-0"]
        assert "soil" in client.get_available_tag_names()
        feeds = client.list_feeds()
        assert [feed.id for feed in feeds] == ["feed-1"]
        link = client.ensure_shared_library_entry_link("page-0", access="collaborate")
        assert link.content_id == "page-0"
        assert link.public_token
        same = client.ensure_shared_library_entry_link("page-0")
        assert same.shared_resource_id == link.shared_resource_id
        links = client.list_shared_library_entry_links(content_type="web")
        assert [item.content_id for item in links] == ["page-0"]
        plans = client.get_available_plans()
        assert plans.plans
        assert plans.plans[0].id


# ---------------------------------------------------------------------- auth


def test_api_key_mode_with_user_id(emu: RunningEmulator) -> None:
    with _client(emu, user_id=TEST_USER_ID) as client:
        client.list_feeds()
    record = emu.state.requests[-1]
    assert (record.has_api_key, record.has_user_id, record.has_bearer) == (True, True, False)


def test_bearer_mode_sends_only_the_token(emu: RunningEmulator) -> None:
    with _client(emu, api_key=TEST_API_KEY, bearer_token=TEST_BEARER_TOKEN) as client:
        client.list_feeds()
    record = emu.state.requests[-1]
    assert (record.has_api_key, record.has_user_id, record.has_bearer) == (False, False, True)


def test_wrong_key_is_auth_error(emu: RunningEmulator) -> None:
    with _client(emu, api_key="wrong-key") as client, pytest.raises(AuthError) as caught:
        client.search_raw()
    assert caught.value.status_code == 401


def test_expired_bearer_token_is_refreshed_once(emu: RunningEmulator) -> None:
    tokens = ["expired-token"]

    def refresh() -> bool:
        emu.state.add_bearer_token("fresh-token")
        tokens[0] = "fresh-token"
        return True

    try:
        with _client(emu, bearer_token=lambda: tokens[0], refresh_bearer_token=refresh) as client:
            assert client.list_views()
        assert tokens == ["fresh-token"]
    finally:
        emu.state.revoke_bearer_token("fresh-token")


# ---------------------------------------------------------------------- credits and faults


def test_insufficient_credits_carry_upgrade_options(emu: RunningEmulator) -> None:
    emu.state.set_balance(0)
    with _client(emu) as client:
        with pytest.raises(InsufficientCredits) as on_save:
            client.save_content_by_url("https://example.org/costly")
        assert on_save.value.status_code == 402
        assert on_save.value.error_code == "SAVE_CONTENT_INSUFFICIENT_CREDITS"
        with pytest.raises(InsufficientCredits) as on_rerank:
            client.search_raw("compost", enable_rerank=True)
        assert on_rerank.value.error_code == "INSUFFICIENT_CREDITS"
        assert on_rerank.value.upgrade_options is not None
        assert on_rerank.value.upgrade_options.plans
        assert client.search_raw("compost").results  # plain search stays free


def test_429_retry_after_is_honoured_then_succeeds(emu: RunningEmulator) -> None:
    emu.faults.next_status(429, count=2, retry_after=3)
    waits = _NoWait()
    with _client(emu, sleep=waits) as client:
        assert client.search_raw().results
    assert waits.waits == [3.0, 3.0]


def test_429_beyond_retries_is_rate_limited(emu: RunningEmulator) -> None:
    emu.faults.next_status(429, count=5, retry_after=7)
    with _client(emu, max_retries=1) as client, pytest.raises(RateLimited) as caught:
        client.list_views()
    assert caught.value.retry_after == 7.0


def test_5xx_is_retried_for_reads_not_for_saves(emu: RunningEmulator) -> None:
    emu.faults.next_status(503, count=2)
    with _client(emu) as client:
        assert client.get_available_plans().plans
        emu.faults.next_status(500, count=1)
        with pytest.raises(ServerError, match="HTTP 500"):
            client.save_content_by_url("https://example.org/not-retried")
        assert client.save_content_by_url("https://example.org/not-retried").is_new is True


def test_dropped_connection(emu: RunningEmulator) -> None:
    with _client(emu) as client:
        emu.faults.drop_connection(count=1)
        assert client.search_raw().results  # a read is retried
        emu.faults.drop_connection(count=1)
        with pytest.raises(NetworkUnavailable):
            client.save_content_by_url("https://example.org/dropped")


def test_lost_answer_after_commit_is_safe_for_an_idempotent_save(emu: RunningEmulator) -> None:
    emu.faults.lose_response_after_commit(count=1)
    with _client(emu) as client:
        saved = client.save_content_by_url("https://example.org/lost-answer", idempotent=True)
    assert saved.is_new is False  # the first attempt was committed; the retry found it


def test_truncated_body_is_a_contract_error(emu: RunningEmulator) -> None:
    emu.faults.truncate_body(count=1)
    with _client(emu) as client:
        with pytest.raises(ContractError) as caught:
            client.search_raw()
        assert caught.value.raw_body
        assert client.search_raw().results  # the client is still usable


def test_dripping_server_is_cut_off_by_the_deadline(emu: RunningEmulator) -> None:
    emu.faults.drip(1, 0.5)
    started = time.monotonic()
    with _client(emu, deadline_s=1.5) as client, pytest.raises(NetworkUnavailable):
        client.search_raw()
    assert time.monotonic() - started < 4.0


def test_no_answer_at_all_is_cut_off_by_the_deadline(emu: RunningEmulator) -> None:
    emu.faults.latency(5.0)
    started = time.monotonic()
    with _client(emu, deadline_s=1.0, max_retries=0) as client, pytest.raises(NetworkUnavailable):
        client.list_feeds()
    assert time.monotonic() - started < 3.0


def _closed_port() -> int:
    """A loopback port with nothing listening (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def test_a_server_refusing_the_connection_is_unavailable_and_says_its_host() -> None:
    waits = _NoWait()
    url = f"http://127.0.0.1:{_closed_port()}"
    client = MemexClient(url, api_key=TEST_API_KEY, max_retries=1, sleep=waits, deadline_s=5.0)
    with client, pytest.raises(ServerRefused, match="refused the connection") as refused:
        client.search_raw()
    assert isinstance(refused.value, NetworkUnavailable)  # saves wait, as offline
    assert refused.value.host == "127.0.0.1"
    assert len(waits.waits) == 1


def test_a_host_that_cannot_be_found_is_network_unavailable() -> None:
    client = MemexClient(
        "http://memex.invalid", api_key=TEST_API_KEY, max_retries=0, deadline_s=5.0
    )
    with client, pytest.raises(NetworkUnavailable, match="ConnectError") as failed:
        client.search_raw()
    assert not isinstance(failed.value, ServerRefused)


# ---------------------------------------------------------------------- redirects


class _Recorder:
    """A tiny HTTP server recording each request's headers and answering as scripted."""

    def __init__(self, status: int, headers: dict[str, str], body: bytes = b"") -> None:
        self.seen: list[dict[str, str]] = []
        recorder = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                self.rfile.read(length)
                recorder.seen.append({k.lower(): v for k, v in self.headers.items()})
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                del format, args  # request lines are not needed in test output

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host!s}:{port}"

    def __enter__(self) -> _Recorder:
        self.thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)


@pytest.mark.parametrize("mode", ["api-key", "bearer"])
def test_redirect_to_another_origin_drops_credentials(mode: str) -> None:
    plans = json.dumps({"plans": [], "recoveryHint": "none"}).encode()
    credentials: dict[str, Any] = (
        {"bearer_token": TEST_BEARER_TOKEN} if mode == "bearer" else {"api_key": TEST_API_KEY}
    )
    with (
        _Recorder(200, {"Content-Type": "application/json"}, plans) as other,
        _Recorder(307, {"Location": other.url + "/get-available-plans"}) as memex,
        MemexClient(memex.url, user_id=TEST_USER_ID, **credentials) as client,
    ):
        assert client.get_available_plans().recovery_hint == "none"
    assert {"x-api-key", "authorization"} & set(memex.seen[0])
    assert len(other.seen) == 1
    for name in ("authorization", "x-api-key", "x-user-id"):
        assert name not in other.seen[0]


def test_redirect_to_the_emulator_on_another_origin_is_refused_there(
    emu: RunningEmulator,
) -> None:
    with (
        _Recorder(308, {"Location": emu.base_url + "/list-views"}) as front,
        MemexClient(front.url, api_key=TEST_API_KEY) as client,
        pytest.raises(AuthError),
    ):
        client.list_views()
    record = emu.state.requests[-1]
    assert record.path.endswith("/list-views")
    assert (record.has_api_key, record.has_bearer, record.has_user_id) == (False, False, False)


def test_emulator_redirect_to_another_origin_drops_credentials(emu: RunningEmulator) -> None:
    plans = json.dumps({"plans": [], "recoveryHint": "elsewhere"}).encode()
    with _Recorder(200, {"Content-Type": "application/json"}, plans) as other:
        emu.faults.redirect(other.url, status=308)
        with _client(emu, user_id=TEST_USER_ID) as client:
            assert client.get_available_plans().recovery_hint == "elsewhere"
    assert other.seen[0]["content-type"] == "application/json"
    for name in ("authorization", "x-api-key", "x-user-id"):
        assert name not in other.seen[0]


def test_emulator_redirect_within_its_origin_keeps_credentials(emu: RunningEmulator) -> None:
    emu.faults.redirect(emu.base_url, status=307)
    with _client(emu) as client:
        assert client.list_feeds()
    assert emu.state.requests[-1].has_api_key


def test_truncated_json_in_a_complete_response_is_a_contract_error(emu: RunningEmulator) -> None:
    emu.faults.truncate_body(count=1, mode="json")
    with _client(emu) as client, pytest.raises(ContractError, match="not JSON"):
        client.list_views()
