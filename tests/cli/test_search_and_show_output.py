"""What ``search`` and ``show`` print ends where a reader expects: a snippet cut after a whole
word, the cut marked with "…"; the HTML of ``show`` on lines of its own, the last one ended."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from support.cli import Cli

from memex_desktop import cli

pytestmark = pytest.mark.e2e

LONG_TEXT = (
    "Is there evidence that the method of loci helps regular learners with regular material, "
    "like history dates or a speech? Top answer summary: yes, several controlled studies show "
    "large effects for ordered lists, which scrambled lists do not show at all."
)
LIBRARY = {
    "results": [
        {
            "id": "reddit-loci",
            "type": "reddit",
            "title": "Does the memory palace work for ordinary material?",
            "url": "https://www.reddit.example.com/r/memory/comments/1/loci/",
            "text": LONG_TEXT,
            "created_at": 1_700_000_000_000,
        }
    ],
    "meta": {},
}


def _assert_cut_at_a_word(snippet: str, whole: str) -> None:
    """``snippet`` is the start of ``whole`` up to a whole word, then "…"."""
    assert len(snippet) <= cli.SNIPPET_CHARS
    assert snippet.endswith("…")
    kept = snippet.removesuffix("…")
    assert whole.startswith(kept)
    assert whole[len(kept)] in " ,.;:?", f"cut inside a word: {snippet!r}"


@pytest.mark.parametrize(
    ("text", "limit", "expected"),
    [
        ("short enough", 20, "short enough"),
        ("one two three four", 10, "one two…"),
        ("one two, three four", 10, "one two…"),
        ("abcdefghijklmnop", 10, "abcdefghi…"),  # a single word longer than the line
        ("  spread\n over   lines ", 20, "spread over lines"),
    ],
)
def test_a_snippet_is_cut_after_a_whole_word(text: str, limit: int, expected: str) -> None:
    assert cli._cut_at_word(text, limit) == expected


def test_a_long_remote_snippet_ends_on_a_whole_word_and_an_ellipsis(
    emulator_factory: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = emulator_factory(library=LIBRARY)
    remote = Cli(capsys, tmp_path / "data", server.base_url, server)
    status, out, err = remote("search", "controlled", "--remote", "--json")
    assert status == cli.EXIT_OK, err
    [row] = json.loads(out)
    _assert_cut_at_a_word(row["snippet"], LONG_TEXT)
    status, out, err = remote("search", "controlled", "--remote")
    assert status == cli.EXIT_OK, err
    snippet = out.splitlines()[-1].strip()
    _assert_cut_at_a_word(snippet, LONG_TEXT)


def test_show_as_html_ends_its_last_line(run: Cli) -> None:
    status, out, _ = run("show", "web-spaced-repetition-field-guide", "--format", "html")
    assert status == cli.EXIT_OK
    assert out.endswith("\n")
    assert not out.endswith("\n\n")


def test_a_reply_to_a_note_not_cached_names_the_missing_note(run: Cli) -> None:
    status, _, err = run("note", "web-sync-is", "hi", "--reply-to", "nonexist")
    assert status == cli.EXIT_NOT_FOUND
    assert "no cached note with id 'nonexist'" in err


def test_a_note_on_an_item_not_cached_names_the_missing_item(run: Cli) -> None:
    status, _, err = run("note", "nonexist", "hi")
    assert status == cli.EXIT_NOT_FOUND
    assert "no cached item with id 'nonexist'" in err
