"""What a sync reports: its outcome, its progress and what it changed (plain values, no Qt)."""

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
from memex_desktop.store import ChangeSet


class SyncOutcome(enum.Enum):
    """How a sync ended; each failure is a distinct state with its own fixing action."""

    OK = "ok"
    CANCELLED = "cancelled"
    OFFLINE = "offline"
    SERVER_DOWN = "server_down"
    AUTH_REJECTED = "auth_rejected"
    INSUFFICIENT_CREDITS = "insufficient_credits"
    # The server refused our requests as invalid, or pages in a way the sync cannot follow.
    INCOMPATIBLE = "incompatible"


class SyncCancelled(Exception):
    """Raised between pages when the caller set the cancel event."""


@dataclass(frozen=True)
class SyncProgress:
    """One progress report: the phase (pull, reconcile, outbox), items done, total if known."""

    phase: str
    done: int
    total_estimate: int | None
    message: str


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

    @property
    def ok(self) -> bool:
        """True when everything asked for was done."""
        return self.outcome is SyncOutcome.OK


def outcome_for(exc: BaseException) -> SyncOutcome:
    """The sync outcome an error stands for (offline, server down, auth, credits, cancelled)."""
    if isinstance(exc, SyncCancelled):
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
    raise TypeError(f"not a sync outcome: {type(exc).__name__}")
