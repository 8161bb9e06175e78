"""``/save-content-by-url`` and ``/save-content-entity``: asynchronous, idempotent saves.

A new item is stored at once with ``metadata.status: "pending"`` and becomes searchable (and
``indexing-done``) after the configured processing delay. Saving the same normalized URL again,
or an entity whose ``id`` or ``external_id`` exists, returns the existing entity with
``isNew: false`` (an entity save merges its fields into it; identical data changes nothing, not
even ``updated_at``). Only new items are charged ``save_cost_micros``; a balance that cannot
cover it answers 402 ``SAVE_CONTENT_INSUFFICIENT_CREDITS``.

Choices where the public contract is silent: a note (``type: "annotation"``) is attached to
``sourceContentId`` (or the entity whose ``external_id`` is ``sourceContentExternalId``), then
linked to ``data.reference_content_ids`` and ``relatedContentIds``, in that order; the first
link is what it is attached to. Ids the request names may be content or library-row ids.

Profile switches (:mod:`memex_desktop.emulator.config`), each off by default:

- ``note_links_from_related_ids`` behaves as the first-party shared save code
  (memex-api-evidence.md §1b R7, §4 item 5): ``data.reference_content_ids`` is deleted from
  every save, and a note's links are the entity whose ``external_id`` is
  ``sourceContentExternalId`` followed by ``relatedContentIds`` (``sourceContentId`` is not
  used for notes). An id of ``relatedContentIds`` that names no entity is a 400
  ``Failed to resolve reference content IDs: <ids>``; a note with text (``data.text`` or text in
  ``data.content``) and no link is a 500 ``Annotation comment selector requires a referenced
  content external_id``; an unknown ``sourceContentExternalId`` counts as no source.
- ``dedupe_notes_by_external_id: False``: notes are idempotent only by ``data.id`` (an
  existing one, content or library-row id, updates that note); the same ``external_id`` (or
  URL) saved again makes another note.
- ``strict_selectors`` behaves as the first-party highlight save may (research §5.2): a
  ``selector`` is put on the item named by top-level ``sourceContentId`` (its absence is a 400
  ``A selector requires sourceContentId``, an unknown id a 400 ``Failed to resolve reference
  content IDs``), and a ``data`` field beyond those first-party code sends (such as the
  context of a quote) is refused with 400 ``Unknown field: data.<name>``.
- ``rejected_fields``: a listed top-level or ``data`` field is refused with 400
  ``Unknown field: <name>``, before anything else is checked.
- ``distinct_library_ids``: the ``entity``/``entities`` of a response carry ``id`` = the
  library-row id and ``content_id`` = the content id (:mod:`memex_desktop.emulator.served`).
"""

from __future__ import annotations

import time
import uuid
from typing import Any
from urllib.parse import parse_qs, urlsplit

from memex_desktop.emulator.library import (
    SEARCH_DECORATIONS,
    JsonObject,
    derive_references,
    detect_type,
    external_id_for_url,
    normalize_url,
    now_ms,
    prosemirror_text,
    reference_targets,
)
from memex_desktop.emulator.problem import (
    ApiProblem,
    optional_bool,
    optional_str,
    refuse_fields,
    reject_unknown_fields,
    string_list,
)
from memex_desktop.emulator.state import EmulatorState

SAVE_URL_FIELDS = frozenset({"url", "tag_ids", "tags"})
SAVE_ITEM_FIELDS = frozenset(
    {
        "data",
        "waitForEnrichment",
        "sourceContentId",
        "sourceContentExternalId",
        "relatedContentIds",
        "unsavedReferences",
        "publicToken",
        "sharedResourceId",
    }
)
SAVE_ENTITY_FIELDS = SAVE_ITEM_FIELDS | {"responseMode", "items"}
RESPONSE_MODES = ("receipt", "entity")
# The first-party shared save code's error for a note with text and nothing to attach it to.
NOTE_WITHOUT_SOURCE = "Annotation comment selector requires a referenced content external_id"
# What a highlight's ``data`` may hold for ``strict_selectors``: the fields first-party code
# is seen sending (research §5.2, §9.6), and what every entity may carry.
FIRST_PARTY_SELECTOR_FIELDS = frozenset(
    {
        "id", "type", "external_id", "target_id", "target_entity", "selector_type", "text",
        "start_time", "end_time", "tag_ids", "private", "created_at", "updated_at", "metadata",
    }
)  # fmt: skip
SELECTOR_WITHOUT_SOURCE = "A selector requires sourceContentId"


def _insufficient(state: EmulatorState) -> ApiProblem:
    """The 402 a save gets when the balance cannot cover it, with the plans to buy."""
    return ApiProblem(
        402,
        "Insufficient usage balance to save content.",
        errorCode="SAVE_CONTENT_INSUFFICIENT_CREDITS",
        upgradeOptions=state.plans,
    )


def _check_tags(state: EmulatorState, tag_ids: list[str]) -> None:
    """400 when a tag id does not exist (tags are created elsewhere)."""
    unknown = [tag for tag in tag_ids if tag not in state.tags]
    if unknown:
        raise ApiProblem(400, f"Unknown tag_ids: {', '.join(unknown)}")


def _tags_for(state: EmulatorState, entity: JsonObject) -> list[JsonObject]:
    """The tag entities of an entity's ``tag_ids``."""
    ids = entity.get("tag_ids")
    return [state.tags[tag] for tag in ids or [] if isinstance(tag, str) and tag in state.tags]


def _store(state: EmulatorState, entity: JsonObject, *, new: bool) -> None:
    """Write an entity; new ones stay pending for the processing delay."""
    known = state.db.get_many(reference_targets(entity), ready_only=False)
    refs = derive_references(entity, {key: row.type for key, row in known.items()})
    delay = state.processing_delay_s
    if not new:
        # An update keeps the item's processing state (and when processing ends).
        entity_id = str(entity["id"])
        ready = _is_ready(state, entity_id)
        ready_at = state.db.scalar("SELECT ready_at FROM entities WHERE id = ?", (entity_id,))
        state.db.put(entity, refs, ready=ready, ready_at=None if ready else ready_at)
    elif delay <= 0:
        entity["metadata"] = {**entity.get("metadata", {}), "status": "indexing-done"}
        state.db.put(entity, refs, ready=True)
    else:
        state.db.put(entity, refs, ready=False, ready_at=time.monotonic() + delay)


def _is_ready(state: EmulatorState, entity_id: str) -> bool:
    """Whether an existing entity is searchable."""
    return bool(state.db.scalar("SELECT ready FROM entities WHERE id = ?", (entity_id,)))


def _external_id(kind: str, url: str) -> str:
    """The service's ``external_id`` for a URL of a given type."""
    parts = urlsplit(url)
    if kind == "youtube":
        video = parse_qs(parts.query).get("v")
        if video:
            return video[0]
        if (parts.hostname or "").endswith("youtu.be"):
            return parts.path.strip("/")
    if kind == "twitter" and "/status/" in parts.path:
        return parts.path.split("/status/")[1].split("/")[0]
    return external_id_for_url(url)


def find_by_url(state: EmulatorState, body: JsonObject) -> JsonObject:
    """The exact-URL lookup: ``{"entity": <the entity saved under url> | null}``."""
    if not state.config.exact_url_lookup:
        raise ApiProblem(404, "Not Found")
    reject_unknown_fields(body, ("url",), "find-content-by-url")
    url = optional_str(body, "url")
    parts = urlsplit(url or "")
    if not url or parts.scheme not in ("http", "https") or not parts.hostname:
        raise ApiProblem(400, "url must be an absolute http(s) URL")
    with state.lock:
        state.promote_due()
        existing = state.db.find_by("normalized_url", normalize_url(url))
        if existing is None:
            return {"entity": None}
        return _present(state, {"entity": existing.data()})


def save_by_url(state: EmulatorState, body: JsonObject) -> JsonObject:
    """Save a URL (returns at once; the item is processed in the background)."""
    reject_unknown_fields(body, SAVE_URL_FIELDS, "save-content-by-url")
    url = optional_str(body, "url")
    parts = urlsplit(url or "")
    if not url or parts.scheme not in ("http", "https") or not parts.hostname:
        raise ApiProblem(400, "url must be an absolute http(s) URL")
    tag_ids = string_list(body, "tag_ids")
    tag_names = string_list(body, "tags")
    with state.lock:
        state.promote_due()
        _check_tags(state, tag_ids)
        normalized = normalize_url(url)
        existing = state.db.find_by("normalized_url", normalized)
        if existing is not None:
            known = existing.data()
            return _present(
                state, {"entity": known, "tags": _tags_for(state, known), "isNew": False}
            )
        if not state.try_charge(state.config.save_cost_micros):
            raise _insufficient(state)
        tag_ids += [_tag_named(state, name) for name in tag_names]
        kind = detect_type(url)
        now = now_ms()
        entity: JsonObject = {
            "id": str(uuid.uuid4()),
            "type": kind,
            "url": url,
            "normalized_url": normalized,
            "external_id": _external_id(kind, url),
            "title": normalized,
            "created_at": now,
            "updated_at": now,
            "tag_ids": list(dict.fromkeys(tag_ids)),
            "metadata": {"status": "pending"},
        }
        _store(state, entity, new=True)
        stored = state.db.get(entity["id"])
        saved = stored.data() if stored is not None else entity
        return _present(state, {"entity": saved, "tags": _tags_for(state, saved), "isNew": True})


def _tag_named(state: EmulatorState, name: str) -> str:
    """The id of the tag called ``name`` (case-insensitive), created when missing."""
    for tag_id, tag in state.tags.items():
        if str(tag.get("name", "")).lower() == name.lower():
            return tag_id
    now = now_ms()
    tag_id = f"tag-{uuid.uuid4().hex[:12]}"
    state.tags[tag_id] = {"id": tag_id, "name": name, "created_at": now, "updated_at": now}
    return tag_id


def save_entity(state: EmulatorState, body: JsonObject) -> JsonObject:
    """Save one entity (``data``) or a batch (``items``); ``responseMode: "receipt"`` too."""
    refused = state.config.rejected_fields
    refuse_fields(body, refused, nested="data")
    reject_unknown_fields(body, SAVE_ENTITY_FIELDS, "save-content-entity")
    mode = optional_str(body, "responseMode")
    if mode is not None and mode not in RESPONSE_MODES:
        raise ApiProblem(400, f"responseMode must be one of {', '.join(RESPONSE_MODES)}")
    items = body.get("items")
    if items is not None:
        if "data" in body or not isinstance(items, list) or not items:
            raise ApiProblem(400, "items must be a non-empty array (and replaces data)")
        if not all(isinstance(item, dict) for item in items):
            raise ApiProblem(400, "every item must be an object")
        for item in items:
            refuse_fields(item, refused, nested="data")
            reject_unknown_fields(item, SAVE_ITEM_FIELDS, "save-content-entity items")
        with state.lock:
            results = [_save_one(state, item) for item in items]
        if mode == "receipt":
            return _receipt(state, [result["entity"]["id"] for result in results])
        return {"results": [_present(state, result) for result in results]}
    with state.lock:
        result = _save_one(state, body)
    if mode == "receipt":
        return _receipt(state, [result["entity"]["id"]])
    return _present(state, result)


def _present(state: EmulatorState, response: JsonObject) -> JsonObject:
    """A save response with its entities in served form (ids as the profile serves them)."""
    presenter = state.presenter
    if not presenter.changes(in_search=False):
        return response
    served = dict(response)
    served["entity"] = presenter.entity(response["entity"], in_search=False)
    if "entities" in response:
        served["entities"] = [
            presenter.entity(entity, in_search=False) for entity in response["entities"]
        ]
    return served


def _receipt(state: EmulatorState, entity_ids: list[str]) -> JsonObject:
    """``{ok, processingRequestId}``, remembering which entities the request covers."""
    request_id = f"proc_{uuid.uuid4().hex}"
    with state.lock:
        state.processing_requests[request_id] = ",".join(entity_ids)
    return {"ok": True, "processingRequestId": request_id}


def _save_one(state: EmulatorState, item: JsonObject) -> JsonObject:
    """Create or update one entity from a save item (caller holds the lock).

    The response holds stored entities (content ids); :func:`_present` serves them.
    """
    data = item.get("data")
    if not isinstance(data, dict):
        raise ApiProblem(400, "data must be an object with the entity's fields")
    optional_bool(item, "waitForEnrichment")
    for key in ("publicToken", "sharedResourceId"):
        optional_str(item, key)
    state.promote_due()
    first_party = state.config.note_links_from_related_ids
    entity = {key: value for key, value in data.items() if key not in SEARCH_DECORATIONS}
    if first_party:
        entity.pop("reference_content_ids", None)
    if isinstance(entity.get("id"), str):
        # A library-row id names the same entity as its content id.
        entity["id"] = state.db.resolve(entity["id"]) or entity["id"]
    extra_entities, replacements = _save_unsaved_references(state, item, entity)
    source = optional_str(item, "sourceContentId")
    source_external = optional_str(item, "sourceContentExternalId")
    related = [replacements.get(i, i) for i in string_list(item, "relatedContentIds")]
    kind = entity.get("type")
    url = entity.get("url")
    if not isinstance(kind, str) or not kind:
        if not isinstance(url, str) or not url:
            raise ApiProblem(400, "data needs a type or a url")
        kind = detect_type(url)
        entity["type"] = kind
    if first_party and kind == "annotation":
        entity["reference_content_ids"] = _first_party_note_links(
            state, entity, source_external, related
        )
    else:
        if source is None and source_external is not None:
            found = state.db.find_by("external_id", source_external)
            if found is None:
                raise ApiProblem(404, f"No content with external_id {source_external}")
            source = found.id
        source = _stored_id(state, source) if source is not None else None
        related = [_stored_id(state, i) for i in related]
        ids = entity.get("reference_content_ids")
        if isinstance(ids, list):
            entity["reference_content_ids"] = [
                _stored_id(state, i) if isinstance(i, str) else i for i in ids
            ]
        if kind == "annotation" and (source or related):
            ids = [str(i) for i in entity.get("reference_content_ids") or [] if isinstance(i, str)]
            if source and source not in ids:
                ids.insert(0, source)
            entity["reference_content_ids"] = ids + [i for i in related if i not in ids]
    if kind == "selector" and state.config.strict_selectors:
        source = _first_party_selector_source(state, entity, optional_str(item, "sourceContentId"))
    if isinstance(entity.get("target_id"), str):
        entity["target_id"] = _stored_id(state, entity["target_id"])
    if kind == "selector" and source and "target_id" not in entity:
        entity["target_id"] = source
    tag_ids = entity.get("tag_ids")
    if tag_ids is not None:
        if not isinstance(tag_ids, list) or not all(isinstance(t, str) for t in tag_ids):
            raise ApiProblem(400, "data.tag_ids must be an array of strings")
        _check_tags(state, tag_ids)
    if isinstance(url, str) and url:
        entity.setdefault("normalized_url", normalize_url(url))
        entity.setdefault("external_id", _external_id(kind, url))
    existing = _existing(state, entity)
    if existing is not None:
        merged = {**existing, **entity, "id": existing["id"]}
        merged["created_at"] = existing.get("created_at", merged.get("created_at"))
        merged["metadata"] = existing.get("metadata", {"status": "indexing-done"})
        merged["updated_at"] = existing.get("updated_at")
        if merged != existing:
            merged["updated_at"] = now_ms()
            _store(state, merged, new=False)
        return _entity_response(state, merged, extra_entities, is_new=False)
    if not state.try_charge(state.config.save_cost_micros):
        raise _insufficient(state)
    now = now_ms()
    entity.setdefault("id", str(uuid.uuid4()))
    entity.setdefault("created_at", now)
    entity["updated_at"] = now
    entity["metadata"] = {**(entity.get("metadata") or {}), "status": "pending"}
    if not isinstance(entity["id"], str):
        raise ApiProblem(400, "data.id must be a string")
    _store(state, entity, new=True)
    stored = state.db.get(entity["id"])
    return _entity_response(state, stored.data() if stored else entity, extra_entities, is_new=True)


def _first_party_selector_source(
    state: EmulatorState, entity: JsonObject, source: str | None
) -> str:
    """The item a highlight is in, as the first-party save takes it: from ``sourceContentId``
    only, with nothing in ``data`` beyond the selector fields that code sends."""
    unknown = sorted(set(entity) - FIRST_PARTY_SELECTOR_FIELDS)
    if unknown:
        raise ApiProblem(400, f"Unknown field: data.{unknown[0]}")
    if source is None:
        raise ApiProblem(400, SELECTOR_WITHOUT_SOURCE)
    stored = state.db.resolve(source)
    if stored is None:
        raise ApiProblem(400, f"Failed to resolve reference content IDs: {source}")
    entity["target_id"] = stored
    return stored


def _stored_id(state: EmulatorState, entity_id: str) -> str:
    """The content id of an entity named by either id; unknown ids are kept as sent."""
    return state.db.resolve(entity_id) or entity_id


def _note_has_text(entity: JsonObject) -> bool:
    """Whether a note carries text (the first-party save derives text from ``content``)."""
    text = entity.get("text")
    if isinstance(text, str) and text.strip():
        return True
    return bool(prosemirror_text(entity.get("content")).strip())


def _first_party_note_links(
    state: EmulatorState, entity: JsonObject, source_external: str | None, related: list[str]
) -> list[str]:
    """A note's links as the first-party shared save code builds them: source, then related."""
    resolved = {entity_id: state.db.resolve(entity_id) for entity_id in related}
    missing = [entity_id for entity_id, found in resolved.items() if found is None]
    if missing:
        raise ApiProblem(400, f"Failed to resolve reference content IDs: {', '.join(missing)}")
    links: list[str] = []
    if source_external is not None:
        source = state.db.find_by("external_id", source_external)
        if source is not None:
            links.append(source.id)
    for found in resolved.values():
        if found is not None and found not in links:
            links.append(found)
    if not links and _note_has_text(entity):
        raise ApiProblem(
            500, "Annotation comment selector requires a referenced content external_id"
        )
    return links


def _existing(state: EmulatorState, entity: JsonObject) -> JsonObject | None:
    """The stored entity a save refers to: same ``id``, ``external_id`` or normalized URL."""
    entity_id = entity.get("id")
    if isinstance(entity_id, str):
        row = state.db.get(entity_id)
        if row is not None:
            return row.data()
    if entity.get("type") == "annotation" and not state.config.dedupe_notes_by_external_id:
        return None
    for column in ("external_id", "normalized_url"):
        value = entity.get(column)
        if isinstance(value, str) and value:
            row = state.db.find_by(column, value)
            if row is not None and row.type == entity.get("type"):
                return row.data()
    return None


def _save_unsaved_references(
    state: EmulatorState, item: JsonObject, entity: JsonObject
) -> tuple[list[JsonObject], dict[str, str]]:
    """Save ``unsavedReferences`` first and point the entity at their real ids.

    Returns the saved entities and the map from client reference ids to stored ids.
    """
    unsaved = item.get("unsavedReferences")
    if unsaved is None:
        return [], {}
    if not isinstance(unsaved, list):
        raise ApiProblem(400, "unsavedReferences must be an array")
    saved: list[JsonObject] = []
    replacements: dict[str, str] = {}
    for reference in unsaved:
        if not isinstance(reference, dict) or not isinstance(reference.get("entity"), dict):
            raise ApiProblem(400, "each unsavedReferences item needs an entity object")
        client_id = reference.get("clientReferenceId")
        result = _save_one(state, {"data": reference["entity"]})
        saved.append(result["entity"])
        if isinstance(client_id, str):
            replacements[client_id] = result["entity"]["id"]
    ids = entity.get("reference_content_ids")
    if isinstance(ids, list):
        entity["reference_content_ids"] = [replacements.get(i, i) for i in ids]
    return saved, replacements


def _entity_response(
    state: EmulatorState, entity: JsonObject, extra: list[JsonObject], *, is_new: bool
) -> JsonObject:
    """``SaveContentEntityResponse``."""
    response: dict[str, Any] = {
        "entity": entity,
        "entities": [entity, *extra],
        "tags": _tags_for(state, entity),
        "isNew": is_new,
    }
    return response
