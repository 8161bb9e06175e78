"""Painting one result: type icon, title, source, date, provenance badge, marked snippet."""

from __future__ import annotations

import datetime as dt
from urllib.parse import urlsplit

from PySide6.QtCore import QModelIndex, QObject, QPersistentModelIndex, QRect, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QIcon, QPainter, QPalette
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem

from memex_desktop import paths
from memex_desktop.store import EntityRow
from memex_desktop.ui.results_model import ResultsModel, snippet_segments

ROW_HEIGHT = 74
ICON_SIZE = 28
PADDING = 10

# Calm, distinguishable colours for the letter badge shown when a type has no icon file.
TYPE_COLOURS: dict[str, str] = {
    "web": "#3b7dd8",
    "twitter": "#1d9bf0",
    "youtube": "#d9453b",
    "reddit": "#e8602c",
    "image": "#8e5bd6",
    "annotation": "#d4a418",
    "chatThread": "#2e9e7c",
    "pdf": "#b2473e",
}
TYPE_LABELS: dict[str, str] = {
    "web": "Web page",
    "twitter": "Tweet",
    "youtube": "Video",
    "reddit": "Reddit post",
    "image": "Image",
    "annotation": "Note",
    "chatThread": "Chat",
    "pdf": "PDF",
    "selector": "Highlight",
}


def type_label(entity_type: str) -> str:
    """The person-facing name of a content type."""
    return TYPE_LABELS.get(entity_type, entity_type[:1].upper() + entity_type[1:])


def format_date(epoch_ms: int | None) -> str:
    """A short local date for a result row ("12 Mar 2024"), empty when unknown."""
    if not epoch_ms:
        return ""
    try:
        moment = dt.datetime.fromtimestamp(epoch_ms / 1000)
    except (OverflowError, OSError, ValueError):
        return ""
    return moment.strftime("%d %b %Y").lstrip("0")


def source_text(row: EntityRow) -> str:
    """Where an item comes from: site, author, else the URL's host."""
    parts = [part for part in (row.site, row.author) if part]
    if not parts and row.url:
        parts.append(urlsplit(row.url).hostname or "")
    return " · ".join(dict.fromkeys(p for p in parts if p))


class TypeIcons:
    """Icons per content type from resources/icons/type-*.svg, with a letter-badge fallback."""

    def __init__(self) -> None:
        self._icons: dict[str, QIcon | None] = {}

    def icon(self, entity_type: str) -> QIcon | None:
        """The icon of a type, or None when no icon file exists."""
        if entity_type not in self._icons:
            icon: QIcon | None = None
            try:
                path = paths.resource_path("icons", f"type-{entity_type}.svg")
            except FileNotFoundError:
                path = None
            if path is not None and path.is_file():
                icon = QIcon(str(path))
                if icon.isNull():
                    icon = None
            self._icons[entity_type] = icon
        return self._icons[entity_type]

    def paint(self, painter: QPainter, rect: QRect, entity_type: str) -> None:
        """Draw the type's icon, or a coloured circle with its first letter."""
        icon = self.icon(entity_type)
        if icon is not None:
            icon.paint(painter, rect)
            return
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(TYPE_COLOURS.get(entity_type, "#7a8290")))
        painter.drawEllipse(rect)
        font = painter.font()
        font.setBold(True)
        font.setPixelSize(max(8, rect.height() // 2))
        painter.setFont(font)
        painter.setPen(QColor("white"))
        painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, (entity_type[:1] or "?").upper())
        painter.restore()


class ResultDelegate(QStyledItemDelegate):
    """Paints a result row with a fixed height (the view uses uniform item sizes)."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.icons = TypeIcons()

    def sizeHint(
        self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> QSize:
        """Every row has the same size, so the view never measures 100,000 rows."""
        return QSize(max(200, option.rect.width()), ROW_HEIGHT)

    def paint(
        self,
        painter: QPainter,
        option: QStyleOptionViewItem,
        index: QModelIndex | QPersistentModelIndex,
    ) -> None:
        """Draw icon, title and date, source and badge, and the snippet with marks in bold."""
        painter.save()
        style = option.widget.style() if option.widget else None
        if style is not None:
            style.drawPrimitive(
                QStyle.PrimitiveElement.PE_PanelItemViewItem, option, painter, option.widget
            )
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        palette: QPalette = option.palette
        text_colour = palette.color(
            QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text
        )
        dim_colour = QColor(text_colour)
        dim_colour.setAlphaF(0.62)
        rect = option.rect.adjusted(PADDING, 8, -PADDING, -8)
        row: EntityRow | None = index.data(ResultsModel.RowRole)
        entity_type = row.type if row else "missing"
        self.icons.paint(
            painter, QRect(rect.left(), rect.top() + 2, ICON_SIZE, ICON_SIZE), entity_type
        )
        text_left = rect.left() + ICON_SIZE + PADDING
        text_rect = QRect(text_left, rect.top(), rect.right() - text_left, rect.height())
        base = QFont(option.font)
        line = QFontMetrics(base).height() + 3
        date = format_date(row.created_at) if row else ""
        self._draw_title(painter, text_rect, base, str(index.data() or ""), date, text_colour)
        source = source_text(row) if row else ""
        provenance = str(index.data(ResultsModel.ProvenanceRole) or "cached")
        second = QRect(text_rect.left(), text_rect.top() + line, text_rect.width(), line)
        self._draw_source(painter, second, base, entity_type, source, provenance, dim_colour)
        third = QRect(text_rect.left(), second.top() + line, text_rect.width(), line)
        snippet = str(index.data(ResultsModel.SnippetRole) or "")
        self._draw_snippet(painter, third, base, snippet, dim_colour, text_colour)
        painter.restore()

    def _draw_title(
        self, painter: QPainter, rect: QRect, base: QFont, title: str, date: str, colour: QColor
    ) -> None:
        """Title in semi-bold, elided, with the date right-aligned."""
        small = QFont(base)
        small.setPointSizeF(max(6.0, base.pointSizeF() * 0.9))
        date_width = QFontMetrics(small).horizontalAdvance(date) + PADDING if date else 0
        bold = QFont(base)
        bold.setWeight(QFont.Weight.DemiBold)
        painter.setFont(bold)
        painter.setPen(colour)
        metrics = QFontMetrics(bold)
        width = rect.width() - date_width
        painter.drawText(
            QRect(rect.left(), rect.top(), width, metrics.height()),
            Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
            metrics.elidedText(title, Qt.TextElideMode.ElideRight, width),
        )
        if date:
            painter.setFont(small)
            painter.drawText(
                QRect(rect.right() - date_width, rect.top(), date_width, metrics.height()),
                Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                date,
            )

    def _draw_source(
        self,
        painter: QPainter,
        rect: QRect,
        base: QFont,
        entity_type: str,
        source: str,
        provenance: str,
        colour: QColor,
    ) -> None:
        """Type name and source, dimmed, with a small cached/cloud badge on the right."""
        small = QFont(base)
        small.setPointSizeF(max(6.0, base.pointSizeF() * 0.9))
        painter.setFont(small)
        metrics = QFontMetrics(small)
        badge = {"cloud": "cloud", "both": "cached · cloud"}.get(provenance, "cached")
        badge_width = metrics.horizontalAdvance(badge) + 12
        painter.setPen(colour)
        label = type_label(entity_type) + (f" · {source}" if source else "")
        width = rect.width() - badge_width - PADDING
        painter.drawText(
            QRect(rect.left(), rect.top(), width, rect.height()),
            Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
            metrics.elidedText(label, Qt.TextElideMode.ElideRight, width),
        )
        badge_rect = QRect(
            rect.right() - badge_width, rect.top() + 1, badge_width, rect.height() - 2
        )
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        fill = QColor("#2f80ed" if provenance != "cached" else "#8a94a6")
        fill.setAlphaF(0.16)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(fill)
        painter.drawRoundedRect(badge_rect, 6, 6)
        painter.restore()
        painter.drawText(badge_rect, Qt.AlignmentFlag.AlignCenter, badge)

    def _draw_snippet(
        self,
        painter: QPainter,
        rect: QRect,
        base: QFont,
        snippet: str,
        colour: QColor,
        match_colour: QColor,
    ) -> None:
        """The snippet on one line; matched words bold and full colour, the rest dimmed."""
        plain = QFont(base)
        plain.setPointSizeF(max(6.0, base.pointSizeF() * 0.92))
        bold = QFont(plain)
        bold.setBold(True)
        x = rect.left()
        right = rect.right()
        for text, matched in snippet_segments(" ".join(snippet.split())):
            font = bold if matched else plain
            metrics = QFontMetrics(font)
            painter.setFont(font)
            painter.setPen(match_colour if matched else colour)
            available = right - x
            if available <= metrics.horizontalAdvance("…"):
                break
            shown = metrics.elidedText(text, Qt.TextElideMode.ElideRight, available)
            painter.drawText(
                QRect(x, rect.top(), available, rect.height()),
                Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                shown,
            )
            x += metrics.horizontalAdvance(shown)
            if shown != text:
                break
