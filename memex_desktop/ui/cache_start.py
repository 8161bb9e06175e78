"""Opening the library's cache at start, before the window exists.

A cache an older version wrote is brought up to date on a thread of its own, the window
system answered meanwhile, with a dialog that says why the start takes longer (about 4 s at a
million items, once; re-keying a cache out of date order, about 40 s at 100,000 items, shows
how far it has come). A cache that cannot be opened (damaged, written by a newer version,
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


class Advance:
    """How far work on another thread has come, as it last said: ``report`` is called there,
    the dialog reads ``latest`` on the GUI thread (one tuple, replaced whole)."""

    def __init__(self) -> None:
        self.latest: tuple[int, int] | None = None

    def report(self, done: int, total: int) -> None:
        """Called by the work as it goes: ``done`` of ``total`` steps."""
        self.latest = (done, total)


# The bar's range: a fraction, whatever the number of steps (QProgressBar takes int32).
_BAR_STEPS = 1000


def _show_advance(dialog: QProgressDialog, advance: Advance | None) -> None:
    """Fill the bar as far as the work last said (it stays busy until it says).

    The bar itself, not the dialog: the dialog's setValue would show it before its time
    (its minimum duration is 0) and close it when the value reaches the end.
    """
    latest = advance.latest if advance is not None else None
    bar = dialog.findChild(QProgressBar)
    if latest is None or latest[1] <= 0 or bar is None:
        return
    done, total = latest
    if bar.maximum() != _BAR_STEPS:
        bar.setRange(0, _BAR_STEPS)
        bar.setTextVisible(True)
    bar.setValue(min(_BAR_STEPS, done * _BAR_STEPS // total))


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
    advance: Advance | None = None,
) -> None:
    """Run ``work`` on a thread of its own while this (GUI) thread goes on handling events;
    once it has taken ``show_after_ms``, a busy dialog shows ``label`` until it ends, its
    bar filled as far as ``advance`` says the work has come (busy until it says).

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
        bar.setTextVisible(False)  # no percentage until the work says how far it has come
    dialog.hide()
    loop = QEventLoop()

    def check() -> None:
        if not thread.is_alive():
            loop.quit()
        else:
            _show_advance(dialog, advance)

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
    cache when ``offer`` says that gets past it, try again when that may help; or quit (at
    start, without ``parent``), or go on with the window as it is ("Not now": asked by a
    window that met the problem after it opened)."""
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
    dismiss = "Quit" if parent is None else "Not now"
    quit_button = box.addButton(dismiss, QMessageBox.ButtonRole.RejectRole)
    box.setDefaultButton(quit_button)  # nothing is moved by an Enter pressed by habit
    box.setEscapeButton(quit_button)
    box.exec()
    if forward is None or box.clickedButton() is not forward:
        return CacheChoice.QUIT
    return CacheChoice.FRESH if offer is not None else CacheChoice.RETRY
