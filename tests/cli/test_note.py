"""``note`` names its item, and the note it answers, as ``show`` does: by id or by the start
of one."""

from __future__ import annotations

import json

import pytest
from support.cli import Cli

from memex_desktop import cli

pytestmark = pytest.mark.e2e


def _queued_notes(run: Cli) -> list[str]:
    """What the outbox says of each note queued."""
    status, out, _ = run("outbox", "list", "--json")
    assert status == 0
    return [op["description"] for op in json.loads(out) if op["url"] is None]


def test_a_note_on_the_start_of_an_items_id_is_on_that_item(run: Cli) -> None:
    status, out, err = run("note", "web-sync-is", "Worth rereading.")
    assert status == 0, err
    assert "no API key yet" in out
    assert _queued_notes(run) == [
        "Note on “Sync Is a Product Feature, Not a Plumbing Detail”: Worth rereading."
    ]


def test_a_reply_to_the_start_of_a_notes_id_answers_that_note(run: Cli) -> None:
    status, _, err = run("note", "web-spaced-rep", "Agreed.", "--reply-to", "note-palace-plus")
    assert status == 0, err
    assert _queued_notes(run) == [
        "Reply to “Takeaway: memory palaces for ordered lists,…”: Agreed."
    ]


def test_the_start_of_several_ids_asks_for_more_and_queues_nothing(run: Cli) -> None:
    status, _, err = run("note", "web-s", "Which one?")
    assert status == cli.EXIT_USAGE
    assert "give more of it" in err
    assert _queued_notes(run) == []
