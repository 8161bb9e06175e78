"""The local cache (cache.db) and the durable outbox (outbox.db).

One writer thread (:class:`StoreWriter`) owns the only read-write connection to the cache;
every other thread reads through its own :class:`CacheReader`. Plain frozen rows cross this
boundary, never pydantic objects (except :meth:`CacheReader.entity`).
"""

from memex_desktop.store.errors import (
    DatabaseCorruptError,
    DatabaseLockedError,
    DiskFullError,
    KnownStoreError,
    SchemaTooNewError,
    StoreError,
)
from memex_desktop.store.outbox import STATES, EnqueueResult, Outbox, OutboxOp
from memex_desktop.store.protocols import (
    EntityReader,
    GraphReader,
    NoteOutbox,
    NoteQueue,
    PendingNotes,
    ThreadReader,
    TitleSearch,
)
from memex_desktop.store.reader import CacheReader
from memex_desktop.store.rows import (
    Backlink,
    CacheStats,
    ChangeAccumulator,
    ChangeSet,
    EntityRow,
    FeedListing,
    FeedRow,
    GraphEdge,
    GraphNode,
    Neighbourhood,
    SearchHit,
    TagRow,
    ThreadNode,
    ViewRow,
)
from memex_desktop.store.schema import SCHEMA_VERSION, open_cache
from memex_desktop.store.urls import CredentialsInUrl, normalize_url, savable_url, shown_url
from memex_desktop.store.writer import StoreWriter

__all__ = [
    "SCHEMA_VERSION",
    "STATES",
    "Backlink",
    "CacheReader",
    "CacheStats",
    "ChangeAccumulator",
    "ChangeSet",
    "CredentialsInUrl",
    "DatabaseCorruptError",
    "DatabaseLockedError",
    "DiskFullError",
    "EnqueueResult",
    "EntityReader",
    "EntityRow",
    "FeedListing",
    "FeedRow",
    "GraphEdge",
    "GraphNode",
    "GraphReader",
    "KnownStoreError",
    "Neighbourhood",
    "NoteOutbox",
    "NoteQueue",
    "Outbox",
    "OutboxOp",
    "PendingNotes",
    "SchemaTooNewError",
    "SearchHit",
    "StoreError",
    "StoreWriter",
    "TagRow",
    "ThreadNode",
    "ThreadReader",
    "TitleSearch",
    "ViewRow",
    "normalize_url",
    "open_cache",
    "savable_url",
    "shown_url",
]
