"""Opening the library's cache at start, before the window exists.

A cache an older version wrote is brought up to date on a thread of its own, the window
system answered meanwhile, with a dialog that says why the start takes longer (about 4 s at a
million items, once). A cache that cannot be opened (damaged, written by a newer version,
busy, on a full disk) is explained in a dialog with the way forward, instead of a start that
ends with a traceback nobody sees.
"""

from __future__ import annotations

import enum
import threading
from collections.abc import Callable

from PySide6.QtCore import QEventLoop, Qt, QTimer
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import QLabel, QMessageBox, QProgressBar, QProgressDialog, QWidget

from memex_desktop.errors import FreshCacheOffer, retry_may_help, user_message

# A step shorter than this ends before a dialog would have been read: none is shown.
SHOW_AFTER_MS = 400
# How often the event loop looks whether the work is done (it sleeps in between).
_POLL_MS = 25


class _Busy(QProgressDialog):
    """A progress dialog nobody can dismiss: the work it shows cannot stop halfway."""

    def reject(self) -> None:
        """Escape does nothing."""

    def closeEvent(self, event: QCloseEvent) -> None:
        event.ignore()


def run_with_progress(
    work: Callable[[], None],
    label: str,
    *,
    show_after_ms: int = SHOW_AFTER_MS,
    parent: QWidget | None = None,
) -> None:
    """Run ``work`` on a thread of its own while this (GUI) thread goes on handling events;
    once it has taken ``show_after_ms``, a busy dialog shows ``label`` until it ends.

    Raises what ``work`` raised.
    """
    failure: list[BaseException] = []

    def run() -> None:
        try:
            work()
        except BaseException as exc:  # re-raised on the GUI thread below
            failure.append(exc)

    # Not a daemon: a quit while it runs waits for the step to commit or roll back.
    thread = threading.Thread(target=run, name="cache-upgrade")
    dialog = _Busy(label, "", 0, 0, parent)
    dialog.setWindowTitle("Memex")
    dialog.setCancelButton(None)  # no button: the step cannot stop halfway
    dialog.setWindowModality(Qt.WindowModality.ApplicationModal)
    dialog.setMinimumDuration(0)
    text = dialog.findChild(QLabel)
    if text is not None:
        text.setWordWrap(True)
    dialog.setFixedWidth(440)
    bar = dialog.findChild(QProgressBar)
    if bar is not None:
        bar.setTextVisible(False)  # no percentage: how far a step has come is not known
    dialog.hide()
    loop = QEventLoop()

    def check() -> None:
        if not thread.is_alive():
            loop.quit()

    def show() -> None:
        if thread.is_alive():
            dialog.show()

    poll = QTimer()
    poll.setInterval(_POLL_MS)
    poll.timeout.connect(check)
    QTimer.singleShot(show_after_ms, dialog, show)
    thread.start()
    poll.start()
    loop.exec()
    poll.stop()
    thread.join()
    dialog.hide()
    dialog.deleteLater()
    if failure:
        raise failure[0]


class CacheChoice(enum.Enum):
    """What the person chose about a cache that cannot be opened."""

    FRESH = "fresh"  # keep the old file aside and start with a fresh cache
    RETRY = "retry"  # try again (the disk has room now, the other program let go)
    QUIT = "quit"


def ask_about_cache(
    exc: BaseException, offer: FreshCacheOffer | None, parent: QWidget | None = None
) -> CacheChoice:
    """Tell the person why the cache cannot be opened and ask what to do: start with a fresh
    cache when ``offer`` says that gets past it, try again when that may help; or quit."""
    message = user_message(exc)
    box = QMessageBox(parent)
    box.setWindowTitle("Memex")
    box.setIcon(QMessageBox.Icon.Critical)
    box.setText(message.text)
    box.setInformativeText(offer.words if offer is not None else message.action or "")
    if message.detail:
        box.setDetailedText(message.detail)
    forward = None
    if offer is not None:
        forward = box.addButton("Start with a fresh cache", QMessageBox.ButtonRole.AcceptRole)
    elif retry_may_help(exc):
        forward = box.addButton("Try again", QMessageBox.ButtonRole.AcceptRole)
    quit_button = box.addButton("Quit", QMessageBox.ButtonRole.RejectRole)
    box.setDefaultButton(quit_button)  # nothing is moved by an Enter pressed by habit
    box.setEscapeButton(quit_button)
    box.exec()
    if forward is None or box.clickedButton() is not forward:
        return CacheChoice.QUIT
    return CacheChoice.FRESH if offer is not None else CacheChoice.RETRY
