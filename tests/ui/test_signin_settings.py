"""Sign in with Memex from the settings dialog: browser via the GUI thread, sync, sign out."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QObject, QUrl, Slot
from PySide6.QtGui import QDesktopServices
from support.oauth import OAuthEmulator, ScriptedBrowser
from support.window import WindowFactory

from memex_desktop import paths, signin
from memex_desktop.api import oauth
from memex_desktop.app import apply_sign_in
from memex_desktop.errors import user_message
from memex_desktop.settings import Settings
from memex_desktop.sync import SyncOutcome
from memex_desktop.ui.dialogs import FirstRunDialog, SettingsDialog
from memex_desktop.ui.messages import message_line
from memex_desktop.ui.tasks import TaskRunner

pytestmark = pytest.mark.qt_log_ignore("propagateSizeHints")


class BrowserStandIn(QObject):
    """The desktop's URL handler for http(s): records the URL and follows it like a browser."""

    def __init__(self, browser: ScriptedBrowser) -> None:
        super().__init__()
        self.browser = browser
        self.urls: list[str] = []

    @Slot(QUrl)
    def open_url(self, url: QUrl) -> None:
        self.urls.append(url.toString())
        self.browser(url.toString())


@pytest.fixture
def browser_handler() -> Any:
    """QDesktopServices hands http URLs to a scripted browser for the test's duration."""
    stand_in = BrowserStandIn(ScriptedBrowser())
    QDesktopServices.setUrlHandler("http", stand_in, "open_url")
    yield stand_in
    QDesktopServices.unsetUrlHandler("http")


def _dialog(context: Any, env: OAuthEmulator, qtbot: Any) -> SettingsDialog:
    sign_in = functools.partial(signin.sign_in, clock=env.clock, timeout_s=20.0)
    dialog = SettingsDialog(
        context.settings,
        has_key=False,
        key_in_memory_only=True,
        runner=context.runner,
        provider=context.provider,
        sign_in=sign_in,
    )
    qtbot.addWidget(dialog)
    dialog.api_url.setText(env.base_url)
    return dialog


def test_sign_in_from_settings_then_sync_with_the_bearer_and_sign_out(
    qtbot: Any,
    oauth_emulator: OAuthEmulator,
    browser_handler: BrowserStandIn,
    window_factory: WindowFactory,
) -> None:
    env = oauth_emulator
    context = window_factory(api_url=env.base_url)
    assert context.client is None
    assert context.provider is None
    dialog = _dialog(context, env, qtbot)
    panel = dialog.sign_in
    assert panel is not None
    with qtbot.waitSignal(panel.signed_in, timeout=30_000):
        panel.sign_in_button.click()
        assert panel.is_running()
    assert browser_handler.urls
    assert "/oauth/" in browser_handler.urls[0]
    assert panel.state.text() == "Signed in with Memex."
    assert panel.sign_out_button.isVisibleTo(dialog)

    apply_sign_in(context, dialog.provider)
    assert context.client is not None
    assert context.client.auth_mode == "bearer"
    assert "Signed in" in context.window.status.currentMessage()
    with qtbot.waitSignal(context.controller.sync_finished, timeout=60_000) as done:
        pass  # apply_sign_in started the sync
    assert done.args[0].outcome is SyncOutcome.OK
    api_calls = [
        r for r in env.running.state.requests if not r.path.startswith(("/.well-known/", "/oauth/"))
    ]
    assert api_calls
    assert all(r.has_bearer and not r.has_api_key for r in api_calls)
    assert context.reader.counts_by_type()

    with qtbot.waitSignal(panel.signed_out, timeout=5_000):
        panel.sign_out_button.click()
    qtbot.waitUntil(
        lambda: oauth.load_tokens(signin.default_secret_store(), env.base_url) is None,
        timeout=10_000,
    )
    assert signin.token_provider(env.base_url) is None
    apply_sign_in(context, dialog.provider)
    assert context.client is None
    assert "Signed out" in context.window.status.currentMessage()


def test_cancel_stops_waiting_for_the_browser(
    qtbot: Any,
    oauth_emulator: OAuthEmulator,
    browser_handler: BrowserStandIn,
    window_factory: WindowFactory,
) -> None:
    browser_handler.browser.follow = False  # the person never finishes in the browser
    context = window_factory(api_url=oauth_emulator.base_url)
    dialog = _dialog(context, oauth_emulator, qtbot)
    panel = dialog.sign_in
    assert panel is not None
    panel.sign_in_button.click()
    qtbot.waitUntil(lambda: not panel.url.isHidden(), timeout=20_000)
    assert "/oauth/" in panel.url.text()  # the address to copy when no browser opened
    with qtbot.waitSignal(panel.sign_in_failed, timeout=20_000) as failed:
        panel.cancel_button.click()
    assert failed.args == ["Sign-in cancelled."]
    assert not panel.is_running()
    assert dialog.provider is None


def test_signed_in_at_start_uses_the_stored_sign_in(
    qtbot: Any,
    oauth_emulator: OAuthEmulator,
    window_factory: WindowFactory,
) -> None:
    env = oauth_emulator
    browser = ScriptedBrowser()
    signin.sign_in(env.base_url, open_browser=browser, timeout_s=20.0, clock=env.clock).close()
    browser.join()
    context = window_factory(api_url=env.base_url)
    assert context.provider is not None
    assert context.client is not None
    assert context.client.auth_mode == "bearer"


def test_first_run_offers_sign_in_first(qtbot: Any) -> None:
    dialog = FirstRunDialog()
    qtbot.addWidget(dialog)
    from PySide6.QtWidgets import QPushButton

    names = [b.text() for b in dialog.findChildren(QPushButton)]
    assert names[:2] == ["Sign in with Memex", "Use an API key"]


def test_a_refused_sign_in_says_why_in_the_persons_words(qtbot: Any) -> None:
    refused = oauth.SignInDenied("access was denied in the browser")

    def sign_in(api_url: str, **_kwargs: Any) -> oauth.TokenProvider:
        raise refused

    runner = TaskRunner(max_threads=1)
    try:
        dialog = SettingsDialog(
            Settings(), has_key=False, key_in_memory_only=True, runner=runner, sign_in=sign_in
        )
        qtbot.addWidget(dialog)
        panel = dialog.sign_in
        assert panel is not None
        with qtbot.waitSignal(panel.sign_in_failed, timeout=10_000) as failed:
            panel.sign_in_button.click()
        words = message_line(user_message(refused))
        assert failed.args == [words]
        assert "access was denied" in words
        assert "use an API key instead" in words
        assert panel.state.text() == words
        assert not panel.is_running()
        assert panel.sign_in_button.isEnabled()
    finally:
        assert runner.shutdown()


def test_the_settings_say_which_data_folder_this_window_reads(qtbot: Any, tmp_path: Path) -> None:
    from PySide6.QtWidgets import QLabel

    elsewhere = tmp_path / "elsewhere"
    dialog = SettingsDialog(
        Settings(), has_key=False, key_in_memory_only=True, data_dir_in_use=elsewhere
    )
    qtbot.addWidget(dialog)
    note = dialog.findChild(QLabel, "datafoldernote")
    assert str(elsewhere) in note.text()
    assert dialog.data_dir.placeholderText() == str(paths.default_data_dir())
    usual = SettingsDialog(
        Settings(),
        has_key=False,
        key_in_memory_only=True,
        data_dir_in_use=Settings().effective_data_dir(),
    )
    qtbot.addWidget(usual)
    assert usual.findChild(QLabel, "datafoldernote").text().startswith("A new data folder")


def test_a_server_chosen_for_the_session_is_said_under_its_field(qtbot: Any) -> None:
    from PySide6.QtWidgets import QLabel

    dialog = SettingsDialog(
        Settings(), has_key=False, key_in_memory_only=True, api_url_in_use="http://127.0.0.1:8787"
    )
    qtbot.addWidget(dialog)
    assert dialog.api_url.isReadOnly()
    note = dialog.findChild(QLabel, "apiurlnote")
    assert note is not None
    assert "for this session" in note.text()
    assert Settings().api_url in note.text()
    usual = SettingsDialog(Settings(), has_key=False, key_in_memory_only=True)
    qtbot.addWidget(usual)
    assert usual.findChild(QLabel, "apiurlnote") is None


def test_the_settings_refuse_an_api_url_that_cannot_be_used(qtbot: Any) -> None:
    dialog = SettingsDialog(Settings(), has_key=False, key_in_memory_only=True)
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.api_url.setText("memex.garden/api")
    dialog.accept()
    assert dialog.result() != SettingsDialog.DialogCode.Accepted
    assert dialog.isVisible()
    assert dialog.api_url_problem.isVisible()
    assert "does not start with a scheme" in dialog.api_url_problem.text()
    qtbot.keyClicks(dialog.api_url, "x")  # editing the address hides the old reason
    assert not dialog.api_url_problem.isVisible()
    dialog.api_url.setText("https://memex.garden/api")
    dialog.accept()
    assert dialog.result() == SettingsDialog.DialogCode.Accepted


def test_a_saved_api_url_that_cannot_be_used_opens_the_library_and_says_why(
    window_factory: WindowFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMEX_API_KEY", "a-key")
    context = window_factory(
        library={
            "results": [{"id": "a", "type": "web", "title": "Kept", "url": "https://a.example"}]
        },
        settings=Settings(api_url="memex.garden/api"),
    )
    assert context.client is None
    assert context.window.results_model.rowCount() == 1
    shown = context.window.status.currentMessage()
    assert shown.startswith("The API address “memex.garden/api” cannot be used.")
    assert "Correct it in Settings" in shown


def test_with_nothing_to_sign_in_with_the_settings_open_on_the_api_key(qtbot: Any) -> None:
    dialog = SettingsDialog(Settings(), has_key=False, key_in_memory_only=True)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitUntil(dialog.api_key.hasFocus, timeout=5_000)
    keyed = SettingsDialog(Settings(), has_key=True, key_in_memory_only=True)
    qtbot.addWidget(keyed)
    keyed.show()
    qtbot.waitExposed(keyed)
    assert not keyed.api_key.hasFocus()


def test_a_saved_api_url_spelled_another_way_is_still_the_one_in_use(qtbot: Any) -> None:
    """The window names its server normalized: the setting "https://Memex.Garden/api/" is
    the same server, and stays editable."""
    dialog = SettingsDialog(
        Settings(api_url="https://Memex.Garden/api/"),
        has_key=False,
        key_in_memory_only=True,
        api_url_in_use="https://memex.garden/api",
    )
    qtbot.addWidget(dialog)
    assert not dialog.api_url_fixed
    assert not dialog.api_url.isReadOnly()
