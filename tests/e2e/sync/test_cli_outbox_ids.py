"""`memex-desktop outbox retry|drop ID`: a usage mistake exits 2, an id not in the outbox 7."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.cli import Cli

from memex_desktop import cli, paths
from memex_desktop.store import Outbox
from memex_desktop.store.outbox import OutboxFailure
from memex_desktop.sync.folder_lock import FolderLock


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    return tmp_path / "data"


@pytest.fixture
def run(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> Cli:
    """The CLI without a key or a server: saves stay queued."""
    return Cli(capsys, data_dir, "http://127.0.0.1:9", api_key=None)


def _states(run: Cli) -> dict[int, str]:
    status, out, _ = run("outbox", "list", "--json")
    assert status == cli.EXIT_OK
    return {op["id"]: op["state"] for op in json.loads(out)}


@pytest.mark.parametrize("action", ["retry", "drop"])
@pytest.mark.parametrize("op_id", ["abc", "-1", "1.5", "٣", "9" * 30])
def test_an_id_that_is_no_id_is_a_usage_error(run: Cli, action: str, op_id: str) -> None:
    assert run("save", "https://example.org/kept")[0] == cli.EXIT_OK
    status, out, err = run("outbox", action, op_id)
    assert status == cli.EXIT_USAGE
    assert out == ""
    assert err.strip() == (
        f"memex-desktop: not an outbox operation id: {op_id!r} "
        "(ids are the numbers `memex-desktop outbox list` prints)"
    )
    assert list(_states(run).values()) == ["queued"]


@pytest.mark.parametrize("action", ["retry", "drop"])
def test_an_id_not_in_the_outbox_is_not_found(run: Cli, action: str) -> None:
    status, _, err = run("outbox", action, "999")
    assert status == cli.EXIT_NOT_FOUND
    assert err.strip() == (
        "memex-desktop: no operation with id 999 in the outbox (see `memex-desktop outbox list`)"
    )


@pytest.mark.parametrize("action", ["retry", "drop"])
def test_an_action_without_an_id_is_a_usage_error(run: Cli, action: str) -> None:
    status, _, err = run("outbox", action)
    assert status == cli.EXIT_USAGE
    assert f"`outbox {action}` needs the id of an operation" in err


def test_a_listing_given_an_id_is_a_usage_error(run: Cli) -> None:
    assert run("save", "https://example.org/kept")[0] == cli.EXIT_OK
    status, out, err = run("outbox", "list", "1")
    assert status == cli.EXIT_USAGE
    assert out == ""
    assert "`outbox list` takes no id" in err


def test_a_usage_mistake_is_said_before_the_data_folder_is_opened(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("", encoding="utf-8")
    status, _, err = Cli(capsys, blocked, "http://127.0.0.1:9", api_key=None)("outbox", "drop", "x")
    assert status == cli.EXIT_USAGE
    assert "not an outbox operation id" in err


def test_only_a_waiting_or_failed_save_is_retried(run: Cli, data_dir: Path) -> None:
    assert run("save", "https://example.org/a", "https://example.org/b")[0] == cli.EXIT_OK
    with Outbox(paths.outbox_db_path(data_dir)) as outbox:
        first, second = (op.id for op in outbox.list())
        outbox.mark_accepted(first, "entity-a")
        outbox.mark_needs_attention(second, OutboxFailure("rejected", "refused"))
    status, _, err = run("outbox", "retry", str(first))
    assert status == cli.EXIT_USAGE
    assert f"operation {first} is “Sent · processing”" in err
    status, out, _ = run("outbox", "retry", str(second))
    assert status == cli.EXIT_OK
    assert out.strip() == f"queued again: {second}"
    assert _states(run) == {first: "accepted", second: "queued"}
    status, out, _ = run("outbox", "drop", str(first))
    assert status == cli.EXIT_OK
    assert _states(run) == {second: "queued"}


def test_a_save_being_sent_is_not_dropped(run: Cli, data_dir: Path) -> None:
    """A sync holding the folder sends the save: dropping it would say it was given up while
    the server still receives it; left "sending" by a sync that is gone, it is dropped."""
    assert run("save", "https://example.org/a")[0] == cli.EXIT_OK
    with Outbox(paths.outbox_db_path(data_dir)) as outbox:
        claimed = outbox.claim_next()
    assert claimed is not None
    with FolderLock(paths.sync_lock_path(data_dir)) as sender:
        assert sender.acquire()
        status, _, err = run("outbox", "drop", str(claimed.id))
        assert status == cli.EXIT_BUSY
        assert "being sent right now" in err
        assert _states(run) == {claimed.id: "sending"}
    status, out, _ = run("outbox", "drop", str(claimed.id))
    assert status == cli.EXIT_OK
    assert out.strip() == f"dropped: {claimed.id}"
    assert _states(run) == {}
