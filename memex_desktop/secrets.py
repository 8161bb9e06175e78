"""Where the API key lives: the system keyring, or this process's memory when there is none.

The key is never written to a file, the cache, the outbox, the settings or a log. On systems
without a usable keyring (headless Linux raises ``keyring.errors.NoKeyringError``) the key is
kept in memory for this session only, and :attr:`CredentialStore.backend_is_memory` says so, so
the interface can tell the person it will ask again next time.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from pydantic import SecretStr

# keyring is imported when a secret is first asked for (see CredentialStore): importing it
# costs a start about 30 ms, and finding the system's backend another 65 ms.

_log = logging.getLogger(__name__)

SERVICE_NAME = "memex-desktop"
API_KEY_ACCOUNT = "api-key"


class CredentialStore:
    """Reads and writes the API key through keyring, falling back to memory only."""

    def __init__(self, *, backend: Any | None = None, service: str = SERVICE_NAME) -> None:
        """Use ``backend`` (a keyring backend) or the system default one.

        The system's keyring is looked for on first use, not here: finding it loads every
        keyring plugin installed (about 65 ms on Linux), which the window does after its
        first paint, when it connects.
        """
        self._service = service
        self._memory: dict[str, SecretStr] = {}
        self._given_backend = backend
        self._lookup_lock = threading.Lock()  # a worker may be the first to ask
        self._looked_up = False
        self._backend: Any | None = None
        self._memory_only = False

    def _look_up_backend(self) -> None:
        """Find the keyring backend once; none usable means memory only."""
        with self._lookup_lock:
            if not self._looked_up:
                self._find_backend()
                self._looked_up = True

    def _find_backend(self) -> None:
        """The given backend, else the system's (under the lookup lock)."""
        import keyring
        import keyring.backends.fail
        import keyring.errors

        try:
            given = self._given_backend
            self._backend = given if given is not None else keyring.get_keyring()
        except keyring.errors.KeyringError as exc:
            _log.warning("no keyring available (%s); keeping the API key in memory", type(exc))
            self._backend = None
        # The "fail" backend is what keyring picks when nothing usable exists (headless Linux).
        self._memory_only = self._memory_only or (
            self._backend is None or isinstance(self._backend, keyring.backends.fail.Keyring)
        )

    @property
    def backend_is_memory(self) -> bool:
        """True when the key lives only in memory and will be asked for again next launch."""
        self._look_up_backend()
        return self._memory_only

    def _fall_back(self, exc: Exception) -> None:
        """Switch to memory-only storage for the rest of the session."""
        if not self._memory_only:
            _log.warning(
                "keyring unusable (%s); the API key is kept in memory for this session only",
                type(exc).__name__,
            )
        self._memory_only = True

    def get_api_key(self) -> SecretStr | None:
        """The stored API key, or ``None`` when none was given."""
        return self._get(API_KEY_ACCOUNT)

    def set_api_key(self, key: str | SecretStr) -> None:
        """Remember the API key (keyring when usable, else memory for this session)."""
        secret = key if isinstance(key, SecretStr) else SecretStr(key)
        if not secret.get_secret_value():
            raise ValueError("the API key is empty")
        self._set(API_KEY_ACCOUNT, secret)

    def delete_api_key(self) -> None:
        """Forget the API key everywhere this store put it."""
        self.delete_secret(API_KEY_ACCOUNT)

    def get_secret(self, account: str) -> str | None:
        """The secret stored under ``account`` (e.g. an OAuth token), or ``None``."""
        secret = self._get(account)
        return secret.get_secret_value() if secret is not None else None

    def set_secret(self, account: str, value: str) -> None:
        """Store ``value`` under ``account`` (keyring when usable, else memory)."""
        if not value:
            raise ValueError("an empty secret cannot be stored")
        self._set(account, SecretStr(value))

    def delete_secret(self, account: str) -> None:
        """Forget ``account`` everywhere this store put it."""
        self._memory.pop(account, None)
        self._look_up_backend()
        if self._memory_only or self._backend is None:
            return
        import keyring.errors  # loaded by the lookup above

        try:
            self._backend.delete_password(self._service, account)
        except keyring.errors.PasswordDeleteError:
            return  # nothing stored: already forgotten
        except keyring.errors.KeyringError as exc:
            self._fall_back(exc)

    def _get(self, account: str) -> SecretStr | None:
        """Read one secret, memory first (it holds what this session was given)."""
        if account in self._memory:
            return self._memory[account]
        self._look_up_backend()
        if self._memory_only or self._backend is None:
            return None
        import keyring.errors  # loaded by the lookup above

        try:
            value = self._backend.get_password(self._service, account)
        except keyring.errors.KeyringError as exc:
            self._fall_back(exc)
            return None
        return SecretStr(value) if isinstance(value, str) and value else None

    def _set(self, account: str, secret: SecretStr) -> None:
        """Write one secret to the keyring, or to memory when the keyring cannot take it."""
        self._look_up_backend()
        if not self._memory_only and self._backend is not None:
            import keyring.errors  # loaded by the lookup above

            try:
                self._backend.set_password(self._service, account, secret.get_secret_value())
            except keyring.errors.KeyringError as exc:
                self._fall_back(exc)
            else:
                self._memory.pop(account, None)
                return
        self._memory[account] = secret
