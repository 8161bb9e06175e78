"""The emulator's network shape: a latency on every request, one link of limited bandwidth."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
from support.emulator import EmulatorFactory, http_client

from memex_desktop.emulator import EmulatorConfig, RunningEmulator
from memex_desktop.emulator.faults import NetworkShape


def _timed_search(client: httpx.Client) -> tuple[float, int]:
    """Seconds and body bytes of one listing page."""
    started = time.monotonic()
    response = client.post("/search", json={"query": "", "raw": True, "limit": 100})
    elapsed = time.monotonic() - started
    assert response.status_code == 200
    response.json()  # the whole body arrived, intact
    return elapsed, len(response.content)


def _at_once(emulator: RunningEmulator, count: int) -> tuple[float, list[tuple[float, int]]]:
    """``count`` listing pages asked for at once: seconds until all came, and each one's."""
    clients = [http_client(emulator) for _ in range(count)]
    try:
        with ThreadPoolExecutor(count) as pool:
            started = time.monotonic()
            timings = list(pool.map(_timed_search, clients))
            return time.monotonic() - started, timings
    finally:
        for client in clients:
            client.close()


def test_every_request_waits_the_latency_and_requests_overlap(
    emulator_factory: EmulatorFactory,
) -> None:
    emulator = emulator_factory(latency_ms=300)
    together, timings = _at_once(emulator, 4)
    assert all(elapsed >= 0.3 for elapsed, _ in timings)
    # A latency, not a queue: the waits overlap.
    assert together < 0.6 * sum(elapsed for elapsed, _ in timings)
    emulator.faults.clear()  # test switches go; the network shape stays
    assert _at_once(emulator, 1)[0] >= 0.3


def test_responses_share_one_link_of_the_bandwidth(emulator_factory: EmulatorFactory) -> None:
    emulator = emulator_factory(bandwidth_kbps=800)  # 100 kB/s
    _, [(elapsed, size)] = _at_once(emulator, 1)
    assert size > 5_000
    assert elapsed >= 0.9 * size / 100_000
    together, timings = _at_once(emulator, 2)
    assert together >= 0.9 * sum(size for _, size in timings) / 100_000


def test_the_shape_is_checked() -> None:
    with pytest.raises(ValueError, match="negative"):
        EmulatorConfig(latency_ms=-1)
    with pytest.raises(ValueError, match="negative"):
        NetworkShape(0.0, -5.0)
    assert NetworkShape.of(200, 8).bandwidth_bytes_per_s == 1000
