"""What a running sync is doing and what a finished one did, in words for the status bar and
the command line (which says the same things in the same words)."""

from __future__ import annotations

from memex_desktop.sync.types import SyncOutcome, SyncProgress, SyncReport


def counted(number: int, noun: str) -> str:
    """``1 item``, ``66 items``."""
    return f"{number:,} {noun}{'' if number == 1 else 's'}"


# What a sync says from its start until its first step reports (an unlabelled bar and a
# Cancel button next to "Online · synced 23:12" read as something stuck).
STARTED_SENTENCE = "Syncing…"
# The step after a whole pass: what the window says during it, and the command line before
# what the server listed.
CHECKING_DELETIONS = "Checking for items deleted on the server"


def progress_sentence(progress: SyncProgress) -> str:
    """The line for a sync's progress: while it reads the whole library, what it has fetched,
    named as such (``Syncing: 1,200 of about 30,000 items fetched``, ``Syncing: 1,200 items
    fetched so far``); any other step in the engine's own words.

    Beside it the list and the sidebar count the items on this computer: the engine's bare
    "1,200 items" read as a second count of the same list, fewer than it shows during a
    later pass and more than it shows during a first sync (the list follows the cache once a
    second, behind the pages still being written). Only a pass read whole from its start
    after a complete one reports a total (what the cache held, at least what it read): a
    first sync, and a pass resumed where one stopped, count what they fetched "so far" (the
    cache of a stopped first sync is no library's size, and a resumed pass counts from where
    it resumed). The pull of the newest pages reports none, and its words ("Checking for
    changes: 200 recent items read") say what they count, as do those of the later steps;
    the check for deleted items is a sentence as every other (the engine's label for it is
    not).
    """
    if progress.phase == "reconcile":
        return f"{CHECKING_DELETIONS}…"
    waiting = progress.waiting_s is not None
    if progress.phase != "pull" or (progress.total_estimate is None and not waiting):
        return progress.message
    fetched = fetched_sentence(progress.done, progress.total_estimate)
    if progress.waiting_s is None:
        return fetched
    return f"{fetched}; the server asked to slow down, asking again in {progress.waiting_s:.0f} s"


def progress_line(progress: SyncProgress) -> str:
    """The command line's line for a step of a sync (or an export): the window's words
    (:func:`progress_sentence`) where it says the same, a sentence for the steps it words in
    the engine's shorthand."""
    if progress.phase == "reconcile":
        listed = counted(progress.done, "item")
        return f"{CHECKING_DELETIONS}: it lists {listed}"
    if progress.phase == "outbox":
        return f"Sending queued saves: {progress.message}"
    return progress_sentence(progress)


def exported_sentence(done: int, total: int) -> str:
    """How far an export has come: ``Exported 20 of 71 items``."""
    return f"Exported {done:,} of {counted(total, 'item')}"


def fetched_sentence(done: int, total: int | None) -> str:
    """What a pass over the whole library fetched: of a total only while one lies ahead (a
    total reached says nothing of what is left)."""
    if total and total > done:
        return f"Syncing: {done:,} of about {counted(total, 'item')} fetched"
    if done:
        return f"Syncing: {counted(done, 'item')} fetched so far"
    return "Syncing: nothing fetched yet"


def sync_sentence(report: SyncReport, seconds: float) -> str:
    """``Synced 66 items in 1.2 s.``, ``Up to date.`` when nothing changed, or what stopped
    it ("" for a failure: the connection state says why)."""
    if report.outcome is SyncOutcome.CANCELLED:
        return "Sync cancelled."
    if not report.ok:
        return ""
    changed = report.changes.changed_count
    if not changed and not report.sent and not report.deleted_upstream:
        return "Up to date."
    done = []
    if changed:
        done.append(f"Synced {counted(changed, 'item')}")
    if report.sent:
        done.append(f"{'sent' if done else 'Sent'} {counted(report.sent, 'save')}")
    took = f"in {seconds:.1f} s" if seconds >= 0.05 else "in under 0.1 s"
    sentence = f"{' and '.join(done) or 'Synced'} {took}."
    if report.deleted_upstream:
        gone = counted(report.deleted_upstream, "item")
        sentence += f" {gone} moved to Deleted upstream."
    return sentence
