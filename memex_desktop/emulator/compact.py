"""The compact (``raw: false``, "llm") search shape: slim results with precompiled text.

Web HTML becomes markdown-like text, annotation text becomes a YAML block list with its
references resolved inline, media is reduced to image descriptions, transcript chunks and asset
URLs (response-shape.txt, "Compact search response").
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from html.parser import HTMLParser
from typing import Any

from memex_desktop.emulator.library import (
    JsonObject,
    iso_from_ms,
    message_text,
    prosemirror_reference_ids,
    prosemirror_text,
    stable_url,
)

Lookup = Callable[[str], JsonObject | None]

_TRANSCRIPT_CHUNK_SEGMENTS = 20
_CITATION = re.compile(r"\{\{content:([^}]+)\}\}")
_BLOCK_TAGS = {"p", "div", "section", "article", "header", "footer", "table", "tr", "br", "hr"}
_SKIPPED_TAGS = {"script", "style", "noscript", "template", "head", "iframe", "svg"}


class _MarkdownWriter(HTMLParser):
    """Turns HTML into markdown-like text (headings, paragraphs, lists, links, emphasis)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self._skip = 0
        self._href: list[str | None] = []
        self._pre = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _SKIPPED_TAGS:
            self._skip += 1
        elif re.fullmatch(r"h[1-6]", tag):
            self.out.append("\n\n" + "#" * int(tag[1]) + " ")
        elif tag in _BLOCK_TAGS:
            self.out.append("\n\n" if tag != "br" else "\n")
        elif tag == "li":
            self.out.append("\n- ")
        elif tag == "blockquote":
            self.out.append("\n\n> ")
        elif tag in ("strong", "b"):
            self.out.append("**")
        elif tag in ("em", "i"):
            self.out.append("_")
        elif tag == "code" and not self._pre:
            self.out.append("`")
        elif tag == "pre":
            self._pre += 1
            self.out.append("\n\n```\n")
        elif tag == "a":
            self._href.append(dict(attrs).get("href"))
            self.out.append("[")
        elif tag == "img":
            alt = dict(attrs).get("alt") or ""
            if alt:
                self.out.append(f"![{alt}]")

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIPPED_TAGS:
            self._skip = max(0, self._skip - 1)
        elif re.fullmatch(r"h[1-6]", tag) or tag in _BLOCK_TAGS or tag == "blockquote":
            self.out.append("\n\n")
        elif tag in ("strong", "b"):
            self.out.append("**")
        elif tag in ("em", "i"):
            self.out.append("_")
        elif tag == "code" and not self._pre:
            self.out.append("`")
        elif tag == "pre":
            self._pre = max(0, self._pre - 1)
            self.out.append("\n```\n\n")
        elif tag == "a":
            href = self._href.pop() if self._href else None
            self.out.append(f"]({href})" if href else "]")

    def handle_data(self, data: str) -> None:
        if self._skip:
            return
        self.out.append(data if self._pre else re.sub(r"\s+", " ", data))

    def text(self) -> str:
        """The collected markdown-like text with tidy blank lines."""
        joined = "".join(self.out)
        lines = [line.strip() if not self._pre else line for line in joined.split("\n")]
        return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


def html_to_markdown(html: str) -> str:
    """Markdown-like text of an HTML fragment (what compact search sends for web pages)."""
    writer = _MarkdownWriter()
    writer.feed(html)
    writer.close()
    return writer.text()


def _first_string(entity: JsonObject, *keys: str) -> str:
    """The first non-empty string among ``keys``."""
    for key in keys:
        value = entity.get(key)
        if isinstance(value, str) and value:
            return value
    return ""


def _summary(entity: JsonObject) -> str:
    """``summary`` as text (a string or a per-language mapping, English preferred)."""
    summary = entity.get("summary")
    if isinstance(summary, str):
        return summary
    if isinstance(summary, dict):
        preferred = summary.get("en")
        if isinstance(preferred, str):
            return preferred
        return next((value for value in summary.values() if isinstance(value, str)), "")
    return ""


def _with_heading(title: str, body: str) -> str:
    """``# title`` followed by the body, as the compact example shows."""
    if title and body:
        return f"# {title}\n\n{body}"
    return f"# {title}" if title else body


def _yaml(value: str) -> str:
    """A YAML double-quoted scalar (JSON string syntax is valid YAML)."""
    return json.dumps(value, ensure_ascii=False)


def annotation_text(entity: JsonObject, lookup: Lookup) -> str:
    """An annotation as YAML blocks: its commentary, then each reference resolved."""
    lines = ["annotation:", "  blocks:"]
    text = _first_string(entity, "text") or prosemirror_text(entity.get("content"))
    if text:
        lines += ["    - kind: commentary", f"      text: {_yaml(text)}"]
    for target_id in _mentioned(entity):
        target = lookup(target_id)
        if target is None:
            continue
        lines += [
            "    - kind: reference",
            f"      type: {_yaml(str(target.get('type', '')))}",
            f"      url: {_yaml(stable_url(target))}",
        ]
        title = _first_string(target, "title", "source_title")
        if title:
            lines.append(f"      title: {_yaml(title)}")
        if target.get("type") == "selector":
            quote = _first_string(target, "text", "quote", "selected_text")
            if quote:
                lines.append(f"      selectedText: {_yaml(quote)}")
            if isinstance(target.get("start_time"), int | float):
                lines.append(f"      startTime: {target['start_time']}")
        summary = _summary(target) or _first_string(target, "description", "text")
        if summary:
            lines.append(f"      summary: {_yaml(summary[:500])}")
    return "\n".join(lines)


def _mentioned(entity: JsonObject) -> list[str]:
    """Ids a note mentions, without the item it is attached to."""
    ids = entity.get("reference_content_ids")
    ordered = [item for item in ids if isinstance(item, str)] if isinstance(ids, list) else []
    parent = ordered[0] if ordered and entity.get("type") == "annotation" else None
    for target in prosemirror_reference_ids(entity.get("content")):
        if target not in ordered:
            ordered.append(target)
    messages = entity.get("messages")
    for message in messages if isinstance(messages, list) else []:
        if isinstance(message, dict):
            for target in prosemirror_reference_ids(message.get("content")):
                if target not in ordered:
                    ordered.append(target)
    return [item for item in ordered if item != parent]


def _resolve_citations(text: str, lookup: Lookup) -> str:
    """Chat citations ``{{content:<id>}}`` as markdown links to the cited item."""

    def link(match: re.Match[str]) -> str:
        target = lookup(match.group(1))
        if target is None:
            return match.group(0)
        title = _first_string(target, "title", "source_title") or str(target.get("type"))
        return f"[{title}]({stable_url(target)})"

    return _CITATION.sub(link, text)


def compact_text(entity: JsonObject, lookup: Lookup) -> str:
    """The precompiled ``text`` of one compact result."""
    kind = entity.get("type")
    title = _first_string(entity, "title")
    if kind == "annotation":
        return annotation_text(entity, lookup)
    if kind in ("web", "substack", "chatgpt", "claude"):
        html = entity.get("html")
        body = html_to_markdown(html) if isinstance(html, str) and html else ""
        body = body or _first_string(entity, "full_text", "description", "text")
        return _with_heading(title, body)
    if kind == "twitter":
        return _first_string(entity, "text", "title")
    if kind == "youtube":
        return _summary(entity) or _first_string(entity, "description") or title
    if kind == "image":
        return _first_string(entity, "description", "source_title")
    if kind == "chatThread":
        parts = [_summary(entity)]
        messages = entity.get("messages")
        for message in messages if isinstance(messages, list) else []:
            if isinstance(message, dict):
                text = _resolve_citations(message_text(message), lookup)
                parts.append(f"**{message.get('role', 'message')}**: {text}")
        return _with_heading(title, "\n\n".join(part for part in parts if part))
    body = _first_string(entity, "text", "full_text", "abstract", "description") or _summary(entity)
    return _with_heading(title, body)


def compact_media(entity: JsonObject) -> list[JsonObject]:
    """Slim media entries: image descriptions, transcript chunks, image asset URLs."""
    media: list[JsonObject] = []
    analysis = entity.get("image_analysis")
    analysis = analysis if isinstance(analysis, dict) else {}
    images = entity.get("images") if entity.get("type") == "twitter" else entity.get("media_urls")
    for url in images if isinstance(images, list) else []:
        if isinstance(url, str):
            item: JsonObject = {"type": "image", "assetUrls": [url]}
            described = analysis.get(url)
            if isinstance(described, dict) and isinstance(described.get("description"), str):
                item["imageDescription"] = described["description"]
            media.append(item)
    if entity.get("type") == "image":
        item = {"type": "image"}
        if isinstance(entity.get("description"), str):
            item["imageDescription"] = entity["description"]
        if isinstance(entity.get("original_url"), str):
            item["assetUrls"] = [entity["original_url"]]
        media.append(item)
    transcript = entity.get("transcript")
    if isinstance(transcript, dict) and transcript:
        segments = transcript.get("en")
        if not isinstance(segments, list):
            segments = next((v for v in transcript.values() if isinstance(v, list)), [])
        texts = [str(s.get("text", "")) for s in segments if isinstance(s, dict)]
        chunks = [
            " ".join(texts[start : start + _TRANSCRIPT_CHUNK_SEGMENTS])
            for start in range(0, len(texts), _TRANSCRIPT_CHUNK_SEGMENTS)
        ]
        if chunks:
            media.append({"type": "video", "transcriptChunks": chunks})
    return media


def _url_of(entity: JsonObject, lookup: Lookup) -> str:
    """The citation URL; a note cites what it is (ultimately) attached to."""
    current = entity
    for _ in range(10):
        if current.get("type") != "annotation" or isinstance(current.get("url"), str):
            break
        ids = current.get("reference_content_ids")
        parent = lookup(ids[0]) if isinstance(ids, list) and ids else None
        if parent is None:
            break
        current = parent
    return stable_url(current)


def compact_item(
    entity: JsonObject,
    lookup: Lookup,
    *,
    depth: int = 0,
    notes: list[JsonObject] | None = None,
) -> JsonObject:
    """One compact result, reference or note; references nest one level below notes."""
    item: JsonObject = {
        "type": entity.get("type", "other"),
        "url": _url_of(entity, lookup),
        "createdAt": iso_from_ms(entity.get("created_at")),
    }
    title = _first_string(entity, "title")
    if title:
        item["title"] = title
    item["text"] = compact_text(entity, lookup)
    media = compact_media(entity)
    if media:
        item["media"] = media
    if entity.get("type") in ("annotation", "chatThread") and depth < 2:
        references: dict[str, Any] = {}
        for target_id in _mentioned(entity):
            target = lookup(target_id)
            if target is not None:
                reference = compact_item(target, lookup, depth=depth + 1)
                references.setdefault(reference["url"], reference)
        if references:
            item["references"] = references
    if notes is not None:
        item["user_notes"] = [compact_item(note, lookup, depth=depth + 1) for note in notes]
    return item
