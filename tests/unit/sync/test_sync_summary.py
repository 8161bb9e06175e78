"""The status bar's sentence after a sync: finished, and "Up to date." when nothing changed."""

from __future__ import annotations

import pytest

from memex_desktop.store import ChangeSet
from memex_desktop.sync import SyncReport
from memex_desktop.sync.summary import sync_sentence
from memex_desktop.sync.types import SyncOutcome

OK = SyncOutcome.OK


def changed(count: int) -> ChangeSet:
    return ChangeSet(entity_ids=frozenset(f"e{i}" for i in range(count)))


@pytest.mark.parametrize(
    ("report", "seconds", "sentence"),
    [
        (SyncReport(OK, pulled=66, changes=changed(66)), 1.23, "Synced 66 items in 1.2 s."),
        (SyncReport(OK, pulled=100, changes=changed(1)), 0.4, "Synced 1 item in 0.4 s."),
        (SyncReport(OK, pulled=66), 0.8, "Up to date."),
        (SyncReport(OK, pulled=66, sent=2), 0.5, "Sent 2 saves in 0.5 s."),
        (
            SyncReport(OK, changes=changed(3), sent=1),
            2.0,
            "Synced 3 items and sent 1 save in 2.0 s.",
        ),
        (
            SyncReport(OK, changes=changed(2), deleted_upstream=2),
            0.01,
            "Synced 2 items in under 0.1 s. 2 items moved to Deleted upstream.",
        ),
        (SyncReport(SyncOutcome.CANCELLED), 3.0, "Sync cancelled."),
        (SyncReport(SyncOutcome.OFFLINE), 3.0, ""),
    ],
)
def test_a_sync_ends_in_a_finished_sentence(
    report: SyncReport, seconds: float, sentence: str
) -> None:
    assert sync_sentence(report, seconds) == sentence
    if sentence:
        assert sentence.endswith(".")
