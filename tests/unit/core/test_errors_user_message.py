"""Every expected error becomes one clear message with an action; bugs get a generic one."""

from __future__ import annotations

import errno
import sqlite3
from pathlib import Path

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
    ServerRefused,
    ValidationError,
)
from memex_desktop.api.models import AvailablePlan, AvailablePlansOutput
from memex_desktop.api.oauth import NotSignedIn, SignInTimedOut
from memex_desktop.errors import (
    ERROR_KINDS,
    ConnectionState,
    Credential,
    UserMessage,
    error_kind,
    failure_message,
    fresh_cache_offer,
    retry_may_help,
    state_message,
    state_words,
    user_message,
)
from memex_desktop.store.errors import (
    DatabaseAccessError,
    DatabaseCorruptError,
    DatabaseLockedError,
    DiskFullError,
    KnownStoreError,
    SchemaTooNewError,
    StoreBugError,
)

PLANS = AvailablePlansOutput(
    plans=[
        AvailablePlan(
            id="payg-10",
            planName="Pay as you go",
            amount=10,
            currency="usd",
            usageBalanceMicrosIncluded=10_000_000,
        )
    ]
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
        (ValidationError("bad url", status_code=400), "error", "refused", "not sent again"),
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
    assert "Pay as you go ($10.00)" in message.detail


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
        (DatabaseAccessError("read-only"), "may not open or write"),
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


# ------------------------------------------------------------ SQLite errors, by result code


def test_a_raw_sqlite_lock_is_named_by_its_result_code(tmp_path: Path) -> None:
    path = tmp_path / "cache.db"
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("CREATE TABLE t (x)")
    holder.execute("BEGIN EXCLUSIVE")
    other = sqlite3.connect(path, timeout=0)
    try:
        with pytest.raises(sqlite3.OperationalError) as caught:
            other.execute("SELECT * FROM t")
    finally:
        other.close()
        holder.execute("ROLLBACK")
        holder.close()
    message = user_message(caught.value)
    assert (message.level, message.text) == (
        "warning",
        "The local library is busy (another memex-desktop is writing to it).",
    )


def test_a_raw_damaged_file_is_named_by_its_result_code(tmp_path: Path) -> None:
    path = tmp_path / "cache.db"
    path.write_bytes(b"not a database at all " * 200)
    conn = sqlite3.connect(path)
    try:
        with pytest.raises(sqlite3.DatabaseError) as caught:
            conn.execute("SELECT * FROM t")
    finally:
        conn.close()
    message = user_message(caught.value)
    assert "damaged" in message.text
    assert message.action is not None
    assert "cache.db" in message.action


@pytest.mark.parametrize(
    "exc",
    [
        sqlite3.OperationalError("database is locked"),  # words without SQLite's code
        StoreBugError("writing cache.db: no such table: x"),
    ],
)
def test_sqlite_errors_no_environment_explains_are_bugs(exc: Exception) -> None:
    message = user_message(exc)
    assert message.text == "Something went wrong inside memex-desktop."
    assert message.action is not None
    assert "report" in message.action


# ------------------------------------------------------------ credentials, as the person signed in

SIGN_IN = Credential("sign_in")
KEYRING_KEY = Credential("api_key")
KEY_FROM_ENVIRONMENT = Credential("api_key", given_by="MEMEX_API_KEY")
TOKEN_FROM_ENVIRONMENT = Credential("token", given_by="MEMEX_BEARER_TOKEN")


def test_rejected_sign_in_never_speaks_of_an_api_key() -> None:
    message = user_message(AuthError("invalid JWT", status_code=401), SIGN_IN)
    words = state_words(ConnectionState.AUTH_REJECTED, credential=SIGN_IN)
    for line in (message.one_line(), words.label, words.button):
        assert "API key" not in line
    assert "sign-in" in message.text
    assert words.button == "Sign in…"


def test_a_rejected_stored_key_is_fixed_in_settings() -> None:
    words = state_words(ConnectionState.AUTH_REJECTED, credential=KEYRING_KEY)
    assert words.label == "Sign-in needed: the API key was rejected"
    assert words.button == "Enter API key…"
    assert user_message(AuthError("bad key"), KEYRING_KEY).text == (
        "The Memex server rejected the API key."
    )


@pytest.mark.parametrize("credential", [KEY_FROM_ENVIRONMENT, TOKEN_FROM_ENVIRONMENT])
def test_a_rejected_credential_of_the_environment_is_named_where_it_came_from(
    credential: Credential,
) -> None:
    words = state_words(ConnectionState.AUTH_REJECTED, credential=credential)
    message = user_message(AuthError("rejected"), credential)
    assert credential.given_by is not None
    assert credential.given_by in words.label
    assert credential.given_by in message.text
    assert credential.given_by in (message.action or "")
    assert words.button == ""  # Settings cannot override what the environment gives


# ------------------------------------------------------------ connection states


@pytest.mark.parametrize("state", list(ConnectionState))
def test_every_connection_state_has_words(state: ConnectionState) -> None:
    words = state_words(state)
    assert words.label
    assert words.message.text
    assert words.message == state_message(state)
    assert bool(words.button) is (state is not ConnectionState.ONLINE)
    if state is not ConnectionState.ONLINE:
        assert words.message.action


def test_state_words_carry_the_error_behind_them() -> None:
    error = ServerIncompatible("Unknown field: includeNotes")
    words = state_words(ConnectionState.INCOMPATIBLE, error=error)
    assert words.label == "Memex server incompatible"
    assert words.message == user_message(error)


def test_a_refused_connection_names_the_host_and_is_not_called_offline() -> None:
    error = ServerRefused("POST /search: 10.0.0.5 refused the connection", host="10.0.0.5")
    words = state_words(ConnectionState.OFFLINE, error=error)
    assert words.label == "10.0.0.5 refused the connection; saves wait"
    assert words.button == "Retry now"
    assert words.message.text == "The Memex server at 10.0.0.5 refused the connection."
    assert "offline" not in words.message.one_line().lower()
    assert "offline" in state_words(ConnectionState.OFFLINE).label.lower()


def test_online_says_when_the_last_sync_ended() -> None:
    assert state_words(ConnectionState.ONLINE, synced_at="14:05").label == "Online · synced 14:05"


# ------------------------------------------------------------ failed saves


@pytest.mark.parametrize(
    ("exc", "kind"),
    [
        (NetworkUnavailable("x"), "network"),
        (AuthError("x"), "auth_rejected"),
        (NotSignedIn("x"), "auth_rejected"),
        (Forbidden("x"), "forbidden"),
        (InsufficientCredits("x"), "insufficient_credits"),
        (RateLimited("POST /save-content-by-url: HTTP 429"), "rate_limited"),
        (ValidationError("x"), "rejected"),
        (ServerError("x"), "server_error"),
        (ContractError("x"), "unreadable"),
        (ApiMoved("x", location="https://elsewhere.test/api"), "moved"),
        (ServerIncompatible("x"), "incompatible"),
        (RuntimeError("x"), "failed"),
    ],
)
def test_error_kinds(exc: BaseException, kind: str) -> None:
    assert error_kind(exc) == kind
    assert kind in ERROR_KINDS


@pytest.mark.parametrize("kind", [*ERROR_KINDS, None, "a-kind-from-a-newer-version"])
def test_every_failure_kind_has_words_for_people(kind: str | None) -> None:
    message = failure_message(kind, "POST /save-content-by-url: HTTP 429: slow down", attempts=2)
    assert message.text
    assert message.action
    for developer_word in ("POST", "HTTP", "RateLimited", "Error:"):
        assert developer_word not in message.text


def test_a_refused_save_keeps_the_servers_words_as_detail() -> None:
    message = failure_message("rejected", "POST /save-content-by-url: HTTP 400: invalid URL")
    assert message.text == "The Memex server refused this save."
    assert message.detail is not None
    assert "invalid URL" in message.detail


def test_repeated_server_failures_say_how_often() -> None:
    assert "6 times" in failure_message("server_error", None, attempts=6).text


def _about(exc: KnownStoreError, path: Path) -> KnownStoreError:
    exc.file = path
    return exc


def test_a_fresh_cache_is_offered_for_a_damaged_or_newer_cache_only(tmp_path: Path) -> None:
    cache = tmp_path / "cache.db"
    damaged = fresh_cache_offer(_about(DatabaseCorruptError("x"), cache), cache)
    newer = fresh_cache_offer(SchemaTooNewError(str(cache), 12, 9), cache)
    assert damaged is not None
    assert damaged.why == "damaged"
    assert newer is not None
    assert newer.why == "newer"
    assert "outbox.db" in damaged.words  # the saves not sent yet are not in what is set aside
    kept = tmp_path / "cache.db.damaged-20261206-101010"
    assert kept.name in damaged.done(kept)
    assert str(tmp_path) in damaged.done(kept)
    outbox = tmp_path / "outbox.db"
    for not_offered in (
        _about(DatabaseCorruptError("x"), outbox),  # the outbox holds saves found nowhere else
        SchemaTooNewError(str(outbox), 12, 9),
        DatabaseCorruptError("which file is not known"),
        _about(DatabaseLockedError("busy"), cache),  # passes by itself: try again
        _about(DiskFullError("full"), cache),
        ValueError("not a store error"),
    ):
        assert fresh_cache_offer(not_offered, cache) is None, not_offered


def test_trying_again_is_offered_only_where_the_same_step_may_work_later() -> None:
    assert retry_may_help(DatabaseLockedError("busy"))
    assert retry_may_help(DiskFullError("full"))
    assert retry_may_help(DatabaseAccessError("permissions"))
    assert not retry_may_help(DatabaseCorruptError("damaged"))
    assert not retry_may_help(SchemaTooNewError("outbox.db", 12, 9))
    assert not retry_may_help(ValueError("a bug"))


def test_a_damaged_cache_names_the_folder_it_is_in(tmp_path: Path) -> None:
    error = _about(DatabaseCorruptError("damaged"), tmp_path / "cache.db")
    assert f"Delete cache.db in {tmp_path} and sync again" in (user_message(error).action or "")
    unknown = user_message(DatabaseCorruptError("damaged")).action or ""
    assert "Delete cache.db in the data folder" in unknown


def test_a_file_in_the_way_of_the_data_folder_is_named_and_can_be_retried(tmp_path: Path) -> None:
    in_the_way = FileExistsError(errno.EEXIST, "File exists", str(tmp_path / "library"))
    message = user_message(in_the_way)
    assert (
        message.text
        == f"A file is in the way of a folder memex-desktop needs ({tmp_path}/library)."
    )
    assert "--data-dir" in (message.action or "")
    assert retry_may_help(in_the_way)
    assert retry_may_help(PermissionError(errno.EACCES, "Permission denied", "x"))
    assert not retry_may_help(FileNotFoundError(errno.ENOENT, "No such file", "x"))
