"""Notes and replies through the outbox, as the first-party app sends them.

Against both emulator profiles: ``default`` links notes by ``reference_content_ids`` and
de-duplicates them by ``external_id``; ``first-party`` links them only by top-level
``relatedContentIds`` (with ``sourceContentExternalId``), drops ``reference_content_ids`` and
is idempotent only by the client ``data.id``.
"""

from __future__ import annotations

from typing import Any

import pytest
from support.secrets import TEST_API_KEY

from memex_desktop.emulator.synthetic import generate_library
from memex_desktop.errors import failure_message
from memex_desktop.sync.notes import queue_note


@pytest.fixture
def synced(library_emulator: Any, harness_factory: Any, emulator_profile: str) -> Any:
    library = generate_library(120, seed=9, words_per_entity=8)
    emulator = library_emulator(library, profile=emulator_profile)
    harness = harness_factory(emulator.base_url, TEST_API_KEY, page_size=50)
    assert harness.engine.run(full=True).ok
    listed = set(harness.reader.all_ids()) - emulator.state.unlisted_ids()
    web = next(
        entity["id"]
        for entity in library["results"]
        if entity["type"] == "web" and entity["id"] in listed
    )
    return emulator, harness, web


def _notes_with(emulator: Any, text: str) -> list[dict[str, Any]]:
    found = []
    for entity_id in emulator.state.entity_ids():
        entity = emulator.state.entity(entity_id) or {}
        if entity.get("type") == "annotation" and entity.get("text") == text:
            found.append(entity)
    return found


def test_a_note_and_a_reply_with_lost_answers_arrive_once_and_attached(synced: Any) -> None:
    emulator, harness, web = synced
    queue_note(harness.outbox, harness.reader, "Worms like coffee grounds", target_id=web)
    emulator.faults.lose_response_after_commit(count=1)
    drained = harness.engine.drain_outbox()
    assert drained.ok, drained.error
    assert drained.sent == 1
    notes = _notes_with(emulator, "Worms like coffee grounds")
    assert len(notes) == 1, "the retry after the lost answer saved the note again"
    note_id = harness.outbox.list()[0].entity_id
    assert note_id is not None
    queue_note(harness.outbox, harness.reader, "And eggshells", target_id=web, reply_to=note_id)
    emulator.faults.lose_response_after_commit(count=1)
    assert harness.engine.drain_outbox().ok
    assert len(_notes_with(emulator, "And eggshells")) == 1
    # What the server holds, read back by a complete pass: the note on the page, the reply
    # on the note.
    assert harness.new_engine().run(full=True).ok
    assert all(op.state == "confirmed" for op in harness.outbox.list())
    thread = harness.reader.thread_for(web)
    assert [node.text for node in thread] == ["Worms like coffee grounds"]
    assert [child.text for child in thread[0].children] == ["And eggshells"]


def _small_synced(start: Any, harness_factory: Any, **config: Any) -> tuple[Any, Any, str]:
    """A small library on the default profile, synced; a web page of it to write notes on."""
    library = generate_library(40, seed=2, words_per_entity=8)
    emulator = start(library, **config)
    harness = harness_factory(emulator.base_url, TEST_API_KEY, page_size=50)
    assert harness.engine.run(full=True).ok
    return emulator, harness, next(e["id"] for e in library["results"] if e["type"] == "web")


def test_a_refused_field_is_dropped_once_and_remembered(
    one_profile_emulator: Any, harness_factory: Any
) -> None:
    emulator, harness, web = _small_synced(
        one_profile_emulator, harness_factory, rejected_fields=frozenset({"reference_content_ids"})
    )
    queue_note(harness.outbox, harness.reader, "first", target_id=web)
    assert harness.engine.drain_outbox().sent == 1
    assert harness.engine.server_profile().refused_fields == ["reference_content_ids"]
    saves = sum(1 for r in emulator.state.requests if r.path == "/save-content-entity")
    assert saves == 2  # refused once, then sent without the field
    # Remembered: the next note goes without it at once.
    queue_note(harness.outbox, harness.reader, "second", target_id=web)
    assert harness.new_engine().drain_outbox().sent == 1
    after = sum(1 for r in emulator.state.requests if r.path == "/save-content-entity")
    assert after == saves + 1
    assert [op.state for op in harness.outbox.list()] == ["accepted", "accepted"]


def test_repeated_server_errors_need_attention_instead_of_retrying_forever(
    one_profile_emulator: Any, harness_factory: Any
) -> None:
    emulator, harness, web = _small_synced(one_profile_emulator, harness_factory)
    queue_note(harness.outbox, harness.reader, "doomed", target_id=web)
    emulator.faults.next_status(500, count=1000, paths=["/save-content-entity"])
    report = harness.engine.drain_outbox()
    [op] = harness.outbox.list()
    assert (op.state, op.error_kind) == ("needs_attention", "server_error")
    assert "6 times" in failure_message(op.error_kind, op.reason, op.attempts).text
    assert report.needs_attention == 1
    emulator.faults.clear()


def test_an_unreadable_answer_to_a_save_is_accepted_not_sent_again(
    one_profile_emulator: Any, harness_factory: Any
) -> None:
    emulator, harness, web = _small_synced(one_profile_emulator, harness_factory)
    queue_note(harness.outbox, harness.reader, "garbled", target_id=web)
    emulator.faults.next_status(200, body={"ok": "yes"}, paths=["/save-content-entity"])
    report = harness.engine.drain_outbox()
    assert report.sent == 1
    [op] = harness.outbox.list()
    assert op.state == "accepted"
    assert sum(1 for r in emulator.state.requests if r.path == "/save-content-entity") == 1
