"""Painting one result: type icon, title, source, date, provenance badge, marked snippet.

The snippet line shows why the item matched: it starts a few words before its first match,
after "…", unless the match fits after the start of the text.

Painting is the hot path of scrolling 100,000 rows, so it does as little Python as possible:
fonts, metrics and baselines are prepared once per font, each row's elided texts and positions
are computed once per width and kept (until the store changes the row), eliding measures only
a prefix of a long text that can show, icons and badges are cached pixmaps, and text is drawn
at baseline points (no per-call layout) without shaping where a script does not need it.
"""

from __future__ import annotations

import datetime as dt
from collections import OrderedDict
from dataclasses import dataclass
from functools import lru_cache

from PySide6.QtCore import (
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QPointF,
    QRect,
    QRectF,
    QSize,
    Qt,
)
from PySide6.QtGui import QColor, QFont, QFontMetrics, QIcon, QPainter, QPalette, QPixmap
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem

from memex_desktop import paths
from memex_desktop.api.content import type_label
from memex_desktop.store import EntityRow
from memex_desktop.store.search_language import TYPE_NAMES
from memex_desktop.ui import theme
from memex_desktop.ui.palette import CACHED_BADGE, OTHER_TYPE_COLOUR, REMOTE_BADGE, TYPE_COLOURS
from memex_desktop.ui.results_model import MARK_END, MARK_START, ResultsModel, snippet_segments

ROW_HEIGHT = 74
ICON_SIZE = 28
PADDING = 10


def format_date(epoch_ms: int | None) -> str:
    """A short local date for a result row ("12 Mar 2024"), empty when unknown."""
    if not epoch_ms:
        return ""
    try:
        moment = dt.datetime.fromtimestamp(epoch_ms / 1000)
    except (OverflowError, OSError, ValueError):
        return ""
    return _format_day(moment.date())


@lru_cache(maxsize=4096)
def _format_day(day: dt.date) -> str:
    """The text of one day (cached: thousands of rows share a few hundred days)."""
    return day.strftime("%d %b %Y").lstrip("0")


def source_text(row: EntityRow) -> str:
    """Where an item comes from: its site (the cache's reading of its address) and author."""
    return " · ".join(dict.fromkeys(part for part in (row.site, row.author) if part))


# How each kind of item people search by (search_language.TYPE_NAMES: "video" covers shorts,
# TikToks and Facebook videos) is drawn, so that the list draws a type as its search names it;
# later kinds win for a type in two ("audiobook" is drawn as a book).
_KIND_DRAWINGS = {
    "video": "youtube",
    "article": "web",
    "audio": "audioRecording",
    "book": "book",
    "chat": "chatThread",
    "profile": "profile",
    "channel": "profile",
    "feed": "rssFeed",
}
# The drawing of each type without its own resources/icons/type-<type>.svg: its kind's, or,
# for the types no kind groups, the nearest; any other type gets a letter badge.
DRAWN_AS = {
    entity_type: drawing
    for kind, drawing in _KIND_DRAWINGS.items()
    for entity_type in TYPE_NAMES[kind]
} | {"subreddit": "reddit", "linkedin": "web", "pinterest": "image", "snapchat": "image"}


class TypeIcons:
    """Icons per content type from resources/icons/type-*.svg, with a letter-badge fallback.

    Each (type, size, pixel ratio) is rendered once into a pixmap; painting a row then only
    copies pixels (rendering an SVG per row is what made scrolling slow).
    """

    def __init__(self) -> None:
        self._icons: dict[str, QIcon | None] = {}
        self._pixmaps: dict[tuple[str, int, float, str], QPixmap] = {}

    def icon(self, entity_type: str) -> QIcon | None:
        """The icon of a type, or None when no icon file exists."""
        if entity_type not in self._icons:
            icon: QIcon | None = None
            try:
                drawn_as = DRAWN_AS.get(entity_type, entity_type)
                path = paths.resource_path("icons", f"type-{drawn_as}.svg")
            except FileNotFoundError:
                path = None
            if path is not None and path.is_file():
                icon = QIcon(str(path))
                if icon.isNull():
                    icon = None
            self._icons[entity_type] = icon
        return self._icons[entity_type]

    def pixmap(self, entity_type: str, size: int, ratio: float, tint: str) -> QPixmap:
        """The type's icon in ``tint`` (or its letter badge) as a cached pixmap of ``size``
        logical pixels; the icon files are one-colour line drawings, so any theme can tint them."""
        key = (entity_type, size, ratio, tint)
        cached = self._pixmaps.get(key)
        if cached is not None:
            return cached
        pixmap = QPixmap(round(size * ratio), round(size * ratio))
        pixmap.setDevicePixelRatio(ratio)
        pixmap.fill(Qt.GlobalColor.transparent)
        painter = QPainter(pixmap)
        self.paint(painter, QRect(0, 0, size, size), entity_type)
        if self.icon(entity_type) is not None:
            painter.setCompositionMode(QPainter.CompositionMode.CompositionMode_SourceIn)
            painter.fillRect(QRect(0, 0, size, size), QColor(tint))
        painter.end()
        self._pixmaps[key] = pixmap
        return pixmap

    def paint(self, painter: QPainter, rect: QRect, entity_type: str) -> None:
        """Draw the type's icon, or a coloured circle with its first letter."""
        icon = self.icon(entity_type)
        if icon is not None:
            icon.paint(painter, rect)
            return
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(TYPE_COLOURS.get(entity_type, OTHER_TYPE_COLOUR)))
        painter.drawEllipse(rect)
        font = painter.font()
        font.setBold(True)
        font.setPixelSize(max(8, rect.height() // 2))
        painter.setFont(font)
        painter.setPen(QColor("white"))
        painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, (entity_type[:1] or "?").upper())
        painter.restore()


ELIDE = Qt.TextElideMode.ElideRight


def elide(metrics: QFontMetrics, text: str, width: int, average: int) -> str:
    """``metrics.elidedText(text, ElideRight, width)``, measuring only a prefix that can show.

    Eliding measures the whole string, and a snippet is several times longer than a row:
    a prefix of twice the characters that fit on average is tried first. When it does not fit
    whole, its elided form is the whole text's; when it does, a longer prefix is tried.
    """
    cut = 2 * max(0, width) // max(1, average) + 2
    while cut < len(text):
        prefix = text[:cut]
        shown = metrics.elidedText(prefix, ELIDE, width)
        if shown != prefix:
            return shown
        cut *= 2
    return metrics.elidedText(text, ELIDE, width)


def _unshaped(font: QFont) -> QFont:
    """A copy of ``font`` that skips text shaping where a script does not need it.

    Shaping (kerning, ligatures) is cosmetic for Latin text but is most of the cost of
    measuring and drawing it; scripts that need shaping to be legible are still shaped.
    """
    copy = QFont(font)
    copy.setStyleStrategy(font.styleStrategy() | QFont.StyleStrategy.PreferNoShaping)
    return copy


class _Fonts:
    """The fonts, metrics and baselines of one base font, prepared once (not per row)."""

    def __init__(self, base: QFont) -> None:
        self.key = base.key()
        base = _unshaped(base)
        self.title = QFont(base)
        self.title.setWeight(QFont.Weight.DemiBold)
        self.small = QFont(base)
        self.small.setPointSizeF(max(6.0, base.pointSizeF() * 0.9))
        self.plain = QFont(base)
        self.plain.setPointSizeF(max(6.0, base.pointSizeF() * 0.92))
        self.bold = QFont(self.plain)
        self.bold.setBold(True)
        self.title_metrics = QFontMetrics(self.title)
        self.small_metrics = QFontMetrics(self.small)
        self.plain_metrics = QFontMetrics(self.plain)
        self.bold_metrics = QFontMetrics(self.bold)
        self.line = QFontMetrics(base).height() + 3
        self.ellipsis = {
            False: self.plain_metrics.horizontalAdvance("…"),
            True: self.bold_metrics.horizontalAdvance("…"),
        }
        # Text beyond this many characters can never fit a row: cut before measuring it.
        self.min_char = max(1, min(self.plain_metrics.horizontalAdvance("i"), 3))
        self.average = {
            "title": max(1, self.title_metrics.averageCharWidth()),
            "small": max(1, self.small_metrics.averageCharWidth()),
            False: max(1, self.plain_metrics.averageCharWidth()),
            True: max(1, self.bold_metrics.averageCharWidth()),
        }
        line = self.line
        self.title_baseline = _baseline(self.title_metrics, line - 3)
        self.date_baseline = _baseline(self.small_metrics, self.title_metrics.height())
        self.label_baseline = _baseline(self.small_metrics, line)
        self.snippet_baseline = {
            False: _baseline(self.plain_metrics, line),
            True: _baseline(self.bold_metrics, line),
        }
        self._small_widths: dict[str, int] = {}

    def small_width(self, text: str) -> int:
        """Width of a short text (a date, a badge) in the small font, measured once."""
        width = self._small_widths.get(text)
        if width is None:
            if len(self._small_widths) > 4096:
                self._small_widths.clear()
            width = self._small_widths[text] = self.small_metrics.horizontalAdvance(text)
        return width


@dataclass(frozen=True)
class _Run:
    """One piece of the snippet line: its text, where it starts, whether it is a match."""

    x: int
    text: str
    matched: bool


@dataclass(frozen=True)
class RowLayout:
    """Everything one row paints, measured and elided for one width (cached per row)."""

    entity_type: str
    title: str
    date: str
    date_width: int
    label: str
    badge: str
    provenance: str
    snippet: tuple[_Run, ...]


BADGE_TEXT = {"cloud": "cloud", "both": "cached · cloud"}
MAX_LAYOUTS = 2_000
# Item states as plain ints: flag arithmetic on Python enums costs microseconds per row.
_SELECTED = QStyle.StateFlag.State_Selected.value
_HIGHLIGHTED = (
    QStyle.StateFlag.State_Selected
    | QStyle.StateFlag.State_MouseOver
    | QStyle.StateFlag.State_HasFocus
).value


class ResultDelegate(QStyledItemDelegate):
    """Paints a result row with a fixed height (the view uses uniform item sizes)."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.icons = TypeIcons()
        self._fonts: dict[str, _Fonts] = {}
        self._layouts: OrderedDict[tuple[object, ...], RowLayout] = OrderedDict()
        self._badges: dict[tuple[str, str, int, float], QPixmap] = {}
        self._palette_colours: dict[tuple[int, bool], tuple[QColor, QColor, str]] = {}
        self._last: tuple[QFont, _Fonts] | None = None
        self._model: object = None

    def sizeHint(
        self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> QSize:
        """Every row has the same size, so the view never measures 100,000 rows."""
        return QSize(max(200, option.rect.width()), ROW_HEIGHT)

    def forget(self) -> None:
        """Drop the prepared rows (the model changed what they show)."""
        self._layouts.clear()

    def _fonts_for(self, base: QFont) -> _Fonts:
        """The prepared fonts of a base font (the font of the view, asked for every row).

        Comparing with the last font is ten times cheaper than building its key.
        """
        if self._last is not None and base == self._last[0]:
            return self._last[1]
        key = base.key()
        fonts = self._fonts.get(key)
        if fonts is None:
            fonts = self._fonts[key] = _Fonts(base)
        self._last = (QFont(base), fonts)
        return fonts

    def _watch(self, model: object) -> None:
        """Forget prepared rows whenever the model changes or resets (first paint only)."""
        if model is self._model or not isinstance(model, ResultsModel):
            return
        self._model = model
        model.modelReset.connect(self.forget)
        model.dataChanged.connect(self.forget)
        model.rowsInserted.connect(self.forget)
        model.rowsRemoved.connect(self.forget)

    def layout_for(
        self, index: QModelIndex | QPersistentModelIndex, fonts: _Fonts, width: int
    ) -> RowLayout:
        """The row's prepared layout for this width, computed on first use."""
        model = index.model()
        self._watch(model)
        row_number = index.row()
        key: tuple[object, ...] = (row_number, width, fonts.key)
        layout = self._layouts.get(key)
        if layout is not None:
            return layout
        if isinstance(model, ResultsModel):
            row, title, snippet, provenance = model.display(row_number)
        else:  # any other model: ask through the roles
            row = index.data(ResultsModel.RowRole)
            title = str(index.data() or "")
            snippet = str(index.data(ResultsModel.SnippetRole) or "")
            provenance = str(index.data(ResultsModel.ProvenanceRole) or "cached")
        layout = self._measure(row, title, snippet, provenance, fonts, width)
        self._layouts[key] = layout
        if len(self._layouts) > MAX_LAYOUTS:
            self._layouts.popitem(last=False)
        return layout

    def _measure(
        self,
        row: EntityRow | None,
        title: str,
        snippet: str,
        provenance: str,
        fonts: _Fonts,
        width: int,
    ) -> RowLayout:
        """Elide and place the row's texts for ``width`` pixels of text column."""
        entity_type = row.type if row else "missing"
        date = format_date(row.created_at) if row else ""
        date_width = fonts.small_width(date) + PADDING if date else 0
        average = fonts.average
        title = elide(fonts.title_metrics, title, width - date_width, average["title"])
        badge = BADGE_TEXT.get(provenance, "cached")
        badge_width = fonts.small_width(badge) + 12
        source = source_text(row) if row else ""
        label = type_label(entity_type) + (f" · {source}" if source else "")
        label = elide(fonts.small_metrics, label, width - badge_width - PADDING, average["small"])
        return RowLayout(
            entity_type,
            title,
            date,
            date_width,
            label,
            badge,
            provenance,
            _snippet_runs(snippet, fonts, width),
        )

    def _badge(
        self, layout: RowLayout, fonts: _Fonts, colour: QColor, colour_name: str, ratio: float
    ) -> QPixmap:
        """The cached/cloud badge as a pixmap (one per text, colour and pixel ratio)."""
        key = (layout.badge, colour_name, fonts.line, ratio)
        pixmap = self._badges.get(key)
        if pixmap is not None:
            return pixmap
        width = fonts.small_width(layout.badge) + 12
        height = fonts.line - 2
        pixmap = QPixmap(round(width * ratio), round(height * ratio))
        pixmap.setDevicePixelRatio(ratio)
        pixmap.fill(Qt.GlobalColor.transparent)
        painter = QPainter(pixmap)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        fill = QColor(REMOTE_BADGE if layout.provenance != "cached" else CACHED_BADGE)
        fill.setAlphaF(0.16)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(fill)
        painter.drawRoundedRect(QRectF(0, 0, width, height), 6, 6)
        painter.setFont(fonts.small)
        painter.setPen(colour)
        painter.drawText(QRect(0, 0, width, height), Qt.AlignmentFlag.AlignCenter, layout.badge)
        painter.end()
        self._badges[key] = pixmap
        return pixmap

    def _colours(self, palette: QPalette, selected: bool) -> tuple[QColor, QColor, str]:
        """Text colour, dimmed colour and the dimmed colour's name, per palette and selection."""
        key = (palette.cacheKey(), selected)
        colours = self._palette_colours.get(key)
        if colours is None:
            text = palette.color(
                QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text
            )
            dim = QColor(text)
            dim.setAlphaF(0.62)
            if len(self._palette_colours) > 64:
                self._palette_colours.clear()
            colours = self._palette_colours[key] = (
                text,
                dim,
                dim.name(QColor.NameFormat.HexArgb),
            )
        return colours

    def paint(
        self,
        painter: QPainter,
        option: QStyleOptionViewItem,
        index: QModelIndex | QPersistentModelIndex,
    ) -> None:
        """Draw icon, title and date, source and badge, and the snippet with marks in bold."""
        state = option.state.value
        selected = bool(state & _SELECTED)
        if state & _HIGHLIGHTED:
            style = option.widget.style() if option.widget else None
            if style is not None:
                style.drawPrimitive(
                    QStyle.PrimitiveElement.PE_PanelItemViewItem, option, painter, option.widget
                )
        text_colour, dim_colour, dim_name = self._colours(option.palette, selected)
        fonts = self._fonts_for(option.font)
        rect = option.rect
        left = rect.left() + PADDING
        top = rect.top() + 8
        text_left = left + ICON_SIZE + PADDING
        width = rect.right() - PADDING - text_left
        layout = self.layout_for(index, fonts, width)
        ratio = painter.device().devicePixelRatioF()
        painter.save()
        icon = self.icons.pixmap(layout.entity_type, ICON_SIZE, ratio, theme.current().muted_text)
        painter.drawPixmap(left, top + 2, icon)
        # Title line: semi-bold, the date right-aligned in the small font.
        painter.setPen(text_colour)
        painter.setFont(fonts.title)
        painter.drawText(QPointF(text_left, top + fonts.title_baseline), layout.title)
        painter.setFont(fonts.small)
        if layout.date:
            date_x = text_left + width - fonts.small_width(layout.date)
            painter.drawText(QPointF(date_x, top + fonts.date_baseline), layout.date)
        # Source line: type and source dimmed, the provenance badge on the right.
        second = top + fonts.line
        painter.setPen(dim_colour)
        painter.drawText(QPointF(text_left, second + fonts.label_baseline), layout.label)
        badge = self._badge(layout, fonts, dim_colour, dim_name, ratio)
        painter.drawPixmap(text_left + width - round(badge.width() / ratio), second + 1, badge)
        # Snippet line: matches bold in full colour, the rest dimmed.
        third = second + fonts.line
        current: bool | None = None
        for run in layout.snippet:
            if run.matched is not current:
                current = run.matched
                painter.setFont(fonts.bold if run.matched else fonts.plain)
                painter.setPen(text_colour if run.matched else dim_colour)
            painter.drawText(
                QPointF(text_left + run.x, third + fonts.snippet_baseline[run.matched]), run.text
            )
        painter.restore()


def _snippet_runs(snippet: str, fonts: _Fonts, width: int) -> tuple[_Run, ...]:
    """The snippet line for ``width`` pixels: its plain and marked runs, elided at the end,
    starting shortly before its first match (with "…") when the text before that match would
    push it out of the line."""
    reach = 2 * (width // fonts.min_char + 1)  # more characters than can ever fit
    mark = snippet.find(MARK_START)
    begin = max(0, mark - reach)
    flat = " ".join(snippet[begin : (mark if mark >= 0 else 0) + reach].split())
    if begin:
        flat = "…" + flat
    mark = flat.find(MARK_START)
    if mark > 0:
        flat = _led_to_match(flat, mark, fonts, width)
    runs: list[_Run] = []
    x = 0
    segments = snippet_segments(flat) if mark >= 0 else [(flat, False)]
    last = len(segments) - 1
    for number, (text, matched) in enumerate(segments):
        metrics = fonts.bold_metrics if matched else fonts.plain_metrics
        available = width - x
        if available <= fonts.ellipsis[matched]:
            break
        shown = elide(metrics, text, available, fonts.average[matched])
        runs.append(_Run(x, shown, matched))
        if shown != text or number == last:
            break
        x += metrics.horizontalAdvance(shown)
    return tuple(runs)


# Of a line whose first match would not fit after the text before it, the share of its
# width left to the words before the match: enough to read it in its sentence.
LEAD_SHARE = 4


def _led_to_match(flat: str, mark: int, fonts: _Fonts, width: int) -> str:
    """``flat`` (a snippet on one line, its first mark at ``mark``) as the line shows it:
    from the start of the text when the first match fits after it, else from the last words
    before the match that fit in a quarter of the line, after "…" (a snippet already cut
    before its match keeps no more than those either)."""
    close = flat.find(MARK_END, mark)
    match = flat[mark + 1 : close if close >= 0 else len(flat)]
    lead = flat[:mark]
    plain = fonts.plain_metrics
    ellipsis = fonts.ellipsis[False]
    match_width = fonts.bold_metrics.horizontalAdvance(match)
    # The match, and the "…" that ends a line cut after it.
    if not lead.startswith("…") and plain.horizontalAdvance(lead) + match_width <= width - ellipsis:
        return flat
    room = min(width // LEAD_SHARE, width - match_width - 2 * ellipsis)
    start = len(lead)
    while start > 0:
        space = lead.rfind(" ", 0, start - 1)
        if plain.horizontalAdvance(lead[space + 1 :]) > room:
            break
        start = space + 1
    return flat if start == 0 else "…" + flat[start:]


def _baseline(metrics: QFontMetrics, height: int) -> float:
    """The baseline offset that centres a line of ``metrics`` vertically in ``height``."""
    return (height - metrics.height()) / 2 + metrics.ascent()
