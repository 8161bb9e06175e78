"""`memex-desktop save --text` and `save -`: the links of pasted text, found as the window does."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from support.cli import Cli

from memex_desktop import cli

PASTED = (
    "read this: https://clip.example.com/article, it's good (https://paren.example.com/x). "
    "Also www.example.com/x and https://example.com/x?fbclid=1; mail bob@example.com."
)


@pytest.fixture
def run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Cli:
    """The CLI with no server (port 9 refuses): saves stay queued."""
    return Cli(capsys, tmp_path / "data", "http://127.0.0.1:9", api_key=None)


def _queued(run: Cli) -> list[str]:
    status, out, _ = run("outbox", "list", "--json")
    assert status == cli.EXIT_OK
    return [op["url"] for op in json.loads(out)]


def test_save_text_queues_the_links_in_it(run: Cli) -> None:
    status, out, err = run("save", "--text", PASTED)
    assert status == cli.EXIT_OK, err
    assert out.splitlines()[:4] == [
        "queued: https://clip.example.com/article",
        "queued: https://paren.example.com/x",
        "queued: https://www.example.com/x",
        "already queued: https://example.com/x?fbclid=1",
    ]
    assert _queued(run) == [
        "https://clip.example.com/article",
        "https://paren.example.com/x",
        "https://www.example.com/x",
    ]


def test_save_dash_reads_the_text_from_stdin(run: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("see <https://stdin.example.com/a>.\n"))
    status, out, _ = run("save", "-")
    assert status == cli.EXIT_OK
    assert out.splitlines()[0] == "queued: https://stdin.example.com/a"
    assert _queued(run) == ["https://stdin.example.com/a"]


def test_text_without_a_link_is_said_and_fails(run: Cli) -> None:
    status, _, err = run("save", "--text", "mail bob@example.com, nothing else")
    assert status == cli.EXIT_FAILURE
    assert err.strip() == "memex-desktop: no link to save in 'mail bob@example.com, nothing else'"
    assert _queued(run) == []


def test_an_address_typed_as_such_is_not_cut_down_to_what_looks_valid(run: Cli) -> None:
    status, _, err = run("save", "https://exa mple.com/")
    assert status == cli.EXIT_FAILURE
    assert "cannot save" in err
    assert _queued(run) == []
