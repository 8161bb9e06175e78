"""``show`` prints an item as the reader shows it, then what the notes pane shows beside it:
its highlights (each quote, then the notes on it) and its note threads, replies indented. It
takes the start of an id, as git takes the start of a commit's name: the one cached item whose
id begins so, or a usage error naming some of those that do."""

from __future__ import annotations

import pytest
from support.cli import Cli

from memex_desktop import cli

pytestmark = pytest.mark.e2e


def test_show_prints_the_items_highlights_and_note_threads(run: Cli) -> None:
    status, out, _ = run("show", "web-spaced-repetition-field-guide")
    assert status == 0
    item, _, after = out.partition("\nHighlights\n")
    assert "Spaced" in item  # the item itself comes first
    highlights, _, notes = after.partition("\nNotes\n")
    assert "> The effort of recalling is not a side effect of learning." in highlights
    assert "- " in highlights
    assert "study-group poster" in highlights
    lines = notes.strip().splitlines()
    assert lines[0].startswith("- ")
    assert "'why, not what' rule" in lines[0]
    assert lines[1].startswith("  - ")  # a reply, one level in
    assert "**" not in notes
    assert "\\" not in notes


def test_an_item_without_notes_prints_only_itself(run: Cli) -> None:
    status, out, _ = run("show", "web-sync-is-a-feature")
    assert status == 0
    assert "\nNotes\n" not in out
    assert "\nHighlights\n" not in out


def test_the_html_format_is_the_readers_html_alone(run: Cli) -> None:
    status, out, _ = run("show", "web-spaced-repetition-field-guide", "--format", "html")
    assert status == 0
    assert "\nNotes\n" not in out


def test_the_start_of_one_items_id_shows_that_item(run: Cli) -> None:
    whole = run("show", "web-sync-is-a-feature")
    start = run("show", "web-sync-is")
    assert start == whole
    assert start[0] == 0


def test_the_start_of_several_ids_names_some_and_asks_for_more(run: Cli) -> None:
    status, out, err = run("show", "web-s")
    assert status == cli.EXIT_USAGE
    assert out == ""
    assert "web-sync-is-a-feature" in err or "web-spaced-repetition-field-guide" in err
    assert "give more of it" in err


def test_a_start_shorter_than_four_characters_is_taken_as_a_whole_id(run: Cli) -> None:
    status, _, err = run("show", "web")
    assert status == cli.EXIT_NOT_FOUND
    assert "no cached item with id 'web'" in err
