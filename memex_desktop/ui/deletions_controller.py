"""The conversation about deletions a sync held back: the banner, its answers and the outcome.

A pass that finds more items gone upstream than it may mark on its own marks none and records
how many it held back. The banner asks the person; "Mark them deleted" runs a full sync that
marks them, "Keep them" is remembered (QSettings) so the same held deletions are not asked
about again at every start. After each sync the banner follows what the sync found.
"""

from __future__ import annotations

import logging
import sqlite3

from PySide6.QtCore import QObject, QSettings, Slot

from memex_desktop.store import CacheReader, StoreError
from memex_desktop.sync import SyncReport
from memex_desktop.sync.engine import STATE_DELETIONS_HELD, held_deletions
from memex_desktop.ui.deletions_banner import DeletionsBanner
from memex_desktop.ui.messages import MessageBridge
from memex_desktop.ui.sync_controller import SyncController
from memex_desktop.ui.toast import Toast

log = logging.getLogger(__name__)

# QSettings key: the held deletions the person chose to keep (the cache's sync_state value),
# so the banner does not ask again at every start until a later sync holds deletions again.
KEPT_DELETIONS_KEY = "sync/kept_deletions"
NO_ACCOUNT = "Connect your Memex account first (Ctrl+,)."


class DeletionsController(QObject):
    """Shows the deletions banner when a sync held deletions back and acts on its answer."""

    def __init__(
        self,
        *,
        reader: CacheReader,
        sync: SyncController,
        banner: DeletionsBanner,
        toast: Toast,
        messages: MessageBridge,
        qsettings: QSettings | None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._reader = reader
        self._sync = sync
        self._banner = banner
        self._toast = toast
        self._messages = messages
        self._qsettings = qsettings
        banner.confirm_requested.connect(self._on_banner_confirm_requested)
        banner.kept.connect(self._on_banner_kept)
        sync.sync_finished.connect(self._on_sync_finished)

    def _held(self) -> str | None:
        """The held deletions the last pass recorded ("" for none; None when unreadable)."""
        try:
            return self._reader.sync_state(STATE_DELETIONS_HELD) or ""
        except (StoreError, sqlite3.Error):  # the window works on without the banner
            log.exception("reading the held deletions failed")
            return None

    def show_held(self) -> None:
        """At start-up: ask about deletions the last pass held back, unless they were kept."""
        held = self._held()
        kept = self._qsettings.value(KEPT_DELETIONS_KEY, "") if self._qsettings else ""
        if held and held_deletions(held) > 0 and held != kept:
            self._banner.show_held(held_deletions(held))

    @Slot(object)
    def _on_sync_finished(self, report: SyncReport) -> None:
        """Ask again when a pass held deletions back; stop asking when a pass settled it."""
        banner = self._banner
        confirming = self._sync.last_request.confirm_deletions
        if confirming and report.deleted_upstream:
            count = report.deleted_upstream
            self._toast.show_message(
                f"{count:,} item{'s' if count != 1 else ''}"
                " marked deleted upstream: still readable under Deleted upstream."
            )
        if report.deletions_held > 0:
            banner.show_held(report.deletions_held)
            # Confirmed while this sync ran: the one that marks them follows.
            banner.set_working(self._sync.confirm_pending)
        elif report.ok and report.full_pass_completed and report.not_reconciled is None:
            banner.hide()  # a complete pass checked: nothing is held back any more
        elif confirming and banner.isVisible():
            banner.set_working(False)
            if report.not_reconciled or report.error is None:
                reason = report.not_reconciled or "the sync stopped"
                self._messages.warn(f"Nothing was marked deleted: {reason}")
            else:
                self._messages.show_failure(report.error, "Nothing was marked deleted")

    @Slot()
    def _on_banner_confirm_requested(self) -> None:
        """Mark them deleted: a full sync that marks what it held back."""
        if not self._sync.sync_now(full=True, resume_paused=True, confirm_deletions=True):
            self._banner.set_working(False)
            self._messages.warn(NO_ACCOUNT)

    @Slot()
    def _on_banner_kept(self) -> None:
        """Keep them: not asked again at start-up about the same held deletions."""
        held = self._held()
        if self._qsettings is not None and held is not None:
            self._qsettings.setValue(KEPT_DELETIONS_KEY, held)
