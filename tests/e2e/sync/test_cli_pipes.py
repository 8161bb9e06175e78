"""The command line in a pipeline: a reader that leaves early ends the command quietly."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from memex_desktop.cli import EXIT_BROKEN_PIPE
from memex_desktop.store import StoreWriter

pytestmark = pytest.mark.e2e


def test_search_piped_into_a_reader_that_stops_after_one_line_ends_quietly(
    tmp_path: Path,
) -> None:
    """``memex-desktop search … | head -1``: no "Broken pipe" message, the shell's status."""
    writer = StoreWriter(tmp_path / "cache.db")
    writer.ingest_json(
        [
            {
                "id": f"item-{n}",
                "type": "web",
                "title": f"Compost heap number {n} " + "x" * 60,
                "url": f"https://compost.example/{n}",
                "full_text": "compost",
                "created_at": n,
            }
            for n in range(1, 3001)
        ]
    ).result(timeout=60)
    writer.flush_index().result(timeout=60)
    writer.close()
    env = {**os.environ, "MEMEX_API_KEY": "", "PYTHONUNBUFFERED": "1"}
    process = subprocess.Popen(
        [sys.executable, "-m", "memex_desktop", "search", "compost", "--limit", "3000",
         "--data-dir", str(tmp_path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )  # fmt: skip
    assert process.stdout is not None
    assert process.stdout.readline()
    process.stdout.close()
    _, errors = process.communicate(timeout=60)
    assert errors.decode() == ""
    assert process.returncode == EXIT_BROKEN_PIPE
