"""Large documents shown piece by piece, so neither a worker nor the GUI thread stalls.

Two costs of a big article (a 1 MB web page) would freeze the window: ``QTextDocument.setHtml``
of the whole text holds the Python GIL for its entire run on the worker (the GUI thread's
Python slots cannot run meanwhile), and Qt lays a newly shown document out on the GUI thread
in lazy steps of up to 200,000 characters each. Splitting the sanitised HTML at block
boundaries (:mod:`memex_desktop.render.pieces`) bounds both: the worker parses one piece per
call, and the GUI thread appends one piece per event-loop turn, each laid out as it is inserted.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer, Signal, Slot
from PySide6.QtGui import (
    QTextBlockFormat,
    QTextCursor,
    QTextDocument,
    QTextDocumentFragment,
    QTextFrameFormat,
)

from memex_desktop.render.pieces import split_html


def build_documents(
    html: str, make_document: Callable[[], QTextDocument], css: str
) -> list[QTextDocument]:
    """Worker: one document per piece of ``html`` (see :func:`documents_of`)."""
    return documents_of(split_html(html), make_document, css)


def documents_of(
    pieces: list[str], make_document: Callable[[], QTextDocument], css: str
) -> list[QTextDocument]:
    """Worker: one document per piece of HTML (each ``setHtml`` short, so the GIL is released
    often)."""
    documents = []
    for piece in pieces:
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
