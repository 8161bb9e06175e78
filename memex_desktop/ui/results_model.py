"""The results list model: entity ids, with display rows fetched lazily from the cache.

The model holds only ids (cheap for 100,000 rows). ``data()`` fetches the rows of the block
around a requested row from :meth:`CacheReader.get_many` (bounded, on the GUI thread's own
reader) and keeps them until the store reports a change to them. A row that cannot be loaded
shows as a placeholder rather than raising. Each id carries its provenance: found in the local
cache, on the server (remote search, "cloud"), or both.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from PySide6.QtCore import QModelIndex, QObject, QPersistentModelIndex, Qt, QTimer, Slot
from PySide6.QtGui import QStandardItemModel

from memex_desktop.store import ChangeSet, EntityRow
from memex_desktop.store.query import python_snippet, snippet_terms

log = logging.getLogger(__name__)

MARK_START = "\x02"
MARK_END = "\x03"
_SLOW_READ_MS = 50.0
# An update inserts runs of rows for this long per turn of the event loop, and the rest in
# the next: a sync's items may land in hundreds of places of a long list, and the window
# must keep answering meanwhile (the view lays the list out once per turn).
INSERT_TURN_S = 0.008

Index = QModelIndex | QPersistentModelIndex
# The flags of a row, built once: the view asks for them for every row it paints.
_DISABLED = Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemNeverHasChildren
_ENABLED = _DISABLED | Qt.ItemFlag.ItemIsEnabled


@dataclass(frozen=True)
class SearchFilters:
    """The filters of a local search (the store's keyword arguments)."""

    types: tuple[str, ...] = ()
    tag_id: str | None = None
    date_from_ms: int | None = None
    date_to_ms: int | None = None
    include_deleted: bool = False

    def as_kwargs(self) -> dict[str, Any]:
        """Keyword arguments for CacheReader.search / search_ids."""
        return {
            "types": self.types,
            "tag_id": self.tag_id,
            "date_from_ms": self.date_from_ms,
            "date_to_ms": self.date_to_ms,
            "include_deleted": self.include_deleted,
        }


def mark_terms(text: str, query: str, width: int = 180) -> str:
    """An excerpt of ``text`` marked as the store marks its snippets (\\x02..\\x03): from
    shortly before the first match, or the start of the text when none matches (a search
    for a tag or a type, an item matched by its title)."""
    return python_snippet(" ".join(text.split()), snippet_terms(query), width)


def snippet_segments(snippet: str) -> list[tuple[str, bool]]:
    """Split a marked snippet into (text, is_match) runs for painting."""
    segments: list[tuple[str, bool]] = []
    marked = False
    for part in re.split(f"([{MARK_START}{MARK_END}])", snippet):
        if part == MARK_START:
            marked = True
        elif part == MARK_END:
            marked = False
        elif part:
            segments.append((part, marked))
    return segments


class ResultsModel(QStandardItemModel):
    """Entity ids of the current search or sidebar selection, rows loaded on demand.

    A QStandardItemModel of empty rows (one null pointer each, no items), so that Qt counts
    the rows itself: a list view lays out every row, and asks the model's row count twice per
    row as it does. Through a Python ``rowCount`` that cost 210 ms for 100,000 rows (and two
    seconds for a million), which batched layout spread over the event loop but painted as a
    blank list meanwhile; counted in C++, laying out 100,000 appended rows takes 6 ms in one
    pass. The ids change with the rows: see :meth:`_change_rows`, and :meth:`_count_rows`
    within a reset.
    """

    EntityIdRole = Qt.ItemDataRole.UserRole + 1
    RowRole = Qt.ItemDataRole.UserRole + 2
    SnippetRole = Qt.ItemDataRole.UserRole + 3
    ProvenanceRole = Qt.ItemDataRole.UserRole + 4
    TypeRole = Qt.ItemDataRole.UserRole + 5
    PlaceholderRole = Qt.ItemDataRole.UserRole + 6

    BLOCK = 32  # rows read at once: a screenful and a half, one short read per jump
    MAX_CACHED_ROWS = 4_000

    def __init__(self, reader: Any, parent: QObject | None = None) -> None:
        super().__init__(0, 1, parent)
        self._reader = reader
        self._ids: list[str] = []
        # Each id's row, rebuilt on its first use after rows came or went (None until then):
        # rebuilding it after each run of inserted rows walked the whole list every time.
        self._positions: dict[str, int] | None = {}
        # Only ids found on the server are listed ("cloud", "both"); the rest are "cached".
        self._provenance: dict[str, str] = {}
        self._rows: dict[str, EntityRow] = {}
        # The store's marked snippet of each local result read so far ("" when none matched).
        self._snippets: dict[str, str] = {}
        self._failed: set[str] = set()
        self._local_count = 0
        self._query = ""
        self._filters = SearchFilters()
        # The change of the ids that goes with the rows being inserted or removed now.
        self._pending: Callable[[], None] | None = None
        # Connected before any view's slot, so it runs first when rows came or went.
        self.rowsInserted.connect(self._apply_pending)
        self.rowsRemoved.connect(self._apply_pending)
        # Counts every change of the list: the rest of a live update spread over turns of the
        # event loop is dropped once another change came first.
        self._generation = 0

    # -- reading -------------------------------------------------------------------------

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        """The value of one role for one row, loading its block of rows when needed."""
        if not index.isValid() or not 0 <= index.row() < len(self._ids):
            return None
        entity_id = self._ids[index.row()]
        if role == self.EntityIdRole:
            return entity_id
        if role == self.ProvenanceRole:
            return self._provenance.get(entity_id, "cached")
        row = self._row(index.row())
        if role == self.PlaceholderRole:
            return row is None
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.AccessibleTextRole):
            if row is None:
                return "(this item could not be loaded)"
            return row.title or row.url or entity_id
        if role == Qt.ItemDataRole.ToolTipRole:
            return None if row is None else (row.url or row.title)
        if role == self.RowRole:
            return row
        if role == self.TypeRole:
            return None if row is None else row.type
        if role == self.SnippetRole:
            return self._snippet(index.row(), row)
        return None

    def display(self, row: int) -> tuple[EntityRow | None, str, str, str]:
        """What the delegate paints for ``row`` in one call: entity row, title, snippet, badge.

        The same values as the Row, Display, Snippet and Provenance roles, without four trips
        through QModelIndex.data per painted row.
        """
        entity_id = self._ids[row]
        loaded = self._row(row)
        if loaded is None:
            title = "(this item could not be loaded)"
        else:
            title = loaded.title or loaded.url or entity_id
        provenance = self._provenance.get(entity_id, "cached")
        return loaded, title, self._snippet(row, loaded), provenance

    def flags(self, index: Index) -> Qt.ItemFlag:
        """Rows are selectable; a placeholder row is not enabled."""
        if not index.isValid() or index.row() >= len(self._ids):
            return Qt.ItemFlag.NoItemFlags  # a row on its way out: its id went first
        return _DISABLED if self._ids[index.row()] in self._failed else _ENABLED

    def id_at(self, row: int) -> str | None:
        """The entity id shown in ``row``."""
        return self._ids[row] if 0 <= row < len(self._ids) else None

    def row_of(self, entity_id: str) -> int | None:
        """The row showing ``entity_id``, if any."""
        return self._position_map().get(entity_id)

    def _position_map(self) -> dict[str, int]:
        """Each listed id's row (built again when rows came or went since the last call)."""
        if self._positions is None:
            self._positions = {entity_id: r for r, entity_id in enumerate(self._ids)}
        return self._positions

    def ids(self) -> list[str]:
        """A copy of the ids in display order."""
        return list(self._ids)

    @property
    def query(self) -> str:
        """The query whose results are shown."""
        return self._query

    def _row(self, row: int) -> EntityRow | None:
        """The cached display row of ``row``, loading its block on a miss."""
        entity_id = self._ids[row]
        cached = self._rows.get(entity_id)
        if cached is not None or entity_id in self._failed:
            return cached
        self._load_block(row)
        return self._rows.get(entity_id)

    def _load_block(self, row: int) -> None:
        """Fetch the display rows of the block around ``row``.

        The block starts a little above ``row``: views paint top down, so the first row missed
        is the top of the screen, and one read then covers the screen below it. Once the
        cache is closed (the app quitting before a paint still due), nothing is read.
        """
        if self._reader.closed:
            return
        start = max(0, row - self.BLOCK // 4)
        wanted = [i for i in self._ids[start : start + self.BLOCK] if i not in self._rows]
        if len(self._rows) + len(wanted) > self.MAX_CACHED_ROWS:
            self._rows.clear()
            self._snippets.clear()
        began = time.perf_counter()
        try:
            rows = self._reader.get_many(wanted)
        except Exception:  # a row that cannot load becomes a placeholder, never a crash
            log.exception("loading %d result rows failed", len(wanted))
            rows = {}
        self._rows.update(rows)
        self._failed.update(i for i in wanted if i not in rows)
        elapsed = (time.perf_counter() - began) * 1000
        if elapsed > _SLOW_READ_MS:
            log.warning("slow result rows read: %d rows in %.0f ms", len(wanted), elapsed)

    def _snippet(self, row: int, loaded: EntityRow | None) -> str:
        """The marked snippet of ``row``: the store's, else an excerpt marked here.

        The store's snippets of a local search are read for the block around ``row`` the
        first time one of them is shown (rows read for an earlier search have none yet).
        """
        if loaded is None:
            return ""
        entity_id = self._ids[row]
        snippet = self._snippets.get(entity_id)
        if snippet is None and self._query and row < self._local_count:
            self._load_snippets(row)
            snippet = self._snippets.get(entity_id)
        return snippet or mark_terms(loaded.snippet_source or "", self._query)

    def _load_snippets(self, row: int) -> None:
        """Read the store's marked snippets of the local results in the block around ``row``."""
        start = max(0, row - self.BLOCK // 4)
        end = min(start + self.BLOCK, self._local_count)
        wanted = [i for i in self._ids[start:end] if i not in self._snippets]
        began = time.perf_counter()
        try:
            found = self._reader.snippets(self._query, wanted)
        except Exception:  # the plain excerpt stands in for a snippet that failed
            log.exception("loading snippets failed")
            found = {}
        for entity_id in wanted:
            self._snippets[entity_id] = found.get(entity_id, "")
        elapsed = (time.perf_counter() - began) * 1000
        if elapsed > _SLOW_READ_MS:
            log.warning("slow snippets read: %d rows in %.0f ms", len(wanted), elapsed)

    # -- changing ------------------------------------------------------------------------

    def set_results(
        self,
        ids: Sequence[str],
        *,
        query: str = "",
        filters: SearchFilters | None = None,
        provenance: str = "cached",
        positions: dict[str, int] | None = None,
    ) -> None:
        """Show a new list of ids (a new search or sidebar selection).

        ``positions`` may hand over :func:`row_positions` of ``ids``, built on a worker.
        """
        self._generation += 1
        self.beginResetModel()
        self._ids, self._positions = _indexed(ids, positions)
        self._provenance = {} if provenance == "cached" else dict.fromkeys(self._ids, provenance)
        self._local_count = len(self._ids) if provenance == "cached" else 0
        self._query = query
        self._filters = filters or SearchFilters()
        self._snippets.clear()
        self._failed.clear()
        self._count_rows()
        self.endResetModel()

    def _change_rows(self, insert: bool, first: int, count: int, ids: Callable[[], None]) -> None:
        """Insert or remove ``count`` rows at ``first``, and change the ids with ``ids``.

        Whoever hears that rows are about to change must still read the old rows, and whoever
        hears that they changed, the new ones (views and QAbstractItemModelTester rely on
        it). The rows change inside Qt between the two signals, so ``ids`` runs in the first
        slot of the second one (connected in ``__init__``, before any view's).
        """
        self._pending = ids
        try:
            if insert:
                self.insertRows(first, count)
            else:
                self.removeRows(first, count)
        finally:
            self._apply_pending()  # with signals blocked, no slot ran

    @Slot()
    def _apply_pending(self) -> None:
        pending, self._pending = self._pending, None
        if pending is not None:
            pending()

    def _count_rows(self) -> None:
        """Make the rows as many as the ids, within a reset: its signals say it all, so the
        row changes' own are not sent (views would lay out a list that is being replaced)."""
        blocked = self.blockSignals(True)
        try:
            self.setRowCount(len(self._ids))
        finally:
            self.blockSignals(blocked)

    def merge_remote(self, ids: Sequence[str]) -> int:
        """Merge remote search results in by id; returns how many rows were added.

        Ids already listed gain the "both" badge; new ones are appended in server order.
        """
        self._generation += 1
        new: list[str] = []
        positions = self._position_map()
        for entity_id in dict.fromkeys(ids):
            if entity_id in positions:
                row = positions[entity_id]
                if self._provenance.get(entity_id) != "cloud":
                    self._provenance[entity_id] = "both"
                index = self.index(row, 0)
                self.dataChanged.emit(index, index, [self.ProvenanceRole])
            else:
                new.append(entity_id)
        if new:
            first = len(self._ids)

            def append() -> None:
                for offset, entity_id in enumerate(new):
                    self._ids.append(entity_id)
                    positions[entity_id] = first + offset
                    self._provenance[entity_id] = "cloud"
                    self._failed.discard(entity_id)

            self._change_rows(True, first, len(new), append)
        return len(new)

    def update_ids(
        self,
        ids: Sequence[str],
        positions: dict[str, int] | None = None,
        *,
        live: bool = False,
    ) -> bool:
        """Move to a new id list with row inserts/removes (keeps selection and scroll).

        Used when the full list of a search follows its first page, or the store changed
        under the current search. Falls back to a reset when the shared ids changed order
        (rare: a re-sort). ``positions`` may hand over :func:`row_positions` of ``ids``.
        ``live``: an update while the person works (a sync's pages): never a reset (the
        answer is then False and the list stays). New rows in many places come a few
        milliseconds of inserts per turn of the event loop.
        """
        self._generation += 1
        new_ids, new_positions = _indexed(ids, positions)
        if self._extends(new_ids, new_positions):
            return True
        remote_only = [i for i in self._ids if self._provenance.get(i) == "cloud"]
        new_set = set(new_ids)
        new_ids += [i for i in remote_only if i not in new_set]
        new_set = set(new_ids)
        old_set = set(self._ids)
        common_old = [i for i in self._ids if i in new_set]
        common_new = [i for i in new_ids if i in old_set]
        if common_old != common_new:
            if live:
                return False
            keep = dict(self._provenance)
            self.set_results(new_ids, query=self._query, filters=self._filters)
            listed = self._position_map()
            for entity_id, provenance in keep.items():
                if entity_id in listed:
                    self._provenance[entity_id] = provenance
            return True
        self._remove_missing(new_set)
        self._local_count = len(self._ids) - len(remote_only)
        self._insert_new(new_ids, old_set, turn_s=INSERT_TURN_S)
        return True

    def _extends(self, new_ids: list[str], new_positions: dict[str, int]) -> bool:
        """Append the rest of ``new_ids`` in one insert when they start with the listed ids.

        The usual case: the full result list arriving after its first page. One append (and
        the positions the worker built) keeps the GUI thread from walking 100,000 ids.
        """
        count = len(self._ids)
        if len(new_ids) < count or new_ids[:count] != self._ids:
            return False
        if "cloud" in self._provenance.values():
            return False
        if len(new_ids) > count:

            def extend() -> None:
                self._ids = new_ids
                self._positions = new_positions

            self._change_rows(True, count, len(new_ids) - count, extend)
        self._local_count = len(self._ids)
        return True

    def _remove_missing(self, keep: set[str]) -> None:
        """Remove, in contiguous runs from the bottom, the rows whose ids are gone."""
        row = len(self._ids) - 1
        while row >= 0:
            if self._ids[row] in keep:
                row -= 1
                continue
            end = row
            while row >= 0 and self._ids[row] not in keep:
                row -= 1
            self._change_rows(False, row + 1, end - row, partial(self._drop_ids, row + 1, end + 1))
        self._positions = None

    def _drop_ids(self, start: int, stop: int) -> None:
        """Forget the ids of rows ``start`` to ``stop`` (excluded)."""
        for gone in self._ids[start:stop]:
            self._provenance.pop(gone, None)
            self._rows.pop(gone, None)
        del self._ids[start:stop]

    def _insert_new(
        self,
        new_ids: list[str],
        old_set: set[str],
        *,
        from_row: int = 0,
        turn_s: float | None = None,
    ) -> None:
        """Insert, in contiguous runs from ``from_row`` down, the ids not in ``old_set``; past
        ``turn_s`` seconds the rest follows in the next turn of the event loop (unless the list
        changed meanwhile).

        The rows above ``from_row`` are already ``new_ids``' own, so each turn goes on where
        the last stopped: at 100,000 rows, 600 items landing one by one took 6 s of the
        window's time when each turn walked the list again, and take 0.2 s this way.
        """
        deadline = None if turn_s is None else time.perf_counter() + turn_s
        row = from_row
        while row < len(new_ids):
            if new_ids[row] in old_set:
                row += 1
                continue
            if deadline is not None and row > from_row and time.perf_counter() > deadline:
                rest = partial(self._insert_rest, self._generation, new_ids, old_set, row, turn_s)
                QTimer.singleShot(0, self, rest)
                break
            start = row
            while row < len(new_ids) and new_ids[row] not in old_set:
                row += 1
            self._change_rows(
                True, start, row - start, partial(self._add_ids, start, new_ids[start:row])
            )
        self._positions = None

    def _add_ids(self, start: int, run: list[str]) -> None:
        """List ``run`` from row ``start`` on."""
        self._ids[start:start] = run
        for entity_id in run:
            self._provenance.pop(entity_id, None)
        self._local_count += len(run)

    def _insert_rest(
        self, generation: int, new_ids: list[str], old_set: set[str], row: int, turn_s: float | None
    ) -> None:
        """Go on with a live update's inserts from ``row``, unless the list changed since."""
        if generation == self._generation:
            self._insert_new(new_ids, old_set, from_row=row, turn_s=turn_s)

    def on_store_changed(self, changes: ChangeSet) -> None:
        """Forget cached rows the store changed, and repaint those that are listed."""
        if changes.every_entity:
            self._rows.clear()
            self._snippets.clear()
            self._failed.clear()
            if self._ids:
                self.dataChanged.emit(self.index(0, 0), self.index(len(self._ids) - 1, 0))
            return
        touched = changes.entity_ids | changes.deleted_ids
        positions = self._position_map()
        rows: list[int] = []
        for entity_id in touched:
            self._rows.pop(entity_id, None)
            self._snippets.pop(entity_id, None)
            self._failed.discard(entity_id)
            row = positions.get(entity_id)
            if row is not None:
                rows.append(row)
        for first, last in _runs(sorted(rows)):
            self.dataChanged.emit(self.index(first, 0), self.index(last, 0))


def row_positions(ids: Sequence[str]) -> dict[str, int]:
    """Each id's row in a list of ids without repeats (a worker builds it for a long list)."""
    return dict(zip(ids, range(len(ids)), strict=True))


def _indexed(
    ids: Sequence[str], positions: dict[str, int] | None
) -> tuple[list[str], dict[str, int]]:
    """The ids without repeats and their rows, taking ``positions`` when it indexes ``ids``."""
    if positions is not None and len(positions) == len(ids):
        return list(ids), positions
    unique = list(dict.fromkeys(ids))
    return unique, row_positions(unique)


def _runs(rows: Iterable[int]) -> list[tuple[int, int]]:
    """Contiguous (first, last) runs of sorted row numbers."""
    runs: list[tuple[int, int]] = []
    for row in rows:
        if runs and runs[-1][1] == row - 1:
            runs[-1] = (runs[-1][0], row)
        else:
            runs.append((row, row))
    return runs
