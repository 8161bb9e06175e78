"""An entity's stored JSON cut to a text budget, so a huge item opens without its whole text.

A saved page can hold tens of megabytes of text. The reader shows a bounded part of it: the
strings of the JSON are kept in document order until the budget is spent, the rest of each long
string is cut off and arrays stop growing. Short strings (ids, types, titles, addresses) are
kept whole past the budget, within a small overdraft, so the item still parses as its type.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from memex_desktop.api.models import ContentEntityBase, parse_content_entity

# Strings this short are an item's identity and metadata, not its body: kept past the budget.
KEEP_WHOLE_CHARS = 1000
# How far short strings may go past the budget (an object of many small fields stays bounded).
OVERDRAFT_CHARS = 64_000


@dataclass(frozen=True)
class BoundedEntity:
    """One entity's stored JSON within a text budget, and how big the stored item is."""

    data: dict[str, Any]
    stored_bytes: int
    truncated: bool

    def entity(self, max_chars: int | None = None) -> ContentEntityBase:
        """The entity, parsed from the bounded JSON (cut further to ``max_chars`` if given)."""
        data = self.data if max_chars is None else text_within(self.data, max_chars)[0]
        return parse_content_entity(data)


@dataclass
class _Budget:
    left: int
    cut: bool = False


def _bounded(value: Any, budget: _Budget) -> Any:
    """``value`` with its strings cut to what is left of ``budget`` (spent as it goes)."""
    if isinstance(value, str):
        size = len(value)
        if size <= budget.left or (
            size <= KEEP_WHOLE_CHARS and budget.left - size >= -OVERDRAFT_CHARS
        ):
            budget.left -= size
            return value
        kept = max(budget.left, 0)
        budget.left -= kept
        budget.cut = True
        return value[:kept]
    if isinstance(value, list):
        items = []
        for item in value:
            if budget.left <= 0:
                budget.cut = True
                break
            items.append(_bounded(item, budget))
        return items
    if isinstance(value, dict):
        # Every key is kept: a small field after a huge one (the type, a date) still counts.
        return {key: _bounded(item, budget) for key, item in value.items()}
    return value


def text_within(value: Any, max_chars: int) -> tuple[Any, bool]:
    """A copy of JSON ``value`` holding at most about ``max_chars`` characters of strings,
    and whether anything was cut."""
    budget = _Budget(max(0, max_chars))
    bounded = _bounded(value, budget)
    return bounded, budget.cut


_WHITESPACE = re.compile(rb"[ \t\n\r]*")
_SCALAR = re.compile(rb"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?|true|false|null")
# What skipping the rest of an array looks for: strings (stepped over whole) and brackets.
_STRUCTURE = re.compile(rb'["\[\]{}]')
_BACKSLASH = 0x5C
_LONGEST_ESCAPE = 6  # \uXXXX
_HIGH_SURROGATES = frozenset({b"d8", b"d9", b"da", b"db"})
# A cut string is decoded in at most this many slices to come close to its share of the budget
# (its escapes make its bytes outnumber its characters).
_CUT_STEPS = 4


def _starts_escape(raw: bytes, at: int) -> bool:
    """Whether the backslash at ``at`` begins an escape (it is not the second of a pair)."""
    first = at
    while first > 0 and raw[first - 1] == _BACKSLASH:
        first -= 1
    return (at - first) % 2 == 0


def _escape_safe_cut(raw: bytes, start: int, cut: int, end: int) -> int:
    """``cut`` (inside the string body ``raw[start:end]``) moved back so ``raw[start:cut]``
    ends neither inside an escape, nor between the two halves of a surrogate pair, nor inside
    a UTF-8 sequence."""
    cut = min(cut, end)
    while True:  # back over a partial escape, then over a first half left at the end
        last = raw.rfind(b"\\", max(start, cut - _LONGEST_ESCAPE), cut)
        if last == -1 or not _starts_escape(raw, last):
            break
        unicode = raw[last + 1 : last + 2] == b"u"
        length = _LONGEST_ESCAPE if unicode else 2
        high_half = unicode and raw[last + 2 : last + 4].lower() in _HIGH_SURROGATES
        if not (last + length > cut or (high_half and last + length == cut)):
            break
        cut = last
    while start < cut < end and (raw[cut] & 0xC0) == 0x80:
        cut -= 1
    return cut


class _BoundedParser:
    """A JSON parser that decodes strings only as far as the budget reaches.

    The long strings of a huge item are stepped over by regular expressions (found, not
    decoded), so a 50 MB item costs one read of its bytes and a few small allocations.
    """

    def __init__(self, data: bytes, max_chars: int) -> None:
        self._data = data
        self.budget = _Budget(max(0, max_chars))

    def parse(self) -> Any:
        """The whole document, bounded; ValueError when it is not JSON."""
        value, end = self._value(self._skip_space(0))
        if self._skip_space(end) != len(self._data):
            raise ValueError("trailing data after the JSON value")
        return value

    def _skip_space(self, at: int) -> int:
        found = _WHITESPACE.match(self._data, at)
        return found.end() if found else at

    def _value(self, at: int) -> tuple[Any, int]:
        data = self._data
        if at >= len(data):
            raise ValueError("JSON ends early")
        first = data[at : at + 1]
        if first == b"{":
            return self._object(at + 1)
        if first == b"[":
            return self._array(at + 1)
        if first == b'"':
            return self._string(at)
        found = _SCALAR.match(data, at)
        if found is None:
            raise ValueError(f"not JSON at byte {at}")
        return json.loads(found.group()), found.end()

    def _object(self, at: int) -> tuple[dict[str, Any], int]:
        data = self._data
        result: dict[str, Any] = {}
        at = self._skip_space(at)
        if data[at : at + 1] == b"}":
            return result, at + 1
        while True:
            if data[at : at + 1] != b'"':
                raise ValueError(f"not a JSON key at byte {at}")
            end = self._string_end(at)
            key = json.loads(data[at:end])
            at = self._skip_space(end)
            if data[at : at + 1] != b":":
                raise ValueError(f"no colon at byte {at}")
            result[key], at = self._value(self._skip_space(at + 1))
            at = self._skip_space(at)
            separator = data[at : at + 1]
            if separator == b"}":
                return result, at + 1
            if separator != b",":
                raise ValueError(f"no comma at byte {at}")
            at = self._skip_space(at + 1)

    def _array(self, at: int) -> tuple[list[Any], int]:
        data = self._data
        result: list[Any] = []
        at = self._skip_space(at)
        if data[at : at + 1] == b"]":
            return result, at + 1
        while True:
            if self.budget.left <= 0:
                self.budget.cut = True
                return result, self._skip_rest_of_array(at)
            item, at = self._value(at)
            result.append(item)
            at = self._skip_space(at)
            separator = data[at : at + 1]
            if separator == b"]":
                return result, at + 1
            if separator != b",":
                raise ValueError(f"no comma at byte {at}")
            at = self._skip_space(at + 1)

    def _skip_rest_of_array(self, at: int) -> int:
        """Where the array whose remaining items start at ``at`` ends."""
        data = self._data
        depth = 0
        while True:
            found = _STRUCTURE.search(data, at)
            if found is None:
                raise ValueError("array never ends")
            mark = found.group()
            if mark == b'"':
                at = self._string_end(found.start())
                continue
            at = found.end()
            if mark in (b"[", b"{"):
                depth += 1
            else:
                depth -= 1
                if depth < 0:
                    return at

    def _string_end(self, at: int) -> int:
        """Where the string starting with the quote at ``at`` ends (after its closing quote).

        Found with ``bytes.find`` (tens of megabytes in milliseconds): a quote ends the
        string unless an odd run of backslashes precedes it.
        """
        data = self._data
        search = at + 1
        while True:
            quote = data.find(b'"', search)
            if quote == -1:
                raise ValueError(f"unterminated string at byte {at}")
            if data[quote - 1] != _BACKSLASH or not _starts_escape(data, quote - 1):
                return quote + 1
            search = quote + 1

    def _string(self, at: int) -> tuple[str, int]:
        end = self._string_end(at)
        budget = self.budget
        size = end - at - 2  # bytes: never fewer than the characters they decode to
        if size <= budget.left or (
            size <= KEEP_WHOLE_CHARS and budget.left - size >= -OVERDRAFT_CHARS
        ):
            text: str = json.loads(self._data[at:end])
            budget.left -= len(text)
            return text, end
        data = self._data
        wanted = max(budget.left, 0)
        pieces: list[str] = []
        kept_chars = 0
        kept_to = at + 1
        for _ in range(_CUT_STEPS):
            cut = _escape_safe_cut(data, at + 1, kept_to + wanted - kept_chars, end - 1)
            if cut <= kept_to:
                break
            piece = json.loads(b'"' + data[kept_to:cut] + b'"')
            pieces.append(piece)
            kept_chars += len(piece)
            kept_to = cut
        text = "".join(pieces)
        budget.left = 0
        budget.cut = True
        return text, end


def bounded_entity(raw: bytes, max_chars: int) -> BoundedEntity | None:
    """An entity's stored JSON text within ``max_chars`` characters of text.

    An item within the budget is parsed as usual, a bigger one by :class:`_BoundedParser`.
    """
    stored = len(raw)
    if stored <= max_chars:  # its text cannot be longer than its JSON
        value, cut = json.loads(raw), False
    else:
        parser = _BoundedParser(raw, max_chars)
        try:
            value, cut = parser.parse(), parser.budget.cut
        except (ValueError, RecursionError):
            # Not JSON this parser reads (or nested too deep): the standard one decides.
            value, cut = text_within(json.loads(raw), max_chars)
    return BoundedEntity(value, stored, cut) if isinstance(value, dict) else None
