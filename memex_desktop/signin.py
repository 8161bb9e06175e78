"""Sign in with Memex for the window and the command line (no Qt).

:mod:`memex_desktop.api.oauth` does the protocol and knows nothing of the desktop; this module
gives it the desktop's places: tokens in the system keyring through
:class:`memex_desktop.secrets.CredentialStore` (memory only, for this process, where no keyring
exists) and the client registration in the config folder. A GUI worker thread calls
:func:`sign_in` with the task's cancel event; the CLI calls it with ``show_url=print``.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from functools import cache

import httpx

from memex_desktop import paths
from memex_desktop.api import oauth
from memex_desktop.secrets import CredentialStore


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


__all__ = [
    "default_registry",
    "default_secret_store",
    "sign_in",
    "sign_out",
    "token_provider",
    "tokens_outlive_process",
]
