"""``outbox list`` names each save's state in the words of the window's Outbox pane ("In
library", "Sent · processing"), not the outbox's own names ("confirmed", "accepted")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from support.cli import Cli

from memex_desktop import cli
from memex_desktop.errors import SAVE_STATE_WORDS

pytestmark = pytest.mark.e2e

URL = "https://example.org/state-words"


def _state_of(out: str, url: str) -> str:
    """The state column of the line listing ``url``."""
    [line] = [line for line in out.splitlines() if url in line]
    return line.split("  ", 1)[1].rsplit(url, 1)[0].strip()


def test_outbox_list_follows_a_save_in_the_windows_words(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, emulator: Any
) -> None:
    data = tmp_path / "data"
    offline = Cli(capsys, data, "http://127.0.0.1:9", api_key=None)
    online = Cli(capsys, data, emulator.base_url, emulator)
    assert offline("save", URL)[0] == cli.EXIT_OK
    assert _state_of(offline("outbox", "list")[1], URL) == "Queued"
    assert online("sync")[0] == cli.EXIT_OK
    status, out, _ = online("outbox", "list")
    assert status == cli.EXIT_OK
    assert _state_of(out, URL) in {"Sent · processing", "In library"}
    assert online("sync")[0] == cli.EXIT_OK
    status, out, _ = online("outbox", "list")
    assert _state_of(out, URL) == "In library"
    assert not {"confirmed", "accepted", "queued"} & set(out.split())


def test_a_save_in_the_library_cannot_be_retried_and_says_so_in_those_words(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, emulator: Any
) -> None:
    online = Cli(capsys, tmp_path / "data", emulator.base_url, emulator)
    assert online("save", URL)[0] == cli.EXIT_OK
    # The server may still be processing the save after the sync that sent it (as in the
    # test above): the next sync finds it in the library.
    for _sync in range(2):
        assert online("sync")[0] == cli.EXIT_OK
        if _state_of(online("outbox", "list")[1], URL) == SAVE_STATE_WORDS["confirmed"]:
            break
    status, _, err = online("outbox", "retry", "1")
    assert status == cli.EXIT_USAGE
    assert f"is “{SAVE_STATE_WORDS['confirmed']}”" in err
