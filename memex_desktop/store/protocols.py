"""What the panes read from the cache and queue in the outbox, each need as a Protocol.

:class:`~memex_desktop.store.CacheReader` and :class:`~memex_desktop.store.Outbox` implement
them all; a test may pass a smaller stand-in implementing only the one a pane needs, with the
production algorithm (``tests/support/graph.py`` answers the graph with the cache's policy).
"""

from __future__ import annotations

import builtins
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from memex_desktop.api.models import ContentEntityBase
from memex_desktop.store.outbox import EnqueueResult, OutboxOp
from memex_desktop.store.rows import EntityRow, Neighbourhood, SearchHit, ThreadNode


class CacheFile(Protocol):
    """A reader that says which cache file it reads."""

    @property
    def path(self) -> Path | None:
        """The cache file a worker thread opens its own reader of; None: any thread may call."""
        ...


class EntityReader(CacheFile, Protocol):
    """Rows and entities by id."""

    def get(self, entity_id: str) -> EntityRow | None:
        """The display row of one cached entity."""
        ...

    def entity(self, entity_id: str) -> ContentEntityBase | None:
        """The cached entity itself (for rendering)."""
        ...


class TitleSearch(Protocol):
    """Local search, as the ``[[`` completer of the note editor uses it."""

    def search(self, query: str, *, limit: int = ...) -> builtins.list[SearchHit]:
        """Best matches first; an empty query lists the newest items."""
        ...


class ThreadReader(EntityReader, TitleSearch, Protocol):
    """What the notes pane reads: an item's notes, their tags, and titles to reference."""

    def tag_names(self, ids: Iterable[str]) -> dict[str, str]:
        """tag id -> name, for those of ``ids`` that are cached tags."""
        ...

    def thread_for(self, entity_id: str) -> builtins.list[ThreadNode]:
        """The notes on an entity, replies nested, oldest first."""
        ...


class GraphReader(CacheFile, Protocol):
    """What the graph pane reads: the bounded neighbourhood of an item."""

    def neighbourhood(
        self,
        entity_id: str,
        hops: int = ...,
        max_nodes: int = ...,
        *,
        hidden_kinds: frozenset[str] = ...,
    ) -> Neighbourhood:
        """The graph within ``hops`` of an entity, cut to ``max_nodes`` nodes, centre included;
        links of ``hidden_kinds`` are not read (a filter hides them)."""
        ...


class PendingNotes(Protocol):
    """The outbox as the notes pane reads it: saves not confirmed yet."""

    def list(self, states: Iterable[str] | None = None) -> builtins.list[OutboxOp]:
        """Operations in ``states`` (every one when None), oldest first."""
        ...


class NoteQueue(Protocol):
    """The outbox as the note editor writes to it (committed when a call returns)."""

    def enqueue_entity(self, data: dict[str, Any], *, external_id: str) -> EnqueueResult:
        """Queue a note identified by its client ``external_id``."""
        ...

    def enqueue_url(self, url: str) -> EnqueueResult:
        """Queue the save of a URL."""
        ...


class NoteOutbox(PendingNotes, NoteQueue, Protocol):
    """The outbox as the notes pane uses it: pending notes shown, new ones queued."""


if TYPE_CHECKING:
    from memex_desktop.store.outbox import Outbox
    from memex_desktop.store.reader import CacheReader

    def _cache_implements_the_protocols(
        reader: CacheReader, outbox: Outbox
    ) -> tuple[ThreadReader, GraphReader, NoteOutbox]:
        """Where mypy checks that the cache and the outbox implement every Protocol here."""
        return reader, reader, outbox
