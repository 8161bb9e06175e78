"""Recording Qt signal emissions in tests (``qtbot.waitSignal`` misses some under PySide6 6.12)."""

from __future__ import annotations

from typing import Any


class Emitted:
    """Records every emission of a signal, with its arguments."""

    def __init__(self, signal: Any) -> None:
        self.calls: list[list[Any]] = []
        signal.connect(self._record)

    def _record(self, *args: Any) -> None:
        self.calls.append(list(args))

    def wait(self, qtbot: Any, timeout: int = 10_000) -> list[Any]:
        """Wait for an emission; the arguments of the latest one."""
        qtbot.waitUntil(lambda: bool(self.calls), timeout=timeout)
        return self.calls[-1]

    @property
    def args(self) -> list[Any]:
        """The arguments of the first emission."""
        return self.calls[0]
