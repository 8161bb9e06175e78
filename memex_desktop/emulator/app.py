"""The Starlette application: authentication, JSON in and out, routing to the handlers.

Auth follows the service: ``Authorization: Bearer <token>`` (takes precedence when present)
or ``x-api-key`` plus an optional ``x-user-id``; anything else is 401 ``{error}``. Every
endpoint is ``POST`` with a JSON object body (an empty body counts as ``{}``).

With ``moved_to`` set the emulator stands for a host the API has left: every request, whatever
its path, method or credentials, answers ``301 Moved Permanently`` with ``Location: <moved_to>
<path>`` (memex-api-evidence.md §2 risk 10).
"""

from __future__ import annotations

import hmac
import json
from collections.abc import Awaitable, Callable

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from memex_desktop.emulator.database import dumps
from memex_desktop.emulator.endpoints import ROUTES, Handler
from memex_desktop.emulator.faults import App, FaultMiddleware, Faults, Receive, Scope, Send
from memex_desktop.emulator.media import MEDIA_PATH, MediaFiles
from memex_desktop.emulator.oauth import register_oauth_routes
from memex_desktop.emulator.problem import ApiProblem
from memex_desktop.emulator.state import EmulatorState, RequestRecord


def authentication_problem(state: EmulatorState, request: Request) -> str | None:
    """Why the request's credentials are rejected, or ``None`` when they are valid."""
    authorization = request.headers.get("authorization")
    if authorization is not None:
        scheme, _, token = authorization.strip().partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer" or not token:
            return "Malformed Authorization header: expected 'Bearer <token>'."
        with state.lock:
            known = any(hmac.compare_digest(token, valid) for valid in state.bearer_tokens)
        if not known and state.oauth is not None:
            known = state.oauth.is_valid_access_token(token)
        return None if known else "Invalid or expired access token."
    key = request.headers.get("x-api-key")
    if key is None:
        return "Missing credentials: send x-api-key or Authorization: Bearer."
    if not hmac.compare_digest(key.encode(), state.config.api_key.encode()):
        return "Invalid API key."
    user_id = request.headers.get("x-user-id")
    expected = state.config.user_id
    if user_id and expected and user_id != expected:
        return "x-user-id does not belong to this API key."
    return None


def _endpoint(
    state: EmulatorState, handler: Handler, media: MediaFiles
) -> Callable[[Request], Awaitable[Response]]:
    """Wrap a handler with auth, body decoding and error answers (pictures named by ``media``
    at this server's own address)."""

    async def endpoint(request: Request) -> Response:
        problem = authentication_problem(state, request)
        if problem is not None:
            return JSONResponse(
                {"error": problem}, status_code=401, headers={"www-authenticate": "Bearer"}
            )
        raw = await request.body()
        try:
            body = json.loads(raw) if raw.strip() else {}
        except ValueError:
            return JSONResponse({"error": "The request body must be JSON."}, status_code=400)
        if not isinstance(body, dict):
            return JSONResponse({"error": "The request body must be a JSON object."}, 400)
        try:
            answer = handler(state, body)
        except ApiProblem as exc:
            return JSONResponse(exc.payload, status_code=exc.status)
        content = answer if isinstance(answer, str) else dumps(answer)
        content = media.rewrite(content, str(request.base_url))
        return Response(content.encode("utf-8"), media_type="application/json")

    return endpoint


async def _http_error(request: Request, exc: Exception) -> Response:
    """Unknown paths and wrong methods answer JSON like everything else."""
    status = exc.status_code if isinstance(exc, HTTPException) else 500
    detail = exc.detail if isinstance(exc, HTTPException) else "Internal error"
    return JSONResponse({"error": f"{detail} ({request.method} {request.url.path})"}, status)


class MovedPermanently:
    """An ASGI app answering every HTTP request with a 301 to the same path on another base."""

    def __init__(self, app: App, base: str) -> None:
        self.app = app
        self.base = base.rstrip("/")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        query = bytes(scope.get("query_string", b"")).decode("latin-1")
        location = self.base + str(scope["path"]) + (f"?{query}" if query else "")
        response = JSONResponse(
            {"error": "Moved Permanently", "location": location},
            status_code=301,
            headers={"location": location},
        )
        await response(scope, receive, send)


def build_app(state: EmulatorState, faults: Faults) -> FaultMiddleware:
    """The emulator's ASGI application (faults outermost, then auth and routes)."""
    media = MediaFiles(state.config.media_dir)
    routes = [
        Route(path, _endpoint(state, handler, media), methods=["POST"])
        for path, handler in ROUTES.items()
    ]
    if media:
        routes.append(Route(MEDIA_PATH + "/{path:path}", media.endpoint, methods=["GET"]))
    starlette = Starlette(routes=routes, exception_handlers={HTTPException: _http_error})
    if state.oauth is not None:
        register_oauth_routes(starlette, state.oauth)

    def record(scope: Scope) -> None:
        names = {bytes(name).lower() for name, _ in scope.get("headers", [])}
        state.record_request(
            RequestRecord(
                method=str(scope.get("method", "")),
                path=str(scope.get("path", "")),
                has_api_key=b"x-api-key" in names,
                has_bearer=b"authorization" in names,
                has_user_id=b"x-user-id" in names,
            )
        )

    inner: App = starlette
    if state.config.moved_to is not None:
        inner = MovedPermanently(starlette, state.config.moved_to)
    return FaultMiddleware(inner, faults, on_request=record)
