"""Large documents shown piece by piece, so neither a worker nor the GUI thread stalls.

Two costs of a big article (a 1 MB web page) would freeze the window: ``QTextDocument.setHtml``
of the whole text holds the Python GIL for its entire run on the worker (the GUI thread's
Python slots cannot run meanwhile), and Qt lays a newly shown document out on the GUI thread
in lazy steps of up to 200,000 characters each. Splitting the sanitised HTML at block
boundaries bounds both: the worker parses one piece per call, and the GUI thread appends one
piece per event-loop turn, each laid out as it is inserted.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from html.parser import HTMLParser

from PySide6.QtCore import QObject, QTimer, Signal, Slot
from PySide6.QtGui import (
    QTextBlockFormat,
    QTextCursor,
    QTextDocument,
    QTextDocumentFragment,
    QTextFrameFormat,
)

CHUNK_CHARS = 16_000  # about 5 ms of parsing or layout per piece
# Or this many elements, whichever comes first: Qt's import costs by the element with the
# reader's stylesheet (16,000 characters of a contents list are 600 elements and 35 ms).
CHUNK_ELEMENTS = 150

# Elements a piece may stay inside when it is cut: they are closed at the end of one piece and
# opened again (same tag text, so the same classes) at the start of the next.
_CONTAINERS = frozenset({"div", "article", "section", "main", "body", "html", "header", "footer"})
# Lists may be cut between two items, at any depth (a table of contents of a whole book is one
# list): the next piece opens the same lists again, and Qt shows a reopened item that holds only
# a nested list as no item at all. A numbered list goes on counting from where it was cut.
_LISTS = frozenset({"ul", "ol", "li"})
_START_RE = re.compile(r"""\sstart=["']?(-?\d{1,9})""", re.IGNORECASE)
_VOID = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}
)


_END_TAGS = re.compile(r"</[a-z0-9]+\s*>", re.I)
_NEWLINE = re.compile("\n")


class _Splitter(HTMLParser):
    """Finds cut points: after an end tag, with only container elements open."""

    def __init__(self, text: str, target: int, elements: int = CHUNK_ELEMENTS) -> None:
        super().__init__(convert_charrefs=False)
        self._text = text
        self._target = target
        self._elements = elements
        self._opened = 0  # elements opened in the piece so far
        self._line_starts = [0] + [found.end() for found in _NEWLINE.finditer(text)]
        self._stack: list[tuple[str, str]] = []
        self._items_closed: dict[int, int] = {}  # stack depth of an open list -> items ended
        self._piece_start = 0
        self._prefix = ""
        self.pieces: list[str] = []

    def _offset(self) -> int:
        """The text offset of the parser's current position."""
        line, column = self.getpos()
        return self._line_starts[line - 1] + column

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        """Remember an opened element with its exact start tag."""
        self._opened += 1
        if tag not in _VOID:
            self._stack.append((tag, self.get_starttag_text() or f"<{tag}>"))
            self._items_closed.pop(len(self._stack) - 1, None)

    def handle_endtag(self, tag: str) -> None:
        """Close the element; cut here when the piece is long enough and the spot is safe."""
        for depth in range(len(self._stack) - 1, -1, -1):
            if self._stack[depth][0] == tag:
                del self._stack[depth:]
                if tag == "li" and depth > 0:
                    self._items_closed[depth - 1] = self._items_closed.get(depth - 1, 0) + 1
                break
        end = self._text.find(">", self._offset()) + 1
        if end <= 0 or (end - self._piece_start < self._target and self._opened < self._elements):
            return
        if any(name not in _CONTAINERS and name not in _LISTS for name, _ in self._stack):
            return
        if self._stack and self._stack[-1][0] == "li":
            return  # the rest of the item would start an item of its own
        closing = "".join(f"</{name}>" for name, _ in reversed(self._stack))
        self.pieces.append(self._prefix + self._text[self._piece_start : end] + closing)
        self._prefix = "".join(self._reopened(depth) for depth in range(len(self._stack)))
        self._piece_start = end
        self._opened = 0

    def _reopened(self, depth: int) -> str:
        """The start tag that opens the element at ``depth`` again in the next piece."""
        name, text = self._stack[depth]
        if name != "ol":
            return text
        found = _START_RE.search(text)
        start = int(found.group(1)) if found else 1
        return f'<ol start="{start + self._items_closed.get(depth, 0)}">'

    def finish(self) -> list[str]:
        """Every piece, the last one holding the rest of the text."""
        self.close()
        rest = self._text[self._piece_start :]
        # Only the open containers' end tags left: a piece of them would add an empty block.
        if _END_TAGS.sub("", rest).strip() or not self.pieces:
            self.pieces.append(self._prefix + rest)
        return self.pieces


def split_html(html: str, target: int = CHUNK_CHARS) -> list[str]:
    """Cut sanitised HTML into pieces of about ``target`` characters (or CHUNK_ELEMENTS
    elements) at block boundaries.

    Small documents come back whole; a document without a safe cut point (one giant
    paragraph or table) also comes back whole.
    """
    if len(html) <= target:
        return [html]
    splitter = _Splitter(html, target)
    splitter.feed(html)
    return splitter.finish()


def build_documents(
    html: str, make_document: Callable[[], QTextDocument], css: str
) -> list[QTextDocument]:
    """Worker: one document per piece (each ``setHtml`` short, so the GIL is released often)."""
    documents = []
    for piece in split_html(html):
        document = make_document()
        document.setDefaultStyleSheet(css)
        document.setHtml(piece)
        documents.append(document)
    return documents


class DocumentFeeder(QObject):
    """Appends the remaining pieces to a shown document, one per event-loop turn (or, given
    ``wanted``, only while it asks for more).

    Signals:
        finished(): every piece is in the document.
    """

    finished = Signal()

    def __init__(
        self,
        target: QTextDocument,
        pieces: list[QTextDocument],
        parent: QObject | None = None,
        *,
        wanted: Callable[[], bool] | None = None,
        framed: bool = False,
    ) -> None:
        super().__init__(parent)
        # Each piece in a frame of its own: Qt lays a new block out after walking every block
        # of its frame before it, so a long run of pieces in one frame costs the square of its
        # length (half a second a piece at 2 MB of lists); frames keep each step short.
        self._framed = framed
        self._target = target
        self._pieces = list(pieces)
        # When given, pieces go in only while it says more text is wanted (the reader is near
        # the end of what is laid out): a huge document then costs memory as it is read.
        self._wanted = wanted
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self._on_timer_timeout)

    @property
    def done(self) -> bool:
        """Whether every piece was appended (or feeding was stopped)."""
        return not self._pieces

    def start(self) -> None:
        """Begin appending (finished is emitted at once when there is nothing to add)."""
        if self._pieces:
            self._timer.start()
        else:
            self.finished.emit()

    @property
    def waiting(self) -> bool:
        """Whether pieces are left but none is wanted yet (see ``resume``)."""
        return bool(self._pieces) and not self._timer.isActive()

    def resume(self) -> None:
        """Go on appending if pieces are left (after the reader moved towards the end)."""
        if self._pieces and not self._timer.isActive():
            self._timer.start()

    def stop(self) -> None:
        """Drop the pieces not appended yet (another document replaces this one)."""
        self._timer.stop()
        for piece in self._pieces:
            piece.deleteLater()
        self._pieces.clear()

    def finish_now(self) -> None:
        """Append everything left at once (before a search of the whole text, or a jump)."""
        self._timer.stop()
        while self._pieces:
            self._append_next()
        self.finished.emit()

    def _append_next(self) -> None:
        """Move the next piece to the end of the shown document."""
        piece = self._pieces.pop(0)
        cursor = QTextCursor(self._target)
        cursor.movePosition(QTextCursor.MoveOperation.End)
        if self._framed:
            self._append_framed(cursor, piece)
        else:
            # The piece's first block keeps its own format (a new block would copy the last
            # one's).
            first = piece.begin()
            cursor.insertBlock(first.blockFormat(), first.charFormat())
            cursor.insertFragment(QTextDocumentFragment(piece))
        piece.deleteLater()

    @staticmethod
    def _append_framed(cursor: QTextCursor, piece: QTextDocument) -> None:
        """Insert ``piece`` in a new borderless frame at ``cursor`` (the end of the document);
        the empty block Qt keeps after a frame takes no height."""
        frame_format = QTextFrameFormat()
        frame_format.setBorder(0)
        frame_format.setMargin(0)
        frame_format.setPadding(0)
        frame = cursor.insertFrame(frame_format)
        cursor.insertFragment(QTextDocumentFragment(piece))
        after = frame.lastCursorPosition()
        after.movePosition(QTextCursor.MoveOperation.NextBlock)
        gap = QTextBlockFormat()
        gap.setLineHeight(0, QTextBlockFormat.LineHeightTypes.FixedHeight.value)
        gap.setTopMargin(0)
        gap.setBottomMargin(0)
        after.setBlockFormat(gap)

    @Slot()
    def _on_timer_timeout(self) -> None:
        """Append one piece; schedule the next or announce the end."""
        if not self._pieces or (self._wanted is not None and not self._wanted()):
            return
        self._append_next()
        if self._pieces:
            self._timer.start()
        else:
            self.finished.emit()
