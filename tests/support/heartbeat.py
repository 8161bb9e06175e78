"""The GUI thread's heartbeat: how late a 16 ms timer's beats come while work runs."""

from __future__ import annotations

import time

from PySide6.QtCore import QObject, Qt, QTimer, Slot


class Heartbeat(QObject):
    """A 16 ms timer that records how late each beat came (the GUI thread's responsiveness)."""

    def __init__(self) -> None:
        super().__init__()
        self.gaps_ms: list[float] = []
        self._last = time.perf_counter()
        self._timer = QTimer(self)
        self._timer.setTimerType(Qt.TimerType.PreciseTimer)
        self._timer.setInterval(16)
        self._timer.timeout.connect(self._on_timer_timeout)

    def start(self) -> None:
        self._last = time.perf_counter()
        self._timer.start()

    def stop(self) -> None:
        self._timer.stop()

    @Slot()
    def _on_timer_timeout(self) -> None:
        now = time.perf_counter()
        self.gaps_ms.append((now - self._last) * 1000)
        self._last = now
