"""A data folder with no library in it: read commands say so and create nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.caches import as_schema_8
from support.cli import Cli

from memex_desktop import cli
from memex_desktop.errors import UPDATING_CACHE

OFFLINE = "http://127.0.0.1:9"


@pytest.mark.parametrize(
    "command",
    [("search", "compost"), ("show", "some-id"), ("export", "OUT", "--format", "markdown")],
)
def test_a_read_command_on_a_folder_without_a_library_says_so(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, command: tuple[str, ...]
) -> None:
    mistyped = tmp_path / "librray"
    args = [str(tmp_path / "out") if arg == "OUT" else arg for arg in command]
    status, out, err = Cli(capsys, mistyped, OFFLINE)(*args)
    assert status == cli.EXIT_FAILURE
    assert out == ""
    assert f"There is no library in {mistyped}" in err
    assert "memex-desktop sync" in err
    assert "--data-dir" in err
    assert not mistyped.exists()
    assert not (tmp_path / "out").exists()


def test_a_folder_that_holds_a_library_reads_as_before(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    data = tmp_path / "data"
    run = _library_of_one_item(capsys, tmp_path, data)
    status, out, _ = run("search", "compost", "--json")
    assert status == 0
    assert [row["id"] for row in json.loads(out)] == ["p1"]


def test_an_older_library_is_brought_up_to_date_once_and_the_command_says_so(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    data = tmp_path / "data"
    run = _library_of_one_item(capsys, tmp_path, data)
    as_schema_8(data / "cache.db")
    status, out, err = run("search", "compost", "--json")
    assert status == 0
    assert [row["id"] for row in json.loads(out)] == ["p1"]
    assert UPDATING_CACHE.text in err
    status, _, err = run("search", "compost", "--json")
    assert status == 0
    assert UPDATING_CACHE.text not in err  # once


def _library_of_one_item(capsys: pytest.CaptureFixture[str], tmp_path: Path, data: Path) -> Cli:
    """The command line on ``data``, once an import (a writing command, which creates the
    library) has put the item "p1" there."""
    run = Cli(capsys, data, OFFLINE)
    library = tmp_path / "library.json"
    item = {"id": "p1", "type": "web", "title": "Compost heaps", "url": "https://a.example/"}
    library.write_text(json.dumps({"results": [item]}), encoding="utf-8")
    assert run("import", str(library))[0] == 0
    return run
