"""Replies to notes still in the outbox are sent naming the parent's server id."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.emulator import small_library_ids
from support.secrets import TEST_API_KEY

from memex_desktop.api.errors import ApiError, ValidationError
from memex_desktop.store import Outbox
from memex_desktop.store.outbox import OutboxFailure
from memex_desktop.sync.pending_parents import (
    ParentNotSentYet,
    pending_external_id,
    pending_references,
    resolve_pending_parents,
)


def _note(parent: str, *mentions: str, external_id: str = "reply-1") -> dict[str, Any]:
    """A queued reply as the note editor builds it."""
    nodes: list[dict[str, Any]] = [{"type": "text", "text": "Agreed "}]
    nodes += [{"type": "memex-reference", "attrs": {"content_id": m}} for m in mentions]
    return {
        "type": "annotation",
        "external_id": external_id,
        "text": "Agreed",
        "content": {"type": "doc", "content": [{"type": "paragraph", "content": nodes}]},
        "reference_content_ids": [parent, *mentions],
    }


@pytest.fixture
def outbox(tmp_path: Path) -> Iterator[Outbox]:
    box = Outbox(tmp_path / "outbox.db")
    yield box
    box.close()


def test_pending_ids_are_recognised() -> None:
    assert pending_external_id("pending:abc") == "abc"
    assert pending_external_id("pending:") is None
    assert pending_external_id("abc") is None
    assert pending_external_id(None) is None
    assert pending_references(_note("pending:p1", "item-2", "pending:p2")) == {"p1", "p2"}
    assert pending_references(_note("item-1")) == set()


def test_payload_without_pending_parents_is_unchanged(outbox: Outbox) -> None:
    payload = _note("note-1", "item-2")
    assert resolve_pending_parents(payload, outbox) is payload


def test_accepted_parent_is_named_by_its_server_id(outbox: Outbox) -> None:
    parent = outbox.enqueue_entity(_note("item-1", external_id="p1"), external_id="p1").op
    assert parent is not None
    claimed = outbox.claim_next()
    assert claimed is not None
    assert claimed.id == parent.id
    outbox.mark_accepted(parent.id, "server-42")
    payload = _note("pending:p1", "item-2", "pending:p1")
    resolved = resolve_pending_parents(payload, outbox)
    assert resolved["reference_content_ids"] == ["server-42", "item-2", "server-42"]
    references = resolved["content"]["content"][0]["content"][1:]
    assert [node["attrs"]["content_id"] for node in references] == ["item-2", "server-42"]
    # The queued payload itself is left as it was (it is retried as queued).
    assert payload["reference_content_ids"][0] == "pending:p1"


def test_confirmed_parent_counts_as_sent(outbox: Outbox) -> None:
    op = outbox.enqueue_entity(_note("item-1", external_id="p1"), external_id="p1").op
    assert op is not None
    assert outbox.claim_next() is not None
    outbox.mark_accepted(op.id, "server-7")
    outbox.mark_confirmed(op.id)
    resolved = resolve_pending_parents(_note("pending:p1"), outbox)
    assert resolved["reference_content_ids"] == ["server-7"]


def test_parent_still_queued_makes_the_reply_wait(outbox: Outbox) -> None:
    outbox.enqueue_entity(_note("item-1", external_id="p1"), external_id="p1")
    with pytest.raises(ParentNotSentYet) as raised:
        resolve_pending_parents(_note("pending:p1"), outbox)
    # Retryable, not a refusal: the drain's generic API-error path backs off and retries.
    assert isinstance(raised.value, ApiError)
    assert not isinstance(raised.value, ValidationError)


def test_parent_needing_attention_or_gone_stops_the_reply(outbox: Outbox) -> None:
    op = outbox.enqueue_entity(_note("item-1", external_id="p1"), external_id="p1").op
    assert op is not None
    assert outbox.claim_next() is not None
    outbox.mark_needs_attention(op.id, OutboxFailure("rejected", "refused by the server"))
    with pytest.raises(ValidationError, match="could not be saved"):
        resolve_pending_parents(_note("pending:p1"), outbox)
    with pytest.raises(ValidationError, match="removed"):
        resolve_pending_parents(_note("pending:never-queued"), outbox)


def _server_entity(running: Any, external_id: str) -> dict[str, Any]:
    """The one entity the emulator holds with this external_id."""
    found = [
        data
        for entity_id in running.state.entity_ids()
        if (data := running.state.entity(entity_id) or {}).get("external_id") == external_id
    ]
    assert len(found) == 1
    return found[0]


def test_drain_sends_a_reply_to_an_unsent_note_with_the_note_server_id(
    harness_factory: Any,
    emulator: Any,
) -> None:
    harness = harness_factory(emulator.base_url, TEST_API_KEY)
    item = sorted(small_library_ids())[0]
    harness.outbox.enqueue_entity(_note(item, external_id="p1"), external_id="p1")
    harness.outbox.enqueue_entity(_note("pending:p1", item, external_id="r1"), external_id="r1")
    report = harness.engine.drain_outbox()
    assert report.sent == 2
    parent = _server_entity(emulator, "p1")
    reply = _server_entity(emulator, "r1")
    assert reply["reference_content_ids"] == [parent["id"], item]
    assert [op.state for op in harness.outbox.list()] == ["accepted", "accepted"]
