"""Background threads yield the CPU to the GUI thread."""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path

import pytest

from memex_desktop.store import StoreWriter
from memex_desktop.store.threads import BACKGROUND_NICENESS, lower_current_thread_priority

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux thread nice")


def _nice_of_thread(native_id: int) -> int:
    return os.getpriority(os.PRIO_PROCESS, native_id)


def test_a_lowered_thread_is_nicer_and_its_children_inherit_it() -> None:
    before = _nice_of_thread(threading.get_native_id())
    seen: dict[str, int] = {}

    def child() -> None:
        seen["child"] = _nice_of_thread(threading.get_native_id())

    def background() -> None:
        lower_current_thread_priority()
        lower_current_thread_priority()  # once per thread: no double lowering
        seen["self"] = _nice_of_thread(threading.get_native_id())
        inner = threading.Thread(target=child)
        inner.start()
        inner.join()

    thread = threading.Thread(target=background)
    thread.start()
    thread.join()
    expected = min(19, before + BACKGROUND_NICENESS)
    assert seen == {"self": expected, "child": expected}
    assert _nice_of_thread(threading.get_native_id()) == before  # the caller is untouched


def test_background_writer_thread_runs_nicer(tmp_path: Path) -> None:
    before = _nice_of_thread(threading.get_native_id())
    writer = StoreWriter(tmp_path / "cache.db", background=True)
    try:
        native_id = writer._thread.native_id
        assert native_id is not None
        assert _nice_of_thread(native_id) == min(19, before + BACKGROUND_NICENESS)
    finally:
        writer.close()
