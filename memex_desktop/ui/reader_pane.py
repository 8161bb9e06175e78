"""The reader: one cached entity rendered to safe HTML, with history and a strict link policy.

Rendering (parse, markdown, sanitising, cutting a big text into pieces) runs on a worker thread,
its big steps in the render process (:mod:`memex_desktop.render.apart`); the GUI thread builds
the document of each piece of HTML as it shows it. Links never navigate by themselves
(``setOpenLinks(False)``): ``memex://entity/ID`` opens inside the app, ``http(s)`` opens in the
browser only after the person saw where it really goes (ui/link_dialog.py), everything else is
refused. A moment of the item shown (a transcript's ``[mm:ss]``) brings its transcript line to
the top, marked, and offers the video at that moment through the same dialog. Resources are
never read from disk, and remote images are fetched (by the app, off the GUI thread, through
:mod:`memex_desktop.ui.reader_images`) only after the person asked for them for this item; they
are kept to read offline, and so is that choice.

A big item is read within a text budget (the ``reader_item_text_mb`` setting): past it, the view
is cut there and says so, with an action that shows the whole item. An item of more than a
megabyte shows its first screen before the rest is rendered, and a huge document is laid out
as the person scrolls towards its end rather than all at once.
"""

from __future__ import annotations

import html
import logging
import re
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from PySide6.QtCore import (
    QCoreApplication,
    QEvent,
    QObject,
    QPoint,
    Qt,
    QTimer,
    QUrl,
    Signal,
    Slot,
)
from PySide6.QtGui import (
    QColor,
    QDesktopServices,
    QFont,
    QGuiApplication,
    QImage,
    QKeyEvent,
    QKeySequence,
    QShortcut,
    QStatusTipEvent,
    QTextBlockFormat,
    QTextCursor,
    QTextDocument,
)
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QTextBrowser,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from memex_desktop import paths
from memex_desktop.api.content import (
    referenced_ids,
    rich_text,
    selector_passage,
    text_of,
    title_field,
)
from memex_desktop.api.plain_text import own_words, plain_excerpt, plain_text
from memex_desktop.api.urls import moment_url
from memex_desktop.errors import UserMessage
from memex_desktop.render import apart
from memex_desktop.render.image_cache import ImageSource
from memex_desktop.render.pieces import split_html
from memex_desktop.settings import DEFAULT_IMAGE_CACHE_MB, DEFAULT_READER_ITEM_TEXT_MB
from memex_desktop.store import Backlink, CacheReader, ChangeSet, EntityRow
from memex_desktop.store.bounded import BoundedEntity
from memex_desktop.store.highlights import Highlight
from memex_desktop.sync.highlights import Passage, TimedLine, passage_in
from memex_desktop.ui import theme
from memex_desktop.ui.find_bar import ArticleFinder, FindBar
from memex_desktop.ui.highlight_painter import (
    HighlightClicks,
    HighlightPainter,
    finish_layout,
    highlight_colour,
    own_text,
    transcript_lines,
)
from memex_desktop.ui.image_fit import fit_images
from memex_desktop.ui.link_dialog import confirm_link
from memex_desktop.ui.links import (
    LinkTarget,
    anchor_seconds,
    classify_link,
    entity_link,
    link_confirmation,
    link_hint,
    transcript_anchor,
)
from memex_desktop.ui.messages import message_line
from memex_desktop.ui.palette import Palette, fill_colours
from memex_desktop.ui.progressive_document import DocumentFeeder, PieceMaker, piece_maker
from memex_desktop.ui.reader_images import ImagesNotice, ItemImages, load_item_images
from memex_desktop.ui.readers import thread_reader
from memex_desktop.ui.status_bar import ElidedLabel
from memex_desktop.ui.tasks import Task, TaskRunner

log = logging.getLogger(__name__)

MAX_BACKLINKS_SHOWN = 200
# Items stored bigger than this show a first screen of PREVIEW_CHARS first, the rest after.
PREVIEW_ABOVE_BYTES = 1_000_000
PREVIEW_CHARS = 64_000
REFERENCE_CHARS = 64_000
# A document of this many pieces (about 2 MB of prose, less of lists and tables) is appended as
# the reader scrolls towards its end, LOOKAHEAD_SCREENS ahead, rather than all at once.
LAZY_ABOVE_PIECES = 128
# A document of this many pieces (half a megabyte of prose, less of lists) takes each in a
# frame of its own, so that appending one stays short however long the document grows.
FRAMED_ABOVE_PIECES = 32
# The reading position is written this long after the reader stops scrolling (and when the
# item changes or the window closes), not at every step of a scroll.
POSITION_SAVE_DELAY_MS = 1500
CANNOT_DISPLAY = "This item could not be displayed."
# Pictures are sized to a new width of the reader this long after it stopped changing.
FIT_PICTURES_DELAY_MS = 50
# The size of the reader's text at 100 % (reader.css sizes headings and code to go with it).
TEXT_POINTS = 11.0
TEXT_SIZES = (50, 67, 80, 90, 100, 110, 125, 150, 175, 200, 250, 300)


def clamp_text_size(percent: int) -> int:
    """The nearest text size the reader offers (50-300 %)."""
    return min(TEXT_SIZES, key=lambda size: abs(size - percent))


LOOKAHEAD_SCREENS = 3
MEGABYTE = 1_000_000
BACKLINK_SNIPPET_CHARS = 140
_LINKABLE_ID = re.compile(r"^[A-Za-z0-9_.:\-]{1,200}$")
_BACKLINK_KINDS = {"annotates": "note", "reply": "reply", "references": "mentions this"}
FALLBACK_CSS = """
body { font-size: 11pt; line-height: 150%; color: $text; }
h1 { font-size: 17pt; margin-bottom: 4px; }
h2 { font-size: 14pt; } h3 { font-size: 12pt; }
blockquote { margin-left: 12px; color: $muted_text; }
pre, code { font-family: monospace; background: $code_background; }
a { color: $link; text-decoration: none; }
"""


def _megabytes(size: int) -> str:
    """A size for people: ``50 MB``, ``8 MB``, ``1.5 MB``, ``0.3 MB``."""
    megabytes = size / MEGABYTE
    return f"{round(megabytes)} MB" if megabytes >= 10 else f"{megabytes:.2g} MB"


def reader_css(palette: Palette | None = None) -> str:
    """The reader's default stylesheet in ``palette``'s colours (default: the theme on screen):
    resources/reader.css, else a small built-in one."""
    try:
        template = paths.resource_path("reader.css").read_text(encoding="utf-8")
    except (FileNotFoundError, OSError):
        template = FALLBACK_CSS
    return fill_colours(template, palette or theme.current())


_POINT_SIZE = re.compile(r"(\d+(?:\.\d+)?)pt\b")


def scaled_css(css: str, percent: int) -> str:
    """``css`` with every point size scaled to ``percent`` (the reader's text size)."""
    if percent == 100:
        return css
    return _POINT_SIZE.sub(lambda found: f"{float(found.group(1)) * percent / 100:.1f}pt", css)


def clock_text(seconds: float) -> str:
    """``[mm:ss]`` (``[h:mm:ss]`` past an hour) for a moment of a video."""
    total = max(0, int(seconds))
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    return f"[{hours}:{minutes:02d}:{secs:02d}]" if hours else f"[{minutes:02d}:{secs:02d}]"


# A source's JSON is read this far for its line: a few lines of a note, a highlight's quote.
BACKLINK_TEXT_CHARS = 4_000
# A source without a title of its own (a note, a tweet) is called by this much of its words.
BACKLINK_WORDS_CHARS = 2 * BACKLINK_SNIPPET_CHARS
# Sources told by their own JSON whatever their title (a highlight's title is its quote).
_TOLD_BY_JSON = ("selector", "annotation")


@dataclass(frozen=True)
class BacklinkWords:
    """How a "Referenced by" line tells a source from its own JSON: what it is called, then
    its quote (``kind``: whether the line names how it points at the item)."""

    name: str
    words: str = ""
    kind: bool = True


def backlink_words(
    data: dict[str, Any], titles: Mapping[str, str] | None = None
) -> BacklinkWords | None:
    """How a "Referenced by" line tells this source, from its JSON: a highlight by its
    quote, an item without a title of its own (a note, a tweet) by its own words, in one
    piece (a note's without the passage it begins by quoting); None for an item with a
    title (told by its title and summary).

    Their stored summaries will not do: a highlight's holds the words around its quote (the
    context that finds the passage again), an untitled item's runs on into its other fields
    (the id of a quoted tweet), and a note's title is the passage it quotes.
    """
    # The renderer's module (with the sanitiser) is imported by the first render, after the
    # window's first frame.
    from memex_desktop.render.document import shorten

    kind = data.get("type")
    if kind == "selector":
        quote = " ".join(selector_passage(data).quote.split())
        said = f"“{shorten(quote, BACKLINK_SNIPPET_CHARS - 2)}”" if quote else ""
        return BacklinkWords("Highlight", said, kind=False)
    if title_field(data) is not None:
        return None
    text = text_of(data.get("text")) or rich_text(data.get("content"))
    words = plain_text(own_words(text) if kind == "annotation" else text, titles)
    if not words:
        return None
    # Cut between words; a link or a reference cut in two loses its opening bracket.
    return BacklinkWords(plain_excerpt(shorten(words, BACKLINK_WORDS_CHARS), titles))


def _told_by_json(row: EntityRow) -> bool:
    """Whether a source's line is made from its JSON: a highlight, a note, an item called by
    the start of its text (its summary says the same words, then whatever follows)."""
    # The renderer's module (with the sanitiser) is imported by the first render, after the
    # window's first frame.
    from memex_desktop.render.document import after_title

    if row.type in _TOLD_BY_JSON:
        return True
    return bool(row.title) and after_title(row.title, row.snippet_source or "") is not None


def backlink_sources(reader: CacheReader, links: Sequence[Backlink]) -> dict[str, BacklinkWords]:
    """Worker: how the "Referenced by" lines tell the highlights, notes and untitled items
    among the sources shown (each read within BACKLINK_TEXT_CHARS of text), by id."""
    rows: dict[str, EntityRow] = {}
    for link in links:
        rows.setdefault(link.source.id, link.source)
    found: dict[str, BacklinkWords] = {}
    for source_id, row in list(rows.items())[:MAX_BACKLINKS_SHOWN]:
        if not _told_by_json(row):
            continue
        bounded = reader.entity_within(source_id, BACKLINK_TEXT_CHARS)
        if bounded is None:
            continue
        named = reader.get_many(referenced_ids(bounded.data)[:MAX_BACKLINKS_SHOWN])
        said = backlink_words(bounded.data, {key: ref.title for key, ref in named.items()})
        if said is not None:
            found[source_id] = said
    return found


def _backlink_item(
    link: Backlink, target_id: str | None = None, said: BacklinkWords | None = None
) -> str:
    """One "Referenced by" line: the source as a memex:// link, its kind, moment and snippet
    (``said``: how a highlight or a note is told by its own words, see backlink_words).

    The moment (a video timestamp the note points at) links to that line of the transcript
    of ``target_id``, the item being read.
    """
    # The renderer's module (with the sanitiser) is imported by the first render, after the
    # window's first frame.
    from memex_desktop.render.document import excerpt_under_title

    row = link.source
    if said is not None:
        label, snippet = said.name, said.words
    else:
        label = (row.title or row.snippet_source or row.id).strip()[:BACKLINK_SNIPPET_CHARS]
        # A note without a title is called by the start of its text: its snippet would
        # repeat it.
        snippet = excerpt_under_title(label, row.snippet_source or "", BACKLINK_SNIPPET_CHARS) or ""
    name = html.escape(label or row.id)
    if _LINKABLE_ID.match(row.id):
        name = f'<a href="memex://entity/{html.escape(row.id, quote=True)}">{name}</a>'
    parts = [name]
    if said is None or said.kind:
        parts.append(html.escape(_BACKLINK_KINDS.get(link.kind, link.kind)))
    if link.timestamp_s is not None:
        moment = clock_text(link.timestamp_s)
        if target_id is not None and _LINKABLE_ID.match(target_id):
            href = html.escape(entity_link(target_id, seconds=link.timestamp_s), quote=True)
            moment = f'<a class="backlink-time" href="{href}">{moment}</a>'
        else:
            moment = f'<span class="backlink-time">{moment}</span>'
        parts.append(moment)
    if snippet:
        parts.append(f'<span class="backlink-snippet">{html.escape(snippet)}</span>')
    return "<li>" + " · ".join(parts) + "</li>"


def backlinks_html(
    links: Sequence[Backlink],
    target_id: str | None = None,
    sources: dict[str, BacklinkWords] | None = None,
) -> str:
    """The reader's "Referenced by" section of ``target_id`` (every text escaped; links only
    memex://entity/ID, moments memex://entity/TARGET?t=SECONDS); ``sources`` tells the
    highlights and notes by their own words (:func:`backlink_sources`)."""
    if not links:
        return ""
    # A note both on and citing an item is one line, with the moment when any edge has one.
    merged: dict[str, Backlink] = {}
    for link in links:
        seen = merged.get(link.source.id)
        if seen is None:
            merged[link.source.id] = link
        elif seen.timestamp_s is None and link.timestamp_s is not None:
            merged[link.source.id] = Backlink(seen.source, seen.kind, link.timestamp_s)
    links = list(merged.values())
    shown = links[:MAX_BACKLINKS_SHOWN]
    more = len(links) - len(shown)
    told = sources or {}
    items = "".join(_backlink_item(link, target_id, told.get(link.source.id)) for link in shown)
    if more > 0:
        items += f"<li>… and {more} more</li>"
    return f'<div class="backlinks"><hr/><h2>Referenced by</h2><ul>{items}</ul></div>'


# The items named in a document's links whose titles are read (for the hint over a link).
MAX_LINKED_TITLES = 1000
_ENTITY_HREF = re.compile(r'href="memex://entity/([^"?#]+)')


def linked_titles(reader: CacheReader, html_text: str) -> dict[str, str]:
    """Worker: the titles of the items the ``memex://entity/`` links of ``html_text`` open,
    by id (the first MAX_LINKED_TITLES of them; items not in the cache are left out)."""
    ids: dict[str, None] = {}
    for found in _ENTITY_HREF.finditer(html_text):
        ids[unquote(html.unescape(found.group(1)))] = None
        if len(ids) >= MAX_LINKED_TITLES:
            break
    rows = reader.get_many(ids) if ids else {}
    return {entity_id: row.title for entity_id, row in rows.items() if row.title}


def backlink_ids(cache_path: Path, entity_id: str) -> tuple[str, tuple[str, ...]]:
    """Worker: what points at an entity now (to tell whether its "Referenced by" changed)."""
    return entity_id, _signature(thread_reader(cache_path).backlinks(entity_id))


def _signature(links: Sequence[Backlink]) -> tuple[str, ...]:
    """A comparable summary of backlinks (source, kind, moment)."""
    return tuple(f"{link.source.id}|{link.kind}|{link.timestamp_s}" for link in links)


class SafeTextDocument(QTextDocument):
    """A document that loads no resource except images the app fetched on request.

    Qt's default ``loadResource`` reads local files (and ``data:`` URLs); saved content must
    never make the app read the disk, so every request not pre-fetched is refused and noted.
    """

    def __init__(
        self, images: dict[str, QImage] | None = None, text_points: float | None = None
    ) -> None:
        super().__init__()
        self._images = images or {}
        self.refused: list[str] = []
        if text_points is not None:
            # Qt's HTML import takes no font size from a default stylesheet's body rule:
            # the text's own size is the document's default font.
            font = QFont(self.defaultFont())
            font.setPointSizeF(text_points)
            self.setDefaultFont(font)

    def loadResource(self, kind: int, url: QUrl | str) -> Any:
        """The pre-fetched image for ``url``, else nothing (never the file system)."""
        name = url.toString() if isinstance(url, QUrl) else str(url)
        image = self._images.get(name)
        if image is not None and kind == QTextDocument.ResourceType.ImageResource.value:
            return image
        self.refused.append(name)
        return None


# The keys that go from link to link in the reader, and whether forward. Qt reports
# Ctrl+Shift+Tab as Backtab with Shift held.
LINK_KEYS = {
    (Qt.Key.Key_Tab, Qt.KeyboardModifier.ControlModifier): True,
    (
        Qt.Key.Key_Backtab,
        Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier,
    ): False,
}


class ReaderBrowser(QTextBrowser):
    """A QTextBrowser that never navigates or loads anything by itself.

    Signals:
        end_requested(): the person asked for the end of the item (Ctrl+End), which is then
            shown; a large item's pieces still waiting go in first.
    """

    end_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        self.refused_resources: list[str] = []

    def focusNextPrevChild(self, forward: bool) -> bool:
        """Tab and Shift+Tab leave the reader for the next pane: an item's links can be
        hundreds (a long "Referenced by"), and Tab would visit each; Ctrl+Tab and
        Ctrl+Shift+Tab go from link to link (:meth:`keyPressEvent`)."""
        return QWidget.focusNextPrevChild(self, forward)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        """Ctrl+Home and Ctrl+End go to the top and the end of the item, as Home and End do
        (Qt would move only the cursor, which read-only text does not show); Ctrl+Tab and
        Ctrl+Shift+Tab go to the next and previous link (Enter opens it), after the last
        link on to the next pane."""
        bar = self.verticalScrollBar()
        link_step = LINK_KEYS.get((Qt.Key(event.key()), event.modifiers()))
        if link_step is not None:
            super().focusNextPrevChild(link_step)
            event.accept()
        elif event.matches(QKeySequence.StandardKey.MoveToStartOfDocument):
            bar.setValue(bar.minimum())
            event.accept()
        elif event.matches(QKeySequence.StandardKey.MoveToEndOfDocument):
            self.end_requested.emit()
            bar.setValue(bar.maximum())
            event.accept()
        else:
            super().keyPressEvent(event)

    def loadResource(self, kind: int, url: QUrl | str) -> Any:
        """Refuse every resource request (documents bring their own, already fetched)."""
        self.refused_resources.append(url.toString() if isinstance(url, QUrl) else str(url))
        return None

    def setSource(self, url: QUrl | str, kind: Any = None) -> None:
        """Never load a source: navigation is the reader pane's decision, not Qt's."""
        shown = url.toString() if isinstance(url, QUrl) else str(url)
        log.debug("reader refused to load a source by itself: %s", shown[:200])


@dataclass
class RenderResult:
    """A finished render: the entity, its HTML in pieces, its title; the GUI thread builds the
    document of each piece (``make_piece``) as it shows it."""

    entity_id: str
    # The document on screen, built from the first piece by the GUI thread (None until then).
    document: QTextDocument | None
    title: str = ""
    url: str | None = None
    remote_resources: list[str] = field(default_factory=list)
    text_length: int = 0
    backlinks: tuple[str, ...] = ()
    # The HTML in pieces (none: the item is not in the library); a large document's pieces
    # after the first are appended after the first is on screen.
    pieces: list[str] = field(default_factory=list)
    make_piece: PieceMaker | None = None
    # The size of the stored item, and whether what is shown stops short of its text.
    stored_bytes: int = 0
    truncated: bool = False
    # A first screen of a large item, shown while the rest is rendered.
    preview: bool = False
    # Where the person was reading this item last (a character of its text), if anywhere.
    position: int | None = None
    # A render given up for a newer one (of the same item, perhaps): never shown.
    cancelled: bool = False
    # Whether the item's pictures were asked for, and why any of them did not load.
    images_allowed: bool = False
    image_notice: UserMessage | None = None
    # The pictures the document shows, by address (sized to fit the reader as it is shown).
    images: dict[str, QImage] = field(default_factory=dict)
    # The titles of the items its memex:// links open, by id (said when a link is pointed at).
    link_titles: dict[str, str] = field(default_factory=dict)


def _documents(
    result: RenderResult,
    html_text: str,
    images: dict[str, QImage],
    css: str,
    text_points: float,
) -> RenderResult:
    """``result`` with ``html_text`` in pieces, and how the GUI thread builds their documents.

    No document is built here: ``QTextDocument.setHtml`` keeps the interpreter lock for all of
    its run, and a worker running hundreds of them makes every Python step of the GUI thread
    wait for one (60-70 ms a heartbeat, a big page's pieces long). The GUI thread builds each
    piece's document as it appends it, a few milliseconds a turn.
    """
    # Cutting a big text into pieces is half a second or more of Python over a 2.5 MB page,
    # time this process's interpreter lock is not the GUI thread's: the render process cuts.
    result.pieces = apart.run_big_apart(len(html_text), split_html, html_text)
    result.images = images
    result.make_piece = piece_maker(lambda: SafeTextDocument(images, text_points), css)
    return result


def render_document(
    cache_path: Path,
    entity_id: str,
    allow_remote: bool,
    transcript_language: str | None,
    css: str,
    text_budget: int | None,
    text_points: float = TEXT_POINTS,
    images: ImageSource | None = None,
    whole_page: bool = False,
    *,
    cancel: threading.Event,
    progress: Callable[[RenderResult], None],
) -> RenderResult:
    """Worker: load the entity (within ``text_budget`` characters of text; None: all of it),
    render it (a saved page whole when ``whole_page``, else as its article), build the
    document and hand it to the GUI thread.

    A large item first goes out as a preview (its first PREVIEW_CHARS of text, through
    ``progress``) so its first screen shows at once; the full render follows.
    """
    # The renderer is imported by the first render, after the window's first frame.
    from memex_desktop.render import render_entity
    from memex_desktop.sync.export import cache_render_context

    reader = thread_reader(cache_path)
    budget = sys.maxsize if text_budget is None else text_budget
    source = images or ImageSource(None, 0)
    allow_remote = allow_remote or source.item_allowed(entity_id)
    # A first read of a screenful or two: all of a small item, the start of a large one.
    first = reader.entity_within(entity_id, min(budget, PREVIEW_CHARS))
    if first is None:
        return RenderResult(entity_id, None)

    def lookup(reference_id: str) -> Any:
        # A card shows a title and a few lines: a huge referenced item is read cut short.
        found = reader.entity_within(reference_id, REFERENCE_CHARS)
        return found.entity() if found is not None else None

    context = cache_render_context(
        reader, lookup=lookup, allow_remote=allow_remote, transcript_language=transcript_language
    )
    # The big steps of a big item run in a process of their own: here they would keep the
    # interpreter lock from the GUI thread for a tenth of a second at a time.
    context = replace(context, whole_page=whole_page, big_steps_apart=True)
    links = reader.backlinks(entity_id)
    backlinks = backlinks_html(links, entity_id, backlink_sources(reader, links))
    position = reader.reading_position(entity_id)

    def result_for(entity: Any, bounded: BoundedEntity, preview: bool = False) -> RenderResult:
        rendered = render_entity(entity, context)
        result = RenderResult(
            entity_id,
            None,
            rendered.title,
            getattr(entity, "url", None),
            list(rendered.remote_resources),
            len(rendered.text),
            _signature(links),
            stored_bytes=bounded.stored_bytes,
            # A first screen cannot know yet; an item stored bigger than the budget is cut.
            truncated=bounded.stored_bytes > budget if preview else bounded.truncated,
            preview=preview,
            position=position,
        )
        result.images_allowed = allow_remote
        result.link_titles = linked_titles(reader, rendered.html + backlinks)

        def with_pictures(shown: RenderResult, pictures: ItemImages) -> RenderResult:
            shown.image_notice = pictures.notice
            html_text = rendered.html + backlinks
            return _documents(shown, html_text, pictures.images, css, text_points)

        def show_kept(kept: ItemImages) -> None:
            # The text at once, with the pictures kept from before; the rest follow.
            progress(with_pictures(replace(result), kept))

        fetch = allow_remote and not preview and rendered.remote_resources
        pictures = ItemImages()
        if fetch:
            pictures = load_item_images(rendered.remote_resources, cancel, source, show_kept)
        return with_pictures(result, pictures)

    if not first.truncated or budget <= PREVIEW_CHARS:
        return result_for(first.entity(), first)
    if first.stored_bytes > PREVIEW_ABOVE_BYTES:
        progress(result_for(first.entity(), first, preview=True))
    apart.start()  # its start-up overlaps with reading the whole item, not the first screen
    if cancel.is_set():
        return RenderResult(entity_id, None, cancelled=True)
    whole = reader.entity_within(entity_id, budget)
    if whole is None:  # deleted meanwhile
        return RenderResult(entity_id, None)
    return result_for(whole.entity(), whole)


class ReaderPane(QWidget):
    """History, a small toolbar and the browser.

    Signals:
        entity_shown(str): an entity is now displayed (after its render finished).
        link_refused(str): a link was refused; the text says why.
        message(str): something to show in the status bar.
        text_size_changed(int): the person made the text bigger or smaller (percent).
        highlight_clicked(str): a highlight painted in the text was clicked (its id).
        went_to(str): the reader opened this entity by itself: Back, Forward or a link
            followed.
    """

    entity_shown = Signal(str)
    went_to = Signal(str)
    link_refused = Signal(str)
    message = Signal(str)
    text_size_changed = Signal(int)
    highlight_clicked = Signal(str)

    def __init__(
        self,
        cache_path: Path,
        runner: TaskRunner,
        *,
        transcript_language: str | None = None,
        allow_all_remote_images: bool = False,
        item_text_mb: float = DEFAULT_READER_ITEM_TEXT_MB,
        text_size_percent: int = 100,
        remember_position: Callable[[str, int], object] | None = None,
        images: ImageSource | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("readerpane")
        self._images = images or ImageSource.limited(
            paths.image_cache_path(cache_path.parent), DEFAULT_IMAGE_CACHE_MB
        )
        self._remember_position = remember_position
        # Where each item was being read, this session (the cache keeps it across restarts).
        self._positions: dict[str, int] = {}
        self.text_size_percent = clamp_text_size(text_size_percent)
        self._position_timer = QTimer(self)
        self._position_timer.setSingleShot(True)
        self._position_timer.setInterval(POSITION_SAVE_DELAY_MS)
        self._position_timer.timeout.connect(self.remember_position)
        self._text_budget = max(1, int(item_text_mb * MEGABYTE))
        self._whole_allowed: set[str] = set()
        # Saved pages shown whole rather than as the article found in them.
        self._whole_pages: set[str] = set()
        self._cache_path = cache_path
        self._runner = runner
        self._transcript_language = transcript_language
        self._allow_all_remote = allow_all_remote_images
        self._palette = theme.current()
        self._css = scaled_css(reader_css(self._palette), self.text_size_percent)
        controller = theme.installed()
        if controller is not None:
            controller.changed.connect(self.set_palette)
        self._history: list[tuple[str, str | None]] = []
        self._position = -1
        self._remote_allowed: set[str] = set()
        # The item whose pictures the person just asked for: the status bar says how that
        # ended once its render is in (the line above the text says it for as long as it holds).
        self._pictures_asked_for: str | None = None
        self._task: Task[RenderResult] | None = None
        self._pending: tuple[str, str | None] | None = None
        self._current: RenderResult | None = None
        self._feeder: DocumentFeeder | None = None
        self._feed_then: tuple[str | None, int | None] = (None, None)
        self._preview_shown = False
        # The moment of the item shown whose transcript line is marked (the item, seconds),
        # kept to mark it again in a new document of the item (a new text size, a sync).
        self._moment: tuple[str, int] | None = None
        # The line marked: its document, where it starts and how it looked before.
        self._line_mark: tuple[QTextDocument, int, QTextBlockFormat] | None = None
        self._build()

    def _build(self) -> None:
        """Toolbar (back, forward, title, remote images, open in browser) above the browser."""
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        bar = QWidget(self)
        bar.setObjectName("readertoolbar")
        row = QHBoxLayout(bar)
        row.setContentsMargins(8, 4, 8, 4)
        self.back_button = self._tool_button("‹", "Back (Alt+Left)", "Back")
        self.forward_button = self._tool_button("›", "Forward (Alt+Right)", "Forward")
        # The title narrows with the pane, ending in "…"; its whole text is in the tooltip.
        self.title_label = ElidedLabel("", bar)
        self.title_label.setObjectName("readertitle")
        self.title_label.setTextFormat(Qt.TextFormat.PlainText)
        self.images_button = self._tool_button(
            "Load remote images", "Fetch this item's pictures from the web", "Load remote images"
        )
        self.browser_button = self._tool_button(
            "Open original", "Open the original web page (Ctrl+O)", "Open original in browser"
        )
        row.addWidget(self.back_button)
        row.addWidget(self.forward_button)
        row.addWidget(self.title_label, 1)
        row.addWidget(self.images_button)
        row.addWidget(self.browser_button)
        layout.addWidget(bar)
        layout.addWidget(self._build_truncation_bar())
        self.images_notice = ImagesNotice(self)
        self.images_notice.retry_requested.connect(self.load_remote_images)
        layout.addWidget(self.images_notice)
        self.find_bar = FindBar(self)
        layout.addWidget(self.find_bar)
        self.browser = ReaderBrowser(self)
        self.browser.setObjectName("readerbrowser")
        self.browser.setAccessibleName("Reader")
        self.browser.anchorClicked.connect(self._on_browser_anchor_clicked)
        self.browser.end_requested.connect(self._on_browser_end_requested)
        self.browser.highlighted.connect(self._on_browser_highlighted)
        bar = self.browser.verticalScrollBar()
        bar.valueChanged.connect(self._on_scroll_changed)
        bar.rangeChanged.connect(self._on_scroll_changed)
        # Pictures are sized to the reader's width again once it stops changing for a moment
        # (scaling a big picture smoothly at every step of a drag would lag behind it).
        self._fit_timer = QTimer(self)
        self._fit_timer.setSingleShot(True)
        self._fit_timer.setInterval(FIT_PICTURES_DELAY_MS)
        self._fit_timer.timeout.connect(self._fit_pictures)
        self.browser.viewport().installEventFilter(self)
        layout.addWidget(self.browser, 1)
        self.back_button.clicked.connect(self.go_back)
        self.forward_button.clicked.connect(self.go_forward)
        self.images_button.clicked.connect(self.load_remote_images)
        self.browser_button.clicked.connect(self.open_original)
        self._finder = ArticleFinder(self.browser)
        self._build_highlights()
        self.find_bar.text_changed.connect(self._on_find_text_changed)
        self.find_bar.step.connect(self.find_step)
        self.find_bar.closed.connect(self._on_find_closed)
        for keys, direction in (("F3", 1), ("Shift+F3", -1)):
            shortcut = QShortcut(QKeySequence(keys), self)
            shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            shortcut.activated.connect(lambda step=direction: self.find_step(step))
        self._show_placeholder("Pick an item on the left to read it here.")

    def _build_truncation_bar(self) -> QWidget:
        """The notice above a cut-short item, with the action that shows all of it."""
        self.truncation_bar = QWidget(self)
        self.truncation_bar.setObjectName("readertruncation")
        row = QHBoxLayout(self.truncation_bar)
        row.setContentsMargins(8, 4, 8, 4)
        self.truncation_label = QLabel("", self.truncation_bar)
        self.truncation_label.setObjectName("readertruncationtext")
        self.truncation_label.setTextFormat(Qt.TextFormat.PlainText)
        self.truncation_label.setWordWrap(True)
        self.whole_button = self._tool_button(
            "Show the whole item",
            "Render all of this item's text (slow for very large items)",
            "Show the whole item",
        )
        self.whole_button.clicked.connect(self.show_whole_item)
        row.addWidget(self.truncation_label, 1)
        row.addWidget(self.whole_button)
        self.truncation_bar.setVisible(False)
        return self.truncation_bar

    def _tool_button(self, text: str, tip: str, name: str) -> QToolButton:
        """A flat toolbar button with a tooltip and an accessible name."""
        button = QToolButton(self)
        button.setText(text)
        button.setToolTip(tip)
        button.setAccessibleName(name)
        button.setAutoRaise(True)
        button.setEnabled(False)
        return button

    # -- public ----------------------------------------------------------------------------

    @property
    def current_entity_id(self) -> str | None:
        """The entity on screen (or being rendered)."""
        if self._pending is not None:
            return self._pending[0]
        return self._history[self._position][0] if self._position >= 0 else None

    @property
    def current_document(self) -> QTextDocument | None:
        """The document on screen (tests inspect it)."""
        return self._current.document if self._current else None

    @Slot(str)
    def show_entity(self, entity_id: str, anchor: str | None = None) -> None:
        """Open an entity (recorded in history unless it is already the current one)."""
        same = self._position >= 0 and self._history[self._position][0] == entity_id
        if same:
            # Opening what is already shown (or being rendered) adds no history entry.
            if anchor and self._pending is None:
                self.scroll_to(anchor)
            elif anchor and self._pending is not None:
                self._pending = (entity_id, anchor)
            return
        del self._history[self._position + 1 :]
        self._history.append((entity_id, anchor))
        self._position = len(self._history) - 1
        self._render(entity_id, anchor)

    @Slot()
    def go_back(self) -> None:
        """Show the previous entity of the history."""
        if self._position > 0:
            self._position -= 1
            self._render(*self._history[self._position])
            self.went_to.emit(self._history[self._position][0])

    @Slot()
    def go_forward(self) -> None:
        """Show the next entity of the history."""
        if self._position < len(self._history) - 1:
            self._position += 1
            self._render(*self._history[self._position])
            self.went_to.emit(self._history[self._position][0])

    def can_go_back(self) -> bool:
        """Whether there is an earlier entity."""
        return self._position > 0

    def can_go_forward(self) -> bool:
        """Whether there is a later entity."""
        return self._position < len(self._history) - 1

    @Slot()
    def load_remote_images(self) -> None:
        """Allow remote images for the current item and render it again."""
        entity_id = self.current_entity_id
        if entity_id is None:
            return
        self._remote_allowed.add(entity_id)
        self._runner.run(self._images.allow_item, entity_id)  # remembered across restarts
        self._pictures_asked_for = entity_id
        self.message.emit("Loading this item's pictures from the web…")
        self._render(entity_id, None)

    @Slot()
    def show_whole_item(self) -> None:
        """Render all of the current item's text, past the size budget."""
        entity_id = self.current_entity_id
        if entity_id is None:
            return
        self._whole_allowed.add(entity_id)
        self.message.emit("Showing the whole item; a very large one takes a while…")
        self._render(entity_id, None)

    @Slot()
    def show_whole_page(self) -> None:
        """Show the current saved page whole (navigation and all), not as an article."""
        entity_id = self.current_entity_id
        if entity_id is None:
            return
        self._whole_pages.add(entity_id)
        self._render(entity_id, None)

    @property
    def truncated(self) -> bool:
        """Whether the item on screen is shown cut short of its text."""
        return self._current is not None and self._current.truncated

    @Slot()
    def open_original(self) -> None:
        """Open the current item's web address, after showing it."""
        if self._current and self._current.url:
            self.open_external(self._current.url)

    def copy_link(self) -> None:
        """Put the memex:// link of the current item on the clipboard."""
        entity_id = self.current_entity_id
        if entity_id is not None:
            QGuiApplication.clipboard().setText(entity_link(entity_id))
            self.message.emit("Memex link copied.")

    @Slot(object)
    def on_store_changed(self, changes: ChangeSet) -> None:
        """Render the current item again when the store changed it or what points at it."""
        entity_id = self.current_entity_id
        if entity_id and changes.touches({entity_id}):
            self._render(entity_id, None)
        elif entity_id and changes.edges_changed and self._pending is None:
            # Cheap check first: re-render only when its "Referenced by" section changed.
            self._runner.run(backlink_ids, self._cache_path, entity_id).on_success(
                self._on_backlinks_read
            )

    @Slot(object)
    def _on_backlinks_read(self, result: tuple[str, tuple[str, ...]]) -> None:
        """Re-render the item on screen when its backlinks differ from those shown."""
        entity_id, signature = result
        current = self._current
        if (
            self._pending is None
            and current is not None
            and current.entity_id == entity_id == self.current_entity_id
            and current.backlinks != signature
        ):
            self._render(entity_id, None)

    def confirm_external(self, url: str) -> bool:
        """Ask before leaving the app, showing where ``url`` really goes (tests replace this)."""
        target = classify_link(url)
        if target.address is None:
            return False
        return confirm_link(link_confirmation(target.address), self)

    def scroll_to(self, anchor: str) -> None:
        """Scroll to a named anchor, or for ``t-SECONDS`` to the transcript line at that time,
        which is marked (the line marked before loses its mark)."""
        self._whole_text_appended()  # the anchor may be in a piece not appended yet
        seconds = anchor_seconds(anchor)
        if seconds is None:
            self.browser.scrollToAnchor(anchor)
            return
        line = self._transcript_line(seconds)
        self._moment = (self._current.entity_id, seconds) if self._current else None
        self._mark_line(line)
        if line is None:
            self.browser.scrollToAnchor(anchor)
            return
        cursor = QTextCursor(self.browser.document())
        cursor.setPosition(line.start)
        self.browser.setTextCursor(cursor)
        self.browser.ensureCursorVisible()
        bar = self.browser.verticalScrollBar()
        top = int(self.browser.cursorRect(cursor).top())
        bar.setValue(bar.value() + top - 24)

    # -- reading position and text size ----------------------------------------------------

    def top_position(self) -> int | None:
        """The character at the top of what the reader shows, or None with nothing shown."""
        if self._current is None or self._current.document is None:
            return None
        return self.browser.cursorForPosition(QPoint(0, 0)).position()

    @Slot()
    def remember_position(self) -> None:
        """Keep where the current item is being read (this session and in the cache)."""
        self._position_timer.stop()
        position = self.top_position()
        if position is None or self._current is None:
            return
        # The item on screen: the history may already name the one asked for next.
        entity_id = self._current.entity_id
        known = self._positions.get(entity_id, self._current.position)
        if known == position or (known is None and position == 0):
            return
        self._positions[entity_id] = position
        if self._remember_position is not None:
            self._remember_position(entity_id, position)

    def _restore_position(self, position: int) -> None:
        """Scroll so that character ``position`` is at the top (the rest of a large item is
        appended first when the position lies in it)."""
        document = self.browser.document()
        if position >= document.characterCount() - 1:
            self._whole_text_appended()
        cursor = QTextCursor(document)
        cursor.setPosition(max(0, min(position, document.characterCount() - 1)))
        bar = self.browser.verticalScrollBar()
        bar.setValue(bar.value() + int(self.browser.cursorRect(cursor).top()))

    def set_text_size(self, percent: int) -> None:
        """Show the text at ``percent`` of its size; the current item keeps its place."""
        percent = clamp_text_size(percent)
        if percent == self.text_size_percent:
            return
        self.text_size_percent = percent
        self.text_size_changed.emit(percent)
        self.message.emit(f"Text size {percent} %")
        self._restyle()

    @Slot(object)
    def set_palette(self, palette: Palette) -> None:
        """Show the text in ``palette``'s colours (light or dark); the item keeps its place."""
        if palette != self._palette:
            self._palette = palette
            self._restyle()

    def _restyle(self) -> None:
        """The stylesheet for the current text size and palette; the item shown again in it."""
        self._css = scaled_css(reader_css(self._palette), self.text_size_percent)
        entity_id = self.current_entity_id
        if entity_id is not None:
            self.remember_position()
            self._render(entity_id, None)

    @Slot()
    def bigger_text(self) -> None:
        """Ctrl+=: the next text size up."""
        larger = [size for size in TEXT_SIZES if size > self.text_size_percent]
        if larger:
            self.set_text_size(larger[0])

    @Slot()
    def smaller_text(self) -> None:
        """Ctrl+-: the next text size down."""
        smaller = [size for size in TEXT_SIZES if size < self.text_size_percent]
        if smaller:
            self.set_text_size(smaller[-1])

    @Slot()
    def default_text_size(self) -> None:
        """Ctrl+0: the text at its own size."""
        self.set_text_size(100)

    def selected_text(self) -> str:
        """The passage selected in the reader, as plain text ("" when nothing is selected)."""
        text = self.browser.textCursor().selectedText()
        return text.replace("\u2029", "\n").replace("\u2028", "\n").replace("\xa0", " ")

    # -- highlights ------------------------------------------------------------------------

    def _build_highlights(self) -> None:
        """The painter of the item's highlights and the clicks on them."""
        self.highlight_painter = HighlightPainter(self.browser, highlight_colour(self._css))
        self._highlights_of: str | None = None
        self._highlight_clicks = HighlightClicks(self.browser, self.highlight_painter)
        self._highlight_clicks.clicked.connect(self.highlight_clicked)

    def selected_passage(self) -> Passage | None:
        """The passage selected in the item shown, with the text around it, in the item's
        own words (a transcript line's ``[mm:ss] ▶`` left out) and, in a transcript, with
        the moment of the line it starts in (None: no selection, or one of nothing but white
        space or labels)."""
        if self._current is None or self._current.document is None:
            return None
        cursor = self.browser.textCursor()
        if not cursor.hasSelection():
            return None
        document = self.browser.document()
        start, end = cursor.selectionStart(), cursor.selectionEnd()
        own = own_text(document)
        words_end = own.document_position(len(own.text) - 1) + 1 if own.text else 0
        if start >= words_end:
            # Under "Referenced by" (no words of the item): its text as shown.
            return passage_in(document.toPlainText(), start, end)
        # The item's own words: never the labels the reader adds to a transcript line.
        passage = passage_in(own.text, own.offset_of(start), own.offset_of(min(end, words_end)))
        if passage is None:
            return None
        line = own.line_at(start) or next(
            (line for line in own.lines if start <= line.start < end), None
        )
        return passage if line is None else replace(passage, start_s=line.seconds)

    @property
    def highlighted_entity_id(self) -> str | None:
        """The item whose highlights are painted now."""
        return self._highlights_of

    def show_highlights(self, entity_id: str, highlights: Sequence[Highlight]) -> None:
        """Paint an item's highlights (when it is the item on screen), and only these."""
        if self._current is None or self._current.entity_id != entity_id:
            return
        if (
            self._highlights_of == entity_id
            and list(highlights) == self.highlight_painter.highlights
        ):
            return  # painted as they are already
        self._highlights_of = entity_id
        self.highlight_painter.paint(highlights)

    def add_highlight(self, entity_id: str, highlight: Highlight) -> None:
        """Paint one more highlight of the item on screen at once (one just made)."""
        known = [h for h in self.highlight_painter.highlights if h.id != highlight.id]
        if self._highlights_of != entity_id:
            known = []
        self.show_highlights(entity_id, [*known, highlight])

    def _repaint_highlights(self) -> None:
        """Paint the highlights known for the item on screen again (a new document of it)."""
        current = self._current
        if current is None or current.entity_id != self._highlights_of:
            self._highlights_of = None
            self.highlight_painter.clear()
            return
        self.highlight_painter.paint(list(self.highlight_painter.highlights))

    def scroll_to_highlight(self, highlight_id: str) -> bool:
        """Show a painted highlight (the rest of a large item appended first); False when it
        is not painted in the item on screen."""
        if self.highlight_painter.span_of(highlight_id) is None and self._feeder is not None:
            self._whole_text_appended()
            self._repaint_highlights()
        span = self.highlight_painter.span_of(highlight_id)
        if span is None:
            return False
        cursor = QTextCursor(self.browser.document())
        cursor.setPosition(span.start)
        bar = self.browser.verticalScrollBar()
        top = int(self.browser.cursorRect(cursor).top())
        bar.setValue(bar.value() + top - 48)
        return True

    # -- find in the article ---------------------------------------------------------------

    def open_find(self) -> None:
        """Show the find bar (Ctrl+F in the reader), finding what it holds at once."""
        self.find_bar.open_bar()
        if self.find_bar.field.text():
            self._on_find_text_changed(self.find_bar.field.text())

    def find_step(self, direction: int) -> None:
        """The next (+1) or previous (-1) match (F3, Shift+F3); opens the bar when closed."""
        if not self.find_bar.isVisible():
            self.find_bar.setVisible(True)
            self._on_find_text_changed(self.find_bar.field.text())
            if not self.find_bar.field.text():
                self.find_bar.open_bar()
            return
        self._whole_text_appended()
        self._finder.step(direction)
        self.find_bar.set_count(self._finder.current, len(self._finder.matches))

    @Slot(str)
    def _on_find_text_changed(self, text: str) -> None:
        """Find ``text`` in the whole item (pieces not appended yet are appended first)."""
        self._whole_text_appended()
        self._finder.find(text)
        self.find_bar.set_count(self._finder.current, len(self._finder.matches))

    @Slot()
    def _on_find_closed(self) -> None:
        """The bar closed: its paint goes, the reading goes on where the match was."""
        self._finder.clear()
        self.browser.setFocus(Qt.FocusReason.OtherFocusReason)

    @Slot()
    def _on_browser_end_requested(self) -> None:
        """Ctrl+End: the rest of a large item goes in (each piece laid out as it does), so
        that the reader scrolls to the end of the item, not of the part shown so far."""
        self._whole_text_appended()

    def _whole_text_appended(self) -> None:
        """Append the pieces of a large item still waiting (a match may be in them)."""
        if self._feeder is not None and not self._feeder.done:
            self._feeder.finish_now()

    def _transcript_line(self, seconds: int) -> TimedLine | None:
        """The transcript line spoken at ``seconds``: the first of the latest to start at or
        before it. Only the transcript's own lines count, not the moments that notes under
        "Referenced by" point at, nor the ``▶`` beside each line."""
        best: TimedLine | None = None
        for line in transcript_lines(self.browser.document()):
            if line.seconds <= seconds and (best is None or line.seconds > best.seconds):
                best = line
        return best

    def _mark_line(self, line: TimedLine | None) -> None:
        """Give ``line`` the background of a selection, so that the eye finds the moment
        gone to; the line marked before is given back its own look."""
        document = self.browser.document()
        document.setUndoRedoEnabled(False)  # a mark is no edit to undo
        finish_layout(document)
        if self._line_mark is not None:
            marked, position, before = self._line_mark
            self._line_mark = None
            if marked is document:
                QTextCursor(document.findBlock(position)).setBlockFormat(before)
        if line is None:
            return
        block = document.findBlock(line.start)
        before = block.blockFormat()
        mark = QTextBlockFormat(before)
        mark.setBackground(QColor(self._palette.selection))
        QTextCursor(block).setBlockFormat(mark)
        self._line_mark = (document, block.position(), before)

    def _mark_moment_again(self) -> None:
        """Mark the moment gone to in a new document of the same item (no scrolling)."""
        current = self._current
        if self._moment is not None and current is not None:
            entity_id, seconds = self._moment
            if entity_id == current.entity_id:
                self._mark_line(self._transcript_line(seconds))

    def go_to_moment(self, seconds: int) -> None:
        """A moment of the item shown was clicked (a transcript's ``[mm:ss]``, or a moment
        a note points at): its transcript line goes to the top, marked, and when the item has
        a web address the video is offered at that moment, in the browser after the link
        dialog showed where it goes."""
        self.scroll_to(transcript_anchor(seconds))
        current = self._current
        video = moment_url(current.url, seconds) if current is not None and current.url else None
        if video is not None:
            self.open_external(video)

    # -- rendering -------------------------------------------------------------------------

    def _render(self, entity_id: str, anchor: str | None) -> None:
        """Start rendering an entity on a worker; the newest request wins."""
        self.remember_position()
        if self._task is not None:
            self._task.cancel()
        self._pending = (entity_id, anchor)
        if entity_id != self._pictures_asked_for:
            self._pictures_asked_for = None  # the person moved on before they came
        allow = self._allow_all_remote or entity_id in self._remote_allowed
        budget = None if entity_id in self._whole_allowed else self._text_budget
        self._preview_shown = False
        self._task = (
            self._runner.run(
                render_document,
                self._cache_path,
                entity_id,
                allow,
                self._transcript_language,
                self._css,
                budget,
                TEXT_POINTS * self.text_size_percent / 100,
                self._images,
                entity_id in self._whole_pages,
                cancel=True,
                progress=True,
            )
            .on_progress(self._on_render_progress)
            .on_success(self._on_render_finished)
            .on_failure(self._on_render_failed)
        )
        self._update_buttons()

    def _is_awaited(self, result: RenderResult) -> bool:
        """Whether ``result`` is of the render asked for last (else it is dropped)."""
        return (
            not result.cancelled
            and self._pending is not None
            and result.entity_id == self._pending[0]
        )

    @Slot(object)
    def _on_render_progress(self, result: RenderResult) -> None:
        """Show the first screen of a large item while the rest is rendered."""
        if not self._is_awaited(result) or not result.pieces:
            return
        self._display(result, None)
        self._preview_shown = True
        self.entity_shown.emit(result.entity_id)

    @Slot(object)
    def _on_render_finished(self, result: RenderResult) -> None:
        """Show a finished render, unless a newer one was asked for meanwhile."""
        if not self._is_awaited(result) or self._pending is None:
            return
        anchor = self._pending[1]
        self._pending = None
        self._task = None
        if not result.pieces:
            self._current = None
            self._show_placeholder("This item is not in the local library (yet).")
            self.title_label.setText("")
            self.title_label.setToolTip("")
            self._update_buttons()
            return
        self._display(result, anchor)
        if not self._preview_shown:
            self.entity_shown.emit(result.entity_id)
        self._preview_shown = False
        self._say_how_the_pictures_ended(result)

    def _say_how_the_pictures_ended(self, result: RenderResult) -> None:
        """Replace "Loading this item's pictures…" with how it ended, so the status bar never
        says they are loading once they have failed."""
        if self._pictures_asked_for != result.entity_id:
            return
        self._pictures_asked_for = None
        notice = result.image_notice
        self.message.emit("Pictures loaded." if notice is None else message_line(notice))

    def _display(self, result: RenderResult, anchor: str | None) -> None:
        """Swap ``result``'s document in (a refresh of the same item keeps its position)."""
        assert result.make_piece is not None
        result.document = result.make_piece(result.pieces[0])
        result.document.setMetaInformation(
            QTextDocument.MetaInformation.DocumentTitle, result.title
        )
        more = result.pieces[1:]
        previous = self._current.document if self._current else None
        same_item = self._current is not None and self._current.entity_id == result.entity_id
        scrolled = self.browser.verticalScrollBar().value()
        self._stop_feeder()
        self._current = result
        self.browser.setDocument(result.document)
        result.document.setParent(self)
        self._line_mark = None  # it went with the document it was in
        if not same_item:
            self._moment = None
        if result.images:
            self._fit_pictures()
            result.document.contentsChanged.connect(self._on_document_contents_changed)
        if previous is not None:
            previous.deleteLater()
        kept = self._positions.get(result.entity_id, result.position)
        if anchor or result.preview:
            kept = None
        if same_item and not anchor:
            # A refresh of the item being read keeps the reading position.
            self.browser.verticalScrollBar().setValue(scrolled)
        self.title_label.setText(result.title)
        self.title_label.setToolTip(result.title)
        self._show_truncation(result)
        self.images_notice.show_notice(result.image_notice)
        self._finder.clear()
        self._repaint_highlights()
        if more:
            # A large document: the rest follows piece by piece; jumps wait for the whole text.
            self._feed_then = (anchor, scrolled if same_item and not anchor else None)
            lazy = len(more) >= LAZY_ABOVE_PIECES
            wanted = self._wants_more_text if lazy else None
            framed = len(more) >= FRAMED_ABOVE_PIECES
            self._feeder = DocumentFeeder(
                result.document,
                more,
                self,
                wanted=wanted,
                framed=framed,
                make_piece=result.make_piece,
            )
            self._feeder.finished.connect(self._on_feeder_finished)
            self._feeder.start()
            if lazy and anchor:
                self.scroll_to(anchor)
        elif anchor:
            self.scroll_to(anchor)
        else:
            self._mark_moment_again()
        if kept:
            # Where the person was reading it (also after a restart, or a new text size).
            self._restore_position(kept)
        self._update_buttons()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """A new width of the reader sizes its pictures again."""
        if watched is self.browser.viewport() and event.type() == QEvent.Type.Resize:
            self._on_document_contents_changed()
        return super().eventFilter(watched, event)

    @Slot()
    def _on_document_contents_changed(self) -> None:
        """Pieces went in, or a highlight: size the pictures once the changes are done."""
        if self._current is not None and self._current.images:
            self._fit_timer.start()

    @Slot()
    def _fit_pictures(self) -> None:
        """Scale the pictures of the item shown down to the reader's width (never up).

        The width a vertical scroll bar takes is always left for it: a picture made smaller
        when the bar shows would otherwise be bigger again when the shorter text hides it.
        """
        current = self._current
        document = self.browser.document()
        if current is None or not current.images or current.document is not document:
            return
        width = self.browser.viewport().width()
        bar = self.browser.verticalScrollBar()
        if not bar.isVisible():
            width -= bar.sizeHint().width()
        finish_layout(document)  # a picture resized mid-layout would cut the text short
        if fit_images(document, width, current.images.get, self.browser.devicePixelRatioF()):
            self.browser.viewport().update()

    def _show_truncation(self, result: RenderResult) -> None:
        """Say so above the text when the item is shown cut short."""
        self.truncation_bar.setVisible(result.truncated)
        if result.truncated:
            self.truncation_label.setText(
                f"This item is {_megabytes(result.stored_bytes)}; showing the first "
                f"{_megabytes(self._text_budget)}."
            )

    @Slot(object)
    def _on_render_failed(self, exc: Exception) -> None:
        """A render failed: say why in the reader instead of showing stale content."""
        log.error("rendering failed", exc_info=exc)
        self._pending = None
        self._task = None
        # The bridge words a damaged cache as the window offers a fresh one (and it asks).
        why = message_line(self._runner.messages.note_failure(exc))
        self._show_placeholder(f"{CANNOT_DISPLAY}\n\n{why}")
        if self._pictures_asked_for is not None:
            self._pictures_asked_for = None
            self.message.emit(f"{CANNOT_DISPLAY} {why}")  # not "Loading … pictures…" any longer
        self._update_buttons()

    @Slot()
    def _on_feeder_finished(self) -> None:
        """The whole large document is in: now scroll where asked."""
        anchor, scrolled = self._feed_then
        self._feed_then = (None, None)
        self._repaint_highlights()  # passages in the pieces appended last
        if anchor:
            self.scroll_to(anchor)
            return
        self._mark_moment_again()  # its line may have been in a piece appended since
        if scrolled is not None:
            self.browser.verticalScrollBar().setValue(scrolled)

    @property
    def rendering(self) -> bool:
        """Whether a render of the current item is still running."""
        return self._pending is not None

    def _wants_more_text(self) -> bool:
        """Whether the reader is near the end of what is laid out (or a kept reading position
        lies past it), so the next piece of a huge document should go in."""
        bar = self.browser.verticalScrollBar()
        anchor, scrolled = self._feed_then
        if scrolled is not None:
            if bar.maximum() < scrolled:
                return True
            bar.setValue(scrolled)
            self._feed_then = (anchor, None)
        ahead = LOOKAHEAD_SCREENS * max(1, self.browser.viewport().height())
        return bar.maximum() - bar.value() < ahead

    @Slot()
    def _on_scroll_changed(self) -> None:
        """The reader moved (or the text grew): append more of a huge document if wanted,
        and keep the reading position once the scrolling stops."""
        if self._current is not None and not self._current.preview:
            self._position_timer.start()
        if self._feeder is not None and self._feeder.waiting and self._wants_more_text():
            self._feeder.resume()

    @property
    def loading_more(self) -> bool:
        """Whether more of the item is on its way: the rest of a first screen being rendered,
        or pieces being appended (a huge document waiting for the reader to scroll is not)."""
        if self._preview_shown and self._pending is not None:
            return True
        return self._feeder is not None and not self._feeder.done and not self._feeder.waiting

    def _stop_feeder(self) -> None:
        """Stop appending pieces of the document being replaced."""
        if self._feeder is not None:
            self._feeder.stop()
            self._feeder.finished.disconnect(self._on_feeder_finished)
            self._feeder.deleteLater()
            self._feeder = None

    def _show_placeholder(self, text: str) -> None:
        """A calm message in place of a document."""
        self._stop_feeder()
        self.truncation_bar.setVisible(False)
        self.images_notice.show_notice(None)
        document = SafeTextDocument()
        document.setDefaultStyleSheet(self._css)
        document.setPlainText(text)
        document.setParent(self)
        self.browser.setDocument(document)

    def _update_buttons(self) -> None:
        """Enable the toolbar buttons that can do something now."""
        self.back_button.setEnabled(self.can_go_back())
        self.forward_button.setEnabled(self.can_go_forward())
        current = self._current
        # Once asked for, the pictures load with the item; a failure offers "Try again".
        has_images = bool(current and current.remote_resources and not current.images_allowed)
        self.images_button.setEnabled(has_images)
        # Shown only for an item with remote images (the menu keeps the action): the button's
        # width would otherwise set the window's least width.
        self.images_button.setVisible(has_images)
        self.browser_button.setEnabled(bool(current and current.url))
        self.whole_button.setEnabled(bool(current and current.truncated))

    # -- links -----------------------------------------------------------------------------

    @Slot(QUrl)
    def _on_browser_highlighted(self, url: QUrl) -> None:
        """The pointer is over a link (or left it): say where it goes, in its tooltip and in
        the window's status bar, before any click."""
        hint = self.link_hint(url.toString()) if not url.isEmpty() else ""
        self.browser.setToolTip(hint)
        QCoreApplication.sendEvent(self.browser, QStatusTipEvent(hint))

    def link_hint(self, url: str) -> str:
        """Where a link of the item shown goes, in words (see links.link_hint)."""
        from memex_desktop.render.entities import WHOLE_PAGE_HREF  # imported by the render

        if url == WHOLE_PAGE_HREF:
            return "Shows the whole saved page, with its navigation, sidebars and footers"
        current = self._current
        if current is None:
            return link_hint(url, {})
        return link_hint(
            url,
            current.link_titles,
            current.entity_id,
            current_url=current.url,
            has_line=self._has_transcript_line,
        )

    def _has_transcript_line(self, seconds: int) -> bool:
        """Whether the item shown has a transcript line at ``seconds`` (for a link's hint)."""
        return self._transcript_line(seconds) is not None

    @Slot(QUrl)
    def _on_browser_anchor_clicked(self, url: QUrl) -> None:
        """Route a clicked link by the link policy; where it went is no longer a hint (the
        browser says nothing until the pointer moves to another link)."""
        self.follow_link(url.toString())
        self._on_browser_highlighted(QUrl())

    def follow_link(self, url: str) -> LinkTarget:
        """Do what the policy allows for ``url``; returns the decision."""
        from memex_desktop.render.entities import WHOLE_PAGE_HREF  # imported by the render

        if url == WHOLE_PAGE_HREF:
            self.show_whole_page()
            return LinkTarget("anchor", url)
        target = classify_link(url)
        seconds = anchor_seconds(target.anchor)
        shown = self._current.entity_id if self._current and self._pending is None else None
        if target.kind == "entity" and seconds is not None and target.entity_id == shown:
            self.go_to_moment(seconds)
        elif target.kind == "entity" and target.entity_id:
            self.show_entity(target.entity_id, target.anchor)
            self.went_to.emit(target.entity_id)
        elif target.kind == "anchor" and target.anchor:
            self.scroll_to(target.anchor)
        elif target.kind == "external":
            self.open_external(target.url)
        else:
            self.link_refused.emit(target.reason)
        return target

    def open_external(self, url: str) -> None:
        """Open an http(s) address in the browser after the person confirmed where it goes.

        The browser gets the address rebuilt from its parsed parts (what the dialog showed),
        never the raw text, and nothing at all when Qt cannot read that address.
        """
        target = classify_link(url)
        if target.kind != "external" or target.address is None:
            self.link_refused.emit(target.reason)
            return
        address = link_confirmation(target.address).open_url
        if not self.confirm_external(address):
            return
        qurl = QUrl(address, QUrl.ParsingMode.StrictMode)
        if not qurl.isValid() or qurl.isEmpty():
            self.link_refused.emit(f"This link is not opened: {qurl.errorString()}")
            return
        QDesktopServices.openUrl(qurl)
