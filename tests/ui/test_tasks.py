"""TaskRunner: results, errors, progress and cancellation reach the GUI thread by signals.

Tasks hand their outcome to typed slots, and a failure nobody handles to the message bridge.
"""

from __future__ import annotations

import gc
import threading
import weakref
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QCoreApplication, QObject, QThread, Slot
from support.open_files import CAN_COUNT, open_files_of

from memex_desktop.errors import user_message
from memex_desktop.store import DatabaseLockedError, StoreWriter
from memex_desktop.ui.messages import MessageBridge, message_line
from memex_desktop.ui.readers import thread_reader
from memex_desktop.ui.tasks import Task, TaskRunner


class Recorder(QObject):
    """Collects what a task delivers, and on which thread the slots ran."""

    def __init__(self) -> None:
        super().__init__()
        self.results: list[object] = []
        self.errors: list[object] = []
        self.progress: list[object] = []
        self.done = 0
        self.threads: list[QThread] = []

    @Slot(object)
    def on_finished(self, value: object) -> None:
        self.results.append(value)
        self.threads.append(QThread.currentThread())

    @Slot(object)
    def on_failed(self, exc: object) -> None:
        self.errors.append(exc)
        self.threads.append(QThread.currentThread())

    @Slot(object)
    def on_progress(self, value: object) -> None:
        self.progress.append(value)
        self.threads.append(QThread.currentThread())

    @Slot()
    def on_done(self) -> None:
        self.done += 1


def qapp_thread() -> QThread:
    """The GUI thread (the test runs on it)."""
    return QThread.currentThread()


def test_shutdown_cancels_running_work_and_starts_no_new_work(qapp: object) -> None:
    runner = TaskRunner(max_threads=1)
    started = threading.Event()
    seen_cancel: list[bool] = []

    def wait_for_cancel(*, cancel: threading.Event) -> None:
        started.set()
        seen_cancel.append(cancel.wait(10))

    task = runner.run(wait_for_cancel, cancel=True)
    assert started.wait(5)
    assert runner.shutdown(5_000)
    assert seen_cancel == [True]
    assert task.is_done()
    assert runner.closed
    assert runner.wait_for_idle(5_000)


# -- typed slots, explicit keywords, one default failure path --------------------------------


@pytest.fixture
def told(runner: TaskRunner) -> Iterator[list[object]]:
    """Every message the runner's bridge shows."""
    shown: list[object] = []
    recorder = _BridgeRecorder(shown)
    runner.messages.shown.connect(recorder.on_shown)
    yield shown
    runner.messages.shown.disconnect(recorder.on_shown)


class _BridgeRecorder(QObject):
    def __init__(self, shown: list[object]) -> None:
        super().__init__()
        self.shown = shown

    @Slot(object)
    def on_shown(self, message: object) -> None:
        self.shown.append(message)


def _recorded(task: Task[Any], recorder: Recorder, *, failure: bool = True) -> None:
    task.on_success(recorder.on_finished).on_progress(recorder.on_progress)
    task.on_done(recorder.on_done)
    if failure:
        task.on_failure(recorder.on_failed)


def test_run_hands_the_value_to_the_success_slot_on_the_gui_thread(
    qtbot, runner: TaskRunner, told: list[object]
) -> None:
    recorder = Recorder()
    worker_threads: list[int] = []

    def power(base: int, exponent: int) -> int:
        worker_threads.append(threading.get_ident())
        return int(pow(base, exponent))

    task = runner.run(power, 2, 10)
    _recorded(task, recorder)
    qtbot.waitUntil(lambda: recorder.done == 1, timeout=5_000)
    assert recorder.results == [1024]
    assert recorder.errors == told == []
    assert recorder.threads == [qapp_thread()]
    assert len(worker_threads) == 1
    assert worker_threads[0] != threading.get_ident()
    qtbot.waitUntil(lambda: runner.active_count() == 0, timeout=5_000)


def test_a_result_that_arrived_before_the_slots_were_connected_is_not_lost(
    qtbot, runner: TaskRunner
) -> None:
    recorder = Recorder()
    task = runner.run(sorted, [3, 1, 2])
    assert task.wait(5)  # the worker has finished and emitted: only the relay is pending
    _recorded(task, recorder)
    qtbot.waitUntil(lambda: recorder.done == 1, timeout=5_000)
    assert recorder.results == [[1, 2, 3]]


def test_a_failure_that_arrived_before_its_slot_was_connected_goes_to_that_slot(
    qtbot, runner: TaskRunner, told: list[object]
) -> None:
    recorder = Recorder()
    task = runner.run(int, "not a number")
    assert task.wait(5)  # the worker has raised: only the relay to the GUI thread is pending
    _recorded(task, recorder)
    qtbot.waitUntil(lambda: recorder.done == 1, timeout=5_000)
    assert [type(exc) for exc in recorder.errors] == [ValueError]
    assert told == []


def test_a_failure_slot_gets_the_exception_and_the_bridge_stays_quiet(
    qtbot, runner: TaskRunner, told: list[object]
) -> None:
    recorder = Recorder()

    def boom() -> None:
        raise ValueError("broken page")

    _recorded(runner.run(boom), recorder)
    qtbot.waitUntil(lambda: recorder.done == 1, timeout=5_000)
    assert [str(exc) for exc in recorder.errors] == ["broken page"]
    assert told == []


def test_a_failure_nobody_handles_is_shown_in_the_words_of_user_message(
    qtbot, runner: TaskRunner, told: list[object]
) -> None:
    recorder = Recorder()
    error = DatabaseLockedError("cache.db is locked")

    def locked() -> None:
        raise error

    _recorded(runner.run(locked), recorder, failure=False)
    qtbot.waitUntil(lambda: recorder.done == 1, timeout=5_000)
    assert told == [user_message(error)]
    expected = user_message(error)
    assert message_line(expected) == f"{expected.text} {expected.action}"


def test_cancel_and_progress_are_passed_only_when_asked_for(qtbot, runner: TaskRunner) -> None:
    recorder = Recorder()
    started = threading.Event()

    def long_job(*, cancel: threading.Event, progress: Callable[[object], None]) -> str:
        for step in range(10_000):
            progress(step)
            started.set()
            if cancel.wait(0.01):
                return f"stopped at {step}"
        return "ran to the end"

    def keywords(**kwargs: object) -> list[str]:
        return sorted(kwargs)

    task = runner.run(long_job, cancel=True, progress=True)
    _recorded(task, recorder)
    assert started.wait(5)
    task.cancel()
    plain_recorder = Recorder()
    _recorded(runner.run(keywords), plain_recorder)
    qtbot.waitUntil(lambda: recorder.done == plain_recorder.done == 1, timeout=5_000)
    assert str(recorder.results[0]).startswith("stopped at")
    assert recorder.progress[0] == 0
    assert plain_recorder.results == [[]]


def test_a_cancelled_task_reports_nothing_even_what_it_raised_while_stopping(
    qtbot, qapp: object
) -> None:
    one_thread = TaskRunner(max_threads=1)
    shown: list[object] = []
    bridge_recorder = _BridgeRecorder(shown)
    one_thread.messages.shown.connect(bridge_recorder.on_shown)
    gate, started = threading.Event(), threading.Event()
    recorder = Recorder()

    def interrupted(*, cancel: threading.Event) -> None:
        started.set()
        cancel.wait(5)
        raise RuntimeError("stopped by cancel")

    running = one_thread.run(interrupted, cancel=True)
    _recorded(running, recorder, failure=False)
    assert started.wait(5)
    running.cancel()
    blocker = one_thread.run(gate.wait, 5)
    queued = one_thread.run(sorted, [1])
    _recorded(queued, recorder, failure=False)
    queued.cancel()
    gate.set()
    qtbot.waitUntil(lambda: recorder.done == 2, timeout=5_000)
    assert blocker.wait(5)
    QCoreApplication.processEvents()
    assert recorder.results == recorder.errors == shown == []
    assert one_thread.shutdown(5_000)


def test_after_shutdown_run_starts_nothing_and_reports_nothing(qapp: object) -> None:
    runner = TaskRunner(max_threads=1)
    assert runner.shutdown(5_000)
    ran: list[int] = []
    recorder = Recorder()
    late = runner.run(ran.append, 1)
    _recorded(late, recorder, failure=False)
    assert late.cancelled
    assert late.is_done()
    QCoreApplication.processEvents()
    assert ran == []
    assert recorder.results == recorder.errors == []
    assert recorder.done == 0


def test_shutdown_runs_a_queued_durable_task_and_drops_the_rest(qapp: object) -> None:
    runner = TaskRunner(max_threads=1)
    started = threading.Event()
    written: list[str] = []

    def busy(*, cancel: threading.Event) -> None:
        started.set()
        cancel.wait(5)

    runner.run(busy, cancel=True)
    assert started.wait(5)
    note = runner.run(written.append, "note", durable=True)
    dropped = runner.run(written.append, "search")
    assert runner.shutdown(5_000)
    assert written == ["note"]
    assert not note.cancelled
    assert dropped.cancelled


def test_slots_must_be_bound_methods_of_qobjects(runner: TaskRunner) -> None:
    task = runner.run(sorted, [1])
    with pytest.raises(TypeError, match="bound method of a QObject"):
        task.on_success(lambda value: None)
    with pytest.raises(TypeError, match="bound method of a QObject"):
        task.on_failure([].append)
    task.on_success(Recorder().on_finished)  # accepted
    assert task.wait(5)


def test_a_bridge_given_to_the_runner_carries_its_failures(qtbot, qapp: object) -> None:
    bridge = MessageBridge()
    runner = TaskRunner(max_threads=1, messages=bridge)
    shown: list[object] = []
    recorder = _BridgeRecorder(shown)
    bridge.shown.connect(recorder.on_shown)
    assert runner.messages is bridge
    runner.run(int, "not a number")
    qtbot.waitUntil(lambda: bool(shown), timeout=5_000)
    with pytest.raises(ValueError, match="invalid literal") as raised:
        int("not a number")
    assert shown == [user_message(raised.value)]
    assert runner.shutdown(5_000)


@pytest.mark.skipif(not CAN_COUNT, reason="reads /proc")
def test_the_readers_a_task_opens_are_closed_when_it_ends(
    qtbot, runner: TaskRunner, tmp_path: Path
) -> None:
    """Each task gets a reader of its own (PySide gives each a fresh thread state); a reader
    left to the garbage collector would keep its connection and memory until a full
    collection, which the app makes rare."""
    cache = tmp_path / "cache.db"
    StoreWriter(cache).close()
    gc.disable()  # as rare as they come
    try:
        tasks = [runner.run(lambda: thread_reader(cache).stats().entities) for _ in range(40)]
        qtbot.waitUntil(lambda: all(task.is_done() for task in tasks), timeout=20_000)
        assert open_files_of(cache) == 0
    finally:
        gc.enable()


def test_a_task_nobody_keeps_is_destroyed_on_the_gui_thread(qtbot, runner: TaskRunner) -> None:
    """A Task lives on the GUI thread, so it must die there: a QObject destroyed by a worker
    takes Qt's locks there, then waits for the interpreter lock, which the GUI thread may hold
    while it waits for those locks (a hang). The runner forgets a task only after its worker
    has let go of it, so the last reference always goes on the GUI thread."""
    gui_thread = threading.get_ident()
    destroyed_on: list[int] = []
    started = 0
    for _ in range(300):
        task = runner.run(threading.get_ident)
        weakref.finalize(task, lambda: destroyed_on.append(threading.get_ident()))
        started += 1
        del task
        QCoreApplication.processEvents()
    qtbot.waitUntil(lambda: runner.active_count() == 0, timeout=20_000)
    assert runner.wait_for_idle(10_000)
    qtbot.waitUntil(lambda: len(destroyed_on) == started, timeout=10_000)
    assert set(destroyed_on) == {gui_thread}


class _FailureKeeper(QObject):
    """Keeps the exceptions it is handed, as a pane keeps the reason a read failed."""

    def __init__(self) -> None:
        super().__init__()
        self.kept: list[object] = []

    @Slot(object)
    def keep(self, exc: object) -> None:
        self.kept.append(exc)


def _fail() -> None:
    raise ValueError("no such item")


def test_a_failure_kept_by_a_slot_does_not_keep_its_task(qtbot, runner: TaskRunner) -> None:
    """The exception's traceback holds the worker's frame; the task it ran is not held with
    it, so a pane keeping the reason of a failure keeps no finished task alive."""
    keeper = _FailureKeeper()
    destroyed: list[bool] = []
    task = runner.run(_fail).on_failure(keeper.keep)
    weakref.finalize(task, lambda: destroyed.append(True))
    del task
    qtbot.waitUntil(lambda: bool(keeper.kept) and runner.active_count() == 0, timeout=10_000)
    assert runner.wait_for_idle(10_000)
    qtbot.waitUntil(lambda: bool(destroyed), timeout=5_000)
    assert isinstance(keeper.kept[0], ValueError)
