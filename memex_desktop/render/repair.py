"""A pre-pass that rewrites broken or unusual HTML so that the sanitiser keeps all of its text.

nh3 (ammonia on html5ever) loses text in ways that have nothing to do with safety:

- a tag that never ends (``before <x after``, ``<a title="x> after`` without a closing quote)
  takes the rest of the page with it, as the HTML5 tokenizer says it should;
- an autolink pasted into HTML (``<http://example.com/>``) is read as an element ``http:``;
- ammonia removes, with all its content, an element whose namespace does not fit where it
  stands: an element outside SVG and MathML named like an SVG or MathML one (``<g>``,
  ``<desc>``, ``<set>``, ``<root>``), and every element inside an ``<svg>`` or ``<math>`` once
  the ``<svg>`` itself is dropped.

This pass follows the HTML5 tokenizer (tags and attributes, comments, raw-text elements,
script escapes) and the parts of tree construction that decide what is SVG or MathML
(integration points, breakout tags, CDATA, self-closing tags), and rewrites only what would
lose text: a construct that never ends and a pasted autolink become text, and tags the
sanitiser would not keep anyway are unwrapped, their content kept. Scripts, styles and titles
inside SVG lose their content as their HTML namesakes do; a drawing's title and text stay, in
a placeholder (``[drawing: ...]``) that stands where the ``<svg>`` was. Nothing here is needed
for safety: the output goes through nh3 like any other input.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

_WS = "\t\n\f\r "
_ATTR_NAME = rf"[^{_WS}/>][^{_WS}/>=]*+"
_VALUE = rf"""(?:"[^"]*+"|'[^']*+'|[^{_WS}>"'][^{_WS}>]*+|(?=>))"""
# Attributes as the tokenizer reads them: a name directly followed by "=" always takes a
# value (a missing closing quote runs to the end of the input and the match fails), and a
# "/" right before ">" is the self-closing mark.
_ATTRS = (
    rf"(?:(?:[{_WS}]|/(?!>))++"
    rf"|{_ATTR_NAME}(?:[{_WS}]*+=[{_WS}]*+{_VALUE}|(?![{_WS}]*+=)))*+"
)
_TAG_RE = re.compile(rf"<(/?)([a-zA-Z][^{_WS}/>]*+){_ATTRS}(/?)>")
_TEXT_RE = re.compile(r"[^<]++")
_COMPLETE_RE = re.compile(rf"(?:[^<]++|</?[a-zA-Z][^{_WS}/>]*+{_ATTRS}/?>)++")
_TAG_NAME_RE = re.compile(rf"</?([a-zA-Z][^{_WS}/>]*+)")
# A pasted autolink: without quotes the tag HTML would read ends at the first ">", so taking
# it as text changes nothing around it. One with quotes is a tag, or text if it never ends.
_AUTOLINK_RE = re.compile(
    r"<(?:[a-zA-Z][a-zA-Z0-9+.-]{0,40}://|mailto:|www\.)[^>\"']{0,4000}>"
    r"|<[\w.+-]{1,200}@[\w-]{1,200}(?:\.[\w-]{1,200}){1,20}>"
)
_COMMENT_END_RE = re.compile(r"--!?>")
_ENTITY_TAIL_RE = re.compile(r"&[#0-9A-Za-z]*\Z")
_FONT_BREAKOUT_RE = re.compile(rf"[{_WS}/](?:color|face|size)[{_WS}/=>]", re.IGNORECASE)
_HTML_ENCODING_RE = re.compile(
    rf"""[{_WS}/]encoding[{_WS}]*=[{_WS}]*["']?(?:text/html|application/xhtml\+xml)["'{_WS}/>]""",
    re.IGNORECASE,
)

RAW_TEXT = frozenset({"style", "xmp", "iframe", "noembed", "noframes", "title", "textarea"})


def _names(words: str) -> frozenset[str]:
    """A set of element names written as one space-separated string."""
    return frozenset(words.split())


# Start tags that end SVG or MathML content (HTML "breakout" tags).
_BREAKOUT = _names(
    "b big blockquote body br center code dd div dl dt em embed h1 h2 h3 h4 h5 h6 head hr i "
    "img li listing menu meta nobr ol p pre ruby s small span strong strike sub sup table tt "
    "u ul var"
)
_VOID = _names(
    "area base basefont bgsound br col embed frame hr image img input keygen link meta param "
    "source track wbr"
)
_SPECIAL = _names(
    "address applet area article aside base basefont bgsound blockquote body br button "
    "caption center col colgroup dd details dir div dl dt embed fieldset figcaption figure "
    "footer form frame frameset h1 h2 h3 h4 h5 h6 head header hgroup hr html iframe img input "
    "keygen li link listing main marquee menu meta nav noembed noframes noscript object ol p "
    "param plaintext pre script search section select source style summary table tbody td "
    "template textarea tfoot th thead title tr track ul wbr xmp"
)
_SVG_HTML_POINTS = frozenset({"foreignobject", "desc", "title"})
_MATH_TEXT_POINTS = frozenset({"mi", "mo", "mn", "ms", "mtext"})
_FOREIGN_DROPPED = frozenset({"script", "style"})
# Budget of characters scanned by tags that turn out never to end, per input character: past
# it the rest is treated as text, so hostile input cannot make the scan quadratic.
_FAILED_SCAN_BUDGET = 8


@dataclass
class _Open:
    """An element open inside SVG or MathML content (HTML ones only inside integration points)."""

    namespace: str
    name: str
    html_inside: bool = False
    special: bool = False
    drops: bool = False


class MarkupRepair:
    """The pre-pass for one set of tags the sanitiser keeps (or drops with their content)."""

    def __init__(self, kept_tags: Iterable[str], *, figure_class: str = "figure") -> None:
        self.kept = frozenset(name.lower() for name in kept_tags)
        # What an <svg> becomes: a span of this class around its text, "[drawing: ...]".
        self.figure_open = f'<span class="{figure_class}">[drawing: '
        self.figure_empty = f'<span class="{figure_class}">[drawing]</span>'
        self._plain = self.kept - RAW_TEXT - {"script", "plaintext"}
        plain = sorted(self._plain, key=len, reverse=True)
        names = "|".join(re.escape(name) for name in plain)
        # Text and complete tags that need nothing: most documents are one match of this.
        self.plain_re = re.compile(rf"(?:[^<]++|</?(?i:{names})(?=[{_WS}/>]){_ATTRS}/?>)++")

    def __call__(self, source: str) -> str:
        """``source`` rewritten so that nh3 keeps its text (unchanged when nothing is at risk)."""
        if self._needs_nothing(source):
            return source
        return _Scan(self, source).run()

    def _needs_nothing(self, source: str) -> bool:
        """Whether ``source`` is text and complete tags of kept, not raw-text, elements only.

        Two scans in C (tags of any name, then the names) are faster than one with the names.
        """
        complete = _COMPLETE_RE.match(source)
        if complete is None or complete.end() != len(source):
            return not source
        names = {name.lower() for name in set(_TAG_NAME_RE.findall(source))}
        return names <= self._plain


class _Scan:
    """One pass over one document."""

    def __init__(self, repair: MarkupRepair, source: str) -> None:
        self.repair = repair
        self.source = source
        self.out: list[str] = []
        self.stack: list[_Open] = []
        self.last_gt = source.rfind(">")
        # Where the placeholder of the <svg> being read starts in ``out`` (-1: none open).
        self.figure_at = -1
        self.failed_budget = _FAILED_SCAN_BUDGET * len(source) + 100_000

    # ----------------------------------------------------------------- output

    def emit(self, text: str) -> None:
        """Append output unless inside content that is dropped."""
        if not self.dropping():
            self.out.append(text)

    def cut(self, *, apart: bool = True) -> None:
        """Mark a removed tag: a character reference must not join text across it. ``apart``:
        the tag starts or ends an element (in a drawing, its text is a word apart), not a
        stray end tag the parser ignores."""
        if self.out and _ENTITY_TAIL_RE.search(self.out[-1][-40:]):
            self.out.append("<!---->")
        if apart and self.figure_at >= 0 and self.out[-1] != " ":
            self.out.append(" ")  # a drawing's text elements are words apart

    def dropping(self) -> bool:
        """Whether the current position is inside an SVG or MathML script or style."""
        return bool(self.stack) and any(entry.drops for entry in self.stack)

    # ----------------------------------------------------------------- scanning

    def run(self) -> str:
        """Scan the whole input and return the rewritten HTML."""
        source, length = self.source, len(self.source)
        plain_re = self.repair.plain_re
        position = 0
        while position < length:
            found = (plain_re if not self.stack else _TEXT_RE).match(source, position)
            if found is not None and found.end() > position:
                self.emit(found.group())
                position = found.end()
                continue
            position = self.markup(position)
            if self.figure_at >= 0 and not self.stack:
                self.close_figure()
        if self.figure_at >= 0:
            self.close_figure()
        return "".join(self.out)

    def open_figure(self) -> None:
        """Start the placeholder of a drawing (its text follows)."""
        self.out.append(self.repair.figure_open)
        self.figure_at = len(self.out) - 1

    def close_figure(self) -> None:
        """End the placeholder of the drawing just left; without text it says only that."""
        at, self.figure_at = self.figure_at, -1
        while len(self.out) > at + 1 and self.out[-1] == " ":
            self.out.pop()
        if any(_has_text(piece) for piece in self.out[at + 1 :]):
            self.out.append("]</span>")
        else:
            self.out[at] = self.repair.figure_empty

    def markup(self, position: int) -> int:
        """Handle the construct starting with the ``<`` at ``position``; returns the next one."""
        source = self.source
        after = source[position + 1 : position + 2]
        if after == "!":
            return self.declaration(position)
        if after == "?":
            return self.bogus_comment(position, position + 2)
        if after == "/":
            following = source[position + 2 : position + 3]
            if following.isascii() and following.isalpha():
                return self.tag(position)
            if following == ">":
                return position + 3  # "</>" is nothing at all
            if not following:
                return self.text_lt(position)
            return self.bogus_comment(position, position + 2)
        if after.isascii() and after.isalpha():
            autolink = _AUTOLINK_RE.match(source, position)
            if autolink is not None:
                self.emit(_escape_text(autolink.group()))
                return autolink.end()
            return self.tag(position)
        return self.text_lt(position)

    def text_lt(self, position: int) -> int:
        """A ``<`` that starts nothing: text."""
        self.emit("&lt;")
        return position + 1

    def declaration(self, position: int) -> int:
        """``<!--``, ``<![CDATA[`` (inside SVG or MathML) or a doctype/bogus comment."""
        source = self.source
        if source.startswith("<!--", position):
            if source.startswith((">", "->"), position + 4):
                end = source.index(">", position + 4) + 1
            else:
                found = _COMMENT_END_RE.search(source, position + 4)
                if found is None:
                    return self.text_lt(position)
                end = found.end()
            self.emit(source[position:end])
            return end
        if (
            self.stack
            and self.stack[-1].namespace != "html"
            and source.startswith("<![CDATA[", position)
        ):
            end = source.find("]]>", position + 9)
            stop = len(source) if end < 0 else end
            self.emit(_escape_text(source[position + 9 : stop]))
            return len(source) if end < 0 else end + 3
        return self.bogus_comment(position, position + 2)

    def bogus_comment(self, position: int, start: int) -> int:
        """A bogus comment or doctype: up to the next ``>``; text when there is none."""
        if self.last_gt < start:
            return self.text_lt(position)
        end = self.source.index(">", start) + 1
        self.emit(self.source[position:end])
        return end

    def tag(self, position: int) -> int:
        """A start or end tag; text when it never ends."""
        found = None if self.last_gt < position else _TAG_RE.match(self.source, position)
        if found is None:
            self.failed_budget -= len(self.source) - position
            if self.failed_budget < 0:
                self.emit(_escape_text(self.source[position:]))
                return len(self.source)
            return self.text_lt(position)
        name = found.group(2).lower()
        if found.group(1):
            self.end_tag(name, found.group())
        else:
            return self.start_tag(name, found, found.end())
        return found.end()

    # ----------------------------------------------------------------- tree rules

    def start_tag(self, name: str, found: re.Match[str], end: int) -> int:
        """A start tag: unwrapped, kept or opening raw text, by where it stands."""
        text, self_closing = found.group(), bool(found.group(3))
        top = self.stack[-1] if self.stack else None
        html = (
            top is None
            or top.namespace == "html"
            or (
                top.html_inside
                and not (top.namespace == "math" and name in ("mglyph", "malignmark"))
            )
        )
        if not html and (name in _BREAKOUT or (name == "font" and _FONT_BREAKOUT_RE.search(text))):
            while (
                self.stack and self.stack[-1].namespace != "html" and not self.stack[-1].html_inside
            ):
                self.stack.pop()
            if self.figure_at >= 0 and not self.stack:
                self.close_figure()
            html = True
        if not html:
            assert top is not None
            self.foreign_start(top, name, text, self_closing)
            self.cut()
            return end
        if name in ("svg", "math"):
            if name == "svg" and not self.stack:
                if self_closing:
                    self.out.append(self.repair.figure_empty)
                else:
                    self.open_figure()
            if not self_closing:
                self.stack.append(_Open(name, name))
            self.cut()
            return end
        if name in RAW_TEXT or name == "script":
            return self.raw_text(name, text, end)
        if name == "plaintext":
            self.emit(self.source[found.start() :])
            return len(self.source)
        if name in self.repair.kept:
            self.emit(text)
        else:
            self.cut()
            anchor = _ID_RE.search(text)
            if anchor is not None:
                # An unwrapped element's id stays a link target (a <section> a contents
                # list points at).
                self.out.append(f'<a id="{_quoted_value(anchor)}"></a>')
        if self.stack and name not in _VOID:
            self.stack.append(_Open("html", name, special=name in _SPECIAL))
        return end

    def foreign_start(self, top: _Open, name: str, text: str, self_closing: bool) -> None:
        """An element of SVG or MathML: never kept, tracked for what it means to its content."""
        namespace = top.namespace
        if namespace == "math" and top.name == "annotation-xml" and name == "svg":
            namespace = "svg"
        if namespace == "svg":
            html_inside = name in _SVG_HTML_POINTS
        else:
            html_inside = name in _MATH_TEXT_POINTS or (
                name == "annotation-xml" and bool(_HTML_ENCODING_RE.search(text))
            )
        special = html_inside or (namespace == "math" and name == "annotation-xml")
        if not self_closing:
            self.stack.append(
                _Open(namespace, name, html_inside, special, drops=name in _FOREIGN_DROPPED)
            )

    def end_tag(self, name: str, text: str) -> None:
        """An end tag: closes what it closes in the HTML5 rules, kept only for kept HTML tags."""
        stack = self.stack
        if not stack:
            if name in self.repair.kept:
                self.emit(text)
            else:
                self.cut()
            return
        top = stack[-1]
        if top.namespace != "html" and not top.html_inside and name in ("p", "br"):
            while stack and stack[-1].namespace != "html" and not stack[-1].html_inside:
                stack.pop()
        elif top.namespace != "html":
            index = len(stack) - 1
            while index >= 0 and stack[index].namespace != "html":
                if stack[index].name == name:
                    del stack[index:]
                    self.cut()
                    return
                index -= 1
        index = len(stack) - 1
        while index >= 0:
            entry = stack[index]
            if entry.namespace == "html" and entry.name == name:
                # Whether the end tag is dropped depends on what stays open, not on what closes.
                dropped = any(e.drops for e in stack[:index])
                del stack[index:]
                if name in self.repair.kept and not dropped:
                    self.out.append(text)
                else:
                    self.cut()
                return
            if entry.special:
                break
            index -= 1
        current = stack[-1] if stack else None
        in_html = current is None or current.namespace == "html" or current.html_inside
        if in_html and name in self.repair.kept:
            self.emit(text)
        else:
            self.cut(apart=False)  # it closes nothing

    def raw_text(self, name: str, text: str, end: int) -> int:
        """A raw-text or RCDATA element: its tag, its content and its end tag, as they are."""
        source = self.source
        close = _raw_text_end(source, name, end)
        if close < 0:
            self.emit(source[end - len(text) :])
            return len(source)
        closing = _TAG_RE.match(source, close)
        stop = closing.end() if closing is not None else len(source)
        self.emit(source[end - len(text) : stop])
        return stop


def _raw_text_end(source: str, name: str, start: int) -> int:
    """Where the end tag of a raw-text element opened just before ``start`` begins (-1: none)."""
    if name == "script":
        return _script_end(source, start)
    found = _end_tag_re(name).search(source, start)
    return found.start() if found is not None else -1


_END_TAG_RES: dict[str, re.Pattern[str]] = {}


def _end_tag_re(name: str) -> re.Pattern[str]:
    """``</name`` followed by what may follow a tag name (cached per name)."""
    pattern = _END_TAG_RES.get(name)
    if pattern is None:
        pattern = re.compile(rf"</{re.escape(name)}(?=[{_WS}/>])", re.IGNORECASE)
        _END_TAG_RES[name] = pattern
    return pattern


_SCRIPT_TOKEN_RE = re.compile(rf"<!--|-->|<(/?)script(?=[{_WS}/>])", re.IGNORECASE)


def _script_end(source: str, start: int) -> int:
    """Where a script's content ends, with the escaped and double-escaped states of HTML5."""
    state = "data"
    position = start
    while True:
        found = _SCRIPT_TOKEN_RE.search(source, position)
        if found is None:
            return -1
        token = found.group().lower()
        position = found.end()
        if token == "<!--":
            if state == "data":
                state = "escaped"
                position = found.start() + 2  # "<!-->" ends the escape at once
        elif token == "-->":
            state = "data"
        elif found.group(1):
            if state != "double":
                return found.start()
            state = "escaped"
        elif state == "escaped":
            state = "double"


_ID_RE = re.compile(rf"""[{_WS}]id[{_WS}]*=[{_WS}]*(?:"([^"]*)"|'([^']*)'|([^{_WS}>"']+))""", re.I)


def _quoted_value(found: re.Match[str]) -> str:
    """An attribute value matched by ``_ID_RE``, escaped for a double-quoted attribute."""
    value = next(group for group in found.groups() if group is not None)
    return value.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")


def _has_text(piece: str) -> bool:
    """Whether a piece of output shows any text (more than tags, comments and spaces)."""
    return bool(piece.strip()) and not (piece.startswith("<") and piece.endswith(">"))


def _escape_text(text: str) -> str:
    """Text as HTML text (``&``, ``<`` and ``>`` escaped)."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
