"""kill -9 of a syncing process at random moments never corrupts or loses anything."""

from __future__ import annotations

import random
import select
import signal
import subprocess
from pathlib import Path
from typing import Any

import pytest
from support.secrets import TEST_API_KEY
from support.sync_env import cli_command, cli_env, integrity_ok, library_ids, run_cli

from memex_desktop import paths
from memex_desktop.emulator.synthetic import generate_library
from memex_desktop.settings import Settings
from memex_desktop.store import CacheReader, Outbox

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def library() -> dict[str, Any]:
    return generate_library(600, seed=21, words_per_entity=15)


def _start(*args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        cli_command(*args),
        env=cli_env(TEST_API_KEY),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def _kill_at_random(
    proc: subprocess.Popen[bytes], rng: random.Random, low: float, high: float
) -> bool:
    """SIGKILL the process a random moment after it got going; False when it finished first."""
    try:
        proc.wait(timeout=rng.uniform(low, high))
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        return True
    return False


def _wait_for_progress(proc: subprocess.Popen[bytes], timeout: float = 30.0) -> None:
    """Block until the sync reports its first page on stderr (or exits)."""
    assert proc.stderr is not None
    ready, _, _ = select.select([proc.stderr], [], [], timeout)
    assert ready, "the sync reported no progress"
    proc.stderr.readline()


def _assert_mirror(data_dir: Path, library: dict[str, Any], emulator: Any) -> None:
    with CacheReader(paths.cache_db_path(data_dir)) as reader:
        ids = reader.all_ids()
    assert len(ids) == len(set(ids)), "duplicate entities"
    everything = library_ids(library)
    listed = everything - emulator.state.unlisted_ids()
    assert listed <= set(ids) <= everything, "missing or extra entities"


def _kill_trials(
    library: dict[str, Any], emulator: Any, data_dir: Path, trials: int, seed: int
) -> int:
    # Small pages: many commits to be killed between. A little latency per page, with one
    # request in flight (more would fetch the pages side by side), keeps a whole pass (75
    # pages, at least 1.5 s) longer than the kill window however fast the machine, so most
    # trials really are killed mid-sync.
    Settings(page_size=8, sync_max_in_flight=1).save()
    emulator.faults.latency(0.02)
    rng = random.Random(seed)
    argv = ("sync", "--full", "--data-dir", str(data_dir), "--api-url")
    kills = 0
    for trial in range(trials):
        proc = _start(*argv, emulator.base_url)
        _wait_for_progress(proc)
        kills += _kill_at_random(proc, rng, 0.0, 0.6)
        assert proc.stderr is not None
        proc.stderr.close()
        assert integrity_ok(paths.cache_db_path(data_dir)), f"cache corrupt after trial {trial}"
        assert integrity_ok(paths.outbox_db_path(data_dir)), f"outbox corrupt after trial {trial}"
        if trial % 10 == 9 and trial + 1 < trials:
            done = run_cli(*argv, emulator.base_url, api_key=TEST_API_KEY)
            assert done.returncode == 0, done.stderr
            _assert_mirror(data_dir, library, emulator)
    done = run_cli(*argv, emulator.base_url, api_key=TEST_API_KEY)
    assert done.returncode == 0, done.stderr
    _assert_mirror(data_dir, library, emulator)
    return kills


def test_kill_9_during_sync(library: dict[str, Any], library_emulator: Any, tmp_path: Path) -> None:
    emulator = library_emulator(library)
    kills = _kill_trials(library, emulator, tmp_path / "data", trials=20, seed=1)
    print(f"{kills} of 20 trials killed mid-sync")
    assert kills >= 10  # most trials really were killed mid-sync


@pytest.mark.slow
def test_kill_9_during_sync_many_times(
    library: dict[str, Any], library_emulator: Any, tmp_path: Path
) -> None:
    emulator = library_emulator(library)
    kills = _kill_trials(library, emulator, tmp_path / "data", trials=100, seed=2)
    assert kills >= 50


def test_acknowledged_saves_survive_kill_9(tmp_path: Path) -> None:
    """`save` prints "queued" only after the outbox commit; every such line must survive."""
    data_dir = tmp_path / "data"
    rng = random.Random(3)
    acknowledged: set[str] = set()
    for trial in range(4):
        urls = [f"https://ack.example/{trial}/{index}" for index in range(1500)]
        proc = subprocess.Popen(
            cli_command("save", *urls, "--data-dir", str(data_dir)),
            env=cli_env(None),
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        assert proc.stdout is not None
        # Killed a moment after its first acknowledgement, however slow the machine is today
        # (output to a pipe comes in blocks, so the first line means some hundreds of saves).
        ready, _, _ = select.select([proc.stdout], [], [], 60.0)
        assert ready, "save acknowledged nothing within a minute"
        first = proc.stdout.readline()
        _kill_at_random(proc, rng, 0.0, 1.0)
        lines = (first + proc.stdout.read()).decode("utf-8", "replace").splitlines()
        proc.stdout.close()
        acknowledged |= {line.split(" ", 1)[1] for line in lines if line.startswith("queued: ")}
        assert integrity_ok(paths.outbox_db_path(data_dir))
    assert acknowledged
    with Outbox(paths.outbox_db_path(data_dir)) as outbox:
        stored = {op.url for op in outbox.list()}
    assert acknowledged <= stored
