"""The local cache (cache.db) and the durable outbox (outbox.db).

One writer thread (:class:`StoreWriter`) owns the only read-write connection to the cache;
every other thread reads through its own :class:`CacheReader`. Plain frozen rows cross this
boundary, never pydantic objects (except :meth:`CacheReader.entity`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memex_desktop.lazy_names import names_of_modules

if TYPE_CHECKING:
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

# Which module defines each name, imported when the name is first asked for: modules that
# need one light part of the store (its errors, its rows) do not load all of it.
_DEFINED_IN = {
    "DatabaseCorruptError": "errors",
    "DatabaseLockedError": "errors",
    "DiskFullError": "errors",
    "KnownStoreError": "errors",
    "SchemaTooNewError": "errors",
    "StoreError": "errors",
    "STATES": "outbox",
    "EnqueueResult": "outbox",
    "Outbox": "outbox",
    "OutboxOp": "outbox",
    "EntityReader": "protocols",
    "GraphReader": "protocols",
    "NoteOutbox": "protocols",
    "NoteQueue": "protocols",
    "PendingNotes": "protocols",
    "ThreadReader": "protocols",
    "TitleSearch": "protocols",
    "CacheReader": "reader",
    "Backlink": "rows",
    "CacheStats": "rows",
    "ChangeAccumulator": "rows",
    "ChangeSet": "rows",
    "EntityRow": "rows",
    "FeedListing": "rows",
    "FeedRow": "rows",
    "GraphEdge": "rows",
    "GraphNode": "rows",
    "Neighbourhood": "rows",
    "SearchHit": "rows",
    "TagRow": "rows",
    "ThreadNode": "rows",
    "ViewRow": "rows",
    "SCHEMA_VERSION": "schema",
    "open_cache": "schema",
    "CredentialsInUrl": "urls",
    "normalize_url": "urls",
    "savable_url": "urls",
    "shown_url": "urls",
    "StoreWriter": "writer",
}


__getattr__ = names_of_modules(__name__, _DEFINED_IN)

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
