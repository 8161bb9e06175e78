"""Notes and replies as the outbox queues them: the ``/save-content-entity`` data of a note.

Pure functions shared by the window's note editor and ``memex-desktop note``: the text a
person wrote (with ``[[label]]`` markers for items it references) becomes ProseMirror
``content`` with ``memex-reference`` nodes, the compiled ``text``, and the ids it links to
(what it is attached to first). The outbox adds the client ``id`` and the top-level
``relatedContentIds`` / ``sourceContentExternalId`` when it sends the save.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from memex_desktop.store import CacheReader, EnqueueResult, Outbox

TRIGGER = "[["
CLOSE = "]]"


@dataclass(frozen=True)
class PickedReference:
    """An item referenced in the note: the marker text in the editor and the entity id."""

    entity_id: str | None
    label: str
    url: str | None = None

    @property
    def marker(self) -> str:
        """How the reference reads in the plain-text editor."""
        return f"{TRIGGER}{self.label}{CLOSE}"


def _paragraph_nodes(line: str, references: list[PickedReference]) -> list[dict[str, Any]]:
    """ProseMirror inline nodes of one line: text, memex-reference nodes and links."""
    nodes: list[dict[str, Any]] = []
    rest = line
    while rest:
        hits = [(rest.find(r.marker), r) for r in references if r.marker in rest]
        if not hits:
            nodes.append({"type": "text", "text": rest})
            break
        at, ref = min(hits, key=lambda hit: hit[0])
        if at:
            nodes.append({"type": "text", "text": rest[:at]})
        if ref.entity_id is not None:
            nodes.append({"type": "memex-reference", "attrs": {"content_id": ref.entity_id}})
        else:
            # A URL whose save is still queued: cite it as a link until it has an id.
            href = ref.url or ref.label
            nodes.append(
                {"type": "text", "text": href, "marks": [{"type": "link", "attrs": {"href": href}}]}
            )
        rest = rest[at + len(ref.marker) :]
    return nodes


def compiled_text(text: str, references: list[PickedReference]) -> str:
    """The note's plain text as the server compiles it: markers replaced by their labels."""
    for ref in references:
        text = text.replace(ref.marker, ref.label)
    return text.strip()


def annotation_payload(
    text: str, *, target_id: str, references: list[PickedReference], external_id: str
) -> dict[str, Any]:
    """The ``/save-content-entity`` data of a note on (or reply to) ``target_id``.

    The first id of ``reference_content_ids`` is what the note is attached to; the others are
    the items it mentions, in order of first mention, once each.
    """
    used = [r for r in references if r.marker in text]
    paragraphs = [
        {"type": "paragraph", "content": nodes}
        if (nodes := _paragraph_nodes(line, used))
        else {"type": "paragraph"}
        for line in text.strip().split("\n")
    ]
    ids = [target_id]
    for ref in sorted(used, key=lambda r: text.find(r.marker)):
        if ref.entity_id is not None and ref.entity_id not in ids:
            ids.append(ref.entity_id)
    return {
        "type": "annotation",
        "external_id": external_id,
        "text": compiled_text(text, used),
        "content": {"type": "doc", "content": paragraphs},
        "reference_content_ids": ids,
    }


class NoteTargetUnknown(LookupError):
    """The item a note is written on is not in the local library."""


def queue_note(
    outbox: Outbox,
    reader: CacheReader,
    text: str,
    *,
    target_id: str,
    reply_to: str | None = None,
) -> EnqueueResult:
    """Queue a note on ``target_id`` (or a reply to the note ``reply_to`` in its thread).

    Either id of an item is accepted; the note names the item's one id. Committed on return.

    Raises:
        NoteTargetUnknown: the item (or the note replied to) is not cached.
        ValueError: the text is empty.
    """
    if not text.strip():
        raise ValueError("the note has no text")
    parent = _cached_id(reader, reply_to) if reply_to else _cached_id(reader, target_id)
    if reply_to:
        _cached_id(reader, target_id)  # the item must exist too
    external_id = str(uuid.uuid4())
    data = annotation_payload(text, target_id=parent, references=[], external_id=external_id)
    return outbox.enqueue_entity(data, external_id=external_id)


def _cached_id(reader: CacheReader, entity_id: str) -> str:
    """The one id of a cached item named by either of its ids."""
    row = reader.get(entity_id)
    if row is None:
        raise NoteTargetUnknown(entity_id)
    return row.id
