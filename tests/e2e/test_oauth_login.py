"""Sign in with Memex end to end against the emulator: login, sync, refresh, logout, attacks.

The scripted browser follows the authorize URL itself; the app's side is exactly what the
window and the command line run (:mod:`memex_desktop.signin`, the keyring-less memory store
of the test environment, the registry in the private config folder).
"""

from __future__ import annotations

import logging
import os
import threading
import webbrowser
from pathlib import Path

import httpx
import pytest
from support.emulator import small_library_ids
from support.oauth import OAuthEmulator, ScriptedBrowser, files_containing, replace_query

from memex_desktop import cli, paths, signin
from memex_desktop.api import oauth
from memex_desktop.api.client import MemexClient
from memex_desktop.api.oauth import (
    NotSignedIn,
    SignInDenied,
    StateMismatch,
    TokenProvider,
    TokenRequestFailed,
)
from memex_desktop.store import CacheReader, Outbox, StoreWriter
from memex_desktop.sync import SyncEngine, SyncOutcome

SIGN_IN_TIMEOUT_S = 10.0


def _issued_tokens(provider: TokenProvider) -> list[str]:
    """Access and refresh token currently held by ``provider`` (for leak scans)."""
    tokens = oauth.load_tokens(signin.default_secret_store(), provider.api_base_url)
    assert tokens is not None
    return [tokens.access_token, tokens.refresh_token or ""]


def _sign_in(env: OAuthEmulator, browser: ScriptedBrowser) -> TokenProvider:
    provider = signin.sign_in(
        env.base_url,
        open_browser=browser,
        timeout_s=SIGN_IN_TIMEOUT_S,
        clock=env.clock,
    )
    browser.join()
    return provider


def _assert_no_listener(browser: ScriptedBrowser) -> None:
    """The redirect URI's port no longer answers: the one-shot listener is gone."""
    redirect_uri = dict(httpx.URL(browser.opened[-1]).params)["redirect_uri"]
    with pytest.raises(httpx.ConnectError):
        httpx.get(redirect_uri, timeout=2.0)


def test_login_sync_refresh_logout(
    oauth_emulator: OAuthEmulator,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    env = oauth_emulator
    browser = ScriptedBrowser()
    provider = _sign_in(env, browser)
    assert browser.final_status == 200
    _assert_no_listener(browser)
    seen_tokens = _issued_tokens(provider)
    registration = signin.default_registry().get(env.base_url)
    assert registration is not None
    assert env.server.clients[registration.client_id].metadata["client_name"] == "Memex Desktop"
    assert (
        env.server.clients[registration.client_id].metadata["memex_client_source"]
        == "memex_desktop"
    )

    # Sync with the bearer token: the whole library arrives.
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    writer = StoreWriter(paths.cache_db_path(data_dir))
    reader = CacheReader(paths.cache_db_path(data_dir))
    outbox = Outbox(paths.outbox_db_path(data_dir))
    client = MemexClient(env.base_url, **provider.client_kwargs(), sleep=lambda _s: None)
    try:
        assert client.auth_mode == "bearer"
        engine = SyncEngine(client, writer, outbox, reader=reader, page_size=50)
        report = engine.run(full=True)
        assert report.ok, report
        writer.flush_index().result()
        assert set(reader.all_ids(limit=10_000)) >= small_library_ids()
        api_calls = [
            r
            for r in env.running.state.requests
            if not r.path.startswith(("/.well-known/", "/oauth/"))
        ]
        assert api_calls
        assert all(r.has_bearer and not r.has_api_key for r in api_calls)

        # The server expires the access token: the next call refreshes once and succeeds.
        env.server.expire_access_tokens()
        assert client.search("garden", raw=True).results is not None
        assert env.server.grants["refresh_token"] == 1
        seen_tokens += _issued_tokens(provider)

        # The client's own clock says the token expired: refreshed before it is sent.
        env.clock.advance(3600 + 1)
        report = engine.run()
        assert report.ok, report
        assert env.server.grants["refresh_token"] == 2
        seen_tokens += _issued_tokens(provider)

        # Sign out: tokens forgotten here and revoked at the server; the client still holding
        # the old sign-in is rejected and ends up signed out too.
        assert signin.sign_out(env.base_url)
        assert engine.run().outcome is SyncOutcome.AUTH_REJECTED
        assert not provider.is_signed_in()
        assert signin.token_provider(env.base_url) is None
        assert env.server.active_token_count() == (0, 0)
        fresh_provider = TokenProvider(provider.record, signin.default_secret_store())
        with pytest.raises(NotSignedIn):
            fresh_provider()
        for token in seen_tokens[:1]:
            answer = httpx.post(
                env.base_url + "/search",
                json={"query": ""},
                headers={"Authorization": f"Bearer {token}"},
            )
            assert answer.status_code == 401
    finally:
        client.close()
        provider.close()
        outbox.close()
        reader.close()
        writer.close()

    # No issued token in any file of the data, config or home folders, nor in any log line.
    assert len(set(seen_tokens)) == 6
    home = Path(os.environ["HOME"])
    for root in (data_dir, paths.config_dir(), home, tmp_path):
        assert files_containing(root, seen_tokens) == [], root
    logged = "\n".join(record.getMessage() + repr(record.args) for record in caplog.records)
    assert not any(token in logged for token in seen_tokens)
    assert caplog.records, "the run logged nothing: the leak check would prove nothing"


def test_second_login_reuses_the_registered_client(oauth_emulator: OAuthEmulator) -> None:
    env = oauth_emulator
    first = _sign_in(env, ScriptedBrowser())
    second = _sign_in(env, ScriptedBrowser())
    assert second.record.client_id == first.record.client_id
    assert len(env.server.clients) == 1
    assert env.server.grants["authorization_code"] == 2


def test_wrong_state_is_rejected(oauth_emulator: OAuthEmulator) -> None:
    env = oauth_emulator
    browser = ScriptedBrowser(rewrite=lambda url: replace_query(url, state="forged-state"))
    with pytest.raises(StateMismatch):
        _sign_in(env, browser)
    browser.join()
    assert browser.final_status == 400
    _assert_no_listener(browser)
    assert env.server.grants["authorization_code"] == 0
    assert signin.token_provider(env.base_url) is None


def test_wrong_pkce_verifier_is_rejected(
    oauth_emulator: OAuthEmulator,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    env = oauth_emulator
    verifier, _ = oauth.pkce_pair()
    other_challenge = oauth.pkce_challenge(oauth.pkce_pair()[0])
    monkeypatch.setattr(oauth, "pkce_pair", lambda: (verifier, other_challenge))
    with pytest.raises(TokenRequestFailed) as failure:
        _sign_in(env, ScriptedBrowser())
    assert failure.value.error == "invalid_grant"
    assert env.server.active_token_count() == (0, 0)
    assert signin.token_provider(env.base_url) is None


def test_denied_in_the_browser(oauth_emulator: OAuthEmulator) -> None:
    env = oauth_emulator
    env.server.config.deny = True
    browser = ScriptedBrowser()
    with pytest.raises(SignInDenied, match="declined"):
        _sign_in(env, browser)
    _assert_no_listener(browser)
    assert signin.token_provider(env.base_url) is None


def test_cancel_while_waiting_for_the_browser(oauth_emulator: OAuthEmulator) -> None:
    env = oauth_emulator
    cancel = threading.Event()
    browser = ScriptedBrowser(follow=False)

    def open_and_cancel(url: str) -> bool:
        browser(url)
        cancel.set()
        return True

    with pytest.raises(oauth.SignInCancelled):
        signin.sign_in(env.base_url, open_browser=open_and_cancel, cancel=cancel, timeout_s=10)
    _assert_no_listener(browser)


def test_url_shown_when_no_browser_starts(oauth_emulator: OAuthEmulator) -> None:
    env = oauth_emulator
    browser = ScriptedBrowser(available=False)
    shown: list[str] = []

    def show(url: str) -> None:
        shown.append(url)
        browser.visit_now(url)

    provider = signin.sign_in(
        env.base_url, open_browser=browser, show_url=show, timeout_s=SIGN_IN_TIMEOUT_S
    )
    browser.join()
    assert shown == browser.opened
    assert provider.is_signed_in()


def test_redirect_naming_another_issuer_is_rejected(oauth_emulator: OAuthEmulator) -> None:
    env = oauth_emulator
    browser = ScriptedBrowser(rewrite=lambda url: replace_query(url, iss="https://evil.example"))
    with pytest.raises(oauth.AuthorizationFailed) as failure:
        _sign_in(env, browser)
    assert failure.value.error == "issuer_mismatch"
    assert env.server.grants["authorization_code"] == 0


def test_cli_login_search_logout(
    oauth_emulator: OAuthEmulator,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    env = oauth_emulator
    browser = ScriptedBrowser()
    monkeypatch.setattr(webbrowser, "open", lambda url, new=0, autoraise=True: browser(url))
    where = ["--api-url", env.base_url, "--data-dir", str(tmp_path / "data")]

    assert cli.main(["login", *where]) == cli.EXIT_OK
    browser.join()
    out, err = capsys.readouterr()
    assert f"signed in to {env.base_url}" in out
    assert "keyring" in err  # the test environment has none: the sign-in lasts this process

    assert cli.main(["search", "garden", "--remote", "--json", *where]) == cli.EXIT_OK
    api_calls = [r for r in env.running.state.requests if r.path == "/search"]
    assert api_calls
    assert all(r.has_bearer and not r.has_api_key for r in api_calls)

    assert cli.main(["logout", *where]) == cli.EXIT_OK
    assert f"signed out of {env.base_url}" in capsys.readouterr().out
    assert cli.main(["search", "garden", "--remote", *where]) == cli.EXIT_AUTH
    assert "login" in capsys.readouterr().err
    assert cli.main(["logout", *where]) == cli.EXIT_OK
    assert "not signed in" in capsys.readouterr().out


def test_cli_login_reports_a_denied_sign_in(
    oauth_emulator: OAuthEmulator,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    env = oauth_emulator
    env.server.config.deny = True
    browser = ScriptedBrowser()
    monkeypatch.setattr(webbrowser, "open", lambda url, new=0, autoraise=True: browser(url))
    assert cli.main(["login", "--api-url", env.base_url]) == cli.EXIT_AUTH
    assert "declined" in capsys.readouterr().err


def test_a_registration_the_server_forgot_is_replaced_after_a_timeout(
    oauth_emulator: OAuthEmulator,
) -> None:
    env = oauth_emulator
    first = _sign_in(env, ScriptedBrowser())
    env.server.clients.clear()  # the server lost its client registrations
    browser = ScriptedBrowser()
    with pytest.raises(oauth.SignInTimedOut):
        signin.sign_in(env.base_url, open_browser=browser, timeout_s=0.5)
    browser.join()
    assert browser.final_status == 400  # the server's page, no redirect back to the app
    _assert_no_listener(browser)
    assert signin.default_registry().get(env.base_url) is None
    again = _sign_in(env, ScriptedBrowser())
    assert again.record.client_id != first.record.client_id
    assert again.is_signed_in()
