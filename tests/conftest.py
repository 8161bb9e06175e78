"""Test-wide set-up: headless Qt, a private home for every test, strict logging of secrets.

The shared fixtures of ``tests/support`` are registered here once (``pytest_plugins``), so a
test anywhere asks for ``emulator``, ``oauth_emulator``, ``harness_factory``, ``runner`` or
``window_factory`` by name, and each test starts with a fresh token store
(``support.oauth.fresh_token_store``).
"""

from __future__ import annotations

import gc
import itertools
import logging
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

# Before anything imports PySide6: the tests never need a screen.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("HYPOTHESIS_PROFILE", "ci")
# A zone that is neither UTC nor a whole hour away from it, so a time shown in UTC somewhere
# and in local time elsewhere cannot agree by chance (POSIX: "TST-5:30" is UTC+05:30).
os.environ["TZ"] = "TST-5:30"
time.tzset()

TESTS_DIR = Path(__file__).resolve().parent
if str(TESTS_DIR) not in sys.path:
    sys.path.insert(0, str(TESTS_DIR))

import pytest  # noqa: E402
from hypothesis import HealthCheck, settings  # noqa: E402
from support.secrets import SECRETS  # noqa: E402

from memex_desktop.settings import CONNECTION_ENV_VARS  # noqa: E402
from memex_desktop.store import CacheReader, Outbox, StoreWriter  # noqa: E402

pytest_plugins = [
    "support.emulator",
    "support.oauth",
    "support.sync_env",
    "support.tasks",
    "support.window",
]

# The suite's own runs try the same examples every time (derived from each test), so a run
# fails only for a change, never for the draw; "explore" draws new examples, many more.
settings.register_profile(
    "ci",
    deadline=None,
    max_examples=150,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "explore", deadline=None, max_examples=2_000, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ["HYPOTHESIS_PROFILE"])


@pytest.fixture(autouse=True)
def _private_environment(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each test gets its own home, config and data folders, and no inherited Memex settings."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / ".local" / "share"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    for name in (*CONNECTION_ENV_VARS, "MEMEX_DATA_DIR"):
        monkeypatch.delenv(name, raising=False)
    # Tests never touch the developer's real keyring.
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")


class _RecordEverything(logging.Handler):
    """Collects every formatted log record, whatever logger emits it."""

    def __init__(self) -> None:
        super().__init__(level=logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


@pytest.fixture(autouse=True)
def _secrets_never_logged() -> Iterator[None]:
    """httpx, httpcore and every app logger run at DEBUG; no test credential may be logged."""
    handler = _RecordEverything()
    handler.setFormatter(logging.Formatter("%(name)s %(message)s %(args)s"))
    root = logging.getLogger()
    loggers = [root, *(logging.getLogger(name) for name in ("httpx", "httpcore", "memex_desktop"))]
    previous = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.DEBUG)
    root.addHandler(handler)
    try:
        yield
    finally:
        root.removeHandler(handler)
        for logger, level in zip(loggers, previous, strict=True):
            logger.setLevel(level)
    leaked = [line for line in handler.lines if any(secret in line for secret in SECRETS)]
    assert not leaked, f"a credential reached the log: {leaked[0][:200]}"


_TESTS_RUN = itertools.count()
# Every this many tests the collector also goes through the oldest objects.
_FULL_COLLECTION_EVERY = 50


@pytest.fixture(autouse=True)
def _garbage_collected_on_the_test_thread() -> Iterator[None]:
    """The garbage collector runs on the test's own thread, between tests, never on a worker.

    A collection a worker thread happens to start can destroy a Qt object caught in a
    reference cycle on that thread: its destructor takes Qt's locks, then waits for the GIL,
    while the GUI thread, holding the GIL, deletes widgets and waits for those locks. A whole
    run once hung so, in a window test.
    """
    gc.disable()
    yield
    gc.disable()  # a test that turned it on again (tests/ui/test_tasks.py)
    gc.collect(2 if next(_TESTS_RUN) % _FULL_COLLECTION_EVERY == 0 else 1)


@pytest.fixture(autouse=True)
def _stores_closed_after_each_test(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Readers, writers and outboxes a test opened and left open are closed after it.

    A writer left open keeps its thread and the file; only those opened on the test's own
    thread are closed here (a connection belongs to the thread that opened it, and worker
    threads close theirs).
    """
    opened: list[CacheReader | StoreWriter | Outbox] = []
    test_thread = threading.get_ident()
    for kind in (CacheReader, StoreWriter, Outbox):
        monkeypatch.setattr(kind, "__init__", _recording_init(kind.__init__, opened, test_thread))
    yield
    for store in reversed(opened):
        store.close()


def _recording_init(
    init: Callable[..., None], opened: list[CacheReader | StoreWriter | Outbox], test_thread: int
) -> Callable[..., None]:
    """``init`` that also records the new object when it is made on ``test_thread``."""

    def recording(self: CacheReader | StoreWriter | Outbox, *args: Any, **kwargs: Any) -> None:
        init(self, *args, **kwargs)
        if threading.get_ident() == test_thread:
            opened.append(self)

    return recording
