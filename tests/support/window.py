"""The real window for tests: the ``window_factory`` fixture and ``seeded_cache``.

Every test may ask for ``window_factory`` by name (``tests/conftest.py`` registers this module
as a plugin). It builds the window through the app's own factory (``app.build_main_window``) on
one data folder and one QSettings file of the test, shows it, and shuts it down after the test::

    def test_x(window_factory, emulator):
        context = window_factory(server=emulator)  # an AppContext

``seeded_cache(folder_or_path, library)`` writes a library into a real ``cache.db`` through
the real writer, as a sync would: its items, saved views and feeds, all searchable.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, Protocol

import pytest

from memex_desktop import paths
from memex_desktop.api.client import MemexClient
from memex_desktop.api.models import Feed, SearchRawResponse, View
from memex_desktop.settings import Settings
from memex_desktop.store import StoreWriter
from memex_desktop.sync import OutboxPolicy

if TYPE_CHECKING:
    from memex_desktop.app import AppContext

# Fast backoff: the outbox keeps its schedule, only the waits are short.
FAST_OUTBOX = OutboxPolicy(base_delay_s=0.01, max_delay_s=0.05, max_drain_wait_s=5.0)
SETTLE_TIMEOUT_MS = 10_000


class Server(Protocol):
    """What a window needs to know of a Memex server (the emulator, in a thread or a process)."""

    @property
    def base_url(self) -> str: ...

    @property
    def api_key(self) -> str: ...


def _no_sleep(_seconds: float) -> None:
    """Retries in tests do not wait."""


def fast_failing_client(server: Server) -> MemexClient:
    """A client for ``server`` that retries once, without waiting, and gives up within 10 s."""
    return MemexClient(
        server.base_url, api_key=server.api_key, max_retries=1, deadline_s=10.0, sleep=_no_sleep
    )


def windows_on_screen() -> list[Any]:
    """The app's main windows (or frames) shown now."""
    from PySide6.QtWidgets import QApplication

    from memex_desktop.ui.main_window import MainWindow

    return [
        widget
        for widget in QApplication.topLevelWidgets()
        if isinstance(widget, MainWindow) and widget.isVisible()
    ]


def command_args(data_dir: Path, **flags: Any) -> SimpleNamespace:
    """The parsed options ``memex-desktop --data-dir DATA_DIR`` hands to ``app.open_window``,
    with ``flags`` (``demo``, ``quit_after_sync``, ``api_url`` ...) changing them."""
    options = {"api_url": None, "api_key": None, "demo": False, "quit_after_sync": False}
    return SimpleNamespace(**{**options, "data_dir": data_dir, **flags})


def seeded_cache(
    folder_or_path: Path,
    library: Mapping[str, Any] | None = None,
    *,
    sync_state: Mapping[str, str] | None = None,
) -> Path:
    """Write ``library`` (and ``sync_state``) into a real cache; the path of its ``cache.db``.

    ``folder_or_path`` is a data folder or the ``.db`` file itself; the index is flushed, so
    search finds every item.
    """
    if folder_or_path.suffix == ".db":
        path = folder_or_path
    else:
        folder_or_path.mkdir(parents=True, exist_ok=True)
        path = paths.cache_db_path(folder_or_path)
    writer = StoreWriter(path)
    try:
        if library is not None:
            writer.ingest_search_page(SearchRawResponse.model_validate(library)).result(30)
            views = [View.model_validate(view) for view in library.get("views", [])]
            writer.upsert_views(views).result(30)
            feeds = [Feed.model_validate(feed) for feed in library.get("feeds", [])]
            writer.upsert_feeds(feeds).result(30)
        for key, value in (sync_state or {}).items():
            writer.set_sync_state(key, value).result(30)
        writer.flush_index().result(30)
    finally:
        writer.close()
    return path


class WindowFactory:
    """Builds windows on one data folder and one QSettings file; a new one replaces the last.

    The app runs one window per data folder, so building another (a restart) shuts the
    previous one down first; the last is shut down after the test.
    """

    def __init__(self, qtbot: Any, folder: Path) -> None:
        self.qtbot = qtbot
        self.data_dir = folder / "data"
        self.qsettings_path = folder / "window.ini"
        self.built: list[AppContext] = []

    def __call__(
        self,
        *,
        library: Mapping[str, Any] | None = None,
        server: Server | None = None,
        client: MemexClient | None = None,
        api_url: str | None = None,
        settings: Settings | None = None,
        sync_on_start: bool = False,
    ) -> AppContext:
        """The shown window (its ``AppContext``); without a start-up sync, once its reads landed.

        Args:
            library: written into the cache first (``seeded_cache``).
            server: talked to by a fast-failing client (``fast_failing_client``).
            client: a ready client instead (``server`` and ``api_url`` are then unused).
            api_url: the API to resolve credentials for when there is neither.
            settings: the person's settings (default: the defaults).
            sync_on_start: the window starts a sync at once (the test waits for it).
        """
        # The window's modules load only for the tests that build one.
        from PySide6.QtCore import QSettings

        from memex_desktop.app import build_main_window

        self.shutdown()
        if library is not None:
            seeded_cache(self.data_dir, library)
        if client is None and server is not None:
            client = fast_failing_client(server)
        qsettings = QSettings(str(self.qsettings_path), QSettings.Format.IniFormat)
        context = build_main_window(
            data_dir=self.data_dir,
            api_url=api_url,
            settings=settings,
            client=client,
            qsettings=qsettings,
            outbox_policy=FAST_OUTBOX,  # the outbox retries after milliseconds, not seconds
            sync_on_start=sync_on_start,
        )
        self.built.append(context)
        context.controller.set_interval(0)  # no periodic sync: each test starts its own
        self.qtbot.addWidget(context.window)
        context.window.show()
        if not sync_on_start:
            self.qtbot.waitUntil(
                lambda: context.runner.active_count() == 0, timeout=SETTLE_TIMEOUT_MS
            )
        return context

    def shutdown(self) -> None:
        """Shut down every window built so far (each only once)."""
        for context in self.built:
            context.shutdown()


@pytest.fixture
def window_factory(qtbot: Any, tmp_path: Path) -> Iterator[WindowFactory]:
    """Builds the real window (``WindowFactory``); shut down after the test."""
    factory = WindowFactory(qtbot, tmp_path)
    yield factory
    factory.shutdown()


@pytest.fixture
def app_style(qapp: Any) -> Iterator[None]:
    """The app's own style sheet, as ``create_application`` sets it (paddings change sizes):
    modules that measure the window use it with ``pytest.mark.usefixtures("app_style")``."""
    from memex_desktop.ui.palette import LIGHT
    from memex_desktop.ui.theme import app_stylesheet

    qapp.setStyleSheet(app_stylesheet(LIGHT))
    yield
    qapp.setStyleSheet("")


@pytest.fixture(scope="module")
def demo_library() -> dict[str, Any]:
    """The demo library: real titles, tags (such as "local-first"), views and feeds."""
    text = paths.resource_path("demo", "library.json").read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return data
