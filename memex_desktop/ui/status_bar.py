"""The status bar: connection state with its fixing action, sync progress, saves, balance."""

from __future__ import annotations

import datetime as dt
import math
import time
from pathlib import Path

from PySide6.QtCore import QSize, Qt, QTimer, Signal, Slot
from PySide6.QtGui import QPainter, QPaintEvent
from PySide6.QtWidgets import QLabel, QProgressBar, QStatusBar, QToolButton, QWidget

from memex_desktop.api.models import SearchMeta
from memex_desktop.errors import ConnectionState, StateWords, failed_sync_words, state_words
from memex_desktop.sync import SyncOutcome, SyncProgress, SyncReport
from memex_desktop.sync.summary import (
    STARTED_SENTENCE,
    fetched_sentence,
    progress_sentence,
    sync_sentence,
)
from memex_desktop.ui.sync_controller import OutboxCounts

# The action each state's button asks for (announced by action_requested); the words for the
# state and its button come from memex_desktop.errors.
STATE_ACTIONS: dict[ConnectionState, str] = {
    ConnectionState.NOT_CONFIGURED: "settings",
    ConnectionState.ONLINE: "",
    ConnectionState.OFFLINE: "retry",
    ConnectionState.SERVER_DOWN: "retry",
    ConnectionState.AUTH_REJECTED: "settings",
    ConnectionState.INSUFFICIENT_CREDITS: "plans",
    # The fix is not a retry: the connection check shows what the server does differently.
    ConnectionState.INCOMPATIBLE: "doctor",
}


def format_balance(meta: SearchMeta | None) -> str:
    """The remaining usage balance as money (micros → dollars) or credits; empty if unknown."""
    if meta is None:
        return ""
    micros = meta.remaining_balance_micros
    if micros is not None:
        return f"Balance ${micros / 1_000_000:,.2f}"
    credits = meta.remaining_credits.total if meta.remaining_credits else None
    return f"{credits:,.0f} credits left" if credits is not None else ""


# A status text may narrow to this many average characters; past it, it ends with "…".
STATE_MIN_CHARS = 8


# A sync that has brought no page for this long says so: each request may wait a minute on a
# server that took it and went silent, and a spinning bar alone says nothing of that.
QUIET_SYNC_MS = 15_000


class ElidedLabel(QLabel):
    """A one-line label that asks for its whole text but may narrow, ending it with "…".

    The whole text stays in the tooltip the status bar gives each state.
    """

    def minimumSizeHint(self) -> QSize:
        """A few characters wide: a long state never widens the window."""
        hint = super().minimumSizeHint()
        return QSize(STATE_MIN_CHARS * self.fontMetrics().averageCharWidth(), hint.height())

    def shown_text(self) -> str:
        """The text as drawn at the current width."""
        room = self.contentsRect().width()
        return self.fontMetrics().elidedText(self.text(), Qt.TextElideMode.ElideRight, room)

    def paintEvent(self, _event: QPaintEvent) -> None:
        """Draw the text elided to the width."""
        painter = QPainter(self)
        painter.setPen(self.palette().windowText().color())
        alignment = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
        painter.drawText(self.contentsRect(), alignment, self.shown_text())
        painter.end()


# What the status bar says while a start reads the keyring and connects.
CONNECTING = "Connecting…"


class StatusBar(QStatusBar):
    """Connection state, sync progress with cancel, pending saves and the usage balance.

    Signals:
        action_requested(str): the state's button was clicked (settings, retry, plans,
            doctor).
        cancel_requested(): the cancel button of the sync progress was clicked.
        outbox_requested(): the pending-saves button was clicked.
    """

    action_requested = Signal(str)
    cancel_requested = Signal()
    outbox_requested = Signal()

    def __init__(self, parent: QWidget | None = None, *, cache_path: Path | None = None) -> None:
        """``cache_path``: the cache of the window, so that a sync that failed over it says
        what gets past that (a fresh cache for a damaged one)."""
        super().__init__(parent)
        self.setObjectName("statusbar")
        self._cache_path = cache_path
        self.state = ConnectionState.ONLINE
        self.words = state_words(self.state)
        self.state_label = ElidedLabel(self)
        self.state_label.setObjectName("connectionstate")
        self.state_label.setAccessibleName("Connection state")
        self.action_button = QToolButton(self)
        self.action_button.setObjectName("connectionaction")
        self.action_button.setAutoRaise(True)
        self.action_button.clicked.connect(self._on_action_button_clicked)
        self.progress = QProgressBar(self)
        self.progress.setObjectName("syncprogress")
        self.progress.setAccessibleName("Sync progress")
        self.progress.setMaximumWidth(180)
        self.progress.setTextVisible(False)
        self.progress.hide()
        self.cancel_button = QToolButton(self)
        self.cancel_button.setText("Cancel")
        self.cancel_button.setAccessibleName("Cancel sync")
        self.cancel_button.setAutoRaise(True)
        self.cancel_button.hide()
        self.cancel_button.clicked.connect(self.cancel_requested)
        self.saves_button = QToolButton(self)
        self.saves_button.setObjectName("pendingsaves")
        self.saves_button.setAutoRaise(True)
        self.saves_button.setAccessibleName("Pending saves")
        self.saves_button.clicked.connect(self.outbox_requested)
        self.saves_button.hide()
        self.balance_label = QLabel(self)
        self.balance_label.setObjectName("balance")
        self.balance_label.setAccessibleName("Remaining usage balance")
        self.addWidget(self.state_label)
        self.addWidget(self.action_button)
        self.addPermanentWidget(self.progress)
        self.addPermanentWidget(self.cancel_button)
        self.addPermanentWidget(self.saves_button)
        self.addPermanentWidget(self.balance_label)
        self._action = ""
        # The last message said (its words and when it goes), to come back to once a hint
        # (where the link under the pointer goes, what a menu entry does) goes away; and
        # whether the sync said it (a wait, a silence, how the last sync ended: its next
        # progress makes them out of date).
        self._said: tuple[str, float] | None = None
        self._said_by_sync = False
        self._said_timer = QTimer(self)
        self._said_timer.setSingleShot(True)
        self._said_timer.timeout.connect(self._on_said_timer_timeout)
        self._hinting = False
        # What the running sync is doing, shown whenever no other message is: a message that
        # ends must not uncover the connection state ("Online") beside the sync's bar and
        # Cancel, as if the sync had stopped.
        self._sync_line = ""
        self.messageChanged.connect(self._on_message_changed)
        self._last_sync: str = ""
        self._sync_started_at = time.monotonic()
        # When the running sync last brought something, its phase then, and until when it
        # waits as the server asked (it says so itself meanwhile).
        self._heard_at = self._sync_started_at
        self._heard_phase = ""
        self._waiting_until = 0.0
        self._quiet = QTimer(self)
        self._quiet.setInterval(QUIET_SYNC_MS)
        self._quiet.timeout.connect(self._on_quiet_timeout)
        self.set_state(ConnectionState.ONLINE, None)

    @Slot()
    def _on_quiet_timeout(self) -> None:
        """Say that the sync has brought nothing for a while, while it reads pages (later
        phases work on this computer, and say what they do)."""
        now = time.monotonic()
        quiet_s = now - self._heard_at
        if now < self._waiting_until or self._heard_phase not in ("", "pull"):
            return
        if quiet_s * 1000 < QUIET_SYNC_MS * 0.9:
            return
        self._say(
            f"Still syncing: no page came for {quiet_s:.0f} s. The Memex server may be slow "
            "or not answering; Cancel stops the sync, and the next one goes on from here.",
            QUIET_SYNC_MS + 1000,
            by_sync=True,
        )

    def say(self, line: str, shown_for_ms: int) -> None:
        """Show ``line`` for ``shown_for_ms`` (0: until another comes; an empty line takes
        the last one away); while a hint shows, once the hint goes. Once it goes, the
        running sync's words come back, else the connection state."""
        self._say(line, shown_for_ms, by_sync=False)

    def _say(self, line: str, shown_for_ms: int, *, by_sync: bool) -> None:
        """Say ``line`` for ``shown_for_ms``; ``by_sync``: the sync's own words, out of date
        at its next progress."""
        until = time.monotonic() + shown_for_ms / 1000 if shown_for_ms > 0 else math.inf
        self._said = (line, until) if line else None
        self._said_by_sync = by_sync
        self._show_words()

    def _show_words(self) -> None:
        """Show what is due now: a hint; else the last message while it has time left; else
        the running sync's words; else nothing, which uncovers the connection state."""
        if self._hinting:
            return
        self._said_timer.stop()
        left_s = self._said[1] - time.monotonic() if self._said else 0.0
        if self._said is not None and left_s > 0:
            if left_s != math.inf:
                self._said_timer.start(max(1, math.ceil(left_s * 1000)))
            self.showMessage(self._said[0])
            return
        self._said = None
        if self._sync_line:
            self.showMessage(self._sync_line)
        else:
            self.clearMessage()

    @Slot()
    def _on_said_timer_timeout(self) -> None:
        """The last message's time ran out."""
        self._show_words()

    def show_hint(self, hint: str) -> None:
        """Show a hint for as long as what it is about is pointed at; an empty hint (the
        pointer left) brings back the message it covered, if that has time left."""
        if hint:
            self._hinting = True
            self.showMessage(hint)
            return
        self._hinting = False
        self._show_words()

    @Slot(object, object)
    def set_state(self, state: ConnectionState, words: StateWords | None) -> None:
        """Show a connection state with its fixing action (``words``: as the controller
        worded it for the error and credentials at hand; None: the state's own words)."""
        self.state = state
        if words is None:
            words = state_words(state)
        self.words = words
        label = words.label
        if state is ConnectionState.ONLINE and self._last_sync:
            label = state_words(state, synced_at=self._last_sync).label
        self.state_label.setText(label)
        tip = words.message.one_line()
        self.state_label.setToolTip(tip)
        self.state_label.setAccessibleDescription(tip)
        button = words.button
        self._action = STATE_ACTIONS[state] if button else ""
        self.action_button.setText(button)
        self.action_button.setAccessibleName(button.rstrip("…") or "No action needed")
        self.action_button.setToolTip(tip if button else "")
        self._show_action_button()

    def show_connecting(self) -> None:
        """Until the connection is known (the window shows the library first): neither
        "Online" nor "Not connected", which either could turn out false a moment later."""
        self.state_label.setText(CONNECTING)
        self.state_label.setToolTip("")
        self.state_label.setAccessibleDescription("")
        self._action = ""
        self.action_button.hide()

    def _show_action_button(self) -> None:
        """The state's button, unless there is none or a message covers the state for now.

        A message hides the state while it shows; a button shown meanwhile would be drawn
        over the message's words.
        """
        self.action_button.setVisible(bool(self.words.button) and not self.currentMessage())

    @Slot(str)
    def _on_message_changed(self, message: str) -> None:
        """A message came or went: the state's button goes or comes back with the state."""
        del message
        self._show_action_button()

    @Slot()
    def on_sync_started(self) -> None:
        """Show an indeterminate progress bar with a cancel button, and say a sync runs."""
        self._sync_started_at = self._heard_at = time.monotonic()
        self._heard_phase = ""
        self._waiting_until = 0.0
        self._sync_line = STARTED_SENTENCE
        if self._said_by_sync:
            self._said = None  # how the last sync ended is over (a failure: until this one)
        self._show_words()
        self._quiet.start()
        self.progress.setToolTip(STARTED_SENTENCE)
        self.progress.setRange(0, 0)
        self.progress.show()
        self.cancel_button.show()

    @Slot(object)
    def on_sync_progress(self, progress: SyncProgress) -> None:
        """Advance the progress bar: determinate while a known total lies ahead, busy otherwise;
        the words say what the sync does until it ends, whenever no other message shows.

        A first sync knows no total (its estimate only follows what was read), and a total
        that was reached says nothing of what is left: a full bar would claim the work is done.
        """
        self._heard_at = time.monotonic()
        self._heard_phase = progress.phase
        self._waiting_until = self._heard_at + (progress.waiting_s or 0.0)
        total = progress.total_estimate
        if total and total > progress.done:
            self.progress.setRange(0, total)
            self.progress.setValue(progress.done)
        else:
            self.progress.setRange(0, 0)
        line = progress_sentence(progress)
        self.progress.setToolTip(line)
        if self._said_by_sync:
            self._said = None  # what the sync said last (a wait, a silence) is over
        if progress.waiting_s is None:
            self._sync_line = line
            self._show_words()
            return
        # A wait for a server that asked to slow down is said for as long as it lasts; then
        # what was fetched, without the wait.
        self._sync_line = fetched_sentence(progress.done, progress.total_estimate)
        self._say(line, max(int(progress.waiting_s * 1000) + 500, 3000), by_sync=True)

    @Slot(object)
    def on_sync_finished(self, report: SyncReport) -> None:
        """Hide the progress, say what the sync did; remember when the last good one ended."""
        self._quiet.stop()
        self.progress.hide()
        self.cancel_button.hide()
        self._sync_line = ""
        if self._said_by_sync:
            self._said = None
        if report.ok:
            self._last_sync = dt.datetime.now().strftime("%H:%M")
            if self.state is ConnectionState.ONLINE:
                self.set_state(ConnectionState.ONLINE, self.words)
        # A closed window hears late results too: it says (and starts timers for) nothing.
        if not self.window().isVisible():
            return
        sentence = sync_sentence(report, time.monotonic() - self._sync_started_at)
        if report.outcome is SyncOutcome.FAILED:
            # Nothing in the connection state says so (the server answered, or was never
            # asked): said until the next sync starts, not "Online" a moment later.
            self._say(failed_sync_words(report.error, self._cache_path), 0, by_sync=True)
        elif sentence:
            # The sync's own words: the next sync's first progress takes them away.
            self._say(sentence, 5000, by_sync=True)
        else:
            self._show_words()  # the state says why it stopped

    @Slot(object)
    def on_outbox_changed(self, counts: OutboxCounts) -> None:
        """Show how many saves wait, are processing or need attention."""
        parts = []
        if counts.pending:
            parts.append(f"{counts.pending} save{'s' if counts.pending != 1 else ''} waiting")
        if counts.awaiting:
            parts.append(f"{counts.awaiting} processing")
        if counts.attention:
            parts.append(f"{counts.attention} need attention")
        self.saves_button.setText(" · ".join(parts))
        self.saves_button.setVisible(bool(parts))

    @Slot(object)
    def on_meta_changed(self, meta: SearchMeta) -> None:
        """Show the remaining usage balance from the latest server answer."""
        text = format_balance(meta)
        if text:
            self.balance_label.setText(text)

    @Slot()
    def _on_action_button_clicked(self) -> None:
        """Announce the state's fixing action."""
        if self._action:
            self.action_requested.emit(self._action)
