"""Helpers for sync and CLI tests: an engine wired to an emulator, and the CLI as a subprocess."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from memex_desktop import paths
from memex_desktop.api.client import MemexClient
from memex_desktop.settings import CONNECTION_ENV_VARS
from memex_desktop.store import CacheReader, Outbox, StoreWriter
from memex_desktop.sync import OutboxPolicy, SyncEngine

# Fast backoff for tests: the schedule is the same, only the waits are short.
FAST_POLICY = OutboxPolicy(base_delay_s=0.01, max_delay_s=0.05, max_drain_wait_s=30.0)


@dataclass
class SyncHarness:
    """A data folder with its writer, reader, outbox, client and engine."""

    data_dir: Path
    base_url: str
    api_key: str
    page_size: int = 50
    policy: OutboxPolicy = FAST_POLICY
    client_retries: int = 1
    opened: list[Any] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.writer = StoreWriter(paths.cache_db_path(self.data_dir))
        self.reader = CacheReader(paths.cache_db_path(self.data_dir))
        self.outbox = Outbox(paths.outbox_db_path(self.data_dir))
        self.client = MemexClient(
            self.base_url,
            api_key=self.api_key,
            max_retries=self.client_retries,
            deadline_s=20.0,
            sleep=lambda _s: None,
        )
        self.engine = self.new_engine()

    def new_engine(self, **options: Any) -> SyncEngine:
        """A fresh engine over the same stores (another 'launch')."""
        kwargs: dict[str, Any] = {"page_size": self.page_size, "outbox_policy": self.policy}
        kwargs.update(options)
        return SyncEngine(self.client, self.writer, self.outbox, reader=self.reader, **kwargs)

    def flush(self) -> None:
        """Wait until search sees everything written so far."""
        self.writer.flush_index().result()

    def close(self) -> None:
        """Close everything (the writer last: it drains its queue)."""
        self.client.close()
        self.reader.close()
        self.outbox.close()
        self.writer.close()


@pytest.fixture
def harness_factory(tmp_path: Path) -> Iterator[Any]:
    """Builds harnesses for an emulator; closes them after the test."""
    made: list[SyncHarness] = []

    def make(base_url: str, api_key: str, name: str = "data", **options: Any) -> SyncHarness:
        harness = SyncHarness(tmp_path / name, base_url, api_key, **options)
        made.append(harness)
        return harness

    yield make
    for harness in made:
        harness.close()


def cli_command(*args: str) -> list[str]:
    """The argv running memex-desktop in a fresh interpreter."""
    return [sys.executable, "-m", "memex_desktop", *args]


def cli_env(api_key: str | None = None, **extra: str) -> dict[str, str]:
    """The environment of a CLI subprocess (the test's private HOME; the key via MEMEX_API_KEY)."""
    env = dict(os.environ)
    root = paths.source_tree_dir()
    if root is not None:
        env["PYTHONPATH"] = str(root) + os.pathsep + env.get("PYTHONPATH", "")
    # Nothing of the developer's own connection may leak in (URL, key, token, user id).
    for name in CONNECTION_ENV_VARS:
        env.pop(name, None)
    if api_key is not None:
        env["MEMEX_API_KEY"] = api_key
    env.update(extra)
    return env


def run_cli(
    *args: str, api_key: str | None = None, timeout: float = 120.0, **extra: str
) -> subprocess.CompletedProcess[str]:
    """Run memex-desktop to completion, capturing its output."""
    return subprocess.run(
        cli_command(*args),
        env=cli_env(api_key, **extra),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def integrity_ok(path: Path) -> bool:
    """``PRAGMA integrity_check`` of a database file is ``ok`` (or the file does not exist)."""
    if not path.exists():
        return True
    connection = sqlite3.connect(path)
    try:
        rows = connection.execute("PRAGMA integrity_check").fetchall()
    finally:
        connection.close()
    return rows == [("ok",)]


def library_ids(library: dict[str, Any]) -> set[str]:
    """Every entity id of a library file."""
    return {entity["id"] for entity in library["results"]}


@contextmanager
def emulators(default_profile: str = "default") -> Iterator[Any]:
    """A starter of emulators serving a given library (fast processing), stopped on exit:
    ``start(library, profile=None, **config)``; ``profile`` defaults to ``default_profile``."""
    from memex_desktop.emulator import EmulatorConfig, run_emulator_in_thread
    from memex_desktop.emulator.config import profile_settings
    from support.secrets import TEST_API_KEY

    running: list[Any] = []

    def start(library: dict[str, Any], profile: str | None = None, **options: Any) -> Any:
        settings: dict[str, Any] = {
            "library": library,
            "api_key": TEST_API_KEY,
            "processing_delay_s": 0.0,
            "balance_micros": 10**12,
        }
        settings.update(profile_settings(profile or default_profile))
        settings.update(options)
        emulator = run_emulator_in_thread(EmulatorConfig(**settings))
        running.append(emulator)
        return emulator

    try:
        yield start
    finally:
        for emulator in running:
            emulator.close()


@pytest.fixture
def library_emulator() -> Iterator[Any]:
    """Starts emulators serving a given library (default profile); stops them after the test."""
    with emulators() as start:
        yield start
