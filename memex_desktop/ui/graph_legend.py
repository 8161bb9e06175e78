"""How the reference graph tells kinds apart, and the legend that says so.

A node's colour is its content type; an edge's colour, width and dash are its kind. The legend
lists the kinds the drawing holds, in the palette's own text colour (light or dark), dims the
kinds the filter hides, and toggles a kind when clicked.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from PySide6.QtCore import QEvent, QPointF, QRect, QSize, Qt, Signal
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFontMetrics,
    QHelpEvent,
    QIcon,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QPen,
    QPixmap,
    QResizeEvent,
)
from PySide6.QtWidgets import QToolTip, QWidget

from memex_desktop.ui import theme
from memex_desktop.ui.palette import (
    EDGE_COLOURS,
    OTHER_EDGE_COLOUR,
    OTHER_TYPE_COLOUR,
    TYPE_COLOURS,
)

EDGE_STYLES: dict[str, tuple[str, Qt.PenStyle, float]] = {
    "annotates": (EDGE_COLOURS["annotates"], Qt.PenStyle.SolidLine, 1.6),
    "references": (EDGE_COLOURS["references"], Qt.PenStyle.DashLine, 1.2),
    "reply": (EDGE_COLOURS["reply"], Qt.PenStyle.SolidLine, 2.4),
    "tag": (EDGE_COLOURS["tag"], Qt.PenStyle.DotLine, 1.0),
}
OTHER_EDGE = (OTHER_EDGE_COLOUR, Qt.PenStyle.DashDotLine, 1.0)
EDGE_NAMES = {
    "annotates": "Note on",
    "references": "Reference",
    "reply": "Reply",
    "tag": "Tagged",
}
# How an edge kind reads to a screen reader: the line it is drawn with.
EDGE_LOOKS = {
    "annotates": "yellow line",
    "references": "blue dashed line",
    "reply": "thick green line",
    "tag": "grey dotted line",
}

NODES = "node"
EDGES = "edge"
# Room for a dot, and for a line long enough to show its dashes (pixels).
DOT_SAMPLE = 12
LINE_SAMPLE = 22
SAMPLE_GAP = 4
ENTRY_GAP = 10
# The legend is read at a glance: a size smaller than the pane's text saves rows.
FONT_SCALE = 0.9


def node_colour(entity_type: str) -> QColor:
    """The fill of a node of this content type."""
    return QColor(TYPE_COLOURS.get(entity_type, OTHER_TYPE_COLOUR))


def node_outline() -> QColor:
    """The ring around a node, standing off the canvas of the theme on screen."""
    return QColor(theme.current().node_outline)


def edge_pen(kind: str) -> QPen:
    """The pen that tells an edge kind apart by colour, width and dash."""
    colour, style, width = EDGE_STYLES.get(kind, OTHER_EDGE)
    pen = QPen(QColor(colour), width, style)
    pen.setCosmetic(True)  # same thickness at every zoom level
    return pen


def edge_name(kind: str) -> str:
    """The person-facing name of an edge kind."""
    return EDGE_NAMES.get(kind, kind[:1].upper() + kind[1:])


def kind_order(kinds: set[str], known: Mapping[str, object]) -> list[str]:
    """Known kinds in their table's order, then the others alphabetically."""
    return [k for k in known if k in kinds] + sorted(kinds - known.keys())


def type_icon(entity_type: str, size: int) -> QIcon:
    """A dot of the type's colour, for the filter menu."""
    pixmap = QPixmap(size, size)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setBrush(QBrush(node_colour(entity_type)))
    painter.setPen(QPen(node_outline(), 1.0))
    painter.drawEllipse(QRect(2, 2, size - 4, size - 4))
    painter.end()
    return QIcon(pixmap)


def edge_icon(kind: str, size: int) -> QIcon:
    """A short sample of the edge kind's line, for the filter menu."""
    pixmap = QPixmap(size, size)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    pen = edge_pen(kind)
    pen.setWidthF(max(pen.widthF(), 2.0))
    painter.setPen(pen)
    painter.drawLine(QPointF(1, size / 2), QPointF(size - 1, size / 2))
    painter.end()
    return QIcon(pixmap)


def _sample_width(entry: LegendEntry) -> int:
    """Room for the entry's dot or line sample."""
    return DOT_SAMPLE if entry.group == NODES else LINE_SAMPLE


@dataclass(frozen=True)
class LegendEntry:
    """One line of the legend: a node type or an edge kind, and whether it is hidden."""

    group: str
    kind: str
    text: str
    hidden: bool = False


class GraphLegend(QWidget):
    """The kinds in the drawing: a dot per content type, a line sample per edge kind.

    Entries flow onto more rows when the pane is narrow, so the legend never widens it.

    Signals:
        entry_clicked(str, str): the group (``NODES`` or ``EDGES``) and kind of a clicked entry.
    """

    entry_clicked = Signal(str, str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAccessibleName("Legend")
        self._entries: list[LegendEntry] = []
        self._boxes: list[QRect] = []
        self._laid_for = -1
        font = self.font()
        font.setPointSizeF(font.pointSizeF() * FONT_SCALE)
        self.setFont(font)
        self.setMouseTracking(True)
        self._update_description()
        self.setFixedHeight(self._row_height())

    def entries(self) -> list[LegendEntry]:
        """What the legend lists, in order."""
        return list(self._entries)

    def set_entries(self, entries: list[LegendEntry]) -> None:
        """List these entries (types first, then edge kinds)."""
        self._entries = list(entries)
        self._laid_for = -1
        self._update_description()
        self.setFixedHeight(self.heightForWidth(max(1, self.width())))
        self.updateGeometry()
        self.update()

    def entry_rects(self) -> list[QRect]:
        """Where each entry is drawn at the current width."""
        self._lay_out(self.width())
        return list(self._boxes)

    def _update_description(self) -> None:
        """The legend as a sentence, for screen readers."""
        words = []
        for entry in self._entries:
            look = (
                "dot" if entry.group == NODES else EDGE_LOOKS.get(entry.kind, "grey dash-dot line")
            )
            words.append(f"{entry.text}: {look}{' (hidden)' if entry.hidden else ''}")
        self.setAccessibleDescription("; ".join(words) or "Nothing drawn")

    def _row_height(self) -> int:
        """One line of text with a little room around it."""
        return QFontMetrics(self.font()).height() + 2

    def _entry_width(self, entry: LegendEntry) -> int:
        """Sample, gap and text of one entry."""
        text = QFontMetrics(self.font()).horizontalAdvance(entry.text)
        return _sample_width(entry) + SAMPLE_GAP + text

    def _lay_out(self, width: int) -> int:
        """Flow the entries into rows of ``width``; the number of rows."""
        if width == self._laid_for:
            return max(1, len({box.y() for box in self._boxes}))
        self._laid_for = width
        self._boxes = []
        row_height = self._row_height()
        x = y = 0
        for entry in self._entries:
            needed = self._entry_width(entry)
            if x > 0 and x + needed > width:
                x, y = 0, y + row_height
            self._boxes.append(QRect(x, y, needed, row_height))
            x += needed + ENTRY_GAP
        return max(1, len({box.y() for box in self._boxes}))

    def hasHeightForWidth(self) -> bool:
        """Its height follows its width."""
        return True

    def heightForWidth(self, width: int) -> int:
        """As many rows as the entries need at ``width``."""
        return self._lay_out(width) * self._row_height()

    def changeEvent(self, event: QEvent) -> None:
        """Another font: the entries flow again."""
        if event.type() == QEvent.Type.FontChange:
            self._laid_for = -1
            self.setFixedHeight(self.heightForWidth(max(1, self.width())))
            self.updateGeometry()
        super().changeEvent(event)

    def resizeEvent(self, event: QResizeEvent) -> None:
        """As tall as the rows the new width needs (a tab page does not ask for it)."""
        super().resizeEvent(event)
        self.setFixedHeight(self.heightForWidth(event.size().width()))

    def sizeHint(self) -> QSize:
        """Every entry on one row."""
        widths = [self._entry_width(e) for e in self._entries]
        total = sum(widths) + ENTRY_GAP * max(0, len(widths) - 1)
        return QSize(max(total, LINE_SAMPLE), self._row_height())

    def minimumSizeHint(self) -> QSize:
        """The widest entry on a row of its own."""
        widest = max((self._entry_width(e) for e in self._entries), default=LINE_SAMPLE)
        return QSize(widest, self._row_height())

    def _entry_at(self, x: int, y: int) -> LegendEntry | None:
        """The entry drawn at a point, if any."""
        for entry, box in zip(self._entries, self.entry_rects(), strict=True):
            if box.contains(x, y):
                return entry
        return None

    def event(self, event: QEvent) -> bool:
        """A tooltip per entry: what a click on it does."""
        if event.type() == QEvent.Type.ToolTip and isinstance(event, QHelpEvent):
            entry = self._entry_at(event.pos().x(), event.pos().y())
            if entry is None:
                QToolTip.hideText()
            else:
                verb = "show" if entry.hidden else "hide"
                QToolTip.showText(event.globalPos(), f"Click to {verb} {entry.text}", self)
            return True
        return super().event(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        """A click on an entry asks to hide or show that kind."""
        where = event.position().toPoint()
        entry = self._entry_at(where.x(), where.y())
        if entry is not None and event.button() == Qt.MouseButton.LeftButton:
            self.entry_clicked.emit(entry.group, entry.kind)
            event.accept()
            return
        super().mouseReleaseEvent(event)

    def paintEvent(self, event: QPaintEvent) -> None:
        """A sample and a name per entry; hidden kinds faded."""
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        text_colour = self.palette().windowText().color()
        ascent = QFontMetrics(self.font()).ascent()
        for entry, box in zip(self._entries, self.entry_rects(), strict=True):
            painter.setOpacity(0.35 if entry.hidden else 1.0)
            middle = box.y() + box.height() / 2
            sample = _sample_width(entry)
            if entry.group == NODES:
                radius = min(DOT_SAMPLE / 2 - 1, box.height() / 2 - 1)
                painter.setPen(QPen(node_outline(), 0.8))
                painter.setBrush(QBrush(node_colour(entry.kind)))
                painter.drawEllipse(QPointF(box.x() + sample / 2, middle), radius, radius)
            else:
                pen = edge_pen(entry.kind)
                pen.setWidthF(max(pen.widthF(), 1.5))
                painter.setPen(pen)
                painter.drawLine(QPointF(box.x(), middle), QPointF(box.x() + sample, middle))
            painter.setPen(text_colour)
            baseline = box.y() + (box.height() - QFontMetrics(self.font()).height()) / 2 + ascent
            painter.drawText(QPointF(box.x() + sample + SAMPLE_GAP, baseline), entry.text)
        painter.end()
