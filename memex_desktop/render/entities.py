"""Per-type rendering of content entities (DESIGN.md §5): one function per Memex type."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from memex_desktop.api.content import (
    CITATION_RE,
    NUMBERED_REF_RE,
    TranscriptLine,
    chat_messages,
    citations,
    date_text,
    duration_seconds,
    field_instant,
    host_of,
    localized_text,
    message_doc,
    message_references,
    message_text,
    quoted_item,
    rich_text_references,
    seconds_of,
    selector_target,
    strings_in,
    summary_thread,
    text_of,
    title_field,
    transcripts_of,
    type_label,
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
    excerpt_of,
    format_timestamp,
    image,
    link,
    lookup_entity,
    place_snippets,
    reference_block,
    reference_card,
    shorten,
)
from memex_desktop.render.fields import duration_text, fields_html
from memex_desktop.render.markdown_html import markdown_to_html, markdown_to_safe_html
from memex_desktop.render.prosemirror import prosemirror_to_html
from memex_desktop.render.sanitize import escape_attr, sanitize_html, usable_base_url
from memex_desktop.render.text import plain_text_to_html

DONE_STATUS = "indexing-done"
SAVE_TYPES = {"like": "a like", "retweet": "a retweet", "bookmark": "a bookmark"}
# Keys that are structure, not reading matter (nested search graph, ids shown as cards).
_STRUCTURE_KEYS = frozenset({"annotations", "references", "resolvedReferences"})
# What people call the types whose name is not already a word.
# --------------------------------------------------------------------------- shared parts


def _header(
    doc: DocumentBuilder,
    entity: ContentEntityBase,
    title: str,
    meta: list[str | None],
    links: list[tuple[str, str]] | None = None,
    *,
    heading_html: str | None = None,
) -> None:
    """Title (or another heading, a highlight's quote), a meta line (type, site, author,
    date ...), the item's tags, links, and the processing notice.

    An item without a title of its own (a tweet, a note) has no heading when its body says
    that title's words: the title is the start of its own text, shown whole right below.
    """
    if heading_html is not None:
        doc.add(f'<div class="header">{heading_html}')
    elif _titled_by_itself(entity, title):
        doc.add('<div class="header">')
        doc.heading_unless_said(title)
    else:
        doc.add(f'<div class="header"><h1>{esc(title)}</h1>')
    meta_items = [item for item in meta if item]
    if meta_items:
        doc.add(f'<p class="meta">{esc(" · ".join(meta_items))}</p>')
    tags = _tag_names(doc.context, entity)
    if tags:
        doc.add(f'<p class="meta tags">Tags: {esc(", ".join(tags))}</p>')
    for url, label in links or []:
        if url:
            doc.add(f'<p class="meta">{esc(label)}: {address_link(url)}</p>')
    doc.add("</div>")
    status = entity.processing_status
    if _processing(status):
        doc.add(
            f'<p class="notice">Still processing on the server (status: {esc(status)}): '
            "some content may be missing or incomplete.</p>"
        )
    elif status is not None and status != DONE_STATUS:
        doc.add(
            f'<p class="notice">Memex could not finish processing this item (status: '
            f"{esc(status)}): some content may be missing.</p>"
        )


def _processing(status: str | None) -> bool:
    """Whether a ``metadata.status`` says the server is still at work on the item (the
    documented ``pending`` and the steps to ``indexing-done``), not done nor failed."""
    if status is None or status == DONE_STATUS:
        return False
    return not any(word in status.casefold() for word in ("fail", "error"))


def _titled_by_itself(entity: ContentEntityBase, title: str) -> bool:
    """Whether ``title`` is only what the item derives from its own words (or its address)
    for want of a title of its own."""
    return title_field(entity_data(entity)) is None and title == display_title(entity)


def _tag_names(context: RenderContext, entity: ContentEntityBase) -> list[str]:
    """The names of the item's tags the cache knows, in the item's order, each once."""
    if context.tag_names is None:
        return []
    names = (context.tag_names(tag_id) for tag_id in strings_in(entity_data(entity).get("tag_ids")))
    return list(dict.fromkeys(name.strip() for name in names if name and name.strip()))


def _section(doc: DocumentBuilder, heading: str) -> None:
    """A section heading inside the document."""
    doc.add(f'<h2 class="section">{esc(heading)}</h2>')


def _markdown(doc: DocumentBuilder, text: str, base_url: str | None = None) -> None:
    """Add markdown content as a sanitised fragment."""
    safe, remote = doc.step(
        len(text),
        markdown_to_safe_html,
        text,
        allow_remote=doc.context.allow_remote,
        base_url=base_url,
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
    """Fields the server sent that this type's layout does not show: labelled, under
    "Other fields"; only ids and bookkeeping are left out."""
    _fields_section(doc, entity_data(entity), set(entity.model_extra or {}) - used)


def _fields_section(
    doc: DocumentBuilder, data: dict[str, Any], keys: set[str], heading: str | None = "Other fields"
) -> None:
    """The fields ``keys`` of ``data`` in the item's order (the title's field is in the header)."""
    left_out = _STRUCTURE_KEYS | {title_field(data) or ""}
    shown = fields_html((key, value) for key, value in data.items() if key in keys - left_out)
    if shown:
        if heading:
            _section(doc, heading)
        doc.add(shown)


def _prose(doc: DocumentBuilder, text: str) -> None:
    """A text field: markdown when it is written as markdown, else paragraphs as typed."""
    if _MARKDOWN_BLOCK.search(text):
        _markdown(doc, text)
    else:
        doc.add(f'<div class="body">{plain_text_to_html(text)}</div>')


# A line that starts a heading, a list item, a quote or a fence: the text is markdown.
_MARKDOWN_BLOCK = re.compile(r"^ {0,3}(?:#{1,6}[ \t]|[-*+][ \t]|\d{1,9}[.)][ \t]|>|```|~~~)", re.M)


def _published(data: dict[str, Any], keys: tuple[str, ...] = ()) -> tuple[str | None, str | None]:
    """When an item was published (or, under ``keys``, made), as a date or as the item says
    it, and the field that says it."""
    for key in keys + _PUBLISHED_KEYS:
        value = data.get(key)
        if (instant := field_instant(key, value)) is not None:
            return date_text(instant), key
        if isinstance(value, str) and value.strip() and len(value) <= 40:
            return value.strip(), key
        if isinstance(value, int) and not isinstance(value, bool) and 0 < value < 10_000:
            return str(value), key  # a year
    return None, None


_PUBLISHED_KEYS = (
    "published_at", "publication_date", "published_date", "release_date", "date",
    "published_year", "publication_year", "year", "published",
)  # fmt: skip


def _notes(doc: DocumentBuilder, entity_id: str) -> None:
    """Cards for the notes attached to an item, when the caller can find them."""
    finder = doc.context.notes_on
    notes = list(dict.fromkeys(finder(entity_id))) if finder is not None else []
    if notes:
        _section(doc, "Note" if len(notes) == 1 else "Notes")
        for note in notes:
            doc.add(reference_block(note, doc.context, ""))


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
        _page(doc, entity.html, base)
    elif not has_body and not (entity.description or "").strip():
        doc.add(
            '<p class="notice">No text yet: a sync brings it once Memex has read the page.</p>'
            if _processing(entity.processing_status)
            else '<p class="notice">This page has no saved text.</p>'
        )
    _extra_fields(doc, entity, {"favicon_url", "normalized_url"})
    return title


# The link of the notice above an article view: the reader shows the whole page for it.
WHOLE_PAGE_HREF = "memex://whole-page"


def _page(doc: DocumentBuilder, page: str, base: str | None) -> None:
    """A saved page: its article (with a way to the whole page), else the whole page."""
    context = doc.context
    is_article, safe, remote = doc.step(
        len(page), page_body, page, context.whole_page, context.allow_remote, base
    )
    if is_article:
        doc.add(
            '<p class="notice">Shown as an article, without the page\'s navigation, sidebars '
            f'and footers. <a href="{WHOLE_PAGE_HREF}">Show the whole page</a></p>'
        )
    doc.add_fragment(safe, remote)


def page_body(
    page: str, whole_page: bool, allow_remote: bool, base: str | None
) -> tuple[bool, str, list[str]]:
    """A saved page's sanitised article (unless ``whole_page``), else the whole page; with
    whether it is the article and its remote image URLs."""
    # Imported here: readability and lxml were 20-40 ms and 7 MB of the window's start (least
    # of eight starts each), which the first saved page read now pays instead.
    from memex_desktop.render.article import article_html

    article = None if whole_page else article_html(page)
    safe, remote = sanitize_html(article or page, allow_remote=allow_remote, base_url=base)
    return article is not None, safe, remote


# --------------------------------------------------------------------------- twitter


def _best_variant(video: TweetVideo) -> str | None:
    """The URL of a tweet video's best variant (highest bitrate MP4, else any)."""
    candidates = [v for v in video.variants if v.url]
    if not candidates:
        return None
    mp4 = [v for v in candidates if (v.content_type or "").endswith("mp4")] or candidates
    best = max(mp4, key=lambda v: v.bitrate if isinstance(v.bitrate, int | float) else -1)
    return best.url


def _tweet_byline(name: str | None, handle: str | None) -> str | None:
    """``by Rosa (@rosa_grows)`` for a tweet's meta line: its author's name and handle, as
    far as the tweet names them."""
    name = (name or "").strip()
    handle = (handle or "").strip().lstrip("@")
    at_handle = f"@{handle}" if handle else ""
    if name and at_handle and name.lstrip("@").casefold() != handle.casefold():
        return f"by {name} ({at_handle})"
    named = name or at_handle
    return f"by {named}" if named else None


def _render_twitter(entity: TweetContentEntity, doc: DocumentBuilder) -> str:
    """Tweet: author, text with links, media, the quoted tweet and how it was saved."""
    title = display_title(entity)
    save_type = entity.save_type and SAVE_TYPES.get(entity.save_type, entity.save_type)
    posted = format_timestamp(entity.published_at)
    saved = _created(entity)
    if save_type:
        # One saving, said once: "saved as a bookmark 2025-09-03 18:36".
        saved = f"saved as {save_type} {saved.removeprefix('saved ')}" if saved else None
        saved = saved or f"saved as {save_type}"
    _header(
        doc,
        entity,
        title,
        [
            type_label(entity.type),
            _tweet_byline(entity.author_name, entity.author_handle),
            posted and f"posted {posted}",
            saved,
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
            type_label(entity.type),
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
    transcripts = {
        language: [TranscriptLine(line.text, seconds_of(line.offset)) for line in lines]
        for language, lines in (entity.transcript or {}).items()
        if lines
    }
    _transcripts(doc, entity.id, transcripts, entity.url)
    _extra_fields(doc, entity, {"channel_title"})
    return title


def _transcripts(
    doc: DocumentBuilder,
    entity_id: str,
    transcripts: dict[str, list[TranscriptLine]],
    media_url: str | None = None,
) -> bool:
    """The transcript in the preferred language (else the first), when there is one."""
    language = _choose(transcripts, doc.context.transcript_language)
    if language is None:
        return False
    _transcript(doc, entity_id, language, transcripts, media_url)
    return True


def _transcript(
    doc: DocumentBuilder,
    entity_id: str,
    language: str,
    transcripts: dict[str, list[TranscriptLine]],
    media_url: str | None = None,
) -> None:
    """One paragraph per line, each starting with a ``[mm:ss]`` link to its place in the
    transcript and a ``▶`` link that opens the video at that moment (after the reader shows
    where it goes, as for every web link)."""
    _section(doc, f"Transcript ({language})" if language else "Transcript")
    others = [name or "unnamed" for name in transcripts if name != language]
    if others:
        doc.add(f'<p class="meta">Also available in: {esc(", ".join(others))}</p>')
    base = entity_href(entity_id)
    parts = ['<div class="transcript">']
    for line in transcripts[language]:
        seconds = line.seconds
        if seconds is None:
            stamp = ""
        else:
            href = escape_attr(f"{base}?t={int(seconds)}")
            stamp = f'<a class="timestamp" href="{href}">[{format_offset(seconds)}]</a> '
            moment = moment_url(media_url, seconds) if media_url else None
            if moment is not None:
                stamp += f'<a class="moment" href="{escape_attr(moment)}">▶</a> '
        speaker = f"<b>{esc(line.speaker)}:</b> " if line.speaker else ""
        parts.append(f'<p class="segment">{stamp}{speaker}{esc(line.text)}</p>')
    parts.append("</div>")
    doc.add("".join(parts))


# --------------------------------------------------------------------------- reddit


def _display_name_beside(name: str | None, handle: str | None) -> str | None:
    """A Reddit author's display name after their handle, unless it is the handle again."""
    if not name or not handle:
        return None
    same = (
        name.strip().removeprefix("u/").casefold() == handle.strip().removeprefix("u/").casefold()
    )
    return None if same else name


def _score_text(score: object) -> str | None:
    """ "score 1,290" (a whole score without ".0")."""
    if not isinstance(score, int | float) or isinstance(score, bool) or score != score:
        return None
    shown = int(score) if isinstance(score, int) or score.is_integer() else score
    return f"score {shown:,}"


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
            type_label(entity.type),
            subreddit and ("r/" + subreddit.removeprefix("r/")),
            author and f"by u/{author.removeprefix('u/')}",
            _display_name_beside(entity.author_name, entity.author_handle),
            _score_text(score),
            (posted := format_timestamp(extra.get("published_at"))) and f"posted {posted}",
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
    # A picture is named by a title (its own, else its source page's), never by the first
    # words of its description, which follows, nor by its address or id.
    named = title_field(entity_data(entity)) is not None
    title = display_title(entity) if named else "Image"
    _header(
        doc,
        entity,
        title,
        [
            type_label(entity.type),
            "reference image" if entity.is_reference else None,
            _created(entity),
        ],
        [
            (entity.source_url or "", "Source page"),
            (entity.original_url or "", "Original image"),
        ],
    )
    if entity.original_url:
        # "Worm compost ready to harvest", not "Worm Bins for Flat Dwellers".
        doc.add(f'<p class="media">{image(entity.original_url, title if named else "")}</p>')
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
    _header(
        doc,
        entity,
        title,
        [type_label(entity.type), "private" if entity.private else None, _created(entity)],
    )
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
    safe, remote = doc.step(
        len(converted),
        sanitize_html,
        converted,
        allow_remote=doc.context.allow_remote,
        converted=True,
    )
    doc.add_fragment(safe, remote)


def _render_chat_thread(entity: ContentEntityBase, doc: DocumentBuilder) -> str:
    """Chat thread: summary, then every message in order with citations as cards."""
    data = entity_data(entity)
    title = display_title(entity)
    model = data.get("model_name")
    _header(
        doc,
        entity,
        title,
        [type_label(entity.type), (isinstance(model, str) and model) or None, _created(entity)],
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
    _fields_section(doc, data, set(data) - used)
    return title


# --------------------------------------------------------------------------- pdf


def _render_pdf(entity: ContentEntityBase, doc: DocumentBuilder) -> str:
    """Paper: authors, page count and date, its links, the abstract and the full text."""
    data = entity_data(entity)
    title = display_title(entity)
    authors, authors_key = _authors(data)
    pages = _count(data.get("page_count"), "page")
    published, published_key = _published(data)
    used = {"url", "pdf_url", "source_urls", authors_key, published_key or ""}
    used |= {"page_count"} if pages else set()
    url = text_of(data.get("url"))
    pdf_url = text_of(data.get("pdf_url"))
    links = [(url, "PDF" if url.lower().split("?")[0].endswith(".pdf") else "Link")]
    links.append((pdf_url, "PDF") if pdf_url != url else ("", ""))
    links += [(source, "Source") for source in strings_in(data.get("source_urls"))]
    _header(
        doc,
        entity,
        title,
        [
            type_label(entity.type),
            _byline(authors),
            pages,
            published and f"published {published}",
            _created(entity),
        ],
        links,
    )
    used |= _texts(doc, data, ("abstract", "Abstract"))
    used |= _summary(doc, data)
    used |= _full_text(doc, data, "Full text")
    _fields_section(doc, data, set(data) - used)
    return title


def _authors(data: dict[str, Any]) -> tuple[list[str], str]:
    """The authors of a paper or a book (``authors``, else ``author``) and the field read."""
    listed = strings_in(data.get("authors"))
    return (listed, "authors") if listed else ([text_of(data.get("author")).strip()], "author")


def _byline(authors: list[str]) -> str | None:
    """``by A, B`` for the meta line, or None without authors."""
    named = [author.strip() for author in authors if author.strip()]
    return "by " + ", ".join(named) if named else None


def _count(value: object, noun: str) -> str | None:
    """``22 pages`` for a positive whole number, else None."""
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return f"{value} {noun}{'' if value == 1 else 's'}"
    return None


def _summary(doc: DocumentBuilder, data: dict[str, Any]) -> set[str]:
    """The item's summary as markdown with citations; returns the field when shown."""
    summary = _preferred_text(data.get("summary"), doc.context.transcript_language)
    if not summary.strip():
        return set()
    _section(doc, "Summary")
    _with_citations(doc, summary)
    return {"summary"}


def _texts(doc: DocumentBuilder, data: dict[str, Any], *fields: tuple[str, str | None]) -> set[str]:
    """Each of ``fields`` (a key and its heading, if any) that has text; returns those shown."""
    shown: set[str] = set()
    for key, heading in fields:
        text = text_of(data.get(key))
        if text.strip():
            if heading:
                _section(doc, heading)
            _prose(doc, text)
            shown.add(key)
    return shown


def _preferred_text(value: object, preferred: str | None) -> str:
    """A per-language text in the preferred language (else the first), or a plain string."""
    if isinstance(value, dict):
        texts = {key: text for key, text in value.items() if isinstance(text, str) and text}
        language = _choose(texts, preferred)
        return texts[language] if language is not None else ""
    return text_of(value)


def _full_text(doc: DocumentBuilder, data: dict[str, Any], heading: str | None) -> set[str]:
    """``full_text`` as markdown, else sanitised ``html``; returns the field shown."""
    base = usable_base_url(data.get("url"))
    full_text = text_of(data.get("full_text"))
    html = text_of(data.get("html"))
    if not full_text.strip() and not html.strip():
        return set()
    if heading:
        _section(doc, heading)
    if full_text.strip():
        _markdown(doc, full_text, base)
        return {"full_text"}
    safe, remote = doc.step(
        len(html), sanitize_html, html, allow_remote=doc.context.allow_remote, base_url=base
    )
    doc.add_fragment(safe, remote)
    return {"html"}


# --------------------------------------------------------------------------- book


_COVER_KEYS = ("cover_url", "cover_image_url", "cover", "image_url", "thumbnail_url")
_ISBN_KEYS = ("isbn", "isbn13", "isbn_13", "isbn10", "isbn_10")


def _render_book(entity: ContentEntityBase, doc: DocumentBuilder) -> str:
    """Book: author, publisher, year and ISBN as present, its cover and its description."""
    data = entity_data(entity)
    title = display_title(entity)
    authors, authors_key = _authors(data)
    pages = _count(data.get("page_count"), "page")
    published, published_key = _published(data)
    used = {"url", authors_key, published_key or ""}
    used |= {"page_count"} if pages else set()
    isbn_key = next((key for key in _ISBN_KEYS if _plain_value(data.get(key))), None)
    used.add(isbn_key or "")
    publisher = text_of(data.get("publisher")).strip()
    used |= {"publisher"} if publisher else set()
    _header(
        doc,
        entity,
        title,
        [
            type_label(entity.type),
            _byline(authors),
            publisher or None,
            published,
            isbn_key and f"ISBN {_plain_value(data.get(isbn_key))}",
            pages,
            _created(entity),
        ],
        [(text_of(data.get("url")), "Link")],
    )
    cover_key = next((key for key in _COVER_KEYS if text_of(data.get(key)).strip()), None)
    if cover_key is not None:
        doc.add(f'<p class="media">{image(data[cover_key], "cover")}</p>')
        used.add(cover_key)
    used |= _texts(doc, data, ("description", None), ("text", None))
    used |= _summary(doc, data)
    used |= _full_text(doc, data, "Full text")
    _fields_section(doc, data, set(data) - used)
    return title


def _plain_value(value: object) -> str:
    """A string or a whole number as text ('' for anything else)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return value.strip() if isinstance(value, str) else ""


# --------------------------------------------------------------------------- audio recording


def _render_audio_recording(entity: ContentEntityBase, doc: DocumentBuilder) -> str:
    """Audio recording: length and date, its summary (its own, or its summary thread's), the
    transcript and the notes on it."""
    data = entity_data(entity)
    title = display_title(entity)
    duration = duration_seconds(data)
    published, published_key = _published(data, ("recorded_at", "recorded"))
    used = {"url", "duration_s", "duration", "duration_ms", published_key or ""}
    _header(
        doc,
        entity,
        title,
        [
            type_label(entity.type),
            duration_text(duration) if duration is not None else None,
            published and f"recorded {published}",
            _created(entity),
        ],
        [(text_of(data.get("url")), "Link")],
    )
    used |= _summary(doc, data) | _texts(doc, data, ("description", None))
    thread = summary_thread(data)
    if thread is not None:
        _summary_thread(doc, thread, show_summary="summary" not in used)
    shown = dict(data)
    if _transcripts(doc, entity.id, transcripts_of(data), text_of(data.get("url"))):
        used.add("transcript")
        shown["media"] = _without_transcripts(data.get("media"))
        heading = "Text"
    else:
        heading = "Transcript"
    used |= _texts(doc, data, ("text", heading))
    used |= _full_text(doc, data, "Full text")
    _notes(doc, entity.id)
    _fields_section(doc, shown, set(data) - used)
    return title


def _summary_thread(doc: DocumentBuilder, thread_id: str, *, show_summary: bool) -> None:
    """The chat thread holding the item's AI summary: a card, and the summary it gives when
    the item has none of its own (the thread's words, so in the card's box)."""
    thread = lookup_entity(doc.context, thread_id)
    summary = _thread_summary(entity_data(thread)) if thread is not None else ""
    if not show_summary or not summary.strip():
        doc.add(reference_block(thread_id, doc.context, "Summary thread:"))
        return
    _section(doc, "Summary")
    doc.add('<div class="ref-card">')
    doc.add(f"<p>From its summary thread {reference_card(thread_id, doc.context)}</p>")
    # Citations name items the recording does not reference: they are left out, not linked.
    source = _UNCITED.sub("", _SUMMARY_HEADING.sub("", summary, count=1))
    _markdown(doc, NUMBERED_REF_RE.sub(lambda m: f"[{m.group(1)}]", source))
    doc.add("</div>")


# A citation with the space before it, and a first heading that only says "Summary" (the
# section is already called that).
_UNCITED = re.compile(r"[ \t]*" + CITATION_RE.pattern)
_SUMMARY_HEADING = re.compile(r"\A\s*#{1,6}[ \t]+summary[ \t]*#*[ \t]*(?:\n|\Z)", re.I)


def _thread_summary(data: dict[str, Any]) -> str:
    """What a summary thread says: its summary, else its last assistant message."""
    summary = localized_text(data.get("summary"))
    if summary.strip():
        return summary
    answers = [m for m in chat_messages(data) if m.get("role") == "assistant"]
    return (message_text(answers[-1]) or "") if answers else ""


# --------------------------------------------------------------------------- highlight


def _render_selector(entity: ContentEntityBase, doc: DocumentBuilder) -> str:
    """Highlight: the quote, the item it is in (and, in a video, its moment), and its notes."""
    data = entity_data(entity)
    title = display_title(entity)
    quote = text_of(data.get("text"))
    target = selector_target(data) or next(
        iter(strings_in(data.get("reference_content_ids"))), None
    )
    start = seconds_of(data.get("start_time"))
    end = seconds_of(data.get("end_time"))
    if quote.strip():
        heading = f'<blockquote class="quote">{plain_text_to_html(quote)}</blockquote>'
        _header(
            doc, entity, title, [type_label(entity.type), _created(entity)], heading_html=heading
        )
    else:
        # Without a quote the title would be the highlight's id: the reader names it instead.
        heading = '<h1><span class="fact">Highlight</span></h1>'
        _header(doc, entity, title, ["no saved text", _created(entity)], heading_html=heading)
    if target is not None:
        doc.add(_highlight_source(doc.context, target, start, end))
    _notes(doc, entity.id)
    used = {"text", "target_id", "start_time", "end_time", "reference_content_ids"}
    _fields_section(doc, data, set(data) - used)
    references = [t for t in strings_in(data.get("reference_content_ids")) if t != target]
    if references:
        doc.add('<p class="meta">Also names: ')
        doc.add(", ".join(reference_card(t, doc.context) for t in dict.fromkeys(references)))
        doc.add("</p>")
    return title


def _highlight_source(
    context: RenderContext, target: str, start: float | None, end: float | None
) -> str:
    """A card for the item a highlight is in: the moment of a video highlight as a link into
    that item's transcript (and ``▶`` to the video at that moment), then an excerpt."""
    parts = [f'<blockquote class="ref-card"><p>From {reference_card(target, context)}']
    if start is not None:
        span = format_offset(start)
        if end is not None and end > start:
            span += f"–{format_offset(end)}"
        href = escape_attr(f"{entity_href(target)}?t={int(start)}")
        parts.append(f' <a class="timestamp" href="{href}">at {esc(span)}</a>')
        item = lookup_entity(context, target)
        moment = moment_url(item.url, start) if item is not None and item.url else None
        if moment is not None:
            parts.append(f' <a class="moment" href="{escape_attr(moment)}">▶</a>')
    item = lookup_entity(context, target)
    excerpt = excerpt_of(item) if item is not None else None
    if excerpt:
        parts.append(f'<br><span class="excerpt">{esc(excerpt)}</span>')
    parts.append("</p></blockquote>")
    return "".join(parts)


# --------------------------------------------------------------------------- any other type


def _page_url(data: dict[str, Any]) -> str:
    """The page a transcribed medium was found on (``metadata.page_url``), or ''."""
    metadata = data.get("metadata")
    return text_of(metadata.get("page_url")) if isinstance(metadata, dict) else ""


def _without_transcripts(media: Any) -> Any:
    """``media`` without the transcripts the reader shows already (and their speakers)."""
    if not isinstance(media, list):
        return media
    kept = ("transcript", "speaker_labels", "speakerIds")
    return [
        {key: value for key, value in item.items() if key not in kept}
        if isinstance(item, dict)
        else item
        for item in media
    ]


def _render_other(entity: ContentEntityBase, doc: DocumentBuilder) -> str:
    """A type no layout knows: its title, its summary and texts as reading matter, its
    transcript as a video's, then every other field labelled (ids and bookkeeping left out)."""
    data = entity_data(entity)
    title = display_title(entity)
    url = text_of(data.get("url"))
    links = [(url, "Link")] if url else [(_page_url(data), "Found on")]
    _header(doc, entity, title, [type_label(entity.type), _created(entity)], links)
    used = {"url", "reference_content_ids"}
    used |= _summary(doc, data)
    used |= _texts(doc, data, ("abstract", "Abstract"), ("description", None), ("text", None))
    used |= _full_text(doc, data, None)
    shown = dict(data)
    if _transcripts(doc, entity.id, transcripts_of(data), url or _page_url(data)):
        used.add("transcript")
        shown["media"] = _without_transcripts(data.get("media"))
    _fields_section(doc, shown, set(data) - used, heading="Other fields" if len(used) > 2 else None)
    references = strings_in(data.get("reference_content_ids"))
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
    "pdf": _render_pdf,
    "book": _render_book,
    "audioRecording": _render_audio_recording,
    "selector": _render_selector,
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
