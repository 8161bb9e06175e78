"""TaskRunner: results, errors, progress and cancellation reach the GUI thread by signals."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator

import pytest
from PySide6.QtCore import QCoreApplication, QObject, QThread, Slot

from memex_desktop.ui.tasks import TaskCancelled, TaskRunner


class Recorder(QObject):
    """Collects what a task delivers, and on which thread the slots ran."""

    def __init__(self) -> None:
        super().__init__()
        self.results: list[object] = []
        self.errors: list[object] = []
        self.progress: list[object] = []
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


@pytest.fixture
def runner(qapp: object) -> Iterator[TaskRunner]:
    task_runner = TaskRunner(max_threads=2)
    yield task_runner
    assert task_runner.shutdown(5_000)


def _connect(task: object, recorder: Recorder) -> None:
    task.finished.connect(recorder.on_finished)  # type: ignore[attr-defined]
    task.failed.connect(recorder.on_failed)  # type: ignore[attr-defined]
    task.progress.connect(recorder.on_progress)  # type: ignore[attr-defined]


def test_result_arrives_on_the_gui_thread(qtbot, runner: TaskRunner) -> None:
    recorder = Recorder()
    worker_threads: list[int] = []

    def work(a: int, b: int) -> int:
        worker_threads.append(threading.get_ident())
        return a + b

    task = runner.submit(work, 2, b=3)
    _connect(task, recorder)
    with qtbot.waitSignal(task.finished, timeout=5_000):
        pass
    assert recorder.results == [5]
    assert recorder.threads == [qapp_thread()]
    assert worker_threads
    assert worker_threads[0] != threading.get_ident()
    qtbot.waitUntil(lambda: runner.active_count() == 0, timeout=5_000)


def qapp_thread() -> QThread:
    """The GUI thread (the test runs on it)."""
    return QThread.currentThread()


def test_exception_arrives_through_failed(qtbot, runner: TaskRunner) -> None:
    recorder = Recorder()

    def boom() -> None:
        raise ValueError("broken page")

    task = runner.submit(boom)
    _connect(task, recorder)
    with qtbot.waitSignal(task.failed, timeout=5_000):
        pass
    assert recorder.results == []
    assert isinstance(recorder.errors[0], ValueError)
    assert str(recorder.errors[0]) == "broken page"


def test_progress_and_cancel_keywords_are_passed_when_named(qtbot, runner: TaskRunner) -> None:
    recorder = Recorder()
    started = threading.Event()

    def long_job(*, cancel: threading.Event, progress: Callable[[object], None]) -> str:
        for step in range(10_000):
            progress(step)
            started.set()
            if cancel.wait(0.01):
                return f"stopped at {step}"
        return "ran to the end"

    task = runner.submit(long_job)
    _connect(task, recorder)
    assert started.wait(5)
    task.cancel()
    with qtbot.waitSignal(task.finished, timeout=5_000):
        pass
    assert str(recorder.results[0]).startswith("stopped at")
    assert recorder.progress
    assert recorder.progress[0] == 0
    assert task.cancelled


def test_functions_without_the_keywords_do_not_receive_them(qtbot, runner: TaskRunner) -> None:
    recorder = Recorder()

    def plain(**kwargs: object) -> list[str]:
        return sorted(kwargs)

    task = runner.submit(plain, x=1)
    _connect(task, recorder)
    with qtbot.waitSignal(task.finished, timeout=5_000):
        pass
    assert recorder.results == [["x"]]


def test_cancelled_before_start_reports_task_cancelled(qtbot, qapp: object) -> None:
    one_thread = TaskRunner(max_threads=1)
    gate = threading.Event()
    recorder = Recorder()
    blocker = one_thread.submit(gate.wait, 5)
    queued = one_thread.submit(lambda: "never")
    _connect(queued, recorder)
    queued.cancel()
    gate.set()
    with qtbot.waitSignal(queued.failed, timeout=5_000):
        pass
    assert isinstance(recorder.errors[0], TaskCancelled)
    assert recorder.results == []
    assert blocker.wait(5)
    assert one_thread.shutdown(5_000)


def test_shutdown_cancels_running_work_and_starts_no_new_work(qapp: object) -> None:
    runner = TaskRunner(max_threads=1)
    started = threading.Event()
    seen_cancel: list[bool] = []

    def wait_for_cancel(*, cancel: threading.Event) -> None:
        started.set()
        seen_cancel.append(cancel.wait(10))

    task = runner.submit(wait_for_cancel)
    assert started.wait(5)
    assert runner.shutdown(5_000)
    assert seen_cancel == [True]
    assert task.is_done()
    assert runner.closed
    ran: list[int] = []
    late = runner.submit(ran.append, 1)
    recorder = Recorder()
    _connect(late, recorder)
    assert late.cancelled
    assert late.is_done()
    assert late.wait(0)
    assert runner.wait_for_idle(5_000)
    QCoreApplication.processEvents()
    assert ran == []
    assert recorder.results == recorder.errors == recorder.progress == []
