"""Highlights painted in the reader's document, and found again by a click.

A text highlight is looked for in the rendered text: its quote (white space may differ, and
case when nothing else matches), the occurrence whose surrounding text agrees best with the
highlight's context; when the quote is not there as a whole its first words are tried, and a
highlight not found at all is left unpainted (the notes pane still lists it). Quotes are
looked for in the item's own words (:func:`own_text`): a transcript line's ``[mm:ss]`` and
``▶``, which the reader adds, are no part of them. A video's
highlight marks the transcript lines of its moment (or span). The paint is a character format
merged into the document, carrying the highlight's id, so it survives the find bar's own
marks; what each painted range looked like before is kept, so taking the paint off restores
it exactly (inline code keeps its background).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass

from PySide6.QtCore import QEvent, QObject, QPoint, Qt, Signal
from PySide6.QtGui import (
    QBrush,
    QColor,
    QMouseEvent,
    QTextBlock,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
)
from PySide6.QtWidgets import QTextBrowser

from memex_desktop.store.highlights import Highlight
from memex_desktop.sync.highlights import Span, TimedLine, find_passage, moment_spans

# Where a character format keeps the id of the highlight painted on it.
HIGHLIGHT_ID_PROPERTY = 0x100000 + 0x4D48  # QTextFormat.UserProperty + "MH"
# The mark's colour (reader.css ``.memex-highlight``, else this): a translucent amber reads
# on a light page and on a dark one.
DEFAULT_HIGHLIGHT_COLOUR = QColor(255, 190, 0, 96)
_CSS_COLOUR = re.compile(
    r"\.memex-highlight\s*\{[^}]*background(?:-color)?\s*:\s*"
    r"(rgba?\(\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*(?:,\s*([\d.]+)\s*)?\)|#[0-9a-fA-F]{3,8})",
    re.S,
)
_TRANSCRIPT_TIME = re.compile(r"^memex://entity/[^?#]+\?(?:.*&)?t=(\d+)")
# The link beside a transcript line that opens the video at its moment (render/entities.py).
MOMENT_MARK = "\u25b6"


def highlight_colour(css: str) -> QColor:
    """The mark's colour as the reader's stylesheet sets it (``.memex-highlight``)."""
    found = _CSS_COLOUR.search(css or "")
    if found is None:
        return QColor(DEFAULT_HIGHLIGHT_COLOUR)
    if found.group(1).startswith("#"):
        colour = QColor(found.group(1))
        return colour if colour.isValid() else QColor(DEFAULT_HIGHLIGHT_COLOUR)
    red, green, blue = (min(255, int(found.group(n))) for n in (2, 3, 4))
    alpha = found.group(5)
    opacity = float(alpha) if alpha is not None else 1.0
    opacity = opacity / 255 if opacity > 1 else opacity
    return QColor(red, green, blue, round(max(0.0, min(1.0, opacity)) * 255))


def transcript_lines(document: QTextDocument) -> list[TimedLine]:
    """The lines of a rendered transcript: blocks that begin with a ``[mm:ss]`` link into
    the item itself."""
    lines: list[TimedLine] = []
    block = document.begin()
    while block.isValid():
        iterator = block.begin()
        if not iterator.atEnd():
            fragment = iterator.fragment()
            found = _TRANSCRIPT_TIME.match(fragment.charFormat().anchorHref())
            if found is not None and fragment.text().startswith("["):
                end = block.position() + max(0, block.length() - 1)
                lines.append(TimedLine(int(found.group(1)), block.position(), end))
        block = block.next()
    return lines


# The heading of the reader's "Referenced by" section (reader_pane.backlinks_html), after the
# text: the quotes of highlights listed there are no passage of the item.
BACKLINKS_HEADING = "Referenced by"
# Blocks looked through from the end for that heading (its list is at most 200 lines long).
_BACKLINK_BLOCKS = 400


def article_end(document: QTextDocument) -> int:
    """Where the item's own text ends: the start of its "Referenced by" section, if any."""
    block = document.lastBlock()
    for _step in range(_BACKLINK_BLOCKS):
        if not block.isValid():
            break
        if block.text() == BACKLINKS_HEADING and block.blockFormat().headingLevel() == 2:
            return block.position()
        block = block.previous()
    return document.characterCount()


def _label_length(block: QTextBlock) -> int:
    """How many characters at the start of a transcript line the reader adds: its
    ``[mm:ss]`` link, its ``▶`` link and the spaces after them."""
    length = 0
    iterator = block.begin()
    while not iterator.atEnd():
        fragment = iterator.fragment()
        text = fragment.text()
        href = fragment.charFormat().anchorHref()
        label = bool(href) and (
            (text.startswith("[") and _TRANSCRIPT_TIME.match(href) is not None)
            or text.strip() == MOMENT_MARK
        )
        if not label:
            spaces = len(text) - len(text.lstrip())
            length += spaces
            if spaces < len(text):
                break
        else:
            length += len(text)
        iterator += 1
    return length


@dataclass(frozen=True)
class OwnText:
    """The item's own words in a rendered document, and where each run of them sits.

    ``text`` is the document's text up to its "Referenced by" section, without the labels
    the reader puts before each transcript line (``[mm:ss] ▶``): what Memex holds of the
    item, so that a highlight's quote and context are made of it, and found in it again.
    """

    text: str
    # Where each run of the text starts in ``text`` and in the document, in order.
    own_starts: tuple[int, ...]
    document_starts: tuple[int, ...]
    # The transcript lines of the document (document positions).
    lines: tuple[TimedLine, ...] = ()

    def document_position(self, offset: int) -> int:
        """The document position of the character at ``offset`` of ``text``."""
        run = max(0, bisect_right(self.own_starts, offset) - 1)
        return self.document_starts[run] + offset - self.own_starts[run]

    def document_span(self, span: Span) -> Span:
        """A span of ``text`` as a span of the document."""
        if span.end <= span.start:
            start = self.document_position(span.start)
            return Span(start, start)
        return Span(self.document_position(span.start), self.document_position(span.end - 1) + 1)

    def offset_of(self, position: int) -> int:
        """The offset in ``text`` of a document position (a position inside a label: the
        start of the words after it)."""
        run = max(0, bisect_right(self.document_starts, position) - 1)
        start = self.document_starts[run]
        end = start + self.run_length(run)
        if position >= end and run + 1 < len(self.document_starts):
            return self.own_starts[run + 1]  # in the labels after the run: the next run
        return self.own_starts[run] + min(position, end) - start

    def run_length(self, run: int) -> int:
        """How many characters run ``run`` holds."""
        following = self.own_starts[run + 1] if run + 1 < len(self.own_starts) else len(self.text)
        return following - self.own_starts[run]

    def line_at(self, position: int) -> TimedLine | None:
        """The transcript line holding a document position, if any."""
        for line in self.lines:
            if line.start <= position <= line.end:
                return line
        return None


def own_text(document: QTextDocument) -> OwnText:
    """The item's own words in ``document`` (see :class:`OwnText`)."""
    full = document.toPlainText()
    end = min(len(full), article_end(document))
    lines = [line for line in transcript_lines(document) if line.start < end]
    if not lines:
        return OwnText(full[:end], (0,), (0,))
    parts: list[str] = []
    own_starts: list[int] = []
    document_starts: list[int] = []
    kept = 0  # how much of the text is in parts
    cursor = 0  # the document position read up to
    for line in lines:
        labels = _label_length(document.findBlock(line.start))
        if labels == 0:
            continue
        if line.start > cursor or not own_starts:
            own_starts.append(kept)
            document_starts.append(cursor)
            parts.append(full[cursor : line.start])
            kept += line.start - cursor
        cursor = min(end, line.start + labels)
    own_starts.append(kept)
    document_starts.append(cursor)
    parts.append(full[cursor:end])
    return OwnText("".join(parts), tuple(own_starts), tuple(document_starts), tuple(lines))


def finish_layout(document: QTextDocument) -> None:
    """Lay out the rest of ``document`` before a format in it changes (at once when it is all
    laid out already).

    Qt lays a document just shown (or given a new width) out in steps, one an event-loop turn,
    and a change made before the last step ends the layout at the change: the lines after it
    are never laid out, so they are neither drawn nor reachable by scrolling (highlights
    painted again as an item is shown again cut it short after them).
    """
    document.documentLayout().documentSize()


def paint_format(colour: QColor, highlight_id: str, pending: bool) -> QTextCharFormat:
    """The character format of a painted highlight (a pending one is also underlined)."""
    paint = QTextCharFormat()
    paint.setBackground(QBrush(colour))
    paint.setProperty(HIGHLIGHT_ID_PROPERTY, highlight_id)
    if pending:
        paint.setUnderlineStyle(QTextCharFormat.UnderlineStyle.DashUnderline)
        paint.setToolTip("Highlight not on the server yet: it is sent at the next sync")
    return paint


class HighlightPainter:
    """Paints an item's highlights in one view's document and tells which one a place holds.

    Repainting takes the previous paint off first, so a highlight is painted once however
    often the list is applied; a new document (another item shown) starts afresh.
    """

    def __init__(self, view: QTextBrowser, colour: QColor | None = None) -> None:
        self.view = view
        self.colour = QColor(colour or DEFAULT_HIGHLIGHT_COLOUR)
        self.highlights: list[Highlight] = []
        self.spans: dict[str, list[Span]] = {}
        self.unplaced: list[str] = []
        self._document: QTextDocument | None = None
        self._restore: list[tuple[int, int, QTextCharFormat]] = []

    def paint(self, highlights: Iterable[Highlight]) -> None:
        """Show exactly these highlights (and no other) in the view's document."""
        document = self.view.document()
        if document is not self._document:
            self._document = document
            self._restore = []
            document.setUndoRedoEnabled(False)  # the paint is no edit to undo
        finish_layout(document)
        self._clear_paint()
        self.highlights = list(highlights)
        self.spans = {}
        self.unplaced = []
        own: OwnText | None = None  # read once, and only for a highlight of text
        text: str | None = None
        lines: list[TimedLine] | None = None
        for highlight in self.highlights:
            passage = highlight.passage
            spans: list[Span] = []
            if passage.is_time and passage.start_s is not None:
                if lines is None:
                    lines = transcript_lines(document)
                spans = moment_spans(lines, passage.start_s, passage.end_s)
            else:
                if own is None:
                    own = own_text(document)
                found = find_passage(own.text, passage.quote, passage.prefix, passage.suffix)
                if found is not None:
                    spans = [own.document_span(found)]
                else:
                    # A highlight made on the reader's labels too (by an older version).
                    if text is None:
                        text = document.toPlainText()[: article_end(document)]
                    found = find_passage(text, passage.quote, passage.prefix, passage.suffix)
                    spans = [found] if found is not None else []
            if not spans:
                self.unplaced.append(highlight.id)
                continue
            self.spans[highlight.id] = spans
            paint = paint_format(self.colour, highlight.id, highlight.pending)
            for span in spans:
                self._apply(document, span, paint)

    def clear(self) -> None:
        """Take every highlight off the document."""
        if self._document is self.view.document():
            finish_layout(self._document)
            self._clear_paint()
        self.highlights, self.spans, self.unplaced = [], {}, []

    def _apply(self, document: QTextDocument, span: Span, paint: QTextCharFormat) -> None:
        """Merge ``paint`` into ``span``, keeping what each fragment looked like before."""
        block = document.findBlock(span.start)
        while block.isValid() and block.position() < span.end:
            iterator = block.begin()
            while not iterator.atEnd():
                fragment = iterator.fragment()
                start = max(span.start, fragment.position())
                end = min(span.end, fragment.position() + fragment.length())
                if start < end:
                    self._restore.append((start, end, QTextCharFormat(fragment.charFormat())))
                iterator += 1
            block = block.next()
        cursor = QTextCursor(document)
        cursor.setPosition(span.start)
        cursor.setPosition(span.end, QTextCursor.MoveMode.KeepAnchor)
        cursor.mergeCharFormat(paint)

    def _clear_paint(self) -> None:
        """Give every painted fragment back the format it had (the last painted first)."""
        document = self._document
        if document is None:
            return
        limit = document.characterCount() - 1
        cursor = QTextCursor(document)
        for start, end, original in reversed(self._restore):
            if end > limit:
                continue
            cursor.setPosition(start)
            cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
            cursor.setCharFormat(original)
        self._restore = []

    def highlight_at(self, position: int) -> str | None:
        """The id of the highlight painted on the character at ``position``, if any."""
        document = self.view.document()
        if document is not self._document or not 0 <= position < document.characterCount() - 1:
            return None
        cursor = QTextCursor(document)
        cursor.setPosition(position + 1)
        value = cursor.charFormat().property(HIGHLIGHT_ID_PROPERTY)
        return value if isinstance(value, str) and value else None

    def painted_ids(self) -> list[str]:
        """The ids of the highlights painted in the document now, read from the document."""
        document = self.view.document()
        found: list[str] = []
        block = document.begin()
        while block.isValid():
            iterator = block.begin()
            while not iterator.atEnd():
                value = iterator.fragment().charFormat().property(HIGHLIGHT_ID_PROPERTY)
                if isinstance(value, str) and value and (not found or found[-1] != value):
                    found.append(value)
                iterator += 1
            block = block.next()
        return found

    def span_of(self, highlight_id: str) -> Span | None:
        """Where a painted highlight starts and ends (its first span)."""
        spans = self.spans.get(highlight_id)
        return spans[0] if spans else None


class HighlightClicks(QObject):
    """Reports a click on a painted highlight (a click, not the end of a selection, and not
    on a link, which opens as links do).

    Signals:
        clicked(str): the id of the highlight clicked.
    """

    clicked = Signal(str)

    def __init__(self, view: QTextBrowser, painter: HighlightPainter) -> None:
        super().__init__(view)
        self._view = view
        self._painter = painter
        view.viewport().installEventFilter(self)

    def highlight_under(self, point: QPoint) -> str | None:
        """The highlight painted under a point of the view's viewport."""
        if self._view.anchorAt(point):
            return None
        position = self._view.cursorForPosition(point).position()
        return self._painter.highlight_at(position) or (
            self._painter.highlight_at(position - 1) if position > 0 else None
        )

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """A left click without a selection on a painted highlight is reported."""
        if (
            event.type() == QEvent.Type.MouseButtonRelease
            and isinstance(event, QMouseEvent)
            and event.button() == Qt.MouseButton.LeftButton
            and not self._view.textCursor().hasSelection()
        ):
            found = self.highlight_under(event.position().toPoint())
            if found is not None:
                self.clicked.emit(found)
        return False
