"""The search language through ``memex-desktop search``: the store's table, on the command line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from support.cli import Cli
from support.search_table import CASES, LIBRARY, Case

from memex_desktop import cli
from memex_desktop.store.search_language import TYPE_NAMES

OFFLINE = "http://127.0.0.1:9"


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data folder holding the table's library, imported once by the command line."""
    folder = tmp_path_factory.mktemp("search-cli") / "data"
    assert cli.main(["import", str(LIBRARY), "--data-dir", str(folder), "--api-url", OFFLINE]) == 0
    return folder


@pytest.fixture
def run(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> Cli:
    return Cli(capsys, data_dir, OFFLINE, api_key=None)


@pytest.mark.parametrize("case", CASES, ids=str)
def test_every_operator_on_the_command_line(run: Cli, case: Case) -> None:
    status, out, err = run("search", case.query, "--sort", case.sort, "--json", "--limit", "50")
    if case.error:
        assert status == cli.EXIT_USAGE
        assert case.error in err
        assert len(err.strip().splitlines()) == 1
        return
    assert status == 0, err
    found = [row["id"] for row in json.loads(out)]
    if case.ordered:
        assert found == list(case.found)
    else:
        assert sorted(found) == sorted(case.found)


def test_type_takes_the_names_people_use_and_help_lists_them(
    run: Cli, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = run("search", "worm", "--type", "tweet", "--json")
    assert status == 0
    assert [row["id"] for row in json.loads(out)] == ["tweet-1"]
    status, out, _ = run("search", "", "--type", "video", "--type", "notes", "--json")
    assert sorted(row["id"] for row in json.loads(out)) == ["note-1", "video-1"]
    status, _, err = run("search", "worm", "--type", "gizmo")
    assert status == cli.EXIT_USAGE
    assert 'There is no type "gizmo"' in err
    with pytest.raises(SystemExit):
        cli.main(["search", "--help"])
    shown = " ".join(capsys.readouterr().out.split())
    assert all(name in shown for name in TYPE_NAMES)
    assert "relevance,newest,oldest" in shown


def test_a_remote_search_applies_here_what_the_server_cannot(
    library_emulator: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    emulator = library_emulator(json.loads(LIBRARY.read_text(encoding="utf-8")))
    remote = Cli(capsys, tmp_path / "data", emulator.base_url, emulator)
    # The server gets "bin worm" and the tag; the phrase is kept to here.
    status, out, err = remote("search", '"bin worm" #compost', "--remote", "--json")
    assert status == 0, err
    assert [row["id"] for row in json.loads(out)] == ["worm-guide"]
    status, out, err = remote("search", "worm type:tweet", "--remote", "--json")
    assert status == 0, err
    assert [row["id"] for row in json.loads(out)] == ["tweet-1"]
    status, out, err = remote("search", "worm -bin", "--remote", "--json", "--sort", "newest")
    assert status == 0, err
    assert [row["id"] for row in json.loads(out)] == ["pdf-1"]
