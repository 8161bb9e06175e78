"""Turning a parsed query into safe FTS5 expressions and SQL filters, and matching it in texts
(items not indexed yet, snippets); phrases in stored JSON are checked in store/phrases.py."""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from memex_desktop.store.search_language import (
    SearchLanguageError,
    SearchQuery,
    Term,
    parse_query,
)

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


# The words of the index that start with a prefix, or None to let FTS5 expand it.
Expansion = Callable[[str], tuple[str, ...] | None]


def _quoted(word: str) -> str:
    return '"' + word.replace('"', '""') + '"'


def _term_expression(term: Term, min_prefix: int, expand: Expansion | None = None) -> str:
    """One term in FTS5 syntax: its words quoted (never read as syntax), all required; a
    prefix as the words ``expand`` names when it can (see store/terms.py).

    The indexes hold no positions (detail=column), so a phrase is its words here and is
    checked in Python afterwards.
    """
    quoted = [_quoted(word) for word in term.words]
    last = term.words[-1]
    if term.prefix and not term.phrase and len(last) >= min_prefix:
        words = expand(last) if expand is not None else None
        if words is None:
            quoted[-1] += "*"
        elif len(words) == 1:
            quoted[-1] = _quoted(words[0])
        elif words:
            quoted[-1] = "(" + " OR ".join(_quoted(word) for word in words) + ")"
        # else no word of the index starts so, and the word as typed matches as little.
    return quoted[0] if len(quoted) == 1 else "(" + " AND ".join(quoted) + ")"


def groups_expression(
    groups: Sequence[Sequence[Term]], min_prefix: int, expand: Expansion | None = None
) -> str | None:
    """An FTS5 MATCH expression requiring every group (any one of its terms); None if empty.

    A group asked for twice is asked for once, and a word typed as a prefix is left out
    when a word it starts is required anyway ("bia … bia" still being typed): the index
    would merge the same doclists again for nothing. A pasted title with repeated words on
    a million items: 7 instead of 17 ms in the title index, 3 instead of 78 ms in the body.
    """
    required = {
        group[0].words[0]
        for group in groups
        if len(group) == 1 and len(group[0].words) == 1 and not group[0].prefix
    }
    parts: list[str] = []
    for group in groups:
        if len(group) == 1 and _implied(group[0], required, min_prefix):
            continue
        alternatives = [_term_expression(term, min_prefix, expand) for term in group if term.words]
        if alternatives:
            joined = " OR ".join(alternatives)
            part = joined if len(alternatives) == 1 else f"({joined})"
            if part not in parts:
                parts.append(part)
    return " AND ".join(parts) if parts else None


_QUOTED_WORD = re.compile(r'"((?:[^"]|"")+)"')


def required_words(expression: str) -> list[tuple[str, ...]] | None:
    """The groups of an expression :func:`groups_expression` made of whole words only, each
    group the words one of which a row must hold; None for any other shape (a prefix left to
    FTS5, a term of several words, an exclusion)."""
    groups: list[tuple[str, ...]] = []
    for part in expression.split(" AND "):
        inner = part[1:-1] if part.startswith("(") and part.endswith(")") else part
        words = []
        for alternative in inner.split(" OR "):
            quoted = _QUOTED_WORD.fullmatch(alternative)
            if quoted is None:
                return None
            words.append(quoted.group(1).replace('""', '"'))
        groups.append(tuple(words))
    return groups


def any_word_expression(words: Sequence[str]) -> str:
    """An FTS5 expression matching rows that hold any one of ``words`` (whole words)."""
    quoted = [_quoted(word) for word in words]
    return quoted[0] if len(quoted) == 1 else "(" + " OR ".join(quoted) + ")"


def _implied(term: Term, required: set[str], min_prefix: int) -> bool:
    """Whether ``term`` is a prefix that a required whole word already satisfies."""
    if not term.prefix or term.phrase or len(term.words) != 1:
        return False
    stem = term.words[0]
    return len(stem) >= min_prefix and any(word.startswith(stem) for word in required)


def match_expression(query: str, min_prefix: int = MIN_PREFIX_CHARS) -> str | None:
    """An FTS5 MATCH expression: every word required, the last one as a prefix while typing.

    Each word is a quoted string, so nothing a person types is read as FTS syntax.
    Returns None when the query holds no words.
    """
    words = terms(query)
    if not words:
        return None
    typing = not query[-1:].isspace() and not query.rstrip().endswith('"')
    groups = [
        [Term((word,), prefix=typing and index == len(words) - 1)]
        for index, word in enumerate(words)
    ]
    return groups_expression(groups, min_prefix)


def site_terms(hosts: Sequence[str]) -> list[Term]:
    """The words of each host as terms of the body index, which holds the words of URLs."""
    return [Term(words) for host in hosts if (words := tuple(terms(host)))]


def _like_escaped(text: str) -> str:
    """``text`` for a LIKE pattern with ``ESCAPE '!'``."""
    return text.replace("!", "!!").replace("%", "!%").replace("_", "!_")


def site_condition(host: str, alias: str = "e") -> tuple[str, list[Any]]:
    """SQL true for items saved from ``host`` or a subdomain of it.

    ``site`` holds the host without ``www.``; a Reddit post's holds its subreddit, so its
    address decides.
    """
    escaped = _like_escaped(host)
    sql = (
        f"({alias}.site = ? OR {alias}.site LIKE ? ESCAPE '!' OR ({alias}.site LIKE 'r/%' AND "
        f"({alias}.url LIKE ? ESCAPE '!' OR {alias}.url LIKE ? ESCAPE '!')))"
    )
    return sql, [host, f"%.{escaped}", f"%://{escaped}/%", f"%.{escaped}/%"]


@dataclass(frozen=True)
class Filters:
    """Restrictions every read of entities honours.

    ``types`` and ``tag_ids`` come from filter menus and the sidebar; the others from the
    query's operators, each narrowing further.
    """

    types: tuple[str, ...] = ()
    tag_ids: tuple[str, ...] = ()
    date_from_ms: int | None = None
    date_to_ms: int | None = None
    include_deleted: bool = False
    query_types: tuple[str, ...] = ()
    excluded_types: tuple[str, ...] = ()
    # Every group: one of its tags (ids); a tag name the cache does not know matches nothing.
    tag_groups: tuple[tuple[str, ...], ...] = ()
    excluded_tag_ids: tuple[str, ...] = ()
    sites: tuple[str, ...] = ()
    excluded_sites: tuple[str, ...] = ()
    # An FTS5 expression of the excluded words (matched on the body index, which has them all).
    excluded_match: str | None = None
    only_deleted: bool = False

    @property
    def required_tags(self) -> tuple[tuple[str, ...], ...]:
        """Every group of tag ids an item must carry one of (the menu's tag, then the query's)."""
        return ((self.tag_ids,) if self.tag_ids else ()) + self.tag_groups

    def narrows(self) -> bool:
        """Whether anything but deleted items is left out."""
        return self != Filters(include_deleted=self.include_deleted)

    def sql(
        self, alias: str = "e", *, indexed: bool = True, tags_listed: bool | None = None
    ) -> tuple[str, list[Any]]:
        """A WHERE fragment (starting with ``AND`` when not empty) and its parameters.

        Not ``indexed``: for rows already chosen (by a search index, a title, a list), the
        type, date and deletion columns are written so that SQLite cannot use their indexes.
        Otherwise it walks every item of a type to keep those among 300 given rowids
        ("type:web shy" on 100,000 items: 5.7 ms for that step instead of 0.2 ms).

        ``tags_listed`` (by default as ``indexed``): a tag's items are listed, so that a
        statement can start from them, which suits a small tag with nothing else to start
        from. Otherwise each row is looked up in the tag index on its own. Listing a tag is
        a pass over all its items each time, which a million-item library made the cost of
        a search: 47 ms a statement for a tag of 184,000 items, where looking up the 300
        rows a search index found takes well under a millisecond.
        """
        if tags_listed is None:
            tags_listed = indexed
        column = alias if indexed else f"+{alias}"
        parts: list[str] = []
        params: list[Any] = []
        for kinds, negated in (
            (self.types, False),
            (self.query_types, False),
            (self.excluded_types, True),
        ):
            if kinds:
                marks = ",".join("?" * len(kinds))
                parts.append(f"{column}.type {'NOT IN' if negated else 'IN'} ({marks})")
                params += list(kinds)
        for group in self.required_tags:
            marks = ",".join("?" * len(group))
            if tags_listed:
                parts.append(f"{alias}.rowid IN {_TAGGED}({marks}))")
            else:
                parts.append(f"EXISTS {_TAG_OF.format(alias=alias)}({marks}))")
            params += list(group)
        if self.excluded_tag_ids:
            marks = ",".join("?" * len(self.excluded_tag_ids))
            parts.append(f"NOT EXISTS {_TAG_OF.format(alias=alias)}({marks}))")
            params += list(self.excluded_tag_ids)
        for hosts, negated in ((self.sites, False), (self.excluded_sites, True)):
            if hosts:
                conditions = [site_condition(host, alias) for host in hosts]
                joined = " OR ".join(sql for sql, _ in conditions)
                parts.append(f"{'NOT ' if negated else ''}({joined})")
                params += [param for _, values in conditions for param in values]
        if self.excluded_match is not None:
            parts.append(
                f"{alias}.rowid NOT IN (SELECT rowid FROM body_fts WHERE body_fts MATCH ?)"
            )
            params.append(self.excluded_match)
        if self.date_from_ms is not None:
            parts.append(f"{column}.created_at >= ?")
            params.append(self.date_from_ms)
        if self.date_to_ms is not None:
            parts.append(f"{column}.created_at <= ?")
            params.append(self.date_to_ms)
        if self.only_deleted:
            parts.append(f"{column}.deleted_upstream_at IS NOT NULL")
        elif not self.include_deleted:
            parts.append(f"{column}.deleted_upstream_at IS NULL")
        return "".join(f" AND {part}" for part in parts), params


_TAGGED = "(SELECT entity_rowid FROM tag_members WHERE tag_id IN "
# Whether a row carries one of the tags: a look-up in tag_members' key (tag_id, entity_rowid).
_TAG_OF = "(SELECT 1 FROM tag_members WHERE entity_rowid = {alias}.rowid AND tag_id IN "
# Stands for a tag name the cache does not know: no item carries it.
UNKNOWN_TAG = "\x00no such tag"


def make_filters(
    types: Sequence[str] = (),
    tag_id: str | None = None,
    date_from_ms: int | None = None,
    date_to_ms: int | None = None,
    include_deleted: bool = False,
    tag_groups: Sequence[Sequence[str]] = (),
) -> Filters:
    """Filters from the keyword arguments of the reader's search methods."""
    if isinstance(types, str):
        types = (types,)
    return Filters(
        types=tuple(types),
        tag_ids=(tag_id,) if tag_id else (),
        tag_groups=tuple(tuple(group) for group in tag_groups if group),
        date_from_ms=date_from_ms,
        date_to_ms=date_to_ms,
        include_deleted=include_deleted,
    )


def with_query(
    filters: Filters,
    query: SearchQuery,
    tag_ids: Callable[[str], tuple[str, ...]],
    expand: Expansion | None = None,
) -> Filters:
    """``filters`` narrowed by the query's operators; ``tag_ids`` names the ids of a tag name,
    ``expand`` the words of the body index a prefix stands for (see groups_expression).

    An excluded word still being typed is its completions, named by ``expand``: FTS5
    expanding it itself merges their doclists in an index without a prefix index ("rai
    -proas" on a million items: 36 ms for that step).
    """
    before = query.before_ms - 1 if query.before_ms is not None else None
    # One group of alternatives: any excluded word excludes the item.
    excluded_words = [term for term in query.excluded if not term.phrase]
    return replace(
        filters,
        query_types=query.types,
        excluded_types=query.excluded_types,
        # The query's tags narrow what the filters' own groups (a sidebar tag) already did.
        tag_groups=filters.tag_groups
        + tuple(
            tuple(dict.fromkeys(i for name in group for i in tag_ids(name) or (UNKNOWN_TAG,)))
            for group in query.tags
        ),
        excluded_tag_ids=tuple(i for name in query.excluded_tags for i in tag_ids(name)),
        sites=query.sites,
        excluded_sites=query.excluded_sites,
        excluded_match=groups_expression([excluded_words], MIN_BODY_PREFIX_CHARS, expand),
        date_from_ms=_later(filters.date_from_ms, query.after_ms),
        date_to_ms=_earlier(filters.date_to_ms, before),
        only_deleted=query.deleted,
        include_deleted=filters.include_deleted or query.deleted,
    )


def _later(first: int | None, second: int | None) -> int | None:
    """The later of two optional bounds."""
    return second if first is None else first if second is None else max(first, second)


def _earlier(first: int | None, second: int | None) -> int | None:
    """The earlier of two optional bounds."""
    return second if first is None else first if second is None else min(first, second)


def fold(text: str) -> str:
    """Lowercased without diacritics, as the index compares words (remove_diacritics)."""
    lowered = text.lower()
    if lowered.isascii():
        return lowered
    decomposed = unicodedata.normalize("NFKD", lowered)
    return "".join(char for char in decomposed if not unicodedata.combining(char))


def text_tokens(text: str) -> list[str]:
    """The words of a text as the index sees them (folded)."""
    return _TOKEN.findall(fold(text))


def words_in(term: Term, columns: Sequence[Sequence[str]]) -> bool:
    """Whether an item's texts, given as word lists (:func:`text_tokens`), hold the words of
    a term as its index row would: each anywhere, a last word being typed as the start of
    one. For items the index does not hold yet; a phrase's order is looked for in the stored
    JSON (store/phrases.py), as for the items it holds."""
    words = [fold(word) for word in term.words]
    present = {token for tokens in columns for token in tokens}
    *whole, last = words
    if not all(word in present for word in whole):
        return False
    if term.prefix:
        return any(token.startswith(last) for token in present)
    return last in present


def excluded_as_indexed(query: SearchQuery) -> SearchQuery:
    """``query`` with its excluded words as the index leaves them out (see :func:`with_query`):
    a word still being typed stands for its completions from MIN_BODY_PREFIX_CHARS letters,
    and shorter for itself ("-fox" typed keeps "foxes")."""
    excluded = tuple(
        replace(term, prefix=False)
        if term.prefix and not term.phrase and len(term.words[-1]) < MIN_BODY_PREFIX_CHARS
        else term
        for term in query.excluded
    )
    return replace(query, excluded=excluded)


def folded_json(text: str | bytes) -> bytes:
    """An item's stored JSON as the words of its texts are looked for in it: lowercased,
    without diacritics, with what its HTML entities stand for (an ``html`` field's text has
    them as letters), and only its ASCII characters.

    Dropping the other characters rather than folding them in Python takes microseconds
    for a long text, and an ASCII word standing in the item's texts still stands here.
    """
    if isinstance(text, bytes):
        if text.isascii() and b"&" not in text:
            return text.lower()
        text = text.decode()
    if "&" in text:
        text = f"{text}\n{html.unescape(text)}"
    return unicodedata.normalize("NFKD", text.lower()).encode("ascii", "ignore")


def may_hold(term: Term, folded: bytes) -> bool:
    """Whether an item whose :func:`folded_json` is ``folded`` may hold ``term``: every
    word of it stands there, as a word or a part of one (a word with letters outside ASCII
    is not looked for, and may stand anywhere)."""
    for word in term.words:
        needle = fold(word)
        if needle.isascii() and needle.encode() not in folded:
            return False
    return True


@dataclass(frozen=True)
class SnippetTerms:
    """What a snippet of a query marks, as its search matched the body and summary: whole
    words, the words a stem being typed begins (from :data:`MIN_BODY_PREFIX_CHARS` letters,
    as the body index is searched), and phrases (their words next to each other)."""

    whole: tuple[str, ...] = ()
    stems: tuple[str, ...] = ()
    phrases: tuple[tuple[str, ...], ...] = ()

    def __bool__(self) -> bool:
        return bool(self.whole or self.stems or self.phrases)

    @property
    def pattern(self) -> re.Pattern[str]:
        """Any one of the terms in lowercase text, a phrase before a word starting where it
        does (a phrase is marked whole, not its first word)."""
        return _terms_pattern(self, folding=False)

    @property
    def any_case(self) -> re.Pattern[str]:
        """:attr:`pattern` for text of any case (slower: for text whose lowercase is longer)."""
        return _terms_pattern(self, folding=True)

    @property
    def needles(self) -> tuple[tuple[str, re.Pattern[str] | bool], ...]:
        """What :func:`first_match` looks for: each phrase's first word with the phrase's
        pattern, then each stem (True) and whole word (False)."""
        return _needles(self)


# A word starts after anything but a letter or digit, and a whole word ends before one.
_WHOLE_END = r"(?![^\W_])"
# Between two words of a phrase: anything but letters and digits, as the tokenizer splits.
_GAP = r"[\W_]+"


def _starting(word: str) -> str:
    """``word`` where a word starts, the word first: the engine then skips to where it
    stands instead of trying a look-behind at every position (four to ten times faster on a
    snippet's window)."""
    escaped = re.escape(word)
    return f"{escaped}(?<![^\\W_]{escaped})"


@lru_cache(maxsize=64)
def _terms_pattern(terms: SnippetTerms, *, folding: bool) -> re.Pattern[str]:
    alternatives = [_phrase_in_text(words) for words in terms.phrases]
    alternatives += [_starting(word) + r"[^\W_]*" for word in terms.stems]
    alternatives += [_starting(word) + _WHOLE_END for word in terms.whole]
    return re.compile("|".join(alternatives or ["(?!)"]), re.IGNORECASE if folding else 0)


def _phrase_in_text(words: tuple[str, ...]) -> str:
    return _starting(words[0]) + "".join(_GAP + re.escape(word) for word in words[1:]) + _WHOLE_END


@lru_cache(maxsize=64)
def _needles(terms: SnippetTerms) -> tuple[tuple[str, re.Pattern[str] | bool], ...]:
    phrases = [(words[0], re.compile(_phrase_in_text(words))) for words in terms.phrases]
    return (
        *phrases,
        *((stem, True) for stem in terms.stems),
        *((word, False) for word in terms.whole),
    )


@lru_cache(maxsize=64)
def snippet_terms(query: str) -> SnippetTerms:
    """The terms a snippet of ``query`` marks (none for a query of filters only).

    A word typed in full matches that word only (the index does not stem): "fox" leaves
    "foxes" plain. The word being typed matches the words it begins once the body is
    searched by prefix; a shorter stem is matched whole there, and so marked whole.
    """
    try:
        parsed = parse_query(query)
    except SearchLanguageError:
        return SnippetTerms(whole=tuple(dict.fromkeys(terms(query))))
    whole: dict[str, None] = {}
    stems: dict[str, None] = {}
    phrases: dict[tuple[str, ...], None] = {}
    for term in (term for group in parsed.groups for term in group):
        if term.phrase:
            phrases[term.words] = None
            continue
        *rest, last = term.words
        whole.update(dict.fromkeys(rest))
        if term.prefix and len(last) >= MIN_BODY_PREFIX_CHARS:
            stems[last] = None
        else:
            whole[last] = None
    stem_words = tuple(stems)
    # A whole word a stem begins is marked as the stem marks it.
    return SnippetTerms(
        whole=tuple(word for word in whole if not word.startswith(stem_words)),
        stems=stem_words,
        phrases=tuple(phrases),
    )


def first_match(text: str, terms: SnippetTerms) -> tuple[int, int] | None:
    """Start and end of the first match of ``terms`` in ``text`` (a phrase before a word
    starting where it does).

    str.find on the lowercased text, each hit checked where it stands: many times faster
    than a case-insensitive regular expression with a look-behind at every position of a
    long article.
    """
    lowered = text.lower()
    if len(lowered) != len(text):  # a character whose lowercase is longer: offsets move
        found = terms.any_case.search(text)
        return found.span() if found is not None else None
    best: tuple[int, int] | None = None
    for needle, rest in terms.needles:
        if isinstance(rest, re.Pattern):
            phrase = rest.search(lowered)
            if phrase is not None and (best is None or phrase.start() < best[0]):
                best = phrase.span()
            continue
        position = lowered.find(needle)
        while position >= 0 and (best is None or position < best[0]):
            if position == 0 or not lowered[position - 1].isalnum():
                end = _word_end(lowered, position, needle, stem=rest)
                if end is not None:
                    best = (position, end)
                    break
            position = lowered.find(needle, position + 1)
    return best


def _word_end(lowered: str, at: int, needle: str, *, stem: bool) -> int | None:
    """Where the word starting at ``at`` with ``needle`` ends (a stem's: the word it begins);
    None where a whole word is only the start of a longer one."""
    end = at + len(needle)
    if stem:
        while end < len(lowered) and lowered[end].isalnum():
            end += 1
        return end
    return end if end == len(lowered) or not lowered[end].isalnum() else None


# Past the end of a snippet's window, how far a match starting within it is looked for to
# its end (a longer one is left unmarked).
_MATCH_REACH = 200


def text_and_first_match(
    parts: Iterable[str], terms: SnippetTerms, after: int
) -> tuple[str, tuple[int, int] | None]:
    """The parts joined by newlines, as far as ``after`` characters past the first match of
    ``terms`` and the reach of a match starting there (all of them when none matches): what
    a snippet of the whole text around that match needs, without computing the parts after
    it. And where in it that match stands when the parts before it left no doubt (None:
    :func:`python_snippet` looks for it again)."""
    taken: list[str] = []
    length = 0  # of "\n".join(taken)
    found: tuple[int, int] | None = None
    certain = True  # no part before the match lowercases to another length
    for part in parts:
        if not part:
            continue
        start = length + 1 if taken else 0
        taken.append(part)
        length = start + len(part)
        if found is None:
            if len(part.lower()) != len(part):
                certain = False
            span = first_match(part, terms)
            if span is not None:
                found = (start + span[0], start + span[1])
        if found is not None and length > found[1] + after + _MATCH_REACH:
            break
    return "\n".join(taken), found if certain else None


def python_snippet(
    text: str,
    terms: SnippetTerms,
    width: int = 160,
    *,
    span: tuple[int, int] | None = None,
) -> str:
    """A window of ``text`` starting shortly before the first match of ``terms``, every match
    in it marked with ``\x02``..``\x03`` (whole words, a phrase as one); the start of the
    text, unmarked, when nothing matches. ``span`` is where the first match stands when the
    caller found it already."""
    if not terms:
        return text[:width]
    if span is None:
        span = first_match(text, terms)
    if span is None:
        return text[:width]
    start, end = span
    left = max(0, start - width // 3)
    while left > 0 and not text[left - 1].isspace() and start - left < width // 2:
        left -= 1
    right = min(len(text), max(end, left + width))
    # The window and what a match starting in it may reach, with the character before it
    # (whether a word starts at its edge).
    before = max(0, left - 1)
    limit = min(len(text), right + _MATCH_REACH)
    piece = text[before:limit]
    lowered = piece.lower()
    pattern = terms.pattern
    if len(lowered) != len(piece):
        lowered, pattern = piece, terms.any_case
    pieces: list[str] = ["…" if left else ""]
    at = left
    for found in pattern.finditer(lowered, left - before):
        hit_start, hit_end = before + found.start(), before + found.end()
        # A match reaching the end of the piece where the text goes on may end further.
        if hit_start >= right or (hit_end == limit < len(text)):
            break
        pieces += [text[at:hit_start], "\x02", text[hit_start:hit_end], "\x03"]
        at = hit_end
        right = max(right, at)
    pieces += [text[at:right], "…" if right < len(text) else ""]
    return "".join(pieces)


def indexable(query: SearchQuery, can_look_up: Callable[[str], bool]) -> SearchQuery | None:
    """The query without the terms holding a word the index cannot look up (one SQLite's
    older Unicode tables split in two); None when a group keeps no term: nothing matches."""

    def fine(term: Term) -> bool:
        return all(word.isascii() or can_look_up(word) for word in term.words)

    groups = tuple(tuple(term for term in group if fine(term)) for group in query.groups)
    if not all(groups):
        return None
    excluded = tuple(term for term in query.excluded if fine(term))
    return replace(query, groups=groups, excluded=excluded)
