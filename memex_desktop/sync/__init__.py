"""Sync: mirrors the Memex library into the local cache and delivers the outbox (no Qt)."""

from memex_desktop.errors import ConnectionState
from memex_desktop.sync.engine import FeedItems, OutboxPolicy, SyncEngine, entity_time_ms
from memex_desktop.sync.types import (
    SyncCancelled,
    SyncOutcome,
    SyncProgress,
    SyncReport,
    outcome_for,
)

__all__ = [
    "ConnectionState",
    "FeedItems",
    "OutboxPolicy",
    "SyncCancelled",
    "SyncEngine",
    "SyncOutcome",
    "SyncProgress",
    "SyncReport",
    "entity_time_ms",
    "outcome_for",
]
