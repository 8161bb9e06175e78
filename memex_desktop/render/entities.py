"""Per-type rendering of content entities (DESIGN.md §5): one function per Memex type."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterator
from typing import Any

from memex_desktop.api.content import (
    BOOKKEEPING_KEYS,
    CITATION_RE,
    NUMBERED_REF_RE,
    chat_messages,
    citations,
    field_instant,
    host_of,
    localized_text,
    message_doc,
    message_references,
    message_text,
    quoted_item,
    rich_text_references,
    strings_in,
    time_text,
)
from memex_desktop.api.models import (
    UNREADABLE_TITLE,
    UNREADABLE_TYPE,
    UNREADABLE_VALUE_KEY,
    AnnotationContentEntity,
    ContentEntityBase,
    ImageAnalysis,
    ImageContentEntity,
    RedditContentEntity,
    TranscriptSegment,
    TweetContentEntity,
    TweetVideo,
    WebContentEntity,
    YoutubeContentEntity,
)
from memex_desktop.api.urls import moment_url
from memex_desktop.render.document import (
    DocumentBuilder,
    RenderContext,
    RenderedDoc,
    address_link,
    display_title,
    entity_data,
    entity_href,
    esc,
    format_timestamp,
    image,
    link,
    lookup_entity,
    place_snippets,
    reference_block,
    reference_card,
    shorten,
)
from memex_desktop.render.markdown_html import markdown_to_html, markdown_to_safe_html
from memex_desktop.render.prosemirror import prosemirror_to_html
from memex_desktop.render.sanitize import escape_attr, sanitize_html, usable_base_url
from memex_desktop.render.text import linkify, plain_text_to_html

DONE_STATUS = "indexing-done"
SAVE_TYPES = {"like": "a like", "retweet": "a retweet", "bookmark": "a bookmark"}
# Keys shown in the header of every item or that are bookkeeping (ids, tag ids, dates):
# the field list never shows them as text.
_HEADER_KEYS = BOOKKEEPING_KEYS
# Keys that are structure, not reading matter (nested search graph, ids shown as cards).
_STRUCTURE_KEYS = frozenset({"annotations", "references", "resolvedReferences"})


# --------------------------------------------------------------------------- shared parts


def _header(
    doc: DocumentBuilder,
    entity: ContentEntityBase,
    title: str,
    meta: list[str | None],
    links: list[tuple[str, str]] | None = None,
) -> None:
    """Title, a meta line (type, site, author, date ...), links, and the processing notice."""
    doc.add(f'<div class="header"><h1>{esc(title)}</h1>')
    meta_items = [item for item in meta if item]
    if meta_items:
        doc.add(f'<p class="meta">{esc(" · ".join(meta_items))}</p>')
    for url, label in links or []:
        if url:
            doc.add(f'<p class="meta">{esc(label)}: {address_link(url)}</p>')
    doc.add("</div>")
    status = entity.processing_status
    if status is not None and status != DONE_STATUS:
        doc.add(
            f'<p class="notice">Still processing on the server (status: {esc(status)}): '
            "some content may be missing or incomplete.</p>"
        )


def _section(doc: DocumentBuilder, heading: str) -> None:
    """A section heading inside the document."""
    doc.add(f'<h2 class="section">{esc(heading)}</h2>')


def _markdown(doc: DocumentBuilder, text: str, base_url: str | None = None) -> None:
    """Add markdown content as a sanitised fragment."""
    safe, remote = markdown_to_safe_html(
        text, allow_remote=doc.context.allow_remote, base_url=base_url
    )
    doc.add_fragment(safe, remote)


def _created(entity: ContentEntityBase) -> str | None:
    """ "Saved <date>" for the meta line."""
    when = format_timestamp(entity.created_at)
    return f"saved {when}" if when else None


def _images(
    doc: DocumentBuilder, urls: list[str], analysis: dict[str, ImageAnalysis] | None
) -> None:
    """Images (placeholders unless allowed) each with its description when analysed."""
    for number, url in enumerate(urls, 1):
        if not isinstance(url, str) or not url.strip():
            continue
        description = (analysis or {}).get(url)
        alt = description.description if description and description.description else ""
        doc.add(f'<p class="media">{image(url, alt or f"image {number}")}')
        if alt:
            doc.add(f'<br><span class="excerpt">Image description: {esc(alt)}</span>')
        doc.add("</p>")


def _extra_fields(doc: DocumentBuilder, entity: ContentEntityBase, used: set[str]) -> None:
    """Fields the server sent that this type's layout does not show: nothing is hidden."""
    extra = entity.model_extra or {}
    rows = [
        row
        for key in extra
        if key not in used and key not in _HEADER_KEYS and key not in _STRUCTURE_KEYS
        for row in _walk(extra[key], key)
    ]
    if rows:
        _section(doc, "Other fields")
        _field_list(doc, rows)


# A field's value as the reader shows it: its text, and whether that text is the reader's
# own formatting (a date, yes/no) rather than the item's words.
FieldRow = tuple[str, str, bool]


def _walk(value: Any, path: str, depth: int = 0) -> Iterator[FieldRow]:
    """Every scalar inside ``value`` as a row: strings, numbers, dates, nested lists/dicts."""
    if depth > 40:
        return
    key = path.rsplit(".", 1)[-1].split("[", 1)[0]
    if (instant := field_instant(key, value)) is not None:
        yield path, time_text(instant) or "", True
    elif isinstance(value, str):
        if value.strip():
            yield path, value, False
    elif isinstance(value, bool):
        yield path, "yes" if value else "no", True
    elif isinstance(value, int | float):
        yield path, str(value), False
    elif isinstance(value, dict):
        for name, item in value.items():
            yield from _walk(item, f"{path}.{name}" if path else str(name), depth + 1)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _walk(item, f"{path}[{index}]", depth + 1)


def _field_list(doc: DocumentBuilder, rows: list[FieldRow]) -> None:
    """Rows of ``name: value``; multi-line values follow their name as paragraphs with links."""
    doc.add('<div class="fields">')
    for name, value, formatted in rows:
        label = f'<span class="field-name"><b>{esc(name)}:</b></span>'
        if formatted:
            doc.add(f'<p>{label} <span class="fact">{esc(value)}</span></p>')
        elif "\n" in value.strip():
            doc.add(f"<p>{label}</p>{plain_text_to_html(value)}")
        else:
            doc.add(f"<p>{label} {linkify(value.strip())}</p>")
    doc.add("</div>")


# --------------------------------------------------------------------------- web


def _render_web(entity: WebContentEntity, doc: DocumentBuilder) -> str:
    """Article: full_text as markdown, else sanitised html, else the description."""
    title = display_title(entity)
    page = entity.canonical_url or entity.url
    _header(
        doc,
        entity,
        title,
        [
            host_of(entity.url) or None,
            entity.author and f"by {entity.author}",
            entity.date,
            _created(entity),
        ],
        [(page or "", "Link")],
    )
    base = usable_base_url(entity.url) or usable_base_url(entity.canonical_url)
    if entity.keywords:
        doc.add(f'<p class="meta">Keywords: {esc(entity.keywords)}</p>')
    has_body = bool((entity.full_text or "").strip() or (entity.html or "").strip())
    if entity.description and entity.description.strip():
        css = "excerpt" if has_body else "body"
        doc.add(f'<div class="{css}">{plain_text_to_html(entity.description)}</div>')
    if entity.full_text and entity.full_text.strip():
        _markdown(doc, entity.full_text, base)
    elif entity.html and entity.html.strip():
        safe, remote = sanitize_html(
            entity.html, allow_remote=doc.context.allow_remote, base_url=base
        )
        doc.add_fragment(safe, remote)
    elif not has_body and not (entity.description or "").strip():
        doc.add('<p class="notice">This page has no saved text.</p>')
    _extra_fields(doc, entity, {"favicon_url", "normalized_url"})
    return title


# --------------------------------------------------------------------------- twitter


def _best_variant(video: TweetVideo) -> str | None:
    """The URL of a tweet video's best variant (highest bitrate MP4, else any)."""
    candidates = [v for v in video.variants if v.url]
    if not candidates:
        return None
    mp4 = [v for v in candidates if (v.content_type or "").endswith("mp4")] or candidates
    best = max(mp4, key=lambda v: v.bitrate if isinstance(v.bitrate, int | float) else -1)
    return best.url


def _render_twitter(entity: TweetContentEntity, doc: DocumentBuilder) -> str:
    """Tweet: author, text with links, media, the quoted tweet and how it was saved."""
    title = display_title(entity)
    save_type = entity.save_type and SAVE_TYPES.get(entity.save_type, entity.save_type)
    _header(
        doc,
        entity,
        title,
        [
            "Tweet",
            save_type and f"saved as {save_type}",
            format_timestamp(entity.published_at),
            _created(entity),
        ],
        [(entity.url or "", "Link")],
    )
    if entity.text:
        doc.add(f'<div class="body">{plain_text_to_html(entity.text)}</div>')
    _images(doc, entity.images or [], entity.image_analysis)
    for number, video in enumerate(entity.videos or [], 1):
        url = _best_variant(video)
        duration = f" ({video.duration:g} s)" if isinstance(video.duration, int | float) else ""
        doc.add(f'<p class="media">Video {number}{esc(duration)}: ')
        doc.add(link(url) if url else esc("no playable source"))
        if video.preview_url:
            doc.add("<br>" + image(video.preview_url, f"video {number} preview"))
        doc.add("</p>")
    quoted_id = quoted_item(entity_data(entity))
    if quoted_id is not None:
        doc.add(reference_block(quoted_id, doc.context, "Quoting:"))
    _extra_fields(doc, entity, {"quote_tweet"})
    return title


# --------------------------------------------------------------------------- youtube


def _offset_seconds(offset: object) -> float | None:
    """A transcript offset (number or numeric string) in seconds, or None when unusable."""
    try:
        seconds = float(offset)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    return seconds if math.isfinite(seconds) and seconds >= 0 else None


def format_offset(seconds: float) -> str:
    """``mm:ss`` (``h:mm:ss`` from one hour on)."""
    whole = int(seconds)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes:02d}:{secs:02d}"


def _choose(options: dict[str, Any], preferred: str | None) -> str | None:
    """The preferred language when available, else the first one."""
    if not options:
        return None
    return preferred if preferred in options else next(iter(options))


def _render_youtube(entity: YoutubeContentEntity, doc: DocumentBuilder) -> str:
    """Video: channel, summary, description and the transcript with timestamp anchors."""
    title = display_title(entity)
    extra = entity.model_extra or {}
    channel = extra.get("channel_title")
    _header(
        doc,
        entity,
        title,
        [
            "YouTube",
            (isinstance(channel, str) and channel.strip() and f"channel: {channel.strip()}")
            or None,
            format_timestamp(entity.published_at),
            _created(entity),
        ],
        [(entity.url or "", "Link")],
    )
    if entity.thumbnail_url:
        doc.add(f'<p class="media">{image(entity.thumbnail_url, "thumbnail")}</p>')
    preferred = doc.context.transcript_language
    summaries = {k: v for k, v in (entity.summary or {}).items() if isinstance(v, str) and v}
    language = _choose(summaries, preferred)
    if language is not None:
        _section(doc, "Summary" if len(summaries) == 1 else f"Summary ({language})")
        _markdown(doc, summaries[language])
    if entity.description and entity.description.strip():
        _section(doc, "Description")
        doc.add(f'<div class="body">{plain_text_to_html(entity.description)}</div>')
    transcripts = {k: v for k, v in (entity.transcript or {}).items() if v}
    language = _choose(transcripts, preferred)
    if language is not None:
        _transcript(doc, entity.id, language, transcripts, entity.url)
    _extra_fields(doc, entity, {"channel_title"})
    return title


def _transcript(
    doc: DocumentBuilder,
    entity_id: str,
    language: str,
    transcripts: dict[str, list[TranscriptSegment]],
    video_url: str | None = None,
) -> None:
    """One paragraph per segment, each starting with a ``[mm:ss]`` link to its place in the
    transcript and a ``▶`` link that opens the video at that moment (after the reader shows
    where it goes, as for every web link)."""
    _section(doc, f"Transcript ({language})")
    others = [name for name in transcripts if name != language]
    if others:
        doc.add(f'<p class="meta">Also available in: {esc(", ".join(others))}</p>')
    base = entity_href(entity_id)
    parts = ['<div class="transcript">']
    for segment in transcripts[language]:
        seconds = _offset_seconds(segment.offset)
        if seconds is None:
            stamp = ""
        else:
            href = escape_attr(f"{base}?t={int(seconds)}")
            stamp = f'<a class="timestamp" href="{href}">[{format_offset(seconds)}]</a> '
            moment = moment_url(video_url, seconds) if video_url else None
            if moment is not None:
                stamp += f'<a class="moment" href="{escape_attr(moment)}">▶</a> '
        parts.append(f'<p class="segment">{stamp}{esc(segment.text)}</p>')
    parts.append("</div>")
    doc.add("".join(parts))


# --------------------------------------------------------------------------- reddit


def _render_reddit(entity: RedditContentEntity, doc: DocumentBuilder) -> str:
    """Reddit post: subreddit, author, score, text (markdown) and media."""
    title = display_title(entity)
    extra = entity.model_extra or {}
    subreddit = entity.subreddit_name
    author = entity.author_handle or entity.author_name
    score = extra.get("score")
    permalink = entity.permalink
    if permalink and permalink.startswith("/"):
        permalink = "https://www.reddit.com" + permalink
    _header(
        doc,
        entity,
        title,
        [
            "Reddit",
            subreddit and ("r/" + subreddit.removeprefix("r/")),
            author and f"by u/{author.removeprefix('u/')}",
            entity.author_name if entity.author_handle and entity.author_name else None,
            (isinstance(score, int | float) and not isinstance(score, bool) and f"score {score}")
            or None,
            format_timestamp(extra.get("published_at")),
            _created(entity),
        ],
        [(entity.url or "", "Link"), (permalink or "", "Permalink")],
    )
    if entity.text and entity.text.strip():
        _markdown(doc, entity.text)
    _images(doc, entity.media_urls or [], entity.image_analysis)
    for number, video in enumerate(entity.videos or [], 1):
        doc.add(f'<p class="media">Video {number}: ')
        doc.add(link(video.url) if video.url else esc("no playable source"))
        if video.preview_url:
            doc.add("<br>" + image(video.preview_url, f"video {number} preview"))
        doc.add("</p>")
    _extra_fields(doc, entity, {"score", "published_at"})
    return title


# --------------------------------------------------------------------------- image


def _render_image(entity: ImageContentEntity, doc: DocumentBuilder) -> str:
    """Image: the image (placeholder unless allowed), its description and where it came from."""
    title = display_title(entity) if entity.source_title else "Image"
    _header(
        doc,
        entity,
        title,
        ["Image", "reference image" if entity.is_reference else None, _created(entity)],
        [
            (entity.source_url or "", "Source page"),
            (entity.original_url or "", "Original image"),
        ],
    )
    if entity.original_url:
        doc.add(f'<p class="media">{image(entity.original_url, entity.source_title or "")}</p>')
    if entity.description and entity.description.strip():
        _section(doc, "Description")
        _markdown(doc, entity.description)
    _extra_fields(doc, entity, set())
    return title


# --------------------------------------------------------------------------- annotation


def _has_rich_text(content: object) -> bool:
    """Whether a ``content`` field is a rich-text document with something in it."""
    if isinstance(content, dict):
        return bool(content.get("content"))
    return isinstance(content, list) and bool(content)


def _render_annotation(entity: AnnotationContentEntity, doc: DocumentBuilder) -> str:
    """Note: what it is attached to (or replies to), then its text with inline cards."""
    title = display_title(entity)
    _header(doc, entity, title, ["Note", "private" if entity.private else None, _created(entity)])
    targets = [t for t in entity.reference_content_ids or [] if isinstance(t, str) and t]
    if targets:
        parent = lookup_entity(doc.context, targets[0])
        caption = "Reply to" if parent is not None and parent.type == "annotation" else "Note on"
        doc.add(f'<p class="meta">{esc(caption)} {reference_card(targets[0], doc.context)}</p>')
    content = entity.content
    shown: set[str] = set(targets[:1])
    if _has_rich_text(content):
        shown.update(reference.target for reference in rich_text_references(content))
        doc.add(f'<div class="body">{prosemirror_to_html(content, doc.context)}</div>')
    elif entity.text and entity.text.strip():
        doc.add(f'<div class="body">{plain_text_to_html(entity.text)}</div>')
    mentioned = [t for t in dict.fromkeys(targets[1:]) if t not in shown]
    if mentioned:
        doc.add('<p class="meta">Also mentions: ')
        doc.add(", ".join(reference_card(t, doc.context) for t in mentioned))
        doc.add("</p>")
    _extra_fields(doc, entity, set())
    return title


# --------------------------------------------------------------------------- chat thread


def _more_references(
    doc: DocumentBuilder, targets: list[str], shown: set[str], caption: str = "Also names"
) -> None:
    """Cards for the items in ``targets`` not shown yet (each item is named once)."""
    more = [target for target in dict.fromkeys(targets) if target not in shown]
    if more:
        doc.add(f'<p class="meta">{esc(caption)}: ')
        doc.add(", ".join(reference_card(target, doc.context) for target in more))
        doc.add("</p>")
        shown.update(more)


def _with_citations(doc: DocumentBuilder, text: str) -> None:
    """Add markdown whose ``{{content:ID}}`` citations are reference cards, as a fragment.

    Citations become tokens before markdown runs (so it cannot mangle the ids) and cards in
    the converter's output, before the sanitiser: each card is cleaned with its message.
    """
    cited: dict[str, tuple[str, str]] = {}

    def cite(match: re.Match[str]) -> str:
        token = doc.token()
        cited[token] = (reference_card(match.group(1), doc.context), match.group(0))
        return token

    source = CITATION_RE.sub(cite, text)
    source = NUMBERED_REF_RE.sub(lambda m: f"[{m.group(1)}]", source)
    converted = place_snippets(markdown_to_html(source), cited)
    safe, remote = sanitize_html(converted, allow_remote=doc.context.allow_remote, converted=True)
    doc.add_fragment(safe, remote)


def _render_chat_thread(entity: ContentEntityBase, doc: DocumentBuilder) -> str:
    """Chat thread: summary, then every message in order with citations as cards."""
    data = entity_data(entity)
    title = display_title(entity)
    model = data.get("model_name")
    _header(
        doc, entity, title, ["Chat", (isinstance(model, str) and model) or None, _created(entity)]
    )
    shown: set[str] = set()
    summary = localized_text(data.get("summary"))
    if summary.strip():
        _section(doc, "Summary")
        _with_citations(doc, summary)
        shown.update(citations(summary))
    messages = chat_messages(data)
    if messages:
        _section(doc, "Conversation")
        for number, message in enumerate(messages, 1):
            role = message.get("role")
            label = role.capitalize() if isinstance(role, str) and role else f"Message {number}"
            doc.add(f'<div class="message"><p class="role"><b>{esc(label)}</b></p>')
            text = message_text(message)
            rich = message_doc(message)
            if text is not None:
                _with_citations(doc, text)
                shown.update(citations(text))
            elif rich is not None:
                doc.add(f'<div class="body">{prosemirror_to_html(rich, doc.context)}</div>')
                shown.update(reference.target for reference in rich_text_references(rich))
            _more_references(doc, [r.target for r in message_references(message)], shown)
            doc.add("</div>")
    _more_references(doc, strings_in(data.get("reference_content_ids")), shown, "References")
    used = {"title", "summary", "model_name", "messages", "reference_content_ids"}
    rows = [
        row
        for key, value in data.items()
        if key not in used | _HEADER_KEYS and key not in _STRUCTURE_KEYS
        for row in _walk(value, key)
    ]
    if rows:
        _section(doc, "Other fields")
        _field_list(doc, rows)
    return title


# --------------------------------------------------------------------------- any other type


def _render_other(entity: ContentEntityBase, doc: DocumentBuilder) -> str:
    """Unknown type: the title and every field the server sent, nested values included."""
    data = entity_data(entity)
    title = display_title(entity)
    _header(doc, entity, title, [entity.type, _created(entity)], [(entity.url or "", "Link")])
    rows = [
        row
        for key, value in data.items()
        if key not in _HEADER_KEYS and key not in _STRUCTURE_KEYS and key != "url"
        for row in _walk(value, key)
    ]
    if rows:
        _field_list(doc, rows)
    references = [t for t in entity.reference_content_ids or [] if isinstance(t, str) and t]
    if references:
        doc.add('<p class="meta">References: ')
        doc.add(", ".join(reference_card(t, doc.context) for t in references))
        doc.add("</p>")
    return title


# --------------------------------------------------------------------------- unreadable items


def _render_unreadable(entity: ContentEntityBase, doc: DocumentBuilder) -> str:
    """An item the server sent in a shape that cannot be read: say so, its id, its raw JSON."""
    data = entity_data(entity)
    sent = data.get(UNREADABLE_VALUE_KEY)
    own_id = sent.get("id") if isinstance(sent, dict) else None
    shown_id = own_id if isinstance(own_id, str | int | float) and own_id != "" else entity.id
    doc.add(f'<div class="header"><h1>{esc(UNREADABLE_TITLE)}</h1>')
    doc.add(f'<p class="meta">id {esc(shown_id)}</p></div>')
    doc.add(
        "<p>The server sent this item in a shape this version cannot read. "
        "It is kept as it was sent:</p>"
    )
    try:
        raw = json.dumps(sent, ensure_ascii=False, indent=2)
    except (TypeError, ValueError, RecursionError):
        raw = repr(sent)
    doc.add(f"<pre>{esc(raw)}</pre>")
    return UNREADABLE_TITLE


_RENDERERS: dict[str, Callable[[Any, DocumentBuilder], str]] = {
    UNREADABLE_TYPE: _render_unreadable,
    "web": _render_web,
    "twitter": _render_twitter,
    "youtube": _render_youtube,
    "reddit": _render_reddit,
    "image": _render_image,
    "annotation": _render_annotation,
    "chatThread": _render_chat_thread,
}
_MODELS: dict[str, type[ContentEntityBase]] = {
    "web": WebContentEntity,
    "twitter": TweetContentEntity,
    "youtube": YoutubeContentEntity,
    "reddit": RedditContentEntity,
    "image": ImageContentEntity,
    "annotation": AnnotationContentEntity,
}


def render_entity(entity: ContentEntityBase, context: RenderContext | None = None) -> RenderedDoc:
    """Render any content entity to safe reader HTML plus its plain text.

    Entities whose typed fields did not parse (an ``OtherContentEntity`` of a known type) and
    unknown types are rendered field by field, so nothing the server sent is hidden.
    """
    context = context or RenderContext()
    doc = DocumentBuilder(context)
    model = _MODELS.get(entity.type)
    renderer = _RENDERERS.get(entity.type)
    if renderer is None or (model is not None and not isinstance(entity, model)):
        renderer = _render_other
    title = renderer(entity, doc)
    return doc.finish(shorten(title, 300))
