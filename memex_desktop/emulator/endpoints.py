"""Handlers of every endpoint: a validated JSON body in, a JSON-serializable answer out.

Shapes of endpoints the contract does not document (views, feeds, tags, share links) follow
the models in :mod:`memex_desktop.api.models`, which parse them leniently. ``collection_keys``
moves the lists of views, feeds and tag names under ``items`` or ``data``, or sends them as a
bare JSON array (memex-api-evidence.md §2 risk 9). Share links name the content by
``contentId`` and the library row by ``libraryEntryId`` (the same id unless
``distinct_library_ids``); both are accepted as ``contentId``.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import UTC, datetime

from memex_desktop.emulator.database import dumps
from memex_desktop.emulator.library import JsonObject, now_ms
from memex_desktop.emulator.problem import (
    ApiProblem,
    optional_bool,
    optional_object,
    optional_str,
    refuse_fields,
    reject_unknown_fields,
)
from memex_desktop.emulator.saves import find_by_url, save_by_url, save_entity
from memex_desktop.emulator.search import (
    SEARCH_FIELDS,
    SORT_VALUES,
    parse_filters,
    parse_search_request,
    run_search,
)
from memex_desktop.emulator.state import EmulatorState

Answer = JsonObject | str  # a str is an already-serialized JSON body
Handler = Callable[[EmulatorState, JsonObject], Answer]

VIEW_DEFINITION_FIELDS = frozenset(
    {
        "query",
        "contentTypes",
        "tag_ids",
        "tag",
        "timeRange",
        "sortBy",
        "includeNotes",
        "dateFrom",
        "dateTo",
    }
)
VIEW_SEARCH_FIELDS = frozenset(
    {
        "viewId",
        "publicToken",
        "refinement",
        "query",
        "offset",
        "limit",
        "sortBy",
        "contentTypes",
        "tag_ids",
        "tag",
        "timeRange",
        "includeNotes",
        "dateFrom",
        "dateTo",
        "enableRerank",
    }
)
ACCESS_MODES = {"view": "public_link", "collaborate": "public_link_contribute"}


def _no_fields(body: JsonObject, where: str) -> None:
    """Endpoints that take an empty object reject anything in it."""
    reject_unknown_fields(body, (), where)


def search(state: EmulatorState, body: JsonObject) -> Answer:
    """``/search`` and ``/search-content``: compact or raw by ``raw``."""
    refuse_fields(body, state.config.rejected_fields)
    if state.config.ignore_view_ids:
        body = {key: value for key, value in body.items() if key != "viewIds"}
    with state.lock:
        request = parse_search_request(body, state)
        ignores_sort = state.config.ignore_sort_by
        if request.sort_by is None and len(request.view_ids) == 1 and not ignores_sort:
            view_sort = (state.views[request.view_ids[0]].get("definition") or {}).get("sortBy")
            if view_sort in SORT_VALUES:
                request.sort_by = view_sort
    return run_search(state, request)


def execute_view_search(state: EmulatorState, body: JsonObject) -> Answer:
    """``/execute-view-search``: a view (by id or public token), always the raw shape."""
    reject_unknown_fields(body, VIEW_SEARCH_FIELDS, "execute-view-search")
    view_id = optional_str(body, "viewId")
    token = optional_str(body, "publicToken")
    refinement = optional_object(body, "refinement") or {}
    with state.lock:
        if view_id is None and token is not None:
            view_id = next(
                (key for key, view in state.views.items() if view.get("publicToken") == token),
                None,
            )
            if view_id is None:
                raise ApiProblem(404, "No view is shared with this public token")
        if view_id is None:
            raise ApiProblem(400, "viewId or publicToken is required")
        if view_id not in state.views:
            raise ApiProblem(404, f"No view with id {view_id}")
        merged: JsonObject = {
            key: value for key, value in body.items() if key not in ("viewId", "refinement")
        }
        merged.pop("publicToken", None)
        merged.update(refinement)
        definition = state.views[view_id].get("definition") or {}
        merged.setdefault("sortBy", definition.get("sortBy"))
        merged.setdefault("includeNotes", definition.get("includeNotes"))
        merged["viewIds"] = [view_id]
        merged = {key: value for key, value in merged.items() if value is not None}
        request = parse_search_request(merged, state, allowed=SEARCH_FIELDS)
    return run_search(state, request, raw=True)


def create_view(state: EmulatorState, body: JsonObject) -> Answer:
    """``/create-view``: a named saved search scope."""
    reject_unknown_fields(body, {"name", "title", "description", "definition"}, "create-view")
    name = optional_str(body, "name") or optional_str(body, "title")
    if not name:
        raise ApiProblem(400, "name is required")
    definition = optional_object(body, "definition") or {}
    reject_unknown_fields(definition, VIEW_DEFINITION_FIELDS, "create-view definition")
    with state.lock:
        parse_filters(definition, state.db.types())
        sort_by = optional_str(definition, "sortBy")
        if sort_by is not None and sort_by not in SORT_VALUES:
            raise ApiProblem(400, f"sortBy must be one of {', '.join(SORT_VALUES)}")
        optional_bool(definition, "includeNotes")
        view: JsonObject = {
            "id": f"view-{uuid.uuid4().hex[:12]}",
            "name": name,
            "definition": definition,
            "created_at": now_ms(),
        }
        description = optional_str(body, "description")
        if description:
            view["description"] = description
        state.views[view["id"]] = view
    return {"view": view}


def _collection(state: EmulatorState, key: str, items: list[object]) -> Answer:
    """A list answered under ``key``, or as ``collection_keys`` says."""
    style = state.config.collection_keys
    if style == "bare":
        return dumps(items)
    return {key if style == "default" else style: items}


def list_views(state: EmulatorState, body: JsonObject) -> Answer:
    """``/list-views``."""
    _no_fields(body, "list-views")
    with state.lock:
        return _collection(state, "views", list(state.views.values()))


def get_available_tag_names(state: EmulatorState, body: JsonObject) -> Answer:
    """``/get-available-tag-names``: the names of every tag, sorted."""
    _no_fields(body, "get-available-tag-names")
    with state.lock:
        names = sorted({str(tag.get("name")) for tag in state.tags.values() if tag.get("name")})
    return _collection(state, "tagNames", list(names))


def list_feeds(state: EmulatorState, body: JsonObject) -> Answer:
    """``/list-feeds``: subscribed RSS and YouTube feeds."""
    _no_fields(body, "list-feeds")
    with state.lock:
        return _collection(state, "feeds", list(state.feeds))


def get_available_plans(state: EmulatorState, body: JsonObject) -> Answer:
    """``/get-available-plans``: ``AvailablePlansOutput``."""
    _no_fields(body, "get-available-plans")
    with state.lock:
        return dict(state.plans)


def ensure_shared_library_entry_link(state: EmulatorState, body: JsonObject) -> Answer:
    """``/ensure-shared-library-entry-link``: create or update an item's share link."""
    reject_unknown_fields(
        body, {"contentId", "libraryEntryId", "access"}, "ensure-shared-library-entry-link"
    )
    content_id = optional_str(body, "contentId") or optional_str(body, "libraryEntryId")
    if not content_id:
        raise ApiProblem(400, "contentId is required")
    access = optional_str(body, "access") or "view"
    if access not in ACCESS_MODES:
        raise ApiProblem(400, "access must be view or collaborate")
    with state.lock:
        stored_id = state.db.resolve(content_id)
        entity = None if stored_id is None else state.db.get(stored_id)
        if stored_id is None or entity is None:
            raise ApiProblem(404, f"No content with id {content_id}")
        content_id = stored_id
        link = state.links.get(content_id)
        if link is None:
            token = uuid.uuid4().hex
            link = {
                "sharedResourceId": f"share-{uuid.uuid4().hex[:12]}",
                "contentId": content_id,
                "libraryEntryId": state.served_id(content_id),
                "contentType": entity.type,
                "publicToken": token,
                "url": f"https://memex.garden/dashboard?shared={token}",
                "createdAt": datetime.now(UTC).isoformat().replace("+00:00", "Z"),
            }
        link = {**link, "access": access, "accessMode": ACCESS_MODES[access]}
        state.links[content_id] = link
    return {"link": link}


def list_shared_library_entry_links(state: EmulatorState, body: JsonObject) -> Answer:
    """``/list-shared-library-entry-links`` (optionally one content type or item)."""
    reject_unknown_fields(body, {"contentType", "contentId"}, "list-shared-library-entry-links")
    content_type = optional_str(body, "contentType")
    content_id = optional_str(body, "contentId")
    with state.lock:
        if content_id is not None:
            content_id = state.db.resolve(content_id) or content_id
        links = [
            link
            for link in state.links.values()
            if (content_type is None or link["contentType"] == content_type)
            and (content_id is None or link["contentId"] == content_id)
        ]
    return {"links": links}


def save_content_by_url(state: EmulatorState, body: JsonObject) -> Answer:
    """``/save-content-by-url``."""
    return save_by_url(state, body)


def find_content_by_url(state: EmulatorState, body: JsonObject) -> Answer:
    """``/find-content-by-url`` (only with ``exact_url_lookup``; 404 otherwise)."""
    return find_by_url(state, body)


def save_content_entity(state: EmulatorState, body: JsonObject) -> Answer:
    """``/save-content-entity`` (single, batch ``items``, ``responseMode: "receipt"``)."""
    return save_entity(state, body)


ROUTES: dict[str, Handler] = {
    "/search": search,
    "/search-content": search,
    "/save-content-entity": save_content_entity,
    "/save-content-by-url": save_content_by_url,
    "/find-content-by-url": find_content_by_url,
    "/create-view": create_view,
    "/list-views": list_views,
    "/execute-view-search": execute_view_search,
    "/get-available-tag-names": get_available_tag_names,
    "/list-feeds": list_feeds,
    "/ensure-shared-library-entry-link": ensure_shared_library_entry_link,
    "/list-shared-library-entry-links": list_shared_library_entry_links,
    "/get-available-plans": get_available_plans,
}
SAVE_PATHS = frozenset({"/save-content-entity", "/save-content-by-url"})
