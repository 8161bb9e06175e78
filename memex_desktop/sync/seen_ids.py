"""The ids one sync pass has seen, held in 8 bytes each."""

from __future__ import annotations

import heapq
from array import array
from bisect import bisect_left
from collections.abc import Iterable

# Hashes gathered before they are sorted into a run of their own: a set this size holds
# some 4 MB, and a million ids make about fifteen runs, merged once at the first look-up.
SEEN_RUN = 65_536


class SeenIds:
    """A set of ids that answers ``in``, holding each id's 64-bit hash instead of its text.

    A full pass over a million items saw a million ids (and the ids they name); as a set of
    strings they held about 120 bytes each, some 120 MB at the end of the pass, which is when
    the sync needs them, to check for deletions. Hashes in sorted arrays hold 8 bytes each.

    Two different ids can share a hash (with a million ids, about one chance in forty
    million): the unseen one then counts as seen, so it is not marked deleted on that pass,
    the safe side of every use here. ``hash`` of a string differs between processes, so the
    hashes never leave the object.
    """

    def __init__(self) -> None:
        self._sorted = array("q")
        self._runs: list[array[int]] = []
        self._recent: set[int] = set()

    def add(self, entity_id: str) -> None:
        """Remember one id."""
        self._recent.add(hash(entity_id))
        if len(self._recent) >= SEEN_RUN:
            self._close_run()

    def update(self, entity_ids: Iterable[str]) -> None:
        """Remember many ids."""
        for entity_id in entity_ids:
            self.add(entity_id)

    def __contains__(self, entity_id: object) -> bool:
        """True when the id was added (or, rarely, an id with the same hash was)."""
        if not isinstance(entity_id, str):
            return False
        key = hash(entity_id)
        if key in self._recent:
            return True
        if self._runs:
            self._merge_runs()
        at = bisect_left(self._sorted, key)
        return at < len(self._sorted) and self._sorted[at] == key

    def _close_run(self) -> None:
        self._runs.append(array("q", sorted(self._recent)))
        self._recent = set()

    def _merge_runs(self) -> None:
        self._sorted = array("q", heapq.merge(self._sorted, *self._runs))
        self._runs = []
