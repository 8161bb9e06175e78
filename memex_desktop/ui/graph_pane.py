"""The reference-graph pane: the neighbourhood of the selected item, drawn and listed.

The neighbourhood is read from the cache, sorted for the Links list and laid out on the
TaskRunner (its own read connection); the previous task is cancelled whenever the selection
changes, so a large neighbourhood never freezes the window. Nothing animates: once a layout
is drawn the pane uses no CPU until something changes. The "Links" tab lists the same
neighbourhood as an adjacency list for the keyboard and screen readers.
"""

from __future__ import annotations

import logging
import threading
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import overload

from PySide6.QtCore import (
    QAbstractItemModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QPoint,
    QPointF,
    QSize,
    Qt,
    Signal,
    Slot,
)
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFontMetrics,
    QKeySequence,
    QMouseEvent,
    QPainter,
    QPainterPath,
    QPaintEvent,
    QPen,
    QResizeEvent,
    QShortcut,
    QWheelEvent,
)
from PySide6.QtWidgets import (
    QComboBox,
    QGraphicsEllipseItem,
    QGraphicsPathItem,
    QGraphicsScene,
    QGraphicsSimpleTextItem,
    QGraphicsView,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QTabWidget,
    QToolButton,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from memex_desktop.errors import user_message
from memex_desktop.graph import Layout, LayoutCancelled, layout
from memex_desktop.store import ChangeSet, GraphReader
from memex_desktop.store.neighbourhood import DEFAULT_MAX_NODES, hop_distances
from memex_desktop.ui.messages import message_line
from memex_desktop.ui.readers import thread_reader
from memex_desktop.ui.tasks import Task, TaskRunner

log = logging.getLogger(__name__)

ID_ROLE = Qt.ItemDataRole.UserRole
Index = QModelIndex | QPersistentModelIndex

TYPE_COLOURS: dict[str, str] = {
    "web": "#3b7dd8",
    "twitter": "#1d9bf0",
    "youtube": "#d93025",
    "reddit": "#ff5700",
    "image": "#8e44ad",
    "annotation": "#f4b400",
    "pdf": "#795548",
    "chatThread": "#009688",
    "tag": "#7f8c8d",
}
OTHER_COLOUR = "#95a5a6"

EDGE_STYLES: dict[str, tuple[str, Qt.PenStyle, float]] = {
    "annotates": ("#f4b400", Qt.PenStyle.SolidLine, 1.6),
    "references": ("#3b7dd8", Qt.PenStyle.DashLine, 1.2),
    "reply": ("#2e7d32", Qt.PenStyle.SolidLine, 2.4),
    "tag": ("#7f8c8d", Qt.PenStyle.DotLine, 1.0),
}
OTHER_EDGE = ("#b0b0b0", Qt.PenStyle.DashDotLine, 1.0)

# How an edge reads from its target's side in the Links list.
INCOMING_WORDS = {
    "annotates": "annotated by",
    "references": "referenced by",
    "reply": "replied to by",
    "tag": "tag of",
}

NODE_RADIUS = 7.0
LABEL_ALL_UP_TO = 400
LABEL_CHARS = 28
ZOOM_STEP = 1.2
# What still works when no drawing comes.
LINKS_HINT = " The Links tab lists every link."


@dataclass(frozen=True)
class _Node:
    """What the pane shows of a node: plain values copied out of the store row."""

    id: str
    type: str
    title: str


def _edge_pen(kind: str) -> QPen:
    """The pen that tells an edge kind apart by colour, width and dash."""
    colour, style, width = EDGE_STYLES.get(kind, OTHER_EDGE)
    pen = QPen(QColor(colour), width, style)
    pen.setCosmetic(True)  # same thickness at every zoom level
    return pen


def _label(node: _Node) -> str:
    """A node's short label: its title, or its type and id when it has none."""
    title = (node.title or "").strip() or f"{node.type} {node.id}"
    return title if len(title) <= LABEL_CHARS else title[: LABEL_CHARS - 1] + "…"


@dataclass(frozen=True)
class PreparedGraph:
    """A neighbourhood prepared for the pane off the GUI thread: nodes, edges, Links order."""

    center: str
    nodes: dict[str, _Node]
    edges: list[tuple[str, str, str]]
    omitted: int
    order: list[str]
    links: dict[str, list[tuple[str, str]]] = field(default_factory=dict)


def prepare_neighbourhood(
    reader: GraphReader, center: str, hops: int, max_nodes: int
) -> PreparedGraph:
    """Read the neighbourhood of ``center`` and order it for the Links list (plain values)."""
    hood = reader.neighbourhood(center, hops=hops, max_nodes=max_nodes)
    nodes = {n.id: _Node(n.id, n.type, n.title or "") for n in hood.nodes}
    edges = [
        (e.source, e.target, e.kind) for e in hood.edges if e.source in nodes and e.target in nodes
    ]
    links: dict[str, list[tuple[str, str]]] = {}
    for source, target, kind in edges:
        links.setdefault(source, []).append((kind, target))
        links.setdefault(target, []).append((INCOMING_WORDS.get(kind, f"{kind} of"), source))
    others = sorted((n for n in nodes if n != center), key=lambda n: (nodes[n].title.casefold(), n))
    return PreparedGraph(center, nodes, edges, hood.omitted, [center, *others], links)


@dataclass(frozen=True)
class GraphResult:
    """What the worker hands the pane: the prepared neighbourhood and its layout."""

    hood: PreparedGraph
    layout: Layout | None


def read_and_lay_out(
    source: Path | GraphReader,
    center: str,
    hops: int,
    max_nodes: int,
    seed: int,
    *,
    cancel: threading.Event,
    progress: Callable[[PreparedGraph], None],
) -> GraphResult:
    """Worker body: read and prepare the neighbourhood, report it, then lay it out.

    ``source`` is the cache file (read through this thread's own connection) or a reader
    object that may be called from any thread.
    """
    reader = thread_reader(source) if isinstance(source, Path) else source
    hood = prepare_neighbourhood(reader, center, hops, max_nodes)
    if cancel.is_set():
        raise LayoutCancelled
    progress(hood)  # the Links list and the status fill in while the layout runs
    if len(hood.nodes) <= 1:
        return GraphResult(hood, None)
    pairs = [(s, t) for s, t, _ in hood.edges]
    return GraphResult(
        hood, layout(list(hood.nodes), pairs, center=center, seed=seed, cancel=cancel)
    )


class NodeItem(QGraphicsEllipseItem):
    """A node: a dot coloured by content type, optionally with its title beside it.

    Painting is left to Qt (no Python paint()), so redrawing thousands of nodes stays cheap.
    """

    def __init__(self, node: _Node, *, is_center: bool, labelled: bool) -> None:
        r = NODE_RADIUS * (1.6 if is_center else 1.0)
        super().__init__(-r, -r, 2 * r, 2 * r)
        self.node = node
        self.is_center = is_center
        self.setBrush(QBrush(QColor(TYPE_COLOURS.get(node.type, OTHER_COLOUR))))
        self.setPen(QPen(QColor("#202020"), 2.0 if is_center else 0.8))
        self.setToolTip(f"{node.title or node.id} ({node.type})")
        self.setZValue(2 if is_center else 1)
        self.label: QGraphicsSimpleTextItem | None = None
        if labelled or is_center:
            self.label = QGraphicsSimpleTextItem(_label(node), self)
            self.label.setPos(r + 3, -8)


class GraphView(QGraphicsView):
    """The graph canvas: drag to pan, wheel to zoom, click and double-click on nodes."""

    node_clicked = Signal(str)
    node_double_clicked = Signal(str)

    def __init__(self, scene: QGraphicsScene, parent: QWidget | None = None) -> None:
        super().__init__(scene, parent)
        self.setRenderHint(QPainter.RenderHint.Antialiasing)
        self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.BoundingRectViewportUpdate)
        self.setAccessibleName("Reference graph")
        self.setAccessibleDescription(
            "Drawing of linked items; the Links tab lists the same links as text"
        )
        self._press_pos: QPointF | None = None

    def node_at(self, pos: QPoint) -> str | None:
        """The id of the node under a viewport position, if any."""
        for item in self.items(pos):
            owner = item if isinstance(item, NodeItem) else item.parentItem()
            if isinstance(owner, NodeItem):
                return owner.node.id
        return None

    def zoom_by(self, factor: float) -> None:
        """Scale the view, within limits that keep the graph findable."""
        current = self.transform().m11()
        target = min(8.0, max(0.05, current * factor))
        if current > 0:
            self.scale(target / current, target / current)

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
        """A release close to its press on a node is a click on that node."""
        super().mouseReleaseEvent(event)
        start, self._press_pos = self._press_pos, None
        if start is None or event.button() != Qt.MouseButton.LeftButton:
            return
        moved = event.position() - start
        if abs(moved.x()) + abs(moved.y()) > 4:
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


class EdgeLegend(QWidget):
    """A strip showing the line style of each edge kind."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAccessibleName("Legend")
        self.setAccessibleDescription(
            "annotates: yellow solid; references: blue dashed; reply: green thick; tag: grey dotted"
        )
        metrics = QFontMetrics(self.font())
        self._entry_width = 34 + max(metrics.horizontalAdvance(k) for k in EDGE_STYLES) + 12
        self._row_height = metrics.height() + 6
        # Entries flow onto more rows when the pane is narrow: the legend never widens it.
        self.setMinimumWidth(self._entry_width)
        self.setFixedHeight(self._row_height)

    def _columns(self, width: int) -> int:
        """How many entries fit side by side in ``width``."""
        return max(1, min(len(EDGE_STYLES), width // self._entry_width))

    def heightForWidth(self, width: int) -> int:
        """One row per ``_columns`` entries."""
        rows = -(-len(EDGE_STYLES) // self._columns(width))
        return rows * self._row_height

    def resizeEvent(self, event: QResizeEvent) -> None:
        """As tall as the rows the new width needs (a tab page does not ask for it)."""
        super().resizeEvent(event)
        self.setFixedHeight(self.heightForWidth(event.size().width()))

    def sizeHint(self) -> QSize:
        """Every entry on one row."""
        return QSize(self._entry_width * len(EDGE_STYLES), self._row_height)

    def minimumSizeHint(self) -> QSize:
        """One entry a row."""
        return QSize(self._entry_width, self._row_height)

    def paintEvent(self, event: QPaintEvent) -> None:
        """One short sample line and name per edge kind, in as many rows as needed."""
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        columns = self._columns(self.width())
        for index, kind in enumerate(EDGE_STYLES):
            x = (index % columns) * self._entry_width
            middle = (index // columns) * self._row_height + self._row_height / 2
            pen = _edge_pen(kind)
            pen.setWidthF(max(pen.widthF(), 1.5))
            painter.setPen(pen)
            painter.drawLine(QPointF(x + 2, middle), QPointF(x + 30, middle))
            painter.setPen(self.palette().windowText().color())
            painter.drawText(QPointF(x + 34, middle + 4), kind)
        painter.end()


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
        return f"{node.title or node.id} ({node.type or 'item'})"

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
                    return f"+{self._omitted} more not shown"
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
        layout_finished(): a layout was drawn (tests and status bars wait on it).
    """

    entity_activated = Signal(str)
    layout_finished = Signal()

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

        self._hops = QComboBox()
        self._hops.addItem("1 hop", 1)
        self._hops.addItem("2 hops", 2)
        self._hops.setCurrentIndex(1)
        self._hops.setAccessibleName("Neighbourhood depth")
        self._hops.currentIndexChanged.connect(self._on_hops_changed)
        self._status = QLabel()
        self._status.setAccessibleName("Graph status")
        self._stop = QPushButton("Stop")
        self._stop.setAccessibleName("Stop laying out the graph")
        self._stop.setVisible(False)
        self._stop.clicked.connect(self._on_stop_clicked)
        zoom_in = QToolButton()
        zoom_in.setText("+")
        zoom_in.setAccessibleName("Zoom in")
        zoom_in.setToolTip("Zoom in (Ctrl++)")
        zoom_in.clicked.connect(self.zoom_in)
        zoom_out = QToolButton()
        zoom_out.setText("−")
        zoom_out.setAccessibleName("Zoom out")
        zoom_out.setToolTip("Zoom out (Ctrl+-)")
        zoom_out.clicked.connect(self.zoom_out)
        fit = QToolButton()
        fit.setText("Fit")
        fit.setAccessibleName("Fit the graph in view")
        fit.setToolTip("Fit (Ctrl+0)")
        fit.clicked.connect(self.fit)
        for button in (zoom_in, zoom_out, fit):
            # Tool buttons: as wide as the sign and the style's padding, without a push
            # button's wide minimum (a fixed width narrower than the style's cut them off).
            button.setMinimumWidth(button.sizeHint().height())

        # The controls on one row, what the graph is doing on the next (wrapped): the pane
        # stays as narrow as its controls, whatever the status says.
        bar = QHBoxLayout()
        bar.setContentsMargins(0, 0, 0, 0)
        bar.addWidget(self._hops)
        bar.addWidget(zoom_in)
        bar.addWidget(zoom_out)
        bar.addWidget(fit)
        bar.addStretch(1)
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
        self.legend = EdgeLegend()
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
        self.tabs.addTab(drawing, "Graph")
        self.tabs.addTab(self.links, "Links")
        self.tabs.setAccessibleName("Graph or links")

        layout_ = QVBoxLayout(self)
        layout_.setContentsMargins(2, 2, 2, 2)
        layout_.addLayout(bar)
        layout_.addLayout(status_row)
        layout_.addWidget(self.tabs, 1)

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
        self._show_status("Select an item to see its links.")

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
        self._hops.setCurrentIndex(0 if hops <= 1 else 1)

    def is_laying_out(self) -> bool:
        """Whether a layout is running in the background."""
        return self._task is not None

    def node_positions(self) -> dict[str, tuple[float, float]]:
        """Positions of the drawn nodes (scene coordinates)."""
        return dict(self._positions)

    def node_item(self, entity_id: str) -> NodeItem | None:
        """The drawn item of a node, if it is on the canvas."""
        for item in self._scene.items():
            if isinstance(item, NodeItem) and item.node.id == entity_id:
                return item
        return None

    @Slot(str)
    def show_entity(self, entity_id: str) -> None:
        """Centre the graph on an entity: read its neighbourhood, list it, lay it out."""
        self._center = entity_id
        self._reload()

    @Slot(object)
    def on_store_changed(self, changes: ChangeSet) -> None:
        """Redraw when the cache changed something this graph shows."""
        if self._center is None or not changes:
            return
        touched = changes.entity_ids | changes.deleted_ids
        if changes.edges_changed or touched & (self._nodes.keys() | {self._center}):
            self._reload()

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
        """Fit the whole graph in the view."""
        rect = self._scene.itemsBoundingRect()
        if not rect.isEmpty():
            self.view.fitInView(rect.adjusted(-20, -20, 20, 20), Qt.AspectRatioMode.KeepAspectRatio)

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

    def _reload(self) -> None:
        """Start reading, listing and laying out the centre's neighbourhood on a worker."""
        self.cancel_layout()
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
                cancel=True,
                progress=True,
            )
            .on_progress(self._on_task_progress)
            .on_success(self._on_task_finished)
            .on_failure(self._on_task_failed)
        )

    def _edges_pairs(self) -> list[tuple[str, str]]:
        """The drawn edges as (source, target) pairs."""
        return [(source, target) for source, target, _ in self._edges]

    def _more_text(self) -> str:
        """The "+N more" summary of nodes left out by the budget."""
        return f"  +{self._omitted} more" if self._omitted else ""

    def _apply_neighbourhood(self, hood: PreparedGraph) -> None:
        """Take a prepared neighbourhood: the Links list now, the drawing when laid out."""
        self._nodes = hood.nodes
        self._edges = hood.edges
        self._omitted = hood.omitted
        self.links_model.set_neighbourhood(hood)
        first = self.links_model.index(0, 0)
        if first.isValid():
            self.links.setExpanded(first, True)
            self.links.setCurrentIndex(first)
        self._scene.clear()
        self._positions = {}
        if len(self._nodes) <= 1:
            self._show_status("No links yet." + self._more_text())
        else:
            self._show_status(f"Laying out {len(self._nodes)} items…")

    def _draw(self, result: Layout) -> None:
        """Put the laid-out nodes and edges on the canvas (one path item per edge kind)."""
        self._scene.clear()
        positions = result.positions
        self._positions = dict(positions)
        paths: dict[str, QPainterPath] = {}
        for source, target, kind in self._edges:
            a, b = positions.get(source), positions.get(target)
            if a is None or b is None:
                continue
            path = paths.setdefault(kind, QPainterPath())
            path.moveTo(a[0], a[1])
            path.lineTo(b[0], b[1])
        for kind, path in paths.items():
            item = QGraphicsPathItem(path)
            item.setPen(_edge_pen(kind))
            item.setZValue(0)
            self._scene.addItem(item)
        # Labels for every node of a small graph; in a crowd, only the centre's neighbours.
        labelled_all = len(self._nodes) <= LABEL_ALL_UP_TO
        hops = {} if labelled_all else hop_distances(self._center or "", self._edges_pairs())
        for node_id, node in self._nodes.items():
            where = positions.get(node_id)
            if where is None:
                continue
            dot = NodeItem(
                node,
                is_center=node_id == self._center,
                labelled=labelled_all or hops.get(node_id, 2) <= 1,
            )
            dot.setPos(where[0], where[1])
            self._scene.addItem(dot)
        rect = self._scene.itemsBoundingRect().adjusted(-40, -40, 40, 40)
        self._scene.setSceneRect(rect)
        self.fit()
        count = len(self._nodes)
        self._show_status(f"{count} item{'s' if count != 1 else ''}{self._more_text()}")

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
        if result.hood.nodes is not self._nodes:
            self._apply_neighbourhood(result.hood)
        if result.layout is not None:
            self._draw(result.layout)
        self.layout_finished.emit()

    @Slot(object)
    def _on_task_failed(self, error: Exception) -> None:
        """The neighbourhood could not be read or laid out: say why; the Links tab may help."""
        if self.sender() is not self._task:
            return
        self._task = None
        self._stop.setVisible(False)
        log.error("graph layout failed", exc_info=error)
        self._show_status(
            "The graph could not be drawn. " + message_line(user_message(error)) + LINKS_HINT
        )

    @Slot()
    def _on_stop_clicked(self) -> None:
        """The Stop button: cancel the running layout (a cancelled task reports nothing)."""
        if self._task is not None:
            self.cancel_layout()
            self._show_status("Layout stopped." + LINKS_HINT)

    @Slot(int)
    def _on_hops_changed(self, _index: int) -> None:
        """Depth changed: reload the current centre."""
        if self._center is not None:
            self._reload()

    @Slot(str)
    def _on_view_node_clicked(self, entity_id: str) -> None:
        """Click on a node: open it."""
        self.entity_activated.emit(entity_id)

    @Slot(str)
    def _on_view_node_double_clicked(self, entity_id: str) -> None:
        """Double-click on a node: re-centre the graph on it."""
        if entity_id != self._center:
            self.show_entity(entity_id)

    @Slot(QModelIndex)
    def _on_links_activated(self, index: QModelIndex) -> None:
        """Enter or double-click in the Links list: open that item."""
        entity_id = self.links_model.entity_id(index)
        if entity_id is not None:
            self.entity_activated.emit(entity_id)
