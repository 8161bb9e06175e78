"""One process at a time syncs a data folder; saves queued meanwhile are sent by it."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from memex_desktop.store import Outbox
from memex_desktop.store.errors import SaveBeingSent
from memex_desktop.sync import SyncOutcome, SyncReport
from memex_desktop.sync.folder_lock import FolderLock, drop_save, release_and_hand_over


class Queue:
    """An outbox as release_and_hand_over sees it: saves due, sent by each drain."""

    def __init__(self, due: int) -> None:
        self.due = due

    def due_count(self, now: float | None = None) -> int:
        return self.due


def test_a_second_holder_is_refused_until_the_first_lets_go(tmp_path: Path) -> None:
    path = tmp_path / "data" / "sync.lock"
    first, second = FolderLock(path), FolderLock(path)
    assert first.acquire()
    assert not second.acquire()
    assert second.holder() == os.getpid()
    first.release()
    assert second.acquire()
    second.release()


def test_a_wait_for_the_lock_ends_when_cancelled(tmp_path: Path) -> None:
    path = tmp_path / "sync.lock"
    with FolderLock(path) as first:
        assert first.acquire()
        cancel = threading.Event()
        cancel.set()
        assert not FolderLock(path).acquire(wait_s=60.0, cancel=cancel)


def test_saves_queued_while_held_are_sent_before_letting_go(tmp_path: Path) -> None:
    lock = FolderLock(tmp_path / "sync.lock")
    assert lock.acquire()
    queue = Queue(due=2)

    def drain() -> SyncReport:
        sent, queue.due = queue.due, 0
        return SyncReport(SyncOutcome.OK, sent=sent)

    reports = release_and_hand_over(lock, queue, drain)
    assert [report.sent for report in reports] == [2]
    assert not lock.held
    assert FolderLock(lock.path).acquire()


def test_saves_queued_by_the_holder_of_the_moment_are_left_to_it(tmp_path: Path) -> None:
    lock = FolderLock(tmp_path / "sync.lock")
    other = FolderLock(lock.path)
    assert lock.acquire()

    def drain() -> SyncReport:
        # The save's process takes the lock the moment this one lets go: it sends its save.
        return SyncReport(SyncOutcome.OK)

    queue = Queue(due=0)
    original_release = lock.release

    def release() -> None:
        original_release()
        queue.due = 1
        assert other.acquire()

    lock.release = release  # type: ignore[method-assign]
    assert release_and_hand_over(lock, queue, drain) == []
    other.release()


def test_a_drain_that_fails_leaves_the_saves_for_the_next_sync(tmp_path: Path) -> None:
    lock = FolderLock(tmp_path / "sync.lock")
    assert lock.acquire()
    calls: list[int] = []

    def drain() -> SyncReport:
        calls.append(1)
        return SyncReport(SyncOutcome.OFFLINE)

    reports = release_and_hand_over(lock, Queue(due=1), drain)
    assert [report.outcome for report in reports] == [SyncOutcome.OFFLINE]
    assert calls == [1]
    assert not lock.held


def _queued_and_claimed(tmp_path: Path) -> tuple[Outbox, int, int]:
    """An outbox holding one queued save and one claimed for sending."""
    outbox = Outbox(tmp_path / "outbox.db")
    first = outbox.enqueue_url("https://example.com/a").op
    claimed = outbox.claim_next()
    second = outbox.enqueue_url("https://example.com/b").op
    assert first is not None
    assert second is not None
    assert claimed is not None
    assert claimed.id == first.id
    return outbox, second.id, first.id


def test_a_queued_save_is_dropped(tmp_path: Path) -> None:
    outbox, queued, _sending = _queued_and_claimed(tmp_path)
    try:
        assert drop_save(outbox, queued, tmp_path / "sync.lock")
        assert outbox.get(queued) is None
        assert not drop_save(outbox, queued, tmp_path / "sync.lock")  # gone: nothing to drop
    finally:
        outbox.close()


def test_a_save_being_sent_is_not_dropped_while_its_sender_holds_the_lock(
    tmp_path: Path,
) -> None:
    outbox, _queued, sending = _queued_and_claimed(tmp_path)
    sender = FolderLock(tmp_path / "sync.lock")
    try:
        assert sender.acquire()
        with pytest.raises(SaveBeingSent):
            drop_save(outbox, sending, tmp_path / "sync.lock")
        op = outbox.get(sending)
        assert op is not None
        assert op.state == "sending"
        sender.release()
        # Left "sending" by a sender that is gone: dropped as asked, the lock let go after.
        assert drop_save(outbox, sending, tmp_path / "sync.lock")
        assert outbox.get(sending) is None
        assert sender.acquire()
    finally:
        sender.release()
        outbox.close()
