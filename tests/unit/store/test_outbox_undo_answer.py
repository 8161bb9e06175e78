"""The outbox's answer to an undo: removed only when no send may have reached Memex."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from memex_desktop.store import Outbox
from memex_desktop.store.outbox import OutboxFailure, UndoAnswer


@pytest.fixture
def outbox(tmp_path: Path) -> Iterator[Outbox]:
    box = Outbox(tmp_path / "outbox.db")
    yield box
    box.close()


def _queued(outbox: Outbox, url: str = "https://a.example/1") -> int:
    op = outbox.enqueue_url(url).op
    assert op is not None
    return op.id


def test_a_save_never_sent_is_undone(outbox: Outbox) -> None:
    op_id = _queued(outbox)
    assert outbox.undo(op_id) == UndoAnswer(True)
    assert outbox.list() == []


def test_a_send_that_reached_nothing_still_lets_undo_remove_the_save(outbox: Outbox) -> None:
    op_id = _queued(outbox)
    assert outbox.claim_next() is not None
    outbox.mark_not_sent(op_id, OutboxFailure("network", "connection refused"), retry_at=0)
    waiting = outbox.get(op_id)
    assert waiting is not None
    assert (waiting.state, waiting.attempts, waiting.error_kind) == ("queued", 0, "network")
    assert outbox.undo(op_id).undone


def test_a_send_that_may_have_reached_memex_stays(outbox: Outbox) -> None:
    op_id = _queued(outbox)
    assert outbox.claim_next() is not None
    outbox.mark_failed_retryable(op_id, OutboxFailure("not_answering", "timeout"), retry_at=0)
    answer = outbox.undo(op_id)
    assert not answer.undone
    assert answer.op is not None
    assert (answer.op.state, answer.op.attempts) == ("queued", 1)
    assert len(outbox.list()) == 1


def test_a_save_being_sent_or_accepted_stays_with_its_item(outbox: Outbox) -> None:
    sending, accepted = _queued(outbox), _queued(outbox, "https://a.example/2")
    assert outbox.claim_next() is not None
    assert outbox.claim_next() is not None
    outbox.mark_accepted(accepted, "ent-2")
    answers = [outbox.undo(sending), outbox.undo(accepted)]
    assert [(a.undone, a.op and a.op.state) for a in answers] == [
        (False, "sending"),
        (False, "accepted"),
    ]
    assert answers[1].op is not None
    assert answers[1].op.entity_id == "ent-2"


def test_undo_of_a_save_no_longer_there_says_so(outbox: Outbox) -> None:
    op_id = _queued(outbox)
    assert outbox.drop(op_id)
    assert outbox.undo(op_id) == UndoAnswer(False, None)
