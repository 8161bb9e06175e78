"""Interpreter settings for a long-running app that moves large JSON pages through memory."""

from __future__ import annotations

import gc

# Young collections every this many allocations (CPython's default is 700); the middle and
# old generations after this many collections of the one below (defaults 10 and 10).
GC_THRESHOLDS = (20_000, 20, 100)


def settle_garbage_collector() -> None:
    """Freeze what start-up allocated and collect the generations less often.

    A full collection walks every tracked object while it holds the interpreter lock. With
    what the app keeps for its lifetime (Qt bindings, modules, caches) and the decoded pages
    a sync has in flight, full collections came every half second of a sync and took about
    100 ms each: the window stalled. Objects alive after start-up live as long as the app,
    so they are frozen out of every collection; rarer young collections move fewer of a
    page's short-lived objects into the old generation, which keeps full collections rare.
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)
