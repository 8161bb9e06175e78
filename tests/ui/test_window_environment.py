"""The window honours the official plugins' environment variables, as the command line does."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QSettings
from support.secrets import TEST_API_KEY, TEST_BEARER_TOKEN, TEST_USER_ID

from memex_desktop.app import _first_run, build_main_window
from memex_desktop.emulator import RunningEmulator
from memex_desktop.secrets import CredentialStore
from memex_desktop.settings import CONNECTION_ENV_VARS, Settings
from memex_desktop.sync import SyncOutcome

pytestmark = pytest.mark.gui


@pytest.fixture(autouse=True)
def _no_connection_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """The developer's own Memex variables never reach these tests."""
    for name in CONNECTION_ENV_VARS:
        monkeypatch.delenv(name, raising=False)


def _window(tmp_path: Path, qtbot: Any) -> Any:
    qsettings = QSettings(str(tmp_path / "window.ini"), QSettings.Format.IniFormat)
    context = build_main_window(data_dir=tmp_path / "data", qsettings=qsettings)
    context.controller.set_interval(0)
    qtbot.addWidget(context.window)
    return context


def test_window_syncs_with_the_bearer_token_and_base_url_of_the_environment(
    qtbot: Any,
    emulator: RunningEmulator,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("MEMEX_BEARER_TOKEN", TEST_BEARER_TOKEN)
    monkeypatch.setenv("MEMEX_API_BASE_URL", emulator.base_url)
    monkeypatch.setenv("MEMEX_API_URL", "http://127.0.0.1:9/not-this-one")
    monkeypatch.setenv("MEMEX_API_KEY", "not-this-one")
    context = _window(tmp_path, qtbot)
    try:
        assert context.client is not None
        assert context.client.auth_mode == "bearer"
        assert context.client.base_url == emulator.base_url
        with qtbot.waitSignal(context.controller.sync_finished, timeout=60_000) as done:
            pass  # build_main_window started the sync
        assert done.args[0].outcome is SyncOutcome.OK
        assert emulator.state.requests
        assert all(r.has_bearer and not r.has_api_key for r in emulator.state.requests)
    finally:
        context.shutdown()


def test_window_uses_the_api_key_user_id_and_mcp_url_of_the_environment(
    qtbot: Any,
    emulator: RunningEmulator,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("MEMEX_API_KEY", TEST_API_KEY)
    monkeypatch.setenv("MEMEX_USER_ID", TEST_USER_ID)
    monkeypatch.setenv("MEMEX_MCP_URL", emulator.base_url + "/mcp")
    context = _window(tmp_path, qtbot)
    try:
        assert context.client is not None
        assert context.client.auth_mode == "api-key"
        assert context.client.base_url == emulator.base_url
        with qtbot.waitSignal(context.controller.sync_finished, timeout=60_000) as done:
            pass  # build_main_window started the sync
        assert done.args[0].outcome is SyncOutcome.OK
        assert all(r.has_api_key and r.has_user_id for r in emulator.state.requests)
    finally:
        context.shutdown()


@pytest.mark.parametrize("name", ["MEMEX_API_KEY", "MEMEX_BEARER_TOKEN"])
def test_an_environment_credential_is_not_a_first_run(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    credentials = CredentialStore()
    assert not Settings.path().exists()
    assert _first_run(Settings(), credentials, None)
    monkeypatch.setenv(name, "from-the-environment")
    assert not _first_run(Settings(), credentials, None)
