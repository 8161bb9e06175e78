"""A live Memex emulator on loopback for tests: the ``emulator`` and ``emulator_factory`` fixtures.

Every test may ask for them by name (``tests/conftest.py`` registers this module as a plugin).
``emulator`` serves the small built-in library (tests/fixtures/emulator/small_library.json:
every content type, notes with a three-level reply thread, a chat thread, a selector, views,
feeds) with ``TEST_API_KEY``, ``TEST_BEARER_TOKEN`` and ``TEST_USER_ID`` accepted and a short
processing delay. ``emulator_factory(library=..., profile=..., **config)`` starts more, each
stopped after the test: ``profile`` names an emulator profile (``profile_settings``) whose
switches apply before the other keyword arguments. A test that requests ``emulator_profile``
runs once per profile (ids ``default`` and ``first-party``)::

    def test_x(emulator_factory, emulator_profile):
        running = emulator_factory(profile=emulator_profile)
"""

from __future__ import annotations

import copy
import json
import time
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from typing import Any

import httpx
import pytest

from memex_desktop.emulator import EmulatorConfig, RunningEmulator
from memex_desktop.emulator.config import PROFILES, profile_settings
from support.secrets import TEST_API_KEY, TEST_BEARER_TOKEN, TEST_USER_ID

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "emulator"
SMALL_LIBRARY_PATH = FIXTURES / "small_library.json"
TEST_PROCESSING_DELAY_S = 0.05

EmulatorFactory = Callable[..., RunningEmulator]


@cache
def _small_library_text() -> str:
    return SMALL_LIBRARY_PATH.read_text(encoding="utf-8")


def small_library() -> dict[str, Any]:
    """A fresh copy of the built-in small library (safe to modify)."""
    library = json.loads(_small_library_text())
    assert isinstance(library, dict)
    return library


def small_library_ids() -> set[str]:
    """Ids of every entity of the small library."""
    return {entity["id"] for entity in small_library()["results"]}


def make_config(
    library: dict[str, Any] | None = None, profile: str = "default", **overrides: Any
) -> EmulatorConfig:
    """An emulator configuration with the test credentials and a short processing delay.

    The switches of ``profile`` apply first, then ``overrides``.
    """
    settings: dict[str, Any] = {
        "library": copy.deepcopy(library) if library is not None else small_library(),
        "api_key": TEST_API_KEY,
        "user_id": TEST_USER_ID,
        "bearer_tokens": frozenset({TEST_BEARER_TOKEN}),
        "processing_delay_s": TEST_PROCESSING_DELAY_S,
    }
    settings.update(profile_settings(profile))
    settings.update(overrides)
    return EmulatorConfig(**settings)


def api_key_headers(*, user_id: bool = False) -> dict[str, str]:
    """Headers of API-key auth (optionally with ``x-user-id``)."""
    headers = {"x-api-key": TEST_API_KEY}
    if user_id:
        headers["x-user-id"] = TEST_USER_ID
    return headers


def bearer_headers() -> dict[str, str]:
    """Headers of bearer-token auth."""
    return {"authorization": f"Bearer {TEST_BEARER_TOKEN}"}


def http_client(running: RunningEmulator, **kwargs: Any) -> httpx.Client:
    """A plain httpx client for ``running`` authenticated with the API key."""
    kwargs.setdefault("headers", api_key_headers())
    kwargs.setdefault("timeout", 10.0)
    return httpx.Client(base_url=running.base_url, **kwargs)


def wait_until(predicate: Callable[[], bool], timeout_s: float = 5.0, what: str = "") -> None:
    """Poll ``predicate`` until it holds; fail the test after ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while not predicate():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what or predicate!r}")
        time.sleep(0.01)


@pytest.fixture
def emulator() -> Iterator[RunningEmulator]:
    """A running emulator serving the small built-in library."""
    with RunningEmulator(make_config()) as running:
        yield running


@pytest.fixture(params=PROFILES, ids=list(PROFILES))
def emulator_profile(request: pytest.FixtureRequest) -> str:
    """The name of an emulator profile; a test requesting it runs once per profile."""
    name = request.param
    assert isinstance(name, str)
    return name


@pytest.fixture
def emulator_factory() -> Iterator[EmulatorFactory]:
    """Start emulators: ``factory(library=..., profile=..., **config)``."""
    started: list[RunningEmulator] = []

    def make(
        library: dict[str, Any] | None = None, profile: str = "default", **config: Any
    ) -> RunningEmulator:
        running = RunningEmulator(make_config(library, profile, **config)).start()
        started.append(running)
        return running

    yield make
    for running in started:
        running.close()
