"""The status bar's words for a sync: while it reads the whole library, what it fetched
(never a bare count the list beside it would contradict); after it, a finished sentence, and
"Up to date." when nothing changed."""

from __future__ import annotations

import pytest

from memex_desktop.store import ChangeSet
from memex_desktop.sync import SyncProgress, SyncReport
from memex_desktop.sync.summary import (
    CHECKING_DELETIONS,
    progress_line,
    progress_sentence,
    sync_sentence,
)
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


WAIT = "the server asked to slow down, asking again in 5 s"


@pytest.mark.parametrize(
    ("progress", "line"),
    [
        # A later pass: the cache held about 30,000 items.
        (
            SyncProgress("pull", 1200, 30000, "1,200 items"),
            "Syncing: 1,200 of about 30,000 items fetched",
        ),
        # A first sync: the total only follows what was read.
        (SyncProgress("pull", 1200, 1200, "1,200 items"), "Syncing: 1,200 items fetched so far"),
        (SyncProgress("pull", 1, 1, "1 item"), "Syncing: 1 item fetched so far"),
        (
            SyncProgress("pull", 1200, None, f"1,200 items so far; {WAIT}", waiting_s=5.0),
            f"Syncing: 1,200 items fetched so far; {WAIT}",
        ),
        (
            SyncProgress("pull", 0, None, f"0 items so far; {WAIT}", waiting_s=5.0),
            f"Syncing: nothing fetched yet; {WAIT}",
        ),
        # Words that name what they count stay the engine's.
        (
            SyncProgress("pull", 200, None, "Checking for changes: 200 recent items read"),
            "Checking for changes: 200 recent items read",
        ),
        # The engine's label for the check of deletions is no sentence: the window's is.
        (
            SyncProgress("reconcile", 1200, 1200, "checking for deleted items"),
            "Checking for items deleted on the server…",
        ),
        (SyncProgress("outbox", 2, 3, "2 saves sent"), "2 saves sent"),
    ],
)
def test_a_running_sync_names_what_its_number_counts(progress: SyncProgress, line: str) -> None:
    assert progress_sentence(progress) == line


def test_the_window_and_the_command_line_name_the_check_of_deletions_alike() -> None:
    check = SyncProgress("reconcile", 1200, 1200, "checking for deleted items")
    assert progress_sentence(check).startswith(CHECKING_DELETIONS)
    assert progress_line(check) == f"{CHECKING_DELETIONS}: it lists 1,200 items"
    # Every line the window shows for a step starts as a sentence does.
    steps = [
        check,
        SyncProgress("pull", 50, None, "50 items"),
        SyncProgress("pull", 200, None, "Checking for changes: 200 recent items read"),
    ]
    assert not any(progress_sentence(step)[0].islower() for step in steps)
