"""Turning what a person types into a safe FTS5 expression, and filters into SQL."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

# Letters and digits only, like FTS5's unicode61 tokenizer: every operator character
# (", *, ^, :, parentheses, NEAR/AND/OR as bare words) is dropped or quoted away.
_TOKEN = re.compile(r"[^\W_]+")
MAX_TERMS = 16
# Prefix expansion of very short stems touches a large part of the index: only from 3 chars.
MIN_PREFIX_CHARS = 3
# The body index has no prefix index: expanding a 3-letter stem there merges the doclists
# of hundreds of words, so the body is searched by prefix only from 4 letters (titles have
# prefix indexes for 2 and 3 letters and are searched by prefix from 2).
MIN_BODY_PREFIX_CHARS = 4
MIN_TITLE_PREFIX_CHARS = 2


def terms(query: str) -> list[str]:
    """The words of a query, lowercased."""
    return _TOKEN.findall(query.lower())[:MAX_TERMS]


def match_expression(query: str, min_prefix: int = MIN_PREFIX_CHARS) -> str | None:
    """An FTS5 MATCH expression: every word required, the last one as a prefix while typing.

    Each word is a quoted string, so nothing a person types is read as FTS syntax.
    Returns None when the query holds no words.
    """
    words = terms(query)
    if not words:
        return None
    quoted = [f'"{word}"' for word in words]
    typing = not query[-1:].isspace() and not query.rstrip().endswith('"')
    if typing and len(words[-1]) >= min_prefix:
        quoted[-1] += "*"
    return " ".join(quoted)


@dataclass(frozen=True)
class Filters:
    """Restrictions every read of entities honours."""

    types: tuple[str, ...] = ()
    tag_ids: tuple[str, ...] = ()
    date_from_ms: int | None = None
    date_to_ms: int | None = None
    include_deleted: bool = False

    def sql(self, alias: str = "e") -> tuple[str, list[Any]]:
        """A WHERE fragment (starting with ``AND`` when not empty) and its parameters."""
        parts: list[str] = []
        params: list[Any] = []
        if self.types:
            parts.append(f"{alias}.type IN ({','.join('?' * len(self.types))})")
            params += list(self.types)
        if self.tag_ids:
            parts.append(
                f"{alias}.id IN (SELECT entity_id FROM entity_tags WHERE tag_id IN "
                f"({','.join('?' * len(self.tag_ids))}))"
            )
            params += list(self.tag_ids)
        if self.date_from_ms is not None:
            parts.append(f"{alias}.created_at >= ?")
            params.append(self.date_from_ms)
        if self.date_to_ms is not None:
            parts.append(f"{alias}.created_at <= ?")
            params.append(self.date_to_ms)
        if not self.include_deleted:
            parts.append(f"{alias}.deleted_upstream_at IS NULL")
        return "".join(f" AND {part}" for part in parts), params


def make_filters(
    types: Sequence[str] = (),
    tag_id: str | None = None,
    date_from_ms: int | None = None,
    date_to_ms: int | None = None,
    include_deleted: bool = False,
) -> Filters:
    """Filters from the keyword arguments of the reader's search methods."""
    if isinstance(types, str):
        types = (types,)
    return Filters(
        types=tuple(types),
        tag_ids=(tag_id,) if tag_id else (),
        date_from_ms=date_from_ms,
        date_to_ms=date_to_ms,
        include_deleted=include_deleted,
    )


def snippet_pattern(words: Sequence[str]) -> re.Pattern[str]:
    """The regular expression :func:`python_snippet` looks for: a word starting with one of
    ``words``, matched whole."""
    return re.compile(
        r"(?<![^\W_])(?:" + "|".join(re.escape(word) for word in words if word) + r")[^\W_]*",
        re.IGNORECASE,
    )


def _word_span(text: str, words: Sequence[str]) -> tuple[int, int] | None:
    """Start and end of the first word of ``text`` beginning with one of ``words``.

    str.find on the lowercased text: many times faster than a case-insensitive regular
    expression with a look-behind at every position of a long article.
    """
    lowered = text.lower()
    if len(lowered) != len(text):  # a character whose lowercase is longer: offsets move
        return None
    best = -1
    for word in words:
        position = lowered.find(word)
        while position >= 0 and (best < 0 or position < best):
            if position == 0 or not lowered[position - 1].isalnum():
                best = position
                break
            position = lowered.find(word, position + 1)
    if best < 0:
        return None
    end = best
    while end < len(text) and text[end].isalnum():
        end += 1
    return best, end


def python_snippet(
    text: str, words: Sequence[str], width: int = 160, *, pattern: re.Pattern[str] | None = None
) -> str:
    """A snippet around the first word of ``text`` starting with a query word, marked with
    ``\x02``..``\x03`` (the whole word, so a typed prefix marks the word it begins)."""
    words = [word for word in words if word]
    if not words:
        return text[:width]
    span = _word_span(text, words)
    if span is None and len(text.lower()) != len(text):
        found = (pattern or snippet_pattern(words)).search(text)
        span = found.span() if found is not None else None
    if span is None:
        return text[:width]
    start, end = span
    left = max(0, start - width // 3)
    while left > 0 and not text[left - 1].isspace() and start - left < width // 2:
        left -= 1
    right = min(len(text), max(end, left + width))
    prefix = "…" if left else ""
    suffix = "…" if right < len(text) else ""
    return f"{prefix}{text[left:start]}\x02{text[start:end]}\x03{text[end:right]}{suffix}"
