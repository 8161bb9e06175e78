"""Bounded reads of cache.db on a read-only connection owned by the calling thread."""

from __future__ import annotations

import heapq
import itertools
import json
import math
import re
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson
from sqlite_utils import Database

from memex_desktop.api.content import epoch_ms
from memex_desktop.api.models import ContentEntityBase, parse_content_entity
from memex_desktop.api.plain_text import SNIPPET_WINDOW, plain_text, with_cited_titles
from memex_desktop.store import terms
from memex_desktop.store.bounded import BoundedEntity, bounded_entity
from memex_desktop.store.errors import StoreBugError, StoreError, translate
from memex_desktop.store.extract import body_parts, body_text, columns, summary_text
from memex_desktop.store.neighbourhood import DEFAULT_MAX_NODES, Edge, bounded_neighbourhood
from memex_desktop.store.packing import JsonCodec, codec_of, decoded
from memex_desktop.store.phrases import PhraseFinder, lowered_json
from memex_desktop.store.query import (
    MIN_BODY_PREFIX_CHARS,
    MIN_TITLE_PREFIX_CHARS,
    Filters,
    SnippetTerms,
    any_word_expression,
    excluded_as_indexed,
    folded_json,
    groups_expression,
    indexable,
    make_filters,
    may_hold,
    python_snippet,
    required_words,
    site_terms,
    snippet_terms,
    text_and_first_match,
    text_tokens,
    with_query,
    words_in,
)
from memex_desktop.store.rows import (
    Backlink,
    CacheStats,
    EntityRow,
    FeedListing,
    FeedRow,
    GraphNode,
    Neighbourhood,
    SearchHit,
    TagRow,
    ThreadNode,
    ViewRow,
)
from memex_desktop.store.schema import (
    KEY_STEP,
    SCHEMA_VERSION,
    check_not_too_new,
    connect,
    open_cache,
    wrapped,
)
from memex_desktop.store.search_language import SearchQuery, Sort, Term, parse_query
from memex_desktop.store.sql import IN_LIST, chunks, in_ids
from memex_desktop.store.state_keys import STATE_LAST_SYNC_MS
from memex_desktop.store.urls import normalize_url

_ROW_COLUMNS = (
    "e.id, e.type, e.title, e.url, e.author, e.site, e.created_at, e.updated_at, e.status, "
    "e.deleted_upstream_at, e.snippet_source"
)
# Up to this many of an index's newest matches of one word (or of titles) are read at once:
# a query matching no more is known whole (titles holding several words are then ranked
# shortest first); the matches of one matching more are read newest first only as far as
# the hits asked for.
RANK_PROBE_LIMIT = 300
# Rows not indexed yet (a sync's latest pages, a backlog a crash or a new index left) are
# read newest first, this many at a time, until enough hold the words: every one of them
# when few do (about half a second for a backlog of 100,000 generated items).
BACKLOG_BATCH_ROWS = 500
# A phrase is checked on each candidate's text (the indexes hold no word positions): the
# candidates are read in rounds, this many times more each round, until the page asked for
# holds the phrase or no candidate is left (a page of 50 reads 200 candidates first).
PHRASE_ROUND_GROWTH = 4
_VERIFY_BATCH = 200
# Up to this many items, a tag's (or type's) items are looked up in the index a batch at a
# time: on 100,000 items, "tag:<51 items> shy" took 1.2 ms this way against 145 ms reading
# the doclist of "shy" for them, and at 130 members 6 ms against 60 ms; at 18,000 members
# the doclist (12 ms) wins over the lookups (750 ms), about 0.03 ms per member and word.
FEW_ROWS_LIMIT = 400
# Reading a word's doclist costs more as the library grows, the lookups do not; so more items
# are looked up one by one in a larger library: FEW_ROWS_LIMIT up to 100,000 items, growing
# with the square root of the size beyond (1,264 at a million). On a million items the tag
# queries of the store benchmark took 234 ms of CPU instead of 427, "tag:<1,100 items> tio"
# 17 ms instead of 152-165; at 20,000 items nothing changes.
_FEW_ROWS_AT = 100_000
# How long the library's size, which sets that limit, is taken as known (it moves slowly,
# and counting a million rows takes a while).
LIBRARY_COUNT_TTL_S = 600.0
_library_counts: dict[Path, tuple[float, int]] = {}
_CANDIDATE_BATCH = 100
# Rows to check spread wider than this many items apart on average are looked up one by one:
# looking a row up costs about as much as reading 20 rows of a doclist (0.025 ms against
# 0.9 µs a row, see _rowids_looked_up).
_SPARSE_RANGE = 20
# Rows of a doclist read, per row asked, before spread rows are looked up one by one: a rare
# word is answered in that one read, a common one costs about a quarter more than the look-ups
# alone (5 rows read against the 20 a look-up costs).
_RARE_WORD_ROWS = 5
# Words joined by AND from which the search index is read forwards first (_newest_rowids),
# or rarest first (_body_rows_rarest_first).
_MANY_WORDS = 4
# Newest rows read of each word to tell how rare it is; and one look-up of a word in a row
# allowed per this many items of the library: on a million items 1,000 look-ups (about
# 0.011 ms each, "dyn" in 119 rows took 1.3 ms) cost less than reading a pasted title's
# many words at once (25 to 45 ms).
RARITY_PROBE_ROWS = 100
ITEMS_PER_RAREST_FIRST_LOOKUP = 1_000
_LOOKUPS_KEPT = 10_000
# A minimum prefix length no word reaches: every word matched whole.
_NO_PREFIX = 1 << 30
# The largest and smallest rowids SQLite allows (recency keys stay far from both): where a
# read of rowids downwards or upwards starts.
_HIGHEST_ROWID = (1 << 63) - 1
_LOWEST_ROWID = -(1 << 63)
MAX_THREAD_NODES = 5000
MAX_BACKLINKS = 1000
# Referenced items whose titles are read for each row (a note names a few).
MAX_REFERENCED_TITLES = 100
# SQLite virtual-machine steps between two checks of an interruptible read's stop condition:
# tens of microseconds of work, so a stop takes effect at once and the checks cost little.
INTERRUPT_CHECK_STEPS = 2000


class QueryInterrupted(StoreError):
    """A read was stopped by its caller (superseded by a newer search, or over its budget)."""


def _row(values: Sequence[Any], titles: Mapping[str, str] | None = None) -> EntityRow:
    """A display row; ``titles``: the titles of the items it references (see plain_text)."""
    return EntityRow(
        id=values[0],
        type=values[1],
        title=plain_text(values[2] or "", titles),
        url=values[3],
        author=values[4],
        site=values[5],
        created_at=values[6],
        updated_at=values[7],
        status=values[8],
        deleted_upstream_at=values[9],
        snippet_source=plain_text(values[10] or "", titles),
    )


def _has_prefix(expression: str) -> bool:
    """Whether an index query holds a prefix term (``"word"*``)."""
    return '"*' in expression


class CacheReader:
    """Reads for the thread that creates it (GUI or worker); every query is bounded."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._lookups: dict[str, bool] = {}
        self._closed = False
        check_not_too_new(self.path, SCHEMA_VERSION)
        if not self.path.exists() or self.path.stat().st_size == 0:
            open_cache(self.path).close()
        try:
            self.db = self._connect()
            version = int(self.db.execute("PRAGMA user_version").fetchone()[0])
        except sqlite3.Error as exc:
            raise translate(exc, f"opening {self.path}", file=self.path) from exc
        if version < SCHEMA_VERSION:
            self.db.close()
            open_cache(self.path).close()
            self.db = self._connect()

    def _connect(self) -> Database:
        """A read-only connection that reads the file through SQLite's own small cache.

        Not through a memory map: mapped, every page read counted in the process's resident
        memory, and the kernel maps the 64 KB around each page it faults in, so the window's
        first listing and counts on 100,000 items showed as 158 MB of the cache file (314 MB
        in all against 159 MB unmapped), and up to the map's 2 GB at a million. The map saved
        about a tenth of a search's CPU (p50 3.3-3.6 against 3.7-4.1 ms on that cache).
        """
        return wrapped(connect(self.path, read_only=True))

    @property
    def _codec(self) -> JsonCodec:
        return codec_of(self.db)

    @contextmanager
    def interrupted_when(self, stop: Callable[[], bool]) -> Iterator[None]:
        """Reads inside the block end with QueryInterrupted as soon as ``stop()`` is true.

        SQLite asks ``stop`` every INTERRUPT_CHECK_STEPS steps of a running statement, so a
        search a newer keystroke superseded, or a read on the GUI thread that runs over its
        time budget, gives way within microseconds instead of finishing first.
        """
        fired = False

        def handler() -> int:
            nonlocal fired
            fired = fired or stop()
            return 1 if fired else 0

        connection = self.db.conn
        connection.set_progress_handler(handler, INTERRUPT_CHECK_STEPS)
        try:
            yield
        except (sqlite3.Error, StoreError) as exc:
            if fired:
                raise QueryInterrupted(f"reading {self.path.name}: stopped") from exc
            raise
        finally:
            connection.set_progress_handler(None, 0)
        if fired:  # a statement was stopped and its error swallowed: the result is partial
            raise QueryInterrupted(f"reading {self.path.name}: stopped")

    def _query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """Run one read, turning environment failures into KnownStoreError."""
        try:
            return list(self.db.execute(sql, list(params)).fetchall())
        except sqlite3.Error as exc:
            raise translate(exc, f"reading {self.path.name}", file=self.path) from exc

    # ------------------------------------------------------------------ search

    def search(
        self,
        query: str,
        *,
        types: Sequence[str] = (),
        tag_id: str | None = None,
        tag_groups: Sequence[Sequence[str]] = (),
        date_from_ms: int | None = None,
        date_to_ms: int | None = None,
        include_deleted: bool = False,
        sort: Sort = "relevance",
        limit: int = 50,
        offset: int = 0,
    ) -> list[SearchHit]:
        """Local search in the search language, best first (an exact URL or title first of
        all) or by date with ``sort``.

        An empty query lists the newest items. Snippets mark matches with \\x02..\\x03.
        ``tag_id``, each group of ``tag_groups`` and each tag of the query narrow together:
        an item carries the tag and one tag of every group.
        Raises SearchLanguageError for a query that means nothing (an unknown type).
        """
        filters = make_filters(types, tag_id, date_from_ms, date_to_ms, include_deleted, tag_groups)
        ids = self._ranked_ids(query, filters, offset + limit, sort)[offset : offset + limit]
        return self.hits(query, ids)

    def hits(self, query: str, ids: Sequence[str]) -> list[SearchHit]:
        """The results of ``query`` for these ids, in their order: display columns and the
        snippets of its words (ids not cached are left out)."""
        if not ids:
            return []
        # Only the columns a hit shows, and the start of the text only where no snippet was
        # cut: the display rows of 50 hits were 16 % of a search. The stored JSON snippets
        # are cut from comes in the same statement (20,000 items, 200 plain queries: rows
        # and snippets 2.36 ms of CPU a query instead of 2.56, median of seven runs).
        marked = snippet_terms(query)
        raw_column, raw_join = (
            (", r.raw", " LEFT JOIN entity_raw r ON r.rowid = e.rowid") if marked else ("", "")
        )
        read = self._query(
            "SELECT e.id, e.type, e.title, e.url, e.created_at, e.snippet_source"
            f"{raw_column} FROM entities e{raw_join} WHERE e.id IN {IN_LIST}",
            [in_ids(ids)],
        )
        rows = {values[0]: values[1:6] for values in read}
        snippets = (
            self._snippets_of(marked, ((row[0], row[6]) for row in read if row[6] is not None))
            if marked
            else {}
        )
        referenced = self._referenced_titles(
            entity_id
            for entity_id, row in rows.items()
            if "[" in f"{row[1]}{'' if entity_id in snippets else row[4]}"
        )
        hits = []
        for entity_id in ids:
            if entity_id not in rows:
                continue
            kind, title, url, created_at, text_start = rows[entity_id]
            titles = referenced.get(entity_id)
            hits.append(
                SearchHit(
                    id=entity_id,
                    type=kind,
                    title=plain_text(title or "", titles),
                    url=url,
                    snippet=snippets.get(entity_id) or plain_text(text_start or "", titles),
                    created_at=created_at,
                )
            )
        return hits

    def search_ids(
        self,
        query: str,
        *,
        types: Sequence[str] = (),
        tag_id: str | None = None,
        tag_groups: Sequence[Sequence[str]] = (),
        date_from_ms: int | None = None,
        date_to_ms: int | None = None,
        include_deleted: bool = False,
        sort: Sort = "relevance",
        limit: int = 100_000,
    ) -> list[str]:
        """The ids :meth:`search` would return, in order, without rows or snippets."""
        filters = make_filters(types, tag_id, date_from_ms, date_to_ms, include_deleted, tag_groups)
        return self._ranked_ids(query, filters, limit, sort)

    def filtered_ids(
        self,
        ids: Sequence[str],
        *,
        types: Sequence[str] = (),
        tag_id: str | None = None,
        tag_groups: Sequence[Sequence[str]] = (),
        date_from_ms: int | None = None,
        date_to_ms: int | None = None,
        include_deleted: bool = True,
    ) -> list[str]:
        """Those of ``ids`` (in their order, once each) that the filters keep: a list of its
        own (a saved view, a feed) narrowed by the filter menus. Deleted items are kept
        unless ``include_deleted`` is False (the list chose them)."""
        filters = make_filters(types, tag_id, date_from_ms, date_to_ms, include_deleted, tag_groups)
        unique = list(dict.fromkeys(ids))
        if not filters.narrows() and include_deleted:
            return unique
        return self._kept(unique, *filters.sql(indexed=False))

    def _kept(self, ids: list[str], where: str, params: list[Any]) -> list[str]:
        """Those of ``ids`` (no repeats; in their order) whose items the WHERE fragment of
        :meth:`Filters.sql` keeps."""
        kept: set[str] = set()
        for chunk in chunks(ids):
            kept.update(
                row[0]
                for row in self._query(
                    f"SELECT e.id FROM entities e WHERE e.id IN {IN_LIST}{where}",
                    [in_ids(chunk), *params],
                )
            )
        return [entity_id for entity_id in ids if entity_id in kept]

    def matching_ids(self, query: str, ids: Sequence[str]) -> list[str]:
        """Those of ``ids`` (in their order) that keep to what a server cannot apply of the
        query: its filters, phrases and exclusions. Its words the server matches its own way
        (a remote result need not hold every one)."""
        parsed = indexable(parse_query(query), self._can_look_up)
        if parsed is None:
            return []
        filters = with_query(Filters(), parsed, self.tag_ids_named, self._body_words_starting)
        found = self._kept(list(dict.fromkeys(ids)), *filters.sql(indexed=False))
        phrases = tuple(group for group in parsed.groups if all(term.phrase for term in group))
        local = replace(parsed, groups=phrases)
        if local.groups or local.excluded:  # results just cached may not be indexed yet
            found = self._verified(local, found, len(found), check_words=True)
        return found

    def search_among(self, query: str, ids: Sequence[str]) -> list[str]:
        """Those of ``ids`` (in their order, once each) that a search of ``query`` finds,
        deleted items included: a list of its own (a saved view, a feed, the server's results
        of a view) narrowed by the search typed in it, read among its items alone.

        The same items as keeping those of ``ids`` that :meth:`search_ids` lists (with
        ``include_deleted``), found as a search finds its candidates but only among these:
        an exact title or address, the title and body indexes (the texts of rows not
        indexed yet), the query's operators, then its phrases and exclusions checked on the
        texts. Not bounded by a search's limit, nor by the newest title matches a search
        with operators ranks first. The store benchmark's queries at 100,000 items (median):
        a phrase among 300 items 18 ms, among 2,000 91 ms, among 20,000 0.57 s, where
        searching the library took 2.7 to 2.8 s; plain words 6, 13 and 60 ms, against 10 to
        15 ms (at 20,000 most of it is finding the ids' rows).
        Raises SearchLanguageError for a query that means nothing (an unknown type).
        """
        unique = list(dict.fromkeys(ids))
        parsed = indexable(parse_query(query), self._can_look_up)
        if parsed is None or not unique:
            return []
        filters = with_query(
            Filters(include_deleted=True), parsed, self.tag_ids_named, self._body_words_starting
        )
        excluded = filters.excluded_match
        # The excluded words are read for these rows alone, not listed for the whole library.
        where, params = replace(filters, excluded_match=None).sql(indexed=False)
        # In the order of the id index: 20,000 ids looked up in 26 ms instead of 38.
        rowids = {
            int(row[0]): row[1]
            for row in self._query(
                f"SELECT e.rowid, e.id FROM entities e WHERE e.id IN {IN_LIST}{where}",
                [in_ids(sorted(unique)), *params],
            )
        }
        listed = sorted(rowids)
        dropped = set(self._rows_among("body_fts", excluded, listed) or ()) if excluded else set()
        kept = [rowid for rowid in listed if rowid not in dropped]
        found = self._found_among(parsed, excluded, rowids, kept, (where, params))
        ordered = [rowids[rowid] for rowid in listed if rowid in found]
        if parsed.has_phrases or self._excludes_unindexed(parsed):
            held = set(self._verified(parsed, ordered, len(ordered)))
        else:
            held = set(ordered)
        return [entity_id for entity_id in unique if entity_id in held]

    def _found_among(
        self,
        parsed: SearchQuery,
        excluded: str | None,
        listed: dict[int, str],
        kept: list[int],
        filtered: tuple[str, list[Any]],
    ) -> set[int]:
        """The rowids :meth:`search_among` finds before phrases and exclusions are checked on
        the texts, as :meth:`_candidate_ids` finds a search's: ``listed`` (rowid -> id) pass
        the filters, ``kept`` of them hold none of the ``excluded`` words (``filtered``: the
        filters' SQL).

        By relevance, as a list's search is asked: the exact titles and addresses, the
        title index and the body index, and the rows not indexed yet; without words the
        items the filters keep, and with only a site the body index and the backlog.
        """
        body_groups = [*parsed.groups, *([term] for term in site_terms(parsed.sites))]
        body_expression = groups_expression(
            body_groups, MIN_BODY_PREFIX_CHARS, self._body_words_starting
        )
        if body_expression is None:
            return set(kept)
        body = self._rows_among("body_fts", body_expression, kept)
        if not parsed.groups:  # a site alone: read by date (_dated_ids)
            return set() if body is None else {*body, *self._backlog_among(parsed, sorted(listed))}
        where, params = filtered
        exact = self._exact_ids(
            parsed, f"{where} AND e.rowid IN {IN_LIST}", [*params, in_ids(kept)], len(kept)
        )
        by_id = {entity_id: rowid for rowid, entity_id in listed.items()}
        found = {by_id[entity_id] for entity_id in exact}
        title_expression = groups_expression(parsed.groups, MIN_TITLE_PREFIX_CHARS)
        if title_expression is None:
            return found
        titles = self._rows_among("title_fts", title_expression, kept)
        columns = self._title_expression(parsed, MIN_BODY_PREFIX_CHARS, excluded, "body_fts")
        if titles is None and excluded is not None and columns is not None:
            # The title index refused the words: the body index's title and author columns
            # answer, as _title_step has them answer.
            titles = self._rows_among("body_fts", columns, kept)
        found.update(titles or ())
        found.update(body or ())
        found.update(self._backlog_among(parsed, sorted(listed)))
        return found

    def _rows_among(self, table: str, expression: str, rowids: Sequence[int]) -> list[int] | None:
        """Those of ``rowids`` (ascending) whose text ``expression`` matches, or None for an
        expression the index cannot match (see :func:`_phrase_refused`).

        Many rows (a twentieth of the library or more): the matches over their range, read
        in one step as a JSON array, about 0.15 µs a match. A common word among 20,000 items
        of 100,000: 16 ms, against 48 ms read row by row and 165 ms looked up. Fewer rows
        are read as :meth:`_matching_among` reads them (a look-up costs about 8 µs).
        """
        if not rowids:
            return []
        low, high = rowids[0], rowids[-1]
        try:
            if len(rowids) * _SPARSE_RANGE < self._library_size():
                return self._matching_among(table, expression, rowids)
            (found,) = self._query(
                f"SELECT json_group_array(rowid) FROM {table} WHERE {table} MATCH ? "
                "AND rowid BETWEEN ? AND ?",
                [expression, low, high],
            )[0]
        except StoreBugError as exc:
            if _phrase_refused(exc):
                return None
            raise
        wanted = set(rowids)
        return [rowid for rowid in orjson.loads(found) if rowid in wanted]

    def _backlog_among(self, parsed: SearchQuery, rowids: Sequence[int]) -> set[int]:
        """Those of ``rowids`` not indexed yet whose texts hold a word of every group, as
        :meth:`_backlog_rows` reads the backlog's."""
        words = _backlog_words(parsed)
        if words is None or not rowids or not self._has_backlog():
            return set()
        codec = self._codec
        held: set[int] = set()
        for start in range(0, len(rowids), BACKLOG_BATCH_ROWS):
            batch = self._query(
                "SELECT p.rowid, r.raw FROM fts_pending p JOIN entity_raw r ON r.rowid = p.rowid "
                f"WHERE p.rowid IN {IN_LIST}",
                [in_ids(rowids[start : start + BACKLOG_BATCH_ROWS])],
            )
            held |= _unindexed_matching(words, {row[0]: codec.text(row[1]) for row in batch}, {})
        return held

    def _can_look_up(self, word: str) -> bool:
        """Whether the index can look ``word`` up: SQLite's tokenizer, whose Unicode tables
        are older than Python's, may split it in two, and a column-detail index cannot match
        the phrase that makes (asked once per word)."""
        known = self._lookups.get(word)
        if known is None:
            try:
                self._query(
                    "SELECT 1 FROM title_fts WHERE title_fts MATCH ? LIMIT 1", [f'"{word}"']
                )
                known = True
            except StoreBugError as exc:
                if "phrase" not in str(exc.__cause__):
                    raise
                known = False
            if len(self._lookups) < _LOOKUPS_KEPT:
                self._lookups[word] = known
        return known

    def _body_words_starting(self, prefix: str) -> tuple[str, ...] | None:
        """The body index's words that start with ``prefix``, or None to let FTS5 expand
        it (see store/terms.py)."""
        try:
            return terms.words_starting(self.db.conn, prefix)
        except sqlite3.Error as exc:
            raise translate(exc, f"reading {self.path.name}", file=self.path) from exc

    def tag_ids_named(self, name: str) -> tuple[str, ...]:
        """Ids of the tags called ``name`` (any case), or with that id."""
        return tuple(
            row[0]
            for row in self._query(
                "SELECT id FROM tags WHERE name = ? COLLATE NOCASE OR id = ? LIMIT 100",
                [name, name],
            )
        )

    def _ranked_ids(
        self, query: str, filters: Filters, needed: int, sort: Sort = "relevance"
    ) -> list[str]:
        """The ids of a query: by relevance (exact URL/title, title hits, body hits, the
        backlog) or by date; phrases are checked on the candidates' text, and exclusions on
        the text of candidates the index does not hold yet."""
        if needed <= 0:
            return []
        parsed = indexable(parse_query(query), self._can_look_up)
        if parsed is None:
            return []
        filters = with_query(filters, parsed, self.tag_ids_named, self._body_words_starting)
        # The index leaves out the items holding an excluded word only among those it holds:
        # one not indexed yet (listed by the filters, found by its title or address, or in
        # the backlog) is checked for the excluded words in its texts.
        excluding = self._excludes_unindexed(parsed)
        if not parsed.has_phrases and not excluding:
            return self._candidate_ids(parsed, filters, needed, sort)
        # A phrase is checked on the text of each candidate: read more of them than needed,
        # and more again while too few of them hold it and more are left. A candidate is
        # checked once: a round reads the candidates of the rounds before it again, in the
        # same order or nearly, and checking them again made a round up to twice as long.
        # Without phrases most candidates pass (all those the index holds).
        wanted = needed * 2 + 100 if parsed.has_phrases else needed
        verdicts: dict[str, bool] = {}
        while True:
            found = self._candidate_ids(parsed, filters, wanted, sort)
            kept = self._verified(parsed, found, needed, verdicts=verdicts)
            if len(kept) >= needed or len(found) < wanted:
                return kept
            wanted *= PHRASE_ROUND_GROWTH

    def _candidate_ids(
        self, parsed: SearchQuery, filters: Filters, wanted: int, sort: Sort
    ) -> list[str]:
        """The first ``wanted`` ids holding the query's words (by relevance or date), its
        phrases not checked yet."""
        body_groups = [*parsed.groups, *([term] for term in site_terms(parsed.sites))]
        body_expression = groups_expression(
            body_groups, MIN_BODY_PREFIX_CHARS, self._body_words_starting
        )
        if body_expression is None:
            return self._newest_ids(filters, wanted, oldest=sort == "oldest")
        # Excluded words go into the index's own query (NOT, a merge of doclists) rather
        # than a NOT IN list of every item holding them, built again for each statement.
        excluded = filters.excluded_match
        matching = Matching(
            parsed,
            *filters.sql(indexed=False),
            *replace(filters, excluded_match=None).sql(indexed=False),
            candidates=self._few_rowids(replace(filters, excluded_match=None)),
        )
        if excluded is not None:
            body_expression = f"({body_expression}) NOT ({excluded})"
        if sort != "relevance" or not parsed.groups:
            order: Sort = "newest" if sort == "relevance" else sort
            found = self._dated_ids(matching, body_expression, wanted, order)
        else:
            found = self._relevant_ids(
                matching, body_expression, excluded, wanted, narrowed=filters.narrows()
            )
        return found[:wanted]

    def _relevant_ids(
        self,
        matching: Matching,
        body_expression: str,
        excluded: str | None,
        needed: int,
        *,
        narrowed: bool = False,
    ) -> list[str]:
        """Exact URL/title matches, then title hits, then body hits, then the backlog."""
        parsed = matching.query
        ordered: dict[str, None] = dict.fromkeys(
            self._exact_ids(parsed, matching.where, matching.params, needed)
        )
        where, params = matching.fts_where, matching.fts_params
        title_table, min_prefix, title_where, title_params, titled = self._title_step(
            parsed, excluded, where, params, needed
        )
        title_expression = self._title_expression(parsed, min_prefix, excluded, title_table)
        if title_expression is None:
            return list(ordered)[:needed]
        # The words as typed come before their completions: while "uniq5" is typed, the item
        # holding that very word must not sink below hundreds of newer "uniq50..." ones.
        body_groups = [*parsed.groups, *([term] for term in site_terms(parsed.sites))]
        whole_words = groups_expression(body_groups, _NO_PREFIX)
        whole_title = self._title_expression(parsed, _NO_PREFIX, excluded, title_table)
        # Whether a word sought (not one excluded) was typed as the start of a word.
        typed = whole_words != groups_expression(body_groups, MIN_BODY_PREFIX_CHARS)
        if whole_words is not None and excluded is not None:
            whole_words = f"({whole_words}) NOT ({excluded})"
        title_step = (title_table, title_expression, title_where, title_params)
        steps = [title_step, ("body_fts", body_expression, where, params)]
        promote: str | None = None
        if whole_words is not None and whole_title is not None and typed:
            if len(body_groups) == 1:
                steps[:0] = [
                    (title_table, whole_title, title_where, title_params),
                    ("body_fts", whole_words, where, params),
                ]
            else:
                # With several words the others narrow the completions already, and asking
                # the index for every word twice doubled the cost of the query (16 ms more
                # for an eight-word title on 100,000 items): the hits holding the words as
                # typed are moved up instead.
                promote = whole_words
        exact = len(ordered)
        # The body index's newest matches, read once: the body step ranks them and, when
        # they are all there are, promotion reads the words as typed among them.
        body_probe: Probe | None = None
        # The title step's newest matches, when the title step read them already.
        title_probe = titled if title_table == "title_fts" else None
        for index, step in enumerate([*steps, None]):
            if len(ordered) >= needed:
                break
            more = needed + len(ordered)
            if step is not None:
                table, expression, step_where, step_params = step
                # Title hits come first only among the newest matches when filters narrow
                # the search: reading on through a common word's doclist for the few that
                # pass would cost more than a keystroke; the body index finds them anyway.
                # Likewise when exclusions were checked for the newest titles only.
                newest_titles = titled is not None and not titled.complete
                whole = index % 2 == 1 or not (narrowed or newest_titles)  # steps alternate
                probe = title_probe if (table, expression) == title_step[:2] else None
                if promote is not None and (table, expression) == ("body_fts", body_expression):
                    size = probe_size("body_fts", body_expression, more)
                    probe = body_probe = self._probe("body_fts", body_expression, size)
                found = self._fts_ids(
                    table,
                    expression,
                    step_where,
                    step_params,
                    more,
                    exhaustive=whole,
                    candidates=matching.candidates,
                    newest=probe,
                )
            else:
                found = [row[1] for row in self._backlog_rows(matching, more)]
            ordered.update(dict.fromkeys(found))
        ranked = list(ordered)
        if promote is not None:
            hits = ranked[exact:needed]
            typed_terms = [term for group in body_groups for term in group if term.prefix]
            if body_probe is None:
                size = probe_size("body_fts", body_expression, needed)
                body_probe = self._probe("body_fts", body_expression, size)
            holding = self._holding(typed_terms, hits, promote, body_probe)
            if not holding and len(ranked) >= needed:
                # A full page of completions and not one word as typed: they are older.
                typed_hits = self._fts_ids(
                    "body_fts", promote, where, params, needed, candidates=matching.candidates
                )
                ranked = list(dict.fromkeys([*ranked[:exact], *typed_hits, *hits]))
            else:
                hits.sort(key=lambda entity_id: entity_id not in holding)  # a stable sort
                ranked[exact:needed] = hits
        return ranked[:needed]

    def _holding(
        self,
        terms: Sequence[Term],
        ids: Sequence[str],
        whole_words: str,
        probe: Probe | None,
    ) -> set[str]:
        """Those of ``ids`` holding each of ``terms`` as typed (a typed prefix as a word).

        ``whole_words`` is the query with every word as typed, ``probe`` the body index's
        newest matches of the query as typed (None when it could not be read).
        """
        rowids = {
            int(row[0]): row[1]
            for row in self._query(
                f"SELECT rowid, id FROM entities WHERE id IN {IN_LIST}", [in_ids(ids)]
            )
        }
        if probe is not None and probe.complete and rowids and not _many_words(whole_words):
            # Every match is in the probe, so the words as typed match fewer still: one read
            # of the index over the hits' range finds them all. "cramshy fest" on 20,000
            # items: 0.6 ms instead of 6.1 ms for looking up "fest" in each of 50 hits (a
            # seek into a long doclist each), the whole search 9.0 instead of 14.3 ms. Not
            # for many words: reading a pasted title's common words again costs what the
            # search did, where the typed word alone is looked up in its few hits.
            typed = self._matching_in_range("body_fts", whole_words, rowids)
            if typed is not None:
                return {rowids[rowid] for rowid in typed if rowid in rowids}
        kept = set(rowids)
        for term in terms:
            if not kept:
                break
            kept &= self._rowids_matching(replace(term, prefix=False), sorted(kept))
        return {rowids[rowid] for rowid in kept}

    @staticmethod
    def _title_expression(
        parsed: SearchQuery, min_prefix: int, excluded: str | None, table: str
    ) -> str | None:
        """The title step's query: of the title index, or (with exclusions) of the body
        index's title and author columns, NOT the excluded words."""
        expression = groups_expression(parsed.groups, min_prefix)
        if expression is None or excluded is None or table == "title_fts":
            return expression
        return f"({{title author}} : ({expression})) NOT ({excluded})"

    def _title_step(
        self,
        parsed: SearchQuery,
        excluded: str | None,
        where: str,
        params: list[Any],
        needed: int,
    ) -> tuple[str, int, str, list[Any], Probe | None]:
        """The index the title step asks, its prefix length, its filter, and the title
        index's newest matches when they were read.

        Without exclusions that is the title index. With them, the newest titles holding the
        words (RANK_PROBE_LIMIT at most) are looked up in the body index one by one for the
        excluded words, and the title step keeps to those that pass; when there are more
        titles, older ones are found by the body step. Reading the body index's title
        columns NOT the excluded words instead read both doclists to their end: on a million
        items "\"shy shyrk\" -vat" 30 ms against 3.3 for 300 look-ups, "\"nond fym\" -hyt"
        56 against 4.9; on 100,000, 12.6 against 0.5. When titles are many, those a page
        needs are checked: "nond -tiam" ("tiam" starts five words, one OR), 300 looked up
        cost 11 ms on a million items.
        """
        if excluded is None:
            return "title_fts", MIN_TITLE_PREFIX_CHARS, where, params, None
        expression = groups_expression(parsed.groups, MIN_TITLE_PREFIX_CHARS)
        titled = self._probe("title_fts", expression, RANK_PROBE_LIMIT) if expression else None
        if expression and titled is None:
            # A word the index cannot match: the body index's columns answer it as
            # _fts_ids does.
            return "body_fts", MIN_BODY_PREFIX_CHARS, where, params, None
        held = titled.rowids if titled is not None else []
        if titled is None or titled.complete:
            dropped = self._matching_among("body_fts", excluded, held)
            return (
                "title_fts",
                MIN_TITLE_PREFIX_CHARS,
                f"{where} AND e.rowid NOT IN {IN_LIST}",
                [*params, in_ids(dropped)],
                titled,
            )
        kept: list[int] = []
        # Newest first, a page at a time: most pass, and each checked costs a look-up.
        for start in range(0, len(held), max(1, needed)):
            batch = held[start : start + max(1, needed)]
            kept += sorted(
                set(batch).difference(self._matching_among("body_fts", excluded, batch)),
                reverse=True,
            )
            if len(kept) >= needed:
                break
        return (
            "title_fts",
            MIN_TITLE_PREFIX_CHARS,
            f"{where} AND e.rowid IN {IN_LIST}",
            [*params, in_ids(kept)],
            titled,
        )

    def _few_rowids(self, filters: Filters) -> tuple[int, ...] | None:
        """The rowids (newest first) of the items that pass ``filters`` when they ask for
        tags or types held by at most :meth:`_few_rows_limit` items; None when they ask for neither
        or more.

        A small tag's or type's items are looked up in the search index one by one instead:
        reading a common word's doclist to its end for the few of them it holds costs more.
        """
        groups = filters.required_tags
        kinds = [set(chosen) for chosen in (filters.types, filters.query_types) if chosen]
        if not groups and not kinds:
            return None
        where, params = filters.sql(indexed=False)
        limit = self._few_rows_limit()
        if groups:
            marks = ",".join("?" * len(groups[0]))
            # Counted in the tag index first: listing a large tag's items through the filters
            # to learn that it is large cost 5.7 ms for 401 of 2,762 on 100,000 items.
            if self._tagged_more_than(limit, groups[0]):
                return None
            sql = (
                "SELECT DISTINCT e.rowid FROM tag_members t JOIN entities e "
                f"ON e.rowid = t.entity_rowid WHERE t.tag_id IN ({marks}){where} LIMIT ?"
            )
            found = self._query(sql, [*groups[0], *params, limit + 1])
        elif kinds:
            wanted = sorted(set.intersection(*kinds))
            if not wanted:
                return ()
            marks = ",".join("?" * len(wanted))
            if self._more_than(limit, f"SELECT 1 FROM entities WHERE type IN ({marks})", wanted):
                return None
            sql = f"SELECT e.rowid FROM entities e WHERE e.type IN ({marks}){where} LIMIT ?"
            found = self._query(sql, [*wanted, *params, limit + 1])
        if len(found) > limit:
            return None
        return tuple(sorted((int(row[0]) for row in found), reverse=True))

    def _few_rows_limit(self) -> int:
        """Up to how many items a tag's or type's items are looked up one by one."""
        return max(
            FEW_ROWS_LIMIT, int(FEW_ROWS_LIMIT * math.sqrt(self._library_size() / _FEW_ROWS_AT))
        )

    def _library_size(self) -> int:
        """How many items the cache holds, counted again every LIBRARY_COUNT_TTL_S."""
        now = time.monotonic()
        known = _library_counts.get(self.path)
        if known is None or now - known[0] > LIBRARY_COUNT_TTL_S:
            known = (now, int(self._query("SELECT count(*) FROM entities")[0][0]))
            _library_counts[self.path] = known
        return known[1]

    def _small_tag(self, filters: Filters, needed: int) -> bool:
        """Whether the newest ``needed`` items of the filters' tags are best found from a
        tag's list of items (it holds few) rather than by walking the library newest first
        and looking each item up in the tag index (it holds many).

        Listing costs about as much per item of the tag as the walk costs per item it
        passes, and the walk passes about ``needed * library / tag`` items: listing is
        cheaper while the tag holds fewer than the square root of ``needed * library``
        (7,000 items of a million for 50 results; the two cost the same, 30 ms, at about
        5,500). On a million items, "#hin" (184,000 items) took 724 ms listed and 2.7 ms
        walked, "#plaicout" (28,000) 145 and 7 ms.
        """
        groups = filters.required_tags
        if not groups:
            return False  # no tag: nothing to count (the library's size is a count too)
        bound = math.isqrt(needed * self._library_size())
        return any(not self._tagged_more_than(bound, group) for group in groups)

    def _tagged_more_than(self, limit: int, tag_ids: Sequence[str]) -> bool:
        """Whether more than ``limit`` items carry one of ``tag_ids`` (counted in the tag
        index alone)."""
        marks = ",".join("?" * len(tag_ids))
        return self._more_than(
            limit, f"SELECT 1 FROM tag_members WHERE tag_id IN ({marks})", tag_ids
        )

    def _more_than(self, limit: int, rows_sql: str, params: Sequence[Any]) -> bool:
        """Whether ``rows_sql`` yields more than ``limit`` rows (counted in its index)."""
        counted = self._query(f"SELECT count(*) FROM ({rows_sql} LIMIT ?)", [*params, limit + 1])
        return int(counted[0][0]) > limit

    def _candidate_hits(
        self,
        table: str,
        expression: str,
        candidates: Sequence[int],
        needed: int,
        *,
        oldest: bool = False,
    ) -> list[tuple[Any, ...]]:
        """(rowid, id) of the ``candidates`` whose text matches, in their order (newest
        first, or oldest), looked up a batch at a time until ``needed`` are found."""
        ordered = list(reversed(candidates)) if oldest else list(candidates)
        found: list[tuple[Any, ...]] = []
        for start in range(0, len(ordered), _CANDIDATE_BATCH):
            batch = ordered[start : start + _CANDIDATE_BATCH]
            if _has_prefix(expression):
                rows = self._query(
                    f"SELECT rowid, id FROM entities WHERE rowid IN {IN_LIST}",
                    [in_ids(self._matching_among(table, expression, batch))],
                )
            else:
                rows = self._query(
                    f"SELECT e.rowid, e.id FROM {table} JOIN entities e "
                    f"ON e.rowid = {table}.rowid WHERE {table} MATCH ? "
                    f"AND {table}.rowid IN {IN_LIST}",
                    [expression, in_ids(batch)],
                )
            rows.sort(key=lambda row: int(row[0]), reverse=not oldest)
            found += rows
            if len(found) >= needed:
                break
        return found[:needed]

    def _matching_among(self, table: str, expression: str, rowids: Sequence[int]) -> list[int]:
        """Those of ``rowids`` whose text ``expression`` matches."""
        if not rowids:
            return []
        wanted = set(rowids)
        ranged = f"SELECT rowid FROM {table} WHERE {table} MATCH ? AND rowid BETWEEN ? AND ?"
        if _has_prefix(expression):
            # FTS5 expands a prefix again for each row looked up by rowid: reading the
            # matches over the rows' range once is cheaper. "tag:cresklot faix" ("faix"*
            # among the tag's 36 items): 10.3 instead of 18.7 ms on 20,000 items, 30 instead
            # of 190 ms on 100,000 (the whole search, CPU, best of seven).
            return [
                int(row[0])
                for row in self._query(ranged, [expression, min(wanted), max(wanted)])
                if int(row[0]) in wanted
            ]
        # The matches over the rows' range are read for as many rows as a rare expression
        # holds there (a few per row asked), and only the rows past them are looked up one
        # by one: each look-up runs the whole expression again. On a million items, 300
        # titles of "rai" checked for "-proas" (seven words it starts, one OR) took 54 ms
        # looked up, a fraction of a millisecond read.
        budget = len(wanted) * _RARE_WORD_ROWS
        read = [
            int(row[0])
            for row in self._query(
                f"{ranged} ORDER BY rowid LIMIT ?", [expression, min(wanted), max(wanted), budget]
            )
        ]
        found = wanted.intersection(read)
        rest = sorted(rowid for rowid in wanted if rowid > read[-1]) if len(read) == budget else []
        if rest:
            found.update(
                int(row[0])
                for row in self._query(
                    f"SELECT rowid FROM {table} WHERE {table} MATCH ? AND rowid IN {IN_LIST}",
                    [expression, in_ids(rest)],
                )
            )
        return sorted(found, reverse=True)

    def _dated_ids(self, matching: Matching, expression: str, needed: int, sort: Sort) -> list[str]:
        """Matches newest (or oldest) first: the index's rowids are recency keys, so the
        doclist is read in date order and abandoned after ``needed`` rows."""
        direction = "ASC" if sort == "oldest" else "DESC"
        try:
            if matching.candidates is not None:
                indexed = self._candidate_hits(
                    "body_fts", expression, matching.candidates, needed, oldest=sort == "oldest"
                )
            else:
                indexed = self._query(
                    "SELECT e.rowid, e.id FROM body_fts JOIN entities e "
                    f"ON e.rowid = body_fts.rowid WHERE body_fts MATCH ?{matching.fts_where} "
                    f"ORDER BY body_fts.rowid {direction} LIMIT ?",
                    [expression, *matching.fts_params, needed],
                )
        except StoreBugError as exc:
            if _phrase_refused(exc):
                return []
            raise
        rows = indexed + self._backlog_rows(matching, needed, oldest=sort == "oldest")
        rows.sort(key=lambda row: int(row[0]), reverse=direction == "DESC")
        return list(dict.fromkeys(row[1] for row in rows))[:needed]

    def _newest_ids(self, filters: Filters, needed: int, *, oldest: bool = False) -> list[str]:
        """Newest (or oldest) first: a walk of the created_at index (per type when filtered)."""
        direction = "ASC" if oldest else "DESC"
        order = f"ORDER BY e.created_at {direction}, e.rowid {direction} LIMIT ?"
        listed = self._small_tag(filters, needed)
        if len(filters.types) <= 1:
            where, params = filters.sql(tags_listed=listed)
            return [
                row[0]
                for row in self._query(
                    f"SELECT e.id FROM entities e WHERE 1=1{where} {order}", [*params, needed]
                )
            ]
        # One indexed walk per type, merged: SQLite would sort every row of the types.
        walks = []
        for kind in dict.fromkeys(filters.types):
            where, params = replace(filters, types=(kind,)).sql(tags_listed=listed)
            walks.append(
                self._query(
                    f"SELECT coalesce(e.created_at, -1), e.rowid, e.id FROM entities e "
                    f"WHERE 1=1{where} {order}",
                    [*params, needed],
                )
            )
        merged = heapq.merge(*walks, key=lambda row: (row[0], row[1]), reverse=not oldest)
        return [row[2] for row in itertools.islice(merged, needed)]

    def _exact_ids(
        self, parsed: SearchQuery, where: str, params: list[Any], needed: int
    ) -> list[str]:
        """Items whose title is the query's text, or whose address it is (URLs first)."""
        texts = list(
            dict.fromkeys(text for text in (parsed.text.strip(), parsed.free_text) if text)
        )
        found: list[str] = []
        for text in texts:
            # Through the title index whatever the filters (the planner may prefer theirs).
            found += [
                row[0]
                for row in self._query(
                    "SELECT e.id FROM entities e WHERE e.rowid IN (SELECT rowid FROM entities "
                    f"WHERE title = ? COLLATE NOCASE LIMIT 1000){where} "
                    "ORDER BY e.created_at DESC LIMIT ?",
                    [text, *params, needed],
                )
            ]
        for text in texts:
            found[:0] = self._url_ids(text, where, params, needed)
        return list(dict.fromkeys(found))

    def _url_ids(self, text: str, where: str, params: list[Any], needed: int) -> list[str]:
        """Items saved from the address ``text`` (``https://`` assumed when it has none)."""
        candidates = [text] if "://" in text else [f"https://{text}"] if "." in text else []
        for candidate in candidates:
            try:
                normalized = normalize_url(candidate)
            except ValueError:
                continue
            variants = {normalized, normalized.replace("https://", "http://", 1)}
            return [
                row[0]
                for row in self._query(
                    "SELECT e.id FROM entities e WHERE e.rowid IN (SELECT rowid FROM entities "
                    f"WHERE normalized_url IN (?, ?) LIMIT 1000){where} "
                    "ORDER BY e.created_at DESC LIMIT ?",
                    [*sorted(variants), *params, needed],
                )
            ]
        return []

    def _fts_ids(
        self,
        table: str,
        expression: str,
        where: str,
        params: list[Any],
        needed: int,
        *,
        exhaustive: bool = True,
        candidates: Sequence[int] | None = None,
        newest: Probe | None = None,
    ) -> list[str]:
        """Hits of one index, newest first (among ``candidates`` when given: every row that
        passes the filters); when few documents match, titles holding several words the
        shortest first. ``newest`` is what :meth:`_newest_rowids` gives for ``expression``
        and :func:`probe_size`, when it was read already.

        The newest matching rowids are read first (the doclist is in recency order, so
        this stops early for common words). When they are all there are, they are the hits;
        otherwise the doclist is read on, newest first, as far as the hits asked for.

        Not by bm25: on these indexes (contentless, detail=column) FTS5 counts no word's
        hits in a row, so every match scores 0, and ordering by that score leaves the
        matches in the order the index is read (oldest first, for a rare word).
        """
        join = f"FROM {table} JOIN entities e ON e.rowid = {table}.rowid WHERE {table} MATCH ?"
        try:
            if newest is None:
                newest = self._newest_rowids(
                    table, expression, probe_size(table, expression, needed)
                )
            few = newest.complete
            rowids = newest.rowids
            # Titles holding every one of several words: the shortest first, the closest to
            # what was typed.
            several = " " in expression
            order = "length(e.title), " if few and several and table == "title_fts" else ""
            found = [
                row[0]
                for row in self._query(
                    f"SELECT e.id FROM entities e WHERE e.rowid IN {IN_LIST}"
                    f"{where} ORDER BY {order}e.rowid DESC LIMIT ?",
                    [in_ids(rowids), *params, needed],
                )
            ]
            if len(found) >= needed or few or not exhaustive:
                return found
            if candidates is not None:
                return [
                    row[1] for row in self._candidate_hits(table, expression, candidates, needed)
                ]
            sql = f"SELECT e.id {join}{where} ORDER BY {table}.rowid DESC LIMIT ?"
            return [row[0] for row in self._query(sql, [expression, *params, needed])]
        except StoreBugError as exc:
            if _phrase_refused(exc):
                return []
            raise

    def _probe(self, table: str, expression: str, size: int) -> Probe | None:
        """:meth:`_newest_rowids`, or None for an expression the index cannot match (see
        :func:`_phrase_refused`)."""
        try:
            return self._newest_rowids(table, expression, size)
        except StoreBugError as exc:
            if _phrase_refused(exc):
                return None
            raise

    def _newest_rowids(self, table: str, expression: str, size: int) -> Probe:
        """The newest ``size`` rowids matching ``expression``, newest first."""
        newest = f"SELECT rowid FROM {table} WHERE {table} MATCH ? ORDER BY rowid DESC LIMIT ?"
        if not _read_forwards_first(expression):
            rows = [int(row[0]) for row in self._query(newest, [expression, size])]
            return Probe(rows, complete=len(rows) < size)
        if table == "body_fts":
            every = self._body_rows_rarest_first(expression)
            if every is not None:
                return Probe(sorted(every, reverse=True), complete=True)
        # Words combined (several together, or one without another) often match few items,
        # and FTS5 reads doclists forwards at about twice the speed: all of them in rowid
        # order, when there are few. Up to twice ``size`` are read so, as many as reading
        # ``size`` newest first would cost; more, and the forward read is given up for it.
        # At worst that costs twice the reading newest first alone, as the few it replaces
        # do. On a million items "\"nond fym\" -hyt" (78 matches, every doclist read to its
        # end) took 86 instead of 118 ms.
        ascending = self._query(
            f"SELECT rowid FROM {table} WHERE {table} MATCH ? ORDER BY rowid LIMIT ?",
            [expression, 2 * size + 1],
        )
        if len(ascending) > 2 * size:
            return Probe([int(row[0]) for row in self._query(newest, [expression, size])], False)
        return Probe(sorted((int(row[0]) for row in ascending), reverse=True), complete=True)

    def _body_rows_rarest_first(self, expression: str) -> list[int] | None:
        """Every body row holding the many words of ``expression``: the two rarest read
        together, then each other word looked up in the few rows holding both, rarest
        first. None for another shape of expression (see :func:`required_words`), or when
        the two rarest share more rows than looking the others up in them is worth.

        FTS5 reads the doclists of all the words to join them, however few rows hold them
        all, and a pasted title's words include some that nearly every item holds. On a
        million items the search "Rai Creerfloat Shy Theenleam Dyn Toand Trar" (982,108
        items hold "rai", 996,347 "shy", 6,742 "creerfloat") took 33.5 ms, 7.5 ms rarest
        first; two other pasted titles 32.1 and 27.0 ms, 5.7 and 6.2 ms. How rare a word is
        comes from how far back its RARITY_PROBE_ROWS newest rows reach.
        """
        groups = required_words(expression)
        if groups is None or len(groups) < _MANY_WORDS:
            return None
        ranked: list[tuple[tuple[int, int], tuple[str, ...]]] = []
        for words in groups:
            newest = self._query(
                "SELECT rowid FROM body_fts WHERE body_fts MATCH ? ORDER BY rowid DESC LIMIT ?",
                [any_word_expression(words), RARITY_PROBE_ROWS],
            )
            if not newest:
                return []  # a word no row holds: no row holds them all
            # A word whose rows were all read is the rarest (the fewest first); of the
            # others, the one whose newest rows reach farthest back.
            if len(newest) < RARITY_PROBE_ROWS:
                rarity = (0, len(newest))
            else:
                rarity = (1, int(newest[-1][0]) - int(newest[0][0]))
            ranked.append((rarity, words))
        ranked.sort(key=lambda ranked_words: ranked_words[0])
        (_, rarest), (_, next_rarest), *others = ranked
        # Looking words up costs the same in any library, reading the whole expression more
        # in a larger one: the look-ups allowed grow with the library.
        lookups = self._library_size() // ITEMS_PER_RAREST_FIRST_LOOKUP
        both = f"{any_word_expression(rarest)} AND {any_word_expression(next_rarest)}"
        # One row more than can be looked up tells there are too many.
        found = [
            int(row[0])
            for row in self._query(
                "SELECT rowid FROM body_fts WHERE body_fts MATCH ? LIMIT ?", [both, lookups + 1]
            )
        ]
        if len(found) > lookups:
            return None
        for _, words in others:
            if not found:
                break
            # At most each word in each row (a word typed on is all those it starts).
            if len(words) > 1 and len(found) * len(words) > lookups:
                # Too many to look up: read with the two rarest, as FTS5 joins them. On a
                # million items "Greallail Thul Shy Hai Shy Hond" ("hond" typed on, six
                # words, in 223 rows) took 25 ms with the whole expression, 8.7 ms so.
                found = self._rows_also_holding(f"{both} AND {any_word_expression(words)}", found)
                continue
            lookups -= len(found) * len(words)
            if lookups < 0:
                return None
            found = self._rows_holding_any(words, found)
        return found

    def _rows_also_holding(self, expression: str, rowids: Sequence[int]) -> list[int]:
        """Those of ``rowids`` whose body row ``expression`` matches, in order."""
        matching = {
            int(row[0])
            for row in self._query(
                "SELECT rowid FROM body_fts WHERE body_fts MATCH ?", [expression]
            )
        }
        return [rowid for rowid in rowids if rowid in matching]

    def _rows_holding_any(self, words: Sequence[str], rowids: Sequence[int]) -> list[int]:
        """Those of ``rowids`` whose body row holds one of ``words`` (whole words), in order."""
        left = set(rowids)
        holding: set[int] = set()
        for word in words:
            if not left:
                break
            found = self._rowids_matching(Term((word,)), sorted(left))
            holding |= found
            left -= found
        return [rowid for rowid in rowids if rowid in holding]

    def _matching_in_range(
        self, table: str, expression: str, rowids: Iterable[int]
    ) -> list[int] | None:
        """The rows from the lowest to the highest of ``rowids`` that ``expression``
        matches; None for an expression the index cannot match (see :func:`_phrase_refused`)."""
        wanted = list(rowids)
        try:
            return [
                int(row[0])
                for row in self._query(
                    f"SELECT rowid FROM {table} WHERE {table} MATCH ? AND rowid BETWEEN ? AND ?",
                    [expression, min(wanted), max(wanted)],
                )
            ]
        except StoreBugError as exc:
            if _phrase_refused(exc):
                return None
            raise

    def _has_backlog(self) -> bool:
        """Whether rows wait to be indexed (during a sync, or after a crash or a new index)."""
        return bool(self._query("SELECT 1 FROM fts_pending LIMIT 1"))

    def _excludes_unindexed(self, query: SearchQuery) -> bool:
        """Whether candidates of ``query`` the index does not hold yet are to be checked for
        its exclusions: it has some, and rows wait to be indexed."""
        return bool(query.excluded) and self._has_backlog()

    def _backlog_rows(
        self, matching: Matching, needed: int, *, oldest: bool = False
    ) -> list[tuple[Any, ...]]:
        """(rowid, id) of the newest (or oldest) rows not indexed yet whose texts hold a word
        of every group (a word being typed as the start of one), in that order, at most
        ``needed``; phrases and exclusions are checked later (:meth:`_verified`), as for the
        rows the index finds."""
        words = _backlog_words(matching.query)
        if words is None or not self._has_backlog():
            return []
        codec = self._codec
        found: list[tuple[Any, ...]] = []
        if oldest:
            past, comparison, order = _LOWEST_ROWID, ">", "ASC"
        else:
            past, comparison, order = _HIGHEST_ROWID, "<", "DESC"
        while len(found) < needed:
            batch = self._query(
                "SELECT p.rowid, e.id, r.raw FROM fts_pending p "
                "JOIN entities e ON e.rowid = p.rowid JOIN entity_raw r ON r.rowid = p.rowid "
                f"WHERE p.rowid {comparison} ?{matching.fts_where} "
                f"ORDER BY p.rowid {order} LIMIT ?",
                [past, *matching.fts_params, BACKLOG_BATCH_ROWS],
            )
            held = _unindexed_matching(words, {row[0]: codec.text(row[2]) for row in batch}, {})
            found += [(rowid, entity_id) for rowid, entity_id, _raw in batch if rowid in held]
            if len(batch) < BACKLOG_BATCH_ROWS:
                break
            past = batch[-1][0]  # the next batch starts past this one
        return found[:needed]

    def _verified(
        self,
        parsed: SearchQuery,
        ids: Sequence[str],
        needed: int,
        *,
        check_words: bool = False,
        verdicts: dict[str, bool] | None = None,
    ) -> list[str]:
        """Those of ``ids`` whose text holds the query's phrases (and none it excludes), in
        order, at most ``needed``; with ``check_words`` its words too (for ids that did not
        come from the index: a server's results). ``verdicts`` keeps whether each id checked
        passed, across calls: an id found there is not checked again.

        Phrases are looked for in the stored JSON; words are asked of the index for just
        these rows. Rows the index does not hold yet are looked at in their texts, and held
        to every excluded word too (the index left out none of them).
        """
        groups = [g for g in parsed.groups if check_words or any(t.phrase for t in g)]
        excluded = [t for t in parsed.excluded if check_words or t.phrase]
        if not groups and not excluded and not self._excludes_unindexed(parsed):
            return list(ids)[:needed]
        checked = replace(parsed, groups=tuple(groups), excluded=tuple(excluded))
        unindexed = excluded_as_indexed(replace(checked, excluded=parsed.excluded))
        terms = [*itertools.chain(*groups), *excluded]
        finders = {term: PhraseFinder(term.words) for term in terms if term.phrase}
        known = {} if verdicts is None else verdicts
        kept: list[str] = []
        start = 0
        # The first batch is what a page needs and half again: most candidates pass when
        # only a phrase is excluded, and reading 200 of them for 50 results made the search
        # "ribeamfiand -\"skais fias\"" take 21.3 ms on 100,000 items, against 15.7 ms.
        size = min(_VERIFY_BATCH, needed + needed // 2 + 1)
        while start < len(ids) and len(kept) < needed:
            batch = ids[start : start + size]
            start += size
            size = _VERIFY_BATCH
            unknown = [entity_id for entity_id in batch if entity_id not in known]
            if unknown:
                known.update(self._verdicts(checked, unindexed, unknown, finders))
            kept += [entity_id for entity_id in batch if known[entity_id]]
        return kept[:needed]

    def _verdicts(
        self,
        query: SearchQuery,
        unindexed: SearchQuery,
        ids: Sequence[str],
        finders: dict[Term, PhraseFinder],
    ) -> dict[str, bool]:
        """Whether each of ``ids`` (no repeats) matches ``query``: its phrases by ``finders``
        (one for each), its words by the index; each the index does not hold yet, whether
        it matches ``unindexed`` (whose phrases ``finders`` has too)."""
        words = _word_terms(query)
        reads_text = _has_phrase(query)
        # The stored JSON of the rows the index holds only when a phrase is looked for.
        rows = self._query(
            "SELECT e.rowid, e.id, p.rowid IS NOT NULL, "
            "CASE WHEN ? OR p.rowid IS NOT NULL THEN r.raw END FROM entities e "
            "LEFT JOIN fts_pending p ON p.rowid = e.rowid JOIN entity_raw r ON r.rowid = e.rowid "
            f"WHERE e.id IN {IN_LIST}",
            [reads_text, in_ids(ids)],
        )
        indexed = [row[0] for row in rows if not row[2]]
        having = {term: self._rowids_matching(term, indexed) for term in words}
        holds = _row_test(query, having, finders)
        codec = self._codec
        found = dict.fromkeys(ids, False)  # an id no longer cached holds nothing
        pending_texts: dict[int, str | bytes] = {}
        for rowid, entity_id, pending, raw in rows:
            if pending:
                pending_texts[rowid] = codec.text(raw)
            else:
                found[entity_id] = holds(rowid, lowered_json(codec.text(raw)) if reads_text else "")
        if pending_texts:
            held = _unindexed_matching(unindexed, pending_texts, finders)
            found.update((row[1], row[0] in held) for row in rows if row[2])
        return found

    def _rowids_matching(self, term: Term, rowids: Sequence[int]) -> set[int]:
        """Those of ``rowids`` the body index finds ``term`` in."""
        if not rowids:
            return set()
        wanted = set(rowids)
        low, high = min(wanted), max(wanted)
        # Rows close together: the term's doclist over their range, read to its end. Rows
        # spread over the library: the doclist is read for as many rows as a rare word holds
        # (a few per row asked), and only if it holds more are the rows looked up one by one.
        # "bat kleex" on 20,000 items: its 50 hits checked for "kleex" as typed in 0.1 ms
        # instead of 1.5 ms, the search 3.4 instead of 4.8 ms of CPU (the 40 two-word queries
        # of the store benchmark: 3 % less CPU, best of five).
        dense = len(wanted) * _SPARSE_RANGE >= (high - low) // KEY_STEP
        budget = -1 if dense else len(wanted) * _RARE_WORD_ROWS
        read = [
            int(row[0])
            for row in self._query(
                "SELECT rowid FROM body_fts WHERE body_fts MATCH ? AND rowid BETWEEN ? AND ? "
                "ORDER BY rowid LIMIT ?",
                [groups_expression([[term]], MIN_BODY_PREFIX_CHARS), low, high, budget],
            )
        ]
        found = wanted.intersection(read)
        if dense or len(read) < budget:
            return found
        rest = sorted(rowid for rowid in wanted if rowid > read[-1])
        return found | self._rowids_looked_up(term, rest) if rest else found

    def _rowids_looked_up(self, term: Term, rowids: Sequence[int]) -> set[int]:
        """Those of ``rowids`` holding ``term``, each row looked up in the body index.

        Word by word: for the 200 rows of a phrase check spread over 100,000 items, "skais
        fias" read 72,798 rows of its range in 65 ms; looked up word by word, 200 rows cost
        about 0.025 ms per word each, while the two words together cost 0.2 ms per row
        (FTS5 runs the whole query again).
        """
        found = set(rowids)
        for at, word in enumerate(term.words):
            last = at == len(term.words) - 1
            single = Term((word,), prefix=term.prefix and last)
            expression = groups_expression([[single]], MIN_BODY_PREFIX_CHARS)
            found = {
                int(row[0])
                for row in self._query(
                    f"SELECT rowid FROM body_fts WHERE body_fts MATCH ? AND rowid IN {IN_LIST}",
                    [expression, in_ids(sorted(found))],
                )
            }
            if not found:
                break
        return found

    def snippets(self, query: str, ids: Sequence[str]) -> dict[str, str]:
        """Marked snippets of ``query`` for these entities (those whose text holds a match).

        The snippets :meth:`search` returns, for ids already known (a block of rows of a long
        result list), without ranking the results before them again.
        """
        found: dict[str, str] = {}
        for chunk in chunks(ids):
            found.update(self._snippets(query, chunk))
        return found

    def _snippets(self, query: str, ids: Sequence[str]) -> dict[str, str]:
        """Marked snippets for the hits, cut from the text of their stored JSON.

        Done in Python rather than with FTS5's snippet(), which re-tokenizes each whole
        document (and needs stored text): for 50 long articles that alone would exceed a
        keystroke's budget.
        """
        marked = snippet_terms(query)
        if not marked:
            return {}
        return self._snippets_of(
            marked,
            self._query(
                "SELECT e.id, r.raw FROM entities e JOIN entity_raw r "
                f"ON r.rowid = e.rowid WHERE e.id IN {IN_LIST}",
                [in_ids(ids)],
            ),
        )

    def _snippets_of(
        self, marked: SnippetTerms, stored: Iterable[tuple[str, Any]]
    ) -> dict[str, str]:
        """Snippets marking these terms, cut from each (id, stored JSON) pair."""
        snippets: dict[str, str] = {}
        for entity_id, raw in stored:
            data = self._codec.decoded(raw)
            if not isinstance(data, dict):
                continue
            # Only as much of the body as the snippet needs: the rich text, transcript and
            # other fields after the first match are not worked out (the 200 queries of the
            # store benchmark on 8,000 items: 1.87 s of CPU instead of 2.02 s, best of three).
            body, span = text_and_first_match(body_parts(data), marked, SNIPPET_WINDOW)
            # Where the word stands is passed on: looking for it again in the whole text
            # was a third of the snippets' time (5.0 ms a query for 50 long items).
            for text, known in ((body, span), (summary_text(data), None)):
                snippet = python_snippet(text, marked, SNIPPET_WINDOW, span=known)
                if "\x02" in snippet:
                    snippets[entity_id] = snippet
                    break
        referenced = self._referenced_titles(
            key for key, window in snippets.items() if "[" in window or "]" in window
        )
        return with_cited_titles(snippets, self._titles, referenced=referenced)

    def _referenced_titles(self, ids: Iterable[str]) -> dict[str, dict[str, str]]:
        """id -> the titles of the items it references, by their ids: the words in brackets
        its text names them by, which its plain lines show without the brackets."""
        id_list = list(dict.fromkeys(ids))
        if not id_list:
            return {}
        found: dict[str, dict[str, str]] = {}
        for source, target, title in self._query(
            "SELECT g.source, g.target, e.title FROM edges g JOIN entities e ON e.id = g.target"
            f" WHERE g.source IN {IN_LIST} LIMIT ?",
            [in_ids(id_list), MAX_REFERENCED_TITLES * len(id_list)],
        ):
            found.setdefault(source, {})[target] = plain_text(title or "")
        return found

    def _titles(self, ids: Iterable[str]) -> dict[str, str]:
        """The titles of these entities (those cached), for the citations of a snippet."""
        return {entity_id: row.title for entity_id, row in self.get_many(ids).items()}

    # ------------------------------------------------------------------ rows

    def get(self, entity_id: str) -> EntityRow | None:
        """The display row of one entity."""
        return self.get_many([entity_id]).get(entity_id)

    def get_many(self, ids: Iterable[str]) -> dict[str, EntityRow]:
        """Display rows by id (missing ids are left out)."""
        id_list = list(dict.fromkeys(ids))
        if not id_list:
            return {}
        read = self._query(
            f"SELECT {_ROW_COLUMNS} FROM entities e WHERE e.id IN {IN_LIST}", [in_ids(id_list)]
        )
        referenced = self._referenced_titles(
            values[0] for values in read if "[" in f"{values[2]}{values[10]}"
        )
        rows = {values[0]: _row(values, referenced.get(values[0])) for values in read}
        missing = [entity_id for entity_id in id_list if entity_id not in rows]
        if missing:
            # Asked by another id of the item (its library row id): answer under that id.
            canonical = self.canonical_ids(missing)
            found = self.get_many(set(canonical.values())) if canonical else {}
            for alias, entity_id in canonical.items():
                if entity_id in found:
                    rows[alias] = found[entity_id]
        return rows

    def canonical_ids(self, ids: Iterable[str]) -> dict[str, str]:
        """other id -> the item's one id, for those of ``ids`` that are other ids of an item."""
        found = self._query(
            f"SELECT alias, id FROM entity_aliases WHERE alias IN {IN_LIST}", [in_ids(set(ids))]
        )
        return {alias: entity_id for alias, entity_id in found}

    def entity(self, entity_id: str) -> ContentEntityBase | None:
        """The full entity, re-parsed from its stored raw JSON."""
        found = self._raw(entity_id)
        return parse_content_entity(self._codec.decoded(found)) if found is not None else None

    def entity_within(self, entity_id: str, max_chars: int) -> BoundedEntity | None:
        """The entity's stored JSON with at most about ``max_chars`` characters of text."""
        found = self._raw(entity_id)
        if found is None:
            return None
        text = self._codec.text(found)
        return bounded_entity(text.encode() if isinstance(text, str) else text, max_chars)

    def raw_json(self, entity_id: str) -> dict[str, Any] | None:
        """The stored raw JSON of one entity (nested annotations/references are rows)."""
        found = self._raw(entity_id)
        value = self._codec.decoded(found) if found is not None else None
        return value if isinstance(value, dict) else None

    def _raw(self, entity_id: str) -> str | bytes | None:
        found = self._query(
            "SELECT r.raw FROM entities e JOIN entity_raw r ON r.rowid = e.rowid WHERE e.id = ?"
            " OR e.id = (SELECT id FROM entity_aliases WHERE alias = ?) LIMIT 1",
            [entity_id, entity_id],
        )
        return found[0][0] if found else None

    def ids_at_normalized_urls(self, urls: Iterable[str]) -> dict[str, set[str]]:
        """The items cached under each of these normalized URLs (as ``store.urls`` makes
        them), a URL without any left out; at most 1,000 items a URL."""
        found: dict[str, set[str]] = {}
        for chunk in chunks(sorted(set(urls))):
            for url, entity_id in self._query(
                f"SELECT normalized_url, id FROM entities WHERE normalized_url IN {IN_LIST} "
                "LIMIT ?",
                [in_ids(chunk), 1000 * len(chunk)],
            ):
                found.setdefault(url, set()).add(entity_id)
        return found

    def all_ids(self, limit: int = 1_000_000) -> list[str]:
        """Every cached id, newest first, deleted-upstream included."""
        return [
            row[0]
            for row in self._query(
                "SELECT id FROM entities ORDER BY created_at DESC LIMIT ?", [limit]
            )
        ]

    def ids_starting_with(self, prefix: str, limit: int = 10) -> list[str]:
        """Cached ids that begin with ``prefix`` (at most ``limit``, in id order): the start
        of an id a person types, as git takes the start of a commit's name."""
        # GLOB, not LIKE: case-sensitive as ids are, so SQLite reads the id index from the
        # prefix on; its wildcards in the prefix are matched as themselves.
        pattern = re.sub(r"([*?\[])", r"[\1]", prefix) + "*"
        return [
            row[0]
            for row in self._query(
                "SELECT id FROM entities WHERE id GLOB ? ORDER BY id LIMIT ?", [pattern, limit]
            )
        ]

    def ids_in_batches(self, size: int = 10_000) -> Iterator[list[str]]:
        """Every cached id, deleted-upstream included, a batch at a time in storage order.

        For a walk over the whole cache that needs each id once: a list of a million ids
        held some 150 MB at the end of a full sync, beside the ids the pass had seen.
        """
        after = 0
        while True:
            batch = self._query(
                "SELECT rowid, id FROM entities WHERE rowid > ? ORDER BY rowid LIMIT ?",
                [after, size],
            )
            if not batch:
                return
            after = batch[-1][0]
            yield [row[1] for row in batch]

    def counts_by_type(self) -> dict[str, int]:
        """How many live (not deleted upstream) entities of each type are cached.

        Every entity by type, counted in the (type, created_at) index alone, minus the few
        deleted ones through their partial index: counting the live ones directly read every
        row of the table, 159 ms at 100,000 items against 14 ms, and a million items' rows
        (gigabytes, mapped into the window's memory) on the window's first open.
        """
        counts = dict(
            self._query(
                "SELECT type, count(*) FROM entities GROUP BY type ORDER BY type LIMIT 1000"
            )
        )
        for kind, deleted in self._query(
            "SELECT type, count(*) FROM entities INDEXED BY entities_deleted "
            "WHERE deleted_upstream_at IS NOT NULL GROUP BY type"
        ):
            if kind in counts:
                counts[kind] -= deleted
        return {kind: count for kind, count in counts.items() if count > 0}

    def count_deleted_upstream(self, limit: int = 100_000) -> int:
        """How many entities :meth:`deleted_upstream` lists with the same ``limit``."""
        found = self._query(
            "SELECT count(*) FROM (SELECT 1 FROM entities e "
            "WHERE e.deleted_upstream_at IS NOT NULL LIMIT ?)",
            [limit],
        )
        return int(found[0][0])

    def deleted_upstream(self, limit: int = 1000) -> list[EntityRow]:
        """Entities the server no longer returns, most recently noticed first."""
        return [
            _row(values)
            for values in self._query(
                f"SELECT {_ROW_COLUMNS} FROM entities e WHERE e.deleted_upstream_at IS NOT NULL "
                "ORDER BY e.deleted_upstream_at DESC LIMIT ?",
                [limit],
            )
        ]

    # ------------------------------------------------------------------ tags, views, feeds

    def tags(self, limit: int = 10_000) -> list[TagRow]:
        """Every tag with the number of entities a search by that tag lists (live ones), by name.

        Tagged minus tagged-and-deleted, the few deleted items driving their join (CROSS JOIN
        keeps that order): looking up every tagged item to see whether it is live costs 30
        times as much.
        """
        return [
            TagRow(*values)
            for values in self._query(
                "SELECT t.id, t.name, "
                "(SELECT count(*) FROM entity_tags et WHERE et.tag_id = t.id) - coalesce(d.n, 0) "
                "FROM tags t LEFT JOIN (SELECT et.tag_id, count(*) AS n FROM entities e "
                "CROSS JOIN entity_tags et ON et.entity_id = e.id "
                "WHERE e.deleted_upstream_at IS NOT NULL GROUP BY et.tag_id) d ON d.tag_id = t.id "
                "ORDER BY t.name COLLATE NOCASE LIMIT ?",
                [limit],
            )
        ]

    def tag_names(self, ids: Iterable[str]) -> dict[str, str]:
        """tag id -> name, for those of ``ids`` that are cached tags (nothing counted: a
        rendered item names its tags, and counting every tag took 54 ms at a million items)."""
        found: dict[str, str] = {}
        for chunk in chunks(list(dict.fromkeys(ids))):
            found.update(
                self._query(f"SELECT id, name FROM tags WHERE id IN {IN_LIST}", [in_ids(chunk)])
            )
        return found

    def ids_with_tag(self, tag_id: str, limit: int = 100_000) -> list[str]:
        """Ids of live entities carrying a tag, newest first."""
        return self._ranked_ids("", Filters(tag_ids=(tag_id,)), limit)

    def views(self) -> list[ViewRow]:
        """Saved views by name."""
        return [
            ViewRow(view_id, name, json.loads(definition))
            for view_id, name, definition in self._query(
                "SELECT id, name, definition FROM views ORDER BY name COLLATE NOCASE LIMIT 10000"
            )
        ]

    def ids_for_view(self, view_id: str, limit: int = 100_000) -> list[str]:
        """Run a view's definition (query, contentTypes, tag_ids, timeRange) on the cache."""
        found = self._query("SELECT definition FROM views WHERE id = ?", [view_id])
        if not found:
            return []
        definition = json.loads(found[0][0])
        date_from, date_to = time_range(definition.get("timeRange"))
        types = definition.get("contentTypes") or definition.get("content_types") or ()
        tag_ids = definition.get("tag_ids") or definition.get("tagIds") or ()
        filters = Filters(
            types=tuple(str(kind) for kind in types if isinstance(kind, str)),
            tag_ids=tuple(str(tag) for tag in tag_ids if isinstance(tag, str)),
            date_from_ms=date_from,
            date_to_ms=date_to,
        )
        query = definition.get("query") if isinstance(definition.get("query"), str) else ""
        sort = _VIEW_SORTS.get(str(definition.get("sortBy")), "relevance")
        return self._ranked_ids(query, filters, limit, sort)

    def feeds(self) -> list[FeedRow]:
        """Followed feeds by title."""
        return [
            FeedRow(*values)
            for values in self._query(
                "SELECT id, title, feed_url, site_url, source_platform FROM feeds "
                "ORDER BY title COLLATE NOCASE LIMIT 10000"
            )
        ]

    def ids_for_feed(self, feed_id: str, limit: int = 100_000) -> list[str]:
        """Live items the server listed for a followed feed, newest first (ids the feed
        names by another id of an item resolve to the item)."""
        return [
            entity_id
            for (entity_id,) in self._query(
                "SELECT DISTINCT e.id FROM feed_members m "
                "LEFT JOIN entity_aliases a ON a.alias = m.entity_id "
                "JOIN entities e ON e.id = coalesce(a.id, m.entity_id) "
                "WHERE m.feed_id = ? AND e.deleted_upstream_at IS NULL "
                "ORDER BY e.created_at DESC, e.rowid DESC LIMIT ?",
                [feed_id, limit],
            )
        ]

    def feed_listing(self, feed_id: str) -> FeedListing | None:
        """When the server last listed a feed's items (and whether all of them), or None
        when it never did (its items are not known offline)."""
        found = self._query(
            "SELECT listed_at_ms, complete FROM feed_listings WHERE feed_id = ?", [feed_id]
        )
        if not found:
            return None
        listed_at_ms, complete = found[0]
        return FeedListing(feed_id, int(listed_at_ms), bool(complete))

    # ------------------------------------------------------------------ threads and graph

    def thread_for(self, entity_id: str) -> list[ThreadNode]:
        """Annotations on an entity (or replies to a note) as trees, oldest first per level."""
        links = self._query(
            "WITH RECURSIVE thread(id, parent, depth) AS ("
            " SELECT source, target, 0 FROM edges"
            " WHERE target = ? AND kind IN ('annotates', 'reply')"
            " UNION"
            " SELECT e.source, e.target, t.depth + 1 FROM edges e JOIN thread t"
            " ON e.target = t.id AND e.kind = 'reply' WHERE t.depth < 64"
            ") SELECT id, parent, min(depth) FROM thread GROUP BY id LIMIT ?",
            [entity_id, MAX_THREAD_NODES],
        )
        ids = [link[0] for link in links]
        rows = self.get_many(ids)
        texts = dict(self._text_of(ids))
        nodes = {
            note_id: ThreadNode(entity=rows[note_id], text=texts.get(note_id, ""), depth=depth)
            for note_id, _parent, depth in links
            if note_id in rows
        }
        roots: list[ThreadNode] = []
        for note_id, parent, _depth in links:
            node = nodes.get(note_id)
            if node is None:
                continue
            if parent == entity_id or parent not in nodes:
                roots.append(node)
            else:
                nodes[parent].children.append(node)
        _order(roots, 0)
        return roots

    def _text_of(self, ids: Sequence[str]) -> list[tuple[str, str]]:
        result: list[tuple[str, str]] = []
        for entity_id, raw in self._query(
            "SELECT e.id, r.raw FROM entities e JOIN entity_raw r ON r.rowid = e.rowid "
            f"WHERE e.id IN {IN_LIST}",
            [in_ids(ids)],
        ):
            data = self._codec.decoded(raw)
            result.append((entity_id, body_text(data) if isinstance(data, dict) else ""))
        return result

    def backlinks(self, entity_id: str) -> list[Backlink]:
        """Entities pointing at this one (notes, replies, mentions), newest first."""
        links = self._query(
            "SELECT source, kind, timestamp_s FROM edges WHERE target = ? LIMIT ?",
            [entity_id, MAX_BACKLINKS],
        )
        rows = self.get_many(link[0] for link in links)
        found = [
            Backlink(source=rows[source], kind=kind, timestamp_s=seconds)
            for source, kind, seconds in links
            if source in rows
        ]
        found.sort(key=lambda link: link.source.created_at or 0, reverse=True)
        return found

    def neighbourhood(
        self,
        entity_id: str,
        hops: int = 1,
        max_nodes: int = DEFAULT_MAX_NODES,
        *,
        hidden_kinds: frozenset[str] = frozenset(),
    ) -> Neighbourhood:
        """The graph within ``hops`` of an entity, at most ``max_nodes`` nodes, nearest first.

        See :func:`~memex_desktop.store.neighbourhood.bounded_neighbourhood` for the policy;
        ``omitted`` counts the neighbours left out. Links of ``hidden_kinds`` are not read: a
        filter hiding them wants the bounded reads and the count spent on what it shows.
        """
        return bounded_neighbourhood(_CacheGraph(self, hidden_kinds), entity_id, hops, max_nodes)

    def _adjacent(
        self, ids: Sequence[str], cap: int, hidden_kinds: frozenset[str]
    ) -> tuple[list[Edge], int]:
        """Edges and tag links touching ``ids`` (at most ``cap`` per kind) and how many were cut."""
        found: list[Edge] = []
        cut = 0
        for chunk in chunks(ids):
            chunk_found, chunk_cut = self._adjacent_chunk(chunk, cap, hidden_kinds)
            found += chunk_found
            cut += chunk_cut
        return found, cut

    def _adjacent_chunk(
        self, ids: Sequence[str], cap: int, hidden_kinds: frozenset[str]
    ) -> tuple[list[Edge], int]:
        """:meth:`_adjacent` of at most ``CHUNK`` ids (at most ``cap`` per kind)."""
        shown, kinds = _kinds_shown(hidden_kinds)
        tagged = "SELECT entity_id, tag_id, 'tag' FROM entity_tags WHERE"
        queries = [
            (f"SELECT source, target, kind FROM edges WHERE source IN {IN_LIST}{shown}", kinds),
            (f"SELECT source, target, kind FROM edges WHERE target IN {IN_LIST}{shown}", kinds),
            (f"{tagged} entity_id IN {IN_LIST}", []),
            (f"{tagged} tag_id IN {IN_LIST}", []),
        ]
        if "tag" in hidden_kinds:
            queries = queries[:2]
        found: list[Edge] = []
        cut = 0
        for sql, more in queries:
            params = [in_ids(ids), *more]
            rows = self._query(f"{sql} LIMIT ?", [*params, cap + 1])
            if len(rows) > cap:
                total = self._query(f"SELECT count(*) FROM ({sql})", params)[0][0]
                cut += int(total) - cap
                rows = rows[:cap]
            found += [(row[0], row[1], row[2]) for row in rows]
        return found, cut

    def _edges_among(self, ids: Sequence[str], hidden_kinds: frozenset[str]) -> set[Edge]:
        """Edges and tag links with both ends in ``ids`` (none of ``hidden_kinds``)."""
        params = [in_ids(ids)]
        shown, kinds = _kinds_shown(hidden_kinds)
        # "+target": each source's few links are read and their targets looked up among the
        # ids, where the key on (source, target) probed every pair (600 ids: 360,000 probes).
        found = {
            (row[0], row[1], row[2])
            for row in self._query(
                f"SELECT source, target, kind FROM edges WHERE source IN {IN_LIST} "
                f"AND +target IN {IN_LIST}{shown}",
                [*params, *params, *kinds],
            )
        }
        if "tag" in hidden_kinds:
            return found
        found |= {
            (row[0], row[1], "tag")
            for row in self._query(
                f"SELECT entity_id, tag_id FROM entity_tags WHERE entity_id IN {IN_LIST} "
                f"AND tag_id IN {IN_LIST}",
                [*params, *params],
            )
        }
        return found

    def _link_counts(self, ids: Sequence[str], hidden_kinds: frozenset[str]) -> dict[str, int]:
        """Edges and tag links of each of ``ids`` (none of ``hidden_kinds``), counted over the
        whole cache."""
        shown, kinds = _kinds_shown(hidden_kinds)
        counted = [("source", "edges", shown, kinds), ("target", "edges", shown, kinds)]
        if "tag" not in hidden_kinds:
            counted += [("entity_id", "entity_tags", "", []), ("tag_id", "entity_tags", "", [])]
        counts: dict[str, int] = {}
        for chunk in chunks(ids):
            for column, table, condition, more in counted:
                for node_id, count in self._query(
                    f"SELECT {column}, count(*) FROM {table} WHERE {column} IN {IN_LIST}"
                    f"{condition} GROUP BY {column}",
                    [in_ids(chunk), *more],
                ):
                    counts[node_id] = counts.get(node_id, 0) + int(count)
        return counts

    def _graph_nodes(self, ids: Sequence[str]) -> list[GraphNode]:
        """Cached entities by their row, tags by their name, anything else as ``missing``."""
        rows = self.get_many(ids)
        tag_names = self.tag_names(node_id for node_id in ids if node_id not in rows)
        nodes = []
        for node_id in ids:
            if node_id in rows:
                nodes.append(GraphNode(node_id, rows[node_id].type, rows[node_id].title))
            elif node_id in tag_names:
                nodes.append(GraphNode(node_id, "tag", tag_names[node_id]))
            else:
                nodes.append(GraphNode(node_id, "missing", node_id))
        return nodes

    # ------------------------------------------------------------------ state

    def reading_position(self, entity_id: str) -> int | None:
        """Where the item was last being read (a character of its text), if it was."""
        found = self._query(
            "SELECT position FROM reading_positions WHERE entity_id = ?", [entity_id]
        )
        return int(found[0][0]) if found else None

    def sync_state(self, key: str) -> str | None:
        """A sync bookmark written by the writer."""
        found = self._query("SELECT value FROM sync_state WHERE key = ?", [key])
        return str(found[0][0]) if found else None

    def stats(self) -> CacheStats:
        """Entity count, bytes on disk (with the WAL) and the last sync time."""
        count = int(self._query("SELECT count(*) FROM entities")[0][0])
        size = sum(
            candidate.stat().st_size
            for candidate in (self.path, Path(f"{self.path}-wal"))
            if candidate.exists()
        )
        last = self.sync_state(STATE_LAST_SYNC_MS)
        return CacheStats(entities=count, size_bytes=size, last_sync_at=epoch_ms(last))

    @property
    def closed(self) -> bool:
        """Whether close() has run: reads now fail, and a window going away makes none."""
        return self._closed

    def close(self) -> None:
        """Close the connection."""
        self._closed = True
        self.db.close()

    def __enter__(self) -> CacheReader:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def _kinds_shown(hidden_kinds: frozenset[str]) -> tuple[str, list[str]]:
    """The condition on ``edges.kind`` that leaves ``hidden_kinds`` unread, and its parameters
    (none where nothing is hidden: the statement is the one read without a filter)."""
    if not hidden_kinds:
        return "", []
    return f" AND kind NOT IN {IN_LIST}", [in_ids(sorted(hidden_kinds))]


class _CacheGraph:
    """A reader's bounded reads of links and nodes, as a ``GraphSource``: links of
    ``hidden_kinds`` are never read."""

    def __init__(self, reader: CacheReader, hidden_kinds: frozenset[str]) -> None:
        self._reader = reader
        self._hidden_kinds = hidden_kinds
        self.graph_nodes = reader._graph_nodes

    def adjacent(self, ids: Sequence[str], cap: int) -> tuple[list[Edge], int]:
        """Links touching ``ids`` (about ``cap`` of each kind at most) and how many were cut."""
        return self._reader._adjacent(ids, cap, self._hidden_kinds)

    def edges_among(self, ids: Sequence[str]) -> set[Edge]:
        """Every link whose two ends are both in ``ids``."""
        return self._reader._edges_among(ids, self._hidden_kinds)

    def link_counts(self, ids: Sequence[str]) -> dict[str, int]:
        """How many links each of ``ids`` has in the whole graph (absent: none)."""
        return self._reader._link_counts(ids, self._hidden_kinds)


@dataclass(frozen=True)
class Probe:
    """The newest rowids an index matches for one expression, newest first, and whether
    they are every match there is."""

    rowids: list[int]
    complete: bool


@dataclass(frozen=True)
class Matching:
    """A parsed query with its SQL filters: ``where`` in full, ``fts_where`` without the
    excluded words (which the index's own query then leaves out)."""

    query: SearchQuery
    where: str
    params: list[Any]
    fts_where: str
    fts_params: list[Any]
    # Every row passing fts_where, newest first, when a small tag or type narrows them (else None).
    candidates: tuple[int, ...] | None = None


def probe_size(table: str, expression: str, needed: int) -> int:
    """How many of an index's newest matches a search reads first (see
    :meth:`CacheReader._fts_ids`): all of a small set of a single word's or of titles
    (titles holding several words are ranked shortest first), else the hits asked for.
    Reading 300 instead of 50 of a pasted nine-word title's newest hits cost 41 instead of
    5 ms on a million items."""
    if table == "title_fts" or " " not in expression:
        return RANK_PROBE_LIMIT
    return needed


def _phrase_refused(exc: StoreBugError) -> bool:
    """Whether an index refused an expression for holding a phrase: a word SQLite's
    tokenizer splits in two (letters newer than its Unicode tables) is one, and a
    column-detail index cannot match phrases. Such an expression matches nothing."""
    return "phrase" in str(exc.__cause__)


def _many_words(expression: str) -> bool:
    """Whether an expression asks for many words together (each one more doclist to read)."""
    return expression.count(" AND ") >= _MANY_WORDS - 1


def _read_forwards_first(expression: str) -> bool:
    """Whether an expression likely matches few rows: many words together, or words without
    others (see :meth:`CacheReader._newest_rowids`)."""
    return _many_words(expression) or " NOT " in expression


# What a row must hold to match a term: the rows the index finds its words in (None: not
# asked) and, for a phrase, its finder.
_TermNeeds = tuple[set[int] | None, PhraseFinder | None]


def _row_test(
    query: SearchQuery, having: dict[Term, set[int]], finders: dict[Term, PhraseFinder]
) -> Callable[[int, str | bytes], bool]:
    """Whether an indexed row (its rowid and lowered JSON) matches ``query``: phrases in its
    JSON by ``finders``, words by the rows of ``having`` that hold them.

    Each term is laid out once as the rows holding its words (None: not asked) and the
    finder of its phrase (None: not a phrase), so the test of a row is a few lookups.
    """

    def needs(term: Term, *, excluded: bool) -> _TermNeeds:
        if not term.phrase:
            return having[term], None
        # An excluded phrase is looked for only where the index holds its words.
        return (having[replace(term, phrase=False)] if excluded else None), finders[term]

    groups = [[needs(term, excluded=False) for term in group] for group in query.groups]
    excluded = [needs(term, excluded=True) for term in query.excluded]
    if len(groups) == 1 and len(groups[0]) == 1 and not excluded:
        rows, alone = groups[0][0]
        if rows is None and alone is not None:
            # A quoted phrase and nothing else, the usual case: its finder is the test (the
            # full list of "bia hel" on 100,000 short items: 833 instead of 881 ms).
            return lambda _rowid, lowered: alone(lowered)

    def found(
        rowid: int, lowered: str | bytes, rows: set[int] | None, finder: PhraseFinder | None
    ) -> bool:
        return (rows is None or rowid in rows) and (finder is None or finder(lowered))

    def holds(rowid: int, lowered: str | bytes) -> bool:
        for group in groups:
            if not any(found(rowid, lowered, rows, finder) for rows, finder in group):
                return False
        return not any(found(rowid, lowered, rows, finder) for rows, finder in excluded)

    return holds


def _backlog_words(query: SearchQuery) -> SearchQuery | None:
    """What a row not indexed yet must hold to be a candidate of ``query``: a word of every
    group (its site's words too), phrases as their words; None when it asks for no word."""
    groups = [
        tuple(replace(term, phrase=False) for term in group if term.words)
        for group in [*query.groups, *([term] for term in site_terms(query.sites))]
    ]
    if not groups:
        return None
    return replace(query, groups=tuple(groups), excluded=())


def _word_terms(query: SearchQuery) -> set[Term]:
    """The terms whose words a row is asked to hold, each anywhere: the query's words, and
    the words of each phrase it excludes (which can only stand where they all do)."""
    terms = [*itertools.chain(*query.groups), *query.excluded]
    words = {term for term in terms if not term.phrase}
    words |= {replace(term, phrase=False) for term in query.excluded if term.phrase}
    return words


def _has_phrase(query: SearchQuery) -> bool:
    """Whether a row's text is read to tell whether it matches ``query`` (for a phrase)."""
    return any(term.phrase for term in [*itertools.chain(*query.groups), *query.excluded])


def _unindexed_matching(
    query: SearchQuery, texts: dict[int, str | bytes], finders: dict[Term, PhraseFinder]
) -> set[int]:
    """Those of rows the index does not hold yet (rowid -> stored JSON text) that match
    ``query``: its words in the texts the index will take in, its phrases in the JSON by
    ``finders`` (one for each), as an indexed row is held to them.

    The JSON settles most rows first: a word missing from it is missing from the texts, and
    working the texts out costs ten times as much (70 against 6 µs an item of a generated
    library of 100,000).
    """
    kept: set[int] = set()
    read: dict[int, str | bytes] = {}
    for rowid, text in texts.items():
        folded = folded_json(text)
        if not all(any(may_hold(term, folded) for term in group) for group in query.groups):
            continue
        if not query.groups and not any(may_hold(term, folded) for term in query.excluded):
            kept.add(rowid)
            continue
        read[rowid] = text
    if not read:
        return kept
    tokens = {rowid: _searchable_words(text) for rowid, text in read.items()}
    having = {
        term: {rowid for rowid, words in tokens.items() if words_in(term, words)}
        for term in _word_terms(query)
    }
    holds = _row_test(query, having, finders)
    reads_text = _has_phrase(query)
    kept.update(
        rowid
        for rowid, text in read.items()
        if holds(rowid, lowered_json(text) if reads_text else "")
    )
    return kept


def _searchable_words(text: str | bytes) -> list[list[str]]:
    """The words of each text an item's index row holds (title, author, summary, body),
    from its stored JSON."""
    data = decoded(text)
    if not isinstance(data, dict):
        return []
    found = columns(data)
    keys = ("text_title", "text_author", "text_summary", "text_body")
    return [text_tokens(found[key] or "") for key in keys]


def _order(nodes: list[ThreadNode], depth: int) -> None:
    """Sort every level of a thread by creation time and set depths from the roots."""
    nodes.sort(key=lambda node: (node.entity.created_at or 0, node.entity.id))
    for node in nodes:
        node.depth = depth
        _order(node.children, depth + 1)


_VIEW_SORTS: dict[str, Sort] = {"date-desc": "newest", "date-asc": "oldest"}
_RELATIVE_RANGES = {
    "day": timedelta(days=1),
    "today": timedelta(days=1),
    "week": timedelta(weeks=1),
    "month": timedelta(days=31),
    "year": timedelta(days=365),
}


def time_range(value: Any) -> tuple[int | None, int | None]:
    """(from, to) epoch ms of a view's ``timeRange``: ``{start|from, end|to}`` or ``"week"``."""
    if isinstance(value, dict):
        start = epoch_ms(value.get("start", value.get("from")))
        end = epoch_ms(value.get("end", value.get("to")))
        return start, end
    if isinstance(value, str):
        key = value.lower().removeprefix("last_").removeprefix("past_").removeprefix("last-")
        span = _RELATIVE_RANGES.get(key.rstrip("s"))
        if span is None and key.endswith(("d", "_days")):
            digits = key.removesuffix("_days").removesuffix("d")
            span = timedelta(days=int(digits)) if digits.isdigit() else None
        if span is not None:
            now = datetime.now(UTC)
            return int((now - span).timestamp() * 1000), None
    return None, None
