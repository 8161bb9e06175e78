"""What a start does once the window is on screen: after its first frame, or its first results.

A start shows the window's frame before anything else (:func:`show_first_frame`), then the
person's library, and only then does what can wait (the keyring, the client, the first sync,
settling the garbage collector): each of those on the GUI thread before the first frame would
keep the window from appearing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QEventLoop, QObject, Qt, QTimer, Slot
from PySide6.QtWidgets import QWidget

if TYPE_CHECKING:
    # The window asks for its own first results (to bring back where the person was).
    from memex_desktop.ui.main_window import MainWindow


class _AfterNextPaint(QObject):
    """Runs callbacks once the widget it watches has painted (once)."""

    def __init__(self, widget: QWidget, callback: Callable[[], None]) -> None:
        super().__init__(widget)
        self._callbacks = [callback]
        self._ran = False

    def add(self, callback: Callable[[], None]) -> bool:
        """Run ``callback`` after the others; False once they have run."""
        if self._ran:
            return False
        self._callbacks.append(callback)
        return True

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """On the paint: stop watching, and run the callbacks when the frame is out."""
        if event.type() == QEvent.Type.Paint and not self._ran:
            self._ran = True
            watched.removeEventFilter(self)
            # Queued: the paint this event starts, and the frame it makes, come first.
            QTimer.singleShot(0, self._run)
        return False

    @Slot()
    def _run(self) -> None:
        for callback in self._callbacks:
            callback()
        self.deleteLater()


def after_next_paint(widget: QWidget, callback: Callable[[], None]) -> None:
    """Call ``callback`` once ``widget`` has shown its next frame, after the callbacks given
    before it: what a person needs to see first is not kept waiting by the rest."""
    watcher = widget.findChild(_AfterNextPaint, options=Qt.FindChildOption.FindDirectChildrenOnly)
    if watcher is None or not watcher.add(callback):
        widget.installEventFilter(_AfterNextPaint(widget, callback))


# How long a start waits for its window's frame to be painted before it goes on building the
# window anyway (a window system that shows no window at all must not stop the start).
FIRST_FRAME_WAIT_MS = 1000


def show_first_frame(window: QWidget) -> bool:
    """Show ``window`` and return once it has painted its first frame; whether it did
    within FIRST_FRAME_WAIT_MS.

    A start shows the window's frame this way before it imports and builds the rest: the
    event loop runs only until that frame is out (the window then waits, unanswered, while
    the rest is built, as it did before it was shown at all).
    """
    waiting = QEventLoop()
    painted = False

    def done() -> None:
        nonlocal painted
        painted = True
        waiting.quit()

    after_next_paint(window, done)
    timeout = QTimer()
    timeout.setSingleShot(True)
    timeout.timeout.connect(waiting.quit)
    timeout.start(FIRST_FRAME_WAIT_MS)
    window.show()
    if not painted:
        waiting.exec()
    timeout.stop()
    return painted


# How long after its first paint the window waits for its first results before it goes on
# with what comes after them (a cache that cannot be read shows its problem, not nothing).
FIRST_RESULTS_WAIT_MS = 1000


def after_first_results(window: MainWindow, callback: Callable[[], None]) -> None:
    """Call ``callback`` once ``window`` has painted its first results (or
    FIRST_RESULTS_WAIT_MS after its first paint, when they take longer)."""
    called = False

    def once() -> None:
        nonlocal called
        if not called:
            called = True
            callback()

    def on_results(_rows: int) -> None:
        window.search.search_applied.disconnect(on_results)
        after_next_paint(window.results_view.viewport(), once)

    def painted() -> None:
        if window.search.shown_any:
            once()  # they were in that frame
            return
        window.search.search_applied.connect(on_results)
        QTimer.singleShot(FIRST_RESULTS_WAIT_MS, window, once)

    after_next_paint(window, painted)
