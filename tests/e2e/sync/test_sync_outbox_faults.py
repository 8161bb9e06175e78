"""Outbox under faults: 500 URL saves end as exactly 500 entities on the server, even when
the network fails, the server errs, limits the rate, loses answers, or the process is killed."""

from __future__ import annotations

import random
import signal
import subprocess
from pathlib import Path
from typing import Any

import pytest
from support.secrets import TEST_API_KEY
from support.sync_env import cli_command, cli_env, integrity_ok, run_cli

from memex_desktop import paths
from memex_desktop.emulator.synthetic import generate_library
from memex_desktop.store import Outbox
from memex_desktop.sync import SyncOutcome, SyncProgress

pytestmark = pytest.mark.e2e

SAVE_PATHS = ["/save-content-by-url"]
COUNT = 500


@pytest.fixture(scope="module")
def library() -> dict[str, Any]:
    return generate_library(40, seed=9, words_per_entity=10)


def _urls(prefix: str) -> list[str]:
    return [f"https://{prefix}.example/article/{index}?utm_source=feed" for index in range(COUNT)]


def _saved_on_server(emulator: Any, urls: list[str]) -> list[str]:
    """The URLs of every server entity saved from ``urls`` (one per entity, repeats kept)."""
    wanted = set(urls)
    state = emulator.state
    found = []
    for entity_id in state.entity_ids():
        entity = state.entity(entity_id)
        if entity is not None and entity.get("url") in wanted:
            found.append(entity["url"])
    return found


def _arm(emulator: Any, step: int) -> None:
    """One fault of the schedule: 500, 503, 429 + Retry-After, a dropped connection, and a
    response lost after the server accepted the save."""
    faults = emulator.faults
    kind = step % 5
    if kind == 0:
        faults.next_status(500, count=2, paths=SAVE_PATHS)
    elif kind == 1:
        faults.next_status(503, count=2, retry_after=0, paths=SAVE_PATHS)
    elif kind == 2:
        faults.next_status(429, count=1, retry_after=1, paths=SAVE_PATHS)
    elif kind == 3:
        faults.drop_connection(count=2, paths=SAVE_PATHS)
    else:
        faults.lose_response_after_commit(count=3, paths=SAVE_PATHS)


def test_500_saves_under_a_fault_schedule(
    library: dict[str, Any], library_emulator: Any, harness_factory: Any
) -> None:
    emulator = library_emulator(library)
    harness = harness_factory(emulator.base_url, TEST_API_KEY, client_retries=0)
    urls = _urls("faulty")
    for url in urls:
        assert harness.outbox.enqueue_url(url).status == "queued"
    armed = 0

    def schedule(progress: SyncProgress) -> None:
        nonlocal armed
        if progress.phase == "outbox" and progress.done // 20 > armed:
            armed += 1
            _arm(emulator, armed)

    _arm(emulator, 0)
    report = harness.engine.drain_outbox(progress=schedule)
    assert report.outcome is SyncOutcome.OK, report.error
    assert armed >= 20  # the whole schedule ran several times
    assert report.sent == COUNT
    saved = _saved_on_server(emulator, urls)
    assert len(saved) == COUNT, "lost or duplicated saves"
    assert set(saved) == set(urls)
    assert {op.state for op in harness.outbox.list()} == {"accepted"}
    assert max(op.attempts for op in harness.outbox.list()) >= 2  # faults really happened


def test_kill_9_while_draining_then_restart(
    library: dict[str, Any], library_emulator: Any, tmp_path: Path
) -> None:
    _drain_with_kills(library_emulator(library), tmp_path / "data", trials=5, min_kills=2)


@pytest.mark.slow
def test_kill_9_while_draining_many_times(
    library: dict[str, Any], library_emulator: Any, tmp_path: Path
) -> None:
    _drain_with_kills(library_emulator(library), tmp_path / "data", trials=25, min_kills=5)


def _drain_with_kills(emulator: Any, data_dir: Path, *, trials: int, min_kills: int) -> None:
    """Queue 500 saves, kill -9 the draining `sync` at random moments, then let one finish."""
    urls = _urls("killed")
    with Outbox(paths.outbox_db_path(data_dir)) as outbox:
        for url in urls:
            outbox.enqueue_url(url)
    # A little latency per request keeps the drain of 500 saves longer than the kill window,
    # however fast the machine, so most trials really are killed mid-drain.
    emulator.faults.latency(0.01)
    rng = random.Random(5)
    kills = 0
    argv = ("sync", "--quiet", "--data-dir", str(data_dir), "--api-url", emulator.base_url)
    for trial in range(trials):
        emulator.faults.lose_response_after_commit(count=2, paths=SAVE_PATHS)
        proc = subprocess.Popen(
            cli_command(*argv),
            env=cli_env(TEST_API_KEY),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            proc.wait(timeout=rng.uniform(0.9, 1.6))
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            kills += 1
        assert integrity_ok(paths.outbox_db_path(data_dir)), f"outbox corrupt after {trial}"
        assert integrity_ok(paths.cache_db_path(data_dir)), f"cache corrupt after {trial}"
    assert kills >= min_kills
    emulator.faults.clear()
    done = run_cli(*argv, api_key=TEST_API_KEY)
    assert done.returncode == 0, done.stderr
    saved = _saved_on_server(emulator, urls)
    assert len(saved) == COUNT, "lost or duplicated saves"
    assert set(saved) == set(urls)
    with Outbox(paths.outbox_db_path(data_dir)) as outbox:
        assert outbox.pending_count() == 0
        assert {op.state for op in outbox.list()} <= {"accepted", "confirmed"}
