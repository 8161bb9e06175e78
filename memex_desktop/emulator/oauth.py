"""The authorization-server side of "Sign in with Memex", for tests and ``--demo``.

What MCP clients expect of the Memex server (memex-api.md §2, §11): protected-resource
metadata (RFC 9728), authorization-server metadata (RFC 8414), dynamic client registration
(RFC 7591) of public clients, the authorization-code grant with PKCE S256 only (RFC 7636,
OAuth 2.1), refresh tokens that rotate on use, expiring access tokens and revocation (RFC 7009).

The authorize endpoint approves at once (there is no person to ask in tests and the demo), or
answers ``error=access_denied`` when :attr:`OAuthConfig.deny` is set. Loopback redirect URIs
match on any port (RFC 8252 §7.3), everything else exactly. Nothing here logs a token or a code.

Wiring: :func:`register_oauth_routes` adds the endpoints to the emulator's Starlette app, and
the API's bearer check calls :meth:`OAuthServer.is_valid_access_token` (exact expiry). Or the
server pushes tokens into an existing token set: ``on_issue``/``on_drop`` are called as access
tokens are issued and expire or are revoked (expiry noticed at the next OAuth call or
:meth:`OAuthServer.expire_access_tokens`).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
import string
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Route

PROTECTED_RESOURCE_PATH = "/.well-known/oauth-protected-resource"
AUTHORIZATION_SERVER_PATH = "/.well-known/oauth-authorization-server"
AUTHORIZE_PATH = "/oauth/authorize"
TOKEN_PATH = "/oauth/token"
REGISTER_PATH = "/oauth/register"
REVOKE_PATH = "/oauth/revoke"

_LOOPBACK_HOSTS = frozenset({"127.0.0.1", "::1", "localhost"})
_VERIFIER_CHARS = frozenset(string.ascii_letters + string.digits + "-._~")
_MAX_FORM_BYTES = 64 * 1024
_NO_STORE = {"Cache-Control": "no-store", "Pragma": "no-cache"}


@dataclass
class OAuthConfig:
    """How the emulated authorization server behaves; tests change fields while it runs."""

    access_token_lifetime_s: float = 3600.0
    refresh_token_lifetime_s: float | None = 30 * 24 * 3600.0
    code_lifetime_s: float = 120.0
    # The authorize endpoint redirects with error=access_denied instead of a code.
    deny: bool = False
    rotate_refresh_tokens: bool = True
    scopes: tuple[str, ...] = ("memex",)
    clock: Callable[[], float] = field(default=time.time, repr=False)


@dataclass(frozen=True)
class RegisteredClient:
    """A client registered through ``/oauth/register`` (public: no secret)."""

    client_id: str
    redirect_uris: tuple[str, ...]
    metadata: dict[str, Any]


@dataclass(frozen=True)
class _CodeGrant:
    """What an authorization code stands for until it is exchanged (once)."""

    client_id: str
    redirect_uri: str
    code_challenge: str
    scope: str
    resource: str | None
    expires_at: float


@dataclass(frozen=True)
class _Token:
    """An issued access or refresh token."""

    client_id: str
    scope: str
    resource: str | None
    expires_at: float | None


class OAuthError(Exception):
    """An OAuth error answer: ``{"error": code, "error_description": description}``."""

    def __init__(self, error: str, description: str, status: int = 400) -> None:
        super().__init__(description)
        self.error = error
        self.description = description
        self.status = status

    def response(self) -> JSONResponse:
        """The JSON error body of RFC 6749 §5.2."""
        body = {"error": self.error, "error_description": self.description}
        return JSONResponse(body, status_code=self.status, headers=_NO_STORE)


class OAuthServer:
    """Clients, codes and tokens of the emulated authorization server (thread-safe)."""

    def __init__(
        self,
        config: OAuthConfig | None = None,
        *,
        on_issue: Callable[[str], None] | None = None,
        on_drop: Callable[[str], None] | None = None,
    ) -> None:
        self.config = config if config is not None else OAuthConfig()
        self._on_issue = on_issue
        self._on_drop = on_drop
        self._lock = threading.Lock()
        self.clients: dict[str, RegisteredClient] = {}
        self._codes: dict[str, _CodeGrant] = {}
        self._access: dict[str, _Token] = {}
        self._refresh: dict[str, _Token] = {}
        # How many tokens each grant type issued: tests check that a refresh really happened.
        self.grants: dict[str, int] = {"authorization_code": 0, "refresh_token": 0}

    # ------------------------------------------------------------------ used by the API

    def is_valid_access_token(self, token: str) -> bool:
        """Whether ``token`` is an issued, unexpired, unrevoked access token."""
        now = self.config.clock()
        with self._lock:
            record = self._access.get(token)
        return record is not None and (record.expires_at is None or now < record.expires_at)

    # ------------------------------------------------------------------ test controls

    def expire_access_tokens(self) -> None:
        """Make every access token issued so far expired (refresh tokens stay valid)."""
        now = self.config.clock()
        with self._lock:
            for token, record in list(self._access.items()):
                self._access[token] = _Token(record.client_id, record.scope, record.resource, now)
        self.sweep_expired()

    def sweep_expired(self) -> None:
        """Forget expired access tokens and codes (``on_drop`` hears of each token)."""
        now = self.config.clock()
        with self._lock:
            dropped = [token for token, record in self._access.items() if not _alive(record, now)]
            for token in dropped:
                del self._access[token]
            for code in [code for code, grant in self._codes.items() if grant.expires_at <= now]:
                del self._codes[code]
        self._dropped(dropped)

    def _dropped(self, tokens: list[str]) -> None:
        """Tell ``on_drop`` about access tokens that are no longer valid."""
        if self._on_drop is not None:
            for token in tokens:
                self._on_drop(token)

    def revoke_everything(self) -> None:
        """Forget every access and refresh token (as if the person revoked the app)."""
        with self._lock:
            dropped = list(self._access)
            self._access.clear()
            self._refresh.clear()
        self._dropped(dropped)

    def active_token_count(self) -> tuple[int, int]:
        """(valid access tokens, valid refresh tokens) right now."""
        now = self.config.clock()
        with self._lock:
            return (
                sum(1 for t in self._access.values() if _alive(t, now)),
                sum(1 for t in self._refresh.values() if _alive(t, now)),
            )

    # ------------------------------------------------------------------ routes

    def routes(self) -> list[Route]:
        """The Starlette routes of the metadata documents and the OAuth endpoints."""
        return [
            Route(PROTECTED_RESOURCE_PATH, self._protected_resource, methods=["GET"]),
            Route(
                PROTECTED_RESOURCE_PATH + "/{rest:path}", self._protected_resource, methods=["GET"]
            ),
            Route(AUTHORIZATION_SERVER_PATH, self._authorization_server, methods=["GET"]),
            Route(REGISTER_PATH, self._register, methods=["POST"]),
            Route(AUTHORIZE_PATH, self._authorize, methods=["GET"]),
            Route(TOKEN_PATH, self._token, methods=["POST"]),
            Route(REVOKE_PATH, self._revoke, methods=["POST"]),
        ]

    async def _protected_resource(self, request: Request) -> Response:
        """RFC 9728 metadata: which authorization server protects this API."""
        base = _base_url(request)
        rest = str(request.path_params.get("rest", "")).strip("/")
        resource = f"{base}/{rest}" if rest else base
        return JSONResponse(
            {
                "resource": resource,
                "authorization_servers": [base],
                "bearer_methods_supported": ["header"],
                "scopes_supported": list(self.config.scopes),
                "resource_name": "Memex (emulator)",
            }
        )

    async def _authorization_server(self, request: Request) -> Response:
        """RFC 8414 metadata: endpoints and what they support."""
        base = _base_url(request)
        return JSONResponse(
            {
                "issuer": base,
                "authorization_endpoint": base + AUTHORIZE_PATH,
                "token_endpoint": base + TOKEN_PATH,
                "registration_endpoint": base + REGISTER_PATH,
                "revocation_endpoint": base + REVOKE_PATH,
                "response_types_supported": ["code"],
                "response_modes_supported": ["query"],
                "grant_types_supported": ["authorization_code", "refresh_token"],
                "code_challenge_methods_supported": ["S256"],
                "token_endpoint_auth_methods_supported": ["none"],
                "revocation_endpoint_auth_methods_supported": ["none"],
                "scopes_supported": list(self.config.scopes),
                "authorization_response_iss_parameter_supported": True,
            }
        )

    async def _register(self, request: Request) -> Response:
        """RFC 7591 dynamic registration of a public client."""
        try:
            body = json.loads(await request.body() or b"{}")
        except ValueError:
            return OAuthError("invalid_client_metadata", "the body must be JSON").response()
        if not isinstance(body, dict):
            return OAuthError("invalid_client_metadata", "the body must be an object").response()
        try:
            client = self._register_client(body)
        except OAuthError as exc:
            return exc.response()
        answer = {**client.metadata, "client_id": client.client_id}
        answer["client_id_issued_at"] = int(self.config.clock())
        return JSONResponse(answer, status_code=201, headers=_NO_STORE)

    def _register_client(self, body: dict[str, Any]) -> RegisteredClient:
        """Validate client metadata and remember the client."""
        uris = body.get("redirect_uris")
        if not isinstance(uris, list) or not uris or not all(isinstance(u, str) for u in uris):
            raise OAuthError("invalid_redirect_uri", "redirect_uris must be a non-empty list")
        for uri in uris:
            if not _acceptable_redirect_uri(uri):
                raise OAuthError(
                    "invalid_redirect_uri",
                    "redirect URIs must be https, or http on a loopback address",
                )
        method = body.get("token_endpoint_auth_method", "none")
        if method != "none":
            raise OAuthError(
                "invalid_client_metadata", "only public clients (token_endpoint_auth_method none)"
            )
        grant_types = body.get("grant_types", ["authorization_code"])
        if not isinstance(grant_types, list) or not set(grant_types) <= {
            "authorization_code",
            "refresh_token",
        }:
            raise OAuthError("invalid_client_metadata", "unsupported grant_types")
        response_types = body.get("response_types", ["code"])
        if response_types != ["code"]:
            raise OAuthError("invalid_client_metadata", "response_types must be ['code']")
        client_id = "mxc_" + secrets.token_urlsafe(16)
        metadata = {
            **body,
            "redirect_uris": list(uris),
            "grant_types": list(grant_types),
            "response_types": ["code"],
            "token_endpoint_auth_method": "none",
        }
        client = RegisteredClient(client_id, tuple(uris), metadata)
        with self._lock:
            self.clients[client_id] = client
        return client

    async def _authorize(self, request: Request) -> Response:
        """Approve at once (or deny) and send the browser back to the client's redirect URI."""
        params = request.query_params
        client_id = params.get("client_id", "")
        redirect_uri = params.get("redirect_uri", "")
        with self._lock:
            client = self.clients.get(client_id)
        # RFC 6749 §4.1.2.1: an unknown client or redirect URI must not be redirected to.
        if client is None:
            return PlainTextResponse("Unknown client_id.", status_code=400)
        if not any(_redirect_matches(uri, redirect_uri) for uri in client.redirect_uris):
            return PlainTextResponse("redirect_uri is not registered.", status_code=400)
        state = params.get("state")
        issuer = _base_url(request)

        def back(**values: str) -> Response:
            extra = {**values, "iss": issuer}
            if state is not None:
                extra["state"] = state
            return RedirectResponse(_with_query(redirect_uri, extra), status_code=302)

        if params.get("response_type") != "code":
            return back(error="unsupported_response_type")
        challenge = params.get("code_challenge", "")
        if params.get("code_challenge_method") != "S256" or not _is_s256_challenge(challenge):
            return back(error="invalid_request", error_description="PKCE S256 is required")
        scope = params.get("scope") or " ".join(self.config.scopes)
        if not set(scope.split()) <= set(self.config.scopes):
            return back(error="invalid_scope")
        if self.config.deny:
            return back(error="access_denied", error_description="The person declined access.")
        code = secrets.token_urlsafe(32)
        grant = _CodeGrant(
            client_id=client_id,
            redirect_uri=redirect_uri,
            code_challenge=challenge,
            scope=scope,
            resource=params.get("resource"),
            expires_at=self.config.clock() + self.config.code_lifetime_s,
        )
        with self._lock:
            self._codes[code] = grant
        return back(code=code)

    async def _token(self, request: Request) -> Response:
        """The token endpoint: authorization_code (with PKCE) and refresh_token grants."""
        self.sweep_expired()
        try:
            form = await _form(request)
            grant_type = form.get("grant_type", "")
            if grant_type == "authorization_code":
                answer = self._exchange_code(form)
            elif grant_type == "refresh_token":
                answer = self._refresh_grant(form)
            else:
                raise OAuthError("unsupported_grant_type", f"grant_type {grant_type!r}")
        except OAuthError as exc:
            return exc.response()
        self.grants[grant_type] += 1
        return JSONResponse(answer, headers=_NO_STORE)

    def _exchange_code(self, form: dict[str, str]) -> dict[str, Any]:
        """Check the code, client, redirect URI and PKCE verifier; issue tokens."""
        client_id = self._known_client(form)
        with self._lock:
            # Removed before checking: a code is good for one attempt only.
            grant = self._codes.pop(form.get("code", ""), None)
        if grant is None or grant.expires_at <= self.config.clock():
            raise OAuthError("invalid_grant", "unknown, used or expired authorization code")
        if grant.client_id != client_id:
            raise OAuthError("invalid_grant", "the code was issued to another client")
        if form.get("redirect_uri", "") != grant.redirect_uri:
            raise OAuthError("invalid_grant", "redirect_uri differs from the authorize request")
        verifier = form.get("code_verifier", "")
        if not _valid_verifier(verifier):
            raise OAuthError("invalid_request", "code_verifier is missing or malformed")
        if not hmac.compare_digest(s256(verifier), grant.code_challenge):
            raise OAuthError("invalid_grant", "the PKCE code_verifier does not match")
        resource = form.get("resource") or grant.resource
        return self._issue(client_id, grant.scope, resource)

    def _refresh_grant(self, form: dict[str, str]) -> dict[str, Any]:
        """Exchange a refresh token for new tokens (the old refresh token is used up)."""
        client_id = self._known_client(form)
        token = form.get("refresh_token", "")
        now = self.config.clock()
        with self._lock:
            record = self._refresh.get(token)
            if record is None or not _alive(record, now) or record.client_id != client_id:
                raise OAuthError("invalid_grant", "unknown, expired or revoked refresh token")
            if self.config.rotate_refresh_tokens:
                del self._refresh[token]
        return self._issue(client_id, record.scope, record.resource, keep_refresh=token)

    def _known_client(self, form: dict[str, str]) -> str:
        """The form's client_id, when it names a registered client."""
        client_id = form.get("client_id", "")
        with self._lock:
            known = client_id in self.clients
        if not known:
            raise OAuthError("invalid_client", "unknown client_id", status=401)
        return client_id

    def _issue(
        self, client_id: str, scope: str, resource: str | None, keep_refresh: str | None = None
    ) -> dict[str, Any]:
        """New access token (and a new refresh token unless rotation is off)."""
        now = self.config.clock()
        access = "mxo_at_" + secrets.token_urlsafe(32)
        lifetime = self.config.access_token_lifetime_s
        refresh_lifetime = self.config.refresh_token_lifetime_s
        with self._lock:
            self._access[access] = _Token(client_id, scope, resource, now + lifetime)
            if keep_refresh is not None and not self.config.rotate_refresh_tokens:
                refresh = keep_refresh
            else:
                refresh = "mxo_rt_" + secrets.token_urlsafe(32)
                expires = None if refresh_lifetime is None else now + refresh_lifetime
                self._refresh[refresh] = _Token(client_id, scope, resource, expires)
        if self._on_issue is not None:
            self._on_issue(access)
        return {
            "access_token": access,
            "token_type": "Bearer",
            "expires_in": int(lifetime),
            "refresh_token": refresh,
            "scope": scope,
        }

    async def _revoke(self, request: Request) -> Response:
        """RFC 7009: forget a token; unknown tokens are not an error."""
        try:
            form = await _form(request)
        except OAuthError as exc:
            return exc.response()
        token = form.get("token", "")
        with self._lock:
            was_access = self._access.pop(token, None) is not None
            self._refresh.pop(token, None)
        self._dropped([token] if was_access else [])
        return Response(status_code=200)


def register_oauth_routes(app: Starlette, server: OAuthServer) -> None:
    """Add the OAuth endpoints and metadata documents of ``server`` to the emulator app."""
    for route in server.routes():
        app.router.routes.append(route)


def s256(verifier: str) -> str:
    """The PKCE S256 code challenge of ``verifier`` (RFC 7636 §4.2)."""
    digest = hashlib.sha256(verifier.encode("ascii")).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def _alive(token: _Token, now: float) -> bool:
    """Whether a token has not expired yet."""
    return token.expires_at is None or now < token.expires_at


def _valid_verifier(verifier: str) -> bool:
    """RFC 7636 §4.1: 43 to 128 unreserved characters."""
    return 43 <= len(verifier) <= 128 and set(verifier) <= _VERIFIER_CHARS


def _is_s256_challenge(challenge: str) -> bool:
    """A base64url SHA-256 digest without padding is 43 characters."""
    return len(challenge) == 43 and set(challenge) <= _VERIFIER_CHARS


def _base_url(request: Request) -> str:
    """``scheme://host:port`` the client used to reach the emulator (issuer and resource)."""
    return f"{request.url.scheme}://{request.url.netloc}"


async def _form(request: Request) -> dict[str, str]:
    """An ``application/x-www-form-urlencoded`` body (the first value of each name)."""
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if content_type != "application/x-www-form-urlencoded":
        raise OAuthError("invalid_request", "the body must be application/x-www-form-urlencoded")
    raw = await request.body()
    if len(raw) > _MAX_FORM_BYTES:
        raise OAuthError("invalid_request", "the body is too large")
    form: dict[str, str] = {}
    for name, value in parse_qsl(raw.decode("utf-8", errors="replace"), keep_blank_values=True):
        form.setdefault(name, value)
    return form


def _acceptable_redirect_uri(uri: str) -> bool:
    """https anywhere, http only on loopback, no fragment (RFC 6749 §3.1.2, RFC 8252 §7.3)."""
    parts = urlsplit(uri)
    if parts.fragment or not parts.hostname:
        return False
    if parts.scheme == "https":
        return True
    return parts.scheme == "http" and parts.hostname in _LOOPBACK_HOSTS


def _redirect_matches(registered: str, given: str) -> bool:
    """Exact match, except that the port of a loopback http URI may differ (RFC 8252 §7.3)."""
    if registered == given:
        return True
    a, b = urlsplit(registered), urlsplit(given)
    if a.scheme != "http" or b.scheme != "http" or a.hostname not in _LOOPBACK_HOSTS:
        return False
    return (a.hostname, a.path, a.query) == (b.hostname, b.path, b.query) and not b.fragment


def _with_query(uri: str, values: dict[str, str]) -> str:
    """``uri`` with ``values`` added to its query string."""
    parts = urlsplit(uri)
    query = "&".join(q for q in (parts.query, urlencode(values)) if q)
    return urlunsplit((parts.scheme, parts.netloc, parts.path, query, ""))


__all__ = [
    "OAuthConfig",
    "OAuthServer",
    "RegisteredClient",
    "register_oauth_routes",
    "s256",
]
