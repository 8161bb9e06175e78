"""The emulator's authorization server: metadata, registration, authorize, token, revoke."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import httpx
import pytest
from support.oauth import FakeClock, OAuthEmulator

from memex_desktop.emulator.oauth import OAuthServer, s256

REDIRECT = "http://127.0.0.1:50123/callback"
VERIFIER = "v" * 43 + "-._~0123456789"


@pytest.fixture
def clock(oauth_emulator: OAuthEmulator) -> FakeClock:
    return oauth_emulator.clock


@pytest.fixture
def server(oauth_emulator: OAuthEmulator) -> OAuthServer:
    oauth_emulator.server.config.access_token_lifetime_s = 60
    return oauth_emulator.server


@pytest.fixture
def base(oauth_emulator: OAuthEmulator) -> str:
    return oauth_emulator.base_url


@pytest.fixture
def http(base: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=base, follow_redirects=False, timeout=10.0) as client:
        yield client


def _register(http: httpx.Client, **extra: Any) -> str:
    body = {"client_name": "Memex Desktop", "redirect_uris": [REDIRECT], **extra}
    answer = http.post("/oauth/register", json=body)
    assert answer.status_code == 201, answer.text
    client_id = answer.json()["client_id"]
    assert isinstance(client_id, str)
    return client_id


def _authorize(
    http: httpx.Client, client_id: str, redirect_uri: str = REDIRECT, **extra: str
) -> dict[str, str]:
    params = {
        "response_type": "code",
        "client_id": client_id,
        "redirect_uri": redirect_uri,
        "code_challenge": s256(VERIFIER),
        "code_challenge_method": "S256",
        "state": "st-1",
        **extra,
    }
    answer = http.get("/oauth/authorize", params=params)
    assert answer.status_code == 302, answer.text
    location = urlsplit(answer.headers["location"])
    assert f"{location.scheme}://{location.netloc}{location.path}" == redirect_uri
    return dict(parse_qsl(location.query))


def _exchange(
    http: httpx.Client, client_id: str, code: str, change: dict[str, str] | None = None
) -> Any:
    form = {
        "grant_type": "authorization_code",
        "code": code,
        "client_id": client_id,
        "redirect_uri": REDIRECT,
        "code_verifier": VERIFIER,
        **(change or {}),
    }
    return http.post("/oauth/token", data=form)


def test_metadata_documents(http: httpx.Client, base: str) -> None:
    resource = http.get("/.well-known/oauth-protected-resource").json()
    assert resource["resource"] == base
    assert resource["authorization_servers"] == [base]
    suffixed = http.get("/.well-known/oauth-protected-resource/api").json()
    assert suffixed["resource"] == base + "/api"
    metadata = http.get("/.well-known/oauth-authorization-server").json()
    assert metadata["issuer"] == base
    assert metadata["code_challenge_methods_supported"] == ["S256"]
    assert metadata["token_endpoint"] == base + "/oauth/token"
    assert metadata["registration_endpoint"] == base + "/oauth/register"


def test_full_grant_then_refresh_with_rotation(
    http: httpx.Client, server: OAuthServer, base: str
) -> None:
    client_id = _register(http, memex_client_source="memex_desktop")
    assert server.clients[client_id].metadata["memex_client_source"] == "memex_desktop"
    query = _authorize(http, client_id)
    assert query["state"] == "st-1"
    assert query["iss"] == base
    answer = _exchange(http, client_id, query["code"])
    assert answer.status_code == 200
    assert answer.headers["cache-control"] == "no-store"
    tokens = answer.json()
    assert tokens["token_type"] == "Bearer"
    assert tokens["expires_in"] == 60
    assert server.is_valid_access_token(tokens["access_token"])

    refresh_form = {
        "grant_type": "refresh_token",
        "refresh_token": tokens["refresh_token"],
        "client_id": client_id,
    }
    renewed = http.post("/oauth/token", data=refresh_form).json()
    assert renewed["refresh_token"] != tokens["refresh_token"]
    replay = http.post("/oauth/token", data=refresh_form)
    assert replay.json()["error"] == "invalid_grant"  # rotated: the old one is used up
    assert server.grants == {"authorization_code": 1, "refresh_token": 1}


def test_access_tokens_expire(http: httpx.Client, server: OAuthServer, clock: FakeClock) -> None:
    client_id = _register(http)
    token = _exchange(http, client_id, _authorize(http, client_id)["code"]).json()["access_token"]
    clock.now += 59
    assert server.is_valid_access_token(token)
    clock.now += 1
    assert not server.is_valid_access_token(token)
    assert not server.is_valid_access_token("made-up")


@pytest.mark.parametrize(
    ("change", "error"),
    [
        ({"code_verifier": "w" * 43}, "invalid_grant"),
        ({"code_verifier": "short"}, "invalid_request"),
        ({"redirect_uri": "http://127.0.0.1:50123/other"}, "invalid_grant"),
        ({"code": "unknown"}, "invalid_grant"),
        ({"client_id": "someone-else"}, "invalid_client"),
        ({"grant_type": "password"}, "unsupported_grant_type"),
    ],
)
def test_token_endpoint_rejects_bad_exchanges(
    http: httpx.Client, server: OAuthServer, change: dict[str, str], error: str
) -> None:
    client_id = _register(http)
    code = _authorize(http, client_id)["code"]
    answer = _exchange(http, client_id, code, change)
    assert answer.status_code in (400, 401)
    assert answer.json()["error"] == error
    assert server.active_token_count() == (0, 0)


def test_a_code_works_once_and_only_for_its_client(http: httpx.Client) -> None:
    client_id, other = _register(http), _register(http)
    code = _authorize(http, client_id)["code"]
    assert _exchange(http, other, code).json()["error"] == "invalid_grant"
    # The failed attempt used the code up: the rightful client cannot replay it either.
    assert _exchange(http, client_id, code).json()["error"] == "invalid_grant"
    code = _authorize(http, client_id)["code"]
    assert _exchange(http, client_id, code).status_code == 200
    assert _exchange(http, client_id, code).json()["error"] == "invalid_grant"


def test_codes_expire(http: httpx.Client, server: OAuthServer, clock: FakeClock) -> None:
    client_id = _register(http)
    code = _authorize(http, client_id)["code"]
    clock.now += server.config.code_lifetime_s
    assert _exchange(http, client_id, code).json()["error"] == "invalid_grant"


def test_authorize_denies_when_configured(http: httpx.Client, server: OAuthServer) -> None:
    server.config.deny = True
    query = _authorize(http, _register(http))
    assert query["error"] == "access_denied"
    assert query["state"] == "st-1"
    assert "code" not in query


def test_authorize_requires_pkce_s256(http: httpx.Client) -> None:
    client_id = _register(http)
    query = _authorize(http, client_id, code_challenge_method="plain")
    assert query["error"] == "invalid_request"


def test_loopback_redirects_match_on_any_port_only(http: httpx.Client) -> None:
    client_id = _register(http)
    assert "code" in _authorize(http, client_id, "http://127.0.0.1:60001/callback")
    for wrong in ("http://127.0.0.1:60001/elsewhere", "http://evil.example/callback"):
        answer = http.get(
            "/oauth/authorize",
            params={"client_id": client_id, "redirect_uri": wrong, "response_type": "code"},
        )
        assert answer.status_code == 400  # never redirected to an unregistered URI
    unknown = http.get("/oauth/authorize", params={"client_id": "nobody", "redirect_uri": REDIRECT})
    assert unknown.status_code == 400


@pytest.mark.parametrize(
    "body",
    [
        {"redirect_uris": ["http://example.com/callback"]},
        {"redirect_uris": []},
        {"redirect_uris": [REDIRECT], "token_endpoint_auth_method": "client_secret_post"},
        {"redirect_uris": [REDIRECT], "grant_types": ["implicit"]},
    ],
)
def test_registration_refuses_unsafe_clients(http: httpx.Client, body: dict[str, Any]) -> None:
    answer = http.post("/oauth/register", json=body)
    assert answer.status_code == 400
    assert answer.json()["error"].startswith("invalid_")


def test_revocation_and_expiry_reach_the_api(http: httpx.Client, server: OAuthServer) -> None:
    client_id = _register(http)
    tokens = _exchange(http, client_id, _authorize(http, client_id)["code"]).json()
    search = {"query": ""}

    def status(token: str) -> int:
        bearer = {"Authorization": f"Bearer {token}"}
        return http.post("/search", json=search, headers=bearer).status_code

    assert status(tokens["access_token"]) == 200
    assert http.post("/oauth/revoke", data={"token": tokens["access_token"]}).status_code == 200
    assert status(tokens["access_token"]) == 401
    assert not server.is_valid_access_token(tokens["access_token"])
    second = http.post(
        "/oauth/token",
        data={
            "grant_type": "refresh_token",
            "refresh_token": tokens["refresh_token"],
            "client_id": client_id,
        },
    ).json()
    assert status(second["access_token"]) == 200
    server.expire_access_tokens()
    assert status(second["access_token"]) == 401
    server.revoke_everything()
    assert server.active_token_count() == (0, 0)


def test_drop_hooks_hear_of_issued_and_dropped_tokens() -> None:
    issued: list[str] = []
    dropped: list[str] = []
    server = OAuthServer(on_issue=issued.append, on_drop=dropped.append)
    tokens = server._issue("client", "memex", None)
    assert issued == [tokens["access_token"]]
    server.expire_access_tokens()
    assert dropped == issued
    assert not server.is_valid_access_token(tokens["access_token"])
