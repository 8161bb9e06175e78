"""How stored entities look in responses: the identity and payload switches of a profile.

The store keeps every entity as the library file has it: its ``id`` is the content id, and links
(``reference_content_ids``, ``referencesByResultId`` entries, rich-text references) name content
ids. With ``distinct_library_ids`` every entity OBJECT a response carries (search results, nested
``annotations``/``references``/``resolvedReferences``, ``referencedEntities``, the ``entity`` and
``entities`` of save responses) is served with ``id`` = the user's library-row id and
``content_id`` = the content id, while every LINK keeps naming content ids, as first-party
payloads do (memex-api-evidence.md §2 risk 5). ``referencesByResultId`` is keyed by the served
``id``. With ``strip_annotation_references`` annotations in search payloads carry no
``reference_content_ids`` (§4 item 6); save responses keep them.
"""

from __future__ import annotations

import json
import uuid

from memex_desktop.emulator.config import EmulatorConfig
from memex_desktop.emulator.database import dumps
from memex_desktop.emulator.library import JsonObject

# Library-row ids are the emulator's own; the first-party namespace is for content ids only.
_LIBRARY_NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "https://memex.garden/emulator/user-library")
DEFAULT_USER = "emulator-user"


def library_row_id(user: str, content_id: str) -> str:
    """The deterministic library-row id of a content id in one user's library."""
    return "ul-" + str(uuid.uuid5(_LIBRARY_NAMESPACE, f"{user}:{content_id}"))


class Presenter:
    """Turns stored entities into served ones under one configuration (stateless)."""

    def __init__(self, config: EmulatorConfig) -> None:
        self.user = config.user_id or DEFAULT_USER
        self.distinct_ids = config.distinct_library_ids
        self.strip_references = config.strip_annotation_references

    def served_id(self, content_id: str) -> str:
        """The ``id`` a response carries for the entity stored as ``content_id``."""
        return library_row_id(self.user, content_id) if self.distinct_ids else content_id

    def library_id(self, content_id: str) -> str:
        """The library-row id of a content id (whether or not responses use it)."""
        return library_row_id(self.user, content_id)

    def changes(self, *, in_search: bool) -> bool:
        """Whether served entities differ from stored ones (in search payloads or elsewhere)."""
        return self.distinct_ids or (in_search and self.strip_references)

    def entity(self, entity: JsonObject, *, in_search: bool) -> JsonObject:
        """The served form of a stored entity (a new dict when anything changes)."""
        if not self.changes(in_search=in_search):
            return entity
        served = dict(entity)
        if self.distinct_ids:
            content_id = str(entity["id"])
            served["id"] = self.served_id(content_id)
            served["content_id"] = content_id
        if in_search and self.strip_references and entity.get("type") == "annotation":
            served.pop("reference_content_ids", None)
        return served

    def entity_json(self, text: str) -> str:
        """The served form of a stored entity's JSON text in a search payload."""
        if not self.changes(in_search=True):
            return text
        value = json.loads(text)
        return dumps(self.entity(value, in_search=True)) if isinstance(value, dict) else text
