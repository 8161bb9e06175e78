"""Titles and snippets as people read them: markdown, link syntax, citations and tags removed.

Saved texts are markdown (and sometimes HTML) with ``{{content:ID}}`` citations. The list, the
command line and every other place that shows a title or a snippet shows the words only:
``**bold**`` → ``bold``, ``[words](https://…)`` → ``words``, ``<b>x</b>`` → ``x``, a citation
→ the cited item's title (or nothing when it is not known). A snippet is a window cut out of a
longer text, so it may start or end inside a link or a citation: those pieces go too.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

# The marks a snippet wraps matched words in (see store.query.python_snippet).
MARK_START = "\x02"
MARK_END = "\x03"
_MARKS = f"{MARK_START}{MARK_END}"

# A query quoted in the window or in a message is cut to this many characters (shortened).
QUOTED_CHARS = 40

CITATION = re.compile(r"\{\{\s*content:([^{}\s]+)\s*\}\}")
# Other template references (``{{ref-3}}``) name nothing a person could read.
_TEMPLATE = re.compile(r"\{\{[^{}]*\}\}")
# A link's address, which may hold parentheses one balanced pair deep as CommonMark allows
# ("https://en.wikipedia.org/wiki/Foo_(bar)"); deeper ones end it, as they do CommonMark's.
_ADDRESS = r"(?:[^()\n]|\([^()\n]*\))*"
_IMAGE = re.compile(rf"!\[([^\]\n]*)\]\({_ADDRESS}\)")
_LINK = re.compile(rf"\[([^\]\n]*)\]\(({_ADDRESS})\)")
_REFERENCE_LINK = re.compile(r"\[([^\]\n]+)\]\[[^\]\n]*\]")
# Words in brackets that are no link: how a note's compiled text names an item it references
# ("see [Designing for Offline: The Outbox Pattern]"). Only the title of an item the text
# references loses its brackets (a title in brackets, "[OC] review" or "x = [a, b]" keep
# theirs), and not inside a word: the words stay as the search index splits them.
_BRACKETED = re.compile(r"(?<!\w)\[([^\[\]\n]+)\](?![(\[\w])")
_AUTOLINK = re.compile(r"<((?:https?|mailto):[^>\s]+)>")
_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>|<!--.*?-->", re.DOTALL)
_ENTITIES = {"&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"', "&#39;": "'", "&nbsp;": " "}
_ENTITY = re.compile("|".join(map(re.escape, _ENTITIES)))
# Emphasis: the markers around words (``**x**``, ``__x__``, ``*x*``, ``_x_``, ``~~x~~``, code).
_STRONG = re.compile(r"(\*\*|__|~~)(?=\S)(.+?)(?<=\S)\1")
_EMPHASIS = re.compile(r"(?<![\w*])([*_])(?=[^\s*_])(.+?)(?<=[^\s*_])\1(?![\w*])")
_CODE = re.compile(r"`+([^`\n]*)`+")
_LINE_MARKERS = re.compile(
    r"(?m)^[ \t]*(?:#{1,6}[ \t]+|>[ \t]?|[-*+][ \t]+(?=\S)|\d{1,3}[.)][ \t]+)"
)
_RULE = re.compile(r"(?m)^[ \t]*(?:[-*_][ \t]*){3,}$")
_STRAY_MARKERS = re.compile(r"\*\*|__|~~")
# What a markdown line marker (heading, quote, list item, rule) starts with.
_LINE_STARTS = frozenset("#>-*+_0123456789")
# Pieces a window may start with: the end of a link, a citation or a tag cut at its start.
_CUT_HEAD = re.compile(
    rf"^[^\s\[{_MARKS}]*\]\((?:[^()\s]|\([^()\s]*\))*\)?|^[^\s(]*\)(?=\s|$)"
    rf"|^[^{{}}]*\}}\}}|^[^<>]*>"
)
# A snippet window cut inside words in brackets (a link's text, a reference) starts with a
# closing bracket (and the link's address) of no opening one: the words stay, the syntax goes.
_CUT_OPEN = re.compile(r"^(…[^\[\]]*)\](?:\((?:[^()\s]|\([^()\s]*\))*\)?)?")
# ... and end with: a link, a citation or a tag cut before its end.
_CUT_TAIL = re.compile(
    r"!?\[([^\]\n]*)(?:\]\((?:[^()]|\([^()]*\))*(?:\([^()]*)?)?$|\{\{[^}]*$|<[A-Za-z/!][^>]*$"
)

# How long a snippet is shown, and how much raw text is cut out for it: markup takes room.
SNIPPET_WIDTH = 160
SNIPPET_WINDOW = 2 * SNIPPET_WIDTH

TitleLookup = Callable[[Iterable[str]], Mapping[str, str]]


def cited_ids(text: str) -> list[str]:
    """The item ids ``{{content:ID}}`` citations in ``text`` name, in order."""
    return CITATION.findall(text) if "{{" in text else []


def _words(text: str) -> str:
    """``text`` without snippet marks, its words between single spaces: to compare titles."""
    return " ".join(text.replace(MARK_START, "").replace(MARK_END, "").split())


def _named(titles: Mapping[str, str]) -> frozenset[str]:
    """The titles of ``titles`` as :func:`_words`, those a bracketed phrase may be."""
    return frozenset(words for title in titles.values() if (words := _words(title)))


def _names(match: re.Match[str], named: frozenset[str]) -> bool:
    """Whether a bracketed phrase is one of the ``named`` titles (a referenced item's)."""
    return _words(match.group(1)) in named


def plain_text(text: str, titles: Mapping[str, str] | None = None) -> str:
    """``text`` without markdown, link syntax, HTML tags or ids, on one line.

    A citation becomes the cited item's title from ``titles`` (nothing when it is unknown), and
    a title of ``titles`` in brackets (how a note's compiled text names an item it references)
    its words. Snippet marks (\\x02..\\x03) are kept where the words they wrap are.
    """
    if not text:
        return ""
    known = titles or {}
    if "{{" in text:
        text = CITATION.sub(lambda m: known.get(m.group(1), ""), text)
        text = _TEMPLATE.sub("", text)
    if "<" in text:
        text = _AUTOLINK.sub(r"\1", text)
        text = _TAG.sub(" ", text)
    if "&" in text:
        text = _ENTITY.sub(lambda m: _ENTITIES[m.group(0)], text)
    if "[" in text:
        text = _IMAGE.sub(r"\1", text)
        text = _LINK.sub(r"\1", text)
        text = _REFERENCE_LINK.sub(r"\1", text)
        if named := _named(known):
            text = _BRACKETED.sub(lambda m: m.group(1) if _names(m, named) else m.group(0), text)
    if "`" in text:
        text = _CODE.sub(r"\1", text)
    if "*" in text or "_" in text or "~" in text:
        text = _STRONG.sub(r"\2", text)
        text = _EMPHASIS.sub(r"\2", text)
        text = _STRAY_MARKERS.sub("", text)
    if "\n" in text or text.lstrip()[:1] in _LINE_STARTS:
        text = _RULE.sub("", text)
        text = _LINE_MARKERS.sub("", text)
    return " ".join(text.split())


@dataclass(frozen=True)
class Run:
    """A piece of a line of text with the markdown marks around it: ``bold``, ``italic``,
    ``strike``, ``code``, and the address of the link it is the words of."""

    text: str
    marks: tuple[str, ...] = ()
    href: str | None = None


# The inline syntax plain_text drops, in the order it drops it where two start together:
# the same rules, so a view that formats a text shows the words its plain line shows.
_INLINE = (
    ("citation", CITATION),
    ("template", _TEMPLATE),
    ("code", _CODE),
    ("image", _IMAGE),
    ("link", _LINK),
    ("reference", _REFERENCE_LINK),
    ("bracketed", _BRACKETED),
    ("strong", _STRONG),
    ("emphasis", _EMPHASIS),
)
# Marks within marks, as deep as they are read (the rest of a deeper piece keeps its syntax).
_MAX_NESTING = 6


def inline_runs(text: str, titles: Mapping[str, str] | None = None) -> list[Run]:
    """``text`` as the pieces :func:`plain_text` keeps of its inline markdown, each with the
    marks it was written in (``**bold**`` → the words "bold", marked ``bold``): the same
    words, for a view that formats them rather than dropping the syntax. Citations read as
    the titles in ``titles``, as they do in :func:`plain_text`."""
    known = titles or {}
    return [run for run in _runs(text, (), None, 0, known, _named(known)) if run.text]


def _search(
    kind: str, pattern: re.Pattern[str], text: str, at: int, named: frozenset[str]
) -> re.Match[str] | None:
    """The next match of ``pattern`` from ``at``; of words in brackets, the next that are
    one of the ``named`` titles (other brackets are words like any)."""
    if kind != "bracketed":
        return pattern.search(text, at)
    if not named:
        return None
    return next((m for m in pattern.finditer(text, at) if _names(m, named)), None)


def _runs(
    text: str,
    marks: tuple[str, ...],
    href: str | None,
    depth: int,
    titles: Mapping[str, str],
    named: frozenset[str],
) -> list[Run]:
    """The runs of ``text`` inside ``marks`` (and the link ``href``), ``depth`` marks deep."""
    runs: list[Run] = []
    at = 0
    # The next match of each pattern from ``at``: still the next while it starts at or after
    # ``at`` (a search from further on finds it again), so each is searched for again only
    # once the text before it is read.
    next_of: dict[str, re.Match[str] | None] = {}
    while depth < _MAX_NESTING and at < len(text):
        found: tuple[str, re.Match[str]] | None = None
        for kind, pattern in _INLINE:
            match = next_of[kind] if kind in next_of else _search(kind, pattern, text, at, named)
            if match is not None and match.start() < at:
                match = _search(kind, pattern, text, at, named)
            next_of[kind] = match
            if match is not None and (found is None or match.start() < found[1].start()):
                found = (kind, match)
        if found is None:
            break
        kind, match = found
        runs.append(Run(text[at : match.start()], marks, href))
        if kind == "citation":
            runs.append(Run(titles.get(match.group(1), ""), marks, href))
        elif kind == "template":
            pass  # names nothing a person could read
        elif kind == "code":
            runs.append(Run(match.group(1), (*marks, "code"), href))
        elif kind == "image":
            runs.append(Run(match.group(1), marks, href))
        elif kind == "link":
            address = match.group(2).split()
            target = address[0].strip("<>") if address else None
            runs += _runs(match.group(1), marks, target or href, depth + 1, titles, named)
        elif kind in ("reference", "bracketed"):
            runs += _runs(match.group(1), marks, href, depth + 1, titles, named)
        else:
            strong = "strike" if match.group(1) == "~~" else "bold"
            mark = "italic" if kind == "emphasis" else strong
            runs += _runs(match.group(2), (*marks, mark), href, depth + 1, titles, named)
        at = match.end()
    runs.append(Run(text[at:], marks, href))
    return runs


# A line of a markdown quote: a note on a passage begins with the passage so (note editor).
_QUOTE_LINE = re.compile(r"[ \t]{0,3}>")


def leading_quote(text: str) -> tuple[str, str]:
    """``(quote, rest)``: the markdown quote a note begins with (its first lines starting
    with ``>``, markers removed) and what it says after it; ``("", text)`` without one."""
    lines = text.split("\n")
    start = 0
    while start < len(lines) and not lines[start].strip():
        start += 1
    end = start
    while end < len(lines) and _QUOTE_LINE.match(lines[end]):
        end += 1
    if end == start:
        return "", text
    quote = "\n".join(_QUOTE_LINE.sub("", line, count=1).strip() for line in lines[start:end])
    return quote.strip(), "\n".join(lines[end:]).strip()


def own_words(text: str) -> str:
    """What a note says itself: its text without the passage it begins by quoting, or the
    whole text when the quote is all it says (markdown kept: see :func:`plain_text`)."""
    quote, rest = leading_quote(text)
    return rest if quote and rest else text


# One line of words between single spaces, holding no character any rule of plain_text or
# plain_excerpt starts from: such a text is its own plain form.
_PLAIN_LINE = re.compile(r"[^\s{<&\[`*_~…]+(?: [^\s{<&\[`*_~…]+)*")


def is_plain_line(text: str) -> bool:
    """Whether ``text`` is one line that :func:`plain_excerpt` returns unchanged (a cheap
    test: most titles are, and every synced item's title is made plain)."""
    return text[:1] not in _LINE_STARTS and _PLAIN_LINE.fullmatch(text) is not None


def plain_excerpt(window: str, titles: Mapping[str, str] | None = None) -> str:
    """A snippet window as plain text: like :func:`plain_text`, and the pieces of a link, a
    citation or a tag cut at either edge of the window are dropped."""
    prefix = "…" if window.startswith("…") else ""
    suffix = "…" if window.endswith("…") and len(window) > 1 else ""
    body = window[len(prefix) : len(window) - len(suffix)]
    # Each piece the patterns cut holds one of these characters; without them the patterns
    # still read the whole window: 89 µs a window with them, 25 µs without (the 8,253
    # windows of the store benchmark's plain queries on 100,000 items, best of five).
    if prefix and ("]" in body or ")" in body or "}}" in body or ">" in body):
        body = _CUT_HEAD.sub("", body, count=1)
    if suffix and ("[" in body or "{{" in body or "<" in body):
        body = _CUT_TAIL.sub(lambda m: m.group(1) or "", body, count=1)
    text = plain_text(body, titles)
    return f"{prefix}{text}{suffix}" if text else ""


def shortened(text: str, limit: int = QUOTED_CHARS) -> str:
    """``text`` on one line, cut to ``limit`` characters with "…": a query (or a part of
    one) quoted in a chip, an empty list or a message, which a pasted page must not fill."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "\u2026"


def trimmed(excerpt: str, width: int = SNIPPET_WIDTH) -> str:
    """An excerpt cut to about ``width`` characters around its first marked word."""
    prefix = "…" if excerpt.startswith("…") else ""
    suffix = "…" if excerpt.endswith("…") and len(excerpt) > 1 else ""
    body = excerpt[len(prefix) : len(excerpt) - len(suffix)]
    if len(body) <= width:
        return excerpt
    mark = body.find(MARK_START)
    start = max(0, mark - width // 3) if mark >= 0 else 0
    if start:
        space = body.find(" ", start, mark if mark > start else start + width // 3)
        start = space + 1 if space >= 0 else start
        prefix = "…"
    end = start + width
    space = body.rfind(" ", max(start, mark), end)
    cut = body[start : space if space > start else end].rstrip()
    if cut.count(MARK_START) > cut.count(MARK_END):
        cut += MARK_END
    return f"{prefix}{cut}…"


def with_cited_titles(
    snippets: Mapping[str, str],
    lookup: TitleLookup,
    width: int = SNIPPET_WIDTH,
    referenced: Mapping[str, Mapping[str, str]] | None = None,
) -> dict[str, str]:
    """Snippet windows as plain text of about ``width`` characters, their citations replaced
    by the titles ``lookup`` finds (one lookup for every citation of every snippet), and the
    titles in ``referenced`` (by snippet: its item's referenced items) without brackets."""
    cited = {entity_id for window in snippets.values() for entity_id in cited_ids(window)}
    titles = {key: plain_text(value) for key, value in lookup(cited).items()} if cited else {}
    shown: dict[str, str] = {}
    for key, window in snippets.items():
        known = {**titles, **(referenced or {}).get(key, {})}
        shown[key] = trimmed(plain_excerpt(_cut_open(window, _named(known)), known), width)
    return shown


def _cut_open(window: str, named: frozenset[str]) -> str:
    """``window`` without the closing bracket it starts with, when it was cut inside a link's
    words or the brackets around a referenced item's title (one of ``named``): the words
    stay, the syntax goes."""
    match = _CUT_OPEN.match(window)
    if match is None:
        return window
    words = _words(match.group(1).removeprefix("…"))
    is_link = match.end() > match.end(1) + 1  # the words of a link: its address follows
    if not is_link and not (words and any(title.endswith(words) for title in named)):
        return window
    return match.group(1) + window[match.end() :]
