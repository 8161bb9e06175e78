"""Markdown to safe reader HTML with cmark-gfm, GitHub's CommonMark implementation.

Every document, whatever its size, goes through the same converter (cmark-gfm via
``cmarkgfm``, with GitHub's table, strikethrough and autolink extensions and
footnotes), so a page renders the same at 4 KB and at 4 MB; it converts a megabyte in about
50 ms. Raw HTML is shown as text: before parsing, every ``<`` that does not start an autolink or
a ``<...>`` link destination is swapped for a character that cannot start markup, and the
converter's output has it turned back into ``&lt;``. That is what CommonMark with raw HTML
disabled does (an HTML block reads as a paragraph of its text), and inside code the character
comes out as ``&lt;`` too. The output is cleaned by :func:`sanitize_html` regardless, since link
syntax alone can produce ``javascript:`` URLs.
"""

from __future__ import annotations

import re

from memex_desktop.render import cmark_gfm
from memex_desktop.render.sanitize import sanitize_html

# No task-list extension: the reader shows no checkboxes, and "[x]" as text keeps the state.
_EXTENSIONS = ("table", "strikethrough", "autolink")
_OPTIONS = cmark_gfm.FOOTNOTES
# Private-use characters: never markup, and one of them is absent from any real text.
_STAND_INS = ("\ue000", "\ue001", "\ue002", "\ue003", "\U000f0000", "\U000f0001")
# CommonMark autolinks (URI and e-mail) and pointy-bracket link destinations keep their "<".
_KEPT_ANGLE = (
    r"(?![A-Za-z][A-Za-z0-9+.\-]{1,31}:[^<>\x00-\x20]*>)"
    r"(?![A-Za-z0-9.!#$%&'*+/=?^_`{|}~\-]+@[A-Za-z0-9](?:[A-Za-z0-9\-]{0,61}[A-Za-z0-9])?"
    r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9\-]{0,61}[A-Za-z0-9])?)*>)"
)
_RAW_ANGLE_RE = re.compile(r"(?<!\]\()(?<!\]: )<" + _KEPT_ANGLE)


def _stand_in(text: str) -> str:
    """A private-use character that does not occur in ``text``."""
    for char in _STAND_INS:
        if char not in text:
            return char
    return _STAND_INS[0]  # text holding all of them: the first shows as "<" where it stood


def markdown_to_html(text: str) -> str:
    """Markdown (CommonMark and GitHub's extensions) to HTML with raw HTML shown as text;
    NOT yet sanitised."""
    source = text.replace("\x00", "\ufffd")
    try:
        source.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates cannot reach the C library
        source = source.encode("utf-8", "replace").decode("utf-8")
    stand_in = _stand_in(source)
    if "<" in source:
        source = _RAW_ANGLE_RE.sub(stand_in, source)
    converted = cmark_gfm.markdown_to_html(source, _OPTIONS, _EXTENSIONS)
    if stand_in in converted:
        converted = converted.replace(stand_in, "&lt;")
    encoded = "".join(f"%{byte:02X}" for byte in stand_in.encode("utf-8"))
    if encoded in converted:  # a stand-in inside a link destination, percent-encoded
        converted = converted.replace(encoded, "%3C")
    return converted


def markdown_to_safe_html(
    text: str,
    *,
    allow_remote: bool,
    base_url: str | None = None,
) -> tuple[str, list[str]]:
    """Markdown to sanitised reader HTML; returns the HTML and its remote image URLs."""
    return sanitize_html(
        markdown_to_html(text),
        allow_remote=allow_remote,
        base_url=base_url,
        converted=True,
    )
