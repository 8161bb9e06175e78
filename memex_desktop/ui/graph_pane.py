"""The reference-graph pane: the neighbourhood of the selected item, drawn and listed.

The neighbourhood is read from the cache, sorted for the Links list and laid out on the
TaskRunner (its own read connection); the previous task is cancelled whenever the selection
changes, so a large neighbourhood never freezes the window. Nothing animates: once a layout
is drawn the pane uses no CPU until something changes. The "Links" tab lists the same
neighbourhood as an adjacency list for the keyboard and screen readers. It shows one hop around
the item unless the person asks for two: two hops around an item with a popular tag reach most
of a library, a drawing in which the item itself is lost. Before an item is chosen, and for an
item without links, words take the place of the drawing and the list instead of an empty box.

Labels keep their size on screen whatever the zoom; a placement pass (``graph.labels``) shows,
of the nodes in view, most important first, the labels that find a place touching their own
dot and clear of every other label and dot (no label covers a dot, sits as near another dot
as its own, or has another dot beside it nearer its middle, where a person would read it as
that dot's), again after every zoom and pan, so zooming in shows more of them. Where a whole
name has no room it is shortened before it is dropped, so what is left out is the least
important. The focused item's label, in bold, is placed first, at any place touching its dot
and at worst touching other dots too, so it shows even in a crowd; the hubs' follow, and may
move along above or below their dot. A node's whole name shows while the pointer is on its dot
or its label. Until the person zooms or pans, the drawing keeps fitting the pane as it
is resized or filtered.

The filter hides content types and kinds of link, and with them what only they joined to the
item: a node shows while links of shown kinds, through nodes of shown types, join it to the
item within the hops chosen. Where the drawing holds all that the filter leaves (its read was
not cut by the node budget, or was read for a filter hiding no more), nodes hide and come back
at once; where the budget cut the read, what the shown links reach is read again, asking the
cache for the kinds of link shown only, so hiding the tags that filled the budget fills it with
what the other links reach, and "+N more" counts only items those links reach. What was read
for each filter of the item is kept, so going back to a filter draws it again at once. The count
says how many items show, how many more the budget leaves out and how many the filter hides.
The legend lists the kinds drawn and the kinds hidden, in one row where its names do not fit.
"""

from __future__ import annotations

import logging
import threading
import zlib
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import overload

from PySide6.QtCore import (
    QAbstractItemModel,
    QEvent,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QPoint,
    QPointF,
    QRectF,
    Qt,
    Signal,
    Slot,
)
from PySide6.QtGui import (
    QAction,
    QBrush,
    QColor,
    QFont,
    QFontMetricsF,
    QKeySequence,
    QMouseEvent,
    QPainter,
    QPainterPath,
    QPalette,
    QPen,
    QResizeEvent,
    QShortcut,
    QShowEvent,
    QTransform,
    QWheelEvent,
)
from PySide6.QtWidgets import (
    QComboBox,
    QGraphicsEllipseItem,
    QGraphicsItem,
    QGraphicsPathItem,
    QGraphicsRectItem,
    QGraphicsScene,
    QGraphicsSceneHoverEvent,
    QGraphicsSimpleTextItem,
    QGraphicsView,
    QHBoxLayout,
    QLabel,
    QMenu,
    QPushButton,
    QSizePolicy,
    QStackedWidget,
    QStyle,
    QTabWidget,
    QToolButton,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from memex_desktop.api.content import type_label
from memex_desktop.errors import user_message
from memex_desktop.graph import (
    Box,
    Layout,
    LayoutCancelled,
    importance_order,
    label_candidate,
    layout,
    moved_inside,
    place_beside_dots,
    places_around,
    places_beside,
    shortened,
)
from memex_desktop.store import ChangeSet, GraphReader
from memex_desktop.store.neighbourhood import (
    DEFAULT_MAX_NODES,
    EVERY_LINK,
    GraphFilter,
    hop_distances,
    read_shown,
    shown_within,
)
from memex_desktop.ui.flow_layout import FlowLayout
from memex_desktop.ui.graph_legend import (
    EDGE_STYLES,
    EDGES,
    NODES,
    GraphLegend,
    LegendEntry,
    edge_icon,
    edge_name,
    edge_pen,
    kind_order,
    node_colour,
    node_outline,
    type_icon,
)
from memex_desktop.ui.messages import message_line
from memex_desktop.ui.palette import TYPE_COLOURS
from memex_desktop.ui.readers import thread_reader
from memex_desktop.ui.tasks import Task, TaskRunner

log = logging.getLogger(__name__)

ID_ROLE = Qt.ItemDataRole.UserRole
Index = QModelIndex | QPersistentModelIndex

# How an edge reads from its target's side in the Links list.
INCOMING_WORDS = {
    "annotates": "annotated by",
    "references": "referenced by",
    "reply": "replied to by",
    "tag": "tag of",
}

NODE_RADIUS = 7.0
CENTER_GROWTH = 1.6
LABEL_CHARS = 28
# Where a node's whole name has no room, it is offered cut to these before it is dropped.
SHORT_LABEL_CHARS = (18, 10)
# The focused item's, which must show, may in a crowd be cut shorter still.
SHORTEST_CENTER_CHARS = 6
# Label geometry in screen pixels: padding inside its backdrop, gap between a label and the
# edge of its dot, how much further it keeps from every other dot (so that it reads as its own
# dot's), space between labels.
LABEL_PADDING = 3.0
LABEL_GAP = 2.0
LABEL_CLEARANCE = 3.0
LABEL_SPACING = 4.0
LABEL_BACKDROP_ALPHA = 210
# Above edges and dots (the placement keeps labels off every dot), below the hovered label.
LABEL_Z = 3.0
# A node with this many links drawn is a hub (a tag many items share): like the focused item's,
# its label is placed before the others, shortened or moved along where it has no room, since
# in a crowded drawing the hubs' names tell its parts apart.
HUB_LINKS = 8
HOVER_Z = 4.0
ZOOM_STEP = 1.2
MIN_ZOOM = 0.05
MAX_ZOOM = 8.0
# Fit leaves this many pixels around the nodes, and does not blow a small graph up further.
FIT_MARGIN = 16
MAX_FIT_ZOOM = 2.0
# Scene units around the outermost nodes that a zoomed-in view can still pan to.
SCENE_MARGIN = 40.0
# A press that moves further than this (pixels) is a pan, not a click.
CLICK_SLOP = 4
# What still works when no drawing comes.
LINKS_HINT = " The Links tab lists every link."
# What the pane says in place of the drawing and the list when there is nothing to show.
NO_ITEM = "Select an item to see its links."
NO_LINKS = (
    "No links yet. Notes on this item, items it references or is referenced by, and its tags "
    "show here."
)
# The type of the nodes that are tags (``store.GraphNode``): activated, they list their items.
TAG_TYPE = "tag"
# The neighbourhood's depths the person can pick, and the one shown until they do.
HOPS = (1, 2)
DEFAULT_HOPS = 1


@dataclass(frozen=True)
class _Node:
    """What the pane shows of a node: plain values copied out of the store row."""

    id: str
    type: str
    title: str


def _label(node: _Node) -> str:
    """A node's short label: its title, or its type and id when it has none."""
    title = (node.title or "").strip() or f"{node.type} {node.id}"
    return title if len(title) <= LABEL_CHARS else title[: LABEL_CHARS - 1] + "…"


@dataclass(frozen=True)
class PreparedGraph:
    """A neighbourhood prepared for the pane off the GUI thread: nodes, edges, Links order.

    ``read_for`` is the filter its reading skipped (nothing: it went through every link);
    ``whole`` says it holds every node within the hops that this filter shows, so any filter
    hiding at least as much is applied to it without reading again. ``reached`` counts the
    items within the hops through every kind of link, read or left out.
    """

    center: str
    nodes: dict[str, _Node]
    edges: list[tuple[str, str, str]]
    omitted: int
    order: list[str]
    links: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    reached: int = 0
    read_for: GraphFilter = EVERY_LINK
    whole: bool = True

    def answers(self, hidden: GraphFilter) -> bool:
        """Whether what the filter ``hidden`` shows is all in here."""
        return hidden == self.read_for or (self.whole and hidden.covers(self.read_for))

    def shown(self, hidden: GraphFilter, hops: int) -> dict[str, int]:
        """Hop distance of each node the filter ``hidden`` leaves joined to the centre."""
        types = {node_id: node.type for node_id, node in self.nodes.items()}
        return shown_within(self.center, types, self.edges, hops, hidden)

    def restricted(self, shown: set[str] | dict[str, int], hidden: GraphFilter) -> PreparedGraph:
        """The part of it the filter shows: its nodes in the same order, the links between."""
        edges = [
            edge
            for edge in self.edges
            if edge[2] not in hidden.kinds and edge[0] in shown and edge[1] in shown
        ]
        order = [node_id for node_id in self.order if node_id in shown]
        return replace(self, edges=edges, order=order, links=_links_of(edges))


def _links_of(edges: list[tuple[str, str, str]]) -> dict[str, list[tuple[str, str]]]:
    """(words, other end) of each node's links, as the Links list reads them."""
    links: dict[str, list[tuple[str, str]]] = {}
    for source, target, kind in edges:
        links.setdefault(source, []).append((kind, target))
        links.setdefault(target, []).append((INCOMING_WORDS.get(kind, f"{kind} of"), source))
    return links


def prepare_neighbourhood(
    reader: GraphReader,
    center: str,
    hops: int,
    max_nodes: int,
    hidden: GraphFilter = EVERY_LINK,
    stop: Callable[[], bool] | None = None,
) -> PreparedGraph:
    """Read the neighbourhood of ``center`` for a filter and order it for the Links list.

    Plain values only. Where the filter hides part of a neighbourhood cut by the budget, or
    hides kinds of link there, the reading goes through what it shows instead, links of the
    hidden kinds left unread (``store.neighbourhood.read_shown``).
    """
    read = read_shown(reader, center, hops, max_nodes, hidden, stop)
    hood = read.hood
    nodes = {n.id: _Node(n.id, n.type, n.title or "") for n in hood.nodes}
    edges = [
        (e.source, e.target, e.kind) for e in hood.edges if e.source in nodes and e.target in nodes
    ]
    others = sorted((n for n in nodes if n != center), key=lambda n: (nodes[n].title.casefold(), n))
    return PreparedGraph(
        center,
        nodes,
        edges,
        hood.omitted,
        [center, *others],
        _links_of(edges),
        reached=read.reached,
        read_for=read.read_for,
        whole=read.whole,
    )


@dataclass(frozen=True)
class GraphResult:
    """What the worker hands the pane: the prepared neighbourhood, its layout, and the filter
    it was read for."""

    hood: PreparedGraph
    layout: Layout | None
    asked: GraphFilter = EVERY_LINK

    def answers(self, hidden: GraphFilter) -> bool:
        """Whether it shows all that the filter ``hidden`` shows (then no reading is needed)."""
        return hidden == self.asked or self.hood.answers(hidden)


def read_and_lay_out(
    source: Path | GraphReader,
    center: str,
    hops: int,
    max_nodes: int,
    seed: int,
    hidden: GraphFilter = EVERY_LINK,
    *,
    cancel: threading.Event,
    progress: Callable[[PreparedGraph], None],
) -> GraphResult:
    """Worker body: read and prepare the neighbourhood for a filter, report it, lay it out.

    ``source`` is the cache file (read through this thread's own connection) or a reader
    object that may be called from any thread.
    """
    reader = thread_reader(source) if isinstance(source, Path) else source
    hood = prepare_neighbourhood(reader, center, hops, max_nodes, hidden, cancel.is_set)
    if cancel.is_set():
        raise LayoutCancelled
    progress(hood)  # the Links list and the status fill in while the layout runs
    if hood.reached <= 1:
        return GraphResult(hood, None, hidden)  # no links at all: nothing to draw
    pairs = [(s, t) for s, t, _ in hood.edges]
    return GraphResult(
        hood, layout(list(hood.nodes), pairs, center=center, seed=seed, cancel=cancel), hidden
    )


class NodeItem(QGraphicsEllipseItem):
    """A node: a dot coloured by content type; its label is a separate ``LabelItem``.

    Painting is left to Qt (no Python paint()), so redrawing thousands of nodes stays cheap.
    """

    def __init__(
        self,
        node: _Node,
        *,
        is_center: bool,
        on_hover: Callable[[str, bool], None] | None = None,
    ) -> None:
        self.radius = NODE_RADIUS * (CENTER_GROWTH if is_center else 1.0)
        r = self.radius
        super().__init__(-r, -r, 2 * r, 2 * r)
        self.node = node
        self.is_center = is_center
        self._on_hover = on_hover
        self.setBrush(QBrush(node_colour(node.type)))
        self.setPen(QPen(node_outline(), 2.0 if is_center else 0.8))
        self.setToolTip(f"{node.title or node.id} ({type_label(node.type)})")
        self.setZValue(2 if is_center else 1)
        self.setAcceptHoverEvents(on_hover is not None)

    def hoverEnterEvent(self, event: QGraphicsSceneHoverEvent) -> None:
        """The pointer is on the dot: its label shows, whether or not it had room."""
        if self._on_hover is not None:
            self._on_hover(self.node.id, True)
        super().hoverEnterEvent(event)

    def hoverLeaveEvent(self, event: QGraphicsSceneHoverEvent) -> None:
        """The pointer left: the label goes back to what the placement decided."""
        if self._on_hover is not None:
            self._on_hover(self.node.id, False)
        super().hoverLeaveEvent(event)


class LabelItem(QGraphicsRectItem):
    """A node's title on a translucent backdrop, scaled to keep its size on screen.

    Its rectangle is the box the placement pass reserved, so its ``sceneBoundingRect`` is what
    the drawing covers.
    """

    def __init__(self, node_id: str, text: str, font: QFont, width: float, height: float) -> None:
        super().__init__(0.0, 0.0, width, height)
        self.node_id = node_id
        self.setPen(QPen(Qt.PenStyle.NoPen))
        self.setZValue(LABEL_Z)
        self.text = QGraphicsSimpleTextItem(text, self)
        self.text.setFont(font)
        self.text.setPos(LABEL_PADDING, 0.0)

    def set_colours(self, text: QColor, backdrop: QColor) -> None:
        """Text and backdrop colours (from the pane's palette)."""
        self.text.setBrush(QBrush(text))
        self.setBrush(QBrush(backdrop))

    def place(self, box: Box, scale: float, text: str, width: float) -> None:
        """Show ``text`` (``width`` pixels with its padding) over ``box`` (scene units) at a
        view scale of ``scale``."""
        if self.text.text() != text:
            self.text.setText(text)
            rect = self.rect()
            rect.setWidth(width)
            self.setRect(rect)
        self.setScale(1.0 / scale)
        self.setPos(box.left, box.top)


def _box(rect: QRectF) -> Box:
    """A Qt rectangle as a placement box."""
    return Box(rect.left(), rect.top(), rect.right(), rect.bottom())


def _node_of(item: QGraphicsItem | None) -> str | None:
    """The node id an item under the pointer stands for (a dot, a label or its text)."""
    while item is not None:
        if isinstance(item, NodeItem):
            return item.node.id
        if isinstance(item, LabelItem):
            return item.node_id
        item = item.parentItem()
    return None


class GraphView(QGraphicsView):
    """The graph canvas: drag to pan, wheel to zoom, click and double-click on nodes.

    Signals:
        node_clicked(str), node_double_clicked(str): a click or double-click on a node.
        zoomed(): the person changed the zoom (wheel, buttons or keys).
        panned(): the person dragged the drawing.
        resized(): the viewport changed size or was first shown.
        scrolled(): the drawing moved in the viewport (a pan, a centring, a zoom's anchor).
    """

    node_clicked = Signal(str)
    node_double_clicked = Signal(str)
    zoomed = Signal()
    panned = Signal()
    resized = Signal()
    scrolled = Signal()

    def __init__(self, scene: QGraphicsScene, parent: QWidget | None = None) -> None:
        super().__init__(scene, parent)
        self.setRenderHint(QPainter.RenderHint.Antialiasing)
        self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.BoundingRectViewportUpdate)
        # Scroll bars would take room from a fitted drawing; dragging and the keys still pan.
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setMinimumSize(1, 1)
        self.setObjectName("graphView")  # style.qss frames it in the accent colour in focus
        self.setAccessibleName("Reference graph")
        self.setAccessibleDescription(
            "Drawing of linked items; the Links tab lists the same links as text"
        )
        self._press_pos: QPointF | None = None
        self._quiet = False

    def node_at(self, pos: QPoint) -> str | None:
        """The id of the node under a viewport position, if any."""
        for item in self.items(pos):
            node = _node_of(item)
            if node is not None:
                return node
        return None

    def zoom(self) -> float:
        """The current scale of scene units to pixels."""
        return self.transform().m11()

    def visible_scene_rect(self) -> QRectF:
        """The part of the scene the viewport shows."""
        return self.mapToScene(self.viewport().rect()).boundingRect()

    def zoom_by(self, factor: float) -> None:
        """Scale the view, within limits that keep the graph findable."""
        current = self.zoom()
        if current <= 0:
            return
        # A fit beyond the limits (a huge graph in a small pane) is not pulled back by a step.
        target = min(max(MAX_ZOOM, current), max(min(MIN_ZOOM, current), current * factor))
        if target != current:
            self._quiet = True  # the anchor's scrolling is part of the zoom: one signal
            try:
                self.scale(target / current, target / current)
            finally:
                self._quiet = False
            self.zoomed.emit()

    def wheelEvent(self, event: QWheelEvent) -> None:
        """Wheel zooms around the pointer (one notch = one step)."""
        notches = event.angleDelta().y() / 120
        if notches:
            self.zoom_by(ZOOM_STEP**notches)
            event.accept()
        else:
            super().wheelEvent(event)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        """Remember where a press started to tell a click from a pan."""
        self._press_pos = event.position()
        super().mousePressEvent(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        """A release close to its press on a node is a click on that node; further, a pan."""
        super().mouseReleaseEvent(event)
        start, self._press_pos = self._press_pos, None
        if start is None or event.button() != Qt.MouseButton.LeftButton:
            return
        moved = event.position() - start
        if abs(moved.x()) + abs(moved.y()) > CLICK_SLOP:
            self.panned.emit()
            return
        node = self.node_at(event.position().toPoint())
        if node is not None:
            self.node_clicked.emit(node)

    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:
        """Double-click on a node re-centres the graph on it."""
        node = self.node_at(event.position().toPoint())
        if node is not None and event.button() == Qt.MouseButton.LeftButton:
            self.node_double_clicked.emit(node)
            event.accept()
            return
        super().mouseDoubleClickEvent(event)

    def scrollContentsBy(self, dx: int, dy: int) -> None:
        """Say so: labels are placed for what is in view."""
        super().scrollContentsBy(dx, dy)
        if not self._quiet:
            self.scrolled.emit()

    def resizeEvent(self, event: QResizeEvent) -> None:
        """Say so: a drawing that fits the pane fits it again."""
        super().resizeEvent(event)
        self.resized.emit()

    def showEvent(self, event: QShowEvent) -> None:
        """Shown (a tab or dock brought forward): the viewport has its real size now."""
        super().showEvent(event)
        self.resized.emit()


class LinksModel(QAbstractItemModel):
    """The adjacency list as a two-level tree: items, and under each its typed links.

    Rows hold ids; link rows are built only when a parent is expanded, so a 2,000-item
    neighbourhood fills instantly.
    """

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._order: list[str] = []
        self._nodes: dict[str, _Node] = {}
        self._links: dict[str, list[tuple[str, str]]] = {}
        self._sorted: dict[int, list[tuple[str, str]]] = {}
        self._omitted = 0

    def set_neighbourhood(self, hood: PreparedGraph) -> None:
        """Replace the contents with a neighbourhood ordered off the GUI thread."""
        self.beginResetModel()
        self._nodes = hood.nodes
        self._links = hood.links
        self._order = list(hood.order)
        self._sorted = {}
        self._omitted = hood.omitted
        self.endResetModel()

    def _node_text(self, node_id: str) -> str:
        """ "Title (type)" of a node."""
        node = self._nodes[node_id]
        return f"{node.title or node.id} ({type_label(node.type or '')})"

    def links_of(self, row: int) -> list[tuple[str, str]]:
        """(words, other id) of the links of a top-level row, sorted for reading."""
        if row not in self._sorted:
            node_id = self._order[row]
            self._sorted[row] = sorted(
                self._links.get(node_id, ()),
                key=lambda link: (link[0], self._nodes[link[1]].title.casefold(), link[1]),
            )
        return self._sorted[row]

    def _is_more_row(self, row: int) -> bool:
        """The trailing "+N more not shown" row."""
        return row == len(self._order)

    def index(self, row: int, column: int, parent: Index = QModelIndex()) -> QModelIndex:  # noqa: B008
        """Top-level rows carry internal id 0; link rows carry their parent's row + 1."""
        if column != 0 or row < 0:
            return QModelIndex()
        if not parent.isValid():
            if row < self.rowCount():
                return self.createIndex(row, 0, 0)
            return QModelIndex()
        if parent.internalId() != 0 or self._is_more_row(parent.row()):
            return QModelIndex()
        if row < len(self.links_of(parent.row())):
            return self.createIndex(row, 0, parent.row() + 1)
        return QModelIndex()

    @overload
    def parent(self) -> QObject | None: ...

    @overload
    def parent(self, index: Index) -> QModelIndex: ...

    def parent(self, index: Index | None = None) -> QObject | QModelIndex | None:
        """Link rows belong to their item row; item rows to the root (no argument: QObject)."""
        if index is None:
            return QObject.parent(self)
        if not index.isValid() or index.internalId() == 0:
            return QModelIndex()
        return self.createIndex(int(index.internalId()) - 1, 0, 0)

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        """Items (plus the "+N more" row), or the links of one item."""
        if not parent.isValid():
            return len(self._order) + (1 if self._omitted else 0)
        if parent.column() != 0 or parent.internalId() != 0 or self._is_more_row(parent.row()):
            return 0
        return len(self.links_of(parent.row()))

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        """One column of text."""
        return 1

    def entity_id(self, index: Index) -> str | None:
        """The id an index points at (the item, or the other end of a link)."""
        if not index.isValid():
            return None
        if index.internalId() == 0:
            return None if self._is_more_row(index.row()) else self._order[index.row()]
        return self.links_of(int(index.internalId()) - 1)[index.row()][1]

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> str | None:
        """Text for display and for screen readers; the id under ID_ROLE."""
        if not index.isValid():
            return None
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.AccessibleTextRole):
            if index.internalId() == 0:
                if self._is_more_row(index.row()):
                    return f"+{self._omitted:,} more not shown"
                return self._node_text(self._order[index.row()])
            words, other = self.links_of(int(index.internalId()) - 1)[index.row()]
            return f"{words}: {self._node_text(other)}"
        if role == ID_ROLE:
            return self.entity_id(index)
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        """Every row can be selected; the summary row only read."""
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        if index.internalId() == 0 and self._is_more_row(index.row()):
            return Qt.ItemFlag.ItemIsEnabled
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable


class GraphPane(QWidget):
    """Neighbourhood of the selected entity as a drawing and as a list of links.

    Signals:
        entity_activated(str): the person asked to open this entity (click, or Enter in Links).
        tag_activated(str, str): the same asked of a tag (its id and name): a tag is not an
            item to read but a group of them, to be listed.
        layout_finished(): a layout was drawn (tests and status bars wait on it).
        hops_chosen(int): the depth shown changed (1 or 2), to be remembered.
        legend_fold_chosen(bool): the person hid the legend's names (True) or showed them
            (False), to be remembered as the depth is.
    """

    entity_activated = Signal(str)
    tag_activated = Signal(str, str)
    layout_finished = Signal()
    hops_chosen = Signal(int)
    legend_fold_chosen = Signal(bool)

    def __init__(
        self, reader: GraphReader, runner: TaskRunner, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setObjectName("graphPane")
        self.setAccessibleName("Reference graph pane")
        self._reader = reader
        self._runner = runner
        self._center: str | None = None
        self._nodes: dict[str, _Node] = {}
        self._edges: list[tuple[str, str, str]] = []
        self._task: Task[GraphResult] | None = None
        self._positions: dict[str, tuple[float, float]] = {}
        self._omitted = 0
        self.max_nodes = DEFAULT_MAX_NODES
        # What was read and drawn last, the nodes of it the filter shows (with their hop
        # distance), and what was read for each filter of this centre and depth: a filter
        # the person goes back to is drawn again without reading.
        self._hood: PreparedGraph | None = None
        self._result: GraphResult | None = None
        self._shown: dict[str, int] = {}
        self._results: dict[GraphFilter, GraphResult] = {}
        self._listed: tuple[PreparedGraph, frozenset[str], GraphFilter] | None = None
        # What the drawing holds: items by node id and edge kind, labels made when first needed.
        self._node_items: dict[str, NodeItem] = {}
        self._edge_items: dict[str, QGraphicsPathItem] = {}
        self._drawn_edges: list[tuple[str, str, str]] = []
        self._labels: dict[str, LabelItem] = {}
        # Each node's label texts, the whole one first (then, for the focused item and the
        # hubs, shortened ones), their widths and their height on screen.
        self._label_texts: dict[str, tuple[str, ...]] = {}
        self._label_widths: dict[str, tuple[float, ...]] = {}
        self._label_heights: dict[str, float] = {}
        # Each dot's radius with its outline (scene units): labels keep off it.
        self._dot_radii: dict[str, float] = {}
        self._label_order: list[str] = []
        self._hubs: set[str] = set()
        # The box each label shown took, and which of its texts it shows there.
        self._placed: dict[str, tuple[Box, int]] = {}
        self._boxes: dict[str, tuple[tuple[Box, ...], ...]] = {}
        self._boxes_scale = 0.0
        self._hovered: str | None = None
        self._label_font = QFont(self.font())
        self._center_font = QFont(self.font())
        # The person's filter choices outlive a re-centring.
        self._hidden_types: set[str] = set()
        self._hidden_edge_kinds: set[str] = set()
        # Until the person zooms or pans, the drawing keeps fitting the pane.
        self._keeps_fitting = True
        self._fitting = False

        self._hops = QComboBox()
        for hops in HOPS:
            self._hops.addItem(f"{hops} hop{'s' if hops != 1 else ''}", hops)
        self._hops.setCurrentIndex(HOPS.index(DEFAULT_HOPS))
        self._hops.setAccessibleName("Neighbourhood depth")
        self._hops.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self._hops.currentIndexChanged.connect(self._on_hops_changed)
        self._status = QLabel()
        self._status.setAccessibleName("Graph status")
        self._stop = QPushButton("Stop")
        self._stop.setAccessibleName("Stop laying out the graph")
        self._stop.setVisible(False)
        self._stop.clicked.connect(self._on_stop_clicked)
        zoom_in = self._tool_button("+", "Zoom in", "Zoom in (Ctrl++)")
        zoom_in.clicked.connect(self.zoom_in)
        zoom_out = self._tool_button("−", "Zoom out", "Zoom out (Ctrl+-)")
        zoom_out.clicked.connect(self.zoom_out)
        fit = self._tool_button("Fit", "Fit the graph in view", "Show every node (Ctrl+0)")
        fit.clicked.connect(self.fit)
        self.filter_menu = QMenu(self)
        self.filter_menu.setObjectName("graphFilterMenu")
        self.filter_menu.aboutToShow.connect(self._on_filter_menu_about_to_show)
        self.filter_button = self._tool_button(
            "Filter", "Filter the graph", "Hide or show content types and kinds of link"
        )
        self.filter_button.setMenu(self.filter_menu)
        self.filter_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        # The style's own arrow sits on the text; the text carries one instead.
        self.filter_button.setText("Filter ▾")
        self.filter_button.setStyleSheet("QToolButton::menu-indicator { image: none; width: 0; }")
        self.controls = [self._hops, zoom_in, zoom_out, fit, self.filter_button]

        # The controls at their full size, wrapping onto a second row in a narrow pane; what
        # the graph is doing below them (wrapped too): the pane stays as narrow as its widest
        # control, whatever the status says.
        bar = FlowLayout()
        bar.setContentsMargins(0, 0, 0, 0)
        for control in self.controls:
            control.setSizePolicy(QSizePolicy.Policy.Minimum, QSizePolicy.Policy.Fixed)
            bar.addWidget(control)
        self._status.setWordWrap(True)
        status_row = QHBoxLayout()
        status_row.setContentsMargins(0, 0, 0, 0)
        status_row.addWidget(self._status, 1)
        status_row.addWidget(self._stop)

        self._scene = QGraphicsScene(self)
        self._scene.setItemIndexMethod(QGraphicsScene.ItemIndexMethod.BspTreeIndex)
        self.view = GraphView(self._scene)
        self.view.node_clicked.connect(self._on_view_node_clicked)
        self.view.node_double_clicked.connect(self._on_view_node_double_clicked)
        self.view.zoomed.connect(self._on_view_zoomed)
        self.view.panned.connect(self._on_view_panned)
        self.view.resized.connect(self._on_view_resized)
        self.view.scrolled.connect(self._on_view_scrolled)
        self.legend = GraphLegend()
        self.legend.entry_clicked.connect(self._on_legend_entry_clicked)
        self.legend.fold_toggled.connect(self.legend_fold_chosen)
        drawing = QWidget()
        drawing_layout = QVBoxLayout(drawing)
        drawing_layout.setContentsMargins(0, 0, 0, 0)
        drawing_layout.addWidget(self.view, 1)
        drawing_layout.addWidget(self.legend)

        self.links_model = LinksModel(self)
        self.links = QTreeView()
        self.links.setModel(self.links_model)
        self.links.setHeaderHidden(True)
        self.links.setUniformRowHeights(True)
        self.links.setAccessibleName("Links")
        self.links.setAccessibleDescription("Each item of the neighbourhood with its links")
        self.links.activated.connect(self._on_links_activated)

        self.tabs = QTabWidget()
        self.tabs.setObjectName("graphTabs")  # style.qss marks the focused tab
        self.tabs.addTab(drawing, "Graph")
        self.tabs.addTab(self.links, "Links")
        self.tabs.setAccessibleName("Graph or links")
        self._words = QLabel()
        self._words.setObjectName("graphWords")
        self._words.setWordWrap(True)
        self._words.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self._words.setMargin(12)
        # Either the drawing and the list, or the words saying why there is nothing in them.
        self._tabs_or_words = QStackedWidget()
        self._tabs_or_words.addWidget(self.tabs)
        self._tabs_or_words.addWidget(self._words)

        layout_ = QVBoxLayout(self)
        layout_.setContentsMargins(2, 2, 2, 2)
        layout_.addLayout(bar)
        layout_.addLayout(status_row)
        layout_.addWidget(self._tabs_or_words, 1)

        context = Qt.ShortcutContext.WidgetWithChildrenShortcut
        for keys, slot in (
            (QKeySequence.StandardKey.ZoomIn, self.zoom_in),
            ("Ctrl+=", self.zoom_in),
            (QKeySequence.StandardKey.ZoomOut, self.zoom_out),
            ("Ctrl+0", self.fit),
        ):
            shortcut = QShortcut(QKeySequence(keys), self)
            shortcut.setContext(context)
            shortcut.activated.connect(slot)
        self._show_words(NO_ITEM)

    def _tool_button(self, text: str, name: str, tip: str) -> QToolButton:
        """A text tool button of the control row."""
        button = QToolButton()
        button.setText(text)
        button.setAccessibleName(name)
        button.setToolTip(tip)
        return button

    # ------------------------------------------------------------------ public API

    @property
    def center(self) -> str | None:
        """The entity the graph is centred on."""
        return self._center

    @property
    def hops(self) -> int:
        """How many hops around the centre are shown (1 or 2)."""
        return int(self._hops.currentData())

    def set_hops(self, hops: int) -> None:
        """Show 1 or 2 hops around the centre."""
        self._hops.setCurrentIndex(HOPS.index(min(max(hops, HOPS[0]), HOPS[-1])))

    def is_laying_out(self) -> bool:
        """Whether a layout is running in the background."""
        return self._task is not None

    def node_positions(self) -> dict[str, tuple[float, float]]:
        """Positions of the drawn nodes (scene coordinates)."""
        return dict(self._positions)

    def node_item(self, entity_id: str) -> NodeItem | None:
        """The drawn item of a node, if it is on the canvas."""
        return self._node_items.get(entity_id)

    def node_items(self) -> list[NodeItem]:
        """Every drawn node item, shown or filtered out."""
        return list(self._node_items.values())

    def shown_labels(self) -> dict[str, LabelItem]:
        """The labels on screen now, by node id."""
        return {node: label for node, label in self._labels.items() if label.isVisible()}

    def drawn_edges(self) -> list[tuple[str, str, str]]:
        """(source, target, kind) of the edges drawn now (filters applied)."""
        return list(self._drawn_edges)

    def types_present(self) -> list[str]:
        """The content types of the neighbourhood, in legend order."""
        return kind_order({node.type for node in self._nodes.values()}, TYPE_COLOURS)

    def edge_kinds_present(self) -> list[str]:
        """The edge kinds of the neighbourhood, in legend order."""
        return kind_order({kind for _, _, kind in self._edges}, EDGE_STYLES)

    def hidden_types(self) -> frozenset[str]:
        """Content types the filter hides."""
        return frozenset(self._hidden_types)

    def hidden_edge_kinds(self) -> frozenset[str]:
        """Edge kinds the filter hides."""
        return frozenset(self._hidden_edge_kinds)

    def set_type_shown(self, entity_type: str, shown: bool) -> None:
        """Show or hide the nodes of a content type (the centre always shows)."""
        self._set_filtered(self._hidden_types, entity_type, shown)

    def set_edge_kind_shown(self, kind: str, shown: bool) -> None:
        """Show or hide the edges of a kind."""
        self._set_filtered(self._hidden_edge_kinds, kind, shown)

    def legend_shown(self) -> bool:
        """Whether the legend is shown below the drawing."""
        return not self.legend.isHidden()

    @Slot(bool)
    def set_legend_shown(self, shown: bool) -> None:
        """Show the legend, or give its rows to the drawing."""
        self.legend.setVisible(shown)

    def legend_folded(self) -> bool:
        """Whether the legend shows only its samples where its names need more than a row."""
        return self.legend.is_folded()

    def set_legend_folded(self, folded: bool) -> None:
        """Show the legend's samples only where its names need more than a row, or its names."""
        self.legend.set_folded(folded)

    def graph_filter(self) -> GraphFilter:
        """What the filter hides now."""
        return GraphFilter(frozenset(self._hidden_edge_kinds), frozenset(self._hidden_types))

    def show_everything(self) -> None:
        """Clear the filter."""
        if self._hidden_types or self._hidden_edge_kinds:
            self._hidden_types.clear()
            self._hidden_edge_kinds.clear()
            self._on_filter_changed()

    @Slot(str)
    def show_entity(self, entity_id: str) -> None:
        """Centre the graph on an entity: read its neighbourhood, list it, lay it out."""
        self._center = entity_id
        self._reload(same_graph=False)

    @Slot(object)
    def on_store_changed(self, changes: ChangeSet) -> None:
        """Redraw when the cache changed something this graph shows."""
        if self._center is None or not changes:
            return
        # What was read for other filters is shown again without reading: it must be fresh too.
        kept = {node for result in self._results.values() for node in result.hood.nodes}
        if changes.edges_changed or changes.touches(self._nodes.keys() | kept | {self._center}):
            self._reload(same_graph=False)

    @Slot()
    def zoom_in(self) -> None:
        """Zoom in one step."""
        self.view.zoom_by(ZOOM_STEP)

    @Slot()
    def zoom_out(self) -> None:
        """Zoom out one step."""
        self.view.zoom_by(1 / ZOOM_STEP)

    @Slot()
    def fit(self) -> None:
        """Zoom and centre so every shown node is in view, and keep fitting on resizes."""
        self._keeps_fitting = True
        nodes = self._shown_nodes_rect()
        if nodes is None:
            return
        room = self.view.viewport().rect()
        room_w = max(1, room.width() - 2 * FIT_MARGIN)
        room_h = max(1, room.height() - 2 * FIT_MARGIN)
        scale = min(room_w / max(nodes.width(), 1.0), room_h / max(nodes.height(), 1.0))
        scale = min(scale, MAX_FIT_ZOOM)
        self._fitting = True  # one placement at the end, not one per step
        try:
            self.view.setTransform(QTransform.fromScale(scale, scale))
            # The scene holds the whole fitted view, so centring is never clamped by its edges.
            seen = QRectF(0, 0, room.width() / scale, room.height() / scale)
            seen.moveCenter(nodes.center())
            self._scene.setSceneRect(self._drawing_rect().united(seen))
            self.view.centerOn(nodes.center())
        finally:
            self._fitting = False
        self._place_labels()

    def cancel_layout(self) -> None:
        """Stop the running layout, if any; its result will be ignored."""
        if self._task is not None:
            self._task.cancel()
            self._task = None
        self._stop.setVisible(False)

    # ------------------------------------------------------------------ internals

    def _show_status(self, text: str) -> None:
        """Status line text, also announced to screen readers via the accessible description."""
        self._status.setText(text)
        self._status.setAccessibleDescription(text)

    def _show_words(self, text: str) -> None:
        """Say why there is nothing to draw or list, in their place (the status line is
        left empty: it would say it twice)."""
        self._show_status("")
        self._words.setText(text)
        self._tabs_or_words.setCurrentWidget(self._words)

    def _show_tabs(self) -> None:
        """The drawing and the list in their place again."""
        self._tabs_or_words.setCurrentWidget(self.tabs)

    def _reload(self, *, same_graph: bool) -> None:
        """Start reading, listing and laying out the centre's neighbourhood on a worker.

        ``same_graph``: only the filter changed, so what was read for other filters still
        holds; otherwise (another centre, depth or cache contents) it is forgotten.
        """
        self.cancel_layout()
        if not same_graph:
            self._results = {}
            self._result = None
        center = self._center
        if center is None:
            return
        self._show_status("Reading links…")
        self._stop.setVisible(True)
        path = self._reader.path
        source = path if path is not None else self._reader
        self._task = (
            self._runner.run(
                read_and_lay_out,
                source,
                center,
                self.hops,
                self.max_nodes,
                zlib.crc32(center.encode("utf-8")),
                self.graph_filter(),
                cancel=True,
                progress=True,
            )
            .on_progress(self._on_task_progress)
            .on_success(self._on_task_finished)
            .on_failure(self._on_task_failed)
        )

    def _more_text(self) -> str:
        """The "+N more" summary of nodes left out by the budget."""
        return f"  +{self._omitted:,} more" if self._omitted else ""

    def _clear_drawing(self) -> None:
        """Take every item off the canvas."""
        self._scene.clear()
        self._node_items = {}
        self._edge_items = {}
        self._drawn_edges = []
        self._labels = {}
        self._placed = {}
        self._boxes = {}
        self._boxes_scale = 0.0
        self._hovered = None
        self._positions = {}
        self._dot_radii = {}

    def _apply_neighbourhood(self, hood: PreparedGraph) -> None:
        """Take a prepared neighbourhood: the Links list now, the drawing when laid out."""
        self._hood = hood
        self._nodes = hood.nodes
        self._edges = hood.edges
        self._omitted = hood.omitted
        self._shown = hood.shown(self.graph_filter(), self.hops)
        self._update_links()
        self._clear_drawing()
        self._update_legend()
        if hood.reached <= 1:
            self._show_words(NO_LINKS)
            return
        self._show_tabs()
        self._show_status(f"Laying out {len(self._shown):,} items…")

    def _update_links(self) -> None:
        """The Links list holds what the filter shows of the neighbourhood.

        Filled again only when that changed: the drawing arriving after the list must not
        move the keyboard's place in it.
        """
        if self._hood is None:
            return
        listed = (self._hood, frozenset(self._shown), self.graph_filter())
        last = self._listed
        if last is not None and last[0] is listed[0] and last[1:] == listed[1:]:
            return
        self._listed = listed
        self.links_model.set_neighbourhood(self._hood.restricted(self._shown, self.graph_filter()))
        first = self.links_model.index(0, 0)
        if first.isValid():
            self.links.setExpanded(first, True)
            self.links.setCurrentIndex(first)

    def _show_result(self, result: GraphResult) -> None:
        """List and draw a neighbourhood read and laid out earlier."""
        self._result = result
        if result.hood.nodes is not self._nodes:
            self._apply_neighbourhood(result.hood)
        if result.layout is not None:
            self._draw(result.layout)

    def _draw(self, result: Layout) -> None:
        """Put the laid-out nodes and edges on the canvas and fit them in the view."""
        self._clear_drawing()
        positions = result.positions
        self._positions = dict(positions)
        for node_id, node in self._nodes.items():
            where = positions.get(node_id)
            if where is None:
                continue
            dot = NodeItem(node, is_center=node_id == self._center, on_hover=self._on_node_hover)
            dot.setPos(where[0], where[1])
            self._scene.addItem(dot)
            self._node_items[node_id] = dot
            self._dot_radii[node_id] = dot.radius + dot.pen().widthF() / 2
        pairs = [(source, target) for source, target, _ in self._edges]
        degree = Counter(end for pair in pairs for end in pair)
        hops = hop_distances(self._center or "", pairs)
        self._label_order = importance_order(self._node_items, self._center, hops, degree)
        self._hubs = {node_id for node_id, links in degree.items() if links >= HUB_LINKS}
        self._measure_labels()
        self._scene.setSceneRect(self._drawing_rect())
        self._keeps_fitting = True
        self._apply_filter()

    def _measure_labels(self) -> None:
        """Texts and on-screen sizes of every node's label (items are made when first shown):
        the whole text, then shortened ones, offered where the whole one has no room."""
        self._label_font = QFont(self.view.font())
        self._center_font = QFont(self._label_font)
        self._center_font.setBold(True)
        plain, bold = QFontMetricsF(self._label_font), QFontMetricsF(self._center_font)
        self._label_texts = {}
        self._label_widths = {}
        self._label_heights = {}
        for node_id, item in self._node_items.items():
            metrics = bold if item.is_center else plain
            # Rounded up: the text item measures itself slightly differently from the metrics.
            whole = _label(item.node)
            texts = [whole]
            widths = [metrics.horizontalAdvance(whole) + 2 * LABEL_PADDING + 1]
            cuts = (
                (*SHORT_LABEL_CHARS, SHORTEST_CENTER_CHARS) if item.is_center else SHORT_LABEL_CHARS
            )
            for chars in cuts:
                short = shortened(whole, chars)
                width = metrics.horizontalAdvance(short) + 2 * LABEL_PADDING + 1
                # A name a letter too long is no narrower with the ellipsis: not worth offering.
                if width < widths[-1]:
                    texts.append(short)
                    widths.append(width)
            self._label_texts[node_id] = tuple(texts)
            self._label_widths[node_id] = tuple(widths)
            self._label_heights[node_id] = metrics.height()

    def _drawing_rect(self) -> QRectF:
        """Every node, shown or not, with room around it (scene units)."""
        if not self._positions:
            return QRectF()
        xs = [x for x, _ in self._positions.values()]
        ys = [y for _, y in self._positions.values()]
        rect = QRectF(QPointF(min(xs), min(ys)), QPointF(max(xs), max(ys)))
        return rect.adjusted(-SCENE_MARGIN, -SCENE_MARGIN, SCENE_MARGIN, SCENE_MARGIN)

    def _shown_nodes_rect(self) -> QRectF | None:
        """The dots of the nodes the filter shows, or None when nothing is drawn."""
        rect: QRectF | None = None
        for item in self._node_items.values():
            if item.isVisible():
                dot = item.sceneBoundingRect()
                rect = dot if rect is None else rect.united(dot)
        return rect

    def _set_filtered(self, hidden: set[str], kind: str, shown: bool) -> None:
        """Add or remove ``kind`` from a hidden set and redraw if that changed anything."""
        if shown == (kind not in hidden):
            return
        if shown:
            hidden.discard(kind)
        else:
            hidden.add(kind)
        self._on_filter_changed()

    def _on_filter_changed(self) -> None:
        """Show what the filter now shows: at once where the drawing holds all of it, else by
        reading what the links it shows reach (the nodes the drawing holds hide at once)."""
        hidden = self.graph_filter()
        result = self._result
        if self._center is None or (result is None and self._task is None):
            self._update_legend()
            return
        if self._task is None and result is not None and result.answers(hidden):
            self._apply_filter()
            return
        kept = self._results.get(hidden)
        if kept is not None:
            self.cancel_layout()
            self._show_result(kept)
            return
        if self._task is None:
            self._apply_filter()
        self._reload(same_graph=True)

    def _apply_filter(self) -> None:
        """Show the nodes and edges the filter lets through, then fit or re-place labels.

        A node shows while links the filter shows join it to the focused item within the
        hops chosen, through nodes it shows: what a hidden link or node alone reached hides.
        """
        if self._hood is not None:
            self._shown = self._hood.shown(self.graph_filter(), self.hops)
        for node_id, item in self._node_items.items():
            item.setVisible(node_id in self._shown)
        self._rebuild_edges()
        self._update_links()
        self._update_legend()
        self._update_status()
        if self._keeps_fitting:
            self.fit()
        else:
            self._place_labels()

    def _rebuild_edges(self) -> None:
        """One path item per edge kind, through the edges whose kind and ends are shown."""
        paths: dict[str, QPainterPath] = {}
        drawn: list[tuple[str, str, str]] = []
        for source, target, kind in self._edges:
            if kind in self._hidden_edge_kinds:
                continue
            a, b = self._node_items.get(source), self._node_items.get(target)
            if a is None or b is None or not a.isVisible() or not b.isVisible():
                continue
            path = paths.setdefault(kind, QPainterPath())
            path.moveTo(a.pos())
            path.lineTo(b.pos())
            drawn.append((source, target, kind))
        self._drawn_edges = drawn
        for kind in set(self._edge_items) - paths.keys():
            self._edge_items[kind].setPath(QPainterPath())
        for kind, path in paths.items():
            item = self._edge_items.get(kind)
            if item is None:
                item = QGraphicsPathItem()
                item.setPen(edge_pen(kind))
                item.setZValue(0)
                self._scene.addItem(item)
                self._edge_items[kind] = item
            item.setPath(path)

    def _update_status(self) -> None:
        """How many items show, how many more the budget leaves out, how many the filter hides.

        The hidden ones are counted against the neighbourhood through every kind of link: of
        the items within the hops, those neither shown nor left out by the budget.
        """
        if not self._node_items or self._hood is None:
            return
        count = sum(1 for item in self._node_items.values() if item.isVisible())
        hidden = max(0, self._hood.reached - count - self._omitted)
        text = f"{count:,} item{'s' if count != 1 else ''}{self._more_text()}"
        if hidden:
            text += f", {hidden:,} hidden by the filter"
        self._show_status(text)

    def _update_legend(self) -> None:
        """List the kinds the neighbourhood holds and the hidden ones (a click shows them)."""
        types = kind_order(set(self.types_present()) | self._hidden_types, TYPE_COLOURS)
        kinds = kind_order(set(self.edge_kinds_present()) | self._hidden_edge_kinds, EDGE_STYLES)
        entries = [
            LegendEntry(NODES, kind, type_label(kind), kind in self._hidden_types) for kind in types
        ]
        entries += [
            LegendEntry(EDGES, kind, edge_name(kind), kind in self._hidden_edge_kinds)
            for kind in kinds
        ]
        self.legend.set_entries(entries)

    def _label_colours(self) -> tuple[QColor, QColor]:
        """Label text and backdrop colours from the pane's palette (light or dark)."""
        palette = self.palette()
        backdrop = QColor(palette.color(QPalette.ColorRole.Base))
        backdrop.setAlpha(LABEL_BACKDROP_ALPHA)
        return palette.color(QPalette.ColorRole.Text), backdrop

    def _label_item(self, node_id: str) -> LabelItem:
        """The label of a node, made on first use."""
        label = self._labels.get(node_id)
        if label is None:
            width, height = self._label_widths[node_id][0], self._label_heights[node_id]
            font = self._center_font if node_id == self._center else self._label_font
            label = LabelItem(node_id, self._label_texts[node_id][0], font, width, height)
            # A shortened label's whole name, as on its dot.
            label.setToolTip(self._node_items[node_id].toolTip())
            label.set_colours(*self._label_colours())
            label.setVisible(False)
            self._scene.addItem(label)
            self._labels[node_id] = label
        return label

    def _label_boxes(self, node_id: str, scale: float) -> tuple[tuple[Box, ...], ...]:
        """Where each of a node's label texts may go at this scale (scene units), the whole
        text first, each with its preferred place first.

        Kept for the last scale asked: a pan re-places labels without measuring them again.
        """
        if self._boxes_scale != scale:
            self._boxes_scale = scale
            self._boxes = {}
        boxes = self._boxes.get(node_id)
        if boxes is None:
            x, y = self._positions[node_id]
            reach = self._dot_radii[node_id] + LABEL_GAP / scale
            height = self._label_heights[node_id] / scale
            if node_id == self._center:
                # The focused item's label must show: every place touching its ring is tried.
                boxes = tuple(
                    places_around(x, y, reach, width / scale, height)
                    for width in self._label_widths[node_id]
                )
            else:
                running = node_id in self._hubs
                boxes = tuple(
                    places_beside(x, y, reach, width / scale, height, running=running)
                    for width in self._label_widths[node_id]
                )
            self._boxes[node_id] = boxes
        return boxes

    def _place_labels(self) -> None:
        """Label the nodes in view whose labels, beside their dots, cover no dot and no more
        important label at this zoom."""
        scale = self.view.zoom()
        if scale <= 0 or not self._node_items:
            return
        bounds = _box(self.view.visible_scene_rect())
        left, top, right, bottom = bounds
        positions = self._positions
        shown = [node_id for node_id, item in self._node_items.items() if item.isVisible()]
        in_view = {
            node_id
            for node_id in shown
            if left <= positions[node_id][0] <= right and top <= positions[node_id][1] <= bottom
        }
        # Every name may shorten before it is dropped; the focused item's and the hubs' may
        # also move along above or below their dot to stay in a narrow pane.
        candidates = [
            label_candidate(
                node_id,
                self._label_boxes(node_id, scale),
                along=bounds if node_id == self._center or node_id in self._hubs else None,
            )
            for node_id in self._label_order
            if node_id in in_view
        ]
        # How far from each dot's centre a label keeps: the edge of the dot with its outline,
        # and the gap beyond.
        gap = LABEL_GAP / scale
        dots = {node_id: (*positions[node_id], self._dot_radii[node_id] + gap) for node_id in shown}
        chosen = place_beside_dots(
            candidates,
            dots,
            bounds=bounds,
            spacing=LABEL_SPACING / scale,
            clearance=LABEL_CLEARANCE / scale,
            near_ok=(self._center,) if self._center is not None else (),
            gap=gap,
        )
        placed = {
            c.key: (c.boxes[chosen[c.key]], c.text(chosen[c.key]))
            for c in candidates
            if c.key in chosen
        }
        for node_id, label in self._labels.items():
            if node_id not in placed and node_id != self._hovered:
                label.setVisible(False)
        self._placed = placed
        for node_id in placed:
            self._show_placed_label(node_id, scale)
        if self._hovered is not None:
            self._show_hover_label(self._hovered)

    def _show_placed_label(self, node_id: str, scale: float) -> None:
        """A label where the placement put it, with the text it had room for."""
        box, text = self._placed[node_id]
        label = self._label_item(node_id)
        label.place(box, scale, self._label_texts[node_id][text], self._label_widths[node_id][text])
        label.setZValue(LABEL_Z)
        label.setVisible(True)

    def _show_hover_label(self, node_id: str) -> None:
        """A node's whole label above everything, at its reserved place or its preferred one."""
        item = self._node_items.get(node_id)
        if item is None or not item.isVisible():
            return
        scale = self.view.zoom()
        label = self._label_item(node_id)
        placed = self._placed.get(node_id)
        if placed is not None and placed[1] == 0:
            box = placed[0]
        else:
            # Where it reads whole: a place inside the view, else the first moved into it.
            places = self._label_boxes(node_id, scale)[0]
            bounds = _box(self.view.visible_scene_rect())
            inside = [place for place in places if place.inside(bounds)]
            box = (inside or list(moved_inside(places[:1], bounds)) or [places[0]])[0]
        label.place(box, scale, self._label_texts[node_id][0], self._label_widths[node_id][0])
        label.setZValue(HOVER_Z)
        label.setVisible(True)

    def _on_node_hover(self, node_id: str, entered: bool) -> None:
        """Pointer on a node: show its label; off it: back to what the placement decided."""
        if entered:
            self._hovered = node_id
            self._show_hover_label(node_id)
            return
        if self._hovered == node_id:
            self._hovered = None
        label = self._labels.get(node_id)
        if label is None:
            return
        if node_id in self._placed:
            self._show_placed_label(node_id, self.view.zoom())
        else:
            label.setVisible(False)

    def _fill_filter_menu(self) -> None:
        """One checkable entry per content type and edge kind present, and "Show everything"."""
        menu = self.filter_menu
        menu.clear()
        size = self.style().pixelMetric(QStyle.PixelMetric.PM_SmallIconSize)
        menu.addSection("Content types")
        for kind in kind_order(set(self.types_present()) | self._hidden_types, TYPE_COLOURS):
            action = menu.addAction(type_icon(kind, size), type_label(kind))
            action.setCheckable(True)
            action.setChecked(kind not in self._hidden_types)
            action.setData((NODES, kind))
            action.toggled.connect(self._on_filter_action_toggled)
        menu.addSection("Links")
        for kind in kind_order(
            set(self.edge_kinds_present()) | self._hidden_edge_kinds, EDGE_STYLES
        ):
            action = menu.addAction(edge_icon(kind, size), edge_name(kind))
            action.setCheckable(True)
            action.setChecked(kind not in self._hidden_edge_kinds)
            action.setData((EDGES, kind))
            action.toggled.connect(self._on_filter_action_toggled)
        menu.addSeparator()
        everything = menu.addAction("Show everything")
        everything.setEnabled(bool(self._hidden_types or self._hidden_edge_kinds))
        everything.triggered.connect(self.show_everything)
        legend = menu.addAction("Show the legend")
        legend.setCheckable(True)
        legend.setChecked(self.legend_shown())
        legend.toggled.connect(self.set_legend_shown)

    def _toggle(self, group: str, kind: str, shown: bool) -> None:
        """Show or hide one kind of the legend's or the menu's groups."""
        if group == NODES:
            self.set_type_shown(kind, shown)
        else:
            self.set_edge_kind_shown(kind, shown)

    def changeEvent(self, event: QEvent) -> None:
        """A new palette (light or dark): labels take its colours."""
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            colours = self._label_colours()
            for label in self._labels.values():
                label.set_colours(*colours)
            outline = node_outline()
            for dot in self._node_items.values():
                pen = dot.pen()
                pen.setColor(outline)
                dot.setPen(pen)

    @Slot()
    def _on_filter_menu_about_to_show(self) -> None:
        """Fill the filter menu with what the drawing holds now."""
        self._fill_filter_menu()

    @Slot(bool)
    def _on_filter_action_toggled(self, checked: bool) -> None:
        """A filter menu entry was ticked or unticked."""
        action = self.sender()
        if isinstance(action, QAction):
            group, kind = action.data()
            self._toggle(group, kind, checked)

    @Slot(str, str)
    def _on_legend_entry_clicked(self, group: str, kind: str) -> None:
        """A click on a legend entry hides that kind, or shows it again."""
        hidden = self._hidden_types if group == NODES else self._hidden_edge_kinds
        self._toggle(group, kind, kind in hidden)

    @Slot()
    def _on_view_zoomed(self) -> None:
        """The person zoomed: keep that zoom, and show the labels that now have room."""
        self._keeps_fitting = False
        self._place_labels()

    @Slot()
    def _on_view_panned(self) -> None:
        """The person moved the drawing: a resize no longer re-fits it."""
        self._keeps_fitting = False

    @Slot()
    def _on_view_scrolled(self) -> None:
        """Another part of the drawing in view: label what is there now."""
        if not self._fitting:
            self._place_labels()

    @Slot()
    def _on_view_resized(self) -> None:
        """The viewport changed size: fit again, unless the person chose a zoom."""
        if self._keeps_fitting:
            self.fit()
        else:
            self._place_labels()  # more or less of the drawing in view

    @Slot(object)
    def _on_task_progress(self, hood: PreparedGraph) -> None:
        """The neighbourhood is read: list it while the layout runs."""
        if self.sender() is self._task:
            self._apply_neighbourhood(hood)

    @Slot(object)
    def _on_task_finished(self, result: GraphResult) -> None:
        """Draw a layout, unless it belongs to a selection that has since changed."""
        if self.sender() is not self._task:
            return
        self._task = None
        self._stop.setVisible(False)
        self._results[result.asked] = self._results[result.hood.read_for] = result
        self._show_result(result)
        self.layout_finished.emit()

    @Slot(object)
    def _on_task_failed(self, error: Exception) -> None:
        """The neighbourhood could not be read or laid out: say why; the Links tab may help."""
        if self.sender() is not self._task:
            return
        self._task = None
        self._stop.setVisible(False)
        log.error("graph layout failed", exc_info=error)
        self._show_tabs()
        self._show_status(
            "The graph could not be drawn. " + message_line(user_message(error)) + LINKS_HINT
        )

    @Slot()
    def _on_stop_clicked(self) -> None:
        """The Stop button: cancel the running layout (a cancelled task reports nothing)."""
        if self._task is not None:
            self.cancel_layout()
            self._show_tabs()
            self._show_status("Layout stopped." + LINKS_HINT)

    @Slot(int)
    def _on_hops_changed(self, _index: int) -> None:
        """Depth changed: reload the current centre, and say so to be remembered."""
        if self._center is not None:
            self._reload(same_graph=False)
        self.hops_chosen.emit(self.hops)

    def _activate(self, entity_id: str) -> None:
        """Open a node: an item in the reader, a tag as the list of its items."""
        node = self._nodes.get(entity_id)
        if node is not None and node.type == TAG_TYPE:
            self.tag_activated.emit(entity_id, node.title or entity_id)
        else:
            self.entity_activated.emit(entity_id)

    @Slot(str)
    def _on_view_node_clicked(self, entity_id: str) -> None:
        """Click on a node: open it."""
        self._activate(entity_id)

    @Slot(str)
    def _on_view_node_double_clicked(self, entity_id: str) -> None:
        """Double-click on a node: re-centre the graph on it."""
        if entity_id != self._center:
            self.show_entity(entity_id)

    @Slot(QModelIndex)
    def _on_links_activated(self, index: QModelIndex) -> None:
        """Enter or double-click in the Links list: open that item (or tag)."""
        entity_id = self.links_model.entity_id(index)
        if entity_id is not None:
            self._activate(entity_id)
