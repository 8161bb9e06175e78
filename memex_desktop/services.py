"""What the window and the command line both build, built in one place (no Qt).

``app.py`` and ``cli.py`` go through these functions for everything they share, so the two
cannot drift apart:

- :func:`connect`: the API URL and the credentials of a run, by one precedence rule
  (:func:`memex_desktop.signin.resolve_auth`: ``--api-key``, then MEMEX_BEARER_TOKEN, then
  MEMEX_API_KEY, then the sign-in remembered for that URL, then the keyring's API key);
- :func:`make_client`: the API client for that connection (None: the app runs local-only);
- :func:`make_engine`: the sync engine, always with the outbox policy of the settings
  (:func:`outbox_policy`) unless a caller hands it another one (tests that must not wait);
- :class:`SyncServices`: what every sync of the window shares, and the engine of one run;
- :func:`explain_findings`: what each connection check means, for ``doctor`` and Help → Check
  the connection to Memex… alike.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from memex_desktop import paths
from memex_desktop.api.errors import BadApiUrl
from memex_desktop.errors import Credential, check_meaning
from memex_desktop.settings import Settings, api_url_from_environment

# The store, the sync engine and the client are imported where they are built: the window's
# first frame needs this module's connection rules but none of them (see app.open_window).
if TYPE_CHECKING:
    from memex_desktop.api.client import MemexClient
    from memex_desktop.api.oauth import TokenProvider
    from memex_desktop.secrets import CredentialStore
    from memex_desktop.signin import ClientAuth
    from memex_desktop.store import CacheReader, Outbox, StoreWriter
    from memex_desktop.sync import OutboxPolicy, SyncEngine
    from memex_desktop.sync.doctor import DoctorReport

_log = logging.getLogger(__name__)

StoredSignIn = Callable[[], "TokenProvider | None"]

_KEYRING_SOURCE = "keyring"
_SIGN_IN_SOURCE = "sign-in"


@dataclass(frozen=True)
class Connection:
    """Where a run talks to and with which credentials (``auth.present`` False: none)."""

    api_url: str
    auth: ClientAuth

    @property
    def signed_in(self) -> TokenProvider | None:
        """The live "Sign in with Memex" this run uses, if it uses one."""
        return self.auth.provider

    @property
    def credential(self) -> Credential | None:
        """How the person authenticates, for words about it (None without credentials)."""
        return credential_of(self.auth)


def credential_of(auth: ClientAuth) -> Credential | None:
    """The words' view of a run's credentials: which kind, and what gave it for this run."""
    if not auth.present:
        return None
    if auth.provider is not None:
        return Credential("sign_in")
    given_by = None if auth.source in (_KEYRING_SOURCE, _SIGN_IN_SOURCE) else auth.source
    if auth.bearer_token is not None:
        return Credential("token", given_by=given_by)
    return Credential("api_key", given_by=given_by)


def remembered_sign_in(api_url: str) -> TokenProvider | None:
    """The sign-in remembered for ``api_url`` (keyring), or None; never raises."""
    from memex_desktop import signin  # see connect

    try:
        return signin.token_provider(api_url)
    except Exception:  # a broken keyring or registry means "not signed in", never a crash
        _log.exception("reading the stored sign-in failed")
        return None


def connect(
    settings: Settings,
    *,
    api_url: str | None = None,
    api_key: str | None = None,
    key_store: CredentialStore | None = None,
    stored_sign_in: StoredSignIn | None = None,
    environ: Mapping[str, str] | None = None,
) -> Connection:
    """The API URL (``api_url``, else the environment, else the setting) and the credentials
    of a run there (``api_key`` is the ``--api-key`` flag; ``stored_sign_in`` defaults to the
    sign-in remembered for that URL, ``key_store`` to the keyring).

    Sign-in and its HTTP stack are imported here, not with this module: a window shows the
    library before it connects, and importing them costs a start about 90 ms.

    Raises:
        BadApiUrl: the API URL is not an http(s) address the app can use.
    """
    from memex_desktop import signin
    from memex_desktop.api.urls import normalized_api_url

    url = normalized_api_url(settings.effective_api_url(api_url, environ))
    auth = signin.resolve_auth(
        url,
        settings,
        api_key_flag=api_key,
        key_store=key_store,
        stored_sign_in=stored_sign_in or (lambda: remembered_sign_in(url)),
        environ=environ,
    )
    return Connection(url, auth)


def given_api_url_problem(
    settings: Settings, api_url: str | None, environ: Mapping[str, str] | None = None
) -> BadApiUrl | None:
    """Why the API URL given for this run (``--api-url``, else MEMEX_API_URL) cannot be
    used; None when it can, or when none was given (a bad saved one is said in the window,
    which Settings fix)."""
    if not (api_url or "").strip() and api_url_from_environment(environ) is None:
        return None
    from memex_desktop.api.urls import normalized_api_url

    try:
        normalized_api_url(settings.effective_api_url(api_url, environ))
    except BadApiUrl as exc:
        return exc
    return None


def first_run(connection: Connection, settings_path: Path | None = None) -> bool:
    """No credential of any kind and no settings file yet: the person has not chosen how to
    use the app (connect, or the demo)."""
    path = settings_path if settings_path is not None else Settings.path()
    return not connection.auth.present and not path.exists()


def make_client(settings: Settings, connection: Connection) -> MemexClient | None:
    """The API client for ``connection``, or None when it has no credentials (local-only)."""
    if not connection.auth.present:
        return None
    from memex_desktop.api.client import MemexClient  # see connect

    return MemexClient(
        connection.api_url,
        deadline_s=settings.request_timeout_s,
        **connection.auth.client_kwargs(),
    )


def outbox_policy(settings: Settings) -> OutboxPolicy:
    """How queued saves back off: capped at the ``outbox_max_backoff_s`` setting."""
    from memex_desktop.sync import OutboxPolicy

    return OutboxPolicy(max_delay_s=settings.outbox_max_backoff_s)


def make_engine(
    settings: Settings,
    client: MemexClient,
    writer: StoreWriter,
    outbox: Outbox,
    reader: CacheReader,
    *,
    policy: OutboxPolicy | None = None,
) -> SyncEngine:
    """The sync engine over these connections, as the settings ask (``policy`` replaces the
    settings' outbox policy, for tests that must not wait)."""
    from memex_desktop.sync import SyncEngine

    return SyncEngine(
        client,
        writer,
        outbox,
        reader=reader,
        page_size=settings.page_size,
        max_in_flight=settings.sync_max_in_flight,
        reconcile_interval_s=settings.reconcile_interval_hours * 3600.0,
        outbox_policy=policy if policy is not None else outbox_policy(settings),
    )


class NotConnected(RuntimeError):
    """A sync or a remote search was asked for while no Memex account is set up."""


@dataclass
class SyncServices:
    """What every sync of the window shares: settings, client, writer, files, credentials.

    Each run builds its own engine with :meth:`engine` on its worker thread, over connections
    that thread owns (SQLite connections belong to their thread); httpx clients and the single
    writer are shared.
    """

    settings: Settings
    client: MemexClient | None
    writer: StoreWriter
    cache_path: Path
    outbox_path: Path
    credential: Credential | None = None
    # Replaces the settings' outbox policy (tests that must not wait); None: the settings'.
    outbox_policy: OutboxPolicy | None = None

    @property
    def page_size(self) -> int:
        """Items asked for per page (the doctor probes with it too)."""
        return self.settings.page_size

    def engine(self, reader: CacheReader, outbox: Outbox) -> SyncEngine:
        """The engine of one run over this thread's reader and outbox."""
        if self.client is None:
            raise NotConnected("no Memex account is set up")
        return make_engine(
            self.settings, self.client, self.writer, outbox, reader, policy=self.outbox_policy
        )


def sync_services(
    settings: Settings,
    client: MemexClient | None,
    writer: StoreWriter,
    data_dir: Path,
    *,
    credential: Credential | None = None,
    policy: OutboxPolicy | None = None,
) -> SyncServices:
    """The window's sync services over the data folder (``policy``: as :func:`make_engine`)."""
    return SyncServices(
        settings=settings,
        client=client,
        writer=writer,
        cache_path=paths.cache_db_path(data_dir),
        outbox_path=paths.outbox_db_path(data_dir),
        credential=credential,
        outbox_policy=policy,
    )


def explain_findings(report: DoctorReport) -> DoctorReport:
    """``report`` with every finding saying what it means for the person (and what to do
    about a problem), in :func:`memex_desktop.errors.check_meaning`'s words."""
    for finding in report.findings:
        finding.meaning = check_meaning(
            finding.check, finding.outcome, said=finding.said, note=finding.meaning
        )
    return report
