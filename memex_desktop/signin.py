"""Sign in with Memex for the window and the command line (no Qt).

:mod:`memex_desktop.api.oauth` does the protocol and knows nothing of the desktop; this module
gives it the desktop's places: tokens in the system keyring through
:class:`memex_desktop.secrets.CredentialStore` (memory only, for this process, where no keyring
exists) and the client registration in the config folder. A GUI worker thread calls
:func:`sign_in` with the task's cancel event; the CLI calls it with ``show_url=print``.

:func:`resolve_auth` is the one place that decides what a run authenticates with; the window
and the command line alike reach it through :func:`memex_desktop.services.connect`.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

import httpx
from pydantic import SecretStr

from memex_desktop import paths
from memex_desktop.api import oauth
from memex_desktop.secrets import CredentialStore
from memex_desktop.settings import Settings, given_credential

_log = logging.getLogger(__name__)


@cache
def default_secret_store() -> CredentialStore:
    """The process-wide token store (one instance, so a memory-only sign-in lasts the run)."""
    return CredentialStore()


def default_registry() -> oauth.ClientRegistry:
    """Registered clients per server, in the config folder (never tokens)."""
    return oauth.ClientRegistry(paths.config_dir() / oauth.REGISTRY_FILE_NAME)


def tokens_outlive_process(store: oauth.SecretStore | None = None) -> bool:
    """Whether a sign-in survives a restart (False: no keyring, memory only)."""
    chosen = store if store is not None else default_secret_store()
    return not (isinstance(chosen, CredentialStore) and chosen.backend_is_memory)


def sign_in(
    api_url: str,
    *,
    open_browser: Callable[[str], bool] | None = None,
    show_url: Callable[[str], None] | None = None,
    cancel: threading.Event | None = None,
    timeout_s: float = oauth.DEFAULT_SIGN_IN_TIMEOUT_S,
    store: oauth.SecretStore | None = None,
    registry: oauth.ClientRegistry | None = None,
    transport: httpx.BaseTransport | None = None,
    clock: Callable[[], float] = time.time,
) -> oauth.TokenProvider:
    """Sign in to ``api_url`` through the browser; blocking, cancellable, Qt-free.

    See :func:`memex_desktop.api.oauth.sign_in` for the errors. ``open_browser`` defaults to
    the system browser.
    """
    return oauth.sign_in(
        api_url,
        open_browser=open_browser,
        store=store if store is not None else default_secret_store(),
        registry=registry if registry is not None else default_registry(),
        show_url=show_url,
        cancel=cancel,
        timeout_s=timeout_s,
        transport=transport,
        clock=clock,
    )


def token_provider(
    api_url: str,
    *,
    store: oauth.SecretStore | None = None,
    registry: oauth.ClientRegistry | None = None,
    transport: httpx.BaseTransport | None = None,
) -> oauth.TokenProvider | None:
    """The current sign-in at ``api_url`` (for ``MemexClient(**provider.client_kwargs())``)."""
    return oauth.load_token_provider(
        api_url,
        store=store if store is not None else default_secret_store(),
        registry=registry if registry is not None else default_registry(),
        transport=transport,
    )


def sign_out(
    api_url: str,
    *,
    store: oauth.SecretStore | None = None,
    registry: oauth.ClientRegistry | None = None,
    transport: httpx.BaseTransport | None = None,
) -> bool:
    """Forget the sign-in at ``api_url``; ``True`` when there was one."""
    return oauth.sign_out(
        api_url,
        store=store if store is not None else default_secret_store(),
        registry=registry if registry is not None else default_registry(),
        transport=transport,
    )


@dataclass(frozen=True)
class ClientAuth:
    """What a run authenticates with, and where it came from; ``repr`` shows no secret.

    ``source`` is ``--api-key``, ``MEMEX_BEARER_TOKEN``, ``MEMEX_API_KEY``, ``sign-in``,
    ``keyring``, or empty when there is nothing (the app then runs local-only).
    """

    source: str = ""
    api_key: SecretStr | None = None
    bearer_token: SecretStr | None = None
    provider: oauth.TokenProvider | None = None
    user_id: str | None = None

    @property
    def present(self) -> bool:
        """Whether calls can be authenticated at all."""
        return bool(self.source)

    def client_kwargs(self) -> dict[str, Any]:
        """The credential arguments of :class:`~memex_desktop.api.client.MemexClient`."""
        if self.provider is not None:
            return self.provider.client_kwargs()
        if self.bearer_token is not None:
            return {"bearer_token": self.bearer_token.get_secret_value()}
        if self.api_key is not None:
            return {"api_key": self.api_key.get_secret_value(), "user_id": self.user_id}
        return {}


def resolve_auth(
    api_url: str,
    settings: Settings,
    *,
    api_key_flag: str | None = None,
    key_store: CredentialStore | None = None,
    stored_sign_in: Callable[[], oauth.TokenProvider | None] | None = None,
    environ: Mapping[str, str] | None = None,
) -> ClientAuth:
    """The credentials of a run at ``api_url``, first found wins: ``--api-key``, else
    MEMEX_BEARER_TOKEN, else MEMEX_API_KEY, else the sign-in remembered for ``api_url``
    (``stored_sign_in``, by default :func:`token_provider`), else the keyring's API key.

    An API key goes with ``x-user-id`` = MEMEX_USER_ID, else the ``user_id`` setting. What the
    flag or the environment gives stays in memory: nothing is written or logged.
    """
    env = os.environ if environ is None else environ
    user_id = settings.effective_user_id(env)
    given = given_credential(api_key_flag, env)
    if given is not None:
        _log.info("using the credential of %s", given.source)
        if given.kind == "bearer":
            return ClientAuth(given.source, bearer_token=given.secret)
        return ClientAuth(given.source, api_key=given.secret, user_id=user_id)
    provider = stored_sign_in() if stored_sign_in is not None else token_provider(api_url)
    if provider is not None:
        return ClientAuth("sign-in", provider=provider)
    key = (key_store if key_store is not None else CredentialStore()).get_api_key()
    if key is not None:
        return ClientAuth("keyring", api_key=key, user_id=user_id)
    return ClientAuth()


__all__ = [
    "ClientAuth",
    "default_registry",
    "default_secret_store",
    "resolve_auth",
    "sign_in",
    "sign_out",
    "token_provider",
    "tokens_outlive_process",
]
