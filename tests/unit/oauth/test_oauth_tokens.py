"""Token storage, the token provider (refresh, rotation, sign-out) and the client registry."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

import httpx
import pytest

from memex_desktop.api import oauth
from memex_desktop.api.client import MemexClient
from memex_desktop.api.oauth import (
    ClientRegistry,
    MemorySecretStore,
    NotSignedIn,
    OAuthClientRecord,
    TokenProvider,
    TokenSet,
)

API = "https://memex.example/api"
RECORD = OAuthClientRecord(
    api_base_url=API,
    resource=API,
    issuer="https://auth.memex.example",
    authorization_endpoint="https://auth.memex.example/authorize",
    token_endpoint="https://auth.memex.example/token",
    revocation_endpoint="https://auth.memex.example/revoke",
    client_id="client-1",
    redirect_uri="http://127.0.0.1:4567/callback",
    scope="memex",
)
ACCESS_1 = "at-first-5c1d"
REFRESH_1 = "rt-first-77a0"


class TokenServer:
    """A scripted token endpoint (and the API behind it) on an httpx MockTransport."""

    def __init__(self) -> None:
        self.valid_access = {ACCESS_1}
        self.valid_refresh = {REFRESH_1}
        self.issued = 0
        self.forms: list[dict[str, str]] = []
        self.revoked: list[str] = []
        self.down = False
        self.rotate = True

    def __call__(self, request: httpx.Request) -> httpx.Response:
        if self.down:
            raise httpx.ConnectError("down", request=request)
        if request.url.path == "/token":
            form = dict(parse_qsl(request.content.decode()))
            self.forms.append(form)
            if form.get("refresh_token") not in self.valid_refresh:
                return httpx.Response(400, json={"error": "invalid_grant"})
            self.issued += 1
            access = f"at-{self.issued}-9e"
            self.valid_access = {access}
            answer: dict[str, Any] = {"access_token": access, "token_type": "bearer"}
            answer["expires_in"] = 600
            if self.rotate:
                refresh = f"rt-{self.issued}-3c"
                self.valid_refresh = {refresh}
                answer["refresh_token"] = refresh
            return httpx.Response(200, json=answer)
        if request.url.path == "/revoke":
            self.revoked.append(dict(parse_qsl(request.content.decode()))["token"])
            return httpx.Response(200)
        token = request.headers.get("authorization", "").removeprefix("Bearer ")
        if token not in self.valid_access:
            return httpx.Response(401, json={"error": "Invalid or expired access token."})
        return httpx.Response(200, json={"results": [], "referencedTags": []})


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def _provider(
    server: TokenServer, store: MemorySecretStore, clock: Clock, expires_in: float = 600
) -> TokenProvider:
    oauth.save_tokens(store, API, TokenSet(ACCESS_1, REFRESH_1, clock.now + expires_in, "memex"))
    return TokenProvider(RECORD, store, transport=httpx.MockTransport(server), clock=clock)


def test_tokens_round_trip_through_the_store_without_repr_leaks() -> None:
    store = MemorySecretStore()
    tokens = TokenSet(ACCESS_1, REFRESH_1, 123.5, "memex")
    oauth.save_tokens(store, API + "/", tokens)
    assert oauth.load_tokens(store, API) == tokens
    assert ACCESS_1 not in repr(tokens)
    assert REFRESH_1 not in repr(tokens)
    assert ACCESS_1 not in repr(store)
    oauth.forget_tokens(store, API)
    assert oauth.load_tokens(store, API) is None


def test_client_refreshes_once_on_401_and_retries() -> None:
    server, store, clock = TokenServer(), MemorySecretStore(), Clock()
    provider = _provider(server, store, clock)
    server.valid_access = set()  # the server expired the token early
    client = MemexClient(
        API, **provider.client_kwargs(), transport=httpx.MockTransport(server), max_retries=0
    )
    client.search("x")
    assert server.issued == 1
    assert server.forms[0]["grant_type"] == "refresh_token"
    assert server.forms[0]["client_id"] == "client-1"
    assert server.forms[0]["resource"] == API
    stored = oauth.load_tokens(store, API)
    assert stored is not None
    assert stored.access_token == "at-1-9e"
    assert stored.refresh_token == "rt-1-3c"  # rotated
    assert stored.expires_at == clock.now + 600


def test_expired_token_is_refreshed_before_it_is_sent() -> None:
    server, store, clock = TokenServer(), MemorySecretStore(), Clock()
    provider = _provider(server, store, clock, expires_in=10)  # inside the safety margin
    assert provider() == "at-1-9e"
    assert provider() == "at-1-9e"
    assert server.issued == 1


def test_network_failure_keeps_the_tokens() -> None:
    server, store, clock = TokenServer(), MemorySecretStore(), Clock()
    provider = _provider(server, store, clock, expires_in=0)
    server.down = True
    assert provider() == ACCESS_1  # stale, the server decides
    assert provider.refresh() is False
    assert provider.is_signed_in()


def test_refused_refresh_token_ends_the_sign_in() -> None:
    server, store, clock = TokenServer(), MemorySecretStore(), Clock()
    provider = _provider(server, store, clock)
    server.valid_refresh = set()
    assert provider.refresh() is False
    assert oauth.load_tokens(store, API) is None
    with pytest.raises(NotSignedIn):
        provider()


def test_tokens_refreshed_by_another_process_are_adopted() -> None:
    server, store, clock = TokenServer(), MemorySecretStore(), Clock()
    provider = _provider(server, store, clock)
    assert provider() == ACCESS_1
    # Another process refreshed (rotating the refresh token) and saved its tokens.
    server.valid_refresh = {"rt-other-1"}
    server.valid_access = {"at-other-1"}
    oauth.save_tokens(store, API, TokenSet("at-other-1", "rt-other-1", clock.now + 600))
    assert provider.refresh() is True
    assert provider() == "at-other-1"


def test_refresh_without_rotation_keeps_the_refresh_token() -> None:
    server, store, clock = TokenServer(), MemorySecretStore(), Clock()
    server.rotate = False
    provider = _provider(server, store, clock)
    assert provider.refresh()
    stored = oauth.load_tokens(store, API)
    assert stored is not None
    assert stored.refresh_token == REFRESH_1


def test_sign_out_forgets_and_revokes() -> None:
    server, store, clock = TokenServer(), MemorySecretStore(), Clock()
    provider = _provider(server, store, clock)
    provider.sign_out()
    assert server.revoked == [REFRESH_1, ACCESS_1]
    assert oauth.load_tokens(store, API) is None
    assert not provider.is_signed_in()
    with pytest.raises(NotSignedIn, match="sign in again"):
        provider()


def test_sign_out_survives_an_unreachable_revocation_endpoint(tmp_path: Path) -> None:
    server, store, clock = TokenServer(), MemorySecretStore(), Clock()
    registry = ClientRegistry(tmp_path / "clients.json")
    registry.put(RECORD)
    _provider(server, store, clock)
    server.down = True
    assert oauth.sign_out(
        API, store=store, registry=registry, transport=httpx.MockTransport(server)
    )
    assert oauth.load_tokens(store, API) is None
    assert oauth.load_token_provider(API, store=store, registry=registry) is None
    assert not oauth.sign_out(API, store=store, registry=registry)


def test_registry_keeps_registrations_and_never_tokens(tmp_path: Path) -> None:
    path = tmp_path / "config" / "oauth-clients.json"
    registry = ClientRegistry(path)
    assert registry.get(API) is None
    registry.put(RECORD)
    assert ClientRegistry(path).get(API + "/") == RECORD
    store = MemorySecretStore()
    oauth.save_tokens(store, API, TokenSet(ACCESS_1, REFRESH_1, None))
    provider = oauth.load_token_provider(API, store=store, registry=registry)
    assert provider is not None
    assert provider() == ACCESS_1
    text = path.read_text()
    assert ACCESS_1 not in text
    assert REFRESH_1 not in text
    assert json.loads(text)["servers"][API]["client_id"] == "client-1"
    registry.forget(API)
    assert registry.get(API) is None


def test_damaged_registry_counts_as_empty(tmp_path: Path) -> None:
    path = tmp_path / "oauth-clients.json"
    path.write_text("{not json")
    assert ClientRegistry(path).get(API) is None
    path.write_text(json.dumps({"servers": {API: {"client_id": 5}}}))
    assert ClientRegistry(path).get(API) is None
    ClientRegistry(path).put(RECORD)
    assert ClientRegistry(path).get(API) == RECORD


@pytest.mark.parametrize(
    ("status", "body", "error"),
    [
        (400, {"error": "invalid_grant"}, oauth.TokenRequestFailed),
        (200, {"token_type": "bearer"}, oauth.OAuthProtocolError),
        (200, {"access_token": "a", "token_type": "mac"}, oauth.OAuthProtocolError),
        (502, {}, oauth.ServerError),
    ],
)
def test_token_endpoint_answers_map_to_typed_errors(
    status: int, body: dict[str, Any], error: type[Exception]
) -> None:
    http = httpx.Client(transport=httpx.MockTransport(lambda _r: httpx.Response(status, json=body)))
    with pytest.raises(error):
        oauth.request_tokens(http, RECORD.token_endpoint, {"grant_type": "x"}, 0.0)
