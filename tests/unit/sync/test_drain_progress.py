"""A drain of the outbox reports each save once it is dealt with, whatever became of it (sent,
refused, put back to wait), so that whoever shows the outbox can list it again at once: the
window's Outbox pane and count followed only the end of the sync, minutes later."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from support.secrets import TEST_API_KEY

from memex_desktop.emulator.synthetic import generate_library
from memex_desktop.sync import SyncOutcome, SyncProgress


@pytest.fixture(scope="module")
def library() -> dict[str, Any]:
    return generate_library(40, seed=3, words_per_entity=10)


def _reports(harness: Any) -> tuple[list[str], list[list[str]], Callable[[SyncProgress], None]]:
    """A listener for a drain: the words of each outbox progress, and the states the outbox
    held at that moment."""
    words: list[str] = []
    states: list[list[str]] = []

    def heard(progress: SyncProgress) -> None:
        if progress.phase == "outbox":
            words.append(progress.message)
            states.append([op.state for op in harness.outbox.list()])

    return words, states, heard


def test_each_save_is_reported_sent_or_not(
    library_emulator: Any, harness_factory: Any, library: dict[str, Any]
) -> None:
    emulator = library_emulator(library)
    harness = harness_factory(emulator.base_url, TEST_API_KEY)
    harness.outbox.enqueue_url("https://refused.example/")
    harness.outbox.enqueue_url("https://fine.example/")
    harness.outbox.enqueue_url("https://also-fine.example/")
    emulator.faults.next_status(
        422, body={"error": "This page cannot be saved"}, paths=["/save-content-by-url"]
    )
    words, states, heard = _reports(harness)
    report = harness.engine.drain_outbox(progress=heard)
    assert report.ok, report.error
    assert words == ["1 save not sent", "1 save sent, 1 not sent", "2 saves sent, 1 not sent"]
    # Each report comes once the save it is about has its new state: none is left sending.
    assert [sorted(held) for held in states] == [
        ["needs_attention", "queued", "queued"],
        ["accepted", "needs_attention", "queued"],
        ["accepted", "accepted", "needs_attention"],
    ]


def test_a_save_put_back_as_the_drain_stops_is_reported(
    library_emulator: Any, harness_factory: Any, library: dict[str, Any]
) -> None:
    emulator = library_emulator(library, balance_micros=0)
    harness = harness_factory(emulator.base_url, TEST_API_KEY)
    harness.outbox.enqueue_url("https://paid.example/1")
    harness.outbox.enqueue_url("https://paid.example/2")
    words, states, heard = _reports(harness)
    report = harness.engine.drain_outbox(progress=heard)
    assert report.outcome is SyncOutcome.INSUFFICIENT_CREDITS
    # The drain stopped at the first save; it is back in the queue, not left "sending".
    assert words == ["1 save not sent"]
    assert states == [["queued", "queued"]]
