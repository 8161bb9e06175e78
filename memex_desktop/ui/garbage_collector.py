"""Garbage collection on the GUI thread only.

CPython's automatic collector runs on whichever thread's allocation crosses its threshold. On
a worker it can destroy a Qt object caught in a reference cycle: the object's destructor takes
Qt's locks, then waits for the interpreter lock, which the GUI thread holds while it deletes
widgets and waits for those same locks. The window then hangs for good (seen once, in a test
run: both threads' native stacks showed it). Collected from a timer of the GUI thread, cycles
holding Qt objects die on the thread that owns the widgets.
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QObject, Qt, QTimer, Slot

from memex_desktop.runtime import GC_CHECK_INTERVAL_MS, DueCollections


class GarbageCollector(QTimer):
    """A timer of the GUI thread collecting what the interpreter would have collected."""

    def __init__(self, parent: QObject) -> None:
        super().__init__(parent)
        self.setObjectName("garbage-collector")
        self.collections = DueCollections()
        # Coarse: a collection a few milliseconds late costs nothing, and the timer may be
        # merged with others' wake-ups.
        self.setTimerType(Qt.TimerType.CoarseTimer)
        self.setInterval(GC_CHECK_INTERVAL_MS)
        self.timeout.connect(self._on_timeout)

    @Slot()
    def _on_timeout(self) -> None:
        self.collections.collect()


def collect_garbage_on_this_thread(parent: QObject) -> GarbageCollector:
    """Turn automatic collection off for the process and collect from a timer of the calling
    thread (the GUI thread), owned by ``parent``; the timer, already started."""
    gc.disable()
    timer = GarbageCollector(parent)
    timer.start()
    return timer
