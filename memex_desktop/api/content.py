"""How to read a Memex entity's JSON: the one place every layer asks what an item says.

The store indexes what these functions find, the renderer shows it, the sync engine pages by
it, and the thread pane links by it, so a word the reader shows is a word search finds and a
reference card is a stored edge. Everything here takes wire JSON (``dict``/``list``/scalars of
any type, possibly hostile) and never raises on a malformed value: a field of the wrong type
reads as absent.
"""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from html import unescape
from typing import Any
from urllib.parse import urlsplit

from memex_desktop.api.plain_text import is_plain_line, plain_excerpt
from memex_desktop.api.urls import hidden_characters

JsonObject = dict[str, Any]

# ----------------------------------------------------------------------------- scalars


def text_of(value: Any) -> str:
    """A string field as text ('' when absent or not a string)."""
    return value if isinstance(value, str) else ""


def strings_in(value: Any) -> list[str]:
    """The strings of a list field (``tag_ids``, ``reference_content_ids``...); [] otherwise."""
    return (
        [item for item in value if isinstance(item, str) and item]
        if isinstance(value, list)
        else []
    )


def finite_number(value: int | float) -> bool:
    """Whether a JSON number is finite as a float (not NaN, an infinity or 10**400)."""
    if isinstance(value, int):
        return abs(value) <= _LARGEST_FLOAT_INT
    return math.isfinite(value)


# Integers beyond this have no float (math.isfinite and float() raise OverflowError).
_LARGEST_FLOAT_INT = int(sys.float_info.max)


def localized_text(value: Any) -> str:
    """A per-language dict (``{"en": "..."}``) or a plain string as one text."""
    if isinstance(value, dict):
        return "\n".join(text for text in value.values() if isinstance(text, str))
    return text_of(value)


# ----------------------------------------------------------------------------- field roles

# Fields that are identifiers or bookkeeping: neither searchable words nor reading matter.
BOOKKEEPING_KEYS = frozenset(
    {
        "id", "type", "user_id", "external_id", "subreddit_id", "tag_ids",
        "reference_content_ids", "created_at", "updated_at", "metadata", "normalized_url",
        "content_type", "save_type", "content_id", "contentEntityId", "userLibraryId",
        "mime_type", "mimeType", "storage_path", "storagePath", "selector_type", "target_id",
    }
)  # fmt: skip
# Names of ids of other rows (``channel_id``, ``speakerIds``) and of hashes, at any depth.
_ID_KEY = re.compile(r"(?:^|_)ids?$|[a-z0-9]Ids?$")
_HASH_KEY = re.compile(r"(?:^|_)(?:hash|sha1|sha256|md5|checksum|etag)$|[a-z0-9](?:Hash|Checksum)$")


def is_bookkeeping(key: str) -> bool:
    """Whether a field (at any depth) holds an id, a hash or bookkeeping, not reading matter."""
    return key in BOOKKEEPING_KEYS or bool(_ID_KEY.search(key) or _HASH_KEY.search(key))


# Fields holding web addresses: shown as links, not indexed as words.
LINK_KEYS = frozenset(
    {
        "url", "canonical_url", "favicon_url", "thumbnail_url", "original_url", "source_url",
        "permalink", "author_favicon_url", "subreddit_favicon_url", "preview_url",
    }
)  # fmt: skip
# Fields that search adds around an entity: other entities, not this one's words.
NESTED_KEYS = ("annotations", "references", "resolvedReferences")


# ----------------------------------------------------------------------------- times

# Numbers below this are seconds, above it milliseconds: 1e11 s is the year 5138, 1e11 ms is
# March 1973, and no Memex item is older than that.
_SECONDS_BELOW = 1e11
# SQLite INTEGER and Python's datetime both end here; later "times" are garbage, not dates.
_LARGEST_MS = 253_402_300_799_999  # 9999-12-31T23:59:59.999Z
_NUMBER = re.compile(r"-?\d+(?:\.\d*)?")


def epoch_ms(value: Any) -> int | None:
    """Epoch milliseconds of a wire timestamp, or None when it is not one.

    One rule for every layer: a number (or a numeric string) below 1e11 is seconds, otherwise
    milliseconds; an ISO-8601 string without an offset is UTC, as the service writes them.
    Booleans, NaN, infinities and times past the year 9999 are not timestamps.
    """
    if isinstance(value, bool) or value is None:
        return None
    number: float
    if isinstance(value, int) and abs(value) > _LARGEST_MS:
        return None  # also past what a float holds: 10**400 is a JSON integer too
    if isinstance(value, int | float):
        number = float(value)
    elif isinstance(value, str):
        text = value.strip()
        if not text:
            return None
        if _NUMBER.fullmatch(text):
            number = float(text)
        else:
            return _iso_ms(text)
    else:
        return None
    if not math.isfinite(number):
        return None
    milliseconds = number * 1000 if abs(number) < _SECONDS_BELOW else number
    return int(milliseconds) if abs(milliseconds) <= _LARGEST_MS else None


def is_timestamp(value: Any) -> bool:
    """Whether :func:`epoch_ms` reads ``value`` as a time (fast for the usual integer)."""
    if type(value) is int:
        return abs(value) <= _LARGEST_MS
    return epoch_ms(value) is not None


def _iso_ms(text: str) -> int | None:
    """An ISO-8601 date or time as epoch milliseconds (UTC when it names no offset)."""
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return round(moment.timestamp() * 1000)


def local_time(ms: int) -> datetime | None:
    """An epoch-milliseconds instant as an aware datetime in the person's time zone."""
    try:
        return datetime.fromtimestamp(ms / 1000, tz=UTC).astimezone()
    except (OverflowError, OSError, ValueError):
        return None


def time_text(value: Any) -> str | None:
    """A wire timestamp as the person's local date and time (``2026-12-01 13:45``).

    Every pane, the command line and the export show instants through this, so one note
    shows one time everywhere. Strings that are not timestamps are returned as given.
    """
    ms = epoch_ms(value)
    moment = local_time(ms) if ms is not None else None
    if moment is None:
        return (value.strip() or None) if isinstance(value, str) else None
    return moment.strftime("%Y-%m-%d %H:%M")


def date_text(value: Any) -> str | None:
    """A wire timestamp as the person's local date (``1 Dec 2026``), for compact lists."""
    ms = epoch_ms(value)
    moment = local_time(ms) if ms is not None else None
    return f"{moment.day} {moment:%b %Y}" if moment is not None else None


# A field named like a time whose value reads as an instant after 2000 is a date; other
# numbers under such names (a video's start_time in seconds) are not.
_TIME_FIELD = re.compile(r"(?:^|_)(?:at|date|time|timestamp)$|[a-z](?:At|Date|Time)$")
_YEAR_2000_MS = 946_684_800_000


# An integer in this range is epoch milliseconds (2000 to 2100) whatever its field is named:
# 13 digits no count or score reaches, and an ISBN-13 starts above it (978...).
_YEAR_2100_MS = 4_102_444_800_000


def field_instant(key: str, value: Any) -> int | None:
    """Epoch milliseconds of a field that holds a date (``published_at``, or any integer that
    can only be epoch milliseconds), else None."""
    if isinstance(value, bool):
        return None
    if not _TIME_FIELD.search(key):
        is_epoch = isinstance(value, int) and _YEAR_2000_MS <= value < _YEAR_2100_MS
        return value if is_epoch else None
    ms = epoch_ms(value)
    return ms if ms is not None and ms >= _YEAR_2000_MS else None


# Fields holding a length of time, and how many of them make a second.
_DURATION_KEYS = (
    ("duration_s", 1), ("duration", 1), ("duration_seconds", 1), ("length_s", 1),
    ("duration_ms", 1000), ("durationMs", 1000),
)  # fmt: skip


def duration_key_scale(key: str) -> int | None:
    """How many units of a duration field make a second, or None when it names no duration."""
    return next((scale for name, scale in _DURATION_KEYS if name == key), None)


def duration_seconds(data: JsonObject) -> float | None:
    """How long a recording or video is, in seconds (``duration_s``, ``duration_ms``...)."""
    for key, scale in _DURATION_KEYS:
        seconds = seconds_of(data.get(key))
        if seconds is not None and not isinstance(data.get(key), str):
            return seconds / scale
    return None


def selector_target(data: JsonObject) -> str | None:
    """The item a highlight (``selector``) belongs to: its ``target_id``."""
    target = data.get("target_id")
    return target.strip() if isinstance(target, str) and target.strip() else None


# ----------------------------------------------------------------------------- highlights

# How a highlight (``selector``) names its passage. Memex keeps the quote in ``text`` and a
# video moment in ``start_time`` (research §9.6); the context around a quote, which finds the
# passage again where its words occur more than once, has no known field: it is INFERRED,
# written under the first name of each list and read under any of them (the names of the W3C
# text quote selector and of other annotation tools), also inside a nested ``selector``.
SELECTOR_QUOTE_KEYS = ("text", "exact", "quote", "highlight")
SELECTOR_PREFIX_KEYS = ("prefix", "text_prefix", "context_before", "before")
SELECTOR_SUFFIX_KEYS = ("suffix", "text_suffix", "context_after", "after")
SELECTOR_START_KEYS = ("start_time", "startTime", "start")
SELECTOR_END_KEYS = ("end_time", "endTime", "end")
TEXT_SELECTOR = "text_selector"
TIME_SELECTOR = "time_selector"
# Selector types that mark a passage of text (``text_chunk``: a paragraph a note quotes).
TEXT_SELECTOR_TYPES = frozenset({TEXT_SELECTOR, "text_chunk", "text_quote", "TextQuoteSelector"})


@dataclass(frozen=True)
class SelectorPassage:
    """What a highlight marks: a quote with the text around it, or a span of a video."""

    selector_type: str
    quote: str = ""
    prefix: str = ""
    suffix: str = ""
    start_s: float | None = None
    end_s: float | None = None

    @property
    def is_time(self) -> bool:
        """Whether it marks a moment (or span) of a video rather than a passage of text."""
        return self.start_s is not None and (
            self.selector_type == TIME_SELECTOR or not self.quote.strip()
        )


def _first_text(data: JsonObject, keys: tuple[str, ...]) -> str:
    """The first non-empty string among ``keys`` of ``data`` or of its nested ``selector``."""
    nested = data.get("selector")
    for source in (data, nested if isinstance(nested, dict) else {}):
        for key in keys:
            value = source.get(key)
            if isinstance(value, str) and value.strip():
                return value
    return ""


def _first_seconds(data: JsonObject, keys: tuple[str, ...]) -> float | None:
    """The first usable number of seconds among ``keys`` (also in a nested ``selector``)."""
    nested = data.get("selector")
    for source in (data, nested if isinstance(nested, dict) else {}):
        for key in keys:
            seconds = seconds_of(source.get(key))
            if seconds is not None:
                return seconds
    return None


def selector_passage(data: JsonObject) -> SelectorPassage:
    """The passage or span a highlight marks, read leniently (absent fields read as empty)."""
    kind = text_of(data.get("selector_type")).strip() or text_of(data.get("selectorType"))
    start = _first_seconds(data, SELECTOR_START_KEYS)
    end = _first_seconds(data, SELECTOR_END_KEYS)
    return SelectorPassage(
        selector_type=kind.strip() or (TIME_SELECTOR if start is not None else TEXT_SELECTOR),
        quote=_first_text(data, SELECTOR_QUOTE_KEYS),
        prefix=_first_text(data, SELECTOR_PREFIX_KEYS),
        suffix=_first_text(data, SELECTOR_SUFFIX_KEYS),
        start_s=start,
        end_s=end if end is not None and start is not None and end >= start else None,
    )


def summary_thread(data: JsonObject) -> str | None:
    """The chat thread holding an item's AI summary (audio recordings keep its id in
    ``metadata.summary``); a text there is a summary itself, not an id."""
    metadata = data.get("metadata")
    found = metadata.get("summary") if isinstance(metadata, dict) else None
    if not isinstance(found, str) or not found.strip() or len(found) > 200:
        return None
    return None if any(char.isspace() for char in found.strip()) else found.strip()


def quoted_item(data: JsonObject) -> str | None:
    """The id of the tweet a tweet quotes (``quote_tweet``, an id or an object with one)."""
    quoted = data.get("quote_tweet")
    if isinstance(quoted, dict):
        quoted = quoted.get("id")
    return quoted.strip() if isinstance(quoted, str) and quoted.strip() else None


# ----------------------------------------------------------------------------- rich text

# Node types that name another item: the stored form and the editor's two forms (research
# §9.4). Image nodes may also carry an item id.
REFERENCE_NODE_TYPES = frozenset(
    {"memex-reference", "memex-inline-reference", "memex-block-reference"}
)
_IMAGE_NODE = "image"
# Attribute keys holding the referenced id, in the order first-party code reads them.
REFERENCE_ID_KEYS = (
    "content_id",
    "contentId",
    "contentEntityId",
    "entityId",
    "selector_id",
    "selectorId",
    "image_id",
    "imageId",
)
_MOMENT_KEYS = ("startTime", "start_time", "start", "offset", "timestamp", "time")
_BLOCK_NODES = frozenset(
    {
        "paragraph", "heading", "listItem", "list_item", "blockquote", "codeBlock",
        "code_block", "tableRow", "horizontalRule", "horizontal_rule",
    }
)  # fmt: skip
_BREAK_NODES = frozenset({"hardBreak", "hard_break"})


@dataclass(frozen=True)
class Reference:
    """An item named by a node of rich text, with a video moment when the node carries one."""

    target: str
    seconds: float | None = None


def reference_target(node: Any) -> str | None:
    """The item id a reference (or image) node names, or None for any other node."""
    if not isinstance(node, dict):
        return None
    kind = text_of(node.get("type"))  # a list or an object is no type (nor hashable)
    if kind not in REFERENCE_NODE_TYPES and kind != _IMAGE_NODE:
        return None
    attrs = node.get("attrs")
    if not isinstance(attrs, dict):
        return None
    for key in REFERENCE_ID_KEYS:
        value = attrs.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def rich_text_references(doc: Any) -> list[Reference]:
    """Every item named by reference nodes anywhere in a rich-text document, in order."""
    found: list[Reference] = []
    for node in _nodes(doc):
        target = reference_target(node)
        if target is not None:
            found.append(Reference(target, moment_of(node.get("attrs"))))
    return found


def rich_text(doc: Any) -> str:
    """The plain text of a ProseMirror document: text nodes in order, one line per block."""
    parts: list[str] = []
    _add_rich_text(doc, parts, 0)
    return "".join(parts).strip()


# How deep the recursive walk of rich text goes before the explicit stack takes over: a
# hostile document can nest deeper than Python's recursion limit.
_RECURSIVE_DEPTH = 100


def _add_rich_text(node: Any, parts: list[str], depth: int) -> None:
    """Append the text of ``node`` to ``parts``, a line end after each block.

    A recursion (as :func:`_add_rich_text_deep` walks, in the same order): the notes of
    the store benchmark's library read in 19.6 instead of 37.1 µs each (best of five). The
    loop over a node's children is written out for objects and for lists alike: handing an
    object's children to the list branch took 25 µs a note, one call more per block.
    """
    if isinstance(node, dict):
        kind = node.get("type")
        if kind == "text":
            text = node.get("text")
            if isinstance(text, str):
                parts.append(text)
            return
        if not isinstance(kind, str):
            kind = ""  # a list or an object is no type (nor hashable)
        if kind in _BREAK_NODES:
            parts.append("\n")
            return
        children = node.get("content")
        if isinstance(children, list):
            if depth < _RECURSIVE_DEPTH:
                for child in children:
                    _add_rich_text(child, parts, depth + 1)
            else:
                _add_rich_text_deep(children, parts)
        if kind in _BLOCK_NODES:
            parts.append("\n")
    elif isinstance(node, str):
        parts.append(node)
    elif isinstance(node, list):
        if depth < _RECURSIVE_DEPTH:
            for child in node:
                _add_rich_text(child, parts, depth + 1)
        else:
            _add_rich_text_deep(node, parts)


def _add_rich_text_deep(doc: Any, parts: list[str]) -> None:
    """:func:`_add_rich_text` with an explicit stack, for any depth."""
    stack: list[Any] = [doc]
    while stack:
        node = stack.pop()
        if isinstance(node, str):  # text in a list, or a block's end marker pushed below
            parts.append(node)
            continue
        if isinstance(node, list):
            stack.extend(reversed(node))
            continue
        if not isinstance(node, dict):
            continue
        kind = text_of(node.get("type"))
        if kind == "text":
            parts.append(text_of(node.get("text")))
            continue
        if kind in _BREAK_NODES:
            parts.append("\n")
            continue
        if kind in _BLOCK_NODES:
            stack.append("\n")
        children = node.get("content")
        if isinstance(children, list):
            stack.extend(reversed(children))


def _nodes(doc: Any) -> Iterator[JsonObject]:
    """Every object node of a rich-text document, depth first, in document order."""
    stack: list[Any] = [doc]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            stack.extend(reversed(node))
        elif isinstance(node, dict):
            yield node
            children = node.get("content")
            if isinstance(children, list):
                stack.extend(reversed(children))


def moment_of(data: Any) -> float | None:
    """A video moment (seconds) carried by selector-like attributes, if any."""
    if not isinstance(data, dict):
        return None
    for key in _MOMENT_KEYS:
        value = data.get(key)
        if isinstance(value, int | float) and not isinstance(value, bool):
            if finite_number(value):
                return float(value)
        elif isinstance(value, str) and _NUMBER.fullmatch(value.strip()):
            return float(value)
    for key in ("search_chunk_context", "searchChunkContext", "selector", "target", "attrs"):
        nested = data.get(key)
        if isinstance(nested, dict) and (found := moment_of(nested)) is not None:
            return found
    return None


# ----------------------------------------------------------------------------- citations

# ``{{content:ID}}`` in assistant text, with or without spaces inside the braces.
CITATION_RE = re.compile(r"\{\{\s*content:([^{}\s]+)\s*\}\}")
# ``{{ref-N}}``: a numbered source of the same message, not an item id.
NUMBERED_REF_RE = re.compile(r"\{\{\s*ref-(\d{1,6})\s*\}\}")


def citations(text: str) -> list[str]:
    """The item ids cited in a text, in order."""
    return CITATION_RE.findall(text) if "{{" in text else []


# ----------------------------------------------------------------------------- chat messages


def chat_messages(data: JsonObject) -> list[JsonObject]:
    """The messages of a chat thread (objects only)."""
    messages = data.get("messages")
    return [m for m in messages if isinstance(m, dict)] if isinstance(messages, list) else []


def message_text(message: JsonObject) -> str | None:
    """What a chat message says as markdown with citations, or None when it has only rich text.

    ``llmMessage.content`` is a string or a list of ``{type: "text", text}`` parts (joined as
    paragraphs); a plain-string ``content`` is the message itself.
    """
    llm = message.get("llmMessage")
    content = llm.get("content") if isinstance(llm, dict) else None
    if isinstance(content, list):
        content = "\n\n".join(
            part["text"]
            for part in content
            if isinstance(part, dict) and isinstance(part.get("text"), str) and part["text"]
        )
    if isinstance(content, str) and content.strip():
        return content
    own = message.get("content")
    return own if isinstance(own, str) and own.strip() else None


def message_doc(message: JsonObject) -> Any | None:
    """A chat message's rich-text document, when it has one."""
    doc = message.get("content")
    return doc if isinstance(doc, dict | list) else None


def referenced_ids(data: JsonObject) -> list[str]:
    """The ids of the items an item references (its ``reference_content_ids`` and reference
    nodes): those whose titles its compiled text names in brackets (display only)."""
    found = strings_in(data.get("reference_content_ids"))
    found += [ref.target for ref in rich_text_references(data.get("content"))]
    return list(dict.fromkeys(found))


def message_references(message: JsonObject) -> list[Reference]:
    """Every item a chat message names: citations in its text, then rich-text references."""
    found = [Reference(target) for target in citations(message_text(message) or "")]
    found.extend(rich_text_references(message_doc(message)))
    return found


# ----------------------------------------------------------------------------- transcripts


@dataclass(frozen=True)
class TranscriptLine:
    """One line of a transcript: what is said, from when (seconds, when known), and by whom."""

    text: str
    seconds: float | None = None
    speaker: str | None = None


_LINE_START_KEYS = ("offset", "start", "start_time", "startTime")


def seconds_of(value: Any) -> float | None:
    """A transcript offset (a number or a numeric string) in seconds, or None when unusable."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str) and _NUMBER.fullmatch(value.strip()):
        value = float(value)
    if isinstance(value, int | float) and finite_number(value) and value >= 0:
        return float(value)
    return None


def transcripts_of(data: JsonObject) -> dict[str, list[TranscriptLine]]:
    """Every transcript of an item by language: its own ``transcript`` first, then those of
    its ``media`` (speakers named by the medium's ``speaker_labels``). A transcript given as
    one text is one line; its language is "" when it names none."""
    found: dict[str, list[TranscriptLine]] = {}
    sources: list[tuple[Any, Any]] = [(data.get("transcript"), None)]
    media = data.get("media")
    if isinstance(media, list):
        sources += [
            (m.get("transcript"), m.get("speaker_labels")) for m in media if isinstance(m, dict)
        ]
    for transcript, labels in sources:
        if isinstance(transcript, str) and transcript.strip():
            found.setdefault("", [TranscriptLine(transcript)])
        elif isinstance(transcript, dict):
            for language, lines in transcript.items():
                read = _transcript_lines(lines, labels)
                if read and str(language) not in found:
                    found[str(language)] = read
    return found


def _transcript_lines(lines: Any, labels: Any) -> list[TranscriptLine]:
    """The lines of one language's transcript (a list of ``{text, offset, speakerId}``)."""
    if isinstance(lines, str):
        return [TranscriptLine(lines)] if lines.strip() else []
    if not isinstance(lines, list):
        return []
    read: list[TranscriptLine] = []
    for line in lines:
        if not isinstance(line, dict) or not text_of(line.get("text")).strip():
            continue
        start = next((line[key] for key in _LINE_START_KEYS if key in line), None)
        read.append(TranscriptLine(line["text"], seconds_of(start), _speaker(line, labels)))
    return read


def _speaker(line: JsonObject, labels: Any) -> str | None:
    """The name of who says a transcript line, when the medium labels its speakers."""
    speaker = line.get("speakerId")
    label = labels.get(speaker) if isinstance(labels, dict) and isinstance(speaker, str) else None
    name = label.get("label") if isinstance(label, dict) else label
    return name.strip() if isinstance(name, str) and name.strip() else None


# ----------------------------------------------------------------------------- titles and sites

TITLE_CHARS = 120
_TITLE_KEYS = ("title", "name", "source_title")


_LEADING_SPACE = re.compile(r"\s*")


def first_line(text: str, limit: int = TITLE_CHARS) -> str:
    """The first non-blank line of ``text``, cut at a word boundary to ``limit`` characters."""
    # Only the start of the first line is read: a tweet or a note may be one long line.
    spaces = _LEADING_SPACE.match(text)
    start = spaces.end() if spaces else 0
    end = text.find("\n", start, start + 2 * limit + 1)
    raw = text[start:end] if end >= 0 else text[start : start + 2 * limit + 1]
    window = raw[: 2 * limit]
    line = " ".join(window.split())
    if len(line) <= limit and len(raw) <= len(window):
        return line
    cut = line[: limit - 1].rsplit(" ", 1)[0] or line[: limit - 1]
    return cut.rstrip() + "…"


def title_line(text: str) -> str:
    """The first line of ``text`` as a title: cut to :data:`TITLE_CHARS`, in plain words."""
    # Most titles are plain already: with this test and first_line reading no further than
    # it needs, display_title took 7.9 instead of 10.7 µs an item (the 20,000 items of the
    # store benchmark's library, best of five).
    if len(text) <= TITLE_CHARS and is_plain_line(text):
        return text
    return plain_excerpt(first_line(text))


# What each content type is called wherever the app names one (the list, the sidebar, the
# type filter, the reader's header, the graph): every type the API is known to use (research
# §9.1); any other is spelled out from its name ("podcastEpisode" is "Podcast episode").
TYPE_LABELS: dict[str, str] = {
    "web": "Web page",
    "pdf": "PDF",
    "youtube": "Video",
    "youtubeShorts": "YouTube Short",
    "youtubeChannel": "YouTube channel",
    "twitter": "Tweet",
    "twitterProfile": "Twitter profile",
    "reddit": "Reddit post",
    "subreddit": "Subreddit",
    "image": "Image",
    "annotation": "Note",
    "selector": "Highlight",
    "chatThread": "Chat",
    "chatgpt": "ChatGPT chat",
    "claude": "Claude chat",
    "transcribedMedia": "Transcribed media",
    "audioRecording": "Audio recording",
    "book": "Book",
    "audiobook": "Audiobook",
    "rssFeed": "RSS feed",
    "substack": "Substack post",
    "instagram": "Instagram post",
    "tiktok": "TikTok video",
    "facebook": "Facebook post",
    "linkedin": "LinkedIn post",
    "linkedinProfile": "LinkedIn profile",
    "pinterest": "Pinterest pin",
    "snapchat": "Snapchat",
}
_TYPE_WORD = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")


def type_label(entity_type: str) -> str:
    """What people call a content type ("youtube" is "Video", "audioRecording" "Audio
    recording"); a type no one listed is spelled out from its name."""
    known = TYPE_LABELS.get(entity_type)
    if known is not None:
        return known
    words = _TYPE_WORD.findall(entity_type)
    if not words:
        return entity_type.strip() or "Item"
    spelled = " ".join(word if word.isupper() and len(word) > 1 else word.lower() for word in words)
    return spelled[:1].upper() + spelled[1:]


def display_title(data: JsonObject) -> str:
    """The one title of an item, in the list, the reader, the graph and the export.

    Its own title when it has one; else the first line of what it says (a tweet's or a note's
    text, a chat's first message, a description); else its URL or id. Plain words: markdown,
    link syntax, tags and citations are dropped (:mod:`memex_desktop.api.plain_text`).
    """
    if (own := _own_title(data)) is not None:
        return own[1]
    for text in _title_sources(data):
        if text and (line := title_line(text)):
            return line
    return text_of(data.get("url")).strip() or text_of(data.get("id"))


def title_field(data: JsonObject) -> str | None:
    """The field an item's own title is in (``title``, ``name``...), when it has one."""
    own = _own_title(data)
    return own[0] if own is not None else None


def _own_title(data: JsonObject) -> tuple[str, str] | None:
    """``(field, title as shown)`` of the item's own title, when it has one."""
    for key in _TITLE_KEYS:
        if (value := text_of(data.get(key))) and (line := title_line(value)):
            return key, line
    return None


def _title_sources(data: JsonObject) -> Iterator[str]:
    """Texts that can stand in for a missing title, most telling first (computed lazily)."""
    yield text_of(data.get("text"))
    content = data.get("content")
    if isinstance(content, dict | list):
        yield rich_text(content)
    for message in chat_messages(data)[:1]:
        yield message_text(message) or rich_text(message_doc(message))
    yield text_of(data.get("description"))
    yield localized_text(data.get("summary"))
    yield text_of(data.get("full_text"))


# A plain lowercase http(s) host, which urlsplit would return unchanged. Most saved addresses
# look like this; matching it takes 0.8 µs instead of urlsplit's 1.4 µs (timeit, 200,000
# addresses), and every item of every synced page asks for its site.
_PLAIN_HOST = re.compile(r"https?://([a-z0-9.-]+)(?=[/?#]|$)")


def host_of(url: Any) -> str:
    """The host of a web address without ``www.`` ('' when it is not one)."""
    if not isinstance(url, str):
        return ""
    if plain := _PLAIN_HOST.match(url):
        return plain.group(1).removeprefix("www.")
    if not url.strip():
        return ""
    try:
        host = urlsplit(url.strip()).hostname or ""
    except ValueError:
        return ""
    if hidden_characters(host):
        return ""  # a direction override would make the site read as another
    return host.removeprefix("www.")


def site_of(data: JsonObject) -> str:
    """Where an item comes from: ``r/sub`` for Reddit, else its host without ``www.``."""
    if subreddit := text_of(data.get("subreddit_name")).strip():
        return subreddit if subreddit.startswith("r/") else f"r/{subreddit}"
    return host_of(data.get("url"))


def author_of(data: JsonObject) -> str:
    """The person or channel behind an item."""
    for key in ("author", "author_name", "channel_title"):
        if value := text_of(data.get(key)).strip():
            return value
    if handle := text_of(data.get("author_handle")).strip():
        return f"@{handle.lstrip('@')}"
    return ", ".join(strings_in(data.get("authors")))


# ----------------------------------------------------------------------------- saved HTML

# Script, style and template elements (to their end, or to the end of an unclosed one)
# and comments are not visible text; every other tag is a word boundary.
_HIDDEN_HTML = re.compile(
    r"<(script|style|template)\b[^>]*>.*?(?:</\1\s*>|\Z)|<!--.*?(?:-->|\Z)", re.S | re.I
)
_TAG = re.compile(r"<[^>]*>")


def visible_html_text(html: str) -> str:
    """The visible words of a saved page's HTML, on one line.

    Regular expressions rather than html.parser: twice as fast on whole articles, and the
    text only feeds the search index, snippets and titles.
    """
    return " ".join(unescape(_TAG.sub(" ", _HIDDEN_HTML.sub(" ", html))).split())
