"""The columns SQLite keeps for one entity: display columns, searchable texts and references.

What an entity *says* (its title, text, references, times) is read by
:mod:`memex_desktop.api.content`, which the reader uses too; this module only arranges those
readings into rows. Whatever changes what :func:`columns` or :func:`own_references` return
for the same JSON must raise ``store.ingest.EXTRACT_VERSION`` (a test holds a digest of both).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from memex_desktop.api.content import (
    BOOKKEEPING_KEYS,
    LINK_KEYS,
    NESTED_KEYS,
    JsonObject,
    author_of,
    chat_messages,
    citations,
    display_title,
    epoch_ms,
    field_instant,
    is_bookkeeping,
    localized_text,
    message_doc,
    message_references,
    message_text,
    moment_of,
    quoted_item,
    rich_text,
    rich_text_references,
    selector_target,
    site_of,
    strings_in,
    summary_thread,
    text_of,
    visible_html_text,
)
from memex_desktop.store.urls import host_and_path, normalize_url

__all__ = [
    "MENTIONING_TYPES",
    "NESTED_KEYS",
    "JsonObject",
    "Texts",
    "body_parts",
    "body_text",
    "columns",
    "own_references",
    "searchable_texts",
    "storable",
    "summary_text",
    "tag_ids_of",
]

# Types whose later reference ids are things they mention (notes and chats).
MENTIONING_TYPES = frozenset({"annotation", "chatThread"})
_SNIPPET_SOURCE_CHARS = 300
# Fields whose words the body, title, author or summary already hold, or that hold media.
_LAID_OUT = frozenset(
    {
        "title", "name", "source_title", "author", "author_name", "author_handle", "authors",
        "channel_title", "subreddit_name", "description", "keywords", "text", "full_text",
        "html", "content", "summary", "transcript", "messages", "image_analysis", "images",
        "media_urls", "videos", "date", "published_at",
    }
)  # fmt: skip
_NOT_PROSE = BOOKKEEPING_KEYS | LINK_KEYS | _LAID_OUT | frozenset(NESTED_KEYS)
# A hostile document can nest deeply; below this depth its fields add no words.
_MAX_FIELD_DEPTH = 40


def _transcript_lines(data: JsonObject) -> Iterator[str]:
    """Every transcript line of every language."""
    transcript = data.get("transcript")
    if not isinstance(transcript, dict):
        return
    for lines in transcript.values():
        if isinstance(lines, list):
            for line in lines:
                if isinstance(line, dict) and isinstance(line.get("text"), str):
                    yield line["text"]


def _chat_texts(data: JsonObject) -> Iterator[str]:
    """Every message of a chat thread: what it says and the text of its rich-text form."""
    for message in chat_messages(data):
        yield message_text(message) or ""
        doc = message_doc(message)
        if doc is not None:
            yield rich_text(doc)


def _other_fields(data: JsonObject) -> list[str]:
    """Words of fields no layout shows by name (nested values too): the reader lists them.

    Strings and numbers as the reader shows them; dates and yes/no flags are the reader's
    formatting, not words of the item.
    """
    found: list[str] = []
    for key, value in data.items():
        if key not in _NOT_PROSE and not is_bookkeeping(key) and not isinstance(value, bool):
            _field_words(key, value, found, 0)
    return found


def _field_words(key: str, value: Any, found: list[str], depth: int) -> None:
    """Append the words of one field (a plain recursion into lists and objects; ids and
    bookkeeping inside them are not words, as the reader does not show them)."""
    if isinstance(value, str):
        if field_instant(key, value) is None:
            found.append(value)
    elif isinstance(value, int | float):
        if not isinstance(value, bool) and field_instant(key, value) is None:
            found.append(str(value))
    elif depth < _MAX_FIELD_DEPTH:
        if isinstance(value, dict):
            for name, item in value.items():
                if not is_bookkeeping(str(name)):
                    _field_words(str(name), item, found, depth + 1)
        elif isinstance(value, list):
            for item in value:
                _field_words(key, item, found, depth + 1)


def body_text(data: JsonObject) -> str:
    """The long searchable text: text, rich text, full_text (or HTML), transcript, messages."""
    return "\n".join(part for part in body_parts(data) if part)


def _body_start(data: JsonObject, chars: int) -> str:
    """``body_text(data)[:chars]``, computing only the parts those characters come from."""
    # A page too big to index at once still needs every item's snippet source; most items'
    # own text is long enough, so the rich text, HTML and transcript walks are skipped:
    # preparing 4,000 generated items took 230 instead of 300 ms (process time, best of 7).
    taken: list[str] = []
    length = 0
    for part in body_parts(data):
        if part:
            taken.append(part)
            length += len(part) + 1
            if length > chars:
                break
    return "\n".join(taken)[:chars]


def body_parts(data: JsonObject) -> Iterator[str]:
    """The parts of the body text in order (some empty), each computed when it is asked for."""
    text = text_of(data.get("text"))
    yield text
    content = data.get("content")
    # A note's reader shows its rich text; its plain ``text`` is usually the same words, so
    # only the lines it lacks are added (indexing both gave the notes of a generated library
    # a third more terms: 329,000 instead of 246,000).
    if isinstance(content, dict | list):
        # Most lines are whole lines of the text: a set finds those without a substring
        # search through the whole text for each (body_text of 762 notes: 48 -> 27 ms).
        text_lines = set(text.split("\n"))
        for line in rich_text(content).split("\n"):
            if line.strip() and line not in text_lines and line not in text:
                yield line
    if full_text := text_of(data.get("full_text")):
        yield full_text
    elif html := text_of(data.get("html")):
        yield visible_html_text(html)
    yield from _transcript_lines(data)
    yield from _chat_texts(data)
    analysis = data.get("image_analysis")
    if isinstance(analysis, dict):
        for item in analysis.values():
            if isinstance(item, dict):
                yield text_of(item.get("description"))
    yield from _other_fields(data)


def summary_text(data: JsonObject) -> str:
    """Short describing text: description, summary, keywords."""
    parts = [
        text_of(data.get("description")),
        localized_text(data.get("summary")),
        text_of(data.get("keywords")),
    ]
    return "\n".join(part for part in parts if part)


def _address_text(url: str) -> str:
    """The host and path of an item's address: their words find it (``site:`` relies on the
    host's). The query string is left out: tracking parameters are not words of the item."""
    host, path = host_and_path(url.strip())
    return f"{host} {path}".strip() if host else ""


def storable(text: str) -> str:
    """``text`` as SQLite can store it: lone surrogates (legal in JSON escapes) replaced."""
    if text.isascii():  # constant time for most texts
        return text
    try:
        text.encode()
    except UnicodeEncodeError:
        return text.encode("utf-8", "replace").decode()
    return text


def columns(data: JsonObject, *, body: bool = True) -> dict[str, Any]:
    """Display columns and the four searchable texts of one entity's JSON (storable text).

    Without ``body`` the long body text (most of the work) is left out and ``text_body`` is
    ``None``: for rows indexed later, from their JSON.
    """
    found = _columns(data, body)
    for key, value in found.items():
        if isinstance(value, str):
            found[key] = storable(value)
    return found


def _columns(data: JsonObject, with_body: bool) -> dict[str, Any]:
    summary = summary_text(data)
    url = text_of(data.get("url"))
    normalized = ""
    if url:
        try:
            normalized = normalize_url(url)
        except ValueError:
            normalized = ""
    metadata = data.get("metadata")
    status = metadata.get("status") if isinstance(metadata, dict) else None
    author = author_of(data)
    title = display_title(data)
    body = body_text(data) if with_body else None
    if summary:
        snippet_source = summary[:_SNIPPET_SOURCE_CHARS]
    elif body is not None:
        snippet_source = body[:_SNIPPET_SOURCE_CHARS]
    else:
        snippet_source = _body_start(data, _SNIPPET_SOURCE_CHARS)
    return {
        "type": text_of(data.get("type")) or "unknown",
        "title": title,
        "url": url or None,
        "normalized_url": normalized or None,
        "author": author or None,
        "site": site_of(data) or None,
        "snippet_source": snippet_source,
        "created_at": epoch_ms(data.get("created_at")),
        "updated_at": epoch_ms(data.get("updated_at")),
        "status": status if isinstance(status, str) else None,
        "text_title": title,
        "text_author": _author_text(data, author),
        "text_summary": _indexed_summary(summary, url),
        "text_body": body if with_body else None,
    }


def _indexed_summary(summary: str, url: str) -> str:
    """The searchable summary: the describing text and the words of the item's address."""
    return "\n".join(part for part in (summary, _address_text(url)) if part)


def _author_text(data: JsonObject, author: str) -> str:
    """The searchable author text: the name, the handle and the subreddit."""
    parts = (author, text_of(data.get("author_handle")), text_of(data.get("subreddit_name")))
    return " ".join(part for part in parts if part)


Texts = tuple[str, str, str, str]


def searchable_texts(data: JsonObject) -> Texts:
    """The four indexed texts of one entity (title, author, summary, body), as ``columns``
    gives them, without its display columns: what re-indexing a stored row needs."""
    title, author, summary, body = (
        display_title(data),
        _author_text(data, author_of(data)),
        _indexed_summary(summary_text(data), text_of(data.get("url"))),
        body_text(data),
    )
    return storable(title), storable(author), storable(summary), storable(body)


Mentions = list[tuple[str, float | None]]


def own_references(data: JsonObject, json_text: str | None = None) -> tuple[str | None, Mentions]:
    """``(parent, mentions)`` from the entity's own JSON.

    ``parent`` is the first ``reference_content_ids`` item of a note (what it is attached
    to); mentions are the other ids, reference nodes in ``content`` and chat messages, and
    ``{{content:ID}}`` citations in chat text, each with a video moment when one is known.
    A tweet names the tweet it quotes, a highlight the item it is in (``target_id``), an
    audio recording its summary thread. ``json_text``, the entity serialized as JSON (nested
    entities left out), lets documents without any reference node or citation skip the walk
    through their content.
    """
    ids = strings_in(data.get("reference_content_ids"))
    parent = ids[0] if ids and data.get("type") == "annotation" else None
    moment = moment_of(data) if ids else None
    mentions: dict[str, float | None] = {target: moment for target in (ids[1:] if parent else ids)}
    if quoted := quoted_item(data):
        mentions.setdefault(quoted, None)
    if target := selector_target(data):
        mentions.setdefault(target, moment_of(data))
    if thread := summary_thread(data):
        mentions.setdefault(thread, None)
    if _may_reference(data, json_text):
        for reference in rich_text_references(data.get("content")):
            mentions.setdefault(reference.target, reference.seconds)
            if reference.seconds is not None:
                mentions[reference.target] = reference.seconds
        for target in citations(localized_text(data.get("summary"))):
            mentions.setdefault(target, None)
        for message in chat_messages(data):
            for reference in message_references(message):
                mentions.setdefault(reference.target, reference.seconds)
    mentions.pop(text_of(data.get("id")), None)
    if parent is not None:
        mentions.pop(parent, None)
    return parent, list(mentions.items())


# The fields whose walk finds reference nodes and citations (rich text, summary, messages).
_REFERENCING_KEYS = ("content", "summary", "messages")


def _may_reference(data: JsonObject, json_text: str | None) -> bool:
    """Whether an entity can hold a reference node or a citation (cheap tests first).

    Only the fields walked can, and most saves have none of them: not looking for the marks
    in the rest of their JSON took own_references from 27 to 20 µs an item (the 20,000 items
    of the store benchmark's library, best of five)."""
    if not any(key in data for key in _REFERENCING_KEYS):
        return False
    # Every reference node type ends in "-reference"; a bare "reference" would also match the
    # reference_content_ids key that most notes carry, and walk every note's content.
    return json_text is None or (
        '-reference"' in json_text or '"image"' in json_text or "{{" in json_text
    )


def tag_ids_of(data: JsonObject) -> list[str]:
    """The entity's tag ids."""
    return strings_in(data.get("tag_ids"))
