"""Plain typed rows that cross the store boundary (never pydantic objects, never connections)."""

from __future__ import annotations

import heapq
from array import array
from bisect import bisect_left
from collections.abc import Iterable, Iterator
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field, fields
from typing import Any


@dataclass(frozen=True)
class ChangeSet:
    """What one write touched, so panes refresh only what they show.

    A change set lists at most :data:`LISTED_CHANGES` changed or deleted entities; past that
    it only counts them (``unlisted_changes``) and means "any entity may have changed", which
    a pane answers by refreshing all it shows. A first sync of a million items listed every
    id, over 100 MB held until the window had read them.

    The unlisted entities are also kept as the sorted 64-bit hashes of their ids
    (``unlisted_hashes``, 8 bytes each), so that an entity written twice in one sync (first
    as an item a note refers to, then as the item itself) is counted once when the change
    sets merge: a count alone said "Synced 107,936 items" after a first sync of 100,000.
    Python's ``hash`` differs between processes, so a change set is for this process only.
    """

    entity_ids: frozenset[str] = frozenset()
    deleted_ids: frozenset[str] = frozenset()
    tag_ids: frozenset[str] = frozenset()
    view_ids: frozenset[str] = frozenset()
    feed_ids: frozenset[str] = frozenset()
    edges_changed: bool = False
    unlisted_changes: int = 0
    unlisted_hashes: bytes = field(default=b"", repr=False)

    @classmethod
    def empty(cls) -> ChangeSet:
        """A change set that reports nothing changed."""
        return cls()

    @classmethod
    def merge(cls, changes: Iterable[ChangeSet]) -> ChangeSet:
        """Many change sets merged in one pass (``|`` in a loop copies the sets each time)."""
        merged = ChangeAccumulator()
        for change in changes:
            merged.add(change)
        return merged.result()

    @property
    def every_entity(self) -> bool:
        """True when more entities changed than are listed: any of them may have."""
        return self.unlisted_changes > 0

    @property
    def entities_changed(self) -> bool:
        """True when any entity changed or was deleted."""
        return bool(self.entity_ids or self.deleted_ids or self.unlisted_changes)

    @property
    def changed_count(self) -> int:
        """How many entities changed or were deleted, each once however often it was
        written (two of them that share a 64-bit hash past the listed ones count once)."""
        return len(self.entity_ids | self.deleted_ids) + self.unlisted_changes

    def touches(self, entity_ids: AbstractSet[str]) -> bool:
        """True when any of these entities changed or was deleted (or may have)."""
        return self.every_entity or not (
            self.entity_ids.isdisjoint(entity_ids) and self.deleted_ids.isdisjoint(entity_ids)
        )

    def __or__(self, other: ChangeSet) -> ChangeSet:
        """Both change sets merged."""
        return ChangeSet.merge((self, other))

    def __bool__(self) -> bool:
        """True when anything changed."""
        return bool(
            self.edges_changed
            or self.unlisted_changes
            or any(getattr(self, name) for name in _ID_FIELDS)
        )


# Entities a change set lists by id before it only counts them: more than a window shows or
# a pane refreshes one by one, and 10,000 ids hold about a megabyte.
LISTED_CHANGES = 10_000
# Hashes of unlisted entities gathered before they are sorted into a run of their own: a set
# this size holds some 4 MB.
HASH_RUN = 65_536
# A run at most this fraction of the largest is looked up in it hash by hash rather than
# merged with it: adding a page's changes to a million counted ones then costs a look-up per
# hash and a copy of the array, not a pass over a million hashes in Python.
_FEW_FOR_LOOKUP = 1 / 16


class ChangeAccumulator:
    """Change sets merged as they come, into one set of each kind of id (entities listed up
    to :data:`LISTED_CHANGES`, then counted once each by the hash of their id)."""

    def __init__(self) -> None:
        self._ids: dict[str, set[str]] = {name: set() for name in _ID_FIELDS}
        self._edges_changed = False
        # Sorted runs of distinct hashes of unlisted entities (a hash may be in two runs),
        # and the hashes not sorted into a run yet.
        self._runs: list[array[int]] = []
        self._recent: set[int] = set()
        # Unlisted changes counted without their ids (a change set made with a count alone).
        self._anonymous = 0

    def add(self, change: ChangeSet) -> None:
        """Take in one change set."""
        for name, ids in self._ids.items():
            if name in _ENTITY_FIELDS:
                self._add_entities(ids, getattr(change, name))
            else:
                ids.update(getattr(change, name))
        self._edges_changed = self._edges_changed or change.edges_changed
        if change.unlisted_hashes:
            run = array("q")
            run.frombytes(change.unlisted_hashes)
            self._runs.append(run)
        self._anonymous += max(0, change.unlisted_changes - len(change.unlisted_hashes) // 8)

    def _add_entities(self, listed: set[str], ids: frozenset[str]) -> None:
        room = LISTED_CHANGES - sum(len(self._ids[name]) for name in _ENTITY_FIELDS)
        if len(ids) <= room:
            listed.update(ids)
            return
        for entity_id in ids - listed:
            if room > 0:
                listed.add(entity_id)
                room -= 1
            else:
                self._recent.add(hash(entity_id))
                if len(self._recent) >= HASH_RUN:
                    self._runs.append(array("q", sorted(self._recent)))
                    self._recent = set()

    def result(self) -> ChangeSet:
        """Everything taken in so far, as one change set."""
        if self._recent:
            self._runs.append(array("q", sorted(self._recent)))
            self._recent = set()
        unlisted = array("q")
        if self._runs:
            listed = {hash(i) for name in _ENTITY_FIELDS for i in self._ids[name]}
            unlisted = _distinct(self._runs, without=listed)
        # Kept as one run: the next result (a sync's next page) starts from it.
        self._runs = [unlisted] if unlisted else []
        return ChangeSet(
            **{name: frozenset(ids) for name, ids in self._ids.items()},
            edges_changed=self._edges_changed,
            unlisted_changes=len(unlisted) + self._anonymous,
            unlisted_hashes=unlisted.tobytes(),
        )


def _holds(run: array[int], key: int) -> bool:
    """Whether the sorted ``run`` holds ``key``."""
    at = bisect_left(run, key)
    return at < len(run) and run[at] == key


def _distinct(runs: list[array[int]], *, without: AbstractSet[int]) -> array[int]:
    """The hashes of sorted runs of distinct hashes, each once, sorted, less ``without``
    (those of the listed entities, which are counted by their ids)."""
    runs = sorted((run for run in runs if run), key=len, reverse=True)
    if not runs:
        return array("q")
    largest, others = runs[0], runs[1:]
    if sum(len(run) for run in others) <= len(largest) * _FEW_FOR_LOOKUP:
        new = sorted({key for run in others for key in run if not _holds(largest, key)})
        merged = _with_inserted(largest, new) if new else largest
    else:
        merged = array("q", _once(heapq.merge(*runs)))
    gone = sorted(key for key in without if _holds(merged, key))
    return _with_removed(merged, gone) if gone else merged


def _once(keys: Iterable[int]) -> Iterator[int]:
    """Sorted ``keys`` without repeats."""
    last: int | None = None
    for key in keys:
        if key != last:
            yield key
            last = key


def _with_inserted(run: array[int], new: list[int]) -> array[int]:
    """The sorted ``run`` with the sorted ``new`` hashes (none of them in it) in place."""
    out = array("q")
    start = 0
    for key in new:
        at = bisect_left(run, key, start)
        out.extend(run[start:at])
        out.append(key)
        start = at
    out.extend(run[start:])
    return out


def _with_removed(run: array[int], gone: list[int]) -> array[int]:
    """The sorted ``run`` without the sorted ``gone`` hashes (each of them in it)."""
    out = array("q")
    start = 0
    for key in gone:
        at = bisect_left(run, key, start)
        out.extend(run[start:at])
        start = at + 1
    out.extend(run[start:])
    return out


# The id sets of a change set (its fields named ``..._ids``), and those that name entities.
_ID_FIELDS = tuple(item.name for item in fields(ChangeSet) if item.name.endswith("_ids"))
_ENTITY_FIELDS = frozenset({"entity_ids", "deleted_ids"})


@dataclass(frozen=True)
class EntityRow:
    """The display columns of one cached entity."""

    id: str
    type: str
    title: str
    url: str | None
    author: str | None
    site: str | None
    created_at: int | None
    updated_at: int | None
    status: str | None
    deleted_upstream_at: int | None
    snippet_source: str


@dataclass(frozen=True)
class SearchHit:
    """One local search result; ``snippet`` marks matches with ``\\x02``..``\\x03``."""

    id: str
    type: str
    title: str
    url: str | None
    snippet: str
    created_at: int | None
    source: str = "local"


@dataclass(frozen=True)
class TagRow:
    """A tag and how many cached entities carry it."""

    id: str
    name: str
    count: int


@dataclass(frozen=True)
class ViewRow:
    """A saved view; ``definition`` holds query, contentTypes, tag_ids, timeRange, sortBy."""

    id: str
    name: str
    definition: dict[str, Any]


@dataclass(frozen=True)
class FeedRow:
    """A followed feed."""

    id: str
    title: str
    feed_url: str | None
    site_url: str | None
    source_platform: str | None


@dataclass(frozen=True)
class FeedListing:
    """The server's last listing of a feed's items: when, and whether it held all of them."""

    feed_id: str
    listed_at_ms: int
    complete: bool


@dataclass
class ThreadNode:
    """An annotation in a thread with its replies, each level ordered by creation time."""

    entity: EntityRow
    text: str
    children: list[ThreadNode] = field(default_factory=list)
    depth: int = 0


@dataclass(frozen=True)
class Backlink:
    """An entity pointing at another; ``timestamp_s`` when it points into a video moment."""

    source: EntityRow
    kind: str
    timestamp_s: float | None


@dataclass(frozen=True)
class GraphNode:
    """A node of the reference graph (``type`` is ``tag`` for tags, ``missing`` if uncached)."""

    id: str
    type: str
    title: str


@dataclass(frozen=True)
class GraphEdge:
    """A directed edge: annotates, reply, references or tag."""

    source: str
    target: str
    kind: str


@dataclass(frozen=True)
class Neighbourhood:
    """The bounded graph around ``center``; ``omitted`` counts nodes left out by the budget."""

    center: str
    nodes: list[GraphNode]
    edges: list[GraphEdge]
    omitted: int


@dataclass(frozen=True)
class CacheStats:
    """Size of the cache and when it was last synced (epoch ms)."""

    entities: int
    size_bytes: int
    last_sync_at: int | None
