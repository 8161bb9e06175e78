"""The annotation-thread pane: every note on the selected item, replies nested, oldest first.

Notes come from the cache (``CacheReader.thread_for``); notes written here and not yet on the
server come from the outbox and say where they are: "Queued" (with why they wait: Memex cannot
be reached, say, as soon as the window knows it, before any try), "Sending…" only while the
request is in flight, and "Processing on the server…" once the server has them: either way
the card shows what was typed. A note is matched to its pending copy by its client
``external_id``, so once a sync brings it back it shows once, not twice. Note text is
rendered by ``render/`` on a worker (with the reads) and shown in QTextBrowsers that open
nothing by themselves: only ``memex://entity/ID`` links are followed, inside the app.

A card is as tall as its text at its width (measured on the laid-out document, again on every
resize), so the pane scrolls and a card never does; a long note shows its first lines, faded
out, with "Show more".

Above the notes, the item's highlights are listed with their quotes (pending ones marked);
a note on a highlight shows its quote, and notes other clients attached to a highlight rather
than to the item are listed with the item's notes.

Note editors keep what is typed as drafts beside the outbox (``drafts.json``): when the window
closes each open editor keeps its draft and closes without asking, and the next window opens
them again, as they were left.
"""

from __future__ import annotations

import logging
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, QTimer, QUrl, Signal, Slot
from PySide6.QtGui import (
    QColor,
    QKeyEvent,
    QLinearGradient,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QPalette,
    QResizeEvent,
    QTextDocument,
    QWheelEvent,
)
from PySide6.QtWidgets import (
    QAbstractScrollArea,
    QApplication,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from memex_desktop.api.content import (
    TEXT_SELECTOR,
    SelectorPassage,
    display_title,
    referenced_ids,
    rich_text,
    strings_in,
    text_of,
    time_text,
    title_field,
    title_line,
)
from memex_desktop.api.models import ContentEntityBase, parse_content_entity
from memex_desktop.api.plain_text import inline_runs, leading_quote, own_words, plain_text
from memex_desktop.drafts import Draft, DraftPassage, DraftStore, draft_key, drafts_path
from memex_desktop.errors import (
    ConnectionState,
    StateWords,
    UserMessage,
    state_message,
    user_message,
)
from memex_desktop.store import (
    CacheReader,
    ChangeSet,
    EntityReader,
    NoteOutbox,
    NoteQueue,
    Outbox,
    PendingNotes,
    ThreadNode,
    ThreadReader,
)
from memex_desktop.store.highlights import Highlight, item_highlights
from memex_desktop.sync.highlights import Passage, PassageNoteQueue
from memex_desktop.ui import note_editor
from memex_desktop.ui.actions import ACTIONS_BY_KEY
from memex_desktop.ui.links import classify_link
from memex_desktop.ui.messages import message_line
from memex_desktop.ui.note_editor import NoteEditor, quoted_passage
from memex_desktop.ui.outbox_pane import failure_of
from memex_desktop.ui.readers import thread_reader
from memex_desktop.ui.tasks import Task, TaskRunner

log = logging.getLogger(__name__)

PENDING_STATES = ("queued", "sending", "accepted", "needs_attention")
QUEUED = "Queued"
# A queued save whose last try found no server: it waits, as the status bar says.
WAITING = "Queued: sent when Memex can be reached"
SENDING = "Sending…"
PROCESSING = "Processing on the server…"
ATTENTION = "Needs attention"
# What a pending highlight's outbox state says in its row (queued ones: as a queued note).
HIGHLIGHT_STATES = {"needs_attention": ATTENTION, "sending": SENDING, "accepted": PROCESSING}
# Failures (errors.ErrorKind) that leave a save waiting for the server to be reachable.
UNREACHABLE_KINDS = ("network", "not_answering")
# The connection state those failures put the window in: known, a save waits for it as well
# before any try. (A server that answers with errors is reached: its saves say why they fail.)
UNREACHABLE_STATE = ConnectionState.OFFLINE
INDENT_PX = 22
# A note card is a few lines in a narrow dock: body-sized text, tight paragraphs.
NOTE_CSS = """
p { margin-top: 0; margin-bottom: 4px; }
h1, h2, h3, h4 { font-size: medium; font-weight: 600; margin-top: 2px; margin-bottom: 2px; }
blockquote { margin-left: 8px; margin-top: 2px; margin-bottom: 2px; }
ul, ol { margin-top: 0; margin-bottom: 4px; }
pre { font-size: small; }
a.ref { text-decoration: none; }
"""
# The rendered note's document header (a heading with its title and a meta line), and the
# "Note on ..." line: the card's own meta line and the pane's heading already say both.
_HEADER = re.compile(r'<div class="header">.*?</div>', re.S)
_LEAD_META = re.compile(r'^(<div class="memex-doc">)\s*<p class="meta">.*?</p>', re.S)
# The document's "still processing" notice: a card says so in its marker, next to the text.
_NOTICE = re.compile(r'\s*<p class="notice">.*?</p>', re.S)
MAX_INDENT_LEVELS = 8
# A note longer than this many lines (at the card's width) folds to its first FOLDED_LINES.
FOLD_AFTER_LINES = 15
FOLDED_LINES = 12


@dataclass
class ThreadEntry:
    """One note as the pane shows it, cached or pending, with its replies."""

    id: str
    entity: ContentEntityBase
    created_at: int
    author: str | None
    tags: list[str]
    pending: bool
    state: str = ""
    processing: bool = False
    external_id: str | None = None
    server_id: str | None = None
    # The id a pending note is sent with (``data.id``), which the server keeps for it.
    client_id: str | None = None
    # Why the last try to send a pending note failed (None: nothing failed yet).
    failure: UserMessage | None = None
    error_kind: str | None = None
    children: list[ThreadEntry] = field(default_factory=list)

    def walk(self, depth: int = 0) -> list[tuple[int, ThreadEntry]]:
        """This entry and every reply below it, in display order, with their depth."""
        found = [(depth, self)]
        for child in self.children:
            found += child.walk(depth + 1)
        return found


def _first_target(payload: dict[str, Any]) -> str | None:
    """What a queued note is attached to: the first of its reference_content_ids."""
    ids = payload.get("reference_content_ids")
    return ids[0] if isinstance(ids, list) and ids and isinstance(ids[0], str) else None


def pending_entry_id(external_id: str) -> str:
    """The id under which a note not yet on the server is shown."""
    return f"pending:{external_id}"


def merge_pending(
    entity_id: str, roots: list[ThreadEntry], pending: list[ThreadEntry], targets: dict[str, str]
) -> list[ThreadEntry]:
    """Attach pending notes to the thread, skip those already cached, order every level.

    ``targets`` maps a pending entry id to the id it answers (the item, a cached note or
    another pending note). Pending notes whose cached copy is in the thread (see
    :func:`cached_copies`) are dropped; a reply naming a pending parent
    (``pending:<external_id>``) that is cached by now goes under the cached copy.
    """
    by_id: dict[str, ThreadEntry] = {}
    by_external: dict[str, ThreadEntry] = {}
    for root in roots:
        for _depth, entry in root.walk():
            by_id[entry.id] = entry
            if entry.external_id:
                by_external[entry.external_id] = entry
    fresh = [
        p for p in pending if _cached_copy(p, by_id, by_external) is None and p.id not in by_id
    ]
    _keep_typed_words(pending, by_id, by_external)
    for external_id, entry in by_external.items():
        by_id.setdefault(pending_entry_id(external_id), entry)
    merged = list(roots)
    # Oldest first, so a pending parent is placed before its replies; notes on other items
    # (whose chain never reaches this entity) are left out.
    for entry in sorted(fresh, key=lambda e: (e.created_at, e.id)):
        parent = targets.get(entry.id)
        if parent == entity_id:
            merged.append(entry)
        elif parent is not None and parent in by_id:
            by_id[parent].children.append(entry)
        else:
            continue
        by_id[entry.id] = entry
    _sort(merged)
    return merged


def _cached_copy(
    entry: ThreadEntry, by_id: dict[str, ThreadEntry], by_external: dict[str, ThreadEntry]
) -> ThreadEntry | None:
    """The cached copy of a pending note: the one with its client external_id, or under the
    id the server gave it (its save's answer named it, or it kept the client id sent)."""
    for found in (
        by_external.get(entry.external_id or ""),
        by_id.get(entry.server_id or ""),
        by_id.get(entry.client_id or ""),
    ):
        if found is not None:
            return found
    return None


def cached_copies(roots: list[ThreadEntry], pending: list[ThreadEntry]) -> dict[str, str]:
    """pending entry id -> the id of its cached copy, for the pending notes the server has
    sent back already (a pull, or the save's answer): they are one note, shown once."""
    by_id: dict[str, ThreadEntry] = {}
    by_external: dict[str, ThreadEntry] = {}
    for root in roots:
        for _depth, entry in root.walk():
            by_id[entry.id] = entry
            if entry.external_id:
                by_external[entry.external_id] = entry
    copies: dict[str, str] = {}
    for entry in pending:
        found = _cached_copy(entry, by_id, by_external)
        if found is not None:
            copies[entry.id] = found.id
    return copies


def notes_counted_once(
    highlight: Highlight, pending: list[ThreadEntry], copies: dict[str, str]
) -> Highlight:
    """``highlight`` naming each of its notes once: a queued note the server has sent back
    is named by its cached copy alone, not also by its pending id (``copies``: see
    :func:`cached_copies`), so its row does not count "2 notes" until the save is confirmed."""
    linked = set(highlight.note_ids)
    renamed = dict(copies)
    for entry in pending:
        for known in (entry.server_id, entry.client_id):
            if known and known in linked:
                renamed.setdefault(entry.id, known)
    note_ids = tuple(dict.fromkeys(renamed.get(note, note) for note in highlight.note_ids))
    return highlight if note_ids == highlight.note_ids else replace(highlight, note_ids=note_ids)


def note_words(entity: ContentEntityBase) -> str:
    """What a note says: its text, else the text of its rich-text content."""
    raw = entity.raw
    return (text_of(raw.get("text")) or rich_text(raw.get("content"))).strip()


def note_label(entity: ContentEntityBase) -> str:
    """What a note is called where it is named ("Reply to: …"): its title, else the first
    line of its own words, not the passage it begins by quoting (that, when it says nothing
    else)."""
    raw = entity.raw
    if entity.type != "annotation" or title_field(raw) is not None:
        return display_title(raw)
    words = own_words(note_words(entity))
    return (title_line(words) if words else "") or display_title(raw)


def _keep_typed_words(
    pending: list[ThreadEntry],
    by_id: dict[str, ThreadEntry],
    by_external: dict[str, ThreadEntry],
) -> None:
    """A cached copy the server sent back without the note's words shows what was typed.

    A server still processing a save may answer with the entity before it has derived its
    text; the outbox still holds the words, so the card keeps them until a pull brings them.
    """
    for entry in pending:
        cached = _cached_copy(entry, by_id, by_external)
        if cached is None or note_words(cached.entity) or not note_words(entry.entity):
            continue
        typed = {**entry.entity.raw, **{k: v for k, v in cached.entity.raw.items() if v}}
        typed["text"] = entry.entity.raw.get("text")
        typed["content"] = entry.entity.raw.get("content")
        cached.entity = parse_content_entity(typed)
        cached.processing = True


def status_marker(entry: ThreadEntry, unreachable: UserMessage | None = None) -> tuple[str, str]:
    """The small marker of a note not settled on the server yet, and its tooltip ("" if none);
    ``unreachable``: why Memex cannot be reached, while the window knows it cannot."""
    if entry.pending and entry.state == "needs_attention":
        return ATTENTION, "The server did not take this note; see the outbox pane for why"
    if entry.pending and entry.state == "sending":
        return SENDING, "Being sent to the Memex server now"
    if entry.pending and entry.state != "accepted":
        return queued_marker(entry.error_kind, entry.failure, unreachable)
    if entry.pending or entry.processing:
        return PROCESSING, "The server has the note and is still processing it"
    return "", ""


def queued_marker(
    error_kind: str | None, failure: UserMessage | None, unreachable: UserMessage | None = None
) -> tuple[str, str]:
    """The marker of a save waiting in the outbox, and its tooltip: why it waits, if a try
    failed (the server could not be reached, say) or the window knows Memex cannot be
    reached now (``unreachable``, its words), though nothing was tried yet."""
    if failure is not None:
        why = failure.one_line()
    elif unreachable is not None:
        why = unreachable.text
    else:
        why = "It is sent at the next sync."
    waits = error_kind in UNREACHABLE_KINDS or unreachable is not None
    return WAITING if waits else QUEUED, f"Not on the server yet. {why}"


def unreachable_message(state: ConnectionState, words: StateWords | None) -> UserMessage | None:
    """Why Memex cannot be reached in connection state ``state`` (as the status bar words it),
    or None when it can be."""
    if state is not UNREACHABLE_STATE:
        return None
    return words.message if words is not None else state_message(state)


def _sort(entries: list[ThreadEntry]) -> None:
    """Oldest first at every level."""
    entries.sort(key=lambda e: (e.created_at, e.id))
    for entry in entries:
        _sort(entry.children)


def created_text(entry: ThreadEntry) -> str:
    """When a note was written, in the local time every pane shows; "" when unknown."""
    return (time_text(entry.created_at) or "") if entry.created_at else ""


@dataclass
class ThreadLoad:
    """A thread read and rendered off the GUI thread, ready to be drawn."""

    entity_id: str
    sequence: int
    title: str
    entries: list[ThreadEntry]
    html: dict[str, str]
    highlights: list[Highlight] = field(default_factory=list)
    # Notes on other items that mention this one (they are not in its thread).
    mentions: int = 0


def _cached_entry(reader: ThreadReader, node: ThreadNode) -> ThreadEntry:
    """A cached note (and its replies) as an entry; iterative, so deep chains cannot overflow."""
    from memex_desktop.render.entities import DONE_STATUS  # the renderer's, imported late

    stack: list[tuple[ThreadNode, ThreadEntry | None]] = [(node, None)]
    root: ThreadEntry | None = None
    while stack:
        current, parent = stack.pop()
        row = current.entity
        entity = reader.entity(row.id) or parse_content_entity(
            {"id": row.id, "type": "annotation", "text": current.text}
        )
        entry = ThreadEntry(
            id=row.id,
            entity=entity,
            created_at=int(row.created_at or 0),
            author=row.author,
            tags=_tag_names(reader, entity.tag_ids or []),
            pending=False,
            processing=entity.processing_status not in (None, DONE_STATUS),
            external_id=entity.external_id,
        )
        if parent is None:
            root = entry
        else:
            parent.children.append(entry)
        stack.extend((child, entry) for child in reversed(current.children))
    assert root is not None
    return root


def _tag_names(reader: ThreadReader, tag_ids: list[str]) -> list[str]:
    """A note's tags by name (an id the cache does not know stays an id)."""
    if not tag_ids:
        return []
    names = reader.tag_names(tag_ids)
    return [names.get(tag_id, tag_id) for tag_id in tag_ids]


# A long title is cut in the heading: the reader shows it whole.
HEADING_TITLE_CHARS = 60


def thread_heading(count: int, title: str, mentions: int = 0) -> str:
    """The notes pane's heading: how many notes are on the item, and how many others
    mention it when none is on it."""
    from memex_desktop.render.document import shorten  # the renderer's, imported late

    named = shorten(title, HEADING_TITLE_CHARS)
    if count:
        return f"{count} note{'s' if count != 1 else ''} on {named}"
    heading = f"No notes on {named} yet."
    if mentions:
        heading += (
            f" {mentions} note{' mentions' if mentions == 1 else 's mention'} it "
            "(under Referenced by, at the end of the item)."
        )
    return heading


def _pending_entries(outbox: PendingNotes | None) -> tuple[list[ThreadEntry], dict[str, str]]:
    """Notes in the outbox not confirmed yet, and what each one answers."""
    if outbox is None:
        return [], {}
    entries: list[ThreadEntry] = []
    targets: dict[str, str] = {}
    for op in outbox.list(states=PENDING_STATES):
        payload, external_id = op.payload, op.external_id
        if op.kind != "save_entity" or not isinstance(payload, dict) or not external_id:
            continue
        target = _first_target(payload)
        if payload.get("type") != "annotation" or target is None:
            continue
        entry_id = pending_entry_id(external_id)
        client_id = payload.get("id")
        data = {**payload, "id": entry_id, "created_at": op.created_at}
        entries.append(
            ThreadEntry(
                id=entry_id,
                entity=parse_content_entity(data),
                created_at=int(op.created_at),
                author=None,
                tags=[],
                pending=True,
                state=op.state,
                external_id=external_id,
                server_id=op.entity_id,
                client_id=client_id if isinstance(client_id, str) and client_id else None,
                failure=failure_of(op),
                error_kind=op.error_kind,
            )
        )
        # A reply to a note still pending names that note by its pending id.
        targets[entry_id] = target
    return entries, targets


def compact_note_html(html: str) -> str:
    """A rendered note without its document heading: only what the note says, for a card."""
    body = _NOTICE.sub("", _HEADER.sub("", html, count=1), count=1)
    return _LEAD_META.sub(r"\1", body, count=1)


def _squeezed(text: str) -> str:
    """Text with every run of white space as one space (to compare quotes)."""
    return " ".join(text.split())


def _quote_node(node: Any) -> bool:
    """Whether a rich-text block is a line of a note's leading quote: a blockquote, or a
    paragraph written as markdown (``> …``), as the note editor saves it."""
    if not isinstance(node, dict):
        return False
    if node.get("type") == "blockquote":
        return True
    return node.get("type") == "paragraph" and rich_text(node).lstrip().startswith(">")


def _empty_node(node: Any) -> bool:
    """Whether a rich-text block says nothing (the blank line after a quote)."""
    return isinstance(node, dict) and node.get("type") == "paragraph" and not rich_text(node)


def under_its_quote(entity: ContentEntityBase, highlight: Highlight) -> ContentEntityBase:
    """A note on a highlight as its card shows it, below the highlight's quote ("On “…”"):
    without the copy of that quote it begins with (the note editor starts a note on a
    passage with it) and without a card for the highlight."""
    raw = dict(entity.raw)
    names = highlight.names()
    links = strings_in(raw.get("reference_content_ids"))
    if links:
        raw["reference_content_ids"] = links[:1] + [i for i in links[1:] if i not in names]
    text = text_of(raw.get("text"))
    content = raw.get("content")
    quote, rest = leading_quote(text or rich_text(content))
    if quote and _squeezed(quote) == _squeezed(highlight.quote):
        if text:
            raw["text"] = rest
        if isinstance(content, dict) and isinstance(content.get("content"), list):
            blocks = list(content["content"])
            while blocks and _quote_node(blocks[0]):
                blocks.pop(0)
            while blocks and _empty_node(blocks[0]):
                blocks.pop(0)
            raw["content"] = {**content, "content": blocks}
    return parse_content_entity(raw)


# The markdown line marks a note's paragraph may start with (the note editor saves what is
# typed as it is): a quote (as a note on a passage starts) and a heading.
_QUOTE_MARK = re.compile(r"[ \t]{0,3}>[ \t]?")
_HEADING_MARK = re.compile(r"[ \t]{0,3}(#{1,6})[ \t]+")
# The referenced items a note card reads the titles of (a note names a few).
_MAX_REFERENCED = 20
# How deep a note's rich text is formatted (deeper blocks are shown as they are).
_FORMAT_DEPTH = 32


def _marked_nodes(node: dict[str, Any], titles: Mapping[str, str]) -> list[Any]:
    """A text node as the nodes of its inline markdown (``**bold**`` → a bold "bold"); a
    title of ``titles`` (a referenced item's) in brackets as its words."""
    text = node.get("text")
    given = node.get("marks")
    own: list[Any] = given if isinstance(given, list) else []
    if not isinstance(text, str) or any(
        isinstance(mark, dict) and mark.get("type") == "code" for mark in own
    ):
        return [node]
    runs = inline_runs(text, titles)
    if len(runs) == 1 and not runs[0].marks and runs[0].href is None:
        return [node]
    nodes: list[Any] = []
    for run in runs:
        marks = [*own, *({"type": mark} for mark in run.marks)]
        if run.href is not None:
            marks.append({"type": "link", "attrs": {"href": run.href}})
        nodes.append({**node, "text": run.text, "marks": marks})
    return nodes


def _lead_text(block: dict[str, Any]) -> tuple[int, str] | None:
    """Where a block's first text node is among its children, and its text."""
    children = block.get("content")
    if not isinstance(children, list):
        return None
    for index, child in enumerate(children):
        if isinstance(child, dict) and child.get("type") == "text":
            text = child.get("text")
            return (index, text) if isinstance(text, str) else None
        if child:
            return None
    return None


def _without_lead(block: dict[str, Any], index: int, rest: str) -> list[Any]:
    """A block's children with its first text node cut to ``rest`` (left out when empty)."""
    children = list(block["content"])
    if rest:
        children[index] = {**children[index], "text": rest}
    else:
        del children[index]
    return children


def _line_block(block: dict[str, Any]) -> dict[str, Any] | None:
    """A paragraph written as a markdown quote or heading line, as that block; else None."""
    lead = _lead_text(block)
    if lead is None:
        return None
    index, text = lead
    if quoted := _QUOTE_MARK.match(text):
        inner = {**block, "content": _without_lead(block, index, text[quoted.end() :])}
        return {"type": "blockquote", "content": [inner]}
    if heading := _HEADING_MARK.match(text):
        children = _without_lead(block, index, text[heading.end() :])
        return {"type": "heading", "attrs": {"level": len(heading.group(1))}, "content": children}
    return None


def _formatted_block(node: Any, titles: Mapping[str, str], depth: int = 0) -> Any:
    """A rich-text block with the markdown typed into its text as formatting."""
    if not isinstance(node, dict) or depth > _FORMAT_DEPTH:
        return node
    children = node.get("content")
    if not isinstance(children, list):
        return node
    formatted: list[Any] = []
    typed_quote: dict[str, Any] | None = None  # the quote the lines before were typed as
    for child in children:
        if isinstance(child, dict) and child.get("type") == "text":
            formatted.extend(_marked_nodes(child, titles))
            typed_quote = None
            continue
        block = _formatted_block(child, titles, depth + 1)
        lined = (
            _line_block(block)
            if isinstance(block, dict) and block.get("type") == "paragraph"
            else None
        )
        if lined is not None and lined["type"] == "blockquote" and typed_quote is not None:
            typed_quote["content"].extend(lined["content"])  # one quote of several lines
            continue
        formatted.append(lined if lined is not None else block)
        typed_quote = lined if lined is not None and lined["type"] == "blockquote" else None
    return {**node, "content": formatted}


def _text_as_doc(text: str) -> dict[str, Any]:
    """A note's plain text as a rich-text document: a paragraph a line."""
    return {
        "type": "doc",
        "content": [
            {"type": "paragraph", "content": [{"type": "text", "text": line}] if line else []}
            for line in text.strip().split("\n")
        ],
    }


def formatted_note(
    entity: ContentEntityBase, titles: Mapping[str, str] | None = None
) -> ContentEntityBase:
    """A note as its card shows it: the markdown typed into its text (``**bold**``,
    ``*soft*``, `` `code` ``, links, ``> quote`` and ``# heading`` lines) as formatting,
    not as the characters, and the titles of ``titles`` (the items it references) without
    the brackets its text names them in. The words are those :func:`plain_text` keeps."""
    known = titles or {}
    raw = entity.raw
    content = raw.get("content")
    if isinstance(content, dict) and content.get("content"):
        doc = content
    else:
        text = text_of(raw.get("text"))
        if not text.strip() or plain_text(text, known) == " ".join(text.split()):
            return entity  # nothing typed as markdown: shown as it is
        doc = _text_as_doc(text)
    formatted = _formatted_block(doc, known)
    if formatted == doc and doc is content:
        return entity
    return parse_content_entity({**raw, "content": formatted})


def referenced_titles(reader: EntityReader, entity: ContentEntityBase) -> dict[str, str]:
    """The titles of the items a note references, by id (its text names them in brackets)."""
    titles: dict[str, str] = {}
    for entity_id in referenced_ids(entity.raw)[:_MAX_REFERENCED]:
        found = reader.entity(entity_id)
        if found is not None:
            titles[entity_id] = display_title(found.raw)
    return titles


def render_note(
    reader: EntityReader, entry: ThreadEntry, highlight: Highlight | None = None
) -> str:
    """The note's safe HTML for a card (reference cards link to memex://entity/ID); a note on
    ``highlight`` without the quote its card shows above it."""
    # The renderer is imported by the first thread shown, after the window's first frame.
    from memex_desktop.render import RenderContext, render_entity

    entity = entry.entity if highlight is None else under_its_quote(entry.entity, highlight)
    try:
        entity = formatted_note(entity, referenced_titles(reader, entity))
        return compact_note_html(render_entity(entity, RenderContext(lookup=reader.entity)).html)
    except (ValueError, TypeError, KeyError) as exc:  # a malformed note still shows its text
        log.warning("could not render note %s: %r", entry.id, exc)
        return ""


def load_thread(
    reader: ThreadReader, outbox: PendingNotes | None, entity_id: str, sequence: int = 0
) -> ThreadLoad:
    """Cached notes merged with the outbox's pending ones, each rendered (any thread)."""
    row = reader.get(entity_id)
    title = (row.title if row is not None else "") or entity_id
    roots = [_cached_entry(reader, node) for node in reader.thread_for(entity_id)]
    highlights = (
        item_highlights(reader, outbox, entity_id) if isinstance(reader, CacheReader) else []
    )
    roots += _notes_on_highlights(reader, highlights, roots)
    pending, targets = _pending_entries(outbox)
    copies = cached_copies(roots, pending)
    highlights = [notes_counted_once(highlight, pending, copies) for highlight in highlights]
    entries = merge_pending(entity_id, roots, pending, targets)
    html: dict[str, str] = {}
    for root in entries:
        for _depth, entry in root.walk():
            html[entry.id] = render_note(reader, entry, linked_highlight(entry, highlights))
    in_thread = {entry.id for root in entries for _depth, entry in root.walk()}
    mentions = (
        sum(
            link.kind == "references"
            and link.source.type == "annotation"
            and link.source.id not in in_thread
            for link in reader.backlinks(entity_id)
        )
        if isinstance(reader, CacheReader)
        else 0
    )
    return ThreadLoad(entity_id, sequence, title, entries, html, highlights, mentions)


def _notes_on_highlights(
    reader: ThreadReader,
    highlights: list[Highlight],
    roots: list[ThreadEntry],
) -> list[ThreadEntry]:
    """Notes attached to the item's highlights rather than to the item (as other clients
    write them), each once, with their replies."""
    seen = {entry.id for root in roots for _depth, entry in root.walk()}
    found: list[ThreadEntry] = []
    for highlight in highlights:
        if highlight.pending:
            continue
        for node in reader.thread_for(highlight.id):
            if node.entity.id in seen:
                continue
            entry = _cached_entry(reader, node)
            seen.update(e.id for _depth, e in entry.walk())
            found.append(entry)
    return found


def linked_highlight(entry: ThreadEntry, highlights: list[Highlight]) -> Highlight | None:
    """The highlight a note is on (or quotes), if any."""
    names = {entry.id}
    if entry.external_id:
        names.add(pending_entry_id(entry.external_id))
    for highlight in highlights:
        if names & set(highlight.note_ids):
            return highlight
    return None


def highlight_text(highlight: Highlight, limit: int = 280) -> str:
    """What a highlight marks, in a line or a few: its quote, else its moment of the video."""
    from memex_desktop.render.entities import format_offset  # the renderer's, imported late

    quote = " ".join(highlight.quote.split())
    if quote:
        return f"“{quote[:limit]}…”" if len(quote) > limit else f"“{quote}”"
    start, end = highlight.passage.start_s, highlight.passage.end_s
    if start is None:
        return "A highlight with no saved text"
    span = format_offset(start) + (f"–{format_offset(end)}" if end is not None else "")
    return f"The video at {span}"


def load_thread_in_worker(
    cache_path: Path, outbox: PendingNotes | None, entity_id: str, sequence: int
) -> ThreadLoad:
    """Worker: :func:`load_thread` on this thread's own cache reader."""
    return load_thread(thread_reader(cache_path), outbox, entity_id, sequence)


def drafts_beside(outbox: NoteOutbox | None) -> DraftStore | None:
    """The drafts kept in the outbox's folder (the data folder); none without an outbox file."""
    return DraftStore(drafts_path(outbox.path.parent)) if isinstance(outbox, Outbox) else None


def reopened_words(count: int) -> str:
    """What the window says when it opens again the notes left unsaved."""
    return f"Reopened {count} note{'s' if count != 1 else ''} you had not saved."


def _passage_highlight(passage: Passage) -> Highlight:
    """A passage as a highlight not saved yet (to say what a note will be on)."""
    return Highlight(
        id="", target_id="", passage=SelectorPassage(TEXT_SELECTOR, quote=passage.quote)
    )


def _keys_of(action_key: str) -> str:
    """The shortcuts of a window action, as the help lists them."""
    return ", ".join(ACTIONS_BY_KEY[action_key].shortcuts)


def line_bottoms(document: QTextDocument) -> list[float]:
    """Where every laid-out line of a document ends, top to bottom, in document coordinates."""
    layout = document.documentLayout()
    bottoms: list[float] = []
    block = document.begin()
    while block.isValid():
        top = layout.blockBoundingRect(block).top()
        lines = block.layout()
        for number in range(lines.lineCount()):
            line = lines.lineAt(number)
            bottoms.append(top + line.y() + line.height())
        block = block.next()
    return sorted(bottoms)


class FadeOut(QWidget):
    """The last lines of a folded note, fading into the background: there is more below."""

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.hide()

    def paintEvent(self, _event: QPaintEvent) -> None:
        """A gradient from clear to the text box's background."""
        parent = self.parentWidget()
        base = (parent or self).palette().color(QPalette.ColorRole.Base)
        clear = QColor(base)
        clear.setAlpha(0)
        gradient = QLinearGradient(0, 0, 0, self.height())
        gradient.setColorAt(0.0, clear)
        gradient.setColorAt(1.0, base)
        QPainter(self).fillRect(self.rect(), gradient)


class NoteText(QTextBrowser):
    """A note's text box: as tall as its text at its width, or its first lines when folded.

    It never scrolls (no scroll bars, the wheel goes on to the pane, the view stays at the
    top), so no line is shown cut in half: the folded height ends on a line's bottom.
    """

    foldable_changed = Signal(bool)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.folded = True
        self.foldable = False
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.document().setDefaultStyleSheet(NOTE_CSS)
        self.document().setDocumentMargin(2)
        self.fade = FadeOut(self.viewport())
        self.verticalScrollBar().valueChanged.connect(self._on_scrolled)
        self.document().documentLayout().documentSizeChanged.connect(self._on_document_resized)

    def set_folded(self, folded: bool) -> None:
        """Show the first lines only (True) or the whole note."""
        self.folded = folded
        self.fit()

    def text_height(self) -> int:
        """The whole document's height at the box's width, in pixels (rounded up)."""
        return math.ceil(self.document().size().height())

    def fit(self) -> None:
        """Take the height the text needs at this width (the fold's when folded)."""
        full = self.text_height()  # lays the whole document out before its lines are read
        bottoms = line_bottoms(self.document())
        foldable = len(bottoms) > FOLD_AFTER_LINES
        if foldable and self.folded:
            height = min(full, math.ceil(bottoms[FOLDED_LINES - 1]) + 1)
        else:
            height = full
        frame = 2 * self.frameWidth()
        self.setFixedHeight(max(height, self.fontMetrics().height()) + frame)
        self.verticalScrollBar().setValue(0)
        cut = foldable and self.folded
        self.fade.setVisible(cut)
        if cut:
            fade = min(height, 2 * self.fontMetrics().lineSpacing())
            self.fade.setGeometry(0, height - fade, self.viewport().width(), fade)
        if foldable != self.foldable:
            self.foldable = foldable
            self.foldable_changed.emit(foldable)

    def resizeEvent(self, event: QResizeEvent) -> None:
        """A new width wraps the text anew: fit its new height."""
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            self.fit()

    def wheelEvent(self, event: QWheelEvent) -> None:
        """The pane scrolls, not the note: the wheel goes to the scroll area around it."""
        area = self._outer_scroll_area()
        if area is None:
            event.ignore()
            return
        viewport = area.viewport()
        forwarded = QWheelEvent(
            viewport.mapFromGlobal(event.globalPosition()),
            event.globalPosition(),
            event.pixelDelta(),
            event.angleDelta(),
            event.buttons(),
            event.modifiers(),
            event.phase(),
            event.inverted(),
            event.source(),
        )
        QApplication.sendEvent(viewport, forwarded)
        event.accept()

    def _outer_scroll_area(self) -> QAbstractScrollArea | None:
        """The scroll area the note is shown in (the pane's), if any."""
        parent = self.parentWidget()
        while parent is not None and not isinstance(parent, QAbstractScrollArea):
            parent = parent.parentWidget()
        return parent

    @Slot()
    def _on_document_resized(self, *_args: object) -> None:
        """The text was laid out again (new content, width or fonts)."""
        self.fit()

    @Slot(int)
    def _on_scrolled(self, value: int) -> None:
        """Keep the top of the note in view (a folded note is cut at the bottom only)."""
        if value:
            self.verticalScrollBar().setValue(0)


class NoteCard(QFrame):
    """One note: who and when, its text, tags, a status marker, Show more and Reply."""

    reply_requested = Signal(str)
    link_activated = Signal(str)

    def __init__(
        self,
        entry: ThreadEntry,
        html: str,
        depth: int,
        parent: QWidget | None = None,
        *,
        highlight: Highlight | None = None,
        unreachable: UserMessage | None = None,
    ):
        super().__init__(parent)
        self.entry = entry
        self.highlight = highlight
        self.setObjectName("noteCard")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        meta_parts = [entry.author or "", created_text(entry)]
        if entry.tags:
            meta_parts.append("tags: " + ", ".join(entry.tags))
        self.meta = QLabel(" · ".join(p for p in meta_parts if p))
        self.meta.setWordWrap(True)  # a narrow pane wraps the line rather than cut off Reply
        self.badge = QLabel()
        self.badge.setObjectName("pendingBadge")
        self.show_status(unreachable)
        self.body = NoteText()
        self.body.setHtml(html)
        self.body.anchorClicked.connect(self._on_body_anchor_clicked)
        self.toggle = QPushButton("Show more")
        self.toggle.setObjectName("showMore")
        self.toggle.setFlat(True)
        self.toggle.setAccessibleName("Show the whole note")
        self.toggle.setVisible(False)
        self.toggle.clicked.connect(self._on_toggle_clicked)
        self.body.foldable_changed.connect(self._on_body_foldable_changed)
        self.reply = QPushButton("Reply")
        self.reply.setAccessibleName("Reply to this note")
        self.reply.setToolTip(f"Reply to this note ({_keys_of('reply_note')} while it has focus)")
        self.reply.clicked.connect(self._on_reply_clicked)
        summary = own_words(note_words(entry.entity))
        self.setAccessibleName(
            ("Pending note" if entry.pending else "Note")
            + (f" by {entry.author}" if entry.author else "")
        )
        self.body.setAccessibleName("Note text")
        # The words the card shows (references by their titles, formatting as formatting);
        # the note's own words where its text could not be rendered.
        shown = " ".join(self.body.toPlainText().split())
        self.body.setAccessibleDescription((shown or plain_text(summary))[:200])
        top = QHBoxLayout()
        top.addWidget(self.meta, 1)
        top.addWidget(self.reply)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6 + INDENT_PX * min(depth, MAX_INDENT_LEVELS), 4, 6, 4)
        layout.addLayout(top)
        # A line of its own: the marker never squeezes the date or pushes Reply out of a
        # narrow pane.
        marker_row = QHBoxLayout()
        marker_row.addWidget(self.badge)
        marker_row.addStretch(1)
        layout.addLayout(marker_row)
        # The passage a note is on, above what it says.
        self.quote = QLabel("On " + highlight_text(highlight) if highlight is not None else "")
        self.quote.setObjectName("noteQuote")
        self.quote.setWordWrap(True)
        self.quote.setTextFormat(Qt.TextFormat.PlainText)
        self.quote.setVisible(highlight is not None)
        layout.addWidget(self.quote)
        layout.addWidget(self.body)
        layout.addWidget(self.toggle, 0, Qt.AlignmentFlag.AlignLeft)
        self.body.fit()
        self.toggle.setVisible(self.body.foldable)

    def show_status(self, unreachable: UserMessage | None) -> None:
        """Say where the note stands (see status_marker), Memex being ``unreachable``."""
        marker, why = status_marker(self.entry, unreachable)
        self.badge.setText(marker)
        self.badge.setVisible(bool(marker))
        self.badge.setToolTip(why)
        self.badge.setAccessibleName(marker)
        self.badge.setAccessibleDescription(why)

    @Slot(bool)
    def _on_body_foldable_changed(self, foldable: bool) -> None:
        """Offer Show more only for notes long enough to fold at this width."""
        self.toggle.setVisible(foldable)

    @Slot()
    def _on_toggle_clicked(self) -> None:
        """Show more / Show less."""
        folded = not self.body.folded
        self.body.set_folded(folded)
        self.toggle.setText("Show more" if folded else "Show less")
        self.toggle.setAccessibleName("Show the whole note" if folded else "Fold the note")

    @Slot(QUrl)
    def _on_body_anchor_clicked(self, url: QUrl) -> None:
        """Only links to other items are followed; nothing else is ever opened."""
        target = classify_link(url.toString())
        if target.kind == "entity" and target.entity_id:
            self.link_activated.emit(target.entity_id)

    @Slot()
    def _on_reply_clicked(self) -> None:
        """Ask the pane to open a reply editor for this note."""
        self.reply_requested.emit(self.entry.id)


class HighlightRow(QFrame):
    """One highlight of the item: its quote (or moment), whether it is sent, its notes.

    A click (or Enter) picks it: the reader shows it in the text.
    """

    picked = Signal(str)

    def __init__(
        self,
        highlight: Highlight,
        parent: QWidget | None = None,
        *,
        unreachable: UserMessage | None = None,
    ) -> None:
        super().__init__(parent)
        self.highlight = highlight
        self.setObjectName("highlightRow")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.quote = QLabel(highlight_text(highlight))
        self.quote.setWordWrap(True)
        self.quote.setTextFormat(Qt.TextFormat.PlainText)
        self.facts = QLabel()
        self.facts.setObjectName("highlightFacts")
        self.show_status(unreachable)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 3, 6, 3)
        layout.addWidget(self.quote)
        layout.addWidget(self.facts)
        self.setAccessibleName("Pending highlight" if highlight.pending else "Highlight")
        self.setAccessibleDescription(self.quote.text()[:200])
        self.setToolTip("Show this passage in the reader")

    def show_status(self, unreachable: UserMessage | None) -> None:
        """Say whether the highlight is on the server yet and how many notes it has; a queued
        one says it waits for Memex while the window knows Memex cannot be reached
        (``unreachable``), as a queued note does."""
        highlight = self.highlight
        facts = []
        why = ""
        if highlight.pending and highlight.state in HIGHLIGHT_STATES:
            facts.append(HIGHLIGHT_STATES[highlight.state])
        elif highlight.pending:
            marker, why = queued_marker(None, None, unreachable)
            facts.append(marker)
        notes = len(highlight.note_ids)
        if notes:
            facts.append(f"{notes} note{'s' if notes != 1 else ''}")
        self.facts.setText(" · ".join(facts))
        self.facts.setToolTip(why)
        self.facts.setVisible(bool(facts))

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        """A click picks the highlight."""
        if event.button() == Qt.MouseButton.LeftButton:
            self.picked.emit(self.highlight.id)
        super().mouseReleaseEvent(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        """Enter or Space picks the highlight."""
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Space):
            self.picked.emit(self.highlight.id)
            event.accept()
            return
        super().keyPressEvent(event)


class ThreadPane(QWidget):
    """Notes on the selected entity as threads, and the buttons to add to them.

    Signals:
        entity_activated(str): the person asked to open that entity (a reference card).
        note_queued(str): a note or reply was committed to the outbox (its op id).
        link_queued(str): a link dropped on the note editor was queued for saving (op id).
        thread_shown(): the pane finished showing the current entity's thread.
        highlight_picked(str): a highlight of the list was picked (show it in the text).
    """

    entity_activated = Signal(str)
    note_queued = Signal(str)
    link_queued = Signal(str)
    thread_shown = Signal()
    highlight_picked = Signal(str)

    def __init__(
        self,
        reader: ThreadReader,
        runner: TaskRunner | None,
        parent: QWidget | None = None,
        *,
        outbox: NoteOutbox | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("threadPane")
        self.setAccessibleName("Notes pane")
        self._reader = reader
        self._runner = runner
        self._outbox = outbox
        self._entity_id: str | None = None
        self._entries: list[ThreadEntry] = []
        self._sequence = 0
        self._task: Task[ThreadLoad] | None = None
        self.cards: list[NoteCard] = []
        self.editor: NoteEditor | None = None
        # The editors open now, by the key of their drafts: one editor per target.
        self.editors: dict[str, NoteEditor] = {}
        self._drafts = drafts_beside(outbox)
        # The drafts are reopened a turn of the event loop later, once the window is shown.
        self._reopen_timer = QTimer(self)
        self._reopen_timer.setSingleShot(True)
        self._reopen_timer.setInterval(0)
        self._reopen_timer.timeout.connect(self.reopen_drafts)
        self._quote_source: Callable[[], str] | None = None
        self._passage_source: Callable[[], Passage | None] | None = None
        self.highlights: list[Highlight] = []
        self.highlight_rows: list[HighlightRow] = []
        # A highlight asked for before its thread was read, and the one shown last.
        self._wanted_highlight: str | None = None
        self.current_highlight: str | None = None
        self.shown_for_highlight: QWidget | None = None
        # Why Memex cannot be reached, while the window knows it cannot (None: it can).
        self._unreachable: UserMessage | None = None

        self.heading = QLabel("Select an item to see its notes.")
        self.heading.setWordWrap(True)
        self.add_button = QPushButton("Add note")
        self.add_button.setAccessibleName("Add a note to this item")
        self.add_button.setToolTip(f"Add a note to this item ({_keys_of('add_note')})")
        self.add_button.setEnabled(False)
        self.add_button.clicked.connect(self._on_add_clicked)
        bar = QHBoxLayout()
        bar.addWidget(self.heading, 1)
        bar.addWidget(self.add_button)

        self._list = QWidget()
        self._list_layout = QVBoxLayout(self._list)
        self._list_layout.setContentsMargins(0, 0, 0, 0)
        self.highlight_heading = QLabel("")
        self.highlight_heading.setObjectName("highlightHeading")
        self.highlight_heading.setVisible(False)
        self._list_layout.addWidget(self.highlight_heading)
        self._list_layout.addStretch(1)
        self.scroll_area = QScrollArea()
        self.scroll_area.setWidgetResizable(True)
        self.scroll_area.setWidget(self._list)
        self.scroll_area.setAccessibleName("Notes")
        # The cards are framed themselves: a frame and a filled background around the list
        # drew an empty box under "Select an item to see its notes." and "No notes yet".
        self.scroll_area.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll_area.viewport().setAutoFillBackground(False)
        self._list.setAutoFillBackground(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addLayout(bar)
        layout.addWidget(self.scroll_area, 1)
        if self._drafts is not None:
            self._reopen_timer.start()

    # ------------------------------------------------------------------ public API

    def set_outbox(self, outbox: NoteOutbox | None) -> None:
        """Where new notes are queued; without one, notes can be read but not written.

        Editors writing to the outbox that goes keep their drafts and close; the drafts kept
        beside the new one are opened again.
        """
        if outbox is self._outbox:
            return
        self.keep_drafts()
        self._outbox = outbox
        self._drafts = drafts_beside(outbox)
        self.add_button.setEnabled(self._entity_id is not None and outbox is not None)
        if self._drafts is not None:
            self._reopen_timer.start()
        else:
            self._reopen_timer.stop()

    def set_quote_source(self, source: Callable[[], str] | None) -> None:
        """Where Add note finds the passage to quote (the reader's selection)."""
        self._quote_source = source

    def set_passage_source(self, source: Callable[[], Passage | None] | None) -> None:
        """Where Add note finds the passage to write the note on (the reader's selection,
        with its context): the note is then on that passage, highlighted."""
        self._passage_source = source

    @property
    def outbox(self) -> NoteOutbox | None:
        """Where notes (and highlights) are queued."""
        return self._outbox

    @property
    def entries(self) -> list[ThreadEntry]:
        """The thread shown now (roots, each with its replies)."""
        return self._entries

    def shown(self) -> list[tuple[int, ThreadEntry]]:
        """Every note shown, in display order, with its depth."""
        found: list[tuple[int, ThreadEntry]] = []
        for root in self._entries:
            found += root.walk()
        return found

    @Slot(str)
    def show_entity(self, entity_id: str) -> None:
        """Show the notes on an entity."""
        self._entity_id = entity_id
        self.refresh()

    @Slot(object)
    def on_store_changed(self, changes: ChangeSet) -> None:
        """Refresh when the cache changed this entity, a shown note or the links."""
        if self._entity_id is None or not changes:
            return
        shown = {entry.id for _d, entry in self.shown()} | {self._entity_id}
        if changes.edges_changed or changes.touches(shown):
            self.refresh()

    @Slot(object)
    def on_outbox_changed(self, _value: object = None) -> None:
        """Saves moved on (sent, accepted, failed): redraw when a pending note is shown."""
        if self._entity_id is not None and any(entry.pending for _d, entry in self.shown()):
            self.refresh()

    @Slot(object, object)
    def on_connection_changed(self, state: ConnectionState, words: StateWords | None) -> None:
        """The window's connection state changed: a queued note says at once that it waits
        for Memex while it cannot be reached, and only that while it can."""
        self._unreachable = unreachable_message(state, words)
        for card in self.cards:
            card.show_status(self._unreachable)
        for row in self.highlight_rows:
            row.show_status(self._unreachable)

    @Slot()
    def refresh(self) -> None:
        """Re-read the thread from the cache and the outbox (on a worker) and redraw it."""
        entity_id = self._entity_id
        if entity_id is None:
            return
        self._sequence += 1
        cache_path = self._reader.path
        if self._runner is None or cache_path is None:
            self._apply(load_thread(self._reader, self._outbox, entity_id, self._sequence))
            return
        if self._task is not None:
            self._task.cancel()
        self._task = (
            self._runner.run(
                load_thread_in_worker, cache_path, self._outbox, entity_id, self._sequence
            )
            .on_success(self._on_thread_loaded)
            .on_failure(self._on_thread_failed)
        )

    @Slot(object)
    def _on_thread_loaded(self, load: ThreadLoad) -> None:
        """Draw a loaded thread unless a newer one was asked for meanwhile."""
        if load.sequence != self._sequence or load.entity_id != self._entity_id:
            return
        self._task = None
        self._apply(load)

    @Slot(object)
    def _on_thread_failed(self, exc: Exception) -> None:
        """A thread could not be read (store problem): keep what is shown, say why."""
        if self.sender() is not self._task:
            return  # a superseded read that failed before it was cancelled
        self._task = None
        log.error("reading the notes failed", exc_info=exc)
        self.heading.setText("The notes could not be read. " + message_line(user_message(exc)))

    def _apply(self, load: ThreadLoad) -> None:
        """Show a loaded thread: heading, cards, and the Add note button."""
        self._entries = load.entries
        self.heading.setText(thread_heading(len(self.shown()), load.title, load.mentions))
        self.add_button.setEnabled(self._outbox is not None)
        self.highlights = load.highlights
        self._rebuild_highlights()
        self._rebuild_cards(load.html)
        self._chain_tab_order()
        if self._wanted_highlight is not None:
            wanted, self._wanted_highlight = self._wanted_highlight, None
            self.show_highlight(wanted)
        self.thread_shown.emit()

    @Slot()
    def add_note(self) -> NoteEditor | None:
        """Add note: an editor on the item shown, quoting the passage selected in the reader."""
        if self._entity_id is None or self._outbox is None:
            return None
        selected = self._passage_source() if self._passage_source is not None else None
        if selected is not None and isinstance(self._outbox, Outbox) and self._reader.path:
            return self.note_on_passage(selected)
        passage = self._quote_source() if self._quote_source is not None else ""
        return self.open_editor(self._entity_id, draft=quoted_passage(passage))

    def note_on_passage(self, passage: Passage) -> NoteEditor | None:
        """A note on a passage of the item shown: saving it queues the passage's highlight
        (unless it has one) and the note linked to it, quoting it."""
        if self._entity_id is None:
            return None
        queue = self._passage_queue(passage, self._entity_id)
        if queue is None:
            return None
        quoted = highlight_text(_passage_highlight(passage), 120)
        label = f"{quoted} in {self._label_of(self._entity_id)}"
        return self.open_editor(
            self._entity_id,
            draft=quoted_passage(passage.quote),
            queue=queue,
            label=label,
            passage=passage,
        )

    def _passage_queue(self, passage: Passage, item_id: str) -> PassageNoteQueue | None:
        """Where a note on a passage of ``item_id`` is queued: its highlight first."""
        cache_path = self._reader.path
        if not isinstance(self._outbox, Outbox) or cache_path is None:
            return None
        return PassageNoteQueue(
            self._outbox, lambda: thread_reader(cache_path), passage, target_id=item_id
        )

    @Slot()
    def reply_to_current(self) -> NoteEditor | None:
        """Reply: answer the note in focus, else the newest note shown (None without notes)."""
        if self._outbox is None or not self.cards:
            return None
        focused = QApplication.focusWidget()
        for card in self.cards:
            if focused is not None and (card is focused or card.isAncestorOf(focused)):
                return self.open_editor(card.entry.id)
        newest = max(self.cards, key=lambda card: (card.entry.created_at, card.entry.id))
        return self.open_editor(newest.entry.id)

    def open_editor(
        self,
        target_id: str,
        draft: str = "",
        *,
        queue: NoteQueue | None = None,
        label: str | None = None,
        passage: Passage | None = None,
        is_reply: bool | None = None,
        item_id: str | None = None,
    ) -> NoteEditor:
        """Open the note editor for a note on ``target_id`` (the item or a note to answer).

        ``draft`` is the text the editor starts with (a quoted passage), unless a draft the
        person left for the same target (and ``passage``) is kept; ``queue`` where the note
        is queued (the outbox, or a passage's queue that highlights it first). An editor
        already open on the same target is brought forward instead of a second one.
        ``is_reply`` and ``item_id`` default to what the pane shows.
        """
        if self._outbox is None:
            raise RuntimeError("no outbox to queue notes in")
        on_passage = (
            DraftPassage(passage.quote, passage.prefix, passage.suffix) if passage else None
        )
        editor = self.editors.get(draft_key(target_id, passage.quote if passage else ""))
        if editor is not None:
            editor.raise_()
            editor.activateWindow()
            self.editor = editor
            return editor
        editor = NoteEditor(
            self._reader,
            queue or self._outbox,
            target_id=target_id,
            target_label=label or self._label_of(target_id),
            is_reply=target_id != self._entity_id if is_reply is None else is_reply,
            runner=self._runner,
            draft=draft,
            drafts=self._drafts,
            item_id=item_id or self._entity_id or target_id,
            passage=on_passage,
            parent=self,
        )
        editor.note_queued.connect(self._on_editor_note_queued)
        editor.url_queued.connect(self._on_editor_url_queued)
        editor.finished.connect(self._on_editor_finished)
        self.editors[editor.draft_key] = editor
        self.editor = editor
        editor.show()
        return editor

    @Slot()
    def reopen_drafts(self) -> list[NoteEditor]:
        """Open an editor on every draft kept and not open yet, and say how many."""
        if self._drafts is None or self._outbox is None:
            return []
        opened = [
            self._reopen(draft) for draft in self._drafts.all() if draft.key not in self.editors
        ]
        if opened and self._runner is not None:
            self._runner.messages.inform(reopened_words(len(opened)))
        return opened

    def _reopen(self, draft: Draft) -> NoteEditor:
        """An editor on a kept draft, on what it was begun on (a passage: highlighted again)."""
        passage = (
            Passage(draft.passage.quote, draft.passage.prefix, draft.passage.suffix)
            if draft.passage is not None
            else None
        )
        item_id = draft.item_id or draft.target_id
        queue = self._passage_queue(passage, item_id) if passage is not None else None
        return self.open_editor(
            draft.target_id,
            draft=quoted_passage(passage.quote) if passage is not None else "",
            queue=queue,
            label=draft.label or None,
            passage=passage,
            is_reply=draft.is_reply,
            item_id=item_id,
        )

    def keep_drafts(self) -> bool:
        """The window is closing: every open editor keeps its words as a draft and closes.

        When some editor's words could not be kept (it says why), the person is asked
        whether to close anyway: False when they keep writing. A question, not a refusal:
        a full disk must not keep anyone from quitting (or the system from logging out).
        """
        self._reopen_timer.stop()
        editors = list(self.editors.values())
        unkept = [editor for editor in editors if not editor.close_keeping_draft()]
        if not unkept:
            return True
        if not note_editor.close_over_unkept_notes(self.window(), len(unkept)):
            return False
        for editor in unkept:
            editor.discard_unkept()
        return True

    @Slot(int)
    def _on_editor_finished(self, _result: int) -> None:
        """Saved or closed, an editor is not reused: free it."""
        editor = self.sender()
        if not isinstance(editor, NoteEditor):
            return
        if self.editors.get(editor.draft_key) is editor:
            del self.editors[editor.draft_key]
        editor.deleteLater()

    def _label_of(self, entity_id: str) -> str:
        """A short description of what a note will be attached to."""
        for _depth, entry in self.shown():
            if entry.id == entity_id:
                return note_label(entry.entity)
        row = self._reader.get(entity_id)
        return (row.title if row is not None else "") or entity_id

    # ------------------------------------------------------------------ highlights

    def highlight_named(self, highlight_id: str) -> Highlight | None:
        """The listed highlight known by this id (cached, pending or server id)."""
        return next((h for h in self.highlights if highlight_id in h.names()), None)

    def show_highlight(self, highlight_id: str) -> QWidget | None:
        """Show a highlight's note (its first), else its line in the list, with focus.

        A highlight not listed yet (the pane is still reading the thread) is shown once the
        thread is read.
        """
        highlight = self.highlight_named(highlight_id)
        if highlight is None:
            self._wanted_highlight = highlight_id
            if self._task is None:
                self.refresh()
            return None
        self.current_highlight = highlight.id
        card = next(
            (c for c in self.cards if c.highlight is not None and c.highlight.id == highlight.id),
            None,
        )
        row = next((r for r in self.highlight_rows if r.highlight.id == highlight.id), None)
        target: QWidget | None = card or row
        if target is not None:
            self.scroll_area.ensureWidgetVisible(target, 0, 8)
            target.setFocus(Qt.FocusReason.OtherFocusReason)
        self.shown_for_highlight = target
        return target

    def _rebuild_highlights(self) -> None:
        """Replace the highlight list by the current item's highlights."""
        for row in self.highlight_rows:
            self._list_layout.removeWidget(row)
            row.deleteLater()
        self.highlight_rows = []
        count = len(self.highlights)
        self.highlight_heading.setText(f"{count} highlight{'s' if count != 1 else ''}")
        self.highlight_heading.setVisible(bool(count))
        for position, highlight in enumerate(self.highlights, start=1):
            row = HighlightRow(highlight, unreachable=self._unreachable)
            row.picked.connect(self._on_row_picked)
            self._list_layout.insertWidget(position, row)
            self.highlight_rows.append(row)

    @Slot(str)
    def _on_row_picked(self, highlight_id: str) -> None:
        """A highlight of the list was picked: its note, and the passage in the reader."""
        self.show_highlight(highlight_id)
        self.highlight_picked.emit(highlight_id)

    # ------------------------------------------------------------------ drawing

    def _rebuild_cards(self, html: dict[str, str]) -> None:
        """Replace the note cards by the current thread's (their HTML rendered beforehand)."""
        for card in self.cards:
            self._list_layout.removeWidget(card)
            card.deleteLater()
        self.cards = []
        for depth, entry in self.shown():
            highlight = linked_highlight(entry, self.highlights)
            card = NoteCard(
                entry,
                html.get(entry.id, ""),
                depth,
                highlight=highlight,
                unreachable=self._unreachable,
            )
            card.reply_requested.connect(self._on_card_reply_requested)
            card.link_activated.connect(self._on_card_link_activated)
            self._list_layout.insertWidget(self._list_layout.count() - 1, card)
            self.cards.append(card)

    def _chain_tab_order(self) -> None:
        """Tab goes from Add note through the highlights and the notes as they stand, then
        leaves the pane: rows and cards made after the window's other panes would otherwise
        come after those in the focus chain."""
        stops: list[QWidget] = [*self.highlight_rows]
        for card in self.cards:
            stops += [card.reply, card.body, card.toggle]
        previous: QWidget = self.add_button
        for widget in stops:
            QWidget.setTabOrder(previous, widget)
            previous = widget

    # ------------------------------------------------------------------ slots

    @Slot()
    def _on_add_clicked(self) -> None:
        """Add note: compose a note on the selected item."""
        self.add_note()

    @Slot(str)
    def _on_card_reply_requested(self, note_id: str) -> None:
        """Reply: compose an answer to that note."""
        if self._outbox is not None:
            self.open_editor(note_id)

    @Slot(str)
    def _on_card_link_activated(self, entity_id: str) -> None:
        """A reference card was clicked: open the item it points at."""
        self.entity_activated.emit(entity_id)

    @Slot(str)
    def _on_editor_note_queued(self, op_id: str) -> None:
        """The note is in the outbox: show it at once as pending."""
        self.refresh()
        self.note_queued.emit(op_id)

    @Slot(str)
    def _on_editor_url_queued(self, op_id: str) -> None:
        """A link dropped on the editor is queued: let the window send it."""
        self.link_queued.emit(op_id)
