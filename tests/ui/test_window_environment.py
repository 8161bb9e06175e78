"""The window honours the official plugins' environment variables, as the command line does.

It is started as ``memex-desktop`` starts it (:func:`memex_desktop.app.open_window`, what
``run_gui`` does before the event loop), so the first-run choice, the credentials and the
settings are the ones a person gets.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import keyring
import pytest
from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QLabel, QPushButton
from support.keyrings import MemoryKeyring
from support.oauth import OAuthEmulator, ScriptedBrowser
from support.secrets import TEST_API_KEY, TEST_BEARER_TOKEN, TEST_USER_ID
from support.window import WindowFactory, command_args

from memex_desktop import app, services, signin
from memex_desktop.app import OpenedWindow, open_window
from memex_desktop.emulator import RunningEmulator
from memex_desktop.errors import ConnectionState, Credential
from memex_desktop.paths import cache_db_path, outbox_db_path
from memex_desktop.secrets import API_KEY_ACCOUNT, SERVICE_NAME, CredentialStore
from memex_desktop.settings import CONNECTION_ENV_VARS, Settings
from memex_desktop.store import Outbox, StoreWriter
from memex_desktop.sync import SyncOutcome
from memex_desktop.ui.dialogs import FirstRunDialog
from memex_desktop.ui.status_bar import CONNECTING

pytestmark = [pytest.mark.gui, pytest.mark.qt_log_ignore("propagateSizeHints")]


@pytest.fixture(autouse=True)
def _no_connection_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """The developer's own Memex variables never reach these tests."""
    for name in CONNECTION_ENV_VARS:
        monkeypatch.delenv(name, raising=False)


class Dialogs:
    """Records the dialogs a start opens instead of showing them (nobody answers in a test)."""

    def __init__(self, first_run_answer: int) -> None:
        self.first_run_answer = first_run_answer
        self.first_run = 0
        self.settings = 0


@pytest.fixture
def dialogs(monkeypatch: pytest.MonkeyPatch) -> Dialogs:
    """The first-run choice and the settings dialog, recorded; the first run answers Connect."""
    seen = Dialogs(FirstRunDialog.CONNECT)

    def first_run(_dialog: FirstRunDialog) -> int:
        seen.first_run += 1
        return seen.first_run_answer

    def settings(*_args: Any, **_kwargs: Any) -> bool:
        seen.settings += 1
        return False

    monkeypatch.setattr(FirstRunDialog, "exec", first_run)
    monkeypatch.setattr(app, "show_settings_dialog", settings)
    return seen


@pytest.fixture
def start(qtbot: Any, tmp_path: Path, dialogs: Dialogs) -> Iterator[Any]:
    """``start(**flags)``: the window as ``memex-desktop`` opens it, on this test's data
    (its dialogs recorded, never shown)."""
    del dialogs
    opened: list[OpenedWindow] = []

    def open_as_the_command_does(**flags: Any) -> OpenedWindow:
        result = open_window(command_args(tmp_path / "data", **flags))
        assert isinstance(result, OpenedWindow)
        result.context.controller.set_interval(0)
        qtbot.addWidget(result.context.window)
        opened.append(result)
        return result

    yield open_as_the_command_does
    for result in opened:
        result.context.shutdown()


def test_window_syncs_with_the_bearer_token_and_base_url_of_the_environment(
    qtbot: Any,
    emulator: RunningEmulator,
    window_factory: WindowFactory,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("MEMEX_BEARER_TOKEN", TEST_BEARER_TOKEN)
    monkeypatch.setenv("MEMEX_API_BASE_URL", emulator.base_url)
    monkeypatch.setenv("MEMEX_API_URL", "http://127.0.0.1:9/not-this-one")
    monkeypatch.setenv("MEMEX_API_KEY", "not-this-one")
    context = window_factory(sync_on_start=True)
    assert context.client is not None
    assert context.client.auth_mode == "bearer"
    assert context.client.base_url == emulator.base_url
    with qtbot.waitSignal(context.controller.sync_finished, timeout=60_000) as done:
        pass  # build_main_window started the sync
    assert done.args[0].outcome is SyncOutcome.OK
    assert emulator.state.requests
    assert all(r.has_bearer and not r.has_api_key for r in emulator.state.requests)


def test_window_uses_the_api_key_user_id_and_mcp_url_of_the_environment(
    qtbot: Any,
    emulator: RunningEmulator,
    window_factory: WindowFactory,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("MEMEX_API_KEY", TEST_API_KEY)
    monkeypatch.setenv("MEMEX_USER_ID", TEST_USER_ID)
    monkeypatch.setenv("MEMEX_MCP_URL", emulator.base_url + "/mcp")
    context = window_factory(sync_on_start=True)
    assert context.client is not None
    assert context.client.auth_mode == "api-key"
    assert context.client.base_url == emulator.base_url
    with qtbot.waitSignal(context.controller.sync_finished, timeout=60_000) as done:
        pass  # build_main_window started the sync
    assert done.args[0].outcome is SyncOutcome.OK
    assert all(r.has_api_key and r.has_user_id for r in emulator.state.requests)


@pytest.mark.parametrize("name", ["MEMEX_API_KEY", "MEMEX_BEARER_TOKEN"])
def test_an_environment_credential_is_not_a_first_run(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    credentials = CredentialStore()
    assert not Settings.path().exists()
    assert services.first_run(services.connect(Settings(), key_store=credentials))
    monkeypatch.setenv(name, "from-the-environment")
    assert not services.first_run(services.connect(Settings(), key_store=credentials))


def test_a_key_in_the_environment_opens_the_window_without_asking_and_syncs_with_it(
    qtbot: Any,
    emulator: RunningEmulator,
    dialogs: Dialogs,
    start: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("MEMEX_API_KEY", TEST_API_KEY)
    monkeypatch.setenv("MEMEX_API_URL", emulator.base_url)
    assert not Settings.path().exists()  # a first start, but for the key
    opened = start()
    context = opened.context
    with qtbot.waitSignal(context.controller.sync_finished, timeout=60_000) as done:
        pass  # the window started its first sync
    assert (dialogs.first_run, dialogs.settings, opened.connect_now) == (0, 0, False)
    assert done.args[0].outcome is SyncOutcome.OK
    assert context.client is not None
    assert context.client.base_url == emulator.base_url
    assert emulator.state.requests
    assert all(r.has_api_key and not r.has_bearer for r in emulator.state.requests)
    assert context.controller.services.credential == Credential("api_key", "MEMEX_API_KEY")
    assert context.reader.counts_by_type()


def test_a_remembered_sign_in_is_not_a_first_run(
    oauth_emulator: OAuthEmulator, dialogs: Dialogs, start: Any
) -> None:
    env = oauth_emulator
    browser = ScriptedBrowser()
    signin.sign_in(env.base_url, open_browser=browser, timeout_s=20.0, clock=env.clock).close()
    browser.join()
    assert not Settings.path().exists()  # signed in from the command line, never configured
    opened = start(api_url=env.base_url)
    assert (dialogs.first_run, dialogs.settings, opened.connect_now) == (0, 0, False)
    assert opened.context.provider is not None
    assert opened.context.controller.services.credential == Credential("sign_in")


def test_without_any_credential_the_first_start_offers_the_choice(
    dialogs: Dialogs, start: Any
) -> None:
    opened = start()
    assert dialogs.first_run == 1
    assert opened.context.client is None
    assert opened.connect_now  # run_gui opens the settings once the event loop runs
    assert not opened.start_sign_in


def test_not_now_opens_the_library_and_is_not_asked_again(
    dialogs: Dialogs, start: Any, tmp_path: Path
) -> None:
    data = tmp_path / "data"
    data.mkdir()
    with StoreWriter(cache_db_path(data)) as writer:
        writer.ingest_json(
            [{"id": "w1", "type": "web", "title": "Kept", "url": "https://a.example/"}]
        )
    shown: list[FirstRunDialog] = []

    def first_run(dialog: FirstRunDialog) -> int:
        shown.append(dialog)
        return FirstRunDialog.LATER

    dialogs_answer = pytest.MonkeyPatch()
    dialogs_answer.setattr(FirstRunDialog, "exec", first_run)
    try:
        opened = start()
        assert len(shown) == 1
        text = " ".join(label.text() for label in shown[0].findChildren(QLabel))
        assert "already holds 1 saved item:" in text
        assert not opened.connect_now  # no settings dialog opened over the library
        assert Settings.path().exists()  # chosen once
        assert opened.context.window.results_model.rowCount() == 1
        opened.context.shutdown()
        start()
        assert len(shown) == 1  # a later start opens the library without asking
    finally:
        dialogs_answer.undo()


def test_escape_on_the_welcome_is_not_now(qtbot: Any) -> None:
    dialog = FirstRunDialog()
    qtbot.addWidget(dialog)
    names = [button.text() for button in dialog.findChildren(QPushButton)]
    assert names[-1] == "Not now"
    dialog.show()
    QTest.keyClick(dialog, Qt.Key.Key_Escape)
    assert dialog.result() == FirstRunDialog.LATER
    assert dialog.minimumWidth() > dialog.fontMetrics().horizontalAdvance(dialog.windowTitle())


class _Painted(QObject):
    """Notes the first paint of the widget it watches in a shared list of events."""

    def __init__(self, events: list[str]) -> None:
        super().__init__()
        self.events = events

    def eventFilter(self, _watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        if event.type() == QEvent.Type.Paint and "painted" not in self.events:
            self.events.append("painted")
        return False


def test_a_returning_start_shows_the_library_before_it_asks_the_keyring(
    qtbot: Any,
    emulator: RunningEmulator,
    dialogs: Dialogs,
    start: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Finding the keyring loads every keyring plugin: a start with a settings file shows the
    window and its results first, then connects with the key the keyring holds, and syncs."""
    Settings(api_url=emulator.base_url, sync_interval_minutes=0).save()
    events: list[str] = []
    backend = MemoryKeyring()
    backend.set_password(SERVICE_NAME, API_KEY_ACCOUNT, TEST_API_KEY)

    def get_keyring() -> MemoryKeyring:
        events.append("keyring")
        return backend

    monkeypatch.setattr(keyring, "get_keyring", get_keyring)
    painted = _Painted(events)
    build = app.build_main_window

    def build_watched(**kwargs: Any) -> app.AppContext:
        context = build(**kwargs)
        context.window.installEventFilter(painted)
        return context

    monkeypatch.setattr(app, "build_main_window", build_watched)
    context = start().context
    assert dialogs.first_run == 0
    assert events == []  # the window is out, not yet painted; nothing asked the keyring
    assert context.client is None
    assert context.controller.state is ConnectionState.ONLINE  # never "no account" meanwhile
    assert context.window.status.state_label.text() == CONNECTING  # nor "Online" yet
    with qtbot.waitSignal(context.controller.sync_finished, timeout=60_000) as done:
        pass  # connected once the window showed its results, then synced
    assert events == ["painted", "keyring"]
    assert context.window.status.state_label.text() != CONNECTING
    assert context.client is not None
    assert context.controller.services.credential == Credential("api_key")
    assert done.args[0].outcome is SyncOutcome.OK
    assert context.window.search.shown_any


def test_the_window_backs_off_saves_as_the_settings_say(
    qtbot: Any,
    emulator: RunningEmulator,
    dialogs: Dialogs,
    start: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    Settings(outbox_max_backoff_s=7.5, sync_interval_minutes=0).save()
    monkeypatch.setenv("MEMEX_API_KEY", TEST_API_KEY)
    monkeypatch.setenv("MEMEX_API_URL", emulator.base_url)
    context = start().context
    assert dialogs.first_run == 0
    qtbot.waitUntil(lambda: context.client is not None)  # connected once the window showed
    sync = context.controller.services
    outbox = Outbox(outbox_db_path(context.data_dir))
    try:
        engine = sync.engine(context.reader, outbox)  # what every sync of the window runs
    finally:
        outbox.close()
    assert engine.outbox_policy.max_delay_s == 7.5
    assert engine.page_size == Settings().page_size


def test_building_a_window_leaves_the_interpreter_as_it_was(
    window_factory: WindowFactory,
) -> None:
    # The process tuning belongs to the entry points (run_gui, cli.main), not to a factory
    # every window test calls.
    before = (gc.get_threshold(), gc.get_freeze_count(), sys.getswitchinterval())
    window_factory()
    assert (gc.get_threshold(), gc.get_freeze_count(), sys.getswitchinterval()) == before
