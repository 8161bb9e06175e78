"""Credentials of the Memex API: an API key (+ optional user id) or an OAuth bearer token.

Exactly one mode is used per request: a bearer token wins over an API key, as in the official
plugins, and the two are never sent together. Credentials travel only in request headers;
their ``repr`` never shows them, so they cannot leak through a log line or a traceback.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

TokenSource = str | Callable[[], str]


@dataclass(frozen=True)
class Credentials:
    """What the client authenticates with; build it with :func:`make_credentials`.

    Attributes:
        api_key: the Memex API key, sent as ``x-api-key`` when no bearer token is given.
        user_id: optional ``x-user-id`` sent with the API key.
        bearer_token: a token, or a callable returning the current one (OAuth sign-in keeps
            it fresh), sent as ``Authorization: Bearer``.
        refresh_bearer_token: called once when the server answers 401 in bearer mode; returns
            ``True`` when it obtained a new token, and the request is then sent once more.
    """

    api_key: str | None = field(default=None, repr=False)
    user_id: str | None = field(default=None, repr=False)
    bearer_token: TokenSource | None = field(default=None, repr=False)
    refresh_bearer_token: Callable[[], bool] | None = field(default=None, repr=False)

    @property
    def mode(self) -> str:
        """``"bearer"``, ``"api-key"`` or ``"none"``: which header set the requests carry."""
        if self.bearer_token is not None:
            return "bearer"
        if self.api_key:
            return "api-key"
        return "none"

    def headers(self) -> dict[str, str]:
        """The authentication headers of one request (bearer XOR API key)."""
        if self.bearer_token is not None:
            token = self.bearer_token() if callable(self.bearer_token) else self.bearer_token
            return {"Authorization": f"Bearer {token}"} if token else {}
        if self.api_key:
            headers = {"x-api-key": self.api_key}
            if self.user_id:
                headers["x-user-id"] = self.user_id
            return headers
        return {}

    def can_refresh(self) -> bool:
        """Whether a 401 may be answered by refreshing the bearer token and trying again."""
        return self.mode == "bearer" and self.refresh_bearer_token is not None

    def secrets(self) -> list[str]:
        """The literal secret strings, so messages can be scrubbed of them defensively."""
        values = [self.api_key] if self.api_key else []
        if isinstance(self.bearer_token, str) and self.bearer_token:
            values.append(self.bearer_token)
        return values

    def __repr__(self) -> str:
        """Say which mode is used, never the secret itself."""
        return f"Credentials(mode={self.mode!r})"


def make_credentials(
    *,
    api_key: str | None = None,
    user_id: str | None = None,
    bearer_token: TokenSource | None = None,
    refresh_bearer_token: Callable[[], bool] | None = None,
) -> Credentials:
    """Validate and bundle the constructor arguments of the client."""
    if refresh_bearer_token is not None and bearer_token is None:
        raise ValueError("refresh_bearer_token needs a bearer_token to refresh")
    if isinstance(bearer_token, str) and not bearer_token.strip():
        raise ValueError("bearer_token must not be empty")
    for name, value in (("api_key", api_key), ("user_id", user_id)):
        if value is not None and ("\n" in value or "\r" in value):
            raise ValueError(f"{name} must be a single line")
    return Credentials(
        api_key=api_key or None,
        user_id=user_id or None,
        bearer_token=bearer_token,
        refresh_bearer_token=refresh_bearer_token,
    )
