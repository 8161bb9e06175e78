"""The GUI thread never stalls: a 16 ms heartbeat during a sync and while a 1 MB article opens."""

from __future__ import annotations

import contextlib
import copy
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from support.emulator import EmulatorFactory
from support.heartbeat import Heartbeat
from support.window import WindowFactory

from memex_desktop.api.client import MemexClient
from memex_desktop.app import AppContext
from memex_desktop.emulator import RunningEmulator
from memex_desktop.emulator.synthetic import generate_library, write_library
from memex_desktop.runtime import settle_garbage_collector
from memex_desktop.sync import SyncOutcome

pytestmark = [pytest.mark.gui, pytest.mark.qt_log_ignore("propagateSizeHints")]

BIG_ID = "big-article-1mb"
WORST_GAP_MS = 100.0


def library_with_big_article(entities: int, words: int) -> dict[str, Any]:
    """A synthetic library plus one web article of about 1 MB of text (the newest item)."""
    library = generate_library(entities, seed=11, words_per_entity=words)
    web = next(e for e in library["results"] if e["type"] == "web")
    big = copy.deepcopy(web)
    paragraph = " ".join((web.get("full_text") or "word " * 120).split()[:120])
    parts: list[str] = []
    size = 0
    while size < 1_000_000:
        part = f"## Part {len(parts)}\n\n" if len(parts) % 12 == 0 else ""
        part += paragraph + "\n\n"
        parts.append(part)
        size += len(part)
    newest = max(e["updated_at"] for e in library["results"]) + 1
    big.update(
        id=BIG_ID,
        title="A one-megabyte article",
        url="https://example.org/a-very-long-article",
        normalized_url="https://example.org/a-very-long-article",
        canonical_url="https://example.org/a-very-long-article",
        full_text="".join(parts),
        created_at=newest,
        updated_at=newest,
    )
    library["results"].insert(0, big)
    return library


class ServerProcess:
    """The emulator in its own process, as a real server is: its CPU work is not the app's."""

    def __init__(self, library: dict[str, Any], folder: Path) -> None:
        path = write_library(folder / "library.json", library)
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        self.api_key = "heartbeat-key"
        self.base_url = f"http://127.0.0.1:{port}"
        self._process = subprocess.Popen(
            [
                *(sys.executable, "-m", "memex_desktop", "emulator", "--port", str(port)),
                *("--library", str(path), "--api-key", self.api_key),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            assert self._process.poll() is None, "the emulator process ended"
            try:
                httpx.get(self.base_url, timeout=1.0)
                return
            except httpx.TransportError:
                self._process_wait(0.1)
        raise AssertionError("the emulator process did not start listening")

    def _process_wait(self, seconds: float) -> None:
        """Give the starting process a moment (waits on the process, not a sleep)."""
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._process.wait(seconds)

    def stop(self) -> None:
        self._process.terminate()
        self._process.wait(30)


@pytest.fixture
def make_window(
    window_factory: WindowFactory,
    emulator_factory: EmulatorFactory,
    tmp_path: Path,
    tuned_as_run_gui: None,
) -> Iterator[Any]:
    """Builds the real window against an emulator serving a given library, in a process
    tuned as run_gui tunes it (the heartbeat measures the app as people run it)."""
    del tuned_as_run_gui
    processes: list[ServerProcess] = []

    def make(library: dict[str, Any], *, own_process: bool = False) -> AppContext:
        server: ServerProcess | RunningEmulator
        if own_process:
            server = ServerProcess(library, tmp_path)
            processes.append(server)
        else:
            server = emulator_factory(library=library)
        client = MemexClient(server.base_url, api_key=server.api_key, max_retries=1)
        context = window_factory(client=client)
        settle_garbage_collector()  # as run_gui does once the window exists
        return context

    yield make
    window_factory.shutdown()  # the windows first, so no sync of theirs meets a stopped server
    for process in processes:
        process.stop()


def _sync_and_open_big_article(qtbot: Any, context: AppContext) -> list[float]:
    """Sync the library, open the big article, read to its end; the heartbeat's gaps."""
    window = context.window
    qtbot.waitUntil(lambda: context.runner.active_count() == 0, timeout=30_000)
    heartbeat = Heartbeat()
    reports: list[Any] = []
    context.controller.sync_finished.connect(reports.append)
    heartbeat.start()
    assert context.controller.sync_now()
    qtbot.waitUntil(lambda: bool(reports), timeout=240_000)
    assert reports[0].outcome is SyncOutcome.OK
    opened: list[str] = []
    window.entity_opened.connect(opened.append)
    window.open_entity(BIG_ID)
    qtbot.waitUntil(lambda: opened == [BIG_ID], timeout=60_000)
    qtbot.waitUntil(lambda: not window.reader_pane.loading_more, timeout=60_000)
    window.reader_pane.browser.verticalScrollBar().setValue(10**9)
    qtbot.waitUntil(lambda: context.runner.active_count() == 0, timeout=60_000)
    # A few more beats while the end of the article is laid out and painted.
    beats = len(heartbeat.gaps_ms)
    qtbot.waitUntil(lambda: len(heartbeat.gaps_ms) >= beats + 15, timeout=30_000)
    heartbeat.stop()
    text = window.reader_pane.current_document.toPlainText()
    assert len(text) > 900_000
    assert "Other fields" in text[-3000:]  # the last piece of the article is in
    return heartbeat.gaps_ms


def _machine_noise_ms(qtbot: Any, seconds: float = 2.0) -> float:
    """Worst heartbeat lateness while a plain Python thread spins: what this machine does anyway.

    On a loaded two-core machine the scheduler and the interpreter lock alone delay the GUI
    thread; the app is only blamed for gaps beyond that.
    """
    heartbeat = Heartbeat()
    stop = threading.Event()

    def spin() -> None:
        while not stop.is_set():
            sum(range(1000))

    spinner = threading.Thread(target=spin, name="noise-spinner")
    spinner.start()
    heartbeat.start()
    deadline = time.perf_counter() + seconds
    qtbot.waitUntil(lambda: time.perf_counter() >= deadline, timeout=int(seconds * 1000) + 5000)
    stop.set()
    spinner.join()
    heartbeat.stop()
    return max(0.0, max(heartbeat.gaps_ms, default=16.0) - 16.0)


def _check(qtbot: Any, gaps: list[float], budget_ms: float = WORST_GAP_MS) -> None:
    """The worst gap is within budget (plus the machine's own noise, measured right after)."""
    worst = max(gaps)
    noise = _machine_noise_ms(qtbot) if worst > budget_ms else 0.0
    shown = [round(g) for g in sorted(gaps)[-5:]]
    assert worst <= budget_ms + noise, (
        f"{len(gaps)} beats, worst gaps (ms): {shown}; machine noise {noise:.0f} ms"
    )


def _heartbeat_with_2000_entities(qtbot: Any, make_window: Any) -> list[float]:
    # The server runs in its own process, as a real one does: its JSON work in this process
    # would compete with the GUI thread for the interpreter lock, which no app can avoid.
    context = make_window(library_with_big_article(2_000, 200), own_process=True)
    gaps = _sync_and_open_big_article(qtbot, context)
    assert len(gaps) > 20
    return gaps


# A wall-clock budget on a shared 2-core machine: one scheduler stall past 250 ms fails it
# (1 run in 3 of the whole suite here), so it runs with the other heartbeat checks in
# `make test-slow`, and the benchmarks' keystroke and scroll figures watch the same thing.
@pytest.mark.slow
def test_no_freeze_during_sync_and_opening_a_1mb_article(qtbot: Any, make_window: Any) -> None:
    # The regression guard of the fast suite: shared CI machines add scheduling gaps of their
    # own, so this bound only catches real freezes; the 100 ms budget is checked below.
    _check(qtbot, _heartbeat_with_2000_entities(qtbot, make_window), budget_ms=250.0)


@pytest.mark.slow
def test_heartbeat_during_sync_and_opening_a_1mb_article(qtbot: Any, make_window: Any) -> None:
    _check(qtbot, _heartbeat_with_2000_entities(qtbot, make_window))


@pytest.mark.slow
def test_heartbeat_during_a_10000_entity_sync(qtbot: Any, make_window: Any) -> None:
    context = make_window(library_with_big_article(10_000, 300), own_process=True)
    gaps = _sync_and_open_big_article(qtbot, context)
    _check(qtbot, gaps)
