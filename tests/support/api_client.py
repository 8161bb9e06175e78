"""Helpers of the API client tests: a fake clock, a recording mock transport, canned bodies."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx

from memex_desktop.api.client import MemexClient
from support.secrets import TEST_API_KEY

BASE_URL = "https://memex.test/api"


@dataclass
class FakeClock:
    """Monotonic and wall time that only move when the client sleeps or a stream drips."""

    now: float = 1000.0
    wall: float = 1_700_000_000.0
    sleeps: list[float] = field(default_factory=list)

    def monotonic(self) -> float:
        return self.now

    def time(self) -> float:
        return self.wall

    def advance(self, seconds: float) -> None:
        self.now += seconds
        self.wall += seconds

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.advance(seconds)


Handler = Callable[[httpx.Request], httpx.Response]


@dataclass
class Recorder:
    """A mock transport that answers with scripted responses and records every request."""

    responses: list[httpx.Response | Exception | Handler]
    requests: list[httpx.Request] = field(default_factory=list)

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        if not self.responses:
            raise AssertionError(f"unexpected request {request.method} {request.url}")
        item = self.responses.pop(0) if len(self.responses) > 1 else self.responses[0]
        if isinstance(item, Exception):
            raise item
        if isinstance(item, httpx.Response):
            return item
        return item(request)

    def body(self, index: int = -1) -> Any:
        """The decoded JSON body of a recorded request."""
        return json.loads(self.requests[index].content)


def json_response(status: int, body: Any, headers: dict[str, str] | None = None) -> httpx.Response:
    """A response with a JSON body."""
    return httpx.Response(status, json=body, headers=headers)


def make_client(
    recorder: Recorder, clock: FakeClock | None = None, **kwargs: Any
) -> tuple[MemexClient, FakeClock]:
    """A client on the mock transport whose sleeps and clocks are fake (no real waiting)."""
    clock = clock or FakeClock()
    kwargs.setdefault("api_key", TEST_API_KEY)
    client = MemexClient(
        kwargs.pop("base_url", BASE_URL),
        transport=httpx.MockTransport(recorder),
        sleep=clock.sleep,
        clock=clock.monotonic,
        wall_clock=clock.time,
        random=kwargs.pop("random", lambda: 1.0),
        **kwargs,
    )
    return client, clock


class DripStream(httpx.SyncByteStream):
    """A body that arrives one byte per ``interval_s`` of fake time."""

    def __init__(self, data: bytes, clock: FakeClock, interval_s: float) -> None:
        self._data = data
        self._clock = clock
        self._interval_s = interval_s

    def __iter__(self) -> Iterator[bytes]:
        for index in range(len(self._data)):
            self._clock.advance(self._interval_s)
            yield self._data[index : index + 1]


class EndlessStream(httpx.SyncByteStream):
    """A body that never ends (for the size cap); counts what was produced."""

    def __init__(self, chunk: bytes) -> None:
        self.chunk = chunk
        self.produced = 0

    def __iter__(self) -> Iterator[bytes]:
        while self.produced < 10**9:
            self.produced += len(self.chunk)
            yield self.chunk


def raw_page(count: int = 1) -> dict[str, Any]:
    """A minimal valid raw search response with ``count`` web results."""
    return {
        "results": [
            {"id": f"e{i}", "type": "web", "url": f"https://example.com/{i}", "title": f"T{i}"}
            for i in range(count)
        ],
        "extraEntities": [],
        "referencesByResultId": {},
        "referencedEntities": [],
        "referencedTags": [],
        "meta": {"offset": 0, "limit": 20, "returnedCount": count, "usageMicrosCharged": 0},
    }


PLANS = {
    "environment": "production",
    "isProduction": True,
    "defaultPlanId": "starter-10",
    "plans": [
        {
            "id": "starter-10",
            "tierId": "starter",
            "planName": "Starter",
            "pricingMode": "payg",
            "billingPeriod": "one_time",
            "variantId": 123,
            "currency": "USD",
            "amount": 10,
            "usageBalanceMicrosIncluded": 10_000_000,
            "isSubscription": False,
        }
    ],
    "recoveryHint": "Buy usage balance to continue.",
}
