"""Where to connect and as whom: flags, the official plugins' environment variables, stores."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from support.keyrings import MemoryKeyring
from support.secrets import TEST_API_KEY, TEST_BEARER_TOKEN, TEST_USER_ID
from support.sync_env import run_cli

from memex_desktop.api.client import MemexClient
from memex_desktop.emulator import RunningEmulator
from memex_desktop.secrets import CredentialStore
from memex_desktop.settings import (
    CONNECTION_ENV_VARS,
    DEFAULT_API_URL,
    Settings,
    api_url_from_environment,
    given_credential,
)
from memex_desktop.signin import ClientAuth, resolve_auth


@pytest.fixture(autouse=True)
def _no_connection_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """The developer's own Memex variables never reach these tests."""
    for name in CONNECTION_ENV_VARS:
        monkeypatch.delenv(name, raising=False)


class _FakeProvider:
    """Stands in for a remembered "Sign in with Memex" (a TokenProvider)."""

    def __init__(self, token: str) -> None:
        self.token = token

    def __call__(self) -> str:
        return self.token

    def refresh(self) -> bool:
        return False

    def client_kwargs(self) -> dict[str, Any]:
        return {"bearer_token": self, "refresh_bearer_token": self.refresh}


def _key_store(key: str | None = None) -> CredentialStore:
    store = CredentialStore(backend=MemoryKeyring())
    if key is not None:
        store.set_api_key(key)
    return store


# ---------------------------------------------------------------------- the API URL


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({}, None),
        ({"MEMEX_MCP_URL": "https://m.test/api/mcp"}, "https://m.test/api"),
        ({"MEMEX_MCP_URL": "https://m.test/api/mcp/"}, "https://m.test/api"),
        ({"MEMEX_MCP_URL": "https://m.test/mcpserver"}, "https://m.test/mcpserver"),
        ({"MEMEX_MCP_URL": "https://m.test/mcp"}, "https://m.test"),
        ({"MEMEX_API_URL": "https://u.test/api", "MEMEX_MCP_URL": "https://m.test/mcp"}, "https://u.test/api"),
        (
            {
                "MEMEX_API_BASE_URL": "https://b.test/api",
                "MEMEX_API_URL": "https://u.test/api",
                "MEMEX_MCP_URL": "https://m.test/mcp",
            },
            "https://b.test/api",
        ),
        ({"MEMEX_API_BASE_URL": "  ", "MEMEX_API_URL": "https://u.test"}, "https://u.test"),
    ],
)  # fmt: skip
def test_api_url_from_environment_in_the_plugins_order(
    environ: dict[str, str], expected: str | None
) -> None:
    assert api_url_from_environment(environ) == expected


def test_effective_api_url_flag_then_environment_then_setting(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    settings = Settings(api_url="https://setting.test/api/")
    assert settings.effective_api_url() == "https://setting.test/api"
    assert Settings().effective_api_url() == DEFAULT_API_URL
    monkeypatch.setenv("MEMEX_MCP_URL", "https://mcp.test/api/mcp")
    assert settings.effective_api_url() == "https://mcp.test/api"
    monkeypatch.setenv("MEMEX_API_URL", "https://url.test/api")
    assert settings.effective_api_url() == "https://url.test/api"
    monkeypatch.setenv("MEMEX_API_BASE_URL", "https://base.test/api/")
    assert settings.effective_api_url() == "https://base.test/api"
    assert settings.effective_api_url("https://flag.test/api") == "https://flag.test/api"


def test_effective_api_url_with_an_explicit_environment() -> None:
    settings = Settings(api_url="https://setting.test")
    environ = {"MEMEX_API_BASE_URL": "https://base.test"}
    assert settings.effective_api_url(environ=environ) == "https://base.test"
    assert settings.effective_api_url(environ={}) == "https://setting.test"


def test_user_id_from_the_environment_wins_over_the_setting() -> None:
    settings = Settings(user_id="from-settings")
    assert settings.effective_user_id({}) == "from-settings"
    assert settings.effective_user_id({"MEMEX_USER_ID": TEST_USER_ID}) == TEST_USER_ID
    assert settings.effective_user_id({"MEMEX_USER_ID": " "}) == "from-settings"
    assert Settings().effective_user_id({}) is None


# ---------------------------------------------------------------------- credentials

BOTH = {"MEMEX_BEARER_TOKEN": "t-env", "MEMEX_API_KEY": "k-env"}


@pytest.mark.parametrize(
    ("flag", "environ", "kind", "source"),
    [
        (None, {}, None, None),
        (None, {"MEMEX_API_KEY": "k-env"}, "api-key", "MEMEX_API_KEY"),
        (None, {"MEMEX_BEARER_TOKEN": "t-env"}, "bearer", "MEMEX_BEARER_TOKEN"),
        (None, BOTH, "bearer", "MEMEX_BEARER_TOKEN"),
        ("k-flag", BOTH, "api-key", "--api-key"),
        ("", {"MEMEX_BEARER_TOKEN": " ", "MEMEX_API_KEY": "k-env"}, "api-key", "MEMEX_API_KEY"),
    ],
)  # fmt: skip
def test_given_credential_order(
    flag: str | None, environ: dict[str, str], kind: str | None, source: str | None
) -> None:
    given = given_credential(flag, environ)
    if kind is None:
        assert given is None
        return
    assert given is not None
    assert (given.kind, given.source) == (kind, source)
    secret = given.secret.get_secret_value()
    assert secret.startswith("k-" if kind == "api-key" else "t-")
    assert secret not in repr(given)


def test_resolve_auth_order_flag_token_key_sign_in_keyring() -> None:
    settings = Settings(user_id="setting-user")
    store = _key_store("k-keyring")
    provider = _FakeProvider("t-sign-in")
    sign_ins: list[int] = []

    def signed_in() -> Any:
        sign_ins.append(1)
        return provider

    environ = {"MEMEX_BEARER_TOKEN": "t-env", "MEMEX_API_KEY": "k-env"}

    def resolve(flag: str | None = None, env: dict[str, str] | None = None) -> ClientAuth:
        return resolve_auth(
            "https://memex.test/api",
            settings,
            api_key_flag=flag,
            key_store=store,
            stored_sign_in=signed_in,
            environ=environ if env is None else env,
        )

    assert resolve("k-flag").source == "--api-key"
    assert resolve().source == "MEMEX_BEARER_TOKEN"
    assert resolve(env={"MEMEX_API_KEY": "k-env"}).source == "MEMEX_API_KEY"
    assert sign_ins == []  # a given credential never reads the stored sign-in
    chosen = resolve(env={})
    assert chosen.source == "sign-in"
    assert chosen.provider is provider
    assert sign_ins == [1]
    provider_less = resolve_auth(
        "https://memex.test/api",
        settings,
        key_store=store,
        stored_sign_in=lambda: None,
        environ={},
    )
    assert provider_less.source == "keyring"
    nothing = resolve_auth(
        "https://memex.test/api",
        settings,
        key_store=_key_store(),
        stored_sign_in=lambda: None,
        environ={},
    )
    assert not nothing.present
    assert nothing.client_kwargs() == {}


def test_client_arguments_of_each_kind() -> None:
    settings = Settings(user_id="setting-user")
    environ = {"MEMEX_API_KEY": TEST_API_KEY, "MEMEX_USER_ID": TEST_USER_ID}
    keyed = resolve_auth("https://m.test", settings, stored_sign_in=lambda: None, environ=environ)
    assert keyed.client_kwargs() == {"api_key": TEST_API_KEY, "user_id": TEST_USER_ID}
    environ = {"MEMEX_BEARER_TOKEN": TEST_BEARER_TOKEN, "MEMEX_USER_ID": TEST_USER_ID}
    bearer = resolve_auth("https://m.test", settings, stored_sign_in=lambda: None, environ=environ)
    assert bearer.client_kwargs() == {"bearer_token": TEST_BEARER_TOKEN}
    for auth in (keyed, bearer):
        assert TEST_API_KEY not in repr(auth)
        assert TEST_BEARER_TOKEN not in repr(auth)
    stored = resolve_auth(
        "https://m.test", settings, key_store=_key_store(TEST_API_KEY), stored_sign_in=lambda: None
    )
    assert stored.client_kwargs() == {"api_key": TEST_API_KEY, "user_id": "setting-user"}


def test_bearer_from_the_environment_reaches_the_emulator(
    emulator: RunningEmulator,
) -> None:
    environ = {"MEMEX_BEARER_TOKEN": TEST_BEARER_TOKEN, "MEMEX_API_KEY": "not-this-one"}
    auth = resolve_auth(emulator.base_url, Settings(), stored_sign_in=lambda: None, environ=environ)
    with MemexClient(emulator.base_url, **auth.client_kwargs()) as client:
        assert client.auth_mode == "bearer"
        assert client.list_views()
    record = emulator.state.requests[-1]
    assert (record.has_bearer, record.has_api_key, record.has_user_id) == (True, False, False)


# ---------------------------------------------------------------------- the command line


@pytest.mark.e2e
def test_cli_syncs_with_the_plugins_variables(
    emulator: RunningEmulator,
    tmp_path: Path,
) -> None:
    done = run_cli(
        "sync",
        "--quiet",
        "--data-dir",
        str(tmp_path / "data"),
        MEMEX_BEARER_TOKEN=TEST_BEARER_TOKEN,
        MEMEX_API_BASE_URL=emulator.base_url,
        # Both lose: the base URL wins over MEMEX_API_URL, the token over the key.
        MEMEX_API_URL="http://127.0.0.1:9/api",
        MEMEX_API_KEY="not-this-one",
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("synced:")
    assert TEST_BEARER_TOKEN not in done.stdout + done.stderr
    requests = emulator.state.requests
    assert requests
    assert all(r.has_bearer and not r.has_api_key for r in requests)


def test_cli_environment_of_the_tests_drops_the_developers_connection(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from support.sync_env import cli_env

    for name in CONNECTION_ENV_VARS:
        monkeypatch.setenv(name, "from-the-developer")
    env = cli_env(TEST_API_KEY)
    assert env["MEMEX_API_KEY"] == TEST_API_KEY
    assert not {name for name in CONNECTION_ENV_VARS if name != "MEMEX_API_KEY"} & set(env)
