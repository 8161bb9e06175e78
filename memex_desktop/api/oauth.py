"""Sign in with Memex: OAuth 2.1 authorization code + PKCE from a desktop app (no Qt).

The flow MCP clients use against the Memex server (memex-api.md §2, §12):

1. discovery: protected-resource metadata (RFC 9728) from the API base, then the
   authorization server's metadata (RFC 8414, falling back to OpenID discovery);
2. dynamic client registration (RFC 7591) as a public client named "Memex Desktop" with a
   loopback redirect URI; the registration (never a token) is remembered per server in a
   JSON file (:class:`ClientRegistry`);
3. the browser is sent to the authorize URL with a PKCE S256 challenge and a ``state``; a
   one-shot listener on ``127.0.0.1`` takes exactly one redirect and shuts down (timeout,
   cancel, a wrong ``state`` and an error redirect each end with a typed :class:`SignInError`);
4. the code is exchanged for tokens, which go to a :class:`SecretStore` (the keyring, or memory
   where none exists) and never to a file or a log line;
5. :class:`TokenProvider` gives :class:`~memex_desktop.api.client.MemexClient` the current
   access token and refreshes it (once on a 401, or ahead of time when it has expired);
   :meth:`TokenProvider.sign_out` forgets the tokens.

The function that opens the browser is injectable: tests follow the authorize URL themselves,
the command line prints it when no browser can be started.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import logging
import os
import secrets
import socketserver
import sys
import threading
import time
import webbrowser
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import httpx

from memex_desktop.api.errors import (
    NetworkUnavailable,
    NotSignedIn,
    ServerError,
    SignInError,
)
from memex_desktop.api.urls import normalized_api_url

_log = logging.getLogger(__name__)

CLIENT_NAME = "Memex Desktop"
CLIENT_SOURCE = "memex_desktop"
CALLBACK_PATH = "/callback"
LOOPBACK_HOST = "127.0.0.1"
DEFAULT_SIGN_IN_TIMEOUT_S = 300.0
DEFAULT_HTTP_TIMEOUT_S = 15.0
# An access token this close to its expiry is refreshed before it is sent.
EXPIRY_MARGIN_S = 30.0
REGISTRY_FILE_NAME = "oauth-clients.json"
_LOOPBACK_HOSTS = frozenset({"127.0.0.1", "::1", "localhost"})
_MAX_METADATA_BYTES = 256 * 1024
_POLL_INTERVAL_S = 0.1
_LISTENER_READ_TIMEOUT_S = 5.0


# ---------------------------------------------------------------------------- errors


class SignInCancelled(SignInError):
    """The person cancelled the sign-in before the browser came back."""


class SignInTimedOut(SignInError):
    """The browser did not come back to the app in time."""


class SignInDenied(SignInError):
    """The person (or the server) declined access (``error=access_denied``)."""


class BrowserUnavailable(SignInError):
    """No web browser could be opened and nobody was given the URL to open by hand."""


class StateMismatch(SignInError):
    """The redirect carried another ``state`` than this sign-in sent: possibly forged."""


class AuthorizationFailed(SignInError):
    """The authorization server redirected back with an error other than a refusal."""

    def __init__(self, message: str, *, error: str, description: str | None = None) -> None:
        super().__init__(message)
        self.error = error
        self.description = description


class OAuthUnsupported(SignInError):
    """The server does not offer what sign-in needs (metadata, registration, PKCE S256)."""


class OAuthProtocolError(SignInError):
    """The authorization server answered something that does not follow the protocol."""


class TokenRequestFailed(SignInError):
    """The token endpoint refused a code or refresh token (``invalid_grant`` ...)."""

    def __init__(self, message: str, *, error: str, status_code: int | None = None) -> None:
        super().__init__(message, status_code=status_code)
        self.error = error


# ---------------------------------------------------------------------------- secrets


class SecretStore(Protocol):
    """Where tokens live: the system keyring, or memory when there is none."""

    def get_secret(self, account: str) -> str | None:
        """The secret stored under ``account``, or ``None``."""
        ...

    def set_secret(self, account: str, value: str) -> None:
        """Store ``value`` under ``account`` (replacing what was there)."""
        ...

    def delete_secret(self, account: str) -> None:
        """Forget ``account`` (no error when nothing was stored)."""
        ...


class MemorySecretStore:
    """A :class:`SecretStore` in this process's memory only (tests, keyring-less systems)."""

    def __init__(self) -> None:
        self._values: dict[str, str] = {}
        self._lock = threading.Lock()

    def get_secret(self, account: str) -> str | None:
        """The secret stored under ``account``, or ``None``."""
        with self._lock:
            return self._values.get(account)

    def set_secret(self, account: str, value: str) -> None:
        """Store ``value`` under ``account``."""
        with self._lock:
            self._values[account] = value

    def delete_secret(self, account: str) -> None:
        """Forget ``account``."""
        with self._lock:
            self._values.pop(account, None)

    def __repr__(self) -> str:
        """The accounts held, never their values."""
        return f"MemorySecretStore(accounts={sorted(self._values)!r})"


def access_account(api_base_url: str) -> str:
    """Keyring account name of the access token (with expiry) for one server."""
    return f"oauth-access:{normalized_api_url(api_base_url)}"


def refresh_account(api_base_url: str) -> str:
    """Keyring account name of the refresh token for one server."""
    return f"oauth-refresh:{normalized_api_url(api_base_url)}"


# ---------------------------------------------------------------------------- data


@dataclass(frozen=True)
class TokenSet:
    """Tokens of one sign-in; ``repr`` never shows the tokens themselves."""

    access_token: str = field(repr=False)
    refresh_token: str | None = field(default=None, repr=False)
    expires_at: float | None = None  # epoch seconds; None = the server did not say
    scope: str | None = None

    def expired(self, now: float, margin_s: float = EXPIRY_MARGIN_S) -> bool:
        """Whether the access token has expired (or will within ``margin_s``)."""
        return self.expires_at is not None and now >= self.expires_at - margin_s


@dataclass(frozen=True)
class ServerMetadata:
    """What discovery found out about a Memex server's sign-in."""

    resource: str
    issuer: str
    authorization_endpoint: str
    token_endpoint: str
    registration_endpoint: str | None = None
    revocation_endpoint: str | None = None
    scopes: tuple[str, ...] = ()
    iss_parameter_supported: bool = False


@dataclass(frozen=True)
class OAuthClientRecord:
    """The app's registration at one server, remembered between runs (holds no secret)."""

    api_base_url: str
    resource: str
    issuer: str
    authorization_endpoint: str
    token_endpoint: str
    client_id: str
    redirect_uri: str
    revocation_endpoint: str | None = None
    scope: str | None = None
    registered_at: float = 0.0

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> OAuthClientRecord | None:
        """A record read back from the registry file, or ``None`` when it is malformed."""

        def text(name: str) -> str | None:
            value = data.get(name)
            return value if isinstance(value, str) and value else None

        values = {
            name: text(name)
            for name in (
                "api_base_url",
                "resource",
                "issuer",
                "authorization_endpoint",
                "token_endpoint",
                "client_id",
                "redirect_uri",
            )
        }
        required = {name: value for name, value in values.items() if value is not None}
        if len(required) != len(values):
            return None
        registered = data.get("registered_at")
        return cls(
            api_base_url=required["api_base_url"],
            resource=required["resource"],
            issuer=required["issuer"],
            authorization_endpoint=required["authorization_endpoint"],
            token_endpoint=required["token_endpoint"],
            client_id=required["client_id"],
            redirect_uri=required["redirect_uri"],
            revocation_endpoint=text("revocation_endpoint"),
            scope=text("scope"),
            registered_at=float(registered) if isinstance(registered, int | float) else 0.0,
        )


class ClientRegistry:
    """Registered clients per API base URL, in a JSON file of the config folder.

    Only what identifies the app to a server is kept (client id, redirect URI, endpoints);
    tokens and client secrets are never written here.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()

    def get(self, api_base_url: str) -> OAuthClientRecord | None:
        """The remembered registration for ``api_base_url``, if any."""
        data = self._read().get(normalized_api_url(api_base_url))
        return OAuthClientRecord.from_json(data) if isinstance(data, dict) else None

    def put(self, record: OAuthClientRecord) -> None:
        """Remember ``record`` (replacing an older registration at the same server)."""
        with self._lock:
            servers = self._read()
            servers[record.api_base_url] = asdict(record)
            self._write(servers)

    def forget(self, api_base_url: str) -> None:
        """Drop the registration at ``api_base_url`` (the next sign-in registers again)."""
        with self._lock:
            servers = self._read()
            if servers.pop(normalized_api_url(api_base_url), None) is not None:
                self._write(servers)

    def _read(self) -> dict[str, Any]:
        """The ``servers`` object of the file; a missing or damaged file counts as empty."""
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
            _log.warning("ignoring unreadable sign-in registry %s: %s", self.path, type(exc))
            return {}
        servers = data.get("servers") if isinstance(data, dict) else None
        return servers if isinstance(servers, dict) else {}

    def _write(self, servers: dict[str, Any]) -> None:
        """Replace the file atomically (a crash leaves the old or the new file, never half)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        temporary = self.path.with_name(self.path.name + ".tmp")
        text = json.dumps({"version": 1, "servers": servers}, indent=2, sort_keys=True)
        temporary.write_text(text + "\n", encoding="utf-8")
        os.replace(temporary, self.path)


# ---------------------------------------------------------------------------- helpers


def pkce_pair() -> tuple[str, str]:
    """A fresh PKCE code verifier and its S256 challenge (RFC 7636)."""
    verifier = secrets.token_urlsafe(64)  # 86 unreserved characters
    return verifier, pkce_challenge(verifier)


def pkce_challenge(verifier: str) -> str:
    """The S256 code challenge: base64url(SHA-256(verifier)) without padding."""
    digest = hashlib.sha256(verifier.encode("ascii")).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def _is_secure_endpoint(url: str) -> bool:
    """https, or http on a loopback address (the emulator); nothing else carries codes."""
    parts = urlsplit(url)
    if not parts.hostname:
        return False
    return parts.scheme == "https" or (parts.scheme == "http" and parts.hostname in _LOOPBACK_HOSTS)


def _origin(url: str) -> str:
    """``scheme://host[:port]`` of ``url``."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def _path(url: str) -> str:
    """The path of ``url`` without trailing slash ("" for the root)."""
    return urlsplit(url).path.rstrip("/")


def _dedupe(items: list[str]) -> list[str]:
    """``items`` without repeats, first occurrence kept."""
    return list(dict.fromkeys(items))


def _with_query(url: str, values: Mapping[str, str]) -> str:
    """``url`` with ``values`` appended to its query string."""
    parts = urlsplit(url)
    query = "&".join(part for part in (parts.query, urlencode(values)) if part)
    return urlunsplit((parts.scheme, parts.netloc, parts.path, query, parts.fragment))


def _http_client(transport: httpx.BaseTransport | None, timeout_s: float) -> httpx.Client:
    """An httpx client for the OAuth calls (no redirects followed: codes stay put)."""
    return httpx.Client(
        transport=transport,
        timeout=httpx.Timeout(timeout_s),
        follow_redirects=False,
        headers={"User-Agent": "memex-desktop", "Accept": "application/json"},
    )


# ---------------------------------------------------------------------------- discovery


def protected_resource_metadata_urls(api_base_url: str) -> list[str]:
    """Where RFC 9728 metadata may be: under the API base, path-suffixed, at the root.

    The MCP endpoint beside the API (``<base>/mcp``) is asked last: it is where Memex
    documents its OAuth.
    """
    base = normalized_api_url(api_base_url)
    origin, path = _origin(base), _path(base)
    well_known = "/.well-known/oauth-protected-resource"
    return _dedupe(
        [
            base + well_known,
            origin + well_known + path,
            origin + well_known,
            origin + well_known + path + "/mcp",
        ]
    )


def authorization_server_metadata_urls(issuer: str) -> list[str]:
    """RFC 8414 locations of an issuer's metadata, then OpenID discovery ones."""
    origin, path = _origin(issuer), _path(issuer)
    return _dedupe(
        [
            origin + "/.well-known/oauth-authorization-server" + path,
            origin + "/.well-known/openid-configuration" + path,
            issuer.rstrip("/") + "/.well-known/oauth-authorization-server",
            issuer.rstrip("/") + "/.well-known/openid-configuration",
        ]
    )


class _Fetcher:
    """GETs metadata documents, remembering whether a server failure was seen."""

    def __init__(self, http: httpx.Client) -> None:
        self.http = http
        self.server_failed = False

    def json(self, url: str) -> dict[str, Any] | None:
        """The JSON object at ``url``; ``None`` for a missing or unusable document."""
        try:
            response = self.http.get(url)
        except httpx.TimeoutException as exc:
            raise NetworkUnavailable(f"sign-in: {url} did not answer in time") from exc
        except httpx.TransportError as exc:
            raise NetworkUnavailable(
                f"sign-in: {url} cannot be reached ({type(exc).__name__})"
            ) from exc
        if response.status_code >= 500:
            self.server_failed = True
            return None
        if response.status_code != 200 or len(response.content) > _MAX_METADATA_BYTES:
            return None
        try:
            data = response.json()
        except ValueError:
            return None
        return data if isinstance(data, dict) else None


def discover(api_base_url: str, http: httpx.Client) -> ServerMetadata:
    """Find the authorization server of ``api_base_url`` and its endpoints.

    Raises:
        OAuthUnsupported: no metadata, or the server lacks the authorization-code grant or
            PKCE S256.
        NetworkUnavailable / ServerError: the server cannot be reached / keeps failing.
    """
    base = normalized_api_url(api_base_url)
    fetch = _Fetcher(http)
    resource, issuers = base, [_origin(base)]
    scopes: tuple[str, ...] = ()
    for url in protected_resource_metadata_urls(base):
        document = fetch.json(url)
        if document is None:
            continue
        servers = document.get("authorization_servers")
        if isinstance(servers, list) and servers and all(isinstance(s, str) for s in servers):
            declared = document.get("resource")
            resource = declared if isinstance(declared, str) and declared else base
            issuers = [str(s) for s in servers]
            listed = document.get("scopes_supported")
            if isinstance(listed, list):
                scopes = tuple(str(scope) for scope in listed if isinstance(scope, str))
            break
    for issuer in issuers:
        metadata = _authorization_server_metadata(issuer, fetch)
        if metadata is not None:
            return _server_metadata(resource, issuer, metadata, scopes)
    if fetch.server_failed:
        raise ServerError("sign-in: the Memex server failed to describe its sign-in; try later")
    raise OAuthUnsupported(
        "This Memex server does not offer sign-in (no OAuth metadata found); use an API key."
    )


def _authorization_server_metadata(issuer: str, fetch: _Fetcher) -> dict[str, Any] | None:
    """The first metadata document whose ``issuer`` is ``issuer`` (RFC 8414 §3.3)."""
    for url in authorization_server_metadata_urls(issuer):
        document = fetch.json(url)
        if document is None:
            continue
        declared = document.get("issuer")
        if not isinstance(declared, str) or declared.rstrip("/") != issuer.rstrip("/"):
            _log.warning("ignoring authorization-server metadata at %s: issuer mismatch", url)
            continue
        return document
    return None


def _server_metadata(
    resource: str, issuer: str, document: Mapping[str, Any], resource_scopes: tuple[str, ...]
) -> ServerMetadata:
    """Validate an authorization server's metadata for a public native client."""

    def endpoint(name: str, *, required: bool) -> str | None:
        value = document.get(name)
        if not isinstance(value, str) or not value:
            if required:
                raise OAuthProtocolError(f"the sign-in server's metadata lacks {name}")
            return None
        if not _is_secure_endpoint(value):
            raise OAuthProtocolError(f"the sign-in server's {name} is not https: refused")
        return value

    def listed(name: str) -> list[str] | None:
        value = document.get(name)
        return [str(v) for v in value] if isinstance(value, list) else None

    responses = listed("response_types_supported")
    if responses is not None and "code" not in responses:
        raise OAuthUnsupported("The Memex sign-in server does not offer the code flow.")
    methods = listed("code_challenge_methods_supported")
    if methods is not None and "S256" not in methods:
        raise OAuthUnsupported("The Memex sign-in server does not support PKCE (S256).")
    authorization = endpoint("authorization_endpoint", required=True)
    token = endpoint("token_endpoint", required=True)
    # required=True guarantees both
    assert authorization is not None
    assert token is not None
    return ServerMetadata(
        resource=resource,
        issuer=issuer,
        authorization_endpoint=authorization,
        token_endpoint=token,
        registration_endpoint=endpoint("registration_endpoint", required=False),
        revocation_endpoint=endpoint("revocation_endpoint", required=False),
        scopes=resource_scopes,
        iss_parameter_supported=document.get("authorization_response_iss_parameter_supported")
        is True,
    )


# ---------------------------------------------------------------------------- registration


def register_client(
    http: httpx.Client, api_base_url: str, metadata: ServerMetadata, redirect_uri: str, now: float
) -> OAuthClientRecord:
    """RFC 7591: register the app as a public client with a loopback redirect URI."""
    if metadata.registration_endpoint is None:
        raise OAuthUnsupported(
            "The Memex sign-in server does not allow apps to register; use an API key."
        )
    scope = " ".join(metadata.scopes) or None
    body: dict[str, Any] = {
        "client_name": CLIENT_NAME,
        "memex_client_source": CLIENT_SOURCE,
        "redirect_uris": [redirect_uri],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
        "application_type": "native",
    }
    if scope:
        body["scope"] = scope
    try:
        response = http.post(metadata.registration_endpoint, json=body)
    except httpx.TransportError as exc:
        raise NetworkUnavailable(f"sign-in: registration failed ({type(exc).__name__})") from exc
    data = _json_object(response)
    if response.status_code >= 500:
        raise ServerError("sign-in: the server failed to register the app; try later")
    if response.status_code not in (200, 201) or not isinstance(data.get("client_id"), str):
        error = data.get("error_description") or data.get("error") or f"HTTP {response.status_code}"
        raise OAuthProtocolError(f"The Memex server refused to register the app: {error}")
    return OAuthClientRecord(
        api_base_url=normalized_api_url(api_base_url),
        resource=metadata.resource,
        issuer=metadata.issuer,
        authorization_endpoint=metadata.authorization_endpoint,
        token_endpoint=metadata.token_endpoint,
        client_id=str(data["client_id"]),
        redirect_uri=redirect_uri,
        revocation_endpoint=metadata.revocation_endpoint,
        scope=scope,
        registered_at=now,
    )


def _json_object(response: httpx.Response) -> dict[str, Any]:
    """The response's JSON object, or ``{}`` when it is something else."""
    try:
        data = response.json()
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


# ---------------------------------------------------------------------------- the listener


@dataclass(frozen=True)
class _Redirect:
    """What the one accepted redirect brought back."""

    code: str | None
    error: SignInError | None
    issuer: str | None


class _OneShotServer(socketserver.ThreadingMixIn, socketserver.TCPServer):
    """A TCP server on loopback that remembers the first callback it received.

    Each connection is read in its own short-lived thread, so a connection that sends nothing
    (a browser's speculative preconnect) cannot delay the deadline or a cancel.
    """

    daemon_threads = True
    block_on_close = False

    # Rebinding the remembered port right after the last sign-in must work (its connection
    # may linger in TIME_WAIT). Not on Windows, where SO_REUSEADDR lets sockets share a port.
    allow_reuse_address = sys.platform != "win32"

    def __init__(self, port: int, expected_state: str) -> None:
        super().__init__((LOOPBACK_HOST, port), _CallbackHandler)
        self.expected_state = expected_state
        self.redirect: _Redirect | None = None
        self.timeout = _POLL_INTERVAL_S
        self._claim_lock = threading.Lock()
        self._claimed = False

    def claim(self) -> bool:
        """True for the first callback request only: exactly one redirect is accepted."""
        with self._claim_lock:
            first, self._claimed = not self._claimed, True
            return first

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A browser that hung up early is no failure worth a traceback on stderr."""
        _log.debug("sign-in listener: a connection failed", exc_info=False)


class _CallbackHandler(BaseHTTPRequestHandler):
    """Answers ``GET /callback`` once; other paths get 404 and are otherwise ignored."""

    server: _OneShotServer
    timeout = _LISTENER_READ_TIMEOUT_S  # a connection that sends nothing cannot hold us

    def do_GET(self) -> None:
        """Classify the redirect and tell the person to go back to the app."""
        parts = urlsplit(self.path)
        if parts.path != CALLBACK_PATH or not self.server.claim():
            self._page(404, "Not found", "This address only accepts the sign-in redirect.")
            return
        params = dict(parse_qsl(parts.query, keep_blank_values=True))
        redirect = _classify(params, self.server.expected_state)
        try:
            if redirect.error is None:
                self._page(
                    200, "Signed in", "You are signed in to Memex Desktop. You can close this tab."
                )
            else:
                text = f"{redirect.error.message} Return to Memex Desktop."
                self._page(400, "Sign-in failed", text)
        finally:
            # Published after the page went out, so the browser gets it before the port closes.
            self.server.redirect = redirect

    def _page(self, status: int, title: str, text: str) -> None:
        """A small HTML page (no script, nothing from the request echoed)."""
        body = (
            "<!doctype html><meta charset=utf-8><title>"
            f"{html.escape(title)}</title><h1>{html.escape(title)}</h1><p>{html.escape(text)}</p>"
        ).encode()
        self.send_response(status)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("Referrer-Policy", "no-referrer")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        """Silence the default access log: the request line holds the authorization code."""


def _classify(params: Mapping[str, str], expected_state: str) -> _Redirect:
    """Turn the redirect's query into a code or the error it stands for (state first)."""
    issuer = params.get("iss")
    if not secrets.compare_digest(params.get("state", "").encode(), expected_state.encode()):
        return _Redirect(
            None,
            StateMismatch(
                "Sign-in failed: the browser came back with an unexpected state "
                "(a stale or forged redirect). Please sign in again."
            ),
            issuer,
        )
    error = params.get("error")
    if error == "access_denied":
        return _Redirect(None, SignInDenied("Sign-in was declined in the browser."), issuer)
    if error is not None:
        description = params.get("error_description")
        detail = f" ({description[:200]})" if description else ""
        failure = AuthorizationFailed(
            f"The Memex sign-in server reported an error: {error[:80]}{detail}.",
            error=error,
            description=description,
        )
        return _Redirect(None, failure, issuer)
    code = params.get("code")
    if not code:
        failure = AuthorizationFailed(
            "The browser came back without an authorization code.", error="invalid_request"
        )
        return _Redirect(None, failure, issuer)
    return _Redirect(code, None, issuer)


class LoopbackListener:
    """A one-shot HTTP listener on ``127.0.0.1`` for the authorization redirect.

    Binds at construction (``port=0``: an ephemeral port); :meth:`wait` serves until one
    ``/callback`` request came, the deadline passed or ``cancel`` was set; :meth:`close`
    (also the context manager's exit) releases the port. Nothing it receives is logged.
    """

    def __init__(self, state: str, port: int = 0) -> None:
        self._server = _OneShotServer(port, state)
        self.port = int(self._server.server_address[1])
        self._closed = False

    @property
    def redirect_uri(self) -> str:
        """``http://127.0.0.1:<port>/callback``."""
        return f"http://{LOOPBACK_HOST}:{self.port}{CALLBACK_PATH}"

    @property
    def closed(self) -> bool:
        """Whether the port has been released."""
        return self._closed

    def wait(
        self, *, timeout_s: float, cancel: threading.Event | None = None
    ) -> tuple[str, str | None]:
        """Serve until the redirect arrives; ``(code, iss)`` or the typed error."""
        deadline = time.monotonic() + timeout_s
        while self._server.redirect is None:
            if cancel is not None and cancel.is_set():
                raise SignInCancelled("Sign-in was cancelled.")
            if time.monotonic() >= deadline:
                raise SignInTimedOut(
                    f"Sign-in timed out: the browser did not come back within {timeout_s:g} s."
                )
            self._server.handle_request()  # returns after one request or _POLL_INTERVAL_S
        redirect = self._server.redirect
        if redirect.error is not None:
            raise redirect.error
        assert redirect.code is not None  # _classify gives a code or an error
        return redirect.code, redirect.issuer

    def close(self) -> None:
        """Stop listening and release the port."""
        if not self._closed:
            self._closed = True
            self._server.server_close()

    def __enter__(self) -> LoopbackListener:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def _open_listener(state: str, preferred_port: int | None) -> tuple[LoopbackListener, bool]:
    """A listener on ``preferred_port`` when free (True), else on an ephemeral port (False)."""
    if preferred_port:
        try:
            return LoopbackListener(state, preferred_port), True
        except OSError:
            _log.info("port %d is busy; the app registers again with a new port", preferred_port)
    return LoopbackListener(state, 0), False


# ---------------------------------------------------------------------------- tokens


def request_tokens(
    http: httpx.Client, token_endpoint: str, form: Mapping[str, str], now: float
) -> TokenSet:
    """POST a grant to the token endpoint; the tokens or the typed refusal."""
    try:
        response = http.post(token_endpoint, data=dict(form))
    except httpx.TimeoutException as exc:
        raise NetworkUnavailable("sign-in: the token endpoint did not answer in time") from exc
    except httpx.TransportError as exc:
        raise NetworkUnavailable(
            f"sign-in: the token endpoint cannot be reached ({type(exc).__name__})"
        ) from exc
    data = _json_object(response)
    status = response.status_code
    if status >= 500:
        raise ServerError(f"sign-in: the token endpoint failed (HTTP {status})", status_code=status)
    if status != 200:
        error = data.get("error") if isinstance(data.get("error"), str) else f"HTTP {status}"
        raise TokenRequestFailed(
            f"The Memex sign-in server refused the request ({str(error)[:80]}).",
            error=str(error),
            status_code=status,
        )
    access = data.get("access_token")
    token_type = data.get("token_type", "Bearer")
    if not isinstance(access, str) or not access or not isinstance(token_type, str):
        raise OAuthProtocolError("The Memex sign-in server sent no usable access token.")
    if token_type.lower() != "bearer":
        raise OAuthProtocolError(f"The Memex sign-in server sent a {token_type[:20]!r} token.")
    expires_in = data.get("expires_in")
    refresh = data.get("refresh_token")
    scope = data.get("scope")
    return TokenSet(
        access_token=access,
        refresh_token=refresh if isinstance(refresh, str) and refresh else None,
        expires_at=now + float(expires_in)
        if isinstance(expires_in, int | float) and not isinstance(expires_in, bool)
        else None,
        scope=scope if isinstance(scope, str) else None,
    )


def save_tokens(store: SecretStore, api_base_url: str, tokens: TokenSet) -> None:
    """Put ``tokens`` in the secret store (two entries: each stays small for every keyring)."""
    access = {"access_token": tokens.access_token, "expires_at": tokens.expires_at}
    if tokens.scope:
        access["scope"] = tokens.scope
    store.set_secret(access_account(api_base_url), json.dumps(access))
    if tokens.refresh_token:
        store.set_secret(refresh_account(api_base_url), tokens.refresh_token)
    else:
        store.delete_secret(refresh_account(api_base_url))


def load_tokens(store: SecretStore, api_base_url: str) -> TokenSet | None:
    """The stored tokens of ``api_base_url``, or ``None`` when not signed in there."""
    raw = store.get_secret(access_account(api_base_url))
    if not raw:
        return None
    try:
        data = json.loads(raw)
    except ValueError:
        return None
    access = data.get("access_token") if isinstance(data, dict) else None
    if not isinstance(access, str) or not access:
        return None
    expires_at = data.get("expires_at")
    scope = data.get("scope")
    return TokenSet(
        access_token=access,
        refresh_token=store.get_secret(refresh_account(api_base_url)) or None,
        expires_at=float(expires_at) if isinstance(expires_at, int | float) else None,
        scope=scope if isinstance(scope, str) else None,
    )


def forget_tokens(store: SecretStore, api_base_url: str) -> None:
    """Remove both token entries of ``api_base_url`` from the secret store."""
    store.delete_secret(access_account(api_base_url))
    store.delete_secret(refresh_account(api_base_url))


class TokenProvider:
    """The current access token of one sign-in, refreshed when needed; thread-safe.

    Pass it to :class:`~memex_desktop.api.client.MemexClient` as ``bearer_token=provider,
    refresh_bearer_token=provider.refresh`` (or ``**provider.client_kwargs()``).
    """

    def __init__(
        self,
        record: OAuthClientRecord,
        store: SecretStore,
        *,
        transport: httpx.BaseTransport | None = None,
        clock: Callable[[], float] = time.time,
        timeout_s: float = DEFAULT_HTTP_TIMEOUT_S,
    ) -> None:
        self.record = record
        self._store = store
        self._transport = transport
        self._clock = clock
        self._timeout_s = timeout_s
        self._lock = threading.RLock()
        self._tokens: TokenSet | None = None
        self._loaded = False
        self._http: httpx.Client | None = None

    @property
    def api_base_url(self) -> str:
        """The server this sign-in belongs to."""
        return self.record.api_base_url

    def client_kwargs(self) -> dict[str, Any]:
        """``bearer_token`` and ``refresh_bearer_token`` for :class:`MemexClient`."""
        return {"bearer_token": self, "refresh_bearer_token": self.refresh}

    def is_signed_in(self) -> bool:
        """Whether tokens are held (they may still be refused by the server)."""
        with self._lock:
            return self._current() is not None

    @property
    def expires_at(self) -> float | None:
        """When the current access token expires (epoch seconds), if known."""
        with self._lock:
            tokens = self._current()
            return tokens.expires_at if tokens is not None else None

    def __call__(self) -> str:
        """The access token to send now, refreshed first when it has expired.

        Raises:
            NotSignedIn: there are no tokens (never signed in, signed out, refresh refused).
        """
        with self._lock:
            tokens = self._current()
            if tokens is not None and tokens.expired(self._clock()) and tokens.refresh_token:
                # A failed refresh leaves the old token: the server's 401 decides, not a guess.
                self.refresh()
                tokens = self._current()
            if tokens is None:
                raise NotSignedIn(
                    "You are not signed in to Memex (or the sign-in expired): sign in again."
                )
            return tokens.access_token

    access_token = __call__

    def refresh(self) -> bool:
        """Obtain a new access token with the refresh token; ``True`` when it worked.

        A refused refresh token (``invalid_grant``) ends the sign-in: the tokens are forgotten
        and the next call raises :class:`NotSignedIn`. Network trouble keeps them.
        """
        with self._lock:
            tokens = self._current()
            if tokens is None or not tokens.refresh_token:
                return False
            form = {
                "grant_type": "refresh_token",
                "refresh_token": tokens.refresh_token,
                "client_id": self.record.client_id,
                "resource": self.record.resource,
            }
            try:
                fresh = request_tokens(
                    self._client(), self.record.token_endpoint, form, self._clock()
                )
            except TokenRequestFailed as exc:
                return self._after_refused_refresh(tokens, exc)
            except (NetworkUnavailable, ServerError, OAuthProtocolError) as exc:
                _log.warning("could not refresh the Memex sign-in: %s", type(exc).__name__)
                return False
            if fresh.refresh_token is None:  # RFC 6749 §6: the old one stays valid
                fresh = TokenSet(
                    fresh.access_token, tokens.refresh_token, fresh.expires_at, fresh.scope
                )
            save_tokens(self._store, self.api_base_url, fresh)
            self._tokens = fresh
            _log.info("Memex sign-in refreshed")
            return True

    def _after_refused_refresh(self, tokens: TokenSet, exc: TokenRequestFailed) -> bool:
        """Adopt tokens another process refreshed meanwhile, else end the sign-in."""
        stored = load_tokens(self._store, self.api_base_url)
        if stored is not None and stored.refresh_token != tokens.refresh_token:
            self._tokens = stored
            return True
        if exc.error in ("invalid_grant", "invalid_client", "unauthorized_client"):
            _log.info("Memex refused the refresh token (%s); signed out", exc.error)
            forget_tokens(self._store, self.api_base_url)
            self._tokens = None
        return False

    def sign_out(self, *, revoke: bool = True) -> None:
        """Forget the tokens (and ask the server to revoke them when it can)."""
        with self._lock:
            tokens = self._current()
            forget_tokens(self._store, self.api_base_url)
            self._tokens = None
            if revoke and tokens is not None:
                revoke_tokens(self._client(), self.record, tokens)

    def close(self) -> None:
        """Close the HTTP connections used for refreshing."""
        with self._lock:
            if self._http is not None:
                self._http.close()
                self._http = None

    def _current(self) -> TokenSet | None:
        """The tokens in memory, read from the store once."""
        if not self._loaded:
            self._tokens = load_tokens(self._store, self.api_base_url)
            self._loaded = True
        return self._tokens

    def _client(self) -> httpx.Client:
        """The HTTP client for token calls, opened on first use."""
        if self._http is None:
            self._http = _http_client(self._transport, self._timeout_s)
        return self._http

    def __repr__(self) -> str:
        """Server and state only, never a token."""
        return f"TokenProvider(api_base_url={self.api_base_url!r})"


def revoke_tokens(http: httpx.Client, record: OAuthClientRecord, tokens: TokenSet) -> None:
    """RFC 7009 revocation of both tokens, best effort (sign-out never fails on it)."""
    if record.revocation_endpoint is None:
        return
    for token, hint in (
        (tokens.refresh_token, "refresh_token"),
        (tokens.access_token, "access_token"),
    ):
        if not token:
            continue
        form = {"token": token, "token_type_hint": hint, "client_id": record.client_id}
        try:
            http.post(record.revocation_endpoint, data=form)
        except httpx.HTTPError as exc:
            _log.info("token revocation not confirmed (%s); forgotten locally", type(exc).__name__)
            return


# ---------------------------------------------------------------------------- the flow


def build_authorize_url(
    record: OAuthClientRecord, *, redirect_uri: str, state: str, code_challenge: str
) -> str:
    """The URL the browser opens: code flow with PKCE S256, state and resource."""
    params = {
        "response_type": "code",
        "client_id": record.client_id,
        "redirect_uri": redirect_uri,
        "code_challenge": code_challenge,
        "code_challenge_method": "S256",
        "state": state,
        "resource": record.resource,
    }
    if record.scope:
        params["scope"] = record.scope
    return _with_query(record.authorization_endpoint, params)


def _default_open_browser(url: str) -> bool:
    """Open ``url`` in the system browser; ``False`` when none could be started."""
    try:
        return webbrowser.open(url, new=1, autoraise=True)
    except webbrowser.Error:
        return False


@contextmanager
def _http_session(
    transport: httpx.BaseTransport | None, timeout_s: float
) -> Iterator[httpx.Client]:
    """An httpx client closed on exit."""
    http = _http_client(transport, timeout_s)
    try:
        yield http
    finally:
        http.close()


def sign_in(
    api_base_url: str,
    *,
    store: SecretStore,
    registry: ClientRegistry,
    open_browser: Callable[[str], bool] | None = None,
    show_url: Callable[[str], None] | None = None,
    cancel: threading.Event | None = None,
    timeout_s: float = DEFAULT_SIGN_IN_TIMEOUT_S,
    transport: httpx.BaseTransport | None = None,
    clock: Callable[[], float] = time.time,
) -> TokenProvider:
    """Sign in to the Memex server at ``api_base_url`` through the browser (blocking).

    Qt-free: a worker thread calls it with a ``cancel`` event. ``open_browser(url)`` (default:
    the system browser) returns whether a browser was started; when it was not,
    ``show_url(url)`` shows the URL to open by hand (without ``show_url`` that is a
    :class:`BrowserUnavailable`).

    Raises:
        SignInError (cancelled, timed out, denied, wrong state, refused code, unsupported
        server), NetworkUnavailable, ServerError. No listener is left running either way.
    """
    base = normalized_api_url(api_base_url)
    with _http_session(transport, DEFAULT_HTTP_TIMEOUT_S) as http:
        metadata = discover(base, http)
        remembered = registry.get(base)
        if remembered is not None and remembered.issuer != metadata.issuer:
            remembered = None
        preferred_port = urlsplit(remembered.redirect_uri).port if remembered else None
        state = secrets.token_urlsafe(32)
        listener, kept_port = _open_listener(state, preferred_port)
        with listener:
            record = remembered if remembered is not None and kept_port else None
            if record is None:
                record = register_client(http, base, metadata, listener.redirect_uri, clock())
                registry.put(record)
            verifier, challenge = pkce_pair()
            url = build_authorize_url(
                record, redirect_uri=listener.redirect_uri, state=state, code_challenge=challenge
            )
            if cancel is not None and cancel.is_set():
                raise SignInCancelled("Sign-in was cancelled.")
            opener = open_browser if open_browser is not None else _default_open_browser
            if not opener(url):
                if show_url is None:
                    raise BrowserUnavailable(
                        "No web browser could be opened for signing in to Memex."
                    )
                show_url(url)
            try:
                code, issuer = listener.wait(timeout_s=timeout_s, cancel=cancel)
            except SignInTimedOut:
                if remembered is not None:
                    # The server may have forgotten this registration (its page then never
                    # redirects back): the next attempt registers afresh.
                    registry.forget(base)
                raise
        if issuer is None and metadata.iss_parameter_supported:
            issuer = ""  # RFC 9207 §2.4: a server that promises ``iss`` must send it
        if issuer is not None and issuer.rstrip("/") != record.issuer.rstrip("/"):
            raise AuthorizationFailed(
                "Sign-in failed: the redirect came from another sign-in server.",
                error="issuer_mismatch",
            )
        form = {
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": listener.redirect_uri,
            "client_id": record.client_id,
            "code_verifier": verifier,
            "resource": record.resource,
        }
        tokens = request_tokens(http, record.token_endpoint, form, clock())
    save_tokens(store, base, tokens)
    _log.info("signed in to Memex at %s", base)
    return TokenProvider(record, store, transport=transport, clock=clock)


def load_token_provider(
    api_base_url: str,
    *,
    store: SecretStore,
    registry: ClientRegistry,
    transport: httpx.BaseTransport | None = None,
    clock: Callable[[], float] = time.time,
) -> TokenProvider | None:
    """The sign-in remembered for ``api_base_url``, or ``None`` when not signed in there."""
    record = registry.get(api_base_url)
    if record is None or load_tokens(store, record.api_base_url) is None:
        return None
    return TokenProvider(record, store, transport=transport, clock=clock)


def sign_out(
    api_base_url: str,
    *,
    store: SecretStore,
    registry: ClientRegistry,
    revoke: bool = True,
    transport: httpx.BaseTransport | None = None,
) -> bool:
    """Forget the tokens of ``api_base_url``; ``True`` when there was a sign-in to forget.

    The client registration stays (it is no secret); the server is asked to revoke the tokens
    when it offers revocation, and a failure there does not keep them.
    """
    base = normalized_api_url(api_base_url)
    tokens = load_tokens(store, base)
    forget_tokens(store, base)
    record = registry.get(base)
    if tokens is not None and revoke and record is not None:
        with _http_session(transport, 5.0) as http:
            revoke_tokens(http, record, tokens)
    return tokens is not None


__all__ = [
    "CALLBACK_PATH",
    "CLIENT_NAME",
    "CLIENT_SOURCE",
    "DEFAULT_SIGN_IN_TIMEOUT_S",
    "REGISTRY_FILE_NAME",
    "AuthorizationFailed",
    "BrowserUnavailable",
    "ClientRegistry",
    "LoopbackListener",
    "MemorySecretStore",
    "NotSignedIn",
    "OAuthClientRecord",
    "OAuthProtocolError",
    "OAuthUnsupported",
    "SecretStore",
    "ServerMetadata",
    "SignInCancelled",
    "SignInDenied",
    "SignInError",
    "SignInTimedOut",
    "StateMismatch",
    "TokenProvider",
    "TokenRequestFailed",
    "TokenSet",
    "build_authorize_url",
    "discover",
    "load_token_provider",
    "load_tokens",
    "pkce_challenge",
    "pkce_pair",
    "register_client",
    "request_tokens",
    "sign_in",
    "sign_out",
]
