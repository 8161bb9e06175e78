"""Tokens in the keyring (or memory where none exists), never in files."""

from __future__ import annotations

from pathlib import Path

import keyring.backend
import keyring.errors
import pytest
from support.keyrings import MemoryKeyring

from memex_desktop import paths, signin
from memex_desktop.api import oauth
from memex_desktop.api.oauth import TokenSet
from memex_desktop.secrets import CredentialStore

API = "https://memex.example/api"
ACCESS = "at-keyring-41d2"
REFRESH = "rt-keyring-0c9b"


class BrokenKeyring(MemoryKeyring):
    """A keyring that fails on writes (a locked or misbehaving Secret Service)."""

    def set_password(self, service: str, username: str, password: str) -> None:
        raise keyring.errors.KeyringError("locked")


def test_tokens_go_to_the_keyring() -> None:
    backend = MemoryKeyring()
    store = CredentialStore(backend=backend)
    oauth.save_tokens(store, API, TokenSet(ACCESS, REFRESH, 10.0))
    assert not store.backend_is_memory
    assert signin.tokens_outlive_process(store)
    services = {service for service, _ in backend.items}
    assert services == {"memex-desktop"}
    assert oauth.load_tokens(CredentialStore(backend=backend), API) == TokenSet(
        ACCESS, REFRESH, 10.0
    )
    oauth.forget_tokens(store, API)
    assert backend.items == {}
    store.delete_secret("never-stored")  # no error


def test_without_a_keyring_tokens_live_in_memory_only() -> None:
    store = signin.default_secret_store()
    assert store.backend_is_memory  # the test environment has the failing backend
    assert not signin.tokens_outlive_process()
    oauth.save_tokens(store, API, TokenSet(ACCESS, REFRESH, None))
    assert oauth.load_tokens(store, API) is not None
    assert oauth.load_tokens(CredentialStore(), API) is None  # gone for a new process


def test_a_failing_keyring_falls_back_to_memory() -> None:
    store = CredentialStore(backend=BrokenKeyring())
    oauth.save_tokens(store, API, TokenSet(ACCESS, REFRESH, None))
    assert store.backend_is_memory
    assert oauth.load_tokens(store, API) == TokenSet(ACCESS, REFRESH, None)


def test_empty_secret_is_refused() -> None:
    with pytest.raises(ValueError, match="empty"):
        CredentialStore(backend=MemoryKeyring()).set_secret("x", "")


def test_registry_lives_in_the_config_folder_and_holds_no_token() -> None:
    registry = signin.default_registry()
    assert registry.path.parent == paths.config_dir()
    record = oauth.OAuthClientRecord(
        api_base_url=API,
        resource=API,
        issuer="https://auth.example",
        authorization_endpoint="https://auth.example/a",
        token_endpoint="https://auth.example/t",
        client_id="c",
        redirect_uri="http://127.0.0.1:1/callback",
    )
    registry.put(record)
    oauth.save_tokens(signin.default_secret_store(), API, TokenSet(ACCESS, REFRESH, None))
    provider = signin.token_provider(API)
    assert provider is not None
    assert provider() == ACCESS
    for path in Path(paths.config_dir()).rglob("*"):
        if path.is_file():
            assert ACCESS.encode() not in path.read_bytes()
            assert REFRESH.encode() not in path.read_bytes()
    assert signin.sign_out(API, transport=None) is True
    assert signin.token_provider(API) is None
