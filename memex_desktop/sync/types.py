"""What a sync reports: its outcome, its progress and what it changed (plain values, no Qt).

An outcome is either OK, CANCELLED, FAILED (something on this computer went wrong, which says
nothing about the server) or one of the :class:`~memex_desktop.errors.ConnectionState` failures;
:attr:`SyncOutcome.state` is the connection state the window shows and the command line turns
into its exit status.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from memex_desktop.api.errors import (
    ApiError,
    ApiMoved,
    AuthError,
    InsufficientCredits,
    NetworkUnavailable,
    ServerIncompatible,
    ValidationError,
)
from memex_desktop.api.models import SearchMeta
from memex_desktop.errors import ConnectionState
from memex_desktop.store import ChangeSet


class SyncOutcome(enum.Enum):
    """How a sync ended; each failure is a distinct state with its own fixing action."""

    OK = "ok"
    CANCELLED = "cancelled"
    # A store error or a bug stopped the sync: the connection is as it was.
    FAILED = "failed"
    OFFLINE = ConnectionState.OFFLINE.value
    SERVER_DOWN = ConnectionState.SERVER_DOWN.value
    AUTH_REJECTED = ConnectionState.AUTH_REJECTED.value
    INSUFFICIENT_CREDITS = ConnectionState.INSUFFICIENT_CREDITS.value
    # The server refused our requests as invalid, or pages in a way the sync cannot follow.
    INCOMPATIBLE = ConnectionState.INCOMPATIBLE.value

    @property
    def state(self) -> ConnectionState | None:
        """The connection state this outcome shows (None: it says nothing of the server)."""
        if self is SyncOutcome.OK:
            return ConnectionState.ONLINE
        if self in (SyncOutcome.CANCELLED, SyncOutcome.FAILED):
            return None
        return ConnectionState(self.value)


class SyncCancelled(Exception):
    """Raised between pages when the caller set the cancel event."""


@dataclass(frozen=True)
class SyncProgress:
    """One progress report: the phase (pull, reconcile, outbox), items done, total if known."""

    phase: str
    done: int
    total_estimate: int | None
    message: str
    # Set while the sync waits this long for a server that asked it to slow down: the
    # message stays up for the wait.
    waiting_s: float | None = None


@dataclass(frozen=True)
class SyncReport:
    """The result of one sync run (or one of its parts)."""

    outcome: SyncOutcome
    pulled: int = 0
    changes: ChangeSet = field(default_factory=ChangeSet.empty)
    sent: int = 0
    needs_attention: int = 0
    meta: SearchMeta | None = None
    error: BaseException | None = None
    deleted_upstream: int = 0
    # Items that looked deleted upstream but were too many to mark without asking.
    deletions_held: int = 0
    full_pass_completed: bool = False
    # Why a full pass did not check for deleted items (skipped items, unreadable pages ...).
    not_reconciled: str | None = None
    # Pages skipped because they still could not be read after being asked for again: their
    # items are not in the cache yet, and the next sync reads from the first of them.
    unread_pages: int = 0

    @property
    def ok(self) -> bool:
        """True when everything asked for was done."""
        return self.outcome is SyncOutcome.OK

    @property
    def state(self) -> ConnectionState | None:
        """The connection state this sync showed (None when cancelled or failed locally)."""
        return self.outcome.state


def outcome_for(exc: BaseException) -> SyncOutcome:
    """The sync outcome any error stands for: cancelled, one of the connection failures, or
    FAILED for what happened on this computer (a store error, a bug)."""
    if isinstance(exc, SyncCancelled | KeyboardInterrupt):
        return SyncOutcome.CANCELLED
    if isinstance(exc, NetworkUnavailable):
        return SyncOutcome.OFFLINE
    if isinstance(exc, AuthError):
        return SyncOutcome.AUTH_REJECTED
    if isinstance(exc, InsufficientCredits):
        return SyncOutcome.INSUFFICIENT_CREDITS
    if isinstance(exc, ServerIncompatible | ValidationError | ApiMoved):
        return SyncOutcome.INCOMPATIBLE
    if isinstance(exc, ApiError):
        return SyncOutcome.SERVER_DOWN
    return SyncOutcome.FAILED
