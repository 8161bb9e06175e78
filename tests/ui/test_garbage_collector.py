"""Garbage is collected on the GUI thread only: a collection a worker starts could destroy a Qt
object there and deadlock with the GUI thread (see ui/garbage_collector.py)."""

from __future__ import annotations

import gc
import threading
import weakref
from typing import Any

import pytest
from PySide6.QtCore import QObject

pytestmark = pytest.mark.gui


class _Cycle:
    """An object that refers to itself and holds a Qt object: only a collection frees it."""

    def __init__(self) -> None:
        self.itself = self
        self.qt_object = QObject()


def _allocate_on_a_worker(containers: int) -> list[list[int]]:
    """Containers allocated on a worker thread, enough to cross the young threshold (the
    interpreter counts those allocated and not yet freed)."""
    allocated: list[list[int]] = []

    def allocate() -> None:
        allocated.extend([] for _ in range(containers))

    worker = threading.Thread(target=allocate, name="allocating-worker")
    worker.start()
    worker.join()
    return allocated


@pytest.mark.usefixtures("tuned_as_run_gui")
def test_a_cycle_holding_a_qt_object_is_collected_on_the_gui_thread(qtbot: Any) -> None:
    gui_thread = threading.get_ident()
    collected_on: list[int] = []
    cycle = _Cycle()
    weakref.finalize(cycle, lambda: collected_on.append(threading.get_ident()))
    del cycle
    assert not gc.isenabled()  # automatic collection would run on the allocating worker
    allocated = _allocate_on_a_worker(100_000)
    assert collected_on == []
    qtbot.waitUntil(lambda: bool(collected_on), timeout=5_000)
    assert collected_on == [gui_thread]
    assert len(allocated) == 100_000


@pytest.mark.usefixtures("tuned_as_run_gui")
def test_the_gui_thread_collects_as_often_as_the_thresholds_ask(qtbot: Any) -> None:
    """Nothing is collected while the young generation is under its threshold; once it is
    over, the next tick collects it."""
    gc.collect()
    gc.set_threshold(50_000, 10, 10)
    collected_on: list[int] = []
    cycle = _Cycle()
    weakref.finalize(cycle, lambda: collected_on.append(threading.get_ident()))
    del cycle
    qtbot.wait(300)  # three ticks
    assert collected_on == []
    allocated = _allocate_on_a_worker(100_000)
    qtbot.waitUntil(lambda: bool(collected_on), timeout=5_000)
    assert len(allocated) == 100_000
