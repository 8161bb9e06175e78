"""Pure functions turning one entity's JSON into display columns, searchable text and edges."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from datetime import datetime
from html import unescape
from typing import Any
from urllib.parse import urlsplit

from memex_desktop.store.urls import normalize_url

JsonObject = dict[str, Any]

NESTED_KEYS = ("annotations", "references", "resolvedReferences")
# Types whose later reference ids are things they mention (notes and chats).
MENTIONING_TYPES = frozenset({"annotation", "chatThread"})
_CITATION = re.compile(r"\{\{content:([^}\s]+)\}\}")
_TIME_KEYS = ("startTime", "start_time", "start", "offset", "timestamp", "time")
_REFERENCE_ID_KEYS = ("content_id", "contentId", "contentEntityId", "id", "entityId")
_SNIPPET_SOURCE_CHARS = 300
_TITLE_CHARS = 120
# Top-level string fields that are identifiers, links or bookkeeping, not searchable prose.
_NOT_PROSE = frozenset(
    {
        "id", "type", "user_id", "external_id", "url", "normalized_url", "canonical_url",
        "favicon_url", "thumbnail_url", "original_url", "source_url", "permalink",
        "subreddit_id", "author_favicon_url", "subreddit_favicon_url", "created_at",
        "updated_at", "date", "html", "save_type", "content_type", "preview_url",
    }
)  # fmt: skip
_KNOWN_TEXT = frozenset(
    {
        "title", "author", "author_name", "author_handle", "channel_title", "subreddit_name",
        "description", "keywords", "text", "full_text", "source_title", "summary", "name",
    }
)  # fmt: skip


def to_epoch_ms(value: Any) -> int | None:
    """Epoch milliseconds from a number (ms, or s when small) or an ISO string; else None."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        number = float(value)
        return int(number * 1000 if abs(number) < 1e11 else number)
    if isinstance(value, str) and value:
        try:
            return (
                int(float(value))
                if value.lstrip("-").replace(".", "", 1).isdigit()
                else (int(datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp() * 1000))
            )
        except ValueError:
            return None
    return None


def _text(value: Any) -> str:
    """A string field as text ('' when absent or not a string)."""
    return value if isinstance(value, str) else ""


def _localized(value: Any) -> str:
    """A per-language dict (``{"en": "..."}``) or plain string as one text."""
    if isinstance(value, dict):
        return "\n".join(text for text in value.values() if isinstance(text, str))
    return _text(value)


# Script, style and template elements (to their end, or to the end of an unclosed one)
# and comments are not visible text; every other tag is a word boundary.
_HIDDEN_HTML = re.compile(
    r"<(script|style|template)\b[^>]*>.*?(?:</\1\s*>|\Z)|<!--.*?(?:-->|\Z)", re.S | re.I
)
_TAG = re.compile(r"<[^>]*>")


def html_to_text(html: str) -> str:
    """The visible text of an HTML fragment, for indexing pages saved without full_text.

    Regular expressions rather than html.parser: twice as fast on whole articles, and the
    text only feeds the search index and snippets.
    """
    return " ".join(unescape(_TAG.sub(" ", _HIDDEN_HTML.sub(" ", html))).split())


def rich_text(node: Any) -> str:
    """The plain text of a ProseMirror JSON document (paragraphs on separate lines)."""
    parts: list[str] = []
    _collect_text(node, parts)
    return "".join(parts).strip()


def _collect_text(node: Any, parts: list[str]) -> None:
    if isinstance(node, list):
        for child in node:
            _collect_text(child, parts)
        return
    if not isinstance(node, dict):
        return
    if node.get("type") == "text":
        parts.append(_text(node.get("text")))
        return
    _collect_text(node.get("content"), parts)
    if node.get("type") in ("paragraph", "heading", "listItem", "blockquote", "codeBlock"):
        parts.append("\n")


def memex_references(node: Any) -> Iterator[tuple[str, float | None]]:
    """``(content id, seconds)`` of every memex-reference node anywhere in rich-text JSON."""
    found: list[tuple[str, float | None]] = []
    _reference_nodes(node, found)
    return iter(found)


def _reference_nodes(node: Any, found: list[tuple[str, float | None]]) -> None:
    """Append the references under ``node`` in document order (a plain recursion: nested
    generators cost a frame switch per node of every note)."""
    if isinstance(node, list):
        for child in node:
            if isinstance(child, list | dict):
                _reference_nodes(child, found)
        return
    if not isinstance(node, dict):
        return
    if node.get("type") == "memex-reference":
        value = node.get("attrs")
        attrs: JsonObject = value if isinstance(value, dict) else {}
        target = next(
            (attrs[key] for key in _REFERENCE_ID_KEYS if isinstance(attrs.get(key), str)), None
        )
        if target:
            found.append((target, time_in(attrs)))
    for key, value in node.items():
        if key != "attrs" and isinstance(value, list | dict):
            _reference_nodes(value, found)


def time_in(data: Any) -> float | None:
    """A video moment (seconds) carried by selector-like attributes, if any."""
    if not isinstance(data, dict):
        return None
    for key in _TIME_KEYS:
        value = data.get(key)
        if isinstance(value, int | float) and not isinstance(value, bool):
            return float(value)
        if isinstance(value, str):
            try:
                return float(value)
            except ValueError:
                continue
    for key in ("search_chunk_context", "selector", "target", "attrs"):
        nested = data.get(key)
        if isinstance(nested, dict) and (found := time_in(nested)) is not None:
            return found
    return None


def _chat_texts(data: JsonObject) -> Iterator[str]:
    """Every message text of a chat thread (rich-text content and the LLM's plain text)."""
    messages = data.get("messages")
    if not isinstance(messages, list):
        return
    for message in messages:
        if not isinstance(message, dict):
            continue
        yield (
            rich_text(message.get("content"))
            if isinstance(message.get("content"), dict | list)
            else _text(message.get("content"))
        )
        llm = message.get("llmMessage")
        if isinstance(llm, dict):
            yield _text(llm.get("content"))


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


def author_of(data: JsonObject) -> str:
    """The person or channel behind an item."""
    for key in ("author", "author_name", "channel_title"):
        if value := _text(data.get(key)):
            return value
    handle = _text(data.get("author_handle"))
    if handle:
        return f"@{handle.lstrip('@')}"
    authors = data.get("authors")
    if isinstance(authors, list):
        return ", ".join(name for name in authors if isinstance(name, str))
    return ""


def site_of(data: JsonObject, url: str, normalized: str | None = None) -> str:
    """Where an item comes from: ``r/sub`` for Reddit, else the host without ``www.``."""
    if subreddit := _text(data.get("subreddit_name")):
        return subreddit if subreddit.startswith("r/") else f"r/{subreddit}"
    if not url:
        return ""
    if url == normalized:
        # A normalized URL's host is lowercase, without user or port: no parsing needed.
        return url.split("/", 3)[2].split("?", 1)[0].removeprefix("www.")
    try:
        host = urlsplit(url).hostname or ""
    except ValueError:
        return ""
    return host.removeprefix("www.")


def _first_line(text: str) -> str:
    line = text.strip().split("\n", 1)[0].strip()
    return line if len(line) <= _TITLE_CHARS else line[: _TITLE_CHARS - 1].rstrip() + "…"


def body_text(data: JsonObject) -> str:
    """The long searchable text: text, full_text (or HTML as text), transcript, messages."""
    parts = [_text(data.get("text"))]
    if full_text := _text(data.get("full_text")):
        parts.append(full_text)
    elif html := _text(data.get("html")):
        parts.append(html_to_text(html))
    if not parts[0] and isinstance(data.get("content"), dict | list):
        parts.append(rich_text(data.get("content")))
    parts.extend(_transcript_lines(data))
    parts.extend(_chat_texts(data))
    analysis = data.get("image_analysis")
    if isinstance(analysis, dict):
        parts.extend(
            _text(item.get("description")) for item in analysis.values() if isinstance(item, dict)
        )
    if data.get("type") not in _TYPED:
        parts.extend(
            value
            for key, value in data.items()
            if isinstance(value, str) and key not in _NOT_PROSE and key not in _KNOWN_TEXT
        )
    return "\n".join(part for part in parts if part)


_TYPED = frozenset({"web", "twitter", "youtube", "image", "reddit", "annotation", "chatThread"})


def title_of(data: JsonObject, body: str | Callable[[], str]) -> str:
    """A display title for any type (tweets and notes have none of their own).

    ``body`` is the body text, or a function computing it (only called when needed).
    """
    for key in ("title", "name", "source_title"):
        if value := _text(data.get(key)).strip():
            return value
    text = _text(data.get("text")) or (body() if callable(body) else body)
    if text := text or _text(data.get("description")):
        return _first_line(text)
    return _text(data.get("url")) or str(data.get("id", ""))


def summary_text(data: JsonObject) -> str:
    """Short describing text: description, summary, keywords."""
    parts = [
        _text(data.get("description")),
        _localized(data.get("summary")),
        _text(data.get("keywords")),
    ]
    return "\n".join(part for part in parts if part)


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

    Without ``body`` the long body text (most of the work) is computed only when a title or
    snippet needs it, and ``text_body`` is ``None``: for rows indexed later, from their JSON.
    """
    found = _columns(data, body)
    for key, value in found.items():
        if isinstance(value, str):
            found[key] = storable(value)
    return found


def _columns(data: JsonObject, with_body: bool) -> dict[str, Any]:
    body: str | None = body_text(data) if with_body else None

    def full_body() -> str:
        nonlocal body
        if body is None:
            body = body_text(data)
        return body

    summary = summary_text(data)
    url = _text(data.get("url"))
    normalized = ""
    if url:
        try:
            normalized = normalize_url(url)
        except ValueError:
            normalized = ""
    metadata = data.get("metadata")
    status = metadata.get("status") if isinstance(metadata, dict) else None
    author = author_of(data)
    title = title_of(data, full_body)
    snippet_source = (summary or full_body())[:_SNIPPET_SOURCE_CHARS]
    return {
        "type": _text(data.get("type")) or "unknown",
        "title": title,
        "url": url or None,
        "normalized_url": normalized or None,
        "author": author or None,
        "site": site_of(data, url, normalized) or None,
        "snippet_source": snippet_source,
        "created_at": to_epoch_ms(data.get("created_at")),
        "updated_at": to_epoch_ms(data.get("updated_at")),
        "status": status if isinstance(status, str) else None,
        "text_title": title,
        "text_author": " ".join(
            part
            for part in (
                author,
                _text(data.get("author_handle")),
                _text(data.get("subreddit_name")),
            )
            if part
        ),
        "text_summary": summary,
        "text_body": body if with_body else None,
    }


def own_references(
    data: JsonObject, json_text: str | None = None
) -> tuple[str | None, list[tuple[str, float | None]]]:
    """``(parent, mentions)`` from the entity's own JSON.

    ``parent`` is the first ``reference_content_ids`` item of a note (what it is attached
    to); mentions are the other ids, memex-reference nodes in ``content`` and chat
    messages, and ``{{content:ID}}`` citations, each with a video moment when one is known.
    ``json_text``, the entity serialized as JSON (nested entities left out), lets
    documents without any reference node or citation skip the walk through their content.
    """
    if json_text is not None and _REFERENCE_NODE not in json_text and "{{content:" not in json_text:
        return _own_ids(data)
    kind = data.get("type")
    ids = [item for item in data.get("reference_content_ids") or [] if isinstance(item, str)]
    parent = ids[0] if ids and kind == "annotation" else None
    moment = time_in(data)
    mentions: dict[str, float | None] = {target: moment for target in (ids[1:] if parent else ids)}
    for target, seconds in memex_references(data.get("content")):
        mentions.setdefault(target, seconds)
        if seconds is not None:
            mentions[target] = seconds
    messages = data.get("messages")
    if isinstance(messages, list):
        for message in messages:
            if not isinstance(message, dict):
                continue
            for target, seconds in memex_references(message.get("content")):
                mentions.setdefault(target, seconds)
            for text in (_text(message.get("content")), _llm_text(message)):
                for target in _CITATION.findall(text):
                    mentions.setdefault(target, None)
    for target in _CITATION.findall(_text(data.get("text"))):
        mentions.setdefault(target, None)
    mentions.pop(str(data.get("id")), None)
    if parent is not None:
        mentions.pop(parent, None)
    return parent, list(mentions.items())


# How a memex-reference node's type reads in JSON text, whatever the separators.
_REFERENCE_NODE = "memex-reference"


def _own_ids(data: JsonObject) -> tuple[str | None, list[tuple[str, float | None]]]:
    """:func:`own_references` of an entity whose text holds no reference node or citation."""
    ids = [item for item in data.get("reference_content_ids") or [] if isinstance(item, str)]
    parent = ids[0] if ids and data.get("type") == "annotation" else None
    moment = time_in(data) if ids else None
    mentions: dict[str, float | None] = {target: moment for target in (ids[1:] if parent else ids)}
    mentions.pop(str(data.get("id")), None)
    if parent is not None:
        mentions.pop(parent, None)
    return parent, list(mentions.items())


def _llm_text(message: JsonObject) -> str:
    llm = message.get("llmMessage")
    return _text(llm.get("content")) if isinstance(llm, dict) else ""


def tag_ids_of(data: JsonObject) -> list[str]:
    """The entity's tag ids."""
    return [tag for tag in data.get("tag_ids") or [] if isinstance(tag, str)]
