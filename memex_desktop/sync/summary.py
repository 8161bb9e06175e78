"""What a finished sync did, in one finished sentence for the status bar."""

from __future__ import annotations

from memex_desktop.sync.types import SyncOutcome, SyncReport


def counted(number: int, noun: str) -> str:
    """``1 item``, ``66 items``."""
    return f"{number:,} {noun}{'' if number == 1 else 's'}"


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
