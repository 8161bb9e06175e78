"""Whether a phrase stands in an item's stored JSON.

The search indexes hold no word positions (half the size of positional ones), so the items
whose index rows hold all of a phrase's words are only candidates: the phrase is looked for
in each candidate's JSON, lowercased. It stands there when its words follow each other, whole,
with nothing between them but what the index skips (spaces, punctuation, JSON escapes such
as the newline's ``\\n``), and not across or at the end of an object key: ``"full_text":``
is not the phrase "full text".

Most of the time goes into a candidate's text: unpacking it, lowering it and searching it.
ASCII text is lowered and searched as bytes, as it is unpacked; other text is decoded, and
looked for again without diacritics. A regular expression skips quickly to the places of the
word it starts with and tries the phrase at each: where the first word stands far more often
than the last ("shy" in "shy gryng"), the text is reversed and the phrase, reversed too, is
tried at the places of its last word instead (see :class:`PhraseFinder`).
"""

from __future__ import annotations

import re
from functools import lru_cache

from memex_desktop.store.query import fold
from memex_desktop.store.search_language import Term

# Between two words of a phrase in stored JSON: anything but letters and digits, JSON escapes
# (a newline is stored as backslash-n) included.
_JSON_GAP = r"(?:[^\w\\]|_|\\(?:[nrtbf\"/\\]|u[0-9a-f]{4}))+"
# The same, read from its end: an escape is its letter (or four hex digits and u) then the
# backslash.
_JSON_GAP_REVERSED = r"(?:[^\w\\]|_|(?:[nrtbf\"/\\]|[0-9a-f]{4}u)\\)+"
# Only ever the end of an object key in JSON (quotes within strings are escaped).
_KEY_END = '":'
_KEY_END_BYTES = b'":'
_KEY_END_REVERSED = b':"'
# Texts whose words are counted before a finder settles which end of a phrase to read from.
SAMPLED_TEXTS = 16
# Reading a phrase backwards costs a reversal of the text; reading it forwards, a try of the
# phrase at each place of its first word. Backwards pays once the first word stands more often
# than the last by one place in this many bytes. On the store benchmark's items (about 7,400
# bytes of JSON), "shy gryng" ("shy" 115 times an item, "gryng" 4) took 16.9 µs an item
# forwards and 6.4 backwards, "rai cheem" (49 and 2) 11.2 and 6.7, "sla list" (21 and 2)
# 10.0 and 9.4, "hyt potyst" (24 and 0) 8.4 and 8.7; "dan hyt" (2 and 24) 4.3 and 11.1.
BYTES_PER_PLACE_SAVED = 300


def lowered_json(text: str | bytes) -> str | bytes:
    """An item's JSON text in lower case, as a phrase is looked for in it: bytes while it is
    ASCII (no decoding needed, and bytes are searched a little faster), else text."""
    if isinstance(text, bytes):
        if text.isascii():
            return text.lower()
        text = text.decode()
    return text.lower()


def phrase_in_json(term: Term, lowered: str | bytes) -> bool:
    """Whether the phrase stands in an item's JSON lowercased by :func:`lowered_json` (or
    lowercased as text)."""
    return PhraseFinder(term.words)(lowered)


class PhraseFinder:
    """Looks for one phrase in the lowered JSON of one candidate after another.

    Which end of the phrase to read from is settled on the first :data:`SAMPLED_TEXTS`
    ASCII texts, by how often its first and last words stand in them, unless ``backwards``
    says.
    """

    def __init__(self, words: tuple[str, ...], *, backwards: bool | None = None) -> None:
        self._text_pattern = _forward_pattern(words)
        self._ascii = _ascii_patterns(words)
        self._backwards = backwards
        self._sampled = 0
        self._surplus_places = 0  # places of the first word past those of the last
        self._sampled_bytes = 0

    def __call__(self, lowered: str | bytes) -> bool:
        if isinstance(lowered, str):
            if _found_in_text(self._text_pattern, lowered):
                return True
            return not lowered.isascii() and _found_in_text(self._text_pattern, fold(lowered))
        if self._ascii is None:
            return False  # a word with letters no ASCII text holds
        forwards, backwards, first, last = self._ascii
        if self._backwards is None:
            self._sample(lowered, first, last)
        if not self._backwards:
            return _found_in_bytes(forwards, lowered)
        reversed_text = lowered[::-1]
        hit = backwards.search(reversed_text)
        if hit is None:
            return False
        if _KEY_END_REVERSED not in reversed_text[max(0, hit.start() - 2) : hit.end()]:
            return True
        # The match found reaches into a key. Read backwards, the end it was tried at may
        # have other matches; forwards, each start has one at most, and every start is tried.
        return _found_in_bytes(forwards, lowered)

    def _sample(self, lowered: bytes, first: bytes, last: bytes) -> None:
        """Count the end words in one more text; settle the direction after enough texts."""
        self._surplus_places += lowered.count(first) - lowered.count(last)
        self._sampled_bytes += len(lowered)
        self._sampled += 1
        if self._sampled >= SAMPLED_TEXTS:
            self._backwards = self._surplus_places * BYTES_PER_PLACE_SAVED > self._sampled_bytes


def _found_in_text(pattern: re.Pattern[str], lowered: str) -> bool:
    """Whether ``pattern`` matches somewhere in ``lowered`` without reaching into an object
    key (a match that does is tried again one character further on)."""
    hit = pattern.search(lowered)
    while hit is not None:
        if _KEY_END not in lowered[hit.start() : hit.end() + 2]:
            return True
        hit = pattern.search(lowered, hit.start() + 1)
    return False


def _found_in_bytes(pattern: re.Pattern[bytes], lowered: bytes) -> bool:
    """:func:`_found_in_text` for ASCII text kept as bytes."""
    hit = pattern.search(lowered)
    while hit is not None:
        if _KEY_END_BYTES not in lowered[hit.start() : hit.end() + 2]:
            return True
        hit = pattern.search(lowered, hit.start() + 1)
    return False


@lru_cache(maxsize=256)
def _forward_pattern(words: tuple[str, ...]) -> re.Pattern[str]:
    """The words next to each other, whole, in stored JSON.

    The pattern starts with the first word itself (the engine then skips ahead to where it
    occurs); whether a word begins there is checked behind it: no letter or digit before it,
    nor a backslash, unless that is an escape such as the newline's.
    """
    return re.compile(_forward_source([re.escape(fold(word)) for word in words]))


def _forward_source(words: list[str]) -> str:
    """The source of :func:`_forward_pattern` for words already folded and escaped."""
    first = words[0]
    start = f"(?:(?<![^\\W_]{first})(?<!\\\\{first})|(?<=\\\\[nrtbf]{first}))"
    return first + start + "".join(_JSON_GAP + word for word in words[1:]) + "(?![^\\W_])"


@lru_cache(maxsize=256)
def _ascii_patterns(
    words: tuple[str, ...],
) -> tuple[re.Pattern[bytes], re.Pattern[bytes], bytes, bytes] | None:
    """For ASCII text: the phrase's pattern, the pattern of the phrase reversed (for text
    reversed), and its first and last words; None when a word is not ASCII once folded (no
    ASCII text holds it).

    The reversed pattern matches exactly the reversed spans the pattern matches: each word
    and each piece of a gap reversed, and what the pattern checks before the first word and
    after the last checked after and before them.
    """
    folded = [fold(word) for word in words]
    if not all(word.isascii() for word in folded):
        return None
    forwards = re.compile(_forward_source([re.escape(word) for word in folded]).encode())
    reversed_words = [re.escape(word[::-1]) for word in reversed(folded)]
    last = reversed_words[0]
    backwards_source = (
        f"{last}(?<![^\\W_]{last})"
        + "".join(_JSON_GAP_REVERSED + word for word in reversed_words[1:])
        + "(?:(?![^\\W_])(?!\\\\)|(?=[nrtbf]\\\\))"
    )
    first_word, last_word = folded[0].encode(), folded[-1].encode()
    return forwards, re.compile(backwards_source.encode()), first_word, last_word
