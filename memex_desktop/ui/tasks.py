"""Background work for the GUI: one TaskRunner with a QThreadPool and cancellable tasks.

Workers return values; the GUI thread applies them. A function submitted to the runner runs on
a pool thread; its return value reaches the GUI thread through the queued ``finished`` signal of
its :class:`Task`, an exception through ``failed``. Receivers must be ``@Slot`` bound methods
of objects living in the GUI thread (lambdas connected to cross-thread signals misbehave in
PySide6). Cancellation is cooperative: a ``threading.Event`` handed to the function as
``cancel=`` when its signature names that parameter.
"""

from __future__ import annotations

import inspect
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QRunnable, Qt, QThreadPool, Signal, Slot

from memex_desktop.store.threads import lower_current_thread_priority

log = logging.getLogger(__name__)


class TaskCancelled(Exception):
    """Delivered through ``Task.failed`` when a task was cancelled before it started."""


def _accepted_keywords(fn: Callable[..., Any]) -> frozenset[str]:
    """Which of ``cancel``/``progress`` the function names as parameters (explicitly)."""
    try:
        parameters = inspect.signature(fn).parameters
    except (TypeError, ValueError):  # builtins without a signature take neither
        return frozenset()
    return frozenset(
        name
        for name in ("cancel", "progress")
        if name in parameters
        and parameters[name].kind
        in (inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    )


class Task(QObject):
    """A handle on one submitted function.

    Signals:
        finished(object): the function returned this value (GUI thread, queued).
        failed(object): the function raised this exception, or TaskCancelled.
        progress(object): the function called ``progress(value)``.
        done(): emitted after finished or failed, whatever the outcome.
    """

    finished = Signal(object)
    failed = Signal(object)
    progress = Signal(object)
    done = Signal()
    # The worker emits these; queued to this object's (GUI) thread, they re-emit the public
    # signals there, so a receiver connected right after submit() never misses a result.
    _finished_relay = Signal(object)
    _failed_relay = Signal(object)
    _progress_relay = Signal(object)
    _done_relay = Signal()

    def __init__(self, name: str, parent: QObject | None = None, *, durable: bool = False) -> None:
        super().__init__(parent)
        self.name = name
        self.durable = durable  # a write the person was promised: shutdown waits for it
        self.cancel_event = threading.Event()
        self._completed = threading.Event()
        queued = Qt.ConnectionType.QueuedConnection
        self._finished_relay.connect(self._on_finished_relay, queued)
        self._failed_relay.connect(self._on_failed_relay, queued)
        self._progress_relay.connect(self._on_progress_relay, queued)
        self._done_relay.connect(self._on_done_relay, queued)

    @Slot(object)
    def _on_finished_relay(self, value: object) -> None:
        """Re-emit the result on the GUI thread."""
        self.finished.emit(value)

    @Slot(object)
    def _on_failed_relay(self, exc: object) -> None:
        """Re-emit the failure on the GUI thread."""
        self.failed.emit(exc)

    @Slot(object)
    def _on_progress_relay(self, value: object) -> None:
        """Re-emit progress on the GUI thread."""
        self.progress.emit(value)

    @Slot()
    def _on_done_relay(self) -> None:
        """Re-emit completion on the GUI thread."""
        self.done.emit()

    def cancel(self) -> None:
        """Ask the function to stop at its next cancellation point."""
        self.cancel_event.set()

    @property
    def cancelled(self) -> bool:
        """Whether cancel() was called."""
        return self.cancel_event.is_set()

    def is_done(self) -> bool:
        """Whether the function has returned or raised (the signals may still be in flight)."""
        return self._completed.is_set()

    def wait(self, timeout_s: float | None = None) -> bool:
        """Block until the function completed; for tests and shutdown only, never the GUI."""
        return self._completed.wait(timeout_s)

    def _report_progress(self, value: object) -> None:
        """The ``progress=`` callable handed to the function (called on the worker thread)."""
        self._progress_relay.emit(value)


class _Worker(QRunnable):
    """Runs one function on a pool thread and reports through its Task's signals."""

    def __init__(
        self, task: Task, fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> None:
        super().__init__()
        self.setAutoDelete(True)
        self._task = task
        self._fn = fn
        self._args = args
        self._kwargs = kwargs

    def run(self) -> None:
        """Call the function; exactly one of finished/failed is emitted, then done."""
        task = self._task
        # Pool threads do background work: the GUI thread comes first for the CPU.
        lower_current_thread_priority()
        try:
            if task.cancel_event.is_set():
                task._failed_relay.emit(TaskCancelled(task.name))
                return
            accepted = _accepted_keywords(self._fn)
            kwargs = dict(self._kwargs)
            if "cancel" in accepted:
                kwargs.setdefault("cancel", task.cancel_event)
            if "progress" in accepted:
                kwargs.setdefault("progress", task._report_progress)
            try:
                result = self._fn(*self._args, **kwargs)
            except Exception as exc:  # delivered to the GUI thread, which decides what to say
                log.debug("task %s failed: %s", task.name, type(exc).__name__)
                task._failed_relay.emit(exc)
            else:
                task._finished_relay.emit(result)
        finally:
            task._completed.set()
            task._done_relay.emit()


class TaskRunner(QObject):
    """The app's one pool for background work (network, rendering, large reads).

    Signals:
        active_changed(int): how many tasks are queued or running now.
    """

    active_changed = Signal(int)

    def __init__(self, max_threads: int = 4, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._pool = QThreadPool(self)
        self._pool.setMaxThreadCount(max(1, max_threads))
        self._lock = threading.Lock()
        self._active: set[Task] = set()
        self._closed = False

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Task:
        """Run ``fn(*args, **kwargs)`` on the pool and return its Task handle.

        Connect to the Task's signals right after this call: results are delivered by queued
        signals, so nothing is lost between submit() and connect() on the GUI thread.

        After shutdown() the function never runs: the Task comes back already cancelled and
        complete and emits nothing, so a late timer or a late result of a window being torn
        down cannot start work (or raise) while the app exits.
        """
        return self._submit(fn, args, kwargs, durable=False)

    def submit_durable(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Task:
        """Like submit(), for a write that must not be lost (a note, a queued save).

        shutdown() neither cancels nor drops it: it waits (bounded) until it has run.
        """
        return self._submit(fn, args, kwargs, durable=True)

    def _submit(
        self,
        fn: Callable[..., Any],
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        *,
        durable: bool,
    ) -> Task:
        """Start ``fn`` on the pool (see submit)."""
        name = getattr(fn, "__qualname__", repr(fn))
        if self._closed:
            log.debug("task %s not started: the runner is shut down", name)
            return self._inert_task(name)
        task = Task(name, durable=durable)
        task.done.connect(self._on_task_done)
        with self._lock:
            self._active.add(task)
            count = len(self._active)
        self._pool.start(_Worker(task, fn, args, kwargs))
        self.active_changed.emit(count)
        return task

    @property
    def closed(self) -> bool:
        """Whether shutdown() was called (new work is no longer started)."""
        return self._closed

    def _inert_task(self, name: str) -> Task:
        """A Task that was cancelled before it could start and will never report anything."""
        task = Task(name, self)
        task.cancel_event.set()
        task._completed.set()
        return task

    def active_count(self) -> int:
        """Tasks submitted whose completion has not been handled on the GUI thread yet."""
        with self._lock:
            return len(self._active)

    def wait_for_idle(self, timeout_ms: int = 30_000) -> bool:
        """Block until no task runs (for tests and shutdown; never on the GUI thread otherwise)."""
        return bool(self._pool.waitForDone(timeout_ms))

    @Slot()
    def _on_task_done(self) -> None:
        """Forget a finished task (runs on the GUI thread, after its result signal)."""
        task = self.sender()
        with self._lock:
            self._active.discard(task)
            count = len(self._active)
        self.active_changed.emit(count)

    def shutdown(self, timeout_ms: int = 10_000, durable_timeout_ms: int = 5_000) -> bool:
        """Cancel everything, drop queued work and wait for running tasks to return.

        Durable tasks (outbox writes the person was told about) are neither cancelled nor
        dropped: they get up to ``durable_timeout_ms`` to run first, so a note saved while the
        window closes is on disk when the app exits.

        Returns:
            True when every worker stopped within the timeout.
        """
        self._closed = True
        with self._lock:
            tasks = list(self._active)
        for task in tasks:
            if not task.durable:
                task.cancel()
        deadline = time.monotonic() + durable_timeout_ms / 1000
        for task in tasks:
            if task.durable and not task.wait(max(0.0, deadline - time.monotonic())):
                log.warning("a pending write (%s) did not finish before exit", task.name)
        self._pool.clear()
        stopped = bool(self._pool.waitForDone(timeout_ms))
        if not stopped:
            log.warning("background tasks still running after %d ms", timeout_ms)
        if stopped:
            # Work removed from the queue never ran; release anyone waiting on it.
            for task in tasks:
                task._completed.set()
        return stopped
