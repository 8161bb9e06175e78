"""PKCE, discovery (RFC 9728 / RFC 8414 / OpenID fallback) and registration of the client."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from memex_desktop.api import oauth
from memex_desktop.api.errors import NetworkUnavailable, ServerError
from memex_desktop.api.oauth import OAuthProtocolError, OAuthUnsupported

API = "https://memex.example/api"
ISSUER = "https://auth.memex.example"

AS_METADATA: dict[str, Any] = {
    "issuer": ISSUER,
    "authorization_endpoint": ISSUER + "/authorize",
    "token_endpoint": ISSUER + "/token",
    "registration_endpoint": ISSUER + "/register",
    "response_types_supported": ["code"],
    "code_challenge_methods_supported": ["S256"],
}


def _serve(documents: dict[str, Any], seen: list[str] | None = None) -> httpx.Client:
    """An httpx client whose server answers GETs from ``documents`` (404 otherwise)."""

    def handler(request: httpx.Request) -> httpx.Response:
        url = str(request.url)
        if seen is not None:
            seen.append(url)
        answer = documents.get(url)
        if isinstance(answer, int):
            return httpx.Response(answer)
        if answer is None:
            return httpx.Response(404, json={"error": "not found"})
        return httpx.Response(200, json=answer)

    return httpx.Client(transport=httpx.MockTransport(handler))


def test_pkce_challenge_matches_rfc_7636_example() -> None:
    verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
    assert oauth.pkce_challenge(verifier) == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"


def test_pkce_pairs_are_fresh_and_well_formed() -> None:
    pairs = {oauth.pkce_pair() for _ in range(20)}
    assert len(pairs) == 20
    allowed = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
    for verifier, challenge in pairs:
        assert 43 <= len(verifier) <= 128
        assert set(verifier) <= allowed
        assert challenge == oauth.pkce_challenge(verifier)
        assert len(challenge) == 43


def test_metadata_urls_cover_base_path_suffixed_and_root() -> None:
    assert oauth.protected_resource_metadata_urls(API + "/") == [
        "https://memex.example/api/.well-known/oauth-protected-resource",
        "https://memex.example/.well-known/oauth-protected-resource/api",
        "https://memex.example/.well-known/oauth-protected-resource",
        "https://memex.example/.well-known/oauth-protected-resource/api/mcp",
    ]
    assert oauth.authorization_server_metadata_urls("https://a.example/tenant") == [
        "https://a.example/.well-known/oauth-authorization-server/tenant",
        "https://a.example/.well-known/openid-configuration/tenant",
        "https://a.example/tenant/.well-known/oauth-authorization-server",
        "https://a.example/tenant/.well-known/openid-configuration",
    ]


def test_discovery_through_the_path_suffixed_resource_document() -> None:
    seen: list[str] = []
    http = _serve(
        {
            "https://memex.example/.well-known/oauth-protected-resource/api": {
                "resource": API,
                "authorization_servers": [ISSUER],
                "scopes_supported": ["memex"],
            },
            ISSUER + "/.well-known/oauth-authorization-server": AS_METADATA,
        },
        seen,
    )
    metadata = oauth.discover(API, http)
    assert metadata.issuer == ISSUER
    assert metadata.resource == API
    assert metadata.token_endpoint == ISSUER + "/token"
    assert metadata.registration_endpoint == ISSUER + "/register"
    assert metadata.scopes == ("memex",)
    assert seen[0] == API + "/.well-known/oauth-protected-resource"


def test_openid_configuration_is_the_fallback() -> None:
    http = _serve(
        {
            API + "/.well-known/oauth-protected-resource": {"authorization_servers": [ISSUER]},
            ISSUER + "/.well-known/openid-configuration": AS_METADATA,
        }
    )
    metadata = oauth.discover(API, http)
    assert metadata.authorization_endpoint == ISSUER + "/authorize"
    assert metadata.resource == API  # the document did not name it: the API base


def test_without_resource_metadata_the_api_origin_is_the_issuer() -> None:
    origin_metadata = {**AS_METADATA, "issuer": "https://memex.example"}
    http = _serve({"https://memex.example/.well-known/oauth-authorization-server": origin_metadata})
    assert oauth.discover(API, http).issuer == "https://memex.example"


def test_metadata_of_another_issuer_is_ignored() -> None:
    http = _serve(
        {
            API + "/.well-known/oauth-protected-resource": {"authorization_servers": [ISSUER]},
            ISSUER + "/.well-known/oauth-authorization-server": {
                **AS_METADATA,
                "issuer": "https://evil.example",
            },
        }
    )
    with pytest.raises(OAuthUnsupported, match="API key"):
        oauth.discover(API, http)


@pytest.mark.parametrize(
    ("change", "error"),
    [
        ({"code_challenge_methods_supported": ["plain"]}, OAuthUnsupported),
        ({"response_types_supported": ["token"]}, OAuthUnsupported),
        ({"token_endpoint": "http://auth.memex.example/token"}, OAuthProtocolError),
        ({"authorization_endpoint": None}, OAuthProtocolError),
    ],
)
def test_unsafe_or_incomplete_metadata_is_refused(
    change: dict[str, Any], error: type[Exception]
) -> None:
    document = {key: value for key, value in {**AS_METADATA, **change}.items() if value}
    http = _serve(
        {
            API + "/.well-known/oauth-protected-resource": {"authorization_servers": [ISSUER]},
            ISSUER + "/.well-known/oauth-authorization-server": document,
        }
    )
    with pytest.raises(error):
        oauth.discover(API, http)


def test_server_failure_and_network_failure_are_told_apart() -> None:
    failing = _serve({url: 503 for url in oauth.protected_resource_metadata_urls(API)})
    with pytest.raises(ServerError):
        oauth.discover(API, failing)

    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused", request=request)

    with pytest.raises(NetworkUnavailable):
        oauth.discover(API, httpx.Client(transport=httpx.MockTransport(refuse)))


def _metadata() -> oauth.ServerMetadata:
    return oauth.ServerMetadata(
        resource=API,
        issuer=ISSUER,
        authorization_endpoint=ISSUER + "/authorize",
        token_endpoint=ISSUER + "/token",
        registration_endpoint=ISSUER + "/register",
        scopes=("memex",),
    )


def _registrar(answer: Callable[[dict[str, Any]], httpx.Response]) -> httpx.Client:
    def handler(request: httpx.Request) -> httpx.Response:
        return answer(json.loads(request.content))

    return httpx.Client(transport=httpx.MockTransport(handler))


def test_registration_sends_the_desktop_client_metadata() -> None:
    sent: list[dict[str, Any]] = []

    def answer(body: dict[str, Any]) -> httpx.Response:
        sent.append(body)
        return httpx.Response(201, json={**body, "client_id": "c-1", "client_secret": "ignored"})

    redirect = "http://127.0.0.1:4567/callback"
    record = oauth.register_client(_registrar(answer), API, _metadata(), redirect, now=5.0)
    assert sent[0]["client_name"] == "Memex Desktop"
    assert sent[0]["memex_client_source"] == "memex_desktop"
    assert sent[0]["redirect_uris"] == [redirect]
    assert sent[0]["token_endpoint_auth_method"] == "none"
    assert sent[0]["grant_types"] == ["authorization_code", "refresh_token"]
    assert record.client_id == "c-1"
    assert record.scope == "memex"
    assert "ignored" not in repr(record)
    assert "ignored" not in json.dumps(record.__dict__)


def test_registration_refused_or_unavailable() -> None:
    refusing = _registrar(lambda _b: httpx.Response(400, json={"error": "invalid_redirect_uri"}))
    with pytest.raises(OAuthProtocolError, match="invalid_redirect_uri"):
        oauth.register_client(refusing, API, _metadata(), "http://127.0.0.1:1/callback", 0.0)
    no_endpoint = oauth.ServerMetadata(
        resource=API, issuer=ISSUER, authorization_endpoint="a", token_endpoint="t"
    )
    with pytest.raises(OAuthUnsupported):
        oauth.register_client(refusing, API, no_endpoint, "http://127.0.0.1:1/callback", 0.0)


def test_authorize_url_carries_pkce_state_and_resource() -> None:
    record = oauth.OAuthClientRecord(
        api_base_url=API,
        resource=API,
        issuer=ISSUER,
        authorization_endpoint=ISSUER + "/authorize?tenant=t1",
        token_endpoint=ISSUER + "/token",
        client_id="c-1",
        redirect_uri="http://127.0.0.1:4567/callback",
        scope="memex",
    )
    url = httpx.URL(
        oauth.build_authorize_url(
            record, redirect_uri=record.redirect_uri, state="s-1", code_challenge="ch"
        )
    )
    params = dict(url.params)
    assert params == {
        "tenant": "t1",
        "response_type": "code",
        "client_id": "c-1",
        "redirect_uri": "http://127.0.0.1:4567/callback",
        "code_challenge": "ch",
        "code_challenge_method": "S256",
        "state": "s-1",
        "resource": API,
        "scope": "memex",
    }
