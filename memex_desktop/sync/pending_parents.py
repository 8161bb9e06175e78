"""Replies to notes not on the server yet: send them naming their parent's server id.

A note written offline is queued with a client ``external_id``; a reply written to it before
it was sent names its parent ``pending:<external_id>`` (the id the thread pane shows the
pending note under). The outbox sends oldest first, so by the time the reply is due its parent
was accepted and the outbox holds the parent's server id: :func:`resolve_pending_parents`
puts that id in the reply's ``reference_content_ids`` and ``memex-reference`` nodes.
"""

from __future__ import annotations

from typing import Any, Protocol

from memex_desktop.api.errors import ApiError, ValidationError

PENDING_PREFIX = "pending:"
SENT_STATES = frozenset({"accepted", "confirmed"})
UNSENDABLE_STATES = frozenset({"needs_attention"})


class ParentNotSentYet(ApiError):
    """The note a reply answers is still queued: send the reply after it (retryable)."""


class _OpLike(Protocol):
    external_id: str | None
    state: str
    entity_id: str | None


class _OutboxLike(Protocol):
    def list(self, states: Any = None) -> list[Any]: ...


def pending_external_id(entity_id: object) -> str | None:
    """The external_id named by a ``pending:<external_id>`` reference, else None."""
    if isinstance(entity_id, str) and entity_id.startswith(PENDING_PREFIX):
        return entity_id[len(PENDING_PREFIX) :] or None
    return None


def pending_references(payload: dict[str, Any]) -> set[str]:
    """Every external_id a queued entity names as ``pending:...`` (ids and rich text)."""
    found: set[str] = set()
    ids = payload.get("reference_content_ids")
    for value in ids if isinstance(ids, list) else []:
        external = pending_external_id(value)
        if external:
            found.add(external)
    for node in _reference_nodes(payload.get("content")):
        external = pending_external_id(node["attrs"].get("content_id"))
        if external:
            found.add(external)
    return found


def _reference_nodes(node: object) -> list[dict[str, Any]]:
    """The ``memex-reference`` nodes of a ProseMirror tree (iteratively: no depth limit)."""
    found: list[dict[str, Any]] = []
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, list):
            stack.extend(current)
        elif isinstance(current, dict):
            if current.get("type") == "memex-reference" and isinstance(current.get("attrs"), dict):
                found.append(current)
            stack.append(current.get("content"))
    return found


def _server_id(external_id: str, ops: list[_OpLike]) -> str:
    """The server id of the queued note ``external_id``, or why the reply cannot go yet."""
    parent = next((op for op in ops if op.external_id == external_id), None)
    if parent is None:
        raise ValidationError(
            "The note this reply answers was removed before it was sent; "
            "the reply cannot be attached to it."
        )
    if parent.state in SENT_STATES and parent.entity_id:
        return parent.entity_id
    if parent.state in UNSENDABLE_STATES:
        raise ValidationError(
            "The note this reply answers could not be saved; fix or drop it first."
        )
    raise ParentNotSentYet("the note this reply answers has not been sent yet")


def resolve_pending_parents(payload: dict[str, Any], outbox: _OutboxLike) -> dict[str, Any]:
    """A copy of ``payload`` naming pending notes by their server ids.

    Raises:
        ParentNotSentYet: a named note is still queued (retry the reply later).
        ValidationError: a named note was dropped or needs attention (the reply cannot go).
    """
    wanted = pending_references(payload)
    if not wanted:
        return payload
    ops = outbox.list()
    replacements = {
        f"{PENDING_PREFIX}{external}": _server_id(external, ops) for external in sorted(wanted)
    }
    resolved = dict(payload)
    ids = payload.get("reference_content_ids")
    if isinstance(ids, list):
        resolved["reference_content_ids"] = [
            replacements.get(i, i) if isinstance(i, str) else i for i in ids
        ]
    if "content" in payload:
        resolved["content"] = _replace_in_tree(payload["content"], replacements)
    return resolved


def _replace_in_tree(node: Any, replacements: dict[str, str]) -> Any:
    """A copy of a ProseMirror tree with ``memex-reference`` ids replaced."""
    if isinstance(node, list):
        return [_replace_in_tree(child, replacements) for child in node]
    if not isinstance(node, dict):
        return node
    copied = {key: _replace_in_tree(value, replacements) for key, value in node.items()}
    attrs = copied.get("attrs")
    if copied.get("type") == "memex-reference" and isinstance(attrs, dict):
        content_id = attrs.get("content_id")
        if isinstance(content_id, str) and content_id in replacements:
            copied["attrs"] = {**attrs, "content_id": replacements[content_id]}
    return copied
