"""Sanitised HTML cut into pieces at block boundaries, so that a big document can be built and
shown piece by piece (see :mod:`memex_desktop.ui.progressive_document`).

Each piece is well-formed on its own: the elements a cut falls inside are closed at its end
and opened again at the start of the next piece. Pure Python, so that it can run in the render
process (:mod:`memex_desktop.render.apart`) with the rest of a big item's rendering.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

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
