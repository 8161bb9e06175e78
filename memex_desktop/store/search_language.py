"""The search language: what a person types into a typed query (no Qt, no SQL).

The same text means the same in the window, on the command line and in a saved view:

- ``bin worm``: items holding both words; the last word is a prefix while it is typed
- ``"bin worm"``: the words next to each other, in that order
- ``-worm``, ``-"bin worm"``: items without the word or phrase
- ``compost OR mulch``: either (``OR`` in capitals joins words, phrases, or two filters of
  one kind such as ``tag:a OR tag:b``)
- ``tag:NAME``, ``tag:"two words"``, ``#NAME``: items carrying the tag (``-tag:NAME``: not)
- ``type:NAME``: tweet, video, note, highlight, pdf, web… (:data:`TYPE_NAMES`)
- ``site:HOST``: saved from that host or one of its subdomains
- ``after:2024-03-01``, ``before:2024-04`` (a day or a month, local time): saved on or after
  the start of that day or month, or before it
- ``is:deleted``: items the server no longer has

Anything else (``title:x``, ``AND``, stray quotes and brackets) is plain words.
:func:`parse_query` returns a :class:`SearchQuery` or raises :class:`SearchLanguageError`
with words for the person (an unknown type, a date that is not one, a filter without its
value, a query with no words or filters at all: ``((``, ``😀``); nothing else. The empty
query means everything.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any, Literal

from memex_desktop.api.plain_text import shortened
from memex_desktop.store.errors import SearchLanguageError

__all__ = [
    "CONTENT_TYPES",
    "SERVER_CONTENT_TYPES",
    "SORTS",
    "TYPE_NAMES",
    "SearchLanguageError",
    "SearchQuery",
    "Sort",
    "Term",
    "content_types",
    "parse_query",
    "remote_request",
    "site_host",
    "start_of",
    "type_help",
]

# Letters and digits only, like FTS5's unicode61 tokenizer: every operator character is
# dropped, so no word can be read as FTS syntax.
_WORD = re.compile(r"[^\W_]+")
MAX_WORDS = 16
# A pasted essay is not a query: tokens past this are ignored (keeps parsing bounded).
MAX_TOKENS = 64
# What each filter needs after its colon, and an example of it.
_NEEDS: dict[str, str] = {
    "tag": "a tag name, e.g. tag:reading",
    "type": "a type, e.g. type:tweet",
    "site": "a site, e.g. site:example.com",
    "after": "a date, e.g. after:2024-03-15",
    "before": "a date, e.g. before:2024-03",
    "is": "a state: is:deleted",
}
_TOKEN = re.compile(
    r"""(?P<neg>-(?=\S))?
        (?: "(?P<phrase>[^"]*)(?P<closed>"?)
          | (?P<key>[A-Za-z]+):"(?P<quoted>[^"]*)"?
          | (?P<bare>[^\s"]+) )""",
    re.VERBOSE,
)
_OPERATORS = frozenset({"tag", "type", "site", "before", "after", "is"})
_DATE = re.compile(r"(\d{4})(?:-(\d{1,2})(?:-(\d{1,2}))?)?")

# What people call a kind of item -> the content types of the Memex API it covers.
TYPE_NAMES: dict[str, tuple[str, ...]] = {
    "web": ("web",),
    "page": ("web",),
    "webpage": ("web",),
    "article": ("web", "substack"),
    "tweet": ("twitter",),
    "twitter": ("twitter",),
    "video": ("youtube", "youtubeShorts", "tiktok", "facebook", "instagram"),
    "youtube": ("youtube", "youtubeShorts"),
    "note": ("annotation",),
    "annotation": ("annotation",),
    "highlight": ("selector",),
    "pdf": ("pdf",),
    "reddit": ("reddit",),
    "image": ("image",),
    "photo": ("image",),
    "book": ("book", "audiobook"),
    "audio": ("audioRecording", "audiobook", "transcribedMedia"),
    "chat": ("chatThread", "chatgpt", "claude"),
    "profile": ("twitterProfile", "linkedinProfile"),
    "channel": ("youtubeChannel",),
    "feed": ("rssFeed",),
}
# Every content type the API is known to use, also accepted by its own name.
CONTENT_TYPES: tuple[str, ...] = (
    "web", "pdf", "youtube", "twitter", "instagram", "tiktok", "facebook", "linkedin",
    "pinterest", "reddit", "snapchat", "chatgpt", "claude", "annotation", "image",
    "transcribedMedia", "selector", "chatThread", "twitterProfile", "subreddit",
    "youtubeChannel", "substack", "youtubeShorts", "rssFeed", "linkedinProfile",
    "audioRecording", "book", "audiobook",
)  # fmt: skip
_BY_LOWER_TYPE = {kind.lower(): kind for kind in CONTENT_TYPES}
# The types first-party code of May 2026 lists (research §9.1): a server validates
# contentTypes and refuses the whole search for a type it does not know, so the later ones
# are applied to its results locally instead of being sent.
SERVER_CONTENT_TYPES = frozenset(CONTENT_TYPES[:21])

Sort = Literal["relevance", "newest", "oldest"]
SORTS: tuple[Sort, ...] = ("relevance", "newest", "oldest")


@dataclass(frozen=True)
class Term:
    """Words that must all appear; as a phrase, next to each other in this order.

    ``prefix``: the last word is still being typed and matches the words it begins.
    """

    words: tuple[str, ...]
    phrase: bool = False
    prefix: bool = False


@dataclass(frozen=True)
class SearchQuery:
    """A parsed query: every group of ``groups`` must match (any one of its terms), no term
    of ``excluded`` may, and every filter holds."""

    text: str = ""
    groups: tuple[tuple[Term, ...], ...] = ()
    excluded: tuple[Term, ...] = ()
    # Every group needs one of its tag names; no excluded tag may be carried.
    tags: tuple[tuple[str, ...], ...] = ()
    excluded_tags: tuple[str, ...] = ()
    types: tuple[str, ...] = ()
    excluded_types: tuple[str, ...] = ()
    sites: tuple[str, ...] = ()
    excluded_sites: tuple[str, ...] = ()
    after_ms: int | None = None
    before_ms: int | None = None
    deleted: bool = False
    # The words and phrases as typed (no operators): what an exact title or URL would be.
    free_text: str = ""

    @property
    def has_text(self) -> bool:
        """Whether the query asks for words (not only filters or exclusions)."""
        return bool(self.groups)

    @property
    def has_phrases(self) -> bool:
        """Whether a phrase must be checked on the text (the index holds no positions)."""
        terms = [term for group in self.groups for term in group] + list(self.excluded)
        return any(term.phrase and len(term.words) > 1 for term in terms)

    @property
    def words(self) -> list[str]:
        """The words the results are asked to hold (to mark in snippets)."""
        return [word for group in self.groups for term in group for word in term.words]


@dataclass
class _Token:
    negated: bool
    kind: Literal["words", "phrase", "or", "filter"]
    words: tuple[str, ...] = ()
    key: str = ""
    value: str = ""
    raw: str = ""


@dataclass
class _Builder:
    groups: list[list[Term]] = field(default_factory=list)
    excluded: list[Term] = field(default_factory=list)
    tags: list[list[str]] = field(default_factory=list)
    excluded_tags: list[str] = field(default_factory=list)
    types: list[str] = field(default_factory=list)
    excluded_types: list[str] = field(default_factory=list)
    sites: list[str] = field(default_factory=list)
    excluded_sites: list[str] = field(default_factory=list)
    after_ms: int | None = None
    before_ms: int | None = None
    deleted: bool = False
    free: list[str] = field(default_factory=list)
    word_count: int = 0
    # What means nothing, in the order typed; the unknown type names are named together,
    # where the first of them stands.
    problems: list[str] = field(default_factory=list)
    unknown_types: list[str] = field(default_factory=list)
    unknown_types_at: int = 0


def typed_in_full(text: str) -> str:
    """``text`` as a query typed to its end (the command line's), whose last word is a whole
    word, not the start of the words it begins as while it is being typed."""
    return text + " " if text and not text[-1].isspace() else text


def parse_query(text: str) -> SearchQuery:
    """The query ``text`` means; :class:`SearchLanguageError` when part of it means nothing."""
    if not isinstance(text, str):
        raise SearchLanguageError("A search is text.")
    tokens = _tokens(text)
    # While the last word is typed it matches the words it begins (as before the language).
    typing = bool(text) and not text[-1].isspace() and not text.rstrip().endswith('"')
    built = _Builder()
    previous = ""  # the kind of the last token that added something
    pending_or = False
    # Every part that means nothing is named, not only the first: fixing one and meeting
    # the next was the only way to learn of it.
    problems = built.problems
    for index, token in enumerate(tokens):
        if token.kind == "or":
            pending_or = previous != ""
            continue
        kind = _kind_of(token)
        if not kind:
            continue
        joined = pending_or
        pending_or = False
        if joined and (kind != previous or kind not in _JOINABLE):
            problems.append(_or_refused(previous, kind, text))
            joined = False
        prefix = typing and index == len(tokens) - 1 and token.kind == "words"
        try:
            _add(built, token, joined, prefix)
        except SearchLanguageError as exc:
            problems.append(str(exc))
            continue
        previous = kind
    if built.unknown_types:
        problems.insert(built.unknown_types_at, unknown_types_text(built.unknown_types))
    if not problems and text.strip() and not _asks_anything(built):
        # Punctuation and symbols alone matched everything, which read as their results.
        problems.append(no_words_text(text))
    if problems:
        raise SearchLanguageError(problems_text(problems))
    return SearchQuery(
        text=text,
        groups=tuple(tuple(group) for group in built.groups),
        excluded=tuple(built.excluded),
        tags=tuple(tuple(group) for group in built.tags),
        excluded_tags=tuple(dict.fromkeys(built.excluded_tags)),
        types=tuple(dict.fromkeys(built.types)),
        excluded_types=tuple(dict.fromkeys(built.excluded_types)),
        sites=tuple(dict.fromkeys(built.sites)),
        excluded_sites=tuple(dict.fromkeys(built.excluded_sites)),
        after_ms=built.after_ms,
        before_ms=built.before_ms,
        deleted=built.deleted,
        free_text=" ".join(built.free),
    )


_JOINABLE = frozenset({"words", "tag", "type", "site"})
# Problems named in full in one message; past these, how many more there are.
NAMED_PROBLEMS = 3


def _asks_anything(built: _Builder) -> bool:
    """Whether a query asks for anything: words (or excluded ones), a filter or is:deleted."""
    return bool(
        built.groups
        or built.excluded
        or built.tags
        or built.excluded_tags
        or built.types
        or built.excluded_types
        or built.sites
        or built.excluded_sites
        or built.after_ms is not None
        or built.before_ms is not None
        or built.deleted
    )


def no_words_text(text: str) -> str:
    """Why a query of punctuation or symbols alone finds nothing, and what to type instead."""
    return (
        f"\u201c{shortened(text)}\u201d has no words to search for: type a word, or a filter "
        "such as type:tweet or tag:NAME."
    )


def missing_value_text(key: str) -> str:
    """Words naming what a filter typed without its value needs (``type:``)."""
    return f"{key}: needs {_NEEDS.get(key, 'a value')}."


def problems_text(problems: list[str]) -> str:
    """The words naming each problem of a query (the first few, and how many more)."""
    unique = list(dict.fromkeys(problems))
    named = " ".join(unique[:NAMED_PROBLEMS])
    more = len(unique) - NAMED_PROBLEMS
    if more <= 0:
        return named
    return f"{named} And {more} more {'problem' if more == 1 else 'problems'}."


def _or_refused(before: str, after: str, text: str) -> str:
    """Why OR cannot stand between terms of the kinds ``before`` and ``after``, naming them."""
    brackets = " Brackets do not group terms." if "(" in text or ")" in text else ""
    return (
        f"OR cannot join {_kind_words(before)} and {_kind_words(after)}: it joins two words "
        f"or phrases, or two filters of one kind (tag:a OR tag:b).{brackets}"
    )


def _kind_words(kind: str) -> str:
    """A term of ``kind`` (see :func:`_kind_of`) in words: "a word", "an excluded tag: filter"."""
    base = kind.removeprefix("-")
    what = "word or phrase" if base == "words" else f"{base}: filter"
    return f"an excluded {what}" if kind.startswith("-") else f"a {what}"


def _kind_of(token: _Token) -> str:
    """What a token adds ("" for nothing: no words; a filter without a value is a problem
    :func:`_add_filter` names)."""
    if token.kind in ("words", "phrase"):
        return ("-" if token.negated else "") + "words" if token.words else ""
    return ("-" if token.negated else "") + token.key


def _tokens(text: str) -> list[_Token]:
    """The tokens of ``text`` (at most MAX_TOKENS), each a word run, phrase, OR or filter."""
    found: list[_Token] = []
    for match in _TOKEN.finditer(text):
        if len(found) >= MAX_TOKENS:
            break
        negated = match.group("neg") is not None
        if match.group("phrase") is not None:
            phrase = match.group("phrase")
            found.append(_Token(negated, "phrase", _words(phrase), raw=phrase))
        elif match.group("key") is not None and match.group("key").lower() in _OPERATORS:
            key = match.group("key").lower()
            found.append(_Token(negated, "filter", key=key, value=match.group("quoted")))
        elif match.group("key") is not None:  # an unknown key with a quoted value: words
            raw = f"{match.group('key')} {match.group('quoted')}"
            found.append(_Token(negated, "words", _words(raw), raw=raw))
        else:
            found.append(_bare_token(match.group("bare"), negated))
    return found


def _bare_token(bare: str, negated: bool) -> _Token:
    """A run of non-space characters: OR, a filter (``key:value``, ``#tag``) or words."""
    if bare == "OR" and not negated:
        return _Token(False, "or")
    key, colon, value = bare.partition(":")
    if colon and key.lower() in _OPERATORS:
        return _Token(negated, "filter", key=key.lower(), value=value)
    if bare.startswith("#") and len(bare) > 1:
        return _Token(negated, "filter", key="tag", value=bare[1:])
    return _Token(negated, "words", _words(bare), raw=bare)


def _words(text: str) -> tuple[str, ...]:
    """The words of ``text``, lowercased."""
    return tuple(_WORD.findall(text.lower()))


def _add(built: _Builder, token: _Token, joined: bool, prefix: bool) -> None:
    """Add one token to the query (``joined``: to the last group, after an OR)."""
    if token.kind not in ("words", "phrase"):
        _add_filter(built, token, joined)
        return
    words = token.words[: max(0, MAX_WORDS - built.word_count)]
    if not words:
        return
    built.word_count += len(words)
    term = Term(words, phrase=token.kind == "phrase" and len(words) > 1, prefix=prefix)
    if token.negated:
        built.excluded.append(term)
        return
    built.free.append(token.raw)
    if joined and built.groups:
        built.groups[-1].append(term)
    else:
        built.groups.append([term])


def _add_filter(built: _Builder, token: _Token, joined: bool) -> None:
    """Add a ``key:value`` filter (types and sites of one query are alternatives anyway)."""
    value = token.value.strip()
    if not value or (token.key == "site" and not site_host(value)):
        raise SearchLanguageError(missing_value_text(token.key))
    if token.key == "tag":
        if token.negated:
            built.excluded_tags.append(value)
        elif joined and built.tags:
            built.tags[-1].append(value)
        else:
            built.tags.append([value])
    elif token.key == "type":
        try:
            kinds = content_types(value)
        except SearchLanguageError:
            if not built.unknown_types:
                built.unknown_types_at = len(built.problems)
            built.unknown_types.append(value)
            return
        (built.excluded_types if token.negated else built.types).extend(kinds)
    elif token.key == "site":
        (built.excluded_sites if token.negated else built.sites).append(site_host(value))
    elif token.negated:
        raise SearchLanguageError(f"-{token.key}: means nothing; leave out the minus.")
    elif token.key == "is":
        if value.lower() != "deleted":
            raise SearchLanguageError(f'"is:{shortened(value)}" is not known; is:deleted is.')
        built.deleted = True
    elif token.key == "after":
        moment = start_of(value, token.key)
        built.after_ms = moment if built.after_ms is None else max(built.after_ms, moment)
    else:
        moment = start_of(value, token.key)
        built.before_ms = moment if built.before_ms is None else min(built.before_ms, moment)


def content_types(name: str) -> tuple[str, ...]:
    """The API content types a person's type name covers (``tweet`` -> ``twitter``).

    A plural is read as its singular; an API type name stands for itself.
    """
    lowered = name.strip().lower()
    for candidate in (lowered, lowered.removesuffix("s")):
        if candidate in TYPE_NAMES:
            return TYPE_NAMES[candidate]
        if candidate in _BY_LOWER_TYPE:
            return (_BY_LOWER_TYPE[candidate],)
    raise SearchLanguageError(unknown_types_text([name]))


def unknown_types_text(names: list[str]) -> str:
    """Words naming type names that mean nothing (the first few, then how many more), and
    the names there are."""
    quoted = [f'"{shortened(name)}"' for name in dict.fromkeys(name.strip() for name in names)]
    if len(quoted) > NAMED_PROBLEMS:
        quoted = [*quoted[:NAMED_PROBLEMS], f"{len(quoted) - NAMED_PROBLEMS} more"]
    if len(quoted) == 1:
        which = f"There is no type {quoted[0]}."
    else:
        which = f"There are no types {', '.join(quoted[:-1])} or {quoted[-1]}."
    return f"{which} Types: {', '.join(TYPE_NAMES)}."


def site_host(value: str) -> str:
    """The host a ``site:`` value names: lowercased, without scheme, ``www.``, port or path."""
    host = value.strip().lower()
    host = host.split("://", 1)[1] if "://" in host else host
    host = re.split(r"[/?#:\s]", host, maxsplit=1)[0]
    return host.removeprefix("www.").strip(".")


def start_of(value: str, key: str = "after") -> int:
    """Epoch ms of the local start of the day or month ``value`` names (YYYY-MM-DD, YYYY-MM)."""
    found = _DATE.fullmatch(value.strip())
    problem = SearchLanguageError(
        f'"{key}:{shortened(value)}" is not a date: write {key}:2024-03-15 or {key}:2024-03.'
    )
    if found is None:
        raise problem
    year, month, day = (int(part) if part else 1 for part in found.groups())
    try:
        start = datetime.combine(date(year, month, day), datetime.min.time())
        return int(start.timestamp() * 1000)
    except (ValueError, OverflowError, OSError) as exc:
        raise problem from exc


def type_help() -> str:
    """The type names and what they cover, one line (for ``--help``)."""
    return ", ".join(TYPE_NAMES)


# The server's names for the date sorts (no sortBy: by relevance).
_SERVER_SORTS: dict[str, str] = {"newest": "date-desc", "oldest": "date-asc"}


def remote_request(
    query: SearchQuery,
    *,
    sort: Sort = "relevance",
    tag_ids: Callable[[str], tuple[str, ...]] = lambda _name: (),
) -> tuple[str, dict[str, Any]]:
    """The text and ``/search`` options asking the server for what it can apply of a query.

    The server OR-matches words and filters by tags, types and dates; phrases, exclusions,
    ``site:``, OR between groups of tags and ``is:deleted`` are applied to its results
    locally (:meth:`CacheReader.matching_ids`). ``tag_ids`` gives the ids the cache knows for
    a tag name; a name it does not know is sent by name (the server resolves names).
    """
    words = [" ".join(term.words) for group in query.groups for term in group]
    text = " ".join(words) or " ".join(query.sites)
    options: dict[str, Any] = {}
    if sendable := [kind for kind in query.types if kind in SERVER_CONTENT_TYPES]:
        options["content_types"] = sendable
    single = [group[0] for group in query.tags if len(group) == 1]
    either = [group for group in query.tags if len(group) > 1]
    names = either[0] if len(either) == 1 and not single else tuple(single)
    if names:
        ids = [i for name in names for i in tag_ids(name)]
        unknown = [name for name in names if not tag_ids(name)]
        if ids:
            options["tag_ids"] = ids
        # The server splits names on spaces and commas: such a name is applied locally only.
        unknown = [name for name in unknown if not re.search(r"[\s,]", name)]
        if unknown:
            options["tag"] = ",".join(unknown)
        if len(either) == 1 and not single:
            options["tag_match_strategy"] = "OR"
    time_range = {"start": query.after_ms, "end": None}
    if query.before_ms is not None:
        time_range["end"] = query.before_ms - 1
    if query.after_ms is not None or query.before_ms is not None:
        options["time_range"] = time_range
    if sort in _SERVER_SORTS:
        options["sort_by"] = _SERVER_SORTS[sort]
    return text, options
