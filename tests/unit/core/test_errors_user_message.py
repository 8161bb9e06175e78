"""Every expected error becomes one clear message with an action; bugs get a generic one."""

from __future__ import annotations

import errno
import sqlite3

import pytest
from support.secrets import TEST_API_KEY

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
from memex_desktop.api.models import AvailablePlan, AvailablePlansOutput
from memex_desktop.api.oauth import NotSignedIn, SignInTimedOut
from memex_desktop.errors import UserMessage, user_message
from memex_desktop.store.errors import (
    DatabaseCorruptError,
    DatabaseLockedError,
    DiskFullError,
    KnownStoreError,
    SchemaTooNewError,
)

PLANS = AvailablePlansOutput(
    plans=[AvailablePlan(id="payg-10", planName="Pay as you go", amount=10, currency="usd")]
)


@pytest.mark.parametrize(
    ("exc", "level", "needle", "action_needle"),
    [
        (NetworkUnavailable("connect failed"), "warning", "offline", "network"),
        (AuthError("invalid key", status_code=401), "error", "rejected the credentials", "API key"),
        (NotSignedIn("refresh token refused"), "error", "signed out", "Sign in again"),
        (SignInTimedOut("no answer from the browser"), "error", "no answer", "API key"),
        (
            InsufficientCredits("no credits", status_code=402, upgrade_options=PLANS),
            "error",
            "usage balance",
            "pricing",
        ),
        (RateLimited("slow down", retry_after=12), "warning", "limiting", "12 s"),
        (ServerError("boom", status_code=503), "warning", "trouble", "later"),
        (ValidationError("bad url", status_code=400), "error", "refused", "not be retried"),
        (ContractError("not json", raw_body=b"<html>"), "error", "does not understand", "Update"),
        (ApiError("odd"), "error", "failed", None),
        (OSError(errno.ENOSPC, "No space left", "/data/cache.db"), "error", "disk is full", "Free"),
        (
            PermissionError(errno.EACCES, "Permission denied", "/x"),
            "error",
            "may not write",
            "data",
        ),
        (FileNotFoundError(errno.ENOENT, "No such file", "/y"), "error", "not found", None),
        (sqlite3.OperationalError("database is locked"), "warning", "busy", "Close"),
        (sqlite3.DatabaseError("database disk image is malformed"), "error", "damaged", "cache.db"),
        (KeyboardInterrupt(), "info", "Stopped", None),
        (RuntimeError("unexpected"), "error", "went wrong", "report"),
    ],
)
def test_user_message_maps_each_error(
    exc: BaseException, level: str, needle: str, action_needle: str | None
) -> None:
    message = user_message(exc)
    assert isinstance(message, UserMessage)
    assert message.level == level
    assert needle in message.text
    if action_needle is None:
        assert message.action is None
    else:
        assert message.action is not None
        assert action_needle in message.action
    line = message.one_line()
    assert "\n" not in line
    assert message.text.rstrip(".") in line


def test_insufficient_credits_lists_the_plans() -> None:
    message = user_message(InsufficientCredits("no credits", upgrade_options=PLANS))
    assert message.detail is not None
    assert "Pay as you go (10 USD)" in message.detail


def test_validation_error_keeps_the_server_message() -> None:
    message = user_message(ValidationError("url must be absolute", status_code=422))
    assert message.detail == "url must be absolute"


@pytest.mark.parametrize(
    ("exc", "needle"),
    [
        (SchemaTooNewError("/d/cache.db", 9, 3), "newer memex-desktop"),
        (DiskFullError("writing: full"), "disk is full"),
        (DatabaseLockedError("locked"), "busy"),
        (DatabaseCorruptError("damaged"), "damaged"),
        (KnownStoreError("odd"), "cannot be used"),
    ],
)
def test_store_errors(exc: Exception, needle: str) -> None:
    assert needle in user_message(exc).text


def test_messages_never_contain_the_key() -> None:
    exc = AuthError("invalid key")
    assert TEST_API_KEY not in user_message(exc).one_line()


# ------------------------------------------------------------ moved, refused, incompatible


def test_forbidden_leads_with_the_servers_words() -> None:
    message = user_message(Forbidden("Saved views need the Pro plan.", status_code=403))
    assert message.level == "error"
    assert message.text == "The Memex server refused this: Saved views need the Pro plan."
    assert "rejected the credentials" not in message.one_line()
    assert message.action is not None
    assert "plan" in message.action


def test_forbidden_without_words_still_reads() -> None:
    message = user_message(Forbidden("", status_code=403))
    assert message.text == "The Memex server refused this: no reason given."


def test_plain_auth_error_still_asks_to_sign_in_again() -> None:
    message = user_message(AuthError("invalid JWT", status_code=401))
    assert "rejected the credentials" in message.text
    assert message.action is not None
    assert "Sign in again" in message.action


@pytest.mark.parametrize(
    ("location", "base"),
    [
        ("https://api.memex.garden/list-views", "https://api.memex.garden"),
        ("https://memex.garden/api/v2/search", "https://memex.garden/api/v2"),
        ("https://memex.garden/new-home", "https://memex.garden/new-home"),
    ],
)
def test_moved_api_names_the_location_and_the_new_base(location: str, base: str) -> None:
    exc = ApiMoved("POST /search: HTTP 301: moved", status_code=301, location=location)
    message = user_message(exc)
    assert message.level == "error"
    assert message.text == f"The Memex API moved to {location}."
    assert message.action == (
        f"Change the API URL (Settings, --api-url or MEMEX_API_URL) to {base}."
    )
    assert message.one_line().count(base) >= 1


def test_incompatible_server_shows_its_message_and_what_to_do() -> None:
    exc = ServerIncompatible("Unknown field: includeNotes", status_code=400)
    message = user_message(exc)
    assert message.level == "error"
    assert message.text == (
        "The Memex server does not accept what this version of memex-desktop sends."
    )
    assert message.detail == "Unknown field: includeNotes"
    assert message.action == (
        "Run memex-desktop doctor to see what differs, and update memex-desktop; "
        "nothing local is lost."
    )
    line = message.one_line()
    assert "Unknown field: includeNotes." in line
    assert "\n" not in line


def test_incompatible_without_a_message_has_no_detail() -> None:
    assert user_message(ServerIncompatible("")).detail is None
