"""How the reference graph tells kinds apart, and the legend that says so.

A node's colour is its content type; an edge's colour, width and dash are its kind. The legend
lists the kinds the drawing holds, in the palette's own text colour (light or dark), dims the
kinds the filter hides, and toggles a kind when clicked. In a narrow dock it keeps to a row of
samples, named by their tooltips, until the person asks for the names: the samples sit closer,
and then shrink a little, before one goes to a row of its own; where they need two rows, the
dots and the lines each keep to one where they can, rather than a line sample left alone.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from PySide6.QtCore import QEvent, QPoint, QPointF, QRect, QSize, Qt, Signal, Slot
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
from PySide6.QtWidgets import QToolButton, QToolTip, QWidget

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
# Without names the samples sit closer and the lines are shorter (still showing their dashes):
# a row holds a dozen kinds in a narrow dock. Lines keep a wider gap than dots, or two of them
# read as one line changing its dash; the dots and the lines are set apart as two groups.
BARE_LINE_SAMPLE = 15
BARE_DOT_GAP = 2
BARE_LINE_GAP = 4
GROUP_GAP = 7
# The fold button's words, and the room around them (its padding and border, in pixels).
FOLDED_TEXT = "▸ Legend"
UNFOLDED_TEXT = "▾ Legend"
TOGGLE_MARGIN = 8
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


@dataclass(frozen=True)
class _Spacing:
    """Room for the samples (pixels), and between entries: two dots, two lines, and the
    last dot and the first line."""

    dot: int
    line: int
    dot_gap: int
    line_gap: int
    group_gap: int

    def sample(self, group: str) -> int:
        """Room for an entry's dot or line sample."""
        return self.dot if group == NODES else self.line

    def gap(self, before: str, group: str) -> int:
        """Room between an entry of group ``before`` and the next one, of ``group``."""
        if before != group:
            return self.group_gap
        return self.dot_gap if group == NODES else self.line_gap


NAMED = _Spacing(DOT_SAMPLE, LINE_SAMPLE, ENTRY_GAP, ENTRY_GAP, ENTRY_GAP)
# Without names, each is tried in turn for a row that holds every sample: the dots closer,
# then every sample a little smaller (the dots still tell their colours apart, the lines their
# dashes; the lines keep their gap, or two read as one).
BARE = (
    _Spacing(DOT_SAMPLE, BARE_LINE_SAMPLE, BARE_DOT_GAP, BARE_LINE_GAP, GROUP_GAP),
    _Spacing(DOT_SAMPLE, 14, 1, BARE_LINE_GAP, 6),
    _Spacing(10, 12, 1, BARE_LINE_GAP, 5),
)


@dataclass(frozen=True)
class LegendEntry:
    """One line of the legend: a node type or an edge kind, and whether it is hidden."""

    group: str
    kind: str
    text: str
    hidden: bool = False


@dataclass(frozen=True)
class _Flow:
    """Where the legend's parts go at one width: the fold button, each entry, the rows."""

    toggle: QRect | None
    boxes: list[QRect]
    names: bool
    rows: int
    spacing: _Spacing = NAMED


class GraphLegend(QWidget):
    """The kinds in the drawing: a dot per content type, a line sample per edge kind.

    It keeps to one row where it can, since the graph usually sits in a narrow dock beside the
    reader: when the names do not fit on one row, only the samples show (each named by its
    tooltip and by the legend's accessible description) after a "Legend" button that shows
    the names too, on as many rows as they need, until pressed again. The samples stay
    clickable either way, and entries flow onto more rows rather than widen the pane.

    Signals:
        entry_clicked(str, str): the group (``NODES`` or ``EDGES``) and kind of a clicked entry.
        fold_toggled(bool): the person hid the names (True) or showed them (False).
    """

    entry_clicked = Signal(str, str)
    fold_toggled = Signal(bool)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAccessibleName("Legend")
        self._entries: list[LegendEntry] = []
        self._folded = True
        self._flow = _Flow(None, [], True, 1)
        self._laid_for = -1
        self.toggle = QToolButton(self)
        self.toggle.setObjectName("legendToggle")
        self.toggle.setAccessibleName("Legend names")
        self.toggle.setAutoRaise(True)
        # As tall as a row of the legend's text: the button must not make its row taller.
        self.toggle.setStyleSheet("QToolButton { padding: 0px 2px; }")
        self.toggle.clicked.connect(self._on_toggle_clicked)
        self._update_toggle()
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
        self._relayout()
        self._update_description()

    def is_folded(self) -> bool:
        """Whether the person keeps the names hidden where they take more than one row."""
        return self._folded

    def set_folded(self, folded: bool) -> None:
        """Hide the names where they take more than one row, or show them all."""
        if folded != self._folded:
            self._folded = folded
            self._update_toggle()
            self._relayout()

    def names_shown(self) -> bool:
        """Whether the entries' names are drawn at the current width."""
        return self._lay_out(self.width()).names

    def entry_rects(self) -> list[QRect]:
        """Where each entry is drawn at the current width."""
        return list(self._lay_out(self.width()).boxes)

    def _relayout(self) -> None:
        """Flow the entries again and take the height they need."""
        self._laid_for = -1
        self.setFixedHeight(self.heightForWidth(max(1, self.width())))
        self._place_toggle()
        self.updateGeometry()
        self.update()

    def _update_toggle(self) -> None:
        """The fold button's arrow and words say what a press does."""
        self.toggle.setText(FOLDED_TEXT if self._folded else UNFOLDED_TEXT)
        tip = "Show the names of the colours and lines" if self._folded else "Hide the names"
        self.toggle.setToolTip(tip)
        self.toggle.setAccessibleDescription(tip)

    def _update_description(self) -> None:
        """The legend as a sentence, for screen readers."""
        words = []
        for entry in self._entries:
            look = (
                "dot" if entry.group == NODES else EDGE_LOOKS.get(entry.kind, "grey dash-dot line")
            )
            words.append(f"{entry.text}: {look}{' (hidden)' if entry.hidden else ''}")
        self.setAccessibleDescription("; ".join(words) or "Nothing drawn")

    def _text_height(self) -> int:
        """One line of text with a little room around it."""
        return QFontMetrics(self.font()).height() + 2

    def _row_height(self) -> int:
        """A row holds a line of text, or the fold button where it shows."""
        return max(self._text_height(), self.toggle.sizeHint().height())

    def _toggle_size(self) -> QSize:
        """The fold button's words and a little room: the style's own margins would push the
        samples onto a second row in a narrow dock."""
        metrics = QFontMetrics(self.toggle.font())
        words = max(metrics.horizontalAdvance(text) for text in (FOLDED_TEXT, UNFOLDED_TEXT))
        return QSize(words + TOGGLE_MARGIN, self._row_height())

    def _entry_width(self, entry: LegendEntry, names: bool, spacing: _Spacing = NAMED) -> int:
        """Sample, and gap and text when named, of one entry."""
        if not names:
            return spacing.sample(entry.group)
        text = QFontMetrics(self.font()).horizontalAdvance(entry.text)
        return NAMED.sample(entry.group) + SAMPLE_GAP + text

    def _row_width(self, entries: list[LegendEntry], names: bool, spacing: _Spacing) -> int:
        """``entries`` side by side on one row."""
        width = 0
        previous: str | None = None
        for entry in entries:
            if previous is not None:
                width += spacing.gap(previous, entry.group)
            previous = entry.group
            width += self._entry_width(entry, names, spacing)
        return width

    def _named_width(self) -> int:
        """Every entry with its name on one row."""
        return self._row_width(self._entries, True, NAMED)

    def _flow_at(self, width: int) -> _Flow:
        """Where everything goes at ``width``: named on one row if that fits, else after the
        fold button, named only when unfolded; bare, as close as keeps them on its row."""
        names = self._named_width() <= width
        toggle = None
        spacing = NAMED
        if not names:
            # Names that need more than one row show only when the person asks for them.
            names = not self._folded
            toggle = QRect(QPoint(0, 0), self._toggle_size())
            if not names:
                room = width - toggle.width() - SAMPLE_GAP
                spacing = next(
                    (s for s in BARE if self._row_width(self._entries, False, s) <= room),
                    BARE[0],
                )
        row_height = self._text_height() if toggle is None else self._row_height()
        x = 0 if toggle is None else toggle.width() + SAMPLE_GAP
        y = 0
        boxes = []
        previous: str | None = None
        for entry in self._entries:
            needed = self._entry_width(entry, names, spacing)
            if previous is not None:
                x += spacing.gap(previous, entry.group)
            if (
                not names
                and previous is not None
                and previous != entry.group
                and x > 0
                and x + self._group_width(entry.group, spacing) > width
                and self._group_width(entry.group, spacing) <= width
            ):
                # Bare samples of one group keep together: no line left alone on a row.
                x, y = 0, y + row_height
            previous = entry.group
            if x > 0 and x + needed > width:
                x, y = 0, y + row_height
            boxes.append(QRect(x, y, needed, row_height))
            x += needed
        rows = max(box.y() for box in boxes) // row_height + 1 if boxes else 1
        return _Flow(toggle, boxes, names, rows, spacing)

    def _group_width(self, group: str, spacing: _Spacing) -> int:
        """The bare samples of a group side by side."""
        return self._row_width([e for e in self._entries if e.group == group], False, spacing)

    def _lay_out(self, width: int) -> _Flow:
        """The flow at ``width``, kept for the width it was last asked for."""
        if width != self._laid_for:
            self._laid_for = width
            self._flow = self._flow_at(width)
        return self._flow

    def _place_toggle(self) -> None:
        """The fold button where the flow at the current width puts it, or hidden."""
        flow = self._lay_out(self.width())
        self.toggle.setVisible(flow.toggle is not None and bool(self._entries))
        if flow.toggle is not None:
            self.toggle.setGeometry(flow.toggle)

    def hasHeightForWidth(self) -> bool:
        """Its height follows its width."""
        return True

    def heightForWidth(self, width: int) -> int:
        """As many rows as the entries need at ``width``."""
        flow = self._lay_out(width)
        row_height = self._text_height() if flow.toggle is None else self._row_height()
        return flow.rows * row_height

    def changeEvent(self, event: QEvent) -> None:
        """Another font: the entries flow again."""
        if event.type() == QEvent.Type.FontChange:
            self.toggle.setFont(self.font())
            self._relayout()
        super().changeEvent(event)

    def resizeEvent(self, event: QResizeEvent) -> None:
        """As tall as the rows the new width needs (a tab page does not ask for it)."""
        super().resizeEvent(event)
        self.setFixedHeight(self.heightForWidth(event.size().width()))
        self._place_toggle()

    def sizeHint(self) -> QSize:
        """Every entry on one row, named."""
        return QSize(max(self._named_width(), LINE_SAMPLE), self._text_height())

    def minimumSizeHint(self) -> QSize:
        """The fold button, or the widest entry, on a row of its own."""
        widest = max((NAMED.sample(e.group) for e in self._entries), default=LINE_SAMPLE)
        return QSize(max(widest, self._toggle_size().width()), self._text_height())

    def _entry_at(self, x: int, y: int) -> LegendEntry | None:
        """The entry drawn at a point, if any."""
        for entry, box in zip(self._entries, self.entry_rects(), strict=True):
            if box.contains(x, y):
                return entry
        return None

    def event(self, event: QEvent) -> bool:
        """A tooltip per entry: its name, and what a click on it does."""
        if event.type() == QEvent.Type.ToolTip and isinstance(event, QHelpEvent):
            entry = self._entry_at(event.pos().x(), event.pos().y())
            if entry is None:
                QToolTip.hideText()
            else:
                verb = "show" if entry.hidden else "hide"
                QToolTip.showText(event.globalPos(), f"{entry.text}: click to {verb}", self)
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
        """A sample per entry, and its name where names show; hidden kinds faded."""
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        text_colour = self.palette().windowText().color()
        metrics = QFontMetrics(self.font())
        flow = self._lay_out(self.width())
        for entry, box in zip(self._entries, flow.boxes, strict=True):
            painter.setOpacity(0.35 if entry.hidden else 1.0)
            middle = box.y() + box.height() / 2
            sample = flow.spacing.sample(entry.group)
            if entry.group == NODES:
                radius = min(sample / 2 - 1, box.height() / 2 - 1)
                painter.setPen(QPen(node_outline(), 0.8))
                painter.setBrush(QBrush(node_colour(entry.kind)))
                painter.drawEllipse(QPointF(box.x() + sample / 2, middle), radius, radius)
            else:
                pen = edge_pen(entry.kind)
                pen.setWidthF(max(pen.widthF(), 1.5))
                painter.setPen(pen)
                painter.drawLine(QPointF(box.x(), middle), QPointF(box.x() + sample, middle))
            if flow.names:
                painter.setPen(text_colour)
                baseline = box.y() + (box.height() - metrics.height()) / 2 + metrics.ascent()
                painter.drawText(QPointF(box.x() + sample + SAMPLE_GAP, baseline), entry.text)
        painter.end()

    @Slot()
    def _on_toggle_clicked(self) -> None:
        """The fold button: show or hide the names, and say so to be remembered."""
        self.set_folded(not self._folded)
        self.fold_toggled.emit(self._folded)
