"""The one place that turns what happened into words for a person (STYLE.md habit 5).

:func:`user_message` maps every error the app expects (API errors, store errors, disk and file
errors) to a :class:`UserMessage`: a level, one line of text, an optional detail and the action
that fixes it. Anything else is a bug: it gets a generic message that asks for a report, and the
caller logs the traceback. No message ever contains the API key (errors never carry it).

The same words name the :class:`ConnectionState` the sync reaches (:func:`state_words` for the
status bar, :func:`state_message` where no exception is at hand) and why a queued save failed
(:func:`error_kind`, kept with the save, and :func:`failure_message`). Where credentials are
the problem the words follow how the person signed in (:class:`Credential`).
"""

from __future__ import annotations

import enum
import errno
import sqlite3
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Literal, get_args

from memex_desktop.api.errors import (
    ApiError,
    ApiMoved,
    AuthError,
    BadApiUrl,
    ContractError,
    Forbidden,
    InsufficientCredits,
    NetworkUnavailable,
    NotSignedIn,
    RateLimited,
    ServerError,
    ServerIncompatible,
    ServerNotAnswering,
    ServerRefused,
    SignInError,
    ValidationError,
)
from memex_desktop.api.plans import plan_label
from memex_desktop.store.errors import (
    DatabaseAccessError,
    DatabaseCorruptError,
    DatabaseLockedError,
    DatabaseReadOnlyError,
    DiskFullError,
    FolderNotWritableError,
    KnownStoreError,
    SaveBeingSent,
    SchemaTooNewError,
    SearchLanguageError,
    translate,
)

if TYPE_CHECKING:  # what the window imports at start-up stays clear of the HTTP client
    from memex_desktop.api.models import AvailablePlansOutput

Level = Literal["info", "warning", "error"]


class ConnectionState(enum.Enum):
    """Where the app stands with the Memex server: one vocabulary for the sync, the status bar
    and the command line's exit statuses; every state but ONLINE has an action that fixes it."""

    NOT_CONFIGURED = "not_configured"
    ONLINE = "online"
    OFFLINE = "offline"
    SERVER_DOWN = "server_down"
    AUTH_REJECTED = "auth_rejected"
    INSUFFICIENT_CREDITS = "insufficient_credits"
    # The server refuses what this version sends, or pages in a way the sync cannot follow.
    INCOMPATIBLE = "incompatible"


CredentialKind = Literal["api_key", "sign_in", "token"]


@dataclass(frozen=True)
class Credential:
    """How the person authenticates, as far as the words for them go (never the secret)."""

    kind: CredentialKind
    # The flag or variable that gave it for this run, which wins over anything in Settings;
    # None when the app remembered it (the keyring's API key, a sign-in).
    given_by: str | None = None


@dataclass(frozen=True)
class UserMessage:
    """What to tell the person: how bad, what happened, details, and what to do about it."""

    level: Level
    text: str
    detail: str | None = None
    action: str | None = None
    # A notice shown until the person closes it (a warning: an error's always is): what
    # became of their data.
    lasting: bool = False

    def one_line(self) -> str:
        """The message as one line (the command line's error output)."""
        parts = [self.text]
        if self.detail:
            parts.append(self.detail)
        if self.action:
            parts.append(self.action)
        return " ".join(part.strip().rstrip(".") + "." for part in parts if part.strip())


def describe_plans(options: AvailablePlansOutput | None) -> str | None:
    """A short list of the plans the server offers when usage runs out."""
    if options is None or not options.plans:
        return None
    return "Plans: " + ", ".join(plan_label(plan) for plan in options.plans[:5])


def _offline() -> UserMessage:
    """Words for a server that cannot be reached."""
    return UserMessage(
        "warning",
        "You are offline: the Memex server cannot be reached.",
        "Everything already synced is readable; saves are queued and sent later.",
        "Check the network connection or the API URL.",
    )


def _not_answering(host: str) -> UserMessage:
    """Words for a server that takes the connection and then says nothing."""
    return UserMessage(
        "warning",
        f"The Memex server at {host} is not answering.",
        "It accepted the connection but sent no answer in time. Everything already synced "
        "is readable; saves are queued and sent later.",
        "Try again later; if it keeps happening, check the API URL.",
    )


def _refused(host: str) -> UserMessage:
    """Words for a server whose host refuses the connection: the network works."""
    return UserMessage(
        "warning",
        f"The Memex server at {host} refused the connection.",
        "The network works, but nothing answers at that address: the server is down or "
        "restarting, or the API URL names the wrong port. Everything already synced is "
        "readable; saves are queued and sent later.",
        "Try again later; if it keeps happening, check the API URL.",
    )


def _server_trouble(detail: str | None, back_in_s: float | None = None) -> UserMessage:
    """Words for a server that answers with errors; ``back_in_s`` is the wait it named (a
    server down for maintenance says when it is back)."""
    action = "Try again later; nothing local is lost."
    if back_in_s:
        action = f"The server says to try again in {_wait_words(back_in_s)}; nothing local is lost."
    return UserMessage(
        "warning", "The Memex server is having trouble (it answered with an error).", detail, action
    )


def _wait_words(seconds: float) -> str:
    """A wait as a person reads it: seconds up to two minutes, then minutes, then hours."""
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 2 * 3600:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.0f} h"


def _credentials_rejected(detail: str | None, credential: Credential | None) -> UserMessage:
    """Words for credentials the server rejected, fitting how the person signed in."""
    if credential is None:
        return UserMessage(
            "error",
            "The Memex server rejected the credentials (API key or sign-in).",
            detail,
            "Sign in again, or enter a valid API key (--api-key, MEMEX_API_KEY or Settings); "
            "a MEMEX_BEARER_TOKEN in the environment is used first.",
        )
    if credential.kind == "sign_in":
        return UserMessage(
            "error",
            "The Memex server refused the sign-in.",
            detail,
            "Sign in again (Settings → Sign in with Memex, or memex-desktop login).",
        )
    if credential.kind == "token":
        where = credential.given_by or "the environment"
        return UserMessage(
            "error",
            f"The Memex server rejected the token given by {where}.",
            detail,
            f"Set a valid token in {where}, or unset it to use the sign-in or an API key.",
        )
    if credential.given_by is not None:
        return UserMessage(
            "error",
            f"The Memex server rejected the API key given by {credential.given_by}.",
            detail,
            f"Give a valid key with {credential.given_by}; without it the sign-in or the key "
            "in Settings is used.",
        )
    return UserMessage(
        "error",
        "The Memex server rejected the API key.",
        detail,
        "Enter a valid API key in Settings, or sign in with Memex.",
    )


def _usage_used_up(detail: str | None) -> UserMessage:
    """Words for a usage balance that ran out."""
    return UserMessage(
        "error",
        "Your Memex usage balance is used up; queued saves are paused.",
        detail,
        "Buy more usage at https://memex.garden/pricing, then sync again.",
    )


def _incompatible(detail: str | None) -> UserMessage:
    """Words for a server that refuses what this version sends."""
    return UserMessage(
        "error",
        "The Memex server does not accept what this version of memex-desktop sends.",
        detail,
        "Run memex-desktop doctor to see what differs, and update memex-desktop; "
        "nothing local is lost.",
    )


def _api_message(exc: ApiError, credential: Credential | None) -> UserMessage:
    """Words for the typed errors of the API client."""
    if isinstance(exc, ServerNotAnswering):
        return _not_answering(exc.host)
    if isinstance(exc, ServerRefused):
        return _refused(exc.host)
    if isinstance(exc, NetworkUnavailable):
        return _offline()
    if isinstance(exc, NotSignedIn):
        return UserMessage(
            "error",
            "You are signed out of Memex.",
            exc.message or None,
            "Sign in again (memex-desktop login or Settings → Sign in with Memex).",
        )
    if isinstance(exc, SignInError):
        return UserMessage(
            "error",
            f"Signing in to Memex did not work: {exc.message}",
            None,
            "Try again, or use an API key instead.",
        )
    if isinstance(exc, Forbidden):
        # The credentials were accepted; the server refused this call and says why.
        reason = (exc.message or "no reason given").strip().rstrip(".")
        return UserMessage(
            "error",
            f"The Memex server refused this: {reason}.",
            None,
            "Check what it names (your plan, a feature, the key's permissions); "
            "signing in again does not change it.",
        )
    if isinstance(exc, AuthError):
        return _credentials_rejected(exc.message or None, credential)
    if isinstance(exc, InsufficientCredits):
        return _usage_used_up(describe_plans(exc.upgrade_options))
    if isinstance(exc, RateLimited):
        wait = f" for {exc.retry_after:.0f} s" if exc.retry_after else ""
        return UserMessage(
            "warning",
            "The Memex server is limiting requests.",
            None,
            f"Wait{wait} and try again.",
        )
    if isinstance(exc, ServerError):
        return _server_trouble(exc.message or None, exc.retry_after)
    if isinstance(exc, ServerIncompatible):
        return _incompatible(exc.message or None)
    if isinstance(exc, ValidationError):
        return UserMessage(
            "error",
            "The Memex server refused the request.",
            exc.message or None,
            # Also said of requests the person typed nothing for (a saved view, a sync page):
            # no "check your input" here, only why it stops.
            "It is not sent again as it is: the server would refuse it the same way.",
        )
    if isinstance(exc, ApiMoved):
        # Only a client raises this, so the client's module is loaded by then; importing it
        # at the top would load the HTTP stack into every start before its first frame.
        from memex_desktop.api.client import moved_api_base

        return UserMessage(
            "error",
            f"The Memex API moved to {exc.location}.",
            None,
            "Change the API URL (Settings, --api-url or MEMEX_API_URL) to "
            f"{moved_api_base(exc.location)}.",
        )
    if isinstance(exc, ContractError):
        return UserMessage(
            "error",
            "The Memex server sent a response this version does not understand.",
            exc.message or None,
            "Update memex-desktop or report the problem.",
        )
    return UserMessage("error", "The Memex API call failed.", exc.message or None, None)


@dataclass(frozen=True)
class FreshCacheOffer:
    """Starting with a fresh cache, offered when the cache cannot be opened: ``why`` names
    the file the old one is kept as (``cache.db.<why>-YYYYmmdd-HHMMSS``), ``words`` says what
    the choice does."""

    why: str
    words: str

    def done(self, kept_as: Path) -> str:
        """What the window says once the old cache is kept as ``kept_as``."""
        return (
            f"Started with a fresh cache: the old one is kept as {kept_as.name} in "
            f"{kept_as.parent}. Your library is synced again from Memex."
        )


def fresh_cache_offer(exc: BaseException, cache: Path) -> FreshCacheOffer | None:
    """The fresh start that gets past ``exc`` when it is about the cache at ``cache`` and
    the cache is damaged or was written by a newer version; None for anything else (the
    outbox holds saves found nowhere else, and a full disk or a lock passes by itself)."""
    about = exc.file if isinstance(exc, KnownStoreError) else None
    if about is None or about.resolve() != cache.resolve():
        return None
    if isinstance(exc, SchemaTooNewError):
        why, kept = "newer", "the newer memex-desktop can still use it"
    elif isinstance(exc, DatabaseCorruptError):
        why, kept = "damaged", "as it is"
    else:
        return None
    return FreshCacheOffer(
        why,
        f"Start with a fresh cache: {cache.name} is kept next to itself under a new name "
        f"({kept}), and your library is synced again from Memex. Saves not sent yet stay "
        "in outbox.db.",
    )


def cache_problem_message(exc: BaseException, cache: Path | None) -> UserMessage:
    """The words of ``user_message`` for the window showing the cache at ``cache``: where a
    fresh cache gets past ``exc`` (a damaged or newer cache), what starting with one does, as
    the window offers it, in place of the fix by hand ("Delete cache.db…")."""
    message = user_message(exc)
    offer = fresh_cache_offer(exc, cache) if cache is not None else None
    if offer is None:
        return message
    return replace(message, action=offer.words)


def cache_problem_line(exc: BaseException, cache: Path | None) -> str:
    """``exc`` in one line for the window showing the cache at ``cache``: what happened, then
    what gets past it (see :func:`cache_problem_message`)."""
    message = cache_problem_message(exc, cache)
    return " ".join(part.strip() for part in (message.text, message.action or "") if part.strip())


def failed_sync_words(exc: BaseException | None, cache: Path | None) -> str:
    """What the window says of a sync that failed on this computer (its cache, its disk, a
    bug): that it failed, and why (see :func:`cache_problem_line`)."""
    if exc is None:
        return "Sync failed."
    return f"Sync failed: {cache_problem_line(exc, cache)}"


# A file where a folder should be (the data folder, or a folder on its path).
_FILE_IN_THE_WAY = (errno.EEXIST, errno.ENOTDIR)
# What the person can put right outside the app, then try again: room, permissions, a file
# in the way.
_FIXABLE_OS_ERRORS = (errno.ENOSPC, errno.EACCES, errno.EPERM, errno.EROFS, *_FILE_IN_THE_WAY)


def retry_may_help(exc: BaseException) -> bool:
    """Whether the same step may work later as it is: a lock another program lets go of, a
    disk that gets room, permissions put right, a file moved out of the way (not a damaged
    or newer database)."""
    if isinstance(exc, OSError):
        return exc.errno in _FIXABLE_OS_ERRORS
    return isinstance(exc, (DatabaseLockedError, DiskFullError, DatabaseAccessError))


def _os_message(exc: OSError) -> UserMessage:
    """Words for file-system errors (disk full, permissions, missing files)."""
    where = f" ({exc.filename})" if exc.filename else ""
    if exc.errno == errno.ENOSPC:
        return UserMessage(
            "error", f"The disk is full{where}.", None, "Free some disk space and try again."
        )
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return UserMessage(
            "error",
            f"memex-desktop may not write here{where}.",
            exc.strerror,
            "Choose another data folder (--data-dir) or fix the permissions.",
        )
    if exc.errno in _FILE_IN_THE_WAY:
        return UserMessage(
            "error",
            f"A file is in the way of a folder memex-desktop needs{where}.",
            exc.strerror,
            "Move the file away, or choose another data folder (--data-dir).",
        )
    if exc.errno == errno.ENOENT:
        return UserMessage("error", f"File not found{where}.", None, None)
    return UserMessage("error", f"A file operation failed{where}.", exc.strerror, None)


def _store_file(exc: KnownStoreError) -> tuple[str, bool]:
    """The file name an error is about and whether it is the outbox (errors that name no file
    come from the cache, the only other database)."""
    name = exc.file.name if exc.file is not None else "cache.db"
    return name, name.startswith("outbox")


def _store_message(exc: KnownStoreError) -> UserMessage:
    """Words for the store's known errors (too new, disk full, locked, damaged), naming the
    file they are about: the cache can be rebuilt, the outbox holds saves not yet sent."""
    name, outbox = _store_file(exc)
    what = f"The outbox of saves not sent yet ({name})" if outbox else "The local library"
    if isinstance(exc, SchemaTooNewError):
        return UserMessage(
            "error",
            f"{what} was written by a newer memex-desktop; it was left untouched.",
            f"{exc.path}: schema version {exc.found}, this version reads up to {exc.supported}",
            "Update memex-desktop to send the saves it holds."
            if outbox
            else "Update memex-desktop, or choose another data folder (--data-dir).",
        )
    if isinstance(exc, DiskFullError):
        return UserMessage(
            "error",
            f"The disk is full: {name} could not be written.",
            str(exc) or None,
            "Free some disk space and try again"
            + ("; queued saves are kept." if outbox else "; the library can be synced again."),
        )
    if isinstance(exc, DatabaseLockedError):
        return UserMessage(
            "warning",
            f"{what} is busy (another memex-desktop is writing to it).",
            None,
            "Close the other window or command and try again.",
        )
    if isinstance(exc, DatabaseCorruptError):
        folder = str(exc.file.parent) if exc.file is not None else "the data folder"
        if outbox:
            return UserMessage(
                "error",
                f"{what} is damaged.",
                str(exc) or None,
                "Close memex-desktop and open it again: a damaged outbox is copied aside and "
                "what can be read is recovered; deleting the file loses the saves not sent yet.",
            )
        return UserMessage(
            "error",
            f"{what} is damaged.",
            str(exc) or None,
            f"Delete {name} in {folder} and sync again; it holds only what the server "
            "has, and saves not sent yet are in outbox.db.",
        )
    if isinstance(exc, FolderNotWritableError):
        fix = (
            "Mount it read-write"
            if "read-only disk" in exc.reason
            else "Make it writable for your user"
        )
        return UserMessage(
            "error",
            f"The data folder {exc.folder} cannot be written: {exc.reason}.",
            str(exc.__cause__ or exc) or None,
            f"{fix}, or choose another data folder (--data-dir or MEMEX_DATA_DIR). The "
            "command line reads it as it is: memex-desktop search, show, export.",
        )
    if isinstance(exc, DatabaseReadOnlyError):
        return UserMessage(
            "error",
            f"{name} is read-only: memex-desktop cannot write it.",
            str(exc) or None,
            "Make the file and its folder writable, or choose another data folder (--data-dir).",
        )
    if isinstance(exc, DatabaseAccessError):
        return UserMessage(
            "error",
            f"memex-desktop may not open or write {name} here.",
            str(exc) or None,
            "Choose another data folder (--data-dir) or fix the permissions.",
        )
    return UserMessage("error", f"{what} cannot be used right now.", str(exc) or None, None)


STOPPED = UserMessage("info", "Stopped.", None, None)
# While an older cache is brought up to date for this version (the window's busy dialog, the
# command line's notice).
UPDATING_CACHE = UserMessage(
    "info",
    "Bringing your library's cache up to date for this version of Memex.",
    "This happens once, and can take a minute or more on a large library.",
)


def search_cut(kept: int) -> UserMessage:
    """Words for a paste longer than the search field takes: how much of it was kept."""
    return UserMessage(
        "warning",
        f"The search keeps its first {kept:,} characters: the rest of what was pasted was "
        "left out.",
    )


def user_message(exc: BaseException, credential: Credential | None = None) -> UserMessage:
    """The words for a person about ``exc``: level, text, detail and the fixing action.

    ``credential`` says how the person signs in, so rejected credentials are named as such.
    """
    if isinstance(exc, sqlite3.Error):
        # Normally the store translated it already; the result code decides, never the words.
        exc = translate(exc, "the local library")
    if isinstance(exc, ApiError):
        return _api_message(exc, credential)
    if isinstance(exc, KnownStoreError):
        return _store_message(exc)
    if isinstance(exc, SearchLanguageError):
        return UserMessage("warning", str(exc))
    if isinstance(exc, SaveBeingSent):
        return UserMessage(
            "warning",
            "This save is being sent right now, so it can no longer be dropped.",
            None,
            "Once the sync is over the outbox shows how it went; if the page reached your "
            "library and you do not want it, delete it there.",
        )
    if isinstance(exc, BadApiUrl):
        return UserMessage(
            "error",
            f"The API address “{exc.url}” cannot be used.",
            exc.reason,
            "Correct it in Settings (or where it was given: --api-url or MEMEX_API_URL), "
            "for example https://memex.garden/api.",
        )
    if isinstance(exc, OSError):
        return _os_message(exc)
    if isinstance(exc, KeyboardInterrupt):
        return STOPPED
    return UserMessage(
        "error",
        "Something went wrong inside memex-desktop.",
        f"{type(exc).__name__}: {exc}"[:300],
        "Please report this problem with the log file.",
    )


# --------------------------------------------------------------------------- connection states


@dataclass(frozen=True)
class StateWords:
    """What the window says about a connection state: a short label, the button of the action
    that fixes it ("" when nothing needs doing) and the full message behind it."""

    label: str
    button: str
    message: UserMessage


_STATE_LABELS: dict[ConnectionState, tuple[str, str]] = {
    ConnectionState.NOT_CONFIGURED: ("Not connected to Memex", "Connect…"),
    ConnectionState.ONLINE: ("Online", ""),
    ConnectionState.OFFLINE: ("Offline: reading the local library; saves wait", "Retry now"),
    ConnectionState.SERVER_DOWN: ("Memex server having trouble", "Retry now"),
    ConnectionState.INSUFFICIENT_CREDITS: ("Usage balance used up: saves are paused", "See plans…"),
    # The fix is not a retry: the connection check shows what the server does differently.
    ConnectionState.INCOMPATIBLE: ("Memex server incompatible", "Check connection…"),
}


def _rejected_label(credential: Credential | None) -> tuple[str, str]:
    """The status bar's words for rejected credentials; no button where Settings cannot help
    (a credential given by a flag or the environment wins over them)."""
    if credential is None:
        return "Sign-in needed: the credentials were rejected", "Settings…"
    if credential.kind == "sign_in":
        return "Sign-in needed: Memex refused the sign-in", "Sign in…"
    what = "token" if credential.kind == "token" else "API key"
    if credential.given_by is not None:
        return f"The {what} given by {credential.given_by} was rejected", ""
    return f"Sign-in needed: the {what} was rejected", "Enter API key…"


def state_message(state: ConnectionState, credential: Credential | None = None) -> UserMessage:
    """The full words for a connection state when no exception is at hand."""
    if state is ConnectionState.NOT_CONFIGURED:
        return UserMessage(
            "warning",
            "Not signed in to Memex, and no API key.",
            "The local library is readable; nothing is synced.",
            "Sign in (memex-desktop login or Settings → Sign in with Memex), or give an API "
            "key (--api-key, MEMEX_API_KEY or Settings).",
        )
    if state is ConnectionState.OFFLINE:
        return _offline()
    if state is ConnectionState.SERVER_DOWN:
        return _server_trouble(None)
    if state is ConnectionState.AUTH_REJECTED:
        return _credentials_rejected(None, credential)
    if state is ConnectionState.INSUFFICIENT_CREDITS:
        return _usage_used_up(None)
    if state is ConnectionState.INCOMPATIBLE:
        return _incompatible(None)
    return UserMessage("info", "Connected to Memex.", None, None)


def state_words(
    state: ConnectionState,
    *,
    credential: Credential | None = None,
    error: BaseException | None = None,
    synced_at: str | None = None,
) -> StateWords:
    """The status bar's words for ``state``: reached because of ``error`` (if known), with
    ``credential`` in use, online since a sync that ended at ``synced_at`` (a local time)."""
    if state is ConnectionState.AUTH_REJECTED:
        label, button = _rejected_label(credential)
    elif isinstance(error, ServerNotAnswering):
        # Reached, but silent: not offline (the network is fine), and the host says where.
        label, button = f"{error.host} is not answering; saves wait", "Retry now"
    elif isinstance(error, ServerRefused):
        # Not offline either: the host said no, so the server (not the network) is down.
        label, button = f"{error.host} refused the connection; saves wait", "Retry now"
    else:
        label, button = _STATE_LABELS[state]
    if state is ConnectionState.ONLINE and synced_at:
        label = f"Online · synced {synced_at}"
    message = (
        user_message(error, credential) if error is not None else state_message(state, credential)
    )
    return StateWords(label, button, message)


# When links queued in each connection state but ONLINE are saved (the status bar says why).
_SAVED_WHEN: dict[ConnectionState, str] = {
    ConnectionState.NOT_CONFIGURED: "once you connect to Memex",
    ConnectionState.OFFLINE: "when Memex can be reached",
    ConnectionState.SERVER_DOWN: "when Memex can be reached",
    ConnectionState.AUTH_REJECTED: "once Memex accepts your sign-in or API key",
    ConnectionState.INSUFFICIENT_CREDITS: "when saves resume (your usage balance is used up)",
    ConnectionState.INCOMPATIBLE: "once the Memex server accepts what this version sends",
}


def queued_links_words(count: int, state: ConnectionState) -> str:
    """What the notice after a drop or paste says of the ``count`` links it queued, in the
    connection state the window knows: "Saving 2 links" while Memex takes saves, else when
    they will be saved ("1 link queued: it is saved when Memex can be reached"), so a notice
    never says "Saving" while the status bar says saves wait."""
    links = f"{count:,} link{'' if count == 1 else 's'}"
    when = _SAVED_WHEN.get(state)
    if when is None:
        return f"Saving {links}"
    return f"{links} queued: {'it is' if count == 1 else 'they are'} saved {when}"


# --------------------------------------------------------------------------- failed saves

# Why a queued save failed, kept with the save (a stable code: outbox rows outlive versions).
ErrorKind = Literal[
    "network",
    "not_answering",
    "auth_rejected",
    "forbidden",
    "insufficient_credits",
    "rate_limited",
    "rejected",
    "server_error",
    "unreadable",
    "moved",
    "incompatible",
    "failed",
]
ERROR_KINDS: tuple[ErrorKind, ...] = get_args(ErrorKind)


def error_kind(exc: BaseException) -> ErrorKind:
    """The kind of failure ``exc`` is, as an outbox row keeps it."""
    if isinstance(exc, ServerNotAnswering):
        return "not_answering"
    if isinstance(exc, NetworkUnavailable):
        return "network"
    if isinstance(exc, Forbidden):
        return "forbidden"
    if isinstance(exc, AuthError):
        return "auth_rejected"
    if isinstance(exc, InsufficientCredits):
        return "insufficient_credits"
    if isinstance(exc, RateLimited):
        return "rate_limited"
    if isinstance(exc, ServerError):
        return "server_error"
    if isinstance(exc, ServerIncompatible):
        return "incompatible"
    if isinstance(exc, ValidationError):
        return "rejected"
    if isinstance(exc, ApiMoved):
        return "moved"
    if isinstance(exc, ContractError):
        return "unreadable"
    return "failed"


def failure_message(kind: str | None, detail: str | None = None, attempts: int = 0) -> UserMessage:
    """The words for a save that failed ``attempts`` times for a reason of ``kind`` (an
    :data:`ErrorKind`, or None for rows older than kinds); ``detail`` is the server's message."""
    if kind == "network":
        return UserMessage(
            "warning",
            "The Memex server could not be reached.",
            None,
            "The save is sent again when the connection is back.",
        )
    if kind == "not_answering":
        return UserMessage(
            "warning",
            "The Memex server did not answer this save in time.",
            detail,
            "The save is sent again later.",
        )
    if kind == "auth_rejected":
        return UserMessage(
            "error",
            "The Memex server rejected the credentials.",
            None,
            "Sign in again or enter a valid API key; the save waits.",
        )
    if kind == "forbidden":
        return UserMessage(
            "error",
            "The Memex server refused this save.",
            detail,
            "Check what it names (your plan, a feature, the key's permissions).",
        )
    if kind == "insufficient_credits":
        return _usage_used_up(None)
    if kind == "rate_limited":
        return UserMessage(
            "warning",
            "The Memex server is limiting requests.",
            None,
            "The save is sent again soon.",
        )
    if kind == "rejected":
        return UserMessage(
            "error",
            "The Memex server refused this save.",
            detail,
            "Check the link or the note; retrying sends it unchanged.",
        )
    if kind == "server_error":
        text = (
            f"The Memex server failed this save {attempts} times."
            if attempts > 1
            else "The Memex server had trouble with this save."
        )
        return UserMessage("warning", text, detail, "Retry it later, or drop it.")
    if kind == "unreadable":
        return UserMessage(
            "warning",
            "The Memex server's answer to this save could not be read.",
            detail,
            "The save is sent again later.",
        )
    if kind == "moved":
        return UserMessage(
            "error",
            "The Memex API moved.",
            detail,
            "Change the API URL (Settings, --api-url or MEMEX_API_URL).",
        )
    if kind == "incompatible":
        return _incompatible(detail)
    if kind == "failed":
        return UserMessage(
            "error",
            "The save could not be sent.",
            detail,
            "Please report this problem with the log file.",
        )
    return UserMessage("warning", "The save could not be sent.", None, "Retry it, or drop it.")


@dataclass(frozen=True)
class PictureFailure:
    """One picture of an item that was not loaded: why (a remote_images.RefusalKind), from
    which site, and the detail the fetch gave (``status 404``)."""

    kind: str
    host: str
    detail: str = ""


# What went wrong, by kind of refusal, said of the sites it happened with.
_PICTURE_WORDS: dict[str, str] = {
    "unreachable": "{hosts} could not be reached (no connection, or no such site)",
    "timed_out": "{hosts} took too long to send {them}",
    "status": "{hosts} answered with an error ({statuses}) instead of {them}",
    "not_image": "{hosts} sent something that is not a PNG, JPEG, GIF or WebP picture",
    "too_large": "{hosts} sent a picture larger than the reader loads",
    "blocked": "{hosts} is not a public web address, and the reader loads pictures from "
    "public sites only",
    "malformed": "the address given for {them} is not a usable web address",
}
_SVG_WORDS = "{hosts} sent an SVG drawing, which the reader never loads (it can carry script)"
_CONNECTION_TROUBLE = frozenset({"unreachable", "timed_out"})


def _joined(names: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and 2 more``."""
    if len(names) <= 2:
        return " and ".join(names)
    return f"{names[0]}, {names[1]} and {len(names) - 2} more"


def images_not_loaded(failures: list[PictureFailure], wanted: int) -> UserMessage | None:
    """The words for an item's pictures that did not load (``wanted`` were asked for), or
    None when nothing went wrong that the person needs to hear (only cancelled ones)."""
    failed = [failure for failure in failures if failure.kind != "cancelled"]
    if not failed:
        return None
    if wanted <= 1:
        text = "The picture was not loaded."
    elif len(failed) >= wanted:
        text = f"None of the {wanted} pictures were loaded."
    else:
        text = f"{len(failed)} of {wanted} pictures were not loaded."
    reasons: list[str] = []
    for kind in dict.fromkeys(failure.kind for failure in failed):
        same = [failure for failure in failed if failure.kind == kind]
        hosts = _joined(list(dict.fromkeys(failure.host or "the site" for failure in same)))
        statuses = _joined(
            list(dict.fromkeys(f.detail.replace("status", "HTTP").strip() for f in same))
        )
        svg = kind == "not_image" and all("SVG" in failure.detail for failure in same)
        words = _SVG_WORDS if svg else _PICTURE_WORDS.get(kind, "{hosts} did not send {them}")
        them = "it" if len(same) == 1 else "them"
        reasons.append(words.format(hosts=hosts, them=them, statuses=statuses))
    detail = "; ".join(reasons) + "."
    if detail.startswith("the "):  # a site's name keeps its own spelling
        detail = "The" + detail[3:]
    kinds = {failure.kind for failure in failed}
    action = None
    if kinds & _CONNECTION_TROUBLE:
        action = "Check the connection, then try again."
    elif "status" in kinds:
        action = "Try again later; the site may have moved or removed it."
    return UserMessage("warning", text, detail, action)


class ConnectionCheck(enum.StrEnum):
    """The connection checks (``memex-desktop doctor``, Help → Check the connection to Memex…),
    named once: the probes report them, the words below explain them, the report keeps the
    value (a person reads it, so it is plain words)."""

    API_URL = "API URL"
    AUTHENTICATION = "authentication"
    REACHABLE = "reachable"
    SORT_BY_ACCEPTED = "sortBy accepted"
    EMPTY_QUERY_LISTS = "empty query lists the library"
    IDENTITY = "id vs content_id"
    NEWEST_FIRST = "newest first"
    SORT_BY_HONOURED = "sortBy honoured"
    OFFSET_PAGING = "offset pages disjoint"
    TIME_PAGING = "timeRange paging"
    PAGE_CAP = "page cap"
    VIEWS = "saved views (/list-views)"
    FEEDS = "feeds (/list-feeds)"
    TAG_NAMES = "tag names (/get-available-tag-names)"
    SYNC = "sync"


# What each connection check means for the person: by the check, then by its outcome (True
# ok, False not ok, None not known, or for information only). A problem says what still works
# and what to do.
_REPORT_IT = "if it stays so, send the report (see below) to the Memex team"
_CHECK_WORDS: dict[ConnectionCheck, dict[bool | None, str]] = {
    ConnectionCheck.API_URL: {
        None: "Where the app sends its requests (File → Settings…, or --api-url).",
    },
    ConnectionCheck.AUTHENTICATION: {
        None: "How the app signs in to Memex: with an API key or with “Sign in with Memex”.",
    },
    ConnectionCheck.REACHABLE: {
        True: "The server answers and accepts your credentials.",
    },
    ConnectionCheck.SORT_BY_ACCEPTED: {
        True: "The server takes the order the app asks for.",
        False: "The server refuses the order the app asks for; the sync lists the library "
        "in the server's own order instead. Nothing to do.",
    },
    ConnectionCheck.EMPTY_QUERY_LISTS: {
        True: "The app can read your whole library page by page: that is how a sync copies "
        "it to this computer.",
        False: "The server does not list the library, so a sync cannot copy it (searching the "
        f"server still works). Check the API URL in File → Settings…; {_REPORT_IT}.",
    },
    ConnectionCheck.IDENTITY: {
        None: "How the app tells items apart; either way each item is kept once, and notes "
        "and saves find their item.",
    },
    ConnectionCheck.NEWEST_FIRST: {
        True: "New items come first, so a sync after the first one reads only what is new.",
        False: "The server lists items in no date order: a sync reads a window of dates to "
        "find new items instead (slower, still complete). Nothing to do.",
    },
    ConnectionCheck.SORT_BY_HONOURED: {
        True: "The app can ask for the newest or the oldest items first.",
        False: "The server keeps its own order whatever the app asks; the sync does not "
        "depend on it. Nothing to do.",
    },
    ConnectionCheck.OFFSET_PAGING: {
        True: "The library can be read page after page without repeats.",
        False: "Pages repeat items, so the sync reads the library by date instead. Nothing to do.",
        None: "Not known yet: too few items to tell. It matters only for a larger library, "
        "and the sync checks it as it reads.",
    },
    ConnectionCheck.TIME_PAGING: {
        True: "The sync can read the library by date: that is how it finds new items and "
        "gets past pages that repeat.",
        False: "The server ignores dates, so the sync reads the library page by page.",
        None: "Not known yet: too few dated items to tell. It matters only for a larger library.",
    },
    ConnectionCheck.PAGE_CAP: {
        True: "The server sends pages as large as the sync asks for.",
        False: "The server sends smaller pages than asked for: a sync still reads "
        "everything, in more requests. Nothing to do.",
        None: "Not known yet: the library is smaller than one page. It matters only for a "
        "larger library.",
    },
    ConnectionCheck.VIEWS: {
        True: "Your saved views can be shown in the sidebar.",
        False: "Your saved views cannot be read, so the sidebar shows none; everything else "
        f"works. Check again later; {_REPORT_IT}.",
    },
    ConnectionCheck.FEEDS: {
        True: "Your feeds can be shown in the sidebar.",
        False: "Your feeds cannot be read, so the sidebar shows none; everything else works. "
        f"Check again later; {_REPORT_IT}.",
    },
    ConnectionCheck.TAG_NAMES: {
        True: "Your tags can be shown by name and searched (tag:NAME).",
        False: "Tag names cannot be read, so tags may show without their names; everything "
        f"else works. Check again later; {_REPORT_IT}.",
    },
    ConnectionCheck.SYNC: {
        True: "A sync can copy your whole library to this computer and keep it up to date.",
        False: "A sync cannot copy your library from this server; what is already on this "
        "computer stays readable. Check the API URL in File → Settings…; if it is right, "
        "send the report (see below) to the Memex team.",
    },
}


def check_meaning(
    check: ConnectionCheck, outcome: bool | None, said: str = "", note: str = ""
) -> str:
    """What a connection check's ``outcome`` means for the person, and what to do when it is
    not ok; ``said`` is the server's own words on it, ``note`` what the check noted besides
    (why a sync cannot work, or :func:`user_message`'s words when the server could not be
    reached).
    """
    words = _CHECK_WORDS[check]
    meaning = words.get(outcome)
    if meaning is None:
        return note or words.get(None, "")  # unreachable: user_message's words say it all
    if outcome is not False:
        return meaning
    if check is ConnectionCheck.SYNC and note:
        meaning = f"{meaning} Why: {note.rstrip('.')}."
    if said:
        meaning = f"{meaning} The server said: {said.rstrip('.')}."
    return meaning


# Where a queued save is, in the words of the Outbox pane and of `outbox list` alike:
# queued -> sending -> sent (the server processes it) -> in library, or needs attention.
SAVE_STATE_WORDS: dict[str, str] = {
    "queued": "Queued",
    "sending": "Sending…",
    "accepted": "Sent · processing",
    "confirmed": "In library",
    "needs_attention": "Needs attention",
}


def save_state_words(state: str, processing: bool | None = None) -> str:
    """A save's state for a person; ``processing`` False: the server has finished with a save
    it accepted (None: not known, said as still processing)."""
    if state == "accepted" and processing is False:
        return "Sent"
    return SAVE_STATE_WORDS.get(state, state)
