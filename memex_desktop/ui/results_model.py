"""The results list model: entity ids, with display rows fetched lazily from the cache.

The model holds only ids (cheap for 100,000 rows). ``data()`` fetches the rows of the block
around a requested row from :meth:`CacheReader.get_many` (bounded, on the GUI thread's own
reader) and keeps them until the store reports a change to them. A row that cannot be loaded
shows as a placeholder rather than raising; a read the environment broke (a damaged cache) is
also announced by ``rows_unreadable``, once per list, for the window to act on. Each id
carries its provenance: found in the local cache, on the server (remote search, "cloud"), or
both.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from PySide6.QtCore import QModelIndex, QObject, QPersistentModelIndex, Qt, QTimer, Signal, Slot
from PySide6.QtGui import QStandardItemModel

from memex_desktop.store import ChangeSet, EntityRow, KnownStoreError
from memex_desktop.store.query import python_snippet, snippet_terms

log = logging.getLogger(__name__)

MARK_START = "\x02"
MARK_END = "\x03"
_SLOW_READ_MS = 50.0

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

    Signals:
        rows_unreadable(object): reading the rows of the list met a problem of the store
            (a KnownStoreError: a damaged cache, say); sent once per list, after the read
            that met it (never from inside a paint), for the window to act on.
    """

    rows_unreadable = Signal(object)

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
        # The ids listed because the server found them (the local search did not): kept at
        # the end when the list is read again. Their badge says whether the server brought
        # them ("cloud") or the cache held them already ("both").
        self._from_server: set[str] = set()
        self._rows: dict[str, EntityRow] = {}
        # The store's marked snippet of each local result read so far ("" when none matched).
        self._snippets: dict[str, str] = {}
        self._failed: set[str] = set()
        # The store's problem met reading this list's rows, and whether it was announced.
        self._unreadable: KnownStoreError | None = None
        self._unreadable_told = False
        self._tell_unreadable = QTimer(self)
        self._tell_unreadable.setSingleShot(True)
        self._tell_unreadable.setInterval(0)
        self._tell_unreadable.timeout.connect(self._on_tell_unreadable_timeout)
        self._local_count = 0
        self._query = ""
        self._filters = SearchFilters()
        # The change of the ids that goes with the rows being inserted or removed now.
        self._pending: Callable[[], None] | None = None
        # Connected before any view's slot, so it runs first when rows came or went.
        self.rowsInserted.connect(self._apply_pending)
        self.rowsRemoved.connect(self._apply_pending)

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
        except KnownStoreError as exc:  # placeholders for now; the window hears why
            log.warning("loading %d result rows failed: %s", len(wanted), exc)
            self._met_unreadable(exc)
            rows = {}
        except Exception:  # a row that cannot load becomes a placeholder, never a crash
            log.exception("loading %d result rows failed", len(wanted))
            rows = {}
        self._rows.update(rows)
        self._failed.update(i for i in wanted if i not in rows)
        elapsed = (time.perf_counter() - began) * 1000
        if elapsed > _SLOW_READ_MS:
            log.warning("slow result rows read: %d rows in %.0f ms", len(wanted), elapsed)

    def _met_unreadable(self, exc: KnownStoreError) -> None:
        """Announce ``exc`` once the event loop is back (a paint may be asking for rows now:
        a reset from inside it would pull the rows from under it), once per list."""
        if self._unreadable is None and not self._unreadable_told:
            self._unreadable = exc
            self._tell_unreadable.start()

    @Slot()
    def _on_tell_unreadable_timeout(self) -> None:
        """Say which store problem this list's rows met."""
        exc, self._unreadable = self._unreadable, None
        if exc is not None:
            self._unreadable_told = True
            self.rows_unreadable.emit(exc)

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
        except KnownStoreError as exc:  # the plain excerpt stands in; the window hears why
            log.warning("loading snippets failed: %s", exc)
            self._met_unreadable(exc)
            found = {}
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
        self.beginResetModel()
        self._ids, self._positions = _indexed(ids, positions)
        self._provenance = {} if provenance == "cached" else dict.fromkeys(self._ids, provenance)
        self._from_server = set() if provenance == "cached" else set(self._ids)
        self._local_count = len(self._ids) if provenance == "cached" else 0
        self._query = query
        self._filters = filters or SearchFilters()
        self._snippets.clear()
        self._failed.clear()
        # A new list: what the last one met is said again if its rows meet it too.
        self._unreadable, self._unreadable_told = None, False
        self._tell_unreadable.stop()
        self._count_rows()
        self.endResetModel()

    def empty(self) -> None:
        """No rows, for the same search and filters: its rows cannot be read (a damaged
        cache), and the list's empty state says why instead of rows that cannot load."""
        self.set_results([], query=self._query, filters=self._filters)

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

    def merge_remote(self, ids: Sequence[str], brought: Collection[str] | None = None) -> int:
        """Merge remote search results in by id; returns how many rows were added.

        Ids already listed gain the "both" badge; new ones are appended in server order,
        badged "cloud" when the server brought them to the cache, "both" when the cache held
        them already. ``brought``: the ids the server's answer brought or changed (None:
        any of them may have been).
        """
        new: list[str] = []
        positions = self._position_map()
        for entity_id in dict.fromkeys(ids):
            if entity_id in positions:
                row = positions[entity_id]
                if entity_id not in self._from_server:
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
                    held = brought is not None and entity_id not in brought
                    self._provenance[entity_id] = "both" if held else "cloud"
                    self._from_server.add(entity_id)
                    self._failed.discard(entity_id)

            self._change_rows(True, first, len(new), append)
        return len(new)

    def update_ids(
        self,
        ids: Sequence[str],
        positions: dict[str, int] | None = None,
    ) -> bool:
        """Move to a new id list of the same search, never by a reset: the selection stays,
        and the view keeps the row the person is on in place.

        Used when the full list of a search follows its first page, or the store changed
        under the current search (a sync's pages, and its end). The usual full list, the
        first page and more, is one append. Otherwise the new ids are appended, every row
        is put in its new place in one layout change (the persistent indexes, the selection
        and the current row among them, go with their ids), and the ids gone, last by
        then, are removed in one run: a sync's items land in hundreds of places of a
        search's list, and its ranking moves listed items as the sync indexes them (a reset
        took the person back to the top; inserts run by run took the window seconds). The
        server's results no longer listed locally stay, at the end. ``positions`` may hand
        over :func:`row_positions` of ``ids``. The answer is always True.
        """
        new_ids, new_positions = _indexed(ids, positions)
        if self._extends(new_ids, new_positions):
            return True
        # Set differences of the rows' maps, in C: walking 100,000 ids in Python for each of
        # them took 40 ms of the window's time per update.
        listed = self._position_map()
        remote_kept = sorted(
            (
                entity_id
                for entity_id in self._from_server
                if entity_id in listed and entity_id not in new_positions
            ),
            key=listed.__getitem__,
        )
        if remote_kept:
            new_ids = [*new_ids, *remote_kept]
            new_positions = row_positions(new_ids)
        fresh = sorted(new_positions.keys() - listed.keys(), key=new_positions.__getitem__)
        gone = sorted(listed.keys() - new_positions.keys(), key=listed.__getitem__)
        if fresh:
            self._append(fresh)
        order = [*new_ids, *gone] if gone else new_ids
        if order != self._ids:
            self._reorder(order, None if gone else new_positions)
        if gone:
            self._change_rows(
                False, len(new_ids), len(gone), partial(self._drop_ids, len(new_ids), len(order))
            )
        self._local_count = len(self._ids) - len(remote_kept)
        return True

    def _append(self, run: list[str]) -> None:
        """List ``run`` (found locally) after the rows listed, in one insert."""
        first = len(self._ids)

        def append() -> None:
            self._ids.extend(run)
            self._positions = None
            for entity_id in run:
                self._provenance.pop(entity_id, None)
                self._from_server.discard(entity_id)
                self._failed.discard(entity_id)

        self._change_rows(True, first, len(run), append)

    def _reorder(self, order: list[str], positions: dict[str, int] | None = None) -> None:
        """Show the listed ids in ``order`` (the same ids) as one layout change: the
        persistent indexes (the selection, the current row) go with their ids.
        ``positions``: :func:`row_positions` of ``order``, when at hand."""
        self.layoutAboutToBeChanged.emit()
        before = self.persistentIndexList()
        moved = [self._ids[index.row()] for index in before]
        rows = positions if positions is not None else row_positions(order)
        self._ids, self._positions = order, rows
        self.changePersistentIndexList(
            before, [self.index(rows[entity_id], 0) for entity_id in moved]
        )
        self.layoutChanged.emit()

    def _extends(self, new_ids: list[str], new_positions: dict[str, int]) -> bool:
        """Append the rest of ``new_ids`` in one insert when they start with the listed ids.

        The usual case: the full result list arriving after its first page. One append (and
        the positions the worker built) keeps the GUI thread from walking 100,000 ids.
        """
        count = len(self._ids)
        if len(new_ids) < count or new_ids[:count] != self._ids:
            return False
        if self._from_server:
            return False
        if len(new_ids) > count:

            def extend() -> None:
                self._ids = new_ids
                self._positions = new_positions

            self._change_rows(True, count, len(new_ids) - count, extend)
        self._local_count = len(self._ids)
        return True

    def _drop_ids(self, start: int, stop: int) -> None:
        """Forget the ids of rows ``start`` to ``stop`` (excluded)."""
        for gone in self._ids[start:stop]:
            self._provenance.pop(gone, None)
            self._from_server.discard(gone)
            self._rows.pop(gone, None)
        del self._ids[start:stop]
        self._positions = None

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
