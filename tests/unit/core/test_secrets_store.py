"""The API key goes to the keyring when there is one, else to memory only, never to a file."""

from __future__ import annotations

from pathlib import Path

import keyring.backend
import keyring.backends.fail
import keyring.errors
import pytest
from pydantic import SecretStr
from support.keyrings import MemoryKeyring
from support.secrets import TEST_API_KEY

from memex_desktop.secrets import API_KEY_ACCOUNT, SERVICE_NAME, CredentialStore
from memex_desktop.settings import Settings


class LockedKeyring(MemoryKeyring):
    """A keyring that exists but refuses every write (a locked keychain)."""

    def set_password(self, service: str, username: str, password: str) -> None:
        raise keyring.errors.KeyringLocked("locked")


def test_keyring_backend_stores_the_key() -> None:
    backend = MemoryKeyring()
    store = CredentialStore(backend=backend)
    assert not store.backend_is_memory
    assert store.get_api_key() is None
    store.set_api_key(TEST_API_KEY)
    assert backend.items[(SERVICE_NAME, API_KEY_ACCOUNT)] == TEST_API_KEY
    # A second store (a second launch) reads it back from the keyring.
    again = CredentialStore(backend=backend).get_api_key()
    assert again is not None
    assert again.get_secret_value() == TEST_API_KEY
    store.delete_api_key()
    assert store.get_api_key() is None
    store.delete_api_key()  # forgetting twice is fine


def test_no_keyring_falls_back_to_memory_only() -> None:
    store = CredentialStore(backend=keyring.backends.fail.Keyring())
    assert store.backend_is_memory
    store.set_api_key(SecretStr(TEST_API_KEY))
    key = store.get_api_key()
    assert key is not None
    assert key.get_secret_value() == TEST_API_KEY
    assert TEST_API_KEY not in repr(key)
    # Memory only: a new session does not know it.
    assert CredentialStore(backend=keyring.backends.fail.Keyring()).get_api_key() is None


def test_default_backend_in_tests_is_the_failing_one() -> None:
    store = CredentialStore()
    store.set_api_key(TEST_API_KEY)
    assert store.backend_is_memory
    key = store.get_api_key()
    assert key is not None
    assert key.get_secret_value() == TEST_API_KEY


def test_locked_keyring_falls_back_to_memory() -> None:
    store = CredentialStore(backend=LockedKeyring())
    assert not store.backend_is_memory
    store.set_api_key(TEST_API_KEY)
    assert store.backend_is_memory
    key = store.get_api_key()
    assert key is not None
    assert key.get_secret_value() == TEST_API_KEY


def test_empty_key_is_refused() -> None:
    with pytest.raises(ValueError, match="empty"):
        CredentialStore(backend=MemoryKeyring()).set_api_key("")


def test_key_never_reaches_a_file(tmp_path: Path) -> None:
    store = CredentialStore(backend=keyring.backends.fail.Keyring())
    store.set_api_key(TEST_API_KEY)
    Settings(api_url="http://127.0.0.1:1").save(tmp_path)
    home = Path.home()
    for root in (tmp_path, home):
        for path in root.rglob("*"):
            if path.is_file():
                assert TEST_API_KEY.encode() not in path.read_bytes(), path


def test_the_system_keyring_is_looked_for_on_first_use_not_before(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Finding the system's keyring loads every keyring plugin: a store made at start-up
    costs nothing until a secret is asked for, and looks once."""
    backend = MemoryKeyring()
    backend.set_password(SERVICE_NAME, API_KEY_ACCOUNT, TEST_API_KEY)
    looked: list[int] = []

    def get_keyring() -> MemoryKeyring:
        looked.append(1)
        return backend

    monkeypatch.setattr(keyring, "get_keyring", get_keyring)
    store = CredentialStore()
    assert looked == []
    key = store.get_api_key()
    assert key is not None
    assert key.get_secret_value() == TEST_API_KEY
    assert not store.backend_is_memory
    store.get_secret("another")
    assert looked == [1]
