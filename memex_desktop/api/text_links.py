"""Links in text people paste or drop, found the way chat apps find them.

A link starts at a scheme (``https://``, any ``scheme://``, or one of the schemes people drop
by mistake, such as ``javascript:``, which the caller refuses with a reason) or at a bare
``www.`` address, which becomes ``https://``. It ends at white space, at ``<``, ``>``, ``"``
or a backtick, or at a bracket, quote or full stop of another script (``」``, ``。``, ``”``,
``…``). Then, as GitHub and chat apps do, trailing punctuation (``. , ; : ! ? ' " * _ ~``) and
closing brackets that no bracket inside the link opened are left out, so
``(https://example.com/x).`` gives ``https://example.com/x`` while Wikipedia's
``https://en.wikipedia.org/wiki/Foo_(bar)`` keeps its parenthesis. A markdown link
``[text](url)`` gives its url only. E-mail addresses are not links.

Candidates are not checked here: :func:`memex_desktop.api.urls.parse_url` judges each one.
"""

from __future__ import annotations

import re
import unicodedata

# Schemes without "//" that are still worth naming when refused.
_OPAQUE_SCHEMES = ("javascript", "vbscript", "data", "mailto", "about", "blob")
_LINK_START = re.compile(
    # A scheme glued to a word is part of that word ("xhttps://"): the look-behind says no.
    r"(?<![A-Za-z0-9+\-])(?:[A-Za-z][A-Za-z0-9+\-]*://|"
    rf"(?:{'|'.join(_OPAQUE_SCHEMES)}):(?=\S))"
    # A bare www. address needs a name and a dot after www. ("www.example.com").
    r"|(?<![\w.@/\\:+%\-])www\.(?=[^\W_][\w\-]*\.[^\W\d_])",
    re.IGNORECASE,
)
# A markdown link's start: the "](" after its text, where the url follows.
_MARKDOWN_TARGET = re.compile(r"\[[^\[\]\n]*\]\(\s*<?")
_STOPS = frozenset('<>"`')
# Full stops and commas of other scripts, which end a link written in those scripts.
_FOREIGN_STOPS = frozenset("。、，．！？：；…‥｡､")
_TRAILING = frozenset(".,;:!?'\"*_~")
_CLOSING = {")": "(", "]": "[", "}": "{"}
# ",https://" and ";https://" inside a candidate start another link (a pasted list).
_GLUED_NEXT = re.compile(r"[,;](?=https?://)", re.IGNORECASE)


def find_links(text: str) -> list[str]:
    """Every link in ``text``, in order, each once (bare ``www.`` ones as ``https://``)."""
    return list(dict.fromkeys(_links(text)))


def _links(text: str) -> list[str]:
    """The links of ``text`` in order, with repeats; markdown links give their target."""
    links: list[str] = []
    position = 0
    for match in _MARKDOWN_TARGET.finditer(text):
        if match.start() < position or not _LINK_START.match(text, match.end()):
            continue
        close = _target_end(text, match.end())
        target = _plain_links(text[match.end() : close])
        if not target:
            continue
        links.extend(_plain_links(text[position : match.start()]))
        links.append(target[0])
        position = close
    links.extend(_plain_links(text[position:]))
    return links


def _target_end(text: str, start: int) -> int:
    """Where a markdown link's target ends: its closing parenthesis, or white space."""
    depth = 0
    end = start
    while end < len(text) and not text[end].isspace():
        if text[end] == "(":
            depth += 1
        elif text[end] == ")":
            if depth == 0:
                break
            depth -= 1
        end += 1
    return end


def _plain_links(text: str) -> list[str]:
    """The links of text without markdown links."""
    links: list[str] = []
    position = 0
    while (start := _LINK_START.search(text, position)) is not None:
        scanned = _scan(text, start.start())
        if scanned is None:
            position = start.end()
            continue
        link, position = scanned
        links.append(link)
    return links


def _scan(text: str, start: int) -> tuple[str, int] | None:
    """The link starting at ``start`` and where scanning goes on; None if nothing is there."""
    end = start
    while end < len(text) and not _ends_link(text[end]):
        end += 1
    candidate = text[start:end]
    glued = _GLUED_NEXT.search(candidate)
    if glued is not None:
        candidate = candidate[: glued.start()]
        end = start + glued.end()
    link = _trim(candidate)
    if not _has_body(link):
        return None
    if link[:4].lower() == "www.":
        link = f"https://{link}"
    return link, max(end, start + 1)


def _ends_link(char: str) -> bool:
    """Whether ``char`` cannot be part of a link (white space, quotes, foreign punctuation)."""
    if char.isspace() or char in _STOPS or char in _FOREIGN_STOPS:
        return True
    if char.isascii():
        return not char.isprintable()
    category = unicodedata.category(char)
    # Brackets and quotes of other scripts (「」 “” « » （）) and every separator or control.
    return category in ("Ps", "Pe", "Pi", "Pf") or category[0] in ("Z", "C")


def _trim(candidate: str) -> str:
    """``candidate`` without trailing punctuation and closing brackets nothing inside opened."""
    opened = {close: candidate.count(opening) for close, opening in _CLOSING.items()}
    closed = {close: candidate.count(close) for close in _CLOSING}
    end = len(candidate)
    while end:
        last = candidate[end - 1]
        if last in _CLOSING and closed[last] > opened[last]:
            closed[last] -= 1
        elif last not in _TRAILING:
            break
        end -= 1
    return candidate[:end]


def _has_body(link: str) -> bool:
    """Whether anything follows the scheme (``https://`` alone is no link)."""
    if link[:4].lower() == "www.":
        return True
    _scheme, separator, rest = link.partition(":")
    return bool(separator) and bool(rest.lstrip("/"))
