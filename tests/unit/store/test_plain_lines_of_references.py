"""Plain lines show the words of a reference, not its brackets: a note's compiled text names the
items it references in brackets ("see [Designing for Offline: The Outbox Pattern]"), and a
snippet cut out of it may start inside them. Other brackets ("[OC] review", "x = [a, b]")
are words like any and stay."""

from __future__ import annotations

import json
import re

import pytest

from memex_desktop.api.models import SearchRawResponse
from memex_desktop.api.plain_text import Run, inline_runs, plain_text, with_cited_titles
from memex_desktop.paths import resource_path
from memex_desktop.store import CacheReader, StoreWriter

# The demo note whose compiled text ends by naming the comparison it references.
NOTE = "note-convergence-intent"
BRACKETS = re.compile(r"[\[\]]")


# The titles of the items the texts below reference, by id.
REFERENCED = {
    "web-conflict-strategies": "Conflict Resolution Strategies for Sync Engines, Compared",
    "web-sleep": "Sleep and Memory Consolidation",
    "web-sleep-know": "Sleep and Memory Consolidation: What We Know",
    "web-pq": "p q",
    "web-bc": "b c",
    "web-yz": "y z",
}


def _no_titles(_ids: object) -> dict[str, str]:
    return {}


@pytest.mark.parametrize(
    ("raw", "plain"),
    [
        (
            "the trade-offs: [Conflict Resolution Strategies for Sync Engines, Compared]",
            "the trade-offs: Conflict Resolution Strategies for Sync Engines, Compared",
        ),
        ("saved.[Sleep and Memory Consolidation] too", "saved.Sleep and Memory Consolidation too"),
        ("as cited [1] and [sic] here", "as cited [1] and [sic] here"),
        ("- [x] done\n- [ ] to do", "[x] done [ ] to do"),
        ("a[b c]d stays one", "a[b c]d stays one"),
    ],
)
def test_a_reference_in_brackets_reads_as_its_words(raw: str, plain: str) -> None:
    assert plain_text(raw, REFERENCED) == plain


@pytest.mark.parametrize(
    "raw",
    [
        "[Removed by Reddit] thread",
        "x = [a, b]",
        "[OC] [Video Game] review",
        "matrix [1 2; 3 4]",
        "the trade-offs: [Conflict Resolution Strategies for Sync Engines, Compared]",
    ],
)
def test_brackets_around_words_no_referenced_item_is_called_stay(raw: str) -> None:
    """Only a referenced item's title loses its brackets: none here, or not this one."""
    assert plain_text(raw) == raw
    assert plain_text(raw, {"web-sleep": "Sleep and Memory Consolidation"}) == raw
    assert "".join(run.text for run in inline_runs(raw, REFERENCED)) == plain_text(raw, REFERENCED)
    assert with_cited_titles({"n": raw}, _no_titles) == {"n": raw}


@pytest.mark.parametrize(
    "raw",
    [
        "trade-offs: [Conflict Resolution Strategies for Sync Engines, Compared]",
        "saved.[Sleep and Memory Consolidation: What We Know]",
        "a[b c]d and (x)[y z] and [p q]r",
    ],
)
def test_the_brackets_go_and_the_indexed_words_stay(raw: str) -> None:
    """Display titles are indexed: dropping brackets must not join or split any word."""
    assert re.findall(r"[^\W_]+", plain_text(raw, REFERENCED)) == re.findall(r"[^\W_]+", raw)


@pytest.mark.parametrize(
    ("window", "shown"),
    [
        (
            "…for \x02Sync\x03 \x02Engines\x03, Compared]",
            "…for \x02Sync\x03 \x02Engines\x03, Compared",
        ),
        ("…for Sync Engines, Compared](https://x.example/c) and more…", "…for Sync Engines, "
         "Compared and more…"),
        ("…see [Sync Engines, Compared] and more…", "…see Sync Engines, Compared and more…"),
    ],
)  # fmt: skip
def test_a_snippet_cut_inside_brackets_shows_no_bracket(window: str, shown: str) -> None:
    titles = {"n": {"w": REFERENCED["web-conflict-strategies"], "v": "Sync Engines, Compared"}}
    assert with_cited_titles({"n": window}, _no_titles, referenced=titles) == {"n": shown}


def test_a_snippet_cut_inside_other_brackets_keeps_the_closing_one() -> None:
    window = "…1 2; 3 \x024\x03] and more…"
    assert with_cited_titles({"n": window}, _no_titles) == {"n": window}


def test_demo_snippets_of_a_referencing_note_show_no_brackets(
    writer: StoreWriter, reader: CacheReader
) -> None:
    """What the tester searched for in the demo: the note's snippet in the list."""
    library = json.loads(resource_path("demo", "library.json").read_text(encoding="utf-8"))
    writer.ingest_search_page(SearchRawResponse.model_validate(library)).result(30)
    writer.flush_index().result(30)
    snippets = {hit.id: hit.snippet for hit in reader.search("sync engines", limit=20)}
    assert NOTE in snippets
    words = snippets[NOTE].replace("\x02", "").replace("\x03", "")
    assert "Sync Engines, Compared" in words
    assert not BRACKETS.search(words), words
    row = reader.get(NOTE)
    assert row is not None
    assert not BRACKETS.search(row.title + row.snippet_source)


def test_the_words_a_formatted_view_shows_are_the_plain_words() -> None:
    """One truth: the note card formats what a plain line shows without its syntax."""
    text = (
        "Test note from the tester about **outboxes**, *soft* `code` [a link](https://a.example)."
    )
    runs = inline_runs(text)
    assert "".join(run.text for run in runs) == plain_text(text)
    assert Run("outboxes", ("bold",)) in runs
    assert Run("soft", ("italic",)) in runs
    assert Run("code", ("code",)) in runs
    assert Run("a link", (), "https://a.example") in runs
    assert inline_runs("snake_case and 2*3*4") == [Run("snake_case and 2*3*4")]


@pytest.mark.parametrize(
    "text",
    [
        "the trade-offs: [Conflict Resolution Strategies for Sync Engines, Compared]",
        "a {{ref-3}} b [words here][1] c {{content:x}} d",
        "**[Sleep and Memory]** and [x y](https://q.example) [sic] [1]",
    ],
)
def test_a_formatted_view_reads_references_citations_and_templates_as_a_plain_line(
    text: str,
) -> None:
    """The note card and its accessible description say the same words: one rule set."""
    titles = {"x": "Title X", **REFERENCED, "s": "Sleep and Memory"}
    shown = "".join(run.text for run in inline_runs(text, titles))
    assert " ".join(shown.split()) == plain_text(text, titles)


@pytest.mark.parametrize(
    "title",
    ["[Removed by Reddit] thread", "x = [a, b]", "[OC] [Video Game] review", "matrix [1 2; 3 4]"],
)
def test_a_reddit_title_in_brackets_shows_them_in_the_list(
    writer: StoreWriter, reader: CacheReader, title: str
) -> None:
    """A title's own brackets are words of it: the list shows them (only a note's reference
    to an item loses its brackets)."""
    post = {
        "id": "reddit-post",
        "type": "reddit",
        "title": title,
        "url": "https://www.reddit.com/r/x/comments/abc/post/",
        "created_at": 1_700_000_000_000,
        "updated_at": 1_700_000_000_000,
    }
    library = {"results": [post], "total": 1}
    writer.ingest_search_page(SearchRawResponse.model_validate(library)).result(30)
    writer.flush_index().result(30)
    row = reader.get("reddit-post")
    assert row is not None
    assert row.title == title
    hits = reader.search(re.findall(r"[^\W_]+", title)[0], limit=5)
    assert [hit.title for hit in hits if hit.id == "reddit-post"] == [title]
