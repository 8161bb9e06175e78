"""The big steps of rendering run in a process of their own, so that the caller's interpreter
lock stays free for the GUI thread.

A regular-expression pass, a string ``replace`` or a ``re.sub`` over a megabyte of HTML is one
C call that keeps the interpreter lock for all of its run (the sanitiser's text-keeping scan
takes 120 ms over a 2.5 MB page, the text version's passes 20-40 ms each). On a worker thread
of the window that is as long
as the GUI thread waits for the lock before it can run any Python (a paint, a timer, a slot):
the window stops. Run in a separate process, the same work costs the window nothing but the
copy of its input and output through a pipe (a few milliseconds a megabyte).

The process starts the first time a big step comes (with ``spawn``: nothing of the window's
threads or Qt state is copied into it) and ends when the interpreter exits, or at
:func:`shutdown`. It runs at a lower priority, like the window's own workers. When it cannot
start or dies, the step runs where it was asked for, as it always did. It takes about 50 MB
of memory idle, 100 MB after a 2.5 MB page.
"""

from __future__ import annotations

import atexit
import logging
import multiprocessing
import os
import sys
import threading
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import ParamSpec, TypeVar

log = logging.getLogger(__name__)

P = ParamSpec("P")
T = TypeVar("T")

# Steps over text of this size or less run in place: one pass over it keeps the lock for 15 ms
# at most (the slowest take about 140 ms a megabyte), not worth a round trip to the process.
APART_ABOVE_CHARS = 100_000
# The render process's niceness: it yields the CPU to the window, as the window's workers do.
APART_NICENESS = 10

_lock = threading.Lock()
_pool: ProcessPoolExecutor | None = None


def _lower_priority() -> None:
    """In the render process: run behind the window when both want the CPU, at the workers'
    priority (it inherits the priority of the thread that started it, a worker's or not)."""
    if not sys.platform.startswith("linux"):
        return
    try:
        current = os.getpriority(os.PRIO_PROCESS, 0)
        if current < APART_NICENESS:
            os.setpriority(os.PRIO_PROCESS, 0, APART_NICENESS)
    except OSError as exc:  # a sandbox may forbid it; the process keeps its priority
        log.debug("could not lower the render process's priority: %s", exc)


def _the_pool() -> ProcessPoolExecutor:
    """The render process, started on first use."""
    global _pool
    with _lock:
        if _pool is None:
            _pool = ProcessPoolExecutor(
                max_workers=1,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_lower_priority,
            )
        return _pool


def _forget(pool: ProcessPoolExecutor) -> None:
    """Drop a render process that broke (the next big step starts a new one)."""
    global _pool
    with _lock:
        if _pool is pool:
            _pool = None
    pool.shutdown(wait=False, cancel_futures=True)


def run_apart(function: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
    """``function(*args, **kwargs)`` in the render process, waiting for it without holding
    the interpreter lock; in this process when the render process cannot run it.

    ``function`` must be a module-level function and its arguments and result picklable.
    What it raises is raised here.
    """
    pool = _the_pool()
    try:
        future = pool.submit(function, *args, **kwargs)
    except (RuntimeError, OSError) as exc:  # it could not start, or the app is closing
        log.warning("no render process (%s); rendering in this one", exc)
        _forget(pool)
        return function(*args, **kwargs)
    try:
        return future.result()
    except BrokenProcessPool as exc:  # it died (killed, out of memory): a new one next time
        log.warning("the render process ended (%s); rendering in this one", exc)
        _forget(pool)
        return function(*args, **kwargs)


def run_big_apart(size: int, function: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
    """``function(*args, **kwargs)`` in the render process when its input is ``size``
    characters or more than APART_ABOVE_CHARS, else here."""
    if size <= APART_ABOVE_CHARS:
        return function(*args, **kwargs)
    return run_apart(function, *args, **kwargs)


def start() -> None:
    """Start the render process now, without waiting for it (its start-up, half a second of
    imports, then overlaps with other work before the first big step)."""
    pool = _the_pool()
    try:
        pool.submit(os.getpid)
    except (RuntimeError, OSError) as exc:
        log.debug("the render process did not start: %s", exc)
        _forget(pool)


def shutdown() -> None:
    """End the render process (steps still waiting are dropped; a running one finishes)."""
    global _pool
    with _lock:
        pool, _pool = _pool, None
    if pool is not None:
        pool.shutdown(wait=True, cancel_futures=True)


atexit.register(shutdown)
