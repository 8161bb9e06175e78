"""Highlights as the outbox queues them: the ``/save-content-entity`` data of a ``selector``.

A passage selected in the reader becomes a ``text_selector`` on the item it is in: the quote,
and the words just before and after it, so that any client can find the passage again where
its words occur more than once. The field names are those :mod:`memex_desktop.api.content`
reads first (the context's are inferred; a server that refuses one gets the save without it,
see ``SyncEngine._send``). A note on a passage is queued right after its highlight and names
it ``pending:<external_id>`` until the highlight has a server id (:mod:`.pending_parents`),
so both work offline and reach the server linked, in that order.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from memex_desktop.api.content import (
    SELECTOR_PREFIX_KEYS,
    SELECTOR_QUOTE_KEYS,
    SELECTOR_START_KEYS,
    SELECTOR_SUFFIX_KEYS,
    TEXT_SELECTOR,
)
from memex_desktop.store import CacheReader, EnqueueResult, Outbox
from memex_desktop.store.highlights import Highlight, item_highlights, same_passage
from memex_desktop.sync.notes import annotation_payload

# Characters of context kept on each side of a quote: enough to tell apart the places where
# a short quote occurs, short enough to stay the same when a page is edited elsewhere.
CONTEXT_CHARS = 40
# A quote longer than this is cut (a selection of a whole book is no highlight).
MAX_QUOTE_CHARS = 20_000
# Words of a quote tried when the whole quote is not in the text (an edited page, a quote
# made on another rendering): at least this many, so a word alone is never marked.
FALLBACK_WORDS = (12, 6)


@dataclass(frozen=True)
class Passage:
    """A quote and the text just before and after it, as found in the item's text; in a
    video's transcript, also the moment (seconds) of the line it starts in."""

    quote: str
    prefix: str = ""
    suffix: str = ""
    start_s: float | None = None


def _readable(text: str) -> str:
    """Text of a document as people read it: paragraph and line separators as newlines."""
    return text.replace("\u2029", "\n").replace("\u2028", "\n").replace("\xa0", " ")


def passage_in(text: str, start: int, end: int, context: int = CONTEXT_CHARS) -> Passage | None:
    """The passage ``text[start:end]`` with up to ``context`` characters around it; None when
    the range holds nothing but white space."""
    start, end = max(0, min(start, end)), min(len(text), max(start, end))
    raw = text[start:end]
    stripped = raw.strip()
    if not stripped:
        return None
    start += len(raw) - len(raw.lstrip())
    end = start + len(stripped)
    quote = _readable(stripped)[:MAX_QUOTE_CHARS]
    return Passage(
        quote=quote,
        prefix=_readable(text[max(0, start - context) : start]),
        suffix=_readable(text[end : end + context]),
    )


# ----------------------------------------------------------------------------- finding again


@dataclass(frozen=True)
class Span:
    """Where a highlight sits in a document: [start, end) in document positions."""

    start: int
    end: int


def _words_pattern(words: Sequence[str]) -> str:
    """A pattern matching these words separated by any white space."""
    return r"\s+".join(re.escape(word) for word in words)


def _common_tail(a: str, b: str) -> int:
    """How many characters ``a`` and ``b`` share at their ends (white space squeezed)."""
    a, b = " ".join(a.split()), " ".join(b.split())
    count = 0
    while count < min(len(a), len(b)) and a[-1 - count] == b[-1 - count]:
        count += 1
    return count


def _common_head(a: str, b: str) -> int:
    """How many characters ``a`` and ``b`` share at their starts (white space squeezed)."""
    a, b = " ".join(a.split()), " ".join(b.split())
    count = 0
    while count < min(len(a), len(b)) and a[count] == b[count]:
        count += 1
    return count


def find_passage(text: str, quote: str, prefix: str = "", suffix: str = "") -> Span | None:
    """Where ``quote`` is in ``text``: the occurrence whose context agrees best with
    ``prefix`` and ``suffix`` (the first among equals), or None when it is not there."""
    words = quote.split()
    if not words:
        return None
    attempts: list[tuple[Sequence[str], int]] = [(words, 0), (words, re.IGNORECASE)]
    for count in FALLBACK_WORDS:
        if len(words) > count:
            attempts.append((words[:count], re.IGNORECASE))
    for attempt_words, flags in attempts:
        pattern = re.compile(_words_pattern(attempt_words), flags)
        best: tuple[int, int, int] | None = None
        for found in pattern.finditer(text):
            start, end = found.start(), found.end()
            score = 0
            if prefix.strip():
                score += _common_tail(text[max(0, start - 2 * len(prefix)) : start], prefix)
            if suffix.strip():
                score += _common_head(text[end : end + 2 * len(suffix)], suffix)
            if best is None or score > best[0]:
                best = (score, start, end)
        if best is not None:
            return Span(best[1], best[2])
    return None


@dataclass(frozen=True)
class TimedLine:
    """A transcript line of a rendered item: its moment, and where it starts and ends."""

    seconds: int
    start: int
    end: int


def moment_spans(lines: Sequence[TimedLine], start_s: float, end_s: float | None) -> list[Span]:
    """The transcript lines a moment (or span) of a video marks: the line being spoken at
    ``start_s``, and every later one that starts before ``end_s``."""
    if not lines:
        return []
    ordered = sorted(lines, key=lambda line: line.seconds)
    first = 0
    for index, line in enumerate(ordered):
        if line.seconds <= start_s:
            first = index
    marked = [ordered[first]]
    if end_s is not None:
        marked += [line for line in ordered[first + 1 :] if line.seconds < end_s]
    return [Span(line.start, line.end) for line in marked]


# ----------------------------------------------------------------------------- saving


def selector_payload(passage: Passage, *, target_id: str, external_id: str) -> dict[str, Any]:
    """The ``/save-content-entity`` data of a highlight of ``passage`` in ``target_id``."""
    data: dict[str, Any] = {
        "type": "selector",
        "external_id": external_id,
        "target_id": target_id,
        "selector_type": TEXT_SELECTOR,
        SELECTOR_QUOTE_KEYS[0]: passage.quote,
    }
    if passage.prefix:
        data[SELECTOR_PREFIX_KEYS[0]] = passage.prefix
    if passage.suffix:
        data[SELECTOR_SUFFIX_KEYS[0]] = passage.suffix
    if passage.start_s is not None:
        # Where Memex keeps a video highlight's moment (``start_time``, research §9.6).
        data[SELECTOR_START_KEYS[0]] = passage.start_s
    return data


def with_highlight(note: dict[str, Any], highlight_ref: str) -> dict[str, Any]:
    """A note's data also linked to a highlight (after what it is attached to)."""
    ids = [i for i in note.get("reference_content_ids") or [] if isinstance(i, str)]
    if highlight_ref not in ids:
        ids.append(highlight_ref)
    return {**note, "reference_content_ids": ids}


@dataclass(frozen=True)
class QueuedHighlight:
    """A highlight asked for: the one now shown for it (new or already there) and the enqueue
    result when it was queued now (None when the passage was highlighted already)."""

    highlight: Highlight
    result: EnqueueResult | None


def existing_highlight(
    reader: CacheReader, outbox: Outbox | None, target_id: str, passage: Passage
) -> Highlight | None:
    """A highlight of the same passage of the item, cached or queued, if there is one."""
    for highlight in item_highlights(reader, outbox, target_id):
        if same_passage(highlight, passage.quote, passage.prefix, passage.suffix):
            return highlight
    return None


def queue_highlight(
    outbox: Outbox, reader: CacheReader, passage: Passage, *, target_id: str
) -> QueuedHighlight:
    """Queue a highlight of ``passage`` in ``target_id`` (committed on return), unless that
    passage is highlighted already.

    Raises:
        ValueError: the passage is empty.
    """
    if not passage.quote.strip():
        raise ValueError("the highlight has no text")
    row = reader.get(target_id)
    target = row.id if row is not None else target_id
    found = existing_highlight(reader, outbox, target, passage)
    if found is not None:
        return QueuedHighlight(found, None)
    external_id = str(uuid.uuid4())
    data = selector_payload(passage, target_id=target, external_id=external_id)
    result = outbox.enqueue_entity(data, external_id=external_id)
    assert result.op is not None
    return QueuedHighlight(Highlight.from_op(result.op, target), result)


class PassageNoteQueue:
    """The outbox as the note editor writes a note on a passage to it.

    Saving the note first queues the passage's highlight (unless the passage has one), then
    the note, linked to the item and to that highlight. Both are keyed by client ids, so a
    second try after a failure queues neither twice. ``reader_for`` gives the calling
    thread's cache reader (the editor commits on a worker).
    """

    def __init__(
        self,
        outbox: Outbox,
        reader_for: Callable[[], CacheReader],
        passage: Passage,
        *,
        target_id: str,
    ) -> None:
        self._outbox = outbox
        self._reader_for = reader_for
        self._passage = passage
        self._target_id = target_id
        self.highlight: QueuedHighlight | None = None

    def enqueue_entity(self, data: dict[str, Any], *, external_id: str) -> EnqueueResult:
        """Queue the highlight (once), then the note linked to it."""
        if self.highlight is None:
            self.highlight = queue_highlight(
                self._outbox, self._reader_for(), self._passage, target_id=self._target_id
            )
        return self._outbox.enqueue_entity(
            with_highlight(data, self.highlight.highlight.id), external_id=external_id
        )

    def enqueue_url(self, url: str) -> EnqueueResult:
        """A link dropped on the note is saved as usual."""
        return self._outbox.enqueue_url(url)


def queue_note_on_passage(
    outbox: Outbox, reader: CacheReader, text: str, passage: Passage, *, target_id: str
) -> tuple[QueuedHighlight, EnqueueResult]:
    """Queue a highlight of ``passage`` and a note on it, as the editor's queue does, in
    one call (committed on return).

    Raises:
        ValueError: the note or the passage is empty.
    """
    if not text.strip():
        raise ValueError("the note has no text")
    queue = PassageNoteQueue(outbox, lambda: reader, passage, target_id=target_id)
    external_id = str(uuid.uuid4())
    row = reader.get(target_id)
    note = annotation_payload(
        text, target_id=row.id if row else target_id, references=[], external_id=external_id
    )
    result = queue.enqueue_entity(note, external_id=external_id)
    assert queue.highlight is not None
    return queue.highlight, result
