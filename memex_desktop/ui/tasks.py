"""Background work for the GUI: one TaskRunner with a QThreadPool and cancellable tasks.

Workers return values; the GUI thread applies them. :meth:`TaskRunner.run` starts a function
on a pool thread and returns its :class:`Task`; the outcome reaches the GUI thread by queued
signals::

    runner.run(local_search, path, request, cancel=True).on_success(self._on_search_finished)

``on_success(slot)`` receives the return value and ``on_failure(slot)`` the exception. A task
given no failure slot shows its failure to the person through the runner's one
:class:`~memex_desktop.ui.messages.MessageBridge` (the words of ``errors.user_message``), so no
failure is silent and none is worded twice. A cancelled task reports nothing, not even what
the function raised while it stopped.

Slots must be ``@Slot`` bound methods of QObjects living in the GUI thread. Only the relay
signals cross threads, queued to the Task's own slots; the public signals are emitted on the
GUI thread. Qt drops a connection when its receiver is destroyed, so the late result of a
closed window goes nowhere; a lambda or a plain function has no receiver and would still be
called, into widgets already deleted. ``on_success`` and the other ``on_*`` methods refuse
anything but a QObject's bound method or a signal.

Cancellation is cooperative: with ``cancel=True`` the function is handed the task's
``threading.Event`` as ``cancel=``; with ``progress=True`` a ``progress(value)`` callable.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from PySide6.QtCore import QObject, QRunnable, Qt, QThreadPool, Signal, SignalInstance, Slot

from memex_desktop.store.threads import lower_current_thread_priority
from memex_desktop.ui.messages import MessageBridge
from memex_desktop.ui.readers import close_thread_readers

log = logging.getLogger(__name__)

T = TypeVar("T")


def _check_receiver(slot: Callable[..., Any]) -> None:
    """Refuse receivers Qt cannot disconnect when they are destroyed (see the module doc)."""
    if isinstance(slot, SignalInstance) or isinstance(getattr(slot, "__self__", None), QObject):
        return
    raise TypeError(
        f"connect a bound method of a QObject or a signal, not {slot!r}: "
        "a lambda or a function outlives the widgets it calls"
    )


class Task(QObject, Generic[T]):
    """A handle on one function running in the background, whose result is a ``T``.

    Signals (all delivered on the GUI thread):
        finished(object): the function returned this value.
        failed(object): the function raised this exception.
        progress(object): the function called ``progress(value)``.
        done(): the function completed, was cancelled or never started; always last.
    """

    finished = Signal(object)
    failed = Signal(object)
    progress = Signal(object)
    done = Signal()
    # The worker emits these; queued to this object's (GUI) thread, they re-emit the public
    # signals there, so a receiver connected right after run() never misses a result.
    _finished_relay = Signal(object)
    _failed_relay = Signal(object)
    _progress_relay = Signal(object)
    _done_relay = Signal()

    def __init__(
        self,
        name: str,
        parent: QObject | None = None,
        *,
        durable: bool = False,
        messages: MessageBridge | None = None,
    ) -> None:
        super().__init__(parent)
        self.name = name
        self.durable = durable  # a write the person was promised: shutdown waits for it
        self.cancel_event = threading.Event()
        self._completed = threading.Event()
        # Where a failure goes when no failure slot was given (None: an inert task, which
        # never fails).
        self._messages = messages
        self._failure_slot_given = False
        queued = Qt.ConnectionType.QueuedConnection
        self._finished_relay.connect(self._on_finished_relay, queued)
        self._failed_relay.connect(self._on_failed_relay, queued)
        self._progress_relay.connect(self._on_progress_relay, queued)
        self._done_relay.connect(self._on_done_relay, queued)

    # -- receiving the outcome ---------------------------------------------------------------

    def on_success(self, slot: Callable[[T], object]) -> Task[T]:
        """Call ``slot(value)`` on the GUI thread when the function returns ``value``."""
        _check_receiver(slot)
        self.finished.connect(slot)
        return self

    def on_failure(self, slot: Callable[[Exception], object]) -> Task[T]:
        """Call ``slot(exc)`` on the GUI thread when the function raises (instead of the
        default: the message bridge shows ``user_message(exc)``)."""
        _check_receiver(slot)
        self._failure_slot_given = True
        self.failed.connect(slot)
        return self

    def on_progress(self, slot: Callable[[Any], object]) -> Task[T]:
        """Call ``slot(value)`` on the GUI thread for each ``progress(value)`` of the function."""
        _check_receiver(slot)
        self.progress.connect(slot)
        return self

    def on_done(self, slot: Callable[[], object]) -> Task[T]:
        """Call ``slot()`` on the GUI thread once the task is over, whatever the outcome."""
        _check_receiver(slot)
        self.done.connect(slot)
        return self

    @Slot(object)
    def _on_finished_relay(self, value: object) -> None:
        """Re-emit the result on the GUI thread."""
        self.finished.emit(value)

    @Slot(object)
    def _on_failed_relay(self, exc: Exception) -> None:
        """Re-emit the failure on the GUI thread; nobody listening: the person is told."""
        self.failed.emit(exc)
        if self._messages is not None and not self._failure_slot_given:
            self._messages.show_failure(exc)

    @Slot(object)
    def _on_progress_relay(self, value: object) -> None:
        """Re-emit progress on the GUI thread."""
        self.progress.emit(value)

    @Slot()
    def _on_done_relay(self) -> None:
        """Re-emit completion on the GUI thread."""
        self.done.emit()

    # -- control -------------------------------------------------------------------------------

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
    """Runs one function on a pool thread and reports through its Task's signals.

    A Task lives on the GUI thread and must be destroyed there: a QObject a worker destroys
    takes Qt's locks on that worker, then waits for the interpreter lock, which the GUI thread
    may hold while it waits for those locks (a hang). So the worker lets go of the task, and of
    everything it was given, before it tells the runner (``released``) that the runner's
    reference may be the last.
    """

    def __init__(
        self,
        task: Task[Any],
        fn: Callable[..., Any],
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        released: SignalInstance,
    ) -> None:
        super().__init__()
        self.setAutoDelete(True)
        self._task: Task[Any] | None = task
        self._task_key = id(task)
        self._fn: Callable[..., Any] | None = fn
        self._args = args
        self._kwargs = kwargs
        self._released = released

    def run(self) -> None:
        """Call the function; at most one of finished/failed is emitted, then done."""
        # Pool threads do background work: the GUI thread comes first for the CPU.
        lower_current_thread_priority()
        try:
            self._run_task()
        finally:
            self._task = self._fn = None
            self._args, self._kwargs = (), {}
            self._released.emit(self._task_key)

    def _run_task(self) -> None:
        task, fn = self._task, self._fn
        # run() runs once
        assert task is not None
        assert fn is not None
        try:
            if task.cancel_event.is_set():
                return
            try:
                result = fn(*self._args, **self._kwargs)
            except Exception as exc:  # delivered to the GUI thread, which decides what to say
                self._report_failure(task, exc)
            else:
                task._finished_relay.emit(result)
        finally:
            # The readers this task opened go with it (see readers.thread_reader).
            close_thread_readers()
            task._completed.set()
            task._done_relay.emit()
            # A failure's traceback keeps this frame, and what its variables hold at the end,
            # for as long as a slot keeps the exception: not the task and its function.
            task = fn = None

    @staticmethod
    def _report_failure(task: Task[Any], exc: Exception) -> None:
        """Hand the exception on, unless the task was cancelled (then it is no news)."""
        if task.cancel_event.is_set():
            log.debug("task %s stopped after cancel: %s", task.name, type(exc).__name__)
            return
        log.debug("task %s failed: %s", task.name, type(exc).__name__)
        task._failed_relay.emit(exc)


class TaskRunner(QObject):
    """The app's one pool for background work (network, rendering, large reads).

    ``messages`` is the bridge through which failures nobody handles reach the person; the
    window shows what it carries.

    Signals:
        active_changed(int): how many tasks are queued or running now.
    """

    active_changed = Signal(int)
    # A worker emits this with its task's key once it holds no reference to the task (see
    # _Worker), queued to the GUI thread.
    _worker_released = Signal(object)

    def __init__(
        self,
        max_threads: int = 4,
        parent: QObject | None = None,
        *,
        messages: MessageBridge | None = None,
    ) -> None:
        super().__init__(parent)
        self.messages = messages if messages is not None else MessageBridge(self)
        self._pool = QThreadPool(self)
        self._pool.setMaxThreadCount(max(1, max_threads))
        self._lock = threading.Lock()
        # Started tasks by key, kept until their worker let go of them.
        self._active: dict[int, Task[Any]] = {}
        self._closed = False
        self._worker_released.connect(self._on_worker_released, Qt.ConnectionType.QueuedConnection)

    def run(
        self,
        fn: Callable[..., T],
        /,
        *args: Any,
        cancel: bool = False,
        progress: bool = False,
        durable: bool = False,
    ) -> Task[T]:
        """Run ``fn(*args)`` on the pool and return its Task.

        Args:
            cancel: also pass the task's ``threading.Event`` as ``cancel=``.
            progress: also pass a ``progress(value)`` callable as ``progress=``.
            durable: a write that must not be lost (a note, a queued save): shutdown()
                neither cancels nor drops it, it waits (bounded) until it has run.

        Connect the slots right after this call: results are delivered by queued signals, so
        nothing is lost between run() and on_success() on the GUI thread. After shutdown()
        the function never runs and the Task reports nothing, so a late timer or a late
        result of a window being torn down cannot start work (or raise) while the app exits.
        """
        name = getattr(fn, "__qualname__", repr(fn))
        if self._closed:
            return self._inert_task(name)
        task: Task[T] = Task(name, durable=durable, messages=self.messages)
        kwargs: dict[str, Any] = {}
        if cancel:
            kwargs["cancel"] = task.cancel_event
        if progress:
            kwargs["progress"] = task._report_progress
        with self._lock:
            self._active[id(task)] = task
            count = len(self._active)
        self._pool.start(_Worker(task, fn, args, kwargs, self._worker_released))
        self.active_changed.emit(count)
        return task

    @property
    def closed(self) -> bool:
        """Whether shutdown() was called (new work is no longer started)."""
        return self._closed

    def _inert_task(self, name: str) -> Task[Any]:
        """A Task that was cancelled before it could start and will never report anything."""
        log.debug("task %s not started: the runner is shut down", name)
        task: Task[Any] = Task(name, self)
        task.cancel_event.set()
        task._completed.set()
        return task

    def active_count(self) -> int:
        """Tasks started whose completion has not been handled on the GUI thread yet (their
        results and ``done`` come first)."""
        with self._lock:
            return len(self._active)

    def wait_for_idle(self, timeout_ms: int = 30_000) -> bool:
        """Block until no task runs (for tests and shutdown; never on the GUI thread otherwise)."""
        return bool(self._pool.waitForDone(timeout_ms))

    @Slot(object)
    def _on_worker_released(self, task_key: int) -> None:
        """Forget a finished task (on the GUI thread, after its result signal and ``done``,
        which its worker emitted first): the last reference to it may go here."""
        with self._lock:
            self._active.pop(task_key, None)
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
            tasks = list(self._active.values())
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
