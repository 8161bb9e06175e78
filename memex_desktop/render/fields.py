"""Fields that no layout names, shown as a person reads them (DESIGN.md §5).

Labels instead of keys (``page_count`` is "Page count"), dates as dates, durations as
durations, lists as lists and nested objects as nested definition lists. Ids, hashes and
bookkeeping are never shown: :func:`memex_desktop.api.content.is_bookkeeping` says which
fields those are, and the cache leaves the same fields out of its index.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from memex_desktop.api.content import (
    LINK_KEYS,
    duration_key_scale,
    field_instant,
    finite_number,
    is_bookkeeping,
    time_text,
)
from memex_desktop.api.urls import UrlProblem, parse_web_url
from memex_desktop.render.document import address_link, esc
from memex_desktop.render.text import linkify, plain_text_to_html

# A hostile document can nest deeper than anyone reads; below this its fields are not shown.
MAX_DEPTH = 40
# Words written in capitals in a label.
_ACRONYMS = {
    "ai": "AI", "api": "API", "doi": "DOI", "html": "HTML", "id": "ID", "ids": "IDs",
    "isbn": "ISBN", "json": "JSON", "ocr": "OCR", "pdf": "PDF", "uri": "URI", "url": "URL",
    "urls": "URLs",
}  # fmt: skip
# Last words of a key that its value already says: a date (``_at``) or a unit of a duration.
_IMPLIED_LAST_WORDS = frozenset({"at", "s", "ms", "sec", "secs"})
_CAMEL_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_KEY_WORD = re.compile(r"[A-Za-z0-9]+")
# A long run of hex digits alone is a hash or a key, never words.
_HEX_DIGEST = re.compile(r"[0-9a-fA-F]{32,}")
_WEB_ADDRESS = re.compile(r"https?://\S+", re.IGNORECASE)


def field_label(key: str) -> str:
    """A key as a label: ``published_at`` "Published", ``pageCount`` "Page count",
    ``isbn`` "ISBN", ``is_reference`` "Reference"."""
    words = [word.lower() for word in _KEY_WORD.findall(_CAMEL_BOUNDARY.sub(" ", key))]
    if len(words) > 1 and words[0] == "is":
        words = words[1:]
    if len(words) > 1 and words[-1] in _IMPLIED_LAST_WORDS:
        words = words[:-1]
    if not words:
        return key.strip() or "Field"
    label = " ".join(_ACRONYMS.get(word, word) for word in words)
    return label[:1].upper() + label[1:]


def duration_text(seconds: float) -> str:
    """A length of time as people say it: "45 s", "6 min 52 s", "2 h 05 min"."""
    whole = round(seconds)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours} h {minutes:02d} min"
    if minutes:
        return f"{minutes} min {secs} s" if secs else f"{minutes} min"
    return f"{secs} s"


def fields_html(items: Iterable[tuple[str, Any]]) -> str:
    """The fields as a definition list ('' when none of them has anything to show)."""
    return _definitions(items, 0)


def _definitions(items: Iterable[tuple[str, Any]], depth: int) -> str:
    """A ``<dl>`` of labelled values, leaving out bookkeeping and empty values."""
    rows = []
    for key, value in items:
        name = str(key)
        if is_bookkeeping(name):
            continue
        shown = _value_html(name, value, depth)
        if shown:
            rows.append(f'<dt class="field-name">{esc(field_label(name))}</dt><dd>{shown}</dd>')
    return f'<dl class="fields">{"".join(rows)}</dl>' if rows else ""


def _value_html(key: str, value: Any, depth: int) -> str | None:
    """One value as the reader shows it, or None when there is nothing to show."""
    if depth > MAX_DEPTH:
        return None
    if (instant := field_instant(key, value)) is not None:
        return _fact(time_text(instant) or "")
    if isinstance(value, bool):
        return _fact("yes" if value else "no")
    if isinstance(value, int | float):
        return _number_html(key, value)
    if isinstance(value, str):
        return _text_html(key, value)
    if isinstance(value, dict):
        return _definitions(value.items(), depth + 1) or None
    if isinstance(value, list):
        return _list_html(key, value, depth)
    return None


def _number_html(key: str, value: int | float) -> str | None:
    """A number, or a duration when its field names one."""
    if not finite_number(value):
        return esc(value)
    scale = duration_key_scale(key)
    if scale is not None and value >= 0:
        return _fact(duration_text(float(value) / scale))
    return esc(value)


def _text_html(key: str, value: str) -> str | None:
    """A string: a link when it is an address, paragraphs when it has lines, else its text."""
    text = value.strip()
    if not text or _HEX_DIGEST.fullmatch(text):
        return None
    if key in LINK_KEYS or _WEB_ADDRESS.fullmatch(text):
        if isinstance(parse_web_url(text), UrlProblem):
            return _fact(text)
        return address_link(text)
    if "\n" in text:
        return plain_text_to_html(text)
    return linkify(text)


def _list_html(key: str, values: list[Any], depth: int) -> str | None:
    """A list as a bulleted list (one value alone is shown as itself)."""
    shown = [item for item in (_value_html(key, value, depth + 1) for value in values) if item]
    if not shown:
        return None
    if len(shown) == 1:
        return shown[0]
    return "<ul>" + "".join(f"<li>{item}</li>" for item in shown) + "</ul>"


def _fact(text: str) -> str:
    """Text that is the reader's own formatting of a value (a date, a duration, yes/no)."""
    return f'<span class="fact">{esc(text)}</span>'
