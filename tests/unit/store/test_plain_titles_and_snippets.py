"""Titles and snippets read as words: no markdown, link syntax, citations or tags."""

from __future__ import annotations

import json
import re

import pytest

from memex_desktop.api.content import display_title
from memex_desktop.api.models import SearchRawResponse
from memex_desktop.api.plain_text import (
    cited_ids,
    leading_quote,
    own_words,
    plain_excerpt,
    plain_text,
    trimmed,
    with_cited_titles,
)
from memex_desktop.paths import resource_path
from memex_desktop.store import CacheReader, StoreWriter


@pytest.mark.parametrize(
    ("raw", "plain"),
    [
        ("**Edit:** thanks everyone", "Edit: thanks everyone"),
        ("a __strong__ and *soft* and _light_ word", "a strong and soft and light word"),
        ("see [sleep and memory](https://example.org/sleep) here", "see sleep and memory here"),
        ("![a chart](https://example.org/c.png) below", "a chart below"),
        ("<b>bold</b> and <a href='x'>link</a>", "bold and link"),
        ("## Summary\nSixty households", "Summary Sixty households"),
        ("- one\n- two", "one two"),
        ("`code` stays", "code stays"),
        ("tea &amp; cake", "tea & cake"),
        ("snake_case_name and 2*3*4", "snake_case_name and 2*3*4"),
        ("cites {{content:web-1}}.", "cites ."),
        ("<https://example.org/a>", "https://example.org/a"),
    ],
)
def test_plain_text_keeps_the_words_only(raw: str, plain: str) -> None:
    assert plain_text(raw) == plain


@pytest.mark.parametrize(
    ("text", "quote", "words"),
    [
        ("> Turn the heap.\n\nTwice a week.", "Turn the heap.", "Twice a week."),
        ("\n> First line\n>\n> second line\nMine", "First line\n\nsecond line", "Mine"),
        ("> Only the quote.\n\n", "Only the quote.", "> Only the quote.\n\n"),
        ("Mine first\n> then a quote", "", "Mine first\n> then a quote"),
        ("", "", ""),
    ],
)
def test_a_note_says_its_own_words_after_the_passage_it_quotes(
    text: str, quote: str, words: str
) -> None:
    """A note on a passage begins with it as a markdown quote (the note editor writes it so):
    its own words are what follows, or the whole text when it says nothing else."""
    assert leading_quote(text)[0] == quote
    assert own_words(text) == words


def test_a_citation_becomes_the_cited_title() -> None:
    text = "as the field guide says {{content:web-guide}} and {{ content:gone }}"
    assert cited_ids(text) == ["web-guide", "gone"]
    plain = plain_text(text, {"web-guide": "Field Guide"})
    assert plain == "as the field guide says Field Guide and"


def test_marks_survive_inside_emphasis_and_links() -> None:
    assert plain_text("**\x02bold\x03** [\x02link\x03 text](https://x.example)") == (
        "\x02bold\x03 \x02link\x03 text"
    )


@pytest.mark.parametrize(
    ("window", "plain"),
    [
        ("…memory](https://example.org/sleep) and more…", "…and more…"),
        ("…ry/sleep) and more…", "…and more…"),
        ("…t:web-guide}} and more…", "…and more…"),
        ("…rong>bold text…", "…bold text…"),
        ("…text then [a link](https://exam…", "…text then a link…"),
        ("…text then {{content:web-…", "…text then…"),
        ("…text then <a href='x…", "…text then…"),
    ],
)
def test_pieces_cut_at_the_edges_of_a_window_go(window: str, plain: str) -> None:
    assert plain_excerpt(window) == plain


def test_a_long_excerpt_is_cut_around_its_mark() -> None:
    words = " ".join(f"w{i}" for i in range(100))
    text = f"{words} \x02needle\x03 {words}"
    cut = trimmed(text, 60)
    assert "\x02needle\x03" in cut
    assert cut.startswith("…")
    assert cut.endswith("…")
    assert len(cut) <= 62


def test_snippets_look_up_every_cited_title_once() -> None:
    asked: list[set[str]] = []

    def lookup(ids: object) -> dict[str, str]:
        asked.append(set(ids))  # type: ignore[call-overload]
        return {"a": "**Title A**"}

    found = with_cited_titles({"x": "see {{content:a}}", "y": "and {{content:b}} too"}, lookup)
    assert found == {"x": "see Title A", "y": "and too"}
    assert asked == [{"a", "b"}]


# -- through the cache: what the list and the command line are given ------------------------


def demo_cache(writer: StoreWriter) -> None:
    """The bundled demo library written into the cache, as a sync would."""
    library = json.loads(resource_path("demo", "library.json").read_text(encoding="utf-8"))
    writer.ingest_search_page(SearchRawResponse.model_validate(library)).result(30)
    writer.flush_index().result(30)


MARKUP = re.compile(r"\*\*|\]\(|\{\{|</?[a-z]+[ >]|^#+ ")


@pytest.mark.parametrize("query", ["outbox", "sleep", "sqlite", "spacing", "burnout", "routine"])
def test_cached_titles_and_snippets_hold_no_markup(
    writer: StoreWriter, reader: CacheReader, query: str
) -> None:
    demo_cache(writer)
    hits = reader.search(query, limit=100)
    assert hits
    for hit in hits:
        assert not MARKUP.search(hit.title), hit.title
        assert not MARKUP.search(hit.snippet.replace("\x02", "").replace("\x03", "")), hit.snippet
    for row in reader.get_many(reader.all_ids()).values():
        assert not MARKUP.search(row.title), row.title
        assert not MARKUP.search(row.snippet_source), row.snippet_source


def test_a_snippet_names_the_item_a_citation_points_at(
    writer: StoreWriter, reader: CacheReader
) -> None:
    demo_cache(writer)
    routine = reader.search_ids("A realistic daily study routine")[0]
    snippet = reader.snippets("consolidation", [routine])[routine]
    cited = reader.get("web-sleep-and-memory")
    assert cited is not None
    assert "{{" not in snippet
    assert "\x02" in snippet
    assert cited.title[:20] in snippet.replace("\x02", "").replace("\x03", "")


@pytest.mark.parametrize(
    ("data", "title"),
    [
        (
            {"id": "n", "text": "**Bold** idea, see [the guide](https://x.example/g)"},
            "Bold idea, see the guide",
        ),
        ({"id": "c", "title": "Chat about {{content:web-1}} <i>things</i>"}, "Chat about things"),
        ({"id": "w", "title": "C++ and snake_case, 2 * 3"}, "C++ and snake_case, 2 * 3"),
    ],
)
def test_the_one_display_title_is_plain_words(data: dict[str, str], title: str) -> None:
    assert display_title(data) == title
