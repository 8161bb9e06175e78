"""`memex-desktop save`'s summary line counts what happened to each address, once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.cli import Cli

from memex_desktop import cli
from memex_desktop.store.outbox import read_only_ops


@pytest.fixture
def run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Cli:
    """The CLI without a key or a server: saves stay queued."""
    return Cli(capsys, tmp_path / "data", "http://127.0.0.1:9", api_key=None)


def _summary(out: str) -> str:
    """The last line of ``save``'s output, its summary."""
    return out.strip().splitlines()[-1]


def test_an_address_given_twice_is_queued_once(run: Cli) -> None:
    status, out, _ = run("save", "https://example.org/cli-a", "https://example.org/cli-a/")
    assert status == cli.EXIT_OK
    assert out.splitlines()[:2] == [
        "queued: https://example.org/cli-a",
        "already queued: https://example.org/cli-a/",
    ]
    assert _summary(out).startswith("1 save queued, 1 already queued; no API key yet")
    assert "2 saves" not in out


def test_one_save_is_one_save(run: Cli) -> None:
    status, out, _ = run("save", "https://example.org/one")
    assert status == cli.EXIT_OK
    assert _summary(out).startswith("1 save queued; ")
    status, out, _ = run("save", "https://example.org/two", "https://example.org/three")
    assert _summary(out).startswith("2 saves queued; ")


def test_refused_and_already_saved_are_counted_apart(run: Cli, tmp_path: Path) -> None:
    library = tmp_path / "library.json"
    kept = {"id": "kept", "type": "web", "title": "Kept", "url": "https://example.org/kept"}
    library.write_text(json.dumps({"results": [kept]}), encoding="utf-8")
    assert run("import", str(library))[0] == cli.EXIT_OK
    status, out, err = run(
        "save", "https://example.org/kept", "https://example.org/new", "ftp://example.org/x"
    )
    assert status == cli.EXIT_FAILURE
    assert "cannot save 'ftp://example.org/x'" in err
    assert "already saved: https://example.org/kept (kept)" in out
    assert _summary(out).startswith("1 save queued, 1 already in the library, 1 refused; ")


def test_offline_the_queue_is_counted_in_the_singular_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    offline = Cli(capsys, tmp_path / "data", "http://127.0.0.1:9")  # a key, no server
    status, out, _ = offline("save", "https://example.org/away")
    assert status == cli.EXIT_OK
    summary = _summary(out)
    # The network works (loopback) and the host says no: the server is down, not the network.
    assert summary.startswith("The Memex server at 127.0.0.1 refused the connection")
    assert "1 save queued; 1 save in the outbox, sent by the next `memex-desktop sync`" in summary
    status, out, _ = offline("save", "https://example.org/away", "https://example.org/later")
    assert "1 save queued, 1 already queued; 2 saves in the outbox" in _summary(out)


def test_an_address_with_a_password_is_refused_without_showing_it(run: Cli, tmp_path: Path) -> None:
    status, out, err = run(
        "save", "https://alice:secret@example.org/private", "https://example.org/open"
    )
    assert status == cli.EXIT_FAILURE
    assert err.splitlines()[0] == (
        "memex-desktop: cannot save https://***@example.org/private: it holds a user name or "
        "password (before @), which would be sent to Memex with it; save the address without "
        "them"
    )
    assert "secret" not in out + err
    assert "alice" not in out + err
    assert _summary(out).startswith("1 save queued, 1 refused; ")
    queued = [op.url for op in read_only_ops(tmp_path / "data" / "outbox.db")]
    assert queued == ["https://example.org/open"]
