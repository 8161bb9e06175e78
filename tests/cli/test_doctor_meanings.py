"""``doctor`` says, on every row of its table, what the finding means for the person and,
for a problem, what to do: against a server that works, one that refuses the listing, and
none at all."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from support.cli import Cli

from memex_desktop import cli

pytestmark = pytest.mark.e2e


def _meanings(table: str) -> dict[str, str]:
    """Each row's check and meaning, read by the columns of the header line."""
    header, *rows = table.splitlines()
    assert header.split() == ["check", "result", "meaning"]
    result_at, meaning_at = header.index("result"), header.index("meaning")
    return {row[3:result_at].strip(): row[meaning_at:].strip() for row in rows}


def _doctor(capsys: pytest.CaptureFixture[str], tmp_path: Path, server: Any) -> tuple[int, str]:
    url = server.base_url if server is not None else "http://127.0.0.1:9"
    status, out, _err = Cli(capsys, tmp_path / "data", url, server)("doctor")
    return status, out


def test_every_check_says_what_it_means(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, emulator: Any
) -> None:
    status, out = _doctor(capsys, tmp_path, emulator)
    assert status == cli.EXIT_OK
    meanings = _meanings(out)
    assert len(meanings) >= 10
    assert not [check for check, meaning in meanings.items() if not meaning]
    assert meanings["reachable"] == "The server answers and accepts your credentials."
    assert meanings["sync"].startswith("A sync can copy your whole library")


def test_a_server_that_refuses_the_listing_says_why_and_what_to_do(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, emulator: Any
) -> None:
    emulator.faults.next_status(
        400, count=2, body={"error": "Unknown field: query"}, paths=["/search"]
    )
    status, out = _doctor(capsys, tmp_path, emulator)
    assert status == cli.EXIT_INCOMPATIBLE
    meanings = _meanings(out)
    assert not [check for check, meaning in meanings.items() if not meaning]
    listing = meanings["empty query lists the library"]
    assert "Check the API URL in File → Settings…" in listing
    assert "The server said: " in listing
    assert listing.endswith("Unknown field: query.")
    assert "Why: an empty query is refused" in meanings["sync"]


def test_no_server_says_what_still_works(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    status, out = _doctor(capsys, tmp_path, None)
    assert status != cli.EXIT_OK
    meanings = _meanings(out)
    assert set(meanings) == {"API URL", "authentication", "reachable"}
    assert not [check for check, meaning in meanings.items() if not meaning]
    assert "Everything already synced is readable" in meanings["reachable"]
