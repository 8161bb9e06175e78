"""Interpreter and allocator settings of the app's processes."""

from __future__ import annotations

import gc
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from memex_desktop import cli
from memex_desktop.runtime import (
    GC_THRESHOLDS,
    GUI_SWITCH_INTERVAL_S,
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
