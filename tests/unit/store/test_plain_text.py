"""Titles and snippets read as words: no markdown, link syntax, citations or tags."""

from __future__ import annotations

import pytest

from memex_desktop.store.plain_text import (
    cited_ids,
    plain_excerpt,
    plain_text,
    trimmed,
    with_cited_titles,
)


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
