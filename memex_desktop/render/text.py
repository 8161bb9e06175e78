"""Plain text <-> reader HTML: the text version of a rendered document and plain text as HTML
(plain text as Markdown is :func:`memex_desktop.render.html_markdown.plain_text_to_markdown`).

``html_to_text`` reads only HTML that came out of :func:`sanitize_html` (well-formed, quoted
attributes, ``<`` escaped in text), so a regular-expression tokenizer is exact and fast.
"""

from __future__ import annotations

import html
import re

from memex_desktop.render.sanitize import escape_attr, escape_text

# One tag of sanitised HTML: (closing slash, name, attributes). The sanitiser quotes every
# attribute value and escapes every "<" of text, so this reads its output exactly (the
# Markdown conversion reads the same tags with it).
SAFE_TAG_RE = re.compile(r'<(/?)([a-z0-9]+)((?:\s+[^\s="/>]+="[^"]*")*)\s*/?>')
_HREF_RE = re.compile(r'\shref="([^"]*)"')
_BLOCK_TAGS = frozenset(
    {
        "p",
        "div",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "blockquote",
        "pre",
        "table",
        "dl",
        "ul",
        "ol",
        "hr",
        "caption",
    }
)
_LINE_TAGS = frozenset({"tr", "dt", "dd", "br"})
_BULLET_LINE_RE = re.compile(r"( *(?:-|\d+\.)) *")
_SPACES_RE = re.compile(r"  +")
# Spelled with a literal prefix so the engine can skip to it: 1 ms instead of 6.5 on a 1 MB text.
_BLANK_LINES_RE = re.compile(r"\n\n\n+")
_URL_RE = re.compile(r"""\b(?:https?://|mailto:)[^\s<>"'`]+""", re.IGNORECASE)
_TRAILING_PUNCT = ".,;:!?)]}'\""


_INLINE_TAG_RE = re.compile(
    r"</?(?:strong|em|code|b|i|u|s|del|ins|sub|sup|small|big|span|abbr|cite|q|kbd|samp|var"
    r"|tt|dfn|thead|tbody|tfoot)(?:\s[^>]*)?>"
)
_LINK_RE = re.compile(r"<a((?:\s+[^\s=\"/>]+=\"[^\"]*\")*)>(.*?)</a>", re.DOTALL)


def _link_text(match: re.Match[str]) -> str:
    """A link's text, followed by its web or mail address when the text does not show it."""
    shown = match.group(2)
    href = _HREF_RE.search(match.group(1))
    if href is None:
        return shown
    url = href.group(1)
    if url.lower().startswith(("http:", "https:", "mailto:")) and (
        url.removeprefix("mailto:") not in shown
    ):
        return f"{shown} &lt;{url}&gt;"
    return shown


_PRE_RE = re.compile(r"<pre>(.*?)</pre>", re.DOTALL)
_ANY_TAG_RE = re.compile(r"<[^>]*>")
_LEADING_SPACE_RE = re.compile(r"\n +")
_INDENT = "\ue000"  # stands for indentation until leading spaces have been trimmed


class _Blocks:
    """State of the block-tag pass: open lists and whether a table row has a cell yet."""

    def __init__(self) -> None:
        self.lists: list[list[int]] = []  # one [next number] per open list; -1 means bullets
        self.first_cell = True
        self.term_ended = False  # the last tag closed a <dt>

    def tag(self, match: re.Match[str]) -> str:
        """The text that stands for one block-level tag."""
        closing, name = match.group(1), match.group(2)
        after_term, self.term_ended = self.term_ended, name == "dt" and bool(closing)
        if name == "dd" and not closing and after_term:
            return ": "  # a term and its definition read as one line: "Page count: 22"
        lists = self.lists
        if name in ("ul", "ol"):
            if closing:
                if lists:
                    lists.pop()
            else:
                lists.append([_list_start(match.group(3)) if name == "ol" else -1])
            return "\n\n" if len(lists) == (0 if closing else 1) else ""
        if name in _BLOCK_TAGS:
            separator = "\n\n" if not lists else "\n"
            return separator + "* * *\n\n" if name == "hr" else separator
        if name == "li":
            return "" if closing else "\n" + _INDENT * 2 * max(len(lists) - 1, 0) + _bullet(lists)
        if name in _LINE_TAGS:
            self.first_cell = True
            return "" if closing else "\n"
        if name in ("td", "th") and not closing:
            cell_separator = "" if self.first_cell else " | "
            self.first_cell = False
            return cell_separator
        return ""

    def convert(self, segment: str) -> str:
        """Text of a stretch of HTML outside ``<pre>`` (whitespace collapsed as HTML does)."""
        segment = _collapse_spaces(segment)
        segment = SAFE_TAG_RE.sub(self.tag, segment)
        segment = _LEADING_SPACE_RE.sub("\n", segment).replace(_INDENT, " ")
        return segment.replace("  | ", " | ")


def html_to_text(safe_html: str) -> str:
    """A faithful plain-text version of sanitised reader HTML (paragraphs, lists, link URLs).

    Link targets that are web or mail addresses are kept after the link text in angle
    brackets when the text does not already show them, so copied text loses no information.
    """
    source = _INLINE_TAG_RE.sub("", safe_html.replace(_INDENT, ""))
    if "<a" in source:
        source = _LINK_RE.sub(_link_text, source)
    blocks = _Blocks()
    pieces: list[str] = []
    position = 0
    for match in _PRE_RE.finditer(source):
        pieces.append(blocks.convert(source[position : match.start()]))
        pieces.append("\n\n" + _ANY_TAG_RE.sub("", match.group(1)) + "\n\n")
        position = match.end()
    pieces.append(blocks.convert(source[position:]))
    return _tidy(html.unescape("".join(pieces)))


def _list_start(attrs: str) -> int:
    """The first number of an ordered list (``start`` attribute, default 1)."""
    found = re.search(r'\sstart="(-?\d{1,9})"', attrs)
    return int(found.group(1)) if found else 1


def _bullet(lists: list[list[int]]) -> str:
    """The marker of the next list item: ``- `` or ``N. ``."""
    if not lists or lists[-1][0] < 0:
        return "- "
    number = lists[-1][0]
    lists[-1][0] += 1
    return f"{number}. "


def _collapse_spaces(text: str) -> str:
    """Collapse HTML whitespace runs to one space (str.replace first: far faster than a regex)."""
    for char in "\n\t\r\f":
        text = text.replace(char, " ")
    return _SPACES_RE.sub(" ", text)


def _tidy(text: str) -> str:
    """Trim trailing spaces on lines, collapse runs of blank lines to one, and join a list
    marker alone on its line to the text after it (a list item whose text is in a paragraph).

    One walk over the lines: 3.7 ms on a 1 MB page, where a multi-line regex for the markers
    and a second pass for the spaces took 8.4.
    """
    lines: list[str] = []
    marker: str | None = None  # the markers waiting for their item's text
    for line in text.split("\n"):
        if marker is not None and not line:
            continue  # the blank lines between a marker and its text
        if line[-1:] in ("-", ".", " ") and (alone := _BULLET_LINE_RE.fullmatch(line)):
            marker = (marker or "") + alone.group(1) + " "
            continue
        if marker is not None:
            line, marker = marker + line, None
        lines.append(line.rstrip())
    if marker is not None:
        lines.append(marker.rstrip())
    return _BLANK_LINES_RE.sub("\n\n", "\n".join(lines)).strip("\n")


def linkify(text: str) -> str:
    """Escape plain text and turn the web and mail addresses in it into links."""
    parts: list[str] = []
    position = 0
    for match in _URL_RE.finditer(text):
        url = match.group(0).rstrip(_TRAILING_PUNCT)
        end = match.start() + len(url)
        parts.append(escape_text(text[position : match.start()]))
        parts.append(f'<a href="{escape_attr(url)}">{escape_text(url)}</a>')
        position = end
    parts.append(escape_text(text[position:]))
    return "".join(parts)


def plain_text_to_html(text: str) -> str:
    """Plain text as paragraphs (blank lines), line breaks (newlines) and links (URLs)."""
    paragraphs = [p for p in re.split(r"\n[ \t]*\n", text.replace("\r\n", "\n")) if p.strip()]
    return "".join(
        "<p>" + "<br>".join(linkify(line) for line in paragraph.strip("\n").split("\n")) + "</p>"
        for paragraph in paragraphs
    )
