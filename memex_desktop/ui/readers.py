"""Cache readers for worker threads: every thread owns its own read connection.

SQLite connections belong to the thread that opened them, so background tasks (searches,
rendering) use :func:`thread_reader`, which opens one :class:`CacheReader` per worker thread
and cache file and keeps it for that thread's life.
"""

from __future__ import annotations

import threading
from pathlib import Path

from memex_desktop.store import CacheReader

_local = threading.local()


def thread_reader(cache_path: Path) -> CacheReader:
    """The calling thread's reader of ``cache_path`` (opened on first use).

    On the TaskRunner's pool threads a first use comes with each task: PySide gives every
    task a fresh Python thread state, whose thread-local values (this reader among them) go
    with it when the task ends. Opening one costs about 0.5 ms.
    """
    readers: dict[Path, CacheReader] | None = getattr(_local, "readers", None)
    if readers is None:
        readers = {}
        _local.readers = readers
    reader = readers.get(cache_path)
    if reader is None:
        reader = CacheReader(cache_path)
        readers[cache_path] = reader
    return reader


def close_thread_readers() -> None:
    """Close the calling thread's readers (tests and shutdown)."""
    readers: dict[Path, CacheReader] | None = getattr(_local, "readers", None)
    if readers:
        for reader in readers.values():
            reader.close()
        readers.clear()
