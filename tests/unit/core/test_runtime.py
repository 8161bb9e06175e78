"""Interpreter and allocator settings of the app's processes."""

from __future__ import annotations

import gc
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from memex_desktop import cli
from memex_desktop.runtime import (
    FULL_COLLECTION_COST_TIMES,
    GC_THRESHOLDS,
    GUI_SWITCH_INTERVAL_S,
    DueCollections,
    favour_the_gui_thread,
    return_freed_memory_periodically,
    settle_garbage_collector,
)


@pytest.fixture
def restored_gc() -> Iterator[None]:
    thresholds = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*thresholds)


@pytest.mark.usefixtures("restored_gc")
def test_start_up_objects_are_frozen_and_collections_rarer() -> None:
    kept = [object() for _ in range(10)]  # alive before settling: frozen with the rest
    settle_garbage_collector()
    assert gc.get_freeze_count() > 0
    assert gc.get_threshold() == GC_THRESHOLDS
    assert GC_THRESHOLDS[0] > 700  # CPython's default
    assert kept


@pytest.mark.usefixtures("restored_gc")
def test_a_generation_is_collected_when_the_interpreter_would_collect_it() -> None:
    """What automatic collection would do, for a process that collects on one thread."""
    gc.disable()
    gc.collect()
    gc.set_threshold(1_000, 2, 100)
    due = DueCollections()
    kept: list[list[int]] = [[] for _ in range(500)]
    assert due.collect() is None  # the young generation is under its threshold
    collected = []
    for _ in range(3):
        kept.extend([] for _ in range(1_500))
        collected.append(due.collect())
    # Each young collection counts one for the middle generation, collected when over 2.
    assert collected == [0, 0, 0]
    kept.extend([] for _ in range(1_500))
    assert due.collect() == 1
    assert gc.get_count()[1] == 0


class _Clock:
    """A clock that moves only when told to."""

    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


FULL_COLLECTION_S = 0.05


@pytest.mark.usefixtures("restored_gc")
def test_a_full_collection_waits_a_hundred_times_what_the_last_one_took() -> None:
    """Collected on the GUI thread, a full collection of a large heap is a stall: they are
    spaced out so that they take about 1 % of the time at most."""
    gc.disable()
    gc.collect()
    gc.set_threshold(100, 1, 1)
    clock = _Clock()

    def full_collections_take_50_ms(phase: str, info: dict[str, int]) -> None:
        if phase == "stop" and info["generation"] == 2:
            clock.now += FULL_COLLECTION_S

    due = DueCollections(clock)
    kept: list[list[int]] = []

    def collect_after_allocating() -> int | None:
        kept.extend([] for _ in range(200))
        return due.collect()

    gc.callbacks.append(full_collections_take_50_ms)
    try:
        assert 2 in [collect_after_allocating() for _ in range(10)]  # as soon as called for
        # Then none before 100 x 50 ms have passed, however often the counts call for one.
        assert 2 not in [collect_after_allocating() for _ in range(30)]
        clock.now += FULL_COLLECTION_COST_TIMES * FULL_COLLECTION_S
        assert 2 in [collect_after_allocating() for _ in range(10)]
    finally:
        gc.callbacks.remove(full_collections_take_50_ms)


@pytest.fixture
def restored_switch_interval() -> Iterator[None]:
    interval = sys.getswitchinterval()
    yield
    sys.setswitchinterval(interval)


@pytest.mark.usefixtures("restored_switch_interval")
def test_the_gui_thread_gets_the_interpreter_back_within_a_millisecond() -> None:
    sys.setswitchinterval(0.005)
    favour_the_gui_thread()
    assert sys.getswitchinterval() == pytest.approx(GUI_SWITCH_INTERVAL_S, rel=0.05)
    sys.setswitchinterval(0.0002)
    favour_the_gui_thread()  # never slower than it was
    assert sys.getswitchinterval() < GUI_SWITCH_INTERVAL_S / 2


@pytest.mark.usefixtures("restored_gc")
def test_a_command_settles_the_collector_as_its_process_entry_point(tmp_path: Path) -> None:
    gc.set_threshold(700, 10, 10)
    assert cli.main(["outbox", "--data-dir", str(tmp_path)]) == cli.EXIT_OK
    assert gc.get_threshold() == GC_THRESHOLDS


def _trimmers() -> list[threading.Thread]:
    return [thread for thread in threading.enumerate() if thread.name == "memory-trim"]


@pytest.mark.skipif(
    not sys.platform.startswith("linux") or sys.implementation.name != "cpython",
    reason="glibc's malloc_trim",
)
def test_freed_memory_is_returned_by_one_thread_per_process() -> None:
    assert return_freed_memory_periodically(interval_s=0.01)
    assert return_freed_memory_periodically(interval_s=0.01)
    trimmers = _trimmers()
    assert len(trimmers) == 1
    assert trimmers[0].daemon  # never keeps a finished process alive


# A child process, so that the allocator's setting does not outlive the test: a block of a
# megabyte freed, then another made. glibc's default would raise its mapping threshold past a
# megabyte at the first free and take the second block from the heap.
_LARGE_BLOCKS_CHILD = """
import ctypes, sys
from memex_desktop.runtime import return_freed_memory_periodically
if len(sys.argv) > 1:
    return_freed_memory_periodically()
class MallInfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks",
        "fordblks", "keepcost")]
mallinfo2 = ctypes.CDLL(None).mallinfo2
mallinfo2.restype = MallInfo2
first = bytearray(2 << 20)
del first
mapped = mallinfo2().hblks
second = bytearray(1 << 20)
print(mallinfo2().hblks - mapped)
"""


@pytest.mark.skipif(
    not sys.platform.startswith("linux") or sys.implementation.name != "cpython",
    reason="glibc's mallopt and mallinfo2",
)
def test_large_blocks_keep_pages_of_their_own_after_one_was_freed() -> None:
    def mapped_apart(*argv: str) -> int:
        run = [sys.executable, "-c", _LARGE_BLOCKS_CHILD, *argv]
        return int(subprocess.run(run, capture_output=True, text=True, check=True).stdout)

    assert mapped_apart() == 0  # glibc's own rule: the heap's
    assert mapped_apart("fixed") == 1


def test_without_malloc_trim_nothing_is_started(monkeypatch: pytest.MonkeyPatch) -> None:
    before = len(_trimmers())
    monkeypatch.setattr(sys, "platform", "darwin")
    assert not return_freed_memory_periodically()
    assert len(_trimmers()) == before


def test_a_command_returns_freed_memory_as_its_process_entry_point(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    started: list[bool] = []
    monkeypatch.setattr(cli, "return_freed_memory_periodically", lambda: started.append(True))
    assert cli.main(["outbox", "--data-dir", str(tmp_path)]) == cli.EXIT_OK
    assert started == [True]
