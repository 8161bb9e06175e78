"""The sidebar: Library by type, Tags, Saved views, Feeds, Outbox and Deleted upstream.

Each entry is a :class:`Scope` that the search controller turns into a list of results. Counts come
from bounded cache reads; entries are updated in place (by key) so a sync never loses the
person's selection. An empty Saved views or Feeds section says why it is empty: there are none,
or the last sync could not read them from the server.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import (
    QItemSelection,
    QModelIndex,
    QPersistentModelIndex,
    QRect,
    QSize,
    Qt,
    Signal,
    Slot,
)
from PySide6.QtGui import (
    QColor,
    QFontMetrics,
    QMouseEvent,
    QPainter,
    QStandardItem,
    QStandardItemModel,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTreeView,
    QWidget,
)

from memex_desktop.api.content import type_label
from memex_desktop.store import ChangeSet
from memex_desktop.sync.engine import STATE_FEEDS_PROBLEM, STATE_VIEWS_PROBLEM
from memex_desktop.ui import theme

log = logging.getLogger(__name__)

# The most used tags are listed; a row says how many more there are (a search by tag:name
# finds any). Listing 3,000 took 57 ms of the GUI thread, and counts change after every page
# a sync writes.
MAX_TAGS_SHOWN = 300
# The item padding of the style sheet (#sidebar::item), both sides together.
ITEM_PADDING = 12
# Between an entry's name and its count, at the least.
COUNT_GAP = 8
# As many as the Deleted upstream list shows (search_controller.SCOPE_LIMIT): the count is
# the number of rows the shelf lists.
MAX_DELETED_COUNTED = 20_000
VIEW_REMOTE_LIMIT = 100


@dataclass(frozen=True)
class Scope:
    """What a sidebar entry selects: kind (all, type, tag, view, feed, outbox, deleted)."""

    kind: str
    value: str | None = None
    label: str = ""

    @property
    def key(self) -> str:
        """A stable identity for the entry (survives count changes)."""
        return f"{self.kind}:{self.value or ''}"


@dataclass(frozen=True)
class SidebarSnapshot:
    """What the sidebar and the search filters show, read in one go (on a worker)."""

    counts: dict[str, int]
    tags: list[Any]
    views: list[Any]
    feeds: list[Any]
    deleted: int
    # Why the last sync could not read the views / feeds ("" when it could).
    views_problem: str = ""
    feeds_problem: str = ""


def read_sidebar_snapshot(reader: Any) -> SidebarSnapshot:
    """Counts by type, tags, views, feeds, the deleted count and why views or feeds could not
    be read (bounded reads)."""
    return SidebarSnapshot(
        counts=dict(reader.counts_by_type()),
        tags=list(reader.tags()),
        views=list(reader.views()),
        feeds=list(reader.feeds()),
        deleted=reader.count_deleted_upstream(limit=MAX_DELETED_COUNTED),
        views_problem=reader.sync_state(STATE_VIEWS_PROBLEM) or "",
        feeds_problem=reader.sync_state(STATE_FEEDS_PROBLEM) or "",
    )


@dataclass(frozen=True)
class ViewResults:
    """A saved view run on the server: its ids in server order and what caching them changed."""

    view_id: str
    ids: list[str]
    changes: ChangeSet
    meta: Any = None


def run_view_search(
    client: Any, writer: Any, view_id: str, limit: int = VIEW_REMOTE_LIMIT
) -> ViewResults:
    """Worker: ``/execute-view-search`` for a view; results are cached before they are shown."""
    response = client.execute_view_search(view_id, limit=limit)
    changes = writer.ingest_search_page(response).result()
    ids = list(dict.fromkeys(entity.id for entity in response.results))
    return ViewResults(view_id, ids, changes, response.meta)


ALL_ITEMS = Scope("all", None, "All items")
SECTIONS: tuple[tuple[str, str], ...] = (
    ("library", "Library"),
    ("tags", "Tags"),
    ("views", "Saved views"),
    ("feeds", "Feeds"),
    ("outbox", "Outbox"),
    ("deleted", "Deleted upstream"),
)
# What an empty section says: (when the server could not be read, when there are none).
EMPTY_SECTION_TEXT = {
    "views": ("Could not read saved views from the server", "No saved views"),
    "feeds": ("Could not read feeds from the server", "No feeds"),
}


class SidebarModel(QStandardItemModel):
    """The sidebar's tree; leaves carry their Scope in ScopeRole."""

    ScopeRole = Qt.ItemDataRole.UserRole + 1
    # An entry's name and its count apart (the display text holds both, for tests and
    # screen readers); the delegate paints the count whole and shortens the name instead.
    NameRole = Qt.ItemDataRole.UserRole + 2
    CountRole = Qt.ItemDataRole.UserRole + 3

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._sections: dict[str, QStandardItem] = {}
        for key, title in SECTIONS:
            item = QStandardItem(title)
            item.setEditable(False)
            item.setSelectable(key in ("outbox", "deleted"))
            item.setData(Scope(key, None, title) if key in ("outbox", "deleted") else None)
            font = item.font()
            font.setBold(True)
            item.setFont(font)
            item.setData(f"{title} section", Qt.ItemDataRole.AccessibleTextRole)
            self.appendRow(item)
            self._sections[key] = item

    def section(self, key: str) -> QStandardItem:
        """The top-level item of a section."""
        return self._sections[key]

    def set_section_entries(
        self,
        key: str,
        entries: list[tuple[Scope, int | None]],
        more: tuple[str, str] | None = None,
    ) -> None:
        """Make a section list exactly these entries (in order), updating items in place,
        and after them, if given, a row saying what is not listed: ``more`` is its text and
        tooltip.

        The placeholder of an empty section (:meth:`set_section_placeholder`) goes once
        there are entries, and stays (not redrawn) while there are none.
        """
        parent = self._sections[key]
        wanted = {scope.key: (scope, count) for scope, count in entries}
        for row in reversed(range(parent.rowCount())):
            scope = parent.child(row).data(self.ScopeRole)
            if (scope is None and entries) or (scope is not None and scope.key not in wanted):
                parent.removeRow(row)
        if not entries:
            return
        # The keys of the rows in their order, kept in step with every move: reading every
        # row back from the model after each insertion cost a second for 300 tags.
        order = [parent.child(r).data(self.ScopeRole).key for r in range(parent.rowCount())]
        for position, (scope, count) in enumerate(entries):
            text = scope.label if count is None else f"{scope.label}  ({count:,})"
            # Rows above ``position`` are the entries before this one, in order already.
            try:
                found: int | None = order.index(scope.key, position)
            except ValueError:
                found = None
            if found is None:
                item = QStandardItem(text)
                item.setEditable(False)
                item.setData(scope, self.ScopeRole)
                _set_name_and_count(item, text, scope.label, count)
                parent.insertRow(position, [item])
                order.insert(position, scope.key)
                continue
            if found != position:  # its count passed another's: it moves up to its place
                parent.insertRow(position, parent.takeRow(found))
                order.insert(position, order.pop(found))
            item = parent.child(position)
            if item.text() != text:
                item.setText(text)
                _set_name_and_count(item, text, scope.label, count)
        if more is not None:
            parent.appendRow(_note_item(*more))

    def set_section_placeholder(self, key: str, text: str | None, tooltip: str = "") -> None:
        """Show one disabled, italic row saying why a section is empty (``None``: no row).

        Call it for an empty section only: entries replace the placeholder.
        """
        parent = self._sections[key]
        rows = [r for r in range(parent.rowCount()) if parent.child(r).data(self.ScopeRole) is None]
        for row in reversed(rows[1:] if text is not None else rows):
            parent.removeRow(row)
        if text is None:
            return
        if rows:
            item = parent.child(rows[0])
        else:
            item = _note_item(text)
            parent.appendRow(item)
        if item.text() != text:
            item.setText(text)
        if item.toolTip() != tooltip:
            item.setToolTip(tooltip)
        item.setData(text, Qt.ItemDataRole.AccessibleTextRole)
        item.setData(tooltip, Qt.ItemDataRole.AccessibleDescriptionRole)

    def set_section_count(self, key: str, count: int) -> None:
        """Show a count on a section header (Outbox, Deleted upstream)."""
        item = self._sections[key]
        title = dict(SECTIONS)[key]
        text = f"{title}  ({count:,})" if count else title
        if item.text() != text:
            item.setText(text)
            _set_name_and_count(item, text, title, count or None)

    def index_of(self, scope_key: str) -> QModelIndex:
        """The index of the entry with this scope key (invalid when absent)."""
        for section in self._sections.values():
            own = section.data()
            if isinstance(own, Scope) and own.key == scope_key:
                return section.index()
            for row in range(section.rowCount()):
                child = section.child(row)
                scope = child.data(self.ScopeRole)
                if scope is not None and scope.key == scope_key:
                    return child.index()
        return QModelIndex()


def _note_item(text: str, tooltip: str = "") -> QStandardItem:
    """A row that says something about its section (why it is empty, what it leaves out):
    italic, and nothing to select."""
    item = QStandardItem(text)
    item.setEditable(False)
    item.setSelectable(False)
    item.setEnabled(False)
    font = item.font()
    font.setItalic(True)
    item.setFont(font)
    item.setData(text, Qt.ItemDataRole.AccessibleTextRole)
    if tooltip:
        item.setToolTip(tooltip)
        item.setData(tooltip, Qt.ItemDataRole.AccessibleDescriptionRole)
    return item


def _set_name_and_count(item: QStandardItem, text: str, name: str, count: int | None) -> None:
    """Keep an entry's name and count apart beside its text, and the whole text where a
    shortened name leaves it unread (its tooltip) or a screen reader reads it."""
    item.setData(name, SidebarModel.NameRole)
    item.setData(count, SidebarModel.CountRole)
    item.setData(text, Qt.ItemDataRole.AccessibleTextRole)
    item.setToolTip(text if count is None else f"{name}: {count:,}")


def entry_layout(
    room: QRect, metrics: QFontMetrics, name: str, count: int
) -> tuple[str, QRect, str]:
    """Where an entry's name goes in ``room`` and how much of it shows; its count, whole,
    goes at the right of ``room``."""
    number = f"{count:,}"
    name_room = QRect(room)
    name_room.setRight(room.right() - metrics.horizontalAdvance(number) - COUNT_GAP)
    shown = metrics.elidedText(name, Qt.TextElideMode.ElideRight, max(0, name_room.width()))
    return shown, name_room, number


class _CountDelegate(QStyledItemDelegate):
    """Paints an entry's count whole at its right edge, and shortens the name before it.

    The count is what an entry is looked at for: at 1366×768 the sidebar is about 175 pixels
    wide, and elided as one text "All items  (1,000,000)" lost its count first.
    """

    def paint(
        self,
        painter: QPainter,
        option: QStyleOptionViewItem,
        index: QModelIndex | QPersistentModelIndex,
    ) -> None:
        count = index.data(SidebarModel.CountRole)
        if count is None:
            super().paint(painter, option, index)
            return
        item = QStyleOptionViewItem(option)
        self.initStyleOption(item, index)
        widget = item.widget
        style = widget.style() if widget is not None else QApplication.style()
        item.text = ""  # the background, selection and focus only: the text is drawn below
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, item, painter, widget)
        room = style.subElementRect(QStyle.SubElement.SE_ItemViewItemText, item, widget)
        name, name_room, number = entry_layout(
            room, item.fontMetrics, str(index.data(SidebarModel.NameRole) or ""), count
        )
        # The colours of the style sheet's #sidebar::item rules, which this text replaces.
        colours = theme.current()
        selected = bool(item.state & QStyle.StateFlag.State_Selected)
        painter.save()
        painter.setFont(item.font)
        painter.setPen(QColor(colours.heading if selected else colours.secondary_text))
        centred = Qt.AlignmentFlag.AlignVCenter
        painter.drawText(name_room, centred | Qt.AlignmentFlag.AlignLeft, name)
        if not selected:
            painter.setPen(QColor(colours.muted_text))
        painter.drawText(room, centred | Qt.AlignmentFlag.AlignRight, number)
        painter.restore()


class Sidebar(QTreeView):
    """The sidebar view.

    Signals:
        scope_selected(object): the person picked an entry (a Scope).
        scope_reselected(object): the person clicked the entry already picked (a Scope):
            what it lists is to be read again.
    """

    scope_selected = Signal(object)
    scope_reselected = Signal(object)

    def __init__(
        self, reader: Any, parent: QWidget | None = None, *, read_now: bool = True
    ) -> None:
        """``read_now``: read the entries and counts here; else the sidebar shows All items
        alone until :meth:`apply_snapshot` gets a snapshot read on a worker (the window
        does that: counting a large cache by type and tag takes tenths of a second)."""
        super().__init__(parent)
        self.setObjectName("sidebar")
        self.setAccessibleName("Library sidebar")
        self._reader = reader
        # What the sidebar shows now (None until the first read).
        self.snapshot: SidebarSnapshot | None = None
        # The entry last picked: what the list shows, even while the keyboard is on a
        # section's title (which selects nothing).
        self._scope = ALL_ITEMS
        # While entries are replaced, a removed row moves the selection to its neighbour:
        # that is no pick by the person.
        self._replacing = False
        # Whether the mouse went down on the entry already picked (its click reads it again).
        self._pressed_on_picked = False
        # The key of an entry to pick once the entries are read (where the person was at the
        # last quit): until then the sidebar lists All items alone.
        self._wanted: str | None = None
        self.sidebar_model = SidebarModel(self)
        self.setModel(self.sidebar_model)
        self.setHeaderHidden(True)
        self.setUniformRowHeights(True)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.selectionModel().selectionChanged.connect(self._on_selection_changed)
        self.clicked.connect(self._on_clicked)
        self.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.setItemDelegate(_CountDelegate(self))
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        if read_now:
            self.refresh()
        else:
            self.sidebar_model.set_section_entries("library", [(ALL_ITEMS, None)])
        self.expandAll()
        self.select_scope(ALL_ITEMS)

    def minimumSizeHint(self) -> QSize:
        """Wide enough for every section title; entries longer than that end with "…"."""
        font = self.font()
        font.setBold(True)
        metrics = QFontMetrics(font)
        widest = max(metrics.horizontalAdvance(title) for _key, title in SECTIONS)
        scrollbar = self.verticalScrollBar().sizeHint().width()
        # Section titles sit one indentation in, beside their expand arrows.
        arrows = self.indentation() if self.rootIsDecorated() else 0
        width = widest + arrows + ITEM_PADDING + 2 * self.frameWidth() + scrollbar + 4
        return QSize(width, super().minimumSizeHint().height())

    def current_scope(self) -> Scope:
        """The entry last picked (All items at first)."""
        return self._scope

    def _scope_of(self, index: QModelIndex) -> Scope | None:
        """The Scope an index stands for (section headers of Outbox/Deleted are entries too)."""
        scope = index.data(SidebarModel.ScopeRole)
        if scope is None:
            scope = index.data(Qt.ItemDataRole.UserRole + 1)
        return scope if isinstance(scope, Scope) else None

    def select_scope(self, scope: Scope) -> None:
        """Select an entry by scope (no-op when it is not listed)."""
        self._select_key(scope.key)

    def _select_key(self, key: str) -> None:
        """Select the entry of this scope key (no-op when it is not listed)."""
        index = self.sidebar_model.index_of(key)
        if index.isValid():
            self.setCurrentIndex(index)

    def pick_when_listed(self, key: str) -> None:
        """Pick the entry of this scope key (:attr:`Scope.key`): now when it is listed, else
        once the entries are read, if they list it and no other entry was picked meanwhile;
        an entry gone since is quietly not picked."""
        self._wanted = None
        if self.sidebar_model.index_of(key).isValid():
            self._select_key(key)
        elif self.snapshot is None:
            self._wanted = key

    @property
    def wanted_key(self) -> str | None:
        """The key of the entry to pick once the entries are read (None: none waits)."""
        return self._wanted

    @Slot(QItemSelection, QItemSelection)
    def _on_selection_changed(self, selected: QItemSelection, _deselected: QItemSelection) -> None:
        """Announce the newly selected scope."""
        indexes = selected.indexes()
        if not indexes or self._replacing:
            return
        scope = self._scope_of(indexes[0])
        if scope is not None:
            self._scope = scope
            self._wanted = None  # a pick of the person's own comes first
            self.scope_selected.emit(scope)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        """Note whether the press is on the entry already picked, which selects nothing new."""
        index = self.indexAt(event.position().toPoint())
        self._pressed_on_picked = (
            index.isValid()
            and self._scope_of(index) == self._scope
            and self.selectionModel().isSelected(index)
        )
        super().mousePressEvent(event)

    @Slot(QModelIndex)
    def _on_clicked(self, index: QModelIndex) -> None:
        """A click on the entry already picked asks for it again (no selection change says
        so): a list that fell behind the cache is then read anew."""
        if self._pressed_on_picked and self._scope_of(index) == self._scope:
            self.scope_reselected.emit(self._scope)
        self._pressed_on_picked = False

    def refresh(self, outbox_pending: int | None = None) -> None:
        """Reload every section's entries and counts now (bounded reads on this thread)."""
        try:
            snapshot = read_sidebar_snapshot(self._reader)
        except Exception:  # a failed refresh keeps the old entries on screen
            log.exception("refreshing the sidebar failed")
        else:
            self.apply_snapshot(snapshot)
        if outbox_pending is not None:
            self.set_outbox_count(outbox_pending)

    def set_outbox_count(self, count: int) -> None:
        """Show how many saves the outbox holds (waiting, sent or needing attention)."""
        self.sidebar_model.set_section_count("outbox", count)

    def apply_snapshot(self, snapshot: SidebarSnapshot) -> None:
        """Show the entries and counts of a snapshot read (possibly) on a worker; the entry
        picked stays picked, or All items is when it is gone; an entry waiting to be picked
        (:meth:`pick_when_listed`) is picked when listed."""
        wanted, self._wanted = self._wanted, None
        self._replacing = True
        try:
            self._apply(snapshot)
            picked = self.sidebar_model.index_of(self._scope.key)
            current = self.currentIndex()
            # The selection moved to a neighbour of a removed row, or went with a row that
            # moved to its new place: the entry picked is picked again (not a new pick).
            moved = not current.isValid() or self._scope_of(current) is not None
            if picked.isValid() and current != picked and moved:
                self.setCurrentIndex(picked)
        finally:
            self._replacing = False
        if not picked.isValid():
            self.select_scope(ALL_ITEMS)  # the entry picked is gone (a tag no item has now)
        if wanted is not None:
            self._select_key(wanted)

    def _apply(self, snapshot: SidebarSnapshot) -> None:
        """The entries and counts of a snapshot, the selection left as the rows leave it."""
        first = self.snapshot is None
        self.snapshot = snapshot
        counts = snapshot.counts
        # All items lists every live item of every type (notes and stand-ins for unreadable
        # items too): its count is the sum of the type counts below it.
        library: list[tuple[Scope, int | None]] = [(ALL_ITEMS, sum(counts.values()))]
        library += [
            (Scope("type", t, type_label(t)), c)
            for t, c in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
        ]
        self.sidebar_model.set_section_entries("library", library)
        tags = sorted(snapshot.tags, key=lambda tag: (-tag.count, tag.name.lower()))
        left_out = len(tags) - MAX_TAGS_SHOWN
        self.sidebar_model.set_section_entries(
            "tags",
            [(Scope("tag", t.id, t.name), t.count) for t in tags[:MAX_TAGS_SHOWN]],
            more=(
                (
                    f"{left_out:,} more tags",
                    f"Only the {MAX_TAGS_SHOWN} most used tags are listed here. Search for "
                    "tag:name to list the items of any other tag.",
                )
                if left_out > 0
                else None
            ),
        )
        views: list[tuple[Scope, int | None]] = [
            (Scope("view", v.id, v.name), None) for v in snapshot.views
        ]
        self._set_listed_section("views", views, snapshot.views_problem)
        feeds: list[tuple[Scope, int | None]] = [
            (Scope("feed", f.id, f.title or f.feed_url or f.id), None) for f in snapshot.feeds
        ]
        self._set_listed_section("feeds", feeds, snapshot.feeds_problem)
        self.sidebar_model.set_section_count("deleted", snapshot.deleted)
        if first:  # sections without entries could not open before: they open with them
            self.expandAll()

    def _set_listed_section(
        self, key: str, entries: list[tuple[Scope, int | None]], problem: str
    ) -> None:
        """Entries of a section read from the server, or one row saying why there are none."""
        self.sidebar_model.set_section_entries(key, entries)
        if entries:
            return
        unreadable, none = EMPTY_SECTION_TEXT[key]
        if problem:
            self.sidebar_model.set_section_placeholder(key, unreadable, problem)
        else:
            self.sidebar_model.set_section_placeholder(key, none)

    @Slot(object)
    def on_store_changed(self, changes: ChangeSet) -> None:
        """Refresh counts when the store changed anything the sidebar shows."""
        if changes:
            self.refresh()
