"""Building blocks of a rendered document: context, result, escaping helpers and cards.

A document is assembled from *template* HTML (made here from escaped strings) and *fragments*
(content already cleaned by :func:`sanitize_html`, e.g. an article body). At the end the
template is itself cleaned by the same sanitiser and each fragment is spliced in where the
template holds its random per-document token, always in a text position of its own
``<div class="body">``; so every byte of the result has passed nh3 exactly once, a fragment is
well-formed on its own (hostile markup cannot break the structure around it), and the result
cleans to itself. Reference cards inside content (chat citations) are not fragments: they are
placed in the content's HTML before it is cleaned, see :func:`place_snippets`.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, ParamSpec, TypeVar
from urllib.parse import quote

from memex_desktop.api.content import display_title as display_title_of
from memex_desktop.api.content import time_text, type_label
from memex_desktop.api.models import ContentEntityBase
from memex_desktop.api.urls import UrlProblem, hidden_characters, parse_web_url
from memex_desktop.render.apart import run_big_apart
from memex_desktop.render.sanitize import (
    escape_attr,
    escape_text,
    merge_resources,
    sanitize_html,
)
from memex_desktop.render.text import html_to_text

P = ParamSpec("P")
T = TypeVar("T")
Lookup = Callable[[str], ContentEntityBase | None]
TagNames = Callable[[str], str | None]
NotesOn = Callable[[str], Sequence[str]]


@dataclass(frozen=True)
class RenderContext:
    """How to render one item.

    Attributes:
        allow_remote: show remote images of this item (the person opted in for it).
        transcript_language: preferred transcript/summary language; else the first one.
        lookup: resolves referenced ids (from the cache) for reference cards.
        tag_names: the name of a tag id (from the cache); tags it cannot name are not shown.
        notes_on: the ids of the notes attached to an item, for the highlights they annotate.
        whole_page: show a saved page's whole HTML, not the article found in it.
        big_steps_apart: run the steps over a big text in a separate process (see
            :mod:`memex_desktop.render.apart`): the window's workers share its GUI thread's
            interpreter lock, which one C call over a megabyte keeps for 100 ms and more.
    """

    allow_remote: bool = False
    transcript_language: str | None = None
    lookup: Lookup | None = None
    tag_names: TagNames | None = None
    notes_on: NotesOn | None = None
    whole_page: bool = False
    big_steps_apart: bool = False


@dataclass(frozen=True)
class RenderedDoc:
    """A rendered item: safe HTML for QTextBrowser, its plain text, the remote URLs it needs."""

    html: str
    text: str
    remote_resources: list[str] = field(default_factory=list)
    title: str = ""


def esc(text: object) -> str:
    """Escape any value as HTML text."""
    return escape_text(str(text))


def entity_href(entity_id: str) -> str:
    """The in-app link of an entity (``memex://entity/ID``); the id is percent-encoded."""
    return "memex://entity/" + quote(entity_id, safe="")


def link(url: str, label: str | None = None, css_class: str | None = None) -> str:
    """A link; the sanitiser later removes the href if its scheme is not allowed."""
    class_attr = f' class="{css_class}"' if css_class else ""
    return f'<a{class_attr} href="{escape_attr(url.strip())}">{esc(label or url)}</a>'


# Longer addresses are shown shortened in the middle (the link itself stays whole).
ADDRESS_LABEL_CHARS = 160


def address_link(url: str) -> str:
    """An item's web address as a link to where it really goes, or as text saying why not.

    The label is the address as the validator rebuilt it (punycode host, no user name before
    ``@``), so what the reader shows is where a click leads; an address it refuses is shown
    without its hidden characters, with the reason, and is no link.
    """
    parsed = parse_web_url(url)
    if isinstance(parsed, UrlProblem):
        hidden = set(hidden_characters(url))
        shown = "".join(char for char in url if char not in hidden)
        reason = f'<span class="fact">(not a usable address: {esc(parsed.reason)})</span>'
        return f"{esc(_middle(shown, ADDRESS_LABEL_CHARS))} {reason}"
    address = parsed.ascii_url()
    return link(address, _middle(address, ADDRESS_LABEL_CHARS))


def _middle(text: str, limit: int) -> str:
    """``text``, or its start and end around "…" when longer than ``limit`` characters."""
    if len(text) <= limit:
        return text
    half = (limit - 1) // 2
    return f"{text[:half]}…{text[len(text) - half :]}"


def image(url: str, alt: str = "") -> str:
    """An image; the sanitiser turns it into a placeholder link unless remote is allowed."""
    return f'<img src="{escape_attr(url.strip())}" alt="{escape_attr(alt)}">'


def format_timestamp(value: object) -> str | None:
    """A wire timestamp as the person's local date and time (as every pane shows it)."""
    return time_text(value)


def _first_text(*values: object) -> str | None:
    """The first value that is a non-blank string, stripped."""
    for value in values:
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def shorten(text: str, limit: int) -> str:
    """``text`` on one line, cut at a word boundary to at most ``limit`` characters."""
    line = " ".join(text.split())
    if len(line) <= limit:
        return line
    cut = line[:limit].rsplit(" ", 1)[0] or line[:limit]
    return cut + "…"


def entity_data(entity: ContentEntityBase) -> dict[str, Any]:
    """The entity's fields as sent by the server (its raw JSON), without re-serialising.

    Re-serialising a hostile, deeply nested document would hit pydantic's depth limit.
    """
    return entity.raw if entity.raw else dict(entity)


def display_title(entity: ContentEntityBase) -> str:
    """The item's one title (the list, the graph and the export show the same)."""
    return display_title_of(entity_data(entity))


def excerpt_of(entity: ContentEntityBase, limit: int = 280) -> str | None:
    """A short excerpt of an entity's main text, for block reference cards, that does not
    say the card's title again (see :func:`excerpt_under_title`)."""
    data = entity_data(entity)
    text = _first_text(data.get("text"), data.get("description"), data.get("full_text"))
    if text is None and isinstance(data.get("summary"), str):
        text = _first_text(data["summary"])
    if not text:
        return None
    title = display_title(entity)
    # Its start is enough to compare with the title and to show: a page's text may be
    # megabytes long.
    window = text[: limit * _EXCERPT_WINDOW]
    plain = " ".join(_NO_WORDS.sub(_no_words, window).split())
    if after_title(title, plain) is None:
        return shorten(text, limit)  # a title of its own: the text is another thing to say
    return excerpt_under_title(title, plain, limit)


# An excerpt is made from this many times its length of the text.
_EXCERPT_WINDOW = 8
_WORD = re.compile(r"\w+")
_LETTER = re.compile(r"[^\W\d_]")
# What a title leaves out of the words it takes from a text: tags, link targets and citations
# (as api.plain_text does for titles; here only to compare words, the rest is kept).
_NO_WORDS = re.compile(r"<[^>]*>|\]\([^)\s]*\)|\{\{[^}]*\}\}")
# What may stand between the last word of a title and the rest of the text it was cut from.
_TITLE_END = re.compile(r"^[\s.,;:!?)\]}>»”’…\-–—]+")


def _no_words(found: re.Match[str]) -> str:
    """What stands in for markup that says no words: a link's bracket, else a space."""
    return "]" if found.group().startswith("]") else " "


def after_title(title: str, text: str) -> str | None:
    """What ``text`` says after ``title``, when it begins with the title's words: "" when it
    says nothing more (or numbers only), None when it does not begin with them.

    An item without a title of its own is called by the start of its text, so a card showing
    its title and an excerpt of its text would say the same words twice. Words are compared
    without case, punctuation and markup, which titles leave out (``saved.[Sleep`` reads as
    ``saved.Sleep``); the title's last word may be cut short (``Consolid…``).
    """
    said = _WORD.findall(title.casefold())
    if not said:
        return None
    words = _WORD.finditer(text)
    end = 0
    for position, expected in enumerate(said):
        found = next(words, None)
        if found is None:
            return ""  # the whole text is in the title
        word = found.group().casefold()
        cut_short = position == len(said) - 1 and word.startswith(expected)
        if word != expected and not cut_short:
            return None
        end = found.end()
    rest = _TITLE_END.sub("", text[end:])
    # Numbers alone after the title are the item's bookkeeping (a highlight's times), no words.
    return rest if _LETTER.search(rest) else ""


def excerpt_under_title(title: str, text: str, limit: int) -> str | None:
    """An excerpt of ``text`` (plain words) to show under ``title``, at most ``limit``
    characters: the text itself; what follows the title, after "…", when the text begins
    with it; None when the text says nothing but the title."""
    rest = after_title(title, text)
    if rest is None:
        return shorten(text, limit) if text.strip() else None
    return f"…{shorten(rest, limit - 1)}" if rest else None


def lookup_entity(context: RenderContext, entity_id: str) -> ContentEntityBase | None:
    """The referenced entity from the cache, or None when it is unknown."""
    return context.lookup(entity_id) if context.lookup is not None else None


def reference_card(entity_id: str, context: RenderContext) -> str:
    """An inline card for a referenced item: title and type linking to ``memex://entity/ID``."""
    target = lookup_entity(context, entity_id)
    href = entity_href(entity_id)
    if target is None:
        return (
            f'<a class="ref ref-missing" href="{escape_attr(href)}">'
            f"{esc(f'[item {entity_id} — not in the cache yet]')}</a>"
        )
    return (
        f'<a class="ref" href="{escape_attr(href)}">{esc(display_title(target))}</a>'
        f'<span class="ref-type"> [{esc(type_label(target.type))}]</span>'
    )


def reference_block(entity_id: str, context: RenderContext, caption: str) -> str:
    """A block card (caption, inline card and an excerpt) for quotes and note targets."""
    target = lookup_entity(context, entity_id)
    lead = f"{esc(caption)} " if caption else ""
    parts = [f'<blockquote class="ref-card"><p>{lead}{reference_card(entity_id, context)}']
    if target is not None:
        excerpt = excerpt_of(target)
        if excerpt:
            parts.append(f'<br><span class="excerpt">{esc(excerpt)}</span>')
    parts.append("</p></blockquote>")
    return "".join(parts)


def place_snippets(markup: str, snippets: dict[str, tuple[str, str]]) -> str:
    """Replace tokens in not yet cleaned HTML: ``snippets`` maps a token to (HTML, source text).

    A token in text becomes the snippet's HTML; a token inside a tag (a link target, an image's
    alt text) becomes the escaped source text it stood for, so markup never lands in an
    attribute value. ``markup`` is a markdown converter's output, where ``<`` and ``>`` are
    escaped everywhere except around tags; the result still has to go through the sanitiser.
    """
    if not snippets:
        return markup
    pattern = re.compile("<[^>]*>|" + "|".join(re.escape(token) for token in snippets))

    def replace(match: re.Match[str]) -> str:
        found = match.group(0)
        if not found.startswith("<"):
            return snippets[found][0]
        for token, (_, source) in snippets.items():
            if token in found:
                found = found.replace(token, escape_attr(source))
        return found

    return pattern.sub(replace, markup)


class DocumentBuilder:
    """Collects template HTML and sanitised fragments, then produces the RenderedDoc."""

    def __init__(self, context: RenderContext) -> None:
        self.context = context
        self._parts: list[str] = []
        self._fragments: dict[str, str] = {}
        self._remote: list[str] = []
        self._nonce = secrets.token_hex(8)
        self._tokens = 0
        # Headings left out when the rest of the document says their words (token -> title).
        self._unsaid: dict[str, str] = {}

    def step(self, size: int, function: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
        """``function(*args, **kwargs)``, over a text of ``size`` characters: in the render
        process when the context asks for it and the text is big, else here."""
        if self.context.big_steps_apart:
            return run_big_apart(size, function, *args, **kwargs)
        return function(*args, **kwargs)

    def add(self, template_html: str) -> None:
        """Append template HTML (built from escaped values by the helpers of this module)."""
        self._parts.append(template_html)

    def add_fragment(self, safe_html: str, remote: list[str]) -> None:
        """Append HTML already cleaned by :func:`sanitize_html`, with its remote URLs."""
        token = self.token()
        self._fragments[token] = safe_html
        merge_resources(self._remote, remote)
        self._parts.append(f'<div class="body">{token}</div>')

    def heading_unless_said(self, title: str) -> None:
        """The heading ``title``, left out at the end when the document says every word of it
        already: the title of a tweet or a note without one of its own is the start of its
        own text, which the body shows whole; a text the body does not show keeps it."""
        token = self.token()
        self._unsaid[token] = title
        self._parts.append(token)

    def token(self) -> str:
        """A new placeholder that cannot occur in content (random per document)."""
        self._tokens += 1
        return f"memexfragment{self._nonce}n{self._tokens}x"

    def finish(self, title: str) -> RenderedDoc:
        """Clean the template, splice the fragments in, and derive the plain text."""
        template = '<div class="memex-doc">' + "".join(self._parts) + "</div>"
        safe_template, remote = self.step(
            len(template),
            sanitize_html,
            template,
            allow_remote=self.context.allow_remote,
            app_markup=True,
        )
        resources = list(remote)
        merge_resources(resources, self._remote)
        if self._fragments or self._unsaid:

            def splice(found: re.Match[str]) -> str:
                token = found.group(0)  # a heading's stays until its words are known
                return token if token in self._unsaid else self._fragments.get(token, "")

            pattern = re.compile(f"memexfragment{self._nonce}n[0-9]+x")
            safe_template = pattern.sub(splice, safe_template)
        html, text = self._headings_placed(safe_template)
        return RenderedDoc(html=html, text=text, remote_resources=resources, title=title)

    def _headings_placed(self, html: str) -> tuple[str, str]:
        """``html`` with each heading left for the end in place (or left out, when the rest
        of the document says its words), and its plain text."""
        without = html
        for token in self._unsaid:
            without = without.replace(token, "")
        text = self.step(len(without), html_to_text, without)
        unsaid = {t: title for t, title in self._unsaid.items() if not says(text, title)}
        if not unsaid:
            return without, text
        for token in self._unsaid:
            heading = ""
            if token in unsaid:
                heading = sanitize_html(
                    f"<h1>{esc(unsaid[token])}</h1>", allow_remote=False, app_markup=True
                )[0]
            html = html.replace(token, heading)
        return html, self.step(len(html), html_to_text, html)


# A heading's words are looked for this far into the document's text (its body comes first).
SAYS_WITHIN_CHARS = 50_000


def says(text: str, title: str) -> bool:
    """Whether ``text`` (near its start) has every word of ``title`` (but a last word cut
    short, before "…"); a title of no words, as it is."""
    near = text[:SAYS_WITHIN_CHARS].casefold()
    words = _WORD.findall(title.casefold())
    if title.rstrip().endswith("…"):
        words = words[:-1]
    if not words:
        return " ".join(title.split()).casefold() in " ".join(near.split())
    return all(re.search(rf"\b{re.escape(word)}\b", near) for word in dict.fromkeys(words))
