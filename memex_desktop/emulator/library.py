"""Pure helpers over entity JSON: URL normalization, text extraction, reference discovery.

Nothing here touches the database; :mod:`memex_desktop.emulator.store` calls these while
loading a library and while saving.

Chat text and rich-text references are read as the client reads them
(:mod:`memex_desktop.api.content`), so the emulator's search finds what the reader shows. The
rest models the server on purpose and may differ from the client: the service's URL identity
(no scheme, no ``www.``), its title and body columns, its timestamps in milliseconds only.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Generator, Iterable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO
from urllib.parse import parse_qsl, urlencode, urlsplit

from memex_desktop.api.content import message_text as content_message_text
from memex_desktop.api.content import rich_text, rich_text_references

JsonObject = dict[str, Any]

# An entity of a library and its ``referencesByResultId`` entry, if it has one.
LibraryLine = tuple[JsonObject, JsonObject | None]
# The suffix of a library file in JSON Lines, read as a stream (:func:`read_library_lines`).
LIBRARY_LINES_SUFFIX = ".jsonl"

# Content types the service validates ``contentTypes`` against (research §9.1).
SUPPORTED_CONTENT_TYPES: tuple[str, ...] = (
    "web",
    "pdf",
    "youtube",
    "twitter",
    "instagram",
    "tiktok",
    "facebook",
    "linkedin",
    "pinterest",
    "reddit",
    "snapchat",
    "chatgpt",
    "claude",
    "annotation",
    "image",
    "transcribedMedia",
    "selector",
    "chatThread",
    "twitterProfile",
    "subreddit",
    "youtubeChannel",
    "substack",
    "youtubeShorts",
    "rssFeed",
    "linkedinProfile",
    "audioRecording",
    "book",
    "audiobook",
    "other",
)

# Keys that search adds to entities; stored entities never carry them.
SEARCH_DECORATIONS = ("annotations", "references", "resolvedReferences")

_TITLE_KEYS = ("title", "source_title", "subreddit_name", "author_name")
_BODY_KEYS = (
    "text",
    "description",
    "full_text",
    "abstract",
    "keywords",
    "author",
    "author_name",
    "author_handle",
    "channel_title",
    "subreddit_name",
)
_TAG_RE = re.compile(r"<[^>]+>")


class LibraryFileError(ValueError):
    """A library file that cannot be served: not JSON, or JSON that is not a library."""


def load_library_file(path: Path) -> JsonObject:
    """Read a library file (JSON object in the raw search shape).

    Raises:
        LibraryFileError: when the file is not JSON, or not an object with a results list.
    """
    data = _json_of(path, path.read_bytes())
    if not isinstance(data, dict) or not isinstance(data.get("results"), list):
        raise LibraryFileError(f"{path} is not a library file (no results list)")
    return data


def _json_of(where: Path | str, text: str | bytes) -> Any:
    """``text`` decoded as JSON; :class:`LibraryFileError` naming ``where`` when it is not."""
    try:
        return json.loads(text)
    except ValueError as exc:  # JSONDecodeError, or bytes that are not UTF-8
        raise LibraryFileError(f"{where} is not JSON: {exc}") from exc


def is_library_lines(path: Path) -> bool:
    """Whether ``path`` names a library in JSON Lines (see :func:`read_library_lines`)."""
    return path.suffix == LIBRARY_LINES_SUFFIX


def read_library_lines(path: Path) -> tuple[JsonObject, Generator[LibraryLine, None, None]]:
    """A library in JSON Lines: its tags, views, feeds and plans, and its entities one by one.

    The first line is the library object without entities; every other line is
    ``{"entity": {...}, "references": {...}}`` (``references`` is the entity's
    ``referencesByResultId`` entry, left out when it has none). A library of a million items
    is several gigabytes of JSON: read this way it never has to be in memory at once.
    """
    with path.open("rb") as handle:
        extras = _json_of(f"{path}:1", handle.readline() or b"{}")
    if not isinstance(extras, dict):
        raise LibraryFileError(f"{path} is not a library file (line 1 is not a JSON object)")
    return extras, _library_line_entities(path)


def _library_line_entities(path: Path) -> Generator[LibraryLine, None, None]:
    """The entity lines of a library in JSON Lines (the file is opened on the first one)."""
    with path.open("rb") as handle:  # bytes: a line that is not UTF-8 is said as such
        handle.readline()
        for number, line in enumerate(handle, start=2):
            if not line.strip():
                continue
            record = _json_of(f"{path}:{number}", line)
            entity = record.get("entity") if isinstance(record, dict) else None
            if not isinstance(entity, dict):
                raise LibraryFileError(f"{path}:{number}: a library line must hold an entity")
            refs = record.get("references")
            yield entity, refs if isinstance(refs, dict) else None


def write_library_lines(path: Path, extras: JsonObject, entities: Iterable[LibraryLine]) -> Path:
    """Write a library in JSON Lines atomically (see :func:`written_atomically`)."""
    encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
    with written_atomically(path) as handle:
        handle.write(encode(extras) + "\n")
        for entity, refs in entities:
            record = {"entity": entity} if refs is None else {"entity": entity, "references": refs}
            handle.write(encode(record) + "\n")
    return path


@contextmanager
def written_atomically(path: Path) -> Iterator[TextIO]:
    """A text file that replaces ``path`` once it is written whole: written as a temporary
    file beside it and renamed over it, so a stopped write never leaves half a library."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".tmp")
    with temporary.open("w", encoding="utf-8") as handle:
        yield handle
    os.replace(temporary, path)


def now_ms() -> int:
    """The current time in epoch milliseconds, the unit of every entity timestamp."""
    return int(datetime.now(UTC).timestamp() * 1000)


def timestamp_ms(value: Any) -> int | None:
    """A timestamp (epoch ms number or ISO string) as epoch milliseconds, else ``None``.

    The server's reading, on purpose not the client's (api.content.epoch_ms): the service
    stores milliseconds and does not guess that a small number means seconds.
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return int(value)
    if isinstance(value, str) and value:
        try:
            parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
        if parsed.tzinfo is None:
            parsed = parsed.replace(tzinfo=UTC)
        return int(parsed.timestamp() * 1000)
    return None


def iso_from_ms(value: Any) -> str | None:
    """Epoch milliseconds as the ISO-8601 string the compact shape uses (``...Z``)."""
    ms = timestamp_ms(value)
    if ms is None:
        return None
    moment = datetime.fromtimestamp(ms / 1000, tz=UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def normalize_url(url: str) -> str:
    """The service's URL identity: no scheme, ``www.``, fragment, ``utm_*`` or trailing slash."""
    parts = urlsplit(url.strip())
    host = (parts.hostname or "").lower()
    host = host.removeprefix("www.")
    if parts.port and parts.port not in (80, 443):
        host = f"{host}:{parts.port}"
    query = sorted(
        (key, value)
        for key, value in parse_qsl(parts.query, keep_blank_values=True)
        if not key.lower().startswith("utm_")
    )
    path = parts.path.rstrip("/")
    normalized = host + path
    if query:
        normalized += "?" + urlencode(query)
    return normalized


def external_id_for_url(url: str) -> str:
    """The app's ``external_id`` convention for web pages (normalized URL, escaped)."""
    normalized = normalize_url(url)
    for old, new in (
        ("%", "__pct__"),
        ("/", "--"),
        ("?", "__q__"),
        ("=", "__e__"),
        ("&", "__a__"),
        ("#", "__h__"),
    ):
        normalized = normalized.replace(old, new)
    return normalized


def detect_type(url: str) -> str:
    """The content type the service derives from a URL's host (research §5.2)."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower().removeprefix("www.").removeprefix("m.")
    if host in ("youtube.com", "youtu.be") or host.endswith(".youtube.com"):
        return "youtube"
    if host in ("twitter.com", "x.com"):
        return "twitter"
    if host.endswith("reddit.com"):
        return "reddit"
    if host.endswith("facebook.com"):
        return "facebook"
    if host.endswith("instagram.com"):
        return "instagram"
    if host.endswith("tiktok.com"):
        return "tiktok"
    if host in ("chatgpt.com", "chat.openai.com"):
        return "chatgpt"
    if host == "claude.ai":
        return "claude"
    if parts.path.lower().endswith(".pdf"):
        return "pdf"
    return "web"


def url_host(url: Any) -> str | None:
    """The host of a URL without ``www.``, for feed membership; ``None`` when not a URL."""
    if not isinstance(url, str) or not url:
        return None
    host = (urlsplit(url).hostname or "").lower().removeprefix("www.")
    return host or None


def prosemirror_reference_ids(doc: Any) -> list[str]:
    """Ids named by reference nodes of a document (the client's reading: research §9.4)."""
    return list(dict.fromkeys(reference.target for reference in rich_text_references(doc)))


def prosemirror_text(doc: Any) -> str:
    """The plain text of a ProseMirror document (one line per block)."""
    return rich_text(doc)


def reference_targets(entity: JsonObject) -> list[str]:
    """Ids the entity points at: ``reference_content_ids`` first, then rich-text references."""
    targets: list[str] = []
    ids = entity.get("reference_content_ids")
    if isinstance(ids, list):
        targets.extend(item for item in ids if isinstance(item, str) and item)
    docs: list[Any] = [entity.get("content")]
    messages = entity.get("messages")
    if isinstance(messages, list):
        docs.extend(message.get("content") for message in messages if isinstance(message, dict))
    for doc in docs:
        for target in prosemirror_reference_ids(doc):
            if target not in targets:
                targets.append(target)
    for key in ("target_id", "quote_tweet"):
        value = entity.get(key)
        if isinstance(value, str) and value and value not in targets:
            targets.append(value)
    return targets


def attached_to(entity: JsonObject) -> str | None:
    """What an annotation is attached to: the first id of ``reference_content_ids``."""
    if entity.get("type") != "annotation":
        return None
    ids = entity.get("reference_content_ids")
    if isinstance(ids, list) and ids and isinstance(ids[0], str):
        return ids[0]
    return None


def tag_ids_of(entity: JsonObject) -> list[str]:
    """The entity's ``tag_ids`` (strings only)."""
    ids = entity.get("tag_ids")
    return [item for item in ids if isinstance(item, str)] if isinstance(ids, list) else []


def entity_title(entity: JsonObject) -> str:
    """The title-like text of an entity, for the FTS title column."""
    for key in _TITLE_KEYS:
        value = entity.get(key)
        if isinstance(value, str) and value:
            return value
    return ""


def entity_body(entity: JsonObject) -> str:
    """All searchable text of an entity except the title, for the FTS body column."""
    parts: list[str] = []
    for key in _BODY_KEYS:
        value = entity.get(key)
        if isinstance(value, str) and value:
            parts.append(value)
    summary = entity.get("summary")
    if isinstance(summary, str):
        parts.append(summary)
    elif isinstance(summary, dict):
        parts.extend(value for value in summary.values() if isinstance(value, str))
    html = entity.get("html")
    if isinstance(html, str) and not isinstance(entity.get("full_text"), str):
        parts.append(_TAG_RE.sub(" ", html))
    transcript = entity.get("transcript")
    if isinstance(transcript, dict):
        for segments in transcript.values():
            if isinstance(segments, list):
                parts.extend(
                    str(segment.get("text", ""))
                    for segment in segments
                    if isinstance(segment, dict)
                )
    messages = entity.get("messages")
    if isinstance(messages, list):
        for message in messages:
            if isinstance(message, dict):
                parts.append(message_text(message))
    analysis = entity.get("image_analysis")
    if isinstance(analysis, dict):
        parts.extend(
            str(item.get("description", "")) for item in analysis.values() if isinstance(item, dict)
        )
    return "\n".join(part for part in parts if part)


def message_text(message: JsonObject) -> str:
    """The text of one chat message: what it says, else the text of its rich-text content."""
    return content_message_text(message) or rich_text(message.get("content"))


def stable_url(entity: JsonObject) -> str:
    """A citation URL for any entity, as the service derives one for non-web items."""
    url = entity.get("url")
    if isinstance(url, str) and url:
        return url
    kind = entity.get("type")
    external = entity.get("external_id")
    if kind == "twitter" and isinstance(external, str):
        handle = entity.get("author_handle") or "i"
        return f"https://x.com/{str(handle).lstrip('@')}/status/{external}"
    if kind == "youtube" and isinstance(external, str):
        return f"https://www.youtube.com/watch?v={external}"
    if kind == "reddit" and isinstance(entity.get("permalink"), str):
        return f"https://www.reddit.com{entity['permalink']}"
    if kind == "image" and isinstance(entity.get("original_url"), str):
        return str(entity["original_url"])
    return f"https://memex.garden/c/{entity.get('id', '')}"


def derive_references(entity: JsonObject, types: dict[str, str]) -> JsonObject:
    """The ``referencesByResultId`` entry of an entity that the library did not provide.

    The parent of a reply (an annotation attached to an annotation) is given as
    ``{"id": parent, "type": "reply"}``, as the service does.
    """
    targets = reference_targets(entity)
    parent = attached_to(entity)
    ids: list[Any] = []
    for target in targets:
        if target == parent and types.get(target) == "annotation":
            ids.append({"id": target, "type": "reply"})
        else:
            ids.append(target)
    return {"contentEntityIds": ids, "tagIds": tag_ids_of(entity)}


def reference_ids_of(refs: JsonObject) -> list[str]:
    """The entity ids of a ``referencesByResultId`` entry (plain or ``{id, type}`` items)."""
    ids: list[str] = []
    items = refs.get("contentEntityIds")
    for item in items if isinstance(items, list) else []:
        if isinstance(item, str):
            ids.append(item)
        elif isinstance(item, dict) and isinstance(item.get("id"), str):
            ids.append(item["id"])
    return ids
