"""The one HTML sanitiser every rendered byte goes through (nh3 with an explicit allow-list).

Policy (saved content is hostile input, see DESIGN.md §5):

- Tags: a small HTML 4 subset that QTextBrowser understands; anything else is dropped and its
  text kept, except elements whose content is never reading matter (scripts, styles, frames,
  templates, document titles), which are dropped with their content. A pre-pass
  (:mod:`memex_desktop.render.repair`) makes sure nh3 keeps the text it would otherwise lose
  to a tag that never ends, a pasted ``<http://...>`` or SVG and MathML element names.
- Attributes: a per-tag allow-list; no ``style``, no ``on*``, no ``id``; ``class`` only with the
  reader's own class names (:data:`CLASS_NAMES`), which a UI stylesheet may style.
- URLs (``href``/``src``): only ``http``, ``https``, ``mailto`` and ``memex``. Relative and
  protocol-relative (``//host``) URLs are resolved against the item's own page URL when that
  is ``http(s)`` (so a saved article's links keep working and its images are recognised as
  remote), and dropped otherwise: nothing can point at a local file or an unknown base.
- Images: an ``<img>`` whose source is remote becomes a placeholder link showing the URL
  (``[image: https://...]``) unless the caller allows remote content for this item; the URLs
  are reported either way so the UI can offer "load remote content". Images without a usable
  source become a text placeholder.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable
from typing import Literal

import nh3

from memex_desktop.api.urls import UrlProblem, parse_web_url
from memex_desktop.render.repair import MarkupRepair

URL_SCHEMES = frozenset({"http", "https", "mailto", "memex"})

ALLOWED_TAGS = frozenset(
    {
        "a",
        "abbr",
        "b",
        "big",
        "blockquote",
        "br",
        "caption",
        "cite",
        "code",
        "dd",
        "del",
        "dfn",
        "div",
        "dl",
        "dt",
        "em",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "hr",
        "i",
        "img",
        "ins",
        "kbd",
        "li",
        "ol",
        "p",
        "pre",
        "q",
        "s",
        "samp",
        "small",
        "span",
        "strong",
        "sub",
        "sup",
        "table",
        "tbody",
        "td",
        "tfoot",
        "th",
        "thead",
        "tr",
        "tt",
        "u",
        "ul",
        "var",
    }
)

# Content of these is never reading matter; dropping it also keeps scripts out of the text.
DROPPED_WITH_CONTENT = frozenset(
    {
        "script",
        "style",
        "template",
        "iframe",
        "frame",
        "frameset",
        "noembed",
        "noframes",
        "title",
        "head",
    }
)

ALLOWED_ATTRIBUTES: dict[str, set[str]] = {
    "a": {"href", "title"},
    "abbr": {"title"},
    "img": {"src", "alt", "title", "width", "height"},
    "ol": {"start"},
    "td": {"colspan", "rowspan", "align"},
    "th": {"colspan", "rowspan", "align"},
}

# The reader's own class names; a stylesheet set on the QTextDocument may style them.
CLASS_NAMES = frozenset(
    {
        "memex-doc",
        "header",
        "meta",
        "notice",
        "body",
        "section",
        "ref",
        "ref-card",
        "ref-missing",
        "ref-type",
        "remote-image",
        "image-missing",
        "media",
        "transcript",
        "timestamp",
        "moment",
        "segment",
        "message",
        "role",
        "fields",
        "field-name",
        "fact",
        "excerpt",
    }
)
_CLASS_TAGS = ("a", "blockquote", "div", "dl", "dt", "dd", "h1", "h2", "h3", "p", "span", "table")
_ALLOWED_CLASSES = {tag: set(CLASS_NAMES) for tag in _CLASS_TAGS}

# nh3 escapes "<" and ">" inside attribute values and text, so in its output a "<" always
# starts a tag: matching just images and link boundaries is exact.
_TAG_RE = re.compile(r'<(?P<name>img)(?P<attrs>(?:\s+[^\s="/>]+="[^"]*")*)\s*/?>|<(a)[\s>]|</a>')
_ATTR_RE = re.compile(r'([^\s="/>]+)="([^"]*)"')
_REMOTE_PREFIXES = ("http://", "https://")


def _cleaner(base_url: str | None) -> nh3.Cleaner:
    """A cleaner for one base URL (building one costs microseconds)."""
    if base_url is None:
        return _make_cleaner("deny")
    return _make_cleaner(("rewrite_with_base", base_url))


def _make_cleaner(
    relative: Literal["deny"] | tuple[Literal["rewrite_with_base"], str],
) -> nh3.Cleaner:
    """The cleaner with the allow-lists of this module and one relative-URL policy."""
    return nh3.Cleaner(
        tags=set(ALLOWED_TAGS),
        clean_content_tags=set(DROPPED_WITH_CONTENT),
        attributes=ALLOWED_ATTRIBUTES,
        url_schemes=set(URL_SCHEMES),
        allowed_classes=_ALLOWED_CLASSES,
        link_rel=None,
        strip_comments=True,
        url_relative=relative,
    )


_DEFAULT_CLEANER = _cleaner(None)
# Raw-text elements nh3 shows as text and "<image>" (which HTML reads as "<img>") keep their
# meaning; every other tag the allow-lists do not name is unwrapped before nh3 sees it.
_REPAIR = MarkupRepair(
    ALLOWED_TAGS | DROPPED_WITH_CONTENT | {"textarea", "xmp", "plaintext", "image"}
)


def usable_base_url(url: str | None) -> str | None:
    """The base for relative links: ``url`` rebuilt in ASCII when it is a valid web address.

    Anything :func:`~memex_desktop.api.urls.parse_web_url` refuses (a port out of range, a
    number that is not an IPv4 address, broken brackets, hidden characters) is dropped, never
    handed to nh3, which raises on it. The user name is left out, so no resolved link carries
    one.
    """
    if not url:
        return None
    parsed = parse_web_url(url)
    if isinstance(parsed, UrlProblem):
        return None
    return parsed.ascii_url(fragment=False)


def escape_text(text: str) -> str:
    """Escape text the way nh3 serialises text nodes (so output is stable under re-cleaning)."""
    return (
        text.replace("&", "&amp;")
        .replace("\xa0", "&nbsp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
    )


def escape_attr(value: str) -> str:
    """Escape an attribute value the way nh3 serialises attributes (``<`` and ``>`` too)."""
    return (
        value.replace("&", "&amp;")
        .replace("\xa0", "&nbsp;")
        .replace('"', "&quot;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
    )


def is_remote_url(url: str) -> bool:
    """True for URLs that would make a network request when loaded (http/https)."""
    return url.strip().lower().startswith(_REMOTE_PREFIXES)


def image_placeholder(url: str, alt: str = "") -> str:
    """The link shown instead of a remote image: ``[image: alt — URL]``."""
    label = f"[image: {alt} — {url}]" if alt else f"[image: {url}]"
    return f'<a class="remote-image" href="{escape_attr(url)}">{escape_text(label)}</a>'


def _replace_images(cleaned: str, allow_remote: bool, remote: list[str]) -> str:
    """Swap ``<img>`` for placeholders (unless allowed) and record every remote source.

    Inside a link the placeholder is plain text, since links cannot nest.
    """
    depth = 0

    def replace(match: re.Match[str]) -> str:
        nonlocal depth
        token = match.group(0)
        if match.group("name") is None:
            depth = depth + 1 if match.group(3) else max(depth - 1, 0)
            return token
        attrs = {key: html.unescape(value) for key, value in _ATTR_RE.findall(match["attrs"])}
        src = attrs.get("src", "")
        alt = attrs.get("alt", "").strip()
        if src and is_remote_url(src):
            if src not in remote:
                remote.append(src)
            if allow_remote:
                return token
            if depth == 0:
                return image_placeholder(src, alt)
            label = f"[image: {alt} — {src}]" if alt else f"[image: {src}]"
            return f'<span class="remote-image">{escape_text(label)}</span>'
        label = f"[image: {alt}]" if alt else "[image]"
        return f'<span class="image-missing">{escape_text(label)}</span>'

    if "<img" not in cleaned:
        return cleaned
    return _TAG_RE.sub(replace, cleaned)


def sanitize_html(
    source: str,
    *,
    allow_remote: bool,
    base_url: str | None = None,
    converted: bool = False,
) -> tuple[str, list[str]]:
    """Clean untrusted HTML for the reader; returns the safe HTML and its remote image URLs.

    Args:
        source: any HTML (fragment or whole document), trusted or not.
        allow_remote: keep remote ``<img>`` elements instead of placeholder links.
        base_url: the item's page URL; relative URLs resolve against it when it is http(s)
            and are dropped otherwise.
        converted: ``source`` is a markdown converter's output, which escapes all raw HTML
            and writes only allowed tags, so the text-keeping pre-pass has nothing to do.
    """
    source = source.replace("\x00", "\ufffd")
    if not converted:
        source = _REPAIR(source)
    base = usable_base_url(base_url)
    cleaner = _DEFAULT_CLEANER if base is None else _cleaner(base)
    remote: list[str] = []
    cleaned = _stable_clean(cleaner, source)
    cleaned = _replace_images(cleaned, allow_remote, remote)
    if "<pre>\n" in cleaned:
        # A parser drops one newline right after <pre>; keep the content's own newline.
        cleaned = cleaned.replace("<pre>\n", "<pre>\n\n")
    return cleaned, remote


def _stable_clean(cleaner: nh3.Cleaner, source: str) -> str:
    """Clean until the output no longer changes.

    Mis-nested input (``<a><table><a>``) can come out as a tree that an HTML parser reads
    back differently, so one pass is not always a fixed point; a second pass almost always is.
    """
    cleaned = cleaner.clean(source)
    for _ in range(_MAX_CLEAN_PASSES - 1):
        again = cleaner.clean(cleaned)
        if again == cleaned:
            break
        cleaned = again
    return cleaned


_MAX_CLEAN_PASSES = 4


def merge_resources(target: list[str], more: Iterable[str]) -> None:
    """Append URLs not yet in ``target``, keeping first-seen order."""
    seen = set(target)
    for url in more:
        if url not in seen:
            seen.add(url)
            target.append(url)
