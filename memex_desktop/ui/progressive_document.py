"""Large documents shown piece by piece, so neither a worker nor the GUI thread stalls.

Two costs of a big article (a 1 MB web page) would freeze the window: ``QTextDocument.setHtml``
keeps the Python GIL for its entire run (on a worker, the GUI thread's Python cannot run
meanwhile, and a worker's hundreds of short runs still make each Python step of the GUI thread
wait for one), and Qt lays a newly shown document out on the GUI thread in lazy steps of up to
200,000 characters each. Splitting the sanitised HTML at block boundaries
(:mod:`memex_desktop.render.pieces`) bounds both: the GUI thread builds and appends one piece
per event-loop turn, each laid out as it is inserted.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import QObject, QTimer, Signal, Slot
from PySide6.QtGui import (
    QTextBlockFormat,
    QTextCursor,
    QTextDocument,
    QTextDocumentFragment,
    QTextFrameFormat,
)

from memex_desktop.render.pieces import split_html

PieceMaker = Callable[[str], QTextDocument]


def piece_maker(make_document: Callable[[], QTextDocument], css: str) -> PieceMaker:
    """What builds the document of one piece of HTML, with the stylesheet ``css``."""

    def make(piece: str) -> QTextDocument:
        document = make_document()
        document.setDefaultStyleSheet(css)
        document.setHtml(piece)
        return document

    return make


def build_documents(
    html: str, make_document: Callable[[], QTextDocument], css: str
) -> list[QTextDocument]:
    """One document per piece of ``html`` (each ``setHtml`` short)."""
    make = piece_maker(make_document, css)
    return [make(piece) for piece in split_html(html)]


class DocumentFeeder(QObject):
    """Appends the remaining pieces to a shown document, one per event-loop turn (or, given
    ``wanted``, only while it asks for more). A piece is a document, or HTML that
    ``make_piece`` turns into one as it goes in.

    Signals:
        finished(): every piece is in the document.
    """

    finished = Signal()

    def __init__(
        self,
        target: QTextDocument,
        pieces: Sequence[QTextDocument | str],
        parent: QObject | None = None,
        *,
        wanted: Callable[[], bool] | None = None,
        framed: bool = False,
        make_piece: PieceMaker | None = None,
    ) -> None:
        super().__init__(parent)
        # Each piece in a frame of its own: Qt lays a new block out after walking every block
        # of its frame before it, so a long run of pieces in one frame costs the square of its
        # length (half a second a piece at 2 MB of lists); frames keep each step short.
        self._framed = framed
        self._target = target
        self._pieces = list(pieces)
        self._make_piece = make_piece
        # When given, pieces go in only while it says more text is wanted (the reader is near
        # the end of what is laid out): a huge document is then laid out as it is read.
        self._wanted = wanted
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self._on_timer_timeout)
        # While no piece is wanted, the documents of the pieces ahead are built, one a turn,
        # so that appending the rest at once (for a jump or a find) costs only the inserts.
        self._built = 0  # how many pieces at the front are documents already
        self._ahead = QTimer(self)
        self._ahead.setSingleShot(True)
        self._ahead.setInterval(0)
        self._ahead.timeout.connect(self._on_ahead_timeout)

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
    def prepared(self) -> bool:
        """Whether every piece left is a document already (built ahead while waiting)."""
        return self._built >= len(self._pieces)

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
        self._ahead.stop()
        for piece in self._pieces:
            if isinstance(piece, QTextDocument):
                piece.deleteLater()
        self._pieces.clear()

    def finish_now(self) -> None:
        """Append everything left at once (before a search of the whole text, or a jump)."""
        self._timer.stop()
        self._ahead.stop()
        while self._pieces:
            self._append_next()
        self.finished.emit()

    def _append_next(self) -> None:
        """Move the next piece to the end of the shown document."""
        given = self._pieces.pop(0)
        self._built = max(0, self._built - 1)
        if isinstance(given, QTextDocument):
            piece = given
        else:
            assert self._make_piece is not None, "HTML pieces need make_piece"
            piece = self._make_piece(given)
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
        if not self._pieces:
            return
        if self._wanted is not None and not self._wanted():
            self._ahead.start()
            return
        self._append_next()
        if self._pieces:
            self._timer.start()
        else:
            self.finished.emit()

    @Slot()
    def _on_ahead_timeout(self) -> None:
        """Build the document of the next piece ahead while none is wanted."""
        if self._timer.isActive() or self._built >= len(self._pieces):
            return
        piece = self._pieces[self._built]
        if isinstance(piece, str) and self._make_piece is not None:
            self._pieces[self._built] = self._make_piece(piece)
        self._built += 1
        self._ahead.start()
