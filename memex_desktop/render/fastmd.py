"""A fast converter for the common markdown subset, used for very large documents.

Python-Markdown needs about 1.5 s per MB; a saved 1 MB article must open in well under that.
This converter handles what articles use (ATX/setext headings, paragraphs, nested lists,
blockquotes, fenced and indented code, rules, pipe tables, emphasis, code spans, inline,
reference-style and auto links, images, hard breaks, backslash escapes) in one pass over the
lines. Safety does not depend on it: every piece of source text is escaped, raw HTML is shown as
text, and its output goes through the same sanitiser as everything else.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from memex_desktop.render.sanitize import escape_attr, escape_text

_FENCE_RE = re.compile(r"^ {0,3}(`{3,}|~{3,})\s*([^`\s]*)")
_ATX_RE = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_HR_RE = re.compile(r"^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")
_SETEXT_RE = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_QUOTE_RE = re.compile(r"^ {0,3}> ?")
_LIST_RE = re.compile(r"^( {0,3})([-*+]|\d{1,9}[.)])([ \t]+|$)")
_TABLE_SEP_RE = re.compile(r"^ {0,3}\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$")
_REF_DEF_RE = re.compile(
    r"^ {0,3}\[([^\]]{1,200})\]:[ \t]*<?([^\s>]+)>?(?:[ \t]+[\"'(](.*)[\"')])?[ \t]*$"
)

_CODE_SPAN_RE = re.compile(r"(`+)(.+?)(?<!`)\1(?!`)", re.DOTALL)
_ESCAPE_RE = re.compile(r"\\([!\"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~])")
_AUTOLINK_RE = re.compile(r"<((?:https?|mailto):[^\s<>]+|[\w.+-]+@[\w-]+(?:\.[\w-]+)+)>", re.I)
_IMAGE_RE = re.compile(r"!\[([^\]\n]*)\]\([ \t]*<?([^\s)>]*)>?(?:[ \t]+\"([^\"\n]*)\")?[ \t]*\)")
_LINK_RE = re.compile(r"\[([^\]\n]+)\]\([ \t]*<?([^\s)>]*)>?(?:[ \t]+\"([^\"\n]*)\")?[ \t]*\)")
_REF_LINK_RE = re.compile(r"(!?)\[([^\]\n]+)\](?:\[([^\]\n]*)\])?")
_EM_STAR_RE = re.compile(r"\*(?=[^\s*])(.+?)(?<=[^\s*])\*")
# Starts with the literal so the regex engine can skip ahead; the "not inside a word" rule
# on the left is checked in _em_under (a lookbehind first would test every position).
_EM_UNDER_RE = re.compile(r"_(?=[^\s_])(.+?)(?<=[^\s_])_(?![\w_])")
_STRONG_STAR_RE = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*")
_STRONG_UNDER_RE = re.compile(r"__(?=\S)(.+?)(?<=\S)__")
_DEL_RE = re.compile(r"~~(?=\S)(.+?)(?<=\S)~~")
_HARD_BREAK_RE = re.compile(r"(?:  |\\)\n")
_TOKEN_RE = re.compile("\x00(\\d+)\x00")


@dataclass
class _Inline:
    """Inline conversion state: reference definitions and protected HTML snippets."""

    refs: dict[str, tuple[str, str]]
    stash: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)

    def keep(self, snippet: str, source: str) -> str:
        """Protect a finished HTML snippet from later passes; returns its token."""
        self.stash.append(snippet)
        self.sources.append(source)
        return f"\x00{len(self.stash) - 1}\x00"

    def source(self, text: str) -> str:
        """``text`` with tokens replaced by the markdown they stand for (for attributes)."""
        while "\x00" in text:
            text = _TOKEN_RE.sub(lambda m: self.sources[int(m.group(1))], text)
        return text

    def restore(self, text: str) -> str:
        """Put protected snippets back (they may contain tokens themselves)."""
        while "\x00" in text:
            text = _TOKEN_RE.sub(lambda m: self.stash[int(m.group(1))], text)
        return text


def _link_html(url: str, title: str, inner_html: str, state: _Inline) -> str:
    """An ``<a>``; the URL is only escaped here, the sanitiser decides whether it may stay."""
    title_attr = f' title="{escape_attr(state.source(title))}"' if title else ""
    return f'<a href="{escape_attr(state.source(url))}"{title_attr}>{inner_html}</a>'


def _image_html(url: str, alt: str, title: str, state: _Inline) -> str:
    """An ``<img>``; the sanitiser turns remote ones into placeholders."""
    title_attr = f' title="{escape_attr(state.source(title))}"' if title else ""
    src, alt = escape_attr(state.source(url)), escape_attr(state.source(alt))
    return f'<img src="{src}" alt="{alt}"{title_attr}>'


def _inline(text: str, state: _Inline) -> str:
    """Convert the inline markdown of one block to HTML (all source text escaped)."""
    if "`" in text:
        text = _CODE_SPAN_RE.sub(
            lambda m: state.keep(f"<code>{escape_text(m.group(2).strip())}</code>", m[0]), text
        )
    if "\\" in text:
        text = _ESCAPE_RE.sub(lambda m: state.keep(escape_text(m.group(1)), m.group(1)), text)
    if "<" in text:
        text = _AUTOLINK_RE.sub(lambda m: state.keep(_autolink(m.group(1), state), m[0]), text)
    if "](" in text:
        text = _IMAGE_RE.sub(
            lambda m: state.keep(_image_html(m[2], m[1], m[3] or "", state), m[0]), text
        )
        text = _LINK_RE.sub(
            lambda m: state.keep(
                _link_html(m[2], m[3] or "", _emphasis(escape_text(m[1])), state), m[0]
            ),
            text,
        )
    if state.refs and "[" in text:
        text = _REF_LINK_RE.sub(lambda m: _reference(m, state), text)
    text = _emphasis(escape_text(text))
    if "\n" in text:
        text = _HARD_BREAK_RE.sub("<br>\n", text)
    return text


def _autolink(target: str, state: _Inline) -> str:
    """``<https://...>`` or ``<me@example.org>`` as a link."""
    url = target if ":" in target else f"mailto:{target}"
    return _link_html(url, "", escape_text(target), state)


def _reference(match: re.Match[str], state: _Inline) -> str:
    """A reference-style link or image when its label is defined, else the text unchanged."""
    bang, label, ref = match.group(1), match.group(2), match.group(3)
    key = (ref or label).strip().lower()
    if key not in state.refs:
        return match.group(0)
    url, title = state.refs[key]
    if bang:
        return state.keep(_image_html(url, label, title, state), match[0])
    return state.keep(_link_html(url, title, _emphasis(escape_text(label)), state), match[0])


def _emphasis(escaped: str) -> str:
    """Strong, emphasis and strike-through on already escaped text."""
    if "*" in escaped:
        if "**" in escaped:
            escaped = _STRONG_STAR_RE.sub(r"<strong>\1</strong>", escaped)
        escaped = _EM_STAR_RE.sub(r"<em>\1</em>", escaped)
    if "_" in escaped:
        if "__" in escaped:
            escaped = _STRONG_UNDER_RE.sub(r"<strong>\1</strong>", escaped)
        escaped = _EM_UNDER_RE.sub(_em_under, escaped)
    if "~~" in escaped:
        escaped = _DEL_RE.sub(r"<del>\1</del>", escaped)
    return escaped


def _em_under(match: re.Match[str]) -> str:
    """``_text_`` as emphasis unless the underscore is inside a word (snake_case)."""
    start = match.start()
    before = match.string[start - 1] if start else " "
    if before.isalnum() or before == "_":
        return match.group(0)
    return f"<em>{match.group(1)}</em>"


_BLOCK_START_CHARS = frozenset("#`~>-*_+0123456789")


def _starts_block(line: str) -> bool:
    """True when ``line`` begins a block that interrupts a paragraph."""
    first = line.lstrip(" ")[:1]
    if first not in _BLOCK_START_CHARS:
        return False
    return bool(
        _ATX_RE.match(line)
        or _FENCE_RE.match(line)
        or _QUOTE_RE.match(line)
        or _HR_RE.match(line)
        or _LIST_RE.match(line)
    )


def _split_row(line: str) -> list[str]:
    """The cells of a pipe-table row."""
    row = line.strip()
    row = row.removeprefix("|")
    if row.endswith("|") and not row.endswith("\\|"):
        row = row[:-1]
    return [cell.strip() for cell in re.split(r"(?<!\\)\|", row)]


def _blocks(lines: list[str], state: _Inline) -> list[str]:
    """Convert a list of lines (one container's content) to block HTML."""
    out: list[str] = []
    i = 0
    count = len(lines)
    while i < count:
        line = lines[i]
        if not line.strip():
            i += 1
            continue
        fence = _FENCE_RE.match(line)
        if fence:
            marker = fence.group(1)
            end = i + 1
            while end < count and not lines[end].lstrip().startswith(marker):
                end += 1
            code = "\n".join(lines[i + 1 : end])
            out.append(f"<pre><code>{escape_text(code)}</code></pre>")
            i = end + 1
            continue
        if line.startswith(("    ", "\t")):
            end = i
            while end < count and (lines[end].startswith(("    ", "\t")) or not lines[end].strip()):
                end += 1
            while end > i and not lines[end - 1].strip():
                end -= 1
            code = "\n".join(ln[4:] if ln.startswith("    ") else ln[1:] for ln in lines[i:end])
            out.append(f"<pre><code>{escape_text(code)}</code></pre>")
            i = end
            continue
        atx = _ATX_RE.match(line)
        if atx:
            level = len(atx.group(1))
            out.append(f"<h{level}>{_inline(atx.group(2) or '', state)}</h{level}>")
            i += 1
            continue
        if _HR_RE.match(line):
            out.append("<hr>")
            i += 1
            continue
        if _QUOTE_RE.match(line):
            end = i
            while (
                end < count
                and lines[end].strip()
                and (_QUOTE_RE.match(lines[end]) or not _starts_block(lines[end]))
            ):
                end += 1
            inner = [_QUOTE_RE.sub("", ln, count=1) for ln in lines[i:end]]
            out.append("<blockquote>" + "".join(_blocks(inner, state)) + "</blockquote>")
            i = end
            continue
        item = _LIST_RE.match(line)
        if item:
            i = _list(lines, i, state, out)
            continue
        if "|" in line and i + 1 < count and _TABLE_SEP_RE.match(lines[i + 1]):
            i = _table(lines, i, state, out)
            continue
        end = i + 1
        while end < count and lines[end].strip() and not _starts_block(lines[end]):
            if _SETEXT_RE.match(lines[end]):
                break
            end += 1
        text = "\n".join(ln.strip() for ln in lines[i:end])
        if end < count and _SETEXT_RE.match(lines[end]) and lines[end].strip():
            level = 1 if lines[end].strip().startswith("=") else 2
            out.append(f"<h{level}>{_inline(text, state)}</h{level}>")
            i = end + 1
            continue
        out.append(f"<p>{_inline(text, state)}</p>")
        i = end
    return out


def _list(lines: list[str], start: int, state: _Inline, out: list[str]) -> int:
    """Convert the list starting at ``lines[start]``; returns the index after it."""
    first = _LIST_RE.match(lines[start])
    assert first is not None
    ordered = first.group(2)[0].isdigit()
    items: list[list[str]] = []
    loose = False
    i = start
    count = len(lines)
    while i < count:
        marker = _LIST_RE.match(lines[i])
        if not marker or marker.group(2)[0].isdigit() != ordered:
            break
        indent = len(marker.group(0)) if marker.group(3) else len(marker.group(0)) + 1
        body = [lines[i][len(marker.group(0)) :]]
        i += 1
        while i < count:
            line = lines[i]
            if not line.strip():
                following = lines[i + 1] if i + 1 < count else ""
                if following.startswith(" " * min(indent, 4)) and following.strip():
                    loose = True
                    body.append("")
                    i += 1
                    continue
                if _LIST_RE.match(following) and (_LIST_RE.match(following) or [""])[0]:
                    loose = True
                break
            if line.startswith(" " * min(indent, 4)) or line.startswith("\t"):
                body.append(line[min(indent, 4) :] if line.startswith(" ") else line[1:])
            elif _LIST_RE.match(line) or _starts_block(line):
                break
            else:
                body.append(line.strip())  # a lazy continuation line
            i += 1
        items.append(body)
        while i < count and not lines[i].strip():
            i += 1
    tag = "ol" if ordered else "ul"
    start_attr = ""
    if ordered:
        number = int(first.group(2)[:-1])
        if number != 1:
            start_attr = f' start="{number}"'
    parts = [f"<{tag}{start_attr}>"]
    for body in items:
        blocks = _blocks(body, state)
        if not loose and blocks and blocks[0].startswith("<p>"):
            blocks[0] = blocks[0][3:-4]
        parts.append("<li>" + "".join(blocks) + "</li>")
    parts.append(f"</{tag}>")
    out.append("".join(parts))
    return i


def _table(lines: list[str], start: int, state: _Inline, out: list[str]) -> int:
    """Convert the pipe table starting at ``lines[start]``; returns the index after it."""
    header = _split_row(lines[start])
    rows = ["<table><thead><tr>"]
    rows += [f"<th>{_inline(cell, state)}</th>" for cell in header]
    rows.append("</tr></thead><tbody>")
    i = start + 2
    while i < len(lines) and "|" in lines[i] and lines[i].strip():
        rows.append("<tr>")
        rows += [f"<td>{_inline(cell, state)}</td>" for cell in _split_row(lines[i])]
        rows.append("</tr>")
        i += 1
    rows.append("</tbody></table>")
    out.append("".join(rows))
    return i


def fast_markdown_to_html(text: str) -> str:
    """Convert markdown to (unsanitised but fully escaped) HTML; raw HTML comes out as text."""
    source = text.replace("\x00", "\ufffd").replace("\r\n", "\n").replace("\r", "\n")
    refs: dict[str, tuple[str, str]] = {}
    lines: list[str] = []
    in_fence = False
    for line in source.split("\n"):
        if _FENCE_RE.match(line):
            in_fence = not in_fence
        elif not in_fence and "]:" in line:
            definition = _REF_DEF_RE.match(line)
            if definition:
                refs.setdefault(
                    definition.group(1).strip().lower(),
                    (definition.group(2), definition.group(3) or ""),
                )
                continue
        lines.append(line)
    state = _Inline(refs=refs)
    return state.restore("\n".join(_blocks(lines, state)))
