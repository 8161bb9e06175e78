"""The one place that turns an exception into words for a person (STYLE.md habit 5).

:func:`user_message` maps every error the app expects (API errors, store errors, disk and file
errors) to a :class:`UserMessage`: a level, one line of text, an optional detail and the action
that fixes it. Anything else is a bug: it gets a generic message that asks for a report, and the
caller logs the traceback. No message ever contains the API key (errors never carry it).
"""

from __future__ import annotations

import errno
import sqlite3
from dataclasses import dataclass
from typing import Literal

from memex_desktop.api.client import moved_api_base
from memex_desktop.api.errors import (
    ApiError,
    ApiMoved,
    AuthError,
    ContractError,
    Forbidden,
    InsufficientCredits,
    NetworkUnavailable,
    RateLimited,
    ServerError,
    ServerIncompatible,
    ValidationError,
)
from memex_desktop.api.models import AvailablePlansOutput
from memex_desktop.api.oauth import NotSignedIn, SignInError
from memex_desktop.store.errors import (
    DatabaseCorruptError,
    DatabaseLockedError,
    DiskFullError,
    KnownStoreError,
    SchemaTooNewError,
)

Level = Literal["info", "warning", "error"]


@dataclass(frozen=True)
class UserMessage:
    """What to tell the person: how bad, what happened, details, and what to do about it."""

    level: Level
    text: str
    detail: str | None = None
    action: str | None = None

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
    names = []
    for plan in options.plans[:5]:
        label = plan.plan_name or plan.id
        if plan.amount is not None and plan.currency:
            label += f" ({plan.amount} {plan.currency.upper()})"
        names.append(label)
    return "Plans: " + ", ".join(names)


def _api_message(exc: ApiError) -> UserMessage:
    """Words for the typed errors of the API client."""
    if isinstance(exc, NetworkUnavailable):
        return UserMessage(
            "warning",
            "You are offline: the Memex server cannot be reached.",
            "Everything already synced is readable; saves are queued and sent later.",
            "Check the network connection or the API URL.",
        )
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
        return UserMessage(
            "error",
            "The Memex server rejected the credentials (API key or sign-in).",
            exc.message or None,
            "Sign in again, or enter a valid API key (--api-key, MEMEX_API_KEY or Settings); "
            "a MEMEX_BEARER_TOKEN in the environment is used first.",
        )
    if isinstance(exc, InsufficientCredits):
        return UserMessage(
            "error",
            "Your Memex usage balance is used up; queued saves are paused.",
            describe_plans(exc.upgrade_options),
            "Buy more usage at https://memex.garden/pricing, then sync again.",
        )
    if isinstance(exc, RateLimited):
        wait = f" for {exc.retry_after:.0f} s" if exc.retry_after else ""
        return UserMessage(
            "warning",
            "The Memex server is limiting requests.",
            None,
            f"Wait{wait} and try again.",
        )
    if isinstance(exc, ServerError):
        return UserMessage(
            "warning",
            "The Memex server is having trouble (it answered with an error).",
            exc.message or None,
            "Try again later; nothing local is lost.",
        )
    if isinstance(exc, ServerIncompatible):
        return UserMessage(
            "error",
            "The Memex server does not accept what this version of memex-desktop sends.",
            exc.message or None,
            "Run memex-desktop doctor to see what differs, and update memex-desktop; "
            "nothing local is lost.",
        )
    if isinstance(exc, ValidationError):
        return UserMessage(
            "error",
            "The Memex server refused the request.",
            exc.message or None,
            "Check the input; this request will not be retried automatically.",
        )
    if isinstance(exc, ApiMoved):
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
    if exc.errno == errno.ENOENT:
        return UserMessage("error", f"File not found{where}.", None, None)
    return UserMessage("error", f"A file operation failed{where}.", exc.strerror, None)


def _store_message(exc: KnownStoreError) -> UserMessage:
    """Words for the store's known errors (too new, disk full, locked, damaged)."""
    if isinstance(exc, SchemaTooNewError):
        return UserMessage(
            "error",
            "The local library was written by a newer memex-desktop; it was left untouched.",
            str(exc) or None,
            "Update memex-desktop, or choose another data folder (--data-dir).",
        )
    if isinstance(exc, DiskFullError):
        return UserMessage(
            "error", "The disk is full.", str(exc) or None, "Free some disk space and try again."
        )
    if isinstance(exc, DatabaseLockedError):
        return UserMessage(
            "warning",
            "The local library is busy (another memex-desktop is writing to it).",
            None,
            "Close the other window or command and try again.",
        )
    if isinstance(exc, DatabaseCorruptError):
        return UserMessage(
            "error",
            "The local library file is damaged.",
            str(exc) or None,
            "Delete cache.db in the data folder and sync again; queued saves are kept.",
        )
    return UserMessage(
        "error", "The local library cannot be used right now.", str(exc) or None, None
    )


def user_message(exc: BaseException) -> UserMessage:
    """The words for a person about ``exc``: level, text, detail and the fixing action."""
    if isinstance(exc, ApiError):
        return _api_message(exc)
    if isinstance(exc, KnownStoreError):
        return _store_message(exc)
    if isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc).lower():
        return UserMessage(
            "warning",
            "The local library is busy (another memex-desktop is writing to it).",
            None,
            "Close the other window or command and try again.",
        )
    if isinstance(exc, sqlite3.DatabaseError) and "malformed" in str(exc).lower():
        return UserMessage(
            "error",
            "The local library file is damaged.",
            str(exc),
            "Delete cache.db in the data folder and sync again; queued saves are kept.",
        )
    if isinstance(exc, OSError):
        return _os_message(exc)
    if isinstance(exc, KeyboardInterrupt):
        return UserMessage("info", "Stopped.", None, None)
    return UserMessage(
        "error",
        "Something went wrong inside memex-desktop.",
        f"{type(exc).__name__}: {exc}"[:300],
        "Please report this problem with the log file.",
    )
