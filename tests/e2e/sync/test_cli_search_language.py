"""The search language through ``memex-desktop search``: the store's table, on the command line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from support.cli import Cli
from support.search_table import CASES, LIBRARY, Case

from memex_desktop import cli, paths
from memex_desktop.store import CacheReader
from memex_desktop.store.search_language import TYPE_NAMES, typed_in_full

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
def test_every_operator_on_the_command_line(run: Cli, case: Case, data_dir: Path) -> None:
    status, out, err = run("search", case.query, "--sort", case.sort, "--json", "--limit", "50")
    if case.error:
        assert status == cli.EXIT_USAGE
        assert case.error in err
        assert len(err.strip().splitlines()) == 1
        return
    assert status == 0, err
    found = [row["id"] for row in json.loads(out)]
    # The table is the window's, where the last word is the start of words while it is
    # typed; a command line's query is typed in full, its last word a whole word.
    expected = list(case.found)
    if typed_in_full(case.query) != case.query:
        with CacheReader(paths.cache_db_path(data_dir)) as reader:
            expected = reader.search_ids(typed_in_full(case.query), sort=case.sort, limit=50)
        assert set(expected) <= set(case.found)
    if case.ordered:
        assert found == expected
    else:
        assert sorted(found) == sorted(expected)


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


def test_the_command_line_searches_whole_words_and_excludes_whole_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A query on the command line is typed in full: its last word, sought or excluded, is
    a whole word, not the start of longer words as in the window while it is typed."""
    library = tmp_path / "library.json"
    library.write_text(
        json.dumps(
            {
                "results": [
                    {"id": "long", "type": "web", "title": "One", "full_text": "diastole rhythm",
                     "created_at": "2024-03-15T12:00:00Z"},
                    {"id": "short", "type": "web", "title": "Two", "full_text": "diast rhythm",
                     "created_at": "2024-03-16T12:00:00Z"},
                ]
            }
        )
    )  # fmt: skip
    folder = tmp_path / "data"
    assert cli.main(["import", str(library), "--data-dir", str(folder), "--api-url", OFFLINE]) == 0
    run = Cli(capsys, folder, OFFLINE, api_key=None)

    def found(query: str) -> list[str]:
        status, out, err = run("search", query, "--json")
        assert status == 0, err
        return sorted(row["id"] for row in json.loads(out))

    assert found("diast") == ["short"]
    assert found("rhythm diast") == found("diast rhythm") == ["short"]
    assert found("rhythm -diast") == found("-diast rhythm") == ["long"]


def test_a_query_is_its_words_as_typed_an_exclusion_first_too(run: Cli) -> None:
    """``search -worm`` and ``search worm bin`` without quotes, options anywhere: every
    argument that is no option of the command is a word of the query."""

    def found(*arguments: str) -> list[str]:
        status, out, err = run("search", *arguments)
        assert status == 0, err
        return [row["id"] for row in json.loads(out)]

    quoted = found("worm bin", "--json", "--limit", "50")
    assert quoted
    assert found("worm", "bin", "--json", "--limit", "50") == quoted
    assert found("worm", "--limit=50", "bin", "--json") == quoted
    excluded = found("-worm", "--limit", "50", "--json")
    assert excluded
    assert not set(excluded) & set(found("worm", "--limit", "50", "--json"))
    assert found("bin", "-worm", "--json", "--limit", "50") == [
        i for i in found("bin", "--json", "--limit", "50") if i in excluded
    ]
