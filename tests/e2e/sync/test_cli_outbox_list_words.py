"""`memex-desktop outbox list` says what each save is: a note names its item and its first
words, a reply the note it answers, a URL save its address; never the note's client id."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.cli import Cli
from support.window import seeded_cache

from memex_desktop import cli, paths

LIBRARY = {
    "results": [
        {"id": "page", "type": "web", "title": "Compost at home", "created_at": 1},
        {
            "id": "note1",
            "type": "annotation",
            "text": "Worms like coffee grounds",
            "reference_content_ids": ["page"],
            "created_at": 2,
        },
    ],
    "meta": {},
}


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "data"
    seeded_cache(folder, LIBRARY)
    return folder


@pytest.fixture
def run(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> Cli:
    """The CLI without a key or a server: saves stay queued."""
    return Cli(capsys, data_dir, "http://127.0.0.1:9", api_key=None)


def _queue(run: Cli) -> None:
    assert run("save", "https://example.org/read-later")[0] == cli.EXIT_OK
    assert run("note", "page", "Turn it weekly.\nAnd keep it damp.")[0] == cli.EXIT_OK
    assert run("note", "page", "And eggshells", "--reply-to", "note1")[0] == cli.EXIT_OK


def test_outbox_list_says_what_each_save_is(run: Cli) -> None:
    _queue(run)
    status, out, err = run("outbox", "list")
    assert status == cli.EXIT_OK, err
    lines = out.splitlines()
    assert len(lines) == 3
    assert lines[0].endswith("https://example.org/read-later")
    assert lines[1].endswith("Note on “Compost at home”: Turn it weekly.")
    assert lines[2].endswith("Reply to “Worms like coffee grounds”: And eggshells")
    status, out, _ = run("outbox", "list", "--json")
    listed = json.loads(out)
    assert [op["description"] for op in listed] == [
        "https://example.org/read-later",
        "Note on “Compost at home”: Turn it weekly.",
        "Reply to “Worms like coffee grounds”: And eggshells",
    ]
    # The fields scripts read are kept.
    assert listed[1]["kind"] == "save_entity"
    assert listed[1]["external_id"]
    assert listed[1]["external_id"] not in listed[1]["description"]


def test_without_a_readable_cache_a_note_is_told_by_its_words(run: Cli, data_dir: Path) -> None:
    _queue(run)
    paths.cache_db_path(data_dir).unlink()
    status, out, err = run("outbox", "list")
    assert status == cli.EXIT_OK, err
    assert out.splitlines()[1].endswith("Note: Turn it weekly.")
    assert not paths.cache_db_path(data_dir).exists()  # a listing makes no library
