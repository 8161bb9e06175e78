"""Fault injection: switches tests flip while the server runs, applied by an ASGI middleware.

Faults are consumed in the order they were armed; latency applies on top of any of them, and so
does the shape of the network the emulator was started with (:class:`NetworkShape`: a latency
for every request and a link of limited bandwidth that every response shares).
Breaking the connection (dropped connection, truncated body, lost response) needs the socket:
uvicorn's ``send`` is a bound method of its request cycle, whose transport is closed directly.
"""

from __future__ import annotations

import asyncio
import json
import math
import threading
from collections.abc import Awaitable, Callable, Collection, MutableMapping
from dataclasses import dataclass, field
from datetime import datetime
from email.utils import format_datetime
from typing import Any

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]
RetryAfter = int | float | str | datetime | None
# Turns a response body the emulator produced into the bytes a hostile server sends instead.
BodyRewrite = Callable[[bytes], bytes]

DEFAULT_SAVE_PATHS = frozenset({"/save-content-entity", "/save-content-by-url"})
UNREADABLE_MODES = ("garbage", "stall")
# What a "garbage" unreadable success sends: the start of an answer, cut, with bytes that
# are not UTF-8.
_GARBAGE_BODY = b'{"entity": {"id": "\xff\xfe\x00'


@dataclass
class Fault:
    """One armed fault: what to do, to how many more requests, on which paths."""

    kind: str
    remaining: int | None
    paths: frozenset[str] | None = None
    status: int = 500
    headers: list[tuple[str, str]] = field(default_factory=list)
    body: dict[str, Any] | None = None
    mode: str = "length"
    chunk: int = 1
    interval_s: float = 0.5
    location: str = ""
    rewrite: BodyRewrite | None = None

    def applies_to(self, path: str) -> bool:
        """Whether this fault affects a request to ``path``."""
        return self.paths is None or path in self.paths


def _retry_after_value(value: RetryAfter) -> str | None:
    """A ``Retry-After`` header value: whole seconds, or an HTTP-date."""
    if value is None:
        return None
    if isinstance(value, datetime):
        return format_datetime(value, usegmt=True)
    if isinstance(value, int | float):
        return str(max(0, math.ceil(value)))
    return value


class NetworkShape:
    """The network between client and emulator: a latency added to every request, and one link
    of ``bandwidth_bytes_per_s`` (0: unlimited) that every response body crosses in turn.

    Only used on the server's event loop (the link's schedule needs no lock).
    """

    def __init__(self, latency_s: float = 0.0, bandwidth_bytes_per_s: float = 0.0) -> None:
        if latency_s < 0 or bandwidth_bytes_per_s < 0:
            raise ValueError("latency and bandwidth must not be negative")
        self.latency_s = latency_s
        self.bandwidth_bytes_per_s = bandwidth_bytes_per_s
        self._link_free_at = 0.0

    @classmethod
    def of(cls, latency_ms: float, bandwidth_kbps: float) -> NetworkShape:
        """A shape from milliseconds and kilobits per second (1,000 bits)."""
        return cls(latency_ms / 1000, bandwidth_kbps * 1000 / 8)

    @property
    def shapes_bodies(self) -> bool:
        """Whether response bodies are paced (a bandwidth is set)."""
        return self.bandwidth_bytes_per_s > 0

    def chunk_bytes(self) -> int:
        """How much of a body crosses the link at once: some 20 ms of it, at least 1 kB."""
        return max(1024, int(self.bandwidth_bytes_per_s / 50))

    def reserve(self, size: int, now: float) -> float:
        """When ``size`` bytes handed to the link at ``now`` have crossed it (loop time)."""
        start = max(now, self._link_free_at)
        self._link_free_at = start + size / self.bandwidth_bytes_per_s
        return self._link_free_at


class Faults:
    """Thread-safe fault switches of one emulator (``RunningEmulator.faults``); ``network`` is
    the shape it was started with, kept by :meth:`clear`."""

    def __init__(self, network: NetworkShape | None = None) -> None:
        self.network = network or NetworkShape()
        self._lock = threading.Lock()
        self._faults: list[Fault] = []
        self._latency_s = 0.0
        self._latency_remaining: int | None = None

    def _arm(self, fault: Fault) -> None:
        with self._lock:
            self._faults.append(fault)

    def latency(self, seconds: float, count: int | None = None) -> None:
        """Delay every response (or the next ``count``) by ``seconds``; 0 turns it off."""
        with self._lock:
            self._latency_s = seconds
            self._latency_remaining = count

    def next_status(
        self,
        code: int,
        count: int = 1,
        retry_after: RetryAfter = None,
        *,
        body: dict[str, Any] | None = None,
        paths: Collection[str] | None = None,
    ) -> None:
        """Answer the next ``count`` requests with ``code`` (JSON ``{error}``, Retry-After)."""
        headers = []
        header = _retry_after_value(retry_after)
        if header is not None:
            headers.append(("retry-after", header))
        self._arm(
            Fault(
                "status",
                count,
                frozenset(paths) if paths is not None else None,
                status=code,
                headers=headers,
                body=body,
            )
        )

    def rate_limit(self, retry_after: RetryAfter = 1, count: int = 1) -> None:
        """429 Too Many Requests with ``Retry-After`` for the next ``count`` requests."""
        self.next_status(429, count, retry_after)

    def drop_connection(self, count: int = 1, *, paths: Collection[str] | None = None) -> None:
        """Close the socket without any response for the next ``count`` requests."""
        self._arm(Fault("drop", count, frozenset(paths) if paths is not None else None))

    def truncate_body(
        self, count: int = 1, *, mode: str = "length", paths: Collection[str] | None = None
    ) -> None:
        """Cut the next responses: ``"length"`` declares the full Content-Length but sends
        half and closes; ``"json"`` sends a complete response whose JSON is cut short."""
        if mode not in ("length", "json"):
            raise ValueError("mode must be 'length' or 'json'")
        self._arm(
            Fault("truncate", count, frozenset(paths) if paths is not None else None, mode=mode)
        )

    def drip(
        self,
        bytes_per_interval: int = 1,
        interval_s: float = 0.5,
        count: int | None = None,
        *,
        paths: Collection[str] | None = None,
    ) -> None:
        """Send responses ``bytes_per_interval`` bytes at a time, one chunk per interval
        (all responses until cleared, or the next ``count``)."""
        self._arm(
            Fault(
                "drip",
                count,
                frozenset(paths) if paths is not None else None,
                chunk=max(1, bytes_per_interval),
                interval_s=interval_s,
            )
        )

    def lose_response_after_commit(
        self, count: int = 1, *, paths: Collection[str] | None = DEFAULT_SAVE_PATHS
    ) -> None:
        """Let the next ``count`` saves happen, then drop the connection instead of answering."""
        self._arm(Fault("lose", count, frozenset(paths) if paths is not None else None))

    def unreadable_success(
        self,
        count: int = 1,
        *,
        mode: str = "garbage",
        status: int = 200,
        paths: Collection[str] | None = DEFAULT_SAVE_PATHS,
    ) -> None:
        """Let the next ``count`` requests happen, then answer ``status`` (a 2xx) with a body
        the client cannot read: ``"garbage"`` sends a complete body that is not JSON (nor
        UTF-8); ``"stall"`` sends the headers and half the body, then nothing more until the
        client gives up."""
        if mode not in UNREADABLE_MODES:
            raise ValueError(f"mode must be one of {', '.join(UNREADABLE_MODES)}")
        if not 200 <= status < 300:
            raise ValueError("an unreadable success needs a 2xx status")
        self._arm(
            Fault(
                "unreadable",
                count,
                frozenset(paths) if paths is not None else None,
                status=status,
                mode=mode,
            )
        )

    def redirect(
        self,
        location_base: str,
        count: int = 1,
        *,
        status: int = 307,
        paths: Collection[str] | None = None,
    ) -> None:
        """Redirect the next ``count`` requests to the same path on ``location_base``."""
        self._arm(
            Fault(
                "redirect",
                count,
                frozenset(paths) if paths is not None else None,
                status=status,
                location=location_base.rstrip("/"),
            )
        )

    # ---------------------------------------------------------------- planted bodies

    def rewrite_body(
        self,
        rewrite: BodyRewrite,
        count: int = 1,
        *,
        paths: Collection[str] | None = None,
    ) -> None:
        """Answer the next ``count`` requests with ``rewrite(body)`` of the body the emulator
        produced (status and headers kept): a planted page of any bytes, valid JSON or not."""
        on = frozenset(paths) if paths is not None else None
        self._arm(Fault("rewrite", count, on, rewrite=rewrite))

    def clear(self) -> None:
        """Disarm every fault and the latency."""
        with self._lock:
            self._faults.clear()
            self._latency_s = 0.0
            self._latency_remaining = None

    @property
    def armed(self) -> int:
        """How many faults are still armed (latency not counted)."""
        with self._lock:
            return len(self._faults)

    def take(self, path: str) -> tuple[float, Fault | None]:
        """Consume what applies to one request: (latency seconds, fault or ``None``)."""
        with self._lock:
            latency = self._latency_s
            if latency and self._latency_remaining is not None:
                self._latency_remaining -= 1
                if self._latency_remaining <= 0:
                    self._latency_s, self._latency_remaining = 0.0, None
            for fault in self._faults:
                if fault.applies_to(path):
                    if fault.remaining is not None:
                        fault.remaining -= 1
                        if fault.remaining <= 0:
                            self._faults.remove(fault)
                    return latency, fault
            return latency, None


async def _close_connection(send: Send) -> None:
    """Close the client's socket now, without (or without finishing) a response."""
    cycle = getattr(send, "__self__", None)
    transport = getattr(cycle, "transport", None)
    if transport is None:
        raise ConnectionAbortedError("the server does not expose its transport to drop it")
    transport.close()
    # Let the server notice the disconnect before the app returns, so it does not answer.
    for _ in range(100):
        if getattr(cycle, "disconnected", True):
            return
        await asyncio.sleep(0)


async def _disconnected(receive: Receive) -> None:
    """Return once the client has gone (request body messages still unread are skipped)."""
    while (await receive())["type"] != "http.disconnect":
        continue


class _Captured:
    """A response the app produced, held back so a fault can mangle its delivery."""

    def __init__(self) -> None:
        self.status = 500
        self.headers: list[tuple[bytes, bytes]] = []
        self.body = bytearray()

    async def send(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            self.status = int(message["status"])
            self.headers = list(message.get("headers", []))
        elif message["type"] == "http.response.body":
            self.body += message.get("body", b"")

    def headers_with_length(self, length: int) -> list[tuple[bytes, bytes]]:
        """The captured headers with Content-Length set to ``length``."""
        kept = [(k, v) for k, v in self.headers if k.lower() != b"content-length"]
        return [*kept, (b"content-length", str(length).encode())]


async def _send_json(
    send: Send, status: int, payload: dict[str, Any], headers: list[tuple[str, str]]
) -> None:
    """A complete JSON response."""
    body = json.dumps(payload).encode()
    raw_headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(body))]
    raw_headers += [(k.encode(), v.encode()) for k, v in headers]
    await send({"type": "http.response.start", "status": status, "headers": raw_headers})
    await send({"type": "http.response.body", "body": body, "more_body": False})


class FaultMiddleware:
    """ASGI middleware applying :class:`Faults` (outermost, before auth and routing)."""

    def __init__(
        self, app: App, faults: Faults, on_request: Callable[[Scope], None] | None = None
    ) -> None:
        self.app = app
        self.faults = faults
        self.on_request = on_request
        # Set while the server stops, so injected waits end at once instead of holding it up.
        self.stopping = threading.Event()

    async def _sleep(self, seconds: float) -> bool:
        """Sleep up to ``seconds``; ``False`` when cut short because the server stops."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + seconds
        while not self.stopping.is_set():
            left = deadline - loop.time()
            if left <= 0:
                return True
            await asyncio.sleep(min(left, 0.05))
        return False

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if self.on_request is not None:
            self.on_request(scope)
        latency, fault = self.faults.take(scope["path"])
        network = self.faults.network
        latency += network.latency_s
        if latency > 0 and not await self._sleep(latency):
            await _close_connection(send)
            return
        if fault is None and network.shapes_bodies:
            captured = _Captured()
            await self.app(scope, receive, captured.send)
            await self._send_over_link(network, captured, send)
        elif fault is None:
            await self.app(scope, receive, send)
        elif fault.kind == "status":
            payload = fault.body or {"error": f"Injected failure (HTTP {fault.status})"}
            await _send_json(send, fault.status, payload, fault.headers)
        elif fault.kind == "redirect":
            query = scope.get("query_string", b"").decode()
            location = fault.location + scope["path"] + (f"?{query}" if query else "")
            await _send_json(send, fault.status, {"error": "moved"}, [("location", location)])
        elif fault.kind == "drop":
            await _close_connection(send)
        elif fault.kind == "rewrite":
            await _deliver_rewritten(fault, self.app, scope, receive, send)
        else:
            captured = _Captured()
            await self.app(scope, receive, captured.send)
            await self._deliver_badly(fault, captured, receive, send)

    async def _send_over_link(self, network: NetworkShape, captured: _Captured, send: Send) -> None:
        """Send a produced response at the link's bandwidth, shared with every other one."""
        body = bytes(captured.body)
        headers = captured.headers_with_length(len(body))
        await send({"type": "http.response.start", "status": captured.status, "headers": headers})
        loop = asyncio.get_running_loop()
        step = network.chunk_bytes()
        for start in range(0, len(body), step):
            piece = body[start : start + step]
            crossed_at = network.reserve(len(piece), loop.time())
            if not await self._sleep(crossed_at - loop.time()):
                await _close_connection(send)
                return
            last = start + step >= len(body)
            await send({"type": "http.response.body", "body": piece, "more_body": not last})
        if not body:
            await send({"type": "http.response.body", "body": b"", "more_body": False})

    async def _unreadable_success(
        self, fault: Fault, body: bytes, receive: Receive, send: Send
    ) -> None:
        """A 2xx the client cannot read, after the app did its work (see unreadable_success)."""
        sent = _GARBAGE_BODY if fault.mode == "garbage" else body[: max(1, len(body) // 2)]
        length = len(sent) if fault.mode == "garbage" else len(body)
        headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % length)]
        await send({"type": "http.response.start", "status": fault.status, "headers": headers})
        await send({"type": "http.response.body", "body": sent, "more_body": fault.mode == "stall"})
        if fault.mode == "garbage":
            return
        gone = asyncio.ensure_future(_disconnected(receive))
        try:
            while not gone.done() and not self.stopping.is_set():
                await asyncio.wait({gone}, timeout=0.05)
        finally:
            gone.cancel()
        await _close_connection(send)

    async def _deliver_badly(
        self, fault: Fault, captured: _Captured, receive: Receive, send: Send
    ) -> None:
        """Deliver a produced response the way ``fault`` says (lost, truncated, dripped)."""
        body = bytes(captured.body)
        if fault.kind == "lose":
            await _close_connection(send)
            return
        if fault.kind == "unreadable":
            await self._unreadable_success(fault, body, receive, send)
            return
        if fault.kind == "truncate" and fault.mode == "json":
            cut = body[: max(1, len(body) // 2)]
            headers = captured.headers_with_length(len(cut))
            await send(
                {"type": "http.response.start", "status": captured.status, "headers": headers}
            )
            await send({"type": "http.response.body", "body": cut, "more_body": False})
            return
        headers = captured.headers_with_length(len(body))
        await send({"type": "http.response.start", "status": captured.status, "headers": headers})
        if fault.kind == "truncate":
            await send(
                {"type": "http.response.body", "body": body[: len(body) // 2], "more_body": True}
            )
            await _close_connection(send)
            return
        # Drip: stop as soon as the client gives up (receive() reports the disconnect).
        gone = asyncio.ensure_future(_disconnected(receive))
        try:
            for start in range(0, len(body), fault.chunk):
                if gone.done():
                    return
                piece = body[start : start + fault.chunk]
                last = start + fault.chunk >= len(body)
                await send({"type": "http.response.body", "body": piece, "more_body": not last})
                if not last:
                    await asyncio.wait({gone}, timeout=fault.interval_s)
                    if self.stopping.is_set():
                        await _close_connection(send)
                        return
        finally:
            gone.cancel()


async def _deliver_rewritten(
    fault: Fault, app: App, scope: Scope, receive: Receive, send: Send
) -> None:
    """Produce the response, then send ``fault.rewrite`` of its body in one piece."""
    captured = _Captured()
    await app(scope, receive, captured.send)
    assert fault.rewrite is not None
    body = fault.rewrite(bytes(captured.body))
    headers = captured.headers_with_length(len(body))
    await send({"type": "http.response.start", "status": captured.status, "headers": headers})
    await send({"type": "http.response.body", "body": body, "more_body": False})
