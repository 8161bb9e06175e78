"""Sanitised reader HTML as Markdown: what the Markdown export writes for an item's content.

The export shows an item as the reader does. Every kind of content reaches the reader as HTML
made once (ProseMirror nodes by :mod:`~memex_desktop.render.prosemirror`, Markdown by cmark-gfm,
saved pages by the article extraction) and cleaned by
:func:`~memex_desktop.render.sanitize.sanitize_html`; this module reads that HTML tag by tag, so
no content format is interpreted a second time. Only the sanitiser's output is read: its tags
are the allow-list's, its attribute values are quoted and ``<`` in text is always escaped, so a
regular-expression tokenizer is exact (as in :mod:`memex_desktop.render.text`).

What saved text says stays text: every character that Markdown (CommonMark, GitHub's tables and
strikethrough, Obsidian's tags, highlights, comments and maths) could read as syntax is escaped,
and a link stays a link only when it goes to a web address.
"""

from __future__ import annotations

import html
import re

from memex_desktop.render.text import SAFE_TAG_RE

# Deeper elements are read as their text only (their tags are ignored): the walk is recursive.
MAX_DEPTH = 100

_VOID = frozenset({"br", "hr", "img"})
_HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
_BLOCKS = frozenset(
    {
        *_HEADINGS, "p", "div", "blockquote", "pre", "hr", "ul", "ol", "li", "dl", "dt", "dd",
        "table", "caption", "thead", "tbody", "tfoot", "tr", "td", "th",
    }
)  # fmt: skip
_EMPHASIS = {"b": "**", "strong": "**", "i": "*", "em": "*", "s": "~~", "del": "~~"}
_CODE = frozenset({"code", "tt", "kbd", "samp"})
# Stands for a line break until a paragraph is laid out; the sanitiser turns NUL into U+FFFD,
# so no text holds it.
_BREAK = "\x00"
_EDGE_SPACE = " " + _BREAK
_SPACES_RE = re.compile(r"  +")
_BACKTICKS_RE = re.compile(r"`+")
_ORDERED_RE = re.compile(r"([0-9]{1,9})[.)]")
_START_RE = re.compile(r'\sstart="(-?[0-9]{1,9})"')
_WEB_LINK_RE = re.compile(r"https?://", re.IGNORECASE)
# Characters of text that Markdown could read as syntax anywhere in a line: emphasis, code,
# links, strikethrough, HTML, entities, maths, tags ("#word"), highlights ("==") and comments
# ("%%"); "_" only at a word's edge, since inside a word it starts no emphasis.
_SYNTAX_RE = re.compile(
    r"[\\`*\[\]~$<]|&(?=#?[0-9A-Za-z]+;)|(?<!\S)#|=(?==)|%(?=%)|(?<![^\W_])_|_(?![^\W_])"
)
# Most text has none of these: looking for them first takes a quarter of the time of the
# substitution above, which tries its lookbehinds at every character (a generated library's
# 38,537 texts: 51 instead of 169 ms).
_SYNTAX_CHARACTERS_RE = re.compile(r"[\\`*\[\]~$<&#=%_]")
_REPLACED = {"<": "&lt;", "&": "&amp;"}
# What a line may not start with in text: a quote, a list item, a setext underline, a table.
_LINE_START = frozenset(">+-=|:")
# What Markdown would read in a link's address: escapes, parentheses, entities, and the
# characters of code, autolinks and HTML, whose spans it looks for first.
_DESTINATION_RE = re.compile(r"[\\()<>` ]|&(?=#?[0-9A-Za-z]+;)")


def escape_markdown(text: str) -> str:
    """Plain text as Markdown inline text that shows exactly these characters."""
    if _SYNTAX_CHARACTERS_RE.search(text) is None:
        return text
    return _SYNTAX_RE.sub(_escaped_character, text)


def plain_text_to_markdown(text: str) -> str:
    """Plain text (a quote, a note, a title) as Markdown that shows exactly its words, as an
    item's content is written: escaped as inline text and at each line's start, its lines
    joined by hard line breaks (blank lines left out: the text stays one block)."""
    lines = [line.strip() for line in text.replace("\r\n", "\n").split("\n")]
    return "\\\n".join(_line_start_escaped(escape_markdown(line)) for line in lines if line)


def _escaped_character(found: re.Match[str]) -> str:
    """One character of :data:`_SYNTAX_RE` as Markdown text."""
    character = found.group()
    return _REPLACED.get(character) or "\\" + character


def html_to_markdown(safe_html: str) -> str:
    """Markdown for reader HTML that went through :func:`sanitize_html`: headings, emphasis,
    web links, nested lists, quotes, code, tables and line breaks; everything else as text."""
    return "\n".join(_Converter().blocks(_parse(safe_html).children))


class _Element:
    """One element of sanitised HTML: its name, its raw attributes and its children (elements
    and text as the HTML spells it)."""

    __slots__ = ("attrs", "children", "name")

    def __init__(self, name: str, attrs: str) -> None:
        self.name = name
        self.attrs = attrs
        self.children: list[_Element | str] = []


def _parse(safe_html: str) -> _Element:
    """The element tree of sanitised HTML (elements below :data:`MAX_DEPTH` are unwrapped)."""
    root = _Element("div", "")
    stack = [root]
    unwrapped: dict[str, int] = {}  # elements opened too deep, by name, not yet closed
    position = 0
    for match in SAFE_TAG_RE.finditer(safe_html):
        if match.start() > position:
            stack[-1].children.append(safe_html[position : match.start()])
        position = match.end()
        closing, name, attrs = match.groups()
        if name in _VOID:
            if not closing:
                stack[-1].children.append(_Element(name, attrs))
        elif closing:
            if unwrapped.get(name):
                unwrapped[name] -= 1
                continue
            for depth in range(len(stack) - 1, 0, -1):
                if stack[depth].name == name:
                    del stack[depth:]
                    break
        elif len(stack) > MAX_DEPTH:
            unwrapped[name] = unwrapped.get(name, 0) + 1
        else:
            element = _Element(name, attrs)
            stack[-1].children.append(element)
            stack.append(element)
    if position < len(safe_html):
        stack[-1].children.append(safe_html[position:])
    return root


def _attribute(element: _Element, name: str) -> str:
    """The value of one attribute ('' when the element has none)."""
    found = re.search(rf'\s{name}="([^"]*)"', element.attrs)
    return html.unescape(found.group(1)) if found else ""


def _text_of(node: _Element | str) -> str:
    """The text of an element as written, line breaks included (for code)."""
    if isinstance(node, str):
        return html.unescape(node)
    if node.name == "br":
        return "\n"
    return "".join(_text_of(child) for child in node.children)


def _spaced(text: str) -> str:
    """Text with HTML's other white space as spaces (runs of them are collapsed per line)."""
    # str.replace rather than a regular expression: 14 instead of 300 ms on the same texts.
    for character in "\n\t\r\f":
        if character in text:
            text = text.replace(character, " ")
    return text


def _code_span(text: str) -> str:
    """Text as a code span, long enough a fence for the backticks in it."""
    text = _spaced(text)
    core = text.strip(" ")
    if not core:
        return " " if text else ""
    fence = "`" * (max((len(run) for run in _BACKTICKS_RE.findall(core)), default=0) + 1)
    pad = " " if core[0] == "`" or core[-1] == "`" else ""
    lead = " " if text[0] == " " else ""
    trail = " " if text[-1] == " " else ""
    return f"{lead}{fence}{pad}{core}{pad}{fence}{trail}"


def _destination(url: str) -> str:
    """A web address as a Markdown link destination that leads to exactly that address."""
    url = url.strip()
    if not (url.isascii() and url.isprintable()):
        url = "".join(_percent_encoded(c) if c.isspace() or not c.isprintable() else c for c in url)
    return _DESTINATION_RE.sub(_destination_character, url)


def _destination_character(found: re.Match[str]) -> str:
    """A character of a link's address that Markdown would read: escaped, or percent-encoded
    as a browser sends it."""
    character = found.group()
    return _percent_encoded(character) if character in "<>` " else "\\" + character


def _percent_encoded(character: str) -> str:
    """A character as the %XX of its UTF-8 bytes."""
    return "".join(f"%{byte:02X}" for byte in character.encode("utf-8"))


def _around(inner: str, markup: str, closing: str | None = None) -> str:
    """``inner`` between ``markup`` and ``closing`` (``markup`` again by default), the spaces
    and line breaks at its edges left outside, where Markdown sees the markup."""
    core = inner.strip(_EDGE_SPACE)
    if not core:
        return inner
    lead = inner[: len(inner) - len(inner.lstrip(_EDGE_SPACE))]
    trail = inner[len(inner.rstrip(_EDGE_SPACE)) :]
    return f"{lead}{markup}{core}{markup if closing is None else closing}{trail}"


def _line_start_escaped(line: str) -> str:
    """A line of text that no Markdown reads as a quote, a list item, a heading underline or a
    table row."""
    if line[0] in _LINE_START:
        return "\\" + line
    if "0" <= line[0] <= "9" and (ordered := _ORDERED_RE.match(line)):
        end = ordered.end(1)
        return f"{line[:end]}\\{line[end:]}"
    return line


class _Converter:
    """One conversion: the emphasis open around the text being converted."""

    def __init__(self) -> None:
        self.open: set[str] = set()

    # ------------------------------------------------------------------ blocks

    def blocks(self, nodes: list[_Element | str], *, in_item: bool = False) -> list[str]:
        """The lines of a sequence of blocks and inline content, a blank line between blocks
        (in a list item, none before a list nested in it)."""
        lines: list[str] = []
        run: list[_Element | str] = []
        for node in nodes:
            if isinstance(node, str) or node.name not in _BLOCKS:
                run.append(node)
                continue
            if run:
                _add_block(lines, self.paragraph(run), nested_list=False)
                run = []
            block = self.block(node)
            nested = in_item and node.name in ("ul", "ol", "dl")
            _add_block(lines, block, nested_list=nested and _starts_a_list(block))
        if run:
            _add_block(lines, self.paragraph(run), nested_list=False)
        return lines

    def block(self, element: _Element) -> list[str]:
        """The lines of one block element."""
        name = element.name
        if name == "p":
            return self.paragraph(element.children)
        if name in _HEADINGS:
            text = self.line(element.children)
            return [f"{'#' * _HEADINGS[name]} {text}"] if text else []
        if name == "blockquote":
            return [f"> {line}" if line else ">" for line in self.blocks(element.children)]
        if name == "pre":
            return _code_block(_text_of(element))
        if name in ("ul", "ol"):
            return self.listed(element)
        if name == "dl":
            return self.definitions(element)
        if name == "table":
            return self.table(element)
        if name == "hr":
            return ["---"]
        return self.blocks(element.children)  # div, and parts of lists and tables out of place

    def paragraph(self, nodes: list[_Element | str]) -> list[str]:
        """Inline content as the lines of one paragraph, joined by hard line breaks."""
        text = "".join(self.inline(node) for node in nodes)
        lines = []
        for line in text.split(_BREAK):
            line = _SPACES_RE.sub(" ", line).strip(" ")
            if line:
                lines.append(_line_start_escaped(line))
        return [line + "\\" for line in lines[:-1]] + lines[-1:]

    def line(self, nodes: list[_Element | str]) -> str:
        """Inline content on one line (a heading, a table cell, a term)."""
        text = "".join(self.inline(node) for node in nodes).replace(_BREAK, " ")
        return _SPACES_RE.sub(" ", text).strip(" ")

    def listed(self, element: _Element) -> list[str]:
        """A bulleted or numbered list, each item's further lines indented under its text."""
        ordered = element.name == "ol"
        start = _START_RE.search(element.attrs) if ordered else None
        number = max(int(start.group(1)), 0) if start else 1
        lines: list[str] = []
        for child in element.children:
            if isinstance(child, str) and not child.strip():
                continue
            parts: list[_Element | str] = [child]
            if isinstance(child, _Element) and child.name == "li":
                parts = child.children
            _add_item(lines, f"{number}. " if ordered else "- ", self.blocks(parts, in_item=True))
            number += 1
        return lines

    def definitions(self, element: _Element) -> list[str]:
        """A definition list as a bulleted list: "term: definition" in each item."""
        lines: list[str] = []
        term: str | None = None
        for child in element.children:
            if not isinstance(child, _Element):
                if child.strip():
                    _add_item(lines, "- ", self.paragraph([child]))
                continue
            if child.name == "dt":
                if term:
                    _add_item(lines, "- ", [term])
                term = self.line(child.children)
                term = _line_start_escaped(term) if term else term
                continue
            body = self.blocks(child.children, in_item=True)
            inline = all(isinstance(c, str) or c.name not in _BLOCKS for c in child.children)
            if term and body and inline:
                body = [f"{term}: {body[0]}", *body[1:]]
            elif term:
                body = [f"{term}:", *body]
            term = None
            _add_item(lines, "- ", body)
        if term:
            _add_item(lines, "- ", [term])
        return lines

    def table(self, element: _Element) -> list[str]:
        """A table as a GitHub table (its first row the header), its caption above it."""
        rows: list[list[str]] = []
        above: list[str] = []
        pending: list[_Element | str] = [element]
        while pending:  # the rows of this table, not of tables in its cells
            node = pending.pop()
            if isinstance(node, str):
                if node.strip():
                    above += self.paragraph([node])
            elif node.name in ("table", "thead", "tbody", "tfoot"):
                pending.extend(reversed(node.children))
            elif node.name == "tr":
                rows.append(
                    [
                        self.line(cell.children).replace("|", "\\|")
                        for cell in node.children
                        if isinstance(cell, _Element) and cell.name in ("td", "th")
                    ]
                )
            else:
                above += self.blocks([node])
        width = max((len(row) for row in rows), default=0)
        if not width:
            return above
        lines = [f"| {' | '.join(row + [''] * (width - len(row)))} |" for row in rows]
        lines.insert(1, "|" + " --- |" * width)
        return [*above, *([""] if above else []), *lines]

    # ------------------------------------------------------------------ inline

    def inline(self, node: _Element | str) -> str:
        """Inline Markdown for a piece of content (a block met here reads as its text)."""
        if isinstance(node, str):
            return escape_markdown(_spaced(html.unescape(node)))
        name = node.name
        if name == "br":
            return _BREAK
        if name in _EMPHASIS:
            markup = _EMPHASIS[name]
            if markup in self.open:  # the same emphasis inside itself adds nothing
                return self.children(node)
            self.open.add(markup)
            try:
                return _around(self.children(node), markup)
            finally:
                self.open.discard(markup)
        if name in _CODE:
            return _code_span(_text_of(node))
        if name == "a":
            return self.link(node)
        if name == "img":
            return self.image(node)
        if name in _BLOCKS:
            return f" {self.children(node)} "
        return self.children(node)

    def children(self, element: _Element) -> str:
        """Inline Markdown for an element's content."""
        return "".join(self.inline(child) for child in element.children)

    def link(self, element: _Element) -> str:
        """A link to a web address as a Markdown link; any other link as its text."""
        text = self.children(element)
        href = _attribute(element, "href").strip()
        if not _WEB_LINK_RE.match(href):
            return text
        return _around(text, "[", f"]({_destination(href)})")

    def image(self, element: _Element) -> str:
        """An image (in HTML that kept remote images) as a link to it, never loaded."""
        alt = _attribute(element, "alt").strip()
        label = escape_markdown(f"[image: {alt}]" if alt else "[image]")
        src = _attribute(element, "src").strip()
        return f"[{label}]({_destination(src)})" if _WEB_LINK_RE.match(src) else label


def _add_block(lines: list[str], block: list[str], *, nested_list: bool) -> None:
    """Append a block's lines after a blank line (none before a list nested in an item)."""
    if not block:
        return
    if lines and not nested_list:
        lines.append("")
    lines.extend(block)


def _starts_a_list(block: list[str]) -> bool:
    """Whether a block's first line starts a list that may follow a paragraph line directly
    (a numbered list must start at 1 to do so)."""
    return bool(block) and (block[0].startswith("- ") or block[0].startswith("1. "))


def _add_item(lines: list[str], marker: str, body: list[str]) -> None:
    """Append one list item: its first line after the marker, the rest indented under it."""
    if not body:
        return  # an empty item could read as a heading's underline
    indent = " " * len(marker)
    lines.append(marker + body[0])
    lines.extend(indent + line if line else "" for line in body[1:])


def _code_block(text: str) -> list[str]:
    """Preformatted text as a fenced code block, its fence longer than any backtick run in it."""
    text = text.removeprefix("\n").rstrip("\n")  # the first newline is the sanitiser's
    if not text.strip():
        return []
    fence = "`" * max(3, max((len(run) for run in _BACKTICKS_RE.findall(text)), default=0) + 1)
    return [fence, *text.split("\n"), fence]
