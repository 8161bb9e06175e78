"""Scheduling hints for background threads (writer, sync, rendering workers).

A desktop window must stay responsive while a sync runs: on a machine with few cores the GUI
thread competes with these threads for CPU time, so they run at a lower priority. On Linux a
thread's nice value is its own (and threads it starts inherit it); elsewhere this is a no-op.
"""

from __future__ import annotations

import logging
import os
import sys
import threading

_log = logging.getLogger(__name__)

BACKGROUND_NICENESS = 10
_lowered = threading.local()


def lower_current_thread_priority(niceness: int = BACKGROUND_NICENESS) -> None:
    """Give the calling thread (and threads it starts) a lower CPU priority, once."""
    if getattr(_lowered, "done", False) or not sys.platform.startswith("linux"):
        return
    _lowered.done = True
    thread_id = threading.get_native_id()
    try:
        current = os.getpriority(os.PRIO_PROCESS, thread_id)
        os.setpriority(os.PRIO_PROCESS, thread_id, min(19, current + niceness))
    except OSError as exc:  # a sandbox may forbid it; the thread just keeps its priority
        _log.debug("could not lower the priority of %s: %s", threading.current_thread().name, exc)
