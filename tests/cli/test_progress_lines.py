"""The progress ``sync`` and ``export`` print on stderr reads as sentences, in the window's
words where the window says the same ("Syncing: 50 items fetched so far")."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from support.cli import Cli

from memex_desktop import cli
from memex_desktop.sync import SyncProgress
from memex_desktop.sync.summary import progress_line, progress_sentence

pytestmark = pytest.mark.e2e

# What the engine's shorthand used to come out as: "pull: 50 (50 items)".
SHORTHAND = re.compile(r"^\w+: \d+(/~\d+)? \(")


def test_sync_progress_reads_as_sentences(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, emulator: Any
) -> None:
    data = tmp_path / "data"
    queued = Cli(capsys, data, emulator.base_url, emulator, api_key=None)
    assert queued("save", "https://example.org/later")[0] == cli.EXIT_OK
    status, _out, err = Cli(capsys, data, emulator.base_url, emulator)("sync", "--full")
    assert status == cli.EXIT_OK, err
    lines = err.splitlines()
    assert lines, "no progress printed"
    assert [line for line in lines if SHORTHAND.match(line)] == []
    fetched = re.compile(r"Syncing: [\d,]+ items fetched so far")
    assert any(fetched.fullmatch(line) for line in lines), lines
    deleted = [line for line in lines if line.startswith("Checking for items deleted")]
    assert len(deleted) == 1
    listed = r"Checking for items deleted on the server: it lists [\d,]+ items"
    assert re.fullmatch(listed, deleted[0])
    assert "Sending queued saves: 1 save sent" in lines


def test_export_progress_says_how_many_of_how_many(run: Cli, tmp_path: Path) -> None:
    status, _out, err = run("export", str(tmp_path / "out"))
    assert status == cli.EXIT_OK
    lines = err.splitlines()
    assert re.fullmatch(r"Exported 0 of [\d,]+ items", lines[0])
    total = lines[0].rsplit(" of ", 1)[1]
    assert lines[-1] == f"Exported {total.split()[0]} of {total}"


def test_the_pull_is_said_in_the_windows_words() -> None:
    pull = SyncProgress("pull", 1200, 30000, "1,200 items")
    assert progress_line(pull) == progress_sentence(pull)
    assert progress_line(pull) == "Syncing: 1,200 of about 30,000 items fetched"
