"""Interpreter and allocator settings for a long-running app that moves large JSON pages
through memory.

The two entry points apply them to the whole process (``app.run_gui`` and ``cli.main``);
nothing that merely builds objects (a window, a session) changes the interpreter.
"""

from __future__ import annotations

import ctypes
import gc
import sys
import threading
import time
from collections.abc import Callable
from typing import Any, cast

# Young collections every this many allocations (CPython's default is 700); the middle and
# old generations after this many collections of the one below (defaults 10 and 10).
GC_THRESHOLDS = (20_000, 20, 100)
# Workers run Python too; a short switch interval hands the interpreter lock back to the GUI
# thread within a millisecond of it asking (the default 5 ms, paid at every Python slot a
# paint or layout calls, adds up to visible stalls while a sync runs).
GUI_SWITCH_INTERVAL_S = 0.001
# How often the GUI thread looks whether a generation is due for collection (see
# DueCollections); a young collection then takes a few milliseconds at most.
GC_CHECK_INTERVAL_MS = 100
# A full collection comes no sooner than this many times the last one took (DueCollections).
FULL_COLLECTION_COST_TIMES = 100
# How often freed memory is handed back to the system (see return_freed_memory_periodically).
TRIM_INTERVAL_S = 1.0
# Allocations from this size up get pages of their own, handed back the moment they are freed
# (glibc's M_MMAP_THRESHOLD; see return_freed_memory_periodically).
MMAP_THRESHOLD_BYTES = 512 * 1024
# mallopt's parameter number for it (malloc.h).
_M_MMAP_THRESHOLD = -3


def settle_garbage_collector() -> None:
    """Freeze what start-up allocated and collect the generations less often.

    A full collection walks every tracked object while it holds the interpreter lock. With
    what the app keeps for its lifetime (Qt bindings, modules, caches) and the decoded pages
    a sync has in flight, full collections came every half second of a sync and took about
    100 ms each: the window stalled. Objects alive after start-up live as long as the app,
    so they are frozen out of every collection; rarer young collections move fewer of a
    page's short-lived objects into the old generation, which keeps full collections rare.

    Measured on the sync benchmark (20,000 items, 2 cores, the emulator in its own process,
    2 runs each): 1,447 and 1,438 items/s without these settings, 1,938 and 2,156 with them,
    about 1.35 times the rate.
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


class DueCollections:
    """The collections the interpreter's automatic collection would run, run by hand: for a
    process that turned automatic collection off to collect on one thread of its choosing
    (see ``ui.garbage_collector``).

    As CPython decides: nothing until the young generation's count passes its threshold,
    then the oldest generation whose count passed its own (a collection adds one to the
    count of the generation above it). CPython also holds a full collection back until the
    objects that survived into the old generation since the last one are a quarter of those
    it kept, which keeps full collections of a large heap rare; that count is not exposed, so
    a full collection is held back instead until ``FULL_COLLECTION_COST_TIMES`` its last
    duration has passed: full collections then take at most about 1 % of the thread's time.
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._full_allowed_at = 0.0

    def collect(self) -> int | None:
        """Collect the generation due now; which one, or None when none is."""
        counts, thresholds = gc.get_count(), gc.get_threshold()
        if thresholds[0] == 0 or counts[0] <= thresholds[0]:
            return None
        if counts[2] > thresholds[2] and self._clock() >= self._full_allowed_at:
            started = self._clock()
            gc.collect(2)
            finished = self._clock()
            self._full_allowed_at = finished + (finished - started) * FULL_COLLECTION_COST_TIMES
            return 2
        generation = 1 if counts[1] > thresholds[1] else 0
        gc.collect(generation)
        return generation


def favour_the_gui_thread() -> None:
    """Let the GUI thread take the interpreter lock back from workers within a millisecond."""
    sys.setswitchinterval(min(sys.getswitchinterval(), GUI_SWITCH_INTERVAL_S))


_trimmer_started = threading.Lock()
_trimmer: threading.Thread | None = None


def _glibc_function(name: str, argtypes: list[Any], restype: Any) -> Callable[..., int] | None:
    """A function of glibc's allocator, or None where the C library has none (macOS,
    Windows, musl)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        function = getattr(ctypes.CDLL(None), name)
    except (OSError, AttributeError):
        return None
    function.argtypes = argtypes
    function.restype = restype
    return cast(Callable[..., int], function)


def return_freed_memory_periodically(interval_s: float = TRIM_INTERVAL_S) -> bool:
    """Hand memory the C allocator holds free back to the system every ``interval_s``, from
    a daemon thread started once per process; False where the C library cannot.

    A sync moves pages of a few megabytes through several threads, and glibc keeps what each
    thread freed in that thread's own arena, in pieces too scattered for it to give back by
    itself: the process kept a high-water mark far above what it held. ``malloc_trim`` returns
    the free pages of every arena; it takes microseconds.

    Measured on the sync process of the sync benchmark (100,000 items, loopback, 2 cores):
    peak RSS 362 and 374 MB without it, 307 and 313 MB with it, at the same sync time.

    Large blocks (a page's response body, its JSON) are also given pages of their own, handed
    back as soon as they are freed. glibc does that by default too, but raises the size it
    does it from each time such a block is freed (up to 32 MB), after which those blocks stay
    in the arenas of the threads that made them. Fixed at 512 KB, the sync benchmark's sync
    process (loopback, runs interleaved, same sync time) peaked at 197, 201 and 210 MB instead
    of 217, 224 and 248 MB at 10,000 items, and at 241 and 245 MB instead of 250 and 265 MB at
    100,000 items.
    """
    global _trimmer
    trim = _glibc_function("malloc_trim", [ctypes.c_size_t], ctypes.c_int)
    mallopt = _glibc_function("mallopt", [ctypes.c_int, ctypes.c_int], ctypes.c_int)
    if trim is None or mallopt is None:
        return False
    mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES)
    with _trimmer_started:
        if _trimmer is None or not _trimmer.is_alive():
            _trimmer = threading.Thread(
                target=_trim_every, args=(trim, interval_s), name="memory-trim", daemon=True
            )
            _trimmer.start()
    return True


def _trim_every(trim: Callable[[int], int], interval_s: float) -> None:
    while True:
        time.sleep(interval_s)
        trim(0)
