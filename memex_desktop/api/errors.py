"""Typed errors of the Memex API client (DESIGN.md §4).

Each error says what a caller can do about it: sign in again (:class:`AuthError`), buy usage
(:class:`InsufficientCredits`), wait (:class:`RateLimited`), fix the request
(:class:`ValidationError`), try later (:class:`ServerError`, :class:`NetworkUnavailable`), or
report a contract drift (:class:`ContractError`). No error ever carries the API key.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # a start imports these errors long before it reads any model
    from memex_desktop.api.models import AvailablePlansOutput


class ApiError(Exception):
    """Root of every error raised by :class:`memex_desktop.api.client.MemexClient`."""

    def __init__(self, message: str, *, status_code: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.status_code = status_code


class NetworkUnavailable(ApiError):
    """The server could not be reached (no network, DNS, refused, reset, timed out)."""


class ServerNotAnswering(NetworkUnavailable):
    """The server took the connection but sent no answer (or stopped sending one) in time;
    ``host`` is the server's. ``status_code`` is set when the status line had arrived: a
    2xx there means the server did what was asked, whatever the unread rest said."""

    def __init__(self, message: str, *, host: str, status_code: int | None = None) -> None:
        super().__init__(message, status_code=status_code)
        self.host = host

    @property
    def silent(self) -> bool:
        """Whether nothing came back at all: the server took the request and said nothing for
        the whole timeout (an answer that began and then stalled is not silence)."""
        return self.status_code is None


class ServerRefused(NetworkUnavailable):
    """Nothing listens at the server's address: its host answered the connection with a
    refusal, so the network works and the server is down (or the URL's port is wrong);
    ``host`` is the server's."""

    def __init__(self, message: str, *, host: str) -> None:
        super().__init__(message)
        self.host = host


class ServerError(ApiError):
    """The server answered 5xx (or 408) and retries did not help; ``retry_after`` is the
    wait in seconds it named (a 503 announcing maintenance says when to come back)."""

    def __init__(
        self, message: str, *, status_code: int | None = None, retry_after: float | None = None
    ) -> None:
        super().__init__(message, status_code=status_code)
        self.retry_after = retry_after


class AuthError(ApiError):
    """The server rejected the credentials (401/403): the person must sign in again."""


class NotSignedIn(AuthError):
    """No usable sign-in exists (never signed in, signed out, or the refresh was refused)."""


class SignInError(ApiError):
    """Signing in did not complete; the message says why and what to do."""


class Forbidden(AuthError):
    """403: the credentials were read but this call is refused (a plan, a feature, a scope);
    ``message`` is the server's own explanation."""


class InsufficientCredits(ApiError):
    """The usage balance cannot cover the call; ``upgrade_options`` lists what to buy."""

    def __init__(
        self,
        message: str,
        *,
        status_code: int | None = None,
        error_code: str | None = None,
        upgrade_options: AvailablePlansOutput | None = None,
    ) -> None:
        super().__init__(message, status_code=status_code)
        self.error_code = error_code
        self.upgrade_options = upgrade_options


class RateLimited(ApiError):
    """429 after the retries ran out; ``retry_after`` is the server's wait in seconds."""

    def __init__(
        self, message: str, *, status_code: int | None = 429, retry_after: float | None = None
    ) -> None:
        super().__init__(message, status_code=status_code)
        self.retry_after = retry_after


class ValidationError(ApiError):
    """The server refused the request as malformed (400/404/409/422 ...); not retried."""


class ContractError(ApiError):
    """The response did not match the contract; ``raw_body`` keeps (a prefix of) it for logs."""

    def __init__(
        self, message: str, *, status_code: int | None = None, raw_body: bytes = b""
    ) -> None:
        super().__init__(message, status_code=status_code)
        self.raw_body = raw_body[:4096]


class ApiMoved(ContractError):
    """301/302/303: the API answers from another address; ``location`` is where it says."""

    def __init__(self, message: str, *, status_code: int | None = None, location: str) -> None:
        super().__init__(message, status_code=status_code)
        self.location = location


class ServerIncompatible(ApiError):
    """The server rejects what this version sends as invalid (or pages in a way it cannot
    follow): syncing cannot work until one side changes. ``message`` is the server's words."""


class BadApiUrl(ValueError):
    """An API address the app cannot use; ``reason`` says why, in words for people.

    ``url`` is the address as given, any user name and password in it replaced by ``***``:
    the error is shown and logged.
    """

    def __init__(self, url: str, reason: str) -> None:
        self.url = re.sub(r"//[^/?#]*@", "//***@", url.strip())
        self.reason = reason
        super().__init__(f"the API URL {self.url!r} cannot be used: {reason}")
