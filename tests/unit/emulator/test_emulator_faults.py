"""Fault injection and the thread runner's lifecycle (restart, port 0, fast stop)."""

from __future__ import annotations

import json
import threading
import time
from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime

import httpx
import pytest
from support.emulator import (
    EmulatorFactory,
    api_key_headers,
    http_client,
    make_config,
    wait_until,
)

from memex_desktop.emulator import EmulatorConfig, RunningEmulator, run_emulator_in_thread


def _post(client: httpx.Client, path: str = "/list-views", body: object = None) -> httpx.Response:
    return client.post(path, json={} if body is None else body)


def test_latency(emulator: RunningEmulator) -> None:
    emulator.faults.latency(0.3, count=1)
    with http_client(emulator) as client:
        started = time.monotonic()
        _post(client)
        slow = time.monotonic() - started
        started = time.monotonic()
        _post(client)
        fast = time.monotonic() - started
    assert slow >= 0.3
    assert fast < 0.3


def test_next_status_for_n_calls_then_recovers(emulator: RunningEmulator) -> None:
    emulator.faults.next_status(503, count=2, retry_after=2)
    with http_client(emulator) as client:
        statuses = [_post(client) for _ in range(3)]
    assert [r.status_code for r in statuses] == [503, 503, 200]
    assert statuses[0].headers["retry-after"] == "2"
    assert "error" in statuses[0].json()


def test_rate_limit_with_http_date(emulator: RunningEmulator) -> None:
    when = datetime.now(UTC).replace(microsecond=0) + timedelta(seconds=30)
    emulator.faults.rate_limit(retry_after=when)
    emulator.faults.rate_limit(retry_after=1.2)
    with http_client(emulator) as client:
        first, second, third = _post(client), _post(client), _post(client)
    assert first.status_code == 429
    assert parsedate_to_datetime(first.headers["retry-after"]) == when
    assert (second.status_code, second.headers["retry-after"]) == (429, "2")
    assert third.status_code == 200


def test_faults_can_target_paths_and_be_cleared(emulator: RunningEmulator) -> None:
    emulator.faults.next_status(500, count=5, paths=["/search"])
    with http_client(emulator) as client:
        assert _post(client).status_code == 200
        assert _post(client, "/search").status_code == 500
        emulator.faults.clear()
        assert emulator.faults.armed == 0
        assert _post(client, "/search").status_code == 200


def test_dropped_connection(emulator: RunningEmulator) -> None:
    emulator.faults.drop_connection()
    with http_client(emulator) as client:
        # The client sees a closed connection or a reset one, depending on timing.
        with pytest.raises((httpx.RemoteProtocolError, httpx.ReadError)):
            _post(client)
        assert _post(client).status_code == 200


def test_truncated_body_declares_more_than_it_sends(emulator: RunningEmulator) -> None:
    emulator.faults.truncate_body()
    with http_client(emulator) as client, pytest.raises(httpx.RemoteProtocolError):
        _post(client, "/search", {"raw": True})


def test_truncated_json(emulator: RunningEmulator) -> None:
    emulator.faults.truncate_body(mode="json")
    with http_client(emulator) as client:
        response = _post(client, "/search", {"raw": True})
    assert response.status_code == 200
    with pytest.raises(json.JSONDecodeError):
        json.loads(response.content)


def test_an_unreadable_success_saves_first_then_sends_garbage(emulator: RunningEmulator) -> None:
    emulator.faults.unreadable_success(mode="garbage")
    with http_client(emulator) as client:
        response = _post(client, "/save-content-by-url", {"url": "https://garbled.example/"})
        assert response.status_code == 200
        with pytest.raises(UnicodeDecodeError):
            response.content.decode("utf-8")
        again = _post(client, "/save-content-by-url", {"url": "https://garbled.example/"})
    assert again.json()["isNew"] is False, "the save before the garbage did not happen"


def test_an_unreadable_success_can_stall_after_half_its_body(emulator: RunningEmulator) -> None:
    emulator.faults.unreadable_success(mode="stall")
    with (
        http_client(emulator, timeout=httpx.Timeout(5.0, read=0.3)) as client,
        client.stream(
            "POST", "/save-content-by-url", json={"url": "https://stalled.example/"}
        ) as response,
    ):
        assert response.status_code == 200
        with pytest.raises(httpx.ReadTimeout):
            response.read()
    assert emulator.faults.armed == 0
    with pytest.raises(ValueError, match="2xx"):
        emulator.faults.unreadable_success(status=500)


def test_drip_is_slow_but_complete(emulator: RunningEmulator) -> None:
    with http_client(emulator) as client:
        expected = _post(client, "/get-available-tag-names").content
        emulator.faults.drip(bytes_per_interval=8, interval_s=0.01, count=1)
        started = time.monotonic()
        dripped = _post(client, "/get-available-tag-names").content
    assert dripped == expected
    assert time.monotonic() - started >= 0.01 * (len(expected) // 8 - 1)


def test_drip_one_byte_per_half_second_outlasts_a_read_timeout(emulator: RunningEmulator) -> None:
    emulator.faults.drip()
    timeout = httpx.Timeout(5.0, read=0.2)
    with http_client(emulator, timeout=timeout) as client:
        started = time.monotonic()
        with pytest.raises(httpx.ReadTimeout):
            _post(client)
    assert time.monotonic() - started < 2.0


def test_lost_response_after_commit(emulator: RunningEmulator) -> None:
    emulator.faults.lose_response_after_commit()
    url = "https://example.net/lost-answer"
    with http_client(emulator) as client:
        assert _post(client).status_code == 200  # only saves are affected
        with pytest.raises(httpx.RemoteProtocolError):
            _post(client, "/save-content-by-url", {"url": url})
        retry = _post(client, "/save-content-by-url", {"url": url}).json()
    assert retry["isNew"] is False  # the first attempt was saved


def test_redirect_to_another_origin(emulator_factory: EmulatorFactory) -> None:
    first, other = emulator_factory(), emulator_factory()
    first.faults.redirect(other.base_url)
    with http_client(first) as client:
        response = _post(client, "/search", {"query": ""})
    assert response.status_code == 307
    assert response.headers["location"] == f"{other.base_url}/search"
    # A client that follows it without credentials gets 401 there, and the target saw no key.
    with httpx.Client() as anonymous:
        assert anonymous.post(response.headers["location"], json={}).status_code == 401
    assert [r.has_api_key for r in other.state.requests] == [False]
    assert first.state.requests[0].has_api_key is True


def test_port_zero_restart_keeps_port_and_state(emulator: RunningEmulator) -> None:
    port = emulator.port
    assert port != 0
    assert emulator.base_url == f"http://127.0.0.1:{port}"
    emulator.state.delete_entity("web-1")
    emulator.stop()
    assert not emulator.running
    with pytest.raises(httpx.ConnectError):
        httpx.post(f"{emulator.base_url}/list-views", json={}, headers=api_key_headers())
    emulator.start()
    assert emulator.port == port
    with http_client(emulator) as client:
        body = _post(client, "/search", {"raw": True, "limit": 100}).json()
    assert "web-1" not in [r["id"] for r in body["results"]]


def test_stop_is_fast_even_mid_request_and_leaves_no_threads() -> None:
    before = set(threading.enumerate())
    running = run_emulator_in_thread(make_config())
    running.faults.drip()
    errors: list[BaseException] = []

    def slow_call() -> None:
        try:
            with http_client(running) as client:
                _post(client)
        except httpx.HTTPError as exc:
            errors.append(exc)

    caller = threading.Thread(target=slow_call)
    caller.start()
    wait_until(lambda: len(running.state.requests) == 1, what="the request to arrive")
    started = time.monotonic()
    running.close()
    assert time.monotonic() - started < 1.0
    caller.join(5)
    assert errors  # the connection was dropped
    assert set(threading.enumerate()) == before


def test_library_from_file_and_context_manager(tmp_path_factory: pytest.TempPathFactory) -> None:
    path = tmp_path_factory.mktemp("lib") / "library.json"
    path.write_text(
        json.dumps({"results": [{"id": "only", "type": "web", "title": "Only one"}]}),
        encoding="utf-8",
    )
    with RunningEmulator(EmulatorConfig(library_path=path, api_key="k")) as running:
        assert running.api_key == "k"
        body = httpx.post(
            f"{running.base_url}/search", json={"raw": True}, headers={"x-api-key": "k"}
        ).json()
    assert [r["id"] for r in body["results"]] == ["only"]
    assert body["results"][0]["metadata"] == {"status": "indexing-done"}
