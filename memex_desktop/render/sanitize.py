"""The one HTML sanitiser every rendered byte goes through (nh3 with an explicit allow-list).

Policy (saved content is hostile input, see DESIGN.md §5):

- Tags: a small HTML 4 subset that QTextBrowser understands; anything else is dropped and its
  text kept, except elements whose content is never reading matter (scripts, styles, frames,
  templates, document titles), which are dropped with their content. A pre-pass
  (:mod:`memex_desktop.render.repair`) makes sure nh3 keeps the text it would otherwise lose
  to a tag that never ends, a pasted ``<http://...>`` or SVG and MathML element names.
- Attributes: a per-tag allow-list; no ``style``, no ``on*``. ``class`` only with the reader's
  own class names (:data:`CLASS_NAMES`) in the app's own markup and in markdown output (whose
  only classes are the app's cards); a saved page keeps none but the sanitiser's placeholders,
  so its ``class="section"`` or ``class="notice"`` never meets the reader's stylesheet.
- Anchors: ``id`` (and ``name`` on links) are kept with :data:`ANCHOR_PREFIX` in front, so no
  content id can meet one of the app's; a same-page link (``#x``, or the page's own address
  with ``#x``) becomes ``#`` plus the namespaced id, so a table of contents scrolls the reader.
- SVG: an ``<svg>`` element becomes a placeholder holding its text, ``<title>`` and ``<text>``
  elements included (``[drawing: ...]``); the drawing itself is never shown.
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
from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import Any, Literal
from urllib.parse import quote, urldefrag, urljoin

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
    "*": {"id"},
    "a": {"href", "title", "name"},
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
        "quote",
        "tags",
        "svg-figure",
    }
)
# The classes the sanitiser itself writes into content: all a saved page may keep.
PLACEHOLDER_CLASSES = frozenset({"remote-image", "image-missing", "svg-figure"})
_CLASS_TAGS = ("a", "blockquote", "div", "dl", "dt", "dd", "h1", "h2", "h3", "p", "span", "table")
# Every id of content starts with this, and same-page links point at the namespaced id.
ANCHOR_PREFIX = "page-"
# What a same-page link is while nh3 checks it (it refuses fragments with no base): a URL of
# an allowed scheme, turned back into "#id" in the output.
_ANCHOR_URL = "memex://anchor/"
_ANCHOR_HREF = f'href="{_ANCHOR_URL}'

# nh3 escapes "<" and ">" inside attribute values and text, so in its output a "<" always
# starts a tag: matching just images and link boundaries is exact.
_TAG_RE = re.compile(r'<(?P<name>img)(?P<attrs>(?:\s+[^\s="/>]+="[^"]*")*)\s*/?>|<(a)[\s>]|</a>')
_ATTR_RE = re.compile(r'([^\s="/>]+)="([^"]*)"')
_REMOTE_PREFIXES = ("http://", "https://")


Relative = tuple[Literal["rewrite_with_base"], str]
# Whose markup is cleaned: a saved page's, a markdown converter's (with the app's cards placed
# in it), or the app's own template around them.
Markup = Literal["page", "markdown", "app"]
AttributeFilter = Callable[[str, str, str], str | None]


def _namespaced(name: str) -> str:
    """A content id (or anchor) with the content prefix, added once."""
    return name if name.startswith(ANCHOR_PREFIX) else ANCHOR_PREFIX + name


def _anchor_url(fragment: str, namespace: bool) -> str | None:
    """The stand-in URL of a same-page link to ``fragment`` (None for an empty one)."""
    if not fragment:
        return None
    target = _namespaced(fragment) if namespace else fragment
    return _ANCHOR_URL + quote(target, safe="")


_SCHEME_RE = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]{0,63}:")
_URL_BLANKS = str.maketrans("", "", "\t\n\r")
_URL_EDGES = "".join(map(chr, range(33)))  # what a URL parser strips from both ends
# nh3 refuses a fragment-only link when relative URLs are denied, before any filter sees it;
# so relative URLs always go to a base, and without a real one the filter drops them first.
_NO_BASE = "https://base.invalid/"


def _is_relative(url: str) -> bool:
    """Whether ``url`` has no scheme, read as a URL parser reads it (tabs and newlines
    removed, spaces and control characters around it ignored)."""
    cleaned = url.translate(_URL_BLANKS).strip(_URL_EDGES)
    return _SCHEME_RE.match(cleaned) is None


def _kept_classes(value: str, names: frozenset[str]) -> str | None:
    """The class names of ``value`` that are in ``names`` (None when none is)."""
    kept = [name for name in value.split() if name in names]
    return " ".join(kept) if kept else None


def _attribute_filter(base: str | None, markup: Markup) -> AttributeFilter:
    """Namespaces content ids, turns same-page links into anchor links for nh3, keeps only
    the class names ``markup`` may carry, and drops relative URLs when there is no base."""
    page = urldefrag(base).url if base else None
    namespace = markup != "app"
    classes = PLACEHOLDER_CLASSES if markup == "page" else CLASS_NAMES

    @lru_cache(maxsize=4096)
    def is_this_page(address: str) -> bool:
        """Whether a link's address (before its ``#``) resolves to the page itself; a page
        links to a few addresses thousands of times (a table of contents)."""
        assert page is not None
        try:
            return urldefrag(urljoin(page, address)).url == page
        except ValueError:  # not an address at all: nh3 refuses it
            return False

    def keep(tag: str, attribute: str, value: str) -> str | None:
        del tag
        if attribute == "class":
            return _kept_classes(value, classes)
        if attribute in ("id", "name"):
            return _namespaced(value) if namespace else value
        if attribute not in ("href", "src"):
            return value
        link = value.strip()
        if attribute == "href" and link.startswith("#"):
            return _anchor_url(link[1:], namespace)
        if attribute == "href" and link.startswith(_ANCHOR_URL):
            return _anchor_url(link[len(_ANCHOR_URL) :], namespace)
        if page is None:
            return None if _is_relative(value) else value
        if attribute == "href" and "#" in link:
            address, _, fragment = link.partition("#")
            if is_this_page(address):
                return _anchor_url(fragment, namespace)
        return value

    return keep


@lru_cache(maxsize=64)
def _cleaners(base_url: str | None, markup: Markup) -> tuple[nh3.Cleaner, nh3.Cleaner]:
    """The cleaners for one base URL and one kind of markup (building one costs microseconds):
    the first pass's, and the later passes' without the attribute filter.

    The filter maps each value to one it keeps unchanged (ids are namespaced once, anchor links
    stay anchor links), so a later pass, which only sees values it already passed, would call
    it for nothing: about 5 of the 15 ms a pass takes on a 1 MB page.
    """
    relative: Relative = ("rewrite_with_base", base_url or _NO_BASE)
    classes = PLACEHOLDER_CLASSES if markup == "page" else CLASS_NAMES
    options: dict[str, Any] = {
        "tags": set(ALLOWED_TAGS),
        "clean_content_tags": set(DROPPED_WITH_CONTENT),
        "attributes": ALLOWED_ATTRIBUTES,
        "url_schemes": set(URL_SCHEMES),
        "allowed_classes": {tag: set(classes) for tag in _CLASS_TAGS},
        "link_rel": None,
        "strip_comments": True,
        "url_relative": relative,
    }
    first = nh3.Cleaner(**options, attribute_filter=_attribute_filter(base_url, markup))
    return first, nh3.Cleaner(**options)


# Raw-text elements nh3 shows as text and "<image>" (which HTML reads as "<img>") keep their
# meaning; every other tag the allow-lists do not name is unwrapped before nh3 sees it.
_REPAIR = MarkupRepair(
    ALLOWED_TAGS | DROPPED_WITH_CONTENT | {"textarea", "xmp", "plaintext", "image"},
    figure_class="svg-figure",
)


def repaired(source: str) -> str:
    """``source`` rewritten so that any HTML parser keeps all of its text (see repair)."""
    return _REPAIR(source.replace("\x00", "\ufffd"))


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
    app_markup: bool = False,
) -> tuple[str, list[str]]:
    """Clean untrusted HTML for the reader; returns the safe HTML and its remote image URLs.

    Args:
        source: any HTML (fragment or whole document), trusted or not.
        allow_remote: keep remote ``<img>`` elements instead of placeholder links.
        base_url: the item's page URL; relative URLs resolve against it when it is http(s)
            and are dropped otherwise, and links to it with a ``#fragment`` stay in the page.
        converted: ``source`` is a markdown converter's output, which escapes all raw HTML
            and writes only allowed tags, so the text-keeping pre-pass has nothing to do; the
            reader's class names in it come from the app's cards.
        app_markup: ``source`` is the app's own template (or a whole rendered document): its
            class names are the reader's and its ids are already namespaced.
    """
    source = source.replace("\x00", "\ufffd")
    markup: Markup = "app" if app_markup else "markdown" if converted else "page"
    if not converted:
        source = _REPAIR(source)
    base = usable_base_url(base_url)
    remote: list[str] = []
    cleaned = _stable_clean(*_cleaners(base, markup), source)
    if _ANCHOR_HREF in cleaned:
        cleaned = cleaned.replace(_ANCHOR_HREF, 'href="#')
    cleaned = _replace_images(cleaned, allow_remote, remote)
    if "<pre>\n" in cleaned:
        # A parser drops one newline right after <pre>; keep the content's own newline.
        cleaned = cleaned.replace("<pre>\n", "<pre>\n\n")
    return cleaned, remote


def _stable_clean(first_pass: nh3.Cleaner, later_passes: nh3.Cleaner, source: str) -> str:
    """Clean until the output no longer changes.

    Mis-nested input (``<a><table><a>``) can come out as a tree that an HTML parser reads
    back differently, so one pass is not always a fixed point; a second pass almost always is.
    """
    cleaned = first_pass.clean(source)
    for _ in range(_MAX_CLEAN_PASSES - 1):
        again = later_passes.clean(cleaned)
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
