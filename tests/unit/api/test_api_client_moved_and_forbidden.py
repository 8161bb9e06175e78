"""A moved API (301/302/303) and a refused call (403): clear errors, never followed or retried."""

from __future__ import annotations

import httpx
import pytest
from support.api_client import PLANS, Recorder, json_response, make_client
from support.emulator import EmulatorFactory
from support.secrets import TEST_API_KEY, TEST_BEARER_TOKEN, TEST_USER_ID

from memex_desktop.api.client import MemexClient, moved_api_base
from memex_desktop.api.errors import ApiMoved, AuthError, ContractError, Forbidden
from memex_desktop.emulator import RunningEmulator

# ---------------------------------------------------------------------- moved


@pytest.mark.parametrize("status", [301, 302, 303])
def test_moved_api_is_an_error_naming_the_new_location(status: int) -> None:
    target = "https://new.memex.test/api/list-views"
    recorder = Recorder([httpx.Response(status, headers={"Location": target})])
    client, _ = make_client(recorder)
    with pytest.raises(ApiMoved) as caught:
        client.list_views()
    error = caught.value
    assert error.location == target
    assert error.status_code == status
    assert f"the API moved to {target}; change the API URL" in error.message
    assert len(recorder.requests) == 1  # never followed, never sent again


def test_moved_save_is_never_sent_again() -> None:
    recorder = Recorder([httpx.Response(303, headers={"Location": "/elsewhere"})])
    client, _ = make_client(recorder, max_retries=3)
    with pytest.raises(ApiMoved):
        client.save_content_by_url("https://example.com/a", idempotent=True)
    assert [request.method for request in recorder.requests] == ["POST"]


@pytest.mark.parametrize(
    ("location", "resolved"),
    [
        ("/v2/list-views", "https://memex.test/v2/list-views"),
        ("list-views2", "https://memex.test/api/list-views2"),
        ("//other.test/api/list-views", "https://other.test/api/list-views"),
    ],
)
def test_relative_location_is_resolved_against_the_request(location: str, resolved: str) -> None:
    recorder = Recorder([httpx.Response(301, headers={"Location": location})])
    client, _ = make_client(recorder)
    with pytest.raises(ApiMoved) as caught:
        client.list_views()
    assert caught.value.location == resolved


def test_moved_after_a_followed_redirect_resolves_against_the_last_url() -> None:
    recorder = Recorder(
        [
            httpx.Response(308, headers={"Location": "/v2/list-feeds"}),
            httpx.Response(301, headers={"Location": "next/list-feeds"}),
        ]
    )
    client, _ = make_client(recorder)
    with pytest.raises(ApiMoved) as caught:
        client.list_feeds()
    assert caught.value.location == "https://memex.test/v2/next/list-feeds"
    assert len(recorder.requests) == 2


def test_moved_message_never_shows_credentials() -> None:
    location = f"https://admin:hunter2@new.memex.test/api/search?key={TEST_API_KEY}"
    recorder = Recorder([httpx.Response(301, headers={"Location": location})])
    client, _ = make_client(recorder, user_id=TEST_USER_ID)
    with pytest.raises(ApiMoved) as caught:
        client.search_raw()
    error = caught.value
    for text in (str(error), error.location):
        assert TEST_API_KEY not in text
        assert "hunter2" not in text
        assert "admin" not in text
    assert error.location == "https://new.memex.test/api/search?key=***"


def test_moved_to_a_non_http_location_is_a_contract_error() -> None:
    recorder = Recorder([httpx.Response(301, headers={"Location": "ftp://new.memex.test/api"})])
    client, _ = make_client(recorder)
    with pytest.raises(ContractError, match="non-HTTP") as caught:
        client.list_views()
    assert not isinstance(caught.value, ApiMoved)


def test_a_301_without_location_stays_an_unexpected_status() -> None:
    client, _ = make_client(Recorder([httpx.Response(301)]))
    with pytest.raises(ContractError, match="unexpected HTTP 301") as caught:
        client.list_views()
    assert not isinstance(caught.value, ApiMoved)


@pytest.mark.parametrize("status", [307, 308])
def test_method_preserving_redirects_are_still_followed(status: int) -> None:
    recorder = Recorder(
        [
            httpx.Response(status, headers={"Location": "/api/v2/get-available-plans"}),
            json_response(200, PLANS),
        ]
    )
    client, _ = make_client(recorder)
    assert client.get_available_plans().default_plan_id == "starter-10"
    assert recorder.requests[1].url == httpx.URL("https://memex.test/api/v2/get-available-plans")


@pytest.mark.parametrize(
    ("location", "base"),
    [
        ("https://new.memex.test/api/list-views", "https://new.memex.test/api"),
        ("https://new.memex.test/api/search?offset=2", "https://new.memex.test/api"),
        ("https://new.memex.test/execute-view-search", "https://new.memex.test"),
        ("https://new.memex.test/api/", "https://new.memex.test/api"),
        ("https://new.memex.test/welcome", "https://new.memex.test/welcome"),
    ],
)
def test_moved_api_base_strips_the_endpoint(location: str, base: str) -> None:
    assert moved_api_base(location) == base


def test_emulator_moved_permanently(emulator_factory: EmulatorFactory) -> None:
    old, new = emulator_factory(), emulator_factory()
    old.faults.redirect(new.base_url, status=301)
    with MemexClient(old.base_url, api_key=TEST_API_KEY, max_retries=2) as client:
        with pytest.raises(ApiMoved) as caught:
            client.list_views()
        assert caught.value.location == new.base_url + "/list-views"
        assert moved_api_base(caught.value.location) == new.base_url
        assert [r.path for r in old.state.requests] == ["/list-views"]
        assert new.state.requests == []


# ---------------------------------------------------------------------- refused


def test_403_is_forbidden_with_the_servers_words() -> None:
    body = {"error": "Saved views need the Pro plan", "message": "ignored"}
    client, _ = make_client(Recorder([json_response(403, body)]))
    with pytest.raises(Forbidden) as caught:
        client.list_views()
    error = caught.value
    assert isinstance(error, AuthError)
    assert error.message == "Saved views need the Pro plan"
    assert error.status_code == 403


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"message": "scope views:read missing"}, "scope views:read missing"),
        ({"details": "plan limit"}, "plan limit"),
        ({"msg": "not for you"}, "not for you"),
        ("Forbidden by policy", "Forbidden by policy"),
        ("<html><body>403 Forbidden</body></html>", "access to this is forbidden (HTTP 403)"),
        ("", "access to this is forbidden (HTTP 403)"),
    ],
)
def test_forbidden_message_order_and_fallbacks(body: object, message: str) -> None:
    response = (
        json_response(403, body)
        if isinstance(body, dict)
        else httpx.Response(403, content=str(body).encode())
    )
    client, _ = make_client(Recorder([response]))
    with pytest.raises(Forbidden) as caught:
        client.list_feeds()
    assert caught.value.message == message


def test_forbidden_message_is_scrubbed() -> None:
    body = {"error": f"key {TEST_API_KEY} may not do this"}
    client, _ = make_client(Recorder([json_response(403, body)]))
    with pytest.raises(Forbidden) as caught:
        client.list_feeds()
    assert caught.value.message == "key *** may not do this"


def test_403_in_bearer_mode_does_not_refresh_the_token() -> None:
    refreshes: list[int] = []

    def refresh() -> bool:
        refreshes.append(1)
        return True

    recorder = Recorder([json_response(403, {"error": "plan required"})])
    client, _ = make_client(recorder, bearer_token=TEST_BEARER_TOKEN, refresh_bearer_token=refresh)
    with pytest.raises(Forbidden):
        client.get_available_plans()
    # A new token for the same account would be refused the same way.
    assert refreshes == []
    assert len(recorder.requests) == 1


def test_401_stays_a_plain_auth_error() -> None:
    client, _ = make_client(Recorder([json_response(401, {"error": "invalid key"})]))
    with pytest.raises(AuthError) as caught:
        client.list_views()
    assert type(caught.value) is AuthError
    assert "invalid key" in caught.value.message


def test_emulator_403_is_forbidden(emulator: RunningEmulator) -> None:
    emulator.faults.next_status(403, body={"message": "Feeds are not in your plan"})
    with MemexClient(emulator.base_url, api_key=TEST_API_KEY, max_retries=2) as client:
        with pytest.raises(Forbidden) as caught:
            client.list_feeds()
        assert caught.value.message == "Feeds are not in your plan"
        assert client.list_feeds()  # the next call is answered normally
    assert [r.path for r in emulator.state.requests] == ["/list-feeds", "/list-feeds"]
