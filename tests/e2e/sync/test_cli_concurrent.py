"""Commands run on a data folder while a sync runs on it: the sync is never broken by them.

A ``save`` queues its address and ends well (sent, or left to the running sync, which sends
it before it ends); a second ``sync`` says one is running and does nothing; every address
reaches the server once. Real processes, as a person's shell runs them.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest
from support.secrets import TEST_API_KEY
from support.sync_env import cli_command, cli_env, integrity_ok

from memex_desktop import cli, paths
from memex_desktop.emulator.synthetic import generate_library
from memex_desktop.store import Outbox

# Enough items, slowly enough served, that the first sync is still pulling while the other
# commands run (about 8 s alone; the test asserts it was still running).
ITEMS = 5000
LATENCY_MS = 200
SAVES = 4


def _start(data_dir: Path, base_url: str, *args: str) -> subprocess.Popen[str]:
    """A command running in the background, its output collected."""
    return subprocess.Popen(
        cli_command("--data-dir", str(data_dir), "--api-url", base_url, *args),
        env=cli_env(TEST_API_KEY),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _wait_until_pulling(sync: subprocess.Popen[str]) -> list[str]:
    """The sync's progress lines up to its first page of items (it holds the folder then)."""
    assert sync.stderr is not None
    lines: list[str] = []
    for line in sync.stderr:
        lines.append(line)
        if line.startswith("Syncing: ") and not line.startswith("Syncing: nothing"):
            return lines
    pytest.fail(f"the sync ended before it pulled: {''.join(lines)}")


def _saves_sent(emulator: Any) -> int:
    return sum(1 for record in emulator.state.requests if record.path == "/save-content-by-url")


def test_saves_and_a_second_sync_during_a_sync_break_nothing(
    tmp_path: Path, one_profile_emulator: Any
) -> None:
    emulator = one_profile_emulator(
        generate_library(ITEMS, seed=5, words_per_entity=30), latency_ms=LATENCY_MS
    )
    data_dir = tmp_path / "data"
    first = _start(data_dir, emulator.base_url, "sync")
    early = _wait_until_pulling(first)
    urls = [f"https://example.org/during-sync/{number}" for number in range(SAVES)]
    others = [_start(data_dir, emulator.base_url, "save", url) for url in urls]
    second = _start(data_dir, emulator.base_url, "sync")
    answers = [process.communicate(timeout=60) for process in [*others, second]]
    assert first.poll() is None, "the first sync ended before the other commands: too short"

    out, err = first.communicate(timeout=120)
    assert first.returncode == cli.EXIT_OK, "".join(early) + err
    assert "busy" not in err
    for url, process, (save_out, save_err) in zip(urls, others, answers, strict=False):
        assert process.returncode == cli.EXIT_OK, save_out + save_err
        assert f"queued: {url}" in save_out
        summary = save_out.strip().splitlines()[-1]
        assert summary.startswith("sent: 1") or "is syncing this data folder and sends it" in (
            summary
        ), summary
    second_out, second_err = answers[-1]
    assert second.returncode == cli.EXIT_BUSY, second_out + second_err
    assert "is already syncing" in second_err
    assert second_out == ""

    # Every address reached the server once, and the outbox knows it.
    assert _saves_sent(emulator) == SAVES
    with Outbox(paths.outbox_db_path(data_dir)) as outbox:
        ops = outbox.list()
    assert sorted(op.url or "" for op in ops) == sorted(urls)
    assert all(op.state in ("accepted", "confirmed") and op.attempts == 1 for op in ops), ops
    assert "synced: " in out
    assert integrity_ok(paths.cache_db_path(data_dir))
