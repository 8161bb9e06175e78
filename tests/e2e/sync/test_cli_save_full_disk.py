"""`memex-desktop save` on a disk that fills up: every address is queued or named as not kept.

The disk is filled without root: the command runs with ``RLIMIT_FSIZE``, so a write that
would grow a file past the limit fails (EFBIG, SIGXFSZ ignored) the way a full disk fails
it, inside SQLite's own writes of the outbox and its WAL.
"""

from __future__ import annotations

import re
import resource
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from support.sync_env import cli_env

from memex_desktop import cli, paths
from memex_desktop.store import StoreWriter
from memex_desktop.store.outbox import read_only_ops

# Runs memex-desktop with writes past the first argument's size in bytes refused.
_LIMITED = (
    "import resource, runpy, signal, sys\n"
    "limit = int(sys.argv.pop(1))\n"
    "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
    "resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))\n"
    "sys.argv[0] = 'memex-desktop'\n"
    "runpy.run_module('memex_desktop', run_name='__main__')\n"
)

pytestmark = pytest.mark.skipif(
    not hasattr(resource, "RLIMIT_FSIZE") or not hasattr(signal, "SIGXFSZ"),
    reason="needs RLIMIT_FSIZE and SIGXFSZ",
)


def _save_with_file_limit(
    data_dir: Path, limit: int, urls: list[str]
) -> subprocess.CompletedProcess[str]:
    """``save URLS`` in a process whose files cannot grow past ``limit`` bytes."""
    return subprocess.run(
        [sys.executable, "-c", _LIMITED, str(limit), "save", "--data-dir", str(data_dir), *urls],
        env=cli_env(None),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _urls(count: int) -> list[str]:
    """Long addresses, so the outbox outgrows the limit after a few dozen saves."""
    return [f"https://full.example/{'a' * 1500}/{number}" for number in range(count)]


def _said(output: str, prefix: str) -> list[str]:
    """The addresses of the lines of ``output`` that start with ``prefix``."""
    return [line[len(prefix) :] for line in output.splitlines() if line.startswith(prefix)]


@pytest.mark.parametrize(
    "limit",
    [
        pytest.param(256 * 1024, id="fills-midway"),
        pytest.param(16 * 1024, id="full-from-the-start"),
    ],
)
def test_every_address_is_queued_or_named_as_not_kept(tmp_path: Path, limit: int) -> None:
    data_dir = tmp_path / "data"
    urls = _urls(200)
    done = _save_with_file_limit(data_dir, limit, urls)
    queued = _said(done.stdout, "queued: ")
    not_kept = _said(done.stderr, "memex-desktop: not kept: ")
    assert queued + not_kept == urls, done.stderr[-2000:]
    assert not_kept, "the limit never filled the disk"
    assert done.returncode == cli.EXIT_FAILURE
    # The reason comes first, in the words for a full disk, before the addresses it cost.
    first = done.stderr.splitlines().index(f"memex-desktop: not kept: {not_kept[0]}")
    reason = done.stderr.splitlines()[first - 1]
    assert reason.startswith("memex-desktop: The disk is full: outbox.db could not be written.")
    summary = done.stdout.strip().splitlines()[-1]
    assert re.search(rf"\b{len(not_kept)} (saves? )?not kept\b", summary), summary
    # What was said queued is in the outbox, durably; nothing else is.
    assert _kept(paths.outbox_db_path(data_dir)) == queued


def _kept(outbox: Path) -> list[str | None]:
    """The addresses an outbox holds (none when the full disk left it without its table)."""
    if not outbox.exists():
        return []
    connection = sqlite3.connect(f"{outbox.as_uri()}?mode=ro", uri=True)
    try:
        made = connection.execute("SELECT 1 FROM sqlite_master WHERE name = 'ops'").fetchall()
    finally:
        connection.close()
    return [op.url for op in read_only_ops(outbox)] if made else []


def test_the_outbox_gives_its_wal_back_so_a_small_disk_takes_many_saves(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    StoreWriter(paths.cache_db_path(data_dir)).close()  # a library made before the disk filled
    urls = [f"https://small.example/page/{number}" for number in range(200)]
    # Room for the outbox and its index, not for a WAL of a thousand pages.
    done = _save_with_file_limit(data_dir, 192 * 1024, urls)
    assert done.returncode == cli.EXIT_OK, done.stderr[-2000:]
    assert _said(done.stdout, "queued: ") == urls
