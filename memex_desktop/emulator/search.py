"""``/search``: validation, filtering in SQL, and the raw and compact response shapes.

Choices where the public contract is silent (documented so clients can rely on them):

- Every entity is a search result in its own right, annotations (notes and replies), chat
  threads and selectors included. An empty ``query`` therefore lists the WHOLE library by date,
  which is what a full sync pages through (``query: "", raw: true, includeNotes: true,
  sortBy: "date-desc"``). ``includeNotes`` additionally nests, under each result, the
  annotations attached to it (``reference_content_ids[0]`` is the result): a note appears both
  as a result and nested under its target, and a reply both as a result and nested under the
  note it answers.
- Entities still being processed (``metadata.status: "pending"``) are not searchable.
- Raw results are the stored entity JSON verbatim (every field kept) plus ``annotations`` (with
  ``includeNotes``) and, for annotations and chat threads, ``references``. Nested annotations
  carry ``resolvedReferences`` and ``references`` (the items they mention, without the one they
  are attached to); a referenced annotation gets its own ``references`` one level deeper.
- ``referencesByResultId`` holds the stored entry of every result and nested annotation; with
  ``includeNotes`` a result's entry also lists its notes, as the documented example does.
  ``referencedEntities`` holds items the results point at that are not on the page.
- Relevance is FTS5 bm25 over title (weighted) and all text fields, words OR-matched;
  ``#name`` tokens in the query filter by tag name. ``sortBy`` date orders use ``created_at``.
- Usage: a search costs 0 unless ``enableRerank: true`` is sent (charged
  ``rerank_cost_micros``); compact searches with a query report ``rerankApplied: true`` for free.
- ``timeRange`` bounds (epoch ms or ISO, both inclusive) filter ``created_at`` before paging, so
  ``offset`` counts within the window.

Profile switches (:mod:`memex_desktop.emulator.config`) change these choices; each is off by
default:

- ``max_page_size`` caps ``limit`` silently; ``meta.limit`` reports the applied limit unless
  ``echo_requested_limit``, which echoes the one asked for (or ``default_page_size``).
- ``unlisted_every: N`` drops, after ``LIMIT``/``OFFSET``, every result whose row number
  (``seq``: load order of the library file, then save order, from 1) is a multiple of N, text
  searches and views included; ``meta.returnedCount`` counts what is left. Those entities still
  appear nested under their parents and in ``referencedEntities``.
  :meth:`~memex_desktop.emulator.state.EmulatorState.unlisted_ids` names them.
- ``unlisted_types``: when the query has no words, those types are left out of the results
  (before paging) unless ``contentTypes`` names them; they stay nested and referenced.
- ``created_at_resolution_ms``: ``created_at`` is stored rounded down, so filters, ordering and
  payloads all see the coarse value.
- ``unstable_ties``: rows with equal ``created_at`` (or relevance) are ordered by a hash salted
  with the effective offset and limit instead of by row number: the same request always gets the
  same order, the next page may repeat or skip tied items.
- ``ignore_offset``: pages always start at 0; ``meta.offset`` still echoes the request.
- ``ignore_sort_by``: any ``sortBy`` is accepted (not validated) and ignored, a view's too; a
  query with words is ordered by relevance and one without by a hash of the id, not by date.
- ``ignore_view_ids``: ``/search`` accepts ``viewIds`` and ignores them (``/execute-view-search``
  still runs its view): a search asked within a view answers from the whole library.
- ``distinct_library_ids`` and ``strip_annotation_references`` change the served entities
  (:mod:`memex_desktop.emulator.served`). With the latter, the ``referencesByResultId`` entry of
  every annotation lists its links (parent first).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from memex_desktop.emulator.compact import compact_item
from memex_desktop.emulator.database import EntityRow, dumps
from memex_desktop.emulator.library import (
    SUPPORTED_CONTENT_TYPES,
    JsonObject,
    reference_ids_of,
    timestamp_ms,
)
from memex_desktop.emulator.problem import (
    ApiProblem,
    optional_bool,
    optional_int,
    optional_number,
    optional_object,
    optional_str,
    reject_unknown_fields,
    string_list,
)
from memex_desktop.emulator.state import EmulatorState

SEARCH_FIELDS = frozenset(
    {
        "query",
        "rewriteQuery",
        "forceFullQueryProcessing",
        "raw",
        "enableRerank",
        "rerankWindow",
        "includeFields",
        "excludeFields",
        "tag",
        "tagMatchStrategy",
        "dateFrom",
        "dateTo",
        "tag_ids",
        "contentTypes",
        "timeRange",
        "sortBy",
        "offset",
        "limit",
        "relevanceThreshold",
        "includeNotes",
        "includeChunkContext",
        "twitterBotDashboardTid",
        "demoSlug",
        "publicToken",
        "viewIds",
        "feedIds",
        "feedScope",
    }
)
SORT_VALUES = ("date-desc", "date-asc", "relevance")
_TAG_TOKEN = re.compile(r"#([A-Za-z0-9_-]+)")
_WORD = re.compile(r"\w+", re.UNICODE)


@dataclass
class Filters:
    """The parts of a search (or view definition) that select entities."""

    text: str = ""
    content_types: list[str] = field(default_factory=list)
    tag_ids: list[str] = field(default_factory=list)
    tag_names: list[str] = field(default_factory=list)
    tag_match: str = "AND"
    start: int | None = None
    end: int | None = None


@dataclass
class SearchRequest:
    """A validated search request."""

    filters: Filters
    raw: bool
    limit: int
    offset: int
    requested_limit: int
    sort_by: str | None
    include_notes: bool
    enable_rerank: bool | None
    view_ids: list[str]
    feed_ids: list[str]
    feed_scope: str | None
    include_fields: list[str]
    exclude_fields: list[str]


def _content_types(body: JsonObject, key: str, present: set[str]) -> list[str]:
    """``contentTypes`` validated against the supported list (and types in the library)."""
    values = string_list(body, key)
    supported = set(SUPPORTED_CONTENT_TYPES) | present
    bad = [value for value in values if value not in supported]
    if bad:
        raise ApiProblem(
            400,
            f"Unsupported contentTypes filter values: {', '.join(bad)}. "
            f"Supported values: {', '.join(SUPPORTED_CONTENT_TYPES)}.",
        )
    return values


def _time_bound(value: Any, key: str) -> int | None:
    """A ``timeRange`` bound or ``dateFrom``/``dateTo`` value as epoch milliseconds."""
    if value is None:
        return None
    ms = timestamp_ms(value)
    if ms is None:
        raise ApiProblem(400, f"{key} must be epoch milliseconds or an ISO date")
    return ms


def parse_filters(body: JsonObject, present_types: set[str]) -> Filters:
    """The entity-selecting fields of a search body or view definition."""
    query = optional_str(body, "query") or ""
    tag_names = [name for name in _TAG_TOKEN.findall(query)]
    text = _TAG_TOKEN.sub(" ", query).strip()
    tag_field = body.get("tag")
    if isinstance(tag_field, str):
        tag_names += [name for name in re.split(r"[\s,]+", tag_field) if name]
    elif isinstance(tag_field, list) and all(isinstance(item, str) for item in tag_field):
        tag_names += [name for name in tag_field if name]
    elif tag_field is not None:
        raise ApiProblem(400, "tag must be a string or an array of strings")
    match = optional_str(body, "tagMatchStrategy") or "AND"
    if match.upper() not in ("AND", "OR"):
        raise ApiProblem(400, "tagMatchStrategy must be AND or OR")
    time_range = optional_object(body, "timeRange") or {}
    unknown = sorted(set(time_range) - {"start", "end"})
    if unknown:
        raise ApiProblem(400, f"Unknown timeRange field(s): {', '.join(unknown)}")
    start = _time_bound(time_range.get("start"), "timeRange.start")
    end = _time_bound(time_range.get("end"), "timeRange.end")
    if start is None:
        start = _time_bound(body.get("dateFrom"), "dateFrom")
    if end is None:
        end = _time_bound(body.get("dateTo"), "dateTo")
        if end is not None and isinstance(body.get("dateTo"), str) and len(body["dateTo"]) == 10:
            end += 86_400_000 - 1  # a plain date includes that whole day
    return Filters(
        text=text,
        content_types=_content_types(body, "contentTypes", present_types),
        tag_ids=string_list(body, "tag_ids"),
        tag_names=tag_names,
        tag_match=match.upper(),
        start=start,
        end=end,
    )


def parse_search_request(
    body: JsonObject, state: EmulatorState, *, allowed: frozenset[str] = SEARCH_FIELDS
) -> SearchRequest:
    """Validate a ``/search`` body; :class:`ApiProblem` (400) on anything malformed."""
    reject_unknown_fields(body, allowed, "search")
    with state.lock:
        present = state.db.types()
    filters = parse_filters(body, present)
    for key in ("rewriteQuery", "forceFullQueryProcessing", "includeChunkContext"):
        optional_bool(body, key)
    optional_number(body, "relevanceThreshold")
    optional_int(body, "rerankWindow", minimum=1)
    for key in ("twitterBotDashboardTid", "demoSlug", "publicToken"):
        optional_str(body, key)
    if state.config.ignore_sort_by:
        sort_by = None
    else:
        sort_by = optional_str(body, "sortBy")
        if sort_by is not None and sort_by not in SORT_VALUES:
            raise ApiProblem(400, f"sortBy must be one of {', '.join(SORT_VALUES)}")
    feed_scope = optional_str(body, "feedScope")
    if feed_scope is not None and feed_scope != "all":
        raise ApiProblem(400, 'feedScope must be "all"')
    view_ids = string_list(body, "viewIds")
    missing = [view for view in view_ids if view not in state.views]
    if missing:
        raise ApiProblem(400, f"Unknown viewIds: {', '.join(missing)}")
    feed_ids = string_list(body, "feedIds")
    known_feeds = {feed["id"] for feed in state.feeds}
    missing = [feed for feed in feed_ids if feed not in known_feeds]
    if missing:
        raise ApiProblem(400, f"Unknown feedIds: {', '.join(missing)}")
    requested = optional_int(body, "limit", minimum=1)
    if requested is None:
        requested = state.config.default_page_size
    return SearchRequest(
        filters=filters,
        raw=bool(optional_bool(body, "raw")),
        limit=min(requested, state.config.max_page_size),
        offset=optional_int(body, "offset", minimum=0) or 0,
        requested_limit=requested,
        sort_by=sort_by,
        include_notes=bool(optional_bool(body, "includeNotes")),
        enable_rerank=optional_bool(body, "enableRerank"),
        view_ids=view_ids,
        feed_ids=feed_ids,
        feed_scope=feed_scope,
        include_fields=string_list(body, "includeFields"),
        exclude_fields=string_list(body, "excludeFields"),
    )


def _fts_query(text: str) -> str | None:
    """An FTS5 expression OR-matching every word of ``text`` (``None`` when no words)."""
    words = _WORD.findall(text)
    return " OR ".join(f'"{word}"' for word in words) if words else None


def _filter_sql(state: EmulatorState, filters: Filters) -> tuple[list[str], list[Any]]:
    """SQL conditions (over alias ``e``) and parameters selecting ``filters``."""
    where: list[str] = []
    params: list[Any] = []
    if filters.content_types:
        where.append(f"e.type IN ({','.join('?' * len(filters.content_types))})")
        params += filters.content_types
    tag_ids = list(filters.tag_ids)
    by_name = {str(tag.get("name", "")).lower(): tag_id for tag_id, tag in state.tags.items()}
    # An unknown tag name matches nothing rather than being ignored.
    tag_ids += [by_name.get(name.lower(), f"\x00unknown:{name}") for name in filters.tag_names]
    if tag_ids and filters.tag_match == "OR":
        where.append(
            "e.seq IN (SELECT entity_seq FROM entity_tags WHERE tag_id IN "
            f"({','.join('?' * len(tag_ids))}))"
        )
        params += tag_ids
    else:
        for tag_id in tag_ids:
            where.append("e.seq IN (SELECT entity_seq FROM entity_tags WHERE tag_id = ?)")
            params.append(tag_id)
    if filters.start is not None:
        where.append("e.created_at >= ?")
        params.append(filters.start)
    if filters.end is not None:
        where.append("e.created_at <= ?")
        params.append(filters.end)
    return where, params


def _view_sql(state: EmulatorState, view_ids: list[str]) -> tuple[str, list[Any]]:
    """One condition matching any of the views (each view's definition ANDed)."""
    alternatives: list[str] = []
    params: list[Any] = []
    present = state.db.types()
    for view_id in view_ids:
        definition = state.views[view_id].get("definition") or {}
        filters = parse_filters(
            {key: value for key, value in definition.items() if key in _VIEW_FILTER_KEYS},
            present,
        )
        where, view_params = _filter_sql(state, filters)
        fts = _fts_query(filters.text)
        if fts is not None:
            state.db.ensure_fts()
            where.append("e.seq IN (SELECT rowid FROM entity_fts WHERE entity_fts MATCH ?)")
            view_params.append(fts)
        alternatives.append("(" + (" AND ".join(where) or "1") + ")")
        params += view_params
    return "(" + " OR ".join(alternatives) + ")", params


_VIEW_FILTER_KEYS = ("query", "contentTypes", "tag_ids", "tag", "timeRange", "dateFrom", "dateTo")


def find_rows(state: EmulatorState, request: SearchRequest) -> list[EntityRow]:
    """The page of entities a request selects, in response order (caller holds the lock)."""
    config = state.config
    where, params = _filter_sql(state, request.filters)
    where.insert(0, "e.ready = 1")
    if request.view_ids:
        condition, view_params = _view_sql(state, request.view_ids)
        where.append(condition)
        params += view_params
    if request.feed_ids:
        where.append(f"e.feed_id IN ({','.join('?' * len(request.feed_ids))})")
        params += request.feed_ids
    elif request.feed_scope == "all":
        where.append("e.feed_id IS NOT NULL")
    fts = _fts_query(request.filters.text)
    hidden = sorted(set(config.unlisted_types) - set(request.filters.content_types))
    if fts is None and hidden:
        where.append(f"e.type NOT IN ({','.join('?' * len(hidden))})")
        params += hidden
    sort = request.sort_by
    offset = 0 if config.ignore_offset else request.offset
    # Without a stable tiebreak the order of ties depends on the request, reproducibly.
    salt = f"{offset}:{request.limit}"
    if fts is not None:
        state.db.ensure_fts()
    # Page through row numbers only (index-only), then fetch the page's rows.
    if fts is not None and sort in (None, "relevance"):
        tiebreak = "mix_rank(e.seq, ?)" if config.unstable_ties else "e.seq DESC"
        sql = (
            "SELECT e.seq FROM entities e JOIN (SELECT rowid AS hit,"
            " bm25(entity_fts, 4.0, 1.0) AS score FROM entity_fts WHERE entity_fts MATCH ?) m"
            f" ON m.hit = e.seq WHERE {' AND '.join(where)}"
            f" ORDER BY m.score, e.created_at DESC, {tiebreak} LIMIT ? OFFSET ?"
        )
        order_params = [salt] if config.unstable_ties else []
        seqs = state.db.column(sql, [fts, *params, *order_params, request.limit, offset])
        return _listable(state, seqs)
    if fts is not None:
        where.append("e.seq IN (SELECT rowid FROM entity_fts WHERE entity_fts MATCH ?)")
        params.append(fts)
    direction = "ASC" if sort == "date-asc" else "DESC"
    if config.ignore_sort_by:
        order, order_params = "mix_rank(e.id, 'order')", []
    elif config.unstable_ties:
        order, order_params = f"e.created_at {direction}, mix_rank(e.seq, ?)", [salt]
    else:
        order, order_params = f"e.created_at {direction}, e.seq {direction}", []
    sql = (
        f"SELECT e.seq FROM entities e WHERE {' AND '.join(where)}"
        f" ORDER BY {order} LIMIT ? OFFSET ?"
    )
    seqs = state.db.column(sql, [*params, *order_params, request.limit, offset])
    return _listable(state, seqs)


def _listable(state: EmulatorState, seqs: list[int]) -> list[EntityRow]:
    """The rows of a page, without those ``unlisted_every`` drops after LIMIT/OFFSET."""
    every = state.config.unlisted_every
    if every > 0:
        seqs = [seq for seq in seqs if seq % every != 0]
    return state.db.rows_by_seq(seqs)


def _splice(object_json: str, extra: list[tuple[str, str]]) -> str:
    """Add keys (already-serialized values) to a serialized JSON object without re-parsing."""
    if not extra:
        return object_json
    added = "".join(f",{json.dumps(key)}:{value}" for key, value in extra)
    return object_json[:-1] + added + "}" if object_json != "{}" else "{" + added[1:] + "}"


def _array(items: list[str]) -> str:
    """A JSON array of already-serialized items."""
    return "[" + ",".join(items) + "]"


class _Graph:
    """Entities around one page of results, fetched with a few batched queries."""

    def __init__(self, state: EmulatorState, rows: list[EntityRow], include_notes: bool) -> None:
        db = state.db
        self.presenter = state.presenter
        self._served: dict[str, str] = {}
        self.rows = rows
        self.page_ids = {row.id for row in rows}
        self.notes: dict[str, list[EntityRow]] = {}
        if include_notes and rows:
            for note in db.annotations_on([row.id for row in rows]):
                self.notes.setdefault(note.parent_id or "", []).append(note)
        wanted: list[str] = []
        for row in rows:
            wanted += row.targets
        for notes in self.notes.values():
            for note in notes:
                wanted += self.mentioned(note)
        self.lookup: dict[str, EntityRow] = db.get_many(wanted)
        deeper = [
            target
            for row in self.lookup.values()
            if row.type == "annotation"
            for target in row.targets
            if target not in self.lookup
        ]
        if deeper:
            self.lookup.update(db.get_many(deeper))

    @staticmethod
    def mentioned(row: EntityRow) -> list[str]:
        """What an annotation points at, without the entity it is attached to."""
        return [target for target in row.targets if target != row.parent_id]

    def served(self, row: EntityRow) -> str:
        """The entity's JSON as search payloads carry it (computed once per response)."""
        text = self._served.get(row.id)
        if text is None:
            text = self._served[row.id] = self.presenter.entity_json(row.json)
        return text

    def reference_json(self, row: EntityRow, nest: bool) -> str:
        """A referenced entity; a referenced annotation gets its own references once."""
        if nest and row.type == "annotation":
            inner = [
                self.served(self.lookup[t]) for t in row.targets if t in self.lookup and t != row.id
            ]
            return _splice(self.served(row), [("references", _array(inner))])
        return self.served(row)

    def note_json(self, note: EntityRow) -> str:
        """A nested annotation with ``resolvedReferences`` and ``references``."""
        direct = [self.lookup[t] for t in self.mentioned(note) if t in self.lookup]
        return _splice(
            self.served(note),
            [
                ("resolvedReferences", _array([self.served(row) for row in direct])),
                ("references", _array([self.reference_json(row, True) for row in direct])),
            ],
        )

    def entry(self, row: EntityRow, notes: list[EntityRow], list_notes: bool) -> str:
        """The ``referencesByResultId`` entry of an entity (links are content ids).

        When annotations lose ``reference_content_ids`` their entry is the only place left for
        their links, so every link is listed there, the parent first.
        """
        links = row.targets if row.type == "annotation" and self.presenter.strip_references else []
        listed_notes = [note.id for note in notes] if list_notes else []
        if not links and not listed_notes:
            return row.refs
        parsed = json.loads(row.refs)
        items = parsed.get("contentEntityIds")
        items = items if isinstance(items, list) else []
        known = set(reference_ids_of(parsed))
        if row.parent_id is not None and row.parent_id in links and row.parent_id not in known:
            items.insert(0, row.parent_id)
            known.add(row.parent_id)
        for item in [*links, *listed_notes]:
            if item not in known:
                items.append(item)
                known.add(item)
        parsed["contentEntityIds"] = items
        return dumps(parsed)


def raw_response(state: EmulatorState, request: SearchRequest, rows: list[EntityRow]) -> str:
    """The raw (``raw: true``) response body (caller holds the lock)."""
    graph = _Graph(state, rows, request.include_notes)
    key = state.presenter.served_id
    list_notes = state.config.list_notes_in_references
    results: list[str] = []
    refs: dict[str, str] = {}
    referenced: dict[str, str] = {}
    nested: set[str] = set()
    tag_seqs = [row.seq for row in rows]
    for row in rows:
        extra: list[tuple[str, str]] = []
        notes = graph.notes.get(row.id, [])
        if request.include_notes:
            extra.append(("annotations", _array([graph.note_json(note) for note in notes])))
        if row.type in ("annotation", "chatThread"):
            inline = [
                graph.reference_json(graph.lookup[t], True)
                for t in row.targets
                if t in graph.lookup
            ]
            extra.append(("references", _array(inline)))
        body = _splice(graph.served(row), extra)
        if request.include_fields or request.exclude_fields:
            body = _project(body, request.include_fields, request.exclude_fields)
        results.append(body)
        refs[key(row.id)] = graph.entry(row, notes, list_notes)
        for target in row.targets:
            if target not in graph.page_ids and target in graph.lookup:
                referenced.setdefault(target, graph.served(graph.lookup[target]))
        for note in notes:
            nested.add(note.id)
        for note in notes:
            refs.setdefault(key(note.id), graph.entry(note, [], False))
            tag_seqs.append(note.seq)
            for target in graph.mentioned(note):
                found = graph.lookup.get(target)
                if found is not None and found.type == "annotation":
                    refs.setdefault(key(found.id), graph.entry(found, [], False))
    tag_ids = _tags_of(state, tag_seqs)
    charged, rerank = _charge_details(request)
    meta = _meta(state, request, len(rows), charged, rerank)
    references_json = "{" + ",".join(f"{json.dumps(k)}:{v}" for k, v in refs.items()) + "}"
    return (
        '{"results":' + _array(results)
        + ',"extraEntities":[]'
        + ',"referencesByResultId":' + references_json
        + ',"referencedEntities":'
        + _array([text for key, text in referenced.items() if key not in nested])
        + ',"referencedTags":' + state.referenced_tags_json(tag_ids)
        + ',"meta":' + meta + "}"
    )  # fmt: skip


def compact_response(state: EmulatorState, request: SearchRequest, rows: list[EntityRow]) -> str:
    """The compact (``raw`` false/omitted) response body (caller holds the lock)."""
    graph = _Graph(state, rows, request.include_notes)
    cache: dict[str, JsonObject | None] = {}
    page = {row.id: row for row in rows}

    def lookup(entity_id: str) -> JsonObject | None:
        if entity_id not in cache:
            row = graph.lookup.get(entity_id) or page.get(entity_id)
            if row is None:
                row = state.db.get(entity_id)
                row = row if row is not None and row.id else None
            cache[entity_id] = None if row is None else row.data()
        return cache[entity_id]

    results = []
    for row in rows:
        notes = [note.data() for note in graph.notes.get(row.id, [])]
        results.append(
            compact_item(row.data(), lookup, notes=notes if request.include_notes else None)
        )
    charged, rerank = _charge_details(request)
    meta = _meta(state, request, len(rows), charged, rerank)
    return '{"results":' + dumps(results) + ',"meta":' + meta + "}"


def _project(body: str, include: list[str], exclude: list[str]) -> str:
    """``includeFields``/``excludeFields`` applied to one result (its ids and type always kept)."""
    data = json.loads(body)
    if include:
        keep = {*include, "id", "content_id", "type"}
        data = {key: value for key, value in data.items() if key in keep}
    for key in exclude:
        if key not in ("id", "content_id", "type"):
            data.pop(key, None)
    return dumps(data)


def _tags_of(state: EmulatorState, seqs: list[int]) -> list[str]:
    """Tag ids linked to any of the entity rows ``seqs``."""
    found: list[str] = []
    for start in range(0, len(seqs), 900):
        chunk = seqs[start : start + 900]
        marks = ",".join("?" * len(chunk))
        found += [
            str(tag)
            for tag in state.db.column(
                f"SELECT DISTINCT tag_id FROM entity_tags WHERE entity_seq IN ({marks})", chunk
            )
        ]
    return sorted(set(found))


def _charge_details(request: SearchRequest) -> tuple[bool, bool]:
    """(charged, rerank applied) of a request: only an explicit ``enableRerank`` costs."""
    charged = request.enable_rerank is True
    if request.enable_rerank is not None:
        return charged, request.enable_rerank and bool(request.filters.text)
    return False, not request.raw and bool(request.filters.text)


def search_cost(state: EmulatorState, request: SearchRequest) -> int:
    """Micros a request costs."""
    charged, _ = _charge_details(request)
    return state.config.rerank_cost_micros if charged else 0


def _meta(
    state: EmulatorState, request: SearchRequest, returned: int, charged: bool, rerank: bool
) -> str:
    """The ``meta`` object of a search."""
    return dumps(
        {
            "offset": request.offset,
            "limit": (
                request.requested_limit if state.config.echo_requested_limit else request.limit
            ),
            "returnedCount": returned,
            "rerankApplied": rerank,
            "usageMicrosCharged": state.config.rerank_cost_micros if charged else 0,
            "remainingUsageBalance": state.remaining_balance(),
        }
    )


def run_search(state: EmulatorState, request: SearchRequest, *, raw: bool | None = None) -> str:
    """Charge, select and serialize one search (raw when ``raw`` or the request says so)."""
    with state.lock:
        state.promote_due()
        cost = search_cost(state, request)
        if not state.try_charge(cost):
            raise ApiProblem(
                402,
                "Insufficient usage balance for this search.",
                errorCode="INSUFFICIENT_CREDITS",
                upgradeOptions=state.plans,
            )
        rows = find_rows(state, request)
        if raw if raw is not None else request.raw:
            return raw_response(state, request, rows)
        return compact_response(state, request, rows)
